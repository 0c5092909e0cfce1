/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ACL classify, AVX-512 variants (acl_kern.h has the shared body):
 *   x32: a block's 16 slots in one zmm compare to a k-mask; the walk steps
 *        2 x 16 packets of two trees at once (4 x 16 packets of a runtime's
 *        only tree) with 64-bit node gathers, the last of which brings the
 *        leaf's first block and best rank; keys (both) by 16-byte rows;
 *   x16: the slots in two ymm, the walk 8 x 8 packets of one tree with
 *        vector masks, the x32 walk's steps at half the width.
 */
#include <immintrin.h>

/* 1: this translation unit is avx512x16 alone (acl_kern_avx512x16.c), whose
 * code must not hold one zmm instruction: the zmm paths below are then not
 * compiled at all (clang lets an inlined zmm intrinsic, even in a branch
 * that folds away, widen the whole function's registers to zmm). */
#ifndef ACL_YMM_ONLY
#define ACL_YMM_ONLY 0
#endif
#define ACL_KEYT 1   /* x32's walk reads each lane's key from the dimension-major keys */
#include "acl/acl_kern.h"


INLINE uint32_t
match32(uint32_t x, const uint32_t *lo, const uint32_t *sp, const uint32_t *m, int w)
{
	if (!ACL_YMM_ONLY && w == 512) {
		__m512i v = _mm512_set1_epi32((int)x);

		if (m != NULL)
			v = _mm512_and_si512(v, _mm512_load_si512(m));
		v = _mm512_sub_epi32(v, _mm512_load_si512(lo));
		return _mm512_cmple_epu32_mask(v, _mm512_load_si512(sp));
	}
	__m256i a, b;

	sub32_ymm(x, lo, m, &a, &b);
	return _mm256_cmple_epu32_mask(a, _mm256_load_si256((const __m256i *)sp)) |
	       (uint32_t)_mm256_cmple_epu32_mask(b, _mm256_load_si256((const __m256i *)(sp + 8))) << 8;
}

INLINE uint32_t
match16(uint32_t x, const uint16_t *lo, const uint16_t *sp, const uint16_t *m, int w)
{
	(void)w;
	__m256i v = sub16_ymm(x, lo, m);

	return _mm256_cmple_epu16_mask(v, _mm256_load_si256((const __m256i *)sp));
}

ACL_KERN_MATCH_ALL_SLOTS();

/* The keys of packets data[0..n-1] by 16-byte rows (struct acl_keyplan), in
 * ymm (x16 runs under the cap 256): per row and 8 packets 8 loads into 4 ymm
 * (packets i and i + 4), per group of 4 dimensions one byte shuffle each and
 * a 4 x 4 transpose of 32-bit lanes. No gather: 64-bit gathers of 8-byte
 * windows cost x16 about 10 cycles per packet on the 10k acl set, and x32
 * is 5-8 % faster with the rows too. Lanes past n repeat packet 0 (keyt has
 * room for CHUNK packets; the walks never read those lanes). */
INLINE void
keys_rows(const struct acl_keyplan *kp, const uint8_t *const *data, uint32_t n, uint32_t *keyt)
{
	for (uint32_t p = 0; p < n; p += 8) {
		const uint8_t *d[8];

		for (uint32_t i = 0; i < 8; i++)
			d[i] = data[p + (p + i < n ? i : 0)];
		for (uint32_t r = 0; r < kp->nr; r++) {
			uint32_t s = kp->rstart[r];
			__m256i r0 = _mm256_loadu2_m128i((const __m128i *)(d[4] + s), (const __m128i *)(d[0] + s));
			__m256i r1 = _mm256_loadu2_m128i((const __m128i *)(d[5] + s), (const __m128i *)(d[1] + s));
			__m256i r2 = _mm256_loadu2_m128i((const __m128i *)(d[6] + s), (const __m128i *)(d[2] + s));
			__m256i r3 = _mm256_loadu2_m128i((const __m128i *)(d[7] + s), (const __m128i *)(d[3] + s));

			for (uint32_t g = 0; g < kp->ng; g++) {
				__m256i ctl, a, b, c, e, t[4];

				if (kp->grow[g] != r)
					continue;
				ctl = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)kp->gctl[g]));
				a = _mm256_shuffle_epi8(r0, ctl);
				b = _mm256_shuffle_epi8(r1, ctl);
				c = _mm256_shuffle_epi8(r2, ctl);
				e = _mm256_shuffle_epi8(r3, ctl);
				t[0] = _mm256_unpacklo_epi32(a, b);   /* packets 0 1 (4 5): lanes 0 1 */
				t[1] = _mm256_unpacklo_epi32(c, e);   /* packets 2 3 (6 7): lanes 0 1 */
				t[2] = _mm256_unpackhi_epi32(a, b);   /* packets 0 1: lanes 2 3 */
				t[3] = _mm256_unpackhi_epi32(c, e);
				a = _mm256_unpacklo_epi64(t[0], t[1]);
				b = _mm256_unpackhi_epi64(t[0], t[1]);
				c = _mm256_unpacklo_epi64(t[2], t[3]);
				e = _mm256_unpackhi_epi64(t[2], t[3]);
				_mm256_storeu_si256((__m256i *)(keyt + kp->gdim[g][0] * CHUNK + p), a);
				if (kp->gcnt[g] > 1)
					_mm256_storeu_si256((__m256i *)(keyt + kp->gdim[g][1] * CHUNK + p), b);
				if (kp->gcnt[g] > 2)
					_mm256_storeu_si256((__m256i *)(keyt + kp->gdim[g][2] * CHUNK + p), c);
				if (kp->gcnt[g] > 3)
					_mm256_storeu_si256((__m256i *)(keyt + kp->gdim[g][3] * CHUNK + p), e);
			}
		}
	}
}

/* The keys of packets data[0..n-1], dimension-major, at either width: by
 * 16-byte rows, or, when every field ends before byte 16, byte by byte. */
INLINE void
acl_keys(const struct acl_rt *rt, const uint8_t *const *data, uint32_t n, uint32_t *keys, uint32_t *keyt,
	 int w)
{
	(void)keys, (void)w;
	if (rt->kp.nr != 0) {
		keys_rows(&rt->kp, data, n, keyt);
		return;
	}
	for (uint32_t k = 0; k < rt->nd; k++)
		for (uint32_t p = 0; p < n; p++)
			keyt[k * CHUNK + p] = acl_load_dim(data[p], &rt->src[k]);
}

/*
 * x32 walk: 2 x 16 lanes of zmm. A node is one 64-bit gather (thr, info),
 * split into threshold and info lanes with two permutes; with up to
 * WALK_REG_DIMS dimensions each lane's key comes from masked loads of the
 * dimension-major keys (keyt) instead of a third gather.
 */
/* IPv6's 13 dimensions included: the loads cost less than a key gather
 * there too (ipv6 10k, acl1-v6 10k: 2.5-11 % fewer cycles in x16 and x32). */
#define WALK_REG_DIMS 16

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
	__m512i col = _mm512_add_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
				       _mm512_set1_epi32((int)p));

	(void)keys;
	return _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m,
					   _mm512_add_epi32(col, _mm512_slli_epi32(d, 6 /* CHUNK */)), keyt, 4);
}

/* One level for the 16 lanes in *m: gather their nodes, retire the lanes
 * that reached a leaf (*lw gets their node word 0: first block and lines),
 * step the others to the child their key selects. */
INLINE void
step16(const uint32_t *nodes, __m512i *x, __m512i *in, __m512i *lw, __mmask16 *m, const uint32_t *keys,
       const uint32_t *keyt, uint32_t nd, uint32_t p)
{
	__m512i t, k, c;
	__mmask16 lf;

	*in = node16(nodes, *x, *m, *in, &t);
	lf = *m & _mm512_movepi32_mask(*in);
	*lw = _mm512_mask_mov_epi32(*lw, lf, t);
	*m &= (__mmask16)~lf;
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
	__m512i k2 = _mm512_maskz_loadu_epi32(m, keyt + tr->rdim2 * CHUNK + p);

	k = _mm512_sll_epi32(_mm512_srl_epi32(k, _mm_cvtsi32_si128((int)tr->rshift)),
			     _mm_cvtsi32_si128((int)tr->rbits2));
	k = _mm512_or_si512(k, _mm512_srl_epi32(k2, _mm_cvtsi32_si128((int)tr->rshift2)));
	k = _mm512_and_si512(k, _mm512_set1_epi32((int)ACL_RTAB_MASK));
	return _mm512_i32gather_epi32(k, tr->rtab, 4);
}

/* The leaves reached by the lanes in m (their node words lw, info): lf[]
 * gets word 0 (first block | its lines), lr[] the best rank. */
INLINE void
leaf16(__m512i lw, __m512i info, __mmask16 m, uint32_t *lf, uint32_t *lr)
{
	_mm512_mask_storeu_epi32(lf, m, lw);
	_mm512_mask_storeu_epi32(lr, m, _mm512_andnot_si512(_mm512_set1_epi32((int)ACL_LEAF_BIT), info));
}

/*
 * x32 walk of trees ta and tb (tb may be NULL) for packets 0..n-1, 32 at a
 * time: four independent chains (2 trees x 16 lanes x 2) of dependent node
 * gathers per loop, so that their latencies overlap. Stores each packet's
 * leaf as its node's words (la/lb: word 0, ra/rb: best rank) kept from the
 * lanes' last gather.
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
		__m512i i0 = _mm512_setzero_si512(), i1 = i0, i2 = i0, i3 = i0, w0 = i0, w1 = i0, w2 = i0, w3 = i0;

		if (tb != NULL) {
			x2 = start16(tb, keyt, m2, p);
			x3 = start16(tb, keyt, m3, p + 16);
		}
		while (m0 | m1 | m2 | m3) {
			step16(ta->thr, &x0, &i0, &w0, &m0, keys, keyt, nd, p);
			step16(ta->thr, &x1, &i1, &w1, &m1, keys, keyt, nd, p + 16);
			if (m2 | m3) {
				step16(tb->thr, &x2, &i2, &w2, &m2, keys, keyt, nd, p);
				step16(tb->thr, &x3, &i3, &w3, &m3, keys, keyt, nd, p + 16);
			}
		}
		leaf16(w0, i0, ma, la + p, ra + p);
		leaf16(w1, i1, mb, la + p + 16, ra + p + 16);
		if (tb != NULL) {
			leaf16(w2, i2, ma, lb + p, rb + p);
			leaf16(w3, i3, mb, lb + p + 16, rb + p + 16);
		}
	}
}

/*
 * x32 walk of a runtime's only tree for packets 0..n-1 (n <= CHUNK): four
 * chains of 16 lanes at once, as walk_x32() runs for two trees (two chains
 * of one tree left the gathers' latency exposed: acl 4096 and the 1k sets
 * 2-5 % slower at burst 256). Stores each packet's leaf (la: its node's
 * word 0, ra: best rank).
 */
INLINE void
walk_x32_one(const struct acl_tree *ta, const uint32_t *keys, const uint32_t *keyt, uint32_t nd, uint32_t n,
	     uint32_t *la, uint32_t *ra)
{
	__mmask16 mk[4], m[4];
	__m512i x[4], in[4], lw[4];

	_Static_assert(CHUNK == 4 * 16, "walk_x32_one() walks a chunk as four chains of 16 lanes");
	for (uint32_t c = 0; c < 4; c++) {
		uint32_t p = 16 * c, k = n > p ? (n - p > 16 ? 16 : n - p) : 0;

		m[c] = mk[c] = (__mmask16)((1u << k) - 1);
		in[c] = lw[c] = _mm512_setzero_si512();
		x[c] = k != 0 ? start16(ta, keyt, mk[c], p) : _mm512_setzero_si512();
	}
	while (m[0] | m[1] | m[2] | m[3]) {
		step16(ta->thr, &x[0], &in[0], &lw[0], &m[0], keys, keyt, nd, 0);
		step16(ta->thr, &x[1], &in[1], &lw[1], &m[1], keys, keyt, nd, 16);
		if (m[2] | m[3]) {
			step16(ta->thr, &x[2], &in[2], &lw[2], &m[2], keys, keyt, nd, 32);
			step16(ta->thr, &x[3], &in[3], &lw[3], &m[3], keys, keyt, nd, 48);
		}
	}
	for (uint32_t c = 0; c < 4; c++)
		if (mk[c] != 0)
			leaf16(lw[c], in[c], mk[c], la + 16 * c, ra + 16 * c);
}

/*
 * x16 walk: chains of 8 lanes of ymm, the x32 walk's steps at half the
 * width, with vector masks instead of k-masks (AVX-512VL only for the
 * permutes): a node is two 4-lane 64-bit gathers split with two permutes,
 * each lane's key a blend of the dimension-major keys (a gather beyond
 * WALK_REG_DIMS dimensions). A lane at a leaf keeps gathering its leaf
 * node, so the last gather holds every lane's leaf words (first block and
 * lines, best rank). WALK16_CHAINS chains (64 packets) step at once so that
 * their gathers' latencies overlap.
 */
#define WALK16_CHAINS 8

/* The threshold (*thr) and info of the nodes x. */
INLINE __m256i
node8(const void *nodes, __m256i x, __m256i *thr)
{
	const __m256i even = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
	const __m256i odd = _mm256_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15);
	__m256i g0 = _mm256_i32gather_epi64((const long long *)nodes, _mm256_castsi256_si128(x), 8);
	__m256i g1 = _mm256_i32gather_epi64((const long long *)nodes, _mm256_extracti128_si256(x, 1), 8);

	*thr = _mm256_permutex2var_epi32(g0, even, g1);
	return _mm256_permutex2var_epi32(g0, odd, g1);
}

/* The key of each lane's node dimension (dim = info & 31). */
INLINE __m256i
key8(__m256i info, const uint32_t *keyt, uint32_t nd, uint32_t p)
{
	__m256i d = _mm256_and_si256(info, _mm256_set1_epi32(31));

	if (nd <= WALK_REG_DIMS) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(keyt + p));

		for (uint32_t k = 1; k < nd; k++)
			v = _mm256_blendv_epi8(v, _mm256_loadu_si256((const __m256i *)(keyt + k * CHUNK + p)),
					       _mm256_cmpeq_epi32(d, _mm256_set1_epi32((int)k)));
		return v;
	}
	__m256i col = _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32((int)p));

	/* a lane at a leaf has no dimension: its bits are the rank's */
	d = _mm256_min_epu32(d, _mm256_set1_epi32((int)nd - 1));
	return _mm256_i32gather_epi32((const int *)keyt, _mm256_add_epi32(col, _mm256_slli_epi32(d, 6 /* CHUNK */)), 4);
}

/* One level for the 8 lanes of a chain: gather their nodes; the lanes not
 * done (*dn: at a leaf, or without a packet) step to the child their key
 * selects. Returns the done lanes' bits. */
INLINE uint32_t
step8(const uint32_t *nodes, __m256i *x, __m256i *in, __m256i *t, __m256i *dn, const uint32_t *keyt,
      uint32_t nd, uint32_t p)
{
	__m256i k, c;

	*in = node8(nodes, *x, t);
	*dn = _mm256_or_si256(*dn, _mm256_srai_epi32(*in, 31));
	k = key8(*in, keyt, nd, p);
	/* child + (key >= thr): the compare's all-ones subtracted */
	c = _mm256_sub_epi32(_mm256_srli_epi32(*in, 5), _mm256_cmpeq_epi32(_mm256_max_epu32(k, *t), k));
	*x = _mm256_blendv_epi8(c, *x, *dn);
	return (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(*dn));
}

INLINE void
walk_x16(const struct acl_tree *tr, const uint32_t *keyt, uint32_t nd, uint32_t n, uint32_t *lf, uint32_t *lr)
{
	for (uint32_t p0 = 0; p0 < n; p0 += 8 * WALK16_CHAINS) {
		__mmask8 mk[WALK16_CHAINS];
		uint32_t dm[WALK16_CHAINS], any = 0;
		__m256i x[WALK16_CHAINS], in[WALK16_CHAINS], t[WALK16_CHAINS], dn[WALK16_CHAINS];

#pragma GCC unroll 8
		for (uint32_t c = 0; c < WALK16_CHAINS; c++) {
			uint32_t p = p0 + 8 * c, k = n > p ? (n - p > 8 ? 8 : n - p) : 0;

			mk[c] = (__mmask8)((1u << k) - 1);
			dm[c] = 0xffu & ~(uint32_t)mk[c];
			dn[c] = _mm256_movm_epi32((__mmask8)dm[c]);
			any |= mk[c];
			in[c] = t[c] = x[c] = _mm256_setzero_si256();
			if (k != 0) {   /* short calls: no gathers for empty chains */
				__m256i r = _mm256_maskz_loadu_epi32(mk[c], keyt + tr->rdim * CHUNK + p);
				__m256i r2 = _mm256_maskz_loadu_epi32(mk[c], keyt + tr->rdim2 * CHUNK + p);

				r = _mm256_sll_epi32(_mm256_srl_epi32(r, _mm_cvtsi32_si128((int)tr->rshift)),
						     _mm_cvtsi32_si128((int)tr->rbits2));
				r = _mm256_or_si256(r, _mm256_srl_epi32(r2, _mm_cvtsi32_si128((int)tr->rshift2)));
				r = _mm256_and_si256(r, _mm256_set1_epi32((int)ACL_RTAB_MASK));
				x[c] = _mm256_mmask_i32gather_epi32(_mm256_setzero_si256(), mk[c], r, tr->rtab, 4);
			}
		}
		while (any) {
			any = 0;
#pragma GCC unroll 8
			for (uint32_t c = 0; c < WALK16_CHAINS; c++) {
				if (dm[c] != 0xff)
					dm[c] = step8(tr->thr, &x[c], &in[c], &t[c], &dn[c], keyt, nd, p0 + 8 * c);
				any |= dm[c] ^ 0xff;
			}
		}
#pragma GCC unroll 8
		for (uint32_t c = 0; c < WALK16_CHAINS; c++) {
			uint32_t p = p0 + 8 * c;

			if (mk[c] == 0)
				break;
			_mm256_mask_storeu_epi32(lf + p, mk[c], t[c]);
			_mm256_mask_storeu_epi32(lr + p, mk[c],
						 _mm256_andnot_si256(_mm256_set1_epi32((int)ACL_LEAF_BIT), in[c]));
		}
	}
}

INLINE int
acl_walk(const struct acl_rt *rt, uint32_t t, const uint32_t *keys, const uint32_t *keyt, uint32_t nd,
	 uint32_t n, uint32_t *leaf, uint32_t *lr, int w)
{
	uint32_t *lf = leaf + t * CHUNK;

	if (ACL_YMM_ONLY || w == 256) {
		walk_x16(&rt->tree[t], keyt, nd, n, lf, lr + t * CHUNK);
		return 1;
	}
	/* one tree and more than 32 packets: four chains of it; else two trees at
	 * a time (the second one's leaves are prefetched in the next round) */
	if (rt->ntrees == 1 && n > 32)
		walk_x32_one(&rt->tree[0], keys, keyt, nd, n, lf, lr);
	else if (t % 2 == 0)
		walk_x32(&rt->tree[t], t + 1 < rt->ntrees ? &rt->tree[t + 1] : NULL, keys, keyt, nd, n, lf,
			 lf + CHUNK, lr + t * CHUNK, lr + t * CHUNK + CHUNK);
	/* lf[] holds the leaf nodes' word 0, lr[] the best ranks */
	return 1;
}

#if !ACL_YMM_ONLY
static void
VPK_FN(acl_classify_x32)(const struct acl_rt *rt, const uint8_t *const *data, uint32_t *results,
			 uint32_t n, uint32_t categories)
{
	classify(rt, data, results, n, categories, 512);
}

const struct acl_impl acl_impl_avx512x32 = {
	.base = VPK_IMPL_NAMED("avx512x32", 512),
	.classify = VPK_FN(acl_classify_x32),
};
#else
static void
VPK_FN(acl_classify_x16)(const struct acl_rt *rt, const uint8_t *const *data, uint32_t *results,
			 uint32_t n, uint32_t categories)
{
	classify(rt, data, results, n, categories, 256);
}

const struct acl_impl acl_impl_avx512x16 = {
	.base = VPK_IMPL_NAMED("avx512x16", 256),
	.classify = VPK_FN(acl_classify_x16),
};
#endif
