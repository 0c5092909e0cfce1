/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk acl: build + classify benchmark and checker with dpdk-test-acl's
 * options and file formats (research/acl.md section 2).
 *
 *   vpk acl --rulesf=FILE [--tracef=FILE] [--rulenum=N] [--tracenum=N]
 *           [--tracestep=N] [--bldcat=N] [--runcat=N] [--maxsize=BYTES]
 *           [--iter=N] [--verbose=N] [--alg=NAME[,NAME]] [--ipv6[=4B|8B]] [--l3fwd]
 *           [--verify] [--json]
 *
 * One build (all variants share the runtime), then per variant --iter passes
 * over the trace in bursts of --tracestep; TSC cycles per packet are the
 * median over calls of cycles/call divided by the burst. Where scripts parse
 * dpdk-test-acl, it behaves as that tool: EAL arguments before "--" are
 * ignored, every variant prints dpdk-test-acl's summary line (mean cycles
 * over all calls) at any --verbose, and --verbose=2 or more prints each
 * packet's result per category, packets numbered from 1.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include <vpk/acl.h>
#include <vpk/acl_file.h>

#include "bench.h"
#include "common/clock.h"
#include "common/json.h"
#include "common/tool.h"
#include "acl/eal_args.h"

static int cmd_acl(int argc, char **argv);
VPK_CMD(acl, "acl", "ACL build + classify benchmark and checker (dpdk-test-acl options and files)", cmd_acl);

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct opts {
	const char *rulesf, *tracef, *algs;
	uint64_t rulenum, tracenum, tracestep, bldcat, runcat, maxsize, iter, verbose;
	bool ipv6, ipv6_8b, l3fwd, verify;   /* ipv6_8b: addresses as two 8-byte fields (--ipv6=8B) */
};

static const char usage_text[] =
	"usage: vpk acl --rulesf=FILE [--tracef=FILE] [--rulenum=N] "
	"[--tracenum=N] [--tracestep=1..4096] [--bldcat=1..16] [--runcat=1|4k<=16] "
	"[--maxsize=BYTES] [--iter=N] [--verbose=0..3] "
	"[--alg=scalar|sse|avx2|avx512x16|avx512x32[,...]] [--ipv6[=4B|8B]] [--l3fwd] [--verify] [--json]\n";

/* One line on stderr (the reason); the full usage only on --help. */
static int
usage(const char *why)
{
	if (why == NULL) {
		fputs(usage_text, stdout);
		return -1;      /* --help: done, exit 0 */
	}
	return vpk_fail(VPK_EXIT_USAGE, "acl: %s (vpk acl --help lists the options)", why);
}

static int
parse_opts(int argc, char **argv, struct opts *o)
{
	VPK_LONGOPTS(lo, "rulesf=r tracef=t rulenum=R tracenum=T tracestep=s bldcat=b runcat=c maxsize=m "
			 "iter=i verbose=v alg=a ipv6?6 l3fwd/l verify/V help/h");
	int c, li = 0;

	*o = (struct opts){ .rulenum = 65536, .tracenum = 65536, .tracestep = 256, .bldcat = 3,
			    .runcat = 1, .iter = 1, .verbose = 1 };
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", lo, &li)) != -1) {
		uint64_t *dst = NULL, max = UINT32_MAX;

		switch (c) {
		case 'r': o->rulesf = optarg; continue;
		case 't': o->tracef = optarg; continue;
		case 'a': o->algs = optarg; continue;
		case '6':
			if (optarg != NULL && strcmp(optarg, "4B") != 0 && strcmp(optarg, "8B") != 0)
				return usage("--ipv6 takes no value, 4B (addresses as 4-byte fields) or 8B (8-byte fields)");
			o->ipv6 = true;
			o->ipv6_8b = optarg != NULL && strcmp(optarg, "8B") == 0;
			continue;
		case 'l': o->l3fwd = true; continue;
		case 'V': o->verify = true; continue;
		case 'R': dst = &o->rulenum, max = VPK_ACL_MAX_PRIORITY - 1; break;
		case 'T': dst = &o->tracenum; break;
		case 's': dst = &o->tracestep, max = 4096; break;
		case 'b': dst = &o->bldcat, max = 16; break;
		case 'c': dst = &o->runcat, max = 16; break;
		case 'm': dst = &o->maxsize, max = UINT64_MAX; break;
		case 'i': dst = &o->iter; break;
		case 'v': dst = &o->verbose, max = 3; break;
		case 'h': return usage(NULL);
		default: return usage("unknown option or missing value");
		}
		char where[40];

		snprintf(where, sizeof(where), "acl: --%s", lo[li].name);
		if (!vpk_opt_u64(where, optarg, 0, max, dst))
			return VPK_EXIT_USAGE;
	}
	if (optind < argc)
		return usage("unexpected argument");
	if (o->rulesf == NULL)
		return usage("--rulesf is required");
	if (o->tracestep == 0 || o->bldcat == 0 || o->runcat == 0 || o->iter == 0)
		return usage("--tracestep, --bldcat, --runcat and --iter must be >= 1");
	if (o->runcat != 1 && o->runcat % 4 != 0)
		return usage("--runcat must be 1 or a multiple of 4 (as rte_acl_classify)");
	return 0;
}

struct result {
	const char *name;
	double cyc_pkt, pps;
	uint64_t total_cyc, pkts;       /* every call: dpdk-test-acl's summary */
	uint64_t mismatches;
	bool ran;
};

static struct result
run_alg(struct vpk_acl *acl, const struct opts *o, const uint8_t **ptrs, uint32_t np,
	const struct vpk_acl5_pkt *p5, double hz, bool progress)
{
	uint32_t step = (uint32_t)o->tracestep, cats = (uint32_t)o->runcat;
	uint32_t *res = malloc((size_t)np * cats * sizeof(*res) + 4);
	size_t calls = (size_t)o->iter * ((np + step - 1) / step), k = 0;
	uint64_t *cyc = malloc((calls + 1) * sizeof(*cyc));
	struct result r = { .name = vpk_acl_impl_name(acl), .ran = true };
	double t0 = mono_now_s(), last = t0;

	for (uint64_t it = 0; it < o->iter; it++) {
		for (uint32_t i = 0; i < np; i += step) {
			uint32_t n = np - i < step ? np - i : step;
			uint64_t c0 = __rdtsc();

			vpk_acl_classify_bulk(acl, ptrs + i, res + (size_t)i * cats, n, cats);
			c0 = __rdtsc() - c0;
			r.total_cyc += c0;
			r.pkts += n;
			cyc[k++] = c0 * 1024 / n;
		}
		if (progress && mono_now_s() - last > 1.0) {
			fprintf(stderr, "vpk acl: %s: iteration %llu of %llu\n", r.name,
				(unsigned long long)it + 1, (unsigned long long)o->iter);
			last = mono_now_s();
		}
	}
	qsort(cyc, k, sizeof(*cyc), cmp_u64);
	r.cyc_pkt = k ? (double)cyc[k / 2] / 1024.0 : 0;
	r.pps = r.cyc_pkt > 0 ? hz / r.cyc_pkt : 0;
	for (uint32_t i = 0; i < np; i++) {
		for (uint32_t c = 0; c < cats; c++) {
			uint32_t got = res[(size_t)i * cats + c];
			uint32_t idx = got == 0 ? VPK_ACL5_NO_MATCH : got - 1;

			if (o->verbose >= 2)      /* dpdk-test-acl's DUMP_PKT line */
				printf("ipv%d_5tuple: %u, category: %u, result: %u\n", o->ipv6 ? 6 : 4, i + 1, c, idx);
			if (o->verify && c < o->bldcat && (!p5[i].has_expected || p5[i].expected != idx))
				r.mismatches++;
		}
	}
	free(cyc);
	free(res);
	return r;
}

/* Rules (and the trace, with --tracef). 0 or an exit code. */
static int
load_inputs(const struct opts *o, struct vpk_acl5_rule **r5, uint32_t *nr, struct vpk_acl5_pkt **p5, uint32_t *np)
{
	int rc = vpk_acl5_load_rules(o->rulesf, o->ipv6, o->l3fwd ? VPK_ACL5_L3FWD : VPK_ACL5_CLASSBENCH,
				     (uint32_t)o->rulenum, r5, nr);

	if (rc < 0)
		return vpk_fail(VPK_EXIT_USAGE, "acl: %s", vpk_last_error());
	if (o->tracef != NULL) {
		rc = vpk_acl5_load_trace(o->tracef, o->ipv6, (uint32_t)o->tracenum, p5, np);
		if (rc < 0)
			return vpk_fail(VPK_EXIT_USAGE, "acl: %s", vpk_last_error());
	}
	if (o->verify && o->tracef == NULL)
		return vpk_fail(VPK_EXIT_USAGE, "acl: --verify needs --tracef with an expected column");
	return VPK_EXIT_OK;
}

/* Whole names in the --alg comma list; "sse" means sse42. */
static bool
alg_wanted(const char *algs, const char *name)
{
	char list[256];
	bool want = false;

	if (algs == NULL)
		return true;
	snprintf(list, sizeof(list), "%s", algs);
	for (char *sv, *t = strtok_r(list, ",", &sv); t; t = strtok_r(NULL, ",", &sv))
		want |= strcmp(t, name) == 0 || (strcmp(t, "sse") == 0 && strcmp(name, "sse42") == 0);
	return want;
}

/* Every wanted variant over the trace: results in res[], their count returned. */
static unsigned
run_algs(struct vpk_acl *acl, const struct opts *o, const uint8_t **ptrs, uint32_t np,
	 const struct vpk_acl5_pkt *p5, double hz, struct result *res)
{
	unsigned nres = 0;

	for (const struct vpk_impl *const *im = vpk_acl_impls(); *im != NULL && np > 0 && nres < 8; im++) {
		const char *name = (*im)->name;

		if (!alg_wanted(o->algs, name))
			continue;
		if (vpk_acl_select(acl, name) < 0) {
			if (o->algs != NULL)
				fprintf(stderr, "vpk acl: %s: %s\n", name, vpk_impl_why_not(*im) ? vpk_impl_why_not(*im) : "not usable");
			continue;
		}
		res[nres++] = run_alg(acl, o, ptrs, np, p5, hz, !vpk_opts.json);
	}
	return nres;
}

static void
report_json(const struct opts *o, uint32_t nr, uint32_t np, double tb, const struct vpk_acl_stats *st, double hz,
	    const struct result *res, unsigned nres)
{
	struct json j;

	json_init(&j, stdout);
	json_obj(&j, NULL);
	json_fields(&j, JS("rulesf", o->rulesf), JU("rules", nr),
			JS("layout", o->ipv6_8b ? "ipv6-8B" : o->ipv6 ? "ipv6-4B" : "ipv4"),
			JS("tracef", o->tracef ? o->tracef : ""), JU("packets", np),
			JU("tracestep", o->tracestep), JU("bldcat", o->bldcat), JU("runcat", o->runcat),
			JU("iter", o->iter), JD("tsc_hz", hz));
	json_record(&j, "build", JD("seconds", tb), JU("runtime_bytes", st->runtime_bytes),
				 JU("build_peak_bytes", st->build_peak_bytes), JU("trees", st->trees),
				 JU("leaves", st->leaves), JU("max_depth", st->max_depth),
				 JU("leaf_rules", st->leaf_rules));
	json_arr(&j, "algs");
	for (unsigned i = 0; i < nres; i++) {
		json_obj(&j, NULL);
		json_fields(&j, JS("alg", res[i].name), JD("cycles_per_pkt", res[i].cyc_pkt),
				JD("pkts_per_sec", res[i].pps));
		if (o->verify)
			json_u64(&j, "mismatches", res[i].mismatches);
		json_end(&j);
	}
	json_end(&j);
	json_end(&j);
	json_done(&j);
}

static void
report_text(const struct opts *o, uint32_t nr, uint32_t np, double tb, const struct vpk_acl_stats *st, double hz,
	    const struct result *res, unsigned nres)
{
	if (o->verbose >= 1) {
		printf("rules: %u from %s%s; trace: %u packets from %s\n", nr, o->rulesf,
		       o->ipv6_8b ? " (IPv6, 8-byte fields)" : o->ipv6 ? " (IPv6)" : "", np, o->tracef ? o->tracef : "-");
		printf("build: %.3f s, runtime %zu bytes, build peak %zu bytes, %u trees, %u leaves, depth %u\n",
		       tb, st->runtime_bytes, st->build_peak_bytes, st->trees, st->leaves, st->max_depth);
	}
	for (unsigned i = 0; i < nres; i++) {
		double sec = (double)res[i].total_cyc / hz;

		if (o->verbose >= 1) {
			printf("%-10s burst %llu: %.1f cycles/pkt, %.2f Mpps", res[i].name,
			       (unsigned long long)o->tracestep, res[i].cyc_pkt, res[i].pps / 1e6);
			if (o->verify)
				printf(", verify %s (%llu mismatches)", res[i].mismatches ? "FAILED" : "ok",
				       (unsigned long long)res[i].mismatches);
			putchar('\n');
		}
		/* dpdk-test-acl's summary line, printed at every --verbose as that tool does. */
		printf("search_ip5tuples  @lcore 0: %llu iterations, %llu pkts, %llu categories, %llu cycles "
		       "(%.2f sec), %.2f cycles/pkt, %.2f pkt/sec\n", (unsigned long long)o->iter,
		       (unsigned long long)res[i].pkts, (unsigned long long)o->runcat,
		       (unsigned long long)res[i].total_cyc, sec,
		       res[i].pkts ? (double)res[i].total_cyc / (double)res[i].pkts : 0.0,
		       sec > 0 ? (double)res[i].pkts / sec : 0.0);
	}
}

/* Build the context from the rules: 0 or an exit code; *tb the build seconds. */
static int
build_acl(const struct opts *o, const struct vpk_acl_field_def *defs, uint32_t nf, const uint8_t *rules,
	  uint32_t nr, struct vpk_acl **acl, double *tb)
{
	struct vpk_acl_conf conf = { .num_fields = nf, .defs = defs, .num_categories = (uint32_t)o->bldcat,
				     .max_size = (size_t)o->maxsize };
	int rc = vpk_acl_create(&conf, acl);
	double t0;

	if (rc == 0)
		rc = vpk_acl_add_rules(*acl, rules, nr);
	if (rc < 0)
		return vpk_fail(VPK_EXIT_USAGE, "acl: %s", *acl ? vpk_last_error() : strerror(-rc));
	if (nr >= 20000 && !vpk_opts.json)
		fprintf(stderr, "vpk acl: building %u rules...\n", nr);
	t0 = mono_now_s();
	rc = vpk_acl_build(*acl);
	*tb = mono_now_s() - t0;
	if (rc < 0)
		return vpk_fail(VPK_EXIT_FAIL, "acl: build failed (%s): %s", strerror(-rc), vpk_last_error());
	if (*tb > 1.0 && !vpk_opts.json)
		fprintf(stderr, "vpk acl: build took %.1f s\n", *tb);
	return VPK_EXIT_OK;
}

static int
cmd_acl(int argc, char **argv)
{
	struct opts o;
	struct vpk_acl5_rule *r5 = NULL;
	struct vpk_acl5_pkt *p5 = NULL;
	uint32_t nr = 0, np = 0, nf;
	struct vpk_acl_field_def defs[11];
	int rc = parse_opts(vpk_skip_eal_args("acl", argc, argv), argv, &o);

	if (rc != 0)
		return rc < 0 ? VPK_EXIT_OK : rc;
	rc = load_inputs(&o, &r5, &nr, &p5, &np);
	if (rc != VPK_EXIT_OK) {
		free(r5);
		free(p5);
		return rc;
	}
	nf = o.ipv6_8b ? vpk_acl5_layout_ipv6_8b(defs) : vpk_acl5_layout(o.ipv6, defs);
	uint8_t *rules = malloc((size_t)(nr ? nr : 1) * VPK_ACL_RULE_SIZE(nf));
	uint32_t bs = vpk_acl5_buf_size(o.ipv6);
	uint8_t *bufs = malloc((size_t)(np ? np : 1) * bs);
	const uint8_t **ptrs = malloc((size_t)(np ? np : 1) * sizeof(*ptrs));
	struct vpk_acl *acl = NULL;
	struct vpk_acl_stats st;
	double tb = 0, hz;
	struct result res[8];
	unsigned nres;
	int exit_code;

	if (o.ipv6_8b)
		vpk_acl5_to_rules_ipv6_8b(r5, nr, 0xffff, rules);
	else
		vpk_acl5_to_rules(r5, nr, o.ipv6, 0xffff, rules);
	for (uint32_t i = 0; i < np; i++) {
		vpk_acl5_pkt_bytes(&p5[i], o.ipv6, bufs + (size_t)i * bs);
		ptrs[i] = bufs + (size_t)i * bs;
	}
	exit_code = build_acl(&o, defs, nf, rules, nr, &acl, &tb);
	if (exit_code != VPK_EXIT_OK)
		goto out;
	vpk_acl_get_stats(acl, &st);
	hz = bench_tsc_hz();
	nres = run_algs(acl, &o, ptrs, np, p5, hz, res);
	if (o.algs != NULL && nres == 0 && np > 0) {
		exit_code = vpk_fail(VPK_EXIT_USAGE, "acl: no usable variant in --alg=%s", o.algs);
		goto out;
	}
	if (vpk_opts.json)
		report_json(&o, nr, np, tb, &st, hz, res, nres);
	else
		report_text(&o, nr, np, tb, &st, hz, res, nres);
	for (unsigned i = 0; o.verify && i < nres; i++)
		if (res[i].mismatches) {
			fprintf(stderr, "vpk acl: %s: %llu results differ from the trace's expected column\n",
				res[i].name, (unsigned long long)res[i].mismatches);
			exit_code = VPK_EXIT_FAIL;
		}
out:
	vpk_acl_destroy(acl);
	free(rules);
	free(bufs);
	free(ptrs);
	free(r5);
	free(p5);
	return exit_code;
}
