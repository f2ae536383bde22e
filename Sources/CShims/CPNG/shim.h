#ifndef SCANPICK_CPNG_SHIM_H
#define SCANPICK_CPNG_SHIM_H
#include <png.h>

/// `PNG_IMAGE_VERSION` and `PNG_FORMAT_GRAY` as values Swift can import.
static const unsigned int scanpick_png_image_version = PNG_IMAGE_VERSION;
static const unsigned int scanpick_png_format_gray = PNG_FORMAT_GRAY;
#endif
