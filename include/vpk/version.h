/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_VERSION_H
#define VPK_VERSION_H

/**
 * @file
 * The library's version. The macros are the version of the headers a program
 * was compiled with; vpk_version() is the version of the library it runs
 * with (they differ when a program meets another libvpk.so at run time).
 * The top-level CMakeLists.txt reads the project version from this file.
 */
#include <vpk/isa.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VPK_VERSION_MAJOR 0
#define VPK_VERSION_MINOR 1
#define VPK_VERSION_PATCH 0
/** "MAJOR.MINOR.PATCH" */
#define VPK_VERSION "0.1.0"
/** One comparable number: MAJOR * 10000 + MINOR * 100 + PATCH. */
#define VPK_VERSION_NUM (VPK_VERSION_MAJOR * 10000 + VPK_VERSION_MINOR * 100 + VPK_VERSION_PATCH)

/** The version of the running library, "MAJOR.MINOR.PATCH" (static storage). */
VPK_API const char *vpk_version(void);

/** The running library's VPK_VERSION_NUM. */
VPK_API unsigned vpk_version_num(void);

#ifdef __cplusplus
}
#endif

#endif /* VPK_VERSION_H */
