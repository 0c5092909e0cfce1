/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Root tables (acl_int.h, acl_layout.c): on random 5-tuple rule sets built
 * with acl_build_rt(), a walk from every tree's root table entry reaches the
 * leaf a walk from its root reaches, for keys at and around the rules'
 * bounds; and some of the sets' trees take a table over two dimensions
 * (sets whose top cuts alternate between addresses and ports), so that
 * both kinds are checked.
 */
#include <stdlib.h>
#include <string.h>

#include "acl/acl_int.h"
#include "lib/check.h"

#define ND 5
static const uint8_t dbits[ND] = { 8, 32, 32, 16, 16 };
static const struct acl_dimsrc src[ACL_MAX_DIMS] = { { 0, 1 }, { 1, 4 }, { 5, 4 }, { 9, 2 }, { 11, 2 } };

static uint32_t
width_max(uint32_t d)
{
	return dbits[d] == 32 ? UINT32_MAX : (1u << dbits[d]) - 1;
}

/* One rule's interval in dimension d: wild, a prefix, or a range; @p wild: percent of wild fields. */
static void
rand_field(uint32_t d, uint32_t wild, uint32_t *lo, uint32_t *hi)
{
	uint32_t max = width_max(d), a = check_rand_u32() & max, b = check_rand_u32() & max;

	if (check_rand_range(100) < wild) {
		*lo = 0;
		*hi = max;
	} else if (d == 1 || d == 2 || d == 0) {
		uint32_t len = (uint32_t)check_rand_range(dbits[d] + 1), host = len == 32 ? 0 : max >> len;

		*lo = a & ~host;
		*hi = *lo | host;
	} else {
		*lo = a < b ? a : b;
		*hi = a < b ? b : a;
	}
}

static uint32_t
walk(const struct acl_tree *tr, uint32_t x, const uint32_t *key)
{
	for (uint32_t ix = tr->info[2 * x]; !(ix & ACL_LEAF_BIT); ix = tr->info[2 * x])
		x = (ix >> 5) + (key[ix & 31] >= tr->thr[2 * x]);
	return x;
}

/* A random key, each dimension at, next to, or between some rule's bounds. */
static void
rand_key(const struct acl_nrules *nr, uint32_t *key)
{
	for (uint32_t d = 0; d < ND; d++) {
		uint32_t r = (uint32_t)check_rand_range(nr->n), v;

		switch (check_rand_range(4)) {
		case 0:
			v = nr->lo[r * ND + d];
			break;
		case 1:
			v = nr->hi[r * ND + d];
			break;
		case 2:
			v = nr->hi[r * ND + d] + 1;
			break;
		default:
			v = check_rand_u32();
		}
		key[d] = v & width_max(d);
	}
}

/* Build @p n random rules (@p wild percent wild fields); returns the trees with two-dimension tables. */
static uint32_t
one_set(uint32_t n, uint32_t wild)
{
	struct acl_nrules nr = { .n = n, .nd = ND, .nrules = n };
	struct acl_mem mt = { 0 };
	struct acl_rt *rt = NULL;
	char why[160] = "";
	uint32_t two = 0, bad = 0;
	int rc;

	nr.lo = calloc((size_t)n * ND, 4);
	nr.hi = calloc((size_t)n * ND, 4);
	nr.m = calloc((size_t)n * ND, 4);
	nr.rank = calloc(n, 4);
	nr.ud = calloc(n, 4);
	nr.cats = calloc(n, 2);
	memcpy(nr.dbits, dbits, ND);
	for (uint32_t i = 0; i < n; i++) {
		for (uint32_t d = 0; d < ND; d++) {
			rand_field(d, wild, &nr.lo[i * ND + d], &nr.hi[i * ND + d]);
			nr.m[i * ND + d] = UINT32_MAX;
		}
		nr.rank[i] = i;
		nr.ud[i] = i + 1;
		nr.cats[i] = 1;
	}
	rc = acl_build_rt(&nr, src, 1, ACL_BUILD_FULL, NULL, 0, &mt, &rt, why, sizeof(why));
	CHECK(rc == 0, "build of %u rules: %d %s", n, rc, why);
	for (uint32_t t = 0; rc == 0 && t < rt->ntrees; t++) {
		const struct acl_tree *tr = &rt->tree[t];

		two += tr->rshift2 != 32;
		CHECK(tr->rdim < ND && tr->rdim2 < ND && tr->rshift <= 32 && tr->rbits2 <= ACL_RTAB_BITS,
		      "tree %u: table over dims %u, %u", t, tr->rdim, tr->rdim2);
		for (uint32_t i = 0; i < 20000 && bad < 5; i++) {
			uint32_t key[ND], want, got;

			rand_key(&nr, key);
			want = walk(tr, tr->root, key);
			got = walk(tr, tr->rtab[acl_rtab_index(tr, key[tr->rdim], key[tr->rdim2])], key);
			if (got != want) {
				CHECK(0, "%u rules, tree %u (dims %u/%u, shifts %u/%u/%u): key %u %x %x %u %u: leaf %u, from root %u",
				      n, t, tr->rdim, tr->rdim2, tr->rshift, tr->rshift2, tr->rbits2, key[0], key[1], key[2],
				      key[3], key[4], got, want);
				bad++;
			}
		}
	}
	acl_rt_free(rt);
	free(nr.lo);
	free(nr.hi);
	free(nr.m);
	free(nr.rank);
	free(nr.ud);
	free(nr.cats);
	return two;
}

int
main(void)
{
	uint32_t two = 0;

	check_init("acl_rtab");
	for (uint32_t wild = 10; wild <= 70; wild += 30) {
		two += one_set(40, wild);
		two += one_set(600, wild);
		two += one_set(3000, wild);
	}
	CHECK(two > 0, "no tree took a table over two dimensions");
	return check_finish();
}
