/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_NODES_H
#define VPK_NODES_H

/**
 * @file
 * Configuration of vpk's built-in graph nodes (give it through
 * vpk_graph_conf::node_conf, keyed by node name).
 *
 *   node             next arcs                              conf
 *   ethernet-input   ip4-input, ip6-input, error-drop       -
 *   ip4-input        ip4-acl, ip4-lookup, error-drop        -  (ip4-acl used when in the graph)
 *   ip4-acl          ip4-lookup, ip4-rewrite, error-drop    struct vpk_acl_node_conf
 *   ip6-acl          ip6-lookup, ip6-rewrite, error-drop    struct vpk_acl_node_conf
 *   ip6-input        ip6-acl, ip6-lookup, error-drop        -
 *   ip4-lookup       ip4-rewrite, error-drop                struct vpk_fib (next hop 0 = no route)
 *   ip6-lookup       ip6-rewrite, error-drop                struct vpk_fib6 (next hop 0 = no route)
 *   ip4-rewrite      interface-output, error-drop           struct vpk_adj_table
 *   ip6-rewrite      interface-output, error-drop           struct vpk_adj_table
 *   interface-output -                                      struct vpk_if_output
 *   error-drop       -                                      -
 *
 * Buffer offsets: ethernet-input sets vpk_buf::l2_off and l3_off; lookups
 * set vpk_buf::adj; rewrites set vpk_buf::tx_if.
 */
#include <stdint.h>
#include <vpk/buf.h>

/** One adjacency (next hop): what ip4/ip6-rewrite writes and where the packet goes. */
struct vpk_adj {
	uint8_t dst_mac[6];     /**< Neighbor's MAC. */
	uint8_t src_mac[6];     /**< Our MAC on tx_if. */
	uint32_t tx_if;         /**< Output interface. */
	uint8_t valid;          /**< 0: no neighbor known (packets dropped, counted). */
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

/** ACL actions (struct vpk_acl_node_conf::action values). */
#define VPK_ACL_ACT_PERMIT (-2)   /**< continue to ip4-lookup / ip6-lookup */
#define VPK_ACL_ACT_DENY   (-1)   /**< drop, counted as "denied by rule" */
/* Values >= 1 send the packet straight to that adjacency (ip4/ip6-rewrite),
 * bypassing the FIB: DPDK l3fwd-acl's "R" rules. */

struct vpk_acl;

/**
 * ip4-acl / ip6-acl: classify each packet's 5-tuple with @p acl (built on
 * the dpdk-test-acl layout, vpk_acl5_layout()) in category 0 and act on the
 * matching rule's userdata.
 */
struct vpk_acl_node_conf {
	const struct vpk_acl *acl;      /**< NULL: every packet takes @p no_match. */
	const int32_t *action;          /**< action[userdata], userdata 1..n_action-1. */
	uint32_t n_action;
	int32_t no_match;               /**< Action when no rule matches (userdata 0). */
};

#endif /* VPK_NODES_H */
