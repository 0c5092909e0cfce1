/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_GRAPH_ICMP_NODES_H
#define VPK_GRAPH_ICMP_NODES_H
/* Helpers shared by the ICMP node files (icmp_error.c, ip_local.c; each compiled once per ISA). */
#include <vpk/icmp.h>
#include "graph/nodes/icmp_error.h"
#include "graph/nodes/nodes.h"

static inline __attribute__((always_inline)) void
ic_wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* ICMPv6 checksum sum (RFC 8200 §8.1 pseudo-header) over @len bytes at @m, not complemented. */
static inline __attribute__((always_inline)) uint16_t
ic_sum6(const uint8_t *src, const uint8_t *dst, const uint8_t *m, uint32_t len)
{
	uint32_t s = vpk_csum_add(0, src, 16);

	s = vpk_csum_add(s, dst, 16);
	s += (len >> 16) + (len & 0xffff) + 58;
	return vpk_csum_fold(vpk_csum_add(s, m, len));
}

/* An address of the router of family @is6 equal to @a? */
static inline __attribute__((always_inline)) bool
ic_is_local(const struct vpk_icmp_conf *c, const uint8_t *a, bool is6)
{
	for (uint32_t i = 0; i < c->n_addr; i++)
		if (c->addr[i].is_ip6 == is6 && memcmp(c->addr[i].addr, a, is6 ? 16 : 4) == 0)
			return true;
	return false;
}

/* Source of an ICMP error: an address of @rx_if, else the first of the family; NULL: none. */
static inline __attribute__((always_inline)) const uint8_t *
ic_src(const struct vpk_icmp_conf *c, uint32_t rx_if, bool is6)
{
	const uint8_t *any = NULL;

	for (uint32_t i = 0; i < c->n_addr; i++) {
		if (c->addr[i].is_ip6 != is6)
			continue;
		if (c->addr[i].if_index == rx_if)
			return c->addr[i].addr;
		if (any == NULL)
			any = c->addr[i].addr;
	}
	return any;
}

/*
 * Walk the IPv6 extension headers of @h (@end bytes of packet): *off = the
 * upper-layer header, *nh its type, *nh_at the offset of the byte naming it.
 * false: truncated, too many headers, or a non-first fragment (*frag set).
 */
static inline __attribute__((always_inline)) bool
ic_ip6_upper(const uint8_t *h, uint32_t end, uint32_t *off, uint8_t *nh, uint32_t *nh_at, bool *frag)
{
	uint32_t o = 40, at = 6;
	uint8_t t = h[6];

	*frag = false;
	for (unsigned n = 0; t == 0 || t == 43 || t == 60 || t == 44 || t == 51; n++) {
		uint32_t elen;

		if (n == VPK_IP6_MAX_EXT || o + 8 > end)
			return false;
		elen = t == 44 ? 8u : t == 51 ? (h[o + 1] + 2u) * 4 : (h[o + 1] + 1u) * 8;
		if (o + elen > end)
			return false;
		if (t == 44 && (vpk_rd16be(h + o + 2) & 0xfff9) != 0)
			*frag = true;
		if (t == 44 && (vpk_rd16be(h + o + 2) & 0xfff8) != 0)
			return false;
		at = o;
		t = h[o];
		o += elen;
	}
	*off = o;
	*nh = t;
	*nh_at = at;
	return true;
}

#endif
