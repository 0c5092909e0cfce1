/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip4-lookup and ip6-lookup: longest-prefix match of the destination
 * address, a frame at a time. ip4-lookup collects the frame's destinations
 * (host order) and makes one vpk_fib_lookup_bulk() call, so the FIB's own
 * SIMD variant (16 gathers per step on AVX-512) works on the whole frame;
 * the next hop becomes vpk_buf::adj for ip4-rewrite. Next hop 0 means "no
 * route" (the FIB's default next hop is 0; adjacencies are numbered from 1),
 * dropped with its own counter.
 *
 * ip6-lookup: the same with the IPv6 FIB (its default layout: bm6 at the
 * forwarder's 4-byte next hops): the frame's
 * destination addresses (16 network-order bytes each, copied out of the
 * headers) in one vpk_fib6_lookup_bulk() call.
 *
 * With the ICMP nodes in the graph (vpk/icmp.h): no route goes to
 * ip4/ip6-icmp-error (Destination Unreachable: net unreachable / no route),
 * still counted here; next hop VPK_NH_LOCAL to ip4/ip6-local.
 */
#include <vpk/fib.h>
#include <vpk/fib6.h>
#include <vpk/icmp.h>
#include "graph/nodes/icmp_error.h"
#include "graph/nodes/nodes.h"

enum { LK_NEXT_REWRITE, LK_NEXT_DROP, LK_NEXT_ICMP, LK_NEXT_LOCAL, LK_N_NEXT };
enum { LK_ERR_NO_ROUTE, LK_N_ERROR };

/* No route: ICMP unreachable when the graph has the node (the drop already counted); own address: local. */
static inline __attribute__((always_inline)) uint16_t
lookup_special(struct vpk_node_rt *rt, struct vpk_buf *b, uint64_t nh, bool is6)
{
	if (nh == VPK_NH_LOCAL)
		return vpk_node_has_next(rt, LK_NEXT_LOCAL) ? LK_NEXT_LOCAL : LK_NEXT_REWRITE;
	if (!vpk_node_has_next(rt, LK_NEXT_ICMP))
		return vpk_node_drop(rt, b, LK_ERR_NO_ROUTE, LK_NEXT_DROP);
	vpk_node_count_error(rt, LK_ERR_NO_ROUTE, 1);
	vpk_icmp_error_set(b, is6 ? 1 : 3, 0, 0);
	return LK_NEXT_ICMP;
}

/* Next hop -> adjacency, or the drop arc when there is no route; then hand the frame on. */
static inline __attribute__((always_inline)) uint32_t
lookup_finish(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, const uint64_t *nh, uint32_t n,
	      bool is6)
{
	uint16_t next[VPK_FRAME_SIZE];

	for (uint32_t i = 0; i < n; i++) {
		b[i]->adj = (uint32_t)nh[i];
		next[i] = __builtin_expect(nh[i] != 0 && nh[i] != VPK_NH_LOCAL, 1) ? LK_NEXT_REWRITE
										    : lookup_special(rt, b[i], nh[i], is6);
	}
	vpk_node_enqueue_to_next(rt, bi, next, n);
	return n;
}

static uint32_t
VPK_FN(ip4_lookup_fn)(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	const struct vpk_fib *fib = vpk_node_ctx(rt);
	uint32_t dst[VPK_FRAME_SIZE];
	uint64_t nh[VPK_FRAME_SIZE];

	for (uint32_t i = 0; i < n; i++) {
		uint32_t a;

		memcpy(&a, vpk_buf_area(b[i]) + b[i]->l3_off + 16, 4);
		dst[i] = __builtin_bswap32(a);
	}
	if (fib != NULL)
		vpk_fib_lookup_bulk(fib, dst, nh, n);
	else
		memset(nh, 0, n * sizeof(nh[0]));
	return lookup_finish(rt, b, bi, nh, n, false);
}

static uint32_t
VPK_FN(ip6_lookup_fn)(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	const struct vpk_fib6 *fib = vpk_node_ctx(rt);
	uint8_t dst[VPK_FRAME_SIZE][16];
	uint64_t nh[VPK_FRAME_SIZE];

	for (uint32_t i = 0; i < n; i++)
		memcpy(dst[i], vpk_buf_area(b[i]) + b[i]->l3_off + 24, 16);
	if (fib != NULL)
		vpk_fib6_lookup_bulk(fib, (const uint8_t (*)[16])dst, nh, n);
	else
		memset(nh, 0, n * sizeof(nh[0]));
	return lookup_finish(rt, b, bi, nh, n, true);
}

static const char *const lk4_next[] = { "ip4-rewrite", "error-drop", "ip4-icmp-error", "ip4-local" };
static const char *const lk6_next[] = { "ip6-rewrite", "error-drop", "ip6-icmp-error", "ip6-local" };
static const char *const lk_errors[] = { "no route to destination" };

VPK_NODE_TRACE(lk_trace)
{
	snprintf(out, len, "next hop %u%s", b->adj, b->adj == 0 ? " (no route)" : "");
}

/* The registration fields ip4-lookup and ip6-lookup share. */
#define LK_NODE .n_next = LK_N_NEXT, .n_errors = LK_N_ERROR, .error_strings = lk_errors, \
		.init = graph_node_init_conf, .format_trace = lk_trace
VPK_NODE_REGISTER(ip4_lookup, VPK_FN(ip4_lookup_fn), .name = "ip4-lookup", .next_names = lk4_next, LK_NODE);
VPK_NODE_REGISTER(ip6_lookup, VPK_FN(ip6_lookup_fn), .name = "ip6-lookup", .next_names = lk6_next, LK_NODE);
