/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The forwarder's `show` output. show runtime follows VPP's columns (Calls,
 * Vectors, Clocks = clocks per packet, or per call when no packets,
 * Vectors/Call) with the active variant added; show errors lists every
 * non-zero reason counter; show node lists a node's variants best first with
 * the active one and why others cannot run.
 */
#include <errno.h>
#include <string.h>

#include "bench.h"
#include "fwd/fwd_show.h"

void
fwd_show_add_config(struct fwd_show_opts *so, const char *const *shows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(shows[i], "runtime") == 0)
			so->runtime = true;
		else if (strcmp(shows[i], "errors") == 0)
			so->errors = true;
		else if (strncmp(shows[i], "node ", 5) == 0 && so->n_cfg_nodes < 32)
			so->cfg_nodes[so->n_cfg_nodes++] = shows[i] + 5;
	}
}

double
fwd_mpps(const struct vpk_fwd_run_stats *st)
{
	double sec = (double)st->tsc / bench_tsc_hz();

	return sec > 0 ? (double)st->packets / sec / 1e6 : 0;
}

static double
per_pkt(const struct vpk_node_stats *s)
{
	if (s->vectors > 0)
		return (double)s->clocks / (double)s->vectors;
	return s->calls > 0 ? (double)s->clocks / (double)s->calls : 0;
}

void
fwd_show_runtime(const struct vpk_graph *g)
{
	printf("%-18s %-10s %10s %12s %10s %12s\n", "Name", "Variant", "Calls", "Vectors", "Clocks",
	       "Vectors/Call");
	for (size_t i = 0; i < vpk_graph_n_nodes(g); i++) {
		struct vpk_node_stats s;

		vpk_graph_get_node_stats(g, i, &s);
		if (s.remote) {
			/* Core specialization: this node's frames were handed to another worker;
			 * the clocks are the hand-off's. */
			printf("%-18s %-10s %10llu %12llu %10.2f %12.2f  (handed off%s)\n", s.name, "remote",
			       (unsigned long long)s.calls, (unsigned long long)s.vectors, per_pkt(&s),
			       s.calls ? (double)s.vectors / (double)s.calls : 0.0,
			       s.remote_full ? ", ring was full" : "");
			continue;
		}
		printf("%-18s %-10s %10llu %12llu %10.2f %12.2f\n", s.name, s.variant,
		       (unsigned long long)s.calls, (unsigned long long)s.vectors, per_pkt(&s),
		       s.calls ? (double)s.vectors / (double)s.calls : 0.0);
	}
}

/* The runtime's own drop reasons (struct vpk_graph_drops), as printed. */
static const char *const graph_drop_reason[2] = {
	"out of memory for frames (packets freed)",
	"arc to a node missing from the graph (packets freed)",
};

static void
show_errors(const struct vpk_graph *g)
{
	struct vpk_graph_drops d;
	bool any = false;

	printf("%12s  %-18s %s\n", "Count", "Node", "Reason");
	for (size_t i = 0; i < vpk_graph_n_nodes(g); i++) {
		struct vpk_node_stats s;

		vpk_graph_get_node_stats(g, i, &s);
		for (uint16_t k = 0; k < vpk_graph_node_n_errors(g, i); k++) {
			const char *why;
			uint64_t c;

			vpk_graph_node_error(g, i, k, &why, &c);
			if (c == 0)
				continue;
			printf("%12llu  %-18s %s\n", (unsigned long long)c, s.name, why);
			any = true;
		}
	}
	vpk_graph_get_drops(g, &d);
	for (int k = 0; k < 2; k++) {
		uint64_t c = k ? d.no_arc : d.no_memory;

		if (c != 0) {
			printf("%12llu  %-18s %s\n", (unsigned long long)c, "(graph)", graph_drop_reason[k]);
			any = true;
		}
	}
	if (!any)
		printf("%12s  (no counters)\n", "");
}

static void
show_node(const struct vpk_graph *g, const char *name)
{
	const struct vpk_node_reg *r = vpk_node_find(name);
	const char *active = NULL;

	if (r == NULL) {
		printf("node %s: no such node\n", name);
		return;
	}
	for (size_t i = 0; i < vpk_graph_n_nodes(g); i++) {
		struct vpk_node_stats s;

		vpk_graph_get_node_stats(g, i, &s);
		if (strcmp(s.name, name) == 0)
			active = s.variant;
	}
	printf("node %s, type %s%s\n  %-10s %-9s %-7s %-6s %s\n", name,
	       r->type == VPK_NODE_INPUT ? "input" : "internal", active ? "" : ", not in this graph",
	       "Variant", "Priority", "Active", "Width", "Usable");
	{
		int prio = 0;

		for (const struct vpk_impl *const *v = r->impls; *v != NULL; v++)
			prio++;
		for (const struct vpk_impl *const *v = r->impls; *v != NULL; v++, prio--) {
			const char *why = vpk_impl_why_not(*v);

			printf("  %-10s %-9d %-7s %-6u %s\n", (*v)->name, prio,
			       active && strcmp(active, (*v)->name) == 0 ? "yes" : "", (*v)->width,
			       why ? why : "yes");
		}
	}
	printf("  next nodes:");
	for (uint16_t a = 0; a < r->n_next; a++)
		printf(" [%u] %s", a, r->next_names[a]);
	printf("\n");
}

/* @show of every worker's graph, under a heading per thread when there are several. */
static void
per_worker(const struct vpk_fwd *f, void (*show)(const struct vpk_graph *g))
{
	for (unsigned w = 0; w < vpk_fwd_n_workers(f); w++) {
		printf("\n");
		if (vpk_fwd_n_workers(f) > 1)
			printf("Thread %u (worker %u):\n", w, w);
		show(vpk_fwd_worker_graph(f, w));
	}
}

void
fwd_show_text(const struct vpk_fwd *f, const struct vpk_fwd_run_stats *st, const struct fwd_show_opts *so)
{
	const struct vpk_graph *g = vpk_fwd_graph(f);
	const struct vpk_trace_rec *tr;
	size_t ntr = vpk_graph_trace(g, &tr);

	printf("%llu packets in, %llu forwarded, %llu dropped; %.3f Mpps on one core (cap %u)\n",
	       (unsigned long long)st->packets, (unsigned long long)st->forwarded,
	       (unsigned long long)st->dropped, fwd_mpps(st), vpk_get_max_simd_bitwidth());
	for (size_t i = 0; i < vpk_fwd_n_ifs(f); i++) {
		struct vpk_fwd_if_stats s;

		vpk_fwd_if_stats(f, i, &s);
		printf("  if %zu %-10s rx %llu tx %llu%s", i, s.name, (unsigned long long)s.rx,
		       (unsigned long long)s.tx, s.tx_no_output ? "" : "\n");
		if (s.tx_no_output)
			printf(" (%llu for an interface without output: freed)\n",
			       (unsigned long long)s.tx_no_output);
		if (s.rx_skipped)
			printf("       %llu input packets larger than a buffer, skipped\n",
			       (unsigned long long)s.rx_skipped);
	}
	if (ntr > 0) {
		printf("\nTrace:\n");
		for (size_t i = 0; i < ntr; i++)
			printf("  pkt %-4u %-18s -> %-18s %s\n", tr[i].pkt, tr[i].node,
			       tr[i].next[0] ? tr[i].next : "(end)", tr[i].detail);
	}
	if (so->runtime)
		per_worker(f, fwd_show_runtime);
	if (so->errors)
		per_worker(f, show_errors);
	for (size_t i = 0; i < so->n_nodes; i++) {
		printf("\n");
		show_node(g, so->nodes[i]);
	}
	for (size_t i = 0; i < so->n_cfg_nodes; i++) {
		printf("\n");
		show_node(g, so->cfg_nodes[i]);
	}
}

/* Nodes summed over workers (clocks/packet = all clocks / all packets). */
static void
json_nodes(struct json *j, const struct vpk_fwd *f, const struct vpk_graph *g)
{
	json_arr(j, "nodes");
	for (size_t i = 0; i < vpk_graph_n_nodes(g); i++) {
		struct vpk_node_stats s, t;
		const struct vpk_node_reg *r;
		unsigned width = 64;

		uint64_t hcalls = 0, hvec = 0, hclk = 0;

		vpk_graph_get_node_stats(g, i, &s);
		if (s.remote) {
			hcalls = s.calls, hvec = s.vectors, hclk = s.clocks;
			s.calls = s.vectors = s.clocks = 0;
		}
		for (unsigned w = 1; w < vpk_fwd_n_workers(f); w++) {
			const struct vpk_graph *wg = vpk_fwd_worker_graph(f, w);
			int k = vpk_graph_node_index(wg, s.name);

			if (k < 0)
				continue;
			vpk_graph_get_node_stats(wg, (size_t)k, &t);
			if (t.remote) {
				hcalls += t.calls, hvec += t.vectors, hclk += t.clocks;
				continue;
			}
			s.calls += t.calls;
			s.vectors += t.vectors;
			s.clocks += t.clocks;
			if (strcmp(s.variant, t.variant) != 0 && t.vectors > 0)
				s.variant = t.variant;  /* where it really ran */
		}
		r = vpk_node_find(s.name);
		for (const struct vpk_impl *const *v = r->impls; *v != NULL; v++)
			if (strcmp((*v)->name, s.variant) == 0)
				width = (*v)->width;
		json_obj(j, NULL);
		json_fields(j, JS("name", s.name), JS("variant", s.variant), JU("width", width),
			       JU("calls", s.calls), JU("vectors", s.vectors), JU("clocks", s.clocks),
			       JD("clocks_per_packet", per_pkt(&s)),
			       JD("vectors_per_call", s.calls ? (double)s.vectors / (double)s.calls : 0));
		if (hcalls > 0) {
			json_fields(j, JU("handoff_frames", hcalls), JU("handoff_packets", hvec),
				       JD("handoff_clocks_per_packet", hvec ? (double)hclk / (double)hvec : 0));
		}
		json_end(j);
	}
	json_end(j);
}

/* Error counters summed over workers, then the graph's own drops. */
static void
json_errors(struct json *j, const struct vpk_fwd *f, const struct vpk_graph *g)
{
	json_arr(j, "errors");
	for (size_t i = 0; i < vpk_graph_n_nodes(g); i++) {
		struct vpk_node_stats s;

		vpk_graph_get_node_stats(g, i, &s);
		for (uint16_t k = 0; k < vpk_graph_node_n_errors(g, i); k++) {
			const char *why;
			uint64_t c = 0, cw;

			for (unsigned w = 0; w < vpk_fwd_n_workers(f); w++) {
				const struct vpk_graph *wg = vpk_fwd_worker_graph(f, w);
				int x = vpk_graph_node_index(wg, s.name);

				/* Graphs of wide workers order their nodes differently: by name. */
				if (x >= 0 && vpk_graph_node_error(wg, (size_t)x, k, &why, &cw) == 0)
					c += cw;
			}
			if (c == 0)
				continue;
			json_record(j, NULL, JS("node", s.name), JS("reason", why), JU("count", c));
		}
	}
	for (int k = 0; k < 2; k++) {
		uint64_t c = 0;

		for (unsigned w = 0; w < vpk_fwd_n_workers(f); w++) {
			struct vpk_graph_drops d;

			vpk_graph_get_drops(vpk_fwd_worker_graph(f, w), &d);
			c += k ? d.no_arc : d.no_memory;
		}
		if (c == 0)
			continue;
		json_record(j, NULL, JS("node", "(graph)"), JS("reason", graph_drop_reason[k]),
				     JU("count", c));
	}
	json_end(j);
}

static void
json_workers(struct json *j, const struct vpk_fwd *f)
{
	json_arr(j, "workers");
	for (unsigned w = 0; w < vpk_fwd_n_workers(f); w++) {
		const struct vpk_graph *wg = vpk_fwd_worker_graph(f, w);

		json_obj(j, NULL);
		json_u64(j, "worker", w);
		json_arr(j, "nodes");
		for (size_t i = 0; i < vpk_graph_n_nodes(wg); i++) {
			struct vpk_node_stats s;

			vpk_graph_get_node_stats(wg, i, &s);
			json_obj(j, NULL);
			json_fields(j, JS("name", s.name), JS("variant", s.remote ? "remote" : s.variant),
				       JU("calls", s.calls), JU("vectors", s.vectors),
				       JD("clocks_per_packet", per_pkt(&s)));
			if (s.remote)
				json_u64(j, "remote_full", s.remote_full);
			json_end(j);
		}
		json_end(j);
		json_end(j);
	}
	json_end(j);
}

static void
json_ifs_trace(struct json *j, const struct vpk_fwd *f, const struct vpk_graph *g)
{
	const struct vpk_trace_rec *tr;
	size_t ntr = vpk_graph_trace(g, &tr);

	json_arr(j, "interfaces");
	for (size_t i = 0; i < vpk_fwd_n_ifs(f); i++) {
		struct vpk_fwd_if_stats s;

		vpk_fwd_if_stats(f, i, &s);
		json_obj(j, NULL);
		json_fields(j, JS("name", s.name), JU("rx", s.rx), JU("rx_skipped", s.rx_skipped),
			       JU("tx", s.tx), JU("tx_no_output", s.tx_no_output));
		fwd_json_queues(j, f, i);
		json_end(j);
	}
	json_end(j);
	json_arr(j, "trace");
	for (size_t i = 0; i < ntr; i++) {
		json_record(j, NULL, JU("pkt", tr[i].pkt), JS("node", tr[i].node), JS("next", tr[i].next),
				     JS("detail", tr[i].detail));
	}
	json_end(j);
}

void
fwd_json_run(struct json *j, const struct vpk_fwd *f, const struct vpk_fwd_run_stats *st, unsigned cap)
{
	const struct vpk_graph *g = vpk_fwd_graph(f);

	json_obj(j, NULL);
	json_fields(j, JU("cap", cap), JU("packets", st->packets), JU("forwarded", st->forwarded),
		       JU("dropped", st->dropped), JU("tsc", st->tsc), JD("mpps", fwd_mpps(st)),
		       JU("cpu_ns", st->cpu_ns),
		       JD("clocks_per_packet", st->packets ? (double)st->tsc / (double)st->packets : 0),
		       JU("workers_n", vpk_fwd_n_workers(f)), JS("fib4", vpk_fib_type_name(vpk_fwd_fib4(f))));
	json_nodes(j, f, g);
	json_errors(j, f, g);
	if (vpk_fwd_n_workers(f) > 1)
		json_workers(j, f);
	json_ifs_trace(j, f, g);
	json_end(j);
}

void
fwd_show_json(const struct vpk_fwd *f, const struct vpk_fwd_run_stats *st, const struct fwd_show_opts *so,
	      unsigned cap)
{
	struct json j;

	(void)so;
	json_init(&j, stdout);
	json_obj(&j, NULL);
	json_str(&j, "cpu", vpk_cpu_model());
	json_arr(&j, "runs");
	fwd_json_run(&j, f, st, cap);
	json_end(&j);
	json_end(&j);
	json_done(&j);
}

/* --fib4 NAME (vpk fwd and vpk fwd --demo) */
int
fwd_fib4_type(const char *name, enum vpk_fib_type *out)
{
	if (strcmp(name, "dir") == 0)
		*out = VPK_FIB_DIR24_8;
	else if (strcmp(name, "bm16") == 0)
		*out = VPK_FIB_BM16;
	else
		return -EINVAL;
	return 0;
}
