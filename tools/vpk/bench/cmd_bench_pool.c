/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk bench pool: buffer pool alloc_burst + free_bulk, cycles per buffer
 * (one alloc and one free), per-thread cache off (cache_size 0: every call
 * takes the shared stack's lock) and on (cache_size 256), burst 1..256, on
 * 1 and 2 threads hammering the same pool at once. Each thread loops
 * "alloc b, free b" (the pattern of an rx -> tx burst); alloc resets each
 * buffer's 64-byte metadata line, which is part of the cost. Threads start
 * together on a barrier; a run's figure is the mean over threads of
 * TSC ticks / buffers; the median of --runs runs is reported.
 */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/buf.h>
#include "bench.h"
#include "common/json.h"
#include "common/tool.h"

static int cmd_bench_pool(int argc, char **argv);
VPK_CMD(bench_pool, "bench pool", "buffer pool alloc+free per burst, cache off/on, 1-2 threads",
	cmd_bench_pool);

#define MAX_THREADS 4
#define NCACHE 2        /* configurations: cache_size 0 and 256 */

struct worker {
	pthread_t t;
	struct vpk_pool *pool;
	pthread_barrier_t *bar;
	unsigned burst;
	unsigned long bufs;
	double cpb;             /* result: cycles per buffer */
	unsigned long short_allocs;
};

static void *
worker_run(void *arg)
{
	struct worker *w = arg;
	uint32_t idx[256];
	unsigned long done = 0;
	uint64_t t0;

	for (int i = 0; i < 64; i++) {          /* warm-up: fills this thread's cache */
		uint32_t got = vpk_pool_alloc_burst(w->pool, idx, w->burst);

		vpk_pool_free_bulk(w->pool, idx, got);
	}
	pthread_barrier_wait(w->bar);
	t0 = bench_tsc();
	while (done < w->bufs) {
		uint32_t got = vpk_pool_alloc_burst(w->pool, idx, w->burst);

		w->short_allocs += got < w->burst;
		bench_keep(idx[0]);
		vpk_pool_free_bulk(w->pool, idx, got);
		done += w->burst;
	}
	w->cpb = (double)(bench_tsc() - t0) / (double)done;
	return NULL;
}

static double
one_run(struct vpk_pool *pool, unsigned threads, unsigned burst, unsigned long bufs,
	unsigned long *short_allocs)
{
	struct worker w[MAX_THREADS];
	pthread_barrier_t bar;
	double sum = 0;

	pthread_barrier_init(&bar, NULL, threads);
	for (unsigned i = 0; i < threads; i++) {
		w[i] = (struct worker){ .pool = pool, .bar = &bar, .burst = burst, .bufs = bufs };
		pthread_create(&w[i].t, NULL, worker_run, &w[i]);
	}
	for (unsigned i = 0; i < threads; i++) {
		pthread_join(w[i].t, NULL);
		sum += w[i].cpb;
		*short_allocs += w[i].short_allocs;
	}
	pthread_barrier_destroy(&bar);
	return sum / threads;
}

static int
cmd_bench_pool(int argc, char **argv)
{
	static const unsigned caches[NCACHE] = { 0, 256 };
	struct vpk_pool *pools[NCACHE];
	unsigned bursts[16] = { 1, 8, 32, 64, 256 }, thr[MAX_THREADS] = { 1, 2 };
	int nb = 5, nt = 2, ret;
	uint64_t bufs = 2u << 20;
	unsigned runs = 5;
	struct json j;
	const struct vpk_optnum nums[] = {
		VPK_OPTNUM_LIST('b', "bench pool: --burst", 1, 256, bursts, &nb, 16),
		VPK_OPTNUM_U64('n', "bench pool: --buffers", 1000, UINT64_C(1) << 40, &bufs),
		VPK_OPTNUM_UINT('r', "bench pool: --runs", 1, 101, &runs),
		VPK_OPTNUM_LIST('t', "bench pool: --threads", 1, MAX_THREADS, thr, &nt, MAX_THREADS),
		{ 0 },
	};

	ret = bench_options(argc, argv, "b:n:r:t:h", "burst=b buffers=n runs=r threads=t help/h", nums,
			    "usage: vpk bench pool [--burst=1,8,32,256] [--buffers=N] [--runs=R] [--threads=1,2] [--json]\n");
	if (ret >= 0)
		return ret;
	for (size_t ci = 0; ci < NCACHE; ci++) {
		/* Room for every thread's cache and burst: never exhausted. */
		struct vpk_pool_conf conf = { .name = "bench", .cache_size = caches[ci],
			.n_bufs = MAX_THREADS * (2 * 256 + 256) + 1024 };
		int rc = vpk_pool_create(&conf, &pools[ci]);

		if (rc != 0)
			return vpk_fail(VPK_EXIT_FAIL, "bench pool: pool create: %s", strerror(-rc));
	}
	if (vpk_opts.json) {
		bench_json_begin(&j, "pool");
		json_fields(&j, JS("cpu", vpk_cpu_model()), JD("tsc_hz", bench_tsc_hz()), JU("runs", runs),
			    JU("buffers_per_thread", bufs));
		json_arr(&j, "results");
	} else {
		printf("cpu %s, %u runs, %lu buffers per thread per run; cycles per buffer "
		       "(alloc + free): median (min-max)\n", vpk_cpu_model(), runs, (unsigned long)bufs);
	}
	if (!vpk_opts.json)
		printf("\n%-8s %-6s %-22s %-22s\n", "threads", "burst", "no cache", "cache 256");
	for (int ti = 0; ti < nt; ti++) {
		for (int bi = 0; bi < nb; bi++) {
			double v[NCACHE][101];
			unsigned long short_allocs[NCACHE] = { 0 };

			/* Both configurations in every run, so noise hits them alike. */
			for (unsigned r = 0; r < runs; r++)
				for (size_t ci = 0; ci < NCACHE; ci++)
					v[ci][r] = one_run(pools[ci], thr[ti], bursts[bi], bufs,
							   &short_allocs[ci]);
			if (!vpk_opts.json)
				printf("%-8u %-6u", thr[ti], bursts[bi]);
			for (size_t ci = 0; ci < NCACHE; ci++) {
				double lo = bench_min(v[ci], runs), hi = bench_max(v[ci], runs);
				double med = bench_median(v[ci], runs);

				if (vpk_opts.json) {
					json_obj(&j, NULL);
					json_u64(&j, "threads", thr[ti]);
					json_u64(&j, "cache", caches[ci]);
					json_u64(&j, "burst", bursts[bi]);
					json_dbl(&j, "cycles_per_buf", med);
					json_dbl(&j, "min", lo);
					json_dbl(&j, "max", hi);
					json_u64(&j, "short_allocs", short_allocs[ci]);
					json_end(&j);
				} else {
					char cell[64];

					snprintf(cell, sizeof(cell), "%.2f (%.2f-%.2f)%s", med, lo, hi,
						 short_allocs[ci] ? " SHORT" : "");
					printf(" %-22s", cell);
				}
			}
			if (!vpk_opts.json)
				printf("\n");
		}
	}
	for (size_t ci = 0; ci < NCACHE; ci++) {
		if (vpk_pool_in_use(pools[ci]) != 0)
			return vpk_fail(VPK_EXIT_FAIL, "bench pool: %u buffers still in use",
					vpk_pool_in_use(pools[ci]));
		vpk_pool_destroy(pools[ci]);
	}
	if (vpk_opts.json) {
		json_end(&j);
		json_end(&j);
		json_done(&j);
	}
	return VPK_EXIT_OK;
}
