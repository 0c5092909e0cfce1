/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk bench fwd-churn: forwarding rate of a live router (control socket
 * set up: QSBR readers, ACL stages) while its whole IPv4 table is being
 * replaced, against the same forwarder steady. A control thread replaces
 * every route's next hop in turn through vpk_fwd_exec() (what `vpk ctl
 * route add` and linux-sync do: the control lock, the FIB's atomic stores,
 * groups reclaimed after the workers' quiescent states) for as long as the
 * run lasts (as fast as it goes, or paced: --rate). Runs alternate steady / churn; the report gives the medians,
 * their ratio, and the route changes per second the churn reached.
 */
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "common/clock.h"
#include "common/json.h"
#include "common/tool.h"
#include "fwd/fwd.h"
#include "fwd/fwd_cli.h"
#include "fwd/fwd_show.h"

static int cmd_bench_churn(int argc, char **argv);
VPK_CMD(bench_churn, "bench fwd-churn", "forwarding Mpps during a full-table route churn vs steady (JSON)",
	cmd_bench_churn);

#define N_TMPL 1024

struct churn {
	struct vpk_fwd *f;
	uint32_t routes;
	unsigned rate;                  /* changes per second, 0: as fast as it goes */
	_Atomic bool stop;
	uint64_t changes;
	double seconds;
};

static uint32_t
route_ip(uint32_t i)
{
	return 0x10000000u + (i << 8);
}

static void *
churn_main(void *p)
{
	struct churn *c = p;
	char line[96], err[256];
	double t0 = mono_now_s();

	for (uint64_t k = 0; !atomic_load(&c->stop); k++) {
		uint32_t ip = route_ip((uint32_t)(k % c->routes));

		snprintf(line, sizeof(line), "route add %u.%u.%u.0/24 via %u", ip >> 24, (ip >> 16) & 255,
			 (ip >> 8) & 255, 1 + (unsigned)((k / c->routes) % 2 == 0));
		if (vpk_fwd_exec(c->f, line, err, sizeof(err)) != 0) {
			fprintf(stderr, "vpk: bench fwd-churn: %s\n", err);
			break;
		}
		c->changes++;
		/* Paced in bursts: sleep (1 ms at least) once ahead, not a wake-up per change. */
		if (c->rate > 0 && c->changes % 64 == 0) {
			double ahead = (double)c->changes / c->rate - (mono_now_s() - t0);

			if (ahead > 0.001)
				nanosleep(&(struct timespec){ 0, (long)(ahead * 1e9) }, NULL);
		}
	}
	c->seconds = mono_now_s() - t0;
	return NULL;
}

static void
make_traffic(uint8_t pkts[N_TMPL][64], uint16_t *lens, uint32_t routes)
{
	for (unsigned i = 0; i < N_TMPL; i++) {
		uint8_t *p = pkts[i];
		uint32_t dst = route_ip((uint32_t)(((uint64_t)i * 2654435761u) % routes)) | 1;
		uint32_t s = 0;

		memset(p, 0, 64);
		memcpy(p, "\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x99\x08\x00", 14);
		p[14] = 0x45;
		p[17] = 46;
		p[22] = 64;
		p[23] = 17;
		memcpy(p + 26, (uint8_t[]){ 172, 16, (uint8_t)(i >> 8), (uint8_t)i }, 4);
		for (int k = 0; k < 4; k++)
			p[30 + k] = (uint8_t)(dst >> (24 - 8 * k));
		p[34] = 0x30;
		p[37] = 53;
		p[39] = 26;
		for (int k = 14; k < 34; k += 2)
			s += (uint32_t)(p[k] << 8 | p[k + 1]);
		while (s >> 16)
			s = (s & 0xffff) + (s >> 16);
		p[24] = (uint8_t)(~s >> 8);
		p[25] = (uint8_t)~s;
		lens[i] = 60;
	}
}

static int
setup(struct vpk_fwd **out, uint32_t routes, uint64_t packets)
{
	static uint8_t pkts[N_TMPL][64];
	uint16_t lens[N_TMPL];
	const uint8_t *pp[N_TMPL];
	static const char *const cfg[] = { "interface a", "interface b out discard",
					   "neighbor 1 02:00:00:00:00:09 dev b", "neighbor 2 02:00:00:00:00:0a dev b" };
	struct vpk_fwd_conf conf = { .isa = vpk_opts.isa, .max_routes = routes + 16 };
	struct vpk_fwd *f;
	char err[256];
	int rc = vpk_fwd_create(&conf, &f);

	if (rc != 0)
		return vpk_fail(VPK_EXIT_FAIL, "bench fwd-churn: cannot create the forwarder");
	for (size_t i = 0; i < sizeof(cfg) / sizeof(cfg[0]) && rc == 0; i++)
		rc = vpk_fwd_exec(f, cfg[i], err, sizeof(err));
	for (uint32_t i = 0; i < routes && rc == 0; i++)
		rc = vpk_fib_add(vpk_fwd_fib4(f), route_ip(i), 24, 1);
	if (rc == 0)
		rc = fwd_cli_prepare(f, err, sizeof(err));
	make_traffic(pkts, lens, routes);
	for (unsigned i = 0; i < N_TMPL; i++)
		pp[i] = pkts[i];
	if (rc == 0)
		rc = vpk_fwd_set_traffic(f, pp, lens, N_TMPL, packets);
	if (rc != 0) {
		vpk_fwd_destroy(f);
		return vpk_fail(VPK_EXIT_FAIL, "bench fwd-churn: setup: %s", err);
	}
	*out = f;
	return 0;
}

static int
cmd_bench_churn(int argc, char **argv)
{
	VPK_LONGOPTS(opts, "routes=r packets=p runs=n rate=R");
	unsigned routes = 1u << 20, runs = 5, packets_m = 8, crate = 0;
	double steady[32], churn[32], rate[32];
	struct vpk_fwd *f = NULL;
	struct json j;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'r' && vpk_opt_uint("bench fwd-churn: --routes", optarg, 1, 1u << 22, &routes))
			continue;
		if (c == 'p' && vpk_opt_uint("bench fwd-churn: --packets (millions)", optarg, 1, 1000, &packets_m))
			continue;
		if (c == 'n' && vpk_opt_uint("bench fwd-churn: --runs", optarg, 1, 32, &runs))
			continue;
		if (c == 'R' && vpk_opt_uint("bench fwd-churn: --rate (changes/s)", optarg, 0, 100000000, &crate))
			continue;
		return vpk_fail(VPK_EXIT_USAGE, "usage: vpk bench fwd-churn [--routes N] [--packets MILLIONS] [--runs N] "
			       "[--rate CHANGES_PER_S]");
	}
	rc = setup(&f, routes, (uint64_t)packets_m * 1000000);
	if (rc != 0)
		return rc;
	for (unsigned r = 0; r < 2 * runs && rc == 0; r++) {
		struct churn ch = { .f = f, .routes = routes, .rate = crate };
		struct vpk_fwd_run_stats st;
		pthread_t th;
		char err[256];
		bool with = r % 2 == 1;

		if (with && pthread_create(&th, NULL, churn_main, &ch) != 0)
			rc = vpk_fail(VPK_EXIT_FAIL, "bench fwd-churn: cannot start the control thread");
		if (rc == 0 && vpk_fwd_run(f, &st, err, sizeof(err)) != 0)
			rc = vpk_fail(VPK_EXIT_FAIL, "bench fwd-churn: %s", err);
		if (with) {
			atomic_store(&ch.stop, true);
			pthread_join(th, NULL);
			churn[r / 2] = fwd_mpps(&st);
			rate[r / 2] = ch.seconds > 0 ? (double)ch.changes / ch.seconds : 0;
		} else {
			steady[r / 2] = fwd_mpps(&st);
		}
	}
	vpk_fwd_destroy(f);
	if (rc != 0)
		return rc;
	{
		double s = bench_median(steady, runs), m = bench_median(churn, runs);

		bench_json_begin(&j, "fwd-churn");
		json_u64(&j, "routes", routes);
		json_u64(&j, "packets_per_run", (uint64_t)packets_m * 1000000);
		json_u64(&j, "runs", runs);
		json_u64(&j, "churn_rate_limit", crate);
		json_dbl(&j, "steady_mpps", s);
		json_dbl(&j, "churn_mpps", m);
		json_dbl(&j, "churn_over_steady", s > 0 ? m / s : 0);
		json_dbl(&j, "churn_route_changes_per_s", bench_median(rate, runs));
		json_end(&j);
		json_done(&j);
	}
	return VPK_EXIT_OK;
}
