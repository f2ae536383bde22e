#ifndef SCANPICK_CTURBOJPEG_SHIM_H
#define SCANPICK_CTURBOJPEG_SHIM_H
#include <turbojpeg.h>
#endif
