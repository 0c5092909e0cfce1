/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bm16 lookups, avx2 (layout in bm16.h): the scalar pipeline of
 * bm16_walk.h over blocks of 8 lanes: gathers of the direct entries and
 * of the values (masked to the lanes in nodes); the few lanes in
 * compressed nodes are ranked one by one (two masked gathers per block cost
 * more than that, whatever the mask). Returns exactly what the scalar
 * pipeline does.
 */
#include <immintrin.h>

#include "fib/bm16_walk.h"

/* locate() on 8 lanes, the compressed ones ranked by rank_lanes(): the words go to rk[8]. */
static inline __attribute__((always_inline)) void
locate8s(const uint32_t *arena, __m256i e, __m256i x, uint32_t *rk)
{
	const __m256i one = _mm256_set1_epi32(1), three = _mm256_set1_epi32(3);
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
		rank_lanes(arena, cmp, a, xs, rk);
	}
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

/* entry_of() on 8 lanes: words w of the node entries e; sh = 16 * (x & 1). */
static inline __attribute__((always_inline)) __m256i
entry8(__m256i w, __m256i e, __m256i sh)
{
	const __m256i seven = _mm256_set1_epi32(BM16_NARROW | BM16_FLAT | 1);
	__m256i nar = _mm256_cmpeq_epi32(_mm256_and_si256(e, seven), seven);
	__m256i keep = _mm256_or_si256(_mm256_set1_epi32(0xffff), _mm256_andnot_si256(nar, _mm256_set1_epi32(-1)));

	return _mm256_and_si256(_mm256_srlv_epi32(w, _mm256_and_si256(nar, sh)), keep);
}

static inline __attribute__((always_inline)) void
prefetch8(const uint32_t *arena, __m256i at)
{
	uint32_t a[8] __attribute__((aligned(32)));

	_mm256_store_si256((__m256i *)a, at);
	for (int l = 0; l < 8; l++)
		__builtin_prefetch(arena + a[l]);
}

/*
 * Short calls (at most SHORT_NB blocks, e.g. 64-key bursts): the stages as
 * passes over all blocks, so every block's loads are in flight before the
 * first one is needed and no ring bookkeeping runs (the ring's fill and
 * drain dominate a 64-key call: random keys 0.76x, in-table 0.94x).
 */
#define SHORT_NB 16u

static inline __attribute__((always_inline)) size_t
vec_short(const struct bm16 *b, const uint32_t *ips, uint64_t *nhs, size_t nb)
{
	const __m256i one = _mm256_set1_epi32(1), ff = _mm256_set1_epi32(0xff), sixteen = _mm256_set1_epi32(16);
	const uint32_t *ar = b->arena;
	const int *a = (const int *)ar;
	__m256i d[SHORT_NB];
	uint32_t rk[SHORT_NB][8] __attribute__((aligned(32)));
	uint32_t deep = 0;

	for (size_t k = 0; k < nb; k++) {
		__m256i ip = _mm256_loadu_si256((const void *)(ips + 8 * k));
		d[k] = _mm256_i32gather_epi32((const int *)b->direct, _mm256_srli_epi32(ip, 16), 4);
		prefetch8(ar, first8(d[k], _mm256_and_si256(_mm256_srli_epi32(ip, 8), ff)));
	}
	for (size_t k = 0; k < nb; k++) {
		__m256i ip = _mm256_loadu_si256((const void *)(ips + 8 * k));
		locate8s(ar, d[k], _mm256_and_si256(_mm256_srli_epi32(ip, 8), ff), rk[k]);
	}
	for (size_t k = 0; k < nb; k++) {
		__m256i ip = _mm256_loadu_si256((const void *)(ips + 8 * k));
		__m256i e = d[k], m = _mm256_cmpeq_epi32(_mm256_and_si256(e, one), one);
		__m256i v = _mm256_mask_i32gather_epi32(e, a, _mm256_load_si256((const __m256i *)rk[k]), m, 4);
		v = entry8(v, e, _mm256_and_si256(_mm256_srli_epi32(ip, 4), sixteen));
		d[k] = v;
		m = _mm256_cmpeq_epi32(_mm256_and_si256(v, one), one);
		if (!_mm256_testz_si256(m, m)) {
			deep |= 1u << k;
			prefetch8(ar, first8(v, _mm256_and_si256(ip, ff)));
		}
	}
	for (uint32_t x = deep; x != 0; x &= x - 1) {
		unsigned k = (unsigned)__builtin_ctz(x);
		__m256i ip = _mm256_loadu_si256((const void *)(ips + 8 * k));
		locate8s(ar, d[k], _mm256_and_si256(ip, ff), rk[k]);
	}
	for (uint32_t x = deep; x != 0; x &= x - 1) {
		unsigned k = (unsigned)__builtin_ctz(x);
		__m256i ip = _mm256_loadu_si256((const void *)(ips + 8 * k));
		__m256i m = _mm256_cmpeq_epi32(_mm256_and_si256(d[k], one), one);
		__m256i w = _mm256_mask_i32gather_epi32(d[k], a, _mm256_load_si256((const __m256i *)rk[k]), m, 4);
		d[k] = entry8(w, d[k], _mm256_and_si256(_mm256_slli_epi32(ip, 4), sixteen));
	}
	for (size_t k = 0; k < nb; k++) {
		__m256i r = _mm256_srli_epi32(d[k], 1);
		_mm256_storeu_si256((void *)(nhs + 8 * k), _mm256_cvtepu32_epi64(_mm256_castsi256_si128(r)));
		_mm256_storeu_si256((void *)(nhs + 8 * k + 4), _mm256_cvtepu32_epi64(_mm256_extracti128_si256(r, 1)));
	}
	return nb * 8;
}

/* AVX2: the AVX-512 pipeline on blocks of 8 keys. */
#define VD 6u            /* 3 was slower in-table in spot runs */
#define VR 32u          /* ring, a power of two > 4 * VD */

static inline __attribute__((always_inline)) size_t
vec(const struct bm16 *b, const uint32_t *ips, uint64_t *nhs, size_t n)
{
	const __m256i one = _mm256_set1_epi32(1), ff = _mm256_set1_epi32(0xff), sixteen = _mm256_set1_epi32(16);
	const uint32_t *ar = b->arena;
	const int *a = (const int *)ar;
	size_t nb = n / 8;
	__m256i rd[VR];
	uint32_t rr[VR][8] __attribute__((aligned(32)));
	bool rm[VR];

	if (nb <= SHORT_NB)
		return vec_short(b, ips, nhs, nb);
	size_t vd = nb / 4 >= VD ? VD : nb / 4 ? nb / 4 : 1;

	for (size_t t = 0; t < nb + 4 * vd; t++) {
		if (t < nb) {
			__m256i ip = _mm256_loadu_si256((const void *)(ips + 8 * t));
			__m256i d = _mm256_i32gather_epi32((const int *)b->direct, _mm256_srli_epi32(ip, 16), 4);
			rd[t % VR] = d;
			prefetch8(ar, first8(d, _mm256_and_si256(_mm256_srli_epi32(ip, 8), ff)));
		}
		if (t >= vd && t - vd < nb) {
			size_t k = t - vd;
			__m256i ip = _mm256_loadu_si256((const void *)(ips + 8 * k));
			locate8s(ar, rd[k % VR], _mm256_and_si256(_mm256_srli_epi32(ip, 8), ff), rr[k % VR]);
		}
		if (t >= 2 * vd && t - 2 * vd < nb) {
			size_t k = t - 2 * vd;
			__m256i ip = _mm256_loadu_si256((const void *)(ips + 8 * k));
			__m256i e = rd[k % VR];
			__m256i m = _mm256_cmpeq_epi32(_mm256_and_si256(e, one), one);
			__m256i d = _mm256_mask_i32gather_epi32(e, a, _mm256_load_si256((const __m256i *)rr[k % VR]), m, 4);
			d = entry8(d, e, _mm256_and_si256(_mm256_srli_epi32(ip, 4), sixteen));
			rd[k % VR] = d;
			m = _mm256_cmpeq_epi32(_mm256_and_si256(d, one), one);
			rm[k % VR] = !_mm256_testz_si256(m, m);
			if (rm[k % VR])
				prefetch8(ar, first8(d, _mm256_and_si256(ip, ff)));
		}
		if (t >= 3 * vd && t - 3 * vd < nb) {
			size_t k = t - 3 * vd;
			if (rm[k % VR]) {
				__m256i ip = _mm256_loadu_si256((const void *)(ips + 8 * k));
				locate8s(ar, rd[k % VR], _mm256_and_si256(ip, ff), rr[k % VR]);
			}
		}
		if (t >= 4 * vd) {
			size_t k = t - 4 * vd;
			__m256i d = rd[k % VR];
			if (rm[k % VR]) {
				__m256i ip = _mm256_loadu_si256((const void *)(ips + 8 * k));
				__m256i m = _mm256_cmpeq_epi32(_mm256_and_si256(d, one), one);
				__m256i w = _mm256_mask_i32gather_epi32(d, a, _mm256_load_si256((const __m256i *)rr[k % VR]), m, 4);
				d = entry8(w, d, _mm256_and_si256(_mm256_slli_epi32(ip, 4), sixteen));
			}
			d = _mm256_srli_epi32(d, 1);
			_mm256_storeu_si256((void *)(nhs + 8 * k), _mm256_cvtepu32_epi64(_mm256_castsi256_si128(d)));
			_mm256_storeu_si256((void *)(nhs + 8 * k + 4), _mm256_cvtepu32_epi64(_mm256_extracti128_si256(d, 1)));
		}
	}
	return nb * 8;
}

BM16_IMPL(256, vec);
