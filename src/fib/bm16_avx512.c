/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bm16 lookups, avx512 and avx512icl (the same code built for Ice Lake) (layout in bm16.h): the scalar pipeline of
 * bm16_walk.h over blocks of 16 lanes: gathers of the direct entries and
 * of the values (masked to the lanes in nodes); the few lanes in
 * compressed nodes are ranked one by one (two masked gathers per block cost
 * more than that, whatever the mask). Returns exactly what the scalar
 * pipeline does.
 */
#include <immintrin.h>

#include "fib/bm16_walk.h"

/*
 * Arena word of entry x of the entries e (locate() on 16 lanes), the lanes
 * in compressed nodes ranked by rank_lanes() (which also
 * prefetches their value lines): the words go to rk[16].
 */
static inline __attribute__((always_inline)) void
locate16s(const uint32_t *arena, __m512i e, __m512i x, uint32_t *rk)
{
	const __m512i one = _mm512_set1_epi32(1), three = _mm512_set1_epi32(3);
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
		rank_lanes(arena, cmp, a, xs, rk);
	}
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

/* entry_of() on 16 lanes: words w of the node entries e; sh = 16 * (x & 1). */
static inline __attribute__((always_inline)) __m512i
entry16(__m512i w, __m512i e, __m512i sh)
{
	const __m512i seven = _mm512_set1_epi32(BM16_NARROW | BM16_FLAT | 1);
	__mmask16 nar = _mm512_cmpeq_epi32_mask(_mm512_and_si512(e, seven), seven);

	return _mm512_mask_and_epi32(w, nar, _mm512_srlv_epi32(w, sh), _mm512_set1_epi32(0xffff));
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

/* All 16 lanes' words (lanes outside m: word 0, a hot line), no branch on the count. */
static inline __attribute__((always_inline)) void
prefetch16_all(const uint32_t *arena, __mmask16 m, __m512i at)
{
	uint32_t a[16] __attribute__((aligned(64)));

	_mm512_store_si512((void *)a, _mm512_maskz_mov_epi32(m, at));
	for (unsigned l = 0; l < 16; l++)
		__builtin_prefetch(arena + a[l]);
}

/*
 * AVX-512: the scalar pipeline on blocks of 16 keys, VD blocks between the
 * stages: (1) gather the direct entries, prefetch the node headers (a flat
 * node's entry); (2) rank the compressed-node lanes (rank_lanes()), prefetch
 * their values; (3) gather the
 * values, prefetch the /32-level headers; (4) and (5) the same rank and
 * value steps at the /32 level, skipped for blocks without such lanes.
 */
#define VD 4u            /* spot runs, 4 B RouteViews: 1 slower, 3-6 alike */
#define VR 32u          /* ring, a power of two > 4 * VD */

static inline __attribute__((always_inline)) size_t
vec(const struct bm16 *b, const uint32_t *ips, uint64_t *nhs, size_t n)
{
	const __m512i one = _mm512_set1_epi32(1), ff = _mm512_set1_epi32(0xff), sixteen = _mm512_set1_epi32(16);
	const uint32_t *ar = b->arena;
	size_t nb = n / 16;
	__m512i rd[VR];
	uint32_t rr[VR][16] __attribute__((aligned(64)));
	__mmask16 rm[VR];

	size_t vd = nb / 4 >= VD ? VD : nb / 4 ? nb / 4 : 1;

	for (size_t t = 0; t < nb + 4 * vd; t++) {
		if (t < nb) {
			__m512i ip = _mm512_loadu_si512((const void *)(ips + 16 * t));
			__m512i d = _mm512_i32gather_epi32(_mm512_srli_epi32(ip, 16), b->direct, 4);
			rd[t % VR] = d;
			__mmask16 m;
			__m512i f = first16(d, _mm512_and_si512(_mm512_srli_epi32(ip, 8), ff), &m);
			prefetch16_all(ar, m, f);
		}
		if (t >= vd && t - vd < nb) {
			size_t k = t - vd;
			__m512i ip = _mm512_loadu_si512((const void *)(ips + 16 * k));
			locate16s(ar, rd[k % VR], _mm512_and_si512(_mm512_srli_epi32(ip, 8), ff), rr[k % VR]);
		}
		if (t >= 2 * vd && t - 2 * vd < nb) {
			size_t k = t - 2 * vd;
			__m512i ip = _mm512_loadu_si512((const void *)(ips + 16 * k));
			__m512i e = rd[k % VR];
			__mmask16 m = _mm512_test_epi32_mask(e, one);
			__m512i d = _mm512_mask_i32gather_epi32(e, m, _mm512_load_si512((const void *)rr[k % VR]), ar, 4);
			d = entry16(d, e, _mm512_and_si512(_mm512_srli_epi32(ip, 4), sixteen));
			rd[k % VR] = d;
			m = _mm512_test_epi32_mask(d, one);
			rm[k % VR] = m;
			if (m) {
				__mmask16 mm;
				__m512i f = first16(d, _mm512_and_si512(ip, ff), &mm);
				prefetch16(ar, mm, f);
			}
		}
		if (t >= 3 * vd && t - 3 * vd < nb) {
			size_t k = t - 3 * vd;
			__mmask16 m = rm[k % VR];
			if (m) {
				__m512i ip = _mm512_loadu_si512((const void *)(ips + 16 * k));
				locate16s(ar, rd[k % VR], _mm512_and_si512(ip, ff), rr[k % VR]);
			}
		}
		if (t >= 4 * vd) {
			size_t k = t - 4 * vd;
			__m512i d = rd[k % VR];
			__mmask16 m = rm[k % VR];
			if (m) {
				__m512i ip = _mm512_loadu_si512((const void *)(ips + 16 * k));
				__m512i w = _mm512_mask_i32gather_epi32(d, m, _mm512_load_si512((const void *)rr[k % VR]), ar, 4);
				d = entry16(w, d, _mm512_and_si512(_mm512_slli_epi32(ip, 4), sixteen));
			}
			d = _mm512_srli_epi32(d, 1);
			_mm512_storeu_si512((void *)(nhs + 16 * k), _mm512_cvtepu32_epi64(_mm512_castsi512_si256(d)));
			_mm512_storeu_si512((void *)(nhs + 16 * k + 8),
					    _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(d, 1)));
		}
	}
	return nb * 16;
}

BM16_IMPL(512, vec);
