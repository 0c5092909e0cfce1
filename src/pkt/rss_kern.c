/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Toeplitz hash by byte tables, compiled once per ISA.
 *
 * The hash is linear over GF(2): a tuple's hash is the XOR of the
 * contributions of its bytes, and byte i with value v contributes
 * lut[i][v] (rss.c precomputes len x 256 words). The scalar build does one
 * lookup per byte; vector builds put one tuple per lane and gather
 * lut[i][byte i] for all lanes at once (vpgatherdd; emulated on SSE4.2),
 * so 16 tuples take len gathers on AVX-512.
 *
 * Tail policy: whole vectors, then the scalar loop (the scalar variant).
 */
#include "pkt/rss.h"
#include "simd/vec.h"

static void
VPK_FN(rss_hash_bulk)(const struct vpk_rss *r, const uint8_t *tuples, size_t stride, uint32_t *hash,
		      size_t n)
{
	size_t p = 0;

#if VPK_VEC_BITS
	for (; p + VPK_U32_LANES <= n; p += VPK_U32_LANES) {
		const uint8_t *t = tuples + p * stride;
		u32v h = u32v_splat(0);

		for (size_t i = 0; i < r->len; i++)
			h ^= u32v_gather(r->lut[i], u32v_load_bytes_strided(t + i, stride));
		u32v_storeu(hash + p, h);
	}
#endif
	for (; p < n; p++) {
		const uint8_t *t = tuples + p * stride;
		uint32_t h = 0;

		for (size_t i = 0; i < r->len; i++)
			h ^= r->lut[i][t[i]];
		hash[p] = h;
	}
}

const struct rss_impl VPK_FN(rss) = {
	.base = VPK_IMPL_INIT(VPK_VEC_BITS ? VPK_VEC_BITS : 64),
	.hash_bulk = VPK_FN(rss_hash_bulk),
};
