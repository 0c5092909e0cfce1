/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk_fib6 vs DPDK rte_fib6 (22.11) in the same process: the same routes and
 * addresses give identical next hops for every entry width, every vpk
 * variant and both rte_fib6 lookup types; random add/replace/delete
 * sequences and the real IPv6 table. Exit 77 without libdpdk or EAL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <vpk/fib6.h>

#include "common/dpdk_eal.h"
#include "fib/table.h"
#include "lib/check.h"

#ifndef VPK_HAVE_DPDK
int
main(void)
{
	check_init("fib6_dpdk");
	check_skip_all("built without libdpdk (pkg-config libdpdk not found)");
	return check_finish();
}
#else
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_fib6.h>

static char rundir[256];         /* EAL's runtime directory, removed at the end */

struct pair {
	struct vpk_fib6 *v;
	struct rte_fib6 *d;
	enum vpk_fib6_type type;
	uint8_t (*ips)[16];
	uint64_t *want, *out;
	size_t n;
	const char *phase;
};

static void
run_vpk(void *arg, const struct vpk_impl *impl)
{
	struct pair *p = arg;
	size_t bad = 0;

	vpk_fib6_select(p->v, impl->name);
	vpk_fib6_lookup_bulk(p->v, (const uint8_t (*)[16])p->ips, p->out, p->n);
	for (size_t i = 0; i < p->n; i++)
		if (p->out[i] != p->want[i] && bad++ < 5)
			CHECK(0, "%s vpk %s [%zu]: vpk %lu rte_fib6 %lu", p->phase, impl->name, i,
			      (unsigned long)p->out[i], (unsigned long)p->want[i]);
	CHECK(bad == 0, "%s vpk %s: %zu differences from rte_fib6", p->phase, impl->name, bad);
}

static void
compare(struct pair *p)
{
	static const struct { enum rte_fib6_lookup_type t; const char *n; } types[] = {
		{ RTE_FIB6_LOOKUP_TRIE_SCALAR, "scalar" }, { RTE_FIB6_LOOKUP_TRIE_VECTOR_AVX512, "avx512" } };
	bool have = false;

	for (size_t t = 0; t < 2; t++) {
		if (rte_fib6_select_lookup(p->d, types[t].t) != 0) {
			check_variant_skipped("rte_fib6", types[t].n, "not available here");
			continue;
		}
		for (size_t i = 0; i < p->n; i += 64) {
			size_t k = p->n - i < 64 ? p->n - i : 64;
			rte_fib6_lookup_bulk(p->d, p->ips + i, have ? p->out + i : p->want + i, (int)k);
		}
		if (have)
			CHECK(memcmp(p->out, p->want, p->n * 8) == 0, "%s: rte_fib6 types disagree", p->phase);
		have = true;
		check_variant_ran("rte_fib6", types[t].n);
	}
	check_each_impl(p->type == VPK_FIB6_BM6 ? "fib6-bm6" : "fib6-trie", vpk_fib6_impls(p->type), run_vpk, p);
}

static struct rte_fib6 *
dpdk6(unsigned nh_size, uint32_t tbl8, int max_routes, uint64_t def)
{
	static int seq;
	char name[32];
	struct rte_fib6_conf c;

	memset(&c, 0, sizeof(c));
	c.type = RTE_FIB6_TRIE;
	c.default_nh = def;
	c.max_routes = max_routes;
	c.trie.nh_sz = (enum rte_fib_trie_nh_sz)__builtin_ctz(nh_size);
	c.trie.num_tbl8 = tbl8;
	snprintf(name, sizeof(name), "t6_%d", seq++);
	return rte_fib6_create(name, -1, &c);
}

static void
put(uint8_t ip[16], uint64_t hi, uint64_t lo)
{
	for (int i = 0; i < 8; i++) {
		ip[i] = (uint8_t)(hi >> (56 - 8 * i));
		ip[8 + i] = (uint8_t)(lo >> (56 - 8 * i));
	}
}

static void
random_ops(unsigned nh_size, enum vpk_fib6_type type)
{
	uint64_t max_nh = vpk_fib6_max_nh(nh_size);
	uint64_t def = check_rand_range(2) ? 0 : 1 + check_rand_range(20);
	uint32_t tbl8 = nh_size == 2 ? 32767 : 100000;
	struct vpk_fib6_conf conf = { .type = type, .nh_size = nh_size, .num_tbl8 = tbl8, .default_nh = def,
				      .max_routes = 4096 };
	struct pair p = { .n = 2000, .type = type };
	struct { uint8_t ip[16]; uint8_t d; } live[512];
	size_t nlive = 0;
	char phase[32];

	snprintf(phase, sizeof(phase), "random %s nh%u", type == VPK_FIB6_BM6 ? "bm6" : "trie", nh_size);
	p.phase = phase;
	CHECK(vpk_fib6_create(&conf, &p.v) == 0, "vpk create");
	p.d = dpdk6(nh_size, tbl8, 4096, def);
	CHECK(p.d != NULL, "rte_fib6_create: %d", rte_errno);
	if (p.v == NULL || p.d == NULL)
		return;
	p.ips = malloc(p.n * 16);
	p.want = malloc(p.n * 8);
	p.out = malloc(p.n * 8);
	uint64_t area = UINT64_C(0x2a00000000000000) | (check_rand() & UINT64_C(0x00ffff0000000000));
	for (unsigned step = 0; step < 600; step++) {
		if (check_rand_range(100) < 65 || nlive == 0) {
			uint8_t ip[16], d;
			unsigned k = (unsigned)check_rand_range(12);
			if (k == 0) {
				d = (uint8_t)(1 + check_rand_range(24));
				put(ip, check_rand() & ~(UINT64_C(1) << 63), check_rand());   /* clear of ffff..: see test_fib4_dpdk */
			} else {
				d = (uint8_t)(24 + check_rand_range(105));
				put(ip, area | (check_rand() & UINT64_C(0x300000000)), check_rand() & 0xff03);
			}
			uint64_t nh = check_rand_range(5) == 0 ? def : 1 + check_rand_range(max_nh < 40 ? max_nh : 40);
			int a = vpk_fib6_add(p.v, ip, d, nh), b = rte_fib6_add(p.d, ip, d, nh);
			CHECK(a == b, "add /%u: vpk %d rte_fib6 %d", d, a, b);
			if (a == 0 && nlive < 512) {
				memcpy(live[nlive].ip, ip, 16);
				live[nlive++].d = d;
			}
		} else {
			size_t k = check_rand_range(nlive);
			int a = vpk_fib6_del(p.v, live[k].ip, live[k].d), b = rte_fib6_delete(p.d, live[k].ip, live[k].d);
			CHECK(a == b, "del /%u: vpk %d rte_fib6 %d", live[k].d, a, b);
			live[k] = live[--nlive];
		}
		if (step % 150 == 149) {
			for (size_t i = 0; i < p.n; i++)
				put(p.ips[i], check_rand_range(2) ? check_rand() : area | (check_rand() & UINT64_C(0x3ffffffff)),
				    check_rand_range(2) ? check_rand() : check_rand() & 0xff07);
			compare(&p);
		}
	}
	free(p.ips);
	free(p.want);
	free(p.out);
	vpk_fib6_destroy(p.v);
	rte_fib6_free(p.d);
}

static void
real_table(const char *path, enum vpk_fib6_type type)
{
	struct vpk_fib_file_routes rt;
	struct pair p = { .n = 200000, .phase = type == VPK_FIB6_BM6 ? "real IPv6 table bm6" : "real IPv6 table trie",
			  .type = type };

	if (vpk_fib_file_load_routes(path, 6, &rt) != 0) {
		CHECK(0, "%s", vpk_last_error());
		return;
	}
	struct vpk_fib6_conf conf = { .type = type, .nh_size = 4, .num_tbl8 = 200000, .max_routes = (uint32_t)rt.n };
	CHECK(vpk_fib6_create(&conf, &p.v) == 0, "vpk create");
	p.d = dpdk6(4, 200000, (int)rt.n, 0);
	CHECK(p.d != NULL, "rte_fib6_create: %d", rte_errno);
	for (size_t i = 0; p.v && p.d && i < rt.n; i++) {
		uint64_t nh = 1 + table_mix(i) % 127;
		int a = vpk_fib6_add(p.v, rt.r[i].addr, rt.r[i].depth, nh);
		int b = rte_fib6_add(p.d, rt.r[i].addr, rt.r[i].depth, nh);
		CHECK(a == 0 && b == 0, "add route %zu: vpk %d rte_fib6 %d", i, a, b);
	}
	p.ips = malloc(p.n * 16);
	p.want = malloc(p.n * 8);
	p.out = malloc(p.n * 8);
	for (size_t i = 0; i < p.n; i++) {
		const struct vpk_fib_file_route *r = &rt.r[check_rand_range(rt.n)];
		check_rand_bytes(p.ips[i], 16);
		if (i % 2)      /* in-table: the route's bits, random host bits */
			for (unsigned b = 0; b < r->depth; b++) {
				uint8_t m = (uint8_t)(0x80 >> (b % 8));
				p.ips[i][b / 8] = (uint8_t)((p.ips[i][b / 8] & ~m) | (r->addr[b / 8] & m));
			}
	}
	if (p.v && p.d)
		compare(&p);
	free(p.ips);
	free(p.want);
	free(p.out);
	vpk_fib_file_free_routes(&rt);
	vpk_fib6_destroy(p.v);
	rte_fib6_free(p.d);
}

int
main(int argc, char **argv)
{
	static struct dpdk_eal_args ea;

	dpdk_eal_args(&ea, "vpkfib6test", "fib", false, 1536, 0, 512);

	check_init("fib6_dpdk");
	if (rte_eal_init(ea.argc, ea.argv) < 0) {
		check_skip_all("rte_eal_init failed (no memory or not permitted here)");
		return check_finish();
	}
	for (enum vpk_fib6_type t = VPK_FIB6_TRIE; t <= VPK_FIB6_BM6; t++) {
		for (unsigned s = 2; s <= 8; s *= 2)
			random_ops(s, t);
		if (argc >= 2 && access(argv[1], R_OK) == 0)
			real_table(argv[1], t);
	}
	snprintf(rundir, sizeof(rundir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	(void)rmdir(rundir);    /* empty with --no-shconf: the test leaves nothing behind */
	return check_finish();
}
#endif
