/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_RSS_H
#define VPK_RSS_H

/**
 * @file
 * Toeplitz hash over packet tuples, as NICs compute it for RSS (Microsoft's
 * "Receive-Side Scaling" specification). vpk's workers spread flows with it,
 * so a flow stays on one worker, and the hash of a packet equals the one a
 * NIC with the same key would give.
 *
 * Input bytes are hashed in the order given (for IPv4 TCP/UDP: source
 * address, destination address, source port, destination port, all in
 * network order: 12 bytes). The key must be at least len + 4 bytes.
 * Variants: scalar, sse42, avx2, avx512 (per-byte tables: one lookup per
 * tuple byte, gathered for a vector of tuples) and avx512icl (GFNI: each
 * key window is an 8x8 bit matrix applied to 64 packets' bytes at once with
 * vgf2p8affineqb); identical results.
 */
#include <stddef.h>
#include <stdint.h>
#include <vpk/error.h>
#include <vpk/isa.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The 40-byte key of Microsoft's RSS verification suite (and many NIC defaults). */
#define VPK_RSS_KEY_DEFAULT                                                       \
	{ 0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d,     \
	  0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4,     \
	  0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b,     \
	  0xbe, 0xac, 0x01, 0xfa }

/** Longest tuple hashed (IPv6 5-tuple: 16 + 16 + 2 + 2). */
#define VPK_RSS_MAX_LEN 36u

struct vpk_rss;                 /* opaque: key + per-variant precomputed tables */

/** Hasher parameters. Zero-initialise, then set what you need. */
struct vpk_rss_conf {
	const uint8_t *key;     /**< At least len + 4 bytes; copied. */
	size_t key_len;         /**< Its length. */
	size_t len;             /**< Tuple length in bytes, 1..VPK_RSS_MAX_LEN. */
	enum vpk_isa isa;       /**< Variant level (VPK_ISA_AUTO: the best usable). */
};

/**
 * Prepare a hasher for tuples of conf->len bytes.
 * @return 0, -EINVAL (len 0 or > VPK_RSS_MAX_LEN, key too short, NULL),
 *         -ENOMEM, -ENOTSUP (forced conf->isa has no usable variant).
 */
VPK_API int vpk_rss_create(const struct vpk_rss_conf *conf, struct vpk_rss **out);

/** Free (NULL: no-op). */
VPK_API void vpk_rss_destroy(struct vpk_rss *r);

/**
 * Hash @p n tuples: tuple i is the @p len bytes at tuples + i * stride.
 * Never fails; arguments not validated.
 */
VPK_API void vpk_rss_hash_bulk(const struct vpk_rss *r, const uint8_t *tuples, size_t stride,
			       uint32_t *hash, size_t n);

/** Variant chosen at create time. */
VPK_API const char *vpk_rss_impl_name(const struct vpk_rss *r);

/** Plain reference: the Toeplitz hash of one tuple (bit by bit). */
VPK_API uint32_t vpk_rss_hash_one(const uint8_t *key, const uint8_t *tuple, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* VPK_RSS_H */
