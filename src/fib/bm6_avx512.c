/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bm6 lookups, avx512 and avx512icl (bm6.h layout; popcount by nibble
 * table, or VPOPCNTD on avx512icl).
 *  - 4-byte entries: the software pipeline of bm6_pipe.h on 16 lanes (zmm),
 *    one gather per stage, blocks of 16 at bytes 0-5 in flight together
 *    (calls of up to 64 addresses: the same stages as passes over all
 *    blocks); lanes going deeper than byte 5 are queued and walked by
 *    scalar steps.
 *  - 8-byte entries: 4 blocks of 16 in lock step, two 64-bit gathers of 8
 *    per level; from level 3 on, a block with few lanes left stops and
 *    those lanes take the scalar step (TAIL), as do all lanes at byte 6.
 * A level costs two gathers, the header word (bitmap word and count) and
 * the entry, or one (the entry) when every active lane of the block is in
 * a direct node (always at bytes 2 and 3 with the thresholds of bm6.h).
 * bm6_avx512x8.c is the same 4-byte pipeline on 8 lanes (ymm) for the cap
 * 256. Returns exactly what the scalar loop does.
 */
#include "fib/bm6_walk.h"
#include "fib/v6vec.h"

#define BM6_W 16
#include "fib/bm6_pipe.h"

TAIL(uint64_t)

static inline __attribute__((always_inline)) size_t
vec_8(const struct bm6 *b, const uint8_t (*ips)[16], uint64_t *nhs, size_t n)
{
	const __m512i one = _mm512_set1_epi64(1);
	const __m512i unt_lo = _mm512_setr_epi64(0, 4, 8, 12, 1, 5, 9, 13);
	const __m512i unt_hi = _mm512_setr_epi64(2, 6, 10, 14, 3, 7, 11, 15);
	const void *A = b->arena, *d = b->direct;
	size_t i = 0;

	for (; i + 16 * NB <= n; i += 16 * NB) {
		pf_ahead(ips, nhs, i, 16 * NB, n);
		struct v6blk a[NB];
		__m512i lo[NB], hi[NB];
		__mmask16 m[NB], any = 0;
		uint64_t te[16 * NB], tm = 0;
		uint8_t tk[16 * NB];
		for (int k = 0; k < NB; k++) {
			v6_load(&a[k], ips + i + 16 * k);
			__m512i x = v6_idx(V6_IDX16, &a[k]);
			lo[k] = _mm512_i32gather_epi64(_mm512_castsi512_si256(x), d, 8);
			hi[k] = _mm512_i32gather_epi64(_mm512_extracti64x4_epi64(x, 1), d, 8);
		}
		for (int k = 0; k < NB; k++) {
			m[k] = _mm512_kunpackb(_mm512_test_epi64_mask(hi[k], one), _mm512_test_epi64_mask(lo[k], one));
			any |= m[k];
		}
		for (int lv = 2; any; lv++) {
			any = 0;
			for (int k = 0; k < NB; k++)
				if (m[k]) {
					if (lv >= (int)BM6_DIRECT_DEEP ||
					    (lv >= (int)BM6_TAIL_LV && (unsigned)__builtin_popcount(m[k]) <= BM6_TAIL_N)) {
						_mm512_storeu_si512((void *)(te + 16 * k), lo[k]);
						_mm512_storeu_si512((void *)(te + 16 * k + 8), hi[k]);
						memset(tk + 16 * k, lv, 16);
						tm |= (uint64_t)m[k] << 16 * k;
						lo[k] = _mm512_and_si512(lo[k], _mm512_set1_epi64(~1ll));       /* m[k] becomes 0 below */
						hi[k] = _mm512_and_si512(hi[k], _mm512_set1_epi64(~1ll));
						continue;
					}
					__m512i e32 = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi64_epi32(lo[k])),
									 _mm512_cvtepi64_epi32(hi[k]), 1);
					__m512i x = v_index(A, e32, v6_pick(&a[k], lv), m[k], 3);
					lo[k] = _mm512_mask_i32gather_epi64(lo[k], (__mmask8)m[k], _mm512_castsi512_si256(x), A, 8);
					hi[k] = _mm512_mask_i32gather_epi64(hi[k], (__mmask8)(m[k] >> 8),
									    _mm512_extracti64x4_epi64(x, 1), A, 8);
				}
			for (int k = 0; k < NB; k++) {
				m[k] = _mm512_kunpackb(_mm512_test_epi64_mask(hi[k], one), _mm512_test_epi64_mask(lo[k], one));
				any |= m[k];
			}
		}
		if (tm != 0) {
			tail_uint64_t(b, ips + i, te, tk, tm, v6_pos);
			for (int k = 0; k < NB; k++) {
				lo[k] = _mm512_mask_loadu_epi64(lo[k], (__mmask8)(tm >> 16 * k), te + 16 * k);
				hi[k] = _mm512_mask_loadu_epi64(hi[k], (__mmask8)(tm >> (16 * k + 8)), te + 16 * k + 8);
			}
		}
		for (int k = 0; k < NB; k++) {
			__m512i l = _mm512_srli_epi64(lo[k], 1), h = _mm512_srli_epi64(hi[k], 1);
			_mm512_storeu_si512((void *)(nhs + i + 16 * k), _mm512_permutex2var_epi64(l, unt_lo, h));
			_mm512_storeu_si512((void *)(nhs + i + 16 * k + 8), _mm512_permutex2var_epi64(l, unt_hi, h));
		}
	}
	return i;
}

BM6_IMPL(512, vec_4, vec_8);
