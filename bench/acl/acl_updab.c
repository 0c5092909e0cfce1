/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk-acl-updab: A/B of the plans that update and frozen trees are built
 * with, in one process. Two contexts get the same rules and the same
 * updates, alternately: "old" builds its update / frozen trees with the
 * full build's plans (acl_build_update_full_plans = 1, the behaviour before
 * session 8), "new" with the update plans (acl_build.c, uplans[]). Per
 * update it times the del/add calls plus vpk_acl_build() (wall, and the
 * thread's CPU time, CLOCK_THREAD_CPUTIME_ID), then compares classify
 * cycles per packet of the two updated runtimes (alternating, burst 256)
 * and checks both against the oracle over the rules stored at the end.
 *
 * Cases (--case, default all):
 *   wide-add  acl 10k (--rules), then --wide W (1000) wide rules added
 *             (fw-profile rules, every second one with a wildcard source
 *             and a /8../16 destination, the others the other way round,
 *             any source port, destination ports [1..1023, +1024 or more],
 *             random priorities), one build: an update tree of W rules; then
 *             --changes C single-rule changes of those wide rules, each
 *             rebuilding that update tree;
 *   cross-add the same with uniformly random prefixes (every source-wild
 *             rule crosses every destination-wild one: no one-tree plan
 *             fits, as in tests/acl/test_acl_del.c wide_update_tree());
 *   fw-add    the same with fw-profile rules as generated;
 *   wide-del  acl 100k (--big-rules) plus --tops K (8) top-priority wide
 *             rules (a random rule's /16 or /20 destination, every other
 *             field wildcard) in the full build, then deleted one by one:
 *             each deletion patches the rules it hid (frozen tree);
 *   change    acl 10k, --changes C random single-rule changes (another
 *             destination port and userdata), as vpk-acl-bench --updates;
 *   full      (not in all) full builds of generated sets: shape and hash.
 * Output: JSON, one object per case and side (old / new).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include <vpk/acl.h>
#include <vpk/acl_file.h>
#include <vpk/acl_gen.h>

#include "core/num.h"
#include "acl/acl_int.h"
#include "acl/acl_rules.h"
#include "bench.h"

struct opts {
	uint32_t rules, big_rules, wide, tops, changes, trace;
	uint64_t seed;
	const char *cases;
};

/* One context of the A/B and its measurements. */
struct side {
	const char *name;
	int full_plans;                 /* acl_build_update_full_plans while it builds */
	struct vpk_acl *acl;
	double *wall, *cpu;             /* ms per update */
	uint32_t n, fallbacks;
	unsigned long abandoned;        /* plans abandoned by its update / frozen builds */
	uint32_t upd_rules, trees;
	size_t rt_bytes;
	double cyc[2][8];               /* per trace */
	uint32_t ncyc, bad;
};

/* A rule set with its vpk rules, a trace and its packet buffers. */
struct set {
	struct vpk_acl5_rule *r5;       /* the rules in priority order (oracle list) */
	uint8_t *live;
	uint32_t n;
	uint8_t *rules;                 /* vpk rules, priority / userdata set by us */
	size_t rsz;
	uint32_t nf;
	struct vpk_acl_field_def defs[11];
	struct trace {
		struct vpk_acl5_pkt *p5;
		const uint8_t **ptrs;
		uint8_t *bufs;
		uint32_t np;
	} tr[2];                        /* over every rule; aimed at the updated rules' boxes */
};

static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static double
now_ms(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static struct vpk_acl_rule *
rule_at(const struct set *s, uint32_t i)
{
	return (struct vpk_acl_rule *)(void *)(s->rules + (size_t)i * s->rsz);
}

/* Rules r5[0..n): priority n - i (file order wins), userdata i + 1. */
static int
set_init(struct set *s, struct vpk_acl5_rule *r5, uint32_t n, uint32_t cap)
{
	memset(s, 0, sizeof(*s));
	s->nf = vpk_acl5_layout(false, s->defs);
	s->rsz = VPK_ACL_RULE_SIZE(s->nf);
	s->r5 = realloc(r5, (size_t)cap * sizeof(*r5));
	s->rules = malloc((size_t)cap * s->rsz);
	s->live = calloc(cap, 1);
	if (s->r5 == NULL || s->rules == NULL || s->live == NULL)
		return -ENOMEM;
	s->n = n;
	vpk_acl5_to_rules(s->r5, n, false, 1, s->rules);
	for (uint32_t i = 0; i < n; i++) {
		rule_at(s, i)->priority = cap - i;
		rule_at(s, i)->userdata = i + 1;
		s->live[i] = 1;
	}
	return 0;
}

/* Append r (priority prio) as rule s->n. */
static void
set_append(struct set *s, const struct vpk_acl5_rule *r, uint32_t prio)
{
	uint32_t i = s->n++;

	s->r5[i] = *r;
	vpk_acl5_to_rules(r, 1, false, 1, rule_at(s, i));
	rule_at(s, i)->priority = prio;
	rule_at(s, i)->userdata = i + 1;
}

/* Trace @p t: packets aimed at rules [lo, hi) of the set (and 5 % random). */
static int
set_trace(struct set *s, int t, uint32_t lo, uint32_t hi, uint32_t np, uint64_t seed)
{
	struct trace *x = &s->tr[t];
	uint32_t bs = vpk_acl5_buf_size(false);

	if (vpk_acl_gen_trace(s->r5 + lo, hi - lo, false, np, seed, 0.05, &x->p5) < 0)
		return -ENOMEM;
	x->np = np;
	x->bufs = malloc((size_t)np * bs);
	x->ptrs = malloc((size_t)np * sizeof(*x->ptrs));
	if (x->bufs == NULL || x->ptrs == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < np; i++) {
		vpk_acl5_pkt_bytes(&x->p5[i], false, x->bufs + (size_t)i * bs);
		x->ptrs[i] = x->bufs + (size_t)i * bs;
	}
	return 0;
}

static void
set_free(struct set *s)
{
	free(s->r5), free(s->live), free(s->rules);
	for (int t = 0; t < 2; t++)
		free(s->tr[t].p5), free(s->tr[t].ptrs), free(s->tr[t].bufs);
}

/* The oracle over the live rules, ordered by priority (desc), then index. */
static uint32_t *
expected(const struct set *s, const struct trace *t)
{
	uint32_t *ord = malloc((size_t)s->n * 4), m = 0, *want = malloc((size_t)t->np * 4);
	struct vpk_acl5_rule *lst = malloc((size_t)s->n * sizeof(*lst));
	struct vpk_acl5_pkt *pc = malloc((size_t)t->np * sizeof(*pc));

	if (!ord || !want || !lst || !pc)
		goto fail;
	for (uint32_t i = 0; i < s->n; i++)
		if (s->live[i])
			ord[m++] = i;
	/* insertion by priority: few rules are out of order (the added ones) */
	for (uint32_t i = 1; i < m; i++)
		for (uint32_t j = i; j > 0 && rule_at(s, ord[j])->priority > rule_at(s, ord[j - 1])->priority; j--) {
			uint32_t x = ord[j];

			ord[j] = ord[j - 1];
			ord[j - 1] = x;
		}
	for (uint32_t i = 0; i < m; i++)
		lst[i] = s->r5[ord[i]];
	memcpy(pc, t->p5, (size_t)t->np * sizeof(*pc));
	if (vpk_acl5_oracle(lst, m, pc, t->np, false) < 0)
		goto fail;
	for (uint32_t i = 0; i < t->np; i++)
		want[i] = pc[i].expected == VPK_ACL5_NO_MATCH ? 0 : rule_at(s, ord[pc[i].expected])->userdata;
	free(ord), free(lst), free(pc);
	return want;
fail:
	free(ord), free(want), free(lst), free(pc);
	return NULL;
}

static int
side_init(struct side *sd, const char *name, int full_plans, const struct set *s, uint32_t nupd)
{
	struct vpk_acl_conf conf = { .num_fields = s->nf, .defs = s->defs, .num_categories = 1 };

	memset(sd, 0, sizeof(*sd));
	sd->name = name;
	sd->full_plans = full_plans;
	sd->wall = malloc(((size_t)nupd + 1) * sizeof(double));
	sd->cpu = malloc(((size_t)nupd + 1) * sizeof(double));
	if (sd->wall == NULL || sd->cpu == NULL || vpk_acl_create(&conf, &sd->acl) < 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->n; i++)
		if (s->live[i] && vpk_acl_add_rules(sd->acl, rule_at(s, i), 1) < 0)
			return -EINVAL;
	acl_build_update_full_plans = full_plans;
	return vpk_acl_build(sd->acl);
}

static void
side_free(struct side *sd)
{
	vpk_acl_destroy(sd->acl);
	free(sd->wall), free(sd->cpu);
}

/*
 * One update on one side, timed: delete @p del (may be NULL), add @p add
 * (nadd rules, may be 0), build.
 */
static int
side_update(struct side *sd, const void *del, const void *add, uint32_t nadd)
{
	struct vpk_acl_stats st;
	unsigned long ab0 = acl_build_update_abandoned;
	double w0, c0;
	int rc = 0;

	acl_build_update_full_plans = sd->full_plans;
	w0 = now_ms(CLOCK_MONOTONIC);
	c0 = now_ms(CLOCK_THREAD_CPUTIME_ID);
	if (del != NULL)
		rc = vpk_acl_del_rules(sd->acl, del, 1);
	if (rc == 0 && nadd > 0)
		rc = vpk_acl_add_rules(sd->acl, add, nadd);
	if (rc == 0)
		rc = vpk_acl_build(sd->acl);
	sd->cpu[sd->n] = now_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
	sd->wall[sd->n] = now_ms(CLOCK_MONOTONIC) - w0;
	sd->n++;
	sd->abandoned += acl_build_update_abandoned - ab0;
	acl_build_update_full_plans = 0;
	if (rc < 0) {
		fprintf(stderr, "vpk-acl-updab: %s: update: %s\n", sd->name, vpk_acl_last_error(sd->acl));
		return rc;
	}
	vpk_acl_get_stats(sd->acl, &st);
	sd->fallbacks += !st.incremental;
	return 0;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Median TSC cycles per packet over bursts of 256, one pass over the trace. */
static double
cycles(struct vpk_acl *acl, const struct trace *t, uint32_t *res)
{
	size_t k = 0;
	uint64_t *c = malloc((t->np / 256 + 1) * sizeof(*c));
	double med;

	for (uint32_t i = 0; i + 256 <= t->np; i += 256) {
		uint64_t t0 = __rdtsc();

		vpk_acl_classify_bulk(acl, t->ptrs + i, res + i, 256, 1);
		c[k++] = __rdtsc() - t0;
	}
	qsort(c, k, sizeof(*c), cmp_u64);
	med = (double)c[k / 2] / 256.0;
	free(c);
	return med;
}

/* Both sides against the oracle (both traces), then classify cost, alternating, 7 rounds. */
static int
finish(struct side *sd, const struct set *s)
{
	uint32_t np = s->tr[0].np > s->tr[1].np ? s->tr[0].np : s->tr[1].np;
	uint32_t *res = malloc((size_t)np * 4);
	struct vpk_acl_stats st;

	if (res == NULL)
		return -ENOMEM;
	for (int t = 0; t < 2; t++) {
		uint32_t *want = expected(s, &s->tr[t]);

		if (want == NULL) {
			free(res);
			return -ENOMEM;
		}
		for (int k = 0; k < 2; k++) {
			vpk_acl_classify_bulk(sd[k].acl, s->tr[t].ptrs, res, s->tr[t].np, 1);
			for (uint32_t i = 0; i < s->tr[t].np; i++)
				sd[k].bad += res[i] != want[i];
		}
		free(want);
	}
	for (int k = 0; k < 2; k++) {
		vpk_acl_get_stats(sd[k].acl, &st);
		sd[k].upd_rules = st.update_rules;
		sd[k].trees = st.trees;
		sd[k].rt_bytes = st.runtime_bytes;
	}
	for (int r = 0; r < 7; r++) {
		for (int k = 0; k < 2; k++) {
			struct side *x = &sd[r & 1 ? 1 - k : k];

			for (int t = 0; t < 2; t++)
				x->cyc[t][x->ncyc] = cycles(x->acl, &s->tr[t], res);
			x->ncyc++;
		}
	}
	free(res);
	return sd[0].bad || sd[1].bad ? -1 : 0;
}

static void
report(const char *cas, struct side *sd, const char *what)
{
	printf("{\"case\": \"%s\", \"updates\": \"%s\", \"sides\": [", cas, what);
	for (int k = 0; k < 2; k++) {
		struct side *x = &sd[k];
		double wmed = bench_median(x->wall, x->n), wmax = bench_max(x->wall, x->n);
		double cmed = bench_median(x->cpu, x->n), cmax = bench_max(x->cpu, x->n);
		double cyc = bench_median(x->cyc[0], x->ncyc), cmin = bench_min(x->cyc[0], x->ncyc);
		double fcyc = bench_median(x->cyc[1], x->ncyc), fmin = bench_min(x->cyc[1], x->ncyc);

		printf("%s\n  {\"plans\": \"%s\", \"n\": %u, \"wall_ms_median\": %.3f, \"wall_ms_max\": %.3f, "
		       "\"cpu_ms_median\": %.3f, \"cpu_ms_max\": %.3f, \"plans_abandoned\": %lu, \"full_builds\": %u, "
		       "\"update_rules\": %u, \"trees\": %u, \"runtime_bytes\": %zu, "
		       "\"cycles_per_pkt_median\": %.1f, \"cycles_per_pkt_min\": %.1f, "
		       "\"focus_cycles_per_pkt_median\": %.1f, \"focus_cycles_per_pkt_min\": %.1f, \"wrong\": %u}",
		       k ? "," : "", x->name, x->n, wmed, wmax, cmed, cmax, x->abandoned, x->fallbacks,
		       x->upd_rules, x->trees, x->rt_bytes, cyc, cmin, fcyc, fmin, x->bad);
	}
	printf("]}\n");
	fflush(stdout);
}

/*
 * @p n changes, applied to both sides in alternating order: a random live
 * rule of [lo, lo + cnt) replaced by a copy with destination port
 * port0 + c (same priority; its userdata is the new rule's index + 1).
 */
static int
change_rules(struct side *sd, struct set *s, uint32_t lo, uint32_t cnt, uint32_t n, uint32_t port0,
	     uint64_t *rs)
{
	for (uint32_t c = 0; c < n; c++) {
		uint32_t j = lo + (uint32_t)(rnd(rs) % cnt), ni;
		uint8_t old[VPK_ACL_RULE_SIZE(11)];
		struct vpk_acl5_rule r;

		while (!s->live[j])
			j = lo + (uint32_t)(rnd(rs) % cnt);
		memcpy(old, rule_at(s, j), s->rsz);
		r = s->r5[j];
		r.dport_lo = r.dport_hi = (uint16_t)(port0 + c);
		ni = s->n;
		set_append(s, &r, rule_at(s, j)->priority);
		for (int k = 0; k < 2; k++) {
			struct side *x = &sd[c & 1 ? 1 - k : k];

			if (side_update(x, old, rule_at(s, ni), 1) < 0)
				return -1;
		}
		s->live[j] = 0;
		s->live[ni] = 1;
	}
	return 0;
}

static struct vpk_acl5_rule *
gen(const char *profile, uint32_t n, uint64_t seed)
{
	struct vpk_acl_gen_conf gc = { .rules = n, .seed = seed };
	struct vpk_acl5_rule *r = NULL;

	if (vpk_acl_gen_profile_from_name(profile, &gc.profile, &gc.ipv6) < 0 || vpk_acl_gen_rules(&gc, &r) < 0)
		return NULL;
	return r;
}

static void
prefix(uint8_t *a, uint8_t len)
{
	uint32_t v = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];

	v &= len ? ~0u << (32 - len) : 0;
	a[0] = (uint8_t)(v >> 24), a[1] = (uint8_t)(v >> 16), a[2] = (uint8_t)(v >> 8), a[3] = (uint8_t)v;
}

/* Cases wide-add / fw-add: acl 10k + W added rules, then C changes of them. */
static int
case_add(const struct opts *o, bool widen, bool cross)
{
	struct vpk_acl5_rule *base = gen("acl", o->rules, o->seed), *w = gen("fw", o->wide, o->seed + 11);
	uint64_t rs = o->seed * 2654435761u + 3;
	uint32_t nb = o->rules, cap = nb + o->wide + o->changes + 1;
	struct side sd[2];
	struct set s;
	int rc;

	if (base == NULL || w == NULL || set_init(&s, base, nb, cap) < 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < o->wide; i++) {
		struct vpk_acl5_rule r = w[i];

		if (widen) {
			/* crossing wide rules: half wild in the source, half in the
			 * destination, the other address a /8../16 */
			uint8_t *wild = i & 1 ? r.dst : r.src, *pfx = i & 1 ? r.src : r.dst;
			uint8_t *wlen = i & 1 ? &r.dst_len : &r.src_len, *plen = i & 1 ? &r.src_len : &r.dst_len;

			if (*plen == 0)
				memcpy(pfx, i & 1 ? w[i].dst : w[i].src, 4);
			if (cross)      /* uniform addresses: every src-wild rule crosses every dst-wild one */
				for (int k = 0; k < 4; k++)
					pfx[k] = (uint8_t)rnd(&rs);
			memset(wild, 0, 16);
			*wlen = 0;
			*plen = (uint8_t)(8 + rnd(&rs) % 9);    /* never a catch-all */
			prefix(pfx, *plen);
			r.sport_lo = 0, r.sport_hi = 65535;
			r.dport_lo = (uint16_t)(1 + rnd(&rs) % 1023);
			r.dport_hi = (uint16_t)(r.dport_lo + 1024 + rnd(&rs) % 63000 > 65535 ? 65535
					       : r.dport_lo + 1024 + rnd(&rs) % 63000);
		}
		/* a random priority among the base rules' (ranked into the gaps) */
		set_append(&s, &r, 2 + (uint32_t)(rnd(&rs) % (cap - 2)));
		s.live[nb + i] = 0;
	}
	free(w);
	if (set_trace(&s, 0, 0, s.n, o->trace, o->seed + 100) < 0 ||
	    set_trace(&s, 1, nb, s.n, o->trace, o->seed + 101) < 0)
		return -ENOMEM;
	if (side_init(&sd[0], "full-build plans (old)", 1, &s, o->changes + 1) < 0 ||
	    side_init(&sd[1], "update plans (new)", 0, &s, o->changes + 1) < 0)
		return -ENOMEM;
	for (int k = 0; k < 2; k++)
		if (side_update(&sd[k], NULL, rule_at(&s, nb), o->wide) < 0)
			return -1;
	for (uint32_t i = 0; i < o->wide; i++)
		s.live[nb + i] = 1;
	/* the first sample is the W-rule addition; report it, then the changes */
	double add_wall[2] = { sd[0].wall[0], sd[1].wall[0] }, add_cpu[2] = { sd[0].cpu[0], sd[1].cpu[0] };

	for (int k = 0; k < 2; k++)
		sd[k].n = 0;
	if (change_rules(sd, &s, nb, o->wide, o->changes, 1000, &rs) < 0)
		return -1;
	rc = finish(sd, &s);
	printf("{\"case\": \"%s-add\", \"updates\": \"%u rules added in one build\", \"old_wall_ms\": %.3f, "
	       "\"old_cpu_ms\": %.3f, \"new_wall_ms\": %.3f, \"new_cpu_ms\": %.3f}\n",
	       cross ? "cross" : widen ? "wide" : "fw", o->wide, add_wall[0], add_cpu[0], add_wall[1], add_cpu[1]);
	report(cross ? "cross-add" : widen ? "wide-add" : "fw-add", sd, "single-rule changes of the added rules");
	side_free(&sd[0]), side_free(&sd[1]), set_free(&s);
	return rc;
}

/* Case wide-del: acl 100k + K top-priority wide rules, deleted one by one. */
static int
case_del(const struct opts *o)
{
	struct vpk_acl5_rule *base = gen("acl", o->big_rules, o->seed);
	uint64_t rs = o->seed * 2654435761u + 5;
	uint32_t nb = o->big_rules, cap = nb + o->tops + 1;
	struct vpk_acl5_rule *all;
	struct side sd[2];
	struct set s;
	int rc;

	if (base == NULL)
		return -ENOMEM;
	/* the wide rules first (top priority), then the set */
	all = malloc((size_t)cap * sizeof(*all));
	if (all == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < o->tops; i++) {
		struct vpk_acl5_rule r = base[rnd(&rs) % nb];

		memset(r.src, 0, sizeof(r.src));
		r.src_len = 0;
		r.dst_len = i & 1 ? 20 : 16;
		prefix(r.dst, r.dst_len);
		r.sport_lo = r.dport_lo = 0;
		r.sport_hi = r.dport_hi = 65535;
		r.proto = r.proto_mask = 0;
		all[i] = r;
	}
	memcpy(all + o->tops, base, (size_t)nb * sizeof(*all));
	free(base);
	if (set_init(&s, all, o->tops + nb, cap) < 0 || set_trace(&s, 0, 0, s.n, o->trace, o->seed + 100) < 0 ||
	    set_trace(&s, 1, 0, o->tops, o->trace, o->seed + 101) < 0)
		return -ENOMEM;
	fprintf(stderr, "wide-del: two full builds of %u rules\n", s.n);
	if (side_init(&sd[0], "full-build plans (old)", 1, &s, o->tops) < 0 ||
	    side_init(&sd[1], "update plans (new)", 0, &s, o->tops) < 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < o->tops; i++) {
		struct vpk_acl_stats st;

		for (int k = 0; k < 2; k++) {
			struct side *x = &sd[i & 1 ? 1 - k : k];

			if (side_update(x, rule_at(&s, i), NULL, 0) < 0)
				return -1;
		}
		s.live[i] = 0;
		vpk_acl_get_stats(sd[1].acl, &st);
		fprintf(stderr, "wide-del %u: old %.2f ms wall %.2f cpu, new %.2f wall %.2f cpu; %u rules in "
			"update/frozen trees, %u trees, full build %u\n", i, sd[0].wall[sd[0].n - 1],
			sd[0].cpu[sd[0].n - 1], sd[1].wall[sd[1].n - 1], sd[1].cpu[sd[1].n - 1], st.update_rules,
			st.trees, !st.incremental);
	}
	rc = finish(sd, &s);
	report("wide-del", sd, "deletions of top-priority wide rules (patch frozen)");
	side_free(&sd[0]), side_free(&sd[1]), set_free(&s);
	return rc;
}

/* Case change: acl 10k, C random single-rule changes. */
static int
case_change(const struct opts *o)
{
	struct vpk_acl5_rule *base = gen("acl", o->rules, o->seed);
	uint64_t rs = o->seed * 2654435761u + 7;
	uint32_t nb = o->rules, cap = nb + o->changes + 1;
	struct side sd[2];
	struct set s;
	int rc;

	if (base == NULL || set_init(&s, base, nb, cap) < 0 || set_trace(&s, 0, 0, nb, o->trace, o->seed + 100) < 0)
		return -ENOMEM;
	if (side_init(&sd[0], "full-build plans (old)", 1, &s, o->changes) < 0 ||
	    side_init(&sd[1], "update plans (new)", 0, &s, o->changes) < 0)
		return -ENOMEM;
	if (change_rules(sd, &s, 0, nb, o->changes, 80, &rs) < 0)
		return -1;
	if (set_trace(&s, 1, nb, s.n, o->trace, o->seed + 101) < 0)      /* aimed at the changed rules */
		return -ENOMEM;
	rc = finish(sd, &s);
	report("change", sd, "random single-rule changes");
	side_free(&sd[0]), side_free(&sd[1]), set_free(&s);
	return rc;
}

/*
 * Case full: full builds of generated sets (acl 1k/10k/100k, fw 1k/10k,
 * IPv6 10k, seed --seed), their shape and an FNV-1a hash of the runtime
 * after its header, to check that a change leaves full builds as they were
 * (run both builds with MALLOC_PERTURB_=165: block padding is not written).
 */
static uint64_t
fnv(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211u;
	return h;
}

static int
case_full(const struct opts *o)
{
	static const struct {
		const char *prof;
		uint32_t n;
	} sets[] = { { "acl", 1000 }, { "acl", 10000 }, { "acl", 100000 }, { "fw", 1000 }, { "fw", 10000 },
		     { "ipv6", 10000 } };

	for (unsigned k = 0; k < sizeof(sets) / sizeof(sets[0]); k++) {
		struct vpk_acl_gen_conf gc = { .rules = sets[k].n, .seed = o->seed };
		struct vpk_acl_field_def defs[11];
		struct vpk_acl5_rule *r = NULL;
		struct acl_mem mt = { 0 };
		struct acl_layout lay;
		struct acl_nrules nr;
		struct acl_rt *rt;
		uint8_t *rules;
		uint32_t nf;
		size_t off = (sizeof(struct acl_rt) + 63) & ~(size_t)63;
		char why[256];

		if (vpk_acl_gen_profile_from_name(sets[k].prof, &gc.profile, &gc.ipv6) < 0 ||
		    vpk_acl_gen_rules(&gc, &r) < 0)
			return -ENOMEM;
		nf = vpk_acl5_layout(gc.ipv6, defs);
		rules = malloc((size_t)sets[k].n * VPK_ACL_RULE_SIZE(nf));
		if (rules == NULL)
			return -ENOMEM;
		vpk_acl5_to_rules(r, sets[k].n, gc.ipv6, 0xffff, rules);
		acl_layout_dims(defs, nf, &lay);
		why[0] = 0;
		if (acl_normalize(defs, nf, 1, rules, sets[k].n, VPK_ACL_RULE_SIZE(nf), NULL, &mt, &nr) < 0 ||
		    acl_build_rt(&nr, lay.src, 1, ACL_BUILD_FULL, 0, &mt, &rt, why, sizeof(why)) < 0) {
			fprintf(stderr, "vpk-acl-updab: full build of %s %u failed: %s\n", sets[k].prof, sets[k].n,
				why[0] ? why : "normalising the rules");
			return -ENOMEM;
		}
		printf("{\"case\": \"full\", \"set\": \"%s %u\", \"trees\": %u, \"nodes\": %u, \"leaves\": %u, "
		       "\"leaf_rules\": %llu, \"max_depth\": %u, \"runtime_bytes\": %zu, \"hash\": \"%016llx\"}\n",
		       sets[k].prof, sets[k].n, rt->stats.trees, rt->stats.nodes, rt->stats.leaves,
		       (unsigned long long)rt->stats.leaf_rules, rt->stats.max_depth, rt->stats.runtime_bytes,
		       (unsigned long long)fnv((const uint8_t *)rt->mem + off, rt->stats.runtime_bytes - off));
		acl_rt_free(rt);
		acl_nrules_free(&mt, &nr);
		free(rules);
		free(r);
	}
	return 0;
}

static int
usage(void)
{
	fprintf(stderr, "usage: vpk-acl-updab [--case all|wide-add|cross-add|fw-add|wide-del|change|full]\n"
		"         [--rules N (10000)] [--big-rules N (100000)] [--wide W (1000)] [--tops K (8)]\n"
		"         [--changes C (100)] [--trace N (65536)] [--seed S (1)]\n");
	return 2;
}

int
main(int argc, char **argv)
{
	struct opts o = { .rules = 10000, .big_rules = 100000, .wide = 1000, .tops = 8, .changes = 100,
			  .trace = 65536, .seed = 1, .cases = "all" };
	int fails = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		uint64_t x = 0;

		if (v == NULL) {
			fprintf(stderr, "vpk-acl-updab: %s: missing value\n", a);
			return usage();
		}
		if (strcmp(a, "--case") == 0) {
			o.cases = v;
			i++;
			continue;
		}
		char why[160];

		if (vpk_num_u64(v, 0, UINT32_MAX, &x, why, sizeof(why)) != 0) {
			fprintf(stderr, "vpk-acl-updab: %s: %s\n", a, why);
			return usage();
		}
		if (strcmp(a, "--rules") == 0 && x >= 100)
			o.rules = (uint32_t)x;
		else if (strcmp(a, "--big-rules") == 0 && x >= 100)
			o.big_rules = (uint32_t)x;
		else if (strcmp(a, "--wide") == 0 && x >= 1 && x <= 1024)
			o.wide = (uint32_t)x;
		else if (strcmp(a, "--tops") == 0 && x >= 1)
			o.tops = (uint32_t)x;
		else if (strcmp(a, "--changes") == 0 && x >= 1)
			o.changes = (uint32_t)x;
		else if (strcmp(a, "--trace") == 0 && x >= 512)
			o.trace = (uint32_t)x;
		else if (strcmp(a, "--seed") == 0)
			o.seed = x;
		else {
			fprintf(stderr, "vpk-acl-updab: %s %s: unknown option or value out of range\n", a, v);
			return usage();
		}
		i++;
	}
	bool all = strcmp(o.cases, "all") == 0;

	if (strcmp(o.cases, "full") == 0)
		return case_full(&o) < 0;
	if (!all && strcmp(o.cases, "wide-add") && strcmp(o.cases, "cross-add") && strcmp(o.cases, "fw-add") &&
	    strcmp(o.cases, "wide-del") && strcmp(o.cases, "change")) {
		fprintf(stderr, "vpk-acl-updab: --case %s: unknown case\n", o.cases);
		return usage();
	}
	if (all || strcmp(o.cases, "change") == 0)
		fails += case_change(&o) < 0;
	if (all || strcmp(o.cases, "wide-add") == 0)
		fails += case_add(&o, true, false) < 0;
	if (all || strcmp(o.cases, "cross-add") == 0)
		fails += case_add(&o, true, true) < 0;
	if (all || strcmp(o.cases, "fw-add") == 0)
		fails += case_add(&o, false, false) < 0;
	if (all || strcmp(o.cases, "wide-del") == 0)
		fails += case_del(&o) < 0;
	if (fails)
		fprintf(stderr, "vpk-acl-updab: %d case(s) failed (wrong results or errors)\n", fails);
	return fails ? 1 : 0;
}
