/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_GRAPH_NODES_IF_OUTPUT_H
#define VPK_GRAPH_NODES_IF_OUTPUT_H

/*
 * interface-output's frame work, shared with ip4-rewrite / ip6-rewrite,
 * which run it themselves on a frame that all goes out (graph_sink_now()):
 * one tx call per interface present in the frame, each with that
 * interface's packets in arrival order; the callback owns the buffers.
 * Counted on interface-output's own counters (@rt is its runtime).
 */
#include "graph/nodes/nodes.h"

enum { OUT_ERR_TX, OUT_ERR_NO_OUTPUT, OUT_N_ERROR };

#define OUT_GROUPS 4
#define OUT_DIRECT 8

static inline __attribute__((always_inline)) uint32_t
if_output_frame(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	const struct vpk_if_output *o = vpk_node_ctx(rt);
	uint32_t total = n;

	if (o == NULL || o->tx == NULL) {
		vpk_node_count_error(rt, OUT_ERR_NO_OUTPUT, n);
		vpk_pool_free_bulk(vpk_node_pool(rt), bi, n);
		return n;
	}
	/* Runs of one interface are the common case of a single output. */
	for (uint32_t i = 1; i < n; i++)
		if (b[i]->tx_if != b[0]->tx_if)
			goto mixed;
	o->tx(o->ctx, b[0]->tx_if, bi, n);
	vpk_node_count_error(rt, OUT_ERR_TX, n);
	return n;
mixed:
	/* Packets for several interfaces interleaved (flows spread over ports):
	 * one call per interface, not per run, each with its packets in
	 * arrival order. Interfaces below OUT_DIRECT are gathered by their
	 * number in one sweep, in the order they first appear; any other goes to
	 * the sweeps below. */
	{
		uint32_t grp[OUT_DIRECT][VPK_FRAME_SIZE], cnt[OUT_DIRECT] = { 0 }, order[OUT_DIRECT], no = 0, rest = 0;

		for (uint32_t i = 0; i < n; i++) {
			uint32_t t = b[i]->tx_if;

			if (__builtin_expect(t >= OUT_DIRECT, 0)) {
				b[rest] = b[i];
				bi[rest++] = bi[i];
				continue;
			}
			if (cnt[t] == 0)
				order[no++] = t;
			grp[t][cnt[t]++] = bi[i];
		}
		for (uint32_t k = 0; k < no; k++)
			o->tx(o->ctx, order[k], grp[order[k]], cnt[order[k]]);
		n = rest;
	}
	while (n > 0) {
		uint32_t grp[OUT_GROUPS][VPK_FRAME_SIZE], cnt[OUT_GROUPS] = { 0 }, ifs[OUT_GROUPS], ng = 0, rest = 0;

		for (uint32_t i = 0; i < n; i++) {
			uint32_t t = b[i]->tx_if, g = 0;

			while (g < ng && ifs[g] != t)
				g++;
			if (g == ng) {
				if (ng == OUT_GROUPS) {     /* more interfaces: the next sweep */
					b[rest] = b[i];
					bi[rest++] = bi[i];
					continue;
				}
				ifs[ng++] = t;
			}
			grp[g][cnt[g]++] = bi[i];
		}
		for (uint32_t g = 0; g < ng; g++)
			o->tx(o->ctx, ifs[g], grp[g], cnt[g]);
		n = rest;
	}
	vpk_node_count_error(rt, OUT_ERR_TX, total);
	return total;
}

#endif
