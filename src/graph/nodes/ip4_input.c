/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip4-input: IPv4 header checks (RFC 791, RFC 1812 §5.2.2): frame long
 * enough, version 4, IHL >= 5, header within the frame, total length within
 * the frame and not below the header, header checksum, TTL > 1 (else
 * counted, and ICMP Time Exceeded through ip4-icmp-error when the graph has
 * it, vpk/icmp.h; dropped without it). Each failure has its
 * own counter. Ethernet padding past the total length is trimmed. Good
 * packets go to ip4-acl when the graph has it, else to ip4-lookup, with
 * vpk_buf::l4_off and l4_proto set and VPK_BUF_F_FRAG (MF or an offset) and
 * VPK_BUF_F_FRAG_LATER (an offset: no L4 header here) for fragments.
 *
 * The checksums of the whole frame are verified first by the IPv4 checksum
 * kernel of this node's own ISA; headers not wholly inside the frame are
 * swapped for a zero header first (their packets fail the length checks,
 * which come before the checksum's verdict is used).
 */
#include "graph/nodes/icmp_error.h"
#include "graph/nodes/ip4_fast.h"
#include "graph/nodes/nodes.h"
#include "pkt/ip4_csum.h"

enum { IP4_NEXT_ACL, IP4_NEXT_LOOKUP, IP4_NEXT_DROP, IP4_NEXT_BYPASS, IP4_NEXT_ICMP, IP4_N_NEXT };
enum {
	IP4_ERR_SHORT, IP4_ERR_VERSION, IP4_ERR_IHL, IP4_ERR_HDR_TRUNC, IP4_ERR_LENGTH,
	IP4_ERR_CSUM, IP4_ERR_TTL, IP4_N_ERROR
};

extern const struct ip4_csum_impl VPK_FN(ip4_csum);

static const uint8_t zero_hdr[60];      /* IHL 0: fails the checksum check, read safely */

static inline __attribute__((always_inline)) uint16_t
ip4_one(struct vpk_node_rt *rt, struct vpk_buf *b, uint8_t csum_ok, uint16_t fwd)
{
	const uint8_t *h = vpk_buf_area(b) + b->l3_off;
	uint32_t left = vpk_l3_left(b), hlen, tlen;

	/* The common packet in one test: a good checksum means the header was
	 * wholly in the frame (else the kernel saw the zero header), so h[] is
	 * safe to read; IHL 5, version 4, no padding, TTL > 1. */
	if (__builtin_expect(csum_ok && h[0] == 0x45 && vpk_rd16be(h + 2) == left && h[8] > 1, 1)) {
		hlen = 20;
		goto good;
	}
	if (left < 20)
		return vpk_node_drop(rt, b, IP4_ERR_SHORT, IP4_NEXT_DROP);
	if ((h[0] >> 4) != 4)
		return vpk_node_drop(rt, b, IP4_ERR_VERSION, IP4_NEXT_DROP);
	hlen = (h[0] & 15u) * 4;
	if (hlen < 20)
		return vpk_node_drop(rt, b, IP4_ERR_IHL, IP4_NEXT_DROP);
	if (hlen > left)
		return vpk_node_drop(rt, b, IP4_ERR_HDR_TRUNC, IP4_NEXT_DROP);
	tlen = vpk_rd16be(h + 2);
	if (tlen < hlen || tlen > left)
		return vpk_node_drop(rt, b, IP4_ERR_LENGTH, IP4_NEXT_DROP);
	if (!csum_ok)
		return vpk_node_drop(rt, b, IP4_ERR_CSUM, IP4_NEXT_DROP);
	if (tlen < left) {                      /* Ethernet padding */
		b->len = (uint16_t)(b->len - (left - tlen));
		b->total_len = b->len;
	}
	if (h[8] <= 1) {
		if (!vpk_node_has_next(rt, IP4_NEXT_ICMP))
			return vpk_node_drop(rt, b, IP4_ERR_TTL, IP4_NEXT_DROP);
		/* With its L4 fields: ip4-icmp-error sends a packet for one of our
		 * own addresses on to the tunnel bypass / ip4-local instead. */
		ip4_set_l4(b, h, hlen);
		vpk_node_count_error(rt, IP4_ERR_TTL, 1);
		vpk_icmp_error_set(b, 11, 0, 0);
		return IP4_NEXT_ICMP;
	}
good:
	ip4_set_l4(b, h, hlen);
	return fwd;
}

static uint32_t
VPK_FN(ip4_input_fn)(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	uint16_t next[VPK_FRAME_SIZE];
	const uint8_t *hdr[VPK_FRAME_SIZE];
	uint8_t ok[VPK_FRAME_SIZE];
	uint16_t fwd = vpk_node_has_next(rt, IP4_NEXT_BYPASS) ? IP4_NEXT_BYPASS /* tunnels */
		     : vpk_node_has_next(rt, IP4_NEXT_ACL) ? IP4_NEXT_ACL : IP4_NEXT_LOOKUP;

	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *h = vpk_buf_area(b[i]) + b[i]->l3_off;
		uint32_t left = vpk_l3_left(b[i]);

		/* The kernel reads max(20, 4*IHL) bytes: a header not wholly in the
		 * frame (dropped below anyway) is replaced by a zero one, so nothing
		 * past the buffer's data is read, whatever the pool's data size. */
		hdr[i] = left >= 20 && (h[0] & 15u) * 4 <= left ? h : zero_hdr;
	}
	VPK_FN(ip4_csum).check_bulk(hdr, ok, n);
	for (uint32_t i = 0; i < n; i++)
		next[i] = ip4_one(rt, b[i], ok[i], fwd);
	vpk_node_enqueue_to_next(rt, bi, next, n);
	return n;
}

VPK_NODE_TRACE(ip4_trace)
{
	const uint8_t *h = vpk_buf_area((struct vpk_buf *)b) + b->l3_off;

	snprintf(out, len, "%u.%u.%u.%u -> %u.%u.%u.%u ttl %u proto %u len %u", h[12], h[13], h[14],
		 h[15], h[16], h[17], h[18], h[19], h[8], h[9], vpk_rd16be(h + 2));
}

static const char *const ip4_next[] = { "ip4-acl", "ip4-lookup", "error-drop", "ip4-tunnel-bypass",
					 "ip4-icmp-error" };
static const char *const ip4_errors[] = {
	"frame shorter than an IPv4 header",
	"IP version is not 4",
	"header length below 20 bytes",
	"header longer than the frame",
	"total length beyond the frame or below the header",
	"bad header checksum",
	"time to live expired (TTL <= 1)",
};

VPK_NODE_REGISTER(ip4_input, VPK_FN(ip4_input_fn), .name = "ip4-input", .n_next = IP4_N_NEXT,
		  .next_names = ip4_next, .n_errors = IP4_N_ERROR, .error_strings = ip4_errors,
		  .format_trace = ip4_trace);
