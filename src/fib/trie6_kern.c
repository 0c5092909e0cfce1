/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 trie lookup kernels, compiled once per ISA level (trie6.h layout).
 *
 *  - scalar / sse42: one address at a time, tbl24 entry prefetched PF_DIST
 *    addresses ahead, then the chain of byte levels.
 *  - avx2 (8 lanes) / avx512 (16 lanes): the first 4 bytes of each address
 *    come from one gather over the address array (stride 16), byte-swapped to
 *    form the tbl24 index; then, while any lane has the ext bit, one masked
 *    gather fetches address byte k of those lanes (the dword ending at byte k,
 *    so no read goes past the 16-byte address) and one masked gather reads the
 *    next level. 8-byte entries use 64-bit gathers, 8 (avx512) or 4 (avx2)
 *    lanes at a time.
 * Every variant returns exactly what the scalar loop does.
 */
#include <string.h>

#include "core/kern.h"
#include "fib/trie6.h"

#if VPK_VEC_BITS >= 256
#include <immintrin.h>
#endif

#define PF_DIST 16

static inline void
st64(uint64_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

#define SCALAR_LOOKUP(T)                                                                   \
	static inline void scalar_##T(const struct trie6 *t, const uint8_t (*ips)[16],     \
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
			uint64_t e = t24[a[0] << 16 | a[1] << 8 | a[2]];                   \
			for (unsigned k = 3; e & 1; k++)                                   \
				e = t8[(size_t)(e >> 1) * TRIE6_GROUP + a[k]];             \
			st64(&nhs[i], e >> 1);                                             \
		}                                                                          \
	}
SCALAR_LOOKUP(uint16_t)
SCALAR_LOOKUP(uint32_t)
SCALAR_LOOKUP(uint64_t)

#if VPK_VEC_BITS >= 512
/* 16 lanes, 2- or 4-byte entries: gather 4 bytes at scale SC, keep MASK. */
#define VEC_LOOKUP_32(NAME, SC, MASK)                                                      \
	static inline size_t NAME(const struct trie6 *t, const uint8_t (*ips)[16],          \
				  uint64_t *nhs, size_t n)                                  \
	{                                                                                  \
		const __m512i one = _mm512_set1_epi32(1), keep = _mm512_set1_epi32((int)(MASK)); \
		const __m512i lane16 = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, \
			8, 9, 10, 11, 12, 13, 14, 15), _mm512_set1_epi32(16));                     \
		const __m512i bswap = _mm512_set4_epi32(0x0c0d0e0f, 0x08090a0b, 0x04050607, 0x00010203); \
		const void *t24 = t->tbl24, *t8 = t->tbl8;                                 \
		size_t i = 0;                                                              \
		for (; i + 16 <= n; i += 16) {                                             \
			const void *blk = ips[i];                                          \
			__m512i w = _mm512_i32gather_epi32(lane16, blk, 1);                \
			__m512i idx = _mm512_srli_epi32(_mm512_shuffle_epi8(w, bswap), 8); \
			__m512i e = _mm512_and_si512(_mm512_i32gather_epi32(idx, t24, SC), keep); \
			__mmask16 m = _mm512_test_epi32_mask(e, one);                      \
			for (int k = 3; m; k++) {                                          \
				__m512i off = _mm512_add_epi32(lane16, _mm512_set1_epi32(k - 3)); \
				__m512i b = _mm512_srli_epi32(                             \
					_mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m, off, blk, 1), 24); \
				__m512i x = _mm512_add_epi32(_mm512_slli_epi32(_mm512_srli_epi32(e, 1), 8), b); \
				e = _mm512_and_si512(_mm512_mask_i32gather_epi32(e, m, x, t8, SC), keep); \
				m = _mm512_test_epi32_mask(e, one);                        \
			}                                                                  \
			e = _mm512_srli_epi32(e, 1);                                       \
			_mm512_storeu_si512((void *)(nhs + i),                             \
					    _mm512_cvtepu32_epi64(_mm512_castsi512_si256(e))); \
			_mm512_storeu_si512((void *)(nhs + i + 8),                         \
					    _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(e, 1))); \
		}                                                                          \
		return i;                                                                  \
	}
VEC_LOOKUP_32(vec_2, 2, 0xffff)
VEC_LOOKUP_32(vec_4, 4, 0xffffffffu)

static inline size_t
vec_8(const struct trie6 *t, const uint8_t (*ips)[16], uint64_t *nhs, size_t n)
{
	const __m512i one = _mm512_set1_epi64(1);
	const __m256i lane16 = _mm256_setr_epi32(0, 16, 32, 48, 64, 80, 96, 112);
	const __m256i bswap = _mm256_set_epi32(0x0c0d0e0f, 0x08090a0b, 0x04050607, 0x00010203,
					       0x0c0d0e0f, 0x08090a0b, 0x04050607, 0x00010203);
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		const void *blk = ips[i];
		__m256i w = _mm256_i32gather_epi32((const int *)blk, lane16, 1);
		__m256i idx = _mm256_srli_epi32(_mm256_shuffle_epi8(w, bswap), 8);
		__m512i e = _mm512_i32gather_epi64(idx, t->tbl24, 8);
		__mmask8 m = _mm512_test_epi64_mask(e, one);
		for (int k = 3; m; k++) {
			__m256i off = _mm256_add_epi32(lane16, _mm256_set1_epi32(k - 3));
			__m256i b = _mm256_srli_epi32(_mm256_mmask_i32gather_epi32(_mm256_setzero_si256(), m, off, blk, 1), 24);
			__m512i x = _mm512_add_epi64(_mm512_slli_epi64(_mm512_srli_epi64(e, 1), 8), _mm512_cvtepu32_epi64(b));
			e = _mm512_mask_i32gather_epi64(e, m, _mm512_cvtepi64_epi32(x), t->tbl8, 8);
			m = _mm512_test_epi64_mask(e, one);
		}
		_mm512_storeu_si512((void *)(nhs + i), _mm512_srli_epi64(e, 1));
	}
	return i;
}
#elif VPK_VEC_BITS >= 256
#define VEC_LOOKUP_32(NAME, SC, MASK)                                                      \
	static inline size_t NAME(const struct trie6 *t, const uint8_t (*ips)[16],          \
				  uint64_t *nhs, size_t n)                                  \
	{                                                                                  \
		const __m256i one = _mm256_set1_epi32(1), keep = _mm256_set1_epi32((int)(MASK)); \
		const __m256i lane16 = _mm256_setr_epi32(0, 16, 32, 48, 64, 80, 96, 112);  \
		const __m256i bswap = _mm256_set_epi32(0x0c0d0e0f, 0x08090a0b, 0x04050607, 0x00010203, \
						       0x0c0d0e0f, 0x08090a0b, 0x04050607, 0x00010203); \
		const int *t24 = t->tbl24, *t8 = t->tbl8;                                  \
		size_t i = 0;                                                              \
		for (; i + 8 <= n; i += 8) {                                               \
			const int *blk = (const int *)ips[i];                              \
			__m256i w = _mm256_i32gather_epi32(blk, lane16, 1);                \
			__m256i idx = _mm256_srli_epi32(_mm256_shuffle_epi8(w, bswap), 8); \
			__m256i e = _mm256_and_si256(_mm256_i32gather_epi32(t24, idx, SC), keep); \
			__m256i m = _mm256_cmpeq_epi32(_mm256_and_si256(e, one), one);     \
			for (int k = 3; !_mm256_testz_si256(m, m); k++) {                  \
				__m256i off = _mm256_add_epi32(lane16, _mm256_set1_epi32(k - 3)); \
				__m256i b = _mm256_srli_epi32(_mm256_mask_i32gather_epi32( \
					_mm256_setzero_si256(), blk, off, m, 1), 24);      \
				__m256i x = _mm256_add_epi32(_mm256_slli_epi32(_mm256_srli_epi32(e, 1), 8), b); \
				e = _mm256_and_si256(_mm256_mask_i32gather_epi32(e, t8, x, m, SC), keep); \
				m = _mm256_cmpeq_epi32(_mm256_and_si256(e, one), one);     \
			}                                                                  \
			e = _mm256_srli_epi32(e, 1);                                       \
			_mm256_storeu_si256((void *)(nhs + i), _mm256_cvtepu32_epi64(_mm256_castsi256_si128(e))); \
			_mm256_storeu_si256((void *)(nhs + i + 4),                         \
					    _mm256_cvtepu32_epi64(_mm256_extracti128_si256(e, 1))); \
		}                                                                          \
		return i;                                                                  \
	}
VEC_LOOKUP_32(vec_2, 2, 0xffff)
VEC_LOOKUP_32(vec_4, 4, 0xffffffffu)

static inline size_t
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
	static void lookup_##T(const struct trie6 *t, const uint8_t (*ips)[16], uint64_t *nhs, size_t n) \
	{                                                                                  \
		scalar_##T(t, ips, nhs, n, V(t, ips, nhs, n));                             \
	}
BODY(uint16_t, vec_2)
BODY(uint32_t, vec_4)
BODY(uint64_t, vec_8)
#define WIDTH VPK_VEC_BITS
#else
#define BODY(T)                                                                            \
	static void lookup_##T(const struct trie6 *t, const uint8_t (*ips)[16], uint64_t *nhs, size_t n) \
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
	.lookup = { lookup_uint16_t, lookup_uint32_t, lookup_uint64_t },
};
