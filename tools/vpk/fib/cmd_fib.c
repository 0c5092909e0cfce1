/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk fib: FIB benchmark and checker with dpdk-test-fib's options and file
 * formats. Loads (-f) or generates (-n, -d) routes, loads (-t) or generates
 * (-l, -r, -k) lookup addresses, adds the routes (cycles/route), times every
 * lookup variant over the whole address array (cycles/lookup, median and
 * best of -R passes, variants interleaved), deletes the routes
 * (cycles/route), prints memory. -c checks every result against the RIB's
 * own trie walk, -a checks every variant against the first; --dpdk adds
 * rte_fib's lookup types (s1 s2 s3 v) on the same routes and addresses.
 * -6: the same for IPv6 (rte_fib6: s v); both families run one path over
 * fib_family.h. Like dpdk-test-fib it takes DPDK's EAL arguments before
 * "--" (ignored), and --dpdk-format prints that tool's lines instead of the
 * report: "AVG FIB add N" for each tenth of the routes, as dpdk-test-fib
 * times them, "AVG FIB lookup X" (the first variant's median), "AVG FIB
 * delete N" per tenth.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include <vpk/fib_file.h>
#include "fib/fib_dpdk.h"
#include "fib/fib_family.h"
#include "fib/fib_report.h"
#include "fib/fib_cmd.h"
#include "common/tool.h"
#include "acl/eal_args.h"

static int cmd_fib(int argc, char **argv);
VPK_CMD(fib, "fib", "FIB benchmark and checker (dpdk-test-fib options and formats)", cmd_fib);

static const char usage[] =
	"usage: vpk fib [-f routes] [-t lookups] [-n routes] [-l lookups] [-d depth:N|P%,...]\n"
	"               [-r pct-random] [-k in-table|random|skewed] [-c] [-a] [-s] [-6] [-b dir|bm16|trie|bm6]\n"
	"               [-e 1|2|4|8] [-g tbl8] [-w routes-out] [-u lookups-out] [-v all|variant,...]\n"
	"               [-R passes] [--dpdk] [--dpdk-format] [--seed N] [--nh-max N] [--json]\n"
	"       DPDK EAL arguments before -- are ignored (dpdk-test-fib command lines run unchanged)\n";

/* --dpdk-format: dpdk-test-fib's output (its print_fract: the routes timed in tenths). */
#define FRACT 10
static bool dpdk_format;

static int
parse(int argc, char **argv, struct fib_opts *o)
{
	VPK_LONGOPTS(lo, "dpdk/D seed=S dpdk-format/F nh-max=N help/h");
	uint64_t v;
	int c;

	*o = (struct fib_opts){ .nroutes = 65536, .nlookups = 1 << 20, .nh_size = 4, .passes = 5, .tbl8 = 100000,
				.kind = GEN_LOOKUP_INTABLE, .seed = 1, .nh_max = 127 };
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:t:n:l:d:r:k:cas6b:e:g:w:u:v:R:h", lo, NULL)) != -1) {
		switch (c) {
		case 'f': o->routes_file = optarg; break;
		case 't': o->lookups_file = optarg; break;
		case 'd': o->distrib = optarg; break;
		case 'w': o->w_file = optarg; break;
		case 'u': o->u_file = optarg; break;
		case 'v': o->variants = optarg; break;
		case 'c': o->cmp_ref = true; break;
		case 'a': o->cmp_all = true; break;
		case 's': o->shuffle = true; break;
		case 'D': o->dpdk = true; break;
		case 'F': dpdk_format = true; break;
		case '6': o->v6 = true; break;
		case 'b': o->layout = optarg; break;
		case 'k':
			if (gen_lookup_kind(optarg, &o->kind) != 0)
				return vpk_fail(VPK_EXIT_USAGE, "fib: -k %s: in-table, random or skewed", optarg);
			break;
		case 'n': case 'l': case 'r': case 'e': case 'g': case 'R': case 'S': case 'N': {
			uint64_t hi = c == 'r' ? 100 : c == 'e' ? 8 : c == 'R' ? 1000 : c == 'S' ? UINT64_MAX
				    : c == 'N' ? (UINT64_C(1) << 62) : c == 'g' ? UINT32_MAX : (UINT64_C(1) << 31);
			char where[32];

			snprintf(where, sizeof(where), c == 'S' ? "fib: --seed" : c == 'N' ? "fib: --nh-max" : "fib: -%c", c);
			if (!vpk_opt_u64(where, optarg, c == 'r' || c == 'S' ? 0 : 1, hi, &v))
				return VPK_EXIT_USAGE;
			if (c == 'n') o->nroutes = v;
			else if (c == 'l') o->nlookups = v;
			else if (c == 'r') o->pct_random = (unsigned)v;
			else if (c == 'e') o->nh_size = (unsigned)v;
			else if (c == 'g') o->tbl8 = (uint32_t)v;
			else if (c == 'R') o->passes = (unsigned)v;
			else if (c == 'S') o->seed = v;
			else o->nh_max = v;
			break;
		}
		case 'h': fputs(usage, stdout); return -1;
		default: fputs(usage, stderr); return VPK_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return vpk_fail(VPK_EXIT_USAGE, "fib: unexpected argument '%s'", argv[optind]);
	if (!vpk_opt_distinct("fib", "-f", o->routes_file, "-w", o->w_file) ||
	    !vpk_opt_distinct("fib", "-f", o->routes_file, "-u", o->u_file) ||
	    !vpk_opt_distinct("fib", "-t", o->lookups_file, "-w", o->w_file) ||
	    !vpk_opt_distinct("fib", "-t", o->lookups_file, "-u", o->u_file) ||
	    !vpk_opt_distinct("fib", "-w", o->w_file, "-u", o->u_file))
		return VPK_EXIT_USAGE;
	return 0;
}

/* One run of vpk fib: the family, the data, the FIBs. */
struct fib_run {
	const struct fib_family *fam;
	struct fib_opts *o;
	int type;                       /* the layout of -b, 0 for the default */
	uint32_t dpdk_tbl8;
	void *rt, *ips;
	size_t nrt, nips;
	void *fib, *dfib;
	double add_cyc, dpdk_add;
	uint64_t add_frac[FRACT], del_frac[FRACT];     /* cycles per route of each tenth */
};

/* op(fib, rt, i) over every route in dpdk-test-fib's tenths: cycles per route of each in frac[]. */
static int
timed_tenths(struct fib_run *F, int (*op)(void *fib, const void *rt, size_t i), uint64_t *frac, size_t *bad)
{
	size_t i = 0;
	int rc;

	for (unsigned k = FRACT; k > 0; k--) {
		size_t j, n = (F->nrt - i) / k;
		uint64_t t0 = bench_tsc();

		for (j = 0; j < n; j++)
			if ((rc = op(F->fib, F->rt, i + j)) != 0 && bad != NULL) {
				*bad = i + j;
				return rc;
			}
		frac[FRACT - k] = n ? (bench_tsc() - t0) / n : 0;
		i += n;
	}
	return 0;
}

/* -b, -e, -g against what the family's layouts take. */
static int
check_sizes(struct fib_run *F)
{
	const struct fib_family *fam = F->fam;
	struct fib_opts *o = F->o;

	for (int t = 0; o->layout != NULL && t < 2; t++)
		if (strcmp(o->layout, fam->layouts[t].opt) == 0)
			F->type = fam->layouts[t].type;
	if (o->layout != NULL && F->type == 0)
		return vpk_fail(VPK_EXIT_USAGE, fam->af == 4 ? "fib: -b %s: 'dir' or 'bm16' ('trie' and 'bm6' with -6)"
							    : "fib: -6 -b %s: 'trie' or 'bm6' ('dir' and 'bm16' without -6)",
				o->layout);
	uint64_t max_nh = fam->max_nh(o->nh_size);
	if (max_nh == 0)
		return vpk_fail(VPK_EXIT_USAGE, fam->af == 4 ? "fib: -e %u: entry size is 1, 2, 4 or 8"
							    : "fib: -6 -e %u: IPv6 entries are 2, 4 or 8 bytes", o->nh_size);
	if (o->nh_max > max_nh)
		o->nh_max = max_nh;
	uint32_t max_tbl8 = fam->max_tbl8(F->type, o->nh_size);
	if (max_tbl8 == 0)
		return vpk_fail(VPK_EXIT_USAGE, "fib: -b %s: entry size is 1, 2 or 4 (-e %u)", o->layout, o->nh_size);
	/* -g is clamped to what each side accepts (rte_fib: a group index fits the entry). */
	uint32_t dmax = fam->dpdk_max_tbl8(o->nh_size);
	F->dpdk_tbl8 = o->tbl8 < dmax ? o->tbl8 : dmax;
	if (o->tbl8 > max_tbl8)
		o->tbl8 = max_tbl8;
	return 0;
}

/* Routes and lookup keys, from files (-f, -t) or generated. */
static int
inputs(struct fib_run *F)
{
	const struct fib_family *fam = F->fam;
	struct fib_opts *o = F->o;
	char err[512];

	F->rt = o->routes_file != NULL
		? fam->load(o->routes_file, o->seed, o->nh_max, 0, &F->nrt, err, sizeof(err))
		: fam->generate(o->nroutes, o->distrib, o->nh_max, o->seed, &F->nrt, err, sizeof(err));
	if (F->rt == NULL)
		return vpk_fail(o->routes_file != NULL || o->distrib != NULL ? VPK_EXIT_USAGE : VPK_EXIT_FAIL,
				"fib: %s", err);
	if (o->shuffle)
		gen_shuffle(F->rt, F->nrt, fam->route_size, o->seed ^ 0x5bd1e995);
	if (o->lookups_file != NULL) {
		if (vpk_fib_file_load_addrs(o->lookups_file, fam->af, &F->ips, &F->nips) != 0)
			return vpk_fail(VPK_EXIT_USAGE, "fib: %s", vpk_last_error());
		if (o->shuffle)
			gen_shuffle(F->ips, F->nips, fam->key_size, o->seed ^ 0x1b873593);
		return 0;
	}
	F->nips = o->nlookups;
	F->ips = malloc(F->nips * fam->key_size + 1);      /* -l is at most 2^31: no overflow */
	if (F->ips == NULL)
		return vpk_fail(VPK_EXIT_FAIL, "fib: -l %zu: out of memory", F->nips);
	fam->keys(F->rt, F->nrt, o->kind, o->pct_random, o->seed + 1, F->ips, F->nips);
	return 0;
}

/* -w / -u: write what would be measured, measure nothing. */
static int
write_inputs(const struct fib_run *F)
{
	const struct fib_opts *o = F->o;
	int rc = 0;

	if (o->w_file != NULL && (rc = F->fam->write_routes(o->w_file, F->rt, F->nrt)) != 0)
		return vpk_fail(VPK_EXIT_FAIL, "fib: %s: %s", o->w_file, strerror(-rc));
	if (o->u_file != NULL && (rc = F->fam->write_keys(o->u_file, F->ips, F->nips)) != 0)
		return vpk_fail(VPK_EXIT_FAIL, "fib: %s: %s", o->u_file, strerror(-rc));
	return VPK_EXIT_OK;
}

/* vpk's FIB with every route (timed), then rte_fib's with --dpdk. */
static int
build(struct fib_run *F)
{
	const struct fib_family *fam = F->fam;
	const struct fib_opts *o = F->o;
	int rc = fam->create(F->type, o->nh_size, o->tbl8, F->nrt + 1, vpk_opts.isa, &F->fib);

	if (rc != 0)
		return vpk_fail(rc == -ENOTSUP ? VPK_EXIT_USAGE : VPK_EXIT_FAIL, "fib: create: %s", strerror(-rc));
	uint64_t t0 = bench_tsc();
	size_t bad = 0;
	if ((rc = timed_tenths(F, fam->add, F->add_frac, &bad)) != 0) {
		char r[64];
		fam->route_str(F->rt, bad, r, sizeof(r));
		return vpk_fail(VPK_EXIT_FAIL, "fib: route %zu (%s): %s%s", bad + 1, r, strerror(-rc),
				rc == -ENOSPC ? " (out of tbl8 groups: raise -g or -e)" : "");
	}
	F->add_cyc = F->nrt ? (double)(bench_tsc() - t0) / (double)F->nrt : 0;
	if (!o->dpdk)
		return 0;
	const char *why = NULL;
	static char whybuf[96];
	unsigned mem_mb = 2048 + (unsigned)(F->nrt >> (fam->af == 4 ? 9 : 8)) + (fam->af == 4 ? o->nh_size * 64u : 0);
	if (dpdk_open(mem_mb, &why) == 0 && (F->dfib = fam->dcreate(o->nh_size, F->dpdk_tbl8, F->nrt + 1, &why)) != NULL) {
		t0 = bench_tsc();
		for (size_t i = 0; i < F->nrt; i++)
			if (fam->dadd(F->dfib, F->rt, i) != 0) {
				snprintf(whybuf, sizeof(whybuf), "%s_add failed%s", fam->dpdk_name,
					 fam->af == 6 ? " (22.11 over-reserves groups: raise -g)" : "");
				why = whybuf;
				fam->dfree(F->dfib);
				F->dfib = NULL;
				break;
			}
		F->dpdk_add = F->nrt ? (double)(bench_tsc() - t0) / (double)F->nrt : 0;
	}
	if (F->dfib == NULL)
		fprintf(stderr, "vpk: fib: DPDK rows skipped: %s\n", why ? why : "?");
	return 0;
}

struct runner {
	const char *name;               /* "avx512" or "dpdk-v" */
	const struct vpk_impl *impl;    /* vpk variant, or NULL for DPDK */
	int dtype;
	double *c;                      /* cycles/lookup per pass */
	bool ok;                        /* results checked equal */
};

static void
run_once(const struct fib_run *F, const struct runner *r, uint64_t *out)
{
	if (r->impl != NULL) {
		F->fam->select(F->fib, r->impl->name);
		F->fam->lookup(F->fib, F->ips, out, F->nips);
	} else {
		F->fam->dselect(F->dfib, r->dtype);
		F->fam->dlookup(F->dfib, F->ips, out, F->nips);
	}
}

/* Runners: vpk variants (all usable, or the -v list), then DPDK types. 0 or an exit code. */
static int
runners(const struct fib_run *F, struct runner *run, size_t *nrun)
{
	const struct fib_family *fam = F->fam;
	const char *v = F->o->variants;
	bool listed = v != NULL && strcmp(v, "all") != 0;

	*nrun = 0;
	for (const struct vpk_impl *const *t = fam->impls(fam->type_of(F->fib)); *t != NULL && *nrun < 8; t++) {
		if (listed) {
			char list[128], key[40];
			snprintf(list, sizeof(list), ",%s,", v);
			snprintf(key, sizeof(key), ",%s,", (*t)->name);
			if (strstr(list, key) == NULL)
				continue;
		}
		if (vpk_impl_why_not(*t) != NULL) {
			if (listed)
				return vpk_fail(VPK_EXIT_USAGE, "fib: -v %s: %s", (*t)->name, vpk_impl_why_not(*t));
			continue;
		}
		run[(*nrun)++] = (struct runner){ .name = (*t)->name, .impl = *t };
	}
	if (*nrun == 0)
		return vpk_fail(VPK_EXIT_USAGE, "fib: -v %s: no such usable variant", v);
	for (unsigned i = 0; F->dfib != NULL && i < fam->ndtypes; i++)
		if (fam->dselect(F->dfib, fam->dtypes[i].type) == 0)
			run[(*nrun)++] = (struct runner){ .name = fam->dtypes[i].cli, .dtype = fam->dtypes[i].type };
	return 0;
}

/* dpdk-test-fib's lines; the lookup figure is the median of the first variant's passes. */
static void
print_dpdk_format(const struct fib_run *F, const double *passes)
{
	unsigned n = F->o->passes;
	double c[1000];

	memcpy(c, passes, n * sizeof(*c));
	for (unsigned i = 1; i < n; i++)        /* insertion sort: -R is at most 1000 */
		for (unsigned j = i; j > 0 && c[j - 1] > c[j]; j--) {
			double t = c[j];
			c[j] = c[j - 1];
			c[j - 1] = t;
		}
	for (unsigned k = 0; k < FRACT; k++)
		printf("AVG FIB add %llu\n", (unsigned long long)F->add_frac[k]);
	printf("AVG FIB lookup %.1f\n", c[n / 2]);
	for (unsigned k = 0; k < FRACT; k++)
		printf("AVG FIB delete %llu\n", (unsigned long long)F->del_frac[k]);
}

/* Check (untimed), time the lookups (variants interleaved), delete (timed), report. */
static int
measure(struct fib_run *F)
{
	const struct fib_family *fam = F->fam;
	const struct fib_opts *o = F->o;
	struct runner run[16];
	size_t nrun, nips = F->nips;
	int code = runners(F, run, &nrun);

	if (code != 0)
		return code;
	uint64_t *out = malloc(nips * 8 + 8), *first = malloc(nips * 8 + 8);
	for (size_t r = 0; r < nrun; r++) {
		run[r].c = calloc(o->passes, sizeof(double));
		run[r].ok = true;
		if (run[r].c == NULL)
			code = VPK_EXIT_FAIL;
	}
	if (out == NULL || first == NULL || code != 0) {
		code = vpk_fail(VPK_EXIT_FAIL, "fib: out of memory for %zu lookups", nips);
		goto out;
	}
	size_t ref_bad = 0, all_bad = 0;
	for (size_t r = 0; r < nrun && (o->cmp_ref || o->cmp_all); r++) {
		run_once(F, &run[r], r == 0 ? first : out);
		for (size_t i = 0; r == 0 && o->cmp_ref && i < nips; i++)
			ref_bad += first[i] != fam->lookup_rib(F->fib, F->ips, i);
		if (r > 0 && o->cmp_all && memcmp(first, out, nips * 8) != 0) {
			run[r].ok = false;
			all_bad++;
		}
	}
	for (unsigned p = 0; p < o->passes; p++)
		for (size_t r = 0; r < nrun; r++) {
			uint64_t t0 = bench_tsc();
			run_once(F, &run[r], out);
			run[r].c[p] = (double)(bench_tsc() - t0) / (double)(nips ? nips : 1);
			bench_keep(out[0]);
		}
	struct fib_report rep = { .type = fam->type_name(F->fib), .nrt = F->nrt, .nips = nips, .ref_bad = ref_bad,
				  .ghz = bench_tsc_hz() / 1e9, .add_cyc = F->add_cyc, .dpdk_add = F->dpdk_add,
				  .have_dpdk = F->dfib != NULL };
	size_t dp, rib;
	fam->stats(F->fib, &dp, &rib, &rep.tbl8_used, &rep.tbl8_total);
	rep.dataplane = dp;
	rep.rib = rib;
	rep.dpdk_mem = F->dfib != NULL ? dpdk_heap_used() : 0;
	uint64_t t0 = bench_tsc();
	timed_tenths(F, fam->del, F->del_frac, NULL);
	rep.del_cyc = F->nrt ? (double)(bench_tsc() - t0) / (double)F->nrt : 0;
	if (F->dfib != NULL) {
		t0 = bench_tsc();
		for (size_t i = 0; i < F->nrt; i++)
			fam->ddel(F->dfib, F->rt, i);
		rep.dpdk_del = F->nrt ? (double)(bench_tsc() - t0) / (double)F->nrt : 0;
	}
	struct fib_report_row rows[sizeof(run) / sizeof(run[0])];
	for (size_t r = 0; r < nrun; r++)
		rows[r] = (struct fib_report_row){ run[r].name, run[r].c, run[r].ok };
	rep.rows = rows;
	rep.nrows = nrun;
	if (dpdk_format && !vpk_opts.json)
		print_dpdk_format(F, run[0].c);
	else
		fib_report_print(o, &rep);
	if (ref_bad || all_bad)
		code = vpk_fail(VPK_EXIT_FAIL, "fib: results differ (%zu from the reference, %zu variants)", ref_bad, all_bad);
out:
	for (size_t r = 0; r < nrun; r++)
		free(run[r].c);
	free(out);
	free(first);
	return code;
}

static int
cmd_fib(int argc, char **argv)
{
	struct fib_opts o;
	int code = parse(vpk_skip_eal_args("fib", argc, argv), argv, &o);

	if (code != 0)
		return code < 0 ? VPK_EXIT_OK : code;
	struct fib_run F = { .fam = o.v6 ? &fib_family6 : &fib_family4, .o = &o };
	code = check_sizes(&F);
	if (code == 0)
		code = inputs(&F);
	if (code == 0 && (o.w_file != NULL || o.u_file != NULL))
		code = write_inputs(&F);
	else if (code == 0 && (code = build(&F)) == 0)
		code = measure(&F);
	if (F.dfib != NULL)
		F.fam->dfree(F.dfib);
	if (F.fib != NULL)
		F.fam->destroy(F.fib);
	free(F.rt);
	free(F.ips);
	return code;
}
