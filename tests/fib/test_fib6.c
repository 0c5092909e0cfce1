/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 FIB: API validation, rte_fib6 semantics, exact group accounting
 * (-ENOSPC before any change, recovery), and every usable lookup variant
 * against the reference LPM on random add/delete sequences (clustered
 * prefixes of every length incl. /0 and /128), every entry width, lengths
 * 0..67 and 255..257 with outputs poisoned and inputs ending at a guard page;
 * slices written whole with a group at an edge; then the real RouteViews
 * IPv6 table when present (argv[1]), and the default layout.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <vpk/fib6.h>

#include "fib/bm6.h"
#include "fib/ref_lpm.h"
#include "fib/table.h"
#include "lib/check.h"

#define POISON UINT64_C(0xa5a5a5a5a5a5a5a5)
#ifdef VPK_DEBUG
#define STEPS 500
#else
#define STEPS 1500
#endif

static void
to_bytes(uint64_t hi, uint64_t lo, uint8_t ip[16])
{
	for (int i = 0; i < 8; i++) {
		ip[i] = (uint8_t)(hi >> (56 - 8 * i));
		ip[8 + i] = (uint8_t)(lo >> (56 - 8 * i));
	}
}

static void
from_bytes(const uint8_t ip[16], uint64_t *hi, uint64_t *lo)
{
	*hi = *lo = 0;
	for (int i = 0; i < 8; i++) {
		*hi = *hi << 8 | ip[i];
		*lo = *lo << 8 | ip[8 + i];
	}
}

static uint64_t
one(struct vpk_fib6 *f, uint64_t hi, uint64_t lo)
{
	uint8_t ip[1][16];
	uint64_t nh = POISON;

	to_bytes(hi, lo, ip[0]);
	vpk_fib6_lookup_bulk(f, (const uint8_t (*)[16])ip, &nh, 1);
	return nh;
}

static int
add(struct vpk_fib6 *f, uint64_t hi, uint64_t lo, uint8_t d, uint64_t nh)
{
	uint8_t ip[16];

	to_bytes(hi, lo, ip);
	return vpk_fib6_add(f, ip, d, nh);
}

static int
del(struct vpk_fib6 *f, uint64_t hi, uint64_t lo, uint8_t d)
{
	uint8_t ip[16];

	to_bytes(hi, lo, ip);
	return vpk_fib6_del(f, ip, d);
}

static const char *
kname(enum vpk_fib6_type type)
{
	return type == VPK_FIB6_BM6 ? "fib6-bm6" : "fib6-trie";
}

static void
test_api(enum vpk_fib6_type type)
{
	struct vpk_fib6_conf c = { .type = type, .nh_size = 4, .num_tbl8 = 100, .max_routes = 100 };
	struct vpk_fib6 *f = NULL;

	CHECK(vpk_fib6_create(NULL, &f) == -EINVAL, "NULL conf");
	for (unsigned s = 0; s <= 9; s++) {
		c.nh_size = s;
		int rc = vpk_fib6_create(&c, &f);
		CHECK((s == 2 || s == 4 || s == 8) ? rc == 0 : rc == -EINVAL, "nh_size %u: %d", s, rc);
		if (rc == 0)
			vpk_fib6_destroy(f);
	}
	c.nh_size = 2;
	c.num_tbl8 = 32768;
	CHECK(vpk_fib6_create(&c, &f) == -EINVAL, "2-byte: <= 32767 groups");
	c.num_tbl8 = 0;
	CHECK(vpk_fib6_create(&c, &f) == -EINVAL, "0 groups");
	c.num_tbl8 = 10;
	c.default_nh = 32768;
	CHECK(vpk_fib6_create(&c, &f) == -EINVAL, "default too large");
	c.default_nh = 5;
	c.max_routes = 0;
	CHECK(vpk_fib6_create(&c, &f) == -EINVAL, "0 routes");
	c.max_routes = 100;
	c.num_tbl8 = 100;
	CHECK(vpk_fib6_create(&c, &f) == 0, "create");
	CHECK(strcmp(vpk_fib6_type_name(f), type == VPK_FIB6_BM6 ? "bm6" : "trie") == 0, "type name");
	CHECK(one(f, 1, 2) == 5, "default");
	CHECK(add(f, UINT64_C(0x20010db8ffffffff), 7, 32, 1) == 0, "add /32 with host bits");
	uint8_t ip[16];
	uint64_t nh;
	to_bytes(UINT64_C(0x20010db800000000), 0, ip);
	CHECK(vpk_fib6_get(f, ip, 32, &nh) == 0 && nh == 1, "get");
	CHECK(vpk_fib6_get(f, ip, 33, &nh) == -ENOENT, "get absent");
	CHECK(add(f, 0, 0, 0, 3) == 0 && one(f, 1, 2) == 3, "/0");
	CHECK(add(f, UINT64_C(0x20010db800000000), 1, 128, 9) == 0, "/128");
	CHECK(one(f, UINT64_C(0x20010db800000000), 1) == 9 && one(f, UINT64_C(0x20010db800000000), 0) == 1 &&
	      one(f, UINT64_C(0x20010db800000000), 2) == 1, "/128 lookups");
	CHECK(add(f, UINT64_C(0x20010db800000000), 0, 32, 2) == 0 && one(f, UINT64_C(0x20010db800000000), 5) == 2 &&
	      one(f, UINT64_C(0x20010db800000000), 1) == 9, "replace keeps /128");
	CHECK(del(f, UINT64_C(0x20010db800000000), 0, 32) == 0 && one(f, UINT64_C(0x20010db800000000), 0) == 3,
	      "del restores /0");
	CHECK(del(f, UINT64_C(0x20010db800000000), 0, 32) == -ENOENT, "del twice");
	CHECK(add(f, 0, 0, 129, 1) == -EINVAL && del(f, 0, 0, 129) == -EINVAL, "depth 129");
	CHECK(add(f, 0, 0, 1, UINT64_C(1) << 31) == -EINVAL, "nh too large for 2 bytes");
	struct vpk_fib6_stats st;
	CHECK(vpk_fib6_get_stats(f, &st) == 0 && st.routes == 2 && st.tbl8_used == 13, "stats: %u routes %u groups",
	      st.routes, st.tbl8_used);
	CHECK(del(f, UINT64_C(0x20010db800000000), 1, 128) == 0 && vpk_fib6_get_stats(f, &st) == 0 &&
	      st.tbl8_used == 0, "groups folded back: %u", st.tbl8_used);
	vpk_fib6_destroy(f);

	/* Exact group accounting in one tbl24 entry (2001:0d..): a /128 needs 13 groups,
	 * its sibling none, 2001:db9::/64 four (bytes 4-7), 2001:dba::/48 two. */
	c.num_tbl8 = 18;
	c.default_nh = 0;
	const uint64_t db8 = UINT64_C(0x20010db800000000), db9 = UINT64_C(0x20010db900000000),
		       dba = UINT64_C(0x20010dba00000000);
	CHECK(vpk_fib6_create(&c, &f) == 0, "create 18 groups");
	CHECK(add(f, db8, 1, 128, 1) == 0, "first /128: 13 groups");
	CHECK(add(f, db8, 2, 128, 2) == 0, "sibling /128 shares them");
	CHECK(add(f, db9, 0, 64, 3) == 0, "/64: 4 more");
	CHECK(vpk_fib6_get_stats(f, &st) == 0 && st.tbl8_used == 17, "17 used: %u", st.tbl8_used);
	CHECK(add(f, dba, 0, 48, 4) == -ENOSPC, "/48 needs 2 > 1 free");
	to_bytes(dba, 0, ip);
	CHECK(vpk_fib6_get_stats(f, &st) == 0 && st.tbl8_used == 17 && st.routes == 3 &&
	      vpk_fib6_get(f, ip, 48, &nh) == -ENOENT, "nothing changed");
	CHECK(one(f, dba, 0) == 0, "lookup unchanged");
	CHECK(del(f, db9, 0, 64) == 0 && add(f, dba, 0, 48, 4) == 0, "recovery");
	CHECK(vpk_fib6_get_stats(f, &st) == 0 && st.tbl8_used == 15, "15 used: %u", st.tbl8_used);
	CHECK(one(f, dba, 5) == 4 && one(f, db8, 2) == 2 && one(f, db8, 3) == 0 && one(f, db9, 0) == 0,
	      "after recovery");
	/* Deferred freeing: groups a delete frees stay parked until reclaimed. */
	CHECK(vpk_fib6_set_deferred_free(f, true) == 0, "defer on");
	if (type == VPK_FIB6_BM6) {
		/* The trie copy recycles groups at once; the dataplane nodes are parked (the two
		 * group nodes; the byte-3 node above them is direct and changes in place). */
		CHECK(del(f, dba, 0, 48) == 0 && vpk_fib6_get_stats(f, &st) == 0 && st.tbl8_deferred >= 2 &&
		      st.tbl8_used == 13, "nodes parked: %u, used %u", st.tbl8_deferred, st.tbl8_used);
		CHECK(add(f, db9, 0, 64, 3) == 0 && one(f, db9, 7) == 3 && one(f, dba, 5) == 0, "/64 with nodes parked");
		CHECK(vpk_fib6_reclaim(f) >= 2 && vpk_fib6_get_stats(f, &st) == 0 && st.tbl8_deferred == 0, "reclaim");
		CHECK(del(f, db9, 0, 64) == 0 && add(f, db9, 0, 64, 5) == 0 && one(f, db9, 7) == 5, "churn");
		CHECK(vpk_fib6_reclaim(f) > 0 && vpk_fib6_get_stats(f, &st) == 0, "reclaim 2");
		size_t before = st.dataplane_bytes;
		CHECK(del(f, db9, 0, 64) == 0 && add(f, db9, 0, 64, 6) == 0 && one(f, db9, 7) == 6, "churn 2");
		CHECK(vpk_fib6_get_stats(f, &st) == 0 && st.dataplane_bytes == before,
		      "reclaimed nodes reused: %zu vs %zu bytes", st.dataplane_bytes, before);
	} else {
		CHECK(del(f, dba, 0, 48) == 0 && vpk_fib6_get_stats(f, &st) == 0 && st.tbl8_deferred == 2 &&
		      st.tbl8_used == 13, "2 parked: %u, used %u", st.tbl8_deferred, st.tbl8_used);
		CHECK(add(f, db9, 0, 64, 3) == -ENOSPC, "/64 needs 4, 3 free (2 parked)");
		CHECK(vpk_fib6_reclaim(f) == 2 && add(f, db9, 0, 64, 3) == 0 && one(f, db9, 7) == 3,
		      "reclaim, then the /64");
	}
	vpk_fib6_destroy(f);
}

struct diff {
	struct vpk_fib6 *fib;
	uint8_t (*ips)[16];
	size_t nips;
	uint64_t *want, *out;
	const char *label;
};

static void
run_variant(void *arg, const struct vpk_impl *impl)
{
	struct diff *d = arg;
	size_t lens[80], nl = check_lengths(lens, 80);

	CHECK(vpk_fib6_select(d->fib, impl->name) == 0, "select");
	for (size_t li = 0; li < nl; li++) {
		size_t len = lens[li];
		if (len > d->nips)
			continue;
		const uint8_t (*in)[16] = (const uint8_t (*)[16])d->ips + d->nips - len;
		for (size_t i = 0; i <= len; i++)
			d->out[i] = POISON;
		vpk_fib6_lookup_bulk(d->fib, in, d->out, len);
		size_t bad = 0;
		for (size_t i = 0; i < len; i++)
			if (d->out[i] != d->want[d->nips - len + i] && bad++ < 3)
				CHECK(0, "%s %s len %zu [%zu]: %lu want %lu", d->label, impl->name, len, i,
				      (unsigned long)d->out[i], (unsigned long)d->want[d->nips - len + i]);
		CHECK(bad == 0, "%s %s len %zu: %zu wrong", d->label, impl->name, len, bad);
		CHECK(d->out[len] == POISON, "%s %s len %zu: wrote past the end", d->label, impl->name, len);
	}
	/* Unaligned addresses. */
	size_t len = d->nips < 100 ? d->nips : 100;
	uint8_t *ub = malloc(len * 16 + 1);
	memcpy(ub + 1, d->ips, len * 16);
	vpk_fib6_lookup_bulk(d->fib, (const uint8_t (*)[16])(ub + 1), d->out, len);
	for (size_t i = 0; i < len; i++)
		CHECK(d->out[i] == d->want[i], "%s %s unaligned [%zu]", d->label, impl->name, i);
	free(ub);
}

static void
test_random(unsigned nh_size, enum vpk_fib6_type type)
{
	uint64_t max_nh = vpk_fib6_max_nh(nh_size), def = check_rand_range(2) ? 0 : 1 + check_rand_range(20);
	struct vpk_fib6_conf c = { .type = type, .nh_size = nh_size, .num_tbl8 = 3000, .default_nh = def,
				   .max_routes = 4096 };
	bool defer = check_rand_range(2) != 0;
	struct vpk_fib6 *f;
	struct ref_lpm ref;
	struct { uint64_t hi, lo; uint8_t d; } live[1024], edge[2048];
	size_t nlive = 0, nedge = 0;
	char label[16];
	struct diff dd = { .nips = 500, .label = label };

	snprintf(label, sizeof(label), "%s nh%u", type == VPK_FIB6_BM6 ? "bm6" : "trie", nh_size);
	CHECK(vpk_fib6_create(&c, &f) == 0, "create");
	vpk_fib6_set_deferred_free(f, defer);
	dd.fib = f;
	ref_init(&ref, 128, def);
	dd.ips = check_guard_alloc(dd.nips * 16);
	dd.want = malloc(dd.nips * 8);
	dd.out = malloc((dd.nips + 1) * 8);
	uint64_t area = UINT64_C(0x2001000000000000) | (check_rand() & UINT64_C(0x0000ffff00000000));
	for (unsigned step = 0; step < STEPS; step++) {
		if (check_rand_range(100) < 60 || nlive == 0) {
			uint64_t hi, lo;
			uint8_t d;
			unsigned k = (unsigned)check_rand_range(16);
			if (k == 0) {
				d = (uint8_t)check_rand_range(33);
				hi = check_rand();
				lo = check_rand();
			} else {
				d = (uint8_t)(24 + check_rand_range(105));      /* 24..128, clustered */
				hi = area | (check_rand() & (k < 8 ? UINT64_C(0x3000000) : UINT64_C(0xffffffff)));
				lo = k < 12 ? check_rand() & 0xff0f : check_rand();
			}
			uint64_t nh = check_rand_range(4) == 0 ? def : 1 + check_rand_range(max_nh < 30 ? max_nh : 30);
			int rc = add(f, hi, lo, d, nh);
			CHECK(rc == 0, "add /%u: %d", d, rc);
			if (rc != 0)
				continue;
			ref_mask(d, &hi, &lo);
			if (!ref_add(&ref, hi, lo, d, nh) && nlive < 1024) {
				live[nlive].hi = hi;
				live[nlive].lo = lo;
				live[nlive++].d = d;
			}
			if (nedge < 2048) {
				edge[nedge].hi = hi;
				edge[nedge].lo = lo;
				edge[nedge++].d = d;
			}
		} else {
			size_t k = check_rand_range(nlive);
			CHECK(del(f, live[k].hi, live[k].lo, live[k].d) == 0 &&
			      ref_del(&ref, live[k].hi, live[k].lo, live[k].d), "del");
			live[k] = live[--nlive];
		}
		if (defer && step % 50 == 49)
			vpk_fib6_reclaim(f);
		if (step % 250 == 249) {
			for (size_t i = 0; i < dd.nips; i++) {
				uint64_t hi, lo;
				unsigned r = (unsigned)check_rand_range(4);
				if (r == 0 || nedge == 0) {
					hi = check_rand();
					lo = check_rand();
				} else {
					size_t e = check_rand_range(nedge);
					hi = edge[e].hi;
					lo = edge[e].lo;
					if (r == 2) {   /* last address of the prefix, +-1 */
						uint64_t mh = ~UINT64_C(0), ml = ~UINT64_C(0);
						ref_mask(edge[e].d, &mh, &ml);
						hi |= ~mh;
						lo |= ~ml;
					}
					uint64_t delta = check_rand_range(3) - 1;
					uint64_t nlo = lo + delta;
					hi += (delta == 1 && nlo == 0) ? 1 : (delta == UINT64_MAX && lo == 0) ? UINT64_MAX : 0;
					lo = nlo;
				}
				to_bytes(hi, lo, dd.ips[i]);
				dd.want[i] = ref_lookup(&ref, hi, lo);
			}
			check_each_impl(kname(type), vpk_fib6_impls(type), run_variant, &dd);
			/* Random addresses only: whole groups ending in the direct table (the avx2
			 * variant answers such a group without its vector walk). */
			for (size_t i = 0; i < dd.nips; i++) {
				uint64_t hi = check_rand(), lo = check_rand();
				to_bytes(hi, lo, dd.ips[i]);
				dd.want[i] = ref_lookup(&ref, hi, lo);
			}
			check_each_impl(kname(type), vpk_fib6_impls(type), run_variant, &dd);
		}
	}
	for (size_t k = 0; k < nlive; k++)
		CHECK(del(f, live[k].hi, live[k].lo, live[k].d) == 0, "final del");
	struct vpk_fib6_stats st;
	vpk_fib6_get_stats(f, &st);
	CHECK(st.routes == 0 && st.tbl8_used == 0, "empty: %u routes %u groups", st.routes, st.tbl8_used);
	if (type == VPK_FIB6_BM6) {
		vpk_fib6_reclaim(f);
		for (size_t i = 0; i < 64; i++)
			dd.want[i] = POISON;
		to_bytes(area, 1, dd.ips[0]);
		vpk_fib6_lookup_bulk(f, (const uint8_t (*)[16])dd.ips, dd.want, 1);
		CHECK(dd.want[0] == def, "empty table answers the default");
	}
	check_guard_free(dd.ips, dd.nips * 16);
	free(dd.want);
	free(dd.out);
	ref_fini(&ref);
	vpk_fib6_destroy(f);
}

/*
 * A slice (2^16 prefix) whose 256 tbl24 entries are written whole by one
 * update but hold a group at its first or last entry (a /30 added before
 * the covering /16): bm6 makes a slice written whole a leaf only when all
 * its entries are one next hop. Every width, both layouts.
 */
static void
test_slice_edges(enum vpk_fib6_type type)
{
	for (unsigned sz = 2; sz <= 8; sz *= 2)
		for (unsigned edge = 0; edge < 2; edge++) {
			struct vpk_fib6_conf c = { .type = type, .nh_size = sz, .num_tbl8 = 64, .max_routes = 16 };
			struct vpk_fib6 *f;
			uint64_t s = UINT64_C(0x2001) << 48, e = (uint64_t)(edge ? 255 : 0) << 40;
			CHECK(vpk_fib6_create(&c, &f) == 0, "create");
			CHECK(add(f, s | e, 0, 30, 9) == 0, "add /30");
			CHECK(add(f, s, 0, 16, 4) == 0, "add /16");
			CHECK(one(f, s | e | UINT64_C(0x123), 5) == 9, "%u bytes, edge %u: /30 under the /16", sz, edge);
			CHECK(one(f, s | e | (UINT64_C(1) << 38), 5) == 4, "%u bytes: rest of its /24", sz);
			CHECK(one(f, s | (UINT64_C(0x80) << 40), 5) == 4, "%u bytes: middle of the slice", sz);
			CHECK(del(f, s, 0, 16) == 0, "del /16");
			CHECK(one(f, s | e | UINT64_C(0x123), 5) == 9 && one(f, s | (UINT64_C(0x80) << 40), 5) == 0,
			      "%u bytes, edge %u: after deleting the /16", sz, edge);
			vpk_fib6_destroy(f);
		}
}

static int
cmp_route(const void *a, const void *b)
{
	const struct vpk_fib_file_route *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return memcmp(x->addr, y->addr, 16);
}

static void
run_table(void *arg, const struct vpk_impl *impl)
{
	struct diff *d = arg;
	size_t bad = 0;

	vpk_fib6_select(d->fib, impl->name);
	vpk_fib6_lookup_bulk(d->fib, (const uint8_t (*)[16])d->ips, d->out, d->nips);
	for (size_t i = 0; i < d->nips; i++)
		bad += d->out[i] != d->want[i];
	CHECK(bad == 0, "real table %s: %zu of %zu wrong", impl->name, bad, d->nips);
	/* Short calls (the breadth-first walk): dpdk-test-fib's 64, and 100 = a full chunk + 36. */
	for (size_t call = 64; call <= 100; call += 36) {
		bad = 0;
		for (size_t i = 0; i + call <= d->nips; i += call) {
			vpk_fib6_lookup_bulk(d->fib, (const uint8_t (*)[16])d->ips + i, d->out, call);
			for (size_t j = 0; j < call; j++)
				bad += d->out[j] != d->want[i + j];
		}
		CHECK(bad == 0, "real table %s, %zu-address calls: %zu wrong", impl->name, call, bad);
	}
	/* In-table addresses only (every odd one): whole chunks in nodes, the walk's dense loops. */
	uint8_t in[64][16];
	uint64_t want[64];
	bad = 0;
	for (size_t i = 1; i + 128 <= d->nips; i += 128) {
		for (size_t j = 0; j < 64; j++) {
			memcpy(in[j], d->ips[i + 2 * j], 16);
			want[j] = d->want[i + 2 * j];
		}
		vpk_fib6_lookup_bulk(d->fib, (const uint8_t (*)[16])in, d->out, 64);
		for (size_t j = 0; j < 64; j++)
			bad += d->out[j] != want[j];
	}
	CHECK(bad == 0, "real table %s, in-table 64-address calls: %zu wrong", impl->name, bad);
}

static void
test_table(const char *path, enum vpk_fib6_type type)
{
	struct vpk_fib_file_routes rt;

	if (vpk_fib_file_load_routes(path, 6, &rt) != 0) {
		CHECK(0, "%s", vpk_last_error());
		return;
	}
	qsort(rt.r, rt.n, sizeof(rt.r[0]), cmp_route);
	struct vpk_fib6_conf c = { .type = type, .nh_size = 4, .num_tbl8 = 65536, .max_routes = (uint32_t)rt.n };
	struct vpk_fib6 *f;
	struct ref_lpm ref;
	CHECK(vpk_fib6_create(&c, &f) == 0, "create");
	ref_init(&ref, 128, 0);
	for (size_t i = 0; i < rt.n; i++) {
		uint64_t hi, lo, nh = 1 + table_mix(i) % 127;
		from_bytes(rt.r[i].addr, &hi, &lo);
		CHECK(vpk_fib6_add(f, rt.r[i].addr, rt.r[i].depth, nh) == 0, "add");
		ref_add(&ref, hi, lo, rt.r[i].depth, nh);
	}
	struct vpk_fib6_stats st;
	vpk_fib6_get_stats(f, &st);
	printf("IPv6 table (%s): %zu routes, %u tbl8 groups used, dataplane %zu bytes\n", vpk_fib6_type_name(f), rt.n,
	       st.tbl8_used, st.dataplane_touched);
	struct diff d = { .fib = f, .nips = 100000 };
	d.ips = malloc(d.nips * 16);
	d.want = malloc(d.nips * 8);
	d.out = malloc(d.nips * 8);
	for (size_t i = 0; i < d.nips; i++) {
		uint64_t hi, lo;
		if (i % 2) {
			const struct vpk_fib_file_route *r = &rt.r[check_rand_range(rt.n)];
			uint64_t mh = ~UINT64_C(0), ml = ~UINT64_C(0);
			from_bytes(r->addr, &hi, &lo);
			ref_mask(r->depth, &mh, &ml);
			hi |= check_rand() & ~mh;
			lo |= check_rand() & ~ml;
		} else {
			hi = UINT64_C(0x2000000000000000) | (check_rand() >> 3);
			lo = check_rand();
		}
		to_bytes(hi, lo, d.ips[i]);
		d.want[i] = ref_lookup(&ref, hi, lo);
	}
	check_each_impl(kname(type), vpk_fib6_impls(type), run_table, &d);
	for (size_t i = 0; i < rt.n; i++)
		CHECK(vpk_fib6_del(f, rt.r[i].addr, rt.r[i].depth) == 0, "del");
	vpk_fib6_get_stats(f, &st);
	CHECK(st.routes == 0 && st.tbl8_used == 0, "empty after deleting the table");
	free(d.ips);
	free(d.want);
	free(d.out);
	ref_fini(&ref);
	vpk_fib_file_free_routes(&rt);
	vpk_fib6_destroy(f);
}

/*
 * bm6 skip nodes (bm6.h): /128 host routes below one /48 cost about a line
 * each below byte 6 (chains of single-route links), where direct nodes
 * cost 1 KiB per byte level; every host and its neighbour answer right.
 */
static void
test_host_routes(void)
{
	const uint64_t net = UINT64_C(0x20010db800010000);      /* 2001:db8:1::/48 */
	enum { N = 100 };

	for (unsigned sz = 4; sz <= 8; sz *= 4) {
		struct vpk_fib6_conf c = { .type = VPK_FIB6_BM6, .nh_size = sz, .num_tbl8 = 2048, .max_routes = 256 };
		struct vpk_fib6_stats st;
		struct vpk_fib6 *f;
		uint64_t host[N][2];
		size_t before;

		CHECK(vpk_fib6_create(&c, &f) == 0, "create %u", sz);
		CHECK(add(f, net, 0, 48, 1) == 0 && vpk_fib6_get_stats(f, &st) == 0, "/48");
		before = st.dataplane_bytes;
		for (unsigned i = 0; i < N; i++) {
			host[i][0] = net | (check_rand() & 0xffff);
			host[i][1] = check_rand() | 2;   /* bit 1 set: the neighbour below differs there */
			CHECK(add(f, host[i][0], host[i][1], 128, 2 + i) == 0, "host %u", i);
		}
		CHECK(vpk_fib6_get_stats(f, &st) == 0, "stats");
		CHECK(st.dataplane_bytes - before <= (size_t)N * 2048, "%zu bytes for %u host routes",
		      st.dataplane_bytes - before, N);
		for (unsigned i = 0; i < N; i++) {
			CHECK(one(f, host[i][0], host[i][1]) == 2 + i, "host %u", i);
			CHECK(one(f, host[i][0], host[i][1] ^ 2) == 1, "neighbour of host %u", i);
		}
		vpk_fib6_destroy(f);
	}
}

/* VPK_FIB6_TYPE_DEFAULT: bm6 at every width; its variant list is bm6's. */
static void
test_default(void)
{
	for (unsigned sz = 2; sz <= 8; sz *= 2) {
		struct vpk_fib6_conf c = { .nh_size = sz, .num_tbl8 = 16, .max_routes = 16 };
		struct vpk_fib6 *f;
		CHECK(vpk_fib6_create(&c, &f) == 0, "create default %u", sz);
		CHECK(strcmp(vpk_fib6_type_name(f), "bm6") == 0, "default at %u bytes: %s", sz,
		      vpk_fib6_type_name(f));
		vpk_fib6_destroy(f);
	}
	CHECK(vpk_fib6_impls(VPK_FIB6_TYPE_DEFAULT) == vpk_fib6_impls(VPK_FIB6_BM6), "default variants");
	CHECK(vpk_fib6_impls(VPK_FIB6_TYPE_COUNT) == NULL, "unknown type");
}

int
main(int argc, char **argv)
{
	check_init("fib6");
	test_default();
	test_host_routes();
	for (enum vpk_fib6_type t = VPK_FIB6_TRIE; t <= VPK_FIB6_BM6; t++) {
		test_api(t);
		test_slice_edges(t);
		for (unsigned s = 2; s <= 8; s *= 2)
			test_random(s, t);
	}
	if (argc >= 2 && access(argv[1], R_OK) == 0)
		for (enum vpk_fib6_type t = VPK_FIB6_TRIE; t <= VPK_FIB6_BM6; t++)
			test_table(argv[1], t);
	else
		printf("real IPv6 table not found: skipped that part\n");
	return check_finish();
}
