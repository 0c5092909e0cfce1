/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip6-input: IPv6 header checks (RFC 8200): frame holds the 40-byte header,
 * version 6, payload length within the frame, hop limit > 1. Each failure
 * has its own counter; padding is trimmed. Good packets go to ip6-acl when
 * the graph has it, else to ip6-lookup.
 */
#include "graph/nodes/nodes.h"

enum { IP6_NEXT_ACL, IP6_NEXT_LOOKUP, IP6_NEXT_DROP, IP6_NEXT_BYPASS, IP6_N_NEXT };
enum { IP6_ERR_SHORT, IP6_ERR_VERSION, IP6_ERR_LENGTH, IP6_ERR_HOPS, IP6_N_ERROR };

static inline __attribute__((always_inline)) uint16_t
ip6_one(struct vpk_node_rt *rt, struct vpk_buf *b, uint16_t fwd)
{
	const uint8_t *h = vpk_buf_area(b) + b->l3_off;
	uint32_t left = vpk_l3_left(b), plen;

	if (left < 40)
		return vpk_node_drop(rt, b, IP6_ERR_SHORT, IP6_NEXT_DROP);
	if ((h[0] >> 4) != 6)
		return vpk_node_drop(rt, b, IP6_ERR_VERSION, IP6_NEXT_DROP);
	plen = vpk_rd16be(h + 4);
	if (plen + 40 > left)
		return vpk_node_drop(rt, b, IP6_ERR_LENGTH, IP6_NEXT_DROP);
	if (h[7] <= 1)
		return vpk_node_drop(rt, b, IP6_ERR_HOPS, IP6_NEXT_DROP);
	if (plen + 40 < left) {
		b->len = (uint16_t)(b->len - (left - plen - 40));
		b->total_len = b->len;
	}
	b->l4_off = (uint16_t)(b->l3_off + 40);
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
VPK_NODE_FN_OBJ(ip6_input, VPK_FN(ip6_input_fn));

#if VPK_VEC_BITS == 0
static const char *const ip6_next[] = { "ip6-acl", "ip6-lookup", "error-drop", "ip6-tunnel-bypass" };
static const char *const ip6_errors[] = {
	"frame shorter than an IPv6 header",
	"IP version is not 6",
	"payload length beyond the frame",
	"hop limit expired (<= 1)",
};

static void
ip6_trace(const struct vpk_node_rt *rt, const struct vpk_buf *b, char *out, size_t len)
{
	const uint8_t *h = vpk_buf_area((struct vpk_buf *)b) + b->l3_off;

	(void)rt;
	snprintf(out, len, "next-header %u hop-limit %u payload %u dst %02x%02x:%02x%02x:...:%02x%02x",
		 h[6], h[7], vpk_rd16be(h + 4), h[24], h[25], h[26], h[27], h[38], h[39]);
}

VPK_NODE_VARIANTS(ip6_input);
const struct vpk_node_reg ip6_input_reg = {
	.name = "ip6-input",
	.n_next = IP6_N_NEXT,
	.next_names = ip6_next,
	.n_errors = IP6_N_ERROR,
	.error_strings = ip6_errors,
	.impls = ip6_input_impls,
	.format_trace = ip6_trace,
};
#endif
