/* SPDX-License-Identifier: BSD-3-Clause */
/* Reference LPM: per-length sorted arrays (see ref_lpm.h). */
#include <stdlib.h>
#include <string.h>

#include "fib/ref_lpm.h"

void
ref_mask(unsigned depth, uint64_t *hi, uint64_t *lo)
{
	if (depth <= 64) {
		*lo = 0;
		*hi = depth == 0 ? 0 : *hi & (~UINT64_C(0) << (64 - depth));
	} else if (depth < 128) {
		*lo &= ~UINT64_C(0) << (128 - depth);
	}
}

void
ref_init(struct ref_lpm *r, unsigned bits, uint64_t default_nh)
{
	memset(r, 0, sizeof(*r));
	r->bits = bits;
	r->default_nh = default_nh;
}

void
ref_fini(struct ref_lpm *r)
{
	for (unsigned d = 0; d <= 128; d++)
		free(r->d[d]);
	memset(r, 0, sizeof(*r));
}

static int
cmp(uint64_t ahi, uint64_t alo, const struct ref_route *b)
{
	if (ahi != b->hi)
		return ahi < b->hi ? -1 : 1;
	if (alo != b->lo)
		return alo < b->lo ? -1 : 1;
	return 0;
}

/* Index of the first element >= key. */
static size_t
lower(const struct ref_route *a, size_t n, uint64_t hi, uint64_t lo)
{
	size_t l = 0, h = n;

	while (l < h) {
		size_t m = (l + h) / 2;
		if (cmp(hi, lo, &a[m]) > 0)
			l = m + 1;
		else
			h = m;
	}
	return l;
}

bool
ref_add(struct ref_lpm *r, uint64_t hi, uint64_t lo, unsigned depth, uint64_t nh)
{
	ref_mask(depth, &hi, &lo);
	size_t i = lower(r->d[depth], r->n[depth], hi, lo);
	if (i < r->n[depth] && cmp(hi, lo, &r->d[depth][i]) == 0) {
		r->d[depth][i].nh = nh;
		return true;
	}
	if (r->n[depth] == r->cap[depth]) {
		r->cap[depth] = r->cap[depth] ? r->cap[depth] * 2 : 16;
		r->d[depth] = realloc(r->d[depth], r->cap[depth] * sizeof(struct ref_route));
		if (r->d[depth] == NULL)
			abort();
	}
	memmove(&r->d[depth][i + 1], &r->d[depth][i], (r->n[depth] - i) * sizeof(struct ref_route));
	r->d[depth][i] = (struct ref_route){ hi, lo, nh };
	r->n[depth]++;
	r->total++;
	return false;
}

bool
ref_del(struct ref_lpm *r, uint64_t hi, uint64_t lo, unsigned depth)
{
	ref_mask(depth, &hi, &lo);
	size_t i = lower(r->d[depth], r->n[depth], hi, lo);
	if (i >= r->n[depth] || cmp(hi, lo, &r->d[depth][i]) != 0)
		return false;
	memmove(&r->d[depth][i], &r->d[depth][i + 1], (r->n[depth] - i - 1) * sizeof(struct ref_route));
	r->n[depth]--;
	r->total--;
	return true;
}

bool
ref_get(const struct ref_lpm *r, uint64_t hi, uint64_t lo, unsigned depth, uint64_t *nh)
{
	ref_mask(depth, &hi, &lo);
	size_t i = lower(r->d[depth], r->n[depth], hi, lo);
	if (i >= r->n[depth] || cmp(hi, lo, &r->d[depth][i]) != 0)
		return false;
	*nh = r->d[depth][i].nh;
	return true;
}

uint64_t
ref_lookup(const struct ref_lpm *r, uint64_t hi, uint64_t lo)
{
	for (int d = (int)r->bits; d >= 0; d--) {
		uint64_t h = hi, l = lo;

		if (r->n[d] == 0)
			continue;
		ref_mask((unsigned)d, &h, &l);
		size_t i = lower(r->d[d], r->n[d], h, l);
		if (i < r->n[d] && cmp(h, l, &r->d[d][i]) == 0)
			return r->d[d][i].nh;
	}
	return r->default_nh;
}
