/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_FIB_BM6_PIPE_H
#define VPK_FIB_BM6_PIPE_H

/*
 * The software-pipelined avx512 walk of bm6 with 4-byte entries (docs/fib.md,
 * "bm6"). A fragment of bm6_avx512.c, included there after the deep-lane
 * queue (struct tq, tq_step, tq_vec, tq_vec2), v_index() and pop16(); it
 * uses them and defines VPK_FN(vec_4s) for that file's vec_4().
 */

/*
 * One pipeline stage: the lanes m of entries e step one level by the
 * address byte in bits 0-7 of v; v's next byte moves down. A stage with no
 * lane left is skipped (random addresses mostly end at the direct table).
 */
static inline __attribute__((always_inline)) void
pstage(const void *A, __m512i *e, __mmask16 *m, __m512i *v)
{
	if (*m) {
		__m512i x = v_index(A, *e, _mm512_and_si512(*v, _mm512_set1_epi32(0xff)), *m, 2);
		*e = _mm512_mask_i32gather_epi32(*e, *m, x, A, 4);
		*m = _mm512_test_epi32_mask(*e, _mm512_set1_epi32(1));
		*v = _mm512_srli_epi32(*v, 8);
	}
}

/*
 * The two halves of a compressed level for the split pipeline: phdr()
 * gathers the header words (w[j], c[j]) of the lanes m in compressed nodes
 * (cm; none: no gather), pent() gathers the entries one iteration later.
 */
static inline __attribute__((always_inline)) void
phdr(const void *A, __m512i e, __mmask16 m, __m512i v, __m512i *x, __mmask16 *cm)
{
	*cm = m & ~_mm512_test_epi32_mask(e, _mm512_set1_epi32(2));
	if (*cm) {
		__m512i j = _mm512_srli_epi32(_mm512_and_si512(v, _mm512_set1_epi32(0xf0)), 4);
		__m512i q = _mm512_add_epi32(_mm512_slli_epi32(_mm512_srli_epi32(e, 2), 6), _mm512_add_epi32(_mm512_slli_epi32(j, 1), j));
		*x = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), *cm, q, A, 1);
	}
}

static inline __attribute__((always_inline)) void
pent(const void *A, __m512i *e, __mmask16 *m, __m512i *v, __m512i x, __mmask16 cm)
{
	if (*m) {
		const __m512i m15 = _mm512_set1_epi32(15);
		__m512i by = _mm512_and_si512(*v, _mm512_set1_epi32(0xff));
		__m512i line4 = _mm512_slli_epi32(_mm512_srli_epi32(*e, 2), 4);
		__m512i ix = _mm512_add_epi32(line4, by);
		if (cm) {
			__m512i c = _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(0xff));
			__m512i keep = _mm512_srlv_epi32(_mm512_set1_epi32(0xffff), _mm512_sub_epi32(m15, _mm512_and_si512(by, m15)));
			__m512i first = _mm512_add_epi32(line4, _mm512_set1_epi32((int)(BM6_HDR >> 2) - 1));
			ix = _mm512_mask_add_epi32(ix, cm, _mm512_add_epi32(first, c), pop16(_mm512_and_si512(x, keep)));
		}
		*e = _mm512_mask_i32gather_epi32(*e, *m, ix, A, 4);
		*m = _mm512_test_epi32_mask(*e, _mm512_set1_epi32(1));
		*v = _mm512_srli_epi32(*v, 8);
	}
}

/*
 * 4-byte entries, software-pipelined: every iteration
 * takes a new block of 16 through the direct table and moves the six
 * blocks before it one stage each: block t-1 at byte 2, t-2 at byte 3,
 * t-3 / t-4 at byte 4 (header words, then entries), t-5 / t-6 at byte 5
 * (the same). No gather of an iteration waits for another of the same
 * iteration, and the loop has a fixed shape, where a lock-step walk has
 * each block's levels one after another and ends its level loop on the
 * data. Bytes 2 and 3 (direct nodes by default) take one
 * stage each (pstage: a compressed node there gathers its header in the
 * same stage). After byte 5 a block is stored and its lanes still
 * continuing (/49 and longer) go to the queue, walked 32 at a time
 * (tq_vec2). Only address bytes 0-5 are picked: one
 * shuffle set for bytes 0-1, one for bytes 2-5 carried as a dword per
 * lane, one byte per level.
 */
static inline __attribute__((always_inline)) size_t
vec_4s_chunk(const struct bm6 *b, const uint8_t (*ips)[16], uint64_t *nhs, size_t n)
{
	const __m512i one = _mm512_set1_epi32(1);
	const __m512i unt = v6_untranspose();
	const void *A = b->arena, *d = b->direct;
	const size_t nb = n / 16;
	__m512i e1 = _mm512_setzero_si512(), e2 = e1, e3 = e1, e4 = e1, e5 = e1, e6 = e1;
	__m512i v1 = e1, v2 = e1, v3 = e1, v4 = e1, v5 = e1, v6 = e1, x4 = e1, x6 = e1;
	__mmask16 m1 = 0, m2 = 0, m3 = 0, m4 = 0, m5 = 0, m6 = 0, c4 = 0, c6 = 0;
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
			const size_t at = 16 * (t - 6);
			__m512i r = _mm512_permutexvar_epi32(unt, _mm512_srli_epi32(e6, 1));
			_mm512_storeu_si512((void *)(nhs + at), _mm512_cvtepu32_epi64(_mm512_castsi512_si256(r)));
			_mm512_storeu_si512((void *)(nhs + at + 8), _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(r, 1)));
			if (m6) {
				_mm512_mask_compressstoreu_epi32(q.e + q.n, m6, e6);
				_mm512_mask_compressstoreu_epi32(q.ix + q.n, m6, _mm512_add_epi32(unt, _mm512_set1_epi32((int)at)));
				memset(q.k + q.n, 6, 16);
				q.n += (unsigned)__builtin_popcount(m6);
				if (q.n >= 32)
					VPK_FN(tq_vec2)(A, ips, nhs, &q, TQ_LEFT2);
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
			pf_ahead(ips, nhs, 16 * t, 16, n);
			v6_load(&a, ips + 16 * t);
			e1 = _mm512_i32gather_epi32(v6_idx(V6_IDX16, &a), d, 4);
			m1 = _mm512_test_epi32_mask(e1, one);
			v1 = v6_idx(0x05040302, &a);
		}
	}
	if (q.n >= 16)
		VPK_FN(tq_vec)(A, ips, nhs, &q, TQ_LEFT);
	while (q.n)
		tq_step(A, ips, nhs, &q);
	return 16 * nb;
}

static __attribute__((noinline)) size_t
VPK_FN(vec_4s)(const struct bm6 *b, const uint8_t (*ips)[16], uint64_t *nhs, size_t n)
{
	return vec_4s_chunk(b, ips, nhs, n);
}

#endif
