/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_CORE_ERRF_H
#define VPK_CORE_ERRF_H

/*
 * The library's one way to explain a failure (<vpk/error.h>): a negative
 * errno, and the reason in this thread's vpk_last_error() buffer. Internal
 * helpers format into a buffer they are given (err, len; err may be NULL);
 * public entry points give them vpk_errbuf(). Internal.
 */
#include <stddef.h>

#include <vpk/error.h>

/* Format the reason into @err (when not NULL and @len > 0) and return @rc. */
int vpk_errf(char *err, size_t len, int rc, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* This thread's vpk_last_error() buffer (VPK_ERR_LEN bytes). */
char *vpk_errbuf(void);

/* Copy this thread's reason to @err (unless @err is that buffer) and return @rc. */
int vpk_errcopy(char *err, size_t len, int rc);

/* Set this thread's reason and return @rc. */
int vpk_seterr(int rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* VPK_CORE_ERRF_H */
