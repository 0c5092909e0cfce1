/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ACL control plane: layout and rule validation (-EINVAL with a reason),
 * all-or-nothing adds, capacity, max_size (-ERANGE) leaving the previous
 * runtime in place, reset_rules keeping the runtime, variant selection, and
 * runtime replacement while other threads classify (run under ASan, a
 * runtime freed too early is a use-after-free).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/acl.h>

#include "acl/acl_ref.h"
#include "lib/check.h"

#define D(t, s, fi, ii, o) { VPK_ACL_FIELD_##t, s, fi, ii, o }

static const struct vpk_acl_field_def ipv4[5] = {
	D(BITMASK, 1, 0, 0, 0), D(MASK, 4, 1, 1, 4), D(MASK, 4, 2, 2, 8),
	D(RANGE, 2, 3, 3, 12), D(RANGE, 2, 4, 3, 14),
};

VPK_ACL_RULE_DEF(rule5, 5);

static void
expect_conf(const struct vpk_acl_field_def *defs, uint32_t nf, uint32_t ncat, const char *needle)
{
	struct vpk_acl_conf c = { .num_fields = nf, .defs = defs, .num_categories = ncat };
	struct vpk_acl *a = NULL;
	int rc = vpk_acl_conf_check(&c);

	CHECK(rc == -EINVAL && strstr(vpk_last_error(), needle) != NULL, "conf '%s': rc %d why '%s'", needle, rc,
	      vpk_last_error());
	CHECK(vpk_acl_create(&c, &a) == -EINVAL && a == NULL && strstr(vpk_last_error(), needle) != NULL,
	      "create refuses '%s'", needle);
}

static void
test_layouts(void)
{
	struct vpk_acl_field_def d[8];

	expect_conf(NULL, 5, 1, "no field");
	expect_conf(ipv4, 0, 1, "num_fields");
	expect_conf(ipv4, 5, 0, "num_categories");
	expect_conf(ipv4, 5, 17, "num_categories");
	memcpy(d, ipv4, sizeof(ipv4));
	d[1].type = 3;
	expect_conf(d, 5, 1, "unknown type");
	memcpy(d, ipv4, sizeof(ipv4));
	d[3].size = 3;
	expect_conf(d, 5, 1, "size 3");
	memcpy(d, ipv4, sizeof(ipv4));
	d[2].field_index = 1;
	expect_conf(d, 5, 1, "used twice");
	memcpy(d, ipv4, sizeof(ipv4));
	d[2].field_index = 9;
	expect_conf(d, 5, 1, ">= num_fields");
	memcpy(d, ipv4, sizeof(ipv4));
	d[0].size = 2;
	expect_conf(d, 5, 1, "1 byte");
	memcpy(d, ipv4, sizeof(ipv4));
	d[1].input_index = 0;
	expect_conf(d, 5, 1, "alone");
	memcpy(d, ipv4, sizeof(ipv4));
	d[4].offset = 15;                       /* ports not back to back */
	expect_conf(d, 5, 1, "not right after");
	memcpy(d, ipv4, sizeof(ipv4));
	d[4].input_index = 4;                   /* two 2-byte groups */
	expect_conf(d, 5, 1, "covers 2 bytes");
	memcpy(d, ipv4, sizeof(ipv4));
	d[3].input_index = 1;                   /* group 1 reused after group 2 */
	d[4].input_index = 1;
	expect_conf(d, 5, 1, "reused");
	memcpy(d, ipv4, sizeof(ipv4));
	d[2].offset = 6;                        /* dst overlaps src */
	expect_conf(d, 5, 1, "overlap");
	memcpy(d, ipv4, sizeof(ipv4));
	d[0].offset = 13;                       /* proto inside the ports */
	expect_conf(d, 5, 1, "overlap");
	{
		struct vpk_acl_field_def e[3] = { D(BITMASK, 1, 0, 0, 0), D(MASK, 8, 1, 1, 4),
						  D(MASK, 4, 2, 1, 12) };

		expect_conf(e, 3, 1, "8-byte");
	}
	/* Accepted: test-acl IPv4, l3fwd offsets. */
	{
		struct vpk_acl_conf c = { .num_fields = 5, .defs = ipv4, .num_categories = 1 };
		struct vpk_acl_field_def l3[5] = { D(BITMASK, 1, 0, 0, 0), D(MASK, 4, 1, 1, 3),
						   D(MASK, 4, 2, 2, 7), D(RANGE, 2, 3, 3, 11),
						   D(RANGE, 2, 4, 3, 13) };

		CHECK(vpk_acl_conf_check(&c) == 0, "ipv4 layout accepted");
		c.defs = l3;
		CHECK(vpk_acl_conf_check(&c) == 0, "l3fwd layout accepted");
	}
}

static struct vpk_acl *
mk(uint32_t ncat, uint32_t max_rules, size_t max_size)
{
	struct vpk_acl_conf c = { .num_fields = 5, .defs = ipv4, .num_categories = ncat,
				  .max_rules = max_rules, .max_size = max_size };
	struct vpk_acl *a = NULL;

	CHECK(vpk_acl_create(&c, &a) == 0, "create");
	return a;
}

static void
good_rule(struct rule5 *r, uint32_t i)
{
	memset(r, 0, sizeof(*r));
	r->category_mask = 1;
	r->priority = i + 1;
	r->userdata = i + 1;
	r->field[0] = (struct vpk_acl_field){ 6, 0xff };
	r->field[1] = (struct vpk_acl_field){ 0x0a000000u + i * 256, 24 };
	r->field[2] = (struct vpk_acl_field){ 0, 0 };
	r->field[3] = (struct vpk_acl_field){ 0, 65535 };
	r->field[4] = (struct vpk_acl_field){ 80, 80 };
}

static void
expect_rule(struct vpk_acl *a, void (*bad)(struct rule5 *), const char *needle, int want)
{
	struct rule5 r[4];
	uint32_t before = vpk_acl_rule_count(a);
	int rc;

	for (uint32_t i = 0; i < 4; i++)
		good_rule(&r[i], i);
	bad(&r[2]);
	rc = vpk_acl_add_rules(a, r, 4);
	CHECK(rc == want && strstr(vpk_last_error(), needle) != NULL,
	      "rule '%s': rc %d (want %d) why '%s'", needle, rc, want, vpk_last_error());
	CHECK(vpk_acl_rule_count(a) == before, "nothing added on '%s'", needle);
}

static void bad_prio0(struct rule5 *r) { r->priority = 0; }
static void bad_prio_big(struct rule5 *r) { r->priority = VPK_ACL_MAX_PRIORITY + 1; }
static void bad_cat(struct rule5 *r) { r->category_mask = 0x10; }
static void bad_ud(struct rule5 *r) { r->userdata = 0; }
static void bad_res(struct rule5 *r) { r->reserved = 1; }
static void bad_prefix(struct rule5 *r) { r->field[1].mask_range = 33; }
static void bad_range(struct rule5 *r) { r->field[4] = (struct vpk_acl_field){ 81, 80 }; }
static void bad_wide(struct rule5 *r) { r->field[3].mask_range = 65536; }
static void bad_proto(struct rule5 *r) { r->field[0].value = 0x106; }
static void bad_bits(struct rule5 *r) { r->field[0].mask_range = 0x1ff; }

static uint32_t
classify_one(struct vpk_acl *a, uint32_t src, uint16_t dport)
{
	uint8_t pkt[16] = { 6 };
	const uint8_t *p = pkt;
	uint32_t res = 0xdead;

	pkt[4] = (uint8_t)(src >> 24), pkt[5] = (uint8_t)(src >> 16), pkt[6] = (uint8_t)(src >> 8);
	pkt[7] = (uint8_t)src;
	pkt[14] = (uint8_t)(dport >> 8), pkt[15] = (uint8_t)dport;
	vpk_acl_classify_bulk(a, &p, &res, 1, 1);
	return res;
}

static void
test_rules(void)
{
	struct vpk_acl *a = mk(2, 8, 0);
	struct rule5 r[10];
	struct vpk_acl_stats st;

	expect_rule(a, bad_prio0, "priority", -EINVAL);
	expect_rule(a, bad_prio_big, "priority", -EINVAL);
	expect_rule(a, bad_cat, "category_mask", -EINVAL);
	expect_rule(a, bad_ud, "userdata", -EINVAL);
	expect_rule(a, bad_res, "reserved", -EINVAL);
	expect_rule(a, bad_prefix, "prefix length 33", -EINVAL);
	expect_rule(a, bad_range, "low 81 > high 80", -EINVAL);
	expect_rule(a, bad_wide, "wider than 16 bits", -EINVAL);
	expect_rule(a, bad_proto, "wider than 8 bits", -EINVAL);
	expect_rule(a, bad_bits, "bit mask", -EINVAL);
	CHECK(classify_one(a, 0x0a000001, 80) == 0, "before build: 0");
	CHECK(vpk_acl_get_stats(a, &st) == 0 && st.rules == 0, "no stats before build");
	for (uint32_t i = 0; i < 10; i++)
		good_rule(&r[i], i);
	CHECK(vpk_acl_add_rules(a, r, 9) == -ENOSPC, "max_rules 8: -ENOSPC");
	CHECK(vpk_acl_rule_count(a) == 0, "nothing added");
	CHECK(vpk_acl_add_rules(a, r, 8) == 0, "8 rules fit");
	CHECK(vpk_acl_add_rules(a, NULL, 0) == 0, "n=0 is fine");
	CHECK(vpk_acl_build(a) == 0, "build: %s", vpk_last_error());
	CHECK(classify_one(a, 0x0a000301, 80) == 4, "10.0.3.1:80 -> rule 4");
	CHECK(classify_one(a, 0x0a000301, 81) == 0, "port 81: no match");
	vpk_acl_reset_rules(a);
	CHECK(vpk_acl_rule_count(a) == 0, "reset_rules forgets rules");
	CHECK(classify_one(a, 0x0a000301, 80) == 4, "reset_rules keeps the runtime");
	CHECK(vpk_acl_build(a) == 0, "empty build");
	CHECK(classify_one(a, 0x0a000301, 80) == 0, "empty runtime: 0");
	CHECK(vpk_acl_select(a, "nonsense") == -EINVAL && strstr(vpk_last_error(), "nonsense") != NULL,
	      "unknown impl: '%s'", vpk_last_error());
	CHECK(vpk_acl_select(a, "sse") == 0 || vpk_acl_select(a, "sse") == -ENOTSUP, "sse alias");
	CHECK(vpk_acl_select(a, "scalar") == 0 && strcmp(vpk_acl_impl_name(a), "scalar") == 0,
	      "scalar always usable");
	vpk_acl_destroy(a);
	vpk_acl_destroy(NULL);

	/* The variant level comes from conf.isa, as for every object. */
	{
		struct vpk_acl_conf c = { .num_fields = 5, .defs = ipv4, .num_categories = 1,
					  .isa = VPK_ISA_SCALAR };

		CHECK(vpk_acl_create(&c, &a) == 0 && strcmp(vpk_acl_impl_name(a), "scalar") == 0,
		      "conf.isa scalar: %s", a != NULL ? vpk_acl_impl_name(a) : vpk_last_error());
		vpk_acl_destroy(a);
		a = NULL;
		c.isa = VPK_ISA_COUNT;
		CHECK(vpk_acl_create(&c, &a) == -EINVAL && a == NULL && strstr(vpk_last_error(), "isa") != NULL,
		      "conf.isa out of range: '%s'", vpk_last_error());
	}

	/* max_size: a failed build keeps the previous runtime. */
	a = mk(1, 0, 64 * 1024);
	CHECK(vpk_acl_add_rules(a, r, 4) == 0, "4 rules");
	CHECK(vpk_acl_build(a) == 0, "small build fits: %s", vpk_last_error());
	CHECK(classify_one(a, 0x0a000201, 80) == 3, "10.0.2.1:80 -> 3");
	{
		/* 3000 more distinct /24 rules (random ones may be shadowed by a wildcard and fit). */
		static struct rule5 more[3000];
		int rc;

		for (uint32_t i = 0; i < 3000; i++) {
			good_rule(&more[i], i);
			more[i].field[1].value = 0x0b000000u + i * 256;
			more[i].field[4] = (struct vpk_acl_field){ i % 1000, i % 1000 + 5 };
		}
		CHECK(vpk_acl_add_rules(a, more, 3000) == 0, "3000 more");
		rc = vpk_acl_build(a);
		CHECK(rc == -ERANGE && strstr(vpk_last_error(), "max_size") != NULL,
		      "over max_size: rc %d '%s'", rc, vpk_last_error());
		CHECK(classify_one(a, 0x0a000201, 80) == 3, "old runtime still answers");
		/* A single added rule goes the delta way; over the limit, it fails the same way. */
		struct vpk_acl *b = mk(1, 0, 16384);
		struct vpk_acl_stats bst;

		CHECK(vpk_acl_add_rules(b, r, 4) == 0 && vpk_acl_build(b) == 0, "small build in 16 KiB");
		CHECK(vpk_acl_add_rules(b, more, 1) == 0 && vpk_acl_build(b) == 0, "delta within max_size");
		CHECK(vpk_acl_get_stats(b, &bst) == 0 && bst.rules == 5 && bst.trees == 2, "delta runtime: %u trees",
		      bst.trees);
		CHECK(vpk_acl_add_rules(b, more + 1, 1000) == 0, "1000 more");
		rc = vpk_acl_build(b);
		CHECK(rc == -ERANGE, "delta over max_size: rc %d '%s'", rc, vpk_last_error());
		CHECK(classify_one(b, 0x0a000201, 80) == 3, "old runtime still answers after a failed build");
		vpk_acl_destroy(b);
	}
	vpk_acl_destroy(a);
}

/* ---- runtime replacement under concurrent classify ---------------------- */

#define NP 64
struct conc {
	struct vpk_acl *a;
	struct ref_set *s[2];
	uint8_t pkt[NP][16];
	uint32_t want[2][NP];
	atomic_int stop;
	atomic_uint calls, bad;
};

static void *
reader(void *arg)
{
	struct conc *c = arg;
	const uint8_t *p[NP];
	uint32_t res[NP];

	for (int i = 0; i < NP; i++)
		p[i] = c->pkt[i];
	while (!atomic_load(&c->stop)) {
		vpk_acl_classify_bulk(c->a, p, res, NP, 1);
		if (memcmp(res, c->want[0], sizeof(res)) != 0 && memcmp(res, c->want[1], sizeof(res)) != 0)
			atomic_fetch_add(&c->bad, 1);
		atomic_fetch_add(&c->calls, 1);
	}
	return NULL;
}

static void
test_concurrent(void)
{
	static struct conc c;
	struct ref_set s0, s1;
	pthread_t th[2];

	ref_set_init(&s0, REF_IPV4, 1);
	ref_set_init(&s1, REF_IPV4, 1);
	ref_set_gen(&s0, 200, 1000000);
	ref_set_gen(&s1, 200, 1000000);
	c.a = mk(1, 0, 0);
	for (int i = 0; i < NP; i++) {
		ref_gen_packet(i & 1 ? &s1 : &s0, c.pkt[i]);
		ref_classify(&s0, c.pkt[i], &c.want[0][i], 1);
		ref_classify(&s1, c.pkt[i], &c.want[1][i], 1);
	}
	CHECK(vpk_acl_add_rules(c.a, s0.rules, s0.n) == 0 && vpk_acl_build(c.a) == 0, "first build");
	for (int t = 0; t < 2; t++)
		pthread_create(&th[t], NULL, reader, &c);
	for (int k = 0; k < 40; k++) {
		struct ref_set *s = k & 1 ? &s0 : &s1;

		vpk_acl_reset_rules(c.a);
		CHECK(vpk_acl_add_rules(c.a, s->rules, s->n) == 0, "re-add");
		CHECK(vpk_acl_build(c.a) == 0, "rebuild %d under load", k);
	}
	atomic_store(&c.stop, 1);
	for (int t = 0; t < 2; t++)
		pthread_join(th[t], NULL);
	CHECK(atomic_load(&c.bad) == 0, "%u of %u calls saw a mix of runtimes", atomic_load(&c.bad),
	      atomic_load(&c.calls));

	/* Single-rule additions (delta runtimes over the full build) under load. */
	{
		struct ref_set s2;
		const uint8_t *p[NP];
		uint32_t res[NP], want[NP];
		struct vpk_acl_stats st;

		ref_set_init(&s2, REF_IPV4, 1);
		ref_set_gen(&s2, 260, 1000000);
		vpk_acl_reset_rules(c.a);
		CHECK(vpk_acl_add_rules(c.a, s2.rules, 200) == 0 && vpk_acl_build(c.a) == 0, "base build");
		atomic_store(&c.stop, 0);
		c.want[0][0] = c.want[1][0] = UINT32_MAX;       /* readers only exercise lifetimes now */
		for (int t = 0; t < 2; t++)
			pthread_create(&th[t], NULL, reader, &c);
		for (uint32_t i = 200; i < 260; i++)
			CHECK(vpk_acl_add_rules(c.a, ref_rule(&s2, i), 1) == 0 && vpk_acl_build(c.a) == 0,
			      "add rule %u + build", i);
		atomic_store(&c.stop, 1);
		for (int t = 0; t < 2; t++)
			pthread_join(th[t], NULL);
		vpk_acl_get_stats(c.a, &st);
		CHECK(st.rules == 260 && st.trees >= 2, "delta runtime: %u rules, %u trees", st.rules, st.trees);
		for (int i = 0; i < NP; i++) {
			p[i] = c.pkt[i];
			ref_classify(&s2, c.pkt[i], &want[i], 1);
		}
		vpk_acl_classify_bulk(c.a, p, res, NP, 1);
		CHECK(memcmp(res, want, sizeof(res)) == 0, "after 60 single-rule builds: reference results");
		ref_set_free(&s2);
	}
	vpk_acl_destroy(c.a);
	ref_set_free(&s0);
	ref_set_free(&s1);
}

int
main(void)
{
	check_init("acl_api");
	test_layouts();
	test_rules();
	test_concurrent();
	return check_finish();
}
