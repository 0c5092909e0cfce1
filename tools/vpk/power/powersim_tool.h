/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_POWERSIM_H
#define VPK_TOOL_POWERSIM_H
/* vpk powersim, in one direction: cmd_powersim.c (options) calls psim_main()
 * in powersim_input.c (the configuration from a scenario, a request or a
 * runtime dump), which calls powersim_report.c (runs and reports). */
#include <stdbool.h>
#include "power/powersim.h"
#include "common/json.h"

struct psim_args {
	const char *scenario, *request, *runtime, *cpu;
	long cores, wide, tasks, frame, confine;
	double rate, switch_ns, duration_ms;
	double ghz[VPK_PSIM_LEVELS], ramp_us, throttle, halt_us, hyst_us; /* CPU overrides, < 0: keep */
	bool have_ghz;
	bool dedicated, sync, per_core;
	unsigned ks[32];
	int nk;
};

struct psim_pair {
	struct vpk_psim_result without, with;
	bool have_with;
	struct vpk_psim_core_stats pc_without[VPK_PSIM_MAX_CORES], pc_with[VPK_PSIM_MAX_CORES];
};

/* Extra report lines (--from-runtime). */
struct psim_extra {
	void (*text)(const struct psim_extra *x, const struct psim_pair *p);
	void (*json)(struct json *j, const struct psim_extra *x, const struct psim_pair *p);
	void *ctx;
};

int psim_main(const struct psim_args *a);
int psim_pair(const struct vpk_psim_conf *conf, const struct vpk_psim_workload *w, struct psim_pair *p);
int psim_report(const char *title, const struct vpk_psim_conf *conf, const struct vpk_psim_workload *w,
		bool per_core, const unsigned *ks, int nk, const struct psim_extra *extra);
void psim_json_conf(struct json *j, const struct vpk_psim_conf *c, const struct vpk_psim_workload *w);

#endif
