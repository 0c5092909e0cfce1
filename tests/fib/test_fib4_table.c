/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 FIB on the real RouteViews table (606 k routes): every usable lookup
 * variant against the reference LPM on random and in-table addresses (half
 * of them in the order of the route file, as dpdk-test-fib looks them up),
 * in one call and in calls of 64 keys and of other short lengths (bm16's
 * short-call walk), after loading, after deleting a random half of the
 * routes, after re-adding them in shuffled order, and after deleting
 * everything. Skips (77) when the table file is absent. The ASan build
 * checks a smaller sample.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <vpk/fib.h>

#include "fib/ref_lpm.h"
#include "fib/table.h"
#include "lib/check.h"

#ifdef VPK_DEBUG
#define NLOOK 20000
#else
#define NLOOK 200000
#endif

struct ctx {
	struct vpk_fib *fib;
	const uint32_t *ips;
	const uint64_t *want;
	uint64_t *out;
	const char *phase;
};

static void
run(void *arg, const struct vpk_impl *impl)
{
	struct ctx *c = arg;
	size_t bad = 0;

	/* Mostly dpdk-test-fib's 64-key calls, and lengths around the block and pass limits. */
	static const size_t lens[] = { 64, 64, 64, 64, 1, 7, 8, 9, 15, 16, 17, 63, 65, 127, 128, 129, 136 };

	CHECK(vpk_fib_select(c->fib, impl->name) == 0, "select");
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 0) {
			vpk_fib_lookup_bulk(c->fib, c->ips, c->out, NLOOK);
		} else {
			for (size_t i = 0, j = 0, l; i < NLOOK; i += l, j++) {
				l = lens[j % (sizeof(lens) / sizeof(lens[0]))];
				l = l < NLOOK - i ? l : NLOOK - i;
				vpk_fib_lookup_bulk(c->fib, c->ips + i, c->out + i, l);
			}
		}
		for (size_t i = 0; i < NLOOK; i++)
			if (c->out[i] != c->want[i] && bad++ < 5)
				CHECK(0, "%s %s %s: ip %08x got %lu want %lu", c->phase, impl->name,
				      pass ? "short calls" : "one call", c->ips[i], (unsigned long)c->out[i],
				      (unsigned long)c->want[i]);
		memset(c->out, 0xa5, NLOOK * sizeof(*c->out));
	}
	CHECK(bad == 0, "%s %s: %zu mismatches", c->phase, impl->name, bad);
}

static void
compare(struct ctx *c, const struct ref_lpm *ref, uint64_t *want, const char *phase)
{
	for (size_t i = 0; i < NLOOK; i++)
		want[i] = ref_lookup4(ref, c->ips[i]);
	c->phase = phase;
	if (strcmp(vpk_fib_type_name(c->fib), "bm16") == 0)
		check_each_impl("fib4-bm16", vpk_fib_impls(VPK_FIB_BM16), run, c);
	else
		check_each_impl("fib4-dir24-8", vpk_fib_impls(VPK_FIB_DIR24_8), run, c);
}

static int
by_depth_ip(const void *a, const void *b)
{
	const struct route4 *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

/* Rebuild the reference from routes [from, to) of rt: sorted appends are O(n). */
static void
rebuild(struct ref_lpm *ref, const struct route4 *rt, size_t from, size_t to)
{
	struct route4 *c = malloc((to - from) * sizeof(*c) + 1);

	memcpy(c, rt + from, (to - from) * sizeof(*c));
	qsort(c, to - from, sizeof(*c), by_depth_ip);
	ref_fini(ref);
	ref_init(ref, 32, 0);
	for (size_t i = 0; i < to - from; i++)
		ref_add(ref, (uint64_t)c[i].ip << 32, 0, c[i].depth, c[i].nh);
	free(c);
}

static void
one_size(const char *path, unsigned nh_size, enum vpk_fib_type type)
{
	uint64_t max_nh = vpk_fib_max_nh(nh_size);
	size_t n;
	struct route4 *rt = table4_load(path, max_nh > 1000 ? 1000 : max_nh, &n);
	struct vpk_fib_conf conf = { .type = type, .nh_size = nh_size, .num_tbl8 = 8192, .max_routes = 1 << 20 };
	struct vpk_fib *fib;
	struct ref_lpm ref;
	struct vpk_fib_stats st;

	if (rt == NULL)
		return;
	CHECK(vpk_fib_create(&conf, &fib) == 0, "create");
	ref_init(&ref, 32, 0);
	for (size_t i = 0; i < n; i++) {
		int rc = vpk_fib_add(fib, rt[i].ip, rt[i].depth, rt[i].nh);
		CHECK(rc == 0, "add %08x/%u: %d", rt[i].ip, rt[i].depth, rc);
	}
	rebuild(&ref, rt, 0, n);
	vpk_fib_get_stats(fib, &st);
	CHECK(st.routes == ref.total, "routes %u vs %zu", st.routes, ref.total);
	printf("nh_size %u: %zu routes, %u tbl8 groups used (%u reserved), dataplane %zu MiB touched, RIB %zu MiB\n",
	       nh_size, n, st.tbl8_used, st.tbl8_reserved, st.dataplane_touched >> 20, st.rib_bytes >> 20);
	/* The memory target for the full table (bm16 at 4 B; 1-2 B take less: narrow flat nodes). */
	CHECK(type != VPK_FIB_BM16 || n < 500000 || st.dataplane_bytes <= (size_t)16 << 20,
	      "bm16 dataplane %zu bytes > 16 MiB", st.dataplane_bytes);

	uint32_t *ips = malloc(NLOOK * sizeof(*ips));
	uint64_t *want = malloc(NLOOK * 8), *out = malloc(NLOOK * 8);
	struct ctx c = { fib, ips, want, out, NULL };
	table4_addrs(rt, n, ips, NLOOK / 2);
	/* The rest in the order of the route file from a random route on (host bits random). */
	for (size_t i = NLOOK / 2, j = check_rand_range(n); i < NLOOK; i++, j = (j + 1) % n) {
		uint32_t host = rt[j].depth == 32 ? 0 : check_rand_u32() & (uint32_t)((UINT64_C(1) << (32 - rt[j].depth)) - 1);
		ips[i] = rt[j].ip | host;
	}
	compare(&c, &ref, want, "loaded");

	/* Shuffle, delete the first half, compare; re-add it, compare. */
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = check_rand_range(i + 1);
		struct route4 t = rt[i];
		rt[i] = rt[j];
		rt[j] = t;
	}
	size_t half = n / 2;
#ifdef VPK_DEBUG
	half = n / 20;
#endif
	for (size_t i = 0; i < half; i++)
		CHECK(vpk_fib_del(fib, rt[i].ip, rt[i].depth) == 0, "del");
	rebuild(&ref, rt, half, n);
	compare(&c, &ref, want, "half deleted");
	for (size_t i = 0; i < half; i++) {
		rt[i].nh ^= 1;
		CHECK(vpk_fib_add(fib, rt[i].ip, rt[i].depth, rt[i].nh) == 0, "re-add");
	}
	rebuild(&ref, rt, 0, n);
	compare(&c, &ref, want, "re-added");
	for (size_t i = 0; i < n; i++)
		CHECK(vpk_fib_del(fib, rt[i].ip, rt[i].depth) == 0, "del all");
	vpk_fib_get_stats(fib, &st);
	CHECK(st.routes == 0 && st.tbl8_used == 0 && st.tbl8_reserved == 0, "empty");
	vpk_fib_lookup_bulk(fib, ips, out, NLOOK);
	size_t nz = 0;
	for (size_t i = 0; i < NLOOK; i++)
		nz += out[i] != 0;
	CHECK(nz == 0, "empty table answers non-default %zu times", nz);
	/* bm16: every node was retired and freed (only the 2^16 direct table is left). */
	CHECK(type != VPK_FIB_BM16 || st.dataplane_bytes == (1u << 16) * 4, "bm16 empty: %zu bytes live",
	      st.dataplane_bytes);
	free(ips);
	free(want);
	free(out);
	free(rt);
	ref_fini(&ref);
	vpk_fib_destroy(fib);
}

int
main(int argc, char **argv)
{
	check_init("fib4_table");
	if (argc < 2 || access(argv[1], R_OK) != 0) {
		check_skip_all("real IPv4 table not found (VPK_FIB_TABLE_V4)");
		return check_finish();
	}
	/* other entry widths: test_fib4 (random tables) and test_fib4_dpdk; 2 B here for the narrow nodes */
	one_size(argv[1], 4, VPK_FIB_DIR24_8);
	one_size(argv[1], 4, VPK_FIB_BM16);
	one_size(argv[1], 2, VPK_FIB_BM16);   /* narrow flat nodes, next hops up to 1000 */
	return check_finish();
}
