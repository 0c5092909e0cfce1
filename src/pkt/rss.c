/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Toeplitz hash (RSS): the reference, the precomputed byte tables (for
 * rss_kern.c's scalar/SSE4.2/AVX2/AVX-512 variants) and GFNI matrices (for
 * rss_avx512icl.c), and the implementation table.
 *
 * Definition: for input bits d_0 d_1 ... (byte 0's MSB first) and key bits
 * k_0 k_1 ..., hash = XOR over set input bits j of the 32-bit key window
 * k_j .. k_{j+31}.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/errf.h"
#include "core/registry.h"
#include "pkt/rss.h"

static inline int
key_bit(const uint8_t *key, size_t j)
{
	return (key[j / 8] >> (7 - j % 8)) & 1;
}

uint32_t
vpk_rss_hash_one(const uint8_t *key, const uint8_t *tuple, size_t len)
{
	uint32_t h = 0;

	for (size_t j = 0; j < 8 * len; j++) {
		if (!((tuple[j / 8] >> (7 - j % 8)) & 1))
			continue;
		for (size_t b = 0; b < 32; b++)
			h ^= (uint32_t)key_bit(key, j + b) << (31 - b);
	}
	return h;
}

VPK_KERNEL_TABLE(rss_impls, rss, rss, base);

VPK_KERNEL_REGISTER(rss, "rss-toeplitz", "Toeplitz hash of packet tuples (RSS, flow to worker)", rss_impls);

static void
build_tables(struct vpk_rss *r)
{
	for (size_t i = 0; i < r->len; i++) {
		for (unsigned v = 0; v < 256; v++) {
			uint32_t h = 0;

			for (unsigned k = 0; k < 8; k++) {
				if (!((v >> (7 - k)) & 1))
					continue;
				for (unsigned b = 0; b < 32; b++)
					h ^= (uint32_t)key_bit(r->key, 8 * i + k + b) << (31 - b);
			}
			r->lut[i][v] = h;
		}
	}
}

static void
build_matrices(struct vpk_rss *r)
{
	for (size_t i = 0; i < r->len; i++) {
		for (unsigned m = 0; m < 4; m++) {
			uint64_t mat = 0;

			for (unsigned b = 0; b < 8; b++) {          /* output bit, MSB first */
				uint8_t row = 0;

				for (unsigned k = 0; k < 8; k++)    /* input bit, MSB first */
					if (key_bit(r->key, 8 * i + k + 8 * m + b))
						row |= (uint8_t)(0x80u >> k);
				/* Output bit b (MSB first) is result bit 7-b, which reads matrix byte b. */
				mat |= (uint64_t)row << (8 * b);
			}
			r->mat[i][m] = mat;
		}
	}
}

int
vpk_rss_create(const struct vpk_rss_conf *conf, struct vpk_rss **out)
{
	const struct vpk_impl *pick;
	struct vpk_rss *r;
	size_t len;
	int rc;

	if (conf == NULL || out == NULL)
		return vpk_seterr(-EINVAL, "rss: NULL argument");
	len = conf->len;
	if (conf->key == NULL || len == 0 || len > VPK_RSS_MAX_LEN || conf->key_len < len + 4)
		return vpk_seterr(-EINVAL, "rss: tuple length %zu not in 1..%u or key of %zu bytes shorter than %zu",
				  len, VPK_RSS_MAX_LEN, conf->key_len, len + 4);
	if ((unsigned)conf->isa >= VPK_ISA_COUNT)
		return vpk_seterr(-EINVAL, "rss: isa %d out of range", (int)conf->isa);
	rc = vpk_impl_pick(rss_impls, conf->isa, &pick);
	if (rc != 0)
		return vpk_seterr(rc, "rss: no usable variant of level %s", vpk_isa_name(conf->isa));
	r = aligned_alloc(64, (sizeof(*r) + 63) / 64 * 64);
	if (r == NULL)
		return -ENOMEM;
	memset(r, 0, sizeof(*r));
	memcpy(r->key, conf->key, len + 4);
	r->len = len;
	r->impl = (const struct rss_impl *)pick;
	build_matrices(r);
	build_tables(r);
	*out = r;
	return 0;
}

void
vpk_rss_destroy(struct vpk_rss *r)
{
	free(r);
}

void
vpk_rss_hash_bulk(const struct vpk_rss *r, const uint8_t *tuples, size_t stride, uint32_t *hash,
		  size_t n)
{
	r->impl->hash_bulk(r, tuples, stride, hash, n);
}

const char *
vpk_rss_impl_name(const struct vpk_rss *r)
{
	return r->impl->base.name;
}
