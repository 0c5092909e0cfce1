/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * interface-output: hand packets to their output interface (vpk_buf::tx_if)
 * through the configured struct vpk_if_output callback: one call per
 * interface present in the frame, each with that interface's packets in
 * arrival order. The callback owns the buffers. Without a callback every
 * packet is freed and counted as "no output configured", so nothing is
 * ever lost track of.
 */
#include "graph/nodes/if_output.h"

static uint32_t
VPK_FN(interface_output_fn)(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	return if_output_frame(rt, b, bi, n);
}

static const char *const out_errors[] = {
	"packets handed to an interface",
	"no output configured (freed)",
};

VPK_NODE_TRACE(out_trace)
{
	snprintf(out, len, "tx if %u, %u bytes", b->tx_if, b->len);
}

VPK_NODE_REGISTER(interface_output, VPK_FN(interface_output_fn), .name = "interface-output",
		  .n_errors = OUT_N_ERROR, .error_strings = out_errors, .init = graph_node_init_conf,
		  .format_trace = out_trace);
