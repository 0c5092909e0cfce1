/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Differential test against DPDK's rte_acl (same process): random and
 * adversarial rule sets over four layouts (IPv4 5-tuple, ipv4vlan with
 * permuted field_index, 8-byte and 32-bit range/bitmask fields, IPv6), 1 and
 * 16 categories, through every rte_acl algorithm usable here and every vpk
 * variant: all results identical. Priorities are made unique because
 * rte_acl leaves ties undefined. Exits 77 when EAL cannot start.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_acl.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include <vpk/acl.h>
#include "acl/acl_family.h"
#include "acl/acl_gen.h"
#include "acl/acl_oracle.h"

#include "acl/acl_ref.h"
#include "common/dpdk_eal.h"
#include "lib/check.h"

static char rundir[256];         /* EAL's runtime directory, removed at the end */

#define NPKT 300

static const struct {
	const char *name;
	enum rte_acl_classify_alg alg;
} algs[] = {
	{ "scalar", RTE_ACL_CLASSIFY_SCALAR }, { "sse", RTE_ACL_CLASSIFY_SSE },
	{ "avx2", RTE_ACL_CLASSIFY_AVX2 }, { "avx512x16", RTE_ACL_CLASSIFY_AVX512X16 },
	{ "avx512x32", RTE_ACL_CLASSIFY_AVX512X32 },
};

static void
one_set(enum ref_layout l, uint32_t ncat, uint32_t nrules, unsigned idx, bool dpdk_may_fail)
{
	struct ref_set s;
	struct vpk_acl_conf conf = { 0 };
	struct vpk_acl *acl;
	struct rte_acl_param prm = { 0 };
	struct rte_acl_config cfg = { 0 };
	struct rte_acl_ctx *ctx;
	char name[32];
	uint32_t cats = ncat == 1 ? 1 : 16;
	uint8_t *pk[NPKT], *dp[NPKT];
	uint32_t *want = malloc(NPKT * 16 * 4), *got = malloc(NPKT * 16 * 4);
	uint32_t *perm;
	int rc;

	ref_set_init(&s, l, ncat);
	ref_set_gen(&s, nrules, 1000000);
	perm = malloc(s.n * sizeof(*perm));
	for (uint32_t i = 0; i < s.n; i++)
		perm[i] = i + 1;
	for (uint32_t i = s.n; i > 1; i--) {
		uint32_t j = (uint32_t)check_rand_range(i), t = perm[i - 1];

		perm[i - 1] = perm[j], perm[j] = t;
	}
	for (uint32_t i = 0; i < s.n; i++)
		ref_rule(&s, i)->priority = perm[i];
	free(perm);

	conf.num_fields = s.nf, conf.defs = s.defs, conf.num_categories = ncat;
	CHECK(vpk_acl_create(&conf, &acl) == 0, "vpk create");
	CHECK(vpk_acl_add_rules(acl, s.rules, s.n) == 0, "vpk add: %s", vpk_last_error());
	CHECK(vpk_acl_build(acl) == 0, "vpk build: %s", vpk_last_error());

	snprintf(name, sizeof(name), "vpktest%u", idx);
	prm.name = name, prm.socket_id = 0, prm.rule_size = (uint32_t)RTE_ACL_RULE_SZ(s.nf);
	prm.max_rule_num = s.n;
	ctx = rte_acl_create(&prm);
	CHECK(ctx != NULL, "rte_acl_create");
	if (ctx == NULL)
		goto out;
	/* Same rule layout: {u32 category_mask, i32 priority, u32 userdata, pad} + 16-byte fields. */
	rc = rte_acl_add_rules(ctx, (const struct rte_acl_rule *)(const void *)s.rules, s.n);
	CHECK(rc == 0, "rte_acl_add_rules %d", rc);
	cfg.num_categories = ncat, cfg.num_fields = s.nf;
	memcpy(cfg.defs, s.defs, s.nf * sizeof(s.defs[0]));
	rc = rte_acl_build(ctx, &cfg);
	if (dpdk_may_fail && rc != 0)
		printf("  rte_acl_build failed on %u adversarial %s rules (%d); vpk built them\n", s.n,
		       s.name, rc);
	else
		CHECK(rc == 0, "rte_acl_build %s: %d", s.name, rc);
	if (rc != 0) {
		rte_acl_free(ctx);
		goto out;
	}

	for (uint32_t i = 0; i < NPKT; i++) {
		pk[i] = check_guard_alloc(s.buflen);
		ref_gen_packet(&s, pk[i]);
		dp[i] = calloc(1, 64);  /* rte_acl reads 4 bytes at every group offset */
		memcpy(dp[i], pk[i], s.buflen);
		ref_classify(&s, pk[i], want + i * cats, cats);
	}
	for (unsigned a = 0; a < sizeof(algs) / sizeof(algs[0]); a++) {
		if (rte_acl_set_ctx_classify(ctx, algs[a].alg) != 0) {
			check_variant_skipped("rte_acl", algs[a].name, "not usable here");
			continue;
		}
		check_variant_ran("rte_acl", algs[a].name);
		memset(got, 0, NPKT * 16 * 4);
		rc = rte_acl_classify_alg(ctx, (const uint8_t **)dp, got, NPKT, cats, algs[a].alg);
		CHECK(rc == 0, "rte_acl_classify_alg %s", algs[a].name);
		CHECK(memcmp(got, want, (size_t)NPKT * cats * 4) == 0,
		      "set %s: rte_acl %s equals the reference", s.name, algs[a].name);
	}
	for (const struct vpk_impl *const *im = vpk_acl_impls(); *im; im++) {
		if (vpk_acl_select(acl, (*im)->name) != 0)
			continue;
		memset(got, 0, NPKT * 16 * 4);
		vpk_acl_classify_bulk(acl, (const uint8_t *const *)pk, got, NPKT, cats);
		CHECK(memcmp(got, want, (size_t)NPKT * cats * 4) == 0, "set %s: vpk %s equals rte_acl",
		      s.name, (*im)->name);
	}
	for (uint32_t i = 0; i < NPKT; i++) {
		check_guard_free(pk[i], s.buflen);
		free(dp[i]);
	}
	rte_acl_free(ctx);
out:
	vpk_acl_destroy(acl);
	ref_set_free(&s);
	free(want);
	free(got);
}

/* Generated ClassBench-like set + trace through both, against the oracle's expected column;
 * @p u64: IPv6 addresses as two 8-byte fields (dpdk-test-acl --ipv6=8B). */
static void
gen_set(bool ipv6, bool u64, enum vpk_acl_gen_profile prof, uint32_t n)
{
	struct vpk_acl_gen_conf gc = { .profile = prof, .ipv6 = ipv6, .rules = n, .seed = check_seed() };
	struct vpk_acl5_rule *r5;
	struct vpk_acl5_pkt *p5;
	struct vpk_acl_field_def defs[11];
	uint32_t nf = u64 ? vpk_acl5_layout_ipv6_8b(defs) : vpk_acl5_layout(ipv6, defs), np = 2048;
	const char *fam = prof >= VPK_ACL_GEN_FAMILY ? vpk_acl_family_name(prof - VPK_ACL_GEN_FAMILY)
						     : prof == VPK_ACL_GEN_FW ? "fw" : "acl";
	char what[48];
	uint8_t *rules, *bufs;
	const uint8_t **ptrs;
	uint32_t *got, *want;
	struct rte_acl_param prm = { .name = what, .socket_id = 0,
				     .rule_size = (uint32_t)RTE_ACL_RULE_SZ(nf), .max_rule_num = n };
	struct rte_acl_config cfg = { .num_categories = 1, .num_fields = nf };
	struct vpk_acl_conf conf = { .num_fields = nf, .defs = defs, .num_categories = 1 };
	struct rte_acl_ctx *ctx;
	struct vpk_acl *acl;

	snprintf(what, sizeof(what), "%s %s", fam, u64 ? "ipv6-8B" : ipv6 ? "ipv6" : "ipv4");
	CHECK(vpk_acl_gen_rules(&gc, &r5) == 0, "generate %s", what);
	CHECK(vpk_acl_gen_trace(r5, n, ipv6, np, gc.seed, 0.05, &p5) == 0, "trace");
	CHECK(vpk_acl5_oracle(r5, n, p5, np, ipv6) == 0, "oracle");
	rules = malloc((size_t)n * VPK_ACL_RULE_SIZE(nf));
	bufs = calloc(np, 64);
	ptrs = malloc(np * sizeof(*ptrs));
	got = malloc(np * 4);
	want = malloc(np * 4);
	if (u64)
		vpk_acl5_to_rules_ipv6_8b(r5, n, 1, rules);
	else
		vpk_acl5_to_rules(r5, n, ipv6, 1, rules);
	for (uint32_t i = 0; i < np; i++) {
		vpk_acl5_pkt_bytes(&p5[i], ipv6, bufs + (size_t)i * 64);
		ptrs[i] = bufs + (size_t)i * 64;
		want[i] = p5[i].expected == VPK_ACL5_NO_MATCH ? 0 : p5[i].expected + 1;
	}
	CHECK(vpk_acl_create(&conf, &acl) == 0 && vpk_acl_add_rules(acl, rules, n) == 0 &&
	      vpk_acl_build(acl) == 0, "vpk build generated");
	ctx = rte_acl_create(&prm);
	memcpy(cfg.defs, defs, nf * sizeof(defs[0]));
	CHECK(ctx != NULL && rte_acl_add_rules(ctx, (const void *)rules, n) == 0 &&
	      rte_acl_build(ctx, &cfg) == 0, "rte_acl build generated");
	for (unsigned a = 0; a < sizeof(algs) / sizeof(algs[0]); a++) {
		if (rte_acl_set_ctx_classify(ctx, algs[a].alg) != 0)
			continue;
		memset(got, 0, np * 4);
		rte_acl_classify_alg(ctx, ptrs, got, np, 1, algs[a].alg);
		CHECK(memcmp(got, want, np * 4) == 0, "generated %s: rte_acl %s equals the oracle", what,
		      algs[a].name);
	}
	for (const struct vpk_impl *const *im = vpk_acl_impls(); *im; im++) {
		if (vpk_acl_select(acl, (*im)->name) != 0)
			continue;
		memset(got, 0, np * 4);
		vpk_acl_classify_bulk(acl, ptrs, got, np, 1);
		CHECK(memcmp(got, want, np * 4) == 0, "generated %s: vpk %s equals the oracle", what,
		      (*im)->name);
	}
	rte_acl_free(ctx);
	vpk_acl_destroy(acl);
	free(r5), free(p5), free(rules), free(bufs), free(ptrs), free(got), free(want);
}

int
main(void)
{
	static struct dpdk_eal_args ea;
	unsigned k = 0;

	check_init("acl_dpdk");
	dpdk_eal_args(&ea, "vpkacltest", "acl", false, 512, 0, 512);
	if (rte_eal_init(ea.argc, ea.argv) < 0) {
		check_skip_all("rte_eal_init failed (no permission for EAL here?)");
		return check_finish();
	}
	for (int l = 0; l < REF_NLAYOUTS; l++) {
		/* Random 64-bit ranges blow up rte_acl's tries (-ENOMEM past 8): keep those small. */
		uint32_t n = l == REF_WIDE ? 24 : 200;

		one_set((enum ref_layout)l, 1, n, k++, false);
		one_set((enum ref_layout)l, 16, n, k++, false);
	}
	one_set(REF_IPV4, 4, 2000, k++, true);
	gen_set(false, false, VPK_ACL_GEN_FW, 3000);
	gen_set(true, false, VPK_ACL_GEN_ACL, 2000);
	gen_set(true, true, VPK_ACL_GEN_FW, 2000);
	for (unsigned f = 0; f < VPK_ACL_FAMILIES; f++)     /* the ClassBench families */
		gen_set(false, false, (enum vpk_acl_gen_profile)(VPK_ACL_GEN_FAMILY + f), 1000);
	gen_set(true, false, (enum vpk_acl_gen_profile)(VPK_ACL_GEN_FAMILY + 5), 1000);
	gen_set(true, true, (enum vpk_acl_gen_profile)(VPK_ACL_GEN_FAMILY + 10), 1000);
	snprintf(rundir, sizeof(rundir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	(void)rmdir(rundir);    /* empty with --no-shconf: the test leaves nothing behind */
	return check_finish();
}
