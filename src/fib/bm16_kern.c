/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bm16 lookup kernels (layout in bm16.h), compiled once per ISA level.
 *
 *  - scalar / sse42: a software pipeline over keys (direct entry -> node
 *    header -> value, each stage prefetching what the next one reads; a flat
 *    node has no header); sse42 has the popcnt instruction.
 *  - avx2 (8 lanes) / avx512 (16) / avx512icl (16; the same code built for
 *    Ice Lake): the same pipeline over blocks of lanes: gathers of the
 *    direct entries and of the values (masked to the lanes in nodes); the
 *    few lanes in compressed nodes are ranked one by one (two masked
 *    gathers per block cost more than that, whatever the mask).
 * All return exactly what the scalar code does.
 */
#include <stdbool.h>
#include <string.h>

#include "core/kern.h"
#include "fib/bm16.h"
#include "fib/fib_bits.h"

#if VPK_VEC_BITS >= 256
#include <immintrin.h>
#endif


/* Arena word of entry x of the node at word `at` (layout in bm16.h). */
static inline __attribute__((always_inline)) uint32_t
node_rank(const uint32_t *arena, uint32_t at, unsigned x)
{
	const uint32_t *n = arena + at;
	uint32_t bm = FIB_LD(&n[x >> 5]);
	uint32_t cum = (FIB_LD(&n[8 + (x >> 7)]) >> (8 * ((x >> 5) & 3))) & 0xff;

	return at + BM16_HDR_WORDS - 1 + cum + fib_pop32(bm & (~UINT32_C(0) >> (31 - (x & 31))));
}

/*
 * Arena word of entry x of entry e (bm16.h): a flat node's word x (a narrow
 * one's word x / 2), a compressed node's rank; a leaf gives word 9 (of the
 * zero header at word 0). One branch, flat or not: in-table keys mostly land
 * in flat nodes, so it predicts well; the branch-free form (both computed,
 * one selected) was 20 % slower in-table with POPCNT
 * and 3 % faster on random keys.
 */
static inline __attribute__((always_inline)) uint32_t
locate(const uint32_t *arena, uint32_t e, unsigned x)
{
	if ((e & 3) == (BM16_FLAT | 1))
		return ((e >> 2) & ~1u) + (x >> (e >> 2 & 1));
	return node_rank(arena, (e >> 2) & -(e & 1), x);        /* a leaf: the zero header */
}

/* The line worth prefetching for entry x of e: a flat node's entry, a compressed node's header, else word 0. */
static inline __attribute__((always_inline)) uint32_t
first_line(uint32_t e, unsigned x)
{
	return (((e >> 2) & ~1u) + ((x >> (e >> 2 & 1)) & -((e >> 1) & 1))) & -(e & 1);
}

/* Entry x of node entry e from the arena word w locate() gave: a narrow flat node's half-word x. */
static inline __attribute__((always_inline)) uint32_t
entry_of(uint32_t w, uint32_t e, unsigned x)
{
	uint32_t nar = -(uint32_t)((e & 7) == (BM16_NARROW | BM16_FLAT | 1));

	return (w >> ((x & 1) << 4 & nar)) & ~(nar & 0xffff0000u);
}



/*
 * Scalar: a software pipeline over keys, SD keys between stages:
 *   1. key j+4SD: direct entry (L2-resident) -> prefetch its node header;
 *   2. key j+3SD: rank from the header (flat: none) -> prefetch the value;
 *   3. key j+2SD: the value; a /32-level node -> prefetch its header;
 *   4. key j+SD:  (/32 level only) rank -> prefetch the value;
 *   5. key j:     (/32 level only) the value; store.
 * Branch-free on leaf vs node: a leaf reads the zero header at arena word 0
 * and its own entry is selected in stage 3; the rare /32 level branches.
 */
#define SD 32u
#define SR 256u         /* ring, a power of two > 4 * SD */

static inline __attribute__((always_inline)) void
scalar_range(const struct bm16 *b, const uint32_t *ips, uint64_t *nhs, size_t i0, size_t n)
{
	const uint32_t *dir = b->direct, *ar = b->arena;
	uint32_t rd[SR], rr[SR];
	size_t cnt = n - i0;
	size_t sd = cnt / 4 >= SD ? SD : cnt / 4 ? cnt / 4 : 1;    /* short bursts: a short pipeline */

	ips += i0;
	nhs += i0;
	for (size_t t = 0; t < cnt + 4 * sd; t++) {
		if (t < cnt) {
			uint32_t ip = fib_ld32(&ips[t]);
			uint32_t d = FIB_LD_ACQ(&dir[ip >> 16]);
			rd[t % SR] = d;
			__builtin_prefetch(ar + ((d >> 2) & -(d & 1)));     /* header line, or a flat node's first */
		}
		if (t >= sd && t - sd < cnt) {
			size_t j = t - sd;
			uint32_t d = rd[j % SR];
			uint32_t r = locate(ar, d, (fib_ld32(&ips[j]) >> 8) & 0xff);
			rr[j % SR] = r;
			__builtin_prefetch(ar + r);
		}
		if (t >= 2 * sd && t - 2 * sd < cnt) {
			size_t j = t - 2 * sd;
			uint32_t d = rd[j % SR], v = entry_of(FIB_LD_ACQ(&ar[rr[j % SR]]), d, fib_ld32(&ips[j]) >> 8 & 0xff);
			v = (d & 1) ? v : d;
			rd[j % SR] = v;
			if (__builtin_expect(v & 1, 0))
				__builtin_prefetch(ar + first_line(v, fib_ld32(&ips[j]) & 0xff));
		}
		if (t >= 3 * sd && t - 3 * sd < cnt) {
			size_t j = t - 3 * sd;
			uint32_t v = rd[j % SR];
			if (__builtin_expect(v & 1, 0)) {
				uint32_t r = locate(ar, v, fib_ld32(&ips[j]) & 0xff);
				rr[j % SR] = r;
				__builtin_prefetch(ar + r);
			}
		}
		if (t >= 4 * sd) {
			size_t j = t - 4 * sd;
			uint32_t v = rd[j % SR];
			if (__builtin_expect(v & 1, 0))
				v = entry_of(FIB_LD(&ar[rr[j % SR]]), v, fib_ld32(&ips[j]) & 0xff);
			fib_st64(&nhs[j], v >> 1);
		}
	}
}

#if VPK_VEC_BITS >= 256
/*
 * The vector stage 2: rk[] holds every lane's flat-node word; the lanes in
 * compressed nodes (bits of cmp, about one in six in-table keys) are ranked
 * here one by one from their node header (prefetched a stage before) and
 * their value line prefetched. Two masked gathers per block (bitmap word and
 * run count) cost as much as 16 lanes' loads whatever the mask.
 */
static inline __attribute__((always_inline)) void
rank_lanes(const uint32_t *arena, uint32_t cmp, const uint32_t *at, const uint32_t *x, uint32_t *rk)
{
	for (; cmp; cmp &= cmp - 1) {
		unsigned l = (unsigned)__builtin_ctz(cmp);
		uint32_t r = node_rank(arena, at[l], x[l]);
		rk[l] = r;
		__builtin_prefetch(arena + r);
	}
}
#endif

#if VPK_VEC_BITS >= 512
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
#define WIDTH 512
#elif VPK_VEC_BITS >= 256
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
