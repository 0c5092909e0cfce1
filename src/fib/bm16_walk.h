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
