/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoint cache lookup, compiled once per ISA (see ep_cache.h for the
 * layout and the replacement rule). Every variant returns exactly what
 * ep_table_find() returns for each key; the variants differ only in how
 * often they reach the table.
 *
 *   scalar: last_key == k ?                          (1 compare)
 *   SIMD:   last_key == k ?  else  any(key[0..7] == k)  (one 8-wide compare)
 *
 * The 8-wide compare: AVX-512 _mm512_cmpeq_epi64_mask (one instruction, a
 * k-mask), AVX2 two _mm256_cmpeq_epi64 + movemask_pd, SSE4.2 four
 * _mm_cmpeq_epi64 + movemask_pd. The lowest matching way wins (keys in the
 * cache are distinct anyway: a key is inserted only after it missed).
 */
#include "tunnel/ep_cache.h"

#if VPK_VEC_BITS > 0
#include <immintrin.h>
#endif

#if VPK_VEC_BITS >= 512
static inline __attribute__((always_inline)) unsigned
ways_match(const struct ep_cache *c, uint64_t k)
{
	return _mm512_cmpeq_epi64_mask(_mm512_load_si512((const void *)c->key),
				       _mm512_set1_epi64((long long)k));
}
#elif VPK_VEC_BITS >= 256
static inline __attribute__((always_inline)) unsigned
ways_match(const struct ep_cache *c, uint64_t k)
{
	__m256i s = _mm256_set1_epi64x((long long)k);
	__m256i a = _mm256_cmpeq_epi64(_mm256_load_si256((const __m256i *)c->key), s);
	__m256i b = _mm256_cmpeq_epi64(_mm256_load_si256((const __m256i *)(c->key + 4)), s);

	return (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(a)) |
	       (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(b)) << 4;
}
#elif VPK_VEC_BITS >= 128
static inline __attribute__((always_inline)) unsigned
ways_match(const struct ep_cache *c, uint64_t k)
{
	__m128i s = _mm_set1_epi64x((long long)k);
	unsigned m = 0;

	for (unsigned i = 0; i < 4; i++) {
		__m128i e = _mm_cmpeq_epi64(_mm_load_si128((const __m128i *)(c->key + 2 * i)), s);

		m |= (unsigned)_mm_movemask_pd(_mm_castsi128_pd(e)) << (2 * i);
	}
	return m;
}
#endif

static void
VPK_FN(ep_cache_lookup_bulk)(struct ep_cache *c, const struct ep_table *t, const uint64_t *keys,
			     uint32_t *out, uint32_t n)
{
	uint64_t last = c->last_key, misses = 0;
	uint32_t last_val = c->last_val;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t k = keys[i];
		uint32_t v;

		if (k == last) {
			out[i] = last_val;
			continue;
		}
#if VPK_VEC_BITS > 0
		{
			unsigned m = ways_match(c, k);

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
#if VPK_VEC_BITS > 0
		c->key[c->next] = k;
		c->val[c->next] = v;
		c->next = (c->next + 1) & (EP_CACHE_WAYS - 1);
#endif
	}
	c->last_key = last;
	c->last_val = last_val;
	c->lookups += n;
	c->misses += misses;
}

const struct ep_cache_impl VPK_FN(ep_cache) = {
	.base = VPK_IMPL_INIT(VPK_VEC_BITS ? VPK_VEC_BITS : 64),
	.lookup_bulk = VPK_FN(ep_cache_lookup_bulk),
};
