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
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/fib.h>
#include <vpk/fib6.h>

#include "bench.h"
#include "fib/fib_file.h"
#include "fib/fib_priv.h"
#include "fib/fib_dpdk.h"
#include "fib/fib_report.h"
#include "fib/fib_cmd.h"
#include "fib/fib_gen.h"
#include "common/json.h"
#include "common/tool.h"

static int cmd_fib(int argc, char **argv);
VPK_CMD(fib, "fib", "FIB benchmark and checker (dpdk-test-fib options and formats)", cmd_fib);

static const char usage[] =
	"usage: vpk fib [-f routes] [-t lookups] [-n routes] [-l lookups] [-d depth:N|P%,...]\n"
	"               [-r pct-random] [-k in-table|random|skewed] [-c] [-a] [-s] [-6] [-b dir|bm16|trie|bm6]\n"
	"               [-e 1|2|4|8] [-g tbl8] [-w routes-out] [-u lookups-out] [-v all|variant,...]\n"
	"               [-R passes] [--dpdk] [--seed N] [--nh-max N] [--json]\n";

static int
write_routes(const char *path, const struct gen_route4 *rt, size_t n)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -errno;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%u.%u.%u.%u/%u %llu\n", rt[i].ip >> 24, rt[i].ip >> 16 & 255, rt[i].ip >> 8 & 255,
			rt[i].ip & 255, rt[i].depth, (unsigned long long)rt[i].nh);
	return fclose(f) == 0 ? 0 : -EIO;
}

static int
write_addrs(const char *path, const uint32_t *ips, size_t n)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -errno;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%u.%u.%u.%u\n", ips[i] >> 24, ips[i] >> 16 & 255, ips[i] >> 8 & 255, ips[i] & 255);
	return fclose(f) == 0 ? 0 : -EIO;
}

/* Routes from a file (next hops filled in where absent) or the generator. */
static struct gen_route4 *
get_routes(const struct fib_opts *o, size_t *n, int *code)
{
	char err[512];

	if (o->routes_file != NULL) {
		struct fib_file_routes fr;
		int rc = vpk_fib_file_load_routes(o->routes_file, 4, &fr, err, sizeof(err));
		if (rc != 0) {
			*code = vpk_fail(VPK_EXIT_USAGE, "fib: %s", err);
			return NULL;
		}
		struct gen_route4 *rt = malloc((fr.n + 1) * sizeof(*rt));
		struct gen_rng r = { o->seed };
		if (rt == NULL) {
			vpk_fib_file_free_routes(&fr);
			*code = vpk_fail(VPK_EXIT_FAIL, "fib: out of memory");
			return NULL;
		}
		for (size_t i = 0; i < fr.n; i++) {
			const uint8_t *a = fr.r[i].addr;
			rt[i].ip = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
			rt[i].depth = fr.r[i].depth;
			rt[i].nh = fr.r[i].has_nh ? fr.r[i].nh : 1 + gen_below(&r, o->nh_max);
		}
		*n = fr.n;
		vpk_fib_file_free_routes(&fr);
		return rt;
	}
	size_t count[33];
	const char *why = NULL;
	if (gen_distribution(o->distrib, o->nroutes, count, &why) != 0) {
		*code = vpk_fail(VPK_EXIT_USAGE, "fib: -d %s: %s", o->distrib, why);
		return NULL;
	}
	return gen_routes4(count, o->nh_max, o->seed, n);
}

struct runner {
	const char *name;               /* "avx512" or "dpdk-v" */
	const struct vpk_impl *impl;    /* vpk variant, or NULL for DPDK */
	enum dpdk_fib_lookup dtype;
	double *c;                      /* cycles/lookup per pass */
	bool ok;                        /* results checked equal */
};

static void
run_once(struct runner *r, struct vpk_fib *fib, struct dpdk_fib *dfib, const uint32_t *ips, uint64_t *out, size_t n)
{
	if (r->impl != NULL) {
		vpk_fib_select(fib, r->impl->name);
		vpk_fib_lookup_bulk(fib, ips, out, n);
	} else {
		dpdk_fib_select(dfib, r->dtype);
		dpdk_fib_lookup(dfib, ips, out, n);
	}
}

static int
cmd_fib(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "dpdk", no_argument, NULL, 'D' }, { "seed", required_argument, NULL, 'S' },
		{ "nh-max", required_argument, NULL, 'N' }, { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 } };
	struct fib_opts o = { .nroutes = 65536, .nlookups = 1 << 20, .nh_size = 4, .passes = 5,
			      .tbl8 = 100000, .kind = GEN_LOOKUP_INTABLE, .seed = 1, .nh_max = 127 };
	uint64_t v;
	int c, code = VPK_EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "f:t:n:l:d:r:k:cas6b:e:g:w:u:v:R:h", lo, NULL)) != -1) {
		switch (c) {
		case 'f': o.routes_file = optarg; break;
		case 't': o.lookups_file = optarg; break;
		case 'd': o.distrib = optarg; break;
		case 'w': o.w_file = optarg; break;
		case 'u': o.u_file = optarg; break;
		case 'v': o.variants = optarg; break;
		case 'c': o.cmp_ref = true; break;
		case 'a': o.cmp_all = true; break;
		case 's': o.shuffle = true; break;
		case 'D': o.dpdk = true; break;
		case '6': o.v6 = true; break;
		case 'b':
			if (strcmp(optarg, "dir") == 0)
				o.type = VPK_FIB_DIR24_8;
			else if (strcmp(optarg, "bm16") == 0)
				o.type = VPK_FIB_BM16;
			else if (strcmp(optarg, "trie") == 0)
				o.type6 = VPK_FIB6_TRIE;
			else if (strcmp(optarg, "bm6") == 0)
				o.type6 = VPK_FIB6_BM6;
			else
				return vpk_fail(VPK_EXIT_USAGE, "fib: -b %s: 'dir' or 'bm16' (IPv4), 'trie' or 'bm6' (IPv6)",
						optarg);
			break;
		case 'k':
			if (gen_lookup_kind(optarg, &o.kind) != 0)
				return vpk_fail(VPK_EXIT_USAGE, "fib: -k %s: in-table, random or skewed", optarg);
			break;
		case 'n': case 'l': case 'r': case 'e': case 'g': case 'R': case 'S': case 'N': {
			uint64_t hi = c == 'r' ? 100 : c == 'e' ? 8 : c == 'R' ? 1000 : c == 'S' ? UINT64_MAX
				    : c == 'N' ? (UINT64_C(1) << 62) : c == 'g' ? UINT32_MAX : (UINT64_C(1) << 31);
			char where[32];

			snprintf(where, sizeof(where), c == 'S' ? "fib: --seed" : c == 'N' ? "fib: --nh-max" : "fib: -%c", c);
			if (!vpk_opt_u64(where, optarg, c == 'r' || c == 'S' ? 0 : 1, hi, &v))
				return VPK_EXIT_USAGE;
			if (c == 'n') o.nroutes = v;
			else if (c == 'l') o.nlookups = v;
			else if (c == 'r') o.pct_random = (unsigned)v;
			else if (c == 'e') o.nh_size = (unsigned)v;
			else if (c == 'g') o.tbl8 = (uint32_t)v;
			else if (c == 'R') o.passes = (unsigned)v;
			else if (c == 'S') o.seed = v;
			else o.nh_max = v;
			break;
		}
		case 'h': fputs(usage, stdout); return VPK_EXIT_OK;
		default: fputs(usage, stderr); return VPK_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return vpk_fail(VPK_EXIT_USAGE, "fib: unexpected argument '%s'", argv[optind]);
	if (!vpk_opt_distinct("fib", "-f", o.routes_file, "-w", o.w_file) ||
	    !vpk_opt_distinct("fib", "-f", o.routes_file, "-u", o.u_file) ||
	    !vpk_opt_distinct("fib", "-t", o.lookups_file, "-w", o.w_file) ||
	    !vpk_opt_distinct("fib", "-t", o.lookups_file, "-u", o.u_file) ||
	    !vpk_opt_distinct("fib", "-w", o.w_file, "-u", o.u_file))
		return VPK_EXIT_USAGE;
	if (o.v6)
		return fib_run6(&o);
	uint64_t max_nh = vpk_fib_max_nh(o.nh_size);
	if (max_nh == 0)
		return vpk_fail(VPK_EXIT_USAGE, "fib: -e %u: entry size is 1, 2, 4 or 8", o.nh_size);
	if (o.nh_max > max_nh)
		o.nh_max = max_nh;
	uint32_t max_tbl8 = vpk_fib_max_tbl8(o.type, o.nh_size);
	if (max_tbl8 == 0)
		return vpk_fail(VPK_EXIT_USAGE, "fib: -b bm16: entry size is 1, 2 or 4 (-e %u)", o.nh_size);
	/* -g is clamped to what each side accepts (rte_fib: a group index fits the entry). */
	uint32_t dpdk_tbl8 = (uint32_t)(o.tbl8 < max_nh ? o.tbl8 : max_nh);
	if (dpdk_tbl8 > (1u << 23))
		dpdk_tbl8 = 1u << 23;
	if (o.tbl8 > max_tbl8)
		o.tbl8 = max_tbl8;

	size_t nrt = 0, nips = 0;
	struct gen_route4 *rt = get_routes(&o, &nrt, &code);
	uint32_t *ips = NULL;
	if (rt == NULL)
		return code;
	if (o.shuffle)
		gen_shuffle(rt, nrt, sizeof(*rt), o.seed ^ 0x5bd1e995);
	if (o.lookups_file != NULL) {
		char err[512];
		void *a;
		if (vpk_fib_file_load_addrs(o.lookups_file, 4, &a, &nips, err, sizeof(err)) != 0) {
			free(rt);
			return vpk_fail(VPK_EXIT_USAGE, "fib: %s", err);
		}
		ips = a;
	} else {
		nips = o.nlookups;
		ips = malloc(nips * sizeof(*ips) + 1);      /* -l is at most 2^31: no overflow */
		if (ips == NULL) {
			free(rt);
			return vpk_fail(VPK_EXIT_FAIL, "fib: -l %zu: out of memory", nips);
		}
		gen_lookups4(rt, nrt, o.kind, o.pct_random, o.seed + 1, ips, nips);
	}
	if (o.shuffle && o.lookups_file != NULL)
		gen_shuffle(ips, nips, sizeof(*ips), o.seed ^ 0x1b873593);
	if (o.w_file != NULL || o.u_file != NULL) {
		int rc = 0;
		if (o.w_file != NULL && (rc = write_routes(o.w_file, rt, nrt)) != 0)
			code = vpk_fail(VPK_EXIT_FAIL, "fib: %s: %s", o.w_file, strerror(-rc));
		if (rc == 0 && o.u_file != NULL && (rc = write_addrs(o.u_file, ips, nips)) != 0)
			code = vpk_fail(VPK_EXIT_FAIL, "fib: %s: %s", o.u_file, strerror(-rc));
		free(rt);
		free(ips);
		return code;
	}

	/* Build. */
	struct vpk_fib_conf conf = { .type = o.type, .nh_size = o.nh_size, .num_tbl8 = o.tbl8,
				     .max_routes = (uint32_t)nrt + 1, .isa = vpk_opts.isa };
	struct vpk_fib *fib = NULL;
	int rc = vpk_fib_create(&conf, &fib);
	if (rc != 0) {
		free(rt);
		free(ips);
		return vpk_fail(rc == -ENOTSUP ? VPK_EXIT_USAGE : VPK_EXIT_FAIL, "fib: create: %s", strerror(-rc));
	}
	uint64_t t0 = bench_tsc();
	for (size_t i = 0; i < nrt; i++) {
		if ((rc = vpk_fib_add(fib, rt[i].ip, rt[i].depth, rt[i].nh)) != 0) {
			code = vpk_fail(VPK_EXIT_FAIL, "fib: route %zu (%u.%u.%u.%u/%u nh %llu): %s%s", i + 1,
					rt[i].ip >> 24, rt[i].ip >> 16 & 255, rt[i].ip >> 8 & 255, rt[i].ip & 255,
					rt[i].depth, (unsigned long long)rt[i].nh, strerror(-rc),
					rc == -ENOSPC ? " (out of tbl8 groups: raise -g or -e)" : "");
			goto out;
		}
	}
	double add_cyc = nrt ? (double)(bench_tsc() - t0) / (double)nrt : 0;

	/* Optional DPDK twin. */
	struct dpdk_fib *dfib = NULL;
	double dpdk_add = 0;
	const char *dwhy = NULL;
	if (o.dpdk && dpdk_open(2048 + (unsigned)(nrt >> 9) + (o.nh_size * 64u), &dwhy) == 0 &&
	    (dfib = dpdk_fib_create(o.nh_size, dpdk_tbl8, (uint32_t)nrt + 1, 0, &dwhy)) != NULL) {
		t0 = bench_tsc();
		for (size_t i = 0; i < nrt; i++)
			if (dpdk_fib_add(dfib, rt[i].ip, rt[i].depth, rt[i].nh) != 0) {
				dwhy = "rte_fib_add failed";
				dpdk_fib_free(dfib);
				dfib = NULL;
				break;
			}
		dpdk_add = nrt ? (double)(bench_tsc() - t0) / (double)nrt : 0;
	}
	if (o.dpdk && dfib == NULL)
		fprintf(stderr, "vpk: fib: DPDK rows skipped: %s\n", dwhy ? dwhy : "?");

	/* Runners: vpk variants (all usable, or -v list), then DPDK types. */
	struct runner run[16];
	size_t nrun = 0;
	for (const struct vpk_impl *const *t = vpk_fib_impls(vpk_fib_get_type(fib)); *t != NULL && nrun < 8; t++) {
		if (o.variants != NULL && strcmp(o.variants, "all") != 0) {
			char list[128];
			snprintf(list, sizeof(list), ",%s,", o.variants);
			char key[40];
			snprintf(key, sizeof(key), ",%s,", (*t)->name);
			if (strstr(list, key) == NULL)
				continue;
		}
		if (vpk_impl_why_not(*t) != NULL) {
			if (o.variants != NULL && strcmp(o.variants, "all") != 0) {
				code = vpk_fail(VPK_EXIT_USAGE, "fib: -v %s: %s", (*t)->name, vpk_impl_why_not(*t));
				goto out2;
			}
			continue;
		}
		run[nrun++] = (struct runner){ .name = (*t)->name, .impl = *t };
	}
	if (nrun == 0) {
		code = vpk_fail(VPK_EXIT_USAGE, "fib: -v %s: no such usable variant", o.variants);
		goto out2;
	}
	static const struct { enum dpdk_fib_lookup t; const char *n; } dt[] = {
		{ DPDK_FIB_SCALAR_MACRO, "dpdk-s1" }, { DPDK_FIB_SCALAR_INLINE, "dpdk-s2" },
		{ DPDK_FIB_SCALAR_UNI, "dpdk-s3" }, { DPDK_FIB_VECTOR_AVX512, "dpdk-v" } };
	for (size_t i = 0; dfib != NULL && i < 4; i++)
		if (dpdk_fib_select(dfib, dt[i].t) == 0)
			run[nrun++] = (struct runner){ .name = dt[i].n, .dtype = dt[i].t };

	uint64_t *out = malloc(nips * 8 + 8), *first = malloc(nips * 8 + 8);
	for (size_t r = 0; r < nrun; r++) {
		run[r].c = calloc(o.passes, sizeof(double));
		run[r].ok = true;
	}
	/* Checks (untimed). */
	size_t ref_bad = 0, all_bad = 0;
	for (size_t r = 0; r < nrun && (o.cmp_ref || o.cmp_all); r++) {
		run_once(&run[r], fib, dfib, ips, r == 0 ? first : out, nips);
		if (r == 0 && o.cmp_ref)
			for (size_t i = 0; i < nips; i++)
				if (first[i] != vpk_fib_lookup_rib(fib, ips[i]))
					ref_bad++;
		if (r > 0 && o.cmp_all && memcmp(first, out, nips * 8) != 0) {
			run[r].ok = false;
			all_bad++;
		}
	}
	/* Timed passes, variants interleaved. */
	for (unsigned p = 0; p < o.passes; p++)
		for (size_t r = 0; r < nrun; r++) {
			t0 = bench_tsc();
			run_once(&run[r], fib, dfib, ips, out, nips);
			run[r].c[p] = (double)(bench_tsc() - t0) / (double)(nips ? nips : 1);
			bench_keep(out[0]);
		}
	struct vpk_fib_stats st;
	vpk_fib_get_stats(fib, &st);
	size_t dpdk_mem = dfib != NULL ? dpdk_heap_used() : 0;
	t0 = bench_tsc();
	for (size_t i = 0; i < nrt; i++)
		vpk_fib_del(fib, rt[i].ip, rt[i].depth);
	double del_cyc = nrt ? (double)(bench_tsc() - t0) / (double)nrt : 0;
	double dpdk_del = 0;
	if (dfib != NULL) {
		t0 = bench_tsc();
		for (size_t i = 0; i < nrt; i++)
			dpdk_fib_del(dfib, rt[i].ip, rt[i].depth);
		dpdk_del = nrt ? (double)(bench_tsc() - t0) / (double)nrt : 0;
	}
	double ghz = bench_tsc_hz() / 1e9;

	struct fib_report_row rows[sizeof(run) / sizeof(run[0])];
	for (size_t r = 0; r < nrun; r++)
		rows[r] = (struct fib_report_row){ run[r].name, run[r].c, run[r].ok };
	fib_report_print(&o, &(struct fib_report){
		.type = vpk_fib_type_name(fib), .nrt = nrt, .nips = nips, .ref_bad = ref_bad,
		.tbl8_used = st.tbl8_used, .tbl8_total = st.tbl8_total, .dataplane = st.dataplane_touched,
		.rib = st.rib_bytes, .ghz = ghz, .add_cyc = add_cyc, .del_cyc = del_cyc, .dpdk_add = dpdk_add,
		.dpdk_del = dpdk_del, .have_dpdk = dfib != NULL, .dpdk_mem = dpdk_mem, .rows = rows, .nrows = nrun });
	if (ref_bad || all_bad)
		code = vpk_fail(VPK_EXIT_FAIL, "fib: results differ (%zu from the reference, %zu variants)", ref_bad, all_bad);
	for (size_t r = 0; r < nrun; r++)
		free(run[r].c);
	free(out);
	free(first);
out2:
	dpdk_fib_free(dfib);
out:
	vpk_fib_destroy(fib);
	free(rt);
	free(ips);
	return code;
}
