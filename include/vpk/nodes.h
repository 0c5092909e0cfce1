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
 *   ip6-input        ip6-acl, ip6-lookup, error-drop        -
 *   ip4-lookup       ip4-rewrite, error-drop                struct vpk_fib (next hop 0 = no route)
 *   ip6-lookup       ip6-rewrite, error-drop                - (no IPv6 FIB yet: drops, counted)
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

#endif /* VPK_NODES_H */
