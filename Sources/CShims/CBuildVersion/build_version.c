#include "CBuildVersion.h"

// scripts/package-deb writes generated/package_version.h (gitignored) before its release build and
// touches this file so that it is compiled again; a checkout has no such header.
#if __has_include("generated/package_version.h")
#include "generated/package_version.h"
#endif
#ifndef SCANPICK_PACKAGE_VERSION
#define SCANPICK_PACKAGE_VERSION ""
#endif

const char *scanpick_package_version(void) { return SCANPICK_PACKAGE_VERSION; }
