/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_WIDE_H
#define VPK_WIDE_H

/**
 * @file
 * Wide cores: keep 512-bit code on a few chosen CPUs so that the frequency
 * licence it costs (on Skylake-SP to Cascade Lake: ~2 ms of lower frequency
 * after the last wide instruction) does not slow the scalar code of the
 * other cores. Two forms (docs/corespec.md has the costs measured here):
 *
 *  - Markers (the KIT prototype's with_avx()/without_avx(), in user space):
 *        vpk_wide_begin();   ... 512-bit code ...   vpk_wide_end();
 *    begin moves the calling thread onto the wide-core set with
 *    sched_setaffinity(), end puts its previous affinity mask back. A
 *    migration costs tens of microseconds in a VM, a few on bare metal, so
 *    this pays only for long wide regions that are rarer than the licence
 *    hysteresis.
 *
 *  - A call worker: vpk_wide_call(fn, arg, &ret) runs fn(arg) on a worker
 *    thread pinned to the first wide CPU and waits for it. The request goes
 *    through a single-slot lock-free mailbox; the worker busy-polls for
 *    spin_us after each call, then sleeps on a futex. A hot call costs about
 *    two cache-line round trips (sub-microsecond), a cold one a futex wake.
 *
 * Thread safety: the wide set and the worker are process-wide; set them up
 * before use. Markers keep per-thread state. vpk_wide_call() may be called
 * from any number of threads; calls are serialised (one mailbox).
 */
#include <stdbool.h>
#include <stddef.h>
#include <vpk/isa.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Choose the wide cores: a CPU list such as "1", "2-3" or "0,4-5".
 * @return 0; -EINVAL for a malformed or empty list, or a CPU above
 *         CPU_SETSIZE; -ENODEV if none of the CPUs is one this process may
 *         run on; -EBUSY while the call worker runs.
 */
VPK_API int vpk_wide_set_cores(const char *cpus);

/**
 * The wide cores as a CPU list ("1"), written to @p buf (at most @p len
 * bytes with the NUL). @return the length, -ENOENT if none is set, -ENOSPC
 * if @p buf is too small.
 */
VPK_API int vpk_wide_get_cores(char *buf, size_t len);

/**
 * Start of a wide region: save the calling thread's affinity mask and move
 * the thread onto the wide cores (it runs there when this returns).
 * @return 0; -EBUSY if this thread is already inside a region (regions do
 *         not nest); -ENOENT if no wide cores are set; -errno from
 *         sched_getaffinity()/sched_setaffinity().
 */
VPK_API int vpk_wide_begin(void);

/**
 * End of a wide region: restore the mask saved by vpk_wide_begin().
 * @return 0; -EINVAL if this thread is not inside a region; -errno from
 *         sched_setaffinity() (the region is closed anyway).
 */
VPK_API int vpk_wide_end(void);

/** True while the calling thread is inside a wide region. */
VPK_API bool vpk_wide_active(void);

/** A function run by the wide worker. */
typedef int (*vpk_wide_fn)(void *arg);

/**
 * Start the call worker: a thread pinned to the first wide CPU. After each
 * call it busy-polls for @p spin_us microseconds (0: sleeps at once) before
 * it sleeps on a futex.
 * @return 0; -ENOENT if no wide cores are set; -EALREADY if it runs;
 *         -errno from pthread_create() or from pinning (the thread is then
 *         stopped again).
 */
VPK_API int vpk_wide_worker_start(unsigned spin_us);

/**
 * Stop the call worker and join its thread. Calls in progress finish first.
 * @return 0, or -EINVAL if it is not running.
 */
VPK_API int vpk_wide_worker_stop(void);

/**
 * Run fn(arg) on the wide worker and wait for it; its return value goes to
 * *ret (if @p ret is not NULL). While waiting, the caller spins for a while,
 * then sleeps on a futex. fn must not call vpk_wide_call() itself.
 * @return 0; -EINVAL if @p fn is NULL; -ENOENT if the worker is not running;
 *         -EDEADLK if called from the worker thread.
 */
VPK_API int vpk_wide_call(vpk_wide_fn fn, void *arg, int *ret);

#ifdef __cplusplus
}
#endif

#endif /* VPK_WIDE_H */
