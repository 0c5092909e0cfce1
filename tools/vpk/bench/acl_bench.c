/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk bench acl: vpk ACL variants vs every rte_acl algorithm, same rules,
 * same trace, same process. Rules and trace come from files (dpdk-test-acl
 * format) or from the generator. For each library: build time, runtime
 * bytes, build peak memory; for each variant and burst size: TSC cycles per
 * packet (median over all classify calls of cycles/call / burst), Mpps, and
 * whether every result equals the trace's expected column.
 *
 *   vpk bench acl --profile acl --rules 10000 --trace 1048576 --bursts 32,256
 *                 [--ipv6] [--seed 1] [--iter 3] [--rulesf F --tracef F]
 *                 [--vs-dpdk (the default) | --no-dpdk] [--dpdk-no-huge] [--cap 512] [--json]
 *
 * rte_acl runs on hugepages when a hugetlbfs is mounted with >= 1 GiB free
 * (dpdk-hugepages.py -p 2M --setup 4G), as DPDK is deployed; else, or with
 * --dpdk-no-huge, with --no-huge (4 KiB pages, slower: docs/benchmarks.md).
 *                 [--updates N [--update-kinds add,delete,change]]  (acl_bench_upd.c)
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include <vpk/acl.h>
#include <vpk/acl_file.h>
#include "acl/acl_gen.h"

#include "acl/acl_oracle.h"
#include "common/clock.h"
#include "common/libvpk_internal.h"
#include "bench/acl_bench.h"
#include "bench.h"
#include "common/tool.h"

static int cmd_bench_acl(int argc, char **argv);
VPK_CMD(bench_acl, "bench acl", "ACL build + classify: every vpk variant and rte_acl algorithm, same rules and trace",
	cmd_bench_acl);

/* An option value through the one number parser; the reason in why[160]. */
static int
num(char *why, const char *s, uint64_t lo, uint64_t hi, uint64_t *v)
{
	return vpk_num_u64(s, lo, hi, v, why, 160) == 0;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct timing
bench_measure(cls_fn fn, void *arg, const uint8_t **ptrs, uint32_t np, const uint32_t *want,
	unsigned burst, unsigned iter)
{
	uint32_t *res = malloc((size_t)np * sizeof(*res));
	size_t calls = (size_t)iter * ((np + burst - 1) / burst), k = 0;
	uint64_t *cyc = malloc(calls * sizeof(*cyc)), total = 0;
	struct timing t = { 0 };

	for (uint32_t i = 0; i < np; i += burst)            /* warm-up + verification pass */
		fn(arg, ptrs + i, res + i, np - i < burst ? np - i : burst);
	for (uint32_t i = 0; i < np; i++)
		if (res[i] != want[i])
			t.mismatches++;
	t.ok = t.mismatches == 0;
	for (unsigned it = 0; it < iter; it++)
		for (uint32_t i = 0; i < np; i += burst) {
			uint32_t n = np - i < burst ? np - i : burst;
			uint64_t t0 = __rdtsc();

			fn(arg, ptrs + i, res + i, n);
			cyc[k] = (__rdtsc() - t0) * 1024 / n;       /* fixed point per packet */
			total += __rdtsc() - t0;
			k++;
		}
	qsort(cyc, k, sizeof(*cyc), cmp_u64);
	t.cyc_pkt = (double)cyc[k / 2] / 1024.0;
	t.mean_cyc_pkt = (double)total / ((double)iter * np);
	free(cyc);
	free(res);
	return t;
}

void
bench_vpk_cls(void *arg, const uint8_t **d, uint32_t *r, uint32_t n)
{
	vpk_acl_classify_bulk(((struct vctx *)arg)->acl, d, r, n, 1);
}

void
bench_dpdk_cls(void *arg, const uint8_t **d, uint32_t *r, uint32_t n)
{
	dpdk_classify(((struct dctx *)arg)->alg, d, r, n, 1);
}

/* The benchmark's options (see the top of this file); 0, or the exit code 2 after a message. */
static int
parse_opts(int argc, char **argv, struct abench_opts *a)
{
	VPK_LONGOPTS(lo, "rulesf=r tracef=t profile=p rules=n trace=T seed=s iter=i bursts=b ipv6/6 json/j "
			 "no-dpdk/D cap=c only=o updates=u update-kinds=k dpdk-no-huge/H vs-dpdk/V "
			 "matrix=M families=F sizes=S dpdk-max-rules=R");
	int o, li = 0;

	optind = 1;

	while ((o = getopt_long(argc, argv, "", lo, &li)) != -1) {
		uint64_t v = 0;
		int ok = 1;
		char bad[160] = "";

		switch (o) {
		case 'r': a->rulesf = optarg; break;
		case 't': a->tracef = optarg; break;
		case 'p': a->profile = optarg; break;
		case 'n': ok = num(bad, optarg, 1, VPK_ACL_MAX_PRIORITY - 1, &v), a->nrules = (uint32_t)v; break;
		case 'T': ok = num(bad, optarg, 1, UINT32_MAX, &v), a->npkts = (uint32_t)v; break;
		case 's': ok = num(bad, optarg, 0, UINT64_MAX, &a->seed); break;
		case 'i': ok = num(bad, optarg, 1, 1000000, &v), a->iter = (uint32_t)v; break;
		case '6': a->ipv6 = true; break;
		case 'j': a->json = true; break;
		case 'D': a->no_dpdk = true; break;
		case 'V': a->no_dpdk = false; break;
		case 'H': a->dpdk_no_huge = true; break;
		case 'c':
			ok = num(bad, optarg, 64, 512, &v) && (v == 64 || v == 128 || v == 256 || v == 512);
			a->cap = (unsigned)v;
			break;
		case 'o': a->only = optarg; break;
		case 'M':
			ok = strcmp(optarg, "quick") == 0 || strcmp(optarg, "full") == 0;
			a->matrix = optarg;
			break;
		case 'F': a->families = optarg; break;
		case 'S': {
			unsigned sz[8];
			int k = vpk_num_list(optarg, 1, 1u << 24, sz, 8, bad, sizeof(bad));

			ok = k > 0;
			for (int i = 0; i < k; i++)
				a->sizes[i] = sz[i];
			a->nsizes = ok ? (uint32_t)k : a->nsizes;
			break;
		}
		case 'R': ok = num(bad, optarg, 0, UINT32_MAX, &v), a->dpdk_max_rules = (uint32_t)v; break;
		case 'u': ok = num(bad, optarg, 0, 100000, &v), a->updates = (uint32_t)v; break;
		case 'k': {
			char list[64], *sv;

			snprintf(list, sizeof(list), "%s", optarg);
			a->kinds = 0;
			for (char *t = strtok_r(list, ",", &sv); t != NULL && ok; t = strtok_r(NULL, ",", &sv)) {
				unsigned k = strcmp(t, "add") == 0 ? 1 : strcmp(t, "delete") == 0 ? 2
					   : strcmp(t, "change") == 0 ? 4 : 0;

				ok = k != 0;
				a->kinds |= k;
			}
			ok = ok && a->kinds != 0;
			break;
		}
		case 'b': {
			unsigned b[8];
			int k = vpk_num_list(optarg, 1, 1000000, b, 8, bad, sizeof(bad));

			ok = k > 0;
			for (int i = 0; i < k; i++)
				a->bursts[i] = b[i];
			a->nb = ok ? (uint32_t)k : a->nb;
			break;
		}
		default:
			fprintf(stderr, "vpk: bench acl: unknown option or missing value (usage: see the header of "
				"tools/vpk/bench/acl_bench.c)\n");
			return 2;
		}
		if (!ok) {
			fprintf(stderr, "vpk: bench acl: --%s: bad value: %s\n", lo[li].name,
				bad[0] ? bad : "not one of the accepted values");
			return 2;
		}
	}
	if (a->rulesf == NULL) {
		enum vpk_acl_gen_profile gp;

		if (vpk_acl_gen_profile_from_name(a->profile, &gp, &a->ipv6) < 0) {
			fprintf(stderr, "vpk: bench acl: --profile: bad value: %s is not acl, fw, ipv6, acl1..acl5, "
				"fw1..fw5, ipc1, ipc2 or a family with -v6\n", a->profile);
			return 2;
		}
	} else if (strcmp(a->profile, "ipv6") == 0) {
		a->ipv6 = true;
	}
	return 0;
}

/* The --updates figures: lines of text, or the "update" member of the JSON object. */
static void
print_updates(bool json, const struct upd_result *ur, uint32_t updates, unsigned kinds)
{
	static const char *const kname[3] = { "add", "delete", "change" };

	if (!json) {
		printf("update: %u results after the updates equal the oracle; runtime %u rules in %u trees\n",
		       ur->checked, ur->rules, ur->trees);
		for (int k = 0; k < 3; k++)
			if (kinds >> k & 1)
				printf("update: %u single-rule %-6s + build: median %.3f ms (max %.2f) alone; "
				       "while classifying: median %.3f ms (max %.2f); writer CPU median %.3f ms (max %.2f); %u full builds\n",
				       updates, kname[k], ur->kind[k].med_alone, ur->kind[k].max_alone,
				       ur->kind[k].med_busy, ur->kind[k].max_busy, ur->kind[k].cpu_med,
				       ur->kind[k].cpu_max, ur->kind[k].fallbacks);
		printf("update: %lu classify calls meanwhile\n", ur->calls);
		printf("update: classify after the updates %.1f cycles/packet (burst 256), after a full rebuild of the same rules %.1f\n",
		       ur->cyc_incremental, ur->cyc_full);
		return;
	}
	/* add's figures also at the top of "update", where a reader of one kind finds them */
	printf(",\n \"update\":{\"count\":%u,\"median_ms_alone\":%.3f,\"median_ms_while_classifying\":%.3f,\"max_ms\":%.3f,\"classify_calls\":%lu,\"cycles_per_pkt_after\":%.1f,\"cycles_per_pkt_full_rebuild\":%.1f",
	       updates, ur->kind[0].med_alone, ur->kind[0].med_busy, ur->kind[0].max_busy, ur->calls,
	       ur->cyc_incremental, ur->cyc_full);
	for (int k = 0; k < 3; k++)
		if (kinds >> k & 1)
			printf(",\n  \"%s\":{\"median_ms_alone\":%.3f,\"max_ms_alone\":%.3f,\"median_ms_while_classifying\":%.3f,\"max_ms_while_classifying\":%.3f,\"cpu_ms_median\":%.3f,\"cpu_ms_max\":%.3f,\"full_builds\":%u}",
			       kname[k], ur->kind[k].med_alone, ur->kind[k].max_alone, ur->kind[k].med_busy,
			       ur->kind[k].max_busy, ur->kind[k].cpu_med, ur->kind[k].cpu_max, ur->kind[k].fallbacks);
	printf("}");
}

/* The rules and trace of @p o (files or generated), with the oracle's results where the trace has none;
 * 0, or the exit code 2 after a message. */
static int
load_set(const struct abench_opts *o, struct vpk_acl5_rule **r5p, uint32_t *nrp, struct vpk_acl5_pkt **p5p,
	 uint32_t *npp)
{
	const char *rulesf = o->rulesf, *tracef = o->tracef, *profile = o->profile;
	uint32_t nrules = o->nrules, npkts = o->npkts;
	uint64_t seed = o->seed;
	bool ipv6 = o->ipv6, json = o->json;
	struct vpk_acl5_rule *r5;
	struct vpk_acl5_pkt *p5;
	uint32_t nr, np;
	int rc;

	if (rulesf != NULL) {
		rc = vpk_acl5_load_rules(rulesf, ipv6, VPK_ACL5_CLASSBENCH, 0, &r5, &nr);
		if (rc < 0) {
			fprintf(stderr, "vpk: bench acl: %s\n", vpk_last_error());
			return 2;
		}
	} else {
		struct vpk_acl_gen_conf gc = { .rules = nrules, .seed = seed, .ipv6 = ipv6 };

		if (vpk_acl_gen_profile_from_name(profile, &gc.profile, &gc.ipv6) < 0 ||
		    vpk_acl_gen_rules(&gc, &r5) < 0) {
			fprintf(stderr, "vpk: bench acl: cannot generate profile %s\n", profile);
			return 2;
		}
		nr = nrules;
	}
	if (tracef != NULL) {
		rc = vpk_acl5_load_trace(tracef, ipv6, npkts, &p5, &np);
		if (rc < 0) {
			fprintf(stderr, "vpk: bench acl: %s\n", vpk_last_error());
			return 2;
		}
	} else {
		vpk_acl_gen_trace(r5, nr, ipv6, npkts, seed + 100, 0.05, &p5);
		np = npkts;
	}
	if (np == 0 || !p5[0].has_expected) {
		double t0 = mono_now_s();

		vpk_acl5_oracle(r5, nr, p5, np, ipv6);
		if (!json)
			fprintf(stderr, "oracle: %.1f s\n", mono_now_s() - t0);
	}
	*r5p = r5;
	*nrp = nr;
	*p5p = p5;
	*npp = np;
	return 0;
}

/* Every vpk variant, and every usable rte_acl algorithm when @p have_dpdk, at each burst size of @p o:
 * a line or JSON object each; returns how many vpk runs gave a wrong result. */
static int
classify_all(const struct abench_opts *o, struct vctx *vc, bool have_dpdk, const uint8_t **ptrs, uint32_t np,
	     const uint32_t *want)
{
	const char *only = o->only;
	const uint32_t *bursts = o->bursts;
	uint32_t iter = o->iter, nb = o->nb;
	bool json = o->json, first = true;
	int fails = 0;

	for (unsigned b = 0; b < nb; b++) {
		for (const struct vpk_impl *const *im = vpk_acl_impls(); *im != NULL; im++) {
			if (only != NULL && strstr(only, (*im)->name) == NULL)
				continue;
			if (vpk_acl_select(vc->acl, (*im)->name) < 0)
				continue;
			struct timing t = bench_measure(bench_vpk_cls, vc, ptrs, np, want, bursts[b], iter);

			fails += !t.ok;
			if (json)
				printf("%s  {\"lib\":\"vpk\",\"variant\":\"%s\",\"burst\":%u,\"cycles_per_pkt\":%.1f,\"mean_cycles_per_pkt\":%.1f,\"mpps\":%.2f,\"verified\":%s,\"mismatches\":%u}",
				       first ? "" : ",\n", (*im)->name, bursts[b], t.cyc_pkt, t.mean_cyc_pkt,
				       2600.0 / t.cyc_pkt, t.ok ? "true" : "false", t.mismatches);
			else
				printf("%-6s %-10s %6u %10.1f %10.1f %8.2f %s\n", "vpk", (*im)->name, bursts[b],
				       t.cyc_pkt, t.mean_cyc_pkt, 2600.0 / t.cyc_pkt, t.ok ? "ok" : "MISMATCH");
			fflush(stdout);
			first = false;
		}
		for (unsigned a = 0; have_dpdk && a < dpdk_alg_count(); a++) {
			struct dctx dc = { a };

			if (!dpdk_alg_usable(a) || (only != NULL && strstr(only, "dpdk") == NULL))
				continue;
			struct timing t = bench_measure(bench_dpdk_cls, &dc, ptrs, np, want, bursts[b], iter);

			if (json)
				printf("%s  {\"lib\":\"dpdk\",\"variant\":\"%s\",\"burst\":%u,\"cycles_per_pkt\":%.1f,\"mean_cycles_per_pkt\":%.1f,\"mpps\":%.2f,\"verified\":%s,\"mismatches\":%u}",
				       first ? "" : ",\n", dpdk_alg_name(a), bursts[b], t.cyc_pkt,
				       t.mean_cyc_pkt, 2600.0 / t.cyc_pkt, t.ok ? "true" : "false", t.mismatches);
			else
				printf("%-6s %-10s %6u %10.1f %10.1f %8.2f %s\n", "dpdk", dpdk_alg_name(a),
				       bursts[b], t.cyc_pkt, t.mean_cyc_pkt, 2600.0 / t.cyc_pkt,
				       t.ok ? "ok" : "MISMATCH");
			fflush(stdout);
			first = false;
		}
	}
	return fails;
}

static int
cmd_bench_acl(int argc, char **argv)
{
	struct abench_opts ao = { .profile = "acl", .nrules = 10000, .npkts = 1 << 20, .iter = 3,
				 .bursts = { 32, 256 }, .nb = 2, .seed = 1, .json = vpk_opts.json, .kinds = 7,
				 .cap = 512 };
	bool dpdk_huge = false;
	char why[512];

	if (parse_opts(argc, argv, &ao) != 0)
		return 2;
	if (ao.matrix != NULL)
		return bench_matrix(&ao);
	const char *rulesf = ao.rulesf, *profile = ao.profile;
	uint64_t seed = ao.seed;
	bool ipv6 = ao.ipv6, json = ao.json, no_dpdk = ao.no_dpdk, dpdk_no_huge = ao.dpdk_no_huge;
	uint32_t updates = ao.updates;
	unsigned kinds = ao.kinds, cap = ao.cap;
	vpk_set_max_simd_bitwidth(cap);

	struct vpk_acl5_rule *r5;
	struct vpk_acl5_pkt *p5;
	uint32_t nr, np;
	int rc;

	if (load_set(&ao, &r5, &nr, &p5, &np) != 0)
		return 2;

	struct bench_data d = { .ipv6 = ipv6, .nrules = nr, .ncat_build = 1 };
	uint32_t bs = vpk_acl5_buf_size(ipv6), *want = malloc((size_t)np * 4);
	uint8_t *bufs = malloc((size_t)np * bs), *rules;
	const uint8_t **ptrs = malloc((size_t)np * sizeof(*ptrs));

	d.nf = vpk_acl5_layout(ipv6, d.defs);
	rules = malloc((size_t)nr * VPK_ACL_RULE_SIZE(d.nf));
	vpk_acl5_to_rules(r5, nr, ipv6, 0xffff, rules);
	d.rules = rules;
	for (uint32_t i = 0; i < np; i++) {
		vpk_acl5_pkt_bytes(&p5[i], ipv6, bufs + (size_t)i * bs);
		ptrs[i] = bufs + (size_t)i * bs;
		want[i] = p5[i].expected == VPK_ACL5_NO_MATCH ? 0 : p5[i].expected + 1;
	}

	/* ---- vpk build ---- */
	struct vpk_acl_conf conf = { .num_fields = d.nf, .defs = d.defs, .num_categories = 1 };
	struct vctx vc;
	struct vpk_acl_stats st;
	double vb0, vbuild;
	size_t vr0, vpeak;

	if (vpk_acl_create(&conf, &vc.acl) < 0 || vpk_acl_add_rules(vc.acl, rules, nr) < 0) {
		fprintf(stderr, "vpk: bench acl: vpk: %s\n", vpk_last_error());
		return 1;
	}
	vr0 = bench_rss();
	bench_hwm_reset();
	vb0 = mono_now_s();
	rc = vpk_acl_build(vc.acl);
	vbuild = mono_now_s() - vb0;
	vpeak = bench_hwm() - vr0;
	if (rc < 0) {
		fprintf(stderr, "vpk: bench acl: vpk build: %s\n", vpk_last_error());
		return 1;
	}
	vpk_acl_get_stats(vc.acl, &st);

	/* ---- dpdk build ---- */
	double dbuild = 0;
	size_t drt = 0, dpeak = 0;
	bool have_dpdk = false;

	if (!no_dpdk) {
		dpdk_huge = !dpdk_no_huge && bench_hugepages_free() >= ((size_t)1 << 30);
		if (!dpdk_huge)
			fprintf(stderr, "dpdk: EAL with --no-huge (%s): rte_acl's tables on 4 KiB pages, vpk's on "
				"transparent huge pages; reserve hugepages for a like-for-like run "
				"(dpdk-hugepages.py -p 2M --setup 4G)\n",
				dpdk_no_huge ? "--dpdk-no-huge" : "less than 1 GiB of free hugepages mounted");
		if (dpdk_init(cap >= 512, dpdk_huge, why, sizeof(why)) < 0)
			fprintf(stderr, "dpdk: %s\n", why);
		else if (dpdk_build(&d, &dbuild, &drt, &dpeak, why, sizeof(why)) < 0)
			fprintf(stderr, "dpdk: %s\n", why);
		else
			have_dpdk = true;
	}

	if (json) {
		printf("{\"set\":{\"profile\":\"%s\",\"ipv6\":%s,\"rules\":%u,\"packets\":%u,\"seed\":%llu,\"rulesf\":\"%s\"},\n",
		       profile, ipv6 ? "true" : "false", nr, np, (unsigned long long)seed, rulesf ? rulesf : "");
		printf(" \"vpk_build\":{\"seconds\":%.4f,\"runtime_bytes\":%zu,\"build_heap_peak_bytes\":%zu,\"build_rss_peak_bytes\":%zu,\"trees\":%u,\"nodes\":%u,\"leaves\":%u,\"max_depth\":%u,\"leaf_rules\":%llu},\n",
		       vbuild, st.runtime_bytes, st.build_peak_bytes, vpeak, st.trees, st.nodes, st.leaves,
		       st.max_depth, (unsigned long long)st.leaf_rules);
		if (have_dpdk)
			printf(" \"dpdk_build\":{\"seconds\":%.4f,\"runtime_bytes\":%zu,\"build_rss_peak_bytes\":%zu,\"hugepages\":%s},\n",
			       dbuild, drt, dpeak, dpdk_huge ? "true" : "false");
		printf(" \"classify\":[\n");
	} else {
		printf("set: %s%s %u rules, %u packets (seed %llu)\n", profile, ipv6 ? " ipv6" : "", nr, np,
		       (unsigned long long)seed);
		printf("vpk  build %.3f s  runtime %.1f MB  build peak %.1f MB (heap) %.1f MB (rss)  trees %u leaves %u depth %u copies %.2f\n",
		       vbuild, st.runtime_bytes / 1e6, st.build_peak_bytes / 1e6, vpeak / 1e6, st.trees,
		       st.leaves, st.max_depth, (double)st.leaf_rules / (nr ? nr : 1));
		if (have_dpdk)
			printf("dpdk build %.3f s  runtime %.1f MB  build peak %.1f MB (rss)  EAL %s\n", dbuild,
			       drt / 1e6, dpeak / 1e6, dpdk_huge ? "on hugepages" : "--no-huge (4 KiB pages)");
		printf("%-6s %-10s %6s %10s %10s %8s %s\n", "lib", "variant", "burst", "cyc/pkt", "mean", "Mpps",
		       "verify");
	}
	int fails = classify_all(&ao, &vc, have_dpdk, ptrs, np, want);

	/* Single-rule updates, alone and while another thread classifies. */
	struct upd_result ur;

	if (updates > 0 && bench_updates(vc.acl, &d, r5, p5, ptrs, np, profile, seed, updates, kinds, &ur) < 0)
		fails++;
	if (json)
		printf("\n ]");
	if (updates > 0)
		print_updates(json, &ur, updates, kinds);
	if (json)
		printf("}\n");
	dpdk_free();
	vpk_acl_destroy(vc.acl);
	free(r5), free(p5), free(want), free(bufs), free(ptrs), free(rules);
	return fails ? 1 : 0;
}
