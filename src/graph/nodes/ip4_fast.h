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

/* l4_off, l4_proto and the fragment flags of a packet whose header passed the checks. */
static inline __attribute__((always_inline)) void
ip4_set_l4(struct vpk_buf *b, const uint8_t *h, uint32_t hlen)
{
	uint16_t fo;

	b->l4_off = (uint16_t)(b->l3_off + hlen);
	b->l4_proto = h[9];
	b->l3_n_ext = 0;
	b->flags &= (uint16_t)~(VPK_BUF_F_FRAG | VPK_BUF_F_FRAG_LATER);
	memcpy(&fo, h + 6, 2);          /* network order, tested as loaded (x86-64 is little-endian) */
	if (__builtin_expect((fo & __builtin_bswap16(0x3fff)) != 0, 0))        /* MF or an offset */
		b->flags |= (uint16_t)(VPK_BUF_F_FRAG |
				       (fo & __builtin_bswap16(0x1fff) ? VPK_BUF_F_FRAG_LATER : 0));
}

/*
 * The common header, passed on with ip4-input's work done: @left >= 20
 * bytes from @h to the end of the frame, version 4 and IHL 5, a total
 * length from 20 to @left (past it: Ethernet padding, trimmed as ip4-input
 * trims it), TTL > 1 and a good checksum. Then @b's L4 fields are set as
 * ip4_set_l4() sets them and true is returned; any other packet is left
 * untouched for ip4-input's checks in their order (false). Reads h[0..19]
 * only when @left >= 20, each byte once: the header is three loads.
 *
 * The checksum is the sum of the five 32-bit words, folded twice (2^16 = 1
 * mod 0xffff, so each fold keeps the sum mod 0xffff of the 16-bit words,
 * byte-swapped, which a good header makes 0); a header with h[0] = 0x45 is
 * never all zero, so the folded sum is 1 .. 0xffff + 15 and good exactly
 * when it is 0xffff.
 */
static inline __attribute__((always_inline)) bool
ip4_fast_input(struct vpk_buf *b, const uint8_t *h, uint32_t left)
{
	uint64_t w01, w23, s;
	uint32_t w4, tlen;
	uint16_t fo;

	if (left < 20)
		return false;
	memcpy(&w01, h, 8);             /* little-endian: byte 0 in the low bits */
	memcpy(&w23, h + 8, 8);
	memcpy(&w4, h + 16, 4);
	tlen = __builtin_bswap16((uint16_t)(w01 >> 16));
	if ((uint8_t)w01 != 0x45 || tlen - 20u > left - 20u || (uint8_t)w23 <= 1)
		return false;
	s = (w01 & 0xffffffffu) + (w01 >> 32) + (w23 & 0xffffffffu) + (w23 >> 32) + w4;   /* < 2^35 */
	s = (s & 0xffff) + (s >> 16);   /* < 2^20 */
	s = (s & 0xffff) + (s >> 16);   /* 1 .. 0xffff + 15: 0xffff is the one multiple of 0xffff */
	if (s != 0xffff)
		return false;
	if (tlen < left) {              /* Ethernet padding */
		b->len = (uint16_t)(b->len - (left - tlen));
		b->total_len = b->len;
	}
	b->l4_off = (uint16_t)(b->l3_off + 20);
	b->l4_proto = (uint8_t)(w23 >> 8);
	b->l3_n_ext = 0;
	fo = (uint16_t)(w01 >> 48);     /* flags and offset, network order */
	b->flags &= (uint16_t)~(VPK_BUF_F_FRAG | VPK_BUF_F_FRAG_LATER);
	if (__builtin_expect((fo & __builtin_bswap16(0x3fff)) != 0, 0))        /* MF or an offset */
		b->flags |= (uint16_t)(VPK_BUF_F_FRAG |
				       (fo & __builtin_bswap16(0x1fff) ? VPK_BUF_F_FRAG_LATER : 0));
	return true;
}

#endif
