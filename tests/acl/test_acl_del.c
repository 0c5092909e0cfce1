/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rule deletions (vpk_acl_del_rules) and incremental builds: random add /
 * delete / change / re-add sequences, checked after every build for every
 * usable variant against the brute-force reference over the rules stored at
 * that point; adversarial deletions (a full wildcard at the top, a rule that
 * shadows others, the top-priority rule, equal priorities, delete + re-add,
 * -ENOENT changing nothing, a patch too big -> full build); and deletions
 * while two threads classify, each call's results equal to the reference of
 * one of the runtimes published during the call.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/acl.h>

#include "acl/acl_int.h"
#include "acl/acl_ref.h"
#include "lib/check.h"

#define NP 131          /* packets per check: 3 classify chunks */
#define POISON 0xdeadbeefu

struct st {
	struct ref_set pool;    /* every rule ever used (packets aim at their corners) */
	struct ref_set cur;     /* the rules stored now, in insertion order */
	struct vpk_acl *acl;
	uint8_t *pkt[NP];
	uint32_t want[NP * 16];
	uint32_t ncat;
	const char *step;
	unsigned incremental, builds;
	unsigned full_trees;    /* trees of the first (full) build */
};

static size_t
rsz(const struct st *t)
{
	return VPK_ACL_RULE_SIZE(t->pool.nf);
}

static void
cur_append(struct st *t, const struct vpk_acl_rule *r)
{
	struct ref_set *c = &t->cur;

	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->rules = realloc(c->rules, (size_t)c->cap * rsz(t));
	}
	memcpy(ref_rule(c, c->n++), r, rsz(t));
}

/* Remove the first stored rule byte-equal to @p r, as vpk_acl_del_rules() does. */
static bool
cur_remove(struct st *t, const struct vpk_acl_rule *r)
{
	struct ref_set *c = &t->cur;

	for (uint32_t i = 0; i < c->n; i++)
		if (memcmp(ref_rule(c, i), r, rsz(t)) == 0) {
			memmove(ref_rule(c, i), ref_rule(c, i + 1), (size_t)(c->n - i - 1) * rsz(t));
			c->n--;
			return true;
		}
	return false;
}

static void
run_variant(void *arg, const struct vpk_impl *impl)
{
	struct st *t = arg;
	uint32_t got[(NP + 1) * 16];
	unsigned bad = 0;

	CHECK(vpk_acl_select(t->acl, impl->name) == 0, "set_impl %s", impl->name);
	for (size_t k = 0; k < sizeof(got) / sizeof(got[0]); k++)
		got[k] = POISON;
	vpk_acl_classify_bulk(t->acl, (const uint8_t *const *)t->pkt, got, NP, t->ncat);
	for (uint32_t i = 0; i < NP && bad < 3; i++)
		for (uint32_t c = 0; c < t->ncat; c++)
			if (got[i * t->ncat + c] != t->want[i * 16 + c]) {
				CHECK(0, "%s %s after '%s': pkt %u cat %u: got %u want %u", impl->name,
				      t->pool.name, t->step, i, c, got[i * t->ncat + c], t->want[i * 16 + c]);
				bad++;
				break;
			}
	CHECK(got[NP * t->ncat] == POISON, "%s: wrote past n", impl->name);
}

/* Build (a full build with @p opt's forced choices, or as vpk_acl_build() when NULL)
 * and compare every variant with the reference over t->cur. */
static void
build_check_opt(struct st *t, const char *step, const struct acl_build_opts *opt)
{
	struct vpk_acl_stats s;
	int rc = acl_build_with(t->acl, opt);

	t->step = step;
	CHECK(rc == 0, "%s: build after '%s': %d %s", t->pool.name, step, rc, vpk_last_error());
	CHECK(vpk_acl_rule_count(t->acl) == t->cur.n, "'%s': %u rules stored, want %u", step,
	      vpk_acl_rule_count(t->acl), t->cur.n);
	vpk_acl_get_stats(t->acl, &s);
	CHECK(s.rules == t->cur.n, "'%s': runtime has %u rules, want %u", step, s.rules, t->cur.n);
	if (t->builds == 0)
		t->full_trees = s.trees;
	t->incremental += s.incremental;
	t->builds++;
	for (uint32_t i = 0; i < NP; i++)
		ref_classify(&t->cur, t->pkt[i], t->want + i * 16, t->ncat);
	check_each_impl("acl-classify", vpk_acl_impls(), run_variant, t);
}

static void
build_check(struct st *t, const char *step)
{
	build_check_opt(t, step, NULL);
}

static void
st_init(struct st *t, enum ref_layout l, uint32_t ncat, uint32_t nrules, uint32_t prio_span)
{
	struct vpk_acl_conf conf = { 0 };

	memset(t, 0, sizeof(*t));
	ref_set_init(&t->pool, l, ncat);
	ref_set_init(&t->cur, l, ncat);
	ref_set_gen(&t->pool, nrules, prio_span);
	t->ncat = ncat;
	conf.num_fields = t->pool.nf;
	conf.defs = t->pool.defs;
	conf.num_categories = ncat;
	CHECK(vpk_acl_create(&conf, &t->acl) == 0, "create %s", t->pool.name);
	for (uint32_t i = 0; i < NP; i++)
		t->pkt[i] = check_guard_alloc(t->pool.buflen);
}

static void
st_packets(struct st *t)
{
	for (uint32_t i = 0; i < NP; i++)
		ref_gen_packet(&t->pool, t->pkt[i]);
}

/* Aim half of the packets at corners of rule @p r (where a deletion changes answers). */
static void
st_packets_at(struct st *t, const struct vpk_acl_rule *r)
{
	struct ref_set one = t->pool;

	one.rules = (uint8_t *)(uintptr_t)r;
	one.n = one.cap = 1;
	for (uint32_t i = 0; i < NP; i++)
		ref_gen_packet(i & 1 ? &t->pool : &one, t->pkt[i]);
}

static void
st_free(struct st *t)
{
	for (uint32_t i = 0; i < NP; i++)
		check_guard_free(t->pkt[i], t->pool.buflen);
	vpk_acl_destroy(t->acl);
	ref_set_free(&t->pool);
	ref_set_free(&t->cur);
}

static void
add(struct st *t, const struct vpk_acl_rule *r)
{
	CHECK(vpk_acl_add_rules(t->acl, r, 1) == 0, "add: %s", vpk_last_error());
	cur_append(t, r);
}

static void
del(struct st *t, const struct vpk_acl_rule *r)
{
	int rc = vpk_acl_del_rules(t->acl, r, 1);

	CHECK(rc == 0, "del: %d %s", rc, vpk_last_error());
	CHECK(cur_remove(t, r), "reference has the rule");
}

/*
 * Random sequences: a full build of the first part of the pool, then steps
 * of 1-3 operations (delete a random stored rule, add a pool rule, change a
 * rule = delete + add a modified copy, re-add a just-deleted rule), a build
 * and a check after each step.
 */
static void
random_ops(enum ref_layout l, uint32_t ncat, uint32_t nrules, uint32_t prio_span, unsigned steps,
	   int plan, unsigned spill /* of the full build: acl_build_opts */)
{
	const struct acl_build_opts full = { .plan = plan, .spill = spill, .copies = -1 };
	struct st t;
	uint32_t next;
	uint8_t *tmp;

	st_init(&t, l, ncat, nrules + steps * 2, prio_span);
	tmp = malloc(rsz(&t));
	st_packets(&t);
	for (next = 0; next < nrules; next++)
		add(&t, ref_rule(&t.pool, next));
	build_check_opt(&t, "full build", plan < 0 && spill == 0 ? NULL : &full);
	for (unsigned s = 0; s < steps; s++) {
		unsigned nops = 1 + (unsigned)check_rand_range(3);

		for (unsigned o = 0; o < nops; o++) {
			unsigned op = (unsigned)check_rand_range(4);

			if (t.cur.n == 0 || (op == 1 && next < t.pool.n)) {
				if (next < t.pool.n)
					add(&t, ref_rule(&t.pool, next++));
			} else if (op == 2) {
				/* change: delete + add a copy with a new userdata */
				struct vpk_acl_rule *r = (struct vpk_acl_rule *)(void *)tmp;

				memcpy(tmp, ref_rule(&t.cur, (uint32_t)check_rand_range(t.cur.n)), rsz(&t));
				del(&t, r);
				r->userdata += 100000;
				r->priority = 1 + (uint32_t)check_rand_range(prio_span);
				add(&t, r);
			} else {
				memcpy(tmp, ref_rule(&t.cur, (uint32_t)check_rand_range(t.cur.n)), rsz(&t));
				del(&t, (struct vpk_acl_rule *)(void *)tmp);
				if (op == 3)
					add(&t, (struct vpk_acl_rule *)(void *)tmp);    /* re-add: now last */
			}
		}
		if (s % 16 == 15)
			st_packets(&t);         /* aim at the corners of different rules */
		build_check(&t, "random step");
	}
	printf("  %s, %u rules, %u categories, priorities 1..%u, plan %d (%u trees): %u builds, %u incremental\n",
	       t.pool.name, nrules, ncat, prio_span, plan, t.full_trees, t.builds, t.incremental);
	CHECK(t.incremental * 2 > t.builds, "most builds incremental (%u of %u)", t.incremental, t.builds);
	free(tmp);
	st_free(&t);
}

/* A rule with every field wild (priority @p prio, userdata @p ud). */
static void
wildcard(struct st *t, struct vpk_acl_rule *r, uint32_t prio, uint32_t ud)
{
	memset(r, 0, rsz(t));
	r->category_mask = 0xffff;
	r->priority = prio;
	r->userdata = ud;
	for (uint32_t k = 0; k < t->pool.nf; k++) {
		const struct vpk_acl_field_def *d = &t->pool.defs[k];
		struct vpk_acl_field *f = &r->field[d->field_index];

		if (d->type == VPK_ACL_FIELD_RANGE)
			f->mask_range = d->size == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * d->size)) - 1;
	}
}

static void
adversarial(enum ref_layout l)
{
	struct st t;
	uint8_t *w, *w2, *tmp;
	struct vpk_acl_stats s;
	uint32_t top = 0;

	st_init(&t, l, 4, 400, 8);      /* few priorities: many ties */
	w = calloc(1, rsz(&t));
	w2 = calloc(1, rsz(&t));
	tmp = calloc(1, rsz(&t));
	/* A top-priority wildcard first (shadows everything), one in the middle. */
	wildcard(&t, (struct vpk_acl_rule *)(void *)w, VPK_ACL_MAX_PRIORITY, 900001);
	wildcard(&t, (struct vpk_acl_rule *)(void *)w2, 5, 900002);
	add(&t, (struct vpk_acl_rule *)(void *)w);
	for (uint32_t i = 0; i < 200; i++)
		add(&t, ref_rule(&t.pool, i));
	add(&t, (struct vpk_acl_rule *)(void *)w2);
	for (uint32_t i = 200; i < 300; i++)
		add(&t, ref_rule(&t.pool, i));
	st_packets(&t);
	build_check(&t, "full build with wildcards");

	del(&t, (struct vpk_acl_rule *)(void *)w);
	build_check(&t, "delete the top wildcard");
	vpk_acl_get_stats(t.acl, &s);
	CHECK(s.incremental == 1 && s.deleted_rules == 1 && s.update_rules > 0,
	      "incremental: %u, deleted %u, update tree %u rules", s.incremental, s.deleted_rules,
	      s.update_rules);
	del(&t, (struct vpk_acl_rule *)(void *)w2);
	build_check(&t, "delete the middle wildcard (shadows lower rules)");
	/* The best-priority stored rule, first added among them. */
	for (uint32_t i = 1; i < t.cur.n; i++)
		if (ref_rule(&t.cur, i)->priority > ref_rule(&t.cur, top)->priority)
			top = i;
	memcpy(tmp, ref_rule(&t.cur, top), rsz(&t));
	del(&t, (struct vpk_acl_rule *)(void *)tmp);
	build_check(&t, "delete the top-priority rule");
	add(&t, (struct vpk_acl_rule *)(void *)tmp);
	build_check(&t, "re-add it (now last among equals)");
	/* Equal priorities: delete the first of a tie, the second must win now. */
	for (uint32_t i = 0; i < 20 && t.cur.n > 0; i++) {
		memcpy(tmp, ref_rule(&t.cur, (uint32_t)check_rand_range(t.cur.n / 4 + 1)), rsz(&t));
		del(&t, (struct vpk_acl_rule *)(void *)tmp);
	}
	build_check(&t, "20 deletes among ties in one build");
	/* A rule added by an incremental build, then deleted. */
	add(&t, ref_rule(&t.pool, 300));
	build_check(&t, "add one");
	del(&t, ref_rule(&t.pool, 300));
	build_check(&t, "delete the added one");
	/* Duplicates: added twice, deleted once, one copy stays. */
	add(&t, ref_rule(&t.pool, 301));
	add(&t, ref_rule(&t.pool, 301));
	build_check(&t, "add a rule twice");
	del(&t, ref_rule(&t.pool, 301));
	build_check(&t, "delete one copy");
	/* -ENOENT: nothing changes. */
	{
		uint32_t before = vpk_acl_rule_count(t.acl);
		size_t r = rsz(&t);
		uint8_t *two = malloc(2 * r);

		memcpy(two, ref_rule(&t.cur, 0), r);
		memcpy(two + r, ref_rule(&t.pool, 399), r);     /* never added */
		CHECK(vpk_acl_del_rules(t.acl, two, 2) == -ENOENT, "-ENOENT for an absent rule");
		CHECK(strstr(vpk_last_error(), "rule 1") != NULL, "reason names rule 1: %s",
		      vpk_last_error());
		CHECK(vpk_acl_rule_count(t.acl) == before, "nothing deleted");
		build_check(&t, "after -ENOENT");
		CHECK(vpk_acl_del_rules(t.acl, two, 0) == 0, "n = 0 is a no-op");
		CHECK(vpk_acl_del_rules(NULL, two, 1) == -EINVAL, "NULL acl");
		CHECK(vpk_acl_del_rules(t.acl, NULL, 1) == -EINVAL, "NULL rules");
		((struct vpk_acl_rule *)(void *)two)->userdata = 0;
		CHECK(vpk_acl_del_rules(t.acl, two, 1) == -EINVAL, "invalid rule: -EINVAL");
		free(two);
	}
	/* Reset, full build, deletions again. */
	vpk_acl_reset_rules(t.acl);
	t.cur.n = 0;
	for (uint32_t i = 0; i < 100; i++)
		add(&t, ref_rule(&t.pool, i));
	build_check(&t, "rebuild after reset");
	del(&t, ref_rule(&t.pool, 7));
	build_check(&t, "delete after reset");
	free(w);
	free(w2);
	free(tmp);
	st_free(&t);
}

/*
 * Many wide rules (wild but for one field) that spill into later trees and
 * cover whole nodes there, deleted one by one in random order: the rules
 * they hid in every tree must come back.
 */
static void
wide_rules(enum ref_layout l, int plan)
{
	struct st t;
	uint32_t nw = 60, order[60];

	st_init(&t, l, 2, 200 + nw, 1000);
	for (uint32_t i = 0; i < nw; i++) {
		struct vpk_acl_rule *r = ref_rule(&t.pool, 200 + i);
		const struct vpk_acl_rule *o = ref_rule(&t.pool, (uint32_t)check_rand_range(200));
		uint32_t prio = 1 + (uint32_t)check_rand_range(1000), ud = r->userdata;
		const struct vpk_acl_field_def *d = &t.pool.defs[check_rand_range(t.pool.nf)];

		wildcard(&t, r, prio, ud);
		r->category_mask = 1 + (uint32_t)check_rand_range(3);
		r->field[d->field_index] = o->field[d->field_index];
		order[i] = 200 + i;
	}
	for (uint32_t i = 0; i < t.pool.n; i++)
		add(&t, ref_rule(&t.pool, i));
	st_packets(&t);
	/* The 6-tree plan spills at 32: these 60 would stay. */
	const struct acl_build_opts full = { .plan = plan, .spill = plan == 2 ? 8 : 0, .copies = -1 };

	build_check_opt(&t, "full build with wide rules", &full);
	for (uint32_t i = nw - 1; i > 0; i--) {
		uint32_t j = (uint32_t)check_rand_range(i + 1), x = order[i];

		order[i] = order[j];
		order[j] = x;
	}
	for (uint32_t i = 0; i < nw; i++) {
		st_packets_at(&t, ref_rule(&t.pool, order[i]));
		del(&t, ref_rule(&t.pool, order[i]));
		build_check(&t, "delete a wide rule");
	}
	printf("  %s wide rules, plan %d (%u trees): %u builds, %u incremental\n", t.pool.name, plan,
	       t.full_trees, t.builds, t.incremental);
	st_free(&t);
}

/* Deleting a wildcard above > 1024 rules: the patch is too big, a full build runs. */
static void
fallback(void)
{
	struct st t;
	uint8_t *w;
	struct vpk_acl_stats s;

	st_init(&t, REF_IPV4, 1, 1300, 1000000);
	/* No pool rule may cover everything (it would hide the rest itself). */
	for (uint32_t i = 0; i < t.pool.n; i++) {
		struct vpk_acl_field *f = &ref_rule(&t.pool, i)->field[t.pool.defs[0].field_index];

		f->value = 6;
		f->mask_range = 0xff;
	}
	w = calloc(1, rsz(&t));
	wildcard(&t, (struct vpk_acl_rule *)(void *)w, VPK_ACL_MAX_PRIORITY, 900001);
	add(&t, (struct vpk_acl_rule *)(void *)w);
	for (uint32_t i = 0; i < 1300; i++)
		add(&t, ref_rule(&t.pool, i));
	st_packets(&t);
	build_check(&t, "full build");
	del(&t, (struct vpk_acl_rule *)(void *)w);
	build_check(&t, "delete a wildcard hiding 1300 rules");
	vpk_acl_get_stats(t.acl, &s);
	CHECK(s.incremental == 0 && s.fallback == VPK_ACL_FALLBACK_SIZE,
	      "full build with fallback SIZE (incremental %u, fallback %u)", s.incremental, s.fallback);
	del(&t, ref_rule(&t.pool, 5));
	build_check(&t, "delete after the fallback");
	vpk_acl_get_stats(t.acl, &s);
	CHECK(s.incremental == 1, "incremental again");
	free(w);
	st_free(&t);
}

/* ---- update-tree plans on overlapping wide rules -------------------------- */

/* Fixed-seed PRNG: the wide rules (and so the update tree's shape) are the
 * same whatever the test's seed, so the plan check below is deterministic. */
static uint32_t
wide_rand(uint64_t *x, uint32_t n)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return (uint32_t)(*x % n);
}

/* Make @p r a wide rule crossing the others (REF_IPV4): every second one a
 * wildcard source and a /8../16 destination, the others the other way round,
 * any source port, destination ports [1..1023, +1024 or more], half of them
 * any protocol (else TCP); every category, a random priority. */
static void
widen(struct vpk_acl_rule *r, uint32_t i, uint64_t *x)
{
	uint32_t len = 8 + wide_rand(x, 9), lo = 1 + wide_rand(x, 1023);
	uint32_t hi = lo + 1024 + wide_rand(x, 63000);

	r->field[0] = i & 2 ? (struct vpk_acl_field){ 0, 0 } : (struct vpk_acl_field){ 6, 0xff };
	r->field[1 + (i & 1)] = (struct vpk_acl_field){ 0, 0 };
	r->field[2 - (i & 1)] = (struct vpk_acl_field){ wide_rand(x, UINT32_MAX) & ~0u << (32 - len), len };
	r->field[3] = (struct vpk_acl_field){ 0, 65535 };
	r->field[4] = (struct vpk_acl_field){ lo, hi > 65535 ? 65535 : hi };
	r->category_mask = 0xf;
	r->priority = 1 + wide_rand(x, 1000000);
}

/*
 * 1000 overlapping wide rules added over a full build (one update tree of
 * 1000 rules, ~100 of them above every rule of the full build: ranked in the
 * gap above its best rule), then changes of them (the update tree rebuilt
 * each time), every variant against the reference after every build. And the size of
 * what the update plans (acl_build.c uplans[]) build, in rule copies stored
 * in leaves (the build time is about proportional, but timed tests are not
 * allowed): at most COPIES per rule of the set (here ~1.7: two spilling
 * trees; a one-tree plan kept beyond its copy limit would store up to 24
 * per wide rule).
 */
static void
wide_update_tree(void)
{
	enum { NBASE = 300, NWIDE = 1000, NCHG = 3, COPIES = 4 };
	struct vpk_acl_stats s;
	uint64_t x = 0x9e3779b97f4a7c15u;
	struct st t;
	uint8_t *tmp;

	st_init(&t, REF_IPV4, 4, NBASE, 1000000);
	for (uint32_t i = 0; i < NBASE; i++)    /* below the best wide rules, whatever the seed */
		if (ref_rule(&t.pool, i)->priority > 900000)
			ref_rule(&t.pool, i)->priority = 900000;
	ref_set_gen(&t.pool, NWIDE + NCHG + 1, 1000000);
	for (uint32_t i = NBASE; i < t.pool.n; i++)
		widen(ref_rule(&t.pool, i), i, &x);
	tmp = malloc(rsz(&t));
	for (uint32_t i = 0; i < NBASE; i++)
		add(&t, ref_rule(&t.pool, i));
	st_packets(&t);
	build_check(&t, "full build under wide rules");
	CHECK(vpk_acl_add_rules(t.acl, ref_rule(&t.pool, NBASE), NWIDE) == 0, "add %u wide rules: %s", NWIDE,
	      vpk_last_error());
	for (uint32_t i = NBASE; i < NBASE + NWIDE; i++)
		cur_append(&t, ref_rule(&t.pool, i));
	build_check(&t, "1000 wide rules added");
	vpk_acl_get_stats(t.acl, &s);
	CHECK(s.incremental == 1 && s.update_rules == NWIDE, "one update tree (incremental %u, %u rules, "
	      "fallback %u, %u trees)", s.incremental, s.update_rules, s.fallback, s.trees);
	for (uint32_t c = 0; c < NCHG; c++) {
		uint32_t j = NBASE + c;

		/* change wide rule j: delete it, add a copy with other ports and userdata */
		memcpy(tmp, ref_rule(&t.pool, j), rsz(&t));
		del(&t, ref_rule(&t.pool, j));
		((struct vpk_acl_rule *)(void *)tmp)->field[4].value = 7 + c;
		((struct vpk_acl_rule *)(void *)tmp)->userdata = ref_rule(&t.pool, NBASE + NWIDE + c)->userdata;
		memcpy(ref_rule(&t.pool, NBASE + NWIDE + c), tmp, rsz(&t));
		add(&t, ref_rule(&t.pool, NBASE + NWIDE + c));
		build_check(&t, "change of a wide rule");
		vpk_acl_get_stats(t.acl, &s);
		CHECK(s.incremental == 1 && s.update_rules == NWIDE, "still one update tree (%u, %u rules)",
		      s.incremental, s.update_rules);
		CHECK(s.leaf_rules <= (uint64_t)COPIES * (NBASE + NWIDE), "%llu rule copies in leaves for %u rules: "
		      "more than %u per rule", (unsigned long long)s.leaf_rules, NBASE + NWIDE, COPIES);
	}
	free(tmp);
	st_free(&t);
}

/*
 * A frozen tree of more than 1024 rules (only full builds above 8192 rules
 * allow one; the update plans start it at two spilling trees): 9000 narrow
 * rules, 1100 of them in category 1 under a category-1 top wildcard that is
 * then deleted (all 1100 become patch rules and are frozen); then deletions
 * of frozen rules. Every variant against the reference after every build.
 */
static void
big_freeze(void)
{
	enum { N = 9000, NHID = 1100 };
	uint64_t x = 7;
	struct vpk_acl_stats s;
	struct vpk_acl_rule *w;
	struct st t;

	st_init(&t, REF_IPV4, 2, N, 1000000);
	for (uint32_t i = 0; i < N; i++) {
		struct vpk_acl_rule *r = ref_rule(&t.pool, i);
		uint32_t port = wide_rand(&x, 65536);

		r->field[0] = (struct vpk_acl_field){ 6, 0xff };
		r->field[1] = (struct vpk_acl_field){ wide_rand(&x, UINT32_MAX), 32 };
		r->field[2] = (struct vpk_acl_field){ wide_rand(&x, UINT32_MAX) & ~0xffu, 24 };
		r->field[3] = (struct vpk_acl_field){ 0, 65535 };
		r->field[4] = (struct vpk_acl_field){ port, port };
		r->category_mask = i < NHID ? 1 : 2;
		r->priority = 1 + wide_rand(&x, 1000000);
	}
	w = calloc(1, rsz(&t));
	wildcard(&t, w, VPK_ACL_MAX_PRIORITY, 900001);
	w->category_mask = 1;
	add(&t, w);
	for (uint32_t i = 0; i < N; i++)
		add(&t, ref_rule(&t.pool, i));
	st_packets(&t);
	build_check(&t, "full build of 9000 rules");
	del(&t, w);
	build_check(&t, "delete a wildcard hiding 1100 rules");
	vpk_acl_get_stats(t.acl, &s);
	CHECK(s.incremental == 1 && s.update_rules == NHID, "one frozen tree of %u rules (incremental %u, %u "
	      "rules, fallback %u)", NHID, s.incremental, s.update_rules, s.fallback);
	for (uint32_t k = 0; k < 3; k++) {
		del(&t, ref_rule(&t.pool, 100 + 300 * k));
		build_check(&t, "delete a frozen rule");
	}
	free(w);
	st_free(&t);
}

/* ---- deletions while two threads classify -------------------------------- */

#define STEPS 40

struct conc {
	struct st *t;
	uint32_t want[STEPS + 1][NP];
	_Atomic unsigned ver;   /* last step whose runtime is published */
	atomic_int stop;
	atomic_uint calls, bad;
};

static void *
reader(void *arg)
{
	struct conc *c = arg;
	uint32_t res[NP];

	while (!atomic_load(&c->stop)) {
		unsigned v0 = atomic_load(&c->ver), v1, ok = 0;

		vpk_acl_classify_bulk(c->t->acl, (const uint8_t *const *)c->t->pkt, res, NP, 1);
		v1 = atomic_load(&c->ver) + 1;  /* the next step may be published already */
		for (unsigned v = v0; v <= v1 && v <= STEPS && !ok; v++)
			ok = memcmp(res, c->want[v], sizeof(res)) == 0;
		if (!ok)
			atomic_fetch_add(&c->bad, 1);
		atomic_fetch_add(&c->calls, 1);
	}
	return NULL;
}

static void
concurrent(void)
{
	static struct conc c;
	struct st t;
	pthread_t th[2];
	uint32_t order[STEPS];
	unsigned incr = 0;

	st_init(&t, REF_IPV4, 1, 300, 1000000);
	c.t = &t;
	for (uint32_t i = 0; i < 300; i++)
		add(&t, ref_rule(&t.pool, i));
	st_packets(&t);
	/* Expected results of every step: step s deletes rule order[s - 1]. */
	for (unsigned s = 0; s < STEPS; s++)
		order[s] = (uint32_t)check_rand_range(300 - s);
	{
		struct ref_set save = t.cur;

		t.cur.rules = malloc((size_t)t.cur.cap * rsz(&t));
		memcpy(t.cur.rules, save.rules, (size_t)t.cur.n * rsz(&t));
		for (unsigned s = 0; s <= STEPS; s++) {
			if (s > 0)
				cur_remove(&t, ref_rule(&t.cur, order[s - 1]));
			for (uint32_t i = 0; i < NP; i++)
				ref_classify(&t.cur, t.pkt[i], &c.want[s][i], 1);
		}
		free(t.cur.rules);
		t.cur = save;
	}
	CHECK(vpk_acl_build(t.acl) == 0, "first build");
	for (int k = 0; k < 2; k++)
		pthread_create(&th[k], NULL, reader, &c);
	for (unsigned s = 1; s <= STEPS; s++) {
		struct vpk_acl_stats st;

		del(&t, ref_rule(&t.cur, order[s - 1]));
		CHECK(vpk_acl_build(t.acl) == 0, "build step %u", s);
		atomic_store(&c.ver, s);
		vpk_acl_get_stats(t.acl, &st);
		incr += st.incremental;
	}
	atomic_store(&c.stop, 1);
	for (int k = 0; k < 2; k++)
		pthread_join(th[k], NULL);
	printf("  concurrent: %u deletions (%u incremental), %u classify calls meanwhile\n", STEPS, incr,
	       atomic_load(&c.calls));
	CHECK(atomic_load(&c.bad) == 0, "%u of %u calls matched no published rule set",
	      atomic_load(&c.bad), atomic_load(&c.calls));
	st_free(&t);
}

int
main(void)
{
	check_init("acl_del");
	for (int l = 0; l < REF_NLAYOUTS; l++) {
		random_ops((enum ref_layout)l, 4, 200, 1000000, 25, -1, 0);
		random_ops((enum ref_layout)l, 16, 300, 8, 20, -1, 0);    /* ties */
		adversarial((enum ref_layout)l);
	}
	random_ops(REF_IPV4, 1, 2000, 1000000, 15, -1, 0);            /* bigger trees */
	random_ops(REF_IPV4, 4, 600, 1000000, 30, 1, 0);              /* full build: 2 spill trees */
	random_ops(REF_IPV6, 4, 600, 50, 30, 2, 0);                   /* full build: up to 6 trees */
	random_ops(REF_IPV4, 4, 600, 50, 20, 2, 4);                   /* ...and with all 6 used */
	random_ops(REF_IPV4, 4, 600, 50, 20, 3, 0);                   /* the 8-tree fallback plan */
	for (int l = 0; l < REF_NLAYOUTS; l++)                         /* full build: the partition plan */
		random_ops((enum ref_layout)l, 4, 600, 50, 20, 5, 0);
	for (int l = 0; l < REF_NLAYOUTS; l++)                         /* ...with its trees in big leaves */
		random_ops((enum ref_layout)l, 4, 600, 50, 20, 6, 0);
	for (int l = 0; l < REF_NLAYOUTS; l++) {
		wide_rules((enum ref_layout)l, l & 1 ? 1 : 2);
		wide_rules((enum ref_layout)l, 5);
	}
	fallback();
	wide_update_tree();
	big_freeze();
	concurrent();
	return check_finish();
}
