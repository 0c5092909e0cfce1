/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Lookups on another thread while one writer changes routes: every answer is
 * the old or the new next hop of its address, never anything else. The
 * writer replaces a /25 and a /16, and adds/deletes a /27, inside a /24 whose
 * tbl8 group a permanent /26 keeps alive, and adds/deletes a /25 that makes a
 * fresh group and folds it back every round (a group published before it is
 * filled would answer 0). Freeing is deferred throughout, with reclaims only
 * after the reader passed two quiescent points: as include/vpk/fib.h says,
 * a group freed at once can be reused for another /24 while a reader that
 * loaded its index is preempted before reading it (seen on a loaded machine:
 * 3 such answers in 170M). Phase 2 alternates /25s between two /24s, so
 * parked groups are reused for the other /24. IPv4 DIR-24-8, IPv6 trie.
 * Then the IPv4 part again on VPK_FIB_BM16 with deferred freeing throughout
 * (every update replaces the node of the 10.0/16 chunk; without deferral the
 * freed node would be reused by the next update under the reader), reclaiming
 * every 16 rounds after the reader passed two quiescent points, adding and
 * deleting 12 /24s at every other /24 of the 10.0/16 and 20.1/16 chunks
 * every 64 rounds: dense chunks held in flat nodes (entries change in
 * place), then sparse ones in compressed nodes (rebuilt and republished),
 * so nodes also change kind under the reader; once more at 2-byte next hops
 * (narrow flat nodes, a chunk switching kind with a /25 coming and going,
 * see run4()). Then once
 * more with IPv6 on bm6 (its nodes are rebuilt and republished by every
 * change) with deferred freeing and IPv6 reclaims after quiescent points.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include <vpk/fib.h>
#include <vpk/fib6.h>

#include "lib/check.h"

#ifdef VPK_DEBUG
#define ROUNDS 2000
#else
#define ROUNDS 20000
#endif

static atomic_int stop;
static atomic_ulong passes;     /* reader loops completed: its quiescent points */
static atomic_ulong bad4, bad6, seen4, seen6;
static struct vpk_fib *f4;
static struct vpk_fib6 *f6;

/* Allowed next hops (bit set) for an IPv4 address of the test ranges. */
static unsigned
allowed4(uint32_t ip)
{
	if ((ip >> 16) == 0x1401)
		return 1u << 6 | 1u << 7;
	if ((ip >> 8) == 0x0a0001)      /* a group made and folded every round */
		return (ip & 0xff) < 128 ? (1u << 1 | 1u << 5) : 1u << 1;
	if ((ip >> 8) == 0x0a0002)      /* phase 2: groups parked, then reused by the other /24 */
		return (ip & 0xff) < 128 ? (1u << 1 | 1u << 8) : 1u << 1;
	if ((ip >> 8) == 0x0a0003)
		return (ip & 0xff) < 128 ? (1u << 1 | 1u << 9) : 1u << 1;
	unsigned lo = ip & 0xff;
	if (lo < 64)
		return 1u << 3 | 1u << 4;
	if (lo < 128)
		return 1u << 2;
	if (lo >= 192 && lo < 224)
		return 1u << 1 | 1u << 5;
	return 1u << 1;
}

static void *
reader(void *arg)
{
	uint32_t ips[64];
	uint64_t nh[64];
	uint8_t a6[64][16];
	uint64_t x = (uint64_t)(uintptr_t)arg;

	(void)arg;
	while (!atomic_load(&stop)) {
		for (int i = 0; i < 64; i++) {
			x = x * 6364136223846793005u + 1442695040888963407u;
			ips[i] = (x >> 40) & 1 ? 0x0a000000 | (uint32_t)(x >> 56) : 0x14010000 | (uint32_t)(x >> 48);
			if ((x >> 41) % 3 == 0)
				ips[i] = 0x0a000100 | (uint32_t)(x >> 56);
			if ((x >> 43) % 3 == 0)
				ips[i] = 0x0a000200 | ((uint32_t)(x >> 45) & 0x100) | (uint32_t)(x >> 56);
			if ((x >> 37) % 5 == 0)         /* 20.1.5/24 (a /25 comes and goes), 20.1.8/24, 20.1.9/24 */
				ips[i] = 0x14010000 | (uint32_t)((x >> 29) % 3 == 0 ? 5 : 8 + (x >> 29) % 2) << 8 |
					 (uint32_t)(x >> 56);
			memset(a6[i], 0, 16);
			a6[i][0] = 0x20;
			a6[i][1] = 0x01;
			a6[i][5] = (uint8_t)(x >> 56);     /* inside 2001::/40 */
		}
		vpk_fib_lookup_bulk(f4, ips, nh, 64);
		for (int i = 0; i < 64; i++)
			if (nh[i] >= 32 || !(allowed4(ips[i]) >> nh[i] & 1))
				atomic_fetch_add(&bad4, 1);
		atomic_fetch_add(&seen4, 64);
		vpk_fib6_lookup_bulk(f6, (const uint8_t (*)[16])a6, nh, 64);
		for (int i = 0; i < 64; i++) {
			unsigned b = a6[i][5];
			unsigned ok = b < 64 ? (1u << 3 | 1u << 4) : b < 128 ? 1u << 2 : (b >= 192 && b < 224) ? (1u << 1 | 1u << 5) : 1u << 1;
			if (nh[i] >= 32 || !(ok >> nh[i] & 1))
				atomic_fetch_add(&bad6, 1);
		}
		atomic_fetch_add(&seen6, 64);
		atomic_fetch_add(&passes, 1);
	}
	return NULL;
}

static void
p6(uint8_t ip[16], unsigned b5)
{
	memset(ip, 0, 16);
	ip[0] = 0x20;
	ip[1] = 0x01;
	ip[5] = (uint8_t)b5;
}

static bool reclaim6;   /* f6 defers frees: reclaim it with f4 */

/*
 * Wait until the reader finished two more passes, then reclaim: something
 * must be parked. The wait yields after a short spin: on a loaded machine a
 * spinning writer can keep the reader off the CPU, and reclaiming before
 * the reader passed would let it see reused nodes (wrong answers blamed on
 * the FIB). A reader that never gets there fails the test here instead.
 */
static void
quiesce_reclaim(bool four, bool six)
{
	unsigned long c = atomic_load(&passes);
	unsigned spin = 0;

	for (; atomic_load(&passes) < c + 2 && spin < 20000000u; spin++)
		if (spin >= 1000)
			sched_yield();
	CHECK(atomic_load(&passes) >= c + 2, "the reader passed no quiescent point in 20M yields");
	if (atomic_load(&passes) < c + 2)
		return;
	if (four)
		CHECK(vpk_fib_reclaim(f4) > 0, "reclaim");
	if (six)
		CHECK(vpk_fib6_reclaim(f6) > 0, "reclaim v6");
}

static struct vpk_fib6 *
make6(enum vpk_fib6_type type)
{
	struct vpk_fib6_conf c6 = { .type = type, .nh_size = 4, .num_tbl8 = 64, .max_routes = 64 };
	struct vpk_fib6 *f = NULL;
	uint8_t ip[16];

	CHECK(vpk_fib6_create(&c6, &f) == 0, "create v6");
	if (f == NULL)
		return NULL;
	/*
	 * Byte 5 plays the role of the last IPv4 byte: 2001::/40 nh 1, .../42 at 64 nh 2, /41 nh 3
	 * (bm6 compresses byte-5 nodes, so changes there rebuild and republish nodes).
	 */
	p6(ip, 0);
	CHECK(vpk_fib6_add(f, ip, 40, 1) == 0 && vpk_fib6_add(f, ip, 41, 3) == 0, "v6 routes");
	p6(ip, 64);
	CHECK(vpk_fib6_add(f, ip, 42, 2) == 0, "v6 /42");
	return f;
}

/*
 * bm16: 12 /24s at every other /24 from 10.0.16/24 and 20.1.16/24 (next hops
 * the reader allows there) added, or deleted: their chunks turn dense (flat
 * nodes, 25 runs) or back to sparse (compressed nodes).
 */
static void
dense4(bool add)
{
	for (uint32_t i = 0; i < 12; i++) {
		uint32_t a = 0x0a001000 + (2 * i << 8), b = 0x14011000 + (2 * i << 8);

		CHECK(add ? vpk_fib_add(f4, a, 24, 10 + (i & 1)) == 0 && vpk_fib_add(f4, b, 24, 6 + (i & 1)) == 0
			  : vpk_fib_del(f4, a, 24) == 0 && vpk_fib_del(f4, b, 24) == 0,
		      "dense /24s %s", add ? "add" : "del");
	}
}

/*
 * nh_size 2 on bm16: narrow flat nodes (16-bit entries, changed by 16-bit
 * stores) at the /32 level, and the 20.1/16 chunk switching between a narrow
 * flat node and a plain one (a /25 in 20.1.5/24 added and deleted) or a
 * compressed one under the reader.
 */
static void
run4(enum vpk_fib_type type, unsigned nh_size)
{
	struct vpk_fib_conf c4 = { .type = type, .nh_size = nh_size, .num_tbl8 = 64, .max_routes = 64 };
	uint8_t ip[16];
	pthread_t th;
	bool bm = type == VPK_FIB_BM16;

	CHECK(vpk_fib_create(&c4, &f4) == 0, "create");
	/* IPv4: 10.0.0.0/24 nh 1, 10.0.0.64/26 nh 2 (keeps the group), 10.0.0.0/25 nh 3, 20.1/16 nh 6. */
	CHECK(vpk_fib_add(f4, 0x0a000000, 24, 1) == 0 && vpk_fib_add(f4, 0x0a000040, 26, 2) == 0 &&
	      vpk_fib_add(f4, 0x0a000000, 25, 3) == 0 && vpk_fib_add(f4, 0x14010000, 16, 6) == 0 &&
	      vpk_fib_add(f4, 0x0a000100, 24, 1) == 0 && vpk_fib_add(f4, 0x0a000200, 24, 1) == 0 &&
	      vpk_fib_add(f4, 0x0a000300, 24, 1) == 0 && vpk_fib_add(f4, 0x14010800, 24, 6) == 0 &&
	      vpk_fib_add(f4, 0x14010900, 24, 7) == 0, "v4 routes");
	CHECK(vpk_fib_set_deferred_free(f4, true) == 0, "defer on");
	atomic_store(&stop, 0);
	if (pthread_create(&th, NULL, reader, (void *)(uintptr_t)check_rand()) != 0) {
		check_skip_all("cannot start a thread");
		vpk_fib_destroy(f4);
		return;
	}
	for (unsigned r = 0; r < ROUNDS; r++) {
		uint64_t a = 3 + (r & 1);
		if (bm && r % 64 == 0)
			dense4(r / 64 % 2 == 0);
		CHECK(vpk_fib_add(f4, 0x0a000000, 25, a) == 0, "replace /25");
		CHECK(vpk_fib_add(f4, 0x14010000, 16, 6 + (r & 1)) == 0, "replace /16");
		CHECK(r % 2 == 0 ? vpk_fib_add(f4, 0x14010500, 25, 7) == 0 : vpk_fib_del(f4, 0x14010500, 25) == 0,
		      "add/del 20.1.5.0/25");
		p6(ip, 0);
		CHECK(vpk_fib6_add(f6, ip, 41, a) == 0, "replace /41");
		if (r % 2 == 0) {
			CHECK(vpk_fib_add(f4, 0x0a0000c0, 27, 5) == 0, "add /27");
			CHECK(vpk_fib_add(f4, 0x0a000100, 25, 5) == 0, "add /25: new group");
			p6(ip, 192);
			CHECK(vpk_fib6_add(f6, ip, 43, 5) == 0, "add /43");
		} else {
			CHECK(vpk_fib_del(f4, 0x0a0000c0, 27) == 0, "del /27");
			CHECK(vpk_fib_del(f4, 0x0a000100, 25) == 0, "del /25: group folded");
			p6(ip, 192);
			CHECK(vpk_fib6_del(f6, ip, 43) == 0, "del /43");
		}
		/* 2001::/20 around the /40: new run boundaries on byte 2. */
		p6(ip, 0);
		CHECK(r % 2 == 0 ? vpk_fib6_add(f6, ip, 20, 6) == 0 : vpk_fib6_del(f6, ip, 20) == 0, "add/del /20");
		if (r % 16 == 15)
			quiesce_reclaim(true, reclaim6);
	}
	/* Phase 2: the /25 of 10.0.2/24 is added and deleted (its group parked), then
	 * 10.0.3/24 gets a /25 (a different group: the parked one is not reused);
	 * groups come back only after the reader passed two quiescent points. */
	for (unsigned r = 0; r < ROUNDS; r++) {
		uint32_t blk = r & 1 ? 0x0a000300 : 0x0a000200;
		CHECK(vpk_fib_add(f4, blk, 25, r & 1 ? 9 : 8) == 0, "phase 2 add");
		CHECK(vpk_fib_del(f4, blk, 25) == 0, "phase 2 del");
		if (r % 16 == 15)
			quiesce_reclaim(true, false);
	}
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	CHECK(atomic_load(&bad4) == 0, "IPv4 %s: %lu of %lu lookups saw neither the old nor the new next hop",
	      vpk_fib_type_name(f4), atomic_load(&bad4), atomic_load(&seen4));
	CHECK(atomic_load(&seen4) > 0, "the reader ran");
	printf("reader: %lu IPv4 (%s) lookups during %u update rounds\n", atomic_load(&seen4),
	       vpk_fib_type_name(f4), ROUNDS);
	atomic_store(&bad4, 0);
	atomic_store(&seen4, 0);
	vpk_fib_destroy(f4);
	f4 = NULL;
}

int
main(void)
{
	check_init("fib_mt");
	f6 = make6(VPK_FIB6_TRIE);
	if (f6 == NULL)
		return check_finish();
	run4(VPK_FIB_DIR24_8, 4);
	run4(VPK_FIB_BM16, 4);
	run4(VPK_FIB_BM16, 2);
	CHECK(atomic_load(&bad6) == 0, "IPv6 trie: %lu of %lu lookups saw neither the old nor the new next hop",
	      atomic_load(&bad6), atomic_load(&seen6));
	printf("reader: %lu IPv6 (trie) lookups\n", atomic_load(&seen6));
	vpk_fib6_destroy(f6);

	f6 = make6(VPK_FIB6_BM6);
	if (f6 == NULL)
		return check_finish();
	CHECK(vpk_fib6_set_deferred_free(f6, true) == 0, "v6 defer on");
	reclaim6 = true;
	atomic_store(&bad6, 0);
	atomic_store(&seen6, 0);
	run4(VPK_FIB_DIR24_8, 4);
	CHECK(atomic_load(&bad6) == 0, "IPv6 bm6: %lu of %lu lookups saw neither the old nor the new next hop",
	      atomic_load(&bad6), atomic_load(&seen6));
	CHECK(atomic_load(&seen6) > 0, "the reader ran on bm6");
	printf("reader: %lu IPv6 (bm6) lookups\n", atomic_load(&seen6));
	vpk_fib6_destroy(f6);
	return check_finish();
}
