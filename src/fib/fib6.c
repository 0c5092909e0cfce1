/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 FIB façade (include/vpk/fib6.h): validation, rte_fib6 add/delete
 * semantics on the shared RIB (rib.c, 128-bit keys) and the trie dataplane
 * (trie6.c), variant selection. VPK_FIB6_BM6 keeps the trie as a
 * control-plane copy and derives the compressed dataplane (bm6.c) from it
 * after every change.
 *
 * Every change rewrites the "gaps" of one prefix: its range minus its
 * first-level more-specific routes. Before anything changes, the groups the
 * gap writes would allocate are counted on the current tables (a dry run;
 * it may over-count when two gaps share a group, never under-count) and the
 * change fails with -ENOSPC if fewer are free.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/fib6.h>

#include "fib/bm6.h"
#include "fib/fib_core.h"
#include "fib/trie6.h"

struct vpk_fib6 {
	struct fib_core core;           /* first: the ops get it back by a cast */
	struct vpk_fib6_conf conf;
	enum vpk_fib6_type type;        /* resolved: VPK_FIB6_TRIE or VPK_FIB6_BM6 */
	trie6_lookup_fn lookup;         /* TRIE */
	bm6_lookup_fn bm_lookup;        /* BM6 */
	struct trie6 dp;                /* TRIE: the dataplane; BM6: its control-plane source */
	struct bm6 bm;
};

/*
 * The layout VPK_FIB6_TYPE_DEFAULT stands for: bm6 at every width (at 2
 * bytes too: with its direct byte-2/3 nodes and pipelined walk it is faster
 * than the trie in-table, docs/fib.md).
 * vpk_fib6_impls() lists bm6's variants.
 */
#define FIB6_DEFAULT VPK_FIB6_BM6

uint64_t
vpk_fib6_max_nh(unsigned nh_size)
{
	return nh_size == 2 || nh_size == 4 || nh_size == 8 ? (UINT64_C(1) << (8 * nh_size - 1)) - 1 : 0;
}

static struct rib_key
key_of(const uint8_t ip[16])
{
	struct rib_key k = { 0, 0 };

	for (int i = 0; i < 8; i++) {
		k.hi = k.hi << 8 | ip[i];
		k.lo = k.lo << 8 | ip[8 + i];
	}
	return k;
}

static inline u128
u128_of(struct rib_key k)
{
	return (u128)k.hi << 64 | k.lo;
}

static inline u128
last_of(struct rib_key k, unsigned depth)
{
	u128 span = depth == 0 ? ~(u128)0 : ((((u128)1) << (128 - depth)) - 1);

	return u128_of(k) | span;
}

const struct vpk_impl *const *
vpk_fib6_impls(enum vpk_fib6_type type)
{
	if (type == VPK_FIB6_TYPE_DEFAULT)
		type = FIB6_DEFAULT;
	return type == VPK_FIB6_TRIE ? vpk_trie6_impls : type == VPK_FIB6_BM6 ? vpk_bm6_impls : NULL;
}

/* ---- the two layouts' ops (fib_core.h) ---- */

static void
trie_use_impl(struct fib_core *c, const struct vpk_impl *impl)
{
	struct vpk_fib6 *fib = (struct vpk_fib6 *)c;

	fib->lookup = ((const struct trie6_impl *)impl)->lookup[fib->dp.nh_log - 1];
}

static void
bm_use_impl(struct fib_core *c, const struct vpk_impl *impl)
{
	struct vpk_fib6 *fib = (struct vpk_fib6 *)c;

	fib->bm_lookup = ((const struct bm6_impl *)impl)->lookup[fib->bm.ent64];
}

FIB_DP_OPS(trie6_ops, "trie", struct vpk_fib6, dp, vpk_trie6_reclaim, trie_use_impl);
/* bm6 defers its own nodes; the trie copy has no readers and recycles at once. */
FIB_DP_OPS(bm6_ops, "bm6", struct vpk_fib6, bm, vpk_bm6_reclaim, bm_use_impl);

int
vpk_fib6_create(const struct vpk_fib6_conf *conf, struct vpk_fib6 **out)
{
	uint64_t max_nh;
	int rc;

	if (conf == NULL || out == NULL || conf->type >= VPK_FIB6_TYPE_COUNT)
		return -EINVAL;
	max_nh = vpk_fib6_max_nh(conf->nh_size);
	if (max_nh == 0 || conf->default_nh > max_nh || conf->max_routes == 0 || conf->num_tbl8 == 0 ||
	    conf->num_tbl8 > max_nh || conf->num_tbl8 > TRIE6_MAX_TBL8)
		return -EINVAL;
	enum vpk_fib6_type type = conf->type != VPK_FIB6_TYPE_DEFAULT ? conf->type
				  : FIB6_DEFAULT;
	struct vpk_fib6 *fib = calloc(1, sizeof(*fib));
	if (fib == NULL)
		return -ENOMEM;
	fib->conf = *conf;
	fib->type = type;
	rc = fib_core_init(&fib->core, type == VPK_FIB6_BM6 ? &bm6_ops : &trie6_ops, vpk_fib6_impls(type),
			   conf->isa, 128, conf->max_routes, conf->default_nh);
	if (rc != 0) {
		free(fib);
		return rc;
	}
	if (vpk_trie6_init(&fib->dp, conf->nh_size, conf->num_tbl8, conf->default_nh) != 0)
		goto nomem;
	if (type == VPK_FIB6_BM6 && vpk_bm6_init(&fib->bm, &fib->dp) != 0) {
		vpk_trie6_fini(&fib->dp);
		goto nomem;
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
vpk_fib6_destroy(struct vpk_fib6 *fib)
{
	if (fib == NULL)
		return;
	if (fib->type == VPK_FIB6_BM6)
		vpk_bm6_fini(&fib->bm, &fib->dp);
	vpk_trie6_fini(&fib->dp);
	fib_core_fini(&fib->core);
	free(fib);
}

struct gaps {
	struct trie6 *dp;
	u128 cursor;
	bool done;              /* cursor passed the top of the address space */
	uint64_t nh;
	bool dry;
	uint64_t need;
};

static void
gap(struct gaps *g, u128 a, u128 b)
{
	if (g->dry)
		g->need += vpk_trie6_groups_needed(g->dp, a, b, g->nh);
	else
		vpk_trie6_write_range(g->dp, a, b, g->nh);
}

static int
gap_child(void *arg, const struct rib_key *key, uint8_t depth, uint64_t nh)
{
	struct gaps *g = arg;
	u128 s = u128_of(*key), e = last_of(*key, depth);

	(void)nh;
	if (s > g->cursor)
		gap(g, g->cursor, s - 1);
	if (e == ~(u128)0)
		g->done = true;
	else
		g->cursor = e + 1;
	return 0;
}

/* Dry: groups needed. Else: write nh over the gaps of (k, depth). */
static uint64_t
gaps(struct vpk_fib6 *fib, struct rib_key k, uint8_t depth, uint64_t nh, bool dry)
{
	struct gaps g = { &fib->dp, u128_of(k), false, nh, dry, 0 };
	u128 end = last_of(k, depth);

	vpk_rib_children(&fib->core.rib, k, depth, gap_child, &g);
	if (!g.done && g.cursor <= end)
		gap(&g, g.cursor, end);
	return g.need;
}

/*
 * -ENOSPC if the gap writes of (k, depth) with nh could run out of groups
 * (or, for BM6, of node arena space); 0 otherwise.
 */
static int
check_room(struct vpk_fib6 *fib, struct rib_key k, uint8_t depth, uint64_t nh)
{
	uint64_t need = gaps(fib, k, depth, nh, true);

	if (need > fib->dp.nfree)
		return -ENOSPC;
	if (fib->type == VPK_FIB6_BM6 && !vpk_bm6_room(&fib->bm, &fib->dp, u128_of(k), last_of(k, depth), need))
		return -ENOSPC;
	return 0;
}

/* Write, then (BM6) rebuild and publish the touched nodes. */
static void
apply(struct vpk_fib6 *fib, struct rib_key k, uint8_t depth, uint64_t nh)
{
	gaps(fib, k, depth, nh, false);
	if (fib->type == VPK_FIB6_BM6)
		vpk_bm6_sync(&fib->bm, &fib->dp);
}

static int
add_route(struct vpk_fib6 *fib, const uint8_t ip[16], uint8_t depth, uint64_t nh)
{
	bool existed;

	if (fib == NULL || ip == NULL || depth > 128 || nh > vpk_fib6_max_nh(fib->conf.nh_size))
		return -EINVAL;
	struct rib_key k = vpk_rib_key_mask(key_of(ip), depth);
	uint32_t node = vpk_rib_find(&fib->core.rib, k, depth);
	uint64_t cur = node != RIB_NIL ? fib->core.rib.nodes[node].nh : fib_core_cover(&fib->core, k, depth);
	if (node != RIB_NIL && cur == nh)
		return 0;
	bool write = cur != nh;
	if (write && check_room(fib, k, depth, nh) != 0)
		return -ENOSPC;
	int rc = vpk_rib_insert(&fib->core.rib, k, depth, nh, &existed);
	if (rc != 0)
		return rc;
	if (write)
		apply(fib, k, depth, nh);
	return 0;
}

static int
del_route(struct vpk_fib6 *fib, const uint8_t ip[16], uint8_t depth)
{
	if (fib == NULL || ip == NULL || depth > 128)
		return -EINVAL;
	struct rib_key k = vpk_rib_key_mask(key_of(ip), depth);
	uint32_t node = vpk_rib_find(&fib->core.rib, k, depth);
	if (node == RIB_NIL)
		return -ENOENT;
	uint64_t pnh = fib_core_cover(&fib->core, k, depth);
	if (pnh != fib->core.rib.nodes[node].nh) {
		if (check_room(fib, k, depth, pnh) != 0)
			return -ENOSPC;
		apply(fib, k, depth, pnh);
	}
	vpk_rib_remove(&fib->core.rib, k, depth);
	return 0;
}

int
vpk_fib6_get(const struct vpk_fib6 *fib, const uint8_t ip[16], uint8_t depth, uint64_t *nh)
{
	if (fib == NULL || ip == NULL || nh == NULL || depth > 128)
		return -EINVAL;
	return fib_core_get(&fib->core, key_of(ip), depth, nh);
}

void
vpk_fib6_lookup_bulk(const struct vpk_fib6 *fib, const uint8_t (*ips)[16], uint64_t *nhs, size_t n)
{
	if (fib->type == VPK_FIB6_BM6)
		fib->bm_lookup(&fib->bm, ips, nhs, n);
	else
		fib->lookup(&fib->dp, ips, nhs, n);
}

/* A RIB key as vpk_fib6_walk() reports it: 16 address bytes. */
typedef uint8_t fib6_addr[16];

static inline void
key_out6(const struct rib_key *key, fib6_addr *ip)
{
	for (int i = 0; i < 8; i++) {
		(*ip)[i] = (uint8_t)(key->hi >> (56 - 8 * i));
		(*ip)[8 + i] = (uint8_t)(key->lo >> (56 - 8 * i));
	}
}

FIB_CORE_WALK(vpk_fib6, struct vpk_fib6, vpk_fib6_walk_fn, fib6_addr, key_out6)

int
vpk_fib6_get_stats(const struct vpk_fib6 *fib, struct vpk_fib6_stats *st)
{
	if (fib == NULL || st == NULL)
		return -EINVAL;
	FIB_CORE_STATS(st, fib, TRIE6_GROUP);
	if (fib->type == VPK_FIB6_BM6) {
		/* The trie is a control-plane copy here. */
		st->rib_bytes += st->dataplane_touched;
		st->dataplane_bytes = st->dataplane_touched = vpk_bm6_bytes(&fib->bm);
		st->tbl8_deferred = (uint32_t)fib->bm.parked.n;
	}
	return 0;
}

uint64_t
vpk_fib6_lookup_rib(const struct vpk_fib6 *fib, const uint8_t ip[16])
{
	return fib_core_lookup_rib(&fib->core, key_of(ip));
}

FIB_CORE_PUBLIC(vpk_fib6, struct vpk_fib6)

/* ---- updates through the QSBR link (fib_rcu.h) ---- */

FIB_CORE_UPDATE(vpk_fib6, struct vpk_fib6, const uint8_t, [16])
