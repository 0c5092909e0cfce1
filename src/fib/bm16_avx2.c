/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bm16 lookups, avx2 (layout in bm16.h): the block steps of the vector
 * walks of bm16_walk.h on 8 lanes: gathers of the direct entries and of the
 * values (masked to the lanes in nodes); the few lanes in compressed nodes
 * are ranked one by one (two masked gathers per block cost more than that,
 * whatever the mask). Returns exactly what the scalar pipeline does.
 */
#include <immintrin.h>

#define BM16_W 8u
#define BM16_VD 6u              /* 3 was slower in-table in spot runs */
#define BM16_SHORT_NB 16u       /* 64-key calls: random keys 0.76x, in-table 0.94x of the ring */
#include "fib/bm16_walk.h"

static inline __attribute__((always_inline)) __m256i
ld8(const uint32_t *p)
{
	return _mm256_loadu_si256((const void *)p);
}

/* first_line() on 8 lanes. */
static inline __attribute__((always_inline)) __m256i
first8(__m256i e, __m256i x)
{
	const __m256i one = _mm256_set1_epi32(1), three = _mm256_set1_epi32(3);
	__m256i node = _mm256_cmpeq_epi32(_mm256_and_si256(e, one), one);
	__m256i flat = _mm256_cmpeq_epi32(_mm256_and_si256(e, three), three);
	__m256i e2 = _mm256_srli_epi32(e, 2);
	__m256i xs = _mm256_srlv_epi32(x, _mm256_and_si256(e2, one));

	return _mm256_and_si256(node, _mm256_add_epi32(_mm256_andnot_si256(one, e2), _mm256_and_si256(flat, xs)));
}

static inline __attribute__((always_inline)) void
prefetch8(const uint32_t *arena, __m256i at)
{
	uint32_t a[8] __attribute__((aligned(32)));

	_mm256_store_si256((__m256i *)a, at);
	for (int l = 0; l < 8; l++)
		__builtin_prefetch(arena + a[l]);
}

BM16_STEP void
blk_direct(const struct bm16 *b, const uint32_t *ip, uint32_t *d)
{
	__m256i k = ld8(ip);
	__m256i e = _mm256_i32gather_epi32((const int *)b->direct, _mm256_srli_epi32(k, 16), 4);

	_mm256_store_si256((__m256i *)d, e);
	prefetch8(b->arena, first8(e, _mm256_and_si256(_mm256_srli_epi32(k, 8), _mm256_set1_epi32(0xff))));
}

/* locate() on 8 lanes, the compressed ones ranked by rank_lanes(). */
BM16_STEP void
blk_locate(const uint32_t *ar, const uint32_t *d, const uint32_t *ip, unsigned sh, uint32_t *rk)
{
	const __m256i one = _mm256_set1_epi32(1), three = _mm256_set1_epi32(3);
	__m256i e = _mm256_load_si256((const __m256i *)d);
	__m256i x = _mm256_and_si256(_mm256_srli_epi32(ld8(ip), (int)sh), _mm256_set1_epi32(0xff));
	__m256i node = _mm256_cmpeq_epi32(_mm256_and_si256(e, one), one);
	__m256i flat = _mm256_cmpeq_epi32(_mm256_and_si256(e, three), three);
	uint32_t cmp = (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_andnot_si256(flat, node)));
	__m256i e2 = _mm256_srli_epi32(e, 2);
	__m256i at = _mm256_andnot_si256(one, e2);

	_mm256_store_si256((__m256i *)rk, _mm256_add_epi32(at, _mm256_srlv_epi32(x, _mm256_and_si256(e2, one))));
	if (cmp) {
		uint32_t a[8] __attribute__((aligned(32))), xs[8] __attribute__((aligned(32)));
		_mm256_store_si256((__m256i *)a, at);
		_mm256_store_si256((__m256i *)xs, x);
		rank_lanes(ar, cmp, a, xs, rk);
	}
}

/* entry_of() on 8 lanes of the gathered words; sh 8: prefetch the /32-level lines. */
BM16_STEP bool
blk_value(const uint32_t *ar, uint32_t *d, const uint32_t *ip, unsigned sh, const uint32_t *rk)
{
	const __m256i one = _mm256_set1_epi32(1), seven = _mm256_set1_epi32(BM16_NARROW | BM16_FLAT | 1);
	__m256i e = _mm256_load_si256((const __m256i *)d), k = ld8(ip);
	__m256i m = _mm256_cmpeq_epi32(_mm256_and_si256(e, one), one);
	__m256i w = _mm256_mask_i32gather_epi32(e, (const int *)ar, _mm256_load_si256((const __m256i *)rk), m, 4);
	__m256i nar = _mm256_cmpeq_epi32(_mm256_and_si256(e, seven), seven);
	__m256i keep = _mm256_or_si256(_mm256_set1_epi32(0xffff), _mm256_andnot_si256(nar, _mm256_set1_epi32(-1)));
	__m256i half = _mm256_and_si256(_mm256_slli_epi32(_mm256_srli_epi32(k, (int)sh), 4), _mm256_set1_epi32(16));
	__m256i v = _mm256_and_si256(_mm256_srlv_epi32(w, _mm256_and_si256(nar, half)), keep);

	_mm256_store_si256((__m256i *)d, v);
	if (sh == 0)
		return false;
	m = _mm256_cmpeq_epi32(_mm256_and_si256(v, one), one);
	if (_mm256_testz_si256(m, m))
		return false;
	prefetch8(ar, first8(v, _mm256_and_si256(k, _mm256_set1_epi32(0xff))));
	return true;
}

BM16_STEP void
blk_store(const uint32_t *d, uint64_t *nhs)
{
	__m256i r = _mm256_srli_epi32(_mm256_load_si256((const __m256i *)d), 1);

	_mm256_storeu_si256((void *)nhs, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(r)));
	_mm256_storeu_si256((void *)(nhs + 4), _mm256_cvtepu32_epi64(_mm256_extracti128_si256(r, 1)));
}

BM16_IMPL(256, vec);
