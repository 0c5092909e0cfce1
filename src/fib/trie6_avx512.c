/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 trie lookups, avx512 (trie6.h layout): 4 x 16 addresses per
 * iteration; address bytes come from in-lane byte shuffles of the loaded
 * addresses (v6vec.h), one masked gather per level and block, the blocks'
 * gathers interleaved; tbl24 entries prefetched V6_PF addresses ahead.
 * 8-byte entries: one block of 16 as two halves of 8 64-bit lanes.
 * Returns exactly what the scalar walk does.
 */
#include "fib/trie6_walk.h"
#include "fib/v6vec.h"

/* V6_NB blocks of 16 per iteration, their gathers interleaved, for memory-level parallelism. */
#define V6_NB 4
#define VEC_LOOKUP_32(NAME, SC, MASK)                                                      \
	static inline __attribute__((always_inline)) size_t NAME(const struct trie6 *t, const uint8_t (*ips)[16],          \
				  uint64_t *nhs, size_t n)                                  \
	{                                                                                  \
		const __m512i one = _mm512_set1_epi32(1), keep = _mm512_set1_epi32((int)(MASK)); \
		const __m512i unt = v6_untranspose();      \
		const void *t24 = t->tbl24, *t8 = t->tbl8;                                 \
		size_t i = 0;                                                              \
		for (; i + 16 * V6_NB <= n; i += 16 * V6_NB) {                             \
			struct v6blk A[V6_NB];                                             \
			__m512i e[V6_NB];                                                  \
			__mmask16 m[V6_NB], any = 0;                                       \
			if (i + 16 * V6_NB + V6_PF <= n) {  /* tbl24 entries ahead */      \
				struct v6blk P;                                            \
				uint32_t pf[16];                                           \
				for (int h = 0; h < V6_NB; h++) {                          \
					v6_load(&P, ips + i + V6_PF + 16 * h);             \
					_mm512_storeu_si512((void *)pf, v6_idx(V6_IDX24, &P));     \
					for (int q = 0; q < 16; q++)                       \
						__builtin_prefetch((const char *)t24 + (size_t)pf[q] * SC); \
				}                                                          \
			}                                                                  \
			for (int b = 0; b < V6_NB; b++) {                                  \
				v6_load(&A[b], ips + i + 16 * b);                          \
				e[b] = _mm512_and_si512(_mm512_i32gather_epi32(v6_idx(V6_IDX24, &A[b]), t24, SC), keep); \
			}                                                                  \
			for (int b = 0; b < V6_NB; b++) {                                  \
				m[b] = _mm512_test_epi32_mask(e[b], one);                  \
				any |= m[b];                                               \
			}                                                                  \
			for (int k = 3; any; k++) {                                        \
				any = 0;                                                   \
				for (int b = 0; b < V6_NB; b++)                            \
					if (m[b]) {                                        \
						__m512i x = _mm512_add_epi32(_mm512_slli_epi32(_mm512_srli_epi32(e[b], 1), 8), \
									     v6_pick(&A[b], k)); \
						e[b] = _mm512_and_si512(_mm512_mask_i32gather_epi32(e[b], m[b], x, t8, SC), keep); \
					}                                                  \
				for (int b = 0; b < V6_NB; b++) {                          \
					m[b] = _mm512_test_epi32_mask(e[b], one);          \
					any |= m[b];                                       \
				}                                                          \
			}                                                                  \
			for (int b = 0; b < V6_NB; b++) {                                  \
				__m512i r = _mm512_permutexvar_epi32(unt, _mm512_srli_epi32(e[b], 1)); \
				_mm512_storeu_si512((void *)(nhs + i + 16 * b),            \
						    _mm512_cvtepu32_epi64(_mm512_castsi512_si256(r))); \
				_mm512_storeu_si512((void *)(nhs + i + 16 * b + 8),        \
						    _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(r, 1))); \
			}                                                                  \
		}                                                                          \
		return i;                                                                  \
	}
VEC_LOOKUP_32(vec_2, 2, 0xffff)
VEC_LOOKUP_32(vec_4, 4, 0xffffffffu)

/* 8-byte entries: 16 addresses, two halves of 8 64-bit lanes. */
static inline __attribute__((always_inline)) size_t
vec_8(const struct trie6 *t, const uint8_t (*ips)[16], uint64_t *nhs, size_t n)
{
	const __m512i one = _mm512_set1_epi64(1);
	const __m512i unt_lo = _mm512_setr_epi64(0, 4, 8, 12, 1, 5, 9, 13);
	const __m512i unt_hi = _mm512_setr_epi64(2, 6, 10, 14, 3, 7, 11, 15);
	size_t i = 0;

	for (; i + 16 <= n; i += 16) {
		struct v6blk A;
		if (i + 16 + V6_PF <= n)
			prefetch24(t->tbl24, 8, ips, i + V6_PF, 16);
		v6_load(&A, ips + i);
		__m512i idx = v6_idx(V6_IDX24, &A);
		__m512i e0 = _mm512_i32gather_epi64(_mm512_castsi512_si256(idx), t->tbl24, 8);
		__m512i e1 = _mm512_i32gather_epi64(_mm512_extracti64x4_epi64(idx, 1), t->tbl24, 8);
		__mmask8 m0 = _mm512_test_epi64_mask(e0, one), m1 = _mm512_test_epi64_mask(e1, one);
		for (int k = 3; m0 | m1; k++) {
			__m512i b = v6_pick(&A, k);
			if (m0) {
				__m512i x = _mm512_add_epi64(_mm512_slli_epi64(_mm512_srli_epi64(e0, 1), 8),
							     _mm512_cvtepu32_epi64(_mm512_castsi512_si256(b)));
				e0 = _mm512_mask_i32gather_epi64(e0, m0, _mm512_cvtepi64_epi32(x), t->tbl8, 8);
			}
			if (m1) {
				__m512i x = _mm512_add_epi64(_mm512_slli_epi64(_mm512_srli_epi64(e1, 1), 8),
							     _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(b, 1)));
				e1 = _mm512_mask_i32gather_epi64(e1, m1, _mm512_cvtepi64_epi32(x), t->tbl8, 8);
			}
			m0 = _mm512_test_epi64_mask(e0, one);
			m1 = _mm512_test_epi64_mask(e1, one);
		}
		e0 = _mm512_srli_epi64(e0, 1);
		e1 = _mm512_srli_epi64(e1, 1);
		_mm512_storeu_si512((void *)(nhs + i), _mm512_permutex2var_epi64(e0, unt_lo, e1));
		_mm512_storeu_si512((void *)(nhs + i + 8), _mm512_permutex2var_epi64(e0, unt_hi, e1));
	}
	return i;
}

TRIE6_IMPL(512, vec_2, vec_4, vec_8);
