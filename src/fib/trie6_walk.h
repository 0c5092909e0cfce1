/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_FIB_TRIE6_WALK_H
#define VPK_FIB_TRIE6_WALK_H

/*
 * The scalar trie6 walk (trie6.h layout), included by each per-ISA file
 * (trie6_kern.c: scalar and sse42; trie6_avx2.c; trie6_avx512.c): one
 * address at a time, the tbl24 entry prefetched PF_DIST addresses ahead,
 * then the chain of byte levels. Every variant ends in it. TRIE6_IMPL()
 * defines a file's impl from its vector loops.
 */
#include <string.h>

#include "core/kern.h"
#include "fib/trie6.h"
#include "fib/fib_bits.h"

#define PF_DIST 16
#define V6_PF 64        /* vector loops: tbl24 prefetch distance, addresses */


#define SCALAR_LOOKUP(T)                                                                   \
	static inline __attribute__((always_inline)) void scalar_##T(const struct trie6 *t, const uint8_t (*ips)[16],     \
				      uint64_t *nhs, size_t n, size_t i)                   \
	{                                                                                  \
		const T *t24 = (const T *)t->tbl24, *t8 = (const T *)t->tbl8;              \
		for (size_t k = i; k < n && k < i + PF_DIST; k++)                          \
			__builtin_prefetch(&t24[ips[k][0] << 16 | ips[k][1] << 8 | ips[k][2]]); \
		for (; i < n; i++) {                                                       \
			const uint8_t *a = ips[i];                                         \
			if (i + PF_DIST < n) {                                             \
				const uint8_t *p = ips[i + PF_DIST];                       \
				__builtin_prefetch(&t24[p[0] << 16 | p[1] << 8 | p[2]]);   \
			}                                                                  \
			uint64_t e = FIB_LD_ACQ(&t24[a[0] << 16 | a[1] << 8 | a[2]]);      \
			for (unsigned k = 3; e & 1; k++)                                   \
				e = FIB_LD_ACQ(&t8[(size_t)(e >> 1) * TRIE6_GROUP + a[k]]); \
			fib_st64(&nhs[i], e >> 1);                                             \
		}                                                                          \
	}
SCALAR_LOOKUP(uint16_t)
SCALAR_LOOKUP(uint32_t)
SCALAR_LOOKUP(uint64_t)

/* Vector loops: prefetch the tbl24 entries of addresses [i, i + cnt) (entry
 * size sc); without it the avx2 and 8-byte avx512 loops were slower than the
 * scalar one on random addresses (a TLB and cache miss per gather lane). */
static inline __attribute__((always_inline)) void
prefetch24(const void *t24, unsigned sc, const uint8_t (*ips)[16], size_t i, size_t cnt)
{
	for (size_t q = i; q < i + cnt; q++)
		__builtin_prefetch((const char *)t24 + (size_t)(ips[q][0] << 16 | ips[q][1] << 8 | ips[q][2]) * sc);
}

/* A variant's lookups: its vector loop V (returns how many it did), then the scalar walk. */
#define TRIE6_LOOKUP(T, V)                                                                 \
	static void VPK_FN(lookup_##T)(const struct trie6 *t, const uint8_t (*ips)[16], uint64_t *nhs, size_t n) \
	{                                                                                  \
		scalar_##T(t, ips, nhs, n, V(t, ips, nhs, n));                             \
	}
#define TRIE6_NO_VEC(t, ips, nhs, n) 0
#define TRIE6_IMPL(width, V2, V4, V8)                                                      \
	TRIE6_LOOKUP(uint16_t, V2)                                                         \
	TRIE6_LOOKUP(uint32_t, V4)                                                         \
	TRIE6_LOOKUP(uint64_t, V8)                                                         \
	const struct trie6_impl VPK_FN(vpk_trie6_impl) = {                                 \
		.impl = VPK_IMPL_INIT(width),                                              \
		.lookup = { VPK_FN(lookup_uint16_t), VPK_FN(lookup_uint32_t), VPK_FN(lookup_uint64_t) }, \
	}

#endif
