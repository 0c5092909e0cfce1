/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_PKT_RSS_H
#define VPK_PKT_RSS_H

/* Private: the Toeplitz hasher and its variants. */
#include <vpk/rss.h>
#include "core/kern.h"

struct vpk_rss {
	uint8_t key[VPK_RSS_MAX_LEN + 4];
	size_t len;
	/*
	 * GFNI matrices: mat[i][m] is the 8x8 bit matrix that maps input byte i
	 * to its contribution to output byte m (m = 0 is the hash's top byte).
	 * vgf2p8affineqb computes bit b of a result byte as the parity of
	 * (matrix byte 7-b AND input byte), so row byte 7-b of mat[i][m] holds,
	 * for each input bit k (bit 7-k = the k-th bit in transmission order),
	 * key bit 8i + k + 8m + b (b counting from the byte's MSB).
	 */
	uint64_t mat[VPK_RSS_MAX_LEN][4];
	/* Byte tables: lut[i][b] = the hash contribution of byte value b at position i. */
	uint32_t lut[VPK_RSS_MAX_LEN][256];
	const struct rss_impl *impl;
};

struct rss_impl {
	struct vpk_impl base;
	void (*hash_bulk)(const struct vpk_rss *r, const uint8_t *tuples, size_t stride,
			  uint32_t *hash, size_t n);
};

VPK_DECLARE_VARIANTS(struct rss_impl, rss);
extern const struct vpk_impl *const rss_impls[];

#endif
