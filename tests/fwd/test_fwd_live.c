/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Live changes under traffic: while vpk_fwd_run() forwards in-memory
 * traffic (one worker on this thread's graph, then two worker threads,
 * then two workers and a wide worker: --wide-cores), a
 * control thread replaces the IPv4 ACL again and again with two rule sets
 * that give every packet the same verdict through different rules and
 * actions, and adds and deletes routes that no packet uses. A worker that
 * saw half a change (one set's classifier with the other's actions) would
 * permit or deny a packet wrongly, so the denied and forwarded counts must
 * be exactly what one rule set gives. The control thread also adds and
 * deletes an address of the router and changes the ICMP rate while packets
 * whose TTL expires keep the ip4-icmp-error node reading that state, and
 * takes an interface no packet uses down and up. Under
 * ASan a table freed before the workers moved on is a use after free; under
 * TSan a state written in place while a worker reads it is a data race.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fwd/fwd.h"
#include "fwd/fwd_priv.h"
#include "lib/check.h"

#define N_TMPL 72                       /* the last N_TTL have TTL 1 */
#define N_TTL 8
#ifdef VPK_DEBUG
#define REPEAT 10000                    /* sanitizer builds: several times slower */
#else
#define REPEAT 40000
#endif

/* Set A: one deny rule. Set B: a permit ('R') rule first, then the deny:
 * the same verdicts, but A's classifier with B's actions permits denied
 * packets and B's classifier with A's actions denies permitted ones. */
static const char rules_a[] = "@0.0.0.0/0 0.0.0.0/0 0 : 65535 1000 : 1999 0x11/0xff\n";
static const char rules_b[] = "R0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 999 0x11/0xff 0\n"
			      "@0.0.0.0/0 0.0.0.0/0 0 : 65535 1000 : 1999 0x11/0xff\n";

struct ctl_arg {
	struct vpk_fwd *f;
	const char *path_a, *path_b;
	_Atomic bool stop;
	unsigned swaps, routes, addrs, tuns;
	int rc;
	char err[256];
};

static void *
control(void *p)
{
	struct ctl_arg *a = p;
	char line[512];

	while (!atomic_load(&a->stop) && a->rc == 0) {
		snprintf(line, sizeof(line), "acl load %s", a->swaps % 2 ? a->path_a : a->path_b);
		a->rc = vpk_fwd_exec(a->f, line, a->err, sizeof(a->err));
		a->swaps++;
		/* Routes no packet uses: tbl8 groups allocated and freed under QSBR. */
		snprintf(line, sizeof(line), "route %s 192.168.%u.128/25%s", a->routes % 2 ? "del" : "add",
			 (a->routes / 2) % 200, a->routes % 2 ? "" : " via 2");
		if (a->rc == 0)
			a->rc = vpk_fwd_exec(a->f, line, a->err, sizeof(a->err));
		a->routes++;
		/* The router's addresses and ICMP rate: the ICMP nodes' state, swapped whole. */
		snprintf(line, sizeof(line), "ip address %sa 198.51.100.%u/32", a->addrs % 2 ? "del " : "",
			 (a->addrs / 2) % 200 + 1);
		if (a->rc == 0)
			a->rc = vpk_fwd_exec(a->f, line, a->err, sizeof(a->err));
		snprintf(line, sizeof(line), "icmp rate-limit %u", 1000 + a->addrs % 7);
		if (a->rc == 0)
			a->rc = vpk_fwd_exec(a->f, line, a->err, sizeof(a->err));
		/* ethernet-input's and interface-output's contexts, swapped whole (interface c carries nothing). */
		snprintf(line, sizeof(line), "interface c %s", a->addrs % 2 ? "up" : "down");
		if (a->rc == 0 && (a->rc = vpk_fwd_exec(a->f, line, a->err, sizeof(a->err))) == -ENOTSUP)
			a->rc = 0;              /* the graphs are not built yet */
		/* Tunnel tables no packet uses: every graph takes all its tunnel nodes' new contexts at once. */
		snprintf(line, sizeof(line), "vxlan tunnel src 203.0.113.1 dst 203.0.113.%u vni %u encap 198.18.%u.0/24%s",
			 (a->addrs / 2) % 200 + 2, a->addrs / 2, (a->addrs / 2) % 200, a->addrs % 2 ? " del" : "");
		if (a->rc == 0)
			a->rc = vpk_fwd_exec(a->f, line, a->err, sizeof(a->err));
		snprintf(line, sizeof(line), a->addrs % 2 ? "sr steer gtp4-d 198.19.%u.0/24 del" :
			 "sr steer gtp4-d 198.19.%u.0/24 sr-prefix d4::/32 v6src-prefix c1::/64 via 2",
			 (a->addrs / 2) % 200);
		if (a->rc == 0)
			a->rc = vpk_fwd_exec(a->f, line, a->err, sizeof(a->err));
		snprintf(line, sizeof(line), "sr localsid end-m-gtp4-e d5:%x::/32 %s", (a->addrs / 2) % 200 + 1,
			 a->addrs % 2 ? "del" : "v4src-position 64");
		if (a->rc == 0)
			a->rc = vpk_fwd_exec(a->f, line, a->err, sizeof(a->err));
		a->tuns += a->rc == 0;
		a->addrs++;
	}
	return NULL;
}

static void
build_packets(uint8_t pkts[N_TMPL][64], uint16_t lens[N_TMPL], unsigned *n_denied)
{
	*n_denied = 0;
	for (unsigned i = 0; i < N_TMPL; i++) {
		uint8_t *p = pkts[i];
		uint16_t dport = (uint16_t)(500 + i * 30);   /* 500 .. 2630 */

		memset(p, 0, 64);
		memcpy(p, "\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x99\x08\x00", 14);
		p[14] = 0x45;
		p[16] = 0;
		p[17] = 46;                             /* IPv4 total length: 20 + 8 + 18 */
		p[22] = i < N_TMPL - N_TTL ? 64 : 1;
		p[23] = 17;
		memcpy(p + 26, (uint8_t[]){ 172, 16, (uint8_t)i, 1 }, 4);
		memcpy(p + 30, (uint8_t[]){ 10, 0, 0, 1 }, 4);
		p[34] = 0x30;
		p[35] = (uint8_t)i;
		p[36] = (uint8_t)(dport >> 8);
		p[37] = (uint8_t)dport;
		p[39] = 26;
		{
			uint32_t s = 0;

			for (int k = 14; k < 34; k += 2)
				s += (uint32_t)(p[k] << 8 | p[k + 1]);
			while (s >> 16)
				s = (s & 0xffff) + (s >> 16);
			p[24] = (uint8_t)(~s >> 8);
			p[25] = (uint8_t)~s;
		}
		lens[i] = 60;
		*n_denied += i < N_TMPL - N_TTL && dport >= 1000 && dport <= 1999;
	}
}

static void
run_once(unsigned workers, const char *wide, const char *pa, const char *pb)
{
	struct vpk_fwd_conf conf = { .workers = workers, .n_bufs = 8192, .wide_cores = wide };
	static uint8_t pkts[N_TMPL][64];
	uint16_t lens[N_TMPL];
	const uint8_t *pp[N_TMPL];
	const char *cfg[] = { "interface a", "interface b out discard", "interface c out discard", "neighbor 1 02:00:00:00:00:09 dev b",
			      "neighbor 2 02:00:00:00:00:0a dev b", "route add 10.0.0.0/8 via 1",
			      "ip address a 192.0.2.1/24" };
	struct ctl_arg a = { .path_a = pa, .path_b = pb };
	struct vpk_fwd_run_stats st;
	unsigned n_denied;
	uint64_t total = (uint64_t)N_TMPL * REPEAT, expired = (uint64_t)N_TTL * REPEAT, denied = 0, fwd = 0, te = 0;
	pthread_t th;
	char err[256], line[512];
	int rc;

	build_packets(pkts, lens, &n_denied);
	for (unsigned i = 0; i < N_TMPL; i++)
		pp[i] = pkts[i];
	CHECK(vpk_fwd_create(&conf, &a.f) == 0, "create");
	for (size_t i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++)
		CHECK(vpk_fwd_exec(a.f, cfg[i], err, sizeof(err)) == 0, "%s: %s", cfg[i], err);
	snprintf(line, sizeof(line), "acl load %s", pa);
	CHECK(vpk_fwd_exec(a.f, line, err, sizeof(err)) == 0, "%s", err);
	CHECK(fwd_ctl_enable(a.f) == 0, "live changes on");
	CHECK(vpk_fwd_set_traffic(a.f, pp, lens, N_TMPL, total) == 0, "traffic");
	CHECK(pthread_create(&th, NULL, control, &a) == 0, "control thread");
	rc = vpk_fwd_run(a.f, &st, err, sizeof(err));
	atomic_store(&a.stop, true);
	pthread_join(th, NULL);
	CHECK(rc == 0, "run: %s", err);
	CHECK(a.rc == 0, "live command failed: %s", a.err);
	for (unsigned w = 0; w < vpk_fwd_n_workers(a.f); w++) {
		struct vpk_graph *g = vpk_fwd_worker_graph(a.f, w);

		denied += fwd_node_error(g, "ip4-acl", 0);
		fwd += fwd_node_error(g, "interface-output", 0);
		te += fwd_node_error(g, "ip4-icmp-error", 0) + fwd_node_error(g, "ip4-icmp-error", 4);
	}
	printf("workers %u%s: %u ACL swaps, %u route changes, %u address changes, %u tunnel table changes "
	       "during %llu packets\n", workers, wide != NULL ? " + wide" : "", a.swaps, a.routes, a.addrs, 3 * a.tuns,
	       (unsigned long long)total);
	CHECK(a.swaps >= 2, "the control thread did not get to swap (%u)", a.swaps);
	CHECK(denied == (uint64_t)n_denied * REPEAT, "denied %llu, want %llu", (unsigned long long)denied,
	      (unsigned long long)n_denied * REPEAT);
	CHECK(fwd == total - expired - (uint64_t)n_denied * REPEAT, "forwarded %llu, want %llu",
	      (unsigned long long)fwd, (unsigned long long)(total - expired - (uint64_t)n_denied * REPEAT));
	/* Each expired packet: a time exceeded sent, or not sent beyond the rate. */
	CHECK(te == expired, "time exceeded %llu (sent + rate limited), want %llu", (unsigned long long)te,
	      (unsigned long long)expired);
	CHECK(vpk_fwd_bufs_in_use(a.f) == 0, "buffers leaked");
	vpk_fwd_destroy(a.f);
}

int
main(void)
{
	char pa[] = "/tmp/vpk-live-aXXXXXX", pb[] = "/tmp/vpk-live-bXXXXXX";
	int fa = mkstemp(pa), fb = mkstemp(pb);

	check_init("fwd.live");
	CHECK(fa >= 0 && fb >= 0, "temp files");
	CHECK(write(fa, rules_a, strlen(rules_a)) == (ssize_t)strlen(rules_a), "write");
	CHECK(write(fb, rules_b, strlen(rules_b)) == (ssize_t)strlen(rules_b), "write");
	close(fa);
	close(fb);
	run_once(1, NULL, pa, pb);
	run_once(2, NULL, pa, pb);
	/* Core specialization: the wide worker (ACL and lookups) is a QSBR reader as well. */
	run_once(2, "1", pa, pb);
	unlink(pa);
	unlink(pb);
	return check_finish();
}
