/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_PKT_IP4_CSUM_H
#define VPK_PKT_IP4_CSUM_H

/* Private: the IPv4 checksum kernels and the per-header function they share. */
#include <string.h>

#include <vpk/pkt.h>
#include "core/kern.h"

struct ip4_csum_impl {
	struct vpk_impl base;
	vpk_ip4_csum_check_fn check_bulk;
};

VPK_DECLARE_VARIANTS(struct ip4_csum_impl, ip4_csum);
extern const struct vpk_impl *const ip4_csum_impls[];

/*
 * A 20-byte header (IHL 5, the common one) as three loads, x86-64
 * little-endian: byte 0 in the low bits of w01. The fast paths read the
 * header's fields from these words too, so each byte is loaded once.
 */
struct ip4_hdr20 {
	uint64_t w01, w23;      /* bytes 0-7, 8-15 */
	uint32_t w4;            /* bytes 16-19 */
};

static inline __attribute__((always_inline)) struct ip4_hdr20
ip4_hdr20_load(const uint8_t *h)
{
	struct ip4_hdr20 w;

	memcpy(&w.w01, h, 8);
	memcpy(&w.w23, h + 8, 8);
	memcpy(&w.w4, h + 16, 4);
	return w;
}

/* The five 32-bit words summed (< 2^35); options add theirs before ip4_csum_fold(). */
static inline __attribute__((always_inline)) uint64_t
ip4_csum_sum20(const struct ip4_hdr20 *w)
{
	return (w->w01 & 0xffffffffu) + (w->w01 >> 32) + (w->w23 & 0xffffffffu) + (w->w23 >> 32) + w->w4;
}

/*
 * A sum of up to 16 32-bit words folded twice: 2^16 = 1 mod 0xffff, so each
 * fold keeps the sum mod 0xffff of the header's 16-bit words (byte-swapped:
 * RFC 1071 §2(B), the one's complement sum does not depend on byte order),
 * which a good header makes 0. The first fold leaves < 2^16 + 2^20, the
 * second 0 .. 0xffff + 16, where 0xffff is the one nonzero multiple of
 * 0xffff: a header that is not all zero is good exactly when the result is
 * 0xffff.
 */
static inline __attribute__((always_inline)) uint32_t
ip4_csum_fold(uint64_t s)
{
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint32_t)s;
}

/* One header of any IHL: the tail of every variant (IHL < 5: 20 bytes read, not good). */
static inline __attribute__((always_inline)) uint8_t
ip4_csum_ok_one(const uint8_t *h)
{
	struct ip4_hdr20 w = ip4_hdr20_load(h);
	unsigned ihl = h[0] & 0x0fu;
	uint64_t s = ip4_csum_sum20(&w);
	uint32_t x;

	for (const uint8_t *p = h + 20; p < h + 4 * ihl; p += 4) {
		memcpy(&x, p, 4);
		s += x;
	}
	return (uint8_t)(ihl >= 5 && ip4_csum_fold(s) == 0xffffu);
}

#endif
