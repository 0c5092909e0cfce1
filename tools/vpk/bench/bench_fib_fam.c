/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The two families of `vpk bench fib`: IPv4 (DIR-24-8 and bm16 against
 * rte_fib DIR24_8) and IPv6 (trie and bm6 against rte_fib6 TRIE), as
 * struct bench_fib_family (bench_fib.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/fib.h>
#include <vpk/fib6.h>

#include "bench/bench_fib.h"
#include "fib/fib_dpdk.h"
#include "fib/fib_file.h"
#include "fib/fib_gen.h"

/*
 * tbl8 groups: IPv4 65536 (as rte_fib's examples), at most what the layout can
 * index at this width; IPv6 200000, because rte_fib6 22.11 over-reserves (the
 * RouteViews table needs ~5x the groups it uses), at most the next-hop range.
 */
#define TBL8_V4 65536u
#define TBL8_V6 200000u

static uint32_t
groups4(enum vpk_fib_type type, unsigned nh_size)
{
	uint32_t m = vpk_fib_max_tbl8(type, nh_size);

	return m < TBL8_V4 ? m : TBL8_V4;
}

static uint32_t
groups6(unsigned nh_size)
{
	uint64_t m = vpk_fib6_max_nh(nh_size);

	return m < TBL8_V6 ? (uint32_t)m : TBL8_V6;
}

/*
 * A file's routes in either family: next hops taken from the file modulo 128
 * or drawn at random, so that they fit every entry width (1-byte entries hold
 * 127). Sorted by address by the caller.
 */
static void *
load(int family, const char *path, uint64_t seed, size_t *n, char *err, size_t len)
{
	struct fib_file_routes fr;
	struct gen_rng rng = { seed };

	if (vpk_fib_file_load_routes(path, family, &fr, err, len) != 0)
		return NULL;
	size_t size = family == 4 ? sizeof(struct gen_route4) : sizeof(struct gen_route6);
	void *out = malloc((fr.n + 1) * size);
	if (out == NULL) {
		vpk_fib_file_free_routes(&fr);
		snprintf(err, len, "%s: out of memory for %zu routes", path, fr.n);
		return NULL;
	}
	for (size_t i = 0; i < fr.n; i++) {
		uint64_t nh = fr.r[i].has_nh ? fr.r[i].nh % 128 : 1 + gen_below(&rng, 127);
		const uint8_t *a = fr.r[i].addr;
		if (family == 4)
			((struct gen_route4 *)out)[i] = (struct gen_route4){
				(uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3], fr.r[i].depth, nh };
		else {
			struct gen_route6 *r = &((struct gen_route6 *)out)[i];
			memcpy(r->ip, a, 16);
			r->depth = fr.r[i].depth;
			r->nh = nh;
		}
	}
	*n = fr.n;
	vpk_fib_file_free_routes(&fr);
	return out;
}

/*
 * The calls that only adapt the family's records to struct bench_fib_family's
 * void pointers: route i of an array of R, into vpk's V_add/V_del/... and
 * fib_dpdk.h's D_add/D_del/....
 */
#define FAMILY_ADAPTERS(sfx, R, V, D, STATS)                                           \
	static int add##sfx(void *f, const void *rt, size_t i)                         \
	{                                                                              \
		const R *r = (const R *)rt + i;                                        \
		return V##_add(f, r->ip, r->depth, r->nh);                             \
	}                                                                              \
	static int del##sfx(void *f, const void *rt, size_t i)                         \
	{                                                                              \
		const R *r = (const R *)rt + i;                                        \
		return V##_del(f, r->ip, r->depth);                                    \
	}                                                                              \
	static void select##sfx(void *f, const char *variant)                          \
	{                                                                              \
		V##_select(f, variant);                                                \
	}                                                                              \
	static void lookup##sfx(void *f, const void *keys, uint64_t *out, size_t n)    \
	{                                                                              \
		V##_lookup_bulk(f, keys, out, n);                                      \
	}                                                                              \
	static void mem##sfx(void *f, size_t *dataplane, size_t *rib)                  \
	{                                                                              \
		STATS st;                                                              \
		V##_get_stats(f, &st);                                                 \
		*dataplane = st.dataplane_touched;                                     \
		*rib = st.rib_bytes;                                                   \
	}                                                                              \
	static void destroy##sfx(void *f)                                              \
	{                                                                              \
		V##_destroy(f);                                                        \
	}                                                                              \
	static int dadd##sfx(void *d, const void *rt, size_t i)                        \
	{                                                                              \
		const R *r = (const R *)rt + i;                                        \
		return D##_add(d, r->ip, r->depth, r->nh);                             \
	}                                                                              \
	static int ddel##sfx(void *d, const void *rt, size_t i)                        \
	{                                                                              \
		const R *r = (const R *)rt + i;                                        \
		return D##_del(d, r->ip, r->depth);                                    \
	}                                                                              \
	static void dlookup##sfx(void *d, const void *keys, uint64_t *out, size_t n)   \
	{                                                                              \
		D##_lookup(d, keys, out, n);                                           \
	}                                                                              \
	static void dfree##sfx(void *d)                                                \
	{                                                                              \
		D##_free(d);                                                           \
	}

/* ---- IPv4 ---- */

FAMILY_ADAPTERS(4, struct gen_route4, vpk_fib, dpdk_fib, struct vpk_fib_stats)

static void *
load4(const char *path, uint64_t seed, size_t *n, char *err, size_t len)
{
	return load(4, path, seed, n, err, len);
}

static int
cmp4(const void *a, const void *b)
{
	const struct gen_route4 *x = a, *y = b;

	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	return (x->depth > y->depth) - (x->depth < y->depth);
}

static void
keys4(const void *rt, size_t n, bool in_table, uint64_t seed, void *keys, size_t nl)
{
	gen_lookups4(rt, n, in_table ? GEN_LOOKUP_INTABLE : GEN_LOOKUP_RANDOM, 0, seed, keys, nl);
}

static void *
create4(int type, unsigned nh_size, size_t max_routes)
{
	struct vpk_fib_conf c = { .type = (enum vpk_fib_type)type, .nh_size = nh_size,
				  .num_tbl8 = groups4((enum vpk_fib_type)type, nh_size),
				  .max_routes = (uint32_t)max_routes };
	struct vpk_fib *f;

	return c.num_tbl8 != 0 && vpk_fib_create(&c, &f) == 0 ? f : NULL;
}

static const struct vpk_impl *const *
impls4(int type)
{
	return vpk_fib_impls((enum vpk_fib_type)type);
}

static void *
dcreate4(unsigned nh_size, size_t max_routes, const char **why)
{
	return dpdk_fib_create(nh_size, groups4(VPK_FIB_DIR24_8, nh_size), (uint32_t)max_routes, 0, why);
}

static int
dselect4(void *d, int type)
{
	return dpdk_fib_select(d, (enum dpdk_fib_lookup)type);
}

const struct bench_fib_family bench_fib4_family = {
	.cmd = "bench fib", .family = "ipv4", .dpdk_name = "rte_fib",
	.route_size = sizeof(struct gen_route4), .key_size = sizeof(uint32_t),
	.layouts = { { "vpk-dir24-8", "dir", VPK_FIB_DIR24_8 }, { "vpk-bm16", "bm16", VPK_FIB_BM16 } },
	.dtypes = { { DPDK_FIB_SCALAR_MACRO, "s1-macro" }, { DPDK_FIB_SCALAR_INLINE, "s2-inline" },
		    { DPDK_FIB_SCALAR_UNI, "s3-uni" }, { DPDK_FIB_VECTOR_AVX512, "v-avx512" } },
	.ndtypes = 4,
	.load = load4, .cmp = cmp4, .keys = keys4,
	.create = create4, .add = add4, .del = del4, .select = select4, .lookup = lookup4, .mem = mem4,
	.impls = impls4, .destroy = destroy4,
	.dcreate = dcreate4, .dadd = dadd4, .ddel = ddel4, .dselect = dselect4, .dlookup = dlookup4,
	.dfree = dfree4,
};

/* ---- IPv6 ---- */

FAMILY_ADAPTERS(6, struct gen_route6, vpk_fib6, dpdk_fib6, struct vpk_fib6_stats)

static void *
load6(const char *path, uint64_t seed, size_t *n, char *err, size_t len)
{
	return load(6, path, seed, n, err, len);
}

static int
cmp6(const void *a, const void *b)
{
	const struct gen_route6 *x = a, *y = b;
	int c = memcmp(x->ip, y->ip, 16);

	return c ? c : (x->depth > y->depth) - (x->depth < y->depth);
}

static void
keys6(const void *rt, size_t n, bool in_table, uint64_t seed, void *keys, size_t nl)
{
	gen_lookups6(rt, n, in_table ? GEN_LOOKUP_INTABLE : GEN_LOOKUP_RANDOM, 0, seed, keys, nl);
}

static void *
create6(int type, unsigned nh_size, size_t max_routes)
{
	struct vpk_fib6_conf c = { .type = (enum vpk_fib6_type)type, .nh_size = nh_size,
				   .num_tbl8 = groups6(nh_size), .max_routes = (uint32_t)max_routes };
	struct vpk_fib6 *f;

	return vpk_fib6_create(&c, &f) == 0 ? f : NULL;
}

static const struct vpk_impl *const *
impls6(int type)
{
	return vpk_fib6_impls((enum vpk_fib6_type)type);
}

static void *
dcreate6(unsigned nh_size, size_t max_routes, const char **why)
{
	return dpdk_fib6_create(nh_size, groups6(nh_size), (uint32_t)max_routes, 0, why);
}

static int
dselect6(void *d, int type)
{
	return dpdk_fib6_select(d, type);
}

const struct bench_fib_family bench_fib6_family = {
	.cmd = "bench fib --ipv6", .family = "ipv6", .dpdk_name = "rte_fib6",
	.route_size = sizeof(struct gen_route6), .key_size = 16,
	.layouts = { { "vpk-trie", "trie", VPK_FIB6_TRIE }, { "vpk-bm6", "bm6", VPK_FIB6_BM6 } },
	.dtypes = { { 1, "s-scalar" }, { 2, "v-avx512" } },   /* fib_dpdk.h: 1 scalar, 2 avx512 */
	.ndtypes = 2,
	.load = load6, .cmp = cmp6, .keys = keys6,
	.create = create6, .add = add6, .del = del6, .select = select6, .lookup = lookup6, .mem = mem6,
	.impls = impls6, .destroy = destroy6,
	.dcreate = dcreate6, .dadd = dadd6, .ddel = ddel6, .dselect = dselect6, .dlookup = dlookup6,
	.dfree = dfree6,
};
