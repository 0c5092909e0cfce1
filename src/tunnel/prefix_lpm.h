/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TUNNEL_PREFIX_LPM_H
#define VPK_TUNNEL_PREFIX_LPM_H
/*
 * Longest-prefix match for the tunnel steering tables (GTP4.D steering
 * prefixes, VxLAN encap prefixes, End.M.GTP4.E localsid prefixes): prefixes
 * of at most 56 bits, given left-aligned in a 64-bit word (IPv4: the address
 * << 32; IPv6: the first 8 address bytes big-endian).
 *
 * One exact-match hash table (ep_table) keyed by (plen + 1) << 56 | the
 * prefix's bits >> 8, and the distinct prefix lengths longest first: a
 * lookup probes one length after the other and the first hit is the longest
 * match. Cost: one probe per distinct length up to the match (a gateway
 * holds a few lengths), independent of the number of entries. A prefix
 * configured twice resolves to its first entry.
 */
#include <stdint.h>

#include "tunnel/ep_cache.h"

#define TN_LPM_MAX_PLEN 56u

struct tn_lpm {
	struct ep_table t;
	uint8_t plen[TN_LPM_MAX_PLEN + 1];      /* distinct lengths, longest first */
	uint32_t n_plen;
};

static inline __attribute__((always_inline)) uint64_t
tn_lpm_mask(unsigned plen)
{
	return plen == 0 ? 0 : ~0ull << (64 - plen);
}

static inline __attribute__((always_inline)) uint64_t
tn_lpm_key(uint64_t addr, unsigned plen)
{
	return (uint64_t)(plen + 1) << 56 | (addr & tn_lpm_mask(plen)) >> 8;
}

/* Entry index of the longest prefix holding @addr, or EP_NONE. */
static inline __attribute__((always_inline)) uint32_t
tn_lpm_find(const struct tn_lpm *l, uint64_t addr)
{
	for (uint32_t i = 0; i < l->n_plen; i++) {
		uint32_t v = ep_table_find(&l->t, tn_lpm_key(addr, l->plen[i]));

		if (v != EP_NONE)
			return v;
	}
	return EP_NONE;
}

/*
 * Build @l from @n prefixes (@pfx left-aligned, @plen <= 56; entries with
 * skip[i] set, when @skip is not NULL, are left out). 0, -EINVAL or -ENOMEM.
 */
int vpk_tn_lpm_build(struct tn_lpm *l, const uint64_t *pfx, const uint8_t *plen, const uint8_t *skip,
		     uint32_t n);
void vpk_tn_lpm_free(struct tn_lpm *l);

#endif
