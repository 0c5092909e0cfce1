/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_CORESPEC_WIDE_PRIV_H
#define VPK_CORESPEC_WIDE_PRIV_H
/* Shared between wide.c (the wide-core set, markers) and wide_call.c (the
 * call worker). Both take vpk_wide_lock for the set and the worker state. */
#include <pthread.h>
#include <stdbool.h>

extern pthread_mutex_t vpk_wide_lock;
/* Under vpk_wide_lock: the lowest wide CPU, or -ENOENT. */
int vpk_wide_first_cpu_locked(void);
/* Under vpk_wide_lock: the call worker runs. */
extern bool vpk_wide_worker_running;

#endif
