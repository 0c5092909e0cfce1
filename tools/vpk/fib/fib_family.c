/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The two address families of vpk fib and vpk bench fib (fib_family.h):
 * IPv4 (DIR-24-8 and bm16 beside rte_fib DIR24_8) and IPv6 (trie and bm6
 * beside rte_fib6 TRIE).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <vpk/fib.h>
#include <vpk/fib6.h>

#include "fib/fib_dpdk.h"
#include "fib/fib_family.h"
#include <vpk/fib_file.h>

/* rte_fib and rte_fib6 (22.11) take at most 2^23 groups. */
#define DPDK_MAX_TBL8 (1u << 23)

static uint32_t
clamp_tbl8(uint64_t max_nh)
{
	return max_nh < DPDK_MAX_TBL8 ? (uint32_t)max_nh : DPDK_MAX_TBL8;
}

static void *
load(int af, const char *path, uint64_t seed, uint64_t nh_max, uint64_t nh_mod, size_t *n, char *err, size_t len)
{
	struct vpk_fib_file_routes fr;
	struct gen_rng rng = { seed };

	if (vpk_fib_file_load_routes(path, af, &fr) != 0) {
		snprintf(err, len, "%s", vpk_last_error());
		return NULL;
	}
	size_t size = af == 4 ? sizeof(struct gen_route4) : sizeof(struct gen_route6);
	void *out = malloc((fr.n + 1) * size);
	if (out == NULL) {
		vpk_fib_file_free_routes(&fr);
		snprintf(err, len, "%s: out of memory for %zu routes", path, fr.n);
		return NULL;
	}
	for (size_t i = 0; i < fr.n; i++) {
		uint64_t nh = fr.r[i].has_nh ? fr.r[i].nh : 1 + gen_below(&rng, nh_max);
		const uint8_t *a = fr.r[i].addr;
		if (nh_mod != 0)
			nh %= nh_mod;
		if (af == 4) {
			((struct gen_route4 *)out)[i] = (struct gen_route4){
				(uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3], fr.r[i].depth, nh };
		} else {
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

/* Write lines to @path with @line(i): 0 or -errno. */
static int
write_lines(const char *path, size_t n, const void *arr, void (*line)(FILE *f, const void *arr, size_t i))
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -errno;
	for (size_t i = 0; i < n; i++)
		line(f, arr, i);
	return fclose(f) == 0 ? 0 : -EIO;
}

/*
 * The calls that only adapt the family's records to struct fib_family's void
 * pointers: route i of an array of R, into vpk's V_add/V_del/... (V_conf
 * CONF) and fib_dpdk.h's D_add/D_del/...; the family's number is sfx (4, 6).
 */
/* Route i of an array of R into P_add / P_del (vpk's or DPDK's table), as pre##add##sfx / pre##del##sfx. */
#define ROUTE_ADD_DEL(pre, sfx, R, P)                                                  \
	static int pre##add##sfx(void *t, const void *rt, size_t i)                    \
	{                                                                              \
		const R *r = (const R *)rt + i;                                        \
		return P##_add(t, r->ip, r->depth, r->nh);                             \
	}                                                                              \
	static int pre##del##sfx(void *t, const void *rt, size_t i)                    \
	{                                                                              \
		const R *r = (const R *)rt + i;                                        \
		return P##_del(t, r->ip, r->depth);                                    \
	}

#define FAMILY_ADAPTERS(sfx, R, V, D, STATS, CONF)                                     \
	ROUTE_ADD_DEL(, sfx, R, V)                                                     \
	ROUTE_ADD_DEL(d, sfx, R, D)                                                    \
	static void select##sfx(void *f, const char *variant)                          \
	{                                                                              \
		V##_select(f, variant);                                                \
	}                                                                              \
	static void lookup##sfx(void *f, const void *keys, uint64_t *out, size_t n)    \
	{                                                                              \
		V##_lookup_bulk(f, keys, out, n);                                      \
	}                                                                              \
	static void stats##sfx(void *f, size_t *dataplane, size_t *rib, uint32_t *used, uint32_t *total) \
	{                                                                              \
		STATS st;                                                              \
		V##_get_stats(f, &st);                                                 \
		*dataplane = st.dataplane_touched;                                     \
		*rib = st.rib_bytes;                                                   \
		*used = st.tbl8_used;                                                  \
		*total = st.tbl8_total;                                                \
	}                                                                              \
	static const char *type_name##sfx(void *f)                                     \
	{                                                                              \
		return V##_type_name(f);                                               \
	}                                                                              \
	static void destroy##sfx(void *f)                                              \
	{                                                                              \
		V##_destroy(f);                                                        \
	}                                                                              \
	static void dlookup##sfx(void *d, const void *keys, uint64_t *out, size_t n)   \
	{                                                                              \
		D##_lookup(d, keys, out, n);                                           \
	}                                                                              \
	static void dfree##sfx(void *d)                                                \
	{                                                                              \
		D##_free(d);                                                           \
	}                                                                              \
	static int write_routes##sfx(const char *path, const void *rt, size_t n)       \
	{                                                                              \
		return write_lines(path, n, rt, route_line##sfx);                      \
	}                                                                              \
	static int write_keys##sfx(const char *path, const void *keys, size_t n)       \
	{                                                                              \
		return write_lines(path, n, keys, key_line##sfx);                      \
	}                                                                              \
	static void *load##sfx(const char *path, uint64_t seed, uint64_t nh_max, uint64_t nh_mod, size_t *n, \
			       char *err, size_t len)                                  \
	{                                                                              \
		return load(sfx, path, seed, nh_max, nh_mod, n, err, len);             \
	}                                                                              \
	static void keys##sfx(const void *rt, size_t n, enum gen_lookup_kind kind, unsigned pct_random, \
			      uint64_t seed, void *keys, size_t nl)                    \
	{                                                                              \
		gen_lookups##sfx(rt, n, kind, pct_random, seed, keys, nl);             \
	}                                                                              \
	static int create##sfx(int type, unsigned nh_size, uint32_t num_tbl8, size_t max_routes, \
			       enum vpk_isa isa, void **f)                             \
	{                                                                              \
		CONF c = { .type = type, .nh_size = nh_size, .num_tbl8 = num_tbl8,     \
			   .max_routes = (uint32_t)max_routes, .isa = isa };           \
		return V##_create(&c, (void *)f);                                      \
	}                                                                              \
	static const struct vpk_impl *const *impls##sfx(int type)                      \
	{                                                                              \
		return V##_impls(type);                                                \
	}                                                                              \
	static void *dcreate##sfx(unsigned nh_size, uint32_t num_tbl8, size_t max_routes, const char **why) \
	{                                                                              \
		return D##_create(nh_size, num_tbl8, (uint32_t)max_routes, 0, why);    \
	}                                                                              \
	static int dselect##sfx(void *d, int type)                                     \
	{                                                                              \
		return D##_select(d, type);                                            \
	}

/* The members of struct fib_family that each family fills with its functions named sfx (4, 6). */
#define FAMILY_OPS(sfx)                                                                                \
	.max_tbl8 = max_tbl8_##sfx, .dpdk_max_tbl8 = dpdk_max_tbl8_##sfx, .load = load##sfx,            \
	.generate = generate##sfx, .cmp = cmp##sfx, .keys = keys##sfx, .route_str = route_str##sfx,      \
	.write_routes = write_routes##sfx, .write_keys = write_keys##sfx, .create = create##sfx,        \
	.add = add##sfx, .del = del##sfx, .select = select##sfx, .lookup = lookup##sfx,                 \
	.lookup_rib = lookup_rib##sfx, .stats = stats##sfx, .type_name = type_name##sfx,                \
	.type_of = type_of##sfx, .impls = impls##sfx, .destroy = destroy##sfx, .dcreate = dcreate##sfx, \
	.dadd = dadd##sfx, .ddel = ddel##sfx, .dselect = dselect##sfx, .dlookup = dlookup##sfx,         \
	.dfree = dfree##sfx

/* The generator's table @rt of (up to) @n routes, or NULL and the reason. */
static void *
generated(void *rt, size_t n, char *err, size_t len)
{
	if (rt == NULL)
		snprintf(err, len, "out of memory for %zu routes", n);
	return rt;
}

/* Routes sort by address, then shorter prefix first. */
static int
cmp_depth(unsigned a, unsigned b)
{
	return (a > b) - (a < b);
}

/* ---- IPv4 ---- */

static void
ip4_str(uint32_t ip, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u.%u", ip >> 24, ip >> 16 & 255, ip >> 8 & 255, ip & 255);
}

static void
route_str4(const void *rt, size_t i, char *buf, size_t len)
{
	const struct gen_route4 *r = (const struct gen_route4 *)rt + i;
	char a[16];

	ip4_str(r->ip, a, sizeof(a));
	snprintf(buf, len, "%s/%u", a, r->depth);
}

static void
route_line4(FILE *f, const void *rt, size_t i)
{
	char s[24];

	route_str4(rt, i, s, sizeof(s));
	fprintf(f, "%s %llu\n", s, (unsigned long long)((const struct gen_route4 *)rt)[i].nh);
}

static void
key_line4(FILE *f, const void *keys, size_t i)
{
	char a[16];

	ip4_str(((const uint32_t *)keys)[i], a, sizeof(a));
	fprintf(f, "%s\n", a);
}

FAMILY_ADAPTERS(4, struct gen_route4, vpk_fib, dpdk_fib, struct vpk_fib_stats, struct vpk_fib_conf)

static uint64_t
lookup_rib4(void *f, const void *keys, size_t i)
{
	return vpk_fib_lookup_rib(f, ((const uint32_t *)keys)[i]);
}

static uint32_t
max_tbl8_4(int type, unsigned nh_size)
{
	return vpk_fib_max_tbl8((enum vpk_fib_type)type, nh_size);
}

static uint32_t
dpdk_max_tbl8_4(unsigned nh_size)
{
	return clamp_tbl8(vpk_fib_max_nh(nh_size));
}

static void *
generate4(size_t n, const char *spec, uint64_t nh_max, uint64_t seed, size_t *out_n, char *err, size_t len)
{
	size_t count[33];
	const char *why = NULL;

	if (gen_distribution(spec, n, count, &why) != 0) {
		snprintf(err, len, "-d %s: %s", spec, why);
		return NULL;
	}
	return generated(gen_routes4(count, nh_max, seed, out_n), n, err, len);
}

static int
cmp4(const void *a, const void *b)
{
	const struct gen_route4 *x = a, *y = b;

	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	return cmp_depth(x->depth, y->depth);
}

static int
type_of4(void *f)
{
	return (int)vpk_fib_get_type(f);
}

const struct fib_family fib_family4 = {
	.family = "ipv4", .af = 4, .dpdk_name = "rte_fib",
	.route_size = sizeof(struct gen_route4), .key_size = sizeof(uint32_t),
	.layouts = { { "vpk-dir24-8", "dir", VPK_FIB_DIR24_8 }, { "vpk-bm16", "bm16", VPK_FIB_BM16 } },
	.dtypes = { { DPDK_FIB_SCALAR_MACRO, "s1-macro", "dpdk-s1" }, { DPDK_FIB_SCALAR_INLINE, "s2-inline", "dpdk-s2" },
		    { DPDK_FIB_SCALAR_UNI, "s3-uni", "dpdk-s3" }, { DPDK_FIB_VECTOR_AVX512, "v-avx512", "dpdk-v" } },
	.ndtypes = 4,
	.max_nh = vpk_fib_max_nh, FAMILY_OPS(4),
};

/* ---- IPv6 ---- */

static void
route_str6(const void *rt, size_t i, char *buf, size_t len)
{
	const struct gen_route6 *r = (const struct gen_route6 *)rt + i;
	char a[INET6_ADDRSTRLEN];

	snprintf(buf, len, "%s/%u", inet_ntop(AF_INET6, r->ip, a, sizeof(a)), r->depth);
}

static void
route_line6(FILE *f, const void *rt, size_t i)
{
	char s[INET6_ADDRSTRLEN + 8];

	route_str6(rt, i, s, sizeof(s));
	fprintf(f, "%s %llu\n", s, (unsigned long long)((const struct gen_route6 *)rt)[i].nh);
}

static void
key_line6(FILE *f, const void *keys, size_t i)
{
	char a[INET6_ADDRSTRLEN];

	fprintf(f, "%s\n", inet_ntop(AF_INET6, (const uint8_t *)keys + 16 * i, a, sizeof(a)));
}

FAMILY_ADAPTERS(6, struct gen_route6, vpk_fib6, dpdk_fib6, struct vpk_fib6_stats, struct vpk_fib6_conf)

static uint64_t
lookup_rib6(void *f, const void *keys, size_t i)
{
	return vpk_fib6_lookup_rib(f, (const uint8_t *)keys + 16 * i);
}

static uint32_t
max_tbl8_6(int type, unsigned nh_size)
{
	(void)type;
	return clamp_tbl8(vpk_fib6_max_nh(nh_size));
}

static uint32_t
dpdk_max_tbl8_6(unsigned nh_size)
{
	return clamp_tbl8(vpk_fib6_max_nh(nh_size));
}

static void *
generate6(size_t n, const char *spec, uint64_t nh_max, uint64_t seed, size_t *out_n, char *err, size_t len)
{
	if (spec != NULL) {
		snprintf(err, len, "-6 -d: IPv6 generation uses the Tier-1 histogram only");
		return NULL;
	}
	return generated(gen_routes6(n, nh_max, seed, out_n), n, err, len);
}

static int
cmp6(const void *a, const void *b)
{
	const struct gen_route6 *x = a, *y = b;
	int c = memcmp(x->ip, y->ip, 16);

	return c ? c : cmp_depth(x->depth, y->depth);
}

static int
type_of6(void *f)
{
	return strcmp(vpk_fib6_type_name(f), "bm6") == 0 ? VPK_FIB6_BM6 : VPK_FIB6_TRIE;
}

const struct fib_family fib_family6 = {
	.family = "ipv6", .af = 6, .dpdk_name = "rte_fib6",
	.route_size = sizeof(struct gen_route6), .key_size = 16,
	.layouts = { { "vpk-trie", "trie", VPK_FIB6_TRIE }, { "vpk-bm6", "bm6", VPK_FIB6_BM6 } },
	.dtypes = { { 1, "s-scalar", "dpdk-s" }, { 2, "v-avx512", "dpdk-v" } },  /* fib_dpdk.h: 1 scalar, 2 avx512 */
	.ndtypes = 2,
	.max_nh = vpk_fib6_max_nh, FAMILY_OPS(6),
};
