/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_ICMP_H
#define VPK_ICMP_H
/**
 * @file
 * The router's own addresses and the ICMP nodes (give the conf through
 * vpk_graph_conf::node_conf, keyed by node name; it must stay valid while
 * the graph exists).
 *
 *   node             next arcs                              conf
 *   ip4-icmp-error   ip4-lookup, error-drop, ip4-local      struct vpk_icmp_conf
 *   ip6-icmp-error   ip6-lookup, error-drop, ip6-local      struct vpk_icmp_conf
 *   ip4-local        ip4-lookup, error-drop, ip4-icmp-error struct vpk_icmp_conf
 *   ip6-local        ip6-lookup, error-drop, ip6-icmp-error struct vpk_icmp_conf
 *
 * When a graph has the ICMP nodes: ip4-input / ip6-input send packets whose
 * TTL / hop limit expires to the icmp-error node (Time Exceeded); ip4-lookup
 * / ip6-lookup send packets without a route there (Destination Unreachable)
 * and packets whose route has next hop VPK_NH_LOCAL (the router's own
 * addresses) to ip4-local / ip6-local; srv6-end-m-gtp4-e sends a Segments
 * Left != 0 there (Parameter Problem). Without them those packets are
 * dropped and counted as before.
 */
#include <stdint.h>

#include <vpk/isa.h>

#ifdef __cplusplus
extern "C" {
#endif

/** FIB next hop of the router's own addresses: delivered to ip4-local / ip6-local. */
#define VPK_NH_LOCAL 0x7fffffffu

/** One address of the router, on interface @p if_index. IPv4: the first 4 bytes. */
struct vpk_icmp_addr {
	uint32_t if_index;
	uint8_t is_ip6;
	uint8_t plen;
	uint8_t addr[16];
};

/** Conf of the ICMP nodes. */
struct vpk_icmp_conf {
	const struct vpk_icmp_addr *addr;       /**< Sources of the errors; what ip*-local answers for. */
	uint32_t n_addr;
	uint32_t rate;          /**< ICMP errors per second per worker (token bucket refill); 0: none sent. */
	uint32_t burst;         /**< Bucket size (errors that may leave back to back). */
};

struct vpk_graph;

/**
 * Give the ICMP nodes of graph @p g a new conf while the graph may run on
 * another thread: each node takes it whole at its next frame (its rate
 * limiter keeps its tokens). Keep the old conf valid until the graph's
 * thread has passed a quiescent state (include/vpk/qsbr.h). Which packets
 * reach ip4-local / ip6-local is decided by the FIB (VPK_NH_LOCAL routes).
 * @return 0, or -EINVAL (@p g has no ICMP node, or @p conf is NULL).
 */
VPK_API int vpk_icmp_set_conf(struct vpk_graph *g, const struct vpk_icmp_conf *conf);

#ifdef __cplusplus
}
#endif

#endif /* VPK_ICMP_H */
