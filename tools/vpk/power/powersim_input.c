/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk powersim inputs: a built-in scenario, a --request, or a forwarder's
 * `--show-runtime --json` dump (schema in docs/corespec.md):
 *
 *   { "workers": 2,                       optional: cores to model (>= 2; else 4)
 *     "frame_size": 256,                  optional: packets per frame
 *     "handoff_ns_per_frame": 600,        optional: measured hand-off round trip
 *     "nodes": [ { "name": "ip4-lookup", "width": 512, "clocks_per_packet": 9.5,
 *                  "packets": 1000000, "heavy": false,          (optional)
 *                  "alt_width": 256, "alt_clocks_per_packet": 11.0 }, ... ] }   (optional)
 *
 * The forwarder's own output, {"runs": [{"cap": 512, "workers_n": 1, "nodes":
 * [{"name", "width", "clocks_per_packet", "vectors", ...}]}, ...]}, is read
 * as is: the widest cap's run, with the cap-256 run as the alternative.
 *
 * From it: one frame through the nodes is one request; the prediction
 * compares running the 512-bit nodes inline on every worker, confining them
 * to wide cores, and (if alt_* figures are given) capping every node at its
 * alternative width.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/libvpk_internal.h"
#include "common/jread.h"
#include "power/powersim_tool.h"
#include "common/tool.h"

#define MAX_NODES 256
#define PSIM_MAX_RUNTIME_FILE (64 * VPK_MIB)    /* a runtime dump is a few KiB */

struct runtime {
	const char *file;
	unsigned frame;
	size_t n;
	struct vpk_psim_node nodes[MAX_NODES];
	bool have_alt;
	struct vpk_psim_workload alt;
	struct vpk_psim_conf conf;
	struct vpk_psim_result alt_res;
	unsigned n_wide_tried;          /* wide-core counts tried (when --wide-cores is not given) */
	double pps_by_wide[VPK_PSIM_MAX_CORES];
};

static int
node_err(const char *file, const struct jval *v, const char *what)
{
	return vpk_fail(VPK_EXIT_USAGE, "powersim: %s:%u: %s", file, v ? v->line : 1, what);
}

static int
num_field(const char *file, const struct jval *o, const char *key, bool required, double *out)
{
	const struct jval *v = jread_get(o, key);
	if (!v) {
		if (!required)
			return 1;
		char m[96];
		snprintf(m, sizeof(m), "node has no \"%s\"", key);
		return node_err(file, o, m);
	}
	if (v->type != J_NUM || v->num < 0 || v->num > 1e18) {   /* 1e18: packets still fit a uint64_t */
		char m[96];
		snprintf(m, sizeof(m), "\"%s\" must be a number in 0..1e18", key);
		return node_err(file, v, m);
	}
	*out = v->num;
	return 0;
}

/* A whole-number field in [lo, hi] (absent: 1, *out untouched). */
static int
uint_field(const char *file, const struct jval *o, const char *key, double lo, double hi, unsigned *out)
{
	const struct jval *v = jread_get(o, key);
	char m[120];

	if (!v)
		return 1;
	if (v->type == J_NUM && v->num >= lo && v->num <= hi && v->num == (double)(unsigned)v->num) {
		*out = (unsigned)v->num;
		return 0;
	}
	if (v->type == J_NUM)
		snprintf(m, sizeof(m), "\"%s\": %.17g is not a whole number in %.0f..%.0f", key, v->num, lo, hi);
	else
		snprintf(m, sizeof(m), "\"%s\" must be a whole number in %.0f..%.0f", key, lo, hi);
	return node_err(file, v, m);
}

/* The file, whole, read through the capped line reader (NUL bytes refused). */
static char *
slurp_runtime(const char *file, int *rc)
{
	struct vpk_lines l;
	char err[300], *line, *text = NULL;
	size_t n, len = 0;
	int r = vpk_lines_open(&l, file, "runtime files", PSIM_MAX_RUNTIME_FILE, PSIM_MAX_RUNTIME_FILE, err, sizeof(err));

	while (r == 0 && (r = vpk_lines_next(&l, &line, &n, err, sizeof(err))) > 0) {
		char *t = realloc(text, len + n + 2);      /* n + len is at most the file cap */

		r = 0;
		if (t == NULL) {
			r = -ENOMEM;
			snprintf(err, sizeof(err), "%s: out of memory", file);
			break;
		}
		text = t;
		memcpy(text + len, line, n);
		len += n;
		text[len++] = '\n';
		text[len] = '\0';
	}
	vpk_lines_close(&l);
	if (r != 0) {
		free(text);
		*rc = vpk_fail(r == -ENOMEM ? VPK_EXIT_FAIL : VPK_EXIT_USAGE, "powersim: %s", err);
		return NULL;
	}
	if (text == NULL)
		text = strdup("");
	return text;
}

static int
read_runtime(struct runtime *rt, const char *file)
{
	int rc = 0;
	char *text = slurp_runtime(file, &rc);

	if (text == NULL)
		return rc != 0 ? rc : vpk_fail(VPK_EXIT_FAIL, "powersim: out of memory");
	char err[160];
	unsigned line;
	struct jval *root = jread_parse(text, err, sizeof(err), &line);
	free(text);
	if (!root)
		return vpk_fail(VPK_EXIT_USAGE, "powersim: %s:%u: %s", file, line, err);
	/* `vpk fwd --show-runtime --json` and `vpk fwd --demo --json` wrap the
	 * nodes in "runs" (one per cap): take the widest cap, and the cap-256
	 * run (if there is one) as the alternative widths. */
	const struct jval *src = root, *alt_run = NULL, *runs = jread_get(root, "runs");
	if (root->type == J_OBJ && !jread_get(root, "nodes") && runs && runs->type == J_ARR && runs->n) {
		double best = -1;
		for (size_t i = 0; i < runs->n; i++) {
			const struct jval *cv = jread_get(&runs->items[i], "cap");
			double c = cv && cv->type == J_NUM ? cv->num : 0;
			if (c >= best) {
				best = c;
				src = &runs->items[i];
			}
		}
		for (size_t i = 0; i < runs->n && best == 512; i++) {
			const struct jval *cv = jread_get(&runs->items[i], "cap");
			if (cv && cv->type == J_NUM && cv->num == 256)
				alt_run = &runs->items[i];
		}
	}
	const struct jval *nodes = jread_get(src, "nodes");
	if (src->type != J_OBJ || !nodes || nodes->type != J_ARR || nodes->n == 0) {
		rc = node_err(file, nodes ? nodes : src,
			      "expected an object with a non-empty \"nodes\" array (or \"runs\" of them)");
		goto out;
	}
	if (nodes->n > MAX_NODES) {
		rc = node_err(file, nodes, "more than 256 nodes");
		goto out;
	}
	const struct jval *v;
	unsigned workers;
	/* Present fields are checked, never skipped: "workers": -4 or 1e12 is an error. */
	if ((rc = uint_field(file, root, "workers", 1, VPK_PSIM_MAX_CORES, &workers)) == 1)
		rc = uint_field(file, src, "workers_n", 1, VPK_PSIM_MAX_CORES, &workers);
	if (rc < 0 || rc > 1)
		goto out;
	if (rc == 0 && workers >= 2)
		rt->conf.cores = workers;       /* 1 worker says nothing of the deployment: keep 4 */
	if ((rc = uint_field(file, root, "frame_size", 1, 65536, &rt->frame)) != 0 && rc != 1)
		goto out;
	rc = 0;
	if ((v = jread_get(root, "handoff_ns_per_frame"))) {
		if (v->type != J_NUM || v->num < 0 || v->num > 1e9) {
			rc = node_err(file, v, "\"handoff_ns_per_frame\" must be a number in 0..1e9");
			goto out;
		}
		rt->conf.switch_ns = v->num;
	}
	const struct jval *alt_nodes = alt_run ? jread_get(alt_run, "nodes") : NULL;
	struct vpk_psim_node alt[MAX_NODES];
	for (size_t i = 0; i < nodes->n; i++) {
		const struct jval *o = &nodes->items[i];
		struct vpk_psim_node *nd = &rt->nodes[i];
		if (o->type != J_OBJ) {
			rc = node_err(file, o, "a node must be an object");
			goto out;
		}
		const struct jval *name = jread_get(o, "name");
		if (!name || name->type != J_STR) {
			rc = node_err(file, o, "node has no \"name\" string");
			goto out;
		}
		nd->name = strdup(name->str);
		rt->n++; /* owns the name from here on */
		double width, cpp, pk, alt_w = 0, alt_c = 0;
		if ((rc = num_field(file, o, "width", true, &width)) ||
		    (rc = num_field(file, o, "clocks_per_packet", true, &cpp)) ||
		    (rc = num_field(file, o, jread_get(o, "packets") ? "packets" : "vectors", true, &pk)))
			goto out;
		if (width != 64 && width != 128 && width != 256 && width != 512) {
			rc = node_err(file, jread_get(o, "width"), "\"width\" must be 64, 128, 256 or 512");
			goto out;
		}
		nd->width = (unsigned)width;
		nd->clocks_per_packet = cpp;
		nd->packets = (uint64_t)pk;
		const struct jval *hv = jread_get(o, "heavy");
		nd->heavy = hv && hv->type == J_BOOL && hv->num != 0;
		alt[i] = *nd;
		int ra = num_field(file, o, "alt_width", false, &alt_w);
		int rb = ra ? 1 : num_field(file, o, "alt_clocks_per_packet", false, &alt_c);
		if (ra < 0 || rb < 0) {
			rc = VPK_EXIT_USAGE;
			goto out;
		}
		/* No alt_* figures: the same node in the cap-256 run, if any. */
		for (size_t k = 0; ra && alt_nodes && alt_nodes->type == J_ARR && k < alt_nodes->n; k++) {
			const struct jval *an = &alt_nodes->items[k], *nm = jread_get(an, "name");
			const struct jval *aw = jread_get(an, "width"), *ac = jread_get(an, "clocks_per_packet");
			if (nm && nm->type == J_STR && strcmp(nm->str, nd->name) == 0 && aw && aw->type == J_NUM &&
			    ac && ac->type == J_NUM && ac->num >= 0) {
				alt_w = aw->num;
				alt_c = ac->num;
				ra = rb = 0;
			}
		}
		if (ra == 0 && rb == 0 && (alt_w == 64 || alt_w == 128 || alt_w == 256 || alt_w == 512)) {
			alt[i].width = (unsigned)alt_w;
			alt[i].clocks_per_packet = alt_c;
			rt->have_alt = true;
		}
	}
	if (rt->have_alt && vpk_psim_workload_from_nodes(alt, rt->n, rt->frame, &rt->alt)) {
		rc = node_err(file, nodes, "bad alt_width / alt_clocks_per_packet figures");
		goto out;
	}
out:
	jread_free(root);
	return rc;
}

static void
runtime_text(const struct psim_extra *x, const struct psim_pair *p)
{
	const struct runtime *rt = x->ctx;
	printf("\n  from %s (%u packets per frame):\n", rt->file, rt->frame);
	for (size_t i = 0; i < rt->n; i++)
		printf("    %-24s %3u-bit%s %8.2f clocks/pkt %12llu pkts\n", rt->nodes[i].name, rt->nodes[i].width,
		       rt->nodes[i].heavy ? " heavy" : "", rt->nodes[i].clocks_per_packet,
		       (unsigned long long)rt->nodes[i].packets);
	double a = p->without.throughput * rt->frame, b = p->have_with ? p->with.throughput * rt->frame : 0;
	if (rt->n_wide_tried) {
		printf("  wide cores tried (best is used above):");
		for (unsigned k = 1; k <= rt->n_wide_tried; k++)
			printf(" %u: %.4g pkt/s%s", k, rt->pps_by_wide[k], k == rt->conf.wide_cores ? " (best)" : "");
		printf("\n");
	}
	printf("  predicted packets/s: 512-bit inline %.4g", a);
	if (p->have_with)
		printf(", on %u wide core%s %.4g (%+.1f%%)", rt->conf.wide_cores, rt->conf.wide_cores > 1 ? "s" : "", b,
		       100 * (b / a - 1));
	if (rt->have_alt)
		printf(", alternative widths everywhere %.4g (%+.1f%%)", rt->alt_res.throughput * rt->frame,
		       100 * (rt->alt_res.throughput * rt->frame / a - 1));
	printf("\n  verdict: %s\n",
	       rt->have_alt && rt->alt_res.throughput * rt->frame > (b > a ? b : a) ? "use the alternative widths (cap)"
	       : p->have_with && b > a ? "--wide-cores pays"
				       : "keep the 512-bit nodes inline (--wide-cores does not pay)");
}

static void
runtime_json(struct json *j, const struct psim_extra *x, const struct psim_pair *p)
{
	const struct runtime *rt = x->ctx;
	json_obj(j, "prediction");
	json_u64(j, "frame_size", rt->frame);
	json_dbl(j, "packets_per_s_inline", p->without.throughput * rt->frame);
	if (p->have_with)
		json_dbl(j, "packets_per_s_wide_cores", p->with.throughput * rt->frame);
	if (rt->have_alt)
		json_dbl(j, "packets_per_s_alt_widths", rt->alt_res.throughput * rt->frame);
	json_bool(j, "wide_cores_pay", p->have_with && p->with.throughput > p->without.throughput);
	if (rt->n_wide_tried) {
		json_u64(j, "best_wide_cores", rt->conf.wide_cores);
		json_arr(j, "packets_per_s_by_wide_cores");
		for (unsigned k = 1; k <= rt->n_wide_tried; k++)
			json_dbl(j, NULL, rt->pps_by_wide[k]);
		json_end(j);
	}
	json_end(j);
}

static int
apply_overrides(const struct psim_args *a, struct vpk_psim_conf *c, struct vpk_psim_workload *w)
{
	if (a->cores >= 0)
		c->cores = (unsigned)a->cores;
	if (a->wide >= 0)
		c->wide_cores = (unsigned)a->wide;
	if (a->tasks >= 0)
		c->tasks = (unsigned)a->tasks;
	if (a->rate >= 0)
		w->rate = a->rate;
	if (a->switch_ns >= 0)
		c->switch_ns = a->switch_ns;
	if (a->duration_ms >= 0)
		c->duration_ns = a->duration_ms * 1e6;
	if (a->confine)
		c->confine = a->confine == 256 ? VPK_PSIM_256_LIGHT : VPK_PSIM_512_LIGHT;
	if (a->dedicated)
		c->dedicated = true;
	if (a->sync)
		c->sync = c->dedicated = true;
	if (a->have_ghz)
		for (int l = 0; l < VPK_PSIM_LEVELS; l++)
			c->cpu.ghz[l] = a->ghz[l];
	if (a->ramp_us >= 0)
		c->cpu.volt_ns = a->ramp_us * 1e3;
	if (a->halt_us >= 0)
		c->cpu.halt_ns = a->halt_us * 1e3;
	if (a->hyst_us >= 0)
		c->cpu.hyst_ns = a->hyst_us * 1e3;
	if (a->throttle >= 0) {
		if (!(a->throttle > 0 && a->throttle <= 1))
			return vpk_fail(VPK_EXIT_USAGE, "powersim: --throttle must be in (0, 1]");
		c->cpu.throttle = a->throttle;
	}
	if (a->ramp_us > 1e6 || a->halt_us > 1e6 || a->hyst_us > 1e6)
		return vpk_fail(VPK_EXIT_USAGE, "powersim: --ramp-us, --halt-us, --hyst-us must be <= 1000000");
	if (c->cores < 1 || c->cores > VPK_PSIM_MAX_CORES)
		return vpk_fail(VPK_EXIT_USAGE, "powersim: --cores must be 1..%d", VPK_PSIM_MAX_CORES);
	if (c->wide_cores >= c->cores)
		return vpk_fail(VPK_EXIT_USAGE, "powersim: --wide-cores must be below --cores (%u)", c->cores);
	if (a->tasks > VPK_PSIM_MAX_TASKS || (a->tasks == 0))
		return vpk_fail(VPK_EXIT_USAGE, "powersim: --tasks must be 1..%d", VPK_PSIM_MAX_TASKS);
	if (c->duration_ns > 10e9 || (a->duration_ms >= 0 && a->duration_ms < 1))
		return vpk_fail(VPK_EXIT_USAGE, "powersim: --duration-ms must be 1..10000");
	return 0;
}

int
psim_main(const struct psim_args *a)
{
	const struct vpk_psim_cpu *cpu = vpk_psim_cpu_find(a->cpu ? a->cpu : "skx-6130");
	if (!cpu)
		return vpk_fail(VPK_EXIT_USAGE, "powersim: unknown CPU model '%s' (vpk powersim --list)", a->cpu);
	struct vpk_psim_workload w;
	memset(&w, 0, sizeof(w));
	char title[256];
	int rc;
	if (a->scenario) {
		struct vpk_psim_scenario sc;
		if (vpk_psim_scenario_get(a->scenario, &sc))
			return vpk_fail(VPK_EXIT_USAGE, "powersim: unknown scenario '%s' (vpk powersim --list)",
					a->scenario);
		if (a->cpu)
			sc.conf.cpu = *cpu;
		w = sc.work;
		if ((rc = apply_overrides(a, &sc.conf, &w)))
			return rc;
		snprintf(title, sizeof(title), "%s: %s", sc.name, sc.desc);
		return psim_report(title, &sc.conf, &w, a->per_core, a->ks, a->nk, NULL);
	}
	struct vpk_psim_conf c;
	memset(&c, 0, sizeof(c));
	c.cpu = *cpu;
	if (a->request) {
		size_t at = 0;
		rc = vpk_psim_parse_request(a->request, cpu, &w, &at);
		if (rc == -E2BIG)
			return vpk_fail(VPK_EXIT_USAGE, "powersim: --request: more than %d sections",
					VPK_PSIM_MAX_SECTIONS);
		if (rc)
			return vpk_fail(VPK_EXIT_USAGE, "powersim: --request: bad item at offset %zu: '%.40s'", at,
					a->request + at);
		c.cores = 12;
		c.wide_cores = 2;
		c.switch_ns = 600;
		if ((rc = apply_overrides(a, &c, &w)))
			return rc;
		snprintf(title, sizeof(title), "request %s", a->request);
		return psim_report(title, &c, &w, a->per_core, a->ks, a->nk, NULL);
	}
	struct runtime *rt = calloc(1, sizeof(*rt));
	if (!rt)
		return vpk_fail(VPK_EXIT_FAIL, "powersim: out of memory");
	rt->file = a->runtime;
	rt->frame = 256;
	rt->conf = c;
	rt->conf.cores = 4;
	rt->conf.wide_cores = 1;
	rt->conf.switch_ns = 600;
	rc = read_runtime(rt, a->runtime);
	if (!rc && a->frame >= 0) {
		if (a->frame < 1 || a->frame > 65536)
			rc = vpk_fail(VPK_EXIT_USAGE, "powersim: --frame must be 1..65536");
		rt->frame = (unsigned)a->frame;
	}
	if (!rc) {
		rc = vpk_psim_workload_from_nodes(rt->nodes, rt->n, rt->frame, &w);
		if (rc)
			rc = vpk_fail(VPK_EXIT_USAGE, "powersim: %s: %s", a->runtime,
				      rc == -E2BIG ? "too many sections after merging nodes"
						   : "no node with packets and clocks");
	}
	if (!rc)
		rc = apply_overrides(a, &rt->conf, &w);
	if (!rc && a->wide < 0 && rt->conf.cores > 1) {
		/* No --wide-cores: try every count and keep the best. */
		struct vpk_psim_conf tc = rt->conf;
		struct vpk_psim_result r;
		double best = -1;
		for (unsigned k = 1; k < tc.cores; k++) {
			tc.wide_cores = k;
			if (vpk_psim_run(&tc, &w, &r, NULL))
				break;
			rt->pps_by_wide[k] = r.throughput * rt->frame;
			rt->n_wide_tried = k;
			if (r.throughput > best) {
				best = r.throughput;
				rt->conf.wide_cores = k;
			}
		}
	}
	if (!rc && rt->have_alt) {
		struct vpk_psim_conf ac = rt->conf;
		ac.wide_cores = 0;
		rt->alt.rate = w.rate;
		if (vpk_psim_run(&ac, &rt->alt, &rt->alt_res, NULL))
			rt->have_alt = false;
	}
	if (!rc) {
		snprintf(title, sizeof(title), "forwarder runtime %s", a->runtime);
		struct psim_extra x = { runtime_text, runtime_json, rt };
		rc = psim_report(title, &rt->conf, &w, a->per_core, a->ks, a->nk, &x);
	}
	for (size_t i = 0; i < rt->n; i++)
		free((char *)rt->nodes[i].name);
	free(rt);
	return rc;
}
