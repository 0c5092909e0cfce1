/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TUNNEL_EP_CACHE_H
#define VPK_TUNNEL_EP_CACHE_H
/*
 * The VxLAN endpoint check: 64-bit endpoint keys (IPv4: outer SA | outer DA
 * << 32, exact; IPv6: a 64-bit fold of both addresses, verified by the
 * caller) mapped to an endpoint index by an immutable open-addressing table,
 * with a per-node-instance cache in front of it (VPP's vtep4_check /
 * vtep4_check_vector, src/vnet/ip/vtep.h; Intel's AVX-512 case study).
 *
 *   table: keys[mask+1], vals[mask+1]   linear probing, key 0 = empty slot
 *   cache: key[8] | val[8] | last_key last_val | next (round-robin slot)
 *
 * Variants (ep_cache_kern.c, written once over simd/vec.h, compiled per ISA):
 *   scalar, sse42  1 entry (last_key): VPP's pre-2020 behaviour.
 *   avx2/avx512:   the last entry, then 8 x 64-bit keys compared at once
 *                  (2 x vpcmpeqq ymm, 1 x vpcmpeqq zmm -> k mask); a
 *                  miss that the table resolves is inserted at `next`,
 *                  next = (next + 1) & 7 (FIFO, like VPP). AVX-512 resolves 8
 *                  packets at a time against the 8 ways (8 compares + 8 masked
 *                  moves per 8 packets) and only the lanes that hit no way go
 *                  the per-packet path; a lane may so hit a way that an
 *                  earlier lane of its block has just replaced (the value is
 *                  still right: the table does not change), so with > 8
 *                  endpoints it reaches the table less often than strict FIFO.
 * Thrashing (more endpoints interleaved than ways, e.g. 16 round robin):
 * when more than 8 of the first 32 keys of a call (or of consecutive short
 * calls) miss the 8 ways, the
 * AVX2/AVX-512 variants finish the call with the 1-entry cache and run
 * the next EP_COLD_CALLS calls with it (the scalar variant's loop), then
 * try the ways again: the cost of scalar, whatever the number of endpoints.
 * vxlan4-input reads @cold too: while it is set, its AVX2/AVX-512 variants
 * run the scalar variant's node function for the whole frame (and count
 * @cold down per frame).
 * Key 0 is never in the table (the control plane refuses 0.0.0.0 / ::
 * endpoints), so empty cache slots (key 0, val EP_NONE) can "hit" only for
 * a key the table does not have either: the cache never changes a result.
 * The table must not change while a graph uses the cache (the forwarder
 * builds both per run); ep_cache_reset() is the invalidation.
 */
#include <stdint.h>
#include <string.h>

#include "core/kern.h"

#define EP_NONE UINT32_MAX
#define EP_CACHE_WAYS 8u
#define EP_COLD_CALLS 256u
#define EP_PROBE_KEYS 32u
#define EP_PROBE_MISSES 8u

struct ep_table {
	uint64_t *keys;
	uint32_t *vals;
	uint32_t mask;          /* slots - 1 (power of two) */
	uint32_t n;
};

struct ep_cache {
	uint64_t key[EP_CACHE_WAYS];
	uint32_t val[EP_CACHE_WAYS];
	uint64_t last_key;
	uint32_t last_val;
	uint32_t next;
	uint32_t cold;                  /* 8-way variants: calls left in 1-entry mode (thrashing) */
	uint32_t probe_n, probe_miss;   /* keys and misses of short calls, summed up to EP_PROBE_KEYS */
	uint64_t lookups, misses;       /* table lookups done because the cache missed */
} __attribute__((aligned(64)));

/* Keys: a 64-bit mix (splitmix finaliser) picks the home slot. */
static inline __attribute__((always_inline)) uint32_t
ep_slot(uint64_t k, uint32_t mask)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (uint32_t)k & mask;
}

static inline __attribute__((always_inline)) uint32_t
ep_table_find(const struct ep_table *t, uint64_t k)
{
	if (k == 0 || t->n == 0)
		return EP_NONE;
	for (uint32_t s = ep_slot(k, t->mask);; s = (s + 1) & t->mask) {
		if (t->keys[s] == k)
			return t->vals[s];
		if (t->keys[s] == 0)
			return EP_NONE;
	}
}

/* IPv6 endpoint key: fold SA and DA into 64 bits (never 0). */
static inline __attribute__((always_inline)) uint64_t
ep_key6(const uint8_t *sa, const uint8_t *da)
{
	uint64_t w[4], k;

	memcpy(w, sa, 16);
	memcpy(w + 2, da, 16);
	k = (w[0] * 0x9e3779b97f4a7c15ull) ^ (w[1] + 0x7f4a7c159e3779b9ull);
	k = (k ^ (k >> 29)) * 0xbf58476d1ce4e5b9ull;
	k ^= (w[2] * 0xc2b2ae3d27d4eb4full) ^ (w[3] * 0x165667b19e3779f9ull);
	k ^= k >> 31;
	return k ? k : 1;
}

/* One variant: resolve @n keys to endpoint indices (EP_NONE: unknown). */
struct ep_cache_impl {
	struct vpk_impl base;
	void (*lookup_bulk)(struct ep_cache *c, const struct ep_table *t, const uint64_t *keys,
			    uint32_t *out, uint32_t n);
};

VPK_DECLARE_VARIANTS(struct ep_cache_impl, ep_cache);
extern const struct vpk_impl *const ep_cache_impls[];

/* ep_cache.c: build @t from @n distinct non-zero keys (vals = 0..n-1). 0 or -ENOMEM / -EINVAL. */
int vpk_ep_table_build(struct ep_table *t, const uint64_t *keys, uint32_t n);
void vpk_ep_table_free(struct ep_table *t);
void vpk_ep_cache_reset(struct ep_cache *c);

#endif
