/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk gen acl: seeded ClassBench-like rule sets and traces (generator in
 * src/acl/acl_gen.c), in dpdk-test-acl / l3fwd formats, with the trace's
 * expected column computed by brute force (first matching rule in file
 * order, 0-based; 4294967295 = no match).
 *
 *   vpk gen acl --profile acl|fw|ipv6|acl1..acl5|fw1..fw5|ipc1|ipc2[-v6] --rules N [--seed S] --rules-out FILE
 *               [--trace N --trace-out FILE] [--random-share 0.05]
 *               [--l3fwd-out FILE [--l3fwd-ports 2] [--l3fwd-deny 0.1]] [--json]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vpk/acl_file.h>
#include "acl/acl_gen.h"
#include "acl/acl_l3fwd.h"
#include "acl/acl_oracle.h"

#include "common/json.h"
#include "common/tool.h"

static int cmd_gen_acl(int argc, char **argv);
VPK_CMD(gen_acl, "gen acl", "ClassBench-like ACL rule sets and traces with expected results", cmd_gen_acl);

/* One line on stderr (the reason); the full usage only on --help. */
static int
usage(const char *why)
{
	if (why == NULL) {
		fputs("usage: vpk gen acl --profile acl|fw|ipv6|acl1..acl5|fw1..fw5|ipc1|ipc2[-v6] --rules N [--seed S] --rules-out FILE\n"
		      "                   [--trace N --trace-out FILE] [--random-share X] [--l3fwd-out FILE]\n"
		      "                   [--l3fwd-ports N (2)] [--l3fwd-deny SHARE (0.1)] [--json]\n",
		      stdout);
		return VPK_EXIT_OK;
	}
	return vpk_fail(VPK_EXIT_USAGE, "gen acl: %s (vpk gen acl --help lists the options)", why);
}

static int
write_file(const char *path, int (*fn)(FILE *, const void *, uint32_t, bool), const void *a, uint32_t n,
	   bool ipv6)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
	int rc;

	if (f == NULL)
		return vpk_fail(VPK_EXIT_FAIL, "gen acl: cannot write %s: %s", path, strerror(errno));
	rc = fn(f, a, n, ipv6);
	if (f != stdout && fclose(f) != 0)
		rc = -EIO;
	if (rc < 0)
		return vpk_fail(VPK_EXIT_FAIL, "gen acl: write error on %s", path);
	return 0;
}

static int
wr_rules(FILE *f, const void *a, uint32_t n, bool ipv6)
{
	return vpk_acl5_write_rules(f, a, n, ipv6);
}

static int
wr_trace(FILE *f, const void *a, uint32_t n, bool ipv6)
{
	return vpk_acl5_write_trace(f, a, n, ipv6);
}

static int
cmd_gen_acl(int argc, char **argv)
{
	VPK_LONGOPTS(lo, "profile=p rules=n seed=s rules-out=r trace=t trace-out=T random-share=x l3fwd-out=l "
			 "help/h l3fwd-ports=L l3fwd-deny=L");
	struct vpk_acl_gen_conf gc = { .rules = 0, .seed = 1 };
	const char *profile = "acl", *rules_out = NULL, *trace_out = NULL, *l3_out = NULL;
	uint64_t ntrace = 0;
	double share = 0.05;
	struct vpk_acl5_rule *r = NULL;
	struct vpk_acl5_pkt *p = NULL;
	int c, rc, li;
	const struct vpk_optnum nums[] = {
		VPK_OPTNUM_UINT('n', "gen acl: --rules", 1, 1u << 24, &gc.rules),
		VPK_OPTNUM_U64('s', "gen acl: --seed", 0, UINT64_MAX, &gc.seed),
		VPK_OPTNUM_U64('t', "gen acl: --trace", 0, 1u << 30, &ntrace),
		{ 0 },
	};

	optind = 1;
	opterr = 0;
	while ((c = vpk_getopt_nums(argc, argv, "", lo, &li, nums)) != -1) {
		switch (c) {
		case 'L':
			if (acl_l3fwd_option(lo[li].name, optarg) < 0)
				return VPK_EXIT_USAGE;
			break;
		case 'p': profile = optarg; break;
		case 'r': rules_out = optarg; break;
		case 'T': trace_out = optarg; break;
		case 'x':
			if (!vpk_opt_f64("gen acl: --random-share", optarg, 0, 1, &share))
				return VPK_EXIT_USAGE;
			break;
		case 'l': l3_out = optarg; break;
		case 'h': return usage(NULL);
		case VPK_OPT_BAD: return VPK_EXIT_USAGE;
		default: return usage("unknown option or missing value");
		}
	}
	if (optind < argc)
		return usage("unexpected argument");
	if (vpk_acl_gen_profile_from_name(profile, &gc.profile, &gc.ipv6) < 0)
		return usage("--profile must be acl, fw, ipv6, a ClassBench family acl1..acl5, fw1..fw5, ipc1, ipc2, "
			     "or a family with -v6");
	if (gc.rules == 0 || rules_out == NULL)
		return usage("--rules and --rules-out are required");
	if ((ntrace > 0) != (trace_out != NULL))
		return usage("--trace N and --trace-out FILE go together");
	if (!vpk_opt_distinct("gen acl", "--rules-out", rules_out, "--trace-out", trace_out) ||
	    !vpk_opt_distinct("gen acl", "--rules-out", rules_out, "--l3fwd-out", l3_out) ||
	    !vpk_opt_distinct("gen acl", "--trace-out", trace_out, "--l3fwd-out", l3_out))
		return VPK_EXIT_USAGE;

	double t0 = (double)clock() / CLOCKS_PER_SEC;

	rc = vpk_acl_gen_rules(&gc, &r);
	if (rc < 0)
		return vpk_fail(VPK_EXIT_FAIL, "gen acl: cannot generate %u distinct %s rules (%s)", gc.rules,
				profile, strerror(-rc));
	rc = write_file(rules_out, wr_rules, r, gc.rules, gc.ipv6);
	if (rc == 0 && l3_out != NULL)
		rc = acl_l3fwd_write(l3_out, r, gc.rules, gc.ipv6, gc.seed);
	if (rc == 0 && ntrace > 0) {
		if (!vpk_opts.json && ntrace * gc.rules > 100000000ull)
			fprintf(stderr, "vpk gen acl: computing expected results for %llu packets...\n", (unsigned long long)ntrace);
		rc = vpk_acl_gen_trace(r, gc.rules, gc.ipv6, (uint32_t)ntrace, gc.seed, share, &p);
		if (rc == 0)
			rc = vpk_acl5_oracle(r, gc.rules, p, (uint32_t)ntrace, gc.ipv6);
		if (rc < 0)
			rc = vpk_fail(VPK_EXIT_FAIL, "gen acl: trace: %s", strerror(-rc));
		else
			rc = write_file(trace_out, wr_trace, p, (uint32_t)ntrace, gc.ipv6);
	}
	if (rc == 0 && vpk_opts.json) {
		struct json j;
		uint64_t matched = 0;

		for (unsigned long long i = 0; i < ntrace; i++)
			matched += p[i].expected != VPK_ACL5_NO_MATCH;
		json_init(&j, stdout);
		json_obj(&j, NULL);
		json_str(&j, "profile", profile);
		json_bool(&j, "ipv6", gc.ipv6);
		json_u64(&j, "rules", gc.rules);
		json_u64(&j, "seed", gc.seed);
		json_u64(&j, "packets", ntrace);
		json_u64(&j, "matched", matched);
		json_dbl(&j, "cpu_seconds", (double)clock() / CLOCKS_PER_SEC - t0);
		json_end(&j);
		json_done(&j);
	}
	free(r);
	free(p);
	return rc;
}
