/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk powersim's runs and reports: the same workload without and with wide
 * cores (psim_pair), printed as a table or JSON, and --sweep, which repeats
 * the pair with the request cut into k-times shorter pieces. Called by
 * powersim_input.c once it has built the configuration; calls nothing back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "power/powersim.h"
#include "bench.h"
#include "common/json.h"
#include "power/powersim_tool.h"
#include "common/tool.h"

/* Run without and with wide cores. */
int
psim_pair(const struct vpk_psim_conf *conf, const struct vpk_psim_workload *w, struct psim_pair *p)
{
	struct vpk_psim_conf c = *conf;
	c.wide_cores = 0;
	int rc = vpk_psim_run(&c, w, &p->without, p->pc_without);
	if (rc)
		return rc;
	p->have_with = conf->wide_cores > 0;
	if (p->have_with)
		rc = vpk_psim_run(conf, w, &p->with, p->pc_with);
	return rc;
}

static void
print_result(const char *what, const struct vpk_psim_result *r)
{
	printf("  %-22s %11.1f %7.2f%% %8.3f %11.1f%% %11.0f\n", what, r->throughput, 100 * r->loss, r->avg_ghz,
	       100 * r->scalar_slowed_share, r->hops_per_s);
}

static void
print_cores(const struct vpk_psim_conf *c, const struct vpk_psim_core_stats *pc)
{
	printf("    core kind    avg GHz   L0 %%   L1 %%   L2 %%  thrtl %%  halt %%  hops %%  idle %%  ups\n");
	for (unsigned i = 0; i < c->cores; i++) {
		double t = c->duration_ns > 0 ? c->duration_ns : 200e6;
		const struct vpk_psim_core_stats *s = &pc[i];
		printf("    %4u %-6s %8.3f %6.1f %6.1f %6.1f %8.1f %7.1f %7.1f %7.1f %5lu\n", i,
		       s->wide ? "wide" : "scalar", s->avg_ghz, 100 * s->run_ns[0] / t, 100 * s->run_ns[1] / t,
		       100 * s->run_ns[2] / t, 100 * s->throttle_ns / t, 100 * s->halt_ns / t,
		       100 * s->switch_ns / t, 100 * s->idle_ns / t, (unsigned long)s->ups);
	}
}

static void
json_result(struct json *j, const char *key, const struct vpk_psim_result *r, const struct vpk_psim_conf *c,
	    const struct vpk_psim_core_stats *pc, bool per_core)
{
	json_obj(j, key);
	json_fields(j, JD("throughput", r->throughput), JD("ideal_throughput", r->ideal_throughput),
		       JD("loss", r->loss), JD("utilisation", r->utilisation), JD("avg_ghz", r->avg_ghz),
		       JD("scalar_slowed_share", r->scalar_slowed_share), JD("hops_per_s", r->hops_per_s),
		       JU("dropped", r->dropped));
	if (per_core) {
		json_arr(j, "cores");
		for (unsigned i = 0; i < c->cores; i++) {
			json_obj(j, NULL);
			json_bool(j, "wide", pc[i].wide);
			json_dbl(j, "avg_ghz", pc[i].avg_ghz);
			json_arr(j, "run_ns");
			for (int l = 0; l < VPK_PSIM_LEVELS; l++)
				json_dbl(j, NULL, pc[i].run_ns[l]);
			json_end(j);
			json_fields(j, JD("throttle_ns", pc[i].throttle_ns), JD("halt_ns", pc[i].halt_ns),
				       JD("switch_ns", pc[i].switch_ns), JD("idle_ns", pc[i].idle_ns),
				       JU("ups", pc[i].ups), JU("downs", pc[i].downs));
			json_end(j);
		}
		json_end(j);
	}
	json_end(j);
}

void
psim_json_conf(struct json *j, const struct vpk_psim_conf *c, const struct vpk_psim_workload *w)
{
	json_fields(j, JS("cpu", c->cpu.name), JU("cores", c->cores), JU("wide_cores", c->wide_cores),
		       JD("switch_ns", c->switch_ns), JB("dedicated", c->dedicated), JB("sync", c->sync),
		       JD("rate", w->rate));
	json_arr(j, "request");
	for (size_t i = 0; i < w->n; i++) {
		json_obj(j, NULL);
		json_str(j, "class", vpk_psim_class_name(w->sec[i].cls));
		json_u64(j, "cycles", w->sec[i].cycles);
		json_end(j);
	}
	json_end(j);
}

static void
scale(struct vpk_psim_workload *w, unsigned k)
{
	for (size_t i = 0; i < w->n; i++)
		w->sec[i].cycles = w->sec[i].cycles / k ? w->sec[i].cycles / k : 1;
}

static int
sweep(const struct vpk_psim_conf *conf, const struct vpk_psim_workload *w, const unsigned *ks, int nk,
      struct json *j)
{
	struct psim_pair *p = calloc(1, sizeof(*p));
	if (!p)
		return vpk_fail(VPK_EXIT_FAIL, "powersim: out of memory");
	unsigned scalar_cores = conf->cores - conf->wide_cores;
	int breakeven = -1;
	if (j)
		json_arr(j, "sweep");
	else
		printf("\nsweep: request cut into k-times shorter pieces (%u scalar cores)\n"
		       "  %6s %14s %14s %12s %10s\n", scalar_cores, "k", "hops/s/scalar", "loss_without",
		       "loss_with", "gain");
	for (int i = 0; i < nk; i++) {
		struct vpk_psim_workload ws = *w;
		scale(&ws, ks[i]);
		int rc = psim_pair(conf, &ws, p);
		if (rc) {
			free(p);
			return vpk_fail(VPK_EXIT_USAGE, "powersim: %s", strerror(-rc));
		}
		double hps = p->with.hops_per_s / scalar_cores;
		double gain = p->with.throughput / p->without.throughput - 1;
		if (breakeven < 0 && p->with.loss >= p->without.loss)
			breakeven = i;
		if (j) {
			json_record(j, NULL, JU("k", ks[i]), JD("hops_per_s_per_scalar_core", hps),
					     JD("loss_without", p->without.loss),
					     JD("loss_with", p->with.loss), JD("gain", gain));
		} else {
			printf("  %6u %14.0f %13.2f%% %11.2f%% %+9.2f%%\n", ks[i], hps, 100 * p->without.loss,
			       100 * p->with.loss, 100 * gain);
		}
	}
	if (j) {
		json_end(j);
		if (breakeven >= 0)
			json_u64(j, "stops_paying_at_k", ks[breakeven]);
		else
			json_null(j, "stops_paying_at_k");
	} else if (breakeven >= 0) {
		printf("  specialization stops paying at k = %u\n", ks[breakeven]);
	} else {
		printf("  specialization pays at every k of the sweep\n");
	}
	free(p);
	return VPK_EXIT_OK;
}

int
psim_report(const char *title, const struct vpk_psim_conf *conf, const struct vpk_psim_workload *w,
	    bool per_core, const unsigned *ks, int nk, const struct psim_extra *extra)
{
	struct psim_pair *p = calloc(1, sizeof(*p));
	if (!p)
		return vpk_fail(VPK_EXIT_FAIL, "powersim: out of memory");
	int rc = psim_pair(conf, w, p);
	if (rc) {
		free(p);
		return vpk_fail(VPK_EXIT_USAGE, "powersim: bad configuration: %s", strerror(-rc));
	}
	double cpr = 0;
	for (size_t i = 0; i < w->n; i++)
		cpr += (double)w->sec[i].cycles;
	double red = p->without.loss > 0 ? 1 - p->with.loss / p->without.loss : 0;
	if (vpk_opts.json) {
		struct json j;
		json_init(&j, stdout);
		json_obj(&j, NULL);
		json_str(&j, "title", title);
		psim_json_conf(&j, conf, w);
		json_dbl(&j, "loss_without", p->without.loss);
		if (p->have_with) {
			json_fields(&j, JD("loss_with", p->with.loss), JD("loss_reduction", red),
					JD("gain", p->with.throughput / p->without.throughput - 1));
		}
		json_result(&j, "without", &p->without, conf, p->pc_without, per_core);
		if (p->have_with)
			json_result(&j, "with", &p->with, conf, p->pc_with, per_core);
		if (extra && extra->json)
			extra->json(&j, extra, p);
		if (nk && p->have_with) {
			rc = sweep(conf, w, ks, nk, &j);
			if (rc)
				return rc;
		}
		json_end(&j);
		json_done(&j);
		free(p);
		return VPK_EXIT_OK;
	}
	printf("powersim: %s\n", title);
	printf("  cpu %s: %s\n  %u cores, %u wide; request %.0f cycles (%.1f us at %.2f GHz), %zu sections; %s; "
	       "hop round trip %.0f ns\n",
	       conf->cpu.name, conf->cpu.desc, conf->cores, conf->wide_cores, cpr, cpr / conf->cpu.ghz[0] / 1e3,
	       conf->cpu.ghz[0], w->n, w->rate > 0 ? "open loop" : "closed loop (saturation)", conf->switch_ns);
	printf("\n  %-22s %11s %8s %8s %12s %11s\n", "", "requests/s", "loss", "avg GHz", "scalar slowed",
	       "hops/s");
	print_result("no specialization", &p->without);
	if (per_core)
		print_cores(conf, p->pc_without);
	if (p->have_with && p->without.loss <= 0) {
		print_result("wide cores", &p->with);
		printf("\n  loss_without %.4f  loss_with %.4f: no licence loss to remove; hops cost %.2f%% of the throughput\n",
		       p->without.loss, p->with.loss, -100 * (p->with.throughput / p->without.throughput - 1));
	} else if (p->have_with) {
		char what[48];
		snprintf(what, sizeof(what), "%u wide core%s%s", conf->wide_cores, conf->wide_cores > 1 ? "s" : "",
			 conf->sync ? " (sync)" : conf->dedicated ? " (ded.)" : "");
		print_result(what, &p->with);
		if (per_core)
			print_cores(conf, p->pc_with);
		printf("\n  loss_without %.4f  loss_with %.4f: specialization %s %.0f%% of the loss (throughput %+.2f%%)\n",
		       p->without.loss, p->with.loss, red >= 0 ? "removes" : "adds", 100 * (red >= 0 ? red : -red),
		       100 * (p->with.throughput / p->without.throughput - 1));
	}
	if (extra && extra->text)
		extra->text(extra, p);
	if (nk && p->have_with)
		rc = sweep(conf, w, ks, nk, NULL);
	free(p);
	return rc;
}

