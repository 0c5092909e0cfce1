/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_QSBR_H
#define VPK_QSBR_H

/**
 * @file
 * Quiescent-state-based reclamation (QSBR), the scheme of DPDK's rte_rcu_qsbr
 * and of the Linux kernel's RCU: a writer may free memory that lock-free
 * readers could still be looking at only after every reader has passed a
 * *quiescent state*, a point where it holds no reference into the shared
 * structure (for a packet worker: between two bursts).
 *
 *   reader thread                           writer (control plane)
 *   vpk_qsbr_thread_register(q, id)
 *   vpk_qsbr_thread_online(q, id)
 *   loop:                                   unpublish X (atomic store)
 *       lookups ...                         t = vpk_qsbr_start(q)
 *       vpk_qsbr_quiescent(q, id)           ... later: vpk_qsbr_check(q, t, wait)
 *   vpk_qsbr_thread_offline(q, id)              == 1: no reader can still see X, free it
 *
 * A reader costs one load and one store per quiescent state (its own cache
 * line, no read-modify-write). An offline reader (blocked in poll(), idle) is
 * not waited for; it must not touch the structure until it is online again.
 *
 * Threads are named by small ids 0..max_threads-1 chosen by the caller (a
 * worker index). Any number of readers; vpk_qsbr_start() and vpk_qsbr_check()
 * may be called from several writers at once. The FIB uses this object for
 * its freed tbl8 groups: vpk_fib_attach_qsbr(), vpk_fib6_attach_qsbr().
 */
#include <stdbool.h>
#include <stdint.h>

#include <vpk/isa.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest max_threads vpk_qsbr_create() accepts. */
#define VPK_QSBR_MAX_THREADS 1024u

struct vpk_qsbr;

/** QSBR parameters. Zero-initialise, then set what you need. */
struct vpk_qsbr_conf {
	uint32_t max_threads;           /**< Reader ids 0..max_threads-1; 1..VPK_QSBR_MAX_THREADS. */
};

/**
 * Create a QSBR object.
 * @return 0; -EINVAL when conf or out is NULL or max_threads is 0 or above
 *         VPK_QSBR_MAX_THREADS; -ENOMEM.
 */
VPK_API int vpk_qsbr_create(const struct vpk_qsbr_conf *conf, struct vpk_qsbr **out);

/** Free the object (NULL is fine). No thread may use it any more. */
VPK_API void vpk_qsbr_destroy(struct vpk_qsbr *q);

/**
 * Register reader @p id: from now on vpk_qsbr_check() waits for it while it
 * is online. A registered reader starts offline.
 * @return 0; -EINVAL when id is out of range; -EEXIST when already registered.
 */
VPK_API int vpk_qsbr_thread_register(struct vpk_qsbr *q, uint32_t id);

/**
 * Unregister reader @p id (it must be offline or stop reading first).
 * @return 0; -EINVAL when id is out of range; -ENOENT when not registered.
 */
VPK_API int vpk_qsbr_thread_unregister(struct vpk_qsbr *q, uint32_t id);

/**
 * Reader @p id is about to read the shared structures (again). Call before
 * the first lookup and after every vpk_qsbr_thread_offline(). Includes a
 * full memory barrier so later reads cannot move before it.
 * @return 0; -EINVAL (NULL q, id out of range); -ENOENT (id not registered).
 */
VPK_API int vpk_qsbr_thread_online(struct vpk_qsbr *q, uint32_t id);

/**
 * Reader @p id holds no references and will not read until it goes online.
 * @return 0; -EINVAL (NULL q, id out of range); -ENOENT (id not registered).
 */
VPK_API int vpk_qsbr_thread_offline(struct vpk_qsbr *q, uint32_t id);

/**
 * Reader @p id passed a quiescent state: it holds no reference obtained
 * before this call. Inline fast path: one acquire load, one release store,
 * no checks: @p id must be registered and online (vpk_qsbr_thread_online()
 * returned 0 for it).
 */
static inline void vpk_qsbr_quiescent(struct vpk_qsbr *q, uint32_t id);

/**
 * Writer: everything unpublished before this call is reclaimable once
 * vpk_qsbr_check() says the returned token is done. (0 for a NULL q.)
 */
VPK_API uint64_t vpk_qsbr_start(struct vpk_qsbr *q);

/**
 * Has every registered, online reader passed a quiescent state (or gone
 * offline) since vpk_qsbr_start() returned @p token?
 * @param wait  false: look once; true: spin (with sched_yield) until done.
 * @return 1 done, 0 not yet (only when !wait), -EINVAL for a NULL q.
 */
VPK_API int vpk_qsbr_check(struct vpk_qsbr *q, uint64_t token, bool wait);

/** Registered reader ids, for statistics. */
VPK_API uint32_t vpk_qsbr_thread_count(const struct vpk_qsbr *q);

/* ---- inline fast path (layout private; do not use the fields) ---- */

/** @cond internal */
struct vpk_qsbr_slot_ {
	uint64_t cnt;           /* 0 offline, else the token last seen at a quiescent state */
	uint8_t pad_[56];
};
struct vpk_qsbr_hdr_ {
	uint64_t token;         /* last token handed out by vpk_qsbr_start(); starts at 1 */
	uint32_t max_threads;
	uint32_t pad_[13];
	struct vpk_qsbr_slot_ slot[];
};
/** @endcond */

static inline void
vpk_qsbr_quiescent(struct vpk_qsbr *q, uint32_t id)
{
	struct vpk_qsbr_hdr_ *h = (struct vpk_qsbr_hdr_ *)q;
	uint64_t t = __atomic_load_n(&h->token, __ATOMIC_ACQUIRE);

	/* Release: every read of this reader before here happens-before a
	 * writer's acquire load that sees this value. */
	__atomic_store_n(&h->slot[id].cnt, t, __ATOMIC_RELEASE);
}

#ifdef __cplusplus
}
#endif

#endif /* VPK_QSBR_H */
