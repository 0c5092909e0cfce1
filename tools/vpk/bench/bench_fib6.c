/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk bench fib --ipv6: the IPv6 FIB benchmark, as `vpk bench fib` for IPv4: one
 * table (-f, e.g. the real RouteViews IPv6 table), 10 M uniformly random and
 * 10 M in-table addresses in random order, entry widths 2/4/8; vpk's lookup
 * variants and rte_fib6's scalar and AVX-512 types (dlopen, same process,
 * same data) timed over the whole array per pass (each after an untimed
 * warm-up on the first 256k keys), passes interleaved; results
 * cross-checked; add/delete cost in address order and shuffled; memory.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/fib6.h>

#include "bench.h"
#include "bench/bench_fib.h"
#include "fib/fib_file.h"
#include "fib/fib_dpdk.h"
#include "fib/fib_gen.h"
#include "common/json.h"
#include "common/tool.h"


#define TBL8 200000u    /* rte_fib6 22.11 over-reserves: the RouteViews table needs ~5x what it uses */

struct row6 {
	unsigned nh_size;
	const char *impl, *variant, *keys;
	double med, min;
	bool same;
};

static uint32_t
groups6(unsigned sz)
{
	uint64_t m = vpk_fib6_max_nh(sz);

	return m < TBL8 ? (uint32_t)m : TBL8;
}

/* The clock: TSC ticks, or with --cpu-time this thread's CPU time in TSC ticks. */
static bool use_cpu_time;

static uint64_t
now(void)
{
	return bench_clock(use_cpu_time);
}

#define NTYPES 2
#define WARM_KEYS 262144
static const enum vpk_fib6_type types[NTYPES] = { VPK_FIB6_TRIE, VPK_FIB6_BM6 };
static const char *const tnames[NTYPES] = { "vpk-trie", "vpk-bm6" };

/*
 * Add then delete everything, twice (fresh, then warm memory: see "bench
 * fib"); cycles per route, -1 if it does not fit. vpk refills the same object;
 * rte_fib6 gets a new object for the second fill, on the heap memory the first
 * one faulted in (as rte_fib in "bench fib", which cannot be refilled).
 */
static int
upd(bool dpdk, enum vpk_fib6_type type, unsigned sz, const struct gen_route6 *rt, size_t n, double add[2],
    double del[2])
{
	struct vpk_fib6_conf c = { .type = type, .nh_size = sz, .num_tbl8 = groups6(sz), .max_routes = (uint32_t)n };
	struct vpk_fib6 *v = NULL;
	struct dpdk_fib6 *d = NULL;
	const char *why;
	int bad = 0;

	if (!dpdk && vpk_fib6_create(&c, &v) != 0)
		return -1;
	for (int k = 0; k < 2 && !bad; k++) {
		if (dpdk && (d = dpdk_fib6_create(sz, groups6(sz), (uint32_t)n, 0, &why)) == NULL)
			return -1;
		uint64_t t0 = now();
		for (size_t i = 0; i < n && !bad; i++)
			bad = dpdk ? dpdk_fib6_add(d, rt[i].ip, rt[i].depth, rt[i].nh)
				   : vpk_fib6_add(v, rt[i].ip, rt[i].depth, rt[i].nh);
		uint64_t t1 = now();
		for (size_t i = 0; i < n && !bad; i++)
			dpdk ? dpdk_fib6_del(d, rt[i].ip, rt[i].depth) : vpk_fib6_del(v, rt[i].ip, rt[i].depth);
		uint64_t t2 = now();
		dpdk_fib6_free(d);
		d = NULL;
		add[k] = (double)(t1 - t0) / (double)n;
		del[k] = (double)(t2 - t1) / (double)n;
	}
	vpk_fib6_destroy(v);
	return bad ? -1 : 0;
}

static int
cmp6(const void *a, const void *b)
{
	const struct gen_route6 *x = a, *y = b;
	int c = memcmp(x->ip, y->ip, 16);

	return c ? c : (x->depth > y->depth) - (x->depth < y->depth);
}

int
bench_fib_ipv6(int argc, char **argv)
{
	struct bench_fib_opts bo;
	int code = bench_fib_parse(argc, argv, true, &bo);
	char err[512];

	if (code != 0)
		return code < 0 ? VPK_EXIT_OK : code;
	const char *path = bo.path;
	const unsigned *sizes = bo.sizes, nsizes = bo.nsizes, passes = bo.passes;
	size_t nl = bo.nl;
	bool use_dpdk = bo.use_dpdk, updates = bo.updates;

	use_cpu_time = bo.cpu_time;
	struct fib_file_routes fr;
	if (vpk_fib_file_load_routes(path, 6, &fr, err, sizeof(err)) != 0)
		return vpk_fail(VPK_EXIT_USAGE, "bench fib --ipv6: %s", err);
	size_t nrt = fr.n;
	struct gen_route6 *rt = malloc((nrt + 1) * sizeof(*rt));
	struct gen_rng rng = { 1 };
	for (size_t i = 0; i < nrt; i++) {
		memcpy(rt[i].ip, fr.r[i].addr, 16);
		rt[i].depth = fr.r[i].depth;
		rt[i].nh = fr.r[i].has_nh ? fr.r[i].nh % 128 : 1 + gen_below(&rng, 127);
	}
	vpk_fib_file_free_routes(&fr);
	qsort(rt, nrt, sizeof(*rt), cmp6);
	const char *dwhy = NULL;
	if (use_dpdk && dpdk_open(4096, &dwhy) != 0) {
		fprintf(stderr, "vpk: bench fib --ipv6: DPDK rows skipped: %s\n", dwhy);
		use_dpdk = false;
	}
	uint8_t (*keys[2])[16];
	const char *kname[2] = { "random", "in-table" };
	for (int k = 0; k < 2; k++) {
		keys[k] = malloc(nl * 16);
		gen_lookups6(rt, nrt, k == 0 ? GEN_LOOKUP_RANDOM : GEN_LOOKUP_INTABLE, 0, 11 + (uint64_t)k, keys[k], nl);
	}
	uint64_t *out = malloc(nl * 8), *ref = malloc(nl * 8);
	struct row6 rows[64];
	if (keys[0] == NULL || keys[1] == NULL || out == NULL || ref == NULL)
		return vpk_fail(VPK_EXIT_FAIL, "bench fib --ipv6: out of memory for %zu lookups", nl);
	size_t nrows = 0;
	double ghz = bench_tsc_hz() / 1e9;
	struct json j;
	if (vpk_opts.json) {
		json_init(&j, stdout);
		json_obj(&j, NULL);
		json_str(&j, "routes_file", path);
		json_u64(&j, "routes", nrt);
		json_bool(&j, "dpdk_hugepages", use_dpdk && dpdk_hugepages());
		json_u64(&j, "lookups", nl);
		json_u64(&j, "passes", passes);
		json_str(&j, "method", "whole-array lookup_bulk per pass after an untimed warm-up on 256k keys, "
				       "one TSC pair, variants interleaved; cycles/lookup median and min over passes");
		json_dbl(&j, "tsc_ghz", ghz);
		json_str(&j, "clock", use_cpu_time ? "thread CPU time x TSC rate" : "TSC");
		json_arr(&j, "tables");
	} else {
		printf("%zu IPv6 routes from %s, %zu lookups per key set, %u passes, TSC %.2f GHz\n", nrt, path, nl, passes, ghz);
	}
	for (unsigned si = 0; si < nsizes; si++) {
		unsigned sz = sizes[si];
		struct vpk_fib6 *fibs[NTYPES] = { NULL };
		struct vpk_fib6_stats sts[NTYPES] = { { 0 } };
		struct dpdk_fib6 *dfib = NULL;
		bool oks[NTYPES], dok = false;
		for (int ty = 0; ty < NTYPES; ty++) {
			struct vpk_fib6_conf conf = { .type = types[ty], .nh_size = sz, .num_tbl8 = groups6(sz),
						      .max_routes = (uint32_t)nrt };
			oks[ty] = vpk_fib6_create(&conf, &fibs[ty]) == 0;
			for (size_t i = 0; oks[ty] && i < nrt; i++)
				oks[ty] = vpk_fib6_add(fibs[ty], rt[i].ip, rt[i].depth, rt[i].nh) == 0;
			if (fibs[ty] != NULL)
				vpk_fib6_get_stats(fibs[ty], &sts[ty]);
		}
		size_t dmem = 0;
		if (use_dpdk) {
			size_t h0 = dpdk_heap_used();
			dfib = dpdk_fib6_create(sz, groups6(sz), (uint32_t)nrt, 0, &dwhy);
			dok = dfib != NULL;
			for (size_t i = 0; dok && i < nrt; i++)
				dok = dpdk_fib6_add(dfib, rt[i].ip, rt[i].depth, rt[i].nh) == 0;
			dmem = dpdk_heap_used() - h0;
		}
		struct { const char *impl, *name; const struct vpk_impl *vi; struct vpk_fib6 *f; int dt; } r[16];
		size_t nr = 0;
		for (int ty = 0; ty < NTYPES; ty++)
			for (const struct vpk_impl *const *t = vpk_fib6_impls(types[ty]); oks[ty] && *t; t++)
				if (vpk_impl_why_not(*t) == NULL) {
					r[nr].impl = tnames[ty];
					r[nr].name = (*t)->name;
					r[nr].f = fibs[ty];
					r[nr++].vi = *t;
				}
		for (int t = 1; dok && t <= 2; t++)
			if (dpdk_fib6_select(dfib, t) == 0) {
				r[nr].impl = "rte_fib6";
				r[nr].name = t == 1 ? "s-scalar" : "v-avx512";
				r[nr].vi = NULL;
				r[nr++].dt = t;
			}
		nrows = 0;
		for (int k = 0; k < 2 && nr > 0; k++) {
			double cyc[16][100];
			bool same[16];
			for (size_t x = 0; x < nr; x++) {
				if (r[x].vi) {
					vpk_fib6_select(r[x].f, r[x].vi->name);
					vpk_fib6_lookup_bulk(r[x].f, (const uint8_t (*)[16])keys[k], x == 0 ? ref : out, nl);
				} else {
					dpdk_fib6_select(dfib, r[x].dt);
					dpdk_fib6_lookup(dfib, (const uint8_t (*)[16])keys[k], x == 0 ? ref : out, nl);
				}
				same[x] = x == 0 || memcmp(ref, out, nl * 8) == 0;
				if (!same[x])
					code = vpk_fail(VPK_EXIT_FAIL, "bench fib --ipv6: %s %s differs (%u B, %s)", r[x].impl,
							r[x].name, sz, kname[k]);
			}
			for (unsigned p = 0; p < passes; p++)
				for (size_t x = 0; x < nr; x++) {
					if (r[x].vi)
						vpk_fib6_select(r[x].f, r[x].vi->name);
					else
						dpdk_fib6_select(dfib, r[x].dt);
					/* Untimed warm-up on a prefix of the keys: every runner starts its
					 * pass with its own tables in cache, not the previous runner's. */
					for (int w = 0; w < 2; w++) {
						size_t m = w ? nl : (nl < WARM_KEYS ? nl : WARM_KEYS);
						uint64_t t0 = now();
						if (r[x].vi)
							vpk_fib6_lookup_bulk(r[x].f, (const uint8_t (*)[16])keys[k], out, m);
						else
							dpdk_fib6_lookup(dfib, (const uint8_t (*)[16])keys[k], out, m);
						cyc[x][p] = (double)(now() - t0) / (double)m;
					}
					bench_keep(out[nl - 1]);
				}
			for (size_t x = 0; x < nr; x++)
				rows[nrows++] = (struct row6){ sz, r[x].impl, r[x].name, kname[k], bench_median(cyc[x], passes),
							       bench_min(cyc[x], passes), same[x] };
		}
		for (int ty = 0; ty < NTYPES; ty++)
			vpk_fib6_destroy(fibs[ty]);
		dpdk_fib6_free(dfib);
		/* [order][trie, bm6, rte_fib6][fresh, warm] */
		double ua[2][3][2], ud[2][3][2];
		for (double *x = &ua[0][0][0]; x < &ua[0][0][0] + 12; x++)
			*x = -1;
		memcpy(ud, ua, sizeof(ud));
		for (int sh = 0; updates && sh < 2; sh++) {
			struct gen_route6 *o = rt;
			if (sh) {
				o = malloc(nrt * sizeof(*o) + 1);
				memcpy(o, rt, nrt * sizeof(*o));
				gen_shuffle(o, nrt, sizeof(*o), 99);
			}
			for (int ty = 0; ty < NTYPES; ty++)
				if (upd(false, types[ty], sz, o, nrt, ua[sh][ty], ud[sh][ty]) != 0)
					ua[sh][ty][0] = ud[sh][ty][0] = ua[sh][ty][1] = ud[sh][ty][1] = -1;
			if (use_dpdk && upd(true, VPK_FIB6_TRIE, sz, o, nrt, ua[sh][2], ud[sh][2]) != 0)
				ua[sh][2][0] = ud[sh][2][0] = ua[sh][2][1] = ud[sh][2][1] = -1;
			if (sh)
				free(o);
		}
		if (vpk_opts.json) {
			json_obj(&j, NULL);
			json_u64(&j, "nh_size", sz);
			json_bool(&j, "vpk_loaded", oks[0] && oks[1]);
			json_u64(&j, "vpk_tbl8_used", sts[0].tbl8_used);
			json_u64(&j, "vpk_dataplane_bytes", sts[0].dataplane_touched);
			json_u64(&j, "vpk_rib_bytes", sts[0].rib_bytes);
			json_u64(&j, "vpk_bm6_dataplane_bytes", sts[1].dataplane_touched);
			json_u64(&j, "vpk_bm6_control_bytes", sts[1].rib_bytes);
			json_bool(&j, "dpdk_loaded", dok);
			json_u64(&j, "dpdk_heap_bytes", dmem);
			json_arr(&j, "lookup");
			for (size_t x = 0; x < nrows; x++) {
				json_obj(&j, NULL);
				json_str(&j, "impl", rows[x].impl);
				json_str(&j, "variant", rows[x].variant);
				json_str(&j, "keys", rows[x].keys);
				json_dbl(&j, "cycles_median", rows[x].med);
				json_dbl(&j, "cycles_min", rows[x].min);
				json_bool(&j, "same_results", rows[x].same);
				json_end(&j);
			}
			json_end(&j);
			json_obj(&j, "updates");   /* fresh memory; "_warm": the second fill */
			static const char *const who[3] = { "vpk", "bm6", "dpdk" };
			for (int w = 0; w < 2; w++)
				for (int t = 0; t < 3; t++)
					for (int sh = 0; sh < 2; sh++) {
						char key[48];
						const char *ord = sh ? "shuffled" : "sorted", *suf = w ? "_warm" : "";
						snprintf(key, sizeof(key), "%s_add_%s%s", who[t], ord, suf);
						json_dbl(&j, key, ua[sh][t][w]);
						snprintf(key, sizeof(key), "%s_del_%s%s", who[t], ord, suf);
						json_dbl(&j, key, ud[sh][t][w]);
					}
			json_end(&j);
			json_end(&j);
		} else {
			printf("%u B: vpk %s (%u groups, trie dataplane %.1f MiB, RIB %.1f MiB; bm6 dataplane %.2f MiB, "
			       "control %.1f MiB); rte_fib6 %s (heap %.1f MiB at %u groups)\n",
			       sz, oks[0] && oks[1] ? "loaded" : "FAILED", sts[0].tbl8_used, sts[0].dataplane_touched / 1048576.0,
			       sts[0].rib_bytes / 1048576.0, sts[1].dataplane_touched / 1048576.0,
			       sts[1].rib_bytes / 1048576.0, dok ? "loaded" : use_dpdk ? "FAILED" : "skipped",
			       dmem / 1048576.0, groups6(sz));
			for (size_t x = 0; x < nrows; x++)
				printf("  %-9s %-9s %-9s %9.2f cyc (best %.2f) %7.1f Mlps%s\n", rows[x].impl, rows[x].variant,
				       rows[x].keys, rows[x].med, rows[x].min, ghz * 1e3 / rows[x].med,
				       rows[x].same ? "" : "  DIFFERENT RESULTS");
			for (int w = 0; updates && w < 2; w++)
				printf("  updates (cycles/route, %s) sorted add/del: trie %.0f/%.0f bm6 %.0f/%.0f rte_fib6 "
				       "%.0f/%.0f; shuffled: trie %.0f/%.0f bm6 %.0f/%.0f rte_fib6 %.0f/%.0f\n",
				       w ? "warm" : "fresh", ua[0][0][w], ud[0][0][w], ua[0][1][w], ud[0][1][w], ua[0][2][w],
				       ud[0][2][w], ua[1][0][w], ud[1][0][w], ua[1][1][w], ud[1][1][w], ua[1][2][w], ud[1][2][w]);
		}
	}
	if (vpk_opts.json) {
		json_end(&j);
		json_end(&j);
		json_done(&j);
	}
	free(keys[0]);
	free(keys[1]);
	free(out);
	free(ref);
	free(rt);
	return code;
}
