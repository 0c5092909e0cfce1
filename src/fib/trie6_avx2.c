/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 trie lookups, avx2 (trie6.h layout): the avx512 scheme of
 * trie6_avx512.c on 2 x 8 addresses, tbl24 prefetched (without it avx2 was
 * 2x slower than scalar on random addresses). 8-byte entries take the
 * scalar walk (4 lanes of 64-bit gathers do not pay). Returns exactly what
 * the scalar walk does.
 */
#include "fib/trie6_walk.h"
#include "fib/v6vec.h"

#define VEC_LOOKUP_32(NAME, SC, MASK)                                                      \
	static inline __attribute__((always_inline)) size_t NAME(const struct trie6 *t, const uint8_t (*ips)[16],          \
				  uint64_t *nhs, size_t n)                                  \
	{                                                                                  \
		const __m256i one = _mm256_set1_epi32(1), keep = _mm256_set1_epi32((int)(MASK)); \
		const __m256i unt = v6_untranspose();             \
		const int *t24 = t->tbl24, *t8 = t->tbl8;                                  \
		size_t i = 0;                                                              \
		for (; i + 16 <= n; i += 16) {                                             \
			struct v6blk A, B;                                                 \
			if (i + 16 + V6_PF <= n)                                           \
				prefetch24(t24, SC, ips, i + V6_PF, 16);                   \
			v6_load(&A, ips + i);                                              \
			v6_load(&B, ips + i + 8);                                          \
			__m256i ea = _mm256_and_si256(_mm256_i32gather_epi32(t24, v6_idx(V6_IDX24, &A), SC), keep); \
			__m256i eb = _mm256_and_si256(_mm256_i32gather_epi32(t24, v6_idx(V6_IDX24, &B), SC), keep); \
			__m256i ma = _mm256_cmpeq_epi32(_mm256_and_si256(ea, one), one);   \
			__m256i mb = _mm256_cmpeq_epi32(_mm256_and_si256(eb, one), one);   \
			for (int k = 3; !_mm256_testz_si256(_mm256_or_si256(ma, mb), _mm256_or_si256(ma, mb)); k++) { \
				if (!_mm256_testz_si256(ma, ma)) {                         \
					__m256i x = _mm256_add_epi32(_mm256_slli_epi32(_mm256_srli_epi32(ea, 1), 8), \
								     v6_pick(&A, k));      \
					ea = _mm256_and_si256(_mm256_mask_i32gather_epi32(ea, t8, x, ma, SC), keep); \
					ma = _mm256_cmpeq_epi32(_mm256_and_si256(ea, one), one); \
				}                                                          \
				if (!_mm256_testz_si256(mb, mb)) {                         \
					__m256i x = _mm256_add_epi32(_mm256_slli_epi32(_mm256_srli_epi32(eb, 1), 8), \
								     v6_pick(&B, k));      \
					eb = _mm256_and_si256(_mm256_mask_i32gather_epi32(eb, t8, x, mb, SC), keep); \
					mb = _mm256_cmpeq_epi32(_mm256_and_si256(eb, one), one); \
				}                                                          \
			}                                                                  \
			ea = _mm256_permutevar8x32_epi32(_mm256_srli_epi32(ea, 1), unt);   \
			eb = _mm256_permutevar8x32_epi32(_mm256_srli_epi32(eb, 1), unt);   \
			_mm256_storeu_si256((void *)(nhs + i), _mm256_cvtepu32_epi64(_mm256_castsi256_si128(ea))); \
			_mm256_storeu_si256((void *)(nhs + i + 4), _mm256_cvtepu32_epi64(_mm256_extracti128_si256(ea, 1))); \
			_mm256_storeu_si256((void *)(nhs + i + 8), _mm256_cvtepu32_epi64(_mm256_castsi256_si128(eb))); \
			_mm256_storeu_si256((void *)(nhs + i + 12), _mm256_cvtepu32_epi64(_mm256_extracti128_si256(eb, 1))); \
		}                                                                          \
		return i;                                                                  \
	}
VEC_LOOKUP_32(vec_2, 2, 0xffff)
VEC_LOOKUP_32(vec_4, 4, 0xffffffffu)


TRIE6_IMPL(256, vec_2, vec_4, TRIE6_NO_VEC);
