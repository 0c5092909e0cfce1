/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Route-table and lookup-set generators (fib_gen.h). Workload: tool-side,
 * up to a few million routes; a hash set removes duplicates.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/libvpk_internal.h"
#include "fib/fib_gen.h"
#include "common/splitmix.h"

uint64_t
gen_next(struct gen_rng *r)
{
	return splitmix64_next(&r->s);
}

/* Tier-1 2023 IPv4 histogram (research/fib.md §4.1), per 901 899 routes. */
static const uint32_t tier1[33] = {
	[8] = 16, [9] = 13, [10] = 38, [11] = 103, [12] = 299, [13] = 581, [14] = 1203, [15] = 2100,
	[16] = 13490, [17] = 8235, [18] = 13798, [19] = 24870, [20] = 42611, [21] = 50750,
	[22] = 108623, [23] = 96510, [24] = 537698, [25] = 20, [26] = 3, [27] = 11, [28] = 18,
	[29] = 17, [30] = 3, [31] = 3, [32] = 886,
};

static char w_static[200];

static int __attribute__((format(printf, 2, 3)))
set_why(const char **why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w_static, sizeof(w_static), fmt, ap);
	va_end(ap);
	*why = w_static;
	return -1;
}

int
gen_distribution(const char *spec, size_t n, size_t out[33], const char **why)
{
	memset(out, 0, 33 * sizeof(out[0]));
	if (spec == NULL) {
		size_t sum = 0;
		for (int d = 0; d <= 32; d++) {
			out[d] = (size_t)((double)tier1[d] * (double)n / 901899.0);
			sum += out[d];
		}
		out[24] += n > sum ? n - sum : 0;
		return 0;
	}
	/* Each item is checked whole by the one number parser: strtod() takes
	 * "nan", "inf", "-5" and "1e400", a NaN passes every range test, and
	 * (size_t)NaN would size the route array. */
	char w[160];
	const char *p = spec;
	size_t given = 0;

	while (*p) {
		const char *item_end = p + strcspn(p, ",");
		const char *colon = memchr(p, ':', (size_t)(item_end - p));
		uint64_t d, cnt;
		double pct;

		if (colon == NULL)
			return set_why(why, "'%.*s': expected depth:count or depth:P%%", (int)(item_end - p), p);
		if (vpk_num_u64n(p, (size_t)(colon - p), 0, 32, &d, w, sizeof(w)) != 0)
			return set_why(why, "depth %s", w);
		const char *c = colon + 1;
		size_t cl = (size_t)(item_end - c);
		if (cl > 0 && c[cl - 1] == '%') {
			if (vpk_num_f64n(c, cl - 1, 0, 100, &pct, w, sizeof(w)) != 0)
				return set_why(why, "/%u share %s (a percentage)", (unsigned)d, w);
			cnt = (uint64_t)(pct * (double)n / 100.0);
		} else if (vpk_num_u64n(c, cl, 0, n, &cnt, w, sizeof(w)) != 0) {
			return set_why(why, "/%u count %s", (unsigned)d, w);
		}
		if (cnt > UINT64_C(1) << d)
			return set_why(why, "%llu routes of length /%u, but only %llu prefixes have that length",
				       (unsigned long long)cnt, (unsigned)d, (unsigned long long)(UINT64_C(1) << d));
		given -= out[d];
		out[d] = (size_t)cnt;
		given += out[d];
		if (given > n)
			return set_why(why, "the items add up to %zu routes, more than the %zu of -n", given, n);
		if (*item_end == ',' && item_end[1] == '\0')
			return set_why(why, "trailing ','");
		p = *item_end == ',' ? item_end + 1 : item_end;
	}
	return 0;
}

/* Open-addressing set of (ip, depth). */
struct pset {
	uint64_t *k;
	size_t mask;
};

static int
pset_add(struct pset *s, uint32_t ip, uint8_t depth)
{
	uint64_t key = ((uint64_t)ip << 8 | depth) + 1;
	size_t h = (size_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 20) & s->mask;

	while (s->k[h] != 0) {
		if (s->k[h] == key)
			return 0;
		h = (h + 1) & s->mask;
	}
	s->k[h] = key;
	return 1;
}

static inline uint32_t
hostmask(unsigned d)
{
	return (uint32_t)((UINT64_C(1) << (32 - d)) - 1);
}

static inline uint32_t
mask(uint32_t ip, unsigned d)
{
	return d == 0 ? 0 : ip & (~UINT32_C(0) << (32 - d));
}

/* A random unicast address outside 0/8, 10/8, 127/8, 224/3. */
static uint32_t
rand_unicast(struct gen_rng *r)
{
	for (;;) {
		uint32_t ip = (uint32_t)gen_next(r);
		unsigned o = ip >> 24;
		if (o != 0 && o != 10 && o != 127 && o < 224)
			return ip;
	}
}

struct gen_route4 *
gen_routes4(const size_t count[33], uint64_t nh_max, uint64_t seed, size_t *n)
{
	struct gen_rng r = { seed };
	size_t total = 0;

	for (int d = 0; d <= 32; d++)
		if (__builtin_add_overflow(total, count[d], &total))
			total = SIZE_MAX;
	/* Sizes from user input: checked, so a wild count fails cleanly. */
	size_t bytes, slots;
	struct gen_route4 *rt = NULL;
	struct pset set = { NULL, 0 };
	size_t cap = 64;
	if (vpk_num_size_mul(total, 2, 64, &slots) == 0 && slots <= (SIZE_MAX >> 4)) {
		while (cap < slots)
			cap *= 2;
		if (vpk_num_size_mul(total + 1, sizeof(*rt), 0, &bytes) == 0)
			rt = malloc(bytes);
		set.k = calloc(cap, sizeof(uint64_t));
	}
	set.mask = cap - 1;
	if (rt == NULL || set.k == NULL) {
		free(rt);
		free(set.k);
		*n = 0;
		return NULL;
	}
	size_t k = 0;
	/* Shorter prefixes first, so longer ones can nest inside them. */
	for (unsigned d = 0; d <= 32; d++) {
		size_t want = count[d], made = 0, tries = 0;
		size_t shorter = k;     /* routes [0, shorter) are shorter than d */
		while (made < want && tries < want * 20 + 1000) {
			tries++;
			uint32_t ip;
			uint64_t u = gen_below(&r, 100);
			if (d == 0) {
				ip = 0;
			} else if (u < 50 && shorter > 0) {
				/* Deaggregation: inside a random shorter route (>= /8 or so). */
				const struct gen_route4 *p = &rt[gen_below(&r, shorter)];
				ip = p->depth == 0 ? rand_unicast(&r) : p->ip | ((uint32_t)gen_next(&r) & hostmask(p->depth));
			} else if (u < 80 && k > shorter && d >= 20) {
				/* Sibling run: next to a route of the same length. */
				const struct gen_route4 *p = &rt[shorter + gen_below(&r, k - shorter)];
				ip = p->ip + (uint32_t)(1u << (32 - d));
				if ((ip >> 24) == 10 || (ip >> 24) == 127 || (ip >> 24) >= 224 || (ip >> 24) == 0)
					continue;
			} else {
				ip = rand_unicast(&r);
			}
			ip = mask(ip, d);
			if (!pset_add(&set, ip, (uint8_t)d))
				continue;
			rt[k].ip = ip;
			rt[k].depth = (uint8_t)d;
			rt[k].nh = 1 + gen_below(&r, nh_max);
			k++;
			made++;
		}
	}
	free(set.k);
	*n = k;
	return rt;
}

void
gen_shuffle(void *base, size_t n, size_t size, uint64_t seed)
{
	struct gen_rng r = { seed };
	char tmp[64];
	char *b = base;

	if (size > sizeof(tmp))
		return;
	for (size_t i = n; i > 1; i--) {
		size_t j = gen_below(&r, i);
		memcpy(tmp, b + (i - 1) * size, size);
		memcpy(b + (i - 1) * size, b + j * size, size);
		memcpy(b + j * size, tmp, size);
	}
}

void
gen_lookups4(const struct gen_route4 *rt, size_t nrt, enum gen_lookup_kind kind, unsigned pct_random,
	     uint64_t seed, uint32_t *ips, size_t n)
{
	struct gen_rng r = { seed };

	for (size_t i = 0; i < n; i++) {
		if (kind == GEN_LOOKUP_RANDOM || nrt == 0 || gen_below(&r, 100) < pct_random) {
			ips[i] = (uint32_t)gen_next(&r);
			continue;
		}
		size_t j;
		if (kind == GEN_LOOKUP_SKEWED) {
			/* u^4 puts ~56 % of the lookups on the first 10 % of a random permutation. */
			double u = (double)(gen_next(&r) >> 11) / 9007199254740992.0;
			j = (size_t)(u * u * u * u * (double)nrt);
			j = (j * 2654435761u) % nrt;    /* hot routes spread over the table */
		} else {
			j = gen_below(&r, nrt);
		}
		ips[i] = rt[j].ip | ((uint32_t)gen_next(&r) & hostmask(rt[j].depth));
	}
}

int
gen_lookup_kind(const char *name, enum gen_lookup_kind *out)
{
	if (strcmp(name, "random") == 0)
		*out = GEN_LOOKUP_RANDOM;
	else if (strcmp(name, "in-table") == 0 || strcmp(name, "intable") == 0)
		*out = GEN_LOOKUP_INTABLE;
	else if (strcmp(name, "skewed") == 0)
		*out = GEN_LOOKUP_SKEWED;
	else
		return -1;
	return 0;
}

/* Tier-1 2023 IPv6 histogram (research/fib.md §4.1), per 160 147 routes. */
static const struct { uint8_t d; uint32_t n; } tier1_v6[] = {
	{ 16, 1 }, { 19, 1 }, { 20, 16 }, { 21, 3 }, { 22, 7 }, { 23, 8 }, { 24, 30 }, { 25, 8 }, { 26, 15 },
	{ 27, 20 }, { 28, 193 }, { 29, 4371 }, { 30, 650 }, { 31, 284 }, { 32, 22548 }, { 33, 2926 },
	{ 34, 2603 }, { 35, 1043 }, { 36, 5996 }, { 37, 880 }, { 38, 1617 }, { 39, 1377 }, { 40, 13418 },
	{ 41, 903 }, { 42, 2301 }, { 43, 1001 }, { 44, 14365 }, { 45, 1553 }, { 46, 3039 }, { 47, 3153 },
	{ 48, 75488 }, { 49, 11 }, { 50, 3 }, { 52, 1 }, { 55, 1 }, { 56, 24 }, { 58, 20 }, { 60, 2 },
	{ 64, 184 }, { 112, 2 }, { 122, 1 }, { 124, 4 }, { 125, 9 }, { 126, 19 }, { 127, 42 }, { 128, 6 },
};

static void
mask6(uint8_t ip[16], unsigned d)
{
	for (unsigned b = 0; b < 16; b++) {
		if (b * 8 >= d)
			ip[b] = 0;
		else if (b * 8 + 8 > d)
			ip[b] &= (uint8_t)(0xff << (8 - (d - b * 8)));
	}
}

static int
cmp6(const void *a, const void *b)
{
	const struct gen_route6 *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return memcmp(x->ip, y->ip, 16);
}

struct gen_route6 *
gen_routes6(size_t n, uint64_t nh_max, uint64_t seed, size_t *out_n)
{
	struct gen_rng r = { seed };
	struct gen_route6 *rt = malloc((n + 1) * sizeof(*rt));
	static const uint8_t region[] = { 0x24, 0x24, 0x24, 0x24, 0x24, 0x24, 0x24, 0x24, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a,
					  0x28, 0x28, 0x28, 0x28, 0x20, 0x20, 0x20, 0x26, 0x26, 0x26, 0x2c };
	size_t k = 0;

	if (rt == NULL) {
		*out_n = 0;
		return NULL;
	}
	for (size_t h = 0; h < sizeof(tier1_v6) / sizeof(tier1_v6[0]); h++) {
		unsigned d = tier1_v6[h].d;
		size_t want = (size_t)((double)tier1_v6[h].n * (double)n / 160147.0 + 0.5);
		size_t shorter = k;
		for (size_t i = 0; i < want && k < n; i++) {
			struct gen_route6 *x = &rt[k];
			uint64_t a = gen_next(&r), b = gen_next(&r);
			for (int j = 0; j < 8; j++) {
				x->ip[j] = (uint8_t)(a >> (8 * j));
				x->ip[8 + j] = (uint8_t)(b >> (8 * j));
			}
			if (shorter > 0 && gen_below(&r, 100) < 57) {
				const struct gen_route6 *p = &rt[gen_below(&r, shorter)];
				for (unsigned bit = 0; bit < p->depth; bit++) {
					uint8_t m = (uint8_t)(0x80 >> (bit % 8));
					x->ip[bit / 8] = (uint8_t)((x->ip[bit / 8] & ~m) | (p->ip[bit / 8] & m));
				}
			} else {
				x->ip[0] = region[gen_below(&r, sizeof(region))];
				x->ip[1] &= 0x0f;       /* within the region's /12 */
				x->ip[1] |= (uint8_t)(gen_below(&r, 2) << 4);
			}
			mask6(x->ip, d);
			x->depth = (uint8_t)d;
			x->nh = 1 + gen_below(&r, nh_max);
			k++;
		}
	}
	qsort(rt, k, sizeof(*rt), cmp6);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (u == 0 || cmp6(&rt[u - 1], &rt[i]) != 0)
			rt[u++] = rt[i];
	*out_n = u;
	return rt;
}

void
gen_lookups6(const struct gen_route6 *rt, size_t nrt, enum gen_lookup_kind kind, unsigned pct_random,
	     uint64_t seed, uint8_t (*ips)[16], size_t n)
{
	struct gen_rng r = { seed };

	for (size_t i = 0; i < n; i++) {
		uint64_t a = gen_next(&r), b = gen_next(&r);
		for (int j = 0; j < 8; j++) {
			ips[i][j] = (uint8_t)(a >> (8 * j));
			ips[i][8 + j] = (uint8_t)(b >> (8 * j));
		}
		if (kind == GEN_LOOKUP_RANDOM || nrt == 0 || gen_below(&r, 100) < pct_random)
			continue;
		size_t j;
		if (kind == GEN_LOOKUP_SKEWED) {
			double u = (double)(gen_next(&r) >> 11) / 9007199254740992.0;
			j = ((size_t)(u * u * u * u * (double)nrt) * 2654435761u) % nrt;
		} else {
			j = gen_below(&r, nrt);
		}
		for (unsigned bit = 0; bit < rt[j].depth; bit++) {
			uint8_t m = (uint8_t)(0x80 >> (bit % 8));
			ips[i][bit / 8] = (uint8_t)((ips[i][bit / 8] & ~m) | (rt[j].ip[bit / 8] & m));
		}
	}
}
