/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_FIB_BITS_H
#define VPK_FIB_BITS_H

/* Bit and memory helpers shared by the compressed FIB layouts (bm16, bm6), the uncompressed ones
 * and their per-ISA kernels: always inlined, so a kernel built for one ISA never calls
 * an unsuffixed copy (the `vpk scan` policy) or libgcc's __popcountsi2. */
#include <stdint.h>
#include <string.h>

/* Set bits of x: POPCNT where the build has it, else SWAR. */
static inline __attribute__((always_inline)) uint32_t
fib_pop32(uint32_t x)
{
#ifdef __POPCNT__
	return (uint32_t)__builtin_popcount(x);
#else
	x -= (x >> 1) & 0x55555555u;
	x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
	return (((x + (x >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
#endif
}

/* Unaligned 32-bit load and 64-bit store (next-hop arrays may be unaligned). */
static inline __attribute__((always_inline)) uint32_t
fib_ld32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline __attribute__((always_inline)) void
fib_st64(uint64_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

#endif
