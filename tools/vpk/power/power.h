/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_POWER_H
#define VPK_TOOL_POWER_H

/* `vpk power --probe` (power_probe.c), used by cmd_power.c. */
#include <stdbool.h>
#include <stdint.h>

#define POWER_PROBE_KINDS    3         /* 512 heavy, 512 light, 256 heavy */
#define POWER_PROBE_MAX_RUNS 256

struct power_probe_cfg {
	int runs;               /* trial pairs per burst kind, 1..POWER_PROBE_MAX_RUNS */
	double rest_us;         /* scalar spin before each trial (default 6000) */
	double burst_us;        /* burst / control length (default 50) */
	double window_a_us;     /* first timed window (default 20) */
	double window_b_us;     /* second timed window (default 500) */
};

struct power_probe_kind {
	const char *name;       /* "512_heavy", ... */
	const char *what;       /* the instructions of the burst */
	bool ran;
	const char *why;        /* when not run */
	/* control time / time after the burst: 1.0 = no slowdown */
	double a_median, a_min, a_max;  /* window A (first ~20 us) */
	double b_median, b_min, b_max;  /* window B (next ~500 us) */
};

struct power_probe_result {
	int cpu;                /* the core the probe ran on */
	double tsc_hz;
	double chain_ghz;       /* imul-chain clock estimate at rest (informative only) */
	struct power_probe_kind kind[POWER_PROBE_KINDS];
};

/* Run the probe; 0, or -1 for a bad configuration. */
int power_probe_run(const struct power_probe_cfg *cfg, struct power_probe_result *res);

#endif
