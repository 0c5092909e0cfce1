/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk gen routes: a synthetic IPv4 route table with a realistic prefix-length
 * distribution (fib_gen.h), in dpdk-test-fib's route format, and optionally a
 * lookup set for it (random, in-table or skewed addresses). Seeded.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fib/fib_gen.h"
#include "common/tool.h"

static const char usage[] =
	"usage: vpk gen routes [-n routes] [-d depth:N|P%,...] [--seed N] [--nh-max N] [-o routes-file]\n"
	"                      [--lookups random|in-table|skewed] [-l count] [-r pct-random] [--lookups-out file]\n"
	"  Default: 100000 routes with the prefix-length histogram of a 2023 Tier-1 table, nested and\n"
	"  clustered like real BGP tables, next hops 1..127, to stdout.\n";

static int
cmd_gen_routes(int argc, char **argv)
{
	VPK_LONGOPTS(lo, "seed=S nh-max=N lookups=L lookups-out=U help/h");
	uint64_t n = 100000, seed = 1, nh_max = 127, nl = 1000000, pct = 0;
	const char *spec = NULL, *out = NULL, *lout = NULL;
	bool lookups = false;
	enum gen_lookup_kind kind = GEN_LOOKUP_INTABLE;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "n:d:o:l:r:h", lo, NULL)) != -1) {
		uint64_t *dst = NULL, hi = 0;
		switch (c) {
		case 'n': dst = &n; hi = UINT64_C(1) << 28; break;
		case 'l': dst = &nl; hi = UINT64_C(1) << 31; break;
		case 'r': dst = &pct; hi = 100; break;
		case 'S': dst = &seed; hi = UINT64_MAX; break;
		case 'N': dst = &nh_max; hi = (UINT64_C(1) << 63) - 1; break;
		case 'd': spec = optarg; break;
		case 'o': out = optarg; break;
		case 'U': lout = optarg; lookups = true; break;
		case 'L':
			if (gen_lookup_kind(optarg, &kind) != 0)
				return vpk_fail(VPK_EXIT_USAGE, "gen routes: --lookups %s: random, in-table or skewed", optarg);
			lookups = true;
			break;
		case 'h': fputs(usage, stdout); return VPK_EXIT_OK;
		default: fputs(usage, stderr); return VPK_EXIT_USAGE;
		}
		if (dst != NULL) {
			char where[40];

			snprintf(where, sizeof(where), "gen routes: %s", c == 'S' ? "--seed" : c == 'N' ? "--nh-max"
								       : c == 'n' ? "-n" : c == 'l' ? "-l" : "-r");
			if (!vpk_opt_u64(where, optarg, dst == &nh_max ? 1 : 0, hi, dst))
				return VPK_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return vpk_fail(VPK_EXIT_USAGE, "gen routes: unexpected argument '%s'", argv[optind]);
	if (lookups && lout == NULL)
		return vpk_fail(VPK_EXIT_USAGE, "gen routes: --lookups needs --lookups-out FILE");
	if (!vpk_opt_distinct("gen routes", "-o", out, "--lookups-out", lout))
		return VPK_EXIT_USAGE;

	size_t count[33], nrt;
	const char *why = NULL;
	if (gen_distribution(spec, (size_t)n, count, &why) != 0)
		return vpk_fail(VPK_EXIT_USAGE, "gen routes: -d %s: %s", spec, why);
	struct gen_route4 *rt = gen_routes4(count, nh_max, seed, &nrt);
	if (rt == NULL)
		return vpk_fail(VPK_EXIT_FAIL, "gen routes: out of memory");
	FILE *f = out != NULL ? fopen(out, "w") : stdout;
	if (f == NULL) {
		free(rt);
		return vpk_fail(VPK_EXIT_FAIL, "gen routes: %s: %s", out, strerror(errno));
	}
	for (size_t i = 0; i < nrt; i++)
		fprintf(f, "%u.%u.%u.%u/%u %llu\n", rt[i].ip >> 24, rt[i].ip >> 16 & 255, rt[i].ip >> 8 & 255,
			rt[i].ip & 255, rt[i].depth, (unsigned long long)rt[i].nh);
	int bad = out != NULL ? fclose(f) != 0 : fflush(f) != 0;
	if (bad) {
		free(rt);
		return vpk_fail(VPK_EXIT_FAIL, "gen routes: write failed");
	}
	if (lookups) {
		uint32_t *ips = malloc(nl * sizeof(*ips) + 1);
		FILE *g = fopen(lout, "w");
		if (ips == NULL || g == NULL) {
			free(ips);
			free(rt);
			if (g)
				fclose(g);
			return vpk_fail(VPK_EXIT_FAIL, "gen routes: %s: %s", lout, strerror(errno));
		}
		gen_lookups4(rt, nrt, kind, (unsigned)pct, seed + 1, ips, nl);
		for (size_t i = 0; i < nl; i++)
			fprintf(g, "%u.%u.%u.%u\n", ips[i] >> 24, ips[i] >> 16 & 255, ips[i] >> 8 & 255, ips[i] & 255);
		bad = fclose(g) != 0;
		free(ips);
		if (bad) {
			free(rt);
			return vpk_fail(VPK_EXIT_FAIL, "gen routes: %s: write failed", lout);
		}
	}
	if (nrt < n)
		fprintf(stderr, "vpk: gen routes: %zu of %llu routes (the distribution ran out of distinct prefixes)\n",
			nrt, (unsigned long long)n);
	free(rt);
	return VPK_EXIT_OK;
}

VPK_CMD(gen_routes, "gen routes", "synthetic route table (BGP-like lengths) and lookup sets", cmd_gen_routes);
