/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk fib -6: the IPv6 half of `vpk fib` (cmd_fib.c parses the options):
 * routes from -f or generated (fib_gen.c), lookups from -t or generated, add
 * cost, every lookup variant (and rte_fib6's scalar/avx512 with --dpdk) timed
 * over the whole address array, checks, delete cost, memory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <vpk/fib6.h>

#include "bench.h"
#include "fib/fib_file.h"
#include "fib/fib_priv.h"
#include "fib/fib_cmd.h"
#include "fib/fib_dpdk.h"
#include "fib/fib_report.h"
#include "common/json.h"
#include "common/tool.h"

static int
dump6(const char *path, const struct gen_route6 *rt, size_t n, const uint8_t (*ips)[16], size_t nips)
{
	FILE *f = fopen(path, "w");
	char buf[INET6_ADDRSTRLEN];

	if (f == NULL)
		return -errno;
	for (size_t i = 0; rt != NULL && i < n; i++)
		fprintf(f, "%s/%u %llu\n", inet_ntop(AF_INET6, rt[i].ip, buf, sizeof(buf)), rt[i].depth,
			(unsigned long long)rt[i].nh);
	for (size_t i = 0; ips != NULL && i < nips; i++)
		fprintf(f, "%s\n", inet_ntop(AF_INET6, ips[i], buf, sizeof(buf)));
	return fclose(f) == 0 ? 0 : -EIO;
}

struct run6 {
	const char *name;
	const struct vpk_impl *impl;
	int dtype;
	double c[100];
	bool ok;
};

static void
once(struct run6 *r, struct vpk_fib6 *f, struct dpdk_fib6 *d, const uint8_t (*ips)[16], uint64_t *out, size_t n)
{
	if (r->impl != NULL) {
		vpk_fib6_select(f, r->impl->name);
		vpk_fib6_lookup_bulk(f, ips, out, n);
	} else {
		dpdk_fib6_select(d, r->dtype);
		dpdk_fib6_lookup(d, ips, out, n);
	}
}

int
fib_run6(struct fib_opts *o)
{
	uint64_t max_nh = vpk_fib6_max_nh(o->nh_size);
	int code = VPK_EXIT_OK;
	char err[512];

	if (max_nh == 0)
		return vpk_fail(VPK_EXIT_USAGE, "fib: -6 -e %u: IPv6 entries are 2, 4 or 8 bytes", o->nh_size);
	if (o->nh_max > max_nh)
		o->nh_max = max_nh;
	if (o->tbl8 > max_nh)
		o->tbl8 = (uint32_t)max_nh;
	if (o->tbl8 > (1u << 23))
		o->tbl8 = 1u << 23;
	if (o->passes > 100)
		o->passes = 100;
	size_t nrt = 0, nips = 0;
	struct gen_route6 *rt;
	if (o->routes_file != NULL) {
		struct fib_file_routes fr;
		if (vpk_fib_file_load_routes(o->routes_file, 6, &fr, err, sizeof(err)) != 0)
			return vpk_fail(VPK_EXIT_USAGE, "fib: %s", err);
		rt = malloc((fr.n + 1) * sizeof(*rt));
		struct gen_rng r = { o->seed };
		for (size_t i = 0; i < fr.n; i++) {
			memcpy(rt[i].ip, fr.r[i].addr, 16);
			rt[i].depth = fr.r[i].depth;
			rt[i].nh = fr.r[i].has_nh ? fr.r[i].nh : 1 + gen_below(&r, o->nh_max);
		}
		nrt = fr.n;
		vpk_fib_file_free_routes(&fr);
	} else {
		if (o->distrib != NULL)
			return vpk_fail(VPK_EXIT_USAGE, "fib: -6 -d: IPv6 generation uses the Tier-1 histogram only");
		rt = gen_routes6(o->nroutes, o->nh_max, o->seed, &nrt);
	}
	if (rt == NULL)
		return vpk_fail(VPK_EXIT_FAIL, "fib: out of memory");
	if (o->shuffle)
		gen_shuffle(rt, nrt, sizeof(*rt), o->seed ^ 0x5bd1e995);
	uint8_t (*ips)[16];
	if (o->lookups_file != NULL) {
		void *a;
		if (vpk_fib_file_load_addrs(o->lookups_file, 6, &a, &nips, err, sizeof(err)) != 0) {
			free(rt);
			return vpk_fail(VPK_EXIT_USAGE, "fib: %s", err);
		}
		ips = a;
	} else {
		nips = o->nlookups;
		ips = malloc(nips * 16 + 1);
		gen_lookups6(rt, nrt, o->kind, o->pct_random, o->seed + 1, ips, nips);
	}
	if (o->w_file != NULL || o->u_file != NULL) {
		int rc = 0;
		if (o->w_file != NULL && (rc = dump6(o->w_file, rt, nrt, NULL, 0)) != 0)
			code = vpk_fail(VPK_EXIT_FAIL, "fib: %s: %s", o->w_file, strerror(-rc));
		if (rc == 0 && o->u_file != NULL && (rc = dump6(o->u_file, NULL, 0, (const uint8_t (*)[16])ips, nips)) != 0)
			code = vpk_fail(VPK_EXIT_FAIL, "fib: %s: %s", o->u_file, strerror(-rc));
		free(rt);
		free(ips);
		return code;
	}
	struct vpk_fib6_conf conf = { .type = (enum vpk_fib6_type)o->type6, .nh_size = o->nh_size, .num_tbl8 = o->tbl8, .max_routes = (uint32_t)nrt + 1,
				      .isa = vpk_opts.isa };
	struct vpk_fib6 *fib = NULL;
	struct dpdk_fib6 *dfib = NULL;
	uint64_t *out = NULL, *first = NULL;
	int rc = vpk_fib6_create(&conf, &fib);
	if (rc != 0) {
		code = vpk_fail(rc == -ENOTSUP ? VPK_EXIT_USAGE : VPK_EXIT_FAIL, "fib: create: %s", strerror(-rc));
		goto out;
	}
	uint64_t t0 = bench_tsc();
	for (size_t i = 0; i < nrt; i++)
		if ((rc = vpk_fib6_add(fib, rt[i].ip, rt[i].depth, rt[i].nh)) != 0) {
			char buf[INET6_ADDRSTRLEN];
			code = vpk_fail(VPK_EXIT_FAIL, "fib: route %zu (%s/%u): %s%s", i + 1,
					inet_ntop(AF_INET6, rt[i].ip, buf, sizeof(buf)), rt[i].depth, strerror(-rc),
					rc == -ENOSPC ? " (out of tbl8 groups: raise -g)" : "");
			goto out;
		}
	double add_cyc = nrt ? (double)(bench_tsc() - t0) / (double)nrt : 0, dpdk_add = 0, dpdk_del = 0;
	const char *dwhy = NULL;
	if (o->dpdk && dpdk_open(2048 + (unsigned)(nrt >> 8), &dwhy) == 0 &&
	    (dfib = dpdk_fib6_create(o->nh_size, o->tbl8, (uint32_t)nrt + 1, 0, &dwhy)) != NULL) {
		t0 = bench_tsc();
		for (size_t i = 0; i < nrt; i++)
			if (dpdk_fib6_add(dfib, rt[i].ip, rt[i].depth, rt[i].nh) != 0) {
				dwhy = "rte_fib6_add failed (22.11 over-reserves groups: raise -g)";
				dpdk_fib6_free(dfib);
				dfib = NULL;
				break;
			}
		dpdk_add = nrt ? (double)(bench_tsc() - t0) / (double)nrt : 0;
	}
	if (o->dpdk && dfib == NULL)
		fprintf(stderr, "vpk: fib: DPDK rows skipped: %s\n", dwhy ? dwhy : "?");

	struct run6 run[8];
	size_t nrun = 0;
	for (const struct vpk_impl *const *t = vpk_fib6_impls((enum vpk_fib6_type)o->type6); *t != NULL; t++) {
		if (o->variants != NULL && strcmp(o->variants, "all") != 0) {
			char list[128], key[40];
			snprintf(list, sizeof(list), ",%s,", o->variants);
			snprintf(key, sizeof(key), ",%s,", (*t)->name);
			if (strstr(list, key) == NULL)
				continue;
		}
		if (vpk_impl_why_not(*t) == NULL)
			run[nrun++] = (struct run6){ .name = (*t)->name, .impl = *t, .ok = true };
	}
	for (int t = 1; dfib != NULL && t <= 2; t++)
		if (dpdk_fib6_select(dfib, t) == 0)
			run[nrun++] = (struct run6){ .name = t == 1 ? "dpdk-s" : "dpdk-v", .dtype = t, .ok = true };
	if (nrun == 0) {
		code = vpk_fail(VPK_EXIT_USAGE, "fib: -v %s: no such usable variant", o->variants);
		goto out;
	}
	out = malloc(nips * 8 + 8);
	first = malloc(nips * 8 + 8);
	size_t ref_bad = 0, all_bad = 0;
	for (size_t r = 0; r < nrun && (o->cmp_ref || o->cmp_all); r++) {
		once(&run[r], fib, dfib, (const uint8_t (*)[16])ips, r == 0 ? first : out, nips);
		if (r == 0 && o->cmp_ref)
			for (size_t i = 0; i < nips; i++)
				ref_bad += first[i] != vpk_fib6_lookup_rib(fib, ips[i]);
		if (r > 0 && o->cmp_all && memcmp(first, out, nips * 8) != 0) {
			run[r].ok = false;
			all_bad++;
		}
	}
	for (unsigned p = 0; p < o->passes; p++)
		for (size_t r = 0; r < nrun; r++) {
			t0 = bench_tsc();
			once(&run[r], fib, dfib, (const uint8_t (*)[16])ips, out, nips);
			run[r].c[p] = (double)(bench_tsc() - t0) / (double)(nips ? nips : 1);
			bench_keep(out[0]);
		}
	struct vpk_fib6_stats st;
	vpk_fib6_get_stats(fib, &st);
	size_t dpdk_mem = dfib != NULL ? dpdk_heap_used() : 0;
	t0 = bench_tsc();
	for (size_t i = 0; i < nrt; i++)
		vpk_fib6_del(fib, rt[i].ip, rt[i].depth);
	double del_cyc = nrt ? (double)(bench_tsc() - t0) / (double)nrt : 0;
	if (dfib != NULL) {
		t0 = bench_tsc();
		for (size_t i = 0; i < nrt; i++)
			dpdk_fib6_del(dfib, rt[i].ip, rt[i].depth);
		dpdk_del = nrt ? (double)(bench_tsc() - t0) / (double)nrt : 0;
	}
	double ghz = bench_tsc_hz() / 1e9;
	struct fib_report_row rows[sizeof(run) / sizeof(run[0])];
	for (size_t r = 0; r < nrun; r++)
		rows[r] = (struct fib_report_row){ run[r].name, run[r].c, run[r].ok };
	fib_report_print(o, &(struct fib_report){
		.type = vpk_fib6_type_name(fib), .nrt = nrt, .nips = nips, .ref_bad = ref_bad,
		.tbl8_used = st.tbl8_used, .tbl8_total = st.tbl8_total, .dataplane = st.dataplane_touched,
		.rib = st.rib_bytes, .ghz = ghz, .add_cyc = add_cyc, .del_cyc = del_cyc, .dpdk_add = dpdk_add,
		.dpdk_del = dpdk_del, .have_dpdk = dfib != NULL, .dpdk_mem = dpdk_mem, .rows = rows, .nrows = nrun });
	if (ref_bad || all_bad)
		code = vpk_fail(VPK_EXIT_FAIL, "fib: results differ (%zu from the reference, %zu variants)", ref_bad, all_bad);
out:
	free(out);
	free(first);
	dpdk_fib6_free(dfib);
	vpk_fib6_destroy(fib);
	free(rt);
	free(ips);
	return code;
}
