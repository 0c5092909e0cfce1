/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bm16 lookups, avx512 and avx512icl (the same code built for Ice Lake)
 * (layout in bm16.h): the block steps of the vector walks of bm16_walk.h on
 * 16 lanes: gathers of the direct entries and of the values (masked to the
 * lanes in nodes); the few lanes in compressed nodes are ranked one by one
 * (two masked gathers per block cost more than that, whatever the mask).
 * Returns exactly what the scalar pipeline does.
 */
#include <immintrin.h>

#define BM16_W 16u
#define BM16_VD 4u              /* spot runs, 4 B RouteViews: 1 slower, 3-6 alike */
#define BM16_SHORT_NB 8u        /* 64-key calls: random keys 0.84-0.90x, in-table 0.90-0.97x of the ring */
#include "fib/bm16_walk.h"

static inline __attribute__((always_inline)) __m512i
ld16(const uint32_t *p)
{
	return _mm512_loadu_si512((const void *)p);
}

/* first_line() on 16 lanes; *node: the lanes in nodes. */
static inline __attribute__((always_inline)) __m512i
first16(__m512i e, __m512i x, __mmask16 *node)
{
	const __m512i one = _mm512_set1_epi32(1), three = _mm512_set1_epi32(3);
	__mmask16 flat = _mm512_cmpeq_epi32_mask(_mm512_and_si512(e, three), three);
	__m512i e2 = _mm512_srli_epi32(e, 2);

	*node = _mm512_test_epi32_mask(e, one);
	return _mm512_add_epi32(_mm512_andnot_si512(one, e2),
				_mm512_maskz_srlv_epi32(flat, x, _mm512_and_si512(e2, one)));
}

/*
 * Prefetch the arena words `at` of the lanes in m: packed to the front, four
 * at a time (fewer prefetches than lanes: a flat node's value line was
 * already prefetched with the direct entry, a leaf needs none).
 */
static inline __attribute__((always_inline)) void
prefetch16(const uint32_t *arena, __mmask16 m, __m512i at)
{
	uint32_t a[16] __attribute__((aligned(64)));
	unsigned n = (unsigned)__builtin_popcount(m);

	_mm512_store_si512((void *)a, _mm512_maskz_compress_epi32(m, at));
	for (unsigned l = 0; l < n; l += 4) {
		__builtin_prefetch(arena + a[l]);
		__builtin_prefetch(arena + a[l + 1]);
		__builtin_prefetch(arena + a[l + 2]);
		__builtin_prefetch(arena + a[l + 3]);
	}
}

/*
 * The direct entries; all 16 lanes' first lines prefetched (lanes not in
 * nodes: word 0, a hot line), no branch on the count.
 */
BM16_STEP void
blk_direct(const struct bm16 *b, const uint32_t *ip, uint32_t *d)
{
	__m512i k = ld16(ip);
	__m512i e = _mm512_i32gather_epi32(_mm512_srli_epi32(k, 16), b->direct, 4);
	uint32_t a[16] __attribute__((aligned(64)));
	__mmask16 m;
	__m512i f = first16(e, _mm512_and_si512(_mm512_srli_epi32(k, 8), _mm512_set1_epi32(0xff)), &m);

	_mm512_store_si512((void *)d, e);
	_mm512_store_si512((void *)a, _mm512_maskz_mov_epi32(m, f));
	for (unsigned l = 0; l < 16; l++)
		__builtin_prefetch(b->arena + a[l]);
}

/* locate() on 16 lanes, the compressed ones ranked by rank_lanes(). */
BM16_STEP void
blk_locate(const uint32_t *ar, const uint32_t *d, const uint32_t *ip, unsigned sh, uint32_t *rk)
{
	const __m512i one = _mm512_set1_epi32(1), three = _mm512_set1_epi32(3);
	__m512i e = _mm512_load_si512((const void *)d);
	__m512i x = _mm512_and_si512(_mm512_srli_epi32(ld16(ip), sh), _mm512_set1_epi32(0xff));
	__mmask16 node = _mm512_test_epi32_mask(e, one);
	__mmask16 flat = _mm512_cmpeq_epi32_mask(_mm512_and_si512(e, three), three);
	__m512i e2 = _mm512_srli_epi32(e, 2);
	__m512i at = _mm512_andnot_si512(one, e2);
	__mmask16 cmp = node & (__mmask16)~flat;

	_mm512_store_si512((void *)rk, _mm512_add_epi32(at, _mm512_srlv_epi32(x, _mm512_and_si512(e2, one))));
	if (cmp) {
		uint32_t a[16] __attribute__((aligned(64))), xs[16] __attribute__((aligned(64)));
		_mm512_store_si512((void *)a, at);
		_mm512_store_si512((void *)xs, x);
		rank_lanes(ar, cmp, a, xs, rk);
	}
}

/* entry_of() on 16 lanes of the gathered words; sh 8: prefetch the /32-level lines. */
BM16_STEP bool
blk_value(const uint32_t *ar, uint32_t *d, const uint32_t *ip, unsigned sh, const uint32_t *rk)
{
	const __m512i one = _mm512_set1_epi32(1), seven = _mm512_set1_epi32(BM16_NARROW | BM16_FLAT | 1);
	__m512i e = _mm512_load_si512((const void *)d), k = ld16(ip);
	__mmask16 m = _mm512_test_epi32_mask(e, one);
	__m512i w = _mm512_mask_i32gather_epi32(e, m, _mm512_load_si512((const void *)rk), ar, 4);
	__mmask16 nar = _mm512_cmpeq_epi32_mask(_mm512_and_si512(e, seven), seven);
	__m512i half = _mm512_and_si512(_mm512_slli_epi32(_mm512_srli_epi32(k, sh), 4), _mm512_set1_epi32(16));
	__m512i v = _mm512_mask_and_epi32(w, nar, _mm512_srlv_epi32(w, half), _mm512_set1_epi32(0xffff));

	_mm512_store_si512((void *)d, v);
	if (sh == 0)
		return false;
	m = _mm512_test_epi32_mask(v, one);
	if (!m)
		return false;
	__mmask16 mm;
	__m512i f = first16(v, _mm512_and_si512(k, _mm512_set1_epi32(0xff)), &mm);
	prefetch16(ar, mm, f);
	return true;
}

BM16_STEP void
blk_store(const uint32_t *d, uint64_t *nhs)
{
	__m512i r = _mm512_srli_epi32(_mm512_load_si512((const void *)d), 1);

	_mm512_storeu_si512((void *)nhs, _mm512_cvtepu32_epi64(_mm512_castsi512_si256(r)));
	_mm512_storeu_si512((void *)(nhs + 8), _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(r, 1)));
}

BM16_IMPL(512, vec);
