/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk fwd --demo: the forwarder on built-in defaults, nothing to prepare.
 * It generates a route table (--routes, default 200 000 IPv4 prefixes with
 * a BGP-like length mix at uniformly random addresses, seeded) or loads one
 * (--routes-file, dpdk-test-fib format, e.g. the RouteViews table; flows then
 * go to a random route's prefix plus random host bits), 16 neighbors on two
 * output interfaces, and
 * in-memory traffic (--flows, default 4096 flows of 64-byte UDP packets to
 * routed destinations), then runs the same traffic once per cap
 * (64, 128, 256, 512), printing show runtime per run and a summary of Mpps
 * and clocks per packet per cap (--json: a list of runs).
 *
 * The ACL stage follows Intel's l3fwd-acl measurement (4096 rules, 4096
 * flows): --rules (default 4096) ClassBench-like rules from vpk's generator
 * (acl profile, seeded), one in ten denying, the rest permitting; the flows'
 * 5-tuples are drawn from the rules (90%) and at random (10%), so the path is
 * ethernet -> ip4-input -> ip4-acl -> ip4-lookup -> ip4-rewrite -> output,
 * with the denied share dropped and counted.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl_gen.h"
#include <vpk/fib.h>
#include "fwd/fwd.h"
#include <vpk/pkt.h>
#include "bench.h"
#include <vpk/fib_file.h>
#include "fwd/fwd_show.h"
#include "common/json.h"
#include "common/tool.h"

static int cmd_bench_fwd(int argc, char **argv);
VPK_CMD(bench_fwd, "bench fwd", "the forwarder's l3fwd-acl path per cap (= fwd --demo --runs 5 --quiet)", cmd_bench_fwd);

static int
cmd_bench_fwd(int argc, char **argv)
{
	char *args[64];
	int n = 0;

	args[n++] = argv[0];
	args[n++] = (char *)"--runs";
	args[n++] = (char *)"5";
	args[n++] = (char *)"--quiet";
	for (int i = 1; i < argc && n < 63; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	return fwd_demo(n, args);
}

static uint64_t rng = 0x5eed;

static uint32_t
rnd(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng >> 32);
}

/* Prefix length mix of a BGP table (research/fib.md §4): mostly /24. */
static uint8_t
pick_len(void)
{
	uint32_t r = rnd() % 1000;

	if (r < 580)
		return 24;
	if (r < 700)
		return (uint8_t)(22 + rnd() % 2);
	if (r < 880)
		return (uint8_t)(16 + rnd() % 6);
	if (r < 960)
		return (uint8_t)(8 + rnd() % 8);
	return (uint8_t)(25 + rnd() % 8);
}

/* --routes-file: every route (next hops 1..16 by position), flows to in-table addresses. */
static int
add_routes(struct vpk_fib *fib, const struct vpk_fib_file_routes *fr, uint32_t *dsts, uint32_t flows)
{
	int rc = 0;

	for (size_t i = 0; i < fr->n && rc == 0; i++) {
		const uint8_t *a = fr->r[i].addr;

		rc = vpk_fib_add(fib, (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3],
				 fr->r[i].depth, 1 + i % 16);
	}
	for (uint32_t i = 0; i < flows && rc == 0 && fr->n > 0; i++) {
		const struct vpk_fib_file_route *r = &fr->r[rnd() % fr->n];
		uint32_t host = r->depth == 0 ? rnd() : r->depth == 32 ? 0 : rnd() & ((UINT32_C(1) << (32 - r->depth)) - 1);

		dsts[i] = ((uint32_t)r->addr[0] << 24 | (uint32_t)r->addr[1] << 16 | (uint32_t)r->addr[2] << 8 |
			   r->addr[3]) | host;
	}
	return rc;
}

static int
setup(struct vpk_fwd *f, uint32_t routes, const struct vpk_fib_file_routes *fr, uint32_t flows,
      uint32_t n_rules, uint64_t packets, uint32_t **dsts_out)
{
	struct vpk_acl5_rule *rules = NULL;
	struct vpk_acl5_pkt *tr = NULL;
	static const char *const cfg[] = {
		"interface eth0",
		"interface eth1 out discard",
		"interface eth2 out discard",
	};
	char line[128], err[256];
	struct vpk_fib *fib = vpk_fwd_fib4(f);
	uint32_t *dsts = malloc((size_t)flows * sizeof(*dsts)), orig_flows = flows;
	uint8_t **pk = malloc((size_t)flows * sizeof(*pk));
	uint16_t *lens = malloc((size_t)flows * sizeof(*lens));
	int rc = 0;

	if (dsts == NULL || pk == NULL || lens == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < sizeof(cfg) / sizeof(cfg[0]) && rc == 0; i++)
		rc = vpk_fwd_exec(f, cfg[i], err, sizeof(err));
	for (unsigned n = 1; n <= 16 && rc == 0; n++) {
		snprintf(line, sizeof(line), "neighbor %u 02:00:00:00:%02x:%02x dev eth%u", n, n >> 8, n & 255,
			 1 + (n & 1));
		rc = vpk_fwd_exec(f, line, err, sizeof(err));
	}
	/* A default route keeps every generated flow routable. */
	if (rc == 0)
		rc = vpk_fib_add(fib, 0, 0, 1);
	if (rc == 0 && fr != NULL) {
		rc = add_routes(fib, fr, dsts, flows);
		routes = flows = 0;     /* nothing generated below */
	}
	for (uint32_t i = 0; i < routes && rc == 0; i++) {
		uint8_t len = pick_len();
		uint32_t ip = rnd() & (len == 32 ? UINT32_MAX : ~((UINT32_C(1) << (32 - len)) - 1));

		rc = vpk_fib_add(fib, ip, len, 1 + rnd() % 16);
		if (rc == -ENOSPC)
			rc = 0;                 /* tbl8 groups full: this prefix is skipped */
		if (i < flows)
			dsts[i] = ip | (len == 32 ? 0 : rnd() & ((UINT32_C(1) << (32 - len)) - 1));
	}
	for (uint32_t i = routes; i < flows; i++)
		dsts[i] = rnd();
	flows = orig_flows;
	if (rc == 0 && n_rules > 0) {
		struct vpk_acl_gen_conf gc = { .profile = VPK_ACL_GEN_ACL, .rules = n_rules, .seed = 42 };

		rc = vpk_acl_gen_rules(&gc, &rules);
		for (uint32_t i = 0; rc == 0 && i < n_rules; i++)
			rules[i].port = i % 10 == 9 ? -1 : 0;   /* `@` deny, `R 0` permit */
		if (rc == 0)
			rc = vpk_fwd_acl_rules(f, rules, n_rules, false, err, sizeof(err));
		if (rc == 0)
			rc = vpk_acl_gen_trace(rules, n_rules, false, flows, 43, 0.1, &tr);
	}
	for (uint32_t i = 0; i < flows && rc == 0; i++) {
		uint8_t *p = calloc(1, 64), *h = p + 14;
		uint16_t c;

		if (p == NULL) {
			rc = -ENOMEM;
			break;
		}
		memcpy(p, "\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x99\x08\x00", 14);
		h[0] = 0x45;
		h[3] = 50;              /* 64-byte frame: 14 + 20 + 8 + 22 payload */
		h[8] = 64;
		h[9] = 17;
		h[12] = 192;
		h[13] = 168;
		h[14] = (uint8_t)(i >> 8);
		h[15] = (uint8_t)i;
		h[16] = (uint8_t)(dsts[i] >> 24);
		h[17] = (uint8_t)(dsts[i] >> 16);
		h[18] = (uint8_t)(dsts[i] >> 8);
		h[19] = (uint8_t)dsts[i];
		if (tr != NULL) {
			/* The flow's 5-tuple comes from the ACL trace generator. */
			memcpy(h + 12, tr[i].src, 4);
			memcpy(h + 16, tr[i].dst, 4);
			h[9] = tr[i].proto;
		}
		h[20] = 0x30;
		h[21] = 0x39;
		h[22] = 0x00;
		h[23] = 53;
		if (tr != NULL) {
			h[20] = (uint8_t)(tr[i].sport >> 8);
			h[21] = (uint8_t)tr[i].sport;
			h[22] = (uint8_t)(tr[i].dport >> 8);
			h[23] = (uint8_t)tr[i].dport;
		}
		h[25] = 30;
		c = vpk_ip4_csum(h, 20);
		memcpy(h + 10, &c, 2);
		pk[i] = p;
		lens[i] = 64;
	}
	if (rc == 0)
		rc = vpk_fwd_set_traffic(f, (const uint8_t *const *)pk, lens, flows, packets);
	for (uint32_t i = 0; i < flows; i++)
		if (pk != NULL && rc == 0)
			free(pk[i]);
out:
	free(rules);
	free(tr);
	free(pk);
	free(lens);
	*dsts_out = dsts;
	return rc;
}

/* The demo's options, and the figures of its runs. */
struct demo {
	uint64_t packets, routes, flows, n_rules;
	const char *routes_file;
	unsigned caps[4], n_caps, runs;
	bool quiet;
	struct vpk_fwd_conf conf;
	double mpps[4], cpp[4], mpps_r[4][32], cpp_r[4][32];
};

/* @return VPK_EXIT_OK, or the exit code (message printed). */
static int
demo_parse(int argc, char **argv, struct demo *d)
{
	VPK_LONGOPTS(opts, "demo/D packets=n routes=r flows=f rules=a workers=W fib4=F routes-file=P "
			   "wide-cores=C runs=u quiet/q show-runtime/R");
	bool routes_set = false;
	int c;

	optind = 1;
	opterr = 0;     /* one line of our own instead of getopt's */
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		bool ok = true;

		switch (c) {
		case 'D':
		case 'R':
			break;
		case 'n':
			ok = vpk_opt_u64("fwd --demo: --packets", optarg, 1000, UINT64_C(1) << 40, &d->packets);
			break;
		case 'r':
			ok = vpk_opt_u64("fwd --demo: --routes", optarg, 0, 2000000, &d->routes);
			routes_set = true;
			break;
		case 'f':
			ok = vpk_opt_u64("fwd --demo: --flows", optarg, 1, 1000000, &d->flows);
			break;
		case 'a':
			ok = vpk_opt_u64("fwd --demo: --rules", optarg, 0, 1000000, &d->n_rules);
			break;
		case 'u':
			ok = vpk_opt_uint("fwd --demo: --runs", optarg, 1, 32, &d->runs);
			break;
		case 'q':
			d->quiet = true;
			break;
		case 'F':
			if (fwd_fib4_type(optarg, &d->conf.fib4_type) != 0)
				return vpk_fail(VPK_EXIT_USAGE, "fwd --demo: --fib4 %s: 'dir' or 'bm16'", optarg);
			break;
		case 'P':
			d->routes_file = optarg;
			break;
		case 'C':
			d->conf.wide_cores = optarg;
			break;
		case 'W':
			ok = vpk_opt_uint("fwd --demo: --workers", optarg, 1, 64, &d->conf.workers);
			break;
		default:
			return vpk_fail(VPK_EXIT_USAGE, "fwd --demo: options are --packets N --routes N --rules N "
						       "--flows N --workers N --runs N --fib4 dir|bm16 --routes-file F --quiet --json");
		}
		if (!ok)
			return VPK_EXIT_USAGE;
	}
	if (routes_set && d->routes_file != NULL)
		return vpk_fail(VPK_EXIT_USAGE, "fwd --demo: --routes N and --routes-file F exclude each other");
	if (d->packets < 1000 || d->flows < 1 || d->flows > 1000000 || d->routes > 2000000 || d->n_rules > 1000000)
		return vpk_fail(VPK_EXIT_USAGE,
				"fwd --demo: --packets >= 1000, --flows 1..1000000, --routes <= 2000000, --rules <= 1000000");
	return VPK_EXIT_OK;
}

/*
 * Rounds: every cap once per round, in order, so noise on this shared
 * machine spreads over all caps alike; the summary gives medians. The
 * per-run output (show runtime / JSON runs) is printed for every run.
 */
static int
demo_rounds(struct demo *d, struct vpk_fwd *f, bool cap_default, struct json *j, char *err, size_t len)
{
	int rc = 0;

	for (unsigned round = 0; round < d->runs && rc == 0; round++) {
		for (unsigned k = 0; k < d->n_caps; k++) {
			struct vpk_fwd_run_stats st;

			if (cap_default)
				vpk_set_max_simd_bitwidth(d->caps[k]);
			rc = vpk_fwd_run(f, &st, err, len);
			if (rc != 0)
				break;
			d->mpps_r[k][round] = fwd_mpps(&st);
			d->cpp_r[k][round] = st.packets ? (double)st.tsc / (double)st.packets : 0;
			if (vpk_opts.json) {
				fwd_json_run(j, f, &st, d->caps[k]);
			} else if (!d->quiet) {
				printf("\n--- cap %u: %.3f Mpps, %.1f clocks/packet, %llu forwarded, %llu dropped, fib %s %s, acl %s\n",
				       d->caps[k], d->mpps_r[k][round], d->cpp_r[k][round], (unsigned long long)st.forwarded,
				       (unsigned long long)st.dropped, vpk_fib_type_name(vpk_fwd_fib4(f)),
				       vpk_fib_impl_name(vpk_fwd_fib4(f)),
				       vpk_fwd_acl_impl(f));
				for (unsigned w = 0; w < vpk_fwd_n_workers(f); w++) {
					if (vpk_fwd_n_workers(f) > 1)
						printf("Thread %u (worker %u):\n", w, w);
					fwd_show_runtime(vpk_fwd_worker_graph(f, w));
				}
			}
		}
	}
	for (unsigned k = 0; k < d->n_caps && rc == 0; k++) {
		d->mpps[k] = bench_median(d->mpps_r[k], d->runs);
		d->cpp[k] = bench_median(d->cpp_r[k], d->runs);
	}
	return rc;
}

static void
demo_summary(const struct demo *d, struct json *j, int rc)
{
	if (vpk_opts.json) {
		json_end(j);
		json_arr(j, "summary");
		for (unsigned k = 0; k < d->n_caps && rc == 0; k++) {
			json_obj(j, NULL);
			json_u64(j, "cap", d->caps[k]);
			json_dbl(j, "mpps_median", d->mpps[k]);
			json_dbl(j, "clocks_per_packet_median", d->cpp[k]);
			json_dbl(j, "vs_cap64", d->mpps[0] > 0 ? d->mpps[k] / d->mpps[0] : 0);
			json_end(j);
		}
		json_end(j);
		json_end(j);
		json_done(j);
	} else if (rc == 0) {
		printf("\nSummary (same traffic, same process; medians of %u round%s):\n  %-6s %10s %14s %10s\n",
		       d->runs, d->runs > 1 ? "s" : "", "cap", "Mpps",
		       "clocks/packet", "vs cap 64");
		for (unsigned k = 0; k < d->n_caps; k++)
			printf("  %-6u %10.3f %14.1f %9.2fx\n", d->caps[k], d->mpps[k], d->cpp[k],
			       d->mpps[0] > 0 ? d->mpps[k] / d->mpps[0] : 0);
	}
}

int
fwd_demo(int argc, char **argv)
{
	struct demo d = { .packets = 2000000, .routes = 200000, .flows = 4096, .n_rules = 4096,
			  .caps = { 64, 128, 256, 512 }, .n_caps = 4, .runs = 1,
			  .conf = { .isa = vpk_opts.isa, .n_bufs = 8192 } };
	struct vpk_fib_file_routes fr = { NULL, 0 };
	struct vpk_cap_info ci;
	struct vpk_fwd *f;
	uint32_t *dsts = NULL;
	struct json j;
	char err[512];
	int rc;

	rc = demo_parse(argc, argv, &d);
	if (rc != VPK_EXIT_OK)
		return rc;
	vpk_get_cap_info(&ci);
	if (ci.source != VPK_CAP_DEFAULT) {
		/* The cap was fixed from outside: run just that one. */
		d.caps[0] = ci.bits;
		d.n_caps = 1;
	}
	rc = vpk_fwd_create(&d.conf, &f);
	if (rc != 0)
		return vpk_fail(VPK_EXIT_FAIL, "fwd --demo: %s", strerror(-rc));
	if (d.routes_file != NULL) {
		rc = vpk_fib_file_load_routes(d.routes_file, 4, &fr);
		if (rc != 0) {
			vpk_fwd_destroy(f);
			return vpk_fail(rc == -EINVAL || rc == -EFBIG ? VPK_EXIT_USAGE : VPK_EXIT_FAIL, "fwd --demo: %s",
					vpk_last_error());
		}
		d.routes = fr.n;
	}
	rc = setup(f, (uint32_t)d.routes, d.routes_file != NULL ? &fr : NULL, (uint32_t)d.flows, (uint32_t)d.n_rules,
		   d.packets, &dsts);
	vpk_fib_file_free_routes(&fr);
	free(dsts);
	if (rc != 0) {
		vpk_fwd_destroy(f);
		return vpk_fail(VPK_EXIT_FAIL, "fwd --demo: setting up: %s", strerror(-rc));
	}
	if (vpk_opts.json) {
		json_init(&j, stdout);
		json_obj(&j, NULL);
		json_str(&j, "cpu", vpk_cpu_model());
		json_u64(&j, "routes", d.routes);
		json_u64(&j, "rules", d.n_rules);
		json_u64(&j, "flows", d.flows);
		json_u64(&j, "rounds", d.runs);
		json_arr(&j, "runs");
	} else {
		printf("vpk fwd --demo: %lu ACL rules, %lu routes, %lu flows of 64-byte packets, %lu packets per run, "
		       "%u worker%s\n", d.n_rules, d.routes, d.flows, d.packets, d.conf.workers ? d.conf.workers : 1,
		       d.conf.workers > 1 ? "s" : "");
	}
	rc = demo_rounds(&d, f, ci.source == VPK_CAP_DEFAULT, &j, err, sizeof(err));
	if (ci.source == VPK_CAP_DEFAULT)
		vpk_set_max_simd_bitwidth(ci.default_bits);
	demo_summary(&d, &j, rc);
	if (rc == 0 && vpk_fwd_bufs_in_use(f) != 0)
		rc = -EFAULT, snprintf(err, sizeof(err), "%u buffers leaked", vpk_fwd_bufs_in_use(f));
	vpk_fwd_destroy(f);
	return rc == 0 ? VPK_EXIT_OK : vpk_fail(VPK_EXIT_FAIL, "fwd --demo: %s", err);
}
