/* SPDX-License-Identifier: BSD-3-Clause */
/* Building the tunnel steering LPM (prefix_lpm.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tunnel/prefix_lpm.h"

struct lpm_ent {
	uint64_t key;
	uint32_t idx;
};

static int
ent_cmp(const void *a, const void *b)
{
	const struct lpm_ent *x = a, *y = b;
	int c = (x->key > y->key) - (x->key < y->key);

	return c != 0 ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

int
vpk_tn_lpm_build(struct tn_lpm *l, const uint64_t *pfx, const uint8_t *plen, const uint8_t *skip, uint32_t n)
{
	struct lpm_ent *e;
	uint64_t *keys;
	uint32_t m = 0, k = 0;
	bool seen[TN_LPM_MAX_PLEN + 1] = { false };
	int rc;

	if (l == NULL || (n > 0 && (pfx == NULL || plen == NULL)))
		return -EINVAL;
	memset(l, 0, sizeof(*l));
	e = calloc(n + 1, sizeof(*e));
	keys = calloc(n + 1, sizeof(*keys));
	if (e == NULL || keys == NULL) {
		free(e);
		free(keys);
		return -ENOMEM;
	}
	rc = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (skip != NULL && skip[i])
			continue;
		if (plen[i] > TN_LPM_MAX_PLEN) {
			rc = -EINVAL;
			break;
		}
		e[m].key = tn_lpm_key(pfx[i], plen[i]);
		e[m++].idx = i;
		seen[plen[i]] = true;
	}
	if (rc == 0) {
		/* sorted by key, then entry: the first of equal keys is the first configured */
		qsort(e, m, sizeof(*e), ent_cmp);
		for (uint32_t i = 0; i < m; i++)
			if (i == 0 || e[i].key != e[i - 1].key) {
				e[k] = e[i];
				keys[k++] = e[i].key;
			}
		rc = vpk_ep_table_build(&l->t, keys, k);
	}
	if (rc == 0) {
		for (uint32_t s = 0; s <= l->t.mask; s++)
			if (l->t.keys[s] != 0)
				l->t.vals[s] = e[l->t.vals[s]].idx;
		for (int p = (int)TN_LPM_MAX_PLEN; p >= 0; p--)
			if (seen[p])
				l->plen[l->n_plen++] = (uint8_t)p;
	}
	free(e);
	free(keys);
	return rc;
}

void
vpk_tn_lpm_free(struct tn_lpm *l)
{
	if (l == NULL)
		return;
	vpk_ep_table_free(&l->t);
	l->n_plen = 0;
}
