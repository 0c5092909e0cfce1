/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ethernet-input: Ethernet II demultiplexing (IEEE 802.3 frames with an
 * EtherType), skipping up to two VLAN tags (802.1Q 0x8100, 802.1ad 0x88a8).
 * Sets l2_off/l3_off and sends IPv4 and IPv6 on; everything else is dropped
 * with a reason. Compiled once per ISA (VPP-style multi-arch node).
 *
 * With a struct vpk_eth_input_conf, frames fresh from a port get router L2
 * input (include/vpk/nodes.h): destination check against the port's MAC,
 * broadcast and subscribed multicast, then VLAN demultiplexing to the
 * sub-interface the tags name. The unicast check is one 8-byte compare
 * (little-endian x86: the two bytes after the MAC shifted out); other
 * frames take a slower path that walks the multicast and VLAN tables.
 *
 * The common IPv4 packet (a header ip4_fast_input() passes) is passed on
 * by this node itself, with ip4-input's work done, to the node ip4-input
 * would send it to (ip4-tunnel-bypass, ip4-acl or ip4-lookup, whichever the
 * graph has first), as VPP's combined ethernet/ip4 fast paths do: one frame
 * pass and one dispatch less per packet. Every other IPv4 packet goes to
 * ip4-input for the full checks, so drops and their reasons are the same.
 * A frame with packets of both kinds sends all its IPv4 packets to
 * ip4-input (which does the same work again), so IPv4 packets keep the
 * order they have when all go there. Graphs that trace keep every packet
 * on the ip4-input arc (their traces name every node).
 *
 * Prefetch: metadata 8 packets ahead, packet data 4 ahead (the data
 * address needs data_off, whose line was prefetched 4 iterations earlier).
 */
#include "graph/nodes/ip4_fast.h"
#include "graph/nodes/nodes.h"

enum {
	ETH_NEXT_IP4, ETH_NEXT_IP6, ETH_NEXT_DROP, ETH_NEXT_IP4_BYPASS, ETH_NEXT_IP4_ACL, ETH_NEXT_IP4_LOOKUP,
	ETH_N_NEXT
};
enum {
	ETH_ERR_SHORT, ETH_ERR_UNKNOWN_TYPE, ETH_ERR_TOO_MANY_TAGS, ETH_ERR_NOT_OURS, ETH_ERR_NO_SUB,
	ETH_ERR_DOWN, ETH_N_ERROR
};

static inline __attribute__((always_inline)) bool
eth_is_tpid(uint16_t et)
{
	return et == VPK_ETHERTYPE_VLAN || et == VPK_ETHERTYPE_QINQ;
}

static inline __attribute__((always_inline)) uint16_t
eth_l3(struct vpk_node_rt *rt, struct vpk_buf *b, uint16_t et, uint32_t off)
{
	b->l2_off = b->data_off;
	b->l3_off = (uint16_t)(b->data_off + off);
	if (et == VPK_ETHERTYPE_IP4)
		return ETH_NEXT_IP4;
	if (et == VPK_ETHERTYPE_IP6)
		return ETH_NEXT_IP6;
	return vpk_node_drop(rt, b, ETH_ERR_UNKNOWN_TYPE, ETH_NEXT_DROP);
}

/* Broadcast or a subscribed multicast destination (@d[0] has the group bit). */
static bool
eth_group_ours(const struct vpk_eth_if *e, const uint8_t *d)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	if (memcmp(d, bcast, 6) == 0)
		return true;
	for (unsigned k = 0; k < e->n_mcast && k < VPK_ETH_MAX_MCAST; k++)
		if (memcmp(d, e->mcast[k], 6) == 0)
			return true;
	return false;
}

/* A tagged frame on port @e: the sub-interface its tags name, else drop. */
static uint16_t
eth_sub(struct vpk_node_rt *rt, const struct vpk_eth_input_conf *c, const struct vpk_eth_if *e,
	struct vpk_buf *b, const uint8_t *d, uint16_t tpid)
{
	uint16_t vid = vpk_rd16be(d + 14) & 0x0fff, inner = 0, et;
	uint32_t off = 18;

	if (b->len < 18)
		return vpk_node_drop(rt, b, ETH_ERR_SHORT, ETH_NEXT_DROP);
	et = vpk_rd16be(d + 16);
	if (eth_is_tpid(et)) {
		if (b->len < 22)
			return vpk_node_drop(rt, b, ETH_ERR_SHORT, ETH_NEXT_DROP);
		inner = vpk_rd16be(d + 18) & 0x0fff;
		et = vpk_rd16be(d + 20);
		off = 22;
		if (eth_is_tpid(et))
			return vpk_node_drop(rt, b, ETH_ERR_TOO_MANY_TAGS, ETH_NEXT_DROP);
		if (inner == 0)         /* an inner priority tag names no VLAN */
			return vpk_node_drop(rt, b, ETH_ERR_NO_SUB, ETH_NEXT_DROP);
	} else if (vid == 0 && tpid == VPK_ETHERTYPE_VLAN) {
		return eth_l3(rt, b, et, off);  /* priority-tagged (802.1p): the port itself */
	}
	for (uint32_t k = e->first_sub; k < (uint32_t)e->first_sub + e->n_sub && k < c->n_sub; k++) {
		const struct vpk_eth_sub *s = &c->subs[k];

		if (s->tpid == tpid && s->outer_vid == vid && s->inner_vid == inner) {
			b->rx_if = s->rx_if;
			return eth_l3(rt, b, et, off);
		}
	}
	return vpk_node_drop(rt, b, ETH_ERR_NO_SUB, ETH_NEXT_DROP);
}

/* Router L2 input of a frame not to our unicast MAC, or tagged (len >= 14 checked). Out of
 * line, so it carries its ISA suffix like the node function (vpk scan's policy). */
static __attribute__((noinline)) uint16_t
VPK_FN(eth_port)(struct vpk_node_rt *rt, const struct vpk_eth_input_conf *c, struct vpk_buf *b,
	 const uint8_t *d, uint16_t et)
{
	const struct vpk_eth_if *e = &c->ifs[b->rx_if];

	if (memcmp(d, e->mac, 6) != 0 && !e->promisc && ((d[0] & 1) == 0 || !eth_group_ours(e, d)))
		return vpk_node_drop(rt, b, ETH_ERR_NOT_OURS, ETH_NEXT_DROP);
	if (eth_is_tpid(et))
		return eth_sub(rt, c, e, b, d, et);
	return eth_l3(rt, b, et, 14);
}

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
	while (eth_is_tpid(et)) {
		if (++tags > 2)
			return vpk_node_drop(rt, b, ETH_ERR_TOO_MANY_TAGS, ETH_NEXT_DROP);
		if (b->len < off + 4)
			return vpk_node_drop(rt, b, ETH_ERR_SHORT, ETH_NEXT_DROP);
		et = vpk_rd16be(d + off + 2);
		off += 4;
	}
	return eth_l3(rt, b, et, off);
}

/*
 * With a configuration. Fast path: an untagged IPv4 / IPv6 frame to the
 * MAC of the port of the previous frame: one 8-byte compare (the frame has
 * 14 bytes, the entry mac[6] and two more; little-endian x86: the top two
 * bytes shifted out). Everything else takes eth_port().
 */
static inline __attribute__((always_inline)) uint16_t
eth_one_l2(struct vpk_node_rt *rt, const struct vpk_eth_input_conf *c, struct vpk_buf *b,
	   uint32_t *last, uint64_t *mx)
{
	const uint8_t *d = vpk_buf_data(b);
	uint64_t dx;
	uint16_t et;

	if (__builtin_expect((b->flags & VPK_BUF_F_INNER) != 0, 0))
		return eth_one(rt, b);
	if (b->rx_if != *last) {
		if (b->rx_if >= c->n_if)
			return eth_one(rt, b);
		if (c->ifs[b->rx_if].down)      /* never cached in *last: each of its frames comes here */
			return vpk_node_drop(rt, b, ETH_ERR_DOWN, ETH_NEXT_DROP);
		*last = b->rx_if;
		memcpy(mx, c->ifs[*last].mac, 8);
	}
	if (b->len < 14)
		return vpk_node_drop(rt, b, ETH_ERR_SHORT, ETH_NEXT_DROP);
	memcpy(&dx, d, 8);
	et = vpk_rd16be(d + 12);
	if (__builtin_expect(((dx ^ *mx) << 16) == 0, 1) &&
	    __builtin_expect(et == VPK_ETHERTYPE_IP4 || et == VPK_ETHERTYPE_IP6, 1)) {
		b->l2_off = b->data_off;
		b->l3_off = (uint16_t)(b->data_off + 14);
		return et == VPK_ETHERTYPE_IP4 ? ETH_NEXT_IP4 : ETH_NEXT_IP6;
	}
	return VPK_FN(eth_port)(rt, c, b, d, et);
}

/* The arc ip4-input sends a good packet on (ETH_NEXT_IP4 itself: no fast path in this graph). */
static inline __attribute__((always_inline)) uint16_t
eth_ip4_fast_arc(const struct vpk_node_rt *rt)
{
	if (rt->g->tracing || rt->next_node[ETH_NEXT_IP4] == VPK_ARC_NONE)
		return ETH_NEXT_IP4;
	for (uint16_t a = ETH_NEXT_IP4_BYPASS; a <= ETH_NEXT_IP4_LOOKUP; a++)
		if (rt->next_node[a] != VPK_ARC_NONE)
			return a;
	return ETH_NEXT_IP4;
}

/*
 * The IPv4 packets of the frame (arc ETH_NEXT_IP4) past ip4-input on arc
 * @fast: a second loop, whose few live values stay in registers, over
 * metadata and headers the first one brought into L1.
 */
static inline __attribute__((always_inline)) void
eth_ip4_fast(struct vpk_buf **b, uint16_t *next, uint32_t n, uint16_t fast)
{
	bool slow = false, passed = false;

	for (uint32_t i = 0; i < n; i++) {
		if (next[i] != ETH_NEXT_IP4)
			continue;
		if (__builtin_expect(ip4_fast_input(b[i], vpk_buf_area(b[i]) + b[i]->l3_off, vpk_l3_left(b[i])), 1)) {
			next[i] = fast;
			passed = true;
		} else {
			slow = true;
		}
	}
	if (__builtin_expect(slow && passed, 0))        /* both kinds: all to ip4-input, in order */
		for (uint32_t i = 0; i < n; i++)
			if (next[i] == fast)
				next[i] = ETH_NEXT_IP4;
}

static uint32_t
VPK_FN(ethernet_input_fn)(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	const struct vpk_eth_input_conf *c = vpk_node_ctx(rt);
	uint16_t next[VPK_FRAME_SIZE];
	uint32_t last = UINT32_MAX;
	uint64_t mx = 0;
	uint16_t fast = eth_ip4_fast_arc(rt);

	uint32_t i = 0;

	for (; i + 8 < n; i++) {
		__builtin_prefetch(b[i + 8]);
		__builtin_prefetch(vpk_buf_data(b[i + 4]));
		next[i] = c != NULL ? eth_one_l2(rt, c, b[i], &last, &mx) : eth_one(rt, b[i]);
	}
	for (; i < n; i++) {
		if (i + 4 < n)
			__builtin_prefetch(vpk_buf_data(b[i + 4]));
		next[i] = c != NULL ? eth_one_l2(rt, c, b[i], &last, &mx) : eth_one(rt, b[i]);
	}
	if (fast != ETH_NEXT_IP4)
		eth_ip4_fast(b, next, n, fast);
	vpk_node_enqueue_to_next(rt, bi, next, n);
	return n;
}

static const char *const eth_next[] = { "ip4-input", "ip6-input", "error-drop", "ip4-tunnel-bypass", "ip4-acl",
					 "ip4-lookup" };
static const char *const eth_errors[] = {
	"frame shorter than its Ethernet header",
	"unknown EtherType",
	"more than two VLAN tags",
	"destination MAC is another host's (not ours, broadcast or subscribed multicast)",
	"VLAN tag(s) of no sub-interface",
	"port is administratively down",
};

VPK_NODE_TRACE(eth_trace)
{
	const uint8_t *d = vpk_buf_area((struct vpk_buf *)b) + b->l2_off;

	snprintf(out, len, "%02x:%02x:%02x:%02x:%02x:%02x -> %02x:%02x:%02x:%02x:%02x:%02x l3 at +%u",
		 d[6], d[7], d[8], d[9], d[10], d[11], d[0], d[1], d[2], d[3], d[4], d[5],
		 (unsigned)(b->l3_off - b->l2_off));
}

VPK_NODE_REGISTER(ethernet_input, VPK_FN(ethernet_input_fn), .name = "ethernet-input", .n_next = ETH_N_NEXT,
		  .next_names = eth_next, .n_errors = ETH_N_ERROR, .error_strings = eth_errors,
		  .init = graph_node_init_conf, .format_trace = eth_trace);
