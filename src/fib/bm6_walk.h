/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_FIB_BM6_WALK_H
#define VPK_FIB_BM6_WALK_H

/*
 * The scalar walks of bm6 (bm6.h layout), included by each per-ISA file
 * (bm6_kern.c: scalar and sse42; bm6_avx2.c; bm6_avx512.c): every variant
 * ends in the same scalar loop, and the vector ones park their last deep
 * lanes in TAIL(). BM6_IMPL() defines a file's impl from its vector loops.
 */
#include <string.h>

#include "core/kern.h"
#include "fib/bm6.h"
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

/*
 * One step at byte k >= BM6_DIRECT_DEEP of the address ip (k advanced past
 * the node's bytes): a direct node's entry, or a skip node's X (the address
 * holds its chain: k advances by s) or L (bm6.h).
 */
#define STEPDEEP(T, A, e, ip, k)                                                           \
	({                                                                                 \
		const uint8_t *h_ = (A) + (size_t)((e) >> 2) * 64;                         \
		T d_;                                                                      \
		if ((e) & 2) {                                                             \
			d_ = FIB_LD_ACQ((const T *)(const void *)h_ + (ip)[k]);            \
			(k)++;                                                             \
		} else {                                                                   \
			const uint64_t *q_ = (const uint64_t *)(const void *)h_;           \
			uint64_t a0_, a1_;                                                 \
			memcpy(&a0_, (ip), 8);                                             \
			memcpy(&a1_, (ip) + 8, 8);                                         \
			uint64_t x_ = ((a0_ & FIB_LD(&q_[2])) ^ FIB_LD(&q_[0])) |          \
				      ((a1_ & FIB_LD(&q_[3])) ^ FIB_LD(&q_[1]));           \
			uint64_t xv_ = FIB_LD_ACQ(&q_[BM6_SKIP_X / 8]), lv_ = FIB_LD(&q_[BM6_SKIP_L / 8]); \
			d_ = (T)(x_ == 0 ? xv_ : lv_);     /* both loaded: no branch on the address */ \
			(k) += FIB_LD(h_ + BM6_SKIP_S);                                    \
		}                                                                          \
		d_;                                                                        \
	})

/* One step from byte k (k advanced) of a walk begun by gathers; the node may be direct (bit 1; a branch). */
#define STEPK(T, A, e, ip, k)                                                              \
	({                                                                                 \
		T s_;                                                                      \
		if ((k) >= BM6_DIRECT_DEEP) {                                              \
			s_ = STEPDEEP(T, A, e, ip, k);                                     \
		} else {                                                                   \
			s_ = STEP2(T, A, e, (ip)[k], HDR_GATHERED);                        \
			(k)++;                                                             \
		}                                                                          \
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
			for (unsigned k = 2; (any & 1) && k < BM6_DIRECT_DEEP; k++) {      \
				any = 0;                                                   \
				for (unsigned l = 0; l < SB; l++)                          \
					if (e[l] & 1) {                                    \
						e[l] = STEP2(T, A, e[l], ips[i + l][k], HDR_SCALAR); \
						any |= (unsigned)e[l];                     \
					}                                                  \
			}                                                                  \
			/* from byte 6 on, each lane at its own byte (skip nodes) */       \
			unsigned kk[SB];                                                   \
			for (unsigned l = 0; l < SB; l++)                                  \
				kk[l] = BM6_DIRECT_DEEP;                                   \
			while (any & 1) {                                                  \
				any = 0;                                                   \
				for (unsigned l = 0; l < SB; l++)                          \
					if (e[l] & 1) {                                    \
						e[l] = STEPDEEP(T, A, e[l], ips[i + l], kk[l]); \
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
			unsigned k = 2;                                                    \
			for (; (e & 1) && k < BM6_DIRECT_DEEP; k++)                        \
				e = STEP2(T, A, e, a[k], HDR_SCALAR);                      \
			while (e & 1)                                                      \
				e = STEPDEEP(T, A, e, a, k);                               \
			fib_st64(&nhs[i], (uint64_t)(e >> 1));                                 \
		}                                                                          \
	}
SCALAR_LOOKUP(uint32_t)
SCALAR_LOOKUP(uint64_t)

/*
 * Tails of the vector blocks: once few lanes of a block continue (at most
 * BM6_TAIL_N, from level BM6_TAIL_LV), or the block reaches byte
 * BM6_DIRECT_DEEP (skip nodes: each lane at its own byte from there), the
 * block stops and its lanes are parked (entry e[p], next byte k[p], bit p
 * of m; `pos` maps p to the address index in the group); after the group's vector walk the parked
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
				unsigned p = (unsigned)__builtin_ctzll(x), kp = k[p];      \
				e[p] = STEPK(T, A, e[p], ips[pos(p)], kp);                 \
				k[p] = (uint8_t)kp;                                        \
				left |= (uint64_t)(e[p] & 1) << p;                         \
			}                                                                  \
			m = left;                                                          \
		}                                                                          \
	}

#define NB 4    /* vector blocks interleaved */

/*
 * A variant's lookups: its vector loop V (returns how many it did), then the
 * scalar loop. Named lookup_<T>_<isa>; a file whose impl is one of several of
 * its ISA defines BM6_LOOKUP_FN first, so that its functions have names of
 * their own (vpk scan, test fib_width).
 */
#ifndef BM6_LOOKUP_FN
#define BM6_LOOKUP_FN(T) VPK_FN(lookup_##T)
#endif
#define BM6_LOOKUP(T, V)                                                                   \
	static void BM6_LOOKUP_FN(T)(const struct bm6 *b, const uint8_t (*ips)[16], uint64_t *nhs, size_t n) \
	{                                                                                  \
		scalar_##T(b, ips, nhs, n, V(b, ips, nhs, n));                             \
	}
#define BM6_NO_VEC(b, ips, nhs, n) 0
/* The impl object OBJ (initializer INIT) of a file's lookups; BM6_IMPL: the ISA's own one. */
#define BM6_IMPL_AS(obj, init, V4, V8)                                                     \
	BM6_LOOKUP(uint32_t, V4)                                                           \
	BM6_LOOKUP(uint64_t, V8)                                                           \
	const struct bm6_impl obj = {                                                      \
		.impl = init,                                                              \
		.lookup = { BM6_LOOKUP_FN(uint32_t), BM6_LOOKUP_FN(uint64_t) },            \
	}
#define BM6_IMPL(width, V4, V8) BM6_IMPL_AS(VPK_FN(vpk_bm6_impl), VPK_IMPL_INIT(width), V4, V8)

#endif
