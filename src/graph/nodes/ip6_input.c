/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip6-input: IPv6 header checks (RFC 8200): frame holds the 40-byte header,
 * version 6, payload length within the frame, hop limit > 1. Each failure
 * has its own counter; padding is trimmed. Good packets go to ip6-acl when
 * the graph has it, else to ip6-lookup.
 *
 * The extension header chain is walked to the upper-layer header, so that
 * vpk_buf::l4_off and l4_proto name what the destination will see and a
 * filter cannot be evaded by inserting headers: Hop-by-Hop (first only),
 * Routing, Destination Options, Fragment, AH and the other headers of the
 * RFC 8200 format (Mobility, HIP, Shim6, experimental 253/254, RFC 7045).
 * ESP and No Next Header end the walk. At most VPK_IP6_MAX_EXT headers, each
 * wholly inside the payload; anything else is dropped and counted. Fragment
 * headers: an atomic fragment (offset 0, M 0; RFC 6946) is a whole packet;
 * a first fragment is walked on (its chain must be complete, RFC 7112); a
 * later fragment stops the walk at its payload, with the Fragment header's
 * next header as l4_proto and VPK_BUF_F_FRAG_LATER set.
 */
#include "graph/nodes/icmp_error.h"
#include "graph/nodes/nodes.h"

enum { IP6_NEXT_ACL, IP6_NEXT_LOOKUP, IP6_NEXT_DROP, IP6_NEXT_BYPASS, IP6_NEXT_ICMP, IP6_N_NEXT };
enum {
	IP6_ERR_SHORT, IP6_ERR_VERSION, IP6_ERR_LENGTH, IP6_ERR_HOPS, IP6_ERR_EXT_TRUNC,
	IP6_ERR_EXT_LONG, IP6_ERR_HBH, IP6_N_ERROR
};

/* Length of extension header @p e of type @p nh, 0 when @p nh is not one
 * (an upper-layer protocol, ESP or No Next Header). e[1] is read only for
 * types that have it; the caller has checked 8 bytes. */
static inline __attribute__((always_inline)) uint32_t
ip6_ext_len(uint8_t nh, const uint8_t *e)
{
	switch (nh) {
	case 0: case 43: case 60: case 135: case 139: case 140: case 253: case 254:
		return (e[1] + 1u) * 8;
	case 44:
		return 8;
	case 51:                        /* AH: length in 4-octet units, minus 2 */
		return (e[1] + 2u) * 4;
	default:
		return 0;
	}
}

static inline __attribute__((always_inline)) bool
ip6_is_ext(uint8_t nh)
{
	return nh == 0 || nh == 43 || nh == 44 || nh == 51 || nh == 60 || nh == 135 || nh == 139 ||
	       nh == 140 || nh == 253 || nh == 254;
}

/* Walk the chain of @p h (payload ends at @p end bytes from h); set l4_off,
 * l4_proto, l3_n_ext and the fragment flags of @p b. Returns an IP6_ERR_* or
 * IP6_N_ERROR when the chain is good. */
static inline __attribute__((always_inline)) uint32_t
ip6_walk(struct vpk_buf *b, const uint8_t *h, uint32_t end)
{
	uint32_t off = 40, n = 0;
	uint8_t nh = h[6];

	b->flags &= (uint16_t)~(VPK_BUF_F_FRAG | VPK_BUF_F_FRAG_LATER);
	while (ip6_is_ext(nh)) {
		const uint8_t *e = h + off;
		uint32_t elen;

		if (n == VPK_IP6_MAX_EXT)
			return IP6_ERR_EXT_LONG;
		if (nh == 0 && n != 0)
			return IP6_ERR_HBH;
		if (off + 8 > end)              /* every extension header is >= 8 bytes */
			return IP6_ERR_EXT_TRUNC;
		elen = ip6_ext_len(nh, e);
		if (off + elen > end)
			return IP6_ERR_EXT_TRUNC;
		n++;
		if (nh == 44 && (vpk_rd16be(e + 2) & 0xfff9) != 0) {
			b->flags |= VPK_BUF_F_FRAG;     /* offset or M set: not atomic */
			if ((vpk_rd16be(e + 2) & 0xfff8) != 0) {
				b->flags |= VPK_BUF_F_FRAG_LATER;
				nh = e[0];
				off += elen;
				break;
			}
		}
		nh = e[0];
		off += elen;
	}
	b->l4_off = (uint16_t)(b->l3_off + off);
	b->l4_proto = nh;
	b->l3_n_ext = (uint8_t)n;
	return IP6_N_ERROR;
}

static inline __attribute__((always_inline)) uint16_t
ip6_one(struct vpk_node_rt *rt, struct vpk_buf *b, uint16_t fwd)
{
	const uint8_t *h = vpk_buf_area(b) + b->l3_off;
	uint32_t left = vpk_l3_left(b), plen, err;

	if (left < 40)
		return vpk_node_drop(rt, b, IP6_ERR_SHORT, IP6_NEXT_DROP);
	if ((h[0] >> 4) != 6)
		return vpk_node_drop(rt, b, IP6_ERR_VERSION, IP6_NEXT_DROP);
	plen = vpk_rd16be(h + 4);
	if (plen + 40 > left)
		return vpk_node_drop(rt, b, IP6_ERR_LENGTH, IP6_NEXT_DROP);
	if (plen + 40 < left) {
		b->len = (uint16_t)(b->len - (left - plen - 40));
		b->total_len = b->len;
	}
	if (h[7] <= 1) {        /* ICMPv6 Time Exceeded through ip6-icmp-error when in the graph */
		if (!vpk_node_has_next(rt, IP6_NEXT_ICMP))
			return vpk_node_drop(rt, b, IP6_ERR_HOPS, IP6_NEXT_DROP);
		/* With its L4 fields (ip6-icmp-error sends a packet for one of our
		 * own addresses on to the tunnel bypass / ip6-local); a bad chain:
		 * "no next header", which nothing past ip6-input takes for UDP. */
		if (ip6_walk(b, h, plen + 40) != IP6_N_ERROR) {
			b->l4_off = (uint16_t)(b->l3_off + 40);
			b->l4_proto = 59;
			b->l3_n_ext = 0;
		}
		vpk_node_count_error(rt, IP6_ERR_HOPS, 1);
		vpk_icmp_error_set(b, 3, 0, 0);
		return IP6_NEXT_ICMP;
	}
	if (h[6] == 6 || h[6] == 17 || h[6] == 58) {    /* no extension headers: the usual case */
		b->l4_off = (uint16_t)(b->l3_off + 40);
		b->l4_proto = h[6];
		b->l3_n_ext = 0;
		b->flags &= (uint16_t)~(VPK_BUF_F_FRAG | VPK_BUF_F_FRAG_LATER);
		return fwd;
	}
	err = ip6_walk(b, h, plen + 40);
	if (err != IP6_N_ERROR)
		return vpk_node_drop(rt, b, (uint16_t)err, IP6_NEXT_DROP);
	return fwd;
}

static uint32_t
VPK_FN(ip6_input_fn)(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	uint16_t next[VPK_FRAME_SIZE];
	uint16_t fwd = vpk_node_has_next(rt, IP6_NEXT_BYPASS) ? IP6_NEXT_BYPASS /* tunnels */
		     : vpk_node_has_next(rt, IP6_NEXT_ACL) ? IP6_NEXT_ACL : IP6_NEXT_LOOKUP;

	for (uint32_t i = 0; i < n; i++) {
		if (i + 4 < n)
			__builtin_prefetch(vpk_buf_area(b[i + 4]) + b[i + 4]->l3_off);
		next[i] = ip6_one(rt, b[i], fwd);
	}
	vpk_node_enqueue_to_next(rt, bi, next, n);
	return n;
}

VPK_NODE_TRACE(ip6_trace)
{
	const uint8_t *h = vpk_buf_area((struct vpk_buf *)b) + b->l3_off;

	snprintf(out, len, "next-header %u hop-limit %u payload %u dst %02x%02x:%02x%02x:...:%02x%02x"
		 " l4 %u after %u ext%s", h[6], h[7], vpk_rd16be(h + 4), h[24], h[25], h[26], h[27], h[38],
		 h[39], b->l4_proto, b->l3_n_ext,
		 b->flags & VPK_BUF_F_FRAG_LATER ? " later-fragment" : b->flags & VPK_BUF_F_FRAG ? " first-fragment" : "");
}

static const char *const ip6_next[] = { "ip6-acl", "ip6-lookup", "error-drop", "ip6-tunnel-bypass",
					 "ip6-icmp-error" };
static const char *const ip6_errors[] = {
	"frame shorter than an IPv6 header",
	"IP version is not 6",
	"payload length beyond the frame",
	"hop limit expired (<= 1)",
	"extension header beyond the payload",
	"more than " VPK_STR(VPK_IP6_MAX_EXT) " extension headers",
	"hop-by-hop options header not first",
};

VPK_NODE_REGISTER(ip6_input, VPK_FN(ip6_input_fn), .name = "ip6-input", .n_next = IP6_N_NEXT,
		  .next_names = ip6_next, .n_errors = IP6_N_ERROR, .error_strings = ip6_errors,
		  .format_trace = ip6_trace);
