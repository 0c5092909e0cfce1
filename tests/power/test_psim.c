/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * powersim tests. The licence machine runs on a test CPU with round figures
 * (2 / 1 / 0.5 GHz, 10 us ramp at 1/4 rate, 1 us halt, 100 us hysteresis), so
 * every timeline below is computed by hand in the comments and compared
 * exactly. Then the scheduler (several cores, hand-off cost), the built-in
 * scenario's shape, and the input parsers.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "power/psim_core.h"
#include "lib/check.h"

static const struct vpk_psim_cpu test_cpu = {
	"test", "round figures", "hand-made", { 2.0, 1.0, 0.5 }, { 0, 0, 1, 1, 2 },
	10000, 0.25, 1000, 100000,
};

#define EQ(a, b) (fabs((double)(a) - (double)(b)) <= 1e-6 * (1 + fabs((double)(b))))

static struct psim_core
fresh(void)
{
	struct psim_core c;
	psim_core_init(&c, &test_cpu, 0, INFINITY);
	return c;
}

/* One burst, then scalar code that outlives the hysteresis. */
static void
test_one_burst(void)
{
	struct psim_core c = fresh();
	/* 1000 cycles needing L1: ramp starts (ends at 10000), 0.5 cycles/ns -> 2000 ns */
	psim_core_run(&c, 1000, 1);
	CHECK(EQ(c.t, 2000) && c.lvl == 0 && c.pend == 1, "burst: t %g lvl %d pend %d", c.t, c.lvl, c.pend);
	/* 20000 scalar: 4000 throttled until 10000, halt to 11000, L1: 16000 ns -> 27000 */
	psim_core_run(&c, 20000, 0);
	CHECK(EQ(c.t, 27000) && c.lvl == 1, "after grant: t %g lvl %d", c.t, c.lvl);
	/* 200000 scalar: L1 until 2000 + 100000 (75000 cycles), halt to 103000, then
	 * 125000 at 2 GHz: 62500 -> 165500 */
	psim_core_run(&c, 200000, 0);
	CHECK(EQ(c.t, 165500) && c.lvl == 0, "after drop: t %g lvl %d", c.t, c.lvl);
	psim_core_finish(&c);
	CHECK(EQ(c.st.throttle_ns, 10000), "throttle %g", c.st.throttle_ns);
	CHECK(EQ(c.st.halt_ns, 2000), "halt %g", c.st.halt_ns);
	CHECK(EQ(c.st.run_ns[1], 91000) && EQ(c.st.run_ns[0], 62500), "run %g %g", c.st.run_ns[0], c.st.run_ns[1]);
	CHECK(EQ(c.st.scalar_ns, 163500), "scalar %g", c.st.scalar_ns);
	CHECK(EQ(c.st.scalar_slowed_ns, 101000), "slowed %g", c.st.scalar_slowed_ns);
	CHECK(EQ(c.st.work_cycles, 221000), "work %g", c.st.work_cycles);
	CHECK(c.st.ups == 1 && c.st.downs == 1, "ups %lu downs %lu", (unsigned long)c.st.ups,
	      (unsigned long)c.st.downs);
	/* avg: (10000*2 + 91000*1 + 62500*2) / (10000 + 91000 + 62500) */
	CHECK(EQ(c.st.avg_ghz, 236000.0 / 163500.0), "avg ghz %g", c.st.avg_ghz);

	/* A second burst after the drop: a new ramp (outside the window). */
	psim_core_run(&c, 1000, 1);                 /* 165500 + 2000, ramp ends 175500 */
	/* 4000 throttled to 175500, halt to 176500, L1 until 167500 + 100000
	 * (91000 cyc), halt to 268500, 5000 at 2 GHz -> 271000 */
	psim_core_run(&c, 100000, 0);
	CHECK(EQ(c.t, 271000) && c.lvl == 0 && c.st.ups == 2 && c.st.downs == 2,
	      "burst outside: t %g lvl %d ups %lu", c.t, c.lvl, (unsigned long)c.st.ups);
}

/* A second burst inside the hysteresis: no new transition, the window restarts. */
static void
test_burst_inside(void)
{
	struct psim_core c = fresh();
	psim_core_run(&c, 1000, 1);
	psim_core_run(&c, 20000, 0);                /* 27000, L1 */
	psim_core_run(&c, 50000, 0);                /* 77000 */
	psim_core_run(&c, 1000, 1);                 /* at L1 already: 78000, last = 78000 */
	CHECK(EQ(c.t, 78000) && c.pend == 0 && c.lvl == 1, "inside: t %g", c.t);
	psim_core_run(&c, 200000, 0);               /* L1 till 178000 (100000 cyc), halt, 50000 */
	CHECK(EQ(c.t, 229000) && c.lvl == 0, "inside drop: t %g lvl %d", c.t, c.lvl);
	CHECK(c.st.ups == 1 && c.st.downs == 1, "inside: ups %lu downs %lu", (unsigned long)c.st.ups,
	      (unsigned long)c.st.downs);
}

/* L2 then L1 code: the drop from L2 lands on L1 (still inside its window). */
static void
test_two_levels(void)
{
	struct psim_core c = fresh();
	psim_core_run(&c, 1000, 2);                 /* 2000, ramp to L2 ends 10000 */
	psim_core_run(&c, 4000, 0);                 /* exactly to 10000 */
	psim_core_run(&c, 1000, 1);                 /* grant: halt 11000, L2: 2000 ns -> 13000 */
	CHECK(EQ(c.t, 13000) && c.lvl == 2, "L2: t %g lvl %d", c.t, c.lvl);
	/* L2 until 102000 (44500 cyc), halt 103000 -> L1 (last[1]=13000), L1 until
	 * 113000 (10000), halt 114000 -> L0, 245500 at 2 GHz -> 236750 */
	psim_core_run(&c, 300000, 0);
	CHECK(EQ(c.t, 236750) && c.lvl == 0, "L2->L1->L0: t %g lvl %d", c.t, c.lvl);
	CHECK(c.st.downs == 2 && EQ(c.st.run_ns[2], 91000) && EQ(c.st.run_ns[1], 10000),
	      "downs %lu run2 %g run1 %g", (unsigned long)c.st.downs, c.st.run_ns[2], c.st.run_ns[1]);
}

/* Idle: transitions happen while idle; a halt may outlast the idle period. */
static void
test_idle(void)
{
	struct psim_core c = fresh();
	psim_core_run(&c, 1000, 1);
	psim_core_idle_until(&c, 200000);           /* grant at 10000, drop at 102000, both idle */
	CHECK(EQ(c.t, 200000) && c.lvl == 0, "idle: t %g lvl %d", c.t, c.lvl);
	psim_core_run(&c, 2000, 0);
	CHECK(EQ(c.t, 201000), "after idle: t %g", c.t);
	CHECK(EQ(c.st.idle_ns, 198000) && c.st.halt_ns == 0, "idle %g halt %g", c.st.idle_ns, c.st.halt_ns);

	struct psim_core d = fresh();
	psim_core_run(&d, 1000, 1);
	psim_core_idle_until(&d, 10500);            /* the grant halt runs 10000..11000 */
	CHECK(EQ(d.t, 11000) && d.lvl == 1, "halt past idle: t %g", d.t);
}

/* Measuring window clips the accounting. */
static void
test_window(void)
{
	struct psim_core c;
	psim_core_init(&c, &test_cpu, 1000, 3000);
	psim_core_run(&c, 10000, 0);                /* 0..5000 at 2 GHz */
	CHECK(EQ(c.st.run_ns[0], 2000) && EQ(c.st.work_cycles, 4000), "window: %g %g", c.st.run_ns[0],
	      c.st.work_cycles);
}

static struct vpk_psim_conf
conf_for(unsigned cores, unsigned wide)
{
	struct vpk_psim_conf c;
	memset(&c, 0, sizeof(c));
	c.cpu = test_cpu;
	c.cores = cores;
	c.wide_cores = wide;
	return c;
}

/* Steady state of scalar 300000 + one 1000-cycle L1 burst per request:
 * burst 2000 ns (throttled), 8000 ns throttled scalar (4000 cyc), halt 1000,
 * 91000 ns at L1, halt 1000, 205000 cyc at 2 GHz = 102500: period 205500 ns. */
static void
test_cores(void)
{
	struct vpk_psim_workload w = { .n = 2, .sec = { { VPK_PSIM_SCALAR, 300000 }, { VPK_PSIM_512_LIGHT, 1000 } } };
	for (unsigned cores = 1; cores <= 3; cores += 2) {
		struct vpk_psim_conf c = conf_for(cores, 0);
		c.warmup_ns = 1e6;
		c.duration_ns = 100 * 205500.0;
		struct vpk_psim_result r;
		struct vpk_psim_core_stats pc[3];
		CHECK(vpk_psim_run(&c, &w, &r, pc) == 0, "run");
		CHECK(EQ(r.loss, 1 - 150500.0 / 205500.0), "%u cores: loss %.9f want %.9f", cores, r.loss,
		      1 - 150500.0 / 205500.0);
		CHECK(EQ(r.throughput, cores * 1e9 / 205500.0), "%u cores: throughput %g", cores, r.throughput);
		for (unsigned i = 0; i < cores; i++)
			CHECK(EQ(pc[i].work_cycles, 100 * 301000.0) && pc[i].ups == 100 && pc[i].downs == 100 &&
				      pc[i].idle_ns == 0,
			      "core %u: work %g ups %lu", i, pc[i].work_cycles, (unsigned long)pc[i].ups);
	}
}

/* One request in flight, a dedicated wide core, 4000 ns per round trip:
 * scalar 150000 ns, hop 2000, burst on the wide core 2000 (it starts at L0
 * every time: 156000 > hysteresis), hop back 2000: period 156000 ns. */
static void
test_handoff(void)
{
	struct vpk_psim_workload w = { .n = 2, .sec = { { VPK_PSIM_SCALAR, 300000 }, { VPK_PSIM_512_LIGHT, 1000 } } };
	struct vpk_psim_conf c = conf_for(2, 1);
	c.dedicated = true;
	c.tasks = 1;
	c.switch_ns = 4000;
	c.warmup_ns = 1e6;
	c.duration_ns = 100 * 156000.0;
	struct vpk_psim_result r;
	struct vpk_psim_core_stats pc[2];
	CHECK(vpk_psim_run(&c, &w, &r, pc) == 0, "run");
	CHECK(EQ(r.loss, 1 - 301000.0 / (156000.0 * 2 * 2)), "hand-off loss %.9f", r.loss);
	CHECK(EQ(r.hops_per_s, 2e9 / 156000.0), "hops/s %g", r.hops_per_s);
	CHECK(!pc[0].wide && pc[1].wide, "core order");
	CHECK(pc[0].ups == 0 && EQ(pc[0].scalar_slowed_ns, 0), "scalar core never slowed");
	CHECK(pc[1].ups == 100 && EQ(pc[1].work_cycles, 100 * 1000.0), "wide core: ups %lu work %g",
	      (unsigned long)pc[1].ups, pc[1].work_cycles);
	CHECK(EQ(pc[0].switch_ns, 100 * 2000.0) && EQ(pc[1].switch_ns, 100 * 2000.0), "switch %g %g",
	      pc[0].switch_ns, pc[1].switch_ns);

	/* Synchronous: same period, but the scalar core polls through the
	 * 2000 ns burst and the 2000 ns hop back instead of idling. */
	c.sync = true;
	CHECK(vpk_psim_run(&c, &w, &r, pc) == 0, "run sync");
	CHECK(EQ(r.loss, 1 - 301000.0 / (156000.0 * 2 * 2)), "sync loss %.9f", r.loss);
	CHECK(EQ(pc[0].switch_ns, 100 * 6000.0) && EQ(pc[0].idle_ns, 0), "sync: scalar core polls %g idle %g",
	      pc[0].switch_ns, pc[0].idle_ns);

	/* Two scalar cores, two requests, synchronous: each caller waits for its
	 * own request; asynchronous with 4 requests, a scalar core runs another
	 * request meanwhile and never idles. */
	struct vpk_psim_conf c3 = conf_for(3, 1);
	c3.switch_ns = 4000;
	c3.warmup_ns = 1e6;
	c3.duration_ns = 50e6;
	c3.sync = true;
	c3.tasks = 2;
	struct vpk_psim_result rs, ra;
	struct vpk_psim_core_stats ps[3], pa[3];
	CHECK(vpk_psim_run(&c3, &w, &rs, ps) == 0, "run sync 3");
	c3.sync = false;
	c3.dedicated = true;
	c3.tasks = 4;
	CHECK(vpk_psim_run(&c3, &w, &ra, pa) == 0, "run async 3");
	CHECK(ps[0].switch_ns > 100 * 4000.0 && ps[0].idle_ns == 0 && pa[0].idle_ns == 0 && ra.throughput > rs.throughput,
	      "sync %g req/s (poll %g ns), async %g req/s", rs.throughput, ps[0].switch_ns, ra.throughput);
}

static void
scale(struct vpk_psim_workload *w, unsigned k)
{
	for (size_t i = 0; i < w->n; i++)
		w->sec[i].cycles = w->sec[i].cycles / k ? w->sec[i].cycles / k : 1;
}

static double
loss_of(const struct vpk_psim_conf *c, const struct vpk_psim_workload *w, unsigned wide)
{
	struct vpk_psim_conf cc = *c;
	cc.wide_cores = wide;
	cc.duration_ns = 50e6;
	struct vpk_psim_result r;
	CHECK(vpk_psim_run(&cc, w, &r, NULL) == 0, "run");
	return r.loss;
}

/* The paper's shape: double-digit loss, about 70% less with 2 wide cores;
 * specialization stops paying with very frequent hand-offs or with this
 * VM's 45 us migrations; nothing to win on a CPU without licences. */
static void
test_scenario(void)
{
	struct vpk_psim_scenario sc;
	CHECK(vpk_psim_scenario_get("nginx-openssl-avx512", &sc) == 0, "scenario");
	CHECK(vpk_psim_scenario_get("nope", &sc) == -ENOENT, "unknown scenario");
	vpk_psim_scenario_get("nginx-openssl-avx512", &sc);
	double wo = loss_of(&sc.conf, &sc.work, 0), wi = loss_of(&sc.conf, &sc.work, 2);
	printf("nginx-openssl-avx512: loss_without %.4f loss_with %.4f (%.0f%% less)\n", wo, wi,
	       100 * (1 - wi / wo));
	CHECK(wo >= 0.09 && wo <= 0.15, "loss_without %.4f not in [0.09, 0.15]", wo);
	CHECK(1 - wi / wo >= 0.60 && 1 - wi / wo <= 0.90, "reduction %.3f not in [0.60, 0.90]", 1 - wi / wo);

	struct vpk_psim_conf vm = sc.conf;
	vm.switch_ns = 45000;
	double wvm = loss_of(&vm, &sc.work, 2);
	CHECK(wvm > wo, "45 us migrations should not pay: with %.4f without %.4f", wvm, wo);

	struct vpk_psim_workload fast = sc.work;
	scale(&fast, 256);
	double fwo = loss_of(&sc.conf, &fast, 0), fwi = loss_of(&sc.conf, &fast, 2);
	CHECK(fwi > fwo, "256x more hand-offs should not pay: with %.4f without %.4f", fwi, fwo);

	struct vpk_psim_conf amd = sc.conf;
	amd.cpu = *vpk_psim_cpu_find("zen4-epyc");
	double awo = loss_of(&amd, &sc.work, 0), awi = loss_of(&amd, &sc.work, 2);
	CHECK(fabs(awo) < 1e-9 && awi > 0, "no licence: without %.6f with %.6f", awo, awi);
}

static void
test_open_loop(void)
{
	/* 2 cores, requests of 300000 scalar cycles (150 us) at 4000/s: 30% busy, no loss. */
	struct vpk_psim_workload w = { .n = 1, .sec = { { VPK_PSIM_SCALAR, 300000 } }, .rate = 4000 };
	struct vpk_psim_conf c = conf_for(2, 0);
	c.duration_ns = 100e6;
	struct vpk_psim_result r;
	CHECK(vpk_psim_run(&c, &w, &r, NULL) == 0, "open run");
	CHECK(fabs(r.throughput - 4000) < 20 && fabs(r.utilisation - 0.3) < 0.01 && fabs(r.loss) < 1e-9,
	      "open: thr %g util %g loss %g", r.throughput, r.utilisation, r.loss);
}

static void
test_parse(void)
{
	const struct vpk_psim_cpu *skx = vpk_psim_cpu_find("skx-6130");
	struct vpk_psim_workload w;
	size_t at = 99;
	CHECK(skx && vpk_psim_parse_request("scalar:2.2ms,512l:22.4k,256h:1M,512h:10us,256l:100", skx, &w, &at) == 0,
	      "parse ok");
	CHECK(w.n == 5 && w.sec[0].cycles == 6160000 && w.sec[1].cycles == 22400 && w.sec[1].cls == VPK_PSIM_512_LIGHT &&
		      w.sec[2].cycles == 1000000 && w.sec[3].cycles == 28000 && w.sec[4].cls == VPK_PSIM_256_LIGHT,
	      "parsed values");
	const char *bad[] = { "", "scalar", "foo:1", "scalar:", "scalar:1x", "scalar:1,", "scalar:-5", "scalar:0", "512l:1,,scalar:2" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(vpk_psim_parse_request(bad[i], skx, &w, &at) == -EINVAL, "'%s' accepted", bad[i]);
	CHECK(vpk_psim_parse_request("scalar:1,foo:2", skx, &w, &at) == -EINVAL && at == 9, "error offset %zu", at);
	char big[2048] = "";
	for (int i = 0; i < VPK_PSIM_MAX_SECTIONS + 1; i++)
		strcat(big, i ? ",scalar:1" : "scalar:1");
	CHECK(vpk_psim_parse_request(big, skx, &w, &at) == -E2BIG, "too many sections");

	struct vpk_psim_node nodes[] = {
		{ "ethernet-input", 256, false, 10, 1000 },
		{ "ip4-input", 256, false, 6, 1000 },
		{ "ip4-lookup", 512, false, 8, 1000 },
		{ "ip4-rewrite", 512, false, 4, 500 },
		{ "error-drop", 64, false, 20, 0 },
		{ "interface-output", 128, false, 2, 500 },
	};
	CHECK(vpk_psim_workload_from_nodes(nodes, 6, 256, &w) == 0, "from nodes");
	CHECK(w.n == 3 && w.sec[0].cls == VPK_PSIM_256_LIGHT && w.sec[0].cycles == 16 * 256 &&
		      w.sec[1].cls == VPK_PSIM_512_LIGHT && w.sec[1].cycles == 8 * 256 + 2 * 256 &&
		      w.sec[2].cls == VPK_PSIM_SCALAR && w.sec[2].cycles == 256,
	      "from nodes: n %zu", w.n);
	nodes[0].width = 100;
	CHECK(vpk_psim_workload_from_nodes(nodes, 6, 256, &w) == -EINVAL, "bad width");
	nodes[0].width = 256;
	CHECK(vpk_psim_workload_from_nodes(nodes, 6, 0, &w) == -EINVAL, "frame 0");

	struct vpk_psim_conf c = conf_for(2, 2);
	struct vpk_psim_result r;
	CHECK(vpk_psim_run(&c, &w, &r, NULL) == -EINVAL, "wide_cores == cores refused");
	c = conf_for(0, 0);
	CHECK(vpk_psim_run(&c, &w, &r, NULL) == -EINVAL, "0 cores refused");
	c = conf_for(2, 0);
	c.cpu.throttle = 0;
	CHECK(vpk_psim_run(&c, &w, &r, NULL) == -EINVAL, "throttle 0 refused");
	for (size_t i = 0; vpk_psim_cpu_at(i); i++)
		CHECK(vpk_psim_cpu_find(vpk_psim_cpu_at(i)->name) == vpk_psim_cpu_at(i), "cpu table");
}

int
main(void)
{
	check_init("psim");
	test_one_burst();
	test_burst_inside();
	test_two_levels();
	test_idle();
	test_window();
	test_cores();
	test_handoff();
	test_scenario();
	test_open_loop();
	test_parse();
	return check_finish();
}
