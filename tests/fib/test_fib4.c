/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 FIB: API validation, rte_fib semantics, and a differential test of
 * every usable lookup variant against the reference LPM (ref_lpm.c) on
 * random add/delete sequences, every entry width, every length 0..136 and
 * 255..257, outputs poisoned and inputs ending at a guard page.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/fib.h>

#include "fib/bm16.h"
#include "fib/dir24_8.h"
#include "fib/ref_lpm.h"
#include "lib/check.h"

#define POISON UINT64_C(0xa5a5a5a5a5a5a5a5)

#ifdef VPK_DEBUG
#define STEPS 300       /* sanitizer build: fewer steps, */
#define SHORT_MIN 5     /* and short random routes /5../8 (/0../4 in test_semantics), */
#define ORDER_CMP 64    /* fewer comparisons in test_address_order */
#else
#define STEPS 1500
#define SHORT_MIN 0
#define ORDER_CMP 16
#endif

/* Layout under test (both give identical answers). */
static enum vpk_fib_type g_type = VPK_FIB_DIR24_8;

static const char *
kname(void)
{
	return g_type == VPK_FIB_BM16 ? "fib4-bm16" : "fib4-dir24-8";
}

static struct vpk_fib *
mk(unsigned nh_size, uint32_t tbl8, uint64_t def, uint32_t max_routes)
{
	struct vpk_fib_conf c = { .type = g_type, .nh_size = nh_size, .num_tbl8 = tbl8, .default_nh = def,
				  .max_routes = max_routes };
	struct vpk_fib *f = NULL;
	int rc = vpk_fib_create(&c, &f);

	CHECK(rc == 0, "create nh_size %u tbl8 %u: %d", nh_size, tbl8, rc);
	return f;
}

/*
 * n /24s at every other /24 of the /16 chunk at @chunk (x = 1, 3, 5, ...),
 * next hops alternating nh0 and nh1, added (or with @del deleted) in the
 * FIB and the reference. The chunk then holds 2n + 1 runs: a dense chunk
 * as real tables have, which bm16 keeps in a flat node from 16 runs (8 at
 * 1- and 2-byte next hops) and in a compressed one below half that.
 */
#define DENSE_N 9       /* 19 runs: flat at every next-hop width */
static void
spaced24(struct vpk_fib *f, struct ref_lpm *ref, uint32_t chunk, unsigned n, uint64_t nh0, uint64_t nh1, bool del)
{
	for (uint32_t x = 0; x < n; x++) {
		uint32_t ip = chunk | (2 * x + 1) << 8;
		uint64_t nh = x % 2 ? nh1 : nh0;

		if (del) {
			CHECK(vpk_fib_del(f, ip, 24) == 0, "del %08x/24", ip);
			ref_del(ref, (uint64_t)ip << 32, 0, 24);
		} else {
			CHECK(vpk_fib_add(f, ip, 24, nh) == 0, "add %08x/24", ip);
			ref_add(ref, (uint64_t)ip << 32, 0, 24, nh);
		}
	}
}

static void
test_create_invalid(void)
{
	struct vpk_fib_conf c = { .nh_size = 4, .num_tbl8 = 64, .max_routes = 10 };
	struct vpk_fib *f = NULL;

	CHECK(vpk_fib_create(NULL, &f) == -EINVAL, "NULL conf");
	CHECK(vpk_fib_create(&c, NULL) == -EINVAL, "NULL out");
	for (unsigned s = 0; s <= 9; s++) {
		c.nh_size = s;
		int rc = vpk_fib_create(&c, &f);
		bool ok = s == 1 || s == 2 || s == 4 || s == 8;
		CHECK(ok ? rc == 0 : rc == -EINVAL, "nh_size %u: %d", s, rc);
		if (rc == 0)
			vpk_fib_destroy(f);
	}
	/* The default layout per width, and each layout's group limit. */
	static const enum vpk_fib_type want_default[9] = { [1] = VPK_FIB_BM16, [2] = VPK_FIB_DIR24_8,
							   [4] = VPK_FIB_DIR24_8, [8] = VPK_FIB_DIR24_8 };
	for (unsigned s = 1; s <= 8; s *= 2) {
		c.nh_size = s;
		CHECK(vpk_fib_create(&c, &f) == 0 && vpk_fib_get_type(f) == want_default[s], "default at %u B: %s", s,
		      vpk_fib_type_name(f));
		vpk_fib_destroy(f);
		CHECK(vpk_fib_max_tbl8(VPK_FIB_TYPE_DEFAULT, s) == vpk_fib_max_tbl8(want_default[s], s), "max groups");
	}
	CHECK(vpk_fib_get_type(NULL) == VPK_FIB_TYPE_DEFAULT, "get_type NULL");
	CHECK(vpk_fib_max_tbl8(VPK_FIB_DIR24_8, 1) == 127 && vpk_fib_max_tbl8(VPK_FIB_DIR24_8, 2) == 32767 &&
	      vpk_fib_max_tbl8(VPK_FIB_DIR24_8, 4) == DIR24_8_MAX_TBL8 && vpk_fib_max_tbl8(VPK_FIB_BM16, 1) == 1u << 20 &&
	      vpk_fib_max_tbl8(VPK_FIB_BM16, 8) == 0 && vpk_fib_max_tbl8(VPK_FIB_DIR24_8, 3) == 0 &&
	      vpk_fib_max_tbl8(VPK_FIB_TYPE_COUNT, 4) == 0, "max groups per layout");
	c.nh_size = 1;
	c.type = VPK_FIB_BM16;
	c.num_tbl8 = 1u << 20;
	CHECK(vpk_fib_create(&c, &f) == 0, "bm16: 2^20 groups at 1 byte");
	vpk_fib_destroy(f);
	c.num_tbl8 = (1u << 20) + 1;
	CHECK(vpk_fib_create(&c, &f) == -EINVAL, "bm16: > 2^20 groups");
	c.type = VPK_FIB_DIR24_8;
	c.num_tbl8 = 128;
	CHECK(vpk_fib_create(&c, &f) == -EINVAL, "1-byte entries hold <= 127 groups");
	c.num_tbl8 = 127;
	c.default_nh = 128;
	CHECK(vpk_fib_create(&c, &f) == -EINVAL, "default above 127");
	c.default_nh = 127;
	CHECK(vpk_fib_create(&c, &f) == 0, "default 127");
	vpk_fib_destroy(f);
	c.nh_size = 4;
	c.num_tbl8 = 0;
	CHECK(vpk_fib_create(&c, &f) == -EINVAL, "0 groups");
	c.num_tbl8 = DIR24_8_MAX_TBL8 + 1;
	CHECK(vpk_fib_create(&c, &f) == -EINVAL, "too many groups");
	c.num_tbl8 = 64;
	c.max_routes = 0;
	CHECK(vpk_fib_create(&c, &f) == -EINVAL, "0 routes");
	c.max_routes = 10;
	c.type = VPK_FIB_TYPE_COUNT;
	CHECK(vpk_fib_create(&c, &f) == -EINVAL, "bad type");
	c.type = VPK_FIB_DIR24_8;
	c.isa = VPK_ISA_COUNT;
	CHECK(vpk_fib_create(&c, &f) == -EINVAL, "bad isa");
	for (enum vpk_isa i = VPK_ISA_SCALAR; i < VPK_ISA_COUNT; i++) {
		const struct vpk_impl *impl;
		int want = vpk_impl_pick(vpk_fib_impls(VPK_FIB_DIR24_8), i, &impl);
		c.isa = i;
		int rc = vpk_fib_create(&c, &f);
		CHECK(rc == want, "forced %s: %d, pick says %d", vpk_isa_name(i), rc, want);
		if (rc == 0) {
			CHECK(strcmp(vpk_fib_impl_name(f), impl->name) == 0, "impl name %s", vpk_fib_impl_name(f));
			vpk_fib_destroy(f);
		}
	}
	vpk_fib_destroy(NULL);
	CHECK(strcmp(vpk_fib_impl_name(NULL), "?") == 0, "NULL impl name");
}

static int
collect(void *arg, uint32_t ip, uint8_t depth, uint64_t nh)
{
	uint64_t *v = arg;
	size_t n = v[0]++;

	v[1 + 3 * n] = ip;
	v[2 + 3 * n] = depth;
	v[3 + 3 * n] = nh;
	return 0;
}

static uint64_t
one(struct vpk_fib *f, uint32_t ip)
{
	uint64_t nh = POISON;

	vpk_fib_lookup_bulk(f, &ip, &nh, 1);
	return nh;
}

static void
test_semantics(void)
{
	struct vpk_fib *f = mk(4, 64, 7, 100);
	uint64_t nh;

	if (f == NULL)
		return;
	CHECK(one(f, 0x0a000001) == 7, "default");
	CHECK(vpk_fib_add(f, 0x0a0000ff, 8, 1) == 0, "add 10/8 with host bits");
	CHECK(vpk_fib_get(f, 0x0a000000, 8, &nh) == 0 && nh == 1, "get masked");
	CHECK(vpk_fib_get(f, 0x0a123456, 8, &nh) == 0 && nh == 1, "get with host bits");
	CHECK(vpk_fib_get(f, 0x0a000000, 9, &nh) == -ENOENT, "get absent");
	CHECK(one(f, 0x0a010203) == 1 && one(f, 0x0b000000) == 7, "10/8");
	CHECK(vpk_fib_add(f, 0, 0, 3) == 0, "add /0");
	CHECK(one(f, 0x0b000000) == 3 && one(f, 0x0a000000) == 1, "/0 shadows default");
	CHECK(vpk_fib_add(f, 0x0a010203, 32, 9) == 0, "add /32");
	CHECK(one(f, 0x0a010203) == 9 && one(f, 0x0a010202) == 1 && one(f, 0x0a010204) == 1, "/32");
	CHECK(vpk_fib_add(f, 0x0a000000, 8, 2) == 0, "replace 10/8");
	CHECK(one(f, 0x0a010203) == 9 && one(f, 0x0a010202) == 2, "replace keeps /32");
	CHECK(vpk_fib_del(f, 0x0a000000, 8) == 0, "del 10/8");
	CHECK(one(f, 0x0a010203) == 9 && one(f, 0x0a010202) == 3, "del restores /0");
	CHECK(vpk_fib_del(f, 0x0a000000, 8) == -ENOENT, "del twice");
	CHECK(vpk_fib_del(f, 0, 0) == 0, "del /0");
	CHECK(one(f, 0x0a010202) == 7 && one(f, 0x0a010203) == 9, "del /0 restores default");
	CHECK(vpk_fib_add(f, 1, 33, 1) == -EINVAL, "depth 33");
	CHECK(vpk_fib_del(f, 1, 33) == -EINVAL, "del depth 33");
	CHECK(vpk_fib_add(f, 1, 32, UINT64_C(1) << 31) == -EINVAL, "nh too large");
	CHECK(vpk_fib_add(NULL, 1, 32, 1) == -EINVAL, "NULL fib");
	CHECK(vpk_fib_get(f, 1, 32, NULL) == -EINVAL, "get NULL");

	/* Walk order: address, then length. */
	vpk_fib_add(f, 0x0a000000, 8, 4);
	vpk_fib_add(f, 0x0a000000, 16, 5);
	vpk_fib_add(f, 0x01000000, 24, 6);
	uint64_t v[1 + 3 * 8] = { 0 };
	CHECK(vpk_fib_walk(f, collect, v) == 0 && v[0] == 4, "walk count %lu", (unsigned long)v[0]);
	uint64_t want[] = { 0x01000000, 24, 6, 0x0a000000, 8, 4, 0x0a000000, 16, 5, 0x0a010203, 32, 9 };
	CHECK(memcmp(&v[1], want, sizeof(want)) == 0, "walk order");
	struct vpk_fib_stats st;
	CHECK(vpk_fib_get_stats(f, &st) == 0 && st.routes == 4 && st.tbl8_reserved == 1 && st.tbl8_used == 1,
	      "stats routes %u rsvd %u used %u", st.routes, st.tbl8_reserved, st.tbl8_used);
	CHECK(vpk_fib_del(f, 0x0a010203, 32) == 0, "del /32");
	CHECK(vpk_fib_get_stats(f, &st) == 0 && st.tbl8_reserved == 0 && st.tbl8_used == 0,
	      "group recycled: rsvd %u used %u", st.tbl8_reserved, st.tbl8_used);
	vpk_fib_destroy(f);

	/* dpdk_top_edge: rte_fib 22.11 writes 0 everywhere here (the right edge of
	 * 128/1's last child wraps to 0); the right answers are 17, 5, 0. */
	f = mk(4, 64, 0, 100);
	CHECK(vpk_fib_add(f, 0, 1, 17) == 0 && vpk_fib_add(f, 0x80000000, 2, 5) == 0 &&
	      vpk_fib_add(f, 0xc0000000, 2, 0) == 0 && vpk_fib_add(f, 0x80000000, 1, 0) == 0, "top edge adds");
	CHECK(one(f, 0x7f96f25b) == 17 && one(f, 0x881cfd4d) == 5 && one(f, 0xc0000001) == 0 &&
	      one(f, 0xffffffff) == 0, "top edge lookups");
	CHECK(vpk_fib_add(f, 0xffffffff, 32, 9) == 0 && one(f, 0xffffffff) == 9 && one(f, 0xfffffffe) == 0,
	      "255.255.255.255/32");
	CHECK(vpk_fib_del(f, 0xc0000000, 2) == 0 && one(f, 0xc0000001) == 0 && one(f, 0xffffffff) == 9, "del 192/2");
	vpk_fib_destroy(f);

	/* Deferred freeing: folded groups are parked (counted against the pool) until reclaimed. */
	if (g_type == VPK_FIB_DIR24_8) {
		f = mk(4, 64, 0, 1000);
		struct vpk_fib_stats ds;
		CHECK(vpk_fib_set_deferred_free(f, true) == 0 && vpk_fib_set_deferred_free(NULL, true) == -EINVAL, "defer on");
		for (uint32_t i = 0; i < 64; i++)
			CHECK(vpk_fib_add(f, 0x0b000000 | i << 8, 25, 1) == 0, "fill the pool");
		CHECK(vpk_fib_del(f, 0x0b000000, 25) == 0, "del parks a group");
		CHECK(vpk_fib_get_stats(f, &ds) == 0 && ds.tbl8_deferred == 1 && ds.tbl8_reserved == 63 &&
		      ds.tbl8_used == 63, "parked 1: %u reserved %u used %u", ds.tbl8_deferred, ds.tbl8_reserved, ds.tbl8_used);
		CHECK(vpk_fib_add(f, 0x0c000000, 25, 2) == -ENOSPC, "parked group is not free");
		CHECK(one(f, 0x0c000001) == 0 && one(f, 0x0b000001) == 0, "nothing changed");
		CHECK(vpk_fib_add(f, 0x0b000100, 25, 3) == 0 && one(f, 0x0b000101) == 3,
		      "replace within reserved + parked <= groups");
		CHECK(vpk_fib_reclaim(f) == 1 && vpk_fib_reclaim(NULL) == -EINVAL, "reclaim 1");
		CHECK(vpk_fib_add(f, 0x0c000000, 25, 2) == 0 && one(f, 0x0c000001) == 2 && one(f, 0x0c0000ff) == 0,
		      "after reclaim");
		CHECK(vpk_fib_set_deferred_free(f, false) == 0 && vpk_fib_del(f, 0x0c000000, 25) == 0 &&
		      vpk_fib_get_stats(f, &ds) == 0 && ds.tbl8_deferred == 0, "defer off frees at once");
		vpk_fib_destroy(f);
	}

	/* max_routes: -ENOMEM, nothing changed. */
	f = mk(2, 64, 0, 2);
	CHECK(vpk_fib_add(f, 0x01000000, 8, 1) == 0 && vpk_fib_add(f, 0x02000000, 8, 2) == 0, "2 routes");
	CHECK(vpk_fib_add(f, 0x03000000, 8, 3) == -ENOMEM, "third route");
	CHECK(vpk_fib_add(f, 0x02000000, 8, 5) == 0, "replace at the limit");
	CHECK(one(f, 0x03000000) == 0 && one(f, 0x02000000) == 5, "limit lookups");
	vpk_fib_destroy(f);
}

/* ---- differential test ---- */

struct diff {
	struct vpk_fib *fib;
	struct ref_lpm *ref;
	uint32_t *ips;          /* ends at a guard page */
	size_t nips;
	uint64_t *want;
	uint64_t *out;
	const char *label;
};

static void
run_variant(void *arg, const struct vpk_impl *impl)
{
	struct diff *d = arg;
	size_t lens[160];
	size_t nl = check_lengths(lens, 160);

	/* Up to 136: bm16's short-call passes take up to 128 keys (16 blocks of 8, 8 of 16). */
	for (size_t l = CHECK_MAX_LEN_SWEEP + 1; l <= 136; l++)
		lens[nl++] = l;
	CHECK(vpk_fib_select(d->fib, impl->name) == 0, "select %s", impl->name);
	for (size_t li = 0; li < nl; li++) {
		size_t len = lens[li];
		if (len > d->nips)
			continue;
		const uint32_t *in = d->ips + d->nips - len;     /* last element touches the guard */
		for (size_t i = 0; i < len + 1; i++)
			d->out[i] = POISON;
		vpk_fib_lookup_bulk(d->fib, in, d->out, len);
		for (size_t i = 0; i < len; i++) {
			uint64_t w = d->want[d->nips - len + i];
			CHECK(d->out[i] == w, "%s %s len %zu [%zu] ip %08x: %lu want %lu", d->label, impl->name,
			      len, i, in[i], (unsigned long)d->out[i], (unsigned long)w);
		}
		CHECK(d->out[len] == POISON, "%s %s len %zu: wrote past the end", d->label, impl->name, len);
	}
	/* Unaligned input and output. */
	size_t len = d->nips < 100 ? d->nips : 100;
	uint8_t *ub = malloc(len * 4 + 1), *ob = malloc(len * 8 + 1);
	memcpy(ub + 1, d->ips, len * 4);
	vpk_fib_lookup_bulk(d->fib, (const uint32_t *)(ub + 1), (uint64_t *)(ob + 1), len);
	for (size_t i = 0; i < len; i++) {
		uint64_t v;
		memcpy(&v, ob + 1 + 8 * i, 8);
		CHECK(v == d->want[i], "%s %s unaligned [%zu]", d->label, impl->name, i);
	}
	free(ub);
	free(ob);
}

/* Addresses that stress the table: prefix edges +-1, random in the active area, random anywhere. */
static void
fill_ips(struct diff *d, const uint32_t *edges, size_t nedges, uint32_t area)
{
	for (size_t i = 0; i < d->nips; i++) {
		uint32_t ip;
		switch (check_rand_range(4)) {
		case 0:
			ip = check_rand_u32();
			break;
		case 1:
			ip = area | (check_rand_u32() & 0x00ffffff);
			break;
		default:
			ip = nedges ? edges[check_rand_range(nedges)] + (uint32_t)check_rand_range(3) - 1
				    : check_rand_u32();
			break;
		}
		d->ips[i] = ip;
		d->want[i] = ref_lookup4(d->ref, ip);
	}
}

static void
compare_all(struct diff *d, const uint32_t *edges, size_t nedges, uint32_t area)
{
	const struct vpk_impl *const *tab = vpk_fib_impls(g_type);

	fill_ips(d, edges, nedges, area);
	check_each_impl(kname(), tab, run_variant, d);
	CHECK(vpk_fib_select(d->fib, "auto") == 0, "select auto");
}

static void
test_random(unsigned nh_size)
{
	uint64_t max_nh = vpk_fib_max_nh(nh_size);
	uint64_t def = check_rand_range(2) ? 0 : check_rand_range(max_nh + 1);
	const uint32_t ntbl8 = 64;
	struct vpk_fib *f = mk(nh_size, ntbl8, def, 8192);
	struct ref_lpm ref;
	uint32_t edges[4096];
	size_t nedges = 0;
	struct { uint32_t ip; uint8_t depth; } live[2048];
	size_t nlive = 0;
	char label[32];
	struct diff d = { .fib = f, .ref = &ref, .nips = 600, .label = label };

	if (f == NULL)
		return;
	snprintf(label, sizeof(label), "nh%u", nh_size);
	ref_init(&ref, 32, def);
	d.ips = check_guard_alloc(d.nips * 4);
	d.want = malloc(d.nips * 8);
	d.out = malloc((d.nips + 1) * 8);
	uint32_t area = 0x0a000000 | (check_rand_u32() & 0x00ff0000);  /* a /16 inside 10/8 */
	bool dense = false;     /* the /16 after area holds spaced24() routes */

	edges[nedges++] = ((area + 0x10000) & 0xffff0000) | 0x100;
	edges[nedges++] = ((area + 0x10000) & 0xffff0000) | (2 * DENSE_N) << 8 | 0xff;
	if (g_type == VPK_FIB_BM16) {
		/*
		 * Fill the arena past word 2^14 first (200 flat nodes in 100.k/16),
		 * so that later node entries (word << 2) no longer fit 16 bits: a
		 * /32-level entry stored into a narrow flat node would be cut.
		 */
		for (uint32_t k = 0; k < 200; k++) {
			uint32_t ip = 0x64000100 | k << 16;
			uint64_t nh = 1 + k % (max_nh < 200 ? max_nh : 200);
			spaced24(f, &ref, ip & 0xffff0000, DENSE_N, nh, nh % max_nh + 1, false);
			if (k % 20 == 0) {
				edges[nedges++] = ip;
				edges[nedges++] = ip + 255;
			}
		}
	}
	for (unsigned step = 0; step < STEPS; step++) {
		unsigned r = (unsigned)check_rand_range(100);
		if (r < 60 || nlive == 0) {
			uint8_t depth;
			uint32_t ip;
			unsigned k = (unsigned)check_rand_range(20);
			if (k == 0) {
				depth = (uint8_t)(SHORT_MIN + check_rand_range(9 - SHORT_MIN));  /* short: 0..8 */
				ip = check_rand_u32();
			} else if (k < 4) {
				depth = (uint8_t)(8 + check_rand_range(17));   /* 8..24 */
				ip = area | (check_rand_u32() & 0xffff);
			} else {
				depth = (uint8_t)(16 + check_rand_range(17));  /* 16..32, clustered */
				ip = area | (uint32_t)(check_rand_range(8) << 8) | (check_rand_u32() & 0xff);
			}
			uint64_t nh = check_rand_range(4) == 0 ? def : 1 + check_rand_range(max_nh < 15 ? max_nh : 15);
			if (check_rand_range(8) == 0)
				nh = max_nh;
			struct vpk_fib_stats before, after;
			vpk_fib_get_stats(f, &before);
			int rc = vpk_fib_add(f, ip, depth, nh);
			if (rc == -ENOSPC) {
				vpk_fib_get_stats(f, &after);
				CHECK(depth > 24 && before.tbl8_reserved == ntbl8 &&
				      memcmp(&before, &after, sizeof(before)) == 0, "ENOSPC changed state");
				uint64_t g;
				CHECK(vpk_fib_get(f, ip, depth, &g) == -ENOENT, "ENOSPC route present");
				continue;
			}
			CHECK(rc == 0, "add %08x/%u nh %lu: %d", ip, depth, (unsigned long)nh, rc);
			if (rc != 0)
				continue;
			uint64_t mh = (uint64_t)ip << 32, ml = 0;
			ref_mask(depth, &mh, &ml);
			if (!ref_add(&ref, (uint64_t)ip << 32, 0, depth, nh) && nlive < 2048) {
				live[nlive].ip = (uint32_t)(mh >> 32);
				live[nlive++].depth = depth;
			}
			if (nedges + 2 <= 4096) {
				edges[nedges++] = (uint32_t)(mh >> 32);
				edges[nedges++] = (uint32_t)(mh >> 32) + (uint32_t)((UINT64_C(1) << (32 - depth)) - 1);
			}
		} else {
			size_t k = check_rand_range(nlive);
			int rc = vpk_fib_del(f, live[k].ip, live[k].depth);
			bool had = ref_del(&ref, (uint64_t)live[k].ip << 32, 0, live[k].depth);
			CHECK(had && rc == 0, "del %08x/%u: %d", live[k].ip, live[k].depth, rc);
			CHECK(vpk_fib_del(f, live[k].ip, live[k].depth) == -ENOENT, "del twice");
			live[k] = live[--nlive];
		}
		if (step % 100 == 50) {
			/* The next /16 turns dense and back (bm16: a flat node, then a
			 * compressed one) while the random routes keep changing around it. */
			spaced24(f, &ref, (area + 0x10000) & 0xffff0000, DENSE_N, 1, max_nh, dense);
			dense = !dense;
		}
		if (step % 300 == 299)
			compare_all(&d, edges, nedges, area);
	}
	/* Exhaust the groups: /25s in fresh /24s until -ENOSPC, then free one and retry
	 * (bm16 too: num_tbl8 limits the /24s holding routes longer than /24). */
	uint32_t base = 0xc0000000;
	int rc = 0;
	unsigned added = 0;
	for (unsigned i = 0; i < ntbl8 + 2 && rc == 0; i++) {
		rc = vpk_fib_add(f, base + (i << 8), 25, 1);
		if (rc == 0) {
			ref_add(&ref, (uint64_t)(base + (i << 8)) << 32, 0, 25, 1);
			added++;
		}
	}
	CHECK(rc == -ENOSPC, "exhaustion gives ENOSPC: %d", rc);
	struct vpk_fib_stats st;
	vpk_fib_get_stats(f, &st);
	CHECK(st.tbl8_reserved == ntbl8 && st.tbl8_used <= ntbl8 && st.tbl8_total == ntbl8, "reserved %u used %u",
	      st.tbl8_reserved, st.tbl8_used);
	if (added > 0) {
		CHECK(vpk_fib_del(f, base, 25) == 0, "del for recovery");
		ref_del(&ref, (uint64_t)base << 32, 0, 25);
		CHECK(vpk_fib_add(f, base + (added << 8), 26, 2) == 0, "add after recovery");
		ref_add(&ref, (uint64_t)(base + (added << 8)) << 32, 0, 26, 2);
		edges[0] = base + (added << 8);
		edges[1] = base;
	}
	compare_all(&d, edges, nedges, base & 0xff000000);
	/* Delete everything: back to the default everywhere, no groups left. */
	for (size_t k = 0; k < nlive; k++) {
		CHECK(vpk_fib_del(f, live[k].ip, live[k].depth) == 0, "final del");
		ref_del(&ref, (uint64_t)live[k].ip << 32, 0, live[k].depth);
	}
	for (unsigned i = 1; i < added; i++)
		vpk_fib_del(f, base + (i << 8), 25);
	vpk_fib_del(f, base + (added << 8), 26);
	for (uint32_t k = 0; g_type == VPK_FIB_BM16 && k < 200; k++)
		spaced24(f, &ref, 0x64000000 | k << 16, DENSE_N, 0, 0, true);
	if (dense)
		spaced24(f, &ref, (area + 0x10000) & 0xffff0000, DENSE_N, 0, 0, true);
	vpk_fib_get_stats(f, &st);
	CHECK(st.routes == 0 && st.tbl8_used == 0 && st.tbl8_reserved == 0, "empty: routes %u used %u rsvd %u",
	      st.routes, st.tbl8_used, st.tbl8_reserved);
	for (unsigned i = 0; i < 1000; i++) {
		uint32_t ip = check_rand_u32();
		CHECK(one(f, ip) == def, "empty lookup");
	}
	check_guard_free(d.ips, d.nips * 4);
	free(d.want);
	free(d.out);
	ref_fini(&ref);
	vpk_fib_destroy(f);
}

/*
 * Routes added and then deleted in address order (bm16's common update:
 * a compressed node patched after its last run, runs of adjacent /24s,
 * a /19 covering a whole bitmap word, /24s at the first and last entry of
 * a chunk, /25s under /24s), at several densities; every variant is
 * compared with the reference every few steps.
 */
static int
by_addr(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;

	return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (int)x[1] - (int)y[1];
}

/* The routes of test_address_order, sorted: pct % of the /24s of two /16s hold one. */
static size_t
order_table(uint32_t (*rt)[3], unsigned pct)
{
	size_t n = 0;

	for (uint32_t c = 0; c < 2; c++) {
		uint32_t chunk = 0x0a010000 + (c << 16);
		rt[n][0] = chunk;
		rt[n][1] = 17;
		rt[n++][2] = 1;
		rt[n][0] = chunk | (0x40u << 8);      /* 64..95: a whole bitmap word */
		rt[n][1] = 19;
		rt[n++][2] = 2;
		for (uint32_t x = 0; x < 256; x++) {
			uint32_t r = check_rand_u32();
			if (x == 0 || x == 255 || (pct >= 40 && x >= 60 && x < 100 && r % 2) || r % 100 < pct) {
				rt[n][0] = chunk | x << 8;
				rt[n][1] = 24;
				rt[n++][2] = r % 7 == 0 ? 32767 : 3 + r % 5;     /* 2-byte maximum too */
				if (r % 23 == 0) {          /* a /32-level node */
					rt[n][0] = chunk | x << 8 | 128;
					rt[n][1] = 25;
					rt[n++][2] = 9;
				}
			}
		}
	}
	qsort(rt, n, sizeof(rt[0]), by_addr);
	return n;
}

static void
test_address_order(void)
{
	/* Share of the /24s holding a route: from every one (bm16: flat nodes from
	 * the start) through a few (nodes turn flat part-way and back) to none
	 * but the first and last (compressed throughout). */
	static const unsigned pct[] = { 100, 40, 15, 5, 0 };
	static uint32_t rt[1100][3];     /* at most 2 x (2 + 2 x 256) */

	/* bm16: every density at 4-byte next hops, then at 2 bytes (narrow flat nodes). */
	for (unsigned t = 0; t < (g_type == VPK_FIB_BM16 ? 10u : 1u); t++) {
		size_t n = order_table(rt, g_type == VPK_FIB_BM16 ? pct[t % 5] : 40);
		struct vpk_fib *f = mk(t < 5 ? 4 : 2, 512, 0, 1024);
		struct ref_lpm ref;
		static uint32_t edges[2200];
		char label[48];
		struct diff d = { .fib = f, .ref = &ref, .nips = 300, .label = label };

		if (f == NULL)
			return;
		snprintf(label, sizeof(label), "address order, %u %% of /24s, nh%u", pct[t % 5], t < 5 ? 4 : 2);
		ref_init(&ref, 32, 0);
		d.ips = check_guard_alloc(d.nips * 4);
		d.want = malloc(d.nips * 8);
		d.out = malloc((d.nips + 1) * 8);
		for (size_t i = 0; i < n; i++) {
			edges[2 * i] = rt[i][0];
			edges[2 * i + 1] = rt[i][0] + (uint32_t)((UINT64_C(1) << (32 - rt[i][1])) - 1);
		}
		for (size_t i = 0; i < 2 * n; i++) {
			size_t k = i < n ? i : i - n;
			int rc = i < n ? vpk_fib_add(f, rt[k][0], (uint8_t)rt[k][1], rt[k][2])
				       : vpk_fib_del(f, rt[k][0], (uint8_t)rt[k][1]);
			CHECK(rc == 0, "%s %08x/%u: %d", i < n ? "add" : "del", rt[k][0], rt[k][1], rc);
			if (i < n)
				ref_add(&ref, (uint64_t)rt[k][0] << 32, 0, rt[k][1], rt[k][2]);
			else
				ref_del(&ref, (uint64_t)rt[k][0] << 32, 0, rt[k][1]);
			if (i % ORDER_CMP == ORDER_CMP - 1 || i == n - 1)
				compare_all(&d, edges, 2 * n, 0x0a000000);
		}
		compare_all(&d, edges, 2 * n, 0x0a000000);
		check_guard_free(d.ips, d.nips * 4);
		free(d.want);
		free(d.out);
		ref_fini(&ref);
		vpk_fib_destroy(f);
	}
}

/* Every variant against the reference on nips addresses of the /16 at chunk and 100/8. */
static void
compare_narrow(struct diff *d, uint32_t chunk)
{
	for (size_t i = 0; i < d->nips; i++) {
		uint32_t r = check_rand_u32();
		d->ips[i] = i % 8 == 0 ? 0x64000000 | (r & 0xffffff) : chunk | (r & 0x3fff);
		d->want[i] = ref_lookup4(d->ref, d->ips[i]);
	}
	check_each_impl(kname(), vpk_fib_impls(VPK_FIB_BM16), run_variant, d);
}

/*
 * bm16 at 1- and 2-byte next hops: a dense chunk (10.1/16, 64 /24s) held in a
 * narrow flat node (16-bit entries) gains and loses /32-level entries (a
 * /25, a /32), so it switches to a plain flat node and back, at the
 * width's maximum next hop, after the arena grew past word 2^14 (node
 * entries no longer fit 16 bits: a /32-level entry kept in a narrow node
 * would be cut). The same routes then go to a sparse chunk (10.2/16, 3
 * /24s: compressed, turning flat as the more-specific routes add runs) and
 * an empty one (10.3/16: a leaf, then a compressed node).
 */
static void
test_narrow(unsigned nh_size)
{
	static const uint32_t n24[] = { 64, 3, 0 };
	uint64_t max_nh = vpk_fib_max_nh(nh_size);
	struct vpk_fib *f = mk(nh_size, 64, 0, 4096);
	struct ref_lpm ref;
	char label[40];
	struct diff d = { .fib = f, .ref = &ref, .nips = 400, .label = label };

	if (f == NULL)
		return;
	snprintf(label, sizeof(label), "narrow nodes, nh%u", nh_size);
	ref_init(&ref, 32, 0);
	d.ips = check_guard_alloc(d.nips * 4);
	d.want = malloc(d.nips * 8);
	d.out = malloc((d.nips + 1) * 8);
	for (uint32_t k = 0; k < 200; k++)      /* 200 flat nodes: the arena past word 2^14 */
		spaced24(f, &ref, 0x64000000 | k << 16, DENSE_N, 1, 2, false);
	for (unsigned t = 0; t < 3; t++) {
		uint32_t chunk = 0x0a010000 + (t << 16);

		for (uint32_t x = 0; x < n24[t]; x++) {
			uint64_t nh = x % 3 == 0 ? max_nh : 1 + (x + t) % 7;
			CHECK(vpk_fib_add(f, chunk | x << 8, 24, nh) == 0, "add /24");
			ref_add(&ref, (uint64_t)(chunk | x << 8) << 32, 0, 24, nh);
		}
		compare_narrow(&d, chunk);
		static const struct { uint32_t ip; uint8_t depth; } more[] = {
			{ 0x0a010580, 25 }, { 0x0a010707, 32 }, { 0x0a013f00, 26 } };
		for (unsigned m = 0; m < 3; m++) {
			uint32_t ip = chunk | (more[m].ip & 0xffff);

			CHECK(vpk_fib_add(f, ip, more[m].depth, max_nh - m) == 0, "add more-specific");
			ref_add(&ref, (uint64_t)ip << 32, 0, more[m].depth, max_nh - m);
			compare_narrow(&d, chunk);
		}
		for (unsigned m = 0; m < 3; m++) {
			uint32_t ip = chunk | (more[m].ip & 0xffff);

			CHECK(vpk_fib_del(f, ip, more[m].depth) == 0, "del more-specific");
			ref_del(&ref, (uint64_t)ip << 32, 0, more[m].depth);
			compare_narrow(&d, chunk);
		}
	}
	check_guard_free(d.ips, d.nips * 4);
	free(d.want);
	free(d.out);
	ref_fini(&ref);
	vpk_fib_destroy(f);
}

int
main(void)
{
	check_init("fib4");
	test_create_invalid();
	test_semantics();
	for (unsigned s = 1; s <= 8; s *= 2)
		test_random(s);
	test_address_order();
	/* The compressed layout: same semantics, same answers (entries up to 4 bytes). */
	g_type = VPK_FIB_BM16;
	test_semantics();
	test_address_order();
	for (unsigned s = 1; s <= 4; s *= 2)
		test_random(s);
	test_narrow(1);
	test_narrow(2);
	struct vpk_fib_conf c8 = { .type = VPK_FIB_BM16, .nh_size = 8, .num_tbl8 = 64, .max_routes = 8 };
	struct vpk_fib *f8;
	CHECK(vpk_fib_create(&c8, &f8) == -EINVAL, "bm16 with 8-byte next hops");
	c8.nh_size = 4;
	CHECK(vpk_fib_create(&c8, &f8) == 0, "bm16 create");
	vpk_fib_destroy(f8);
	g_type = VPK_FIB_DIR24_8;
	return check_finish();
}
