/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ACL context: rule storage, build and atomic publication of runtimes, and
 * the classify entry point.
 *
 * Runtime replacement (readers never see a freed runtime). Each reader
 * thread gets a process-wide slot number on its first classify call; every
 * context has one cache line per slot. A classify call
 *     slot.epoch = ctx.epoch      (seq_cst: before reading the pointer)
 *     rt = ctx.rt ... classify ... slot.epoch = 0   (release)
 * vpk_acl_build() publishes with
 *     old = exchange(ctx.rt, new);  e = ++ctx.epoch;  retire (old, e)
 * and frees a retired runtime once every slot is 0 or >= its e (checked at
 * each build without waiting; it waits only when more than ACL_RETIRED_MAX
 * are pending, and vpk_acl_destroy() waits for all).
 * A reader with a slot value < e may hold `old`; one that stored its slot
 * after the exchange reads `new` (all four accesses are seq_cst). Slots are
 * per thread, so a slot is never shared by two calls in flight. Threads
 * beyond ACL_SLOTS share a counter the writer waits to see at 0.
 * The cost on the data path is one seq_cst store and one release store per
 * call (~20-30 cycles per burst); a build does not wait for readers.
 */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl_del.h"
#include "acl/acl_int.h"
#include "acl/acl_rules.h"
#include "acl/acl_update.h"
#include "core/errf.h"
#include "core/kern.h"
#include "core/registry.h"

#define ACL_SLOTS 128
#define ACL_RETIRED_MAX 4      /* replaced runtimes kept until readers quiesce */

struct acl_slot {
	_Atomic uint64_t epoch;         /* 0 idle, else the epoch seen on entry */
	char pad[56];
};

struct vpk_acl {
	struct vpk_acl_field_def defs[VPK_ACL_MAX_FIELDS];
	uint32_t nf;
	uint32_t ncat;
	uint32_t max_rules;
	size_t max_size;
	size_t rsz;                     /* rule stride */
	uint8_t *rules;                 /* copies of the stored rules, in insertion order */
	uint32_t *fpos;                 /* per stored rule: rank position in the last full build, or ACL_FPOS_NEW */
	uint32_t nrules, caprules;
	struct acl_layout lay;
	const struct acl_impl *impl;
	_Atomic(struct acl_rt *) rt;
	_Atomic uint64_t epoch;
	struct acl_slot *slots;         /* [ACL_SLOTS], written by readers */
	_Atomic uint64_t *overflow;     /* readers without a slot */
	struct acl_rt *full;            /* last full build (a reference) */
	struct acl_rt *base;            /* its trees + frozen patch trees (a reference): base of incremental runtimes */
	uint32_t full_live;             /* rules[0..full_live) are (live) rules of it, the rest added since */
	bool full_valid;                /* false after reset_rules(): next build is full */
	struct acl_ranktab tab;         /* ranks of the full build's rules */
	struct acl_delstate del;        /* deletions since the full build */
	uint32_t fallback;              /* enum vpk_acl_fallback of the last incremental attempt */
	struct acl_retired {
		struct acl_rt *rt;      /* replaced runtime */
		uint64_t epoch;         /* free once every reader slot is 0 or >= this */
	} retired[ACL_RETIRED_MAX + 1];
	unsigned nretired;
};

static VPK_KERNEL_TABLE(acl_impls, acl, acl_impl, base);

VPK_KERNEL_REGISTER(acl_classify, "acl-classify",
		    "ACL classification (partitioned decision trees, SIMD leaf scan)", acl_impls);

const struct vpk_impl *const *
vpk_acl_impls(void)
{
	return acl_impls;
}

static void reclaim(struct vpk_acl *a, bool wait_all);

static _Atomic unsigned acl_next_tid;
static _Thread_local unsigned acl_tid;  /* 0 = not assigned yet, else slot + 1 */

static unsigned
reader_slot(void)
{
	if (acl_tid == 0)
		acl_tid = atomic_fetch_add(&acl_next_tid, 1) + 1;
	return acl_tid - 1;
}

int
vpk_acl_conf_check(const struct vpk_acl_conf *conf)
{
	vpk_errbuf()[0] = 0;
	if (conf == NULL)
		return vpk_seterr(-EINVAL, "no configuration");
	if (conf->num_categories < 1 || conf->num_categories > VPK_ACL_MAX_CATEGORIES)
		return vpk_seterr(-EINVAL, "num_categories %u not in 1..%u", conf->num_categories,
				  VPK_ACL_MAX_CATEGORIES);
	if (conf->isa >= VPK_ISA_COUNT)
		return vpk_seterr(-EINVAL, "isa %d out of range", (int)conf->isa);
	return acl_layout_check(conf->defs, conf->num_fields, vpk_errbuf(), VPK_ERR_LEN);
}

int
vpk_acl_create(const struct vpk_acl_conf *conf, struct vpk_acl **out)
{
	const struct vpk_impl *im;
	struct vpk_acl *a;
	int rc;

	if (out == NULL)
		return -EINVAL;
	rc = vpk_acl_conf_check(conf);
	if (rc < 0)
		return rc;
	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return -ENOMEM;
	a->slots = aligned_alloc(64, ACL_SLOTS * sizeof(struct acl_slot) + 64);
	if (a->slots == NULL) {
		free(a);
		return -ENOMEM;
	}
	memset(a->slots, 0, ACL_SLOTS * sizeof(struct acl_slot) + 64);
	a->overflow = (_Atomic uint64_t *)(a->slots + ACL_SLOTS);
	memcpy(a->defs, conf->defs, conf->num_fields * sizeof(conf->defs[0]));
	a->nf = conf->num_fields;
	a->ncat = conf->num_categories;
	a->max_rules = conf->max_rules;
	a->max_size = conf->max_size;
	a->rsz = VPK_ACL_RULE_SIZE(a->nf);
	acl_layout_dims(a->defs, a->nf, &a->lay);
	atomic_init(&a->epoch, 1);
	atomic_init(&a->rt, NULL);
	rc = vpk_impl_pick(acl_impls, conf->isa, &im);
	if (rc < 0) {
		free(a->slots);
		free(a);
		return vpk_seterr(rc, "no usable ACL variant of level %s", vpk_isa_name(conf->isa));
	}
	a->impl = (const struct acl_impl *)im;
	*out = a;
	return 0;
}

void
vpk_acl_destroy(struct vpk_acl *a)
{
	if (a == NULL)
		return;
	reclaim(a, true);
	acl_rt_free(atomic_load(&a->rt));
	acl_rt_free(a->full);
	acl_rt_free(a->base);
	acl_ranktab_free(&a->tab);
	acl_del_free(&a->del);
	free(a->rules);
	free(a->fpos);
	free(a->slots);
	free(a);
}

int
vpk_acl_select(struct vpk_acl *a, const char *name)
{
	const struct vpk_impl *im;
	int rc;

	if (a == NULL)
		return -EINVAL;
	if (name == NULL || name[0] == 0)
		name = "auto";
	if (strcmp(name, "sse") == 0)
		name = "sse42";
	rc = vpk_impl_pick_name(acl_impls, name, &im);
	if (rc < 0)
		return vpk_seterr(rc, "ACL variant %s: %s", name, rc == -EINVAL ? "unknown" : "not usable here");
	a->impl = (const struct acl_impl *)im;
	return 0;
}

const char *
vpk_acl_impl_name(const struct vpk_acl *a)
{
	return a != NULL && a->impl != NULL ? a->impl->base.name : "?";
}

/*
 * Arguments of add/del: 1 when there is nothing to do, 0 when @p n rules at
 * @p p are valid, else -EINVAL with the reason in vpk_last_error().
 */
static int
check_rules(struct vpk_acl *a, const uint8_t *p, uint32_t n)
{
	char why[VPK_ERR_LEN - 24];

	if (a == NULL)
		return -EINVAL;
	vpk_errbuf()[0] = 0;
	if (n == 0)
		return 1;
	if (p == NULL) {
		snprintf(vpk_errbuf(), VPK_ERR_LEN, "rules is NULL");
		return -EINVAL;
	}
	for (uint32_t i = 0; i < n; i++) {
		int rc = acl_rule_check(a->defs, a->nf, a->ncat,
					(const struct vpk_acl_rule *)(const void *)(p + (size_t)i * a->rsz),
					why, sizeof(why));

		if (rc < 0) {
			snprintf(vpk_errbuf(), VPK_ERR_LEN, "rule %u: %s", i, why);
			return rc;
		}
	}
	return 0;
}

int
vpk_acl_add_rules(struct vpk_acl *a, const void *rules, uint32_t n)
{
	int rc = check_rules(a, rules, n);

	if (rc != 0)
		return rc < 0 ? rc : 0;
	if (a->max_rules != 0 && (uint64_t)a->nrules + n > a->max_rules) {
		snprintf(vpk_errbuf(), VPK_ERR_LEN, "%u rules would exceed max_rules %u",
			 a->nrules + n, a->max_rules);
		return -ENOSPC;
	}
	if (a->nrules + n > a->caprules) {
		uint64_t ncap = a->caprules ? a->caprules : 64;
		uint8_t *nr;
		uint32_t *np;

		while (ncap < (uint64_t)a->nrules + n)
			ncap *= 2;
		if (ncap > UINT32_MAX) {
			snprintf(vpk_errbuf(), VPK_ERR_LEN, "too many rules");
			return -ENOSPC;
		}
		nr = realloc(a->rules, (size_t)ncap * a->rsz);
		if (nr != NULL)
			a->rules = nr;
		np = nr != NULL ? realloc(a->fpos, (size_t)ncap * 4) : NULL;
		if (np == NULL) {
			snprintf(vpk_errbuf(), VPK_ERR_LEN, "out of memory");
			return -ENOMEM;
		}
		a->fpos = np;
		a->caprules = (uint32_t)ncap;
	}
	memcpy(a->rules + (size_t)a->nrules * a->rsz, rules, (size_t)n * a->rsz);
	for (uint32_t i = 0; i < n; i++)
		a->fpos[a->nrules + i] = ACL_FPOS_NEW;
	a->nrules += n;
	return 0;
}

int
vpk_acl_del_rules(struct vpk_acl *a, const void *rules, uint32_t n)
{
	const uint8_t *p = rules;
	uint8_t *gone;
	uint32_t w = 0;
	int rc = check_rules(a, p, n);

	if (rc != 0)
		return rc < 0 ? rc : 0;
	gone = calloc((size_t)a->nrules + 1, 1);
	if (gone == NULL || (a->del.valid && acl_del_reserve(&a->del, n) < 0)) {
		free(gone);
		snprintf(vpk_errbuf(), VPK_ERR_LEN, "out of memory");
		return -ENOMEM;
	}
	/* Find every rule first (all or nothing); the first added copy goes. */
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *r = p + (size_t)i * a->rsz;
		uint32_t prio = ((const struct vpk_acl_rule *)(const void *)r)->priority, j;

		for (j = 0; j < a->nrules; j++) {
			const uint8_t *q = a->rules + (size_t)j * a->rsz;

			if (!gone[j] && ((const struct vpk_acl_rule *)(const void *)q)->priority == prio &&
			    memcmp(q, r, a->rsz) == 0)
				break;
		}
		if (j == a->nrules) {
			snprintf(vpk_errbuf(), VPK_ERR_LEN, "rule %u: no such rule (priority %u, userdata %u)",
				 i, prio, ((const struct vpk_acl_rule *)(const void *)r)->userdata);
			free(gone);
			return -ENOENT;
		}
		gone[j] = 1;
	}
	for (uint32_t j = 0; j < a->nrules; j++) {
		if (gone[j]) {
			if (a->fpos[j] != ACL_FPOS_NEW) {
				a->full_live--;
				if (a->del.valid)
					acl_del_mark(&a->del, a->fpos[j]);
				else
					a->full_valid = false;
			}
			continue;
		}
		if (w != j) {
			memcpy(a->rules + (size_t)w * a->rsz, a->rules + (size_t)j * a->rsz, a->rsz);
			a->fpos[w] = a->fpos[j];
		}
		w++;
	}
	a->nrules = w;
	free(gone);
	return 0;
}

void
vpk_acl_reset_rules(struct vpk_acl *a)
{
	if (a != NULL) {
		a->nrules = 0;
		a->full_live = 0;
		a->full_valid = false;
		acl_del_free(&a->del);
	}
}

uint32_t
vpk_acl_rule_count(const struct vpk_acl *a)
{
	return a != NULL ? a->nrules : 0;
}

/* True when no reader can still hold a runtime retired at epoch @p e. */
static bool
quiesced(struct vpk_acl *a, uint64_t e)
{
	for (unsigned s = 0; s < ACL_SLOTS; s++) {
		uint64_t v = atomic_load(&a->slots[s].epoch);

		if (v != 0 && v < e)
			return false;
	}
	return atomic_load(a->overflow) == 0;
}

/*
 * Free retired runtimes that no reader can hold any more. With @p wait_all,
 * wait for all of them (spinning ~1 ms per reader call, then yielding);
 * otherwise only wait when more than ACL_RETIRED_MAX are pending, for the
 * oldest. A build thus normally returns without waiting for readers.
 */
static void
reclaim(struct vpk_acl *a, bool wait_all)
{
	unsigned k = 0;

	for (unsigned i = 0; i < a->nretired; i++) {
		bool must = wait_all || (a->nretired - i > ACL_RETIRED_MAX);

		for (unsigned spin = 0; must && !quiesced(a, a->retired[i].epoch); spin++) {
			if (spin < 8192)
				__builtin_ia32_pause();
			else
				sched_yield();
		}
		if (quiesced(a, a->retired[i].epoch))
			acl_rt_free(a->retired[i].rt);
		else
			a->retired[k++] = a->retired[i];
	}
	a->nretired = k;
}

/* Publish @p nrt; the previous runtime is freed once no reader can hold it. */
static void
publish(struct vpk_acl *a, struct acl_rt *nrt)
{
	struct acl_rt *old = atomic_exchange(&a->rt, nrt);
	uint64_t e = atomic_fetch_add(&a->epoch, 1) + 1;

	if (old != NULL)
		a->retired[a->nretired++] = (struct acl_retired){ old, e };
	reclaim(a, false);
}

/*
 * Rules were added and/or deleted since the last full build: publish the
 * full build's trees (skipping deleted ranks) plus one tree over the added
 * rules and the rules the deleted ones may have hidden (acl_del.c).
 * Returns 0, or -EAGAIN (with a->fallback) to fall back to a full build.
 */
static int
build_update(struct vpk_acl *a)
{
	uint32_t first = a->full_live, k = a->nrules - first;
	const uint8_t *nrules = a->rules + (size_t)first * a->rsz;
	struct acl_mem mt = { 0 };
	struct acl_nrules nr, ex;
	struct acl_rt *rt = NULL, *out;
	size_t budget = 0;
	struct timespec t0, t1;
	uint32_t upd, np;
	int rc = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	a->fallback = VPK_ACL_FALLBACK_MEMORY;
	if (k > ACL_DELTA_MAX || (a->del.ndead > 0 && !a->del.valid)) {
		a->fallback = VPK_ACL_FALLBACK_SIZE;
		return -EAGAIN;
	}
	memset(&nr, 0, sizeof(nr));
	if (k > 0) {
		uint32_t *ranks = malloc((size_t)k * 4);

		if (ranks == NULL)
			return -EAGAIN;
		rc = acl_ranktab_place(&a->tab, nrules, k, a->rsz, ranks);
		if (rc == -ERANGE)
			a->fallback = VPK_ACL_FALLBACK_RANKS;
		if (rc == 0)
			rc = acl_normalize(a->defs, a->nf, a->ncat, nrules, k, a->rsz, ranks, &mt, &nr);
		free(ranks);
		if (rc < 0)
			return -EAGAIN;
	}
	if (a->del.ndead > 0 && acl_del_analyse(&a->del, a->base) < 0) {
		acl_nrules_free(&mt, &nr);
		return -EAGAIN;
	}
	np = a->del.ndead > 0 ? acl_del_patch_count(&a->del) : 0;
	if (np > ACL_FREEZE_MIN) {
		if (a->del.nfrozen + np > ACL_FROZEN_MAX(a->del.nfull)) {
			rc = -E2BIG;
			a->fallback = VPK_ACL_FALLBACK_SIZE;
		} else if (a->max_size != 0 && a->base->stats.runtime_bytes >= a->max_size) {
			rc = -ERANGE;
		} else {
			budget = a->max_size != 0 ? a->max_size - a->base->stats.runtime_bytes : 0;
			rc = acl_del_freeze(&a->del, &a->base, a->lay.src, a->ncat, budget, vpk_errbuf(),
					    VPK_ERR_LEN);
			if (rc == -E2BIG)
				a->fallback = VPK_ACL_FALLBACK_TREES;
		}
		if (rc < 0) {
			acl_nrules_free(&mt, &nr);
			return -EAGAIN;
		}
		np = 0;
	}
	if (np + k > ACL_UPDATE_MAX) {
		acl_nrules_free(&mt, &nr);
		a->fallback = VPK_ACL_FALLBACK_SIZE;
		return -EAGAIN;
	}
	if (a->del.ndead > 0) {
		rc = acl_del_extra(&a->del, k > 0 ? &nr : NULL, &mt, &ex);
		acl_nrules_free(&mt, &nr);
		if (rc < 0)
			return -EAGAIN;
		nr = ex;
	}
	if (a->max_size != 0) {
		if (a->base->stats.runtime_bytes >= a->max_size) {
			acl_nrules_free(&mt, &nr);
			return -EAGAIN;
		}
		budget = a->max_size - a->base->stats.runtime_bytes;
	}
	if (nr.n > 0) {
		rc = acl_build_rt(&nr, a->lay.src, a->ncat, ACL_BUILD_UPDATE, NULL, budget, &mt, &rt, vpk_errbuf(),
				  VPK_ERR_LEN);
		if (rc == 0 && acl_compose(a->base, rt) < 0) {
			acl_rt_free(rt);
			a->fallback = VPK_ACL_FALLBACK_TREES;
			rc = -E2BIG;
		}
	} else {
		rt = a->base;           /* nothing to add: the base trees alone */
		rt->refs++;
	}
	acl_nrules_free(&mt, &nr);
	if (rc < 0)
		return -EAGAIN;         /* a full build decides (and reports) */
	out = rt;
	if (a->del.ndead > 0 && acl_del_wrap(&a->del, rt, &out) < 0) {
		acl_rt_free(rt);
		return -EAGAIN;
	}
	upd = (rt != a->base ? rt->stats.rules - a->base->stats.rules : 0) + a->del.nfrozen;
	out->stats.build_peak_bytes = mt.peak + out->stats.runtime_bytes;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	out->stats.build_ns = (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000 + (t1.tv_nsec - t0.tv_nsec));
	out->stats.rules = a->nrules;
	out->stats.incremental = 1;
	out->stats.update_rules = upd;
	out->stats.deleted_rules = a->del.ndead;
	out->stats.fallback = VPK_ACL_FALLBACK_NONE;
	publish(a, out);
	return 0;
}

int
vpk_acl_build(struct vpk_acl *a)
{
	return acl_build_with(a, NULL);
}

int
acl_build_with(struct vpk_acl *a, const struct acl_build_opts *opt)
{
	struct acl_mem mt = { 0 };
	struct acl_nrules nr;
	struct acl_rt *rt = NULL;
	int rc;

	if (a == NULL)
		return -EINVAL;
	if (opt != NULL && (opt->plan < -1 || opt->plan > ACL_PLAN_FORCED_MAX)) {
		snprintf(vpk_errbuf(), VPK_ERR_LEN, "forced plan %d: expected -1 .. %d", opt->plan, ACL_PLAN_FORCED_MAX);
		return -EINVAL;
	}
	vpk_errbuf()[0] = 0;
	a->fallback = VPK_ACL_FALLBACK_NONE;
	if (opt == NULL && a->full != NULL && a->full_valid && (a->nrules > a->full_live || a->del.ndead > 0)) {
		rc = build_update(a);
		if (rc != -EAGAIN)
			return rc;
		vpk_errbuf()[0] = 0;
	}
	rc = acl_normalize(a->defs, a->nf, a->ncat, a->rules, a->nrules, a->rsz, NULL, &mt, &nr);
	if (rc < 0) {
		snprintf(vpk_errbuf(), VPK_ERR_LEN, "out of memory normalising %u rules", a->nrules);
		return rc;
	}
	rc = acl_build_rt(&nr, a->lay.src, a->ncat, ACL_BUILD_FULL, opt, a->max_size, &mt, &rt, vpk_errbuf(),
			  VPK_ERR_LEN);
	if (rc < 0) {
		acl_nrules_free(&mt, &nr);
		return rc;
	}
	rt->stats.build_peak_bytes = mt.peak + rt->stats.runtime_bytes;
	rt->stats.fallback = a->fallback;
	/* Keep it as the base of later incremental builds (if the rank table and
	 * the deletion state can be made; the deletion state keeps nr). */
	if (acl_ranktab_build(&a->tab, a->rules, a->nrules, a->rsz, a->fpos) == 0 &&
	    acl_del_init(&a->del, &nr, &mt) == 0) {
		acl_rt_free(a->full);
		acl_rt_free(a->base);
		a->full = rt;
		a->base = rt;
		rt->refs += 2;
		a->full_live = a->nrules;
		a->full_valid = true;
	} else {
		acl_nrules_free(&mt, &nr);
		acl_del_free(&a->del);
		for (uint32_t i = 0; i < a->nrules; i++)
			a->fpos[i] = ACL_FPOS_NEW;
		acl_rt_free(a->full);
		acl_rt_free(a->base);
		a->full = NULL;
		a->base = NULL;
		a->full_valid = false;
	}
	publish(a, rt);
	return 0;
}

int
vpk_acl_get_stats(const struct vpk_acl *a, struct vpk_acl_stats *st)
{
	struct acl_rt *rt;

	if (a == NULL || st == NULL)
		return -EINVAL;
	rt = atomic_load(&((struct vpk_acl *)a)->rt);
	if (rt == NULL)
		memset(st, 0, sizeof(*st));
	else
		*st = rt->stats;
	return 0;
}

/* The classify body: @p im on the published runtime, inside the reader protocol (top of file). */
static inline __attribute__((always_inline)) void
classify_with(const struct vpk_acl *ca, const struct acl_impl *im, const uint8_t *const *data,
	      uint32_t *results, uint32_t n, uint32_t categories)
{
	struct vpk_acl *a = (struct vpk_acl *)ca;      /* only the reader slots are written */
	unsigned s;
	struct acl_rt *rt;

	if (n == 0)
		return;
	s = reader_slot();
	if (s < ACL_SLOTS)
		atomic_store(&a->slots[s].epoch, atomic_load(&a->epoch));
	else
		atomic_fetch_add(a->overflow, 1);
	rt = atomic_load(&a->rt);
	if (rt == NULL)
		memset(results, 0, (size_t)n * categories * sizeof(*results));
	else
		im->classify(rt, data, results, n, categories);
	if (s < ACL_SLOTS)
		atomic_store_explicit(&a->slots[s].epoch, 0, memory_order_release);
	else
		atomic_fetch_sub_explicit(a->overflow, 1, memory_order_release);
}

void
vpk_acl_classify_bulk(const struct vpk_acl *a, const uint8_t *const *data, uint32_t *results,
		      uint32_t n, uint32_t categories)
{
	classify_with(a, a->impl, data, results, n, categories);
}

int
vpk_acl_classify_bulk_impl(const struct vpk_acl *a, const struct vpk_impl *impl, const uint8_t *const *data,
			   uint32_t *results, uint32_t n, uint32_t categories)
{
	const char *why;
	unsigned i;

	if (a == NULL || impl == NULL)
		return vpk_seterr(-EINVAL, "ACL classify: %s is NULL", a == NULL ? "context" : "variant");
	for (i = 0; acl_impls[i] != NULL && acl_impls[i] != impl; i++)
		;
	if (acl_impls[i] == NULL)
		return vpk_seterr(-EINVAL, "ACL classify: variant %p is not one of vpk_acl_impls()",
				  (const void *)impl);
	why = vpk_impl_why_not(impl);
	if (why != NULL)
		return vpk_seterr(-ENOTSUP, "ACL variant %s: %s", impl->name, why);
	classify_with(a, (const struct acl_impl *)impl, data, results, n, categories);
	return 0;
}
