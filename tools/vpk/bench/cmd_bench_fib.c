/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk bench fib [--ipv6]: the FIB benchmark of either family
 * (fib/fib_family.h). One route table (-f, e.g. the real RouteViews table),
 * 10 M uniformly random and 10 M in-table addresses in random order, every
 * entry width; for each: vpk's two layouts and DPDK rte_fib / rte_fib6 (loaded
 * with dlopen, same process, same routes and addresses) built side by side,
 * every vpk lookup variant and every rte_fib lookup type timed over the whole
 * address array (one TSC pair per pass, no per-burst fences), passes
 * interleaved, median and best; results cross-checked; add and delete cost in
 * address order and shuffled; dataplane and RIB bytes. JSON with --json.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench/bench_fib.h"
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

/*
 * tbl8 groups: IPv4 65536 (as rte_fib's examples); IPv6 200000, because
 * rte_fib6 22.11 over-reserves (the RouteViews table needs ~5x the groups it
 * uses); at most what the layout (vpk: @type; DPDK: -1) can index at the width.
 */
static uint32_t
groups(const struct fib_family *fam, int type, unsigned nh_size)
{
	uint32_t want = fam->af == 4 ? 65536 : 200000;
	uint32_t m = type < 0 ? fam->dpdk_max_tbl8(nh_size) : fam->max_tbl8(type, nh_size);

	return m < want ? m : want;
}

static void *
vpk_create(const struct fib_family *fam, int layout, unsigned nh_size, size_t max_routes)
{
	int type = fam->layouts[layout].type;
	uint32_t g = groups(fam, type, nh_size);
	void *f = NULL;

	return g != 0 && fam->create(type, nh_size, g, max_routes, VPK_ISA_AUTO, &f) == 0 ? f : NULL;
}

/*
 * Add then delete every route in the given order, twice (struct fill), in
 * cycles per route; -1 on failure. vpk refills the same object. rte_fib 22.11
 * cannot be filled twice: a route whose parent has the same next hop is added
 * without counting its tbl8 reservation but deleted with it (DPDK bugzilla
 * 1731), so after deleting everything the counter has wrapped and every later
 * add longer than /24 fails with -ENOSPC. Its second fill is therefore timed
 * on a new object, whose tables DPDK's heap carves from the memory the first
 * object faulted in (rte_fib6 the same way, for symmetry).
 */
static int
time_updates(const struct fib_family *fam, int layout, unsigned nh_size, const void *rt, size_t n,
	     struct fill *fl)
{
	bool dpdk = layout < 0;
	void *f = NULL;
	const char *why;
	int bad = 0;

	if (!dpdk && (f = vpk_create(fam, layout, nh_size, n)) == NULL)
		return -1;
	for (int k = 0; k < 2 && !bad; k++) {
		if (dpdk && (f = fam->dcreate(nh_size, groups(fam, -1, nh_size), n, &why)) == NULL)
			return -1;
		uint64_t t0 = now();
		for (size_t i = 0; i < n && !bad; i++)
			bad = dpdk ? fam->dadd(f, rt, i) : fam->add(f, rt, i);
		uint64_t t1 = now();
		for (size_t i = 0; i < n && !bad; i++)
			dpdk ? fam->ddel(f, rt, i) : fam->del(f, rt, i);
		uint64_t t2 = now();
		if (dpdk) {
			fam->dfree(f);
			f = NULL;
		}
		fl->add[k] = (double)(t1 - t0) / (double)n;
		fl->del[k] = (double)(t2 - t1) / (double)n;
	}
	if (f != NULL)
		fam->destroy(f);
	return bad ? -1 : 0;
}

/* One run: the family, its data, and what was measured. */
struct run {
	const struct fib_family *fam;
	const struct bench_fib_opts *o;
	void *rt;                       /* routes, sorted by address */
	size_t nrt;
	void *keys[2];                  /* random, in-table */
	uint64_t *out, *ref;
	bool use_dpdk;
	int code;
	struct row rows[512];
	struct upd upds[48];
	struct mem mems[24];
	size_t nrows, nupd, nmem;
};

static const char *const kname[2] = { "random", "in-table" };

/* A lookup runner: a vpk variant on one of the layouts, or an rte_fib type. */
struct runner {
	const char *impl, *name;
	const struct vpk_impl *vi;      /* NULL: DPDK */
	int dt;
	void *f;
};

static void
runner_lookup(const struct run *R, const struct runner *r, const void *keys, uint64_t *out, size_t n)
{
	if (r->vi != NULL)
		R->fam->lookup(r->f, keys, out, n);
	else
		R->fam->dlookup(r->f, keys, out, n);
}

static void
runner_select(const struct run *R, const struct runner *r)
{
	if (r->vi != NULL)
		R->fam->select(r->f, r->vi->name);
	else
		R->fam->dselect(r->f, r->dt);
}

/* Time every runner on both key sets, passes interleaved; results cross-checked against the first. */
static void
time_lookups(struct run *R, unsigned sz, struct runner *r, size_t nr)
{
	const struct bench_fib_opts *o = R->o;
	size_t nl = o->nl, ks = R->fam->key_size;

	for (int k = 0; k < 2 && nr > 0; k++) {
		double cyc[24][100];
		bool same[24];
		for (size_t j = 0; j < nr; j++) {   /* warm-up pass doubles as the cross-check */
			runner_select(R, &r[j]);
			runner_lookup(R, &r[j], R->keys[k], j == 0 ? R->ref : R->out, nl);
			same[j] = j == 0 || memcmp(R->ref, R->out, nl * 8) == 0;
			if (!same[j])
				R->code = vpk_fail(VPK_EXIT_FAIL, "bench fib (%s): %s %s differs from %s %s (%u B, %s keys)",
						   R->fam->family, r[j].impl, r[j].name, r[0].impl, r[0].name, sz, kname[k]);
		}
		for (unsigned p = 0; p < o->passes; p++)
			for (size_t j = 0; j < nr; j++) {
				runner_select(R, &r[j]);
				/* Untimed warm-up on a prefix of the keys: every runner starts its
				 * pass with its own tables in cache, not the previous runner's. */
				for (int w = 0; w < 2; w++) {
					size_t n = w ? nl : (nl < WARM_KEYS ? nl : WARM_KEYS);
					uint64_t t0 = now();
					for (size_t at = 0; at < n; at += o->burst) {
						size_t m = n - at < o->burst ? n - at : o->burst;
						runner_lookup(R, &r[j], (const char *)R->keys[k] + at * ks, R->out + at, m);
					}
					cyc[j][p] = (double)(now() - t0) / (double)n;
				}
				bench_keep(R->out[nl - 1]);
			}
		for (size_t j = 0; j < nr && R->nrows < 512; j++)
			R->rows[R->nrows++] = (struct row){ sz, r[j].impl, r[j].name, kname[k],
							    bench_median(cyc[j], o->passes),
							    bench_min(cyc[j], o->passes), same[j] };
	}
}

/* Fill a FIB of each kind with every route: its memory row, and the object (NULL if it did not load). */
static void *
fill(struct run *R, int layout, unsigned sz, const char **why)
{
	const struct fib_family *fam = R->fam;
	bool dpdk = layout < 0;
	size_t h0 = dpdk ? dpdk_heap_used() : 0, dp = 0, rib = 0;
	void *f = dpdk ? fam->dcreate(sz, groups(fam, -1, sz), R->nrt, why) : vpk_create(fam, layout, sz, R->nrt);
	bool ok = f != NULL;

	for (size_t i = 0; ok && i < R->nrt; i++)
		ok = (dpdk ? fam->dadd(f, R->rt, i) : fam->add(f, R->rt, i)) == 0;
	if (dpdk)
		dp = dpdk_heap_used() - h0;
	else if (f != NULL)
		fam->stats(f, &dp, &rib, &(uint32_t){ 0 }, &(uint32_t){ 0 });
	R->mems[R->nmem++] = (struct mem){ sz, dpdk ? fam->dpdk_name : fam->layouts[layout].name, dp, rib, ok,
		ok ? NULL : f == NULL && !dpdk ? "this layout cannot hold entries of this width"
			  : "out of tbl8 groups (entry too narrow for the group count)" };
	if (!ok && f != NULL) {
		if (dpdk)
			fam->dfree(f);
		else
			fam->destroy(f);
		f = NULL;
	}
	return f;
}

static void
bench_size(struct run *R, unsigned sz)
{
	const struct fib_family *fam = R->fam;
	const struct bench_fib_opts *o = R->o;
	void *vf[2] = { NULL, NULL }, *dfib = NULL;
	const char *dwhy = NULL;
	struct runner r[24];
	size_t nr = 0;

	for (int t = 0; t < 2; t++)
		if (o->want[t])
			vf[t] = fill(R, t, sz, &dwhy);
	if (R->use_dpdk)
		dfib = fill(R, -1, sz, &dwhy);
	for (int t = 0; t < 2; t++)
		for (const struct vpk_impl *const *v = fam->impls(fam->layouts[t].type); vf[t] && *v; v++)
			if (vpk_impl_why_not(*v) == NULL)
				r[nr++] = (struct runner){ fam->layouts[t].name, (*v)->name, *v, 0, vf[t] };
	for (unsigned i = 0; dfib && i < fam->ndtypes; i++)
		if (fam->dselect(dfib, fam->dtypes[i].type) == 0)
			r[nr++] = (struct runner){ fam->dpdk_name, fam->dtypes[i].name, NULL, fam->dtypes[i].type, dfib };
	time_lookups(R, sz, r, nr);
	for (int t = 0; t < 2; t++)
		if (vf[t] != NULL)
			fam->destroy(vf[t]);
	if (dfib != NULL)
		fam->dfree(dfib);
	/* Updates: address order, then shuffled (fresh objects). */
	for (int sh = 0; o->updates && sh < 2; sh++) {
		void *ord = R->rt;
		if (sh) {
			ord = malloc(R->nrt * fam->route_size + 1);
			if (ord == NULL)
				break;
			memcpy(ord, R->rt, R->nrt * fam->route_size);
			gen_shuffle(ord, R->nrt, fam->route_size, o->seed + 99);
		}
		struct fill fl;
		const char *oname = sh ? "shuffled" : "address";
		for (int t = 0; t < 2; t++)
			if (o->want[t] && time_updates(fam, t, sz, ord, R->nrt, &fl) == 0)
				R->upds[R->nupd++] = (struct upd){ sz, fam->layouts[t].name, oname, fl };
		if (R->use_dpdk && time_updates(fam, -1, sz, ord, R->nrt, &fl) == 0)
			R->upds[R->nupd++] = (struct upd){ sz, fam->dpdk_name, oname, fl };
		if (sh)
			free(ord);
	}
}

static void
report_json(const struct run *R)
{
	const struct bench_fib_opts *o = R->o;
	double ghz = tsc_hz / 1e9;
	struct json j;

	json_init(&j, stdout);
	json_obj(&j, NULL);
	json_fields(&j, JS("family", R->fam->family), JS("routes_file", o->path), JU("routes", R->nrt),
			JB("dpdk_hugepages", R->use_dpdk && dpdk_hugepages()), JU("lookups", o->nl),
			JU("passes", o->passes), JD("tsc_ghz", ghz));
	json_str(&j, "method", "whole-array lookup_bulk per pass (or calls of `burst` keys) after an "
			       "untimed warm-up on 256k keys, one TSC pair, variants interleaved; "
			       "cycles/lookup median and min over passes");
	json_u64(&j, "burst", o->burst);
	json_str(&j, "clock", use_cpu_time ? "thread CPU time x TSC rate" : "TSC");
	json_arr(&j, "lookup");
	for (size_t i = 0; i < R->nrows; i++) {
		const struct row *w = &R->rows[i];
		json_record(&j, NULL, JU("nh_size", w->nh_size), JS("impl", w->impl),
				      JS("variant", w->variant), JS("keys", w->keys),
				      JD("cycles_median", w->med), JD("cycles_min", w->min),
				      JD("mlps_median", ghz * 1e3 / w->med), JB("same_results", w->same));
	}
	json_end(&j);
	json_arr(&j, "updates");
	for (size_t i = 0; i < R->nupd; i++) {
		const struct upd *u = &R->upds[i];
		json_record(&j, NULL, JU("nh_size", u->nh_size), JS("impl", u->impl), JS("order", u->order),
				      JD("add_cycles_per_route", u->fl.add[0]),
				      JD("del_cycles_per_route", u->fl.del[0]),
				      JD("add_cycles_per_route_reused", u->fl.add[1]),
				      JD("del_cycles_per_route_reused", u->fl.del[1]));
	}
	json_end(&j);
	json_arr(&j, "memory");
	for (size_t i = 0; i < R->nmem; i++) {
		const struct mem *m = &R->mems[i];
		json_record(&j, NULL, JU("nh_size", m->nh_size), JS("impl", m->impl), JB("loaded", m->loaded),
				      JS("why_not", m->why), JU("dataplane_bytes", m->dataplane),
				      JU("rib_bytes", m->rib));
	}
	json_end(&j);
	json_end(&j);
	json_done(&j);
}

static void
report_text(const struct run *R)
{
	double ghz = tsc_hz / 1e9;

	printf("%zu %s routes from %s, %zu lookups per key set, %u passes, TSC %.2f GHz\n", R->nrt, R->fam->family,
	       R->o->path, R->o->nl, R->o->passes, ghz);
	printf("%-5s %-12s %-10s %-9s %10s %10s %9s\n", "entry", "impl", "variant", "keys", "cyc/lkp", "best", "Mlps");
	for (size_t i = 0; i < R->nrows; i++) {
		const struct row *w = &R->rows[i];
		printf("%3u B %-12s %-10s %-9s %10.2f %10.2f %9.1f%s\n", w->nh_size, w->impl, w->variant, w->keys,
		       w->med, w->min, ghz * 1e3 / w->med, w->same ? "" : "  DIFFERENT RESULTS");
	}
	for (size_t i = 0; i < R->nupd; i++) {
		const struct upd *u = &R->upds[i];
		printf("%3u B %-12s updates, %-8s order: add %.0f, delete %.0f cycles/route; "
		       "memory reused: add %.0f, delete %.0f\n", u->nh_size, u->impl, u->order, u->fl.add[0],
		       u->fl.del[0], u->fl.add[1], u->fl.del[1]);
	}
	for (size_t i = 0; i < R->nmem; i++) {
		const struct mem *m = &R->mems[i];
		if (m->loaded)
			printf("%3u B %-12s memory: dataplane %.1f MiB, RIB %.1f MiB%s\n", m->nh_size, m->impl,
			       m->dataplane / 1048576.0, m->rib / 1048576.0,
			       m->rib == 0 ? " (DPDK: heap incl. RIB)" : "");
		else
			printf("%3u B %-12s cannot hold the table: %s\n", m->nh_size, m->impl, m->why);
	}
}

static int
cmd_bench_fib(int argc, char **argv)
{
	bool v6 = false;
	/* --ipv6 anywhere: the IPv6 family, on the rest of the line. */
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--ipv6") == 0) {
			memmove(&argv[i], &argv[i + 1], (size_t)(argc - i) * sizeof(*argv));
			argc--;
			v6 = true;
			break;
		}
	struct bench_fib_opts o;
	int code = bench_fib_parse(argc, argv, v6, &o);
	if (code != 0)
		return code < 0 ? VPK_EXIT_OK : code;
	struct run *R = calloc(1, sizeof(*R));
	if (R == NULL)
		return vpk_fail(VPK_EXIT_FAIL, "bench fib: out of memory");
	char err[512];
	R->fam = v6 ? &fib_family6 : &fib_family4;
	R->o = &o;
	R->use_dpdk = o.use_dpdk;
	use_cpu_time = o.cpu_time;
	tsc_hz = bench_tsc_hz();
	/* Next hops that fit every entry width (1-byte entries hold 127). */
	R->rt = R->fam->load(o.path, o.seed, 127, 128, &R->nrt, err, sizeof(err));
	if (R->rt == NULL) {
		free(R);
		return vpk_fail(VPK_EXIT_USAGE, "%s: %s", v6 ? "bench fib --ipv6" : "bench fib", err);
	}
	qsort(R->rt, R->nrt, R->fam->route_size, R->fam->cmp);
	const char *dwhy = NULL;
	if (R->use_dpdk && dpdk_open(4096, &dwhy) != 0) {
		fprintf(stderr, "vpk: bench fib (%s): DPDK rows skipped: %s\n", R->fam->family, dwhy);
		R->use_dpdk = false;
	}
	for (int k = 0; k < 2; k++) {
		R->keys[k] = malloc(o.nl * R->fam->key_size);
		if (R->keys[k] != NULL)
			R->fam->keys(R->rt, R->nrt, k == 1 ? GEN_LOOKUP_INTABLE : GEN_LOOKUP_RANDOM, 0,
				     o.seed + 10 + (uint64_t)k, R->keys[k], o.nl);
	}
	R->out = malloc(o.nl * 8);
	R->ref = malloc(o.nl * 8);
	if (R->keys[0] == NULL || R->keys[1] == NULL || R->out == NULL || R->ref == NULL)
		R->code = vpk_fail(VPK_EXIT_FAIL, "bench fib (%s): out of memory for %zu lookups", R->fam->family, o.nl);
	for (unsigned si = 0; R->code == 0 && si < o.nsizes; si++)
		bench_size(R, o.sizes[si]);
	if (R->code == 0 || R->nrows > 0) {
		if (vpk_opts.json)
			report_json(R);
		else
			report_text(R);
	}
	code = R->code;
	free(R->keys[0]);
	free(R->keys[1]);
	free(R->out);
	free(R->ref);
	free(R->rt);
	free(R);
	return code;
}
