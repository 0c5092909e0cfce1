/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip4-local and ip6-local: packets to the router's own addresses (their FIB
 * routes have next hop VPK_NH_LOCAL; ip4-lookup / ip6-lookup send them
 * here instead of forwarding them).
 *
 *   ICMP Echo Request (IPv4 type 8 / ICMPv6 128, checksum verified)
 *       -> Echo Reply from the requested address to the requester, same
 *          identifier, sequence and data (RFC 792, RFC 4443 §4.2); IPv4:
 *          TTL 64, DF set, ID 0, options kept; IPv6: hop limit 64, the
 *          extension headers of the request not repeated; to ip4/ip6-lookup
 *   UDP  -> ICMP Port Unreachable (IPv4 3/3, IPv6 1/4) through the
 *           icmp-error node (no UDP service listens here)
 *   other protocols except TCP and ICMP -> IPv4 Protocol Unreachable (3/2),
 *           IPv6 Parameter Problem "unrecognized next header" (4/1, pointer
 *           to the byte that names it)
 *   TCP, other ICMP messages, fragments (no reassembly) -> dropped, each
 *           with its own counter.
 */
#include "graph/nodes/icmp_nodes.h"

enum { LO_NEXT_LOOKUP, LO_NEXT_DROP, LO_NEXT_ICMP, LO_N_NEXT };
enum {
	LO_ERR_ECHO, LO_ERR_PORT_UNREACH, LO_ERR_PROTO_UNREACH, LO_ERR_TCP, LO_ERR_ICMP_OTHER,
	LO_ERR_FRAG, LO_ERR_TRUNC, LO_ERR_CSUM, LO_N_ERROR
};

static const char *const lo4_errors[] = {
	"echo requests answered",
	"UDP to the router: port unreachable",
	"unknown protocol to the router: protocol unreachable",
	"TCP to the router (no listener)",
	"ICMP message to the router other than echo request",
	"fragment to the router (no reassembly)",
	"truncated header or message",
	"bad ICMP checksum",
};
static const char *const lo6_errors[] = {
	"echo requests answered",
	"UDP to the router: port unreachable",
	"unknown next header to the router: parameter problem",
	"TCP to the router (no listener)",
	"ICMPv6 message to the router other than echo request",
	"fragment to the router (no reassembly)",
	"truncated header or message",
	"bad ICMPv6 checksum",
};
static const char *const lo4_next[LO_N_NEXT] = {
	[LO_NEXT_LOOKUP] = "ip4-lookup", [LO_NEXT_DROP] = "error-drop", [LO_NEXT_ICMP] = "ip4-icmp-error",
};
static const char *const lo6_next[LO_N_NEXT] = {
	[LO_NEXT_LOOKUP] = "ip6-lookup", [LO_NEXT_DROP] = "error-drop", [LO_NEXT_ICMP] = "ip6-icmp-error",
};

/* Hand @b to the icmp-error node with @type/@code, or drop it when the graph has none. */
static inline __attribute__((always_inline)) uint16_t
lo_error(struct vpk_node_rt *rt, struct vpk_buf *b, uint16_t cnt, uint8_t type, uint8_t code, uint16_t ptr)
{
	if (!vpk_node_has_next(rt, LO_NEXT_ICMP))
		return vpk_node_drop(rt, b, cnt, LO_NEXT_DROP);
	vpk_node_count_error(rt, cnt, 1);
	vpk_icmp_error_set(b, type, code, ptr);
	return LO_NEXT_ICMP;
}

/* A packet for us that is not ICMP: UDP port unreachable, TCP dropped, else protocol unreachable
 * (IPv6: parameter problem pointing at the next header byte @nh_at). */
static inline __attribute__((always_inline)) uint16_t
lo_not_icmp(struct vpk_node_rt *rt, struct vpk_buf *b, uint8_t proto, bool is6, uint16_t nh_at)
{
	if (proto == 17)
		return lo_error(rt, b, LO_ERR_PORT_UNREACH, is6 ? 1 : 3, is6 ? 4 : 3, 0);
	if (proto == 6)
		return vpk_node_drop(rt, b, LO_ERR_TCP, LO_NEXT_DROP);
	return is6 ? lo_error(rt, b, LO_ERR_PROTO_UNREACH, 4, 1, nh_at) : lo_error(rt, b, LO_ERR_PROTO_UNREACH, 3, 2, 0);
}

static inline __attribute__((always_inline)) uint16_t
lo4_one(struct vpk_node_rt *rt, struct vpk_buf *b)
{
	uint8_t *h = vpk_buf_area(b) + b->l3_off, *m, a[4];
	uint32_t left = vpk_l3_left(b), hlen, tlen, ilen;

	if (left < 20 || (hlen = (h[0] & 15u) * 4) < 20 || hlen > left)
		return vpk_node_drop(rt, b, LO_ERR_TRUNC, LO_NEXT_DROP);
	tlen = vpk_rd16be(h + 2);
	if (tlen < hlen || tlen > left)
		return vpk_node_drop(rt, b, LO_ERR_TRUNC, LO_NEXT_DROP);
	if (vpk_rd16be(h + 6) & 0x3fff)
		return vpk_node_drop(rt, b, LO_ERR_FRAG, LO_NEXT_DROP);
	if (h[9] != 1)
		return lo_not_icmp(rt, b, h[9], false, 0);
	m = h + hlen;
	ilen = tlen - hlen;
	if (ilen < 8)
		return vpk_node_drop(rt, b, LO_ERR_TRUNC, LO_NEXT_DROP);
	if (vpk_csum_fold(vpk_csum_add(0, m, ilen)) != 0xffff)
		return vpk_node_drop(rt, b, LO_ERR_CSUM, LO_NEXT_DROP);
	if (m[0] != 8 || m[1] != 0)
		return vpk_node_drop(rt, b, LO_ERR_ICMP_OTHER, LO_NEXT_DROP);
	m[0] = 0;
	ic_wr16(m + 2, 0);
	ic_wr16(m + 2, (uint16_t)~vpk_csum_fold(vpk_csum_add(0, m, ilen)));
	memcpy(a, h + 12, 4);
	memcpy(h + 12, h + 16, 4);
	memcpy(h + 16, a, 4);
	ic_wr16(h + 4, 0);
	ic_wr16(h + 6, 0x4000);         /* DF */
	h[8] = 64;
	ic_wr16(h + 10, 0);
	ic_wr16(h + 10, (uint16_t)~vpk_csum_fold(vpk_csum_add(0, h, hlen)));
	b->len = (uint16_t)(b->l3_off + tlen - b->data_off);
	b->total_len = b->len;
	b->l4_off = (uint16_t)(b->l3_off + hlen);
	b->l4_proto = 1;
	vpk_node_count_error(rt, LO_ERR_ECHO, 1);
	return LO_NEXT_LOOKUP;
}

static inline __attribute__((always_inline)) uint16_t
lo6_one(struct vpk_node_rt *rt, struct vpk_buf *b)
{
	uint8_t *h = vpk_buf_area(b) + b->l3_off, *m, *o, sa[16], da[16], nh;
	uint32_t left = vpk_l3_left(b), tlen, off, nh_at, ilen;
	bool frag;

	if (left < 40 || (tlen = 40u + vpk_rd16be(h + 4)) > left)
		return vpk_node_drop(rt, b, LO_ERR_TRUNC, LO_NEXT_DROP);
	if (!ic_ip6_upper(h, tlen, &off, &nh, &nh_at, &frag))
		return vpk_node_drop(rt, b, frag ? LO_ERR_FRAG : LO_ERR_TRUNC, LO_NEXT_DROP);
	if (frag)
		return vpk_node_drop(rt, b, LO_ERR_FRAG, LO_NEXT_DROP);
	if (nh != 58)
		return lo_not_icmp(rt, b, nh, true, (uint16_t)nh_at);
	m = h + off;
	ilen = tlen - off;
	if (ilen < 8)
		return vpk_node_drop(rt, b, LO_ERR_TRUNC, LO_NEXT_DROP);
	if (ic_sum6(h + 8, h + 24, m, ilen) != 0xffff)
		return vpk_node_drop(rt, b, LO_ERR_CSUM, LO_NEXT_DROP);
	if (m[0] != 128 || m[1] != 0)
		return vpk_node_drop(rt, b, LO_ERR_ICMP_OTHER, LO_NEXT_DROP);
	memcpy(sa, h + 24, 16);                 /* reply from the requested address */
	memcpy(da, h + 8, 16);
	o = m - 40;                             /* a fresh header right before the ICMPv6 message */
	memmove(o, h, 4);                       /* version, traffic class, flow label */
	ic_wr16(o + 4, (uint16_t)ilen);
	o[6] = 58;
	o[7] = 64;
	memcpy(o + 8, sa, 16);
	memcpy(o + 24, da, 16);
	m[0] = 129;
	ic_wr16(m + 2, 0);
	ic_wr16(m + 2, (uint16_t)~ic_sum6(o + 8, o + 24, m, ilen));
	b->l3_off = (uint16_t)(o - vpk_buf_area(b));
	if (b->data_off > b->l3_off)
		b->data_off = b->l3_off;
	b->len = (uint16_t)(b->l3_off + 40 + ilen - b->data_off);
	b->total_len = b->len;
	b->l4_off = (uint16_t)(b->l3_off + 40);
	b->l4_proto = 58;
	b->l3_n_ext = 0;
	vpk_node_count_error(rt, LO_ERR_ECHO, 1);
	return LO_NEXT_LOOKUP;
}

static inline __attribute__((always_inline)) uint32_t
lo_frame(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n, bool is6)
{
	VPK_NODE_EACH(rt, bi, n, i, is6 ? lo6_one(rt, b[i]) : lo4_one(rt, b[i]));
	return n;
}

VPK_NODE_FN_IP46(ip4_local, ip6_local, lo_frame)

/* The registration fields ip4-local and ip6-local share. */
#define LO_NODE .n_next = LO_N_NEXT, .n_errors = LO_N_ERROR, .init = graph_node_init_conf
VPK_NODE_REGISTER(ip4_local, VPK_FN(ip4_local_fn), .name = "ip4-local", .next_names = lo4_next,
		  .error_strings = lo4_errors, LO_NODE);
VPK_NODE_REGISTER(ip6_local, VPK_FN(ip6_local_fn), .name = "ip6-local", .next_names = lo6_next,
		  .error_strings = lo6_errors, LO_NODE);
