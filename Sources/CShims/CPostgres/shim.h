#ifndef SCANPICK_CPOSTGRES_SHIM_H
#define SCANPICK_CPOSTGRES_SHIM_H
#include <libpq-fe.h>

/// `PG_DIAG_SQLSTATE` is a character macro: the field code of an error's five-character SQLSTATE.
static const int scanpick_pg_diag_sqlstate = PG_DIAG_SQLSTATE;
#endif
