/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bounded builds on a pathological family: every rule a short prefix in both
 * addresses and a random wide range in both ports, so that every rule
 * overlaps most others in every field (no cut separates them without copying
 * most). The build must stay within its bounds: with a small max_size it
 * fails with -ERANGE, names max_size, and the previous runtime keeps
 * answering; without one it succeeds with a bounded build peak and every
 * variant equals the oracle. A ClassBench family under a max_size below its
 * size fails the same way.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/acl.h>
#include <vpk/acl_file.h>
#include "acl/acl_family.h"
#include "acl/acl_gen.h"
#include "acl/acl_oracle.h"

#include "lib/check.h"

static void
pathological(struct vpk_acl5_rule *r, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint16_t a = (uint16_t)check_rand(), b = (uint16_t)check_rand(), c = (uint16_t)check_rand(),
			 d = (uint16_t)check_rand();

		memset(&r[i], 0, sizeof(r[i]));
		r[i].port = -1;
		r[i].src_len = (uint8_t)(1 + check_rand_range(6));
		r[i].dst_len = (uint8_t)(1 + check_rand_range(6));
		r[i].src[0] = (uint8_t)(check_rand() & (0xff00 >> r[i].src_len));
		r[i].dst[0] = (uint8_t)(check_rand() & (0xff00 >> r[i].dst_len));
		r[i].sport_lo = a < b ? a : b, r[i].sport_hi = a < b ? b : a;
		r[i].dport_lo = c < d ? c : d, r[i].dport_hi = c < d ? d : c;
		if (check_rand_range(2))
			r[i].proto = 6, r[i].proto_mask = 0xff;
	}
}

static struct vpk_acl *
make(const struct vpk_acl5_rule *r, uint32_t n, size_t max_size, uint8_t **rules)
{
	struct vpk_acl_field_def defs[11];
	uint32_t nf = vpk_acl5_layout(false, defs);
	struct vpk_acl_conf conf = { .num_fields = nf, .defs = defs, .num_categories = 1, .max_size = max_size };
	struct vpk_acl *acl = NULL;

	*rules = malloc((size_t)n * VPK_ACL_RULE_SIZE(nf));
	vpk_acl5_to_rules(r, n, false, 1, *rules);
	CHECK(vpk_acl_create(&conf, &acl) == 0, "create");
	return acl;
}

static void
verify(struct vpk_acl *acl, const struct vpk_acl5_rule *r, uint32_t n)
{
	struct vpk_acl5_pkt *p;
	uint32_t np = 2000;
	uint8_t *bufs = malloc((size_t)np * 16);
	const uint8_t **ptrs = malloc(np * sizeof(*ptrs));
	uint32_t *got = malloc(np * 4);

	CHECK(vpk_acl_gen_trace(r, n, false, np, check_seed(), 0.2, &p) == 0 && vpk_acl5_oracle(r, n, p, np, false) == 0,
	      "trace");
	for (uint32_t i = 0; i < np; i++) {
		vpk_acl5_pkt_bytes(&p[i], false, bufs + (size_t)i * 16);
		ptrs[i] = bufs + (size_t)i * 16;
	}
	for (const struct vpk_impl *const *im = vpk_acl_impls(); *im != NULL; im++) {
		uint32_t bad = 0;

		if (vpk_acl_select(acl, (*im)->name) != 0)
			continue;
		vpk_acl_classify_bulk(acl, ptrs, got, np, 1);
		for (uint32_t i = 0; i < np; i++)
			bad += got[i] != (p[i].expected == VPK_ACL5_NO_MATCH ? 0 : p[i].expected + 1);
		CHECK(bad == 0, "%s: %u results differ from the oracle", (*im)->name, bad);
	}
	free(p), free(bufs), free(ptrs), free(got);
}

int
main(void)
{
	uint32_t n = 3000;
	struct vpk_acl5_rule *r = malloc(n * sizeof(*r)), *fw;
	struct vpk_acl_stats st;
	struct vpk_acl *acl;
	uint8_t *rules, *fwrules;
	int rc;

	check_init("acl_bound");
	pathological(r, n);

	/* No max_size: builds, bounded, correct. */
	acl = make(r, n, 0, &rules);
	CHECK(vpk_acl_add_rules(acl, rules, n) == 0 && vpk_acl_build(acl) == 0, "unbounded build: %s",
	      vpk_last_error());
	vpk_acl_get_stats(acl, &st);
	printf("  pathological %u rules: %u trees, %u leaves, %.1f copies per rule, runtime %.1f MB, build peak %.1f MB\n",
	       n, st.trees, st.leaves, (double)st.leaf_rules / n, st.runtime_bytes / 1e6, st.build_peak_bytes / 1e6);
	CHECK(st.leaf_rules <= (uint64_t)64 * n + (1u << 22), "leaf entries within the builder's bound");
	CHECK(st.build_peak_bytes <= st.runtime_bytes + ((size_t)64 * n + (1u << 22)) * 16,
	      "build peak %zu bytes within the bound", st.build_peak_bytes);
	verify(acl, r, n);
	vpk_acl_destroy(acl);
	free(rules);

	/* max_size far below what it needs: -ERANGE, named, old runtime kept. */
	acl = make(r, n, 256 << 10, &rules);
	CHECK(vpk_acl_add_rules(acl, rules, 100) == 0 && vpk_acl_build(acl) == 0, "small build under max_size");
	vpk_acl_reset_rules(acl);
	CHECK(vpk_acl_add_rules(acl, rules, n) == 0, "re-add");
	rc = vpk_acl_build(acl);
	CHECK(rc == -ERANGE && strstr(vpk_last_error(), "max_size") != NULL,
	      "over-size build: %d (%s), want -ERANGE naming max_size", rc, vpk_last_error());
	vpk_acl_get_stats(acl, &st);
	CHECK(st.rules == 100, "the previous runtime (100 rules) stays: %u", st.rules);
	vpk_acl_destroy(acl);
	free(rules);

	/* A ClassBench firewall family at 4k rules under 64 KiB. */
	CHECK(vpk_acl_family_rules(5, false, 4000, check_seed(), &fw) == 0, "fw1");
	acl = make(fw, 4000, 64 << 10, &fwrules);
	CHECK(vpk_acl_add_rules(acl, fwrules, 4000) == 0, "add fw1");
	rc = vpk_acl_build(acl);
	CHECK(rc == -ERANGE, "fw1 under 64 KiB: %d (%s)", rc, vpk_last_error());
	vpk_acl_destroy(acl);
	free(fwrules), free(fw), free(r);
	return check_finish();
}
