#ifndef SCANPICK_CBUILDVERSION_H
#define SCANPICK_CBUILDVERSION_H

/// The package version scripts/package-deb baked into this build (`0.1.0+20261205.36fdbf4`), or ""
/// for a build from a source checkout. A function, not a macro, so that only build_version.c is
/// compiled again when the version changes: the Swift that reads it is not.
const char *scanpick_package_version(void);

#endif
