/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ethernet-input: Ethernet II demultiplexing (IEEE 802.3 frames with an
 * EtherType), skipping up to two VLAN tags (802.1Q 0x8100, 802.1ad 0x88a8).
 * Sets l2_off/l3_off and sends IPv4 and IPv6 on; everything else is dropped
 * with a reason. Compiled once per ISA (VPP-style multi-arch node).
 *
 * Prefetch: metadata 8 packets ahead, packet data 4 ahead (the data
 * address needs data_off, whose line was prefetched 4 iterations earlier).
 */
#include "graph/nodes/nodes.h"

enum { ETH_NEXT_IP4, ETH_NEXT_IP6, ETH_NEXT_DROP, ETH_N_NEXT };
enum { ETH_ERR_SHORT, ETH_ERR_UNKNOWN_TYPE, ETH_ERR_TOO_MANY_TAGS, ETH_N_ERROR };

static inline __attribute__((always_inline)) uint16_t
eth_one(struct vpk_node_rt *rt, struct vpk_buf *b)
{
	const uint8_t *d = vpk_buf_data(b);
	uint32_t off = 14;
	uint16_t et;
	unsigned tags = 0;

	if (b->len < 14)
		return vpk_node_drop(rt, b, ETH_ERR_SHORT, ETH_NEXT_DROP);
	et = vpk_rd16be(d + 12);
	while (et == VPK_ETHERTYPE_VLAN || et == VPK_ETHERTYPE_QINQ) {
		if (++tags > 2)
			return vpk_node_drop(rt, b, ETH_ERR_TOO_MANY_TAGS, ETH_NEXT_DROP);
		if (b->len < off + 4)
			return vpk_node_drop(rt, b, ETH_ERR_SHORT, ETH_NEXT_DROP);
		et = vpk_rd16be(d + off + 2);
		off += 4;
	}
	b->l2_off = b->data_off;
	b->l3_off = (uint16_t)(b->data_off + off);
	if (et == VPK_ETHERTYPE_IP4)
		return ETH_NEXT_IP4;
	if (et == VPK_ETHERTYPE_IP6)
		return ETH_NEXT_IP6;
	return vpk_node_drop(rt, b, ETH_ERR_UNKNOWN_TYPE, ETH_NEXT_DROP);
}

static uint32_t
VPK_FN(ethernet_input_fn)(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	uint16_t next[VPK_FRAME_SIZE];

	for (uint32_t i = 0; i < n; i++) {
		if (i + 8 < n)
			__builtin_prefetch(b[i + 8]);
		if (i + 4 < n)
			__builtin_prefetch(vpk_buf_data(b[i + 4]));
		next[i] = eth_one(rt, b[i]);
	}
	vpk_node_enqueue_to_next(rt, bi, next, n);
	return n;
}
VPK_NODE_FN_OBJ(ethernet_input, VPK_FN(ethernet_input_fn));

#if VPK_VEC_BITS == 0
static const char *const eth_next[] = { "ip4-input", "ip6-input", "error-drop" };
static const char *const eth_errors[] = {
	"frame shorter than its Ethernet header",
	"unknown EtherType",
	"more than two VLAN tags",
};

static void
eth_trace(const struct vpk_node_rt *rt, const struct vpk_buf *b, char *out, size_t len)
{
	const uint8_t *d = vpk_buf_area((struct vpk_buf *)b) + b->l2_off;

	(void)rt;
	snprintf(out, len, "%02x:%02x:%02x:%02x:%02x:%02x -> %02x:%02x:%02x:%02x:%02x:%02x l3 at +%u",
		 d[6], d[7], d[8], d[9], d[10], d[11], d[0], d[1], d[2], d[3], d[4], d[5],
		 (unsigned)(b->l3_off - b->l2_off));
}

VPK_NODE_VARIANTS(ethernet_input);
const struct vpk_node_reg ethernet_input_reg = {
	.name = "ethernet-input",
	.n_next = ETH_N_NEXT,
	.next_names = eth_next,
	.n_errors = ETH_N_ERROR,
	.error_strings = eth_errors,
	.impls = ethernet_input_impls,
	.format_trace = eth_trace,
};
#endif
