/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_CORESPEC_PSIM_CORE_H
#define VPK_CORESPEC_PSIM_CORE_H

/*
 * One core's frequency-licence state machine (power/powersim.h has the
 * model). Time is in ns (double), work in cycles; a GHz figure is cycles per
 * ns. The core has its own clock `t`; every operation advances it and
 * accounts the time it covers, clipped to the measuring window [win0, win1).
 *
 *   level 0 ──code needs 1──> [ramp: f0 x throttle, volt_ns] ─> [halt] ─> level 1
 *   level 1 ──no level-1 code for hyst_ns──> [halt] ─> level 0
 *
 * The system simulation (psim_sys.c) and the unit tests drive it directly.
 */
#include <stdint.h>
#include "power/powersim.h"

struct psim_core {
	const struct vpk_psim_cpu *cpu;
	double t;                       /* this core's clock */
	int lvl;                        /* licence held */
	int pend;                       /* level requested and not granted yet, 0 = none */
	double pend_end;                /* when the ramp ends (then halt, then level) */
	double last[VPK_PSIM_LEVELS];   /* last[l]: last retire of code needing >= l */
	double win0, win1;              /* measuring window */
	double fsum;                    /* sum of f x dt while running */
	struct vpk_psim_core_stats st;
};

void psim_core_init(struct psim_core *c, const struct vpk_psim_cpu *cpu, double win0, double win1);
/* Run @cycles of section work needing licence @need (0..2). */
void psim_core_run(struct psim_core *c, double cycles, int need);
/* Spend @ns on a hop (hand-off/migration code: scalar, no section work). */
void psim_core_switch(struct psim_core *c, double ns);
/* Busy-wait until @t (a caller polling for a synchronous hand-off): counted
 * as hop time, not idle. */
void psim_core_spin_until(struct psim_core *c, double t);
/* Idle until @t (no-op if the clock is already there). Licence events still
 * happen; a halt that starts before @t may end after it. */
void psim_core_idle_until(struct psim_core *c, double t);
/* Final figures (avg_ghz) into c->st. */
void psim_core_finish(struct psim_core *c);

#endif
