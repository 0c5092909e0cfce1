/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bm16 lookup kernels (layout in bm16.h), compiled once per ISA level.
 *
 *  - scalar / sse42: blocks of 16 keys in two passes: the first reads the
 *    direct entries (256 KiB, L2-resident) and prefetches each key's node
 *    bitmap word; the second resolves the nodes, whose lines are then in
 *    flight or present. sse42 has the popcnt instruction.
 *  - avx2 (8 lanes) / avx512 (16) / avx512icl (16, VPOPCNTD): gathers for
 *    the direct entry, the two halves of the bitmap word, the run count and
 *    the value, masked to the lanes that need a node; popcount in SWAR form
 *    except on avx512icl.
 * All return exactly what the scalar code does.
 */
#include <string.h>

#include "core/kern.h"
#include "fib/bm16.h"

#if VPK_VEC_BITS >= 256
#include <immintrin.h>
#endif

static inline __attribute__((always_inline)) uint32_t
node_get(const uint32_t *arena, uint32_t at, unsigned i)
{
	const uint32_t *n = arena + at;
	uint64_t bm;
	uint16_t cum;

	memcpy(&bm, n + 2 * (i >> 6), sizeof(bm));
	memcpy(&cum, (const uint8_t *)(n + 8) + 2 * (i >> 6), sizeof(cum));
	unsigned r = cum + (unsigned)__builtin_popcountll(bm & (~UINT64_C(0) >> (63 - (i & 63)))) - 1;
	return n[BM16_HDR_WORDS + r];
}

static inline __attribute__((always_inline)) uint32_t
ld32(const uint32_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static inline __attribute__((always_inline)) void
st64(uint64_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

/*
 * Blocks of 16 keys in three passes, so the misses of a block overlap:
 *   1. direct entries (L2-resident) -> prefetch each node's bitmap word;
 *   2. rank from bitmap + run count -> prefetch the value;
 *   3. read the value (and, rarely, walk the /32-level node).
 */
static inline __attribute__((always_inline)) void
scalar_range(const struct bm16 *b, const uint32_t *ips, uint64_t *nhs, size_t i, size_t n)
{
	const uint32_t *dir = b->direct, *arena = b->arena;

	while (i < n) {
		size_t k = n - i < 16 ? n - i : 16;
		uint32_t d[16], at[16];
		for (size_t j = 0; j < k; j++) {
			uint32_t ip = ld32(&ips[i + j]);
			d[j] = dir[ip >> 16];
			if (d[j] & 1)
				__builtin_prefetch(arena + (d[j] >> 1) + 2 * ((ip >> 14) & 3));
		}
		for (size_t j = 0; j < k; j++) {
			if (!(d[j] & 1))
				continue;
			uint32_t ip = ld32(&ips[i + j]);
			unsigned x = (ip >> 8) & 0xff;
			const uint32_t *nd = arena + (d[j] >> 1);
			uint64_t bm;
			uint16_t cum;
			memcpy(&bm, nd + 2 * (x >> 6), sizeof(bm));
			memcpy(&cum, (const uint8_t *)(nd + 8) + 2 * (x >> 6), sizeof(cum));
			at[j] = (d[j] >> 1) + BM16_HDR_WORDS - 1 + cum +
				(unsigned)__builtin_popcountll(bm & (~UINT64_C(0) >> (63 - (x & 63))));
			__builtin_prefetch(arena + at[j]);
		}
		for (size_t j = 0; j < k; j++) {
			uint32_t v = d[j];
			if (v & 1) {
				v = arena[at[j]];
				if (v & 1)
					v = node_get(arena, v >> 1, ld32(&ips[i + j]) & 0xff);
			}
			st64(&nhs[i + j], v >> 1);
		}
		i += k;
	}
}

#if VPK_VEC_BITS >= 512
static inline __attribute__((always_inline)) __m512i
popcnt32x16(__m512i x)
{
#ifdef __AVX512VPOPCNTDQ__
	return _mm512_popcnt_epi32(x);
#else
	x = _mm512_sub_epi32(x, _mm512_and_si512(_mm512_srli_epi32(x, 1), _mm512_set1_epi32(0x55555555)));
	x = _mm512_add_epi32(_mm512_and_si512(x, _mm512_set1_epi32(0x33333333)),
			     _mm512_and_si512(_mm512_srli_epi32(x, 2), _mm512_set1_epi32(0x33333333)));
	x = _mm512_and_si512(_mm512_add_epi32(x, _mm512_srli_epi32(x, 4)), _mm512_set1_epi32(0x0f0f0f0f));
	return _mm512_srli_epi32(_mm512_mullo_epi32(x, _mm512_set1_epi32(0x01010101)), 24);
#endif
}

/* Entry i of the nodes at word offsets base, in the lanes of m (others: src). */
static inline __attribute__((always_inline)) __m512i
node_get16(const uint32_t *arena, __mmask16 m, __m512i src, __m512i base, __m512i i)
{
	const __m512i ones = _mm512_set1_epi32(-1), z = _mm512_setzero_si512();
	__m512i w = _mm512_srli_epi32(i, 6), bit = _mm512_and_si512(i, _mm512_set1_epi32(63));
	__m512i off = _mm512_add_epi32(base, _mm512_slli_epi32(w, 1));
	__m512i lo = _mm512_mask_i32gather_epi32(z, m, off, arena, 4);
	__m512i hi = _mm512_mask_i32gather_epi32(z, m, _mm512_add_epi32(off, _mm512_set1_epi32(1)), arena, 4);
	__m512i cw = _mm512_mask_i32gather_epi32(z, m, _mm512_add_epi32(base, _mm512_add_epi32(_mm512_set1_epi32(8),
						 _mm512_srli_epi32(w, 1))), arena, 4);
	__m512i cum = _mm512_and_si512(_mm512_srlv_epi32(cw, _mm512_slli_epi32(_mm512_and_si512(w, _mm512_set1_epi32(1)), 4)),
				       _mm512_set1_epi32(0xffff));
	__mmask16 low = _mm512_cmplt_epu32_mask(bit, _mm512_set1_epi32(32));
	/* bit < 32: lo & (ones >> (31 - bit)), hi & 0; else lo, hi & (ones >> (63 - bit)). */
	__m512i ml = _mm512_mask_srlv_epi32(ones, low, ones, _mm512_sub_epi32(_mm512_set1_epi32(31), bit));
	__m512i mh = _mm512_maskz_srlv_epi32(~low, ones, _mm512_sub_epi32(_mm512_set1_epi32(63), bit));
	__m512i pop = _mm512_add_epi32(popcnt32x16(_mm512_and_si512(lo, ml)), popcnt32x16(_mm512_and_si512(hi, mh)));
	__m512i r = _mm512_add_epi32(_mm512_add_epi32(base, _mm512_set1_epi32(BM16_HDR_WORDS - 1)),
				     _mm512_add_epi32(cum, pop));
	return _mm512_mask_i32gather_epi32(src, m, r, arena, 4);
}

static inline __attribute__((always_inline)) size_t
vec(const struct bm16 *b, const uint32_t *ips, uint64_t *nhs, size_t n)
{
	const __m512i one = _mm512_set1_epi32(1), ff = _mm512_set1_epi32(0xff);
	size_t i = 0;

	for (; i + 16 <= n; i += 16) {
		__m512i ip = _mm512_loadu_si512((const void *)(ips + i));
		__m512i d = _mm512_i32gather_epi32(_mm512_srli_epi32(ip, 16), b->direct, 4);
		__mmask16 m = _mm512_test_epi32_mask(d, one);
		if (m) {
			d = node_get16(b->arena, m, d, _mm512_srli_epi32(d, 1),
				       _mm512_and_si512(_mm512_srli_epi32(ip, 8), ff));
			m = _mm512_test_epi32_mask(d, one);
			if (m)
				d = node_get16(b->arena, m, d, _mm512_srli_epi32(d, 1), _mm512_and_si512(ip, ff));
		}
		d = _mm512_srli_epi32(d, 1);
		_mm512_storeu_si512((void *)(nhs + i), _mm512_cvtepu32_epi64(_mm512_castsi512_si256(d)));
		_mm512_storeu_si512((void *)(nhs + i + 8), _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(d, 1)));
	}
	return i;
}
#define WIDTH 512
#elif VPK_VEC_BITS >= 256
static inline __attribute__((always_inline)) __m256i
popcnt32x8(__m256i x)
{
	x = _mm256_sub_epi32(x, _mm256_and_si256(_mm256_srli_epi32(x, 1), _mm256_set1_epi32(0x55555555)));
	x = _mm256_add_epi32(_mm256_and_si256(x, _mm256_set1_epi32(0x33333333)),
			     _mm256_and_si256(_mm256_srli_epi32(x, 2), _mm256_set1_epi32(0x33333333)));
	x = _mm256_and_si256(_mm256_add_epi32(x, _mm256_srli_epi32(x, 4)), _mm256_set1_epi32(0x0f0f0f0f));
	return _mm256_srli_epi32(_mm256_mullo_epi32(x, _mm256_set1_epi32(0x01010101)), 24);
}

static inline __attribute__((always_inline)) __m256i
node_get8(const uint32_t *arena, __m256i m, __m256i src, __m256i base, __m256i i)
{
	const __m256i ones = _mm256_set1_epi32(-1), z = _mm256_setzero_si256();
	const int *a = (const int *)arena;
	__m256i w = _mm256_srli_epi32(i, 6), bit = _mm256_and_si256(i, _mm256_set1_epi32(63));
	__m256i off = _mm256_add_epi32(base, _mm256_slli_epi32(w, 1));
	__m256i lo = _mm256_mask_i32gather_epi32(z, a, off, m, 4);
	__m256i hi = _mm256_mask_i32gather_epi32(z, a, _mm256_add_epi32(off, _mm256_set1_epi32(1)), m, 4);
	__m256i cw = _mm256_mask_i32gather_epi32(z, a, _mm256_add_epi32(base, _mm256_add_epi32(_mm256_set1_epi32(8),
						 _mm256_srli_epi32(w, 1))), m, 4);
	__m256i cum = _mm256_and_si256(_mm256_srlv_epi32(cw, _mm256_slli_epi32(_mm256_and_si256(w, _mm256_set1_epi32(1)), 4)),
				       _mm256_set1_epi32(0xffff));
	/* srlv by >= 32 gives 0: bit < 32 -> ml = ones >> (31 - bit), mh = ones >> (63 - bit) = 0 (shift >= 32);
	 * bit >= 32 -> ml must be all ones: shift count 31 - bit is "negative" -> use max(0, .). */
	__m256i sl = _mm256_max_epi32(_mm256_sub_epi32(_mm256_set1_epi32(31), bit), z);
	__m256i ml = _mm256_srlv_epi32(ones, sl);
	__m256i mh = _mm256_srlv_epi32(ones, _mm256_sub_epi32(_mm256_set1_epi32(63), bit));
	__m256i pop = _mm256_add_epi32(popcnt32x8(_mm256_and_si256(lo, ml)), popcnt32x8(_mm256_and_si256(hi, mh)));
	__m256i r = _mm256_add_epi32(_mm256_add_epi32(base, _mm256_set1_epi32(BM16_HDR_WORDS - 1)),
				     _mm256_add_epi32(cum, pop));
	return _mm256_mask_i32gather_epi32(src, a, r, m, 4);
}

static inline __attribute__((always_inline)) size_t
vec(const struct bm16 *b, const uint32_t *ips, uint64_t *nhs, size_t n)
{
	const __m256i one = _mm256_set1_epi32(1), ff = _mm256_set1_epi32(0xff);
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		__m256i ip = _mm256_loadu_si256((const void *)(ips + i));
		__m256i d = _mm256_i32gather_epi32((const int *)b->direct, _mm256_srli_epi32(ip, 16), 4);
		__m256i m = _mm256_cmpeq_epi32(_mm256_and_si256(d, one), one);
		if (!_mm256_testz_si256(m, m)) {
			d = node_get8(b->arena, m, d, _mm256_srli_epi32(d, 1), _mm256_and_si256(_mm256_srli_epi32(ip, 8), ff));
			m = _mm256_cmpeq_epi32(_mm256_and_si256(d, one), one);
			if (!_mm256_testz_si256(m, m))
				d = node_get8(b->arena, m, d, _mm256_srli_epi32(d, 1), _mm256_and_si256(ip, ff));
		}
		d = _mm256_srli_epi32(d, 1);
		_mm256_storeu_si256((void *)(nhs + i), _mm256_cvtepu32_epi64(_mm256_castsi256_si128(d)));
		_mm256_storeu_si256((void *)(nhs + i + 4), _mm256_cvtepu32_epi64(_mm256_extracti128_si256(d, 1)));
	}
	return i;
}
#define WIDTH 256
#else
static inline __attribute__((always_inline)) size_t
vec(const struct bm16 *b, const uint32_t *ips, uint64_t *nhs, size_t n)
{
	(void)b;
	(void)ips;
	(void)nhs;
	(void)n;
	return 0;
}
#define WIDTH (VPK_VEC_BITS ? VPK_VEC_BITS : 64)
#endif

static void
VPK_FN(bm16_lookup)(const struct bm16 *b, const uint32_t *ips, uint64_t *nhs, size_t n)
{
	scalar_range(b, ips, nhs, vec(b, ips, nhs, n), n);
}

const struct bm16_impl VPK_FN(vpk_bm16_impl) = {
	.impl = VPK_IMPL_INIT(WIDTH),
	.lookup = VPK_FN(bm16_lookup),
};
