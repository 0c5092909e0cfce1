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

/*
 * Published data (one writer, lock-free lookups; the layouts' headers say
 * what each writer changes in place and what it publishes by one store).
 * Every word a lookup may read while the writer runs is written with atomic
 * stores and read by scalar lookup code with atomic loads, so that C11 sees
 * no data race and ThreadSanitizer no report:
 *   FIB_LD_ACQ  an entry that may lead to more published data (a tbl8 group,
 *               a node): acquire, pairing with the writer's release store of
 *               it, so the group or node it names is seen as it was filled;
 *   FIB_LD      anything else (a final entry, a word of a node reached by an
 *               acquire): relaxed;
 *   FIB_ST      the writer filling a node that is not yet reachable (the
 *               release store of its parent entry publishes it).
 * On x86-64 each of these is the plain mov it replaces (aligned loads and
 * stores of up to 8 bytes are single-copy atomic, and TSO orders loads with
 * loads and stores with stores), so lookups cost the same; GCC keeps them in
 * program order, which the software-pipelined loops already are.
 *
 * Vector loads and gathers (_mm*_i32gather_*, _mm*_loadu_*) of the same
 * tables stay plain: C11 has no atomic gather, and TSan does not instrument
 * them. That is sound on x86-64: the entry a gather element reads is naturally
 * aligned, so it is read whole, old or new (also where the element is a
 * wider 4-byte read of a 1- or 2-byte entry); a gather that depends on
 * an earlier gather's result is ordered after it like any later load (TSO),
 * so a node or group reached that way is seen as filled, as the acquire load
 * guarantees for the scalar code. The scalar steps that continue a walk a
 * gather began (tails, queues, compressed-node ranking) read with FIB_LD:
 * TSan sees no happens-before edge through the gather, and with atomic
 * accesses on both sides it reports none (the writer side is FIB_ST).
 */
#define FIB_LD_ACQ(p)   __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define FIB_LD(p)       __atomic_load_n((p), __ATOMIC_RELAXED)
#define FIB_ST(p, v)    __atomic_store_n((p), (v), __ATOMIC_RELAXED)

#endif
