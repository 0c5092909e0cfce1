/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * FIBs with a QSBR object attached (vpk_fib_attach_qsbr/vpk_fib6_attach_qsbr)
 * reclaim by themselves. A reader thread does lookup_bulk + quiescent in a
 * loop and checks every answer; the writer adds and deletes 40 routes per
 * round that each need their own groups, alternating between two parents
 * so a freed group is reused for another prefix with other next hops. The
 * group pool (64 IPv4 / 128 IPv6) cannot hold two rounds, so without
 * reclamation the second round fails with -ENOSPC (checked as a control;
 * bm16/bm6 nodes are not bounded by the group count: there the control
 * checks that parked nodes pile up);
 * with QSBR every update succeeds and readers only ever see the covering
 * route's next hop or the route's own, never another route's.
 * Every layout (DIR-24-8, bm16; trie, bm6), defer-queue and sync modes.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <vpk/fib.h>
#include <vpk/fib6.h>
#include <vpk/qsbr.h>

#include "lib/check.h"

#define NR 40
#define ROUNDS 30
#define COVER 1

struct ctx {
	bool v6;
	struct vpk_fib *f4;
	struct vpk_fib6 *f6;
	struct vpk_qsbr *q;
	_Atomic int stop;
	_Atomic uint64_t calls;
	uint64_t bad;
};

/* Route k of parent b: its prefix and next hop. */
static uint32_t
pfx4(int b, int k)
{
	return 0x0a000000u | (uint32_t)b << 16 | (uint32_t)k << 8;      /* 10.b.k.0/25 */
}

static void
pfx6(int b, int k, uint8_t ip[16])
{
	static const uint8_t base[16] = { 0x20, 0x01, 0x0d, 0xb8 };     /* 2001:db8+b:kk00::/56 */

	memcpy(ip, base, 16);
	ip[3] = (uint8_t)(0xb8 + b);
	ip[4] = (uint8_t)k;
}

static uint64_t
nh_of(int b, int k)
{
	return 100 + (uint64_t)k + 50 * (uint64_t)b;
}

static void *
reader(void *arg)
{
	struct ctx *c = arg;
	uint32_t a4[2 * NR];
	uint8_t a6[2 * NR][16];
	uint64_t nh[2 * NR];

	for (int b = 0; b < 2; b++)
		for (int k = 0; k < NR; k++) {
			a4[b * NR + k] = pfx4(b, k) | 1;
			pfx6(b, k, a6[b * NR + k]);
			a6[b * NR + k][15] = 1;
		}
	vpk_qsbr_thread_online(c->q, 0);
	while (!atomic_load(&c->stop)) {
		if (c->v6)
			vpk_fib6_lookup_bulk(c->f6, (const uint8_t (*)[16])a6, nh, 2 * NR);
		else
			vpk_fib_lookup_bulk(c->f4, a4, nh, 2 * NR);
		for (int i = 0; i < 2 * NR; i++)
			c->bad += nh[i] != COVER && nh[i] != nh_of(i / NR, i % NR);
		c->calls++;
		vpk_qsbr_quiescent(c->q, 0);
	}
	vpk_qsbr_thread_offline(c->q, 0);
	return NULL;
}

static int
update(struct ctx *c, bool add, int b, int k)
{
	uint8_t ip[16];

	if (!c->v6)
		return add ? vpk_fib_add(c->f4, pfx4(b, k), 25, nh_of(b, k)) : vpk_fib_del(c->f4, pfx4(b, k), 25);
	pfx6(b, k, ip);
	return add ? vpk_fib6_add(c->f6, ip, 56, nh_of(b, k)) : vpk_fib6_del(c->f6, ip, 56);
}

static uint32_t
parked(struct ctx *c)
{
	struct vpk_fib_stats s4;
	struct vpk_fib6_stats s6;

	if (c->v6) {
		vpk_fib6_get_stats(c->f6, &s6);
		return s6.tbl8_deferred;
	}
	vpk_fib_get_stats(c->f4, &s4);
	return s4.tbl8_deferred;
}

/* mode 0: deferred freeing without QSBR (control), 1: defer queue, 2: sync */
static void
run(bool v6, int type, int mode)
{
	struct ctx c = { .v6 = v6 };
	const char *what = v6 ? (type == VPK_FIB6_BM6 ? "bm6" : "trie") : (type == VPK_FIB_BM16 ? "bm16" : "dir24-8");
	int rc = 0, fails = 0;
	pthread_t th;

	CHECK(vpk_qsbr_create(&(struct vpk_qsbr_conf){ .max_threads = 1 }, &c.q) == 0 &&
	      vpk_qsbr_thread_register(c.q, 0) == 0, "qsbr");
	if (v6) {
		struct vpk_fib6_conf fc = { .type = (enum vpk_fib6_type)type, .nh_size = 4, .num_tbl8 = 128,
					    .max_routes = 1000 };
		uint8_t cover[16] = { 0x20, 0x01, 0x0d, 0xb8 };

		CHECK(vpk_fib6_create(&fc, &c.f6) == 0, "fib6 create");
		CHECK(vpk_fib6_add(c.f6, cover, 28, COVER) == 0, "cover");  /* 2001:db8::/28 covers +0/+1 */
	} else {
		struct vpk_fib_conf fc = { .type = (enum vpk_fib_type)type, .nh_size = 4, .num_tbl8 = 64,
					   .max_routes = 1000 };

		CHECK(vpk_fib_create(&fc, &c.f4) == 0, "fib create");
		CHECK(vpk_fib_add(c.f4, 0x0a000000, 8, COVER) == 0, "cover");
	}
	if (mode == 0)
		rc = v6 ? vpk_fib6_set_deferred_free(c.f6, true) : vpk_fib_set_deferred_free(c.f4, true);
	else
		rc = v6 ? vpk_fib6_attach_qsbr(c.f6, c.q, mode == 2) : vpk_fib_attach_qsbr(c.f4, c.q, mode == 2);
	CHECK(rc == 0, "attach");
	pthread_create(&th, NULL, reader, &c);
	while (atomic_load(&c.calls) == 0)      /* the reader is online and reading */
		sched_yield();
	for (int r = 0; r < ROUNDS && fails == 0; r++) {
		for (int k = 0; k < NR && fails == 0; k++)
			fails += (rc = update(&c, true, r % 2, k)) != 0;
		for (int k = 0; k < NR && fails == 0; k++)
			fails += (rc = update(&c, false, r % 2, k)) != 0;
		if (mode == 2)
			CHECK(parked(&c) == 0, "%s sync: %u parked after an update", what, parked(&c));
	}
	atomic_store(&c.stop, 1);
	pthread_join(th, NULL);
	printf("%-7s %-8s: %s, reader calls %llu, bad answers %llu, parked at end %u\n", what,
	       mode == 0 ? "no qsbr" : mode == 1 ? "dq" : "sync",
	       fails ? "an update failed" : "all updates done", (unsigned long long)c.calls,
	       (unsigned long long)c.bad, parked(&c));
	CHECK(c.bad == 0, "%s: reader saw %llu foreign next hops", what, (unsigned long long)c.bad);
	if (mode == 0 && (v6 ? type == VPK_FIB6_TRIE : type == VPK_FIB_DIR24_8))
		CHECK(fails == 1 && rc == -ENOSPC, "%s control: without reclamation the pool must run out "
		      "(rc %d): the test would not see missing reclamation", what, rc);
	else if (mode == 0)     /* node layouts are not bounded by num_tbl8: their parking lot grows */
		CHECK(fails == 0 && parked(&c) >= ROUNDS, "%s control: %u parked", what, parked(&c));
	else
		CHECK(fails == 0, "%s: update failed with %d", what, rc);
	if (v6) {
		CHECK(vpk_fib6_attach_qsbr(c.f6, NULL, false) == 0 && parked(&c) == (mode ? 0u : parked(&c)),
		      "detach");
		vpk_fib6_destroy(c.f6);
	} else {
		CHECK(vpk_fib_attach_qsbr(c.f4, NULL, false) == 0 && parked(&c) == (mode ? 0u : parked(&c)),
		      "detach");
		vpk_fib_destroy(c.f4);
	}
	vpk_qsbr_destroy(c.q);
}

int
main(void)
{
	check_init("fib.qsbr");
	for (int mode = 0; mode < 3; mode++) {
		run(false, VPK_FIB_DIR24_8, mode);
		run(false, VPK_FIB_BM16, mode);
		run(true, VPK_FIB6_TRIE, mode);
		run(true, VPK_FIB6_BM6, mode);
	}
	return check_finish();
}
