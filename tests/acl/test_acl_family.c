/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ClassBench families (tools/vpk/acl/acl_family.c): each of the 12,
 * IPv4 and IPv6, generated, then classified by every vpk variant on a
 * ClassBench-style trace (headers from rule corners) and on a random trace
 * (mostly misses): every result equals the brute-force oracle's. Also the
 * generator's contract: deterministic, n distinct rules, no full wildcard,
 * and the families keep their character (firewall sets wilder than ACL sets).
 */
#include <stdlib.h>
#include <string.h>

#include <vpk/acl.h>
#include <vpk/acl_file.h>
#include "acl/acl_family.h"
#include "acl/acl_gen.h"
#include "acl/acl_oracle.h"

#include "lib/check.h"

struct run {
	struct vpk_acl *acl;
	const uint8_t **ptrs;
	const uint32_t *want;
	uint32_t np;
	const char *what;
};

static void
run_variant(void *arg, const struct vpk_impl *impl)
{
	struct run *r = arg;
	uint32_t *got = calloc(r->np, 4), bad = 0, first = 0;

	CHECK(vpk_acl_select(r->acl, impl->name) == 0, "set_impl %s", impl->name);
	vpk_acl_classify_bulk(r->acl, r->ptrs, got, r->np, 1);
	for (uint32_t i = 0; i < r->np; i++)
		if (got[i] != r->want[i] && bad++ == 0)
			first = i;
	CHECK(bad == 0, "%s %s: %u of %u results differ from the oracle (first: packet %u, %u vs %u)",
	      r->what, impl->name, bad, r->np, first, got[first], r->want[first]);
	free(got);
}

static double
wild_share(const struct vpk_acl5_rule *r, uint32_t n)
{
	uint64_t w = 0;

	for (uint32_t i = 0; i < n; i++)
		w += (r[i].src_len == 0) + (r[i].dst_len == 0);
	return (double)w / (2.0 * n);
}

static void
contract(unsigned fam, bool ipv6, const struct vpk_acl5_rule *r, uint32_t n, uint64_t seed)
{
	struct vpk_acl5_rule *again;
	uint32_t wild = 0, dup = 0;

	CHECK(vpk_acl_family_rules(fam, ipv6, n, seed, &again) == 0, "regenerate");
	CHECK(memcmp(again, r, (size_t)n * sizeof(*r)) == 0, "%s: same seed, same rules", vpk_acl_family_name(fam));
	free(again);
	for (uint32_t i = 0; i < n; i++) {
		wild += r[i].src_len == 0 && r[i].dst_len == 0 && r[i].proto_mask == 0 && r[i].sport_lo == 0 &&
			r[i].sport_hi == 65535 && r[i].dport_lo == 0 && r[i].dport_hi == 65535;
		CHECK(r[i].src_len <= (ipv6 ? 128 : 32) && r[i].dst_len <= (ipv6 ? 128 : 32), "prefix lengths");
	}
	for (uint32_t i = 0; i + 1 < n && n <= 3000; i++)
		for (uint32_t j = i + 1; j < n; j++)
			dup += memcmp(&r[i], &r[j], sizeof(r[i])) == 0;
	CHECK(wild == 0 && dup == 0, "%s: %u full wildcards, %u duplicate rules", vpk_acl_family_name(fam), wild, dup);
}

static uint32_t
family(unsigned fam, bool ipv6, uint32_t n, size_t max_size, double *wild)
{
	uint64_t seed = check_seed() + fam;
	struct vpk_acl5_rule *r;
	struct vpk_acl5_pkt *p[2];
	struct vpk_acl_field_def defs[11];
	uint32_t nf = vpk_acl5_layout(ipv6, defs), np = 3000, bs = vpk_acl5_buf_size(ipv6);
	struct vpk_acl_conf conf = { .num_fields = nf, .defs = defs, .num_categories = 1, .max_size = max_size };
	uint8_t *rules, *bufs = malloc((size_t)np * bs);
	const uint8_t **ptrs = malloc(np * sizeof(*ptrs));
	uint32_t *want = malloc(np * 4);
	struct vpk_acl *acl = NULL;
	struct vpk_acl_stats st = { 0 };
	char what[64];

	if (vpk_acl_family_rules(fam, ipv6, n, seed, &r) != 0) {
		CHECK(0, "%s: generate %u rules", vpk_acl_family_name(fam), n);
		return 0;
	}
	contract(fam, ipv6, r, n, seed);
	*wild = wild_share(r, n);
	rules = malloc((size_t)n * VPK_ACL_RULE_SIZE(nf));
	vpk_acl5_to_rules(r, n, ipv6, 1, rules);
	CHECK(vpk_acl_create(&conf, &acl) == 0 && vpk_acl_add_rules(acl, rules, n) == 0 && vpk_acl_build(acl) == 0,
	      "%s: build", vpk_acl_family_name(fam));
	for (int t = 0; t < 2 && acl != NULL; t++) {
		uint32_t hits = 0;

		/* trace 0: ClassBench-style, 5 % random headers; trace 1: all random */
		CHECK(vpk_acl_gen_trace(r, n, ipv6, np, seed + 1 + t, t ? 1.0 : 0.05, &p[t]) == 0, "trace");
		CHECK(vpk_acl5_oracle(r, n, p[t], np, ipv6) == 0, "oracle");
		for (uint32_t i = 0; i < np; i++) {
			vpk_acl5_pkt_bytes(&p[t][i], ipv6, bufs + (size_t)i * bs);
			ptrs[i] = bufs + (size_t)i * bs;
			want[i] = p[t][i].expected == VPK_ACL5_NO_MATCH ? 0 : p[t][i].expected + 1;
			hits += want[i] != 0;
		}
		if (t == 0)
			CHECK(hits >= np * 9 / 10, "%s: corner trace matches %u of %u", vpk_acl_family_name(fam), hits, np);
		snprintf(what, sizeof(what), "%s%s %s trace", vpk_acl_family_name(fam), ipv6 ? "-v6" : "",
			 t ? "random" : "classbench");
		struct run ru = { acl, ptrs, want, np, what };

		check_each_impl("acl-family", vpk_acl_impls(), run_variant, &ru);
		printf("  %s: %u rules, %u of %u packets match\n", what, n, hits, np);
		free(p[t]);
	}
	vpk_acl_get_stats(acl, &st);
	vpk_acl_destroy(acl);
	free(r), free(rules), free(bufs), free(ptrs), free(want);
	CHECK(max_size == 0 || st.runtime_bytes <= max_size, "%s: runtime %zu bytes over max_size %zu",
	      vpk_acl_family_name(fam), st.runtime_bytes, max_size);
	return st.trees;
}

/* fw1 at 10k rules crosses: the partition (at most 4 trees, estimated cheaper than its 5-6
 * spilling trees) is kept, unless its runtime would exceed max_size where the spilling trees' does
 * not: then the build still succeeds, with the spilling trees. */
static void
partition_fw1(double *wild)
{
	struct vpk_acl_field_def defs[11];
	uint32_t nf = vpk_acl5_layout(false, defs), n = 10000, trees;
	struct vpk_acl_conf conf = { .num_fields = nf, .defs = defs, .num_categories = 1 };
	struct vpk_acl5_rule *r;
	struct vpk_acl *acl = NULL;
	struct vpk_acl_stats st = { 0 };
	uint8_t *rules;

	if (vpk_acl_family_rules(5, false, n, check_seed() + 5, &r) != 0) {
		CHECK(0, "fw1: generate %u rules", n);
		return;
	}
	rules = malloc((size_t)n * VPK_ACL_RULE_SIZE(nf));
	vpk_acl5_to_rules(r, n, false, 1, rules);
	CHECK(vpk_acl_create(&conf, &acl) == 0 && vpk_acl_add_rules(acl, rules, n) == 0 && vpk_acl_build(acl) == 0,
	      "fw1 10k: build");
	vpk_acl_get_stats(acl, &st);
	vpk_acl_destroy(acl);
	free(rules), free(r);
	CHECK(st.trees >= 2 && st.trees <= 4, "fw1 10k: partitioned into %u trees", st.trees);
	/* family() checks that the build succeeds and fits: not the partition, one byte too big. */
	trees = family(5, false, n, st.runtime_bytes - 1, wild);
	CHECK(trees >= 2, "fw1 10k under max_size %zu: %u trees", st.runtime_bytes - 1, trees);
}

int
main(void)
{
	double w4[VPK_ACL_FAMILIES], w6, acl = 0, fw = 0;
	enum vpk_acl_gen_profile gp;
	bool v6 = false;

	check_init("acl_family");
	for (unsigned f = 0; f < VPK_ACL_FAMILIES; f++)
		family(f, false, 2000, 0, &w4[f]);
	for (unsigned f = 0; f < VPK_ACL_FAMILIES; f += 3)
		family(f, true, 1000, 0, &w6);
	/* fw3 at 10k rules crosses (acl_shape.c): built as spilling trees from the start */
	CHECK(family(7, false, 10000, 0, &w6) >= 2, "fw3 10k: more than one tree");
	/* acl1 above 32k rules: narrow addresses, no crossing: the two-tree plan first */
	CHECK(family(0, false, 40000, 0, &w6) <= 2, "acl1 40k: at most two trees");
	partition_fw1(&w6);
	for (unsigned f = 0; f < 5; f++)
		acl += w4[f] / 5, fw += w4[5 + f] / 5;
	CHECK(fw > acl + 0.1, "firewall families have more wildcard addresses than ACL families: %.2f vs %.2f", fw, acl);
	CHECK(vpk_acl_gen_profile_from_name("fw3-v6", &gp, &v6) == 0 && v6 && gp == VPK_ACL_GEN_FAMILY + 7,
	      "profile name fw3-v6");
	CHECK(vpk_acl_gen_profile_from_name("fw6", &gp, &v6) < 0 && vpk_acl_family_from_name("acl") < 0,
	      "unknown family names refused");
	CHECK(vpk_acl_family_rules(VPK_ACL_FAMILIES, false, 10, 1, &(struct vpk_acl5_rule *){ NULL }) < 0,
	      "family index out of range refused");
	return check_finish();
}
