/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_FIB_V6VEC_H
#define VPK_FIB_V6VEC_H

/*
 * IPv6 address blocks for the vector lookups of trie6 and bm6 (include in
 * a per-ISA kernel file of 256 bits or more), written once over
 * src/simd/vec.h. A block is as many addresses as the vector has 128-bit
 * lanes, times 4: four vector loads, one address per 128-bit lane (8
 * addresses on avx2, 16 on avx512). The bytes a level needs are picked with
 * in-lane byte shuffles (no gathers from the address array): shuffling
 * vector j puts byte k of its addresses into dword j of each lane, and
 * OR-ing the four gives a vector in "transposed" order (position 4*l + j
 * holds address V6_PER_VEC*j + l). Everything runs in that order; one
 * permute by v6_untranspose() restores address order before the store.
 */
#include <stdint.h>

#include "core/kern.h"
#include "simd/vec.h"

/* Byte-shuffle controls of v6_idx(): dword = a0 << 16 | a1 << 8 | a2, or a0 << 8 | a1. */
#define V6_IDX24 ((int)0x80000102u)
#define V6_IDX16 ((int)0x80800001u)

#define V6_PER_VEC (VPK_VEC_BYTES / 16)        /* addresses per vector */
#define V6_ZERO ((int)0x80808080u)             /* shuffle control: four zero bytes */

struct v6blk {
	vpk_vi a[4];
};

static inline __attribute__((always_inline)) void
v6_load(struct v6blk *b, const uint8_t (*ips)[16])
{
	for (int j = 0; j < 4; j++)
		b->a[j] = vpk_vi_loadu(ips[V6_PER_VEC * j]);
}

/* Dword j of every lane <- bytes selected by ctl_j (the lane's dword j of ctl; 0x80 bytes give 0). */
static inline __attribute__((always_inline)) vpk_vi
v6_shuffle4(const struct v6blk *b, const vpk_vi ctl[4])
{
	vpk_vi r = vpk_vi_shuffle_bytes(b->a[0], ctl[0]);

	for (int j = 1; j < 4; j++)
		r |= vpk_vi_shuffle_bytes(b->a[j], ctl[j]);
	return r;
}

/* Address byte k of the block (k < 16, a run-time value) in transposed order. */
static inline __attribute__((always_inline)) vpk_vi
v6_pick(const struct v6blk *b, int k)
{
	/* ctl_j: byte 4j of each lane = k, every other byte 0x80 (zero). */
	const vpk_vi kk = (vpk_vi)u32v_splat((uint32_t)k), x80 = (vpk_vi)((u8v){ 0 } + 0x80);
	vpk_vi ctl[4];

	for (int j = 0; j < 4; j++) {
		vpk_vi sel = vpk_vi_lanes4(j == 0 ? 0xff : 0, j == 1 ? 0xff : 0, j == 2 ? 0xff : 0, j == 3 ? 0xff : 0);

		ctl[j] = (kk & sel) | (~sel & x80);
	}
	return v6_shuffle4(b, ctl);
}

/* Leading-bytes index (V6_IDX24: a0 << 16 | a1 << 8 | a2; V6_IDX16: a0 << 8 | a1) in transposed order. */
static inline __attribute__((always_inline)) vpk_vi
v6_idx(int c, const struct v6blk *b)
{
	const int z = V6_ZERO;
	vpk_vi ctl[4];

	for (int j = 0; j < 4; j++)
		ctl[j] = vpk_vi_lanes4(j == 0 ? c : z, j == 1 ? c : z, j == 2 ? c : z, j == 3 ? c : z);
	return v6_shuffle4(b, ctl);
}

/* Dword permutation from transposed position back to address order: entry a = position of address a. */
static inline __attribute__((always_inline)) vpk_vi
v6_untranspose(void)
{
	int32_t t[VPK_U32_LANES];

	for (int a = 0; a < VPK_U32_LANES; a++)
		t[a] = 4 * (a % V6_PER_VEC) + a / V6_PER_VEC;
	return vpk_vi_loadu(t);
}

/*
 * The inverse: the address index at transposed position p, p counted over
 * consecutive blocks (block p / VPK_U32_LANES).
 */
static inline __attribute__((always_inline)) unsigned
v6_pos(unsigned p)
{
	return (p & ~(VPK_U32_LANES - 1u)) + V6_PER_VEC * (p % 4) + (p / 4) % V6_PER_VEC;
}

/* v6_pos() of one block's positions as a vector: entry p = the address at position p. */
static inline __attribute__((always_inline)) vpk_vi
v6_positions(void)
{
	int32_t t[VPK_U32_LANES];

	for (unsigned p = 0; p < VPK_U32_LANES; p++)
		t[p] = (int32_t)v6_pos(p);
	return vpk_vi_loadu(t);
}

#endif
