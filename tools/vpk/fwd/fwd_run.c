/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk_fwd_run(): open the interfaces' pcaps, build the graph (every node's
 * variant picked now, under the current cap, or as forced), run it until
 * the inputs are exhausted and every frame is drained, close the files.
 * The loop's TSC time is returned for Mpps figures; per-node clocks are in
 * the graph's stats.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include "fwd/fwd_priv.h"

const char *const fwd_input_next[] = { "ethernet-input" };

int
fwd_input_init(struct vpk_node_rt *rt, void *conf)
{
	vpk_node_set_ctx(rt, conf);
	return conf != NULL ? 0 : -EINVAL;
}

void
fwd_fill_templates(struct vpk_node_rt *rt, const struct vpk_fwd *f, const uint32_t *order,
		   size_t n_order, uint64_t done, const uint32_t *idx, uint32_t got)
{
	void *base = vpk_node_pool_base(rt);

	for (uint32_t i = 0; i < got; i++) {
		struct vpk_buf *x = vpk_buf_from_idx(base, idx[i]);
		size_t t = order != NULL ? order[(done + i) % n_order] : (size_t)((done + i) % f->n_tmpl);

		memcpy(vpk_buf_data(x), f->tmpl + t * FWD_TMPL_MAX, f->tmpl_len[t]);
		x->len = x->total_len = f->tmpl_len[t];
		x->rx_if = 0;
		vpk_node_trace_mark(rt, x);
	}
}

int
fwd_graph_add(struct fwd_graph *fg, const char *node, void *conf)
{
	size_t i;

	for (i = 0; i < fg->n_nodes; i++)
		if (strcmp(fg->nodes[i], node) == 0)
			break;
	if (i == fg->n_nodes) {
		if (fg->n_nodes + 1 >= fg->max_nodes)
			return -ENOSPC;
		fg->nodes[fg->n_nodes++] = node;
		fg->nodes[fg->n_nodes] = NULL;
	}
	if (conf != NULL) {
		if (fg->n_nc == fg->max_nc)
			return -ENOSPC;
		fg->nc[fg->n_nc++] = (struct vpk_node_conf){ .node = node, .conf = conf };
	}
	return 0;
}

/* Graph contributions of features in other files (see fwd_priv.h); one line each. */
static const fwd_graph_hook graph_hooks[] = {
	NULL,
	fwd_tunnel_graph,
};

uint64_t
fwd_node_error(struct vpk_graph *g, const char *node, uint16_t code)
{
	struct vpk_node_stats st;
	uint64_t c = 0;

	for (size_t i = 0; i < vpk_graph_n_nodes(g); i++)
		if (vpk_graph_node_stats(g, i, &st) == 0 && strcmp(st.name, node) == 0)
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
		vpk_errf(err, len, rc, "%s", vpk_graph_last_error());
	return rc;
}

/*
 * Like the nodes, the FIBs' and the classifier's variants follow the cap of
 * this run (the classifier's unless forced with --alg).
 */
static int
select_variants(struct vpk_fwd *f, char *err, size_t len)
{
	vpk_fib_select(f->fib4, "auto");
	vpk_fib6_select(f->fib6, "auto");
	for (int v6 = 0; v6 < 2; v6++) {
		struct fwd_acl *a = v6 ? &f->acl6 : &f->acl4;
		const char *want = f->conf.acl_impl ? (strcmp(f->conf.acl_impl, "sse") == 0 ? "sse42"
											  : f->conf.acl_impl)
						    : "auto";
		int rc;

		if (a->acl == NULL)
			continue;
		rc = vpk_acl_set_impl(a->acl, want);
		if (rc != 0)
			return vpk_errf(err, len, rc, "ACL variant '%s' cannot run under cap %u", want,
				    vpk_get_max_simd_bitwidth());
	}
	return 0;
}

void
fwd_drop_graphs(struct vpk_fwd *f)
{
	vpk_graph_destroy(f->graph);
	f->graph = NULL;
	for (unsigned w = 0; w < f->n_wgraphs; w++)
		vpk_graph_destroy(f->wgraphs[w]);
	f->n_wgraphs = 0;
}

int
vpk_fwd_run(struct vpk_fwd *f, struct vpk_fwd_run_stats *st, char *err, size_t len)
{
	bool mem = f->n_tmpl > 0;
	struct vpk_fwd_run_stats s = { 0 };
	uint64_t t0;
	int rc;

	fwd_drop_graphs(f);
	f->io_rc = 0;
	f->io_err[0] = '\0';
	f->rr = 0;
	f->traffic_done = 0;
	rc = select_variants(f, err, len);
	if (rc != 0)
		return rc;
	rc = fwd_io_open(f, !mem, err, len);
	if (rc != 0) {
		fwd_io_close(f, &rc, NULL, 0);
		return rc;
	}
	if (f->conf.workers > 1 || f->conf.wide_cores != NULL) {
		rc = fwd_run_workers(f, mem, &s, err, len);
		if (rc != 0) {
			fwd_io_close(f, &rc, NULL, 0);
			return rc;
		}
	} else {
		rc = fwd_build_graph(f, fwd_input_name(f), f, NULL, NULL, 0, &f->graph, err, len);
		if (rc != 0) {
			fwd_io_close(f, &rc, NULL, 0);
			return rc;
		}
		t0 = __rdtsc();
		for (;;) {
			uint32_t n = vpk_graph_run_once(f->graph);

			s.packets += n;
			if (n == 0 && fwd_io_inputs_done(f, mem))
				break;
			if (n == 0)
				fwd_io_idle(f);         /* live ports: poll up to 1 ms */
		}
		s.tsc = __rdtsc() - t0;
		s.forwarded = fwd_node_error(f->graph, "interface-output", 0);
		s.dropped = fwd_node_error(f->graph, "error-drop", 0);
	}
	rc = f->io_rc != 0 ? vpk_errf(err, len, f->io_rc, "%s", f->io_err) : 0;
	fwd_io_close(f, &rc, err, len);
	if (st != NULL)
		*st = s;
	return rc;
}
