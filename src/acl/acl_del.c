/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fast rule deletions: instead of rebuilding, a runtime keeps the last full
 * build's trees, skips the ranks of deleted rules when a slot matches
 * (acl_rt.dead, acl_live_slots()), and adds one small "update" tree.
 *
 * Why skipping is not enough: the builder drops, at a node whose box a rule
 * D covers, every later-ranked rule all of whose categories such covering
 * rules already decide (acl_build.c, build_node()). Once D is deleted those
 * rules can win again inside D's box, but the trees no longer hold them
 * there. So the update tree also holds the "patch" rules: every live rule S
 * of the full build that ranks after D, shares a category with D and
 * intersects a box where D could have dropped it. Those boxes are found by
 * walking the full build's trees along D's box: the first node on each path
 * whose box D covers is where D can drop rules (below it they stay
 * dropped); where D covers no node it shadowed nothing.
 *
 * Patch rules accumulate; once more than ACL_FREEZE_MIN have, they are built
 * into a "frozen" tree once, which later runtimes share like the full
 * build's trees (they are full-build rules with full-build ranks, so the
 * dead mask and the analysis below treat frozen trees as base trees: a rule
 * deleted later is walked through them too, and what it hid there goes to
 * the update tree again).
 *
 * Correctness, per packet x and category c: let R be the best live rule
 * matching x in c. If R was added after the full build, it is in the update
 * tree. Otherwise it is in a full-build tree leaf that x reaches unless it
 * was dropped (it cannot be spilled away from every tree: spilling moves
 * rules to the next tree, never drops them) at a node containing x by a
 * better-ranked rule covering that node in c; that rule matches x and ranks
 * better than R, so it is deleted, and R is one of its patch rules: R is in
 * the update tree, or in a frozen tree built after that deletion, where
 * again only a deleted rule can have dropped it (the same argument, with
 * the deletions since that freeze). In the update tree only live rules
 * exist, so no live better rule can have dropped R there. Everything any tree reports is live (deleted ranks are
 * skipped), so the minimum over the trees is R.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl_del.h"
#include "acl/acl_rules.h"
#include "acl/acl_update.h"

static inline bool
bit(const uint64_t *b, uint32_t k)
{
	return b[k >> 6] >> (k & 63) & 1;
}

void
acl_del_free(struct acl_delstate *ds)
{
	acl_nrules_free(&ds->mt, &ds->fnr);
	free(ds->bstart);
	free(ds->dead);
	free(ds->patch);
	free(ds->pending);
	memset(ds, 0, sizeof(*ds));
}

int
acl_del_init(struct acl_delstate *ds, struct acl_nrules *fnr, const struct acl_mem *mt)
{
	uint32_t n = fnr->nrules, words = n / 64 + 1;

	acl_del_free(ds);
	ds->mt = *mt;
	ds->fnr = *fnr;
	memset(fnr, 0, sizeof(*fnr));
	ds->nfull = n;
	ds->shift = acl_rank_shift(n);
	ds->bstart = malloc(((size_t)n + 1) * 4);
	ds->dead = calloc(words, 8);
	ds->patch = calloc(words, 8);
	if (ds->bstart == NULL || ds->dead == NULL || ds->patch == NULL) {
		acl_del_free(ds);
		return -ENOMEM;
	}
	/* Boxes are in rank order, rank = acl_rank_of(pos), every rule has >= 1 box. */
	for (uint32_t b = 0, k = 0; k <= n; k++) {
		while (b < ds->fnr.n && acl_rank_pos(ds->fnr.rank[b], ds->shift) < k)
			b++;
		ds->bstart[k] = b;
	}
	ds->valid = true;
	return 0;
}

int
acl_del_reserve(struct acl_delstate *ds, uint32_t n)
{
	uint64_t need = (uint64_t)ds->npending + n;
	uint32_t *p;

	if (need <= ds->cappending)
		return 0;
	if (need > ds->nfull + 1)
		need = ds->nfull + 1;
	p = realloc(ds->pending, need * 4);
	if (p == NULL)
		return -ENOMEM;
	ds->pending = p;
	ds->cappending = (uint32_t)need;
	return 0;
}

void
acl_del_mark(struct acl_delstate *ds, uint32_t pos)
{
	if (pos >= ds->nfull || bit(ds->dead, pos))
		return;
	ds->dead[pos >> 6] |= UINT64_C(1) << (pos & 63);
	ds->ndead++;
	ds->pending[ds->npending++] = pos;
}

/* Boxes (lo[nd], hi[nd]) of the nodes where a deleted rule covers the whole node. */
struct frontier {
	uint32_t nd, n, cap;
	uint32_t *box;
	int err;
};

static void
walk(const struct acl_tree *tr, uint32_t node, uint32_t *blo, uint32_t *bhi, const uint32_t *dlo,
     const uint32_t *dhi, struct frontier *f)
{
	uint32_t nd = f->nd, info = tr->info[2 * (size_t)node], d, t, save;
	bool cov = true;

	for (uint32_t k = 0; k < nd && cov; k++)
		cov = dlo[k] <= blo[k] && dhi[k] >= bhi[k];
	if (cov) {
		if (f->n == f->cap) {
			uint32_t ncap = f->cap ? 2 * f->cap : 64;
			uint32_t *nb = realloc(f->box, (size_t)ncap * 2 * nd * 4);

			if (nb == NULL) {
				f->err = -ENOMEM;
				return;
			}
			f->box = nb;
			f->cap = ncap;
		}
		memcpy(f->box + (size_t)f->n * 2 * nd, blo, nd * 4);
		memcpy(f->box + (size_t)f->n * 2 * nd + nd, bhi, nd * 4);
		f->n++;
		return;
	}
	if (info & ACL_LEAF_BIT)
		return;
	d = info & 31;
	t = tr->thr[2 * (size_t)node];      /* left: [blo, t - 1], right: [t, bhi]; t > blo */
	if (dlo[d] < t) {
		save = bhi[d];
		bhi[d] = t - 1;
		walk(tr, info >> 5, blo, bhi, dlo, dhi, f);
		bhi[d] = save;
	}
	if (dhi[d] >= t && f->err == 0) {
		save = blo[d];
		blo[d] = t;
		walk(tr, (info >> 5) + 1, blo, bhi, dlo, dhi, f);
		blo[d] = save;
	}
}

/* Conservative interval of box @p b in dimension @p d (a partial mask widens it). */
static inline void
box_dim(const struct acl_nrules *nr, uint32_t b, uint32_t d, uint32_t dmax, uint32_t *lo, uint32_t *hi)
{
	size_t o = (size_t)b * nr->nd + d;

	*lo = nr->lo[o];
	*hi = nr->m[o] == UINT32_MAX ? nr->hi[o] : nr->lo[o] | (~nr->m[o] & dmax);
}

/* Does box (lo, hi) meet frontier box @p fb (lo[nd], hi[nd])? */
static inline bool
box_meets(const uint32_t *fb, uint32_t nd, const uint32_t *lo, const uint32_t *hi)
{
	for (uint32_t d = 0; d < nd; d++)
		if (lo[d] > fb[nd + d] || hi[d] < fb[d])
			return false;
	return true;
}

/*
 * Per frontier box and category of @p dcats: the best rank of a live box
 * (up to box @p last) covering the whole frontier box, UINT32_MAX if none.
 * [f.n * 16], or NULL (no memory, or too much work: then no refinement).
 */
static uint32_t *
frontier_best(const struct acl_delstate *ds, const struct frontier *f, uint16_t dcats, uint32_t last)
{
	const struct acl_nrules *nr = &ds->fnr;
	uint32_t nd = nr->nd, *best;

	if ((uint64_t)f->n * last > (UINT64_C(1) << 24))
		return NULL;
	best = malloc((size_t)f->n * VPK_ACL_MAX_CATEGORIES * 4);
	if (best == NULL)
		return NULL;
	for (uint32_t i = 0; i < f->n; i++) {
		const uint32_t *fb = f->box + (size_t)i * 2 * nd;
		uint32_t *bi = best + (size_t)i * VPK_ACL_MAX_CATEGORIES;
		uint16_t todo = dcats;

		for (uint32_t c = 0; c < VPK_ACL_MAX_CATEGORIES; c++)
			bi[c] = UINT32_MAX;
		for (uint32_t b = 0; b < last && todo != 0; b++) {
			bool cov = (nr->cats[b] & todo) != 0 && !bit(ds->dead, acl_rank_pos(nr->rank[b], ds->shift));

			for (uint32_t d = 0; d < nd && cov; d++) {
				size_t o = (size_t)b * nd + d;

				cov = nr->m[o] == UINT32_MAX && nr->lo[o] <= fb[d] && nr->hi[o] >= fb[nd + d];
			}
			if (!cov)
				continue;
			for (uint16_t x = nr->cats[b] & todo; x != 0; x &= (uint16_t)(x - 1))
				bi[__builtin_ctz(x)] = nr->rank[b];
			todo &= (uint16_t)~nr->cats[b];
		}
	}
	return best;
}

/*
 * Can candidate box @p s still be hidden where D was? Only where no live
 * better-ranked rule covers a whole frontier box it meets in a category it
 * shares with D (such a rule beats it everywhere in that box anyway).
 */
static bool
still_hidden(const struct acl_delstate *ds, const struct frontier *f, const uint32_t *best, uint32_t s,
	     uint16_t dcats, const uint32_t *dmax)
{
	const struct acl_nrules *nr = &ds->fnr;
	uint32_t nd = nr->nd, slo[ACL_MAX_DIMS], shi[ACL_MAX_DIMS];
	uint16_t cs = nr->cats[s] & dcats;

	for (uint32_t d = 0; d < nd; d++)
		box_dim(nr, s, d, dmax[d], &slo[d], &shi[d]);
	for (uint32_t i = 0; i < f->n; i++) {
		if (!box_meets(f->box + (size_t)i * 2 * nd, nd, slo, shi))
			continue;
		for (uint16_t x = cs; x != 0; x &= (uint16_t)(x - 1))
			if (nr->rank[s] <= best[(size_t)i * VPK_ACL_MAX_CATEGORIES + __builtin_ctz(x)])
				return true;
	}
	return false;
}

/* Add to the patch set what deleted box @p db may have dropped. */
static int
analyse_box(struct acl_delstate *ds, const struct acl_rt *full, uint32_t db, const uint32_t *dmax)
{
	const struct acl_nrules *nr = &ds->fnr;
	uint32_t nd = nr->nd, pos = acl_rank_pos(nr->rank[db], ds->shift);
	uint32_t dlo[ACL_MAX_DIMS], dhi[ACL_MAX_DIMS], blo[ACL_MAX_DIMS], bhi[ACL_MAX_DIMS];
	struct frontier f = { .nd = nd };
	uint32_t *cand = NULL, ncand = 0, capcand = 0, *best;

	for (uint32_t d = 0; d < nd; d++) {
		size_t o = (size_t)db * nd + d;

		if (nr->m[o] != UINT32_MAX)
			return 0;       /* a partial bit mask never covers a node: drops nothing */
		dlo[d] = nr->lo[o];
		dhi[d] = nr->hi[o];
	}
	for (uint32_t t = 0; t < full->ntrees && f.err == 0; t++) {
		for (uint32_t d = 0; d < nd; d++) {
			blo[d] = 0;
			bhi[d] = dmax[d];
		}
		walk(&full->tree[t], full->tree[t].root, blo, bhi, dlo, dhi, &f);
	}
	if (f.err != 0 || f.n == 0) {
		free(f.box);
		return f.err;
	}
	/* Candidates: ranked after D, a category of D, intersecting a frontier box. */
	for (uint32_t s = ds->bstart[pos + 1]; s < nr->n; s++) {
		uint32_t sp = acl_rank_pos(nr->rank[s], ds->shift), slo[ACL_MAX_DIMS], shi[ACL_MAX_DIMS];
		bool hit = true;

		if (!(nr->cats[s] & nr->cats[db]) || bit(ds->patch, sp) || bit(ds->dead, sp))
			continue;
		for (uint32_t d = 0; d < nd && hit; d++) {
			box_dim(nr, s, d, dmax[d], &slo[d], &shi[d]);
			hit = slo[d] <= dhi[d] && shi[d] >= dlo[d];
		}
		for (uint32_t i = 0; i < f.n && hit; i++)
			if (box_meets(f.box + (size_t)i * 2 * nd, nd, slo, shi)) {
				if (ncand == capcand) {
					uint32_t *nc = realloc(cand, ((size_t)capcand * 2 + 64) * 4);

					if (nc == NULL) {
						free(cand);
						free(f.box);
						return -ENOMEM;
					}
					cand = nc;
					capcand = capcand * 2 + 64;
				}
				cand[ncand++] = s;
				break;
			}
	}
	best = ncand > 0 ? frontier_best(ds, &f, nr->cats[db], cand[ncand - 1]) : NULL;
	for (uint32_t i = 0; i < ncand; i++) {
		uint32_t s = cand[i], sp = acl_rank_pos(nr->rank[s], ds->shift);

		if (best != NULL && !still_hidden(ds, &f, best, s, nr->cats[db], dmax))
			continue;
		ds->patch[sp >> 6] |= UINT64_C(1) << (sp & 63);
	}
	free(best);
	free(cand);
	free(f.box);
	return 0;
}

int
acl_del_analyse(struct acl_delstate *ds, const struct acl_rt *base)
{
	uint32_t dmax[ACL_MAX_DIMS];

	for (uint32_t d = 0; d < ds->fnr.nd; d++)
		dmax[d] = ds->fnr.dbits[d] == 32 ? UINT32_MAX : (1u << ds->fnr.dbits[d]) - 1;
	while (ds->npending > 0) {
		uint32_t pos = ds->pending[ds->npending - 1];

		for (uint32_t b = ds->bstart[pos]; b < ds->bstart[pos + 1]; b++) {
			int rc = analyse_box(ds, base, b, dmax);

			if (rc < 0)
				return rc;
		}
		ds->npending--;
	}
	return 0;
}

uint32_t
acl_del_patch_count(const struct acl_delstate *ds)
{
	uint32_t c = 0;

	for (uint32_t w = 0; w <= ds->nfull / 64; w++)
		c += (uint32_t)__builtin_popcountll(ds->patch[w] & ~ds->dead[w]);
	return c;
}

int
acl_del_extra(const struct acl_delstate *ds, const struct acl_nrules *add, struct acl_mem *mt,
	      struct acl_nrules *out)
{
	const struct acl_nrules *fnr = &ds->fnr;
	uint32_t nd = fnr->nd, np = 0, npr = 0, na = add != NULL ? add->n : 0, n, i = 0, o = 0;
	uint32_t *pb;

	memset(out, 0, sizeof(*out));
	out->nd = nd;
	memcpy(out->dbits, fnr->dbits, sizeof(out->dbits));
	for (uint32_t k = 0; k < ds->nfull; k++)
		if (bit(ds->patch, k) && !bit(ds->dead, k)) {
			np += ds->bstart[k + 1] - ds->bstart[k];
			npr++;
		}
	n = np + na;
	pb = malloc((size_t)np * 4 + 4);
	out->lo = acl_malloc(mt, (size_t)n * nd * 4 + 4);
	out->hi = acl_malloc(mt, (size_t)n * nd * 4 + 4);
	out->m = acl_malloc(mt, (size_t)n * nd * 4 + 4);
	out->rank = acl_malloc(mt, (size_t)n * 4 + 4);
	out->ud = acl_malloc(mt, (size_t)n * 4 + 4);
	out->cats = acl_malloc(mt, (size_t)n * 2 + 2);
	if (!pb || !out->lo || !out->hi || !out->m || !out->rank || !out->ud || !out->cats) {
		free(pb);
		acl_nrules_free(mt, out);
		return -ENOMEM;
	}
	np = 0;
	for (uint32_t k = 0; k < ds->nfull; k++)
		if (bit(ds->patch, k) && !bit(ds->dead, k))
			for (uint32_t b = ds->bstart[k]; b < ds->bstart[k + 1]; b++)
				pb[np++] = b;
	/* Merge the patch boxes and the added rules' boxes by rank. */
	for (uint32_t j = 0; i < np || j < na; o++) {
		const struct acl_nrules *src;
		uint32_t b;

		if (j >= na || (i < np && fnr->rank[pb[i]] < add->rank[j])) {
			src = fnr;
			b = pb[i++];
		} else {
			src = add;
			b = j++;
		}
		memcpy(out->lo + (size_t)o * nd, src->lo + (size_t)b * nd, nd * 4);
		memcpy(out->hi + (size_t)o * nd, src->hi + (size_t)b * nd, nd * 4);
		memcpy(out->m + (size_t)o * nd, src->m + (size_t)b * nd, nd * 4);
		out->rank[o] = src->rank[b];
		out->ud[o] = src->ud[b];
		out->cats[o] = src->cats[b];
	}
	free(pb);
	out->n = n;
	out->nrules = npr + (add != NULL ? add->nrules : 0);
	return 0;
}

int
acl_del_freeze(struct acl_delstate *ds, struct acl_rt **base, const struct acl_dimsrc *src,
	       uint32_t ncat, size_t max_size, char *why, size_t len)
{
	struct acl_mem mt = { 0 };
	struct acl_nrules nr;
	struct acl_rt *frz;
	uint32_t nrules;
	int rc = acl_del_extra(ds, NULL, &mt, &nr);

	if (rc < 0)
		return rc;
	nrules = nr.nrules;
	rc = acl_build_rt(&nr, src, ncat, ACL_BUILD_UPDATE, NULL, max_size, &mt, &frz, why, len);
	acl_nrules_free(&mt, &nr);
	if (rc < 0)
		return rc;
	if (acl_compose(*base, frz) < 0) {
		acl_rt_free(frz);
		return -E2BIG;
	}
	acl_rt_free(*base);     /* frz holds its own reference now */
	*base = frz;
	ds->nfrozen += nrules;
	memset(ds->patch, 0, ((size_t)ds->nfull / 64 + 1) * 8);
	return 0;
}

int
acl_del_wrap(const struct acl_delstate *ds, struct acl_rt *inner, struct acl_rt **out)
{
	size_t words = ds->nfull / 64 + 1;
	size_t off = (sizeof(struct acl_rt) + 63) & ~(size_t)63;
	size_t bytes = off + sizeof(struct acl_dead) + words * 8;
	uint8_t *mem = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
	struct acl_rt *w = (struct acl_rt *)mem;
	struct acl_dead *dd;
	uint64_t *bits;

	if (mem == NULL)
		return -ENOMEM;
	dd = (struct acl_dead *)(mem + off);
	bits = (uint64_t *)(dd + 1);
	memcpy(bits, ds->dead, words * 8);
	*dd = (struct acl_dead){ .shift = ds->shift, .low = (uint32_t)((UINT64_C(1) << ds->shift) - 1),
				 .n = ds->nfull, .bits = bits };
	*w = *inner;
	w->dead = dd;
	w->base = inner;        /* the caller's reference */
	w->refs = 1;
	w->mem = mem;
	w->stats.runtime_bytes += bytes;
	*out = w;
	return 0;
}
