/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every usable classify variant x every burst length (0..67, 255..257) x
 * categories 1/4/16 against the brute-force reference, on random and
 * adversarial rule sets over four layouts (IPv4 5-tuple, the autotest's
 * ipv4vlan with permuted field_index, 8-byte/32-bit range/bitmask fields,
 * IPv6). Packets sit against guard pages (over-reads fault) and results are
 * poisoned past the end (over-writes are caught).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/acl.h>

#include "acl/acl_int.h"
#include "acl/acl_ref.h"
#include "lib/check.h"

#define NPKT 257
#define POISON 0xdeadbeefu

struct run {
	struct ref_set *s;
	struct vpk_acl *acl;
	uint8_t *pkt[NPKT];
	uint32_t *want;         /* [NPKT * 16] */
};

static void
run_variant(void *arg, const struct vpk_impl *impl)
{
	struct run *r = arg;
	static const uint32_t cats[] = { 1, 4, 16 };
	size_t lens[CHECK_MAX_LEN_SWEEP + 4];
	size_t nl = check_lengths(lens, sizeof(lens) / sizeof(lens[0]));
	uint32_t *got = malloc((NPKT + 1) * 16 * sizeof(*got));
	unsigned bad = 0;

	CHECK(vpk_acl_select(r->acl, impl->name) == 0, "set_impl %s", impl->name);
	CHECK(strcmp(vpk_acl_impl_name(r->acl), impl->name) == 0, "impl name %s", vpk_acl_impl_name(r->acl));
	for (size_t li = 0; li < nl; li++) {
		uint32_t n = (uint32_t)lens[li];

		for (unsigned ci = 0; ci < 3; ci++) {
			uint32_t C = cats[ci];

			for (size_t k = 0; k < (size_t)(n + 1) * C; k++)
				got[k] = POISON;
			vpk_acl_classify_bulk(r->acl, (const uint8_t *const *)r->pkt, got, n, C);
			for (uint32_t i = 0; i < n && bad < 5; i++)
				for (uint32_t c = 0; c < C; c++) {
					uint32_t w = r->want[i * 16 + c];

					if (got[i * C + c] != w) {
						CHECK(0, "%s set %s: n=%u cats=%u pkt %u cat %u: got %u want %u",
						      impl->name, r->s->name, n, C, i, c, got[i * C + c], w);
						bad++;
						break;
					}
				}
			for (uint32_t c = 0; c < C; c++)
				if (got[n * C + c] != POISON) {
					CHECK(0, "%s: wrote past n=%u", impl->name, n);
					break;
				}
		}
	}
	CHECK(bad == 0, "%s set %s: all results equal the reference", impl->name, r->s->name);
	free(got);
}

/*
 * 16-bit dimensions (ports, protocol) are stored as 16-bit lo/span arrays in
 * the leaves. Port ranges and packets at their corners (0, 1, 32767, 32768,
 * 65534, 65535) and protocol masks, on rules whose addresses are mostly
 * wildcards so that the ports decide.
 */
static const uint16_t port_lo[] = { 0, 0, 1, 65534, 65535, 0, 32768, 0, 1, 32767 };
static const uint16_t port_hi[] = { 0, 1, 65534, 65535, 65535, 65535, 65535, 32767, 1, 32768 };
static const uint16_t port_at[] = { 0, 1, 2, 32767, 32768, 65533, 65534, 65535 };
#define NCORNER (sizeof(port_lo) / sizeof(port_lo[0]))

static void
corner_rules(struct ref_set *s)
{
	for (uint32_t i = 0; i < s->n; i++) {
		struct vpk_acl_rule *r = ref_rule(s, i);

		r->field[3].value = port_lo[i % NCORNER];
		r->field[3].mask_range = port_hi[i % NCORNER];
		r->field[4].value = port_lo[i / NCORNER % NCORNER];
		r->field[4].mask_range = port_hi[i / NCORNER % NCORNER];
		r->field[0].mask_range = i % 5 == 0 ? 0 : i % 5 == 1 ? 0x0f : 0xff;
		r->field[0].value = (i % 3 == 0 ? 0 : i % 3 == 1 ? 6 : 255) & r->field[0].mask_range;
		if (i % 4 != 0) {
			r->field[1].mask_range = 0;     /* any source */
			r->field[1].value = 0;
		}
		if (i % 4 == 1 || i % 4 == 2) {
			r->field[2].mask_range = 0;     /* any destination */
			r->field[2].value = 0;
		}
	}
}

static void
corner_packet(uint8_t *pkt)
{
	uint16_t sp = port_at[check_rand_range(sizeof(port_at) / 2)];
	uint16_t dp = port_at[check_rand_range(sizeof(port_at) / 2)];
	static const uint8_t proto[] = { 0, 6, 255, 0x16 };

	pkt[0] = proto[check_rand_range(4)];
	pkt[12] = (uint8_t)(sp >> 8);
	pkt[13] = (uint8_t)sp;
	pkt[14] = (uint8_t)(dp >> 8);
	pkt[15] = (uint8_t)dp;
}

static void
one_set(enum ref_layout l, uint32_t ncat, uint32_t nrules, uint32_t prio_span, bool corners)
{
	struct ref_set s;
	struct run r = { .s = &s };
	struct vpk_acl_conf conf = { 0 };
	int rc;

	ref_set_init(&s, l, ncat);
	ref_set_gen(&s, nrules, prio_span);
	if (corners)
		corner_rules(&s);
	conf.num_fields = s.nf;
	conf.defs = s.defs;
	conf.num_categories = ncat;
	rc = vpk_acl_create(&conf, &r.acl);
	CHECK(rc == 0, "create %s: %d", s.name, rc);
	if (rc != 0)
		return;
	rc = vpk_acl_add_rules(r.acl, s.rules, s.n);
	CHECK(rc == 0, "add %s: %d %s", s.name, rc, vpk_last_error());
	r.want = malloc(NPKT * 16 * sizeof(*r.want));
	for (uint32_t i = 0; i < NPKT; i++) {
		r.pkt[i] = check_guard_alloc(s.buflen);
		ref_gen_packet(&s, r.pkt[i]);
		if (corners && check_rand_range(4) != 0)
			corner_packet(r.pkt[i]);
		ref_classify(&s, r.pkt[i], r.want + i * 16, 16);
	}
	/* Automatic plan, then the forced 2-, 6- and 8-tree spilling plans (4:
	 * the 6-tree one spilling at >= 4 wide rules instead of its 32, so that
	 * these small sets fill all of its trees), (6) the 6-tree plan entered as
	 * a set above 32k rules enters it and abandoned at once, so the build must
	 * fall back to the 8-tree plan and give exactly plan 5's runtime, (7) the
	 * partition plan (one tree per wildcard pattern group), (8) the partition
	 * plan with every group's tree in big leaves, then (3) a full
	 * build of most rules plus single-rule delta builds of the rest. */
	static const int plans[] = { -1, 1, 2, 4, 5, 6, 7, 8, 3 };
	struct vpk_acl_stats st7 = { 0 };
	struct vpk_acl_stats st8 = { 0 };

	for (unsigned pi = 0; pi < sizeof(plans) / sizeof(plans[0]); pi++) {
		struct vpk_acl_stats st;
		int plan = plans[pi];

		if (plan == 3) {
			uint32_t tail = s.n < 20 ? s.n : 20;

			vpk_acl_reset_rules(r.acl);
			rc = vpk_acl_add_rules(r.acl, s.rules, s.n - tail);
			rc |= vpk_acl_build(r.acl);
			for (uint32_t i = s.n - tail; i < s.n; i++) {
				rc |= vpk_acl_add_rules(r.acl, ref_rule(&s, i), 1);
				rc |= vpk_acl_build(r.acl);
			}
		} else {
			const struct acl_build_opts o = {
				.plan = plan == 4 ? 2 : plan == 5 ? 3 : plan == 6 ? 4 : plan == 7 ? 5 : plan == 8 ? 6 : plan,
				.spill = plan == 4 ? 4 : 0,
				.copies = plan == 6 ? 0 : -1,
			};

			rc = plan < 0 ? vpk_acl_build(r.acl) : acl_build_with(r.acl, &o);
		}
		CHECK(rc == 0, "build %s plan %d: %d %s", s.name, plan, rc, vpk_last_error());
		vpk_acl_get_stats(r.acl, &st);
		if (plan == 5)
			st8 = st;
		if (plan == 6)
			CHECK(st.trees == st8.trees && st.leaves == st8.leaves && st.nodes == st8.nodes &&
				      st.leaf_rules == st8.leaf_rules,
			      "%s: fallback from the 6-tree plan built %u trees / %u leaves / %u nodes, the 8-tree plan %u / %u / %u",
			      s.name, st.trees, st.leaves, st.nodes, st8.trees, st8.leaves, st8.nodes);
		/* The random sets mix wide and narrow addresses: the partition must split them. */
		if (plan == 7 && s.n >= 300)
			CHECK(st.trees >= 2, "%s: partition plan built %u tree(s) for %u rules", s.name, st.trees, s.n);
		if (plan == 7)
			st7 = st;
		/* Big leaves: the same groups in no more leaves; fewer where cuts copy (the wide rules). */
		if (plan == 8 && s.n >= 300)
			CHECK(st.trees == st7.trees && st.leaves <= st7.leaves &&
				      (strcmp(s.name, "wide") != 0 || st.leaves < st7.leaves),
			      "%s: partition in big leaves: %u trees, %u leaves; in small leaves %u, %u", s.name, st.trees,
			      st.leaves, st7.trees, st7.leaves);
		CHECK(st.rules == s.n, "stats: %u rules, want %u", st.rules, s.n);
		printf("  set %s: %u rules, %u categories, plan %d: %u trees, %u leaves, depth %u, %llu copies\n",
		       s.name, s.n, ncat, plan, st.trees, st.leaves, st.max_depth,
		       (unsigned long long)st.leaf_rules);
		check_each_impl("acl-classify", vpk_acl_impls(), run_variant, &r);
	}
	/* A forced plan out of range is refused, naming it, and leaves the built runtime as it was. */
	for (int bad = -3; bad <= ACL_PLAN_FORCED_MAX + 2; bad += ACL_PLAN_FORCED_MAX + 4) {
		const struct acl_build_opts o = { .plan = bad, .copies = -1 };

		rc = acl_build_with(r.acl, &o);
		CHECK(rc == -EINVAL && strstr(vpk_last_error(), "forced plan") != NULL, "plan %d: %d '%s'", bad, rc,
		      vpk_last_error());
	}
	check_each_impl("acl-classify", vpk_acl_impls(), run_variant, &r);
	for (uint32_t i = 0; i < NPKT; i++)
		check_guard_free(r.pkt[i], s.buflen);
	free(r.want);
	vpk_acl_destroy(r.acl);
	ref_set_free(&s);
}

int
main(void)
{
	check_init("acl_classify");
	for (int l = 0; l < REF_NLAYOUTS; l++) {
		one_set((enum ref_layout)l, 1, 40, 1000000, false);   /* small: single leaves */
		one_set((enum ref_layout)l, 16, 300, 1000000, false); /* 16 categories, trees */
		one_set((enum ref_layout)l, 4, 300, 8, false);        /* many equal priorities */
	}
	one_set(REF_IPV4, 3, 2000, 1000000, false);                   /* deeper trees, partitions */
	one_set(REF_IPV4, 4, 400, 1000000, true);                     /* 16-bit corners */
	one_set(REF_IPV4, 1, 0, 1, false);                            /* empty rule set */
	return check_finish();
}
