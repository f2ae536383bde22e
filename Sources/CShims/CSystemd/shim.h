#ifndef SCANPICK_CSYSTEMD_SHIM_H
#define SCANPICK_CSYSTEMD_SHIM_H
#include <systemd/sd-daemon.h>
#endif
