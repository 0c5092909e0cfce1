/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip4-rewrite and ip6-rewrite: turn a routed packet into a frame for its
 * next hop. vpk_buf::adj (set by the lookup) indexes the adjacency table;
 * the node writes a fresh Ethernet header in front of the L3 header (any
 * VLAN tags of the received frame are gone), decrements TTL / hop limit,
 * updates the IPv4 checksum incrementally (RFC 1624 eqn. 3:
 * HC' = ~(~HC + ~m + m'), exact including the 0x0000/0xffff case), sets
 * tx_if and hands the packet to interface-output. An adjacency out of range
 * or without a known neighbor is dropped with its own counter. An ECMP
 * adjacency (n_paths > 0) stands for the n_paths entries after it: the
 * packet's flow hash picks one (rw_flow_hash()).
 *
 * ip4-input/ip6-input already dropped TTL <= 1, so the decrement never
 * reaches 0 here.
 *
 * A frame whose packets all go out is handed to interface-output's work
 * right here when interface-output could run it now with the same result
 * (graph_sink_now(): nothing of it queued, not remote, no trace), as VPP's
 * rewrite nodes hand packets to an interface's tx node: one frame, one
 * dispatch and one pointer conversion less per frame, the metadata still
 * in L1. interface-output's counters, calls, vectors and clocks are those
 * it would have counted itself.
 */
#include <stddef.h>

#include "graph/nodes/if_output.h"

enum { RW_NEXT_OUTPUT, RW_NEXT_DROP, RW_N_NEXT };

_Static_assert(offsetof(struct vpk_adj, dst_mac) == 0 && offsetof(struct vpk_adj, src_mac) == 6,
	       "the Ethernet addresses of an adjacency are copied as one 12-byte block");
enum { RW_ERR_NO_ADJ, RW_ERR_NO_NEIGHBOR, RW_N_ERROR };

/*
 * RFC 1624 eqn. 3 for TTL - 1: the word (TTL, protocol) loses 0x0100, so
 * ~m + m' = 0xfeff for any TTL >= 1 (ip4-input let only TTL > 1 through):
 * HC' = ~(~HC + 0xfeff), exact including the 0x0000/0xffff case. The sum is
 * at most 0xffff + 0xfeff, so one fold of the carry ends it.
 */
static inline __attribute__((always_inline)) uint16_t
csum_ttl_dec(uint16_t csum)
{
	uint32_t s = (uint16_t)~csum + 0xfeffu;

	s = (s & 0xffffu) + (s >> 16);
	return (uint16_t)~s;
}

/*
 * Flow hash of an ECMP adjacency (vpk_adj::n_paths): source and destination
 * addresses, and the ports of TCP / UDP / SCTP unless the packet is a
 * fragment (every fragment of a packet takes the same path), folded and
 * mixed (multiplicative hashing). Every packet of a flow takes one path.
 */
static inline __attribute__((always_inline)) uint32_t
rw_flow_hash(struct vpk_buf *b, const uint8_t *l3, uint32_t end, bool is_ip6)
{
	uint32_t h = 0, w;
	const uint8_t *a = l3 + (is_ip6 ? 8 : 12);

	for (unsigned i = 0; i < (is_ip6 ? 8u : 2u); i++) {
		memcpy(&w, a + 4 * i, 4);
		h = (h ^ w) * 0x9e3779b1u;
	}
	if ((b->l4_proto == 6 || b->l4_proto == 17 || b->l4_proto == 132) && !(b->flags & VPK_BUF_F_FRAG) &&
	    (uint32_t)b->l4_off + 4 <= end) {
		memcpy(&w, vpk_buf_area(b) + b->l4_off, 4);
		h = (h ^ w) * 0x9e3779b1u;
	}
	return h ^ (h >> 16);
}

static inline __attribute__((always_inline)) uint16_t
rewrite_one(struct vpk_node_rt *rt, const struct vpk_adj_table t, struct vpk_buf *b, bool is_ip6)
{
	const struct vpk_adj *a;
	uint8_t *l3 = vpk_buf_area(b) + b->l3_off, *eth = l3 - 14;
	uint32_t end = (uint32_t)b->data_off + b->len;

	if (b->adj >= t.n)
		return vpk_node_drop(rt, b, RW_ERR_NO_ADJ, RW_NEXT_DROP);
	a = &t.adj[b->adj];
	if (__builtin_expect(a->n_paths != 0, 0)) {
		uint32_t k = b->adj + 1 + rw_flow_hash(b, l3, end, is_ip6) % a->n_paths;

		if (k >= t.n)
			return vpk_node_drop(rt, b, RW_ERR_NO_ADJ, RW_NEXT_DROP);
		a = &t.adj[k];
	}
	if (!a->valid)
		return vpk_node_drop(rt, b, RW_ERR_NO_NEIGHBOR, RW_NEXT_DROP);
	if (is_ip6) {
		l3[7]--;
	} else {
		uint16_t c = csum_ttl_dec(vpk_rd16be(l3 + 10));

		l3[8]--;
		l3[10] = (uint8_t)(c >> 8);
		l3[11] = (uint8_t)c;
	}
	/* dst_mac and src_mac lie back to back in struct vpk_adj: one 12-byte copy. */
	memcpy(eth, (const void *)a, 12);
	memcpy(eth + 12, is_ip6 ? "\x86\xdd" : "\x08\x00", 2);
	b->l2_off = (uint16_t)(b->l3_off - 14);
	b->data_off = b->l2_off;
	b->len = (uint16_t)(end - b->data_off);
	b->total_len = b->len;
	b->tx_if = a->tx_if;
	return RW_NEXT_OUTPUT;
}

static inline __attribute__((always_inline)) uint32_t
rewrite_frame(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n, bool is_ip6)
{
	/* The table by value: the stores to buffers cannot alias it, so it stays in registers. */
	const struct vpk_adj_table t = *(const struct vpk_adj_table *)vpk_node_ctx(rt);
	uint16_t next[VPK_FRAME_SIZE];
	uint32_t i = 0, out = 0;
	struct vpk_node_rt *sink;

	for (; i + 4 < n; i++) {
		__builtin_prefetch(vpk_buf_area(b[i + 4]) + b[i + 4]->l3_off - 14, 1);
		next[i] = rewrite_one(rt, t, b[i], is_ip6);
		out += next[i] == RW_NEXT_OUTPUT;
	}
	for (; i < n; i++) {
		next[i] = rewrite_one(rt, t, b[i], is_ip6);
		out += next[i] == RW_NEXT_OUTPUT;
	}
	if (out == n && (sink = graph_sink_now(rt, RW_NEXT_OUTPUT)) != NULL) {
		uint64_t t0 = __rdtsc();

		if_output_frame(sink, b, bi, n);
		graph_charge_sink(rt->g, sink, t0, n);
		return n;
	}
	vpk_node_enqueue_to_next(rt, bi, next, n);
	return n;
}

VPK_NODE_FN_IP46(ip4_rewrite, ip6_rewrite, rewrite_frame)

static const char *const rw_next[] = { "interface-output", "error-drop" };
static const char *const rw_errors[] = {
	"next hop has no adjacency",
	"adjacency has no neighbor (MAC) yet",
};
/* An empty table until configured: every packet is dropped as "no adjacency". */
static const struct vpk_adj_table no_adj = { 0, NULL };

VPK_NODE_INIT_CONF_OR(rw_init, no_adj)

VPK_NODE_TRACE(rw_trace)
{
	const struct vpk_adj_table *t = vpk_node_ctx(rt);

	if (b->adj < t->n && t->adj[b->adj].valid) {
		const uint8_t *m = t->adj[b->adj].dst_mac;

		snprintf(out, len, "adj %u -> if %u dst %02x:%02x:%02x:%02x:%02x:%02x", b->adj,
			 t->adj[b->adj].tx_if, m[0], m[1], m[2], m[3], m[4], m[5]);
	} else {
		snprintf(out, len, "adj %u: none", b->adj);
	}
}

/* The registration fields ip4-rewrite and ip6-rewrite share. */
#define RW_NODE .n_next = RW_N_NEXT, .next_names = rw_next, .n_errors = RW_N_ERROR, .error_strings = rw_errors, \
		.init = rw_init, .format_trace = rw_trace
VPK_NODE_REGISTER(ip4_rewrite, VPK_FN(ip4_rewrite_fn), .name = "ip4-rewrite", RW_NODE);
VPK_NODE_REGISTER(ip6_rewrite, VPK_FN(ip6_rewrite_fn), .name = "ip6-rewrite", RW_NODE);
