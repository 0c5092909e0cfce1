/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_GRAPH_TUNNEL_NODES_H
#define VPK_GRAPH_TUNNEL_NODES_H
/* Helpers shared by the tunnel node files (each compiled once per ISA). */
#include <vpk/tunnel.h>
#include "graph/nodes/nodes.h"

static inline __attribute__((always_inline)) uint32_t
tn_rd32be(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline __attribute__((always_inline)) void
tn_wr16be(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline __attribute__((always_inline)) void
tn_wr32be(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline __attribute__((always_inline)) bool
tn_match4(uint32_t addr, uint32_t prefix, uint8_t plen)
{
	uint32_t m = plen == 0 ? 0 : ~0u << (32 - plen);

	return ((addr ^ prefix) & m) == 0;
}

static inline __attribute__((always_inline)) bool
tn_match6(const uint8_t *addr, const uint8_t *prefix, unsigned plen)
{
	unsigned full = plen / 8, rest = plen % 8;

	if (memcmp(addr, prefix, full) != 0)
		return false;
	return rest == 0 || ((addr[full] ^ prefix[full]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

/* Tunnel / steering entry index carried in vpk_buf::opaque[0..3]. */
static inline __attribute__((always_inline)) uint32_t
tn_get_index(const struct vpk_buf *b)
{
	uint32_t v;

	memcpy(&v, b->opaque, 4);
	return v;
}

static inline __attribute__((always_inline)) void
tn_set_index(struct vpk_buf *b, uint32_t v)
{
	memcpy(b->opaque, &v, 4);
}

/* A new outer header at @p l3: its L4 header at @p l4 is @p proto, not a fragment. */
static inline __attribute__((always_inline)) void
tn_set_l3l4(struct vpk_buf *b, uint32_t l3, uint32_t l4, uint8_t proto)
{
	b->l3_off = (uint16_t)l3;
	b->l4_off = (uint16_t)l4;
	b->l4_proto = proto;
	b->l3_n_ext = 0;
	b->flags &= (uint16_t)~(VPK_BUF_F_FRAG | VPK_BUF_F_FRAG_LATER);
}

/* @b now starts with a new outer IPv4/IPv6 header of @hl bytes at @o, UDP after it, up to @end. */
static inline __attribute__((always_inline)) void
tn_set_outer_udp(struct vpk_buf *b, uint32_t o, uint32_t hl, uint32_t end)
{
	b->data_off = (uint16_t)o;
	b->len = (uint16_t)(end - o);
	b->total_len = b->len;
	tn_set_l3l4(b, o, o + hl, 17);
}

/* One's complement checksum of an IPv4 header (network-order result in host bytes). */
static inline __attribute__((always_inline)) uint16_t
tn_ip4_csum(const uint8_t *h, unsigned hlen)
{
	uint32_t s = 0;

	for (unsigned k = 0; k < hlen; k += 2)
		if (k != 10)
			s += (uint32_t)(h[k] << 8 | h[k + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/*
 * An outer IPv4 header at @h: @tos, total length @len, ID 0, DF, @ttl, UDP,
 * @sa -> @da (the address bytes as they lie in memory), its checksum.
 */
static inline __attribute__((always_inline)) void
tn_ip4_udp_hdr(uint8_t *h, uint8_t tos, uint16_t len, uint8_t ttl, uint32_t sa, uint32_t da)
{
	h[0] = 0x45;
	h[1] = tos;
	tn_wr16be(h + 2, len);
	memset(h + 4, 0, 4);
	h[6] = 0x40;                    /* DF, ID 0 */
	h[8] = ttl;
	h[9] = 17;
	memcpy(h + 12, &sa, 4);
	memcpy(h + 16, &da, 4);
	tn_wr16be(h + 10, tn_ip4_csum(h, 20));
}

#endif
