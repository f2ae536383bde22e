#ifndef SCANPICK_CZBAR_SHIM_H
#define SCANPICK_CZBAR_SHIM_H
#include <zbar.h>

/// ZBar's fourcc for 8-bit grey ("Y800"); `zbar_fourcc` is a macro Swift cannot import.
static const unsigned long scanpick_zbar_fourcc_y800 =
    ((unsigned long)'Y') | ((unsigned long)'8' << 8) | ((unsigned long)'0' << 16) |
    ((unsigned long)'0' << 24);
#endif
