/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The forwarder's graphs: the input node's packet templates, adding a node
 * with its configuration, naming a node's error counter, building the graph
 * of one worker (input -> ethernet-input -> ... -> interface-output) and
 * dropping them all. Called by the run loop (fwd_run.c), the workers
 * (fwd_workers.c, fwd_wide.c), the interfaces (fwd_io.c) and the tunnel
 * feature (fwd_tunnel.c); it calls none of them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fwd/fwd_priv.h"

const char *const fwd_input_next[] = { "ethernet-input" };

int
fwd_input_init(struct vpk_node_rt *rt, void *conf)
{
	vpk_node_set_ctx(rt, conf);
	return conf != NULL ? 0 : -EINVAL;
}

uint32_t
fwd_mem_frame(struct vpk_node_rt *rt, const struct vpk_fwd *f, const uint32_t *order, size_t n_order,
	      uint64_t done, uint64_t left)
{
	void *base = vpk_node_pool_base(rt);
	uint32_t idx[VPK_FRAME_SIZE], got;

	got = vpk_pool_alloc_burst(f->pool, idx, left < VPK_FRAME_SIZE ? (uint32_t)left : VPK_FRAME_SIZE);
	for (uint32_t i = 0; i < got; i++) {
		struct vpk_buf *x = vpk_buf_from_idx(base, idx[i]);
		size_t t = order != NULL ? order[(done + i) % n_order] : (size_t)((done + i) % f->n_tmpl);

		memcpy(vpk_buf_data(x), f->tmpl + t * FWD_TMPL_MAX, f->tmpl_len[t]);
		x->len = x->total_len = f->tmpl_len[t];
		x->rx_if = 0;
		vpk_node_trace_mark(rt, x);
	}
	vpk_node_enqueue_one(rt, idx, 0, got);
	return got;
}

/* Graph contributions of features in other files (see fwd_priv.h); one line each. */
static const fwd_graph_hook graph_hooks[] = {
	NULL,
	fwd_tunnel_graph,
	fwd_icmp_graph,
	fwd_l2_graph,
	fwd_if_state_graph,     /* after fwd_l2_graph: replaces ethernet-input's conf */
};

uint64_t
fwd_node_error(struct vpk_graph *g, const char *node, uint16_t code)
{
	struct vpk_node_stats st;
	uint64_t c = 0;

	for (size_t i = 0; i < vpk_graph_n_nodes(g); i++)
		if (vpk_graph_get_node_stats(g, i, &st) == 0 && strcmp(st.name, node) == 0)
			vpk_graph_node_error(g, i, code, NULL, &c);
	return c;
}

/*
 * Build one graph instance: @input is the input node, @input_ctx its
 * configuration; everything else is the forwarder's.
 */
int
fwd_build_graph(struct vpk_fwd *f, const char *input, void *input_ctx, const char *input2,
		void *input2_ctx, unsigned worker, struct vpk_graph **out, char *err, size_t len)
{
	const char *nodes[VPK_GRAPH_MAX_NODES + 1] = {
		input, "ethernet-input", "ip4-input", "ip6-input", "ip4-lookup", "ip6-lookup",
		"ip4-rewrite", "ip6-rewrite", "interface-output", "error-drop", NULL
	};
	size_t n_nodes = 10;
	struct vpk_node_conf nc[VPK_GRAPH_MAX_NODES + 32];
	size_t n_nc = 0;
	struct vpk_graph_conf gc = { .pool = f->pool, .nodes = nodes, .node_conf = nc,
				     .isa = f->conf.isa, .trace = f->conf.trace, .worker = worker,
				     .max_bits = f->graph_max_bits };
	int rc = 0;

	nc[n_nc++] = (struct vpk_node_conf){ .node = input, .conf = input_ctx };
	if (input2 != NULL) {
		/* A second input node (returns from a wide-core worker). */
		nodes[n_nodes++] = input2;
		nc[n_nc++] = (struct vpk_node_conf){ .node = input2, .conf = input2_ctx };
	}
	nc[n_nc++] = (struct vpk_node_conf){ .node = "ip4-lookup", .conf = f->fib4 };
	nc[n_nc++] = (struct vpk_node_conf){ .node = "ip6-lookup", .conf = f->fib6 };
	nc[n_nc++] = (struct vpk_node_conf){ .node = "ip4-rewrite", .conf = &f->adjt };
	nc[n_nc++] = (struct vpk_node_conf){ .node = "ip6-rewrite", .conf = &f->adjt };
	nc[n_nc++] = (struct vpk_node_conf){ .node = "interface-output",
					     .conf = f->conf.workers > 1 ? &f->out_mt : &f->out };
	/* The ACL stage joins the graph only when rules are loaded. */
	if (f->acl4.acl != NULL) {
		nodes[n_nodes++] = "ip4-acl";
		nc[n_nc++] = (struct vpk_node_conf){ .node = "ip4-acl", .conf = &f->acl4.nc };
	}
	if (f->acl6.acl != NULL) {
		nodes[n_nodes++] = "ip6-acl";
		nc[n_nc++] = (struct vpk_node_conf){ .node = "ip6-acl", .conf = &f->acl6.nc };
	}
	nodes[n_nodes] = NULL;
	{
		struct fwd_graph fg = { nodes, n_nodes, VPK_GRAPH_MAX_NODES + 1, nc, n_nc,
					sizeof(nc) / sizeof(nc[0]) - f->conf.n_node_variants };

		for (size_t i = 0; i < sizeof(graph_hooks) / sizeof(graph_hooks[0]); i++) {
			if (graph_hooks[i] == NULL)
				continue;
			rc = graph_hooks[i](f, &fg, err, len);
			if (rc != 0)
				return rc;
		}
		n_nodes = fg.n_nodes;
		n_nc = fg.n_nc;
	}
	for (size_t i = 0; i < f->conf.n_node_variants; i++) {
		const struct vpk_node_conf *v = &f->conf.node_variants[i];
		size_t k;

		for (k = 0; k < n_nc; k++)
			if (strcmp(nc[k].node, v->node) == 0)
				break;
		if (k == n_nc)
			nc[n_nc++] = (struct vpk_node_conf){ .node = v->node };
		nc[k].isa = v->isa;
		nc[k].variant = v->variant;
	}
	gc.n_node_conf = n_nc;
	rc = vpk_graph_create(&gc, out);
	if (rc != 0)
		vpk_errf(err, len, rc, "%s", vpk_last_error());
	return rc;
}

/* Destroy every graph (the main one and the workers'). */
void
fwd_drop_graphs(struct vpk_fwd *f)
{
	vpk_graph_destroy(f->graph);
	f->graph = NULL;
	for (unsigned w = 0; w < f->n_wgraphs; w++)
		vpk_graph_destroy(f->wgraphs[w]);
	f->n_wgraphs = 0;
}
