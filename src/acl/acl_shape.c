/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ACL build, the rule set's shape ahead of the plans (acl_build.c): whether
 * its rules cross. A rule wide in dimension x and narrow in y, and another
 * narrow in x and wide in y, overlap in a cross: a single tree that cuts one
 * copies the other into every piece (HiCuts' replication; EffiCuts
 * separates such rules into trees of their own). When both kinds are a
 * large share of the set, the one-tree plans copy until they are abandoned
 * (ClassBench fw1, fw3, fw5 at 10k rules: four one-tree plans built and
 * thrown away, 1.6 s before the kept plan's 0.08 s), so the plans start with
 * the spilling trees, which move wide rules out instead of copying them.
 */
#include "acl/acl_bld.h"

/* Crossing pairs xw * yw of at least n^2 / CROSS_PAIRS. ClassBench at 10k rules:
 * fw1 0.10 n^2, fw3 0.13, fw5 0.14, fw1-v6 0.11 (one-tree plans all abandoned);
 * acl2 0.076, fw2 0.065, ipc2 0.053 (one tree kept, and faster than spilling). */
#define CROSS_PAIRS 11

static bool
wide(const struct acl_bld *b, uint32_t r, uint32_t d)
{
	size_t o = (size_t)r * b->nd + d;

	return (uint64_t)b->phi[o] - b->plo[o] >= b->spill_w[d];
}

bool
acl_rules_cross(const struct acl_bld *b)
{
	const struct acl_nrules *nr = b->nr;
	uint32_t n = nr->n;

	for (uint32_t x = 0; x < b->nd; x++) {
		if (nr->dbits[x] < 16)
			continue;
		for (uint32_t y = x + 1; y < b->nd; y++) {
			uint32_t xw = 0, yw = 0;

			if (nr->dbits[y] < 16)
				continue;
			for (uint32_t r = 0; r < n; r++) {
				bool wx = wide(b, r, x), wy = wide(b, r, y);

				xw += wx && !wy;
				yw += wy && !wx;
			}
			if ((uint64_t)xw * yw * CROSS_PAIRS >= (uint64_t)n * n)
				return true;
		}
	}
	return false;
}

uint32_t
acl_rules_wide_addr(const struct acl_bld *b)
{
	uint32_t k = 0;

	for (uint32_t r = 0; r < b->nr->n; r++) {
		bool w = false;

		for (uint32_t d = 0; d < b->nd && !w; d++)
			w = b->nr->dbits[d] == 32 && wide(b, r, d);
		k += w;
	}
	return k;
}

/*
 * Partition by wildcard pattern (EffiCuts' separable trees, decided up
 * front): group 0 is the rules narrow in the dimension where most rules are
 * narrow, group 1 the rules left that are narrow in the dimension where most
 * of those are, and so on; the address (32-bit) dimensions first, the 16-bit
 * ones (ports) only for rules wide in every address dimension. A tree of one
 * group cuts its dimension without copying any of its rules there (nested
 * prefixes aside), so crossing rules never meet in one tree. Groups below
 * PART_MIN of the rules are not worth a tree's walk: the rules left over go
 * to the last group.
 */
#define PART_MIN 16                     /* a group holds at least n / PART_MIN rules... */
#define LEAF_MIN 16                     /* ...and at least this many */

uint32_t
acl_rules_partition(const struct acl_bld *b, uint32_t maxg, uint32_t *grp)
{
	uint32_t n = b->nr->n, nd = b->nd, left = n, g = 0;
	uint32_t minsz = n / PART_MIN > LEAF_MIN ? n / PART_MIN : LEAF_MIN;

	for (uint32_t r = 0; r < n; r++)
		grp[r] = UINT32_MAX;
	while (g + 1 < maxg && left > 0) {
		uint32_t cnt[ACL_MAX_DIMS] = { 0 }, bd = 0, bc = 0;

		for (uint32_t r = 0; r < n; r++)
			if (grp[r] == UINT32_MAX)
				for (uint32_t d = 0; d < nd; d++)
					cnt[d] += !wide(b, r, d);
		for (unsigned bits = 32; bits >= 16 && bc < minsz; bits -= 16)
			for (uint32_t d = 0; d < nd; d++)
				if (b->nr->dbits[d] == bits && cnt[d] > bc) {
					bc = cnt[d];
					bd = d;
				}
		if (bc < minsz || bc == left)
			break;
		for (uint32_t r = 0; r < n; r++)
			if (grp[r] == UINT32_MAX && !wide(b, r, bd))
				grp[r] = g;
		left -= bc;
		g++;
	}
	/* Too few rules left for a tree of their own: they join the last group. */
	if (left > 0 && left < minsz && g > 0)
		g--;
	for (uint32_t r = 0; r < n; r++)
		if (grp[r] == UINT32_MAX)
			grp[r] = g;
	return g + 1;
}
