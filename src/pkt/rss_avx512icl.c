/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Toeplitz hash with GFNI (avx512icl level), 64 tuples per step.
 *
 * Byte i of a tuple contributes to output byte m of the hash through a fixed
 * 8x8 bit matrix made of key bits (rss.c builds mat[i][m]). vgf2p8affineqb
 * applies one such matrix to 64 bytes at once, so with the tuples transposed
 * into byte planes (plane i = byte i of 64 tuples) a 12-byte IPv4 tuple
 * costs 48 affine steps and 48 XORs per 64 packets:
 *
 *   acc[m] ^= gf2p8affine(plane[i], broadcast(mat[i][m]))   for i < len, m < 4
 *   hash[p] = acc[0][p] << 24 | acc[1][p] << 16 | acc[2][p] << 8 | acc[3][p]
 *
 * A short last block is zero-padded (zero bytes contribute nothing) and only
 * its real results are stored. Results equal the scalar variant's exactly.
 */
#include <immintrin.h>
#include <string.h>

#include "pkt/rss.h"

static void
rss_hash_bulk_avx512icl(const struct vpk_rss *r, const uint8_t *tuples, size_t stride,
			uint32_t *hash, size_t n)
{
	uint8_t plane[VPK_RSS_MAX_LEN][64] __attribute__((aligned(64)));
	uint8_t out[4][64] __attribute__((aligned(64)));

	for (size_t base = 0; base < n; base += 64) {
		size_t cnt = n - base < 64 ? n - base : 64;
		__m512i acc[4];

		if (cnt < 64)
			memset(plane, 0, sizeof(plane));
		for (size_t p = 0; p < cnt; p++) {
			const uint8_t *t = tuples + (base + p) * stride;

			for (size_t i = 0; i < r->len; i++)
				plane[i][p] = t[i];
		}
		for (unsigned m = 0; m < 4; m++)
			acc[m] = _mm512_setzero_si512();
		for (size_t i = 0; i < r->len; i++) {
			__m512i x = _mm512_load_si512(plane[i]);

			for (unsigned m = 0; m < 4; m++)
				acc[m] = _mm512_xor_si512(acc[m], _mm512_gf2p8affine_epi64_epi8(
					x, _mm512_set1_epi64((long long)r->mat[i][m]), 0));
		}
		for (unsigned m = 0; m < 4; m++)
			_mm512_store_si512(out[m], acc[m]);
		for (size_t p = 0; p < cnt; p++)
			hash[base + p] = (uint32_t)out[0][p] << 24 | (uint32_t)out[1][p] << 16 |
					 (uint32_t)out[2][p] << 8 | out[3][p];
	}
}

const struct rss_impl rss_avx512icl = {  /* hand-written: GFNI, a different algorithm */
	.base = { .name = "avx512icl", .isa = VPK_ISA_AVX512ICL, .width = 512 },
	.hash_bulk = rss_hash_bulk_avx512icl,
};
