/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ACL classify, scalar variant: the 16 slots of a block compared in a loop,
 * or, once a dimension has left few of them, only those; with one category,
 * the slots the first dimension leaves tested one at a time up to the first
 * full match (first_match()); four packets walked interleaved (acl_kern.h
 * has the shared body).
 */
#define ACL_KEYT 0
#define ACL_ROWS 1   /* the vector variants compare a dimension's 16 slots in 1-4 instructions: rows cost them (avx2, acl 4096: 448 -> 760 instructions per packet) */
#include "acl/acl_kern.h"

#define SPARSE_SLOTS 8  /* at most this many live slots: test them one by one (4: 3 % slower, 16: 5 %) */

/* Set bits of a byte: the scalar build has no popcnt instruction, and
 * __builtin_popcount() there is a libgcc call (acl1 1k: 6 % of the time). */
static const uint8_t pop8[256] = {
#define P2(n) n, n + 1, n + 1, n + 2
#define P4(n) P2(n), P2(n + 1), P2(n + 1), P2(n + 2)
#define P6(n) P4(n), P4(n + 1), P4(n + 1), P4(n + 2)
	P6(0), P6(1), P6(1), P6(2)
#undef P2
#undef P4
#undef P6
};

INLINE uint32_t
live(uint32_t mt)
{
	return (uint32_t)pop8[mt & 0xff] + pop8[mt >> 8 & 0xff];
}

/* The first dimension of a block leaves few of its 16 slots (the builder puts
 * the addresses first): the others test only those, one bit at a time. The
 * arrays are u32 when @p w32, else u16 (and the difference taken mod 2^16). */
INLINE uint32_t
match_sparse(uint32_t x, const void *lo, const void *sp, const void *m, uint32_t mt, bool w32)
{
	for (uint32_t y = mt; y != 0; y &= y - 1) {
		uint32_t j = (uint32_t)__builtin_ctz(y), out;

		if (w32) {
			uint32_t v = m != NULL ? x & ((const uint32_t *)m)[j] : x;

			out = v - ((const uint32_t *)lo)[j] > ((const uint32_t *)sp)[j];
		} else {
			uint16_t v = (uint16_t)(m != NULL ? x & ((const uint16_t *)m)[j] : x);

			out = (uint16_t)(v - ((const uint16_t *)lo)[j]) > ((const uint16_t *)sp)[j];
		}
		mt &= ~(out << j);
	}
	return mt;
}

INLINE uint32_t
acl_match32(uint32_t x, const uint32_t *lo, const uint32_t *sp, const uint32_t *m, uint32_t mt, int w)
{
	(void)w;
	if (live(mt) > SPARSE_SLOTS)
		return mt & match32_scalar(x, lo, sp, m);
	return match_sparse(x, lo, sp, m, mt, true);
}

INLINE uint32_t
acl_match16(uint32_t x, const uint16_t *lo, const uint16_t *sp, const uint16_t *m, uint32_t mt, int w)
{
	(void)w;
	if (live(mt) > SPARSE_SLOTS)
		return mt & match16_scalar(x, lo, sp, m);
	return match_sparse(x, lo, sp, m, mt, false);
}

ACL_KERN_ONE_TREE(walk_scalar, 64);
