/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk powersim: the frequency-licence model (power/powersim.h) on a
 * built-in scenario, a request given on the command line, or a forwarder's
 * runtime statistics (--from-runtime, powersim_input.c). It always runs
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
#include "common/json.h"
#include "power/powersim_tool.h"
#include "common/libvpk_internal.h"
#include "common/tool.h"

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
			json_fields(&j, JS("name", c->name), JS("desc", c->desc), JS("source", c->source));
			json_arr(&j, "ghz");
			for (int l = 0; l < VPK_PSIM_LEVELS; l++)
				json_dbl(&j, NULL, c->ghz[l]);
			json_end(&j);
			json_arr(&j, "level_of");
			for (int k = 0; k < VPK_PSIM_N_CLASSES; k++)
				json_u64(&j, NULL, c->level_of[k]);
			json_end(&j);
			json_fields(&j, JD("volt_ns", c->volt_ns), JD("throttle", c->throttle),
					JD("halt_ns", c->halt_ns), JD("hyst_ns", c->hyst_ns));
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

static int
cmd_powersim(int argc, char **argv)
{
	VPK_LONGOPTS(opts, "scenario=s request=r from-runtime=f cpu=c cores=n wide-cores=w rate=R "
			   "switch-ns=S confine=C dedicated/D sync/Y duration-ms=d tasks=t frame=F sweep=k "
			   "per-core/p list/l ghz=G ramp-us=V throttle=T halt-us=H hyst-us=Z help/h");
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
