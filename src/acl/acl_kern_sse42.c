/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ACL classify, SSE4.2 variant: a block's 16 slots compared in four xmm
 * (32-bit dimensions) or two (16-bit); the scalar walk (acl_kern.h).
 */
#include <immintrin.h>

#define ACL_KEYT 0
#include "acl/acl_kern.h"

INLINE uint32_t
match32(uint32_t x, const uint32_t *lo, const uint32_t *sp, const uint32_t *m, int w)
{
	(void)w;
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

INLINE uint32_t
match16(uint32_t x, const uint16_t *lo, const uint16_t *sp, const uint16_t *m, int w)
{
	(void)w;
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

ACL_KERN_MATCH_ALL_SLOTS();

ACL_KERN_ONE_TREE(walk_scalar, 128);
