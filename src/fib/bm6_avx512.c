/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bm6 lookups, avx512 and avx512icl (bm6.h layout; popcount by nibble
 * table, or VPOPCNTD on avx512icl).
 *  - 4-byte entries: a software pipeline, one gather per stage, blocks of
 *    16 at bytes 0-5 in flight together (bm6_pipe.h); lanes going deeper
 *    than byte 5 are queued and walked 32 at a time (tq_vec2).
 *  - 8-byte entries: 4 blocks of 16 in lock step, two 64-bit gathers of 8
 *    per level; from level 3 on, a block with few lanes left stops and
 *    those lanes take the scalar step (TAIL).
 * A level costs two gathers, the header word (bitmap word and count) and
 * the entry, or one (the entry) when every active lane of the block is in
 * a direct node (always at bytes 2 and 3 with the thresholds of bm6.h).
 * Returns exactly what the scalar loop does.
 */
#include "fib/bm6_walk.h"
#include "fib/v6vec.h"

TAIL(uint64_t)

/*
 * avx512, 4-byte entries: the lanes that continue past byte 5 go to a
 * queue (entry, next byte, address index) that outlives the block
 * (indices are 32-bit: calls are cut into chunks of BM6_TQ_CHUNK): once it
 * holds 32, tq_vec2() walks them together with gathers; what is left after
 * the last block takes tq_vec() and the scalar steps. A lane's result is
 * stored when it finishes, always after its block's own store. Deep lanes
 * of several blocks (the /64s and /128s among the /48s) so share gathers
 * instead of a scalar step each.
 */
#define TQ_N 256u
#define TQ_LEFT 4u      /* tq_vec stops at this many lanes left */
#define TQ_LEFT2 8u     /* tq_vec2: per batch of 16 (4: 2-3 % slower, docs/fib.md) */
struct tq {
	uint32_t e[TQ_N];
	uint32_t ix[TQ_N];
	uint8_t k[TQ_N + 16];   /* + 16: whole-vector stores at the end */
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

/* Transposed position p of a 16-address block (v6vec.h) -> address index. */
static inline __attribute__((always_inline)) unsigned
pos16(unsigned p)
{
	return (p & ~15u) + 4 * (p & 3) + (p >> 2 & 3);
}

static inline __attribute__((always_inline)) __m512i
pop16(__m512i x)
{
#ifdef __AVX512VPOPCNTDQ__
	return _mm512_popcnt_epi32(x);
#else
	const __m512i lut = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4));
	const __m512i lo4 = _mm512_set1_epi8(0x0f);
	__m512i c = _mm512_add_epi8(_mm512_shuffle_epi8(lut, _mm512_and_si512(x, lo4)),
				    _mm512_shuffle_epi8(lut, _mm512_and_si512(_mm512_srli_epi32(x, 4), lo4)));
	return _mm512_madd_epi16(_mm512_maddubs_epi16(c, _mm512_set1_epi8(1)), _mm512_set1_epi16(1));
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
static inline __attribute__((always_inline)) __m512i
v_index(const void *A, __m512i e, __m512i by, __mmask16 m, int sh)
{
	const __m512i m15 = _mm512_set1_epi32(15);
	__m512i line = _mm512_srli_epi32(e, 2);
	__m512i ix = _mm512_add_epi32(_mm512_slli_epi32(line, 6 - sh), by);
	__mmask16 cm = m & ~_mm512_test_epi32_mask(e, _mm512_set1_epi32(2));
	if (!cm)
		return ix;
	__m512i j = _mm512_srli_epi32(by, 4);
	__m512i q = _mm512_add_epi32(_mm512_slli_epi32(line, 6), _mm512_add_epi32(_mm512_slli_epi32(j, 1), j));
	__m512i x = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), cm, q, A, 1);
	__m512i c = _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(0xff));
	__m512i keep = _mm512_srlv_epi32(_mm512_set1_epi32(0xffff), _mm512_sub_epi32(m15, _mm512_and_si512(by, m15)));
	__m512i first = _mm512_add_epi32(_mm512_slli_epi32(line, 6 - sh), _mm512_set1_epi32((int)(BM6_HDR >> sh) - 1));
	return _mm512_mask_add_epi32(ix, cm, _mm512_add_epi32(first, c), pop16(_mm512_and_si512(x, keep)));
}

/*
 * The tail of the 4-byte walk, once 16 lanes are queued: the last 16 are
 * walked together (each with its own next byte k and address index: a
 * gather of the address bytes, the header word and the entry per level)
 * until at most `left` continue, which go back to the queue; finished
 * lanes are scattered to nhs. Deep lanes of several groups share gathers
 * instead of a scalar step each.
 */
static inline __attribute__((always_inline)) void
tq_walk(const void *A, const uint8_t (*ips)[16], uint64_t *nhs, struct tq *q, unsigned left, const unsigned nq)
{
	const __m512i one = _mm512_set1_epi32(1), three = _mm512_set1_epi32(3);
	__m512i e[2], ix[2], k[2], base[2];
	__mmask16 m[2];
	unsigned busy = 0;

	for (unsigned h = 0; h < nq; h++) {
		unsigned n = q->n - 16;
		e[h] = _mm512_loadu_si512((const void *)(q->e + n));
		ix[h] = _mm512_loadu_si512((const void *)(q->ix + n));
		k[h] = _mm512_cvtepu8_epi32(_mm_loadu_si128((const void *)(q->k + n)));
		base[h] = _mm512_slli_epi32(ix[h], 4);
		m[h] = 0xffff;
		busy |= 1u << h;
		q->n = n;
	}
	while (busy) {
		for (unsigned h = 0; h < nq; h++) {
			if (!(busy >> h & 1))
				continue;
			/* address byte k, from the aligned dword holding it */
			__m512i dw = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m[h],
								 _mm512_add_epi32(base[h], _mm512_andnot_si512(three, k[h])),
								 (const void *)ips, 1);
			__m512i by = _mm512_and_si512(_mm512_srlv_epi32(dw, _mm512_slli_epi32(_mm512_and_si512(k[h], three), 3)),
						      _mm512_set1_epi32(0xff));
			__m512i x = v_index(A, e[h], by, m[h], 2);
			e[h] = _mm512_mask_i32gather_epi32(e[h], m[h], x, A, 4);
			k[h] = _mm512_mask_add_epi32(k[h], m[h], k[h], one);
			__mmask16 done = _mm512_mask_testn_epi32_mask(m[h], e[h], one);
			if (done) {
				__m512i r = _mm512_srli_epi32(e[h], 1);
				_mm512_mask_i32scatter_epi64(nhs, (__mmask8)done, _mm512_castsi512_si256(ix[h]),
							     _mm512_cvtepu32_epi64(_mm512_castsi512_si256(r)), 8);
				_mm512_mask_i32scatter_epi64(nhs, (__mmask8)(done >> 8), _mm512_extracti64x4_epi64(ix[h], 1),
							     _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(r, 1)), 8);
				m[h] &= (__mmask16)~done;
				if ((unsigned)__builtin_popcount(m[h]) <= left)
					busy &= ~(1u << h);
			}
		}
	}
	for (unsigned h = 0; h < nq; h++) {
		_mm512_mask_compressstoreu_epi32(q->e + q->n, m[h], e[h]);
		_mm512_mask_compressstoreu_epi32(q->ix + q->n, m[h], ix[h]);
		_mm_storeu_si128((void *)(q->k + q->n), _mm512_cvtepi32_epi8(_mm512_maskz_compress_epi32(m[h], k[h])));
		q->n += (unsigned)__builtin_popcount(m[h]);
	}
}

static __attribute__((noinline)) void
VPK_FN(tq_vec)(const void *A, const uint8_t (*ips)[16], uint64_t *nhs, struct tq *q, unsigned left)
{
	tq_walk(A, ips, nhs, q, left, 1);
}

/* The same for the last 32 queued lanes, as two batches of 16 whose gathers overlap. */
static __attribute__((noinline)) void
VPK_FN(tq_vec2)(const void *A, const uint8_t (*ips)[16], uint64_t *nhs, struct tq *q, unsigned left)
{
	tq_walk(A, ips, nhs, q, left, 2);
}

#include "fib/bm6_pipe.h"

static inline __attribute__((always_inline)) size_t
vec_4(const struct bm6 *b, const uint8_t (*ips)[16], uint64_t *nhs, size_t n)
{
	size_t i = 0;

	while (n - i > BM6_TQ_CHUNK)
		i += VPK_FN(vec_4s)(b, ips + i, nhs + i, BM6_TQ_CHUNK);
	return i + VPK_FN(vec_4s)(b, ips + i, nhs + i, n - i);
}

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
					if (lv >= (int)BM6_TAIL_LV && (unsigned)__builtin_popcount(m[k]) <= BM6_TAIL_N) {
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
			tail_uint64_t(b, ips + i, te, tk, tm, pos16);
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
