/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The options of vpk bench fib and vpk bench fib --ipv6 (bench_fib.h): one
 * parser, so both families name and check their options alike. IPv6 entries
 * are 2, 4 or 8 bytes (rte_fib6's).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <vpk/fib.h>
#include <vpk/fib6.h>

#include "bench/bench_fib.h"
#include "common/tool.h"

static void
usage(bool v6)
{
	printf("usage: vpk bench fib [--ipv6] -f routes [-l lookups(10M)] [-e %s] [-R passes(5)]\n"
	       "                     [-U (no update timing)] [-b %s|all (vpk layouts, default all)]\n"
	       "                     [--vs-dpdk | --no-dpdk] [--seed N] [--json]\n"
	       "                     [--cpu-time (cycles = thread CPU time x TSC rate)]\n"
	       "                     [-B keys per lookup_bulk call (default: the whole array)]\n",
	       v6 ? "2,4,8" : "1,2,4,8", v6 ? "trie|bm6" : "dir|bm16");
}

/* -e: a list of entry sizes, each one the family's FIB can hold. */
static int
entry_sizes(const char *arg, bool v6, const char *cmd, struct bench_fib_opts *o)
{
	char where[64];
	int k;

	snprintf(where, sizeof(where), "%s: -e (list of %s)", cmd, v6 ? "2,4,8" : "1,2,4,8");
	k = vpk_opt_list(where, arg, 1, 8, o->sizes, v6 ? 3 : 4);
	if (k <= 0)
		return VPK_EXIT_USAGE;
	o->nsizes = (unsigned)k;
	for (unsigned i = 0; i < o->nsizes; i++) {
		if (v6 && vpk_fib6_max_nh(o->sizes[i]) == 0)
			return vpk_fail(VPK_EXIT_USAGE, "%s: -e %u: 2, 4 or 8", cmd, o->sizes[i]);
		if (!v6 && vpk_fib_max_nh(o->sizes[i]) == 0)
			return vpk_fail(VPK_EXIT_USAGE, "%s: -e %u: entry size is 1, 2, 4 or 8", cmd, o->sizes[i]);
	}
	return 0;
}

int
bench_fib_parse(int argc, char **argv, bool v6, struct bench_fib_opts *o)
{
	VPK_LONGOPTS(lo, "no-dpdk/D vs-dpdk/V seed=S cpu-time/C help/h");
	const char *cmd = v6 ? "bench fib --ipv6" : "bench fib";
	char where[64];
	int c, rc;

	const struct fib_family *fam = v6 ? &fib_family6 : &fib_family4;

	*o = (struct bench_fib_opts){ .sizes = { 1, 2, 4, 8 }, .nsizes = 4, .passes = 5, .nl = 10000000,
				      .use_dpdk = true, .updates = true, .want = { true, true }, .seed = 1 };
	if (v6)
		*o = (struct bench_fib_opts){ .sizes = { 2, 4, 8 }, .nsizes = 3, .passes = 5, .nl = 10000000,
					      .use_dpdk = true, .updates = true, .want = { true, true }, .seed = 1 };
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:l:e:R:b:B:Uh", lo, NULL)) != -1) {
		switch (c) {
		case 'f': o->path = optarg; break;
		case 'B':
			snprintf(where, sizeof(where), "%s: -B (keys per call)", cmd);
			if (!vpk_opt_size(where, optarg, 1, 1u << 30, &o->burst))
				return VPK_EXIT_USAGE;
			break;
		case 'l':
			snprintf(where, sizeof(where), "%s: -l", cmd);
			if (!vpk_opt_size(where, optarg, 1, (size_t)1 << 31, &o->nl))
				return VPK_EXIT_USAGE;
			break;
		case 'R':
			snprintf(where, sizeof(where), "%s: -R", cmd);
			if (!vpk_opt_uint(where, optarg, 1, 1000, &o->passes))
				return VPK_EXIT_USAGE;
			break;
		case 'S':
			snprintf(where, sizeof(where), "%s: --seed", cmd);
			if (!vpk_opt_u64(where, optarg, 0, UINT64_MAX, &o->seed))
				return VPK_EXIT_USAGE;
			break;
		case 'D': o->use_dpdk = false; break;
		case 'V': o->use_dpdk = true; break;        /* the default, said out loud */
		case 'C': o->cpu_time = true; break;
		case 'U': o->updates = false; break;
		case 'b':
			for (int t = 0; t < 2; t++)
				o->want[t] = strcmp(optarg, fam->layouts[t].opt) == 0 || strcmp(optarg, "all") == 0;
			if (!o->want[0] && !o->want[1])
				return vpk_fail(VPK_EXIT_USAGE, "%s: -b %s: '%s', '%s' or 'all'", cmd, optarg,
						fam->layouts[0].opt, fam->layouts[1].opt);
			break;
		case 'e':
			rc = entry_sizes(optarg, v6, cmd, o);
			if (rc != 0)
				return rc;
			break;
		case 'h':
			usage(v6);
			return -1;
		default:
			return VPK_EXIT_USAGE;
		}
	}
	if (o->path == NULL)
		return vpk_fail(VPK_EXIT_USAGE, "%s: -f ROUTES is required (e.g. the RouteViews IPv%c table)", cmd,
				v6 ? '6' : '4');
	if (o->nl == 0 || o->passes == 0 || o->passes > 100)
		return vpk_fail(VPK_EXIT_USAGE, "%s: -l and -R must be positive (-R <= 100)", cmd);
	if (o->burst == 0 || o->burst > o->nl)
		o->burst = o->nl;       /* default: the whole array in one call */
	return 0;
}
