#ifndef SCANPICK_CMICROHTTPDERRORS_H
#define SCANPICK_CMICROHTTPDERRORS_H

/// Queues one of the server's own responses on a connection (`MHD_queue_response`, whose calls from
/// libmicrohttpd itself this target answers in JSON instead of HTML; see mhd_errors.c). Takes a
/// `struct MHD_Connection *` and a `struct MHD_Response *`; returns an `enum MHD_Result`.
int scanpick_mhd_queue_own(void *connection, unsigned int status, void *response);

#endif
