/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_GRAPH_NODES_IP4_FAST_H
#define VPK_GRAPH_NODES_IP4_FAST_H

/*
 * The IPv4 header work ip4-input does for every packet it passes, shared
 * with ethernet-input, which passes the common packet on itself
 * (ethernet_input.c): the L4 fields a good header sets, and the one test
 * that tells the common header from everything that needs the full checks.
 */
#include "graph/nodes/nodes.h"
#include "pkt/ip4_csum.h"

/*
 * l4_off, l4_proto and the fragment flags of a packet whose header passed
 * the checks, from its length @hlen, protocol @proto and flags-and-offset
 * field @fo as loaded (network order; x86-64 is little-endian).
 */
static inline __attribute__((always_inline)) void
ip4_store_l4(struct vpk_buf *b, uint32_t hlen, uint8_t proto, uint16_t fo)
{
	b->l4_off = (uint16_t)(b->l3_off + hlen);
	b->l4_proto = proto;
	b->l3_n_ext = 0;
	b->flags &= (uint16_t)~(VPK_BUF_F_FRAG | VPK_BUF_F_FRAG_LATER);
	if (__builtin_expect((fo & __builtin_bswap16(0x3fff)) != 0, 0))        /* MF or an offset */
		b->flags |= (uint16_t)(VPK_BUF_F_FRAG |
				       (fo & __builtin_bswap16(0x1fff) ? VPK_BUF_F_FRAG_LATER : 0));
}

/* The same from the header at @h. */
static inline __attribute__((always_inline)) void
ip4_set_l4(struct vpk_buf *b, const uint8_t *h, uint32_t hlen)
{
	uint16_t fo;

	memcpy(&fo, h + 6, 2);
	ip4_store_l4(b, hlen, h[9], fo);
}

/*
 * The common header, passed on with ip4-input's work done: @left >= 20
 * bytes from @h to the end of the frame, version 4 and IHL 5, a total
 * length from 20 to @left (past it: Ethernet padding, trimmed as ip4-input
 * trims it), TTL > 1 and a good checksum (ip4_csum_fold(): a header with
 * h[0] = 0x45 is never all zero). Then @b's L4 fields are set as
 * ip4_set_l4() sets them and true is returned; any other packet is left
 * untouched for ip4-input's checks in their order (false). Reads h[0..19]
 * only when @left >= 20, each byte once: the header is three loads, whose
 * words give the fields too.
 */
static inline __attribute__((always_inline)) bool
ip4_fast_input(struct vpk_buf *b, const uint8_t *h, uint32_t left)
{
	struct ip4_hdr20 w;
	uint32_t tlen;

	if (left < 20)
		return false;
	w = ip4_hdr20_load(h);
	tlen = __builtin_bswap16((uint16_t)(w.w01 >> 16));
	if ((uint8_t)w.w01 != 0x45 || tlen - 20u > left - 20u || (uint8_t)w.w23 <= 1)
		return false;
	if (ip4_csum_fold(ip4_csum_sum20(&w)) != 0xffff)
		return false;
	if (tlen < left) {              /* Ethernet padding */
		b->len = (uint16_t)(b->len - (left - tlen));
		b->total_len = b->len;
	}
	ip4_store_l4(b, 20, (uint8_t)(w.w23 >> 8), (uint16_t)(w.w01 >> 48));
	return true;
}

#endif
