/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ACL classify kernels, compiled once per ISA level (acl_int.h has the data
 * layout, docs/acl.md the design).
 *
 * Per chunk of <= 64 packets:
 *   1. keys:  every dimension of every packet read big-endian into key[p][d];
 *   2. per tree (in rank order):
 *      walk:  next = child + (key[dim] >= thr) until a leaf; scalar and SSE
 *             walk 4 packets interleaved, AVX2 and AVX-512 walk 2 x lanes
 *             packets with gathers (two independent groups hide the gather
 *             latency; lanes that reached a leaf are masked off);
 *      scan:  per packet, the leaf's blocks of 16 rules are compared across
 *             rules: slot j matches when ((key & m[j]) - lo[j]) <= span[j];
 *             16 slots = 1 zmm (x32), 2 ymm (x16, avx2), 4 xmm (sse42) or a
 *             loop (scalar). Per category the first set bit of match & cmask
 *             is the best rule of the block (blocks are in rank order).
 *             A packet skips a tree whose best rank cannot beat what it has.
 *   3. results: userdata of the best rank per category, 0 if none.
 * Every variant computes exactly the same function; only 1 and 2 differ.
 */
#include <string.h>

#include "acl/acl_int.h"
#include "core/kern.h"
#if VPK_VEC_BITS > 0
#include <immintrin.h>
#endif

#define CHUNK 64
#define PREFETCH_LINES 6   /* of each reached leaf's first block, at walk time (docs/acl.md) */
#define LEAF_GATHER_TREES 2 /* x32: gather leaf table entries in the walk up to this many trees */

#define INLINE static inline __attribute__((always_inline))

/* ---- 16-slot compare: bit j set when slot j of a block matches x ------- */

INLINE uint32_t
match16(uint32_t x, const uint32_t *lo, const uint32_t *sp, const uint32_t *m, int w)
{
	(void)w;
#if VPK_VEC_BITS >= 512
	if (w == 512) {
		__m512i v = _mm512_set1_epi32((int)x);

		if (m != NULL)
			v = _mm512_and_si512(v, _mm512_load_si512(m));
		v = _mm512_sub_epi32(v, _mm512_load_si512(lo));
		return _mm512_cmple_epu32_mask(v, _mm512_load_si512(sp));
	}
	if (w == 256) {
		__m256i v = _mm256_set1_epi32((int)x), a = v, b = v;

		if (m != NULL) {
			a = _mm256_and_si256(v, _mm256_load_si256((const __m256i *)m));
			b = _mm256_and_si256(v, _mm256_load_si256((const __m256i *)(m + 8)));
		}
		a = _mm256_sub_epi32(a, _mm256_load_si256((const __m256i *)lo));
		b = _mm256_sub_epi32(b, _mm256_load_si256((const __m256i *)(lo + 8)));
		return _mm256_cmple_epu32_mask(a, _mm256_load_si256((const __m256i *)sp)) |
		       (uint32_t)_mm256_cmple_epu32_mask(b, _mm256_load_si256((const __m256i *)(sp + 8))) << 8;
	}
#elif VPK_VEC_BITS >= 256
	if (w == 256) {
		__m256i v = _mm256_set1_epi32((int)x), a = v, b = v, s0, s1;

		if (m != NULL) {
			a = _mm256_and_si256(v, _mm256_load_si256((const __m256i *)m));
			b = _mm256_and_si256(v, _mm256_load_si256((const __m256i *)(m + 8)));
		}
		a = _mm256_sub_epi32(a, _mm256_load_si256((const __m256i *)lo));
		b = _mm256_sub_epi32(b, _mm256_load_si256((const __m256i *)(lo + 8)));
		s0 = _mm256_load_si256((const __m256i *)sp);
		s1 = _mm256_load_si256((const __m256i *)(sp + 8));
		a = _mm256_cmpeq_epi32(_mm256_min_epu32(a, s0), a);
		b = _mm256_cmpeq_epi32(_mm256_min_epu32(b, s1), b);
		return (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(a)) |
		       (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(b)) << 8;
	}
#endif
#if VPK_VEC_BITS >= 128
	if (w == 128) {
		__m128i v = _mm_set1_epi32((int)x);
		uint32_t r = 0;

		for (int q = 0; q < 4; q++) {
			__m128i a = v, s = _mm_load_si128((const __m128i *)(sp + 4 * q));

			if (m != NULL)
				a = _mm_and_si128(a, _mm_load_si128((const __m128i *)(m + 4 * q)));
			a = _mm_sub_epi32(a, _mm_load_si128((const __m128i *)(lo + 4 * q)));
			a = _mm_cmpeq_epi32(_mm_min_epu32(a, s), a);
			r |= (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(a)) << (4 * q);
		}
		return r;
	}
#endif
	uint32_t r = 0;

	for (int j = 0; j < ACL_BLK; j++) {
		uint32_t v = m != NULL ? x & m[j] : x;

		r |= (uint32_t)(v - lo[j] <= sp[j]) << j;
	}
	return r;
}

/* The same for a 16-bit dimension: u16 lo[16], sp[16], m[16]; x < 2^16. */
INLINE uint32_t
match16_w16(uint32_t x, const uint16_t *lo, const uint16_t *sp, const uint16_t *m, int w)
{
	(void)w;
#if VPK_VEC_BITS >= 512
	if (w >= 256) {
		__m256i v = _mm256_set1_epi16((short)x);

		if (m != NULL)
			v = _mm256_and_si256(v, _mm256_load_si256((const __m256i *)m));
		v = _mm256_sub_epi16(v, _mm256_load_si256((const __m256i *)lo));
		return _mm256_cmple_epu16_mask(v, _mm256_load_si256((const __m256i *)sp));
	}
#elif VPK_VEC_BITS >= 256
	if (w == 256) {
		__m256i v = _mm256_set1_epi16((short)x);

		if (m != NULL)
			v = _mm256_and_si256(v, _mm256_load_si256((const __m256i *)m));
		v = _mm256_sub_epi16(v, _mm256_load_si256((const __m256i *)lo));
		v = _mm256_cmpeq_epi16(_mm256_min_epu16(v, _mm256_load_si256((const __m256i *)sp)), v);
		return (uint32_t)_mm_movemask_epi8(_mm_packs_epi16(_mm256_castsi256_si128(v),
								   _mm256_extracti128_si256(v, 1)));
	}
#endif
#if VPK_VEC_BITS >= 128
	if (w == 128) {
		__m128i v = _mm_set1_epi16((short)x), a = v, b = v;

		if (m != NULL) {
			a = _mm_and_si128(v, _mm_load_si128((const __m128i *)m));
			b = _mm_and_si128(v, _mm_load_si128((const __m128i *)(m + 8)));
		}
		a = _mm_sub_epi16(a, _mm_load_si128((const __m128i *)lo));
		b = _mm_sub_epi16(b, _mm_load_si128((const __m128i *)(lo + 8)));
		a = _mm_cmpeq_epi16(_mm_min_epu16(a, _mm_load_si128((const __m128i *)sp)), a);
		b = _mm_cmpeq_epi16(_mm_min_epu16(b, _mm_load_si128((const __m128i *)(sp + 8))), b);
		return (uint32_t)_mm_movemask_epi8(_mm_packs_epi16(a, b));
	}
#endif
	uint32_t r = 0;

	for (int j = 0; j < ACL_BLK; j++) {
		uint16_t v = (uint16_t)(m != NULL ? x & m[j] : x);

		r |= (uint32_t)((uint16_t)(v - lo[j]) <= sp[j]) << j;
	}
	return r;
}

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

/* Bit j set when slot j of block h matches the packet's keys (dimensions in
 * dim[] order; stops at the first empty mask: measured faster than testing
 * every dimension branch-free, also for the vector variants). */
INLINE uint32_t
match_block(const struct acl_blk *h, const uint32_t *key, int w)
{
	const uint8_t *arr = (const uint8_t *)(h + 1);
	uint32_t mt = h->valid, i = 0, nd = h->nd;

	/* The builder puts the 32-bit dimensions first (acl_leaf.c): two loops
	 * without a per-dimension type branch. */
	for (; i < nd && mt != 0 && !(h->dim[i] & ACL_DIM_16); i++) {
		uint32_t d = h->dim[i];
		const uint32_t *a = (const uint32_t *)(const void *)arr;

		mt &= match16(key[d & ACL_DIM_ID], a, a + ACL_BLK, (d & ACL_DIM_MASKED) ? a + 2 * ACL_BLK : NULL, w);
		arr += (d & ACL_DIM_MASKED) ? 192 : 128;
	}
	for (; i < nd && mt != 0; i++) {
		uint32_t d = h->dim[i];
		const uint16_t *a = (const uint16_t *)(const void *)arr;

		mt &= match16_w16(key[d & ACL_DIM_ID], a, a + ACL_BLK, (d & ACL_DIM_MASKED) ? a + 2 * ACL_BLK : NULL, w);
		arr += (d & ACL_DIM_MASKED) ? 128 : 64;
	}
	return mt;
}

/* One block of a leaf for one packet: update the per-category best
 * rank/userdata; returns the leaf's next block, or NULL when the packet is
 * done with this leaf. */
INLINE const uint8_t *
scan_block(const uint8_t *p, const uint32_t *key, uint32_t ncat, uint32_t *brank, uint32_t *bud,
	   uint32_t *found, int w, const struct acl_dead *dead)
{
	const struct acl_blk *h = (const struct acl_blk *)(const void *)p;
	uint32_t mt, worst = 0;

	/* Blocks are in rank order: stop when none can improve any category. */
	for (uint32_t c = 0; c < ncat; c++)
		worst = brank[c] > worst ? brank[c] : worst;
	if (h->first_rank > worst)
		return NULL;
	mt = match_block(h, key, w);
	if (mt != 0 && (mt = acl_live_slots(dead, h->ru, mt)) != 0)
		accept_block(h, mt, ncat, brank, bud, found);
	if ((h->lines & ACL_BLK_LAST) || *found == (1u << ncat) - 1)
		return NULL;
	return p + (size_t)(h->lines & ~ACL_BLK_LAST) * 64;
}

/*
 * Scan the leaves of packets q[0..nq-1] (first blocks at blocks + 64 *
 * lf[p]). A block's successor is known only once its header is loaded, so
 * each scan is a chain of dependent loads: two packets advance in turn, one
 * block each, so that their chains overlap.
 */
INLINE void
scan_leaves(const uint8_t *blocks, const uint32_t *lf, const uint32_t *q, uint32_t nq, const uint32_t *keys,
	    uint32_t nd, uint32_t ncat, uint32_t *brank, uint32_t *bud, int w, const struct acl_dead *dead)
{
	const uint32_t S = VPK_ACL_MAX_CATEGORIES;
	uint32_t i = 0;

	for (; i + 2 <= nq; i += 2) {
		uint32_t a = q[i], b = q[i + 1], fa = 0, fb = 0;
		const uint8_t *pa = blocks + (size_t)lf[a] * 64, *pb = blocks + (size_t)lf[b] * 64;

		while (pa != NULL && pb != NULL) {
			pa = scan_block(pa, keys + a * nd, ncat, brank + a * S, bud + a * S, &fa, w, dead);
			pb = scan_block(pb, keys + b * nd, ncat, brank + b * S, bud + b * S, &fb, w, dead);
		}
		while (pa != NULL)
			pa = scan_block(pa, keys + a * nd, ncat, brank + a * S, bud + a * S, &fa, w, dead);
		while (pb != NULL)
			pb = scan_block(pb, keys + b * nd, ncat, brank + b * S, bud + b * S, &fb, w, dead);
	}
	if (i < nq) {
		uint32_t a = q[i], fa = 0;
		const uint8_t *pa = blocks + (size_t)lf[a] * 64;

		while (pa != NULL)
			pa = scan_block(pa, keys + a * nd, ncat, brank + a * S, bud + a * S, &fa, w, dead);
	}
}

/* ---- tree walks: leaf[p] for packets 0..n-1 ------------------------------ */

/* Where packet p's walk starts: the tree's root table (acl_int.h). */
INLINE uint32_t
walk_start(const struct acl_tree *tr, const uint32_t *keys, uint32_t nd, uint32_t p)
{
	return tr->rtab[(keys[p * nd + tr->rdim] >> tr->rshift) & ACL_RTAB_MASK];
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
		leaf[p] = ia & ~ACL_LEAF_BIT;
		leaf[p + 1] = ib & ~ACL_LEAF_BIT;
		leaf[p + 2] = ic & ~ACL_LEAF_BIT;
		leaf[p + 3] = id & ~ACL_LEAF_BIT;
	}
	for (; p < n; p++) {
		uint32_t x = walk_start(tr, keys, nd, p), ix = info[2 * x];

		while (!(ix & ACL_LEAF_BIT)) {
			x = (ix >> 5) + (keys[p * nd + (ix & 31)] >= thr[2 * x]);
			ix = info[2 * x];
		}
		leaf[p] = ix & ~ACL_LEAF_BIT;
	}
}

#if VPK_VEC_BITS >= 512
/*
 * x32 walk: 2 x 16 lanes of zmm. A node is one 64-bit gather (thr, info),
 * split into threshold and info lanes with two permutes; with up to
 * WALK_REG_DIMS dimensions each lane's key comes from masked loads of the
 * dimension-major keys (keyt) instead of a third gather.
 */
#define WALK_REG_DIMS 8

/* Gather the nodes x of the lanes in m: returns their info (other lanes keep
 * info), sets *thr. */
INLINE __m512i
node16(const void *nodes, __m512i x, __mmask16 m, __m512i info, __m512i *thr)
{
	const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
	const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
	__m512i g0 = _mm512_mask_i32gather_epi64(_mm512_setzero_si512(), (__mmask8)m,
						 _mm512_castsi512_si256(x), nodes, 8);
	__m512i g1 = _mm512_mask_i32gather_epi64(_mm512_setzero_si512(), (__mmask8)(m >> 8),
						 _mm512_extracti64x4_epi64(x, 1), nodes, 8);

	*thr = _mm512_permutex2var_epi32(g0, even, g1);
	return _mm512_mask_mov_epi32(info, m, _mm512_permutex2var_epi32(g0, odd, g1));
}

/* The key of each lane's node dimension (dim = info & 31). */
INLINE __m512i
key16(__m512i info, __mmask16 m, const uint32_t *keys, const uint32_t *keyt, uint32_t nd, uint32_t p)
{
	__m512i d = _mm512_and_si512(info, _mm512_set1_epi32(31));

	if (nd <= WALK_REG_DIMS) {
		__m512i v = _mm512_maskz_loadu_epi32(m, keyt + p);

		for (uint32_t k = 1; k < nd; k++)
			v = _mm512_mask_loadu_epi32(v, m & _mm512_cmpeq_epi32_mask(d, _mm512_set1_epi32((int)k)),
						    keyt + k * CHUNK + p);
		return v;
	}
	__m512i row = _mm512_mullo_epi32(_mm512_add_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
									    12, 13, 14, 15),
							  _mm512_set1_epi32((int)p)),
					 _mm512_set1_epi32((int)nd));

	return _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m, _mm512_add_epi32(row, d), keys, 4);
}

/* One level for the 16 lanes in *m: gather their nodes, retire the lanes
 * that reached a leaf, step the others to the child their key selects. */
INLINE void
step16(const uint32_t *nodes, __m512i *x, __m512i *in, __mmask16 *m, const uint32_t *keys, const uint32_t *keyt,
       uint32_t nd, uint32_t p)
{
	__m512i t, k, c;

	*in = node16(nodes, *x, *m, *in, &t);
	*m &= (__mmask16)~_mm512_movepi32_mask(*in);
	k = key16(*in, *m, keys, keyt, nd, p);
	c = _mm512_srli_epi32(*in, 5);
	c = _mm512_mask_add_epi32(c, _mm512_cmpge_epu32_mask(k, t), c, _mm512_set1_epi32(1));
	*x = _mm512_mask_mov_epi32(*x, *m, c);
}

/* Start nodes of the lanes in m (packets p..p+15): root table entries. */
INLINE __m512i
start16(const struct acl_tree *tr, const uint32_t *keyt, __mmask16 m, uint32_t p)
{
	__m512i k = _mm512_maskz_loadu_epi32(m, keyt + tr->rdim * CHUNK + p);

	k = _mm512_and_si512(_mm512_srl_epi32(k, _mm_cvtsi32_si128((int)tr->rshift)),
			     _mm512_set1_epi32((int)ACL_RTAB_MASK));
	return _mm512_i32gather_epi32(k, tr->rtab, 4);
}

/* The leaf table entries of the 16 leaves in info (lanes in m), by two
 * 64-bit gathers: lf[] gets word 0 (first block | its lines), lr[] word 1
 * (best rank). */
INLINE void
leaf16(const uint32_t *ltab, __m512i info, __mmask16 m, uint32_t *lf, uint32_t *lr)
{
	const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
	const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
	__m512i l = _mm512_andnot_si512(_mm512_set1_epi32((int)ACL_LEAF_BIT), info);
	__m512i g0 = _mm512_mask_i32gather_epi64(_mm512_setzero_si512(), (__mmask8)m,
						 _mm512_castsi512_si256(l), ltab, 8);
	__m512i g1 = _mm512_mask_i32gather_epi64(_mm512_setzero_si512(), (__mmask8)(m >> 8),
						 _mm512_extracti64x4_epi64(l, 1), ltab, 8);

	_mm512_mask_storeu_epi32(lf, m, _mm512_permutex2var_epi32(g0, even, g1));
	_mm512_mask_storeu_epi32(lr, m, _mm512_permutex2var_epi32(g0, odd, g1));
}

/*
 * x32 walk of trees ta and tb (tb may be NULL) for packets 0..n-1, 32 at a
 * time: four independent chains (2 trees x 16 lanes x 2) of dependent node
 * gathers per loop, so that their latencies overlap. Stores each packet's
 * leaf (la/lb) or, when ra != NULL, its leaf table entry (la/lb: word 0,
 * ra/rb: best rank) gathered from the leaf lanes: faster than the scalar
 * loads after the walk on one-tree runtimes, slower with 8 trees (docs/acl.md).
 */
INLINE void
walk_x32(const struct acl_tree *ta, const struct acl_tree *tb, const uint32_t *keys, const uint32_t *keyt,
	 uint32_t nd, uint32_t n, uint32_t *la, uint32_t *lb, uint32_t *ra, uint32_t *rb)
{
	for (uint32_t p = 0; p < n; p += 32) {
		uint32_t na = n - p > 16 ? 16 : n - p, nb = n - p > 32 ? 16 : n - p - na;
		__mmask16 ma = (__mmask16)((1u << na) - 1), mb = (__mmask16)((1u << nb) - 1);
		__mmask16 m0 = ma, m1 = mb, m2 = tb != NULL ? ma : 0, m3 = tb != NULL ? mb : 0;
		__m512i x0 = start16(ta, keyt, m0, p), x1 = start16(ta, keyt, m1, p + 16), x2 = x0, x3 = x1;
		__m512i i0 = _mm512_setzero_si512(), i1 = i0, i2 = i0, i3 = i0;

		if (tb != NULL) {
			x2 = start16(tb, keyt, m2, p);
			x3 = start16(tb, keyt, m3, p + 16);
		}
		while (m0 | m1 | m2 | m3) {
			step16(ta->thr, &x0, &i0, &m0, keys, keyt, nd, p);
			step16(ta->thr, &x1, &i1, &m1, keys, keyt, nd, p + 16);
			if (m2 | m3) {
				step16(tb->thr, &x2, &i2, &m2, keys, keyt, nd, p);
				step16(tb->thr, &x3, &i3, &m3, keys, keyt, nd, p + 16);
			}
		}
		if (ra != NULL) {
			leaf16(ta->leaf, i0, ma, la + p, ra + p);
			leaf16(ta->leaf, i1, mb, la + p + 16, ra + p + 16);
			if (tb != NULL) {
				leaf16(tb->leaf, i2, ma, lb + p, rb + p);
				leaf16(tb->leaf, i3, mb, lb + p + 16, rb + p + 16);
			}
			continue;
		}
		_mm512_mask_storeu_epi32(la + p, ma, i0);
		_mm512_mask_storeu_epi32(la + p + 16, mb, i1);
		if (tb != NULL) {
			_mm512_mask_storeu_epi32(lb + p, ma, i2);
			_mm512_mask_storeu_epi32(lb + p + 16, mb, i3);
		}
	}
}

/* x16: 2 x 8 lanes of ymm with AVX-512VL masks. */
INLINE void
walk_x16(const struct acl_tree *tr, const uint32_t *keys, uint32_t nd, uint32_t n, uint32_t *leaf)
{
	const int *thr = (const int *)tr->thr, *info = (const int *)tr->info, *kp = (const int *)keys;

	const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
	const __m256i k31 = _mm256_set1_epi32(31), one = _mm256_set1_epi32(1);

	for (uint32_t p = 0; p < n; p += 16) {
		uint32_t na = n - p > 8 ? 8 : n - p, nb = n - p > 16 ? 8 : n - p - na;
		__mmask8 aa = (__mmask8)((1u << na) - 1), ab = (__mmask8)((1u << nb) - 1);
		__m256i ba = _mm256_mullo_epi32(_mm256_add_epi32(lane, _mm256_set1_epi32((int)p)),
						_mm256_set1_epi32((int)nd));
		__m256i bb = _mm256_add_epi32(ba, _mm256_set1_epi32((int)(8 * nd)));
		__m256i xa, xb;
		__m256i ia = _mm256_setzero_si256(), ib = ia;
		uint32_t st[16];

		for (uint32_t i = 0; i < 16; i++)
			st[i] = i < na + nb ? walk_start(tr, keys, nd, p + i) : 0;
		xa = _mm256_loadu_si256((const __m256i *)st);
		xb = _mm256_loadu_si256((const __m256i *)(st + 8));
		while (aa | ab) {
			ia = _mm256_mmask_i32gather_epi32(ia, aa, xa, info, 8);
			ib = _mm256_mmask_i32gather_epi32(ib, ab, xb, info, 8);
			aa &= (__mmask8)~_mm256_movepi32_mask(ia);
			ab &= (__mmask8)~_mm256_movepi32_mask(ib);
			__m256i ta = _mm256_mmask_i32gather_epi32(ia, aa, xa, thr, 8);
			__m256i tb = _mm256_mmask_i32gather_epi32(ib, ab, xb, thr, 8);
			__m256i ka = _mm256_mmask_i32gather_epi32(ia, aa,
					_mm256_add_epi32(ba, _mm256_and_si256(ia, k31)), kp, 4);
			__m256i kb = _mm256_mmask_i32gather_epi32(ib, ab,
					_mm256_add_epi32(bb, _mm256_and_si256(ib, k31)), kp, 4);
			__m256i ca = _mm256_srli_epi32(ia, 5), cb = _mm256_srli_epi32(ib, 5);

			ca = _mm256_mask_add_epi32(ca, _mm256_cmpge_epu32_mask(ka, ta), ca, one);
			cb = _mm256_mask_add_epi32(cb, _mm256_cmpge_epu32_mask(kb, tb), cb, one);
			xa = _mm256_mask_mov_epi32(xa, aa, ca);
			xb = _mm256_mask_mov_epi32(xb, ab, cb);
		}
		ia = _mm256_andnot_si256(_mm256_set1_epi32((int)ACL_LEAF_BIT), ia);
		ib = _mm256_andnot_si256(_mm256_set1_epi32((int)ACL_LEAF_BIT), ib);
		_mm256_mask_storeu_epi32(leaf + p, (__mmask8)((1u << na) - 1), ia);
		if (nb)
			_mm256_mask_storeu_epi32(leaf + p + 8, (__mmask8)((1u << nb) - 1), ib);
	}
}
#elif VPK_VEC_BITS >= 256
/* AVX2: 2 x 8 lanes, vpgatherdd with vector masks. */
INLINE void
walk_avx2(const struct acl_tree *tr, const uint32_t *keys, uint32_t nd, uint32_t n, uint32_t *leaf)
{
	const int *thr = (const int *)tr->thr, *info = (const int *)tr->info, *kp = (const int *)keys;
	const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
	const __m256i k31 = _mm256_set1_epi32(31);
	uint32_t tmp[16];

	for (uint32_t p = 0; p < n; p += 16) {
		uint32_t na = n - p > 8 ? 8 : n - p, nb = n - p > 16 ? 8 : n - p - na;
		__m256i aa = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)na), lane);
		__m256i ab = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)nb), lane);
		__m256i ba = _mm256_mullo_epi32(_mm256_add_epi32(lane, _mm256_set1_epi32((int)p)),
						_mm256_set1_epi32((int)nd));
		__m256i bb = _mm256_add_epi32(ba, _mm256_set1_epi32((int)(8 * nd)));
		__m256i xa, xb;
		__m256i ia = _mm256_setzero_si256(), ib = ia;

		for (uint32_t i = 0; i < 16; i++)
			tmp[i] = i < na + nb ? walk_start(tr, keys, nd, p + i) : 0;
		xa = _mm256_loadu_si256((const __m256i *)tmp);
		xb = _mm256_loadu_si256((const __m256i *)(tmp + 8));
		while (!_mm256_testz_si256(_mm256_or_si256(aa, ab), _mm256_or_si256(aa, ab))) {
			ia = _mm256_mask_i32gather_epi32(ia, info, xa, aa, 8);
			ib = _mm256_mask_i32gather_epi32(ib, info, xb, ab, 8);
			aa = _mm256_andnot_si256(_mm256_srai_epi32(ia, 31), aa);
			ab = _mm256_andnot_si256(_mm256_srai_epi32(ib, 31), ab);
			__m256i ta = _mm256_mask_i32gather_epi32(ia, thr, xa, aa, 8);
			__m256i tb = _mm256_mask_i32gather_epi32(ib, thr, xb, ab, 8);
			__m256i ka = _mm256_mask_i32gather_epi32(ia, kp,
					_mm256_add_epi32(ba, _mm256_and_si256(ia, k31)), aa, 4);
			__m256i kb = _mm256_mask_i32gather_epi32(ib, kp,
					_mm256_add_epi32(bb, _mm256_and_si256(ib, k31)), ab, 4);
			/* ge = -1 where key >= thr (unsigned) */
			__m256i ga = _mm256_cmpeq_epi32(_mm256_max_epu32(ka, ta), ka);
			__m256i gb = _mm256_cmpeq_epi32(_mm256_max_epu32(kb, tb), kb);
			__m256i ca = _mm256_sub_epi32(_mm256_srli_epi32(ia, 5), ga);
			__m256i cb = _mm256_sub_epi32(_mm256_srli_epi32(ib, 5), gb);

			xa = _mm256_blendv_epi8(xa, ca, aa);
			xb = _mm256_blendv_epi8(xb, cb, ab);
		}
		ia = _mm256_andnot_si256(_mm256_set1_epi32((int)ACL_LEAF_BIT), ia);
		ib = _mm256_andnot_si256(_mm256_set1_epi32((int)ACL_LEAF_BIT), ib);
		_mm256_storeu_si256((__m256i *)tmp, ia);
		_mm256_storeu_si256((__m256i *)(tmp + 8), ib);
		memcpy(leaf + p, tmp, (na + nb) * 4);
	}
}
#endif

/* ---- the classify body, one instance per variant ------------------------ */

/* Prefetch the first block of a leaf (@p le0: its leaf table word 0): its
 * lines (header, ranks, userdata and the first dimensions' arrays) up to
 * PREFETCH_LINES, not beyond: prefetching past the block, or more of it,
 * measured slower. */
INLINE void
prefetch_leaf(const uint8_t *blocks, uint32_t le0)
{
	const uint8_t *bp = blocks + (size_t)(le0 & ACL_LEAF_OFF) * 64;
	uint32_t nl = le0 >> ACL_LEAF_LSHIFT;

	nl = nl < PREFETCH_LINES ? nl : PREFETCH_LINES;
	for (uint32_t k = 0; k < nl; k++)
		__builtin_prefetch(bp + 64 * k);
}

INLINE void
classify_body(const struct acl_rt *rt, const uint8_t *const *data, uint32_t *results, uint32_t n,
	      uint32_t categories, uint32_t ncat, int w)
{
	uint32_t nd = rt->nd;
	uint32_t keys[CHUNK * ACL_MAX_DIMS] __attribute__((aligned(64)));
#if VPK_VEC_BITS >= 512
	uint32_t keyt[CHUNK * ACL_MAX_DIMS] __attribute__((aligned(64)));  /* keyt[d * CHUNK + p] */
#endif
	uint32_t leaf[ACL_MAX_TREES * CHUNK], lr[ACL_MAX_TREES * CHUNK], brank[CHUNK * VPK_ACL_MAX_CATEGORIES], bud[CHUNK * VPK_ACL_MAX_CATEGORIES];

	for (uint32_t base = 0; base < n; base += CHUNK) {
		uint32_t cn = n - base < CHUNK ? n - base : CHUNK;

		for (uint32_t p = 0; p < cn; p++) {
			const uint8_t *d = data[base + p];

			for (uint32_t k = 0; k < nd; k++) {
				keys[p * nd + k] = acl_load_dim(d, &rt->src[k]);
#if VPK_VEC_BITS >= 512
				keyt[k * CHUNK + p] = keys[p * nd + k];
#endif
			}
			for (uint32_t c = 0; c < ncat; c++) {
				brank[p * VPK_ACL_MAX_CATEGORIES + c] = UINT32_MAX;
				bud[p * VPK_ACL_MAX_CATEGORIES + c] = 0;
			}
		}
		/* Walk every tree first, prefetch every leaf, then scan: the leaf
		 * blocks are the cache misses, this overlaps them. */
		for (uint32_t t = 0; t < rt->ntrees; t++) {
			uint32_t *lf = leaf + t * CHUNK;

#if VPK_VEC_BITS >= 512
			if (w == 512) {
				/* two trees at a time (the second one's leaves are
				 * prefetched in the next round) */
				int gl = rt->ntrees <= LEAF_GATHER_TREES;

				if (t % 2 == 0)
					walk_x32(&rt->tree[t], t + 1 < rt->ntrees ? &rt->tree[t + 1] : NULL, keys, keyt, nd,
						 cn, lf, lf + CHUNK, gl ? lr + t * CHUNK : NULL, lr + t * CHUNK + CHUNK);
				if (gl) {
					/* lf[] holds leaf table word 0, lr[] the best ranks */
					for (uint32_t p = 0; p < cn; p++) {
						prefetch_leaf(rt->tree[t].blocks, lf[p]);
						lf[p] &= ACL_LEAF_OFF;
					}
					continue;
				}
			} else if (w == 256)
				walk_x16(&rt->tree[t], keys, nd, cn, lf);
			else
#elif VPK_VEC_BITS >= 256
			if (w >= 256)
				walk_avx2(&rt->tree[t], keys, nd, cn, lf);
			else
#endif
				walk_scalar(&rt->tree[t], keys, nd, cn, lf);
			for (uint32_t p = 0; p < cn; p++) {
				const uint32_t *le = rt->tree[t].leaf + 2 * (size_t)(lf[p] & ~ACL_LEAF_BIT);

				prefetch_leaf(rt->tree[t].blocks, le[0]);
				lf[p] = le[0] & ACL_LEAF_OFF;
				lr[t * CHUNK + p] = le[1];
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
			scan_leaves(rt->tree[t].blocks, leaf + t * CHUNK, q, nq, keys, nd, ncat, brank, bud, w,
				    rt->dead);
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

#if VPK_VEC_BITS >= 512
static void
VPK_FN(acl_classify_x32)(const struct acl_rt *rt, const uint8_t *const *data, uint32_t *results,
			 uint32_t n, uint32_t categories)
{
	classify(rt, data, results, n, categories, 512);
}

static void
VPK_FN(acl_classify_x16)(const struct acl_rt *rt, const uint8_t *const *data, uint32_t *results,
			 uint32_t n, uint32_t categories)
{
	classify(rt, data, results, n, categories, 256);
}

const struct acl_impl acl_impl_avx512x32 = {
	.base = { .name = "avx512x32", .isa = VPK_ISA_AVX512, .width = 512 },
	.classify = VPK_FN(acl_classify_x32),
};
const struct acl_impl acl_impl_avx512x16 = {
	.base = { .name = "avx512x16", .isa = VPK_ISA_AVX512, .width = 256 },
	.classify = VPK_FN(acl_classify_x16),
};
#else
static void
VPK_FN(acl_classify)(const struct acl_rt *rt, const uint8_t *const *data, uint32_t *results,
		     uint32_t n, uint32_t categories)
{
	classify(rt, data, results, n, categories, VPK_VEC_BITS >= 256 ? 256 : VPK_VEC_BITS);
}

const struct acl_impl VPK_FN(acl_impl) = {
	.base = VPK_IMPL_INIT(VPK_VEC_BITS >= 128 ? VPK_VEC_BITS : 64),
	.classify = VPK_FN(acl_classify),
};
#endif
