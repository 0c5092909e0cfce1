/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk bench wide: what the two forms of core specialization cost here, in
 * TSC cycles per round trip:
 *
 *   affinity-same   sched_setaffinity() to the CPU the thread is on (the
 *                   system call alone, no migration)
 *   migrate-pair    vpk_wide_begin() + vpk_wide_end(): scalar CPU -> wide
 *                   CPU -> back (two migrations)
 *   call-hot        vpk_wide_call() of an empty function, worker polling
 *   call-cold       the same with the worker asleep on its futex each time
 *
 * The caller is pinned to --scalar-cpu (default 0), the wide set is
 * --wide-cpus (default: the last CPU). Each run times every iteration; the
 * run's figure is the median iteration (a VM's rare multi-millisecond
 * outliers would swamp a mean); the report gives the median, min and max
 * of the runs' figures.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <vpk/wide.h>
#include "bench.h"
#include "common/json.h"
#include "common/tool.h"

static int cmd_bench_wide(int argc, char **argv);
VPK_CMD(bench_wide, "bench wide", "wide-core markers (migration) vs vpk_wide_call round trip, TSC cycles",
	cmd_bench_wide);

enum op { OP_AFFINITY, OP_MIGRATE, OP_CALL_HOT, OP_CALL_COLD, N_OPS };
static const char *const op_names[N_OPS] = { "affinity-same", "migrate-pair", "call-hot", "call-cold" };

static int
empty_fn(void *arg)
{
	return (int)(long)arg;
}

/* One run of @iters iterations of @op; the median iteration in cycles, or -1. */
static double
run_once(enum op op, unsigned iters, int scalar_cpu)
{
	double *v = malloc(iters * sizeof(*v));
	if (!v)
		return -1;
	cpu_set_t here;
	CPU_ZERO(&here);
	CPU_SET(scalar_cpu, &here);
	for (unsigned i = 0; i < iters; i++) {
		uint64_t t0 = bench_tsc();
		int rc = 0, r;
		switch (op) {
		case OP_AFFINITY:
			rc = sched_setaffinity(0, sizeof(here), &here);
			break;
		case OP_MIGRATE:
			rc = vpk_wide_begin();
			if (!rc)
				rc = vpk_wide_end();
			break;
		case OP_CALL_HOT:
		case OP_CALL_COLD:
			rc = vpk_wide_call(empty_fn, (void *)(long)i, &r);
			break;
		default:
			break;
		}
		v[i] = (double)(bench_tsc() - t0);
		if (rc) {
			free(v);
			return -1;
		}
		if (op == OP_CALL_COLD) /* let the worker fall asleep again */
			usleep(200);
	}
	double m = bench_median(v, iters);
	free(v);
	return m;
}

static int
cmd_bench_wide(int argc, char **argv)
{
	VPK_LONGOPTS(opts, "scalar-cpu=s wide-cpus=w iters=i runs=r help/h");
	int scalar_cpu = 0;
	char wide[64];
	unsigned iters = 2000, runs = 7;
	snprintf(wide, sizeof(wide), "%d", get_nprocs() - 1);
	optind = 1;
	for (int o; (o = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
		bool ok = true;
		unsigned u;
		switch (o) {
		case 's': ok = vpk_opt_uint("bench wide: --scalar-cpu", optarg, 0, 1023, &u), scalar_cpu = (int)u; break;
		case 'w': snprintf(wide, sizeof(wide), "%s", optarg); break;
		case 'i': ok = vpk_opt_uint("bench wide: --iters", optarg, 10, 1000000, &iters); break;
		case 'r': ok = vpk_opt_uint("bench wide: --runs", optarg, 1, 101, &runs); break;
		case 'h':
			printf("usage: vpk bench wide [--scalar-cpu=N] [--wide-cpus=LIST] [--iters=N] [--runs=R] [--json]\n");
			return VPK_EXIT_OK;
		default: return VPK_EXIT_USAGE;
		}
		if (!ok)
			return VPK_EXIT_USAGE;
	}
	if (iters < 10 || iters > 1000000 || runs < 1 || runs > 101)
		return vpk_fail(VPK_EXIT_USAGE, "bench wide: --iters must be 10..1000000, --runs 1..101");
	if (get_nprocs() < 2)
		return vpk_fail(VPK_EXIT_FAIL, "bench wide: needs at least 2 CPUs");
	int rc = vpk_wide_set_cores(wide);
	if (rc)
		return vpk_fail(VPK_EXIT_USAGE, "bench wide: --wide-cpus '%s': %s", wide, strerror(-rc));
	cpu_set_t saved, one;
	sched_getaffinity(0, sizeof(saved), &saved);
	CPU_ZERO(&one);
	CPU_SET(scalar_cpu, &one);
	if (scalar_cpu < 0 || scalar_cpu >= CPU_SETSIZE || sched_setaffinity(0, sizeof(one), &one))
		return vpk_fail(VPK_EXIT_USAGE, "bench wide: cannot run on --scalar-cpu %d", scalar_cpu);
	double tsc = bench_tsc_hz();
	double fig[N_OPS][101];
	int status = VPK_EXIT_OK;
	for (int op = 0; op < N_OPS && status == VPK_EXIT_OK; op++) {
		if (op == OP_CALL_HOT || op == OP_CALL_COLD) {
			rc = vpk_wide_worker_start(op == OP_CALL_HOT ? 10000000u : 0u);
			if (rc) {
				status = vpk_fail(VPK_EXIT_FAIL, "bench wide: worker: %s", strerror(-rc));
				break;
			}
		}
		unsigned n = op == OP_CALL_HOT ? iters * 10 : op == OP_CALL_COLD ? iters / 10 : iters;
		run_once((enum op)op, n / 10 + 1, scalar_cpu); /* warm-up */
		for (unsigned r = 0; r < runs; r++) {
			fig[op][r] = run_once((enum op)op, n, scalar_cpu);
			if (fig[op][r] < 0) {
				status = vpk_fail(VPK_EXIT_FAIL, "bench wide: %s failed", op_names[op]);
				break;
			}
		}
		if (op == OP_CALL_HOT || op == OP_CALL_COLD)
			vpk_wide_worker_stop();
	}
	sched_setaffinity(0, sizeof(saved), &saved);
	if (status)
		return status;
	struct json j;
	if (vpk_opts.json) {
		bench_json_begin(&j, "wide");
		json_dbl(&j, "tsc_hz", tsc);
		json_u64(&j, "scalar_cpu", (uint64_t)scalar_cpu);
		json_str(&j, "wide_cpus", wide);
		json_u64(&j, "runs", runs);
		json_arr(&j, "results");
	} else {
		printf("scalar CPU %d, wide CPUs %s, TSC %.3f GHz, %u runs; figure per run = median iteration\n",
		       scalar_cpu, wide, tsc / 1e9, runs);
		printf("  %-14s %8s %14s %10s %10s %10s\n", "op", "iters", "cycles median", "min", "max", "ns");
	}
	double med[N_OPS];
	for (int op = 0; op < N_OPS; op++) {
		unsigned n = op == OP_CALL_HOT ? iters * 10 : op == OP_CALL_COLD ? iters / 10 : iters;
		double lo = bench_min(fig[op], runs), hi = bench_max(fig[op], runs);
		med[op] = bench_median(fig[op], runs);
		if (vpk_opts.json) {
			json_obj(&j, NULL);
			json_str(&j, "name", op_names[op]);
			json_u64(&j, "iters", n);
			json_dbl(&j, "cycles_median", med[op]);
			json_dbl(&j, "cycles_min", lo);
			json_dbl(&j, "cycles_max", hi);
			json_dbl(&j, "ns_median", med[op] / tsc * 1e9);
			json_end(&j);
		} else {
			printf("  %-14s %8u %14.0f %10.0f %10.0f %10.0f\n", op_names[op], n, med[op], lo, hi,
			       med[op] / tsc * 1e9);
		}
	}
	if (vpk_opts.json) {
		json_end(&j);
		json_dbl(&j, "migrate_over_call_hot", med[OP_MIGRATE] / med[OP_CALL_HOT]);
		json_end(&j);
		json_done(&j);
	} else {
		printf("  a migration pair costs %.0fx a hot call\n", med[OP_MIGRATE] / med[OP_CALL_HOT]);
	}
	return VPK_EXIT_OK;
}
