/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `show runtime` of the control socket, laid out as VPP prints it: one
 * section per thread with a header (time since the last clear, vector
 * rates in / out / drop), then Name, State, Calls, Vectors, Suspends,
 * Clocks, Vectors/Call. Clocks are per vector (per call for a node that
 * moved none), as VPP's. Nodes never called since the last clear are left
 * out unless `verbose`. vpk nodes do not suspend: Suspends is always 0.
 */
#include <string.h>

#include "common/json.h"
#include "fwd/fwd_cli.h"
#include "fwd/fwd_priv.h"

static double
clocks_per(const struct vpk_node_stats *s)
{
	if (s->vectors > 0)
		return (double)s->clocks / (double)s->vectors;
	return s->calls > 0 ? (double)s->clocks / (double)s->calls : 0;
}

static const char *
node_state(const struct vpk_graph *g, size_t i, const struct vpk_node_stats *s)
{
	const struct vpk_node_reg *r = vpk_node_find(s->name);

	(void)g;
	(void)i;
	if (s->remote)
		return "handed off";
	return r != NULL && r->type == VPK_NODE_INPUT ? "polling" : "active";
}

/* Packets that entered (input nodes), left (interface-output) and were dropped (error-drop). */
static void
graph_rates(const struct vpk_graph *g, uint64_t *in, uint64_t *out, uint64_t *drop)
{
	*in = *out = *drop = 0;
	for (size_t i = 0; i < vpk_graph_n_nodes(g); i++) {
		struct vpk_node_stats s;
		const struct vpk_node_reg *r;

		vpk_graph_get_node_stats(g, i, &s);
		r = vpk_node_find(s.name);
		if (r != NULL && r->type == VPK_NODE_INPUT)
			*in += s.vectors;
		else if (strcmp(s.name, "interface-output") == 0)
			*out += s.vectors;
		else if (strcmp(s.name, "error-drop") == 0)
			*drop += s.vectors;
	}
}

static void
runtime_text(const struct vpk_graph *g, unsigned w, double t, bool verbose, FILE *out)
{
	uint64_t in, o, drop, calls = 0, vectors = 0;

	graph_rates(g, &in, &o, &drop);
	for (size_t i = 0; i < vpk_graph_n_nodes(g); i++) {
		struct vpk_node_stats s;

		vpk_graph_get_node_stats(g, i, &s);
		calls += s.calls;
		vectors += s.vectors;
	}
	fprintf(out, "Thread %u vpk_wk_%u\n", w, w);
	fprintf(out, "Time %.1f, average vectors/node %.2f, last clear %.1f s ago\n", t,
		calls ? (double)vectors / (double)calls : 0.0, t);
	fprintf(out, "  vector rates in %.4e, out %.4e, drop %.4e, punt %.4e\n", t > 0 ? (double)in / t : 0.0,
		t > 0 ? (double)o / t : 0.0, t > 0 ? (double)drop / t : 0.0, 0.0);
	fprintf(out, "%28s %16s %14s %16s %10s %12s %14s\n", "Name", "State", "Calls", "Vectors", "Suspends",
		"Clocks", "Vectors/Call");
	for (size_t i = 0; i < vpk_graph_n_nodes(g); i++) {
		struct vpk_node_stats s;

		vpk_graph_get_node_stats(g, i, &s);
		if (!verbose && s.calls == 0 && s.vectors == 0)
			continue;
		fprintf(out, "%28s %16s %14llu %16llu %10u %12.2e %14.2f\n", s.name, node_state(g, i, &s),
			(unsigned long long)s.calls, (unsigned long long)s.vectors, 0u, clocks_per(&s),
			s.calls ? (double)s.vectors / (double)s.calls : 0.0);
	}
}

static void
runtime_json(struct json *j, const struct vpk_graph *g, unsigned w, double t, bool verbose)
{
	uint64_t in, o, drop;

	graph_rates(g, &in, &o, &drop);
	json_obj(j, NULL);
	json_u64(j, "thread", w);
	json_dbl(j, "time", t);
	json_dbl(j, "rate_in", t > 0 ? (double)in / t : 0.0);
	json_dbl(j, "rate_out", t > 0 ? (double)o / t : 0.0);
	json_dbl(j, "rate_drop", t > 0 ? (double)drop / t : 0.0);
	json_arr(j, "nodes");
	for (size_t i = 0; i < vpk_graph_n_nodes(g); i++) {
		struct vpk_node_stats s;

		vpk_graph_get_node_stats(g, i, &s);
		if (!verbose && s.calls == 0 && s.vectors == 0)
			continue;
		json_obj(j, NULL);
		json_str(j, "name", s.name);
		json_str(j, "state", node_state(g, i, &s));
		json_str(j, "variant", s.variant);
		json_u64(j, "calls", s.calls);
		json_u64(j, "vectors", s.vectors);
		json_u64(j, "suspends", 0);
		json_dbl(j, "clocks", clocks_per(&s));
		json_dbl(j, "vectors_per_call", s.calls ? (double)s.vectors / (double)s.calls : 0.0);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

void
fwd_cli_show_runtime(struct vpk_fwd *f, bool verbose, bool json, FILE *out)
{
	unsigned n = vpk_fwd_n_workers(f);
	double t = fwd_ctl_since_clear(f);
	struct json j;

	if (json) {
		json_init(&j, out);
		json_obj(&j, NULL);
		json_arr(&j, "threads");
	}
	for (unsigned w = 0; w < n; w++) {
		const struct vpk_graph *g = vpk_fwd_worker_graph(f, w);

		if (g == NULL)
			continue;
		if (json) {
			runtime_json(&j, g, w, t, verbose);
		} else {
			if (w > 0)
				fputs("---------------\n", out);
			runtime_text(g, w, t, verbose, out);
		}
	}
	if (json) {
		json_end(&j);
		json_end(&j);
		json_done(&j);
	} else if (n == 0 || vpk_fwd_graph(f) == NULL) {
		fputs("no graph is running (control plane only)\n", out);
	}
}
