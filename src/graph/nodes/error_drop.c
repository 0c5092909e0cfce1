/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * error-drop: the end of every dropped packet. The node that dropped it has
 * already counted the reason (its own error counter, VPP's `show errors`)
 * and set vpk_buf::error; this node frees the buffers and counts the total.
 */
#include <stdio.h>

#include "graph/graph_priv.h"

enum { DROP_ERROR_DROPPED, DROP_N_ERROR };

static uint32_t
VPK_FN(error_drop_fn)(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	(void)b;
	vpk_node_count_error(rt, DROP_ERROR_DROPPED, n);
	vpk_pool_free_bulk(vpk_node_pool(rt), bi, n);
	return n;
}

static const char *const drop_errors[] = { "packets dropped" };

VPK_NODE_TRACE(drop_trace)
{
	const char *node = "?", *why = vpk_graph_error_string(vpk_node_graph(rt), b->error, &node);

	snprintf(out, len, "%s: %s", node, why != NULL ? why : "(no reason recorded)");
}

VPK_NODE_REGISTER(error_drop, VPK_FN(error_drop_fn), .name = "error-drop", .n_errors = DROP_N_ERROR,
		  .error_strings = drop_errors, .format_trace = drop_trace);
