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
 * One header: the tail of every variant. Sums 32-bit little-endian loads as
 * two 16-bit halves each: the one's complement sum does not depend on byte
 * order (RFC 1071 §2(B)), and 0xffff is the same in both orders.
 */
static inline __attribute__((always_inline)) uint8_t
ip4_csum_ok_one(const uint8_t *h)
{
	unsigned ihl = h[0] & 0x0fu, words = ihl < 5 ? 5 : ihl;
	uint32_t sum = 0, w;

	for (unsigned k = 0; k < words; k++) {
		memcpy(&w, h + 4 * k, 4);
		sum += (w & 0xffffu) + (w >> 16);
	}
	sum = (sum & 0xffffu) + (sum >> 16);
	sum = (sum & 0xffffu) + (sum >> 16);
	return (uint8_t)(ihl >= 5 && sum == 0xffffu);
}

#endif
