/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bm6 lookup kernels (bm6.h layout), compiled once per ISA level.
 *
 *  - scalar / sse42: 8 addresses walked in lock step (their node and entry
 *    loads overlap); sse42 differs by the POPCNT instruction.
 *  - avx2: 4 blocks of 8 addresses in lock step (4-byte entries; 8-byte
 *    entries take the scalar walk); header gathers skipped as in avx512.
 *  - avx512 / avx512icl: 4 blocks of 16 addresses, each in lock step
 *    (8-byte entries: two 64-bit gathers of 8 per level). Popcount by nibble table (avx512) or VPOPCNTD
 *    (avx512icl). A level costs two gathers, the header word (bitmap word
 *    and count) and the entry, or one (the entry) when every active lane
 *    of the block is in a direct node (always at bytes 2 and 3 with the
 *    thresholds of bm6.h).
 *  - avx2, and avx512 with 8-byte entries: from level 3 on, a block with
 *    few lanes left stops; those lanes are finished by the scalar step
 *    after the group (TAIL).
 *  - avx512, 4-byte entries: a software pipeline instead of the lock step,
 *    one gather per stage, blocks at bytes 0-5 in flight together; lanes
 *    going deeper than byte 5 are queued and walked 32 at a time (tq_vec2).
 *  - every variant prefetches the addresses and next-hop lines PF_AHEAD
 *    addresses ahead.
 * Every variant returns exactly what the scalar loop does.
 */
#include <string.h>

#include "core/kern.h"
#include "fib/bm6.h"
#include "fib/v6vec.h"
#include "fib/fib_bits.h"

#define SB 8    /* scalar lock-step width */

/*
 * Software prefetch of the address array (and of the next-hop lines to be
 * written) PF_AHEAD addresses ahead of the walk: in a large bulk call the
 * hardware prefetcher alone leaves the walk waiting on the address stream
 * (random addresses, most answered by the direct table: 2.3 -> 1.0 ns per
 * lookup with 2 M addresses, in-table 0.88x; docs/fib.md). One prefetch
 * per 64-byte line.
 */
#define PF_AHEAD 256u

static inline __attribute__((always_inline)) void
pf_ahead(const uint8_t (*ips)[16], uint64_t *nhs, size_t i, size_t cnt, size_t n)
{
	if (i + PF_AHEAD + cnt > n)
		return;
	for (size_t j = 0; j < cnt; j += 4)
		__builtin_prefetch(ips + i + PF_AHEAD + j, 0, 3);
	for (size_t j = 0; j < cnt; j += 8)
		__builtin_prefetch(nhs + i + PF_AHEAD + j, 1, 3);
}

/*
 * Direct-table index: address bytes 0-1 as a big-endian 16-bit number, read
 * as 32 bits. Written as a[0] << 8 | a[1], the avx2 build (MOVBE) loaded it
 * with a 16-bit MOVBE into a register that had just held the previous
 * lane's entry: a partial-register write that waits for that load, so the 8
 * lock-step lanes ran one after another (random lookups 1.7x slower than
 * the scalar build's).
 */
static inline __attribute__((always_inline)) uint32_t
direct_idx(const uint8_t *a)
{
	uint32_t w;

	memcpy(&w, a, sizeof(w));
	return __builtin_bswap32(w) >> 16;
}

/*
 * Run bitmap word w[j] and count c[j] of the compressed node at h (bm6.h).
 * HDR_SCALAR: a 2-byte and a 1-byte load (not one 4-byte load, whose fourth
 * byte would be the first entry for j = 15, an entry that changes in place):
 * the scalar walk reached the node through acquire loads, and a node's
 * header never changes while it is reachable, so plain loads are race-free.
 * HDR_GATHERED: three atomic byte loads, for the steps that continue a walk
 * begun by gathers: no acquire there, so the header is read as the entries
 * are (fib_bits.h).
 */
#define HDR_SCALAR(h, j, w, c)                                                             \
	do {                                                                               \
		uint16_t w16_;                                                             \
		memcpy(&w16_, (h) + 3 * (j), sizeof(w16_));                                \
		(w) = w16_;                                                                \
		(c) = (h)[3 * (j) + 2];                                                    \
	} while (0)
#define HDR_GATHERED(h, j, w, c)                                                           \
	do {                                                                               \
		(w) = (uint32_t)FIB_LD((h) + 3 * (j)) | (uint32_t)FIB_LD((h) + 3 * (j) + 1) << 8; \
		(c) = FIB_LD((h) + 3 * (j) + 2);                                           \
	} while (0)

/* One byte level: entry of byte `by` in the compressed node of entry e; HDR reads its header word. */
#define STEP(T, A, e, by, HDR)                                                             \
	({                                                                                 \
		const uint8_t *h_ = (A) + (size_t)((e) >> 2) * 64;                         \
		uint32_t w_, c_;                                                           \
		HDR(h_, (by) >> 4, w_, c_);                                                \
		unsigned r_ = c_ + fib_pop32(w_ & (0xffffu >> (15 - ((by) & 15))));        \
		FIB_LD_ACQ((const T *)(const void *)(h_ + BM6_HDR - sizeof(T) + sizeof(T) * r_)); \
	})

/* The entry of byte `by` in the direct node of entry e. */
#define STEPD(T, A, e, by) FIB_LD_ACQ((const T *)(const void *)((A) + (size_t)((e) >> 2) * 64) + (by))

/* Any byte: the node may be direct (bit 1; a level's nodes are mostly of one kind, so a branch). */
#define STEP2(T, A, e, by, HDR)                                                            \
	({                                                                                 \
		T v2_;                                                                     \
		if ((e) & 2)                                                               \
			v2_ = STEPD(T, A, e, by);                                          \
		else                                                                       \
			v2_ = STEP(T, A, e, by, HDR);                                      \
		v2_;                                                                       \
	})

/* One step from byte k (k advanced) of a walk begun by gathers; the node may be direct (bit 1; a branch). */
#define STEPK(T, A, e, ip, k)                                                              \
	({                                                                                 \
		T s_ = STEP2(T, A, e, (ip)[k], HDR_GATHERED);                              \
		(k)++;                                                                     \
		s_;                                                                        \
	})

#define SCALAR_LOOKUP(T)                                                                   \
	static inline __attribute__((always_inline)) void scalar_##T(const struct bm6 *b, const uint8_t (*ips)[16], \
								       uint64_t *nhs, size_t n, size_t i) \
	{                                                                                  \
		const T *d = (const T *)b->direct;                                         \
		const uint8_t *A = (const uint8_t *)b->arena;                              \
		for (; i + SB <= n; i += SB) {                                             \
			T e[SB];                                                           \
			unsigned any = 0;                                                  \
			pf_ahead(ips, nhs, i, SB, n);                                      \
			for (unsigned l = 0; l < SB; l++) {                                \
				e[l] = FIB_LD_ACQ(&d[direct_idx(ips[i + l])]);             \
				any |= (unsigned)e[l];                                     \
			}                                                                  \
			for (unsigned k = 2; any & 1; k++) {                               \
				any = 0;                                                   \
				for (unsigned l = 0; l < SB; l++)                          \
					if (e[l] & 1) {                                    \
						e[l] = STEP2(T, A, e[l], ips[i + l][k], HDR_SCALAR); \
						any |= (unsigned)e[l];                     \
					}                                                  \
			}                                                                  \
			for (unsigned l = 0; l < SB; l++) {                                \
				uint64_t v = (uint64_t)(e[l] >> 1);                        \
				/* Kept scalar: GCC vectorised this copy in the avx2   \
				 * build, reloading e[] by 32-byte loads right after   \
				 * its 8-byte stores (store-forwarding stalls: 8-byte  \
				 * lookups 4x slower than the scalar build's). */       \
				__asm__("" : "+r"(v));                                     \
				fib_st64(&nhs[i + l], v);                                  \
			}                                                                  \
		}                                                                          \
		for (; i < n; i++) {                                                       \
			const uint8_t *a = ips[i];                                         \
			T e = FIB_LD_ACQ(&d[direct_idx(a)]);                               \
			for (unsigned k = 2; e & 1; k++)                                   \
				e = STEP2(T, A, e, a[k], HDR_SCALAR);                      \
			fib_st64(&nhs[i], (uint64_t)(e >> 1));                                 \
		}                                                                          \
	}
SCALAR_LOOKUP(uint32_t)
SCALAR_LOOKUP(uint64_t)

/*
 * Tails of the vector blocks: once few lanes of a block continue (at most
 * BM6_TAIL_N, from level BM6_TAIL_LV), the block stops and its lanes are
 * parked (entry e[p], next byte k[p], bit p of m; `pos` maps p to the
 * address index in the group); after the group's vector walk the parked
 * lanes of all its blocks are walked here in lock step, so their dependent
 * loads overlap. A deep lane (a /64 or /128 among /48s) would otherwise keep
 * its block stepping with 16-lane gathers.
 */
#define TAIL(T)                                                                            \
	static inline __attribute__((always_inline)) void tail_##T(const struct bm6 *b, const uint8_t (*ips)[16], \
								     T *e, uint8_t *k, uint64_t m,   \
								     unsigned (*pos)(unsigned))      \
	{                                                                                  \
		const uint8_t *A = (const uint8_t *)b->arena;                              \
		while (m != 0) {                                                           \
			uint64_t left = 0;                                                 \
			for (uint64_t x = m; x != 0; x &= x - 1) {                         \
				unsigned p = (unsigned)__builtin_ctzll(x), by = ips[pos(p)][k[p]]; \
				e[p] = STEP2(T, A, e[p], by, HDR_GATHERED);                \
				k[p]++;                                                    \
				left |= (uint64_t)(e[p] & 1) << p;                         \
			}                                                                  \
			m = left;                                                          \
		}                                                                          \
	}
/* The lock-step vector loops park lanes: avx2 with 4-byte entries, avx512
 * with 8-byte ones (its 4-byte walk is the pipeline, bm6_pipe.h). */
#if VPK_VEC_BITS == 256
TAIL(uint32_t)
#endif
#if VPK_VEC_BITS >= 512
TAIL(uint64_t)
#endif

#if VPK_VEC_BITS >= 512
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
#endif

#define NB 4    /* vector blocks interleaved */

#if VPK_VEC_BITS >= 512
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
#elif VPK_VEC_BITS >= 256
/* Transposed position p of an 8-address block (v6vec.h) -> address index. */
static inline __attribute__((always_inline)) unsigned
pos8(unsigned p)
{
	return (p & ~7u) + 2 * (p & 3) + (p >> 2 & 1);
}

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
	const __m256i unt = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7), tra = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
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
		 * transposed lane order (lane p holds address pos8(p)).
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
					if (lv >= (int)BM6_TAIL_LV && (unsigned)__builtin_popcount(mk) <= BM6_TAIL_N / 2) {
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
			tail_uint32_t(b, ips + i, te, tk, tm, pos8);
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

static inline __attribute__((always_inline)) size_t
vec_8(const struct bm6 *b, const uint8_t (*ips)[16], uint64_t *nhs, size_t n)
{
	(void)b;
	(void)ips;
	(void)nhs;
	(void)n;
	return 0;       /* 4 lanes of 64-bit gathers: the scalar lock-step walk does as well */
}
#endif

#if VPK_VEC_BITS >= 256
#define BODY(T, V)                                                                         \
	static void VPK_FN(lookup_##T)(const struct bm6 *b, const uint8_t (*ips)[16], uint64_t *nhs, size_t n) \
	{                                                                                  \
		scalar_##T(b, ips, nhs, n, V(b, ips, nhs, n));                             \
	}
BODY(uint32_t, vec_4)
BODY(uint64_t, vec_8)
#define WIDTH VPK_VEC_BITS
#else
#define BODY(T)                                                                            \
	static void VPK_FN(lookup_##T)(const struct bm6 *b, const uint8_t (*ips)[16], uint64_t *nhs, size_t n) \
	{                                                                                  \
		scalar_##T(b, ips, nhs, n, 0);                                             \
	}
BODY(uint32_t)
BODY(uint64_t)
#define WIDTH (VPK_VEC_BITS ? VPK_VEC_BITS : 64)
#endif

const struct bm6_impl VPK_FN(vpk_bm6_impl) = {
	.impl = VPK_IMPL_INIT(WIDTH),
	.lookup = { VPK_FN(lookup_uint32_t), VPK_FN(lookup_uint64_t) },
};
