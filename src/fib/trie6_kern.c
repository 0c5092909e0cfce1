/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 trie lookup kernels, compiled once per ISA level (trie6.h layout).
 *
 *  - scalar / sse42: one address at a time, tbl24 entry prefetched PF_DIST
 *    addresses ahead, then the chain of byte levels.
 *  - avx2: the avx512 scheme on 2 x 8 addresses (tbl24 prefetched, as in
 *    every vector loop: without it avx2 was 2x slower than scalar on random
 *    addresses); 8-byte entries use the scalar walk (4 lanes of 64-bit
 *    gathers do not pay).
 *  - avx512: 4 x 16 addresses per iteration; address bytes come from in-lane
 *    byte shuffles of the loaded addresses (see below), one masked gather per
 *    level and block, the two blocks' gathers interleaved; 8-byte entries
 *    one block of 16 as two halves of 8 64-bit lanes.
 * Every variant returns exactly what the scalar loop does.
 */
#include <string.h>

#include "core/kern.h"
#include "fib/trie6.h"
#include "fib/v6vec.h"
#include "fib/fib_bits.h"

#define PF_DIST 16
#define V6_PF 64        /* avx512: tbl24 prefetch distance, addresses */


#define SCALAR_LOOKUP(T)                                                                   \
	static inline __attribute__((always_inline)) void scalar_##T(const struct trie6 *t, const uint8_t (*ips)[16],     \
				      uint64_t *nhs, size_t n, size_t i)                   \
	{                                                                                  \
		const T *t24 = (const T *)t->tbl24, *t8 = (const T *)t->tbl8;              \
		for (size_t k = i; k < n && k < i + PF_DIST; k++)                          \
			__builtin_prefetch(&t24[ips[k][0] << 16 | ips[k][1] << 8 | ips[k][2]]); \
		for (; i < n; i++) {                                                       \
			const uint8_t *a = ips[i];                                         \
			if (i + PF_DIST < n) {                                             \
				const uint8_t *p = ips[i + PF_DIST];                       \
				__builtin_prefetch(&t24[p[0] << 16 | p[1] << 8 | p[2]]);   \
			}                                                                  \
			uint64_t e = FIB_LD_ACQ(&t24[a[0] << 16 | a[1] << 8 | a[2]]);      \
			for (unsigned k = 3; e & 1; k++)                                   \
				e = FIB_LD_ACQ(&t8[(size_t)(e >> 1) * TRIE6_GROUP + a[k]]); \
			fib_st64(&nhs[i], e >> 1);                                             \
		}                                                                          \
	}
SCALAR_LOOKUP(uint16_t)
SCALAR_LOOKUP(uint32_t)
SCALAR_LOOKUP(uint64_t)

#if VPK_VEC_BITS >= 256
/* Vector loops: prefetch the tbl24 entries of addresses [i, i + cnt) (entry
 * size sc); without it the avx2 and 8-byte avx512 loops were slower than the
 * scalar one on random addresses (a TLB and cache miss per gather lane). */
static inline __attribute__((always_inline)) void
prefetch24(const void *t24, unsigned sc, const uint8_t (*ips)[16], size_t i, size_t cnt)
{
	for (size_t q = i; q < i + cnt; q++)
		__builtin_prefetch((const char *)t24 + (size_t)(ips[q][0] << 16 | ips[q][1] << 8 | ips[q][2]) * sc);
}
#endif

#if VPK_VEC_BITS >= 512
/* V6_NB blocks of 16 per iteration, their gathers interleaved, for memory-level parallelism. */
#define V6_NB 4
#define VEC_LOOKUP_32(NAME, SC, MASK)                                                      \
	static inline __attribute__((always_inline)) size_t NAME(const struct trie6 *t, const uint8_t (*ips)[16],          \
				  uint64_t *nhs, size_t n)                                  \
	{                                                                                  \
		const __m512i one = _mm512_set1_epi32(1), keep = _mm512_set1_epi32((int)(MASK)); \
		const __m512i unt = _mm512_loadu_si512((const void *)v6_untranspose);      \
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
#elif VPK_VEC_BITS >= 256
#define VEC_LOOKUP_32(NAME, SC, MASK)                                                      \
	static inline __attribute__((always_inline)) size_t NAME(const struct trie6 *t, const uint8_t (*ips)[16],          \
				  uint64_t *nhs, size_t n)                                  \
	{                                                                                  \
		const __m256i one = _mm256_set1_epi32(1), keep = _mm256_set1_epi32((int)(MASK)); \
		const __m256i unt = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);             \
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

static inline __attribute__((always_inline)) size_t
vec_8(const struct trie6 *t, const uint8_t (*ips)[16], uint64_t *nhs, size_t n)
{
	(void)t;
	(void)ips;
	(void)nhs;
	(void)n;
	return 0;       /* 4 lanes of 64-bit gathers do not beat the scalar chain walk */
}
#endif

#if VPK_VEC_BITS >= 256
#define BODY(T, V)                                                                         \
	static void VPK_FN(lookup_##T)(const struct trie6 *t, const uint8_t (*ips)[16], uint64_t *nhs, size_t n) \
	{                                                                                  \
		scalar_##T(t, ips, nhs, n, V(t, ips, nhs, n));                             \
	}
BODY(uint16_t, vec_2)
BODY(uint32_t, vec_4)
BODY(uint64_t, vec_8)
#define WIDTH VPK_VEC_BITS
#else
#define BODY(T)                                                                            \
	static void VPK_FN(lookup_##T)(const struct trie6 *t, const uint8_t (*ips)[16], uint64_t *nhs, size_t n) \
	{                                                                                  \
		scalar_##T(t, ips, nhs, n, 0);                                             \
	}
BODY(uint16_t)
BODY(uint32_t)
BODY(uint64_t)
#define WIDTH (VPK_VEC_BITS ? VPK_VEC_BITS : 64)
#endif

const struct trie6_impl VPK_FN(vpk_trie6_impl) = {
	.impl = VPK_IMPL_INIT(WIDTH),
	.lookup = { VPK_FN(lookup_uint16_t), VPK_FN(lookup_uint32_t), VPK_FN(lookup_uint64_t) },
};
