/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk powersim: the frequency-licence model (include/vpk/powersim.h) on a
 * built-in scenario, a request given on the command line, or a forwarder's
 * runtime statistics (--from-runtime, powersim_runtime.c). It always runs
 * the same workload twice, without wide cores and with them, and reports
 * both losses; --sweep repeats that with the request cut into k-times
 * shorter pieces (k-times more hand-offs per second) to find where
 * specialization stops paying.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "power/powersim.h"
#include "bench.h"
#include "json.h"
#include "powersim_tool.h"
#include "core/num.h"
#include "tool.h"

static int cmd_powersim(int argc, char **argv);
VPK_CMD(powersim, "powersim", "frequency-licence simulator: when confining 512-bit work to wide cores pays",
	cmd_powersim);

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: vpk powersim (--scenario NAME | --request SPEC | --from-runtime FILE) [options]\n"
		"  --scenario NAME      built-in scenario (nginx-openssl-avx512)\n"
		"  --request SPEC       sections of one request: CLASS:AMOUNT,...  CLASS: scalar 256l 256h\n"
		"                       512l 512h; AMOUNT: cycles (k/M/G) or time at L0 (ns/us/ms)\n"
		"  --from-runtime FILE  `vpk fwd --show-runtime --json` dump (docs/corespec.md)\n"
		"  --cpu NAME           CPU model (--list shows them)        --cores N      cores in all\n"
		"  --wide-cores N       wide cores (0: only the run without)  --rate R      requests/s (open loop)\n"
		"  --switch-ns NS       CPU time per scalar->wide->scalar round trip (hand-off or migration)\n"
		"  --confine 256|512    lowest width confined to wide cores (default 512)\n"
		"  --dedicated          wide cores run wide sections only\n"
		"  --sync               the scalar core waits for each hand-off (vpk_wide_call); implies --dedicated\n"
		"  --duration-ms MS     simulated time (default 200)   --tasks N   requests in flight\n"
		"  --frame N            --from-runtime: packets per frame (default 256)\n"
		"  --ghz F0,F1,F2 --ramp-us US --throttle X --halt-us US --hyst-us US\n"
		"                       override the CPU model's licence frequencies and timing\n"
		"  --sweep K,K,...      also run with the request cut into K-times shorter pieces\n"
		"  --per-core           per-core figures      --list   CPU models and scenarios\n");
}

static int
list(void)
{
	if (vpk_opts.json) {
		struct json j;
		json_init(&j, stdout);
		json_obj(&j, NULL);
		json_arr(&j, "cpus");
		for (size_t i = 0; vpk_psim_cpu_at(i); i++) {
			const struct vpk_psim_cpu *c = vpk_psim_cpu_at(i);
			json_obj(&j, NULL);
			json_str(&j, "name", c->name);
			json_str(&j, "desc", c->desc);
			json_str(&j, "source", c->source);
			json_arr(&j, "ghz");
			for (int l = 0; l < VPK_PSIM_LEVELS; l++)
				json_dbl(&j, NULL, c->ghz[l]);
			json_end(&j);
			json_arr(&j, "level_of");
			for (int k = 0; k < VPK_PSIM_N_CLASSES; k++)
				json_u64(&j, NULL, c->level_of[k]);
			json_end(&j);
			json_dbl(&j, "volt_ns", c->volt_ns);
			json_dbl(&j, "throttle", c->throttle);
			json_dbl(&j, "halt_ns", c->halt_ns);
			json_dbl(&j, "hyst_ns", c->hyst_ns);
			json_end(&j);
		}
		json_end(&j);
		json_arr(&j, "scenarios");
		for (size_t i = 0; vpk_psim_scenario_name(i); i++)
			json_str(&j, NULL, vpk_psim_scenario_name(i));
		json_end(&j);
		json_end(&j);
		json_done(&j);
		return VPK_EXIT_OK;
	}
	printf("%-11s %-15s %-10s %7s %8s %7s %7s  %s\n", "cpu", "GHz L0/L1/L2", "levels*", "ramp us", "throttle",
	       "halt us", "hyst us", "source");
	for (size_t i = 0; vpk_psim_cpu_at(i); i++) {
		const struct vpk_psim_cpu *c = vpk_psim_cpu_at(i);
		char g[32], l[32];
		snprintf(g, sizeof(g), "%.2f/%.2f/%.2f", c->ghz[0], c->ghz[1], c->ghz[2]);
		snprintf(l, sizeof(l), "%u/%u/%u/%u/%u", c->level_of[0], c->level_of[1], c->level_of[2],
			 c->level_of[3], c->level_of[4]);
		printf("%-11s %-15s %-10s %7.1f %8.2f %7.1f %7.0f  %s\n", c->name, g, l, c->volt_ns / 1e3,
		       c->throttle, c->halt_ns / 1e3, c->hyst_ns / 1e3, c->source);
	}
	printf("* licence level needed by scalar/256l/256h/512l/512h code\nscenarios:");
	for (size_t i = 0; vpk_psim_scenario_name(i); i++)
		printf(" %s", vpk_psim_scenario_name(i));
	printf("\n");
	return VPK_EXIT_OK;
}

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
	json_dbl(j, "throughput", r->throughput);
	json_dbl(j, "ideal_throughput", r->ideal_throughput);
	json_dbl(j, "loss", r->loss);
	json_dbl(j, "utilisation", r->utilisation);
	json_dbl(j, "avg_ghz", r->avg_ghz);
	json_dbl(j, "scalar_slowed_share", r->scalar_slowed_share);
	json_dbl(j, "hops_per_s", r->hops_per_s);
	json_u64(j, "dropped", r->dropped);
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
			json_dbl(j, "throttle_ns", pc[i].throttle_ns);
			json_dbl(j, "halt_ns", pc[i].halt_ns);
			json_dbl(j, "switch_ns", pc[i].switch_ns);
			json_dbl(j, "idle_ns", pc[i].idle_ns);
			json_u64(j, "ups", pc[i].ups);
			json_u64(j, "downs", pc[i].downs);
			json_end(j);
		}
		json_end(j);
	}
	json_end(j);
}

void
psim_json_conf(struct json *j, const struct vpk_psim_conf *c, const struct vpk_psim_workload *w)
{
	json_str(j, "cpu", c->cpu.name);
	json_u64(j, "cores", c->cores);
	json_u64(j, "wide_cores", c->wide_cores);
	json_dbl(j, "switch_ns", c->switch_ns);
	json_bool(j, "dedicated", c->dedicated);
	json_bool(j, "sync", c->sync);
	json_dbl(j, "rate", w->rate);
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
			json_obj(j, NULL);
			json_u64(j, "k", ks[i]);
			json_dbl(j, "hops_per_s_per_scalar_core", hps);
			json_dbl(j, "loss_without", p->without.loss);
			json_dbl(j, "loss_with", p->with.loss);
			json_dbl(j, "gain", gain);
			json_end(j);
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
			json_dbl(&j, "loss_with", p->with.loss);
			json_dbl(&j, "loss_reduction", red);
			json_dbl(&j, "gain", p->with.throughput / p->without.throughput - 1);
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

static int
cmd_powersim(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "scenario", required_argument, 0, 's' }, { "request", required_argument, 0, 'r' },
		{ "from-runtime", required_argument, 0, 'f' }, { "cpu", required_argument, 0, 'c' },
		{ "cores", required_argument, 0, 'n' }, { "wide-cores", required_argument, 0, 'w' },
		{ "rate", required_argument, 0, 'R' }, { "switch-ns", required_argument, 0, 'S' },
		{ "confine", required_argument, 0, 'C' }, { "dedicated", no_argument, 0, 'D' }, { "sync", no_argument, 0, 'Y' },
		{ "duration-ms", required_argument, 0, 'd' }, { "tasks", required_argument, 0, 't' },
		{ "frame", required_argument, 0, 'F' }, { "sweep", required_argument, 0, 'k' },
		{ "per-core", no_argument, 0, 'p' }, { "list", no_argument, 0, 'l' },
		{ "ghz", required_argument, 0, 'G' }, { "ramp-us", required_argument, 0, 'V' },
		{ "throttle", required_argument, 0, 'T' }, { "halt-us", required_argument, 0, 'H' },
		{ "hyst-us", required_argument, 0, 'Z' },
		{ "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
	};
	struct psim_args a;
	memset(&a, 0, sizeof(a));
	a.cores = a.wide = a.tasks = a.frame = -1;
	a.rate = a.switch_ns = a.duration_ms = -1;
	a.ramp_us = a.throttle = a.halt_us = a.hyst_us = -1;
	optind = 1;
	opterr = 0;     /* one line of our own instead of getopt's */
	for (int o, li = 0; (o = getopt_long(argc, argv, "", opts, &li)) != -1;) {
		char where[40];
		unsigned u;
		bool ok = true;

		/* Every value is checked whole against its range: a negative,
		 * NaN or junk value is refused, never taken as "not given". */
		snprintf(where, sizeof(where), "powersim: --%s", opts[li].name);
		switch (o) {
		case 's': a.scenario = optarg; break;
		case 'r': a.request = optarg; break;
		case 'f': a.runtime = optarg; break;
		case 'c': a.cpu = optarg; break;
		case 'n': ok = vpk_opt_uint(where, optarg, 1, VPK_PSIM_MAX_CORES, &u), a.cores = u; break;
		case 'w': ok = vpk_opt_uint(where, optarg, 0, VPK_PSIM_MAX_CORES - 1, &u), a.wide = u; break;
		case 't': ok = vpk_opt_uint(where, optarg, 1, VPK_PSIM_MAX_TASKS, &u), a.tasks = u; break;
		case 'F': ok = vpk_opt_uint(where, optarg, 1, 65536, &u), a.frame = u; break;
		case 'R': ok = vpk_opt_f64(where, optarg, 0, 1e12, &a.rate); break;
		case 'S': ok = vpk_opt_f64(where, optarg, 0, 1e9, &a.switch_ns); break;
		case 'd': ok = vpk_opt_f64(where, optarg, 1, 10000, &a.duration_ms); break;
		case 'C':
			ok = vpk_opt_uint(where, optarg, 256, 512, &u), a.confine = u;
			if (ok && u != 256 && u != 512)
				return vpk_fail(VPK_EXIT_USAGE, "powersim: --confine takes 256 or 512");
			break;
		case 'G': {
			const char *p = optarg;
			for (int l = 0; l < VPK_PSIM_LEVELS && ok; l++) {
				size_t k = strcspn(p, ",");
				char why[120];

				if ((l < 2) != (p[k] == ',') || vpk_num_f64n(p, k, 0.1, 20, &a.ghz[l], why, sizeof(why)) != 0)
					return vpk_fail(VPK_EXIT_USAGE, "powersim: --ghz %s: %s", optarg,
							(l < 2) != (p[k] == ',') ? "takes three frequencies F0,F1,F2" : why);
				p += k + 1;
			}
			a.have_ghz = true;
			break;
		}
		case 'V': ok = vpk_opt_f64(where, optarg, 0, 1e6, &a.ramp_us); break;
		case 'T': ok = vpk_opt_f64(where, optarg, 1e-6, 1, &a.throttle); break;
		case 'H': ok = vpk_opt_f64(where, optarg, 0, 1e6, &a.halt_us); break;
		case 'Z': ok = vpk_opt_f64(where, optarg, 0, 1e6, &a.hyst_us); break;
		case 'D': a.dedicated = true; break;
		case 'Y': a.sync = true; break;
		case 'p': a.per_core = true; break;
		case 'l': return list();
		case 'k':
			a.nk = vpk_opt_list(where, optarg, 1, 1000000, a.ks, sizeof(a.ks) / sizeof(a.ks[0]));
			ok = a.nk > 0;
			break;
		case 'h': usage(stdout); return VPK_EXIT_OK;
		default:
			return vpk_fail(VPK_EXIT_USAGE, "powersim: %s: unknown option or missing value (vpk powersim --help)",
					argv[optind - 1]);
		}
		if (!ok)
			return VPK_EXIT_USAGE;
	}
	if (optind < argc)
		return vpk_fail(VPK_EXIT_USAGE, "powersim: unexpected argument '%s'", argv[optind]);
	if (!!a.scenario + !!a.request + !!a.runtime != 1)
		return vpk_fail(VPK_EXIT_USAGE, "powersim: give exactly one of --scenario, --request, --from-runtime");
	return psim_main(&a);
}
