/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_CORE_ERRF_H
#define VPK_CORE_ERRF_H

/*
 * The library's one way to explain a failure: control-plane calls take a
 * caller's buffer (err, len; err may be NULL) for the reason and return a
 * negative errno. Internal.
 */
#include <stddef.h>

/* Format the reason into @err (when not NULL and @len > 0) and return @rc. */
int vpk_errf(char *err, size_t len, int rc, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif /* VPK_CORE_ERRF_H */
