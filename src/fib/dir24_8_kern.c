/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DIR-24-8 lookup kernels, compiled once per ISA level (VPK_FN suffix).
 *
 *  - scalar / sse42: one key at a time with a software prefetch of the tbl24
 *    entry PF_DIST keys ahead, so ~PF_DIST table misses are in flight. (No
 *    gather below AVX2: an SSE4.2 "vector" version would extract every index
 *    to a GPR and do the same loads, so sse42 is this code built for v2.)
 *  - avx2: 8 lanes, one gather on tbl24, a masked gather on tbl8 for the
 *    lanes whose entry has the ext bit (8-byte entries: two 4-lane halves).
 *  - every vector loop prefetches the tbl24 entries of the keys 4 blocks
 *    ahead (the avx2 8-byte loop without it was 1.3x slower than scalar).
 *  - avx512: 16 lanes, same with mask registers.
 * Vector loops read 4 bytes per gather lane even for 1- and 2-byte entries
 * (then mask): the tables carry 8 bytes of slack for that (dir24_8.h).
 * Results are identical to the scalar loop for every width and length.
 */
#include <string.h>

#include "core/kern.h"
#include "fib/dir24_8.h"
#include "fib/fib_bits.h"

#if VPK_VEC_BITS >= 256
#include <immintrin.h>
#endif

#define PF_DIST 16
#define PF_BLOCKS 8     /* vector loops prefetch tbl24 128 keys ahead (4 blocks: ~15 % slower, docs/fib.md) */



/* Scalar loop with software prefetch, for entry type T. */
#define SCALAR_LOOKUP(T)                                                               \
	static inline __attribute__((always_inline)) void scalar_##T(const struct dir24_8 *dp, const uint32_t *ips,   \
				      uint64_t *nhs, size_t n, size_t i)               \
	{                                                                              \
		const T *t24 = (const T *)dp->tbl24;                                   \
		const T *t8 = (const T *)dp->tbl8;                                     \
		for (size_t k = i; k < n && k < i + PF_DIST; k++)                      \
			__builtin_prefetch(&t24[fib_ld32(&ips[k]) >> 8]);                  \
		for (; i < n; i++) {                                                   \
			uint32_t ip = fib_ld32(&ips[i]);                                   \
			if (i + PF_DIST < n)                                           \
				__builtin_prefetch(&t24[fib_ld32(&ips[i + PF_DIST]) >> 8]); \
			uint64_t e = FIB_LD_ACQ(&t24[ip >> 8]);                        \
			if (e & 1)                                                     \
				e = FIB_LD(&t8[(size_t)(e >> 1) * DIR24_8_GROUP + (ip & 0xff)]); \
			fib_st64(&nhs[i], e >> 1);                                         \
		}                                                                      \
	}

SCALAR_LOOKUP(uint8_t)
SCALAR_LOOKUP(uint16_t)
SCALAR_LOOKUP(uint32_t)
SCALAR_LOOKUP(uint64_t)

#if VPK_VEC_BITS >= 256
/* Prefetch the tbl24 entries (sc bytes each) of the 8 keys at ips. */
static inline __attribute__((always_inline)) void
prefetch8(const void *t24, size_t sc, const uint32_t *ips)
{
	uint32_t pf[8];

	_mm256_storeu_si256((void *)pf, _mm256_srli_epi32(_mm256_loadu_si256((const void *)ips), 8));
	for (int q = 0; q < 8; q++)
		__builtin_prefetch((const char *)t24 + (size_t)pf[q] * sc);
}

/* Before a vector loop: prefetch the tbl24 entries of the keys its in-loop
 * prefetch (PF_BLOCKS blocks of 16 ahead) never covers, the first ones of
 * the call, so that a frame-sized call has its misses in flight too. Not in
 * calls too short for the in-loop prefetch: there the gathers alone keep
 * enough misses in flight and the prefetches cost more than they save
 * (docs/fib.md, "DIR-24-8 prefetch distance"). */
static inline __attribute__((always_inline)) void
prefetch_head(const void *t24, size_t sc, const uint32_t *ips, size_t n)
{
	if (n <= (PF_BLOCKS + 1) * 16)
		return;
	for (size_t k = 8; k < PF_BLOCKS * 16; k++)
		__builtin_prefetch((const char *)t24 + (size_t)(fib_ld32(&ips[k]) >> 8) * sc);
}
#endif

#if VPK_VEC_BITS >= 512
/* A zero the compiler cannot see through (it drops a known-zero merge source
 * of a full-mask gather and reuses the last result register instead). */
static inline __attribute__((always_inline)) __m512i
fresh_zero(void)
{
	__m512i z;
	__asm__("vpxord %0, %0, %0" : "=v"(z));
	return z;
}

/* An all-ones mask GCC cannot fold (with a constant one it turns the masked
 * gather back into a plain one and drops the fresh merge source). */
static inline __attribute__((always_inline)) __mmask16
all16(void)
{
	__mmask16 k;
	__asm__("kxnorw %0, %0, %0" : "=k"(k));
	return k;
}

/* 16 lanes of 1/2/4-byte entries: gather 4 bytes at scale SC, keep MASK bits. */
#define VEC_LOOKUP_32(NAME, SC, MASK)                                                  \
	static inline __attribute__((always_inline)) size_t NAME(const struct dir24_8 *dp, const uint32_t *ips,        \
				  uint64_t *nhs, size_t n)                              \
	{                                                                              \
		const __m512i one = _mm512_set1_epi32(1), lo8 = _mm512_set1_epi32(0xff);\
		const __m512i keep = _mm512_set1_epi32((int)(MASK));                   \
		const void *t24 = dp->tbl24, *t8 = dp->tbl8;                           \
		size_t i = 0;                                                          \
		prefetch_head(t24, SC, ips, n);                                        \
		for (; i + 16 <= n; i += 16) {                                         \
			__m512i ip = _mm512_loadu_si512((const void *)(ips + i));      \
			/* Prefetch the tbl24 entries PF_BLOCKS blocks ahead: more  \
			 * misses in flight than the gathers alone keep. */         \
			if (i + (PF_BLOCKS + 1) * 16 <= n) {                           \
				uint32_t pf[16];                                       \
				_mm512_storeu_si512((void *)pf, _mm512_srli_epi32(     \
					_mm512_loadu_si512((const void *)(ips + i + PF_BLOCKS * 16)), 8)); \
				for (int q = 0; q < 16; q++)                           \
					__builtin_prefetch((const char *)t24 + (size_t)pf[q] * SC); \
			}                                                              \
			/* Zero merge source: a plain gather merges into the  \
			 * previous iteration's register, a false dependency   \
			 * that serialises the gathers of successive blocks. */ \
			__m512i e = _mm512_mask_i32gather_epi32(fresh_zero(),          \
					all16(), _mm512_srli_epi32(ip, 8), t24, SC);      \
			e = _mm512_and_si512(e, keep);                                 \
			__mmask16 ext = _mm512_test_epi32_mask(e, one);                \
			if (ext) {                                                     \
				__m512i x = _mm512_add_epi32(                          \
					_mm512_slli_epi32(_mm512_srli_epi32(e, 1), 8), \
					_mm512_and_si512(ip, lo8));                    \
				e = _mm512_mask_i32gather_epi32(e, ext, x, t8, SC);   \
				e = _mm512_and_si512(e, keep);                         \
			}                                                              \
			e = _mm512_srli_epi32(e, 1);                                   \
			_mm512_storeu_si512((void *)(nhs + i),                         \
					    _mm512_cvtepu32_epi64(_mm512_castsi512_si256(e))); \
			_mm512_storeu_si512((void *)(nhs + i + 8),                     \
					    _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(e, 1))); \
		}                                                                      \
		return i;                                                              \
	}
VEC_LOOKUP_32(vec_1, 1, 0xff)
VEC_LOOKUP_32(vec_2, 2, 0xffff)
VEC_LOOKUP_32(vec_4, 4, 0xffffffffu)

static inline __attribute__((always_inline)) size_t
vec_8(const struct dir24_8 *dp, const uint32_t *ips, uint64_t *nhs, size_t n)
{
	const __m512i one = _mm512_set1_epi64(1), lo8 = _mm512_set1_epi64(0xff);
	size_t i = 0;

	prefetch_head(dp->tbl24, 8, ips, n);

	for (; i + 8 <= n; i += 8) {
		__m256i ip = _mm256_loadu_si256((const void *)(ips + i));
		if (i + (2 * PF_BLOCKS + 1) * 8 <= n)
			prefetch8(dp->tbl24, 8, ips + i + 2 * PF_BLOCKS * 8);
		__m512i e = _mm512_mask_i32gather_epi64(fresh_zero(), (__mmask8)all16(),
							_mm256_srli_epi32(ip, 8), dp->tbl24, 8);
		__mmask8 ext = _mm512_test_epi64_mask(e, one);
		if (ext) {
			__m512i x = _mm512_add_epi64(_mm512_slli_epi64(_mm512_srli_epi64(e, 1), 8),
						     _mm512_and_si512(_mm512_cvtepu32_epi64(ip), lo8));
			e = _mm512_mask_i32gather_epi64(e, ext, _mm512_cvtepi64_epi32(x), dp->tbl8, 8);
		}
		_mm512_storeu_si512((void *)(nhs + i), _mm512_srli_epi64(e, 1));
	}
	return i;
}
#elif VPK_VEC_BITS >= 256
/* 8 lanes of 1/2/4-byte entries. */
#define VEC_LOOKUP_32(NAME, SC, MASK)                                                  \
	static inline __attribute__((always_inline)) size_t NAME(const struct dir24_8 *dp, const uint32_t *ips,        \
				  uint64_t *nhs, size_t n)                              \
	{                                                                              \
		const __m256i one = _mm256_set1_epi32(1), lo8 = _mm256_set1_epi32(0xff);\
		const __m256i keep = _mm256_set1_epi32((int)(MASK));                   \
		size_t i = 0;                                                          \
		prefetch_head(dp->tbl24, SC, ips, n);                                  \
		for (; i + 8 <= n; i += 8) {                                           \
			__m256i ip = _mm256_loadu_si256((const void *)(ips + i));      \
			if (i + (2 * PF_BLOCKS + 1) * 8 <= n)                          \
				prefetch8(dp->tbl24, SC, ips + i + 2 * PF_BLOCKS * 8);  \
			__m256i e = _mm256_i32gather_epi32((const int *)dp->tbl24,     \
							   _mm256_srli_epi32(ip, 8), SC); \
			e = _mm256_and_si256(e, keep);                                 \
			__m256i ext = _mm256_cmpeq_epi32(_mm256_and_si256(e, one), one); \
			if (!_mm256_testz_si256(ext, ext)) {                           \
				__m256i x = _mm256_add_epi32(                          \
					_mm256_slli_epi32(_mm256_srli_epi32(e, 1), 8), \
					_mm256_and_si256(ip, lo8));                    \
				e = _mm256_mask_i32gather_epi32(e, (const int *)dp->tbl8, \
								x, ext, SC);           \
				e = _mm256_and_si256(e, keep);                         \
			}                                                              \
			e = _mm256_srli_epi32(e, 1);                                   \
			_mm256_storeu_si256((void *)(nhs + i),                         \
					    _mm256_cvtepu32_epi64(_mm256_castsi256_si128(e))); \
			_mm256_storeu_si256((void *)(nhs + i + 4),                     \
					    _mm256_cvtepu32_epi64(_mm256_extracti128_si256(e, 1))); \
		}                                                                      \
		return i;                                                              \
	}
VEC_LOOKUP_32(vec_1, 1, 0xff)
VEC_LOOKUP_32(vec_2, 2, 0xffff)
VEC_LOOKUP_32(vec_4, 4, 0xffffffffu)

static inline __attribute__((always_inline)) size_t
vec_8(const struct dir24_8 *dp, const uint32_t *ips, uint64_t *nhs, size_t n)
{
	const __m256i one = _mm256_set1_epi64x(1), lo8 = _mm256_set1_epi64x(0xff);
	size_t i = 0;

	prefetch_head(dp->tbl24, 8, ips, n);

	/* 8 keys per iteration as two 4-lane halves, with the tbl24 prefetch of
	 * the 32-bit path (without it this loop was slower than scalar's). */
	for (; i + 8 <= n; i += 8) {
		if (i + (2 * PF_BLOCKS + 1) * 8 <= n)
			prefetch8(dp->tbl24, 8, ips + i + 2 * PF_BLOCKS * 8);
		for (int h = 0; h < 8; h += 4) {
			__m128i ip = _mm_loadu_si128((const void *)(ips + i + h));
			__m256i e = _mm256_mask_i32gather_epi64(_mm256_setzero_si256(), (const long long *)dp->tbl24,
								 _mm_srli_epi32(ip, 8), _mm256_set1_epi64x(-1), 8);
			__m256i ext = _mm256_cmpeq_epi64(_mm256_and_si256(e, one), one);
			if (!_mm256_testz_si256(ext, ext)) {
				__m256i x = _mm256_add_epi64(_mm256_slli_epi64(_mm256_srli_epi64(e, 1), 8),
							     _mm256_and_si256(_mm256_cvtepu32_epi64(ip), lo8));
				/* Group indices < 2^23: the low dwords of the 64-bit lanes are the index. */
				__m128i x32 = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(
					x, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
				e = _mm256_mask_i32gather_epi64(e, (const long long *)dp->tbl8, x32, ext, 8);
			}
			_mm256_storeu_si256((void *)(nhs + i + h), _mm256_srli_epi64(e, 1));
		}
	}
	return i;
}
#endif

#if VPK_VEC_BITS >= 256
#define BODY(T, V)                                                                     \
	static void VPK_FN(lookup_##T)(const struct dir24_8 *dp, const uint32_t *ips,   \
			       uint64_t *nhs, size_t n)                                 \
	{                                                                              \
		scalar_##T(dp, ips, nhs, n, V(dp, ips, nhs, n));                       \
	}
BODY(uint8_t, vec_1)
BODY(uint16_t, vec_2)
BODY(uint32_t, vec_4)
BODY(uint64_t, vec_8)
#define WIDTH VPK_VEC_BITS
#else
#define BODY(T)                                                                        \
	static void VPK_FN(lookup_##T)(const struct dir24_8 *dp, const uint32_t *ips,   \
			       uint64_t *nhs, size_t n)                                 \
	{                                                                              \
		scalar_##T(dp, ips, nhs, n, 0);                                        \
	}
BODY(uint8_t)
BODY(uint16_t)
BODY(uint32_t)
BODY(uint64_t)
#define WIDTH (VPK_VEC_BITS ? VPK_VEC_BITS : 64)
#endif

const struct dir24_8_impl VPK_FN(vpk_dir24_8_impl) = {
	.impl = VPK_IMPL_INIT(WIDTH),
	.lookup = { VPK_FN(lookup_uint8_t), VPK_FN(lookup_uint16_t), VPK_FN(lookup_uint32_t),
		    VPK_FN(lookup_uint64_t) },
};
