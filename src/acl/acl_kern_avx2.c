/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ACL classify, AVX2 variant: a block's 16 slots compared in two ymm
 * (32-bit dimensions) or one (16-bit); the walk gathers the nodes of 2 x 8
 * packets with vpgatherdd (acl_kern.h has the shared body).
 */
#include <immintrin.h>

#define ACL_KEYT 0
#include "acl/acl_kern.h"

INLINE uint32_t
match32(uint32_t x, const uint32_t *lo, const uint32_t *sp, const uint32_t *m, int w)
{
	(void)w;
	__m256i a, b;

	sub32_ymm(x, lo, m, &a, &b);
	a = _mm256_cmpeq_epi32(_mm256_min_epu32(a, _mm256_load_si256((const __m256i *)sp)), a);
	b = _mm256_cmpeq_epi32(_mm256_min_epu32(b, _mm256_load_si256((const __m256i *)(sp + 8))), b);
	return (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(a)) |
	       (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(b)) << 8;
}

INLINE uint32_t
match16(uint32_t x, const uint16_t *lo, const uint16_t *sp, const uint16_t *m, int w)
{
	(void)w;
	__m256i v = sub16_ymm(x, lo, m);

	v = _mm256_cmpeq_epi16(_mm256_min_epu16(v, _mm256_load_si256((const __m256i *)sp)), v);
	return (uint32_t)_mm_movemask_epi8(_mm_packs_epi16(_mm256_castsi256_si128(v),
							   _mm256_extracti128_si256(v, 1)));
}

ACL_KERN_MATCH_ALL_SLOTS();

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
		_mm256_storeu_si256((__m256i *)tmp, xa);
		_mm256_storeu_si256((__m256i *)(tmp + 8), xb);
		memcpy(leaf + p, tmp, (na + nb) * 4);
	}
}

ACL_KERN_ONE_TREE(walk_avx2, 256);
