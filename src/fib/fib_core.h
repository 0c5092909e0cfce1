/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_FIB_CORE_H
#define VPK_FIB_CORE_H

/*
 * What an IPv4 and an IPv6 FIB share (rte_fib's split into a RIB and a `dp`
 * with its ops): the RIB, the QSBR link, the variant chosen, the default
 * next hop, and the ops of the dataplane layout behind it. fib.c (DIR-24-8,
 * bm16) and fib6.c (trie, bm6) keep only what depends on the key width and
 * the layout: validation, the gap writes of add/delete, and the lookup.
 *
 * A route change itself is not an op: each façade runs it under
 * FIB_RCU_UPDATE() with its add/delete code inlined (an indirect call there
 * made DIR-24-8 adds ~10 % slower); the ops serve the cold paths.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include <vpk/isa.h>
#include <vpk/qsbr.h>

#include "fib/fib_rcu.h"
#include "fib/rib.h"

struct fib_core;

/* A dataplane layout (DIR-24-8, bm16, trie, bm6). */
struct fib_dp_ops {
	const char *name;               /* "dir24-8", "bm16", "trie", "bm6" */
	/* Make @impl (one of the layout's variants) answer the lookups. */
	void (*use_impl)(struct fib_core *c, const struct vpk_impl *impl);
	/* Free what deferred freeing parked; returns how many groups/nodes. */
	size_t (*reclaim)(struct fib_core *c);
	/* Park freed groups/nodes until reclaim (on) or reuse them at once. */
	void (*set_defer)(struct fib_core *c, bool on);
};

/*
 * The ops `ops` of a layout whose state is member FIELD of FIB type T (T's
 * first member is its struct fib_core): FIELD.defer switches deferral,
 * RECLAIM(&FIELD) frees what it parked, USE_IMPL picks the lookup.
 */
#define FIB_DP_OPS(ops, NAME, T, FIELD, RECLAIM, USE_IMPL)                      \
	static size_t ops##_reclaim(struct fib_core *c)                         \
	{                                                                       \
		return RECLAIM(&((T *)c)->FIELD);                               \
	}                                                                       \
	static void ops##_set_defer(struct fib_core *c, bool on)                \
	{                                                                       \
		((T *)c)->FIELD.defer = on;                                     \
	}                                                                       \
	static const struct fib_dp_ops ops = { NAME, USE_IMPL, ops##_reclaim, ops##_set_defer }

struct fib_core {
	struct rib rib;
	struct fib_rcu rcu;             /* QSBR link (fib_rcu.h) */
	const struct fib_dp_ops *ops;
	const struct vpk_impl *const *impls;    /* the layout's variants, best first */
	const struct vpk_impl *impl;            /* the one answering */
	uint64_t default_nh;
};

/* Pick the variant for @isa from @impls and set up the RIB: 0, -EINVAL, -ENOTSUP or -ENOMEM. */
int fib_core_init(struct fib_core *c, const struct fib_dp_ops *ops, const struct vpk_impl *const *impls,
		  enum vpk_isa isa, uint8_t key_bits, uint32_t max_routes, uint64_t default_nh);
void fib_core_fini(struct fib_core *c);

/* The next hop covering (k, depth) from above: its parent route's, or the default. */
uint64_t fib_core_cover(const struct fib_core *c, struct rib_key k, uint8_t depth);
/* Exact route (k masked to depth): 0 and *nh, or -ENOENT. */
int fib_core_get(const struct fib_core *c, struct rib_key k, uint8_t depth, uint64_t *nh);
/* Longest-prefix match in the RIB, the default when nothing covers k. */
uint64_t fib_core_lookup_rib(const struct fib_core *c, struct rib_key k);
/* The public select/reclaim/defer/attach calls of both families. */
int fib_core_select(struct fib_core *c, const char *variant);
int fib_core_reclaim(struct fib_core *c);
void fib_core_set_defer(struct fib_core *c, bool on);
void fib_core_attach_qsbr(struct fib_core *c, struct vpk_qsbr *q, bool sync);

/*
 * The public calls that only forward to the core, for FIB type T with
 * prefix P (vpk_fib, vpk_fib6): P_impl_name, P_type_name, P_select,
 * P_set_deferred_free, P_reclaim, P_attach_qsbr. T's first member is its
 * struct fib_core.
 */
#define FIB_CORE_PUBLIC(P, T)                                                   \
	const char *P##_impl_name(const T *fib)                                 \
	{                                                                       \
		return fib == NULL ? "?" : fib->core.impl->name;                \
	}                                                                       \
	const char *P##_type_name(const T *fib)                                 \
	{                                                                       \
		return fib == NULL ? "?" : fib->core.ops->name;                 \
	}                                                                       \
	int P##_select(T *fib, const char *variant)                             \
	{                                                                       \
		return fib == NULL ? -EINVAL : fib_core_select(&fib->core, variant); \
	}                                                                       \
	int P##_set_deferred_free(T *fib, bool on)                              \
	{                                                                       \
		if (fib == NULL)                                                \
			return -EINVAL;                                         \
		fib_core_set_defer(&fib->core, on);                             \
		return 0;                                                       \
	}                                                                       \
	int P##_reclaim(T *fib)                                                 \
	{                                                                       \
		return fib == NULL ? -EINVAL : fib_core_reclaim(&fib->core);    \
	}                                                                       \
	int P##_attach_qsbr(T *fib, struct vpk_qsbr *q, bool sync)              \
	{                                                                       \
		if (fib == NULL)                                                \
			return -EINVAL;                                         \
		fib_core_attach_qsbr(&fib->core, q, sync);                      \
		return 0;                                                       \
	}

/*
 * The statistics every table layout (DIR-24-8, trie) gives, into *st from
 * FIB fib with its table in fib->dp, GROUP entries a group; the caller
 * checked both pointers, and corrects the fields a derived layout (bm16,
 * bm6) answers itself.
 */
#define FIB_CORE_STATS(st, fib, GROUP)                                          \
	do {                                                                    \
		memset((st), 0, sizeof(*(st)));                                 \
		(st)->routes = (fib)->core.rib.nb_routes;                       \
		(st)->tbl8_total = (fib)->dp.num_tbl8;                          \
		(st)->tbl8_used = (fib)->dp.tbl8_used;                          \
		(st)->tbl8_deferred = (fib)->dp.npending;                       \
		(st)->dataplane_bytes = (fib)->dp.tbl24_bytes + (fib)->dp.tbl8_bytes; \
		(st)->dataplane_touched = (fib)->dp.tbl24_bytes +               \
			(size_t)(fib)->dp.tbl8_hwm * (GROUP) * (fib)->dp.nh_sz;  \
		(st)->rib_bytes = vpk_rib_mem(&(fib)->core.rib);                \
	} while (0)

/*
 * vpk_X_walk for FIB type T, prefix P, callback type FN_T and address type
 * ADDR_T (uint32_t, or an array type): KEY_OUT(key, &addr) converts a RIB
 * key to the callback's address form.
 */
#define FIB_CORE_WALK(P, T, FN_T, ADDR_T, KEY_OUT)                              \
	struct P##_walk_ctx {                                                   \
		FN_T fn;                                                        \
		void *arg;                                                      \
	};                                                                      \
	static int P##_walk_one(void *arg, const struct rib_key *key, uint8_t depth, uint64_t nh) \
	{                                                                       \
		struct P##_walk_ctx *w = arg;                                   \
		ADDR_T a;                                                       \
		KEY_OUT(key, &a);                                               \
		return w->fn(w->arg, a, depth, nh);                             \
	}                                                                       \
	int P##_walk(const T *fib, FN_T fn, void *arg)                          \
	{                                                                       \
		struct P##_walk_ctx w = { fn, arg };                            \
		if (fib == NULL || fn == NULL)                                  \
			return -EINVAL;                                         \
		return vpk_rib_walk(&fib->core.rib, P##_walk_one, &w);          \
	}

/*
 * vpk_X_add / vpk_X_del for FIB type T with prefix P and address parameter
 * `ADDR_T ip DIM` (DIM empty, or [16]): the façade's add_route()/del_route() run under
 * FIB_RCU_UPDATE(), inlined (see above).
 */
#define FIB_CORE_UPDATE(P, T, ADDR_T, DIM)                                         \
	static int update(T *fib, bool add, ADDR_T ip DIM, uint8_t depth, uint64_t nh) \
	{                                                                       \
		if (fib == NULL)                                                \
			return -EINVAL;                                         \
		return FIB_RCU_UPDATE(&fib->core.rcu,                           \
				      add ? add_route(fib, ip, depth, nh) : del_route(fib, ip, depth), \
				      fib_core_reclaim(&fib->core));            \
	}                                                                       \
	int P##_add(T *fib, ADDR_T ip DIM, uint8_t depth, uint64_t nh)          \
	{                                                                       \
		return update(fib, true, ip, depth, nh);                        \
	}                                                                       \
	int P##_del(T *fib, ADDR_T ip DIM, uint8_t depth)                       \
	{                                                                       \
		return update(fib, false, ip, depth, 0);                        \
	}

#endif
