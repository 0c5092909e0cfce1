/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ACL build: normalised rules -> a few decision trees with SIMD-scanned leaves.
 *
 * 1. Binary cuts (HyperSplit, Qi et al., INFOCOM 2009): at each node every
 *    dimension's rule end points are candidate thresholds; the one that
 *    minimises the larger child (then the sum of both) wins. Rules covering
 *    the node's whole box make every later-ranked rule of the same
 *    categories redundant there; those are dropped. Nodes with <= 16 rules,
 *    or no useful cut, become leaves.
 * 2. Spilling instead of copying: rules that span the whole node in the
 *    dimension being cut, and are wide there (a /16 or shorter prefix, a
 *    range of >= 256 ports), would be copied into every leaf below. When at
 *    least `spill` of them (16 or 32, per plan) meet at a node they are
 *    removed from this tree and collected into the next one (EffiCuts'
 *    separable trees, Vamanan et al., SIGCOMM 2010, decided per node
 *    instead of up front). Nested
 *    prefixes thus end up in different trees instead of multiplying.
 *    The last tree cannot spill; in nodes of at most `big` rules it stops
 *    cutting where a cut would copy more than repl4/4 of their rules and
 *    leaves bigger leaves instead, scanned in rank order with an early exit.
 * 3. Leaves become blocks of 16 rules in rank order, keeping only the
 *    dimensions some rule of the block still has to check inside the leaf's
 *    box (the others are implied by the path); dimensions of <= 16 bits get
 *    16-bit arrays.
 *
 * Cost: O(n log n) per tree level and dimension; no cross-product state, so
 * build time and memory stay near-linear (docs/acl.md has the figures).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl_bld.h"
#include "core/errf.h"
#include "acl/acl_plan.h"

/*
 * Tuning (docs/acl.md has the measurements behind these values):
 * LEAF_RULES  a node with at most this many rules becomes a leaf (one block);
 * SPILL_FRAC  spill only rules at least 2^(width * (8 - SPILL_FRAC) / 8)
 *             wide in the cut dimension (a /16 or shorter prefix, a range of
 *             >= 256 ports);
 * plans[]     (acl_plan.h) how many trees, how many such
 *             rules must span a cut to spill (spill), and when the last
 *             tree, which cannot spill, stops cutting (repl4, big).
 */
#define LEAF_RULES   16
#define MAX_DEPTH    64
#define SPILL_FRAC   4
/* Below this many rules one tree of crossing rules is still built in well under a
 * second and is faster than spilling trees (ClassBench fw1, fw3 3k: 1.3x). */
#define CROSS_MIN_RULES 8192
#define ENTRY_MIN_BYTES (sizeof(struct acl_blk) / ACL_BLK)     /* runtime bytes per leaf entry, at least */

/* Room for @p need entries in the parallel arrays *p and *q of capacity *cap: 0 or -ENOMEM. */
static int
grow2(struct acl_bld *b, uint32_t **p, uint32_t **q, uint32_t *cap, uint32_t need)
{
	uint32_t ncap;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 1024;
	while (ncap < need)
		ncap *= 2;
	*p = acl_realloc(b->mt, *p, (size_t)ncap * 4);
	if (*p == NULL)
		return -ENOMEM;
	*cap = ncap;
	*q = acl_realloc(b->mt, *q, (size_t)ncap * 4);
	return *q == NULL ? -ENOMEM : 0;
}

/* Blocks a leaf of @p cnt rules costs the packets reaching it, summed over cnt + 1 of them: the
 * scan stops at the first block that matches, so a packet drawn from the rule of rank i in the
 * leaf scans i / ACL_BLK + 1 blocks, a miss (the one more) all of them. */
static uint64_t
scan_blocks(uint32_t cnt)
{
	uint64_t q = cnt / ACL_BLK, r = cnt % ACL_BLK;

	return ACL_BLK * q * (q + 1) / 2 + r * (q + 1) + q + (r != 0);
}

static int
new_leaf(struct acl_bld *b, uint32_t node, const uint32_t *idx, uint32_t cnt, const uint32_t *blo,
	 const uint32_t *bhi, uint32_t depth)
{
	const struct acl_nrules *nr = b->nr;
	uint32_t nd = b->nd;

	if (grow2(b, &b->lstart, &b->lcnt, &b->capleaves, b->nleaves + 1) < 0)
		return -ENOMEM;
	if (b->nlent + cnt > b->limit_entries)
		return -ENOMEM;
	if (b->nlent + cnt > b->caplent) {
		size_t ncap = b->caplent ? b->caplent : 4096;

		while (ncap < b->nlent + cnt)
			ncap *= 2;
		b->lent = acl_realloc(b->mt, b->lent, ncap * 4);
		b->lneed = acl_realloc(b->mt, b->lneed, ncap * 4);
		if (b->lent == NULL || b->lneed == NULL)
			return -ENOMEM;
		b->caplent = ncap;
	}
	b->lstart[b->nleaves] = (uint32_t)b->nlent;
	b->lcnt[b->nleaves] = cnt;
	for (uint32_t i = 0; i < cnt; i++) {
		uint32_t r = idx[i], need = 0;

		for (uint32_t d = 0; d < nd; d++) {
			size_t k = (size_t)r * nd + d;

			if (nr->m[k] != UINT32_MAX || nr->lo[k] > blo[d] || nr->hi[k] < bhi[d])
				need |= 1u << d;
		}
		b->lent[b->nlent + i] = r;
		b->lneed[b->nlent + i] = need;
	}
	b->nlent += cnt;
	b->cw += cnt + 1;
	b->cdepth += (uint64_t)(cnt + 1) * depth;
	b->cblocks += scan_blocks(cnt);
	b->info[node] = ACL_LEAF_BIT | b->nleaves;
	b->thr[node] = 0;
	b->nleaves++;
	return 0;
}

static int
build_node(struct acl_bld *b, uint32_t node, uint32_t *idx, uint32_t cnt, uint32_t *blo, uint32_t *bhi,
	   uint32_t depth)
{
	const struct acl_nrules *nr = b->nr;
	uint32_t nd = b->nd, keep = 0;
	uint16_t covered = 0;
	uint32_t bestc, bests, bestd, bestt;
	uint32_t *left, *right, nl = 0, nrr = 0, c, saved;
	int rc;

	if (depth > b->max_depth)
		b->max_depth = depth;
	/* Drop rules shadowed in this box by better-ranked rules that cover it. */
	for (uint32_t i = 0; i < cnt; i++) {
		uint32_t r = idx[i];
		bool cov = true;

		if ((nr->cats[r] & ~covered) == 0)
			continue;
		idx[keep++] = r;
		for (uint32_t d = 0; d < nd && cov; d++) {
			size_t k = (size_t)r * nd + d;

			cov = nr->m[k] == UINT32_MAX && nr->lo[k] <= blo[d] && nr->hi[k] >= bhi[d];
		}
		if (cov)
			covered |= nr->cats[r];
	}
	cnt = keep;
	if (cnt <= LEAF_RULES || depth >= MAX_DEPTH)
		return new_leaf(b, node, idx, cnt, blo, bhi, depth);

	acl_choose_cut(b, idx, cnt, blo, bhi, &bestc, &bests, &bestd, &bestt);
	if (bestc >= cnt || (!b->can_spill && (uint64_t)bests * 4 > (uint64_t)cnt * b->repl4 &&
			     cnt <= b->bigleaf))
		return new_leaf(b, node, idx, cnt, blo, bhi, depth);
	/*
	 * Rules spanning the node's whole range in the cut dimension would be
	 * copied into both children (and on, into every leaf below): move them
	 * to the next tree instead when there are enough of them to matter.
	 */
	if (b->can_spill) {
		uint32_t span = 0, k = 0;

		for (uint32_t i = 0; i < cnt; i++) {
			size_t o = (size_t)idx[i] * nd + bestd;

			span += b->plo[o] <= blo[bestd] && b->phi[o] >= bhi[bestd] &&
				(uint64_t)b->phi[o] - b->plo[o] >= b->spill_w[bestd];
		}
		if (span >= b->spill_min) {
			for (uint32_t i = 0; i < cnt; i++) {
				size_t o = (size_t)idx[i] * nd + bestd;

				if (b->plo[o] <= blo[bestd] && b->phi[o] >= bhi[bestd] &&
				    (uint64_t)b->phi[o] - b->plo[o] >= b->spill_w[bestd])
					b->spill[idx[i]] = 1;
				else
					idx[k++] = idx[i];
			}
			return build_node(b, node, idx, k, blo, bhi, depth);
		}
	}

	c = b->nnodes;
	if (grow2(b, &b->thr, &b->info, &b->capnodes, c + 2) < 0)
		return -ENOMEM;
	b->nnodes += 2;
	b->thr[node] = bestt;
	b->info[node] = c << 5 | bestd;

	left = acl_malloc(b->mt, (size_t)cnt * 4);
	right = acl_malloc(b->mt, (size_t)cnt * 4);
	if (left == NULL || right == NULL) {
		acl_free(b->mt, left);
		acl_free(b->mt, right);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < cnt; i++) {
		size_t o = (size_t)idx[i] * nd + bestd;

		if (b->plo[o] < bestt)
			left[nl++] = idx[i];
		if (b->phi[o] >= bestt)
			right[nrr++] = idx[i];
	}
	saved = bhi[bestd];
	bhi[bestd] = bestt - 1;
	rc = build_node(b, c, left, nl, blo, bhi, depth + 1);
	bhi[bestd] = saved;
	acl_free(b->mt, left);
	if (rc == 0) {
		saved = blo[bestd];
		blo[bestd] = bestt;
		rc = build_node(b, c + 1, right, nrr, blo, bhi, depth + 1);
		blo[bestd] = saved;
	}
	acl_free(b->mt, right);
	return rc;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Estimated cost per packet of the tree just built, in 1/256 units of a leaf
 * block scan: a fixed part (leaf words, prefetch, rank test), its walk and the
 * blocks of the leaf reached up to the first match (scan_blocks()), leaves
 * weighted by their rules + 1 (a ClassBench-style trace draws headers from the
 * rules). It ranks plans: on the crossing sets at 10k it puts the measured
 * order of the spilling trees, two and three partition trees right (fw1:
 * spilling trees 320 cycles, three partition trees 210, two 175), not their
 * ratios; it overrates big leaves (build_auto()). */
#define COST_TREE  8                    /* per tree, in 1/32 block */
#define COST_LEVEL 3                    /* per level */
#define COST_BLOCK 32                   /* per block */
static uint64_t
tree_cost(const struct acl_bld *b)
{
	if (b->cw == 0)
		return 0;
	return ((uint64_t)COST_TREE * b->cw + COST_LEVEL * b->cdepth + COST_BLOCK * b->cblocks) * 8 / b->cw;
}

/* The rules of group @p g (grp[] of the @p n rules) into @p idx, in order; returns their count. */
static uint32_t
gather_group(const uint32_t *grp, uint32_t n, uint32_t g, uint32_t *idx)
{
	uint32_t cnt = 0;

	for (uint32_t r = 0; r < n; r++)
		if (grp[r] == g)
			idx[cnt++] = r;
	return cnt;
}

/*
 * The tree of partition group @p g (its @p cnt rules in @p idx, root node @p root): first cut like
 * the first plan (leaves of <= 32 rules where a cut copies > 1.5x). A group whose rules are wide
 * in every dimension the partition split on (its last group: wildcards and short prefixes in both
 * addresses) copies them into every leaf that way, beyond PART_COPIES per rule (ClassBench-like
 * `--profile acl` 100k: 7273 such rules, 800k copies and rising when the partition was abandoned);
 * that group's tree is then built again as the spilling plans' last tree is, with leaves of up to
 * PART_WIDE_BIG rules where a cut copies more than PART_WIDE_REPL4/4 (40 copies per rule there).
 * Its rules rank last, so a packet that matched in an earlier tree skips its big leaves.
 * A single group is the whole set in the first plan's leaves, which above 32k rules stays
 * within a few copies per rule (ClassBench acl5 100k: 2.0, 1M: 2.8) or is rebuilt in big leaves
 * (acl1, acl3; acl1 1M took 6.7 s of CPU instead of 5.1 when it was abandoned only at 16 copies
 * per rule, 6.0 s at PART_ONE_COPIES).
 */
static int
build_group(struct acl_bld *b, uint32_t root, const uint32_t *grp, uint32_t g, uint32_t ngrp, uint32_t *idx,
	    uint32_t cnt, uint32_t *blo, uint32_t *bhi)
{
	size_t lim = b->limit_entries, e0 = b->nlent;
	uint32_t l0 = b->nleaves, d0 = b->max_depth, repl4 = b->repl4, big = b->bigleaf, n = b->nr->n;
	size_t glim = b->part_copies >= 0 ? e0 + (size_t)b->part_copies * cnt
		: e0 + (size_t)(ngrp == 1 ? PART_ONE_COPIES : PART_COPIES) * cnt + PART_SLACK;
	int rc;

	b->limit_entries = glim < lim ? glim : lim;
	rc = build_node(b, root, idx, cnt, blo, bhi, 0);
	b->limit_entries = lim;
	if (rc != -ENOMEM || b->mt->failed)
		return rc;
	/* Copied too often: again with big leaves (build_node() compacted idx: gather it again). */
	b->nnodes = root + 1;
	b->nleaves = l0;
	b->nlent = e0;
	b->max_depth = d0;
	b->cw = b->cdepth = b->cblocks = 0;
	cnt = gather_group(grp, n, g, idx);
	b->repl4 = PART_WIDE_REPL4;
	b->bigleaf = PART_WIDE_BIG;
	rc = build_node(b, root, idx, cnt, blo, bhi, 0);
	b->repl4 = repl4;
	b->bigleaf = big;
	return rc;
}

/* Build the trees of one plan; returns the number of trees or -ENOMEM. */
static int
build_trees(struct acl_bld *b, uint32_t *grp, uint32_t *idx, struct acl_tree *trees, uint32_t *blo,
	    uint32_t *bhi)
{
	const struct acl_nrules *nr = b->nr;
	uint32_t n = nr->n, nd = b->nd, nt = 0, round = 0, ngrp = 0;

	memset(trees, 0, sizeof(*trees) * ACL_MAX_TREES);
	b->cost = 0;
	if (n == 0)
		return 0;
	if (b->part)
		ngrp = acl_rules_partition(b, b->part, grp);
	else
		memset(grp, 0, (size_t)n * 4);
	for (;;) {
		uint32_t cnt = gather_group(grp, n, round, idx), root, ns = 0;
		int rc;

		root = b->nnodes;
		if (grow2(b, &b->thr, &b->info, &b->capnodes, root + 1) < 0)
			return -ENOMEM;
		b->nnodes++;
		for (uint32_t d = 0; d < nd; d++) {
			blo[d] = 0;
			bhi[d] = b->dmax[d];
		}
		trees[nt++] = (struct acl_tree){ root, nr->rank[idx[0]] };
		b->can_spill = b->part == 0 && nt < b->max_trees;
		b->cw = b->cdepth = b->cblocks = 0;
		rc = b->part ? build_group(b, root, grp, round, ngrp, idx, cnt, blo, bhi)
			: build_node(b, root, idx, cnt, blo, bhi, 0);
		if (rc < 0)
			return rc;
		b->cost += tree_cost(b);
		round++;
		if (b->part) {
			if (round == ngrp)
				return (int)nt;
			continue;
		}
		/* Spilled rules form the next tree. */
		for (uint32_t r = 0; r < n; r++)
			if (b->spill[r]) {
				b->spill[r] = 0;
				grp[r] = round;
				ns++;
			}
		if (ns == 0)
			return (int)nt;
	}
}

/* The plan a build starts at: an index into uplans[] when @p upd, else into fplans[]. */
static unsigned
first_plan(const struct acl_bld *b, bool upd, int forced)
{
	/* Above 32k rules the one- and two-tree plans were always abandoned (acl
	 * 100k: 19 copies per rule in one tree), so skip them there. The last
	 * plan (8 trees) measured 1.5x faster than 4 trees on acl 100k; 6 trees
	 * spilling at >= 32 wide rules (not 16) whose last one cuts nodes above
	 * 256 rules (not 512) are 12-20 % faster again, but where that last tree
	 * gathers too many rules of mixed shapes its forced cuts copy them
	 * hundreds of times: beyond 8 copies per rule the 8-tree plan is built
	 * instead (docs/acl.md, "Benchmarks": acl 100k with 6 spilling trees).
	 * Update and frozen trees (@p upd) start in uplans[] by size. */
	uint32_t n = b->nr->n;
	unsigned first = upd ? (n > UPD_ONE_TREE ? UPLAN_TWO : n > UPD_SMALL ? UPLAN_MID : 0)
		: n > 32768 || forced == 4 ? PLAN_MANY : 0;

	/* Crossing rules: the one-tree plans would copy until abandoned (acl_shape.c). */
	if (first == 0 && !upd && n >= CROSS_MIN_RULES && forced < 0 && acl_rules_cross(b))
		first = PLAN_MANY;
	/* Above 32k rules, sets whose addresses are mostly narrow try the two-tree
	 * plan first (ClassBench 100k, avx512x32 cycles, six spilling trees -> two:
	 * acl1 313 -> 230, acl2 1144 -> 583, acl4 585 -> 426, ipc1 815 -> 619,
	 * acl1-v6 785 -> 594; fw4 431 -> 493). Sets with more than 55 % wide
	 * addresses (fw1, fw3, fw5, --profile acl, fw, ipv6) abandon it or lose
	 * with it (fw3 397 -> 573, ipv6 934 -> 1242). */
	else if (first == PLAN_MANY && !upd && forced < 0 &&
		 (uint64_t)acl_rules_wide_addr(b) * 20 <= (uint64_t)n * 11)
		first = PLAN_TWO;
	return first;
}

/*
 * Build with plans[seq[first]], plans[seq[first + 1]].. (up to seq[end - 1]) until one stays within its
 * copy limit; returns its number of trees (in @p trees), a negative errno with @p why set, or -EAGAIN
 * when every plan up to @p end < @p ntab was abandoned.
 */
static int
build_plans(struct acl_bld *b, const uint8_t *seq, unsigned ntab, unsigned first, unsigned end, bool upd,
	    const struct acl_build_opts *opt, size_t max_size, uint32_t *grp, uint32_t *idx, struct acl_tree *trees,
	    char *why, size_t len)
{
	uint32_t n = b->nr->n;
	uint32_t blo[ACL_MAX_DIMS], bhi[ACL_MAX_DIMS];
	bool capped;
	int rc;

	for (unsigned k = first; k < end; k++) {
		bool last = k + 1 == ntab;
		unsigned pl = seq[k];

		if (opt->plan >= 0 && opt->plan != 4) {
			static const uint8_t forced[ACL_PLAN_FORCED_MAX + 1] = {
				0, PLAN_TWO, PLAN_MANY, PLAN_EIGHT, 0, PLAN_PART, PLAN_PART
			};

			pl = forced[opt->plan];
			last = true;
		}

		if (plans[pl].max_boxes != 0 && n > plans[pl].max_boxes && !last)
			continue;
		b->nnodes = b->nleaves = b->max_depth = 0;
		b->nlent = 0;
		memset(b->spill, 0, (size_t)n);
		b->max_trees = plans[pl].max_trees;
		b->repl4 = plans[pl].repl4;
		b->bigleaf = plans[pl].big;
		b->spill_min = opt->spill ? opt->spill : plans[pl].spill;
		b->part = plans[pl].part;
		b->part_copies = opt->plan == 6 ? 0 : -1;
		/* An early plan is abandoned as soon as it copies rules too often. */
		b->limit_entries = last ? (size_t)64 * n + (1u << 22)
			: (size_t)plans[pl].max_copies * n + (upd ? UPD_SLACK : 65536);
		if (!last && opt->copies >= 0)
			b->limit_entries = (size_t)opt->copies * n;
		/* Every leaf entry costs the runtime at least its share of a block's
		 * header and rank lines, so max_size caps the entries: a plan that
		 * would not fit stops when it gets there, not once built. */
		if (b->part_limit != 0 && b->limit_entries > b->part_limit)
			b->limit_entries = b->part_limit;
		capped = max_size != 0 && b->limit_entries > max_size / ENTRY_MIN_BYTES;
		if (capped)
			b->limit_entries = max_size / ENTRY_MIN_BYTES;
		rc = build_trees(b, grp, idx, trees, blo, bhi);
		if (rc >= 0)
			return rc;
		if (rc == -ENOMEM && last && capped && !b->mt->failed) {
			return vpk_errf(why, len, -ERANGE,
					"runtime would exceed max_size %zu (more than %zu rule copies in leaves)", max_size,
					b->limit_entries);
		}
		if (rc != -ENOMEM || last || b->mt->failed) {
			return vpk_errf(why, len, rc, "decision tree too large (more than %zu rule copies in leaves)",
					b->limit_entries);
		}
	}
	return -EAGAIN;
}

/* The arrays of a finished build, set aside while another plan is tried. */
struct bld_saved {
	uint32_t *thr, *info, *lent, *lneed, *lstart, *lcnt;
	uint32_t nnodes, capnodes, nleaves, capleaves, max_depth;
	size_t nlent, caplent;
	uint64_t cost;
	struct acl_tree trees[ACL_MAX_TREES];
};

#define SWAP(x, y) do { __typeof__(x) t_ = (x); (x) = (y); (y) = t_; } while (0)
static void
bld_swap(struct acl_bld *b, struct bld_saved *sv, struct acl_tree *trees)
{
	SWAP(b->thr, sv->thr);
	SWAP(b->info, sv->info);
	SWAP(b->lent, sv->lent);
	SWAP(b->lneed, sv->lneed);
	SWAP(b->lstart, sv->lstart);
	SWAP(b->lcnt, sv->lcnt);
	SWAP(b->nnodes, sv->nnodes);
	SWAP(b->capnodes, sv->capnodes);
	SWAP(b->nleaves, sv->nleaves);
	SWAP(b->capleaves, sv->capleaves);
	SWAP(b->max_depth, sv->max_depth);
	SWAP(b->nlent, sv->nlent);
	SWAP(b->caplent, sv->caplent);
	SWAP(b->cost, sv->cost);
	for (unsigned t = 0; t < ACL_MAX_TREES; t++)
		SWAP(trees[t], sv->trees[t]);
}

static void
bld_saved_free(struct acl_bld *b, struct bld_saved *sv)
{
	acl_free(b->mt, sv->thr);
	acl_free(b->mt, sv->info);
	acl_free(b->mt, sv->lent);
	acl_free(b->mt, sv->lneed);
	acl_free(b->mt, sv->lstart);
	acl_free(b->mt, sv->lcnt);
}

/* Bytes of the runtime acl_rt_layout() would make of the @p ng trees just built, give or take its
 * alignment padding. */
static size_t
rt_bytes(const struct acl_bld *b, uint32_t ng)
{
	size_t bytes = sizeof(struct acl_rt) + (size_t)b->nnodes * 8 + (size_t)ng * ACL_RTAB_SIZE * 4 +
		       (size_t)b->nleaves * 8 + 3 * 64;

	for (uint32_t l = 0; l < b->nleaves; l++)
		bytes += acl_leaf_bytes(b, l);
	return bytes;
}

/*
 * The plans by the set's size and shape; where they start with spilling trees (crossing sets from
 * 8192 rules, every set above 32k), the partition plan is built too and kept where its estimated
 * cost per packet (tree_cost()) is lower, or where its runtime is smaller at an estimate of at most
 * PART_OVER_EST/2 times the spilling trees': the estimate ranks the crossing sets right but overrates
 * big leaves, and smaller runtimes were faster at 100k rules (ClassBench acl1, acl3, ipc1: 6.7, 25.5,
 * 10.6 MB instead of 10.3, 45.2, 26.6, 0.6-0.85x the cycles, at estimates 1.03-1.39x; fw2, bigger and
 * estimated 1.2x, was 1.27x slower). The partition gets at most PART_ENTRIES times the spilling
 * trees' leaf entries, or PART_FREE entries (a runtime of a few MB): the crossing sets' partitions
 * take 1.4-2.7x, fw1-v6 10k 3.9x in 6.7 MB (docs/acl.md). A partition that would not fit in max_size
 * where the spilling trees do is not kept.
 */
#define PART_ENTRIES 3
#define PART_FREE ((size_t)1 << 17)
#define PART_OVER_EST 3
static int
build_auto(struct acl_bld *b, bool upd, const struct acl_build_opts *opt, size_t max_size, uint32_t *grp,
	   uint32_t *idx, struct acl_tree *trees, char *why, size_t len)
{
	unsigned first = first_plan(b, upd, opt->plan);
	const uint8_t *seq = upd ? uplans : fplans;
	unsigned ntab = upd ? NUPLANS : NFPLANS;
	struct bld_saved sv = { 0 };
	size_t sv_bytes, np_bytes;
	int rc, np;

	rc = build_plans(b, seq, ntab, first, ntab, upd, opt, max_size, grp, idx, trees, why, len);
	if (rc < 0 || upd || opt->plan >= 0 || opt->spill != 0 || opt->copies >= 0 || first < PLAN_TWO)
		return rc;
	sv_bytes = rt_bytes(b, (uint32_t)rc);
	b->part_limit = PART_ENTRIES * b->nlent > PART_FREE ? PART_ENTRIES * b->nlent : PART_FREE;
	bld_swap(b, &sv, trees);
	np = build_plans(b, pplans, NPPLANS, 0, 1, upd, opt, max_size, grp, idx, trees, why, len);
	b->part_limit = 0;
	np_bytes = np >= 0 ? rt_bytes(b, (uint32_t)np) : 0;
	if (np >= 0 && (b->cost < sv.cost || (np_bytes < sv_bytes && b->cost * 2 < sv.cost * PART_OVER_EST)) &&
	    (max_size == 0 || np_bytes <= max_size)) {
		bld_saved_free(b, &sv);
		return np;
	}
	/* Abandoned, failed or slower: the spilling trees stay. */
	bld_swap(b, &sv, trees);
	bld_saved_free(b, &sv);
	return rc;
}

int
acl_build_rt(const struct acl_nrules *nr, const struct acl_dimsrc *src, uint32_t ncat,
	     enum acl_build_kind kind, const struct acl_build_opts *opt, size_t max_size, struct acl_mem *mt,
	     struct acl_rt **out, char *why, size_t len)
{
	static const struct acl_build_opts automatic = { .plan = -1, .spill = 0, .copies = -1 };
	uint64_t t0 = now_ns();
	struct acl_bld b = { .nr = nr, .nd = nr->nd, .mt = mt };
	uint32_t n = nr->n, nd = nr->nd;
	uint32_t *grp = NULL, *idx = NULL;
	struct acl_tree trees[ACL_MAX_TREES];
	int rc = -ENOMEM;

	for (uint32_t d = 0; d < nd; d++) {
		b.dmax[d] = nr->dbits[d] == 32 ? UINT32_MAX : (1u << nr->dbits[d]) - 1;
		b.spill_w[d] = (uint64_t)b.dmax[d] >> (nr->dbits[d] * SPILL_FRAC / 8);
	}
	b.plo = acl_malloc(mt, (size_t)n * nd * 4 + 4);
	b.phi = acl_malloc(mt, (size_t)n * nd * 4 + 4);
	b.sa = acl_malloc(mt, (size_t)n * 4 + 4);
	b.sb = acl_malloc(mt, (size_t)n * 4 + 4);
	b.sc = acl_malloc(mt, (size_t)n * 4 + 4);
	grp = acl_malloc(mt, (size_t)n * 4 + 4);
	idx = acl_malloc(mt, (size_t)n * 4 + 4);
	if (!b.plo || !b.phi || !b.sa || !b.sb || !b.sc || !grp || !idx)
		goto out;
	for (size_t k = 0; k < (size_t)n * nd; k++) {
		uint32_t d = (uint32_t)(k % nd);

		b.plo[k] = nr->lo[k];
		b.phi[k] = nr->m[k] == UINT32_MAX ? nr->hi[k] : (nr->lo[k] | (~nr->m[k] & b.dmax[d]));
	}
	b.spill = acl_calloc(mt, (size_t)n + 1);
	if (b.spill == NULL)
		goto out;
	/* Update and frozen trees have plans of their own (uplans[]), unless the
	 * tree is as big as a full build that starts at the many-tree plans. */
	bool upd = kind == ACL_BUILD_UPDATE && n <= 32768;

	if (opt == NULL || kind == ACL_BUILD_UPDATE)
		opt = &automatic;
	rc = build_auto(&b, upd, opt, max_size, grp, idx, trees, why, len);
	if (rc >= 0)
		rc = acl_rt_layout(&b, trees, (uint32_t)rc, src, ncat, max_size, out, why, len);
out:
	acl_free(mt, b.plo);
	acl_free(mt, b.phi);
	acl_free(mt, b.sa);
	acl_free(mt, b.sb);
	acl_free(mt, b.sc);
	acl_free(mt, b.thr);
	acl_free(mt, b.info);
	acl_free(mt, b.lent);
	acl_free(mt, b.lneed);
	acl_free(mt, b.lstart);
	acl_free(mt, b.lcnt);
	acl_free(mt, grp);
	acl_free(mt, idx);
	acl_free(mt, b.spill);
	if (rc == 0)
		(*out)->stats.build_ns = now_ns() - t0;
	return rc;
}
