/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bm6 lookups, avx2 (bm6.h layout): 4 blocks of 8 addresses in lock step
 * with 4-byte entries, the direct entries by scalar loads and a block
 * transposed (v6vec.h) only when one of its lanes continues; header gathers
 * skipped when every active lane is in a direct node. From level 3 on, a
 * block with few lanes left stops and those lanes take the scalar step
 * (TAIL), and so do all lanes that reach byte 6. 8-byte entries take the
 * scalar walk (4 lanes of 64-bit gathers do not beat it). Returns exactly
 * what the scalar loop does.
 */
#include "fib/bm6_walk.h"
#include "fib/v6vec.h"

TAIL(uint32_t)

static inline __attribute__((always_inline)) __m256i
pop8(__m256i x)
{
	const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1,
					     2, 2, 3, 2, 3, 3, 4);
	const __m256i lo4 = _mm256_set1_epi8(0x0f);
	__m256i c = _mm256_add_epi8(_mm256_shuffle_epi8(lut, _mm256_and_si256(x, lo4)),
				    _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi32(x, 4), lo4)));
	return _mm256_madd_epi16(_mm256_maddubs_epi16(c, _mm256_set1_epi8(1)), _mm256_set1_epi16(1));
}

static inline __attribute__((always_inline)) size_t
vec_4(const struct bm6 *b, const uint8_t (*ips)[16], uint64_t *nhs, size_t n)
{
	const __m256i one = _mm256_set1_epi32(1), m15 = _mm256_set1_epi32(15), lo16 = _mm256_set1_epi32(0xffff);
	const __m256i unt = v6_untranspose(), tra = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
	const __m256i hdr = _mm256_set1_epi32((int)(BM6_HDR / 4) - 1), ff = _mm256_set1_epi32(0xff);
	const __m256i two = _mm256_set1_epi32(2);
	const int *A = b->arena, *d = b->direct;
	size_t i = 0;

	for (; i + 8 * NB <= n; i += 8 * NB) {
		pf_ahead(ips, nhs, i, 8 * NB, n);
		struct v6blk a[NB];
		__m256i e[NB], m[NB];
		int any = 0;
		uint32_t te[8 * NB];
		uint8_t tk[8 * NB];
		uint64_t tm = 0;
		/*
		 * Direct entries by scalar loads, as the scalar loop: a group whose
		 * addresses all end in the direct table (most random addresses) is
		 * written out at once, without the transposition and gathers
		 * (random lookups 7.3 -> ~3 cycles; the 8-lane gather and the
		 * transposition cost more than 8 L2 loads here). Only blocks with a
		 * continuing lane are transposed; their entries are put in the
		 * transposed lane order (lane p holds address v6_pos(p)).
		 */
		uint32_t de[8 * NB], ext = 0;
		for (int j = 0; j < 8 * NB; j++) {
			de[j] = (uint32_t)FIB_LD_ACQ(&d[direct_idx(ips[i + j])]);
			ext |= de[j];
		}
		if (!(ext & 1)) {
			for (int j = 0; j < 8 * NB; j++)
				nhs[i + j] = de[j] >> 1;
			continue;
		}
		for (int k = 0; k < NB; k++) {
			e[k] = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const void *)(de + 8 * k)), tra);
			m[k] = _mm256_cmpeq_epi32(_mm256_and_si256(e[k], one), one);
			if (!_mm256_testz_si256(m[k], m[k])) {
				v6_load(&a[k], ips + i + 8 * k);
				any = 1;
			}
		}
		for (int lv = 2; any; lv++) {
			any = 0;
			for (int k = 0; k < NB; k++)
				if (!_mm256_testz_si256(m[k], m[k])) {
					unsigned mk = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(m[k]));
					if (lv >= (int)BM6_DIRECT_DEEP ||
					    (lv >= (int)BM6_TAIL_LV && (unsigned)__builtin_popcount(mk) <= BM6_TAIL_N / 2)) {
						_mm256_storeu_si256((void *)(te + 8 * k), e[k]);
						memset(tk + 8 * k, lv, 8);
						tm |= (uint64_t)mk << 8 * k;
						m[k] = _mm256_setzero_si256();
						continue;
					}
					__m256i by = v6_pick(&a[k], lv);
					__m256i line = _mm256_srli_epi32(e[k], 2), j = _mm256_srli_epi32(by, 4);
					__m256i x = _mm256_add_epi32(_mm256_slli_epi32(line, 4), by);
					__m256i cm = _mm256_andnot_si256(_mm256_cmpeq_epi32(_mm256_and_si256(e[k], two), two), m[k]);
					if (!_mm256_testz_si256(cm, cm)) {
						__m256i q = _mm256_add_epi32(_mm256_slli_epi32(line, 6),
									     _mm256_add_epi32(_mm256_slli_epi32(j, 1), j));
						__m256i w = _mm256_mask_i32gather_epi32(_mm256_setzero_si256(), A, q, cm, 1);
						__m256i c = _mm256_and_si256(_mm256_srli_epi32(w, 16), ff);
						__m256i keep = _mm256_srlv_epi32(lo16, _mm256_sub_epi32(m15, _mm256_and_si256(by, m15)));
						__m256i y = _mm256_add_epi32(_mm256_add_epi32(_mm256_slli_epi32(line, 4), hdr),
									     _mm256_add_epi32(c, pop8(_mm256_and_si256(w, keep))));
						x = _mm256_blendv_epi8(x, y, cm);
					}
					e[k] = _mm256_mask_i32gather_epi32(e[k], A, x, m[k], 4);
					m[k] = _mm256_cmpeq_epi32(_mm256_and_si256(e[k], one), one);
					any |= !_mm256_testz_si256(m[k], m[k]);
				}
		}
		if (tm != 0) {
			tail_uint32_t(b, ips + i, te, tk, tm, v6_pos);
			for (int k = 0; k < NB; k++)
				if ((tm >> 8 * k) & 0xff)
					e[k] = _mm256_loadu_si256((const void *)(te + 8 * k));
		}
		for (int k = 0; k < NB; k++) {
			__m256i r = _mm256_permutevar8x32_epi32(_mm256_srli_epi32(e[k], 1), unt);
			_mm256_storeu_si256((void *)(nhs + i + 8 * k), _mm256_cvtepu32_epi64(_mm256_castsi256_si128(r)));
			_mm256_storeu_si256((void *)(nhs + i + 8 * k + 4),
					    _mm256_cvtepu32_epi64(_mm256_extracti128_si256(r, 1)));
		}
	}
	return i;
}

BM6_IMPL(256, vec_4, BM6_NO_VEC);
