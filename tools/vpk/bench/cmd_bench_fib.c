/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk bench fib: the FIB benchmark. One route table (-f, e.g. the real
 * RouteViews table), 10 M uniformly random and 10 M in-table addresses in
 * random order, every entry width; for each: vpk and DPDK rte_fib (loaded
 * with dlopen, same process, same routes and addresses) built side by side,
 * every vpk lookup variant and every rte_fib lookup type timed over the whole
 * address array (one TSC pair per pass, no per-burst fences), passes
 * interleaved, median and best; results cross-checked; add and delete cost in
 * address order and shuffled; dataplane and RIB bytes. JSON with --json.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vpk/fib.h>

#include "bench.h"
#include "bench/bench_fib.h"
#include "fib/fib_file.h"
#include "fib/fib_dpdk.h"
#include "fib/fib_gen.h"
#include "common/json.h"
#include "common/tool.h"

static int cmd_bench_fib(int argc, char **argv);
VPK_CMD(bench_fib, "bench fib", "FIB lookups, IPv4 or --ipv6 (vpk variants and rte_fib types), updates, memory", cmd_bench_fib);

struct row {
	unsigned nh_size;
	const char *impl, *variant, *keys;
	double med, min;
	bool same;
};

/*
 * Updates are timed twice on one object: the first fill runs on fresh memory
 * (first-touch page faults on vpk's lazily mapped tables; rte_fib's come from
 * the EAL heap that earlier objects may have touched), the second, after every
 * route was deleted, on memory the first fill faulted in: the steady state of
 * a running router, and the fair comparison (docs/fib.md).
 */
struct fill {
	double add[2], del[2];
};

struct upd {
	unsigned nh_size;
	const char *impl, *order;
	struct fill fl;
};

struct mem {
	unsigned nh_size;
	const char *impl;
	size_t dataplane, rib;
	bool loaded;
	const char *why;
};

static struct gen_route4 *
load(const char *path, uint64_t seed, size_t *n, int *code)
{
	struct fib_file_routes fr;
	char err[512];

	if (vpk_fib_file_load_routes(path, 4, &fr, err, sizeof(err)) != 0) {
		*code = vpk_fail(VPK_EXIT_USAGE, "bench fib: %s", err);
		return NULL;
	}
	struct gen_route4 *rt = malloc((fr.n + 1) * sizeof(*rt));
	struct gen_rng r = { seed };
	for (size_t i = 0; i < fr.n; i++) {
		const uint8_t *a = fr.r[i].addr;
		rt[i].ip = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
		rt[i].depth = fr.r[i].depth;
		/* Next hops fit every entry width (1-byte entries hold 127). */
		rt[i].nh = fr.r[i].has_nh ? fr.r[i].nh % 128 : 1 + gen_below(&r, 127);
	}
	*n = fr.n;
	vpk_fib_file_free_routes(&fr);
	return rt;
}

static int
by_addr(const void *a, const void *b)
{
	const struct gen_route4 *x = a, *y = b;

	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	return (x->depth > y->depth) - (x->depth < y->depth);
}

/*
 * The clock: TSC ticks (default), or with --cpu-time this thread's CPU time
 * in TSC ticks (time spent descheduled on a shared machine not counted).
 */
static bool use_cpu_time;
static double tsc_hz;

static uint64_t
now(void)
{
	return bench_clock(use_cpu_time);
}

#define WARM_KEYS 262144

/* Groups: 65536 (research/fib.md §5), at most what the layout allows at this
 * width (DIR-24-8 and rte_fib: what the entry can index). */
static uint32_t
groups(enum vpk_fib_type type, unsigned nh_size)
{
	uint32_t m = vpk_fib_max_tbl8(type, nh_size);

	return m < 65536 ? m : 65536;
}

/* Add then delete all routes in the given order, twice (struct fill); cycles per route. -1 on failure. */
static int
vpk_updates(enum vpk_fib_type type, unsigned nh_size, const struct gen_route4 *rt, size_t n, struct fill *fl)
{
	struct vpk_fib_conf c = { .type = type, .nh_size = nh_size, .num_tbl8 = groups(type, nh_size),
				  .max_routes = (uint32_t)n };
	struct vpk_fib *f;

	if (vpk_fib_create(&c, &f) != 0)
		return -1;
	for (int k = 0; k < 2; k++) {
		uint64_t t0 = now();
		for (size_t i = 0; i < n; i++)
			if (vpk_fib_add(f, rt[i].ip, rt[i].depth, rt[i].nh) != 0) {
				vpk_fib_destroy(f);
				return -1;
			}
		uint64_t t1 = now();
		for (size_t i = 0; i < n; i++)
			vpk_fib_del(f, rt[i].ip, rt[i].depth);
		uint64_t t2 = now();
		fl->add[k] = (double)(t1 - t0) / (double)n;
		fl->del[k] = (double)(t2 - t1) / (double)n;
	}
	vpk_fib_destroy(f);
	return 0;
}

/*
 * rte_fib 22.11 cannot be filled twice: a route whose parent has the same next
 * hop is added without counting its tbl8 reservation but deleted with it
 * (DPDK bugzilla 1731), so after deleting everything the counter has wrapped
 * and every later add longer than /24 fails with -ENOSPC. The second fill is
 * therefore timed on a new object, whose tables DPDK's heap carves from the
 * memory the first object faulted in.
 */
static int
dpdk_updates(unsigned nh_size, const struct gen_route4 *rt, size_t n, struct fill *fl)
{
	for (int k = 0; k < 2; k++) {
		const char *why;
		struct dpdk_fib *f = dpdk_fib_create(nh_size, groups(VPK_FIB_DIR24_8, nh_size), (uint32_t)n, 0, &why);

		if (f == NULL)
			return -1;
		uint64_t t0 = now();
		for (size_t i = 0; i < n; i++)
			if (dpdk_fib_add(f, rt[i].ip, rt[i].depth, rt[i].nh) != 0) {
				dpdk_fib_free(f);
				return -1;
			}
		uint64_t t1 = now();
		for (size_t i = 0; i < n; i++)
			dpdk_fib_del(f, rt[i].ip, rt[i].depth);
		uint64_t t2 = now();
		dpdk_fib_free(f);
		fl->add[k] = (double)(t1 - t0) / (double)n;
		fl->del[k] = (double)(t2 - t1) / (double)n;
	}
	return 0;
}

static int
cmd_bench_fib(int argc, char **argv)
{
	/* --ipv6 anywhere: the IPv6 benchmark (bench_fib6.c) on the rest of the line. */
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--ipv6") == 0) {
			memmove(&argv[i], &argv[i + 1], (size_t)(argc - i) * sizeof(*argv));
			return bench_fib_ipv6(argc - 1, argv);
		}
	struct bench_fib_opts bo;
	int code = bench_fib_parse(argc, argv, false, &bo);

	if (code != 0)
		return code < 0 ? VPK_EXIT_OK : code;
	const char *path = bo.path;
	const unsigned *sizes = bo.sizes, nsizes = bo.nsizes, passes = bo.passes;
	size_t nl = bo.nl, burst = bo.burst;
	bool use_dpdk = bo.use_dpdk, updates = bo.updates, *want = bo.want;
	uint64_t seed = bo.seed;

	use_cpu_time = bo.cpu_time;
	tsc_hz = bench_tsc_hz();
	size_t nrt;
	struct gen_route4 *rt = load(path, seed, &nrt, &code);
	if (rt == NULL)
		return code;
	qsort(rt, nrt, sizeof(*rt), by_addr);
	const char *dwhy = NULL;
	if (use_dpdk && dpdk_open(4096, &dwhy) != 0) {
		fprintf(stderr, "vpk: bench fib: DPDK rows skipped: %s\n", dwhy);
		use_dpdk = false;
	}
	uint32_t *keys[2];
	const char *kname[2] = { "random", "in-table" };
	for (int k = 0; k < 2; k++) {
		keys[k] = malloc(nl * sizeof(uint32_t));
		gen_lookups4(rt, nrt, k == 0 ? GEN_LOOKUP_RANDOM : GEN_LOOKUP_INTABLE, 0, seed + 10 + (uint64_t)k,
			     keys[k], nl);
	}
	uint64_t *out = malloc(nl * 8), *ref = malloc(nl * 8);
	struct row rows[512];
	struct upd upds[48];
	struct mem mems[24];
	size_t nrows = 0, nupd = 0, nmem = 0;

	for (unsigned si = 0; si < nsizes; si++) {
		unsigned sz = sizes[si];
		struct vpk_fib_conf conf = { .nh_size = sz, .max_routes = (uint32_t)nrt };
		struct vpk_fib *vf[2] = { NULL, NULL };  /* DIR-24-8, bm16 */
		struct dpdk_fib *dfib = NULL;
		static const char *const vname[2] = { "vpk-dir24-8", "vpk-bm16" };
		for (int t = 0; t < 2; t++) {
			conf.type = t == 0 ? VPK_FIB_DIR24_8 : VPK_FIB_BM16;
			if ((t == 1 && sz > 4) || !want[t])
				continue;
			conf.num_tbl8 = groups(conf.type, sz);
			bool ok = vpk_fib_create(&conf, &vf[t]) == 0;
			for (size_t i = 0; ok && i < nrt; i++)
				ok = vpk_fib_add(vf[t], rt[i].ip, rt[i].depth, rt[i].nh) == 0;
			struct vpk_fib_stats st = { 0 };
			if (vf[t])
				vpk_fib_get_stats(vf[t], &st);
			mems[nmem++] = (struct mem){ sz, vname[t], st.dataplane_touched, st.rib_bytes, ok,
						     ok ? NULL : "out of tbl8 groups (entry too narrow for the group count)" };
			if (!ok) {
				vpk_fib_destroy(vf[t]);
				vf[t] = NULL;
			}
		}
		if (use_dpdk) {
			size_t h0 = dpdk_heap_used();
			dfib = dpdk_fib_create(sz, groups(VPK_FIB_DIR24_8, sz), (uint32_t)nrt, 0, &dwhy);
			bool dok = dfib != NULL;
			for (size_t i = 0; dok && i < nrt; i++)
				dok = dpdk_fib_add(dfib, rt[i].ip, rt[i].depth, rt[i].nh) == 0;
			mems[nmem++] = (struct mem){ sz, "rte_fib", dpdk_heap_used() - h0, 0, dok,
						     dok ? NULL : "rte_fib_add failed (-ENOSPC: too few tbl8 groups for this entry width)" };
			if (!dok) {
				dpdk_fib_free(dfib);
				dfib = NULL;
			}
		}
		/* Runners for this size. */
		struct { const char *impl, *name; const struct vpk_impl *vi; enum dpdk_fib_lookup dt; struct vpk_fib *f; } r[24];
		size_t nr = 0;
		for (int v = 0; v < 2; v++)
			for (const struct vpk_impl *const *t = vpk_fib_impls(v ? VPK_FIB_BM16 : VPK_FIB_DIR24_8); vf[v] && *t; t++)
				if (vpk_impl_why_not(*t) == NULL) {
					r[nr].impl = vname[v];
					r[nr].name = (*t)->name;
					r[nr].f = vf[v];
					r[nr++].vi = *t;
				}
		static const struct { enum dpdk_fib_lookup t; const char *n; } dt[] = {
			{ DPDK_FIB_SCALAR_MACRO, "s1-macro" }, { DPDK_FIB_SCALAR_INLINE, "s2-inline" },
			{ DPDK_FIB_SCALAR_UNI, "s3-uni" }, { DPDK_FIB_VECTOR_AVX512, "v-avx512" } };
		for (size_t i = 0; dfib && i < 4; i++)
			if (dpdk_fib_select(dfib, dt[i].t) == 0) {
				r[nr].impl = "rte_fib";
				r[nr].name = dt[i].n;
				r[nr].vi = NULL;
				r[nr++].dt = dt[i].t;
			}
		for (int k = 0; k < 2 && nr > 0; k++) {
			double cyc[24][100];
			bool same[24];
			for (size_t j = 0; j < nr; j++) {   /* warm-up pass doubles as the cross-check */
				if (r[j].vi) {
					vpk_fib_select(r[j].f, r[j].vi->name);
					vpk_fib_lookup_bulk(r[j].f, keys[k], j == 0 ? ref : out, nl);
				} else {
					dpdk_fib_select(dfib, r[j].dt);
					dpdk_fib_lookup(dfib, keys[k], j == 0 ? ref : out, nl);
				}
				same[j] = j == 0 || memcmp(ref, out, nl * 8) == 0;
				if (!same[j])
					code = vpk_fail(VPK_EXIT_FAIL, "bench fib: %s %s differs from %s %s (%u B, %s keys)",
							r[j].impl, r[j].name, r[0].impl, r[0].name, sz, kname[k]);
			}
			for (unsigned p = 0; p < passes; p++)
				for (size_t j = 0; j < nr; j++) {
					if (r[j].vi)
						vpk_fib_select(r[j].f, r[j].vi->name);
					else
						dpdk_fib_select(dfib, r[j].dt);
					/* Untimed warm-up on a prefix of the keys: every runner starts its
					 * pass with its own tables in cache, not the previous runner's. */
					for (int w = 0; w < 2; w++) {
						size_t n = w ? nl : (nl < WARM_KEYS ? nl : WARM_KEYS);
						uint64_t t0 = now();
						for (size_t o = 0; o < n; o += burst) {
							size_t m = n - o < burst ? n - o : burst;
							if (r[j].vi)
								vpk_fib_lookup_bulk(r[j].f, keys[k] + o, out + o, m);
							else
								dpdk_fib_lookup(dfib, keys[k] + o, out + o, m);
						}
						cyc[j][p] = (double)(now() - t0) / (double)n;
					}
					bench_keep(out[nl - 1]);
				}
			for (size_t j = 0; j < nr && nrows < 512; j++)
				rows[nrows++] = (struct row){ sz, r[j].impl, r[j].name, kname[k],
							      bench_median(cyc[j], passes), bench_min(cyc[j], passes), same[j] };
		}
		vpk_fib_destroy(vf[0]);
		vpk_fib_destroy(vf[1]);
		dpdk_fib_free(dfib);
		/* Updates: address order, then shuffled (fresh objects). */
		for (int sh = 0; updates && sh < 2; sh++) {
			struct gen_route4 *o = rt;
			if (sh) {
				o = malloc(nrt * sizeof(*o) + 1);
				memcpy(o, rt, nrt * sizeof(*o));
				gen_shuffle(o, nrt, sizeof(*o), seed + 99);
			}
			struct fill fl;
			const char *ord = sh ? "shuffled" : "address";
			if (want[0] && vpk_updates(VPK_FIB_DIR24_8, sz, o, nrt, &fl) == 0)
				upds[nupd++] = (struct upd){ sz, "vpk-dir24-8", ord, fl };
			if (want[1] && sz <= 4 && vpk_updates(VPK_FIB_BM16, sz, o, nrt, &fl) == 0)
				upds[nupd++] = (struct upd){ sz, "vpk-bm16", ord, fl };
			if (use_dpdk && dpdk_updates(sz, o, nrt, &fl) == 0)
				upds[nupd++] = (struct upd){ sz, "rte_fib", ord, fl };
			if (sh)
				free(o);
		}
	}

	double ghz = tsc_hz / 1e9;
	if (vpk_opts.json) {
		struct json j;
		json_init(&j, stdout);
		json_obj(&j, NULL);
		json_str(&j, "routes_file", path);
		json_u64(&j, "routes", nrt);
		json_bool(&j, "dpdk_hugepages", use_dpdk && dpdk_hugepages());
		json_u64(&j, "lookups", nl);
		json_u64(&j, "passes", passes);
		json_dbl(&j, "tsc_ghz", ghz);
		json_str(&j, "method", "whole-array lookup_bulk per pass (or calls of `burst` keys) after an "
				       "untimed warm-up on 256k keys, one TSC pair, variants interleaved; "
				       "cycles/lookup median and min over passes");
		json_u64(&j, "burst", burst);
		json_str(&j, "clock", use_cpu_time ? "thread CPU time x TSC rate" : "TSC");
		json_arr(&j, "lookup");
		for (size_t i = 0; i < nrows; i++) {
			json_obj(&j, NULL);
			json_u64(&j, "nh_size", rows[i].nh_size);
			json_str(&j, "impl", rows[i].impl);
			json_str(&j, "variant", rows[i].variant);
			json_str(&j, "keys", rows[i].keys);
			json_dbl(&j, "cycles_median", rows[i].med);
			json_dbl(&j, "cycles_min", rows[i].min);
			json_dbl(&j, "mlps_median", ghz * 1e3 / rows[i].med);
			json_bool(&j, "same_results", rows[i].same);
			json_end(&j);
		}
		json_end(&j);
		json_arr(&j, "updates");
		for (size_t i = 0; i < nupd; i++) {
			json_obj(&j, NULL);
			json_u64(&j, "nh_size", upds[i].nh_size);
			json_str(&j, "impl", upds[i].impl);
			json_str(&j, "order", upds[i].order);
			json_dbl(&j, "add_cycles_per_route", upds[i].fl.add[0]);
			json_dbl(&j, "del_cycles_per_route", upds[i].fl.del[0]);
			json_dbl(&j, "add_cycles_per_route_reused", upds[i].fl.add[1]);
			json_dbl(&j, "del_cycles_per_route_reused", upds[i].fl.del[1]);
			json_end(&j);
		}
		json_end(&j);
		json_arr(&j, "memory");
		for (size_t i = 0; i < nmem; i++) {
			json_obj(&j, NULL);
			json_u64(&j, "nh_size", mems[i].nh_size);
			json_str(&j, "impl", mems[i].impl);
			json_bool(&j, "loaded", mems[i].loaded);
			json_str(&j, "why_not", mems[i].why);
			json_u64(&j, "dataplane_bytes", mems[i].dataplane);
			json_u64(&j, "rib_bytes", mems[i].rib);
			json_end(&j);
		}
		json_end(&j);
		json_end(&j);
		json_done(&j);
	} else {
		printf("%zu routes from %s, %zu lookups per key set, %u passes, TSC %.2f GHz\n", nrt, path, nl, passes, ghz);
		printf("%-5s %-12s %-10s %-9s %10s %10s %9s\n", "entry", "impl", "variant", "keys", "cyc/lkp", "best",
		       "Mlps");
		for (size_t i = 0; i < nrows; i++)
			printf("%3u B %-12s %-10s %-9s %10.2f %10.2f %9.1f%s\n", rows[i].nh_size, rows[i].impl,
			       rows[i].variant, rows[i].keys, rows[i].med, rows[i].min, ghz * 1e3 / rows[i].med,
			       rows[i].same ? "" : "  DIFFERENT RESULTS");
		for (size_t i = 0; i < nupd; i++)
			printf("%3u B %-12s updates, %-8s order: add %.0f, delete %.0f cycles/route; "
			       "memory reused: add %.0f, delete %.0f\n", upds[i].nh_size, upds[i].impl, upds[i].order,
			       upds[i].fl.add[0], upds[i].fl.del[0], upds[i].fl.add[1], upds[i].fl.del[1]);
		for (size_t i = 0; i < nmem; i++)
			if (mems[i].loaded)
				printf("%3u B %-12s memory: dataplane %.1f MiB, RIB %.1f MiB%s\n", mems[i].nh_size,
				       mems[i].impl, mems[i].dataplane / 1048576.0, mems[i].rib / 1048576.0,
				       mems[i].rib == 0 ? " (rte_fib: heap incl. RIB)" : "");
			else
				printf("%3u B %-12s cannot hold the table: %s\n", mems[i].nh_size, mems[i].impl, mems[i].why);
	}
	free(keys[0]);
	free(keys[1]);
	free(out);
	free(ref);
	free(rt);
	return code;
}
