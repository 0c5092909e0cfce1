/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cut search of the tree builder (HyperSplit): at a node, the
 * threshold on one dimension that minimises the larger child, over every
 * rule end point of every dimension. Internal, called by build_node() in
 * acl_build.c.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "acl/acl_bld.h"

/* A node of more rules chooses its cut on a sample of this many. Smaller samples
 * (4096, 16384) changed where `--profile acl` 100k spills: 8 trees instead of 6. */
#define CUT_SAMPLE 65536

/* Sort a[0..n-1] ascending; tmp has room for n. LSD radix sort with 11-bit
 * (below 4096 values 8-bit) digits: one pass counts every digit, then one
 * scatter per digit that is not the same everywhere, between a and tmp;
 * insertion sort for short arrays. The split search sorts at every node and
 * dimension: this was most of the build time with qsort(). */
static void
sort_u32(uint32_t *a, uint32_t n, uint32_t *tmp)
{
	uint32_t cnt[3][2048], *src = a, *dst = tmp;

	if (n <= 48) {
		for (uint32_t i = 1; i < n; i++) {
			uint32_t v = a[i], j = i;

			for (; j > 0 && a[j - 1] > v; j--)
				a[j] = a[j - 1];
			a[j] = v;
		}
		return;
	}
	unsigned bits = n < 4096 ? 8 : 11, nb = 1u << bits, msk = nb - 1, npass = (32 + bits - 1) / bits;

	if (npass == 4) {       /* 8-bit digits: four 256-entry tables in the space of three 2048-entry ones */
		uint32_t (*c8)[256] = (uint32_t (*)[256])cnt;

		memset(cnt, 0, 4 * 256 * sizeof(uint32_t));
		for (uint32_t i = 0; i < n; i++) {
			uint32_t v = a[i];

			c8[0][v & 255]++, c8[1][v >> 8 & 255]++, c8[2][v >> 16 & 255]++, c8[3][v >> 24]++;
		}
	} else {
		memset(cnt, 0, sizeof(cnt));
		for (uint32_t i = 0; i < n; i++) {
			uint32_t v = a[i];

			cnt[0][v & 2047]++, cnt[1][v >> 11 & 2047]++, cnt[2][v >> 22]++;
		}
	}
	for (unsigned p = 0, sh = 0; p < npass; p++, sh += bits) {
		uint32_t *c = npass == 4 ? (uint32_t *)cnt + p * 256 : cnt[p], sum = 0, *t;

		if (c[src[0] >> sh & msk] == n)
			continue;
		for (uint32_t k = 0; k < nb; k++) {
			uint32_t v = c[k];

			c[k] = sum;
			sum += v;
		}
		for (uint32_t i = 0; i < n; i++)
			dst[c[src[i] >> sh & msk]++] = src[i];
		t = src, src = dst, dst = t;
	}
	if (src != a)
		memcpy(a, src, (size_t)n * 4);
}

/* Best threshold on dim d: returns cost (max child), sets *t and *sum; UINT32_MAX if none. */
static uint32_t
best_cut(struct acl_bld *b, const uint32_t *idx, uint32_t cnt, uint32_t d, uint32_t blo, uint32_t bhi,
	 uint32_t *t_out, uint32_t *sum_out)
{
	uint32_t *ls = b->sa, *hs = b->sb, nd = b->nd;
	uint32_t best = UINT32_MAX, bsum = UINT32_MAX, bt = 0;
	uint32_t i = 0, j = 0, top = cnt, nh = 0;

	/* Ends clamped to the box: only those inside it need sorting (rules spanning the box in
	 * this dimension, e.g. its wildcards, are often most of a node's). */
	for (uint32_t k = 0; k < cnt; k++) {
		size_t o = (size_t)idx[k] * nd + d;
		uint32_t l = b->plo[o], h = b->phi[o];

		if (l > blo)
			ls[--top] = l;
		if (h < bhi)
			hs[nh++] = h;
	}
	sort_u32(ls + top, cnt - top, b->sc);
	for (uint32_t k = 0; k < top; k++)
		ls[k] = blo;
	sort_u32(hs, nh, b->sc);
	for (uint32_t k = nh; k < cnt; k++)
		hs[k] = bhi;
	/* Candidates t in (blo, bhi]: every l > blo and every h + 1 <= bhi. nl = #l < t, nr = #h >= t. */
	while (i < cnt || j < cnt) {
		uint64_t tl = i < cnt ? ls[i] : UINT64_MAX;
		uint64_t th = j < cnt ? (uint64_t)hs[j] + 1 : UINT64_MAX;
		uint64_t t = tl < th ? tl : th;

		while (i < cnt && ls[i] < t)
			i++;
		while (j < cnt && hs[j] < t)
			j++;
		if (t > blo && t <= bhi) {
			uint32_t nl = i, nrr = cnt - j;
			uint32_t c = nl > nrr ? nl : nrr;

			if (c < best || (c == best && nl + nrr < bsum)) {
				best = c;
				bsum = nl + nrr;
				bt = (uint32_t)t;
			}
		}
		while (i < cnt && ls[i] == t)
			i++;
	}
	*t_out = bt;
	*sum_out = bsum;
	return best;
}

/* The cut that minimises the larger child over the rules idx[0..cnt), all dimensions. */
static void
choose_cut(struct acl_bld *b, const uint32_t *idx, uint32_t cnt, const uint32_t *blo, const uint32_t *bhi,
	   uint32_t *bestc, uint32_t *bests, uint32_t *bestd, uint32_t *bestt)
{
	for (uint32_t d = 0; d < b->nd; d++) {
		uint32_t t, s, cst;

		if (blo[d] >= bhi[d])
			continue;
		cst = best_cut(b, idx, cnt, d, blo[d], bhi[d], &t, &s);
		if (cst < *bestc || (cst == *bestc && s < *bests)) {
			*bestc = cst;
			*bests = s;
			*bestd = d;
			*bestt = t;
		}
	}
}

/*
 * A node of more than CUT_SAMPLE rules picks its cut on an evenly spaced
 * sample of CUT_SAMPLE of them, then counts both children exactly, so the
 * copy limits see the true figures: the split search sorts every rule's
 * ends in every dimension, and at the top levels of 100k-1M rule sets that
 * was most of the build. Returns false when the sample separates nothing
 * or cannot be allocated (the caller searches all rules).
 */
static bool
choose_cut_sampled(struct acl_bld *b, const uint32_t *idx, uint32_t cnt, const uint32_t *blo,
		   const uint32_t *bhi, uint32_t *bestc, uint32_t *bests, uint32_t *bestd, uint32_t *bestt)
{
	uint32_t *sample = acl_malloc(b->mt, CUT_SAMPLE * sizeof(*sample));
	uint32_t c = UINT32_MAX, s = UINT32_MAX, d = 0, t = 0, nl = 0, nrr = 0;

	if (sample == NULL)
		return false;
	for (uint32_t k = 0; k < CUT_SAMPLE; k++)
		sample[k] = idx[(uint64_t)k * cnt / CUT_SAMPLE];
	choose_cut(b, sample, CUT_SAMPLE, blo, bhi, &c, &s, &d, &t);
	acl_free(b->mt, sample);
	if (c >= CUT_SAMPLE)
		return false;
	for (uint32_t i = 0; i < cnt; i++) {
		size_t o = (size_t)idx[i] * b->nd + d;

		nl += b->plo[o] < t;
		nrr += b->phi[o] >= t;
	}
	*bestc = nl > nrr ? nl : nrr;
	*bests = nl + nrr;
	*bestd = d;
	*bestt = t;
	return true;
}

void
acl_choose_cut(struct acl_bld *b, const uint32_t *idx, uint32_t cnt, const uint32_t *blo, const uint32_t *bhi,
	       uint32_t *bestc, uint32_t *bests, uint32_t *bestd, uint32_t *bestt)
{
	*bestc = *bests = UINT32_MAX;
	*bestd = *bestt = 0;
	if (cnt <= CUT_SAMPLE || !choose_cut_sampled(b, idx, cnt, blo, bhi, bestc, bests, bestd, bestt))
		choose_cut(b, idx, cnt, blo, bhi, bestc, bests, bestd, bestt);
}
