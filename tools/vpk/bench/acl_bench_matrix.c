/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk bench acl --matrix quick|full: vpk against rte_acl over the ClassBench
 * families (tools/vpk/acl/acl_family.c), one process, one EAL.
 *
 *   quick: the 12 families at 1k rules + acl1-v6, fw1-v6, ipc1-v6 at 1k; 16k-packet traces
 *   full:  the 12 families at 1k, 10k, 100k + acl1-v6, fw1-v6, ipc1-v6 at the same sizes;
 *          256k-packet traces
 *   [--families acl1,fw1-v6,..] [--sizes 1000,10000] [--bursts 32,256] [--iter 5]
 *   [--trace N] [--dpdk-max-rules N] [--no-dpdk] [--dpdk-no-huge] [--cap 512] [--json]
 *
 * Per set: ClassBench-style trace (headers from rule corners, 5 % random),
 * expected results from the oracle; vpk built (best variant and scalar) and
 * rte_acl built (its best algorithm), both verified on every packet. The
 * three are timed in turn, --iter rounds, each round a median of cycles per
 * call / burst over the trace; the figure is the median of the rounds, so
 * load changes hit all three alike. rte_acl is skipped on sets above
 * --dpdk-max-rules (its build of a 100k firewall set takes tens of seconds
 * and gigabytes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vpk/acl.h>
#include <vpk/acl_file.h>
#include "acl/acl_family.h"
#include "acl/acl_gen.h"
#include "acl/acl_oracle.h"

#include "bench.h"
#include "bench/acl_bench.h"
#include "common/clock.h"

#define MAXROUNDS 15

struct set_result {
	double vpk_build_s, dpdk_build_s;
	size_t vpk_peak, dpdk_peak, vpk_rt, dpdk_rt;
	struct vpk_acl_stats st;
	bool have_dpdk, ok;
	const char *vpk_best, *dpdk_best;
	double best[8], scalar[8], dpdk[8];     /* per burst */
};

static double
median(double *v, unsigned n)
{
	bench_sort(v, n);
	return n ? v[n / 2] : 0;
}

/* Time vpk best, vpk scalar and rte_acl in turn, per burst. */
static void
time_set(const struct abench_opts *a, struct vpk_acl *acl, unsigned dalg, const uint8_t **ptrs, uint32_t np,
	 const uint32_t *want, struct set_result *sr)
{
	unsigned rounds = a->iter < MAXROUNDS ? a->iter : MAXROUNDS;

	for (unsigned b = 0; b < a->nb; b++) {
		double v[3][MAXROUNDS];

		for (unsigned r = 0; r < rounds; r++) {
			struct vctx vc = { acl };
			struct dctx dc = { dalg };
			struct timing t;

			vpk_acl_select(acl, "auto");
			t = bench_measure(bench_vpk_cls, &vc, ptrs, np, want, a->bursts[b], 1);
			v[0][r] = t.cyc_pkt, sr->ok &= t.ok;
			vpk_acl_select(acl, "scalar");
			t = bench_measure(bench_vpk_cls, &vc, ptrs, np, want, a->bursts[b], 1);
			v[1][r] = t.cyc_pkt, sr->ok &= t.ok;
			v[2][r] = 0;
			if (sr->have_dpdk) {
				t = bench_measure(bench_dpdk_cls, &dc, ptrs, np, want, a->bursts[b], 1);
				v[2][r] = t.cyc_pkt, sr->ok &= t.ok;
			}
		}
		sr->best[b] = median(v[0], rounds);
		sr->scalar[b] = median(v[1], rounds);
		sr->dpdk[b] = median(v[2], rounds);
	}
	vpk_acl_select(acl, "auto");
}

/* One set: generate, oracle, build both, time. 0, or -1 when a build failed. */
static int
run_set(const struct abench_opts *a, const char *name, uint32_t n, uint32_t np, struct set_result *sr)
{
	struct vpk_acl_gen_conf gc = { .rules = n, .seed = a->seed };
	struct vpk_acl5_rule *r5 = NULL;
	struct vpk_acl5_pkt *p5 = NULL;
	struct bench_data d = { .nrules = n, .ncat_build = 1 };
	struct vpk_acl *acl = NULL;
	uint8_t *rules = NULL, *bufs = NULL;
	const uint8_t **ptrs = NULL;
	uint32_t *want = NULL, bs;
	unsigned dalg = 0;
	char why[256];
	int rc = -1;
	double t0;

	memset(sr, 0, sizeof(*sr));
	sr->ok = true;
	if (vpk_acl_gen_profile_from_name(name, &gc.profile, &gc.ipv6) < 0 || vpk_acl_gen_rules(&gc, &r5) < 0 ||
	    vpk_acl_gen_trace(r5, n, gc.ipv6, np, a->seed + 100, 0.05, &p5) < 0 ||
	    vpk_acl5_oracle(r5, n, p5, np, gc.ipv6) < 0) {
		fprintf(stderr, "vpk: bench acl: %s %u: cannot generate the set\n", name, n);
		goto out;
	}
	d.ipv6 = gc.ipv6;
	d.nf = vpk_acl5_layout(d.ipv6, d.defs);
	bs = vpk_acl5_buf_size(d.ipv6);
	rules = malloc((size_t)n * VPK_ACL_RULE_SIZE(d.nf));
	bufs = malloc((size_t)np * bs);
	ptrs = malloc((size_t)np * sizeof(*ptrs));
	want = malloc((size_t)np * 4);
	if (rules == NULL || bufs == NULL || ptrs == NULL || want == NULL)
		goto out;
	vpk_acl5_to_rules(r5, n, d.ipv6, 1, rules);
	d.rules = rules;
	for (uint32_t i = 0; i < np; i++) {
		vpk_acl5_pkt_bytes(&p5[i], d.ipv6, bufs + (size_t)i * bs);
		ptrs[i] = bufs + (size_t)i * bs;
		want[i] = p5[i].expected == VPK_ACL5_NO_MATCH ? 0 : p5[i].expected + 1;
	}
	struct vpk_acl_conf conf = { .num_fields = d.nf, .defs = d.defs, .num_categories = 1 };

	if (vpk_acl_create(&conf, &acl) < 0 || vpk_acl_add_rules(acl, rules, n) < 0)
		goto out;
	t0 = mono_now_s();
	if (vpk_acl_build(acl) < 0) {
		fprintf(stderr, "vpk: bench acl: %s %u: vpk build: %s\n", name, n, vpk_last_error());
		goto out;
	}
	sr->vpk_build_s = mono_now_s() - t0;
	vpk_acl_get_stats(acl, &sr->st);
	sr->vpk_peak = sr->st.build_peak_bytes, sr->vpk_rt = sr->st.runtime_bytes;
	vpk_acl_select(acl, "auto");
	sr->vpk_best = vpk_acl_impl_name(acl);
	if (!a->no_dpdk && n <= a->dpdk_max_rules) {
		if (dpdk_build(&d, &sr->dpdk_build_s, &sr->dpdk_rt, &sr->dpdk_peak, why, sizeof(why)) < 0) {
			fprintf(stderr, "dpdk: %s %u: %s\n", name, n, why);
		} else {
			for (unsigned k = 0; k < dpdk_alg_count(); k++)
				if (dpdk_alg_usable(k))
					dalg = k, sr->have_dpdk = true;
			sr->dpdk_best = dpdk_alg_name(dalg);
		}
	}
	time_set(a, acl, dalg, ptrs, np, want, sr);
	dpdk_ctx_free();
	rc = 0;
out:
	vpk_acl_destroy(acl);
	free(r5), free(p5), free(rules), free(bufs), free(ptrs), free(want);
	return rc;
}

static void
print_set(const struct abench_opts *a, const char *name, uint32_t n, const struct set_result *s, bool first)
{
	if (!a->json) {
		for (unsigned b = 0; b < a->nb; b++) {
			printf("%-8s %7u %5u %9.1f %9.1f %6.2f %9.1f %6.2f  %7.3f %8.3f %6.1f %7.1f %s\n", name, n,
			       a->bursts[b], s->best[b], s->dpdk[b], s->have_dpdk ? s->best[b] / s->dpdk[b] : 0,
			       s->scalar[b], s->scalar[b] / s->best[b], s->vpk_build_s, s->dpdk_build_s,
			       s->vpk_peak / 1e6, s->dpdk_peak / 1e6, s->ok ? "ok" : "MISMATCH");
		}
		fflush(stdout);
		return;
	}
	printf("%s  {\"set\":\"%s\",\"rules\":%u,\"verified\":%s,\"vpk_variant\":\"%s\",\"dpdk_variant\":\"%s\","
	       "\"vpk_build\":{\"seconds\":%.4f,\"runtime_bytes\":%zu,\"build_heap_peak_bytes\":%zu,\"trees\":%u,"
	       "\"leaves\":%u,\"max_depth\":%u,\"leaf_rules\":%llu},",
	       first ? "" : ",\n", name, n, s->ok ? "true" : "false", s->vpk_best, s->have_dpdk ? s->dpdk_best : "",
	       s->vpk_build_s, s->vpk_rt, s->vpk_peak, s->st.trees, s->st.leaves, s->st.max_depth,
	       (unsigned long long)s->st.leaf_rules);
	if (s->have_dpdk)
		printf("\"dpdk_build\":{\"seconds\":%.4f,\"runtime_bytes\":%zu,\"build_rss_peak_bytes\":%zu},",
		       s->dpdk_build_s, s->dpdk_rt, s->dpdk_peak);
	printf("\"bursts\":[");
	for (unsigned b = 0; b < a->nb; b++) {
		printf("%s{\"burst\":%u,\"vpk_cycles_per_pkt\":%.1f,\"vpk_scalar_cycles_per_pkt\":%.1f", b ? "," : "",
		       a->bursts[b], s->best[b], s->scalar[b]);
		if (s->have_dpdk)
			printf(",\"dpdk_cycles_per_pkt\":%.1f,\"vpk_over_dpdk\":%.3f", s->dpdk[b], s->best[b] / s->dpdk[b]);
		printf("}");
	}
	printf("]}");
	fflush(stdout);
}

int
bench_matrix(const struct abench_opts *ao)
{
	static const char *const v6[] = { "acl1-v6", "fw1-v6", "ipc1-v6" };
	struct abench_opts a = *ao;
	bool quick = strcmp(a.matrix, "quick") == 0, first = true, huge = false;
	char names[32][16], list[256], why[256], *sv;
	unsigned nn = 0, fails = 0;
	uint32_t np = a.npkts < (quick ? 16384u : 262144u) ? a.npkts : quick ? 16384u : 262144u;

	if (a.families != NULL) {
		snprintf(list, sizeof(list), "%s", a.families);
		for (char *t = strtok_r(list, ",", &sv); t != NULL && nn < 32; t = strtok_r(NULL, ",", &sv)) {
			enum vpk_acl_gen_profile gp;
			bool ip6 = false;

			if (vpk_acl_gen_profile_from_name(t, &gp, &ip6) < 0 || strlen(t) >= sizeof(names[0])) {
				fprintf(stderr, "vpk: bench acl: --families: bad value: %s\n", t);
				return 2;
			}
			snprintf(names[nn++], sizeof(names[0]), "%s", t);
		}
	} else {
		for (unsigned f = 0; f < VPK_ACL_FAMILIES; f++)
			snprintf(names[nn++], sizeof(names[0]), "%s", vpk_acl_family_name(f));
		for (unsigned k = 0; k < 3; k++)
			snprintf(names[nn++], sizeof(names[0]), "%s", v6[k]);
	}
	if (a.nsizes == 0) {
		a.sizes[0] = 1000, a.sizes[1] = 10000, a.sizes[2] = 100000;
		a.nsizes = quick ? 1 : 3;
	}
	if (a.dpdk_max_rules == 0)
		a.dpdk_max_rules = UINT32_MAX;
	vpk_set_max_simd_bitwidth(a.cap);
	if (!a.no_dpdk) {
		huge = !a.dpdk_no_huge && bench_hugepages_free() >= ((size_t)1 << 30);
		if (dpdk_init(a.cap >= 512, huge, why, sizeof(why)) < 0) {
			fprintf(stderr, "dpdk: %s\n", why);
			a.no_dpdk = true;
		}
	}
	if (a.json)
		printf("{\"matrix\":\"%s\",\"packets\":%u,\"seed\":%llu,\"iter\":%u,\"dpdk_hugepages\":%s,\"sets\":[\n",
		       a.matrix, np, (unsigned long long)a.seed, a.iter, huge ? "true" : "false");
	else
		printf("%-8s %7s %5s %9s %9s %6s %9s %6s  %7s %8s %6s %7s\n", "set", "rules", "burst", "vpk", "rte_acl",
		       "ratio", "scalar", "x/scal", "build_s", "dpdk_s", "MB", "dpdk_MB");
	for (unsigned si = 0; si < a.nsizes; si++)
		for (unsigned k = 0; k < nn; k++) {
			struct set_result sr;

			if (run_set(&a, names[k], a.sizes[si], np, &sr) < 0) {
				fails++;
				continue;
			}
			fails += !sr.ok;
			print_set(&a, names[k], a.sizes[si], &sr, first);
			first = false;
		}
	if (a.json)
		printf("\n]}\n");
	dpdk_free();
	return fails ? 1 : 0;
}
