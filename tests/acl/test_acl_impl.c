/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk_acl_classify_bulk_impl(): one call with a variant other than the
 * context's. Every usable variant gives the results of the context's own
 * variant and of the brute-force reference (random rule sets over three
 * layouts, 1/4/16 categories) and leaves the context's variant as it was;
 * unusable ones (CPU, OS, cap) and entries that are not ACL variants are
 * refused without classifying; two reader threads with different variants
 * run against rebuilds.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/acl.h>
#include <vpk/error.h>
#include <vpk/isa.h>

#include "acl/acl_ref.h"
#include "lib/check.h"

#define NPKT   300
#define POISON 0xdeadbeefu

static struct vpk_acl *
mk(const struct ref_set *s)
{
	struct vpk_acl_conf c = { .num_fields = s->nf, .defs = s->defs, .num_categories = s->ncat };
	struct vpk_acl *a = NULL;

	CHECK(vpk_acl_create(&c, &a) == 0, "create %s", s->name);
	return a;
}

static uint8_t **
packets(const struct ref_set *s, uint32_t n)
{
	uint8_t **p = calloc(n, sizeof(*p));

	for (uint32_t i = 0; i < n; i++) {
		p[i] = calloc(1, s->buflen);
		ref_gen_packet(s, p[i]);
	}
	return p;
}

static void
free_packets(uint8_t **p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		free(p[i]);
	free(p);
}

/* Every entry of vpk_acl_impls() against the context's variant and the reference. */
static void
test_equal(enum ref_layout l, uint32_t ncat)
{
	const struct vpk_impl *const *t = vpk_acl_impls();
	uint32_t *def = malloc(sizeof(*def) * NPKT * ncat), *got = malloc(sizeof(*got) * NPKT * ncat);
	uint32_t want[VPK_ACL_MAX_CATEGORIES];
	struct ref_set s;
	struct vpk_acl *a;
	uint8_t **p;
	const char *own;
	unsigned ran = 0;

	ref_set_init(&s, l, ncat);
	ref_set_gen(&s, 400, 1000000);
	a = mk(&s);
	p = packets(&s, NPKT);
	CHECK(vpk_acl_add_rules(a, s.rules, s.n) == 0 && vpk_acl_build(a) == 0, "%s: build", s.name);
	own = vpk_acl_impl_name(a);
	vpk_acl_classify_bulk(a, (const uint8_t *const *)p, def, NPKT, ncat);
	for (uint32_t i = 0; i < NPKT; i++) {
		ref_classify(&s, p[i], want, ncat);
		if (memcmp(want, def + (size_t)i * ncat, ncat * sizeof(*want)) != 0) {
			CHECK(0, "%s: context's variant %s differs from the reference at packet %u", s.name, own, i);
			break;
		}
	}
	for (unsigned k = 0; t[k] != NULL; k++) {
		const char *why = vpk_impl_why_not(t[k]);
		int rc;

		for (size_t i = 0; i < (size_t)NPKT * ncat; i++)
			got[i] = POISON;
		rc = vpk_acl_classify_bulk_impl(a, t[k], (const uint8_t *const *)p, got, NPKT, ncat);
		if (why != NULL) {
			CHECK(rc == -ENOTSUP && got[0] == POISON && vpk_last_error()[0] != 0,
			      "%s: unusable %s (%s) refused: rc %d, \"%s\"", s.name, t[k]->name, why, rc,
			      vpk_last_error());
			check_variant_skipped("acl-classify-impl", t[k]->name, why);
			continue;
		}
		ran++;
		check_variant_ran("acl-classify-impl", t[k]->name);
		CHECK(rc == 0, "%s: %s rc %d", s.name, t[k]->name, rc);
		CHECK(memcmp(got, def, sizeof(*got) * NPKT * ncat) == 0,
		      "%s cats %u: %s gives the results of the context's variant %s", s.name, ncat, t[k]->name, own);
		CHECK(strcmp(vpk_acl_impl_name(a), own) == 0, "%s: context's variant still %s (is %s)", s.name, own,
		      vpk_acl_impl_name(a));
	}
	CHECK(ran >= 1, "%s: at least the scalar variant ran", s.name);
	vpk_acl_destroy(a);
	free_packets(p, NPKT);
	ref_set_free(&s);
	free(def);
	free(got);
}

/* NULL arguments, entries of other tables, a copy of an entry, no runtime yet, a lowered cap. */
static void
test_refused(void)
{
	const struct vpk_impl *const *t = vpk_acl_impls();
	const struct vpk_kernel *kern;
	struct vpk_impl copy = *t[0];
	uint32_t res[4] = { POISON, POISON, POISON, POISON };
	struct ref_set s;
	struct vpk_acl *a;
	uint8_t **p;
	size_t nk;
	unsigned cap = vpk_get_max_simd_bitwidth();

	ref_set_init(&s, REF_IPV4, 1);
	ref_set_gen(&s, 50, 1000000);
	a = mk(&s);
	p = packets(&s, 4);
	CHECK(vpk_acl_classify_bulk_impl(a, t[0], (const uint8_t *const *)p, res, 4, 1) ==
		      (vpk_impl_why_not(t[0]) == NULL ? 0 : -ENOTSUP), "before a build: rc");
	if (vpk_impl_why_not(t[0]) == NULL)
		CHECK(res[0] == 0 && res[3] == 0, "before a build: results 0");
	res[0] = POISON;
	CHECK(vpk_acl_classify_bulk_impl(NULL, t[0], (const uint8_t *const *)p, res, 4, 1) == -EINVAL,
	      "NULL context: -EINVAL");
	CHECK(vpk_acl_classify_bulk_impl(a, NULL, (const uint8_t *const *)p, res, 4, 1) == -EINVAL,
	      "NULL variant: -EINVAL");
	CHECK(vpk_acl_classify_bulk_impl(a, &copy, (const uint8_t *const *)p, res, 4, 1) == -EINVAL,
	      "a copy of %s: -EINVAL", copy.name);
	CHECK(strstr(vpk_last_error(), "vpk_acl_impls") != NULL, "reason: %s", vpk_last_error());
	kern = vpk_kernels(&nk);
	for (size_t k = 0; k < nk; k++)
		if (strcmp(kern[k].name, "acl-classify") != 0 && kern[k].impls[0] != NULL) {
			CHECK(vpk_acl_classify_bulk_impl(a, kern[k].impls[0], (const uint8_t *const *)p, res, 4, 1) ==
				      -EINVAL, "variant %s of %s: -EINVAL", kern[k].impls[0]->name, kern[k].name);
			break;
		}
	CHECK(res[0] == POISON, "nothing classified by a refused call");

	/* Under a 64-bit cap only the scalar variant runs; the context's own keeps running. */
	CHECK(vpk_acl_add_rules(a, s.rules, s.n) == 0 && vpk_acl_build(a) == 0, "build");
	if (vpk_set_max_simd_bitwidth(64) == 0) {
		for (unsigned k = 0; t[k] != NULL; k++) {
			int rc = vpk_acl_classify_bulk_impl(a, t[k], (const uint8_t *const *)p, res, 4, 1);

			CHECK(rc == (t[k]->width <= 64 && vpk_impl_why_not(t[k]) == NULL ? 0 : -ENOTSUP),
			      "cap 64: %s rc %d", t[k]->name, rc);
		}
		vpk_acl_classify_bulk(a, (const uint8_t *const *)p, res, 4, 1);
		vpk_set_max_simd_bitwidth(cap);
	}
	vpk_acl_destroy(a);
	free_packets(p, 4);
	ref_set_free(&s);
}

struct conc {
	struct vpk_acl *a;
	const struct vpk_impl *impl[2];
	const uint8_t *const *p;
	const uint32_t *want;
	atomic_int stop;
	atomic_uint calls, bad;
};

struct reader_arg {
	struct conc *c;
	int k;
};

static void *
reader(void *arg)
{
	struct reader_arg *r = arg;
	struct conc *c = r->c;
	uint32_t res[NPKT];

	while (!atomic_load(&c->stop)) {
		if (vpk_acl_classify_bulk_impl(c->a, c->impl[r->k], c->p, res, NPKT, 1) != 0 ||
		    memcmp(res, c->want, sizeof(res)) != 0)
			atomic_fetch_add(&c->bad, 1);
		atomic_fetch_add(&c->calls, 1);
	}
	return NULL;
}

/* Two readers, each with its own variant, while the writer rebuilds the same rules. */
static void
test_concurrent(void)
{
	static struct conc c;
	struct reader_arg ra[2] = { { &c, 0 }, { &c, 1 } };
	const struct vpk_impl *const *t = vpk_acl_impls();
	uint32_t want[NPKT];
	struct ref_set s;
	pthread_t th[2];
	uint8_t **p;
	unsigned n = 0;

	ref_set_init(&s, REF_IPV4, 1);
	ref_set_gen(&s, 300, 1000000);
	c.a = mk(&s);
	p = packets(&s, NPKT);
	for (uint32_t i = 0; i < NPKT; i++)
		ref_classify(&s, p[i], &want[i], 1);
	c.p = (const uint8_t *const *)p;
	c.want = want;
	for (unsigned k = 0; t[k] != NULL; k++)
		if (vpk_impl_why_not(t[k]) == NULL)
			c.impl[n == 0 ? 0 : 1] = t[k], n++;     /* the best and the last usable (scalar) */
	if (n == 1)
		c.impl[1] = c.impl[0];
	CHECK(vpk_acl_add_rules(c.a, s.rules, s.n) == 0 && vpk_acl_build(c.a) == 0, "first build");
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, reader, &ra[i]);
	for (int k = 0; k < 30; k++) {
		vpk_acl_reset_rules(c.a);
		CHECK(vpk_acl_add_rules(c.a, s.rules, s.n) == 0 && vpk_acl_build(c.a) == 0, "rebuild %d", k);
	}
	atomic_store(&c.stop, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	CHECK(atomic_load(&c.bad) == 0, "%s and %s readers: %u of %u calls wrong", c.impl[0]->name, c.impl[1]->name,
	      atomic_load(&c.bad), atomic_load(&c.calls));
	vpk_acl_destroy(c.a);
	free_packets(p, NPKT);
	ref_set_free(&s);
}

int
main(void)
{
	static const uint32_t cats[] = { 1, 4, 16 };

	check_init("acl_impl");
	for (unsigned i = 0; i < 3; i++) {
		test_equal(REF_IPV4, cats[i]);
		test_equal(REF_WIDE, cats[i]);
		test_equal(REF_IPV6, cats[i]);
	}
	test_refused();
	test_concurrent();
	return check_finish();
}
