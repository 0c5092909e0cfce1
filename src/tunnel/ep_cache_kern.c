/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoint cache lookup, compiled once per ISA (see ep_cache.h for the
 * layout and the replacement rule). Every variant returns exactly what
 * ep_table_find() returns for each key; the variants differ only in how
 * often they reach the table.
 *
 *   scalar, sse42: last_key == k ?                          (1 compare)
 *   avx2 / avx512: blocks of 4 / 8 packets (one u64v of keys, src/simd/vec.h)
 *                  against the 8 ways held as broadcasts (8 compares + 8
 *                  blends per block, branch-free; k-masks and masked moves
 *                  on AVX-512), then the lanes that hit no way, and the
 *                  tail, per packet:
 *                  last_key == k ?  else  any(key[0..7] == k)  else table
 *
 * The lowest matching way wins (keys in the cache are distinct anyway: a
 * key is inserted only after it missed). SSE4.2 keeps the 1-entry cache:
 * an 8-way form (four _mm_cmpeq_epi64 + movemask_pd) measured 5.0
 * cycles/packet against 3.3 for the 1-entry cache + table probe on 2-8
 * endpoints (`vpk bench vxlan`, docs/tunnels.md).
 */
#include "simd/vec.h"
#include "tunnel/ep_cache.h"

#if VPK_VEC_BITS >= 256
#define L VPK_U64_LANES
#define NP (EP_CACHE_WAYS / L)  /* u64v parts of the 8 ways */

/*
 * The 8 cached keys live in registers for the whole call (loaded once,
 * stored once): an insert followed by a full-width reload would stall on
 * store forwarding (a 64-byte load over a fresh 8-byte store) every time
 * the cache misses, e.g. with more than 8 interleaved endpoints.
 */
struct creg { u64v k[NP]; };

static inline __attribute__((always_inline)) void
creg_load(struct creg *r, const struct ep_cache *c)
{
	for (unsigned p = 0; p < NP; p++)
		r->k[p] = u64v_loadu(c->key + p * L);
}

static inline __attribute__((always_inline)) void
creg_store(const struct creg *r, struct ep_cache *c)
{
	for (unsigned p = 0; p < NP; p++)
		u64v_storeu(c->key + p * L, r->k[p]);
}

/* Bit w set where way w holds k. */
static inline __attribute__((always_inline)) unsigned
creg_match(const struct creg *r, uint64_t k)
{
	u64v s = u64v_splat(k);
	unsigned m = 0;

	for (unsigned p = 0; p < NP; p++)
		m |= m64v_bits(u64v_eq(r->k[p], s)) << (p * L);
	return m;
}

static inline __attribute__((always_inline)) void
creg_insert(struct creg *r, unsigned way, uint64_t k)
{
	static const uint64_t iota[EP_CACHE_WAYS] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	u64v s = u64v_splat(k), w = u64v_splat(way);

	for (unsigned p = 0; p < NP; p++)
		r->k[p] = u64v_blend(r->k[p], s, u64v_eq(u64v_loadu(iota + p * L), w));
}

/* The ways as broadcasts: keys and values, one u64v each. */
static inline __attribute__((always_inline)) void
splat_ways(const struct ep_cache *c, u64v *bk, u64v *bv)
{
#pragma GCC unroll 8
	for (unsigned w = 0; w < EP_CACHE_WAYS; w++) {
		bk[w] = u64v_splat(c->key[w]);
		bv[w] = u64v_splat(c->val[w]);
	}
}

/*
 * Blocks of L packets against the 8 ways: 8 compares (L keys x 1 way each)
 * and 8 blends of the way's value per block, no per-packet branch. Lanes
 * that hit no way are then resolved in order exactly like the per-packet
 * loop (cache again, since an earlier lane may just have inserted the key,
 * then table + insert), and the broadcasts are rebuilt after inserts.
 * Returns the packets done; *next and *misses are updated.
 */
static inline __attribute__((always_inline)) uint32_t
blocks(struct ep_cache *c, struct creg *r, const struct ep_table *t, const uint64_t *keys, uint32_t *out,
       uint32_t n, unsigned *next, uint64_t *misses)
{
	u64v bk[EP_CACHE_WAYS], bv[EP_CACHE_WAYS];
	uint32_t i = 0;

	if (n < L)
		return 0;
	creg_store(r, c);
	splat_ways(c, bk, bv);
	for (; i + L <= n; i += L) {
		u64v kv = u64v_loadu(keys + i), ov = u64v_splat(EP_NONE);
		unsigned hit = 0;

#pragma GCC unroll 8
		for (unsigned w = 0; w < EP_CACHE_WAYS; w++) {
			m64v m = u64v_eq(kv, bk[w]);

			ov = u64v_blend(ov, bv[w], m);
			hit |= m64v_bits(m);
		}
		u64v_store_narrow32(out + i, ov);
		if (hit == (1u << L) - 1)
			continue;
		for (unsigned miss = ~hit & ((1u << L) - 1); miss != 0; miss &= miss - 1) {
			uint32_t j = i + (uint32_t)__builtin_ctz(miss), v;
			unsigned m = creg_match(r, keys[j]);

			if (m != 0) {
				out[j] = c->val[__builtin_ctz(m)];
				continue;
			}
			(*misses)++;
			v = ep_table_find(t, keys[j]);
			out[j] = v;
			if (v == EP_NONE)
				continue;
			creg_insert(r, *next, keys[j]);
			c->val[*next] = v;
			*next = (*next + 1) & (EP_CACHE_WAYS - 1);
		}
		creg_store(r, c);
		splat_ways(c, bk, bv);
	}
	return i;
}
#endif

static void
VPK_FN(ep_cache_lookup_bulk)(struct ep_cache *c, const struct ep_table *t, const uint64_t *keys,
			     uint32_t *out, uint32_t n)
{
	uint64_t last = c->last_key, misses = 0;
	uint32_t last_val = c->last_val;
#if VPK_VEC_BITS >= 256
	unsigned next = c->next;
	struct creg r;

	creg_load(&r, c);
#endif
	uint32_t i = 0;
#if VPK_VEC_BITS >= 256
	i = blocks(c, &r, t, keys, out, n, &next, &misses);
#endif
	for (; i < n; i++) {
		uint64_t k = keys[i];
		uint32_t v;

		if (k == last) {
			out[i] = last_val;
			continue;
		}
#if VPK_VEC_BITS >= 256
		{
			unsigned m = creg_match(&r, k);

			if (m != 0) {
				unsigned w = (unsigned)__builtin_ctz(m);

				last = k;
				last_val = out[i] = c->val[w];
				continue;
			}
		}
#endif
		misses++;
		v = ep_table_find(t, k);
		out[i] = v;
		if (v == EP_NONE)
			continue;       /* unknown keys are not cached (VPP: FAIL not inserted) */
		last = k;
		last_val = v;
#if VPK_VEC_BITS >= 256
		creg_insert(&r, next, k);
		c->val[next] = v;
		next = (next + 1) & (EP_CACHE_WAYS - 1);
#endif
	}
#if VPK_VEC_BITS >= 256
	creg_store(&r, c);
	c->next = next;
#endif
	c->last_key = last;
	c->last_val = last_val;
	c->lookups += n;
	c->misses += misses;
}

const struct ep_cache_impl VPK_FN(ep_cache) = {
	.base = VPK_IMPL_INIT(VPK_VEC_BITS ? VPK_VEC_BITS : 64),
	.lookup_bulk = VPK_FN(ep_cache_lookup_bulk),
};
