/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_FIB_RCU_H
#define VPK_FIB_RCU_H

/*
 * A FIB's link to a QSBR object (vpk_fib_attach_qsbr, vpk_fib6_attach_qsbr).
 * With deferred freeing on, every update that changed the tables takes a
 * token (vpk_qsbr_start() after its stores: everything it unpublished is
 * covered). Only the newest token is kept: it covers every group parked so
 * far, so once readers have passed it the whole parking lot is reclaimed.
 *   - defer-queue mode: the next update reclaims when the token is done
 *     (no waiting); an update that runs out of groups or memory waits for
 *     the readers, reclaims and tries once more;
 *   - sync mode: every update waits for the readers and reclaims before it
 *     returns (DPDK's RTE_FIB_QSBR_MODE_SYNC).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include <vpk/qsbr.h>

struct fib_rcu {
	struct vpk_qsbr *q;
	bool sync;
	bool armed;                     /* token taken, not yet reclaimed */
	uint64_t token;
};

/* True when the parked memory may be reclaimed now (readers passed the token). */
static inline bool
fib_rcu_due(struct fib_rcu *r, bool wait)
{
	if (r->q == NULL || !r->armed || vpk_qsbr_check(r->q, r->token, wait) != 1)
		return false;
	r->armed = false;
	return true;
}

/* An update changed the tables: take a token. True when the caller must
 * reclaim now (sync mode, after waiting for the readers). */
static inline bool
fib_rcu_changed(struct fib_rcu *r)
{
	if (r->q == NULL)
		return false;
	r->token = vpk_qsbr_start(r->q);
	r->armed = true;
	return r->sync && fib_rcu_due(r, true);
}

/* An update failed for lack of groups/memory: true when waiting for the
 * readers freed parked memory worth a retry (the caller reclaims first). */
static inline bool
fib_rcu_retry(struct fib_rcu *r, int rc)
{
	return (rc == -ENOSPC || rc == -ENOMEM) && fib_rcu_due(r, true);
}

/*
 * One route change under the link, the same policy for every FIB: reclaim
 * what is due, run @op, on -ENOSPC/-ENOMEM wait for the readers, reclaim
 * and run it once more, then take a token (sync mode: wait and reclaim).
 * @op and @reclaim are expressions (evaluated up to twice / three times), so
 * the route code is inlined as if written out: a version with function
 * pointers made DIR-24-8 adds ~10 % slower.
 */
#define FIB_RCU_UPDATE(r, op, reclaim)                          \
	__extension__({                                         \
		int rc_;                                        \
		if (fib_rcu_due((r), false))                    \
			(void)(reclaim);                        \
		rc_ = (op);                                     \
		if (fib_rcu_retry((r), rc_)) {                  \
			(void)(reclaim);                        \
			rc_ = (op);                             \
		}                                               \
		if (rc_ == 0 && fib_rcu_changed(r))             \
			(void)(reclaim);                        \
		rc_;                                            \
	})

/* Attach @q (NULL detaches): the old link's parked memory is settled first. */
#define FIB_RCU_ATTACH(r, q_, sync_, reclaim)                    \
	do {                                                    \
		if ((r)->q != NULL && fib_rcu_due((r), true))   \
			(void)(reclaim);                        \
		*(r) = (struct fib_rcu){ .q = (q_), .sync = (sync_) }; \
	} while (0)

#endif
