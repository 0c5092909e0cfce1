/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_FIB_V6VEC_H
#define VPK_FIB_V6VEC_H

/*
 * IPv6 address blocks for the vector lookups of trie6_kern.c and
 * bm6_kern.c (include after core/kern.h in a per-ISA kernel file): addresses
 * loaded one per 128-bit lane, the bytes a level needs picked with in-lane
 * byte shuffles instead of gathers from the address array.
 */
#include <stdint.h>

#include "core/kern.h"

/* Byte-shuffle controls of v6_idx(): dword = a0 << 16 | a1 << 8 | a2, or a0 << 8 | a1. */
#define V6_IDX24 ((int)0x80000102u)
#define V6_IDX16 ((int)0x80800001u)

#if VPK_VEC_BITS >= 256
#include <immintrin.h>
#endif

#if VPK_VEC_BITS >= 512
/*
 * AVX-512: 16 addresses = four zmm loads, one address per 128-bit lane. The
 * bytes a level needs are picked with in-lane byte shuffles (no gathers from
 * the address array): shuffling zmm j puts byte k of its 4 addresses into
 * dword j of each lane, and OR-ing the four gives a vector in "transposed"
 * order (position 4*l + j holds address 4*j + l). Everything runs in that
 * order; one permute restores address order before the store.
 */
struct v6blk {
	__m512i a[4];
};

static inline __attribute__((always_inline)) void
v6_load(struct v6blk *b, const uint8_t (*ips)[16])
{
	for (int j = 0; j < 4; j++)
		b->a[j] = _mm512_loadu_si512((const void *)ips[4 * j]);
}

/* Dword j of every lane <- bytes selected by ctl (other bytes 0x80 = zero). */
static inline __attribute__((always_inline)) __m512i
v6_pick(const struct v6blk *b, int k)
{
	/* ctl_j: byte 4j of each lane = k, every other byte 0x80 (zero). */
	const __m512i kk = _mm512_set1_epi32(k);
	__m512i r = _mm512_setzero_si512();
	for (int j = 0; j < 4; j++) {
		__m512i sel = _mm512_set4_epi32(j == 3 ? 0xff : 0, j == 2 ? 0xff : 0, j == 1 ? 0xff : 0, j == 0 ? 0xff : 0);
		__m512i ctl = _mm512_or_si512(_mm512_and_si512(kk, sel),
					      _mm512_andnot_si512(sel, _mm512_set1_epi8((char)0x80)));
		r = _mm512_or_si512(r, _mm512_shuffle_epi8(b->a[j], ctl));
	}
	return r;
}

/* Leading-bytes index (V6_IDX24: a0 << 16 | a1 << 8 | a2; V6_IDX16: a0 << 8 | a1) in transposed order. */
static inline __attribute__((always_inline)) __m512i
v6_idx(int c, const struct v6blk *b)
{
	__m512i r = _mm512_setzero_si512();
	for (int j = 0; j < 4; j++) {
		const int z = (int)0x80808080u;
		__m512i ctl = _mm512_set4_epi32(j == 3 ? c : z, j == 2 ? c : z, j == 1 ? c : z, j == 0 ? c : z);
		r = _mm512_or_si512(r, _mm512_shuffle_epi8(b->a[j], ctl));
	}
	return r;
}

/* Dword j (address bytes 4j..4j+3, little-endian) of the 16 addresses, in transposed order. */
static inline __attribute__((always_inline)) __m512i
v6_dword(const struct v6blk *b, int j)
{
	const int c = 0x03020100 + 0x04040404 * j, z = (int)0x80808080u;
	__m512i r = _mm512_setzero_si512();
#pragma GCC unroll 4
	for (int jj = 0; jj < 4; jj++) {
		__m512i ctl = _mm512_set4_epi32(jj == 3 ? c : z, jj == 2 ? c : z, jj == 1 ? c : z, jj == 0 ? c : z);
		r = _mm512_or_si512(r, _mm512_shuffle_epi8(b->a[jj], ctl));
	}
	return r;
}

/* Transposed position -> address order (for _mm512_permutexvar_epi32). */
static const int32_t v6_untranspose[16] = { 0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15 };

#elif VPK_VEC_BITS >= 256
/* AVX2: the same transposed scheme as AVX-512 on 8 addresses (four ymm, one
 * address per 128-bit lane; position 4*l + j holds address 2*j + l). */
struct v6blk {
	__m256i a[4];
};

static inline __attribute__((always_inline)) void
v6_load(struct v6blk *b, const uint8_t (*ips)[16])
{
	for (int j = 0; j < 4; j++)
		b->a[j] = _mm256_loadu_si256((const void *)ips[2 * j]);
}

static inline __attribute__((always_inline)) __m256i
v6_pick(const struct v6blk *b, int k)
{
	const __m256i kk = _mm256_set1_epi32(k);
	__m256i r = _mm256_setzero_si256();
	for (int j = 0; j < 4; j++) {
		__m256i sel = _mm256_setr_epi32(j == 0 ? 0xff : 0, j == 1 ? 0xff : 0, j == 2 ? 0xff : 0, j == 3 ? 0xff : 0,
						j == 0 ? 0xff : 0, j == 1 ? 0xff : 0, j == 2 ? 0xff : 0, j == 3 ? 0xff : 0);
		__m256i ctl = _mm256_or_si256(_mm256_and_si256(kk, sel),
					      _mm256_andnot_si256(sel, _mm256_set1_epi8((char)0x80)));
		r = _mm256_or_si256(r, _mm256_shuffle_epi8(b->a[j], ctl));
	}
	return r;
}

static inline __attribute__((always_inline)) __m256i
v6_idx(int c, const struct v6blk *b)
{
	__m256i r = _mm256_setzero_si256();
	for (int j = 0; j < 4; j++) {
		const int z = (int)0x80808080u;
		__m256i ctl = _mm256_setr_epi32(j == 0 ? c : z, j == 1 ? c : z, j == 2 ? c : z, j == 3 ? c : z,
						j == 0 ? c : z, j == 1 ? c : z, j == 2 ? c : z, j == 3 ? c : z);
		r = _mm256_or_si256(r, _mm256_shuffle_epi8(b->a[j], ctl));
	}
	return r;
}

#endif

#endif
