/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 checksum: the implementation table of the batch verifier, its getter,
 * and the scalar helpers (full checksum, RFC 1624 incremental update) used
 * by rewrite nodes and tests.
 */
#include <errno.h>

#include "core/registry.h"
#include "pkt/ip4_csum.h"

VPK_KERNEL_TABLE(ip4_csum_impls, ip4_csum, ip4_csum, base);

VPK_KERNEL_REGISTER(ip4_csum, "ip4-csum-check", "IPv4 header checksum verification over a batch",
		    ip4_csum_impls);

int
vpk_ip4_csum_check_get(enum vpk_isa isa, vpk_ip4_csum_check_fn *fn, const struct vpk_impl **impl)
{
	const struct vpk_impl *pick;
	int rc = fn != NULL ? vpk_impl_pick(ip4_csum_impls, isa, &pick) : -EINVAL;

	if (rc != 0)
		return rc;
	*fn = ((const struct ip4_csum_impl *)pick)->check_bulk;
	if (impl != NULL)
		*impl = pick;
	return 0;
}

uint16_t
vpk_ip4_csum(const void *hdr, size_t len)
{
	const uint8_t *h = hdr;
	uint32_t sum = 0;

	for (size_t k = 0; k + 1 < len; k += 2) {
		if (k == 10)
			continue;       /* the checksum field counts as zero */
		sum += (uint32_t)(h[k] << 8 | h[k + 1]);
	}
	if (len & 1)
		sum += (uint32_t)h[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffffu) + (sum >> 16);
	sum = ~sum & 0xffffu;
	/* Network order: high byte first in memory. */
	return (uint16_t)(((sum & 0xff) << 8) | (sum >> 8));
}

uint16_t
vpk_csum_update16(uint16_t csum, uint16_t old_word, uint16_t new_word)
{
	/* Work in network order throughout: one's complement sums are byte-order free. */
	uint32_t sum = (uint16_t)~csum;

	sum += (uint16_t)~old_word;
	sum += new_word;
	sum = (sum & 0xffffu) + (sum >> 16);
	sum = (sum & 0xffffu) + (sum >> 16);
	return (uint16_t)~sum;
}
