/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_ERROR_H
#define VPK_ERROR_H

/**
 * @file
 * Error text. Every call that can fail returns a negative errno; the
 * one-line reason of the last call that failed on this thread (naming the
 * file, line, rule or option where there is one) is vpk_last_error(), as
 * dlerror() does for the dynamic linker. The library never prints.
 */
#include <vpk/isa.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Size of the buffer behind vpk_last_error(), terminating NUL included. */
#define VPK_ERR_LEN 512u

/**
 * The reason of the last failed call on this thread ("" if none yet). A
 * failing call sets it; a successful one may leave an older reason in place,
 * so read it only after a negative return. Thread-local storage: valid until
 * the thread's next vpk call.
 */
VPK_API const char *vpk_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* VPK_ERROR_H */
