/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 FIB façade (include/vpk/fib.h): parameter validation, rte_fib
 * add/delete semantics on top of the RIB (rib.c) and the DIR-24-8 dataplane
 * (dir24_8.c), and variant selection.
 *
 * Add (prefix P, depth d, nh):
 *   1. validate, clear host bits;
 *   2. P present: same nh -> nothing; else replace in the RIB and rewrite P's
 *      range except the first-level more-specific routes inside it;
 *   3. new and d > 24 and no other route > /24 in P's /24: it needs a tbl8
 *      group -> -ENOSPC now if every group is reserved (nothing changed);
 *   4. RIB insert (-ENOMEM: nothing changed), then write the gaps unless the
 *      covering route already gives the same next hop.
 * Delete: rewrite P's gaps with the covering route's nh (or the default),
 * remove it from the RIB, release the /24's reservation if it was its last
 * route longer than /24.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/fib.h>

#include "fib/bm16.h"
#include "fib/dir24_8.h"
#include "fib/fib_core.h"

struct vpk_fib {
	struct fib_core core;           /* first: the ops get it back by a cast */
	enum vpk_fib_type type;
	struct vpk_fib_conf conf;
	uint32_t rsvd_tbl8;
	uint32_t tbl8_limit;            /* num_tbl8 rounded: /24s with routes > /24 allowed */
	dir24_8_lookup_fn lookup;       /* DIR24_8, or BM16 fallback when bm16 ran out of memory */
	bm16_lookup_fn bm_lookup;       /* BM16 */
	bool bm_active;
	struct dir24_8 dp;
	struct bm16 bm;
};

/* BM16: its DIR-24-8 copy lives in the control plane only. */
#define BM16_SHADOW_TBL8 (1u << 20)

/*
 * The layout VPK_FIB_TYPE_DEFAULT stands for, per next-hop width: DIR-24-8,
 * except at 1 byte, where its 127 groups cannot hold a real table and bm16
 * (no group index in its entries) can. bm16 is not the default at 4 bytes,
 * although only it meets the 16 MiB dataplane target: in the forwarder's
 * frame-sized calls (~230 keys) its lookups cost about twice DIR-24-8's
 * (docs/fib.md "The default layout").
 */
static enum vpk_fib_type
default_type(unsigned nh_size)
{
	return nh_size == 1 ? VPK_FIB_BM16 : VPK_FIB_DIR24_8;
}

uint64_t
vpk_fib_max_nh(unsigned nh_size)
{
	switch (nh_size) {
	case 1: case 2: case 4: case 8:
		return (UINT64_C(1) << (8 * nh_size - 1)) - 1;
	default:
		return 0;
	}
}

static inline uint32_t
mask4(uint32_t ip, uint8_t depth)
{
	return depth == 0 ? 0 : ip & (~UINT32_C(0) << (32 - depth));
}

uint32_t
vpk_fib_max_tbl8(enum vpk_fib_type type, unsigned nh_size)
{
	uint64_t max_nh = vpk_fib_max_nh(nh_size);

	if (max_nh == 0 || (unsigned)type >= VPK_FIB_TYPE_COUNT)
		return 0;
	if (type == VPK_FIB_TYPE_DEFAULT)
		type = default_type(nh_size);
	if (type == VPK_FIB_BM16)      /* no group index in its entries */
		return nh_size <= 4 ? BM16_SHADOW_TBL8 : 0;
	return max_nh < DIR24_8_MAX_TBL8 ? (uint32_t)max_nh : DIR24_8_MAX_TBL8;
}

const struct vpk_impl *const *
vpk_fib_impls(enum vpk_fib_type type)
{
	switch (type) {
	case VPK_FIB_TYPE_DEFAULT:     /* the default's at 2, 4 and 8 bytes */
	case VPK_FIB_DIR24_8:
		return vpk_dir24_8_impls;
	case VPK_FIB_BM16:
		return vpk_bm16_impls;
	default:
		return NULL;
	}
}

/* ---- the two layouts' ops (fib_core.h) ---- */

static void
dir_use_impl(struct fib_core *c, const struct vpk_impl *impl)
{
	struct vpk_fib *fib = (struct vpk_fib *)c;

	fib->lookup = ((const struct dir24_8_impl *)impl)->lookup[fib->dp.nh_log];
}

static void
bm_use_impl(struct fib_core *c, const struct vpk_impl *impl)
{
	((struct vpk_fib *)c)->bm_lookup = ((const struct bm16_impl *)impl)->lookup;
}

FIB_DP_OPS(dir24_8_ops, "dir24-8", struct vpk_fib, dp, vpk_dir24_8_reclaim, dir_use_impl);
/* bm16 defers its own nodes; its DIR-24-8 copy has no readers and recycles at once. */
FIB_DP_OPS(bm16_ops, "bm16", struct vpk_fib, bm, vpk_bm16_reclaim, bm_use_impl);

/*
 * BM16 could not allocate: answer from its DIR-24-8 copy from now on (still
 * exact). Lookups may run: the function is stored before bm_active is
 * cleared by a release store, which their acquire load pairs with.
 */
static void
bm16_fallback(struct vpk_fib *fib)
{
	const struct vpk_impl *impl;

	if (vpk_impl_pick(vpk_dir24_8_impls, VPK_ISA_AUTO, &impl) == 0)
		__atomic_store_n(&fib->lookup, ((const struct dir24_8_impl *)impl)->lookup[fib->dp.nh_log],
				 __ATOMIC_RELAXED);
	__atomic_store_n(&fib->bm_active, false, __ATOMIC_RELEASE);
}

int
vpk_fib_create(const struct vpk_fib_conf *conf, struct vpk_fib **out)
{
	struct vpk_fib *fib;
	uint64_t max_nh;
	uint64_t ntbl8;
	int rc;

	if (conf == NULL || out == NULL || conf->type >= VPK_FIB_TYPE_COUNT)
		return -EINVAL;
	max_nh = vpk_fib_max_nh(conf->nh_size);
	if (max_nh == 0 || conf->default_nh > max_nh || conf->max_routes == 0)
		return -EINVAL;
	enum vpk_fib_type type = conf->type == VPK_FIB_TYPE_DEFAULT ? default_type(conf->nh_size) : conf->type;
	uint32_t max_tbl8 = vpk_fib_max_tbl8(type, conf->nh_size);
	if (max_tbl8 == 0 || conf->num_tbl8 == 0 || conf->num_tbl8 > max_tbl8)
		return -EINVAL;             /* also VPK_FIB_BM16 at 8 bytes */
	/* rte_fib rounds the group count up to a multiple of 64; DIR-24-8's group
	 * index must still fit the entry: at most max_nh + 1 groups (index <= max_nh). */
	ntbl8 = (conf->num_tbl8 + UINT64_C(63)) & ~UINT64_C(63);
	if (type == VPK_FIB_DIR24_8 && ntbl8 > max_nh + 1)
		ntbl8 = max_nh + 1;
	if (ntbl8 > DIR24_8_MAX_TBL8)
		ntbl8 = DIR24_8_MAX_TBL8;
	fib = calloc(1, sizeof(*fib));
	if (fib == NULL)
		return -ENOMEM;
	fib->type = type;
	fib->conf = *conf;
	fib->tbl8_limit = (uint32_t)ntbl8;
	rc = fib_core_init(&fib->core, type == VPK_FIB_BM16 ? &bm16_ops : &dir24_8_ops, vpk_fib_impls(type),
			   conf->isa, 32, conf->max_routes, conf->default_nh);
	if (rc != 0) {
		free(fib);
		return rc;
	}
	if (type == VPK_FIB_BM16)
		ntbl8 = BM16_SHADOW_TBL8;
	if (vpk_dir24_8_init(&fib->dp, type == VPK_FIB_BM16 ? 4 : conf->nh_size, (uint32_t)ntbl8,
			     conf->default_nh) != 0)
		goto nomem;
	if (type == VPK_FIB_BM16) {
		if (vpk_bm16_init(&fib->bm, conf->default_nh) != 0) {
			vpk_dir24_8_fini(&fib->dp);
			goto nomem;
		}
		/* Narrow flat nodes (16-bit entries) where nh << 1 fits 16 bits. */
		if (conf->nh_size <= 2) {
			fib->bm.narrow = true;
			fib->bm.flat_min = BM16_FLAT_MIN_NARROW;
		}
		fib->bm_active = true;
	}
	fib->core.ops->use_impl(&fib->core, fib->core.impl);
	*out = fib;
	return 0;
nomem:
	fib_core_fini(&fib->core);
	free(fib);
	return -ENOMEM;
}

void
vpk_fib_destroy(struct vpk_fib *fib)
{
	if (fib == NULL)
		return;
	vpk_dir24_8_fini(&fib->dp);
	if (fib->type == VPK_FIB_BM16)
		vpk_bm16_fini(&fib->bm);
	fib_core_fini(&fib->core);
	free(fib);
}

struct gap_ctx {
	struct dir24_8 *dp;
	uint64_t cursor;        /* first address not yet written */
	uint64_t nh;
};

static int
gap_child(void *arg, const struct rib_key *key, uint8_t depth, uint64_t nh)
{
	struct gap_ctx *g = arg;
	uint64_t start = key->hi >> 32;
	uint64_t end = start + (UINT64_C(1) << (32 - depth)) - 1;

	(void)nh;
	if (start > g->cursor)
		vpk_dir24_8_write_range(g->dp, g->cursor, start - 1, g->nh);
	g->cursor = end + 1;
	return 0;
}

/* Write nh over prefix (ip, depth) -- RIB node `node` -- except its first-level more-specific routes. */
static void
write_gaps(struct vpk_fib *fib, uint32_t node, uint32_t ip, uint8_t depth, uint64_t nh)
{
	struct gap_ctx g = { &fib->dp, ip, nh };
	uint64_t end = (uint64_t)ip + (UINT64_C(1) << (32 - depth)) - 1;

	vpk_rib_children_of(&fib->core.rib, node, gap_child, &g);
	if (g.cursor <= end)
		vpk_dir24_8_write_range(&fib->dp, g.cursor, end, nh);
	if (fib->bm_active && vpk_bm16_update(&fib->bm, &fib->dp, ip, (uint32_t)end) != 0)
		bm16_fallback(fib);
}

static int
add_route(struct vpk_fib *fib, uint32_t ip, uint8_t depth, uint64_t nh)
{
	bool existed, need_group = false, has_parent;
	uint64_t cover, old;
	uint32_t node;
	int rc;

	if (fib == NULL || depth > 32 || nh > vpk_fib_max_nh(fib->conf.nh_size))
		return -EINVAL;
	ip = mask4(ip, depth);
	/* A route > /24 alone in its /24 needs a group reserved (an existing one finds itself). */
	if (depth > 24 && !vpk_rib_has_longer(&fib->core.rib, rib_key4(ip & ~UINT32_C(0xff)), 24))
		need_group = true;
	/* Groups a write may take <= reserved /24s without one; parked groups are not free. */
	if (fib->rsvd_tbl8 + need_group + fib->dp.npending > fib->tbl8_limit)
		return -ENOSPC;
	rc = vpk_rib_insert_at(&fib->core.rib, rib_key4(ip), depth, nh, &existed, &node, &old, &has_parent, &cover);
	if (rc != 0)
		return rc;
	if (existed) {
		if (old != nh)
			write_gaps(fib, node, ip, depth, nh);
		return 0;
	}
	if (need_group)
		fib->rsvd_tbl8++;
	if (!has_parent)
		cover = fib->conf.default_nh;
	if (cover != nh)
		write_gaps(fib, node, ip, depth, nh);
	return 0;
}

static int
del_route(struct vpk_fib *fib, uint32_t ip, uint8_t depth)
{
	uint32_t node;
	uint64_t pnh;
	bool has_parent;

	if (fib == NULL || depth > 32)
		return -EINVAL;
	ip = mask4(ip, depth);
	node = vpk_rib_find_with_parent(&fib->core.rib, rib_key4(ip), depth, &has_parent, &pnh);
	if (node == RIB_NIL)
		return -ENOENT;
	if (!has_parent)
		pnh = fib->conf.default_nh;
	if (pnh != fib->core.rib.nodes[node].nh) {
		if (fib->rsvd_tbl8 + fib->dp.npending > fib->tbl8_limit)
			return -ENOSPC;         /* only with parked groups (deferred freeing) */
		write_gaps(fib, node, ip, depth, pnh);
	}
	vpk_rib_remove(&fib->core.rib, rib_key4(ip), depth);
	if (depth > 24 && !vpk_rib_has_longer(&fib->core.rib, rib_key4(ip & ~UINT32_C(0xff)), 24))
		fib->rsvd_tbl8--;
	return 0;
}

int
vpk_fib_get(const struct vpk_fib *fib, uint32_t ip, uint8_t depth, uint64_t *nh)
{
	if (fib == NULL || nh == NULL || depth > 32)
		return -EINVAL;
	return fib_core_get(&fib->core, rib_key4(ip), depth, nh);
}

void
vpk_fib_lookup_bulk(const struct vpk_fib *fib, const uint32_t *ips, uint64_t *nhs, size_t n)
{
	if (__atomic_load_n(&fib->bm_active, __ATOMIC_ACQUIRE))     /* bm16_fallback() may clear it */
		fib->bm_lookup(&fib->bm, ips, nhs, n);
	else
		__atomic_load_n(&fib->lookup, __ATOMIC_RELAXED)(&fib->dp, ips, nhs, n);
}

/* A RIB key as vpk_fib_walk() reports it. */
static inline void
key_out4(const struct rib_key *key, uint32_t *ip)
{
	*ip = (uint32_t)(key->hi >> 32);
}

FIB_CORE_WALK(vpk_fib, struct vpk_fib, vpk_fib_walk_fn, uint32_t, key_out4)

int
vpk_fib_get_stats(const struct vpk_fib *fib, struct vpk_fib_stats *st)
{
	if (fib == NULL || st == NULL)
		return -EINVAL;
	FIB_CORE_STATS(st, fib, DIR24_8_GROUP);
	st->tbl8_reserved = fib->rsvd_tbl8;
	if (fib->type == VPK_FIB_BM16) {
		st->tbl8_total = fib->tbl8_limit;
		st->tbl8_deferred = (uint32_t)fib->bm.npending;
		st->rib_bytes += st->dataplane_touched;
		st->dataplane_bytes = st->dataplane_touched = vpk_bm16_bytes(&fib->bm);
	}
	return 0;
}

enum vpk_fib_type
vpk_fib_get_type(const struct vpk_fib *fib)
{
	return fib == NULL ? VPK_FIB_TYPE_DEFAULT : fib->type;
}

uint64_t
vpk_fib_lookup_rib(const struct vpk_fib *fib, uint32_t ip)
{
	return fib_core_lookup_rib(&fib->core, rib_key4(ip));
}

FIB_CORE_PUBLIC(vpk_fib, struct vpk_fib)

/* ---- updates through the QSBR link (fib_rcu.h) ---- */

FIB_CORE_UPDATE(vpk_fib, struct vpk_fib, uint32_t, )
