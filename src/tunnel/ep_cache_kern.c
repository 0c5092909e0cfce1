/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoint cache lookup, compiled once per ISA (see ep_cache.h for the
 * layout and the replacement rule). Every variant returns exactly what
 * ep_table_find() returns for each key; the variants differ only in how
 * often they reach the table.
 *
 *   scalar, sse42: last_key == k ?                          (1 compare)
 *   avx2 / avx512: blocks of VPK_U64_LANES (4 / 8) packets against the 8
 *                  ways held as broadcasts (8 compares + 8 blends per
 *                  block, branch-free), then the lanes that hit no way, and
 *                  the tail, per packet:
 *                  last_key == k ?  else  any(key[0..7] == k)  else table
 *
 * Written once over simd/vec.h: the 8 ways are EP_CACHE_WAYS /
 * VPK_U64_LANES u64v registers (AVX-512: one, compared into a k-mask;
 * AVX2: two, vpcmpeqq + movmskpd). The lowest matching way wins (keys in
 * the cache are distinct anyway: a key is inserted only after it missed).
 * SSE4.2 keeps the 1-entry cache: an 8-way form (four _mm_cmpeq_epi64 +
 * movemask_pd) measured 5.0 cycles/packet against 3.3 for the 1-entry
 * cache + table probe on 2-8 endpoints (`vpk bench vxlan`,
 * docs/tunnels.md).
 */
#include <stdbool.h>

#include "simd/vec.h"
#include "tunnel/ep_cache.h"

/* A key the cache does not hold: the table's value into *out; true when it is worth caching. */
static inline __attribute__((always_inline)) bool
ep_miss(const struct ep_table *t, uint64_t k, uint32_t *out, uint64_t *misses)
{
	(*misses)++;
	*out = ep_table_find(t, k);
	return *out != EP_NONE;         /* unknown keys are not cached (VPP: FAIL not inserted) */
}

/* The 1-entry cache: keys[i..n), last key / value in *last / *last_val; returns the table lookups. */
static inline __attribute__((always_inline)) uint64_t
one_entry(const struct ep_table *t, const uint64_t *keys, uint32_t *out, uint32_t i, uint32_t n, uint64_t *last,
	  uint32_t *last_val)
{
	uint64_t misses = 0, lk = *last;
	uint32_t lv = *last_val;

	for (; i < n; i++) {
		uint64_t k = keys[i];

		if (k == lk) {
			out[i] = lv;
			continue;
		}
		if (!ep_miss(t, k, &out[i], &misses))
			continue;
		lk = k;
		lv = out[i];
	}
	*last = lk;
	*last_val = lv;
	return misses;
}

#if VPK_VEC_BITS >= 256
#define EP_REGS (EP_CACHE_WAYS / VPK_U64_LANES)

/*
 * The 8 cached keys live in registers for the whole call (loaded once,
 * stored once): an insert followed by a full-width reload would stall on
 * store forwarding (a 64-byte load over a fresh 8-byte store) every time
 * the cache misses, e.g. with more than 8 interleaved endpoints.
 */
struct creg { u64v k[EP_REGS]; };

extern const struct ep_cache_impl ep_cache_scalar;      /* the 1-entry cache, run while thrashing */

static inline __attribute__((always_inline)) void
creg_load(struct creg *r, const struct ep_cache *c)
{
	for (unsigned j = 0; j < EP_REGS; j++)
		r->k[j] = u64v_loadu(c->key + j * VPK_U64_LANES);
}

static inline __attribute__((always_inline)) void
creg_store(const struct creg *r, struct ep_cache *c)
{
	for (unsigned j = 0; j < EP_REGS; j++)
		u64v_storeu(c->key + j * VPK_U64_LANES, r->k[j]);
}

/* Bit w set when way w holds @k. */
static inline __attribute__((always_inline)) unsigned
creg_match(const struct creg *r, uint64_t k)
{
	u64v s = u64v_splat(k);
	unsigned m = 0;

	for (unsigned j = 0; j < EP_REGS; j++)
		m |= m64v_bits(u64v_eq(r->k[j], s)) << (j * VPK_U64_LANES);
	return m;
}

static inline __attribute__((always_inline)) void
creg_insert(struct creg *r, unsigned way, uint64_t k)
{
	u64v s = u64v_splat(k), w = u64v_splat(way);

	for (unsigned j = 0; j < EP_REGS; j++)
		r->k[j] = u64v_blend(u64v_eq(u64v_iota() + j * VPK_U64_LANES, w), s, r->k[j]);
}

/*
 * The lanes of the block at keys[i] that hit no way (bit l of @p miss: key
 * i + l), resolved in order exactly like the per-packet loop: the cache
 * again (an earlier lane may just have inserted the key), then the table
 * and an insert. Returns the table lookups.
 */
static inline __attribute__((always_inline)) uint64_t
miss_lanes(struct ep_cache *c, const struct ep_table *t, const uint64_t *keys, uint32_t *out, uint32_t i,
	   unsigned miss, struct creg *r, unsigned *next)
{
	uint64_t misses = 0;
	unsigned nx = *next;

	for (; miss != 0; miss &= miss - 1) {
		uint32_t j = i + (uint32_t)__builtin_ctz(miss), v;
		unsigned m = creg_match(r, keys[j]);

		if (m != 0) {
			out[j] = c->val[__builtin_ctz(m)];
			continue;
		}
		misses++;
		v = ep_table_find(t, keys[j]);
		out[j] = v;
		if (v == EP_NONE)
			continue;
		creg_insert(r, nx, keys[j]);
		c->val[nx] = v;
		nx = (nx + 1) & (EP_CACHE_WAYS - 1);
	}
	*next = nx;
	return misses;
}

/* Miss rate over >= EP_PROBE_KEYS keys (short calls summed) above 8 in 32: thrashing. */
static inline __attribute__((always_inline)) void
probe_update(struct ep_cache *c, uint32_t n, uint64_t misses)
{
	c->probe_n += n;
	c->probe_miss += (uint32_t)misses;
	if (c->probe_n >= EP_PROBE_KEYS) {
		if (c->cold == 0 && (uint64_t)c->probe_miss * EP_PROBE_KEYS > (uint64_t)EP_PROBE_MISSES * c->probe_n)
			c->cold = EP_COLD_CALLS;
		c->probe_n = c->probe_miss = 0;
	}
}

/* The 8 ways as broadcasts: key w in every lane of bk[w], its value in every lane of bv[w]. */
static inline __attribute__((always_inline)) void
bcast_ways(const struct ep_cache *c, u64v *bk, u64v *bv)
{
#pragma GCC unroll 8
	for (unsigned w = 0; w < EP_CACHE_WAYS; w++) {
		bk[w] = u64v_splat(c->key[w]);
		bv[w] = u64v_splat(c->val[w]);
	}
}

/*
 * Whole blocks of VPK_U64_LANES keys from keys[0]: each against the 8 ways
 * as broadcasts (8 compares and 8 blends of the way's value, no branch
 * per packet); the lanes that hit no way are then resolved in order
 * (miss_lanes()) and the broadcasts rebuilt after inserts. Stops early at
 * key EP_PROBE_KEYS when more than EP_PROBE_MISSES missed. Returns the
 * keys done; *misses counts the table lookups.
 */
static inline __attribute__((always_inline)) uint32_t
ways_blocks(struct ep_cache *c, const struct ep_table *t, const uint64_t *keys, uint32_t *out, uint32_t n,
	    struct creg *r, unsigned *next, uint64_t *misses)
{
	const unsigned all = (1u << VPK_U64_LANES) - 1;
	u64v bk[EP_CACHE_WAYS], bv[EP_CACHE_WAYS];
	uint32_t i = 0;

	if (n < VPK_U64_LANES)
		return 0;
	creg_store(r, c);
	bcast_ways(c, bk, bv);
	for (; i + VPK_U64_LANES <= n; i += VPK_U64_LANES) {
		u64v kv = u64v_loadu(keys + i), ov = u64v_splat(EP_NONE);
		m64v hit = u64v_eq(kv, bk[0]);
		unsigned hm;

		if (i == EP_PROBE_KEYS && *misses > EP_PROBE_MISSES)
			break;
		ov = u64v_blend(hit, bv[0], ov);
#pragma GCC unroll 8
		for (unsigned w = 1; w < EP_CACHE_WAYS; w++) {
			m64v m = u64v_eq(kv, bk[w]);

			ov = u64v_blend(m, bv[w], ov);
			hit |= m;
		}
		u64v_store_low32(out + i, ov);
		hm = m64v_bits(hit);
		if (hm == all)
			continue;
		*misses += miss_lanes(c, t, keys, out, i, ~hm & all, r, next);
		creg_store(r, c);
		bcast_ways(c, bk, bv);
	}
	return i;
}

/* The 8-way cache over a whole call (the per-packet path after the blocks), then the thrashing probe. */
static inline __attribute__((always_inline)) void
ways_lookup(struct ep_cache *c, const struct ep_table *t, const uint64_t *keys, uint32_t *out, uint32_t n)
{
	uint64_t last = c->last_key, misses = 0;
	uint32_t last_val = c->last_val, i;
	unsigned next = c->next;
	struct creg r;

	creg_load(&r, c);
	i = ways_blocks(c, t, keys, out, n, &r, &next, &misses);
	if (i == EP_PROBE_KEYS && i < n && misses > EP_PROBE_MISSES) {
		c->cold = EP_COLD_CALLS;
		misses += one_entry(t, keys, out, i, n, &last, &last_val);
		i = n;
	}
	for (; i < n; i++) {
		uint64_t k = keys[i];
		unsigned m;

		if (k == last) {
			out[i] = last_val;
			continue;
		}
		m = creg_match(&r, k);
		if (m != 0) {
			last = k;
			last_val = out[i] = c->val[__builtin_ctz(m)];
			continue;
		}
		if (!ep_miss(t, k, &out[i], &misses))
			continue;
		last = k;
		last_val = c->val[next] = out[i];
		creg_insert(&r, next, k);
		next = (next + 1) & (EP_CACHE_WAYS - 1);
	}
	creg_store(&r, c);
	c->next = next;
	probe_update(c, n, misses);
	c->last_key = last;
	c->last_val = last_val;
	c->lookups += n;
	c->misses += misses;
}
#endif

static void
VPK_FN(ep_cache_lookup_bulk)(struct ep_cache *c, const struct ep_table *t, const uint64_t *keys,
			     uint32_t *out, uint32_t n)
{
	uint64_t last = c->last_key, misses;
	uint32_t last_val = c->last_val;

#if VPK_VEC_BITS >= 256
	if (c->cold == 0) {
		ways_lookup(c, t, keys, out, n);
		return;
	}
	c->cold--;              /* thrashing: the scalar variant itself for a while */
	ep_cache_scalar.lookup_bulk(c, t, keys, out, n);
	return;
#endif
	misses = one_entry(t, keys, out, 0, n, &last, &last_val);
	c->last_key = last;
	c->last_val = last_val;
	c->lookups += n;
	c->misses += misses;
}

const struct ep_cache_impl VPK_FN(ep_cache) = {
	.base = VPK_IMPL_INIT(VPK_VEC_BITS ? VPK_VEC_BITS : 64),
	.lookup_bulk = VPK_FN(ep_cache_lookup_bulk),
};
