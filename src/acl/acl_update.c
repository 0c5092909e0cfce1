/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fast rule additions: a runtime made of the last full build's trees plus one
 * small tree over the rules added since (a "delta" runtime).
 *
 * Ranks make this possible without renumbering: a full build ranks rule k
 * (in (priority desc, insertion asc) order) as (k + 1) << shift, leaving gaps
 * of 2^shift (acl_rank_of()), above the first rule too. A rule added later
 * is ranked after every existing rule of equal or higher priority and before
 * the first of lower priority, in the middle of that gap. Trees of different builds then
 * compare ranks directly (classify keeps the lowest rank per category). A
 * gap that is used up, too many added rules (ACL_DELTA_MAX) or too many trees
 * send vpk_acl_build() back to a full build.
 *
 * The delta runtime points into the full runtime's memory (acl_rt.base) and
 * holds a reference on it; runtimes are freed by refcount, only ever on the
 * writer's thread (after the reader quiescence of acl.c's publish()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl_update.h"
#include "acl/acl_rules.h"

void
acl_ranktab_free(struct acl_ranktab *t)
{
	free(t->prio);
	free(t->rank);
	memset(t, 0, sizeof(*t));
}

int
acl_ranktab_build(struct acl_ranktab *t, const uint8_t *rules, uint32_t n, size_t rsz,
		  uint32_t *pos_out)
{
	struct acl_prio_idx *e = malloc(((size_t)n + 1) * sizeof(*e));
	uint32_t shift = acl_rank_shift(n);

	acl_ranktab_free(t);
	t->prio = malloc(((size_t)n + 1) * 4);
	t->rank = malloc(((size_t)n + 1) * 4);
	if (e == NULL || t->prio == NULL || t->rank == NULL) {
		free(e);
		acl_ranktab_free(t);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++)
		e[i] = (struct acl_prio_idx){ ((const struct vpk_acl_rule *)(const void *)(rules + (size_t)i * rsz))->priority, i };
	qsort(e, n, sizeof(*e), acl_prio_cmp);
	for (uint32_t k = 0; k < n; k++) {
		t->prio[k] = e[k].prio;
		t->rank[k] = acl_rank_of(k, shift);     /* as acl_normalize() ranks a full build */
		if (pos_out != NULL)
			pos_out[e[k].idx] = k;
	}
	t->n = n;
	t->step = UINT32_C(1) << shift;
	free(e);
	return 0;
}

int
acl_ranktab_place(const struct acl_ranktab *t, const uint8_t *rules, uint32_t n, size_t rsz,
		  uint32_t *rank_out)
{
	uint32_t cnt = t->n, *prio = malloc(((size_t)cnt + n + 1) * 4);
	uint32_t *rank = malloc(((size_t)cnt + n + 1) * 4);
	int rc = 0;

	if (prio == NULL || rank == NULL) {
		free(prio);
		free(rank);
		return -ENOMEM;
	}
	memcpy(prio, t->prio, (size_t)cnt * 4);
	memcpy(rank, t->rank, (size_t)cnt * 4);
	for (uint32_t j = 0; j < n && rc == 0; j++) {
		uint32_t p = ((const struct vpk_acl_rule *)(const void *)(rules + (size_t)j * rsz))->priority;
		uint32_t lo = 0, hi = cnt;

		/* First position with a lower priority: after all equal ones (added earlier). */
		while (lo < hi) {
			uint32_t m = (lo + hi) / 2;

			if (prio[m] >= p)
				lo = m + 1;
			else
				hi = m;
		}
		uint64_t left = lo > 0 ? (uint64_t)rank[lo - 1] + 1 : 0;
		uint64_t right = lo < cnt ? (uint64_t)rank[lo] : (UINT64_C(1) << 31);

		if (left >= right) {
			rc = -ERANGE;   /* gap used up: a full build renumbers */
			break;
		}
		memmove(prio + lo + 1, prio + lo, (size_t)(cnt - lo) * 4);
		memmove(rank + lo + 1, rank + lo, (size_t)(cnt - lo) * 4);
		prio[lo] = p;
		/* Appending after the last rule (the common case: new rules of lowest
		 * priority) steps by the full build's spacing; elsewhere split the gap. */
		if (lo == cnt && cnt > 0 && right - left > t->step)
			rank[lo] = (uint32_t)(left - 1 + t->step);
		else
			rank[lo] = (uint32_t)(left + (right - 1 - left) / 2);
		rank_out[j] = rank[lo];
		cnt++;
	}
	free(prio);
	free(rank);
	return rc;
}

int
acl_compose(struct acl_rt *base, struct acl_rt *delta)
{
	uint32_t nt = base->ntrees + delta->ntrees;
	struct acl_tree tr[ACL_MAX_TREES];

	if (nt > ACL_MAX_TREES)
		return -E2BIG;
	memcpy(tr, base->tree, base->ntrees * sizeof(tr[0]));
	memcpy(tr + base->ntrees, delta->tree, delta->ntrees * sizeof(tr[0]));
	for (uint32_t i = 1; i < nt; i++)       /* rank order, as acl_build_rt() */
		for (uint32_t j = i; j > 0 && tr[j].min_rank < tr[j - 1].min_rank; j--) {
			struct acl_tree x = tr[j];

			tr[j] = tr[j - 1];
			tr[j - 1] = x;
		}
	memcpy(delta->tree, tr, nt * sizeof(tr[0]));
	delta->ntrees = nt;
	delta->base = base;
	base->refs++;
	delta->stats.rules += base->stats.rules;
	delta->stats.trees = nt;
	delta->stats.nodes += base->stats.nodes;
	delta->stats.leaves += base->stats.leaves;
	delta->stats.leaf_rules += base->stats.leaf_rules;
	if (base->stats.max_depth > delta->stats.max_depth)
		delta->stats.max_depth = base->stats.max_depth;
	delta->stats.runtime_bytes += base->stats.runtime_bytes;
	return 0;
}
