/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_NODES_H
#define VPK_NODES_H

/**
 * @file
 * Configuration of vpk's built-in graph nodes (give it through
 * vpk_graph_conf::node_conf, keyed by node name).
 *
 *   node             next arcs                              conf
 *   ethernet-input   ip4-input, ip6-input, error-drop       struct vpk_eth_input_conf (NULL: take every frame)
 *   ip4-input        ip4-acl, ip4-lookup, error-drop        -  (ip4-acl used when in the graph)
 *   ip4-acl          ip4-lookup, ip4-rewrite, error-drop,   struct vpk_acl_node_conf
 *                    ip4-icmp-error
 *   ip6-acl          ip6-lookup, ip6-rewrite, error-drop,   struct vpk_acl_node_conf
 *                    ip6-icmp-error
 *   ip6-input        ip6-acl, ip6-lookup, error-drop        -
 *   ip4-lookup       ip4-rewrite, error-drop                struct vpk_fib (next hop 0 = no route)
 *   ip6-lookup       ip6-rewrite, error-drop                struct vpk_fib6 (next hop 0 = no route)
 *   (ip4/ip6-input and -lookup also lead to the ICMP nodes when the graph
 *   has them: vpk/icmp.h)
 *   ip4-rewrite      interface-output, error-drop           struct vpk_adj_table
 *   ip6-rewrite      interface-output, error-drop           struct vpk_adj_table
 *   interface-output -                                      struct vpk_if_output
 *   error-drop       -                                      -
 *
 * Buffer offsets: ethernet-input sets vpk_buf::l2_off and l3_off;
 * ip4-input / ip6-input set l4_off, l4_proto and the fragment flags
 * (VPK_BUF_F_FRAG, VPK_BUF_F_FRAG_LATER) from the header chain (IPv6:
 * extension headers walked, at most VPK_IP6_MAX_EXT of them); lookups set
 * vpk_buf::adj; rewrites set vpk_buf::tx_if.
 */
#include <stdint.h>
#include <vpk/buf.h>

#ifdef __cplusplus
extern "C" {
#endif

/** ip6-input drops a packet with more IPv6 extension headers than this
 *  (counted): the walk is bounded, and real traffic carries at most a few
 *  (RFC 8200 recommends an order with each type at most once or twice). */
#define VPK_IP6_MAX_EXT 8

/** One adjacency (next hop): what ip4/ip6-rewrite writes and where the packet goes. */
struct vpk_adj {
	uint8_t dst_mac[6];     /**< Neighbor's MAC. */
	uint8_t src_mac[6];     /**< Our MAC on tx_if. */
	uint32_t tx_if;         /**< Output interface. */
	uint8_t valid;          /**< 0: no neighbor known (packets dropped, counted). */
	uint8_t n_paths;        /**< > 0: equal-cost multipath: the packet's flow hash picks one of the
				     n_paths entries that follow this one (the rest of it is unused). */
};

/** Adjacencies indexed by the next-hop value a FIB lookup returns. Read-only while graphs run. */
struct vpk_adj_table {
	uint32_t n;                     /**< Entries; next hops >= n are dropped as "no adjacency". */
	const struct vpk_adj *adj;
};

/**
 * Output for interface-output: called with packets grouped by tx_if (in
 * arrival order within each interface). The callback owns the buffers from
 * then on: it must free every one (after transmitting or failing to).
 */
struct vpk_if_output {
	void (*tx)(void *ctx, uint32_t tx_if, const uint32_t *bi, uint32_t n);
	void *ctx;
};

/** Subscribed multicast MACs per interface in struct vpk_eth_if. */
#define VPK_ETH_MAX_MCAST 8

/** ethernet-input: what one port (vpk_buf::rx_if) takes. */
struct vpk_eth_if {
	uint8_t mac[6];                 /**< Our unicast address on this port. */
	uint8_t promisc;                /**< 1: every destination taken (no L2 filter). */
	uint8_t n_mcast;                /**< Entries of mcast[] (broadcast is always taken). */
	uint8_t mcast[VPK_ETH_MAX_MCAST][6];    /**< Subscribed multicast destinations. */
	uint16_t first_sub;             /**< This port's sub-interfaces: subs[first_sub .. +n_sub). */
	uint16_t n_sub;
	uint8_t down;                   /**< 1: administratively down: every frame dropped and counted. */
};

/** ethernet-input: one VLAN sub-interface (802.1Q, or 802.1ad / QinQ with two tags). */
struct vpk_eth_sub {
	uint16_t tpid;                  /**< Outer tag's TPID: 0x8100 (802.1Q) or 0x88a8 (802.1ad). */
	uint16_t outer_vid;             /**< Outer VLAN ID (1..4094). */
	uint16_t inner_vid;             /**< Inner 802.1Q VLAN ID; 0: the frame has one tag. */
	uint32_t rx_if;                 /**< vpk_buf::rx_if given to its frames (the sub-interface). */
};

/**
 * ethernet-input configuration: L2 input as a router does it. A frame as its
 * port delivered it (rx_if < n_if, VPK_BUF_F_INNER clear) is
 * taken when its destination is the port's MAC, broadcast, or a subscribed
 * multicast address (any destination when promisc); other unicast is dropped
 * ("destination MAC is another host's"). An untagged frame stays on its port;
 * a tagged frame takes the sub-interface its tag(s) name (rx_if rewritten,
 * l3_off after the tags) or is dropped ("VLAN tag of no sub-interface").
 * Frames of other rx_if values, and inner frames of tunnels (VPK_BUF_F_INNER,
 * set by vxlan-input), are taken as without a configuration: tags skipped.
 */
struct vpk_eth_input_conf {
	uint32_t n_if;
	const struct vpk_eth_if *ifs;   /**< Indexed by vpk_buf::rx_if. */
	uint32_t n_sub;
	const struct vpk_eth_sub *subs;
};

/** ACL actions (struct vpk_acl_node_conf::action values). */
#define VPK_ACL_ACT_PERMIT (-2)   /**< continue to ip4-lookup / ip6-lookup */
#define VPK_ACL_ACT_DENY   (-1)   /**< drop, counted as "denied by rule" */
/* Values >= 1 send the packet straight to that adjacency (ip4/ip6-rewrite),
 * bypassing the FIB: DPDK l3fwd-acl's "R" rules. */

struct vpk_acl;

/** What ip4-acl / ip6-acl do with non-first fragments (vpk_acl_node_conf::frag_policy). */
enum vpk_acl_frag_policy {
	/** A non-first fragment carries no L4 header, so it matches only rules
	 *  without port constraints (classified in vpk_acl_node_conf::acl_frag),
	 *  as iptables and VPP's ACL plugin do. The first fragment, which holds
	 *  the ports, meets the port rules; denying it stops reassembly. */
	VPK_ACL_FRAG_PORTLESS = 0,
	/** Every non-first fragment is dropped (counted). */
	VPK_ACL_FRAG_DROP = 1,
};

/**
 * ip4-acl / ip6-acl: classify each packet's 5-tuple with @p acl (built on
 * the dpdk-test-acl layout, vpk_acl5_layout()) in category 0 and act on the
 * matching rule's userdata.
 *
 * The tuple is what the header chain says: the protocol is vpk_buf::l4_proto
 * (after IPv6 extension headers) and the ports are the first 4 bytes at
 * vpk_buf::l4_off, as ip4-input / ip6-input set them. Packets the tuple
 * cannot be read from honestly are dropped, each reason counted: an L4
 * header shorter than the 4 bytes of ports (a truncated packet or a tiny
 * first fragment, RFC 1858 / RFC 7112), a TCP fragment at offset 8 that
 * would overlap the TCP header (RFC 1858), and non-first fragments as
 * @p frag_policy says.
 */
struct vpk_acl_node_conf {
	const struct vpk_acl *acl;      /**< NULL: every packet takes @p no_match. */
	/** The rules of @p acl whose source and destination port ranges are both
	 *  0-65535, with the same priorities and userdata: non-first fragments
	 *  are classified here under VPK_ACL_FRAG_PORTLESS. NULL: there are no
	 *  such rules (non-first fragments take @p no_match). */
	const struct vpk_acl *acl_frag;
	const int32_t *action;          /**< action[userdata], userdata 1..n_action-1. */
	uint32_t n_action;
	int32_t no_match;               /**< Action when no rule matches (userdata 0). */
	enum vpk_acl_frag_policy frag_policy;
	/** A packet denied by a rule (action VPK_ACL_ACT_DENY) is also answered with
	 *  ICMP Destination Unreachable, "communication administratively
	 *  prohibited" (IPv4 type 3 code 13, RFC 1812 §5.2.7.1; ICMPv6 type 1
	 *  code 1, RFC 4443 §3.1), through ip4-icmp-error / ip6-icmp-error when
	 *  the graph has them (rate-limited and counted there, vpk/icmp.h).
	 *  Packets that match no rule are dropped silently whatever @p no_match. */
	bool deny_icmp;
};

#ifdef __cplusplus
}
#endif

#endif /* VPK_NODES_H */
