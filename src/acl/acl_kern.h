/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_ACL_KERN_H
#define VPK_ACL_KERN_H

/*
 * The ACL classify body shared by every variant (acl_int.h has the data
 * layout, docs/acl.md the design). Each variant is a file of its own that
 * includes this header, defines the three per-ISA steps declared below and
 * its acl_impl object: acl_kern.c (scalar), acl_kern_sse42.c,
 * acl_kern_avx2.c, acl_kern_avx512.c (x32 and x16).
 *
 * Per chunk of <= 64 packets:
 *   1. keys:  every dimension of every packet read big-endian (acl_keys()),
 *             packet-major into keys[p][d], or, in a variant that sets ACL_KEYT,
 *             dimension-major into keyt[d][p] only (what its gathers read);
 *   2. per tree (in rank order):
 *      walk:  next = child + (key[dim] >= thr) until a leaf (acl_walk());
 *      scan:  per packet, the leaf's blocks of 16 rules are compared across
 *             rules: slot j matches when ((key & m[j]) - lo[j]) <= span[j]
 *             (acl_match32(), acl_match16()). Per category the first set bit
 *             of match & cmask is the best rule of the block (blocks are in
 *             rank order). A packet skips a tree whose best rank cannot beat
 *             what it has.
 *   3. results: userdata of the best rank per category, 0 if none.
 * Every variant computes exactly the same function; only 1 and 2 differ.
 */
#include <string.h>

#include "acl/acl_int.h"
#include "core/kern.h"

#define CHUNK 64
#define PREFETCH_LINES 6   /* of each reached leaf's first block (docs/acl.md) */
#define PREFETCH_MIN_BYTES (512u << 10)   /* ...of runtimes bigger than this */
#define PREFETCH_AHEAD 8   /* ...this many packets ahead of the scan, not all after the walk */

#define INLINE static inline __attribute__((always_inline))

#ifndef ACL_KEYT
#error "define ACL_KEYT (1: the variant's keys are dimension-major) before including acl_kern.h"
#endif
#ifndef ACL_ROWS
#define ACL_ROWS 0   /* 1: one category is scanned slot by slot in rank order (first_match()) */
#endif
/* Where dimension d of a packet's keys is, from the packet's first key. */
#define KEY_DSTRIDE (ACL_KEYT ? CHUNK : 1)

/* ---- the per-ISA steps, defined by the including file -------------------- */

/* The keys of packets data[0..n-1]: keys[p * nd + d] or, ACL_KEYT, keyt[d * CHUNK + p];
 * w is the variant's width. */
INLINE void acl_keys(const struct acl_rt *rt, const uint8_t *const *data, uint32_t n, uint32_t *keys,
		     uint32_t *keyt, int w);

/* mt minus the slots j of a block that x does not match; w is the variant's width. */
INLINE uint32_t acl_match32(uint32_t x, const uint32_t *lo, const uint32_t *sp, const uint32_t *m, uint32_t mt,
			    int w);
INLINE uint32_t acl_match16(uint32_t x, const uint16_t *lo, const uint16_t *sp, const uint16_t *m, uint32_t mt,
			    int w);
/* Walk tree t of rt for packets 0..n-1: leaf[t * CHUNK + p] = the packet's leaf
 * node, return 0; or leaf[] = its leaf node's word 0 (first block | its lines)
 * and lr[] = its best rank, return 1. */
INLINE int acl_walk(const struct acl_rt *rt, uint32_t t, const uint32_t *keys, const uint32_t *keyt,
		    uint32_t nd, uint32_t n, uint32_t *leaf, uint32_t *lr, int w);

/* Bit j set when slot j of a block matches x (32-bit dimension; m == NULL:
 * no mask): the scalar form, and what every vector form computes. */
INLINE uint32_t
match32_scalar(uint32_t x, const uint32_t *lo, const uint32_t *sp, const uint32_t *m)
{
	uint32_t r = 0;

#pragma GCC unroll 16
	for (int j = 0; j < ACL_BLK; j++) {
		uint32_t v = m != NULL ? x & m[j] : x;

		r |= (uint32_t)(v - lo[j] <= sp[j]) << j;
	}
	return r;
}

/* The same for a 16-bit dimension: u16 lo[16], sp[16], m[16]; x < 2^16. */
INLINE uint32_t
match16_scalar(uint32_t x, const uint16_t *lo, const uint16_t *sp, const uint16_t *m)
{
	uint32_t r = 0;

#pragma GCC unroll 16
	for (int j = 0; j < ACL_BLK; j++) {
		uint16_t v = (uint16_t)(m != NULL ? x & m[j] : x);

		r |= (uint32_t)((uint16_t)(v - lo[j]) <= sp[j]) << j;
	}
	return r;
}

#ifdef __AVX2__
#include <immintrin.h>

/* (x & m) - lo for the 16 slots of a 32-bit dimension in two ymm (slots 0-7 in
 * *a, 8-15 in *b; m == NULL: no mask): what the 256-bit compares start from. */
INLINE void
sub32_ymm(uint32_t x, const uint32_t *lo, const uint32_t *m, __m256i *a, __m256i *b)
{
	__m256i v = _mm256_set1_epi32((int)x), va = v, vb = v;

	if (m != NULL) {
		va = _mm256_and_si256(v, _mm256_load_si256((const __m256i *)m));
		vb = _mm256_and_si256(v, _mm256_load_si256((const __m256i *)(m + 8)));
	}
	*a = _mm256_sub_epi32(va, _mm256_load_si256((const __m256i *)lo));
	*b = _mm256_sub_epi32(vb, _mm256_load_si256((const __m256i *)(lo + 8)));
}

/* (x & m) - lo for the 16 slots of a 16-bit dimension in one ymm. */
INLINE __m256i
sub16_ymm(uint32_t x, const uint16_t *lo, const uint16_t *m)
{
	__m256i v = _mm256_set1_epi16((short)x);

	if (m != NULL)
		v = _mm256_and_si256(v, _mm256_load_si256((const __m256i *)m));
	return _mm256_sub_epi16(v, _mm256_load_si256((const __m256i *)lo));
}
#endif

/* A matching block: per category, the first set bit of mt & cmask is the
 * block's best rule (blocks are in rank order); keep it if it beats the best. */
INLINE void
accept_block(const struct acl_blk *h, uint32_t mt, uint32_t ncat, uint32_t *brank, uint32_t *bud,
	     uint32_t *found)
{
	for (uint32_t c = 0; c < ncat; c++) {
		uint32_t x = mt & h->cmask[c];

		if (x != 0) {
			uint32_t j = (uint32_t)__builtin_ctz(x), r = h->ru[2 * j];

			*found |= 1u << c;
			if (r < brank[c]) {
				brank[c] = r;
				bud[c] = h->ru[2 * j + 1];
			}
		}
	}
}

/*
 * Where a full block's (ACL_BLK_FULL) dimensions are: every dimension of the
 * runtime active and unmasked, the n32 32-bit ones first, then the n16 16-bit
 * ones, each kind in dimension order (acl_leaf.c), so its i-th arrays are at a
 * fixed place and its key at key[koff[i]]: known before the block's header
 * arrives, where the general path reads them from the header's dim[] bytes.
 */
struct acl_full {
	uint32_t n32, n16;
	uint32_t koff[ACL_MAX_DIMS];
};

/* The full-block layout of runtime @p rt: its order of dimensions
 * (rt->full_dim, built with the runtime) as offsets in this variant's keys. */
INLINE void
full_layout(const struct acl_rt *rt, struct acl_full *fl)
{
	fl->n32 = rt->full_n32;
	fl->n16 = rt->full_n16;
	for (uint32_t i = 0; i < fl->n32 + fl->n16; i++)
		fl->koff[i] = rt->full_dim[i] * KEY_DSTRIDE;
}

/* match_block() of a full block, n32 and n16 constants where the caller can
 * make them so: the compares unrolled, one early exit per dimension. */
INLINE uint32_t
match_full(const struct acl_blk *h, const uint32_t *key, const struct acl_full *fl, uint32_t n32, uint32_t n16,
	   int w)
{
	const uint32_t *a = (const uint32_t *)(const void *)(h + 1);
	const uint16_t *b = (const uint16_t *)(const void *)(a + 2 * ACL_BLK * n32);
	uint32_t mt = h->valid;

#pragma GCC unroll 8
	for (uint32_t i = 0; i < n32; i++) {
		mt = acl_match32(key[fl->koff[i]], a + 2 * ACL_BLK * i, a + 2 * ACL_BLK * i + ACL_BLK, NULL, mt, w);
		if (mt == 0)
			return 0;
	}
#pragma GCC unroll 4
	for (uint32_t i = 0; i < n16; i++) {
		mt = acl_match16(key[fl->koff[n32 + i]], b + 2 * ACL_BLK * i, b + 2 * ACL_BLK * i + ACL_BLK, NULL, mt,
				 w);
		if (mt == 0)
			return 0;
	}
	return mt;
}

/* Bit j set when slot j of block h matches the packet's keys (dimensions in
 * dim[] order; stops at the first empty mask: measured faster than testing
 * every dimension branch-free, also for the vector variants). Full blocks
 * take match_full(), unrolled for the IPv4 and IPv6 5-tuples (2 + 3 and
 * 8 + 3 dimensions). */
INLINE uint32_t
match_block(const struct acl_blk *h, const uint32_t *key, const struct acl_full *fl, int w)
{
	const uint8_t *arr = (const uint8_t *)(h + 1);
	uint32_t mt = h->valid, i = 0, nd = h->nd & ACL_BLK_ND;

	if (h->nd & ACL_BLK_FULL) {
		if (fl->n32 == 2 && fl->n16 == 3)
			return match_full(h, key, fl, 2, 3, w);
		if (fl->n32 == 8 && fl->n16 == 3)
			return match_full(h, key, fl, 8, 3, w);
		return match_full(h, key, fl, fl->n32, fl->n16, w);
	}
	/* The builder puts the 32-bit dimensions first (acl_leaf.c): two loops
	 * without a per-dimension type branch. */
	for (; i < nd && mt != 0 && !(h->dim[i] & ACL_DIM_16); i++) {
		uint32_t d = h->dim[i];
		const uint32_t *a = (const uint32_t *)(const void *)arr;

		mt = acl_match32(key[(d & ACL_DIM_ID) * KEY_DSTRIDE], a, a + ACL_BLK, (d & ACL_DIM_MASKED) ? a + 2 * ACL_BLK : NULL, mt, w);
		arr += (d & ACL_DIM_MASKED) ? 192 : 128;
	}
	for (; i < nd && mt != 0; i++) {
		uint32_t d = h->dim[i];
		const uint16_t *a = (const uint16_t *)(const void *)arr;

		mt = acl_match16(key[(d & ACL_DIM_ID) * KEY_DSTRIDE], a, a + ACL_BLK, (d & ACL_DIM_MASKED) ? a + 2 * ACL_BLK : NULL, mt, w);
		arr += (d & ACL_DIM_MASKED) ? 128 : 64;
	}
	return mt;
}

#if ACL_ROWS
/*
 * One category: the first slot of @p mt (in rank order) that matches every
 * dimension and is not dead, as a one-bit mask, or 0. The first dimension
 * is compared across the slots as match_block() does; the slots it leaves
 * are then tested one at a time across the other dimensions, stopping at a
 * slot's first failing dimension, and the first full match ends the block:
 * with several matching slots (acl1 1k: 5 of 16 on average) only the first
 * counts. Instructions per packet (scalar, cachegrind): acl1 1k 1136 -> 827,
 * acl 4096 1351 -> 1201; the first two or three dimensions across the slots
 * (1090, 1346), none (729 but 11 instead of 8 mispredicted branches on acl
 * 4096) or every dimension of a slot without a branch (1439) were worse.
 */
INLINE uint32_t
first_match(const struct acl_blk *h, const uint32_t *key, uint32_t mt, int w, const struct acl_dead *dead)
{
	const uint8_t *arr = (const uint8_t *)(h + 1), *a[ACL_MAX_DIMS];
	uint32_t nd = h->nd & ACL_BLK_ND, n32 = 0, k = 0, x[ACL_MAX_DIMS], mk[ACL_MAX_DIMS];

	if (nd > 0) {
		uint32_t d = h->dim[0], x0 = key[(d & ACL_DIM_ID) * KEY_DSTRIDE];

		if (d & ACL_DIM_16) {
			const uint16_t *q = (const uint16_t *)(const void *)arr;

			mt = acl_match16(x0, q, q + ACL_BLK, (d & ACL_DIM_MASKED) ? q + 2 * ACL_BLK : NULL, mt, w);
		} else {
			const uint32_t *q = (const uint32_t *)(const void *)arr;

			mt = acl_match32(x0, q, q + ACL_BLK, (d & ACL_DIM_MASKED) ? q + 2 * ACL_BLK : NULL, mt, w);
		}
		arr += acl_dim_bytes(d);
	}
	if (mt == 0)
		return 0;
	/* the other dimensions, 32-bit ones first (acl_leaf.c) */
	for (uint32_t i = 1; i < nd; i++, k++) {
		uint32_t d = h->dim[i];

		a[k] = arr;
		x[k] = key[(d & ACL_DIM_ID) * KEY_DSTRIDE];
		mk[k] = (d & ACL_DIM_MASKED) ? 1 : 0;
		n32 += !(d & ACL_DIM_16);
		arr += acl_dim_bytes(d);
	}
	for (; mt != 0; mt &= mt - 1) {
		uint32_t j = (uint32_t)__builtin_ctz(mt), i = 0;

		for (; i < n32; i++) {
			const uint32_t *q = (const uint32_t *)(const void *)a[i];
			uint32_t v = mk[i] ? x[i] & q[2 * ACL_BLK + j] : x[i];

			if (v - q[j] > q[ACL_BLK + j])
				break;
		}
		if (i < n32)
			continue;
		for (; i < k; i++) {
			const uint16_t *q = (const uint16_t *)(const void *)a[i];
			uint16_t v = (uint16_t)(mk[i] ? x[i] & q[2 * ACL_BLK + j] : x[i]);

			if ((uint16_t)(v - q[j]) > q[ACL_BLK + j])
				break;
		}
		if (i == k && acl_live_slots(dead, h->ru, 1u << j) != 0)
			return 1u << j;
	}
	return 0;
}
#endif

/* One block of a leaf for one packet: update the per-category best
 * rank/userdata; returns the leaf's next block, or NULL when the packet is
 * done with this leaf. */
INLINE const uint8_t *
scan_block(const uint8_t *p, const uint32_t *key, uint32_t ncat, uint32_t *brank, uint32_t *bud,
	   uint32_t *found, int w, const struct acl_dead *dead, const struct acl_full *fl)
{
	const struct acl_blk *h = (const struct acl_blk *)(const void *)p;
	uint32_t mt, worst = 0;

	/* Blocks are in rank order: stop when none can improve any category. */
	for (uint32_t c = 0; c < ncat; c++)
		worst = brank[c] > worst ? brank[c] : worst;
	if (h->first_rank > worst)
		return NULL;
#if ACL_ROWS
	if (ncat == 1) {
		mt = first_match(h, key, h->valid & h->cmask[0], w, dead);
		if (mt != 0)
			accept_block(h, mt, ncat, brank, bud, found);
	} else
#endif
	{
		mt = match_block(h, key, fl, w);
		if (mt != 0 && (mt = acl_live_slots(dead, h->ru, mt)) != 0)
			accept_block(h, mt, ncat, brank, bud, found);
	}
	if ((h->lines & ACL_BLK_LAST) || *found == (1u << ncat) - 1)
		return NULL;
	return p + (size_t)(h->lines & ~ACL_BLK_LAST) * 64;
}

/* Prefetch the first block of a leaf (@p le0: its node's word 0): its
 * lines (header, ranks, userdata and the first dimensions' arrays) up to
 * PREFETCH_LINES, not beyond: prefetching past the block, or more of it,
 * measured slower. Runtimes of up to PREFETCH_MIN_BYTES stay in the caches
 * between bursts: there the prefetches only cost instructions (acl1 1k:
 * 68 -> 64 cycles without them; acl 4096, 3.3 MB: 114 -> 124). */
INLINE void
prefetch_leaf(const struct acl_rt *rt, const uint8_t *blocks, uint32_t le0)
{
	const uint8_t *bp = blocks + (size_t)(le0 & ACL_LEAF_OFF) * 64;
	uint32_t nl = le0 >> ACL_LEAF_LSHIFT;

	if (rt->stats.runtime_bytes <= PREFETCH_MIN_BYTES)
		return;
	nl = nl < PREFETCH_LINES ? nl : PREFETCH_LINES;
	for (uint32_t k = 0; k < nl; k++)
		__builtin_prefetch(bp + 64 * k);
}

/*
 * Scan the leaves of packets q[0..nq-1] (first blocks at blocks + 64 *
 * (lf[p] & ACL_LEAF_OFF), their lines in lf[p] >> ACL_LEAF_LSHIFT; packet p's keys
 * at keys + p * pstride; @p pf: the runtime (never NULL): its full-block
 * layout (struct acl_full), and its leaves, which the scan prefetches
 * PREFETCH_AHEAD packets ahead of the one it takes: prefetching all of a
 * chunk's leaves after the walk stalled on the misses in flight, acl 4096 in
 * the forwarder ~5 clocks per packet). A block's successor is known only once its header is loaded, so
 * each scan is a chain of dependent loads: two chains advance in turn, one
 * block each, so that they overlap. Scalar: two packets at a time, the one
 * left over alone (its block test is long enough to hide a chain); the
 * vector variants: a chain whose packet is done takes the next packet at
 * once, so that two chains always overlap (acl 4096 avx512x32 4-6 % fewer
 * cycles; scalar 5 % more).
 */
#if ACL_ROWS
INLINE void
scan_leaves(const uint8_t *blocks, const uint32_t *lf, const uint32_t *q, uint32_t nq, const uint32_t *keys,
	    uint32_t pstride, uint32_t ncat, uint32_t *brank, uint32_t *bud, int w, const struct acl_dead *dead,
	    const struct acl_rt *pf)
{
	const uint32_t S = VPK_ACL_MAX_CATEGORIES;
	uint32_t i = 0, npf = 0;
	struct acl_full fl;

	full_layout(pf, &fl);
	for (; npf < nq && npf < PREFETCH_AHEAD; npf++)
		prefetch_leaf(pf, blocks, lf[q[npf]]);
	for (; i + 2 <= nq; i += 2) {
		uint32_t a = q[i], b = q[i + 1], fa = 0, fb = 0;
		const uint8_t *pa = blocks + (size_t)(lf[a] & ACL_LEAF_OFF) * 64;
		const uint8_t *pb = blocks + (size_t)(lf[b] & ACL_LEAF_OFF) * 64;

		for (uint32_t k = 0; k < 2 && npf < nq; k++)
			prefetch_leaf(pf, blocks, lf[q[npf++]]);

		while (pa != NULL && pb != NULL) {
			pa = scan_block(pa, keys + a * pstride, ncat, brank + a * S, bud + a * S, &fa, w, dead, &fl);
			pb = scan_block(pb, keys + b * pstride, ncat, brank + b * S, bud + b * S, &fb, w, dead, &fl);
		}
		while (pa != NULL)
			pa = scan_block(pa, keys + a * pstride, ncat, brank + a * S, bud + a * S, &fa, w, dead, &fl);
		while (pb != NULL)
			pb = scan_block(pb, keys + b * pstride, ncat, brank + b * S, bud + b * S, &fb, w, dead, &fl);
	}
	if (i < nq) {
		uint32_t a = q[i], fa = 0;
		const uint8_t *pa = blocks + (size_t)(lf[a] & ACL_LEAF_OFF) * 64;

		while (pa != NULL)
			pa = scan_block(pa, keys + a * pstride, ncat, brank + a * S, bud + a * S, &fa, w, dead, &fl);
	}
}
#else
INLINE void
scan_leaves(const uint8_t *blocks, const uint32_t *lf, const uint32_t *q, uint32_t nq, const uint32_t *keys,
	    uint32_t pstride, uint32_t ncat, uint32_t *brank, uint32_t *bud, int w, const struct acl_dead *dead,
	    const struct acl_rt *pf)
{
	const uint32_t S = VPK_ACL_MAX_CATEGORIES;
	uint32_t i = 2, a = 0, b = 0, fa = 0, fb = 0, npf = 0;
	const uint8_t *pa = NULL, *pb = NULL;
	struct acl_full fl;

	if (nq == 0)
		return;
	full_layout(pf, &fl);
	for (; npf < nq && npf < PREFETCH_AHEAD; npf++)
		prefetch_leaf(pf, blocks, lf[q[npf]]);
	a = q[0];
	pa = blocks + (size_t)(lf[a] & ACL_LEAF_OFF) * 64;
	if (nq > 1) {
		b = q[1];
		pb = blocks + (size_t)(lf[b] & ACL_LEAF_OFF) * 64;
	}
	while (pa != NULL || pb != NULL) {
		if (pa != NULL) {
			pa = scan_block(pa, keys + a * pstride, ncat, brank + a * S, bud + a * S, &fa, w, dead, &fl);
			if (pa == NULL && i < nq) {
				a = q[i++];
				fa = 0;
				pa = blocks + (size_t)(lf[a] & ACL_LEAF_OFF) * 64;
				if (npf < nq)
					prefetch_leaf(pf, blocks, lf[q[npf++]]);
			}
		}
		if (pb != NULL) {
			pb = scan_block(pb, keys + b * pstride, ncat, brank + b * S, bud + b * S, &fb, w, dead, &fl);
			if (pb == NULL && i < nq) {
				b = q[i++];
				fb = 0;
				pb = blocks + (size_t)(lf[b] & ACL_LEAF_OFF) * 64;
				if (npf < nq)
					prefetch_leaf(pf, blocks, lf[q[npf++]]);
			}
		}
	}
}
#endif

/* ---- packet-major keys, the scalar walk --------------------------------- */

/* A field is read as the 32-bit big-endian word ending at its last byte, cut
 * to its width (never before the buffer's start: fields ending in the first 3
 * bytes are read byte by byte). */
INLINE void
keys_scalar(const struct acl_rt *rt, const uint8_t *const *data, uint32_t n, uint32_t *keys)
{
	uint32_t nd = rt->nd, nw = 0, off[ACL_MAX_DIMS], mask[ACL_MAX_DIMS], dw[ACL_MAX_DIMS];

	for (uint32_t k = 0; k < nd; k++) {
		if (rt->src[k].off + rt->src[k].size < 4) {
			for (uint32_t p = 0; p < n; p++)
				keys[p * nd + k] = acl_load_dim(data[p], &rt->src[k]);
			continue;
		}
		dw[nw] = k;
		off[nw] = rt->src[k].off + rt->src[k].size - 4;
		mask[nw++] = rt->src[k].size >= 4 ? UINT32_MAX : (1u << 8 * rt->src[k].size) - 1;
	}
	for (uint32_t p = 0; p < n; p++)
		for (uint32_t i = 0; i < nw; i++) {
			uint32_t w;

			memcpy(&w, data[p] + off[i], 4);
			keys[p * nd + dw[i]] = __builtin_bswap32(w) & mask[i];
		}
}

/* Where packet p's walk starts: the tree's root table (acl_int.h). */
INLINE uint32_t
walk_start(const struct acl_tree *tr, const uint32_t *keys, uint32_t nd, uint32_t p)
{
	return tr->rtab[acl_rtab_index(tr, keys[p * nd + tr->rdim], keys[p * nd + tr->rdim2])];
}

INLINE void
walk_scalar(const struct acl_tree *tr, const uint32_t *keys, uint32_t nd, uint32_t n, uint32_t *leaf)
{
	const uint32_t *thr = tr->thr, *info = tr->info;
	uint32_t p = 0;

	for (; p + 4 <= n; p += 4) {
		uint32_t a = walk_start(tr, keys, nd, p), b = walk_start(tr, keys, nd, p + 1);
		uint32_t c = walk_start(tr, keys, nd, p + 2), d = walk_start(tr, keys, nd, p + 3);
		uint32_t ia = info[2 * a], ib = info[2 * b], ic = info[2 * c], id = info[2 * d];

		while (!(ia & ib & ic & id & ACL_LEAF_BIT)) {
			if (!(ia & ACL_LEAF_BIT)) {
				a = (ia >> 5) + (keys[p * nd + (ia & 31)] >= thr[2 * a]);
				ia = info[2 * a];
			}
			if (!(ib & ACL_LEAF_BIT)) {
				b = (ib >> 5) + (keys[(p + 1) * nd + (ib & 31)] >= thr[2 * b]);
				ib = info[2 * b];
			}
			if (!(ic & ACL_LEAF_BIT)) {
				c = (ic >> 5) + (keys[(p + 2) * nd + (ic & 31)] >= thr[2 * c]);
				ic = info[2 * c];
			}
			if (!(id & ACL_LEAF_BIT)) {
				d = (id >> 5) + (keys[(p + 3) * nd + (id & 31)] >= thr[2 * d]);
				id = info[2 * d];
			}
		}
		leaf[p] = a;
		leaf[p + 1] = b;
		leaf[p + 2] = c;
		leaf[p + 3] = d;
	}
	for (; p < n; p++) {
		uint32_t x = walk_start(tr, keys, nd, p), ix = info[2 * x];

		while (!(ix & ACL_LEAF_BIT)) {
			x = (ix >> 5) + (keys[p * nd + (ix & 31)] >= thr[2 * x]);
			ix = info[2 * x];
		}
		leaf[p] = x;
	}
}

INLINE void
classify_body(const struct acl_rt *rt, const uint8_t *const *data, uint32_t *results, uint32_t n,
	      uint32_t categories, uint32_t ncat, int w)
{
	uint32_t nd = rt->nd;
	uint32_t keys[ACL_KEYT ? 1 : CHUNK * ACL_MAX_DIMS] __attribute__((aligned(64)));
	uint32_t keyt[ACL_KEYT ? CHUNK * ACL_MAX_DIMS : 1] __attribute__((aligned(64)));  /* keyt[d * CHUNK + p] */
	uint32_t leaf[ACL_MAX_TREES * CHUNK], lr[ACL_MAX_TREES * CHUNK], brank[CHUNK * VPK_ACL_MAX_CATEGORIES], bud[CHUNK * VPK_ACL_MAX_CATEGORIES];

	for (uint32_t base = 0; base < n; base += CHUNK) {
		uint32_t cn = n - base < CHUNK ? n - base : CHUNK;

		acl_keys(rt, data + base, cn, keys, keyt, w);
		for (uint32_t p = 0; p < cn; p++) {
			for (uint32_t c = 0; c < ncat; c++) {
				brank[p * VPK_ACL_MAX_CATEGORIES + c] = UINT32_MAX;
				bud[p * VPK_ACL_MAX_CATEGORIES + c] = 0;
			}
		}
		/* Walk every tree first, then scan, prefetching each leaf's first
		 * block ahead of the packet taking it: the leaf blocks are the
		 * cache misses, this overlaps them. */
		for (uint32_t t = 0; t < rt->ntrees; t++) {
			uint32_t *lf = leaf + t * CHUNK;

			if (acl_walk(rt, t, keys, keyt, nd, cn, leaf, lr, w))
				continue;
			for (uint32_t p = 0; p < cn; p++) {
				const uint32_t *le = rt->tree[t].thr + 2 * (size_t)lf[p];

				lf[p] = le[0];
				lr[t * CHUNK + p] = le[1] & ~ACL_LEAF_BIT;
			}
		}
		for (uint32_t t = 0; t < rt->ntrees; t++) {
			uint32_t q[CHUNK], nq = 0;

			for (uint32_t p = 0; p < cn; p++) {
				const uint32_t *br = brank + p * VPK_ACL_MAX_CATEGORIES;
				uint32_t worst = 0;

				/* The leaf's best rule cannot beat what every category has. */
				for (uint32_t c = 0; c < ncat; c++)
					worst = br[c] > worst ? br[c] : worst;
				q[nq] = p;
				nq += worst >= lr[t * CHUNK + p];
			}
			scan_leaves(rt->tree[t].blocks, leaf + t * CHUNK, q, nq, ACL_KEYT ? keyt : keys, ACL_KEYT ? 1 : nd,
				    ncat, brank, bud, w,
				    rt->dead, rt);
		}
		for (uint32_t p = 0; p < cn; p++) {
			uint32_t *out = results + (size_t)(base + p) * categories;

			for (uint32_t c = 0; c < categories; c++)
				out[c] = c < ncat ? bud[p * VPK_ACL_MAX_CATEGORIES + c] : 0;
		}
	}
}

/* One category (the common case) gets its own instance: the per-category
 * loops of the scan fold away. */
INLINE void
classify(const struct acl_rt *rt, const uint8_t *const *data, uint32_t *results, uint32_t n,
	 uint32_t categories, int w)
{
	uint32_t ncat = categories < rt->ncat ? categories : rt->ncat;

	if (ncat == 1)
		classify_body(rt, data, results, n, categories, 1, w);
	else
		classify_body(rt, data, results, n, categories, ncat, w);
}

/* The block tests of the SIMD variants: all 16 slots at once by the file's
 * match32() / match16(), whatever is still live. */
#define ACL_KERN_MATCH_ALL_SLOTS()                                                                    \
	INLINE uint32_t acl_match32(uint32_t x, const uint32_t *lo, const uint32_t *sp, const uint32_t *m, \
				    uint32_t mt, int w)                                                    \
	{                                                                                                   \
		return mt & match32(x, lo, sp, m, w);                                                       \
	}                                                                                                   \
	INLINE uint32_t acl_match16(uint32_t x, const uint16_t *lo, const uint16_t *sp, const uint16_t *m, \
				    uint32_t mt, int w)                                                    \
	{                                                                                                   \
		return mt & match16(x, lo, sp, m, w);                                                       \
	}

/*
 * The tail of the variants that read keys packet by packet and walk one tree
 * at a time (scalar, sse42, avx2): their hooks over @walk_fn and their impl,
 * @width bits wide.
 */
#define ACL_KERN_ONE_TREE(walk_fn, width)                                                             \
	INLINE void acl_keys(const struct acl_rt *rt, const uint8_t *const *data, uint32_t n, uint32_t *keys, \
			     uint32_t *keyt, int w)                                                        \
	{                                                                                                   \
		(void)keyt, (void)w;                                                                        \
		keys_scalar(rt, data, n, keys);                                                             \
	}                                                                                                   \
	INLINE int acl_walk(const struct acl_rt *rt, uint32_t t, const uint32_t *keys, const uint32_t *keyt, \
			    uint32_t nd, uint32_t n, uint32_t *leaf, uint32_t *lr, int w)                   \
	{                                                                                                   \
		(void)keyt, (void)lr, (void)w;                                                              \
		walk_fn(&rt->tree[t], keys, nd, n, leaf + t * CHUNK);                                       \
		return 0;                                                                                   \
	}                                                                                                   \
	static void VPK_FN(acl_classify)(const struct acl_rt *rt, const uint8_t *const *data,             \
					 uint32_t *results, uint32_t n, uint32_t categories)               \
	{                                                                                                   \
		classify(rt, data, results, n, categories, width);                                          \
	}                                                                                                   \
	const struct acl_impl VPK_FN(acl_impl) = {                                                          \
		.base = VPK_IMPL_INIT(width),                                                               \
		.classify = VPK_FN(acl_classify),                                                           \
	}

#endif /* VPK_ACL_KERN_H */
