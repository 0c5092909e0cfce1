/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoint cache lookup, compiled once per ISA (see ep_cache.h for the
 * layout and the replacement rule). Every variant returns exactly what
 * ep_table_find() returns for each key; the variants differ only in how
 * often they reach the table.
 *
 *   scalar, sse42: last_key == k ?                          (1 compare)
 *   avx2 / avx512: blocks of 4 / 8 packets against the 8 ways held as
 *                  broadcasts (8 compares + 8 blends per block, branch-free),
 *                  then the lanes that hit no way, and the tail, per packet:
 *                  last_key == k ?  else  any(key[0..7] == k)  else table
 *
 * The 8-wide compare: AVX-512 _mm512_cmpeq_epi64_mask (one instruction, a
 * k-mask), AVX2 two _mm256_cmpeq_epi64 + movemask_pd. The lowest matching
 * way wins (keys in the cache are distinct anyway: a key is inserted only
 * after it missed). SSE4.2 keeps the 1-entry cache: an 8-way form (four
 * _mm_cmpeq_epi64 + movemask_pd) measured 5.0 cycles/packet
 * against 3.3 for the 1-entry cache + table probe on 2-8 endpoints
 * (`vpk bench vxlan`, docs/tunnels.md).
 */
#include "tunnel/ep_cache.h"

#if VPK_VEC_BITS > 0
#include <immintrin.h>
#endif

/*
 * The 8 cached keys live in registers for the whole call (loaded once,
 * stored once): an insert followed by a full-width reload would stall on
 * store forwarding (a 64-byte load over a fresh 8-byte store) every time
 * the cache misses, e.g. with more than 8 interleaved endpoints.
 */
#if VPK_VEC_BITS >= 512
struct creg { __m512i k; };

static inline __attribute__((always_inline)) void
creg_load(struct creg *r, const struct ep_cache *c)
{
	r->k = _mm512_load_si512((const void *)c->key);
}

static inline __attribute__((always_inline)) void
creg_store(const struct creg *r, struct ep_cache *c)
{
	_mm512_store_si512((void *)c->key, r->k);
}

static inline __attribute__((always_inline)) unsigned
creg_match(const struct creg *r, uint64_t k)
{
	return _mm512_cmpeq_epi64_mask(r->k, _mm512_set1_epi64((long long)k));
}

static inline __attribute__((always_inline)) void
creg_insert(struct creg *r, unsigned way, uint64_t k)
{
	r->k = _mm512_mask_set1_epi64(r->k, (__mmask8)(1u << way), (long long)k);
}
#elif VPK_VEC_BITS >= 256
struct creg { __m256i k[2]; };

static inline __attribute__((always_inline)) void
creg_load(struct creg *r, const struct ep_cache *c)
{
	r->k[0] = _mm256_load_si256((const __m256i *)c->key);
	r->k[1] = _mm256_load_si256((const __m256i *)(c->key + 4));
}

static inline __attribute__((always_inline)) void
creg_store(const struct creg *r, struct ep_cache *c)
{
	_mm256_store_si256((__m256i *)c->key, r->k[0]);
	_mm256_store_si256((__m256i *)(c->key + 4), r->k[1]);
}

static inline __attribute__((always_inline)) unsigned
creg_match(const struct creg *r, uint64_t k)
{
	__m256i s = _mm256_set1_epi64x((long long)k);

	return (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(r->k[0], s))) |
	       (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(r->k[1], s))) << 4;
}

static inline __attribute__((always_inline)) void
creg_insert(struct creg *r, unsigned way, uint64_t k)
{
	__m256i s = _mm256_set1_epi64x((long long)k), w = _mm256_set1_epi64x(way);
	__m256i m0 = _mm256_cmpeq_epi64(_mm256_setr_epi64x(0, 1, 2, 3), w);
	__m256i m1 = _mm256_cmpeq_epi64(_mm256_setr_epi64x(4, 5, 6, 7), w);

	r->k[0] = _mm256_blendv_epi8(r->k[0], s, m0);
	r->k[1] = _mm256_blendv_epi8(r->k[1], s, m1);
}
#endif

#if VPK_VEC_BITS >= 256
/* The 1-entry cache: keys[i..n), last key / value in *last / *last_val; returns the table lookups. */
static inline __attribute__((always_inline)) uint64_t
one_entry(const struct ep_table *t, const uint64_t *keys, uint32_t *out, uint32_t i, uint32_t n, uint64_t *last,
	  uint32_t *last_val)
{
	uint64_t misses = 0, lk = *last;
	uint32_t lv = *last_val;

	for (; i < n; i++) {
		uint64_t k = keys[i];
		uint32_t v;

		if (k == lk) {
			out[i] = lv;
			continue;
		}
		misses++;
		v = ep_table_find(t, k);
		out[i] = v;
		if (v == EP_NONE)
			continue;       /* unknown keys are not cached (VPP: FAIL not inserted) */
		lk = k;
		lv = v;
	}
	*last = lk;
	*last_val = lv;
	return misses;
}

extern const struct ep_cache_impl ep_cache_scalar;      /* the 1-entry cache, run while thrashing */

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
#endif

#if VPK_VEC_BITS >= 512
/* The 8 ways as broadcasts: key w in every lane of bk[w], its value in every lane of bv[w]. */
static inline __attribute__((always_inline)) void
bcast_ways(const struct ep_cache *c, __m512i *bk, __m256i *bv)
{
#pragma GCC unroll 8
	for (unsigned w = 0; w < EP_CACHE_WAYS; w++) {
		bk[w] = _mm512_set1_epi64((long long)c->key[w]);
		bv[w] = _mm256_set1_epi32((int)c->val[w]);
	}
}
#elif VPK_VEC_BITS >= 256
/* The 8 ways as broadcasts: key w in every lane of bk[w], its value in every 64-bit lane of bv[w]. */
static inline __attribute__((always_inline)) void
bcast_ways(const struct ep_cache *c, __m256i *bk, __m256i *bv)
{
#pragma GCC unroll 8
	for (unsigned w = 0; w < EP_CACHE_WAYS; w++) {
		bk[w] = _mm256_set1_epi64x((long long)c->key[w]);
		bv[w] = _mm256_set1_epi64x(c->val[w]);
	}
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

	if (c->cold != 0) {             /* thrashing: the scalar variant's 1-entry cache for a while */
		c->cold--;
		ep_cache_scalar.lookup_bulk(c, t, keys, out, n);
		return;
	}
	creg_load(&r, c);
#endif
	uint32_t i = 0;
#if VPK_VEC_BITS >= 512
	/*
	 * AVX-512: 8 packets at a time against the 8 ways held as broadcasts:
	 * 8 compares (8 keys x 1 way each) and 8 masked moves of the way's value
	 * per 8 packets, no per-packet branch. Lanes that hit no way are then
	 * resolved in order (miss_lanes()), and the broadcasts are rebuilt
	 * after inserts.
	 */
	if (n >= 8) {
		__m512i bk[EP_CACHE_WAYS];
		__m256i bv[EP_CACHE_WAYS];

		creg_store(&r, c);
		bcast_ways(c, bk, bv);
		for (; i + 8 <= n; i += 8) {
			__m512i kv = _mm512_loadu_si512((const void *)(keys + i));

			if (i == EP_PROBE_KEYS && misses > EP_PROBE_MISSES)
				break;
			__m256i ov = _mm256_set1_epi32((int)EP_NONE);
			__mmask8 hit = 0;

#pragma GCC unroll 8
			for (unsigned w = 0; w < EP_CACHE_WAYS; w++) {
				__mmask8 m = _mm512_cmpeq_epi64_mask(kv, bk[w]);

				ov = _mm256_mask_mov_epi32(ov, m, bv[w]);
				hit |= m;
			}
			_mm256_storeu_si256((__m256i *)(out + i), ov);
			if (hit == 0xff)
				continue;
			misses += miss_lanes(c, t, keys, out, i, (unsigned)(uint8_t)~hit, &r, &next);
			creg_store(&r, c);
			bcast_ways(c, bk, bv);
		}
	}
#elif VPK_VEC_BITS >= 256
	/* AVX2: the same, 4 packets at a time (64-bit lanes, values packed to 32 bits at the end). */
	if (n >= 4) {
		__m256i bk[EP_CACHE_WAYS], bv[EP_CACHE_WAYS];
		const __m256i pack = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);

		creg_store(&r, c);
		bcast_ways(c, bk, bv);
		for (; i + 4 <= n; i += 4) {
			__m256i kv = _mm256_loadu_si256((const __m256i *)(keys + i));

			if (i == EP_PROBE_KEYS && misses > EP_PROBE_MISSES)
				break;
			__m256i ov = _mm256_set1_epi64x(EP_NONE), hit = _mm256_setzero_si256();
			unsigned hm;

#pragma GCC unroll 8
			for (unsigned w = 0; w < EP_CACHE_WAYS; w++) {
				__m256i m = _mm256_cmpeq_epi64(kv, bk[w]);

				ov = _mm256_blendv_epi8(ov, bv[w], m);
				hit = _mm256_or_si256(hit, m);
			}
			_mm_storeu_si128((__m128i *)(out + i),
					 _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(ov, pack)));
			hm = (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(hit));
			if (hm == 0xf)
				continue;
			misses += miss_lanes(c, t, keys, out, i, ~hm & 0xfu, &r, &next);
			creg_store(&r, c);
			bcast_ways(c, bk, bv);
		}
	}
#endif
#if VPK_VEC_BITS >= 256
	if (i == EP_PROBE_KEYS && i < n && misses > EP_PROBE_MISSES) {
		c->cold = EP_COLD_CALLS;
		misses += one_entry(t, keys, out, i, n, &last, &last_val);
		i = n;
	}
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
	probe_update(c, n, misses);
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
