/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_FIB_BM16_WALK_H
#define VPK_FIB_BM16_WALK_H

/*
 * The scalar bm16 walk (bm16.h layout), included by each per-ISA file
 * (bm16_kern.c: scalar and sse42; bm16_avx2.c; bm16_avx512.c): every
 * variant ends in scalar_range(), and the vector pipelines rank their
 * compressed-node lanes with rank_lanes(). BM16_IMPL() defines a file's
 * impl from its vector loop.
 */
#include <stdbool.h>
#include <string.h>

#include "core/kern.h"
#include "fib/bm16.h"
#include "fib/fib_bits.h"


/* Arena word of entry x of the node at word `at` (layout in bm16.h). */
static inline __attribute__((always_inline)) uint32_t
node_rank(const uint32_t *arena, uint32_t at, unsigned x)
{
	const uint32_t *n = arena + at;
	uint32_t bm = FIB_LD(&n[x >> 5]);
	uint32_t cum = (FIB_LD(&n[8 + (x >> 7)]) >> (8 * ((x >> 5) & 3))) & 0xff;

	return at + BM16_HDR_WORDS - 1 + cum + fib_pop32(bm & (~UINT32_C(0) >> (31 - (x & 31))));
}

/*
 * Arena word of entry x of entry e (bm16.h): a flat node's word x (a narrow
 * one's word x / 2), a compressed node's rank; a leaf gives word 9 (of the
 * zero header at word 0). One branch, flat or not: in-table keys mostly land
 * in flat nodes, so it predicts well; the branch-free form (both computed,
 * one selected) was 20 % slower in-table with POPCNT
 * and 3 % faster on random keys.
 */
static inline __attribute__((always_inline)) uint32_t
locate(const uint32_t *arena, uint32_t e, unsigned x)
{
	if ((e & 3) == (BM16_FLAT | 1))
		return ((e >> 2) & ~1u) + (x >> (e >> 2 & 1));
	return node_rank(arena, (e >> 2) & -(e & 1), x);        /* a leaf: the zero header */
}

/* The line worth prefetching for entry x of e: a flat node's entry, a compressed node's header, else word 0. */
static inline __attribute__((always_inline)) uint32_t
first_line(uint32_t e, unsigned x)
{
	return (((e >> 2) & ~1u) + ((x >> (e >> 2 & 1)) & -((e >> 1) & 1))) & -(e & 1);
}

/* Entry x of node entry e from the arena word w locate() gave: a narrow flat node's half-word x. */
static inline __attribute__((always_inline)) uint32_t
entry_of(uint32_t w, uint32_t e, unsigned x)
{
	uint32_t nar = -(uint32_t)((e & 7) == (BM16_NARROW | BM16_FLAT | 1));

	return (w >> ((x & 1) << 4 & nar)) & ~(nar & 0xffff0000u);
}



/*
 * Scalar: a software pipeline over keys, SD keys between stages:
 *   1. key j+4SD: direct entry (L2-resident) -> prefetch its node header;
 *   2. key j+3SD: rank from the header (flat: none) -> prefetch the value;
 *   3. key j+2SD: the value; a /32-level node -> prefetch its header;
 *   4. key j+SD:  (/32 level only) rank -> prefetch the value;
 *   5. key j:     (/32 level only) the value; store.
 * Branch-free on leaf vs node: a leaf reads the zero header at arena word 0
 * and its own entry is selected in stage 3; the rare /32 level branches.
 */
#define SD 32u
#define SR 256u         /* ring, a power of two > 4 * SD */

static inline __attribute__((always_inline)) void
scalar_range(const struct bm16 *b, const uint32_t *ips, uint64_t *nhs, size_t i0, size_t n)
{
	const uint32_t *dir = b->direct, *ar = b->arena;
	uint32_t rd[SR], rr[SR];
	size_t cnt = n - i0;
	size_t sd = cnt / 4 >= SD ? SD : cnt / 4 ? cnt / 4 : 1;    /* short bursts: a short pipeline */

	ips += i0;
	nhs += i0;
	for (size_t t = 0; t < cnt + 4 * sd; t++) {
		if (t < cnt) {
			uint32_t ip = fib_ld32(&ips[t]);
			uint32_t d = FIB_LD_ACQ(&dir[ip >> 16]);
			rd[t % SR] = d;
			__builtin_prefetch(ar + ((d >> 2) & -(d & 1)));     /* header line, or a flat node's first */
		}
		if (t >= sd && t - sd < cnt) {
			size_t j = t - sd;
			uint32_t d = rd[j % SR];
			uint32_t r = locate(ar, d, (fib_ld32(&ips[j]) >> 8) & 0xff);
			rr[j % SR] = r;
			__builtin_prefetch(ar + r);
		}
		if (t >= 2 * sd && t - 2 * sd < cnt) {
			size_t j = t - 2 * sd;
			uint32_t d = rd[j % SR], v = entry_of(FIB_LD_ACQ(&ar[rr[j % SR]]), d, fib_ld32(&ips[j]) >> 8 & 0xff);
			v = (d & 1) ? v : d;
			rd[j % SR] = v;
			if (__builtin_expect(v & 1, 0))
				__builtin_prefetch(ar + first_line(v, fib_ld32(&ips[j]) & 0xff));
		}
		if (t >= 3 * sd && t - 3 * sd < cnt) {
			size_t j = t - 3 * sd;
			uint32_t v = rd[j % SR];
			if (__builtin_expect(v & 1, 0)) {
				uint32_t r = locate(ar, v, fib_ld32(&ips[j]) & 0xff);
				rr[j % SR] = r;
				__builtin_prefetch(ar + r);
			}
		}
		if (t >= 4 * sd) {
			size_t j = t - 4 * sd;
			uint32_t v = rd[j % SR];
			if (__builtin_expect(v & 1, 0))
				v = entry_of(FIB_LD(&ar[rr[j % SR]]), v, fib_ld32(&ips[j]) & 0xff);
			fib_st64(&nhs[j], v >> 1);
		}
	}
}

/*
 * The vector stage 2: rk[] holds every lane's flat-node word; the lanes in
 * compressed nodes (bits of cmp, about one in six in-table keys) are ranked
 * here one by one from their node header (prefetched a stage before) and
 * their value line prefetched. Two masked gathers per block (bitmap word and
 * run count) cost as much as 16 lanes' loads whatever the mask.
 */
static inline __attribute__((always_inline)) void
rank_lanes(const uint32_t *arena, uint32_t cmp, const uint32_t *at, const uint32_t *x, uint32_t *rk)
{
	for (; cmp; cmp &= cmp - 1) {
		unsigned l = (unsigned)__builtin_ctz(cmp);
		uint32_t r = node_rank(arena, at[l], x[l]);
		rk[l] = r;
		__builtin_prefetch(arena + r);
	}
}

#ifdef BM16_W
/*
 * The vector walks, written once for every width. An ISA file defines
 * BM16_W (lanes per block), BM16_VD (ring distance in blocks) and
 * BM16_SHORT_NB (the most blocks a call walks as passes, 0: never) before
 * including this header, and after it these block steps on BM16_W lanes
 * held in aligned arrays (d: entries, ip: keys, rk: arena words):
 *   blk_direct(b, ip, d)          direct entries; prefetch each lane's first node line
 *   blk_locate(ar, d, ip, sh, rk) locate() of entry (ip >> sh) & 0xff (rank_lanes() for
 *                                 compressed lanes, which prefetches their values)
 *   blk_value(ar, d, ip, sh, rk)  d = entry_of() of the lanes in nodes; with sh = 8, prefetch
 *                                 the /32-level first lines; returns whether a lane is a node
 *   blk_store(d, nhs)             nhs = d >> 1
 * The steps differ by ISA only; the order of the loads is the walks'.
 */
#define BM16_STEP static inline __attribute__((always_inline))
BM16_STEP void blk_direct(const struct bm16 *b, const uint32_t *ip, uint32_t *d);
BM16_STEP void blk_locate(const uint32_t *ar, const uint32_t *d, const uint32_t *ip, unsigned sh, uint32_t *rk);
BM16_STEP bool blk_value(const uint32_t *ar, uint32_t *d, const uint32_t *ip, unsigned sh, const uint32_t *rk);
BM16_STEP void blk_store(const uint32_t *d, uint64_t *nhs);

#define BM16_ALIGN __attribute__((aligned(BM16_W * 4)))
_Static_assert(BM16_SHORT_NB <= 32, "vec_short() keeps one bit per block");

/*
 * Short calls (at most BM16_SHORT_NB blocks, e.g. 64-key bursts): the
 * stages as passes over all blocks, so every block's loads are in flight
 * before the first one is needed and no ring bookkeeping runs (the ring's
 * fill and drain dominate a 64-key call).
 */
BM16_STEP size_t
vec_short(const struct bm16 *b, const uint32_t *ips, uint64_t *nhs, size_t nb)
{
	const uint32_t *ar = b->arena;
	uint32_t d[BM16_SHORT_NB + 1][BM16_W] BM16_ALIGN, rk[BM16_SHORT_NB + 1][BM16_W] BM16_ALIGN;
	uint32_t deep = 0;

	for (size_t k = 0; k < nb; k++)
		blk_direct(b, ips + BM16_W * k, d[k]);
	for (size_t k = 0; k < nb; k++)
		blk_locate(ar, d[k], ips + BM16_W * k, 8, rk[k]);
	for (size_t k = 0; k < nb; k++)
		deep |= (uint32_t)blk_value(ar, d[k], ips + BM16_W * k, 8, rk[k]) << k;
	for (uint32_t x = deep; x != 0; x &= x - 1) {
		unsigned k = (unsigned)__builtin_ctz(x);
		blk_locate(ar, d[k], ips + BM16_W * k, 0, rk[k]);
	}
	for (uint32_t x = deep; x != 0; x &= x - 1) {
		unsigned k = (unsigned)__builtin_ctz(x);
		blk_value(ar, d[k], ips + BM16_W * k, 0, rk[k]);
	}
	for (size_t k = 0; k < nb; k++)
		blk_store(d[k], nhs + BM16_W * k);
	return nb * BM16_W;
}

/*
 * Longer calls: the scalar pipeline on blocks, vd blocks between the
 * stages: (1) direct entries, prefetch the node headers (a flat node's
 * entry); (2) locate, ranking compressed lanes and prefetching their values;
 * (3) the values, prefetch the /32-level headers; (4) and (5) the same
 * locate and value steps at the /32 level, skipped for blocks without such
 * lanes.
 */
#define BM16_VR 32u     /* ring, a power of two > 4 * BM16_VD */

BM16_STEP size_t
vec(const struct bm16 *b, const uint32_t *ips, uint64_t *nhs, size_t n)
{
	const uint32_t *ar = b->arena;
	size_t nb = n / BM16_W;
	uint32_t rd[BM16_VR][BM16_W] BM16_ALIGN, rr[BM16_VR][BM16_W] BM16_ALIGN;
	bool rm[BM16_VR];

	if (nb <= BM16_SHORT_NB)
		return vec_short(b, ips, nhs, nb);
	size_t vd = nb / 4 >= BM16_VD ? BM16_VD : nb / 4 ? nb / 4 : 1;

	for (size_t t = 0; t < nb + 4 * vd; t++) {
		if (t < nb)
			blk_direct(b, ips + BM16_W * t, rd[t % BM16_VR]);
		if (t >= vd && t - vd < nb) {
			size_t k = t - vd;
			blk_locate(ar, rd[k % BM16_VR], ips + BM16_W * k, 8, rr[k % BM16_VR]);
		}
		if (t >= 2 * vd && t - 2 * vd < nb) {
			size_t k = t - 2 * vd;
			rm[k % BM16_VR] = blk_value(ar, rd[k % BM16_VR], ips + BM16_W * k, 8, rr[k % BM16_VR]);
		}
		if (t >= 3 * vd && t - 3 * vd < nb) {
			size_t k = t - 3 * vd;
			if (rm[k % BM16_VR])
				blk_locate(ar, rd[k % BM16_VR], ips + BM16_W * k, 0, rr[k % BM16_VR]);
		}
		if (t >= 4 * vd) {
			size_t k = t - 4 * vd;
			if (rm[k % BM16_VR])
				blk_value(ar, rd[k % BM16_VR], ips + BM16_W * k, 0, rr[k % BM16_VR]);
			blk_store(rd[k % BM16_VR], nhs + BM16_W * k);
		}
	}
	return nb * BM16_W;
}
#endif

/* A variant's lookup: its vector loop V (returns how many keys it did), then the scalar pipeline. */
#define BM16_NO_VEC(b, ips, nhs, n) 0
#define BM16_IMPL(width, V)                                                                \
	static void VPK_FN(bm16_lookup)(const struct bm16 *b, const uint32_t *ips, uint64_t *nhs, size_t n) \
	{                                                                                  \
		scalar_range(b, ips, nhs, V(b, ips, nhs, n), n);                           \
	}                                                                                  \
	const struct bm16_impl VPK_FN(vpk_bm16_impl) = {                                   \
		.impl = VPK_IMPL_INIT(width),                                              \
		.lookup = VPK_FN(bm16_lookup),                                             \
	}

#endif
