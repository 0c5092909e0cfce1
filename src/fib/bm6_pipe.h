/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_FIB_BM6_PIPE_H
#define VPK_FIB_BM6_PIPE_H

/*
 * The software-pipelined walk of bm6 with 4-byte entries (docs/fib.md,
 * "bm6"), written once for AVX-512's k-masks at two widths: BM6_W = 16
 * lanes in zmm (bm6_avx512.c, width 512) or 8 in ymm (bm6_avx512x8.c,
 * width 256: the EAL's default cap, no zmm instruction). The including file
 * defines BM6_W and includes bm6_walk.h and v6vec.h first; this header
 * defines the deep-lane queue (struct tq, tq_step, tq_drain), v_index(),
 * popv() and vec_4() (the pipeline vec_4s(), or for short calls vec_4_short()). The
 * two widths differ only by the intrinsics' names below.
 */
#include <immintrin.h>

#if BM6_W == 16
typedef __m512i bv;
typedef __mmask16 bmask;
#define BV(op)                 _mm512_##op
#define bv_and                 _mm512_and_si512
#define bv_andnot              _mm512_andnot_si512
#define bv_zero                _mm512_setzero_si512
#define bv_loadu(p)            _mm512_loadu_si512((const void *)(p))
#define bv_storeu(p, v)        _mm512_storeu_si512((void *)(p), (v))
#define bv_gather(s, m, x, a, sc) _mm512_mask_i32gather_epi32((s), (m), (x), (a), (sc))
#define bv_lo(v)               _mm512_castsi512_si256(v)
#define bv_hi(v)               _mm512_extracti64x4_epi64((v), 1)
#define bv_bcast128(x)         _mm512_broadcast_i32x4(x)
#elif BM6_W == 8
typedef __m256i bv;
typedef __mmask8 bmask;
#define BV(op)                 _mm256_##op
#define bv_and                 _mm256_and_si256
#define bv_andnot              _mm256_andnot_si256
#define bv_zero                _mm256_setzero_si256
#define bv_loadu(p)            _mm256_loadu_si256((const void *)(p))
#define bv_storeu(p, v)        _mm256_storeu_si256((void *)(p), (v))
#define bv_gather(s, m, x, a, sc) _mm256_mmask_i32gather_epi32((s), (m), (x), (a), (sc))
#define bv_lo(v)               _mm256_castsi256_si128(v)
#define bv_hi(v)               _mm256_extracti128_si256((v), 1)
#define bv_bcast128(x)         _mm256_broadcastsi128_si256(x)
#else
#error "bm6_pipe.h: BM6_W must be 16 or 8"
#endif
#define BM6_WNAME_(n, w) n##_x##w
#define BM6_WNAME2(n, w) BM6_WNAME_(n, w)
#define BM6_WNAME(n) BM6_WNAME2(n, BM6_W)      /* n_x16, n_x8 */

/* Lanes 0..W/2-1 and W/2..W-1 of 32-bit values v widened to 64 bits, stored to nhs[0..W-1]. */
static inline __attribute__((always_inline)) void
store_nh(uint64_t *nhs, bv v)
{
	bv_storeu(nhs, BV(cvtepu32_epi64)(bv_lo(v)));
	bv_storeu(nhs + BM6_W / 2, BV(cvtepu32_epi64)(bv_hi(v)));
}

/*
 * The lanes that continue past byte 5 go to a queue (entry, next byte,
 * address index) that outlives the block (indices are 32-bit: calls are
 * cut into chunks of BM6_TQ_CHUNK). Once it holds TQ_FILL lanes they are
 * walked by scalar steps in lock step until none is left (below byte 5
 * each lane is at its own byte: skip nodes, bm6.h), so the dependent
 * loads of lanes from several blocks overlap. A lane's result is stored
 * when it finishes, always after its block's own store.
 */
#define TQ_N 256u
#define TQ_FILL 192u             /* 64: 1.02-1.04x the cycles, 448: no better (docs/fib.md) */
struct tq {
	uint32_t e[TQ_N];
	uint32_t ix[TQ_N];
	uint8_t k[TQ_N];
	unsigned n;
};

/* One scalar step of every queued lane; finished lanes are stored. */
static inline __attribute__((always_inline)) void
tq_step(const uint8_t *A, const uint8_t (*ips)[16], uint64_t *nhs, struct tq *q)
{
	unsigned j = 0;

	for (unsigned p = 0; p < q->n; p++) {
		uint32_t ix = q->ix[p];
		unsigned k = q->k[p];
		uint32_t e = STEPK(uint32_t, A, q->e[p], ips[ix], k);
		if (e & 1) {
			q->e[j] = e;
			q->k[j] = (uint8_t)k;
			q->ix[j++] = ix;
		} else {
			fib_st64(&nhs[ix], (uint64_t)(e >> 1));
		}
	}
	q->n = j;
}

/*
 * Store a block's results at nhs[at..] (entries e in transposed lane order,
 * unt: v6_untranspose()) and queue its lanes m that continue past byte 5.
 */
static inline __attribute__((always_inline)) void
tq_put(struct tq *q, uint64_t *nhs, size_t at, bv e, bmask m, bv unt, bv pos)
{
	store_nh(nhs + at, BV(permutexvar_epi32)(unt, BV(srli_epi32)(e, 1)));
	if (m) {
		BV(mask_compressstoreu_epi32)(q->e + q->n, m, e);
		BV(mask_compressstoreu_epi32)(q->ix + q->n, m, BV(add_epi32)(pos, BV(set1_epi32)((int)at)));
		memset(q->k + q->n, 6, BM6_W);
		q->n += (unsigned)__builtin_popcount(m);
	}
}

/* Population count of every 32-bit lane (VPOPCNTD on avx512icl, else by nibble table). */
static inline __attribute__((always_inline)) bv
popv(bv x)
{
#ifdef __AVX512VPOPCNTDQ__
	return BV(popcnt_epi32)(x);
#else
	const bv lut = bv_bcast128(_mm_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4));
	const bv lo4 = BV(set1_epi8)(0x0f);
	bv c = BV(add_epi8)(BV(shuffle_epi8)(lut, bv_and(x, lo4)), BV(shuffle_epi8)(lut, bv_and(BV(srli_epi32)(x, 4), lo4)));
	return BV(madd_epi16)(BV(maddubs_epi16)(c, BV(set1_epi8)(1)), BV(set1_epi16)(1));
#endif
}

/*
 * Entry index of byte `by` in the nodes of entries e (low 32 bits; active
 * lanes m), in entries of `sh` = log2(entry size) bytes from the arena
 * start. A direct node's lanes index by the byte (nodes at any byte may be
 * direct; by default those at bytes 2 and 3 are); compressed ones need the
 * 4-byte (w[j], c[j]) of their lanes by one gather, skipped when no lane
 * has one.
 */
static inline __attribute__((always_inline)) bv
v_index(const void *A, bv e, bv by, bmask m, int sh)
{
	const bv m15 = BV(set1_epi32)(15);
	bv line = BV(srli_epi32)(e, 2);
	bv ix = BV(add_epi32)(BV(slli_epi32)(line, 6 - sh), by);
	bmask cm = m & ~BV(test_epi32_mask)(e, BV(set1_epi32)(2));
	if (!cm)
		return ix;
	bv j = BV(srli_epi32)(by, 4);
	bv q = BV(add_epi32)(BV(slli_epi32)(line, 6), BV(add_epi32)(BV(slli_epi32)(j, 1), j));
	bv x = bv_gather(bv_zero(), cm, q, A, 1);
	bv c = bv_and(BV(srli_epi32)(x, 16), BV(set1_epi32)(0xff));
	bv keep = BV(srlv_epi32)(BV(set1_epi32)(0xffff), BV(sub_epi32)(m15, bv_and(by, m15)));
	bv first = BV(add_epi32)(BV(slli_epi32)(line, 6 - sh), BV(set1_epi32)((int)(BM6_HDR >> sh) - 1));
	return BV(mask_add_epi32)(ix, cm, BV(add_epi32)(first, c), popv(bv_and(x, keep)));
}

/*
 * Walk the queued lanes to their ends. Out of line: inlined, its steps made
 * the pipeline's loop slower on random addresses (avx512x8, RouteViews
 * whole-array 1.2x, 64-address calls 1.05x). Named by width
 * (tq_drain_x8_avx512), so test fib_width finds the x8 one. Its callers
 * clear the vector registers' upper halves first (vzeroupper): GCC does not
 * here, and entered with them dirty this scalar code left the process's
 * later scalar work slow on this EPYC (fib6_perf_autotest's deletes after
 * its lookups 80 k instead of 37 k cycles each).
 */
static __attribute__((noinline)) void
VPK_FN(BM6_WNAME(tq_drain))(const uint8_t *A, const uint8_t (*ips)[16], uint64_t *nhs, struct tq *q)
{
	while (q->n)
		tq_step(A, ips, nhs, q);
}

/*
 * One pipeline stage: the lanes m of entries e step one level by the
 * address byte in bits 0-7 of v; v's next byte moves down. A stage with no
 * lane left is skipped (random addresses mostly end at the direct table).
 */
static inline __attribute__((always_inline)) void
pstage(const void *A, bv *e, bmask *m, bv *v)
{
	if (*m) {
		bv x = v_index(A, *e, bv_and(*v, BV(set1_epi32)(0xff)), *m, 2);
		*e = bv_gather(*e, *m, x, A, 4);
		*m = BV(test_epi32_mask)(*e, BV(set1_epi32)(1));
		*v = BV(srli_epi32)(*v, 8);
	}
}

/*
 * The two halves of a compressed level for the split pipeline: phdr()
 * gathers the header words (w[j], c[j]) of the lanes m in compressed nodes
 * (cm; none: no gather), pent() gathers the entries one iteration later.
 */
static inline __attribute__((always_inline)) void
phdr(const void *A, bv e, bmask m, bv v, bv *x, bmask *cm)
{
	*cm = m & ~BV(test_epi32_mask)(e, BV(set1_epi32)(2));
	if (*cm) {
		bv j = BV(srli_epi32)(bv_and(v, BV(set1_epi32)(0xf0)), 4);
		bv q = BV(add_epi32)(BV(slli_epi32)(BV(srli_epi32)(e, 2), 6), BV(add_epi32)(BV(slli_epi32)(j, 1), j));
		*x = bv_gather(bv_zero(), *cm, q, A, 1);
	}
}

static inline __attribute__((always_inline)) void
pent(const void *A, bv *e, bmask *m, bv *v, bv x, bmask cm)
{
	if (*m) {
		const bv m15 = BV(set1_epi32)(15);
		bv by = bv_and(*v, BV(set1_epi32)(0xff));
		bv line4 = BV(slli_epi32)(BV(srli_epi32)(*e, 2), 4);
		bv ix = BV(add_epi32)(line4, by);
		if (cm) {
			bv c = bv_and(BV(srli_epi32)(x, 16), BV(set1_epi32)(0xff));
			bv keep = BV(srlv_epi32)(BV(set1_epi32)(0xffff), BV(sub_epi32)(m15, bv_and(by, m15)));
			bv first = BV(add_epi32)(line4, BV(set1_epi32)((int)(BM6_HDR >> 2) - 1));
			ix = BV(mask_add_epi32)(ix, cm, BV(add_epi32)(first, c), popv(bv_and(x, keep)));
		}
		*e = bv_gather(*e, *m, ix, A, 4);
		*m = BV(test_epi32_mask)(*e, BV(set1_epi32)(1));
		*v = BV(srli_epi32)(*v, 8);
	}
}

/*
 * 4-byte entries, software-pipelined: every iteration takes a new block of
 * BM6_W addresses through the direct table and moves the six blocks before
 * it one stage each: block t-1 at byte 2, t-2 at byte 3, t-3 / t-4 at byte
 * 4 (header words, then entries), t-5 / t-6 at byte 5 (the same). No
 * gather of an iteration waits for another of the same iteration, and the
 * loop has a fixed shape, where a lock-step walk has each block's levels
 * one after another and ends its level loop on the data. Bytes 2 and 3
 * (direct nodes by default) take one stage each (pstage: a compressed node
 * there gathers its header in the same stage). After byte 5 a block is
 * stored and its lanes still continuing (/49 and longer) go to the queue,
 * walked TQ_FILL at a time by scalar steps. Only address bytes 0-5 are
 * picked: one shuffle set for bytes 0-1, one for bytes 2-5 carried as a
 * dword per lane, one byte per level.
 */
static inline __attribute__((always_inline)) size_t
vec_4s_chunk(const struct bm6 *b, const uint8_t (*ips)[16], uint64_t *nhs, size_t n)
{
	const bv one = BV(set1_epi32)(1);
	const bv unt = v6_untranspose(), pos = v6_positions();
	const uint8_t *A = b->arena;
	const void *d = b->direct;
	const size_t nb = n / BM6_W;
	bv e1 = bv_zero(), e2 = e1, e3 = e1, e4 = e1, e5 = e1, e6 = e1;
	bv v1 = e1, v2 = e1, v3 = e1, v4 = e1, v5 = e1, v6 = e1, x4 = e1, x6 = e1;
	bmask m1 = 0, m2 = 0, m3 = 0, m4 = 0, m5 = 0, m6 = 0, c4 = 0, c6 = 0;
	struct tq q;

	q.n = 0;
	for (size_t t = 0; t < nb + 6; t++) {
		pent(A, &e6, &m6, &v6, x6, c6);
		phdr(A, e5, m5, v5, &x6, &c6);
		pent(A, &e4, &m4, &v4, x4, c4);
		phdr(A, e3, m3, v3, &x4, &c4);
		pstage(A, &e2, &m2, &v2);
		pstage(A, &e1, &m1, &v1);
		if (t >= 6) {
			tq_put(&q, nhs, BM6_W * (t - 6), e6, m6, unt, pos);
			if (q.n >= TQ_FILL) {
				_mm256_zeroupper();     /* see tq_drain */
				VPK_FN(BM6_WNAME(tq_drain))(A, ips, nhs, &q);
			}
		}
		e6 = e5, m6 = m5, v6 = v5;
		e5 = e4, m5 = m4, v5 = v4;
		e4 = e3, m4 = m3, v4 = v3;
		e3 = e2, m3 = m2, v3 = v2;
		e2 = e1, m2 = m1, v2 = v1;
		m1 = 0;
		if (t < nb) {
			struct v6blk a;
			pf_ahead(ips, nhs, BM6_W * t, BM6_W, n);
			v6_load(&a, ips + BM6_W * t);
			e1 = bv_gather(bv_zero(), (bmask)~0u, v6_idx(V6_IDX16, &a), d, 4);
			m1 = BV(test_epi32_mask)(e1, one);
			v1 = v6_idx(0x05040302, &a);
		}
	}
	_mm256_zeroupper();
	VPK_FN(BM6_WNAME(tq_drain))(A, ips, nhs, &q);
	return BM6_W * nb;
}

/*
 * Short calls (at most BM6_SHORT_NB blocks, e.g. 64-address bursts): the
 * same stages as passes over all blocks, so a call's chain is the seven
 * stages of one block where the pipeline's is nb + 6 iterations (its fill
 * and drain), and every block's gathers of a stage are in flight together;
 * a call whose addresses all end at the direct table skips the stages
 * (docs/fib.md, "Decisions").
 */
#define BM6_SHORT_NB (64u / BM6_W)

/*
 * The walks out of line on 16 lanes (vec_4s_avx512, vec_4_short_avx512, ...:
 * vpk scan names them); inlined into the lookup on 8, so that the variant's
 * whole walk is the one function test fib_width reads.
 */
#if BM6_W == 16
#define BM6_PIPE_FN static __attribute__((noinline))
#else
#define BM6_PIPE_FN static inline __attribute__((always_inline))
#endif

BM6_PIPE_FN size_t
VPK_FN(vec_4_short)(const struct bm6 *b, const uint8_t (*ips)[16], uint64_t *nhs, size_t nb)
{
	const bv one = BV(set1_epi32)(1);
	const bv unt = v6_untranspose(), pos = v6_positions();
	const uint8_t *A = b->arena;
	bv e[BM6_SHORT_NB], v[BM6_SHORT_NB], x[BM6_SHORT_NB];
	bmask m[BM6_SHORT_NB], cm[BM6_SHORT_NB];
	unsigned any = 0;
	struct tq q;

	for (size_t k = 0; k < nb; k++) {
		struct v6blk a;
		v6_load(&a, ips + BM6_W * k);
		e[k] = bv_gather(bv_zero(), (bmask)~0u, v6_idx(V6_IDX16, &a), b->direct, 4);
		m[k] = BV(test_epi32_mask)(e[k], one);
		any |= m[k];
		v[k] = v6_idx(0x05040302, &a);
	}
	if (any) {              /* else every address ends at the direct table */
		for (size_t k = 0; k < nb; k++)
			pstage(A, &e[k], &m[k], &v[k]);
		for (size_t k = 0; k < nb; k++)
			pstage(A, &e[k], &m[k], &v[k]);
		for (int lv = 4; lv <= 5; lv++) {
			for (size_t k = 0; k < nb; k++)
				phdr(A, e[k], m[k], v[k], &x[k], &cm[k]);
			for (size_t k = 0; k < nb; k++)
				pent(A, &e[k], &m[k], &v[k], x[k], cm[k]);
		}
	}
	q.n = 0;
	for (size_t k = 0; k < nb; k++)
		tq_put(&q, nhs, BM6_W * k, e[k], m[k], unt, pos);
	if (q.n) {
		_mm256_zeroupper();     /* see tq_drain */
		VPK_FN(BM6_WNAME(tq_drain))(A, ips, nhs, &q);
	}
	return BM6_W * nb;
}

BM6_PIPE_FN size_t
VPK_FN(vec_4s)(const struct bm6 *b, const uint8_t (*ips)[16], uint64_t *nhs, size_t n)
{
	return vec_4s_chunk(b, ips, nhs, n);
}

static inline __attribute__((always_inline)) size_t
vec_4(const struct bm6 *b, const uint8_t (*ips)[16], uint64_t *nhs, size_t n)
{
	size_t i = 0;

	if (n / BM6_W <= BM6_SHORT_NB)
		return VPK_FN(vec_4_short)(b, ips, nhs, n / BM6_W);
	while (n - i > BM6_TQ_CHUNK)
		i += VPK_FN(vec_4s)(b, ips + i, nhs + i, BM6_TQ_CHUNK);
	return i + VPK_FN(vec_4s)(b, ips + i, nhs + i, n - i);
}

#endif
