/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * powersim: one core's licence state machine. Each operation walks from the
 * core's clock to the end of the operation through the licence events that
 * fall inside it:
 *
 *  - GRANT at pend_end: the core halts halt_ns and then holds the requested
 *    level. Until then everything it runs (scalar code too: Downs saw the
 *    throttle hit scalar instructions near the wide ones) runs at the old
 *    frequency times `throttle`.
 *  - DROP at last[lvl] + hyst_ns, when the running code needs less than
 *    lvl: the core halts halt_ns and drops straight to the highest level
 *    still needed (the running code's, or a lower one still inside its own
 *    hysteresis), one frequency change.
 *
 * Within an interval without events the rate is constant, so time and work
 * follow by one division: exact on the hand-computed timelines of the tests.
 */
#include <math.h>
#include <string.h>

#include "power/psim_core.h"

enum kind { K_WORK, K_SWITCH, K_IDLE };

void
psim_core_init(struct psim_core *c, const struct vpk_psim_cpu *cpu, double win0, double win1)
{
	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	c->win0 = win0;
	c->win1 = win1;
	for (int l = 0; l < VPK_PSIM_LEVELS; l++)
		c->last[l] = -INFINITY;
}

static bool
in_window(const struct psim_core *c, double t)
{
	return t >= c->win0 && t < c->win1;
}

/* Account [t0, t1) spent in @kind; @halted: the core was halted. */
static void
account(struct psim_core *c, double t0, double t1, enum kind kind, int need, bool halted)
{
	double a = t0 > c->win0 ? t0 : c->win0;
	double b = t1 < c->win1 ? t1 : c->win1;
	if (!(b > a))
		return;
	double dt = b - a;
	const struct vpk_psim_cpu *cpu = c->cpu;
	if (kind == K_IDLE) {
		c->st.idle_ns += dt;
		return;
	}
	if (halted)
		c->st.halt_ns += dt;
	else if (kind == K_SWITCH)
		c->st.switch_ns += dt;
	else if (c->pend)
		c->st.throttle_ns += dt;
	else
		c->st.run_ns[c->lvl] += dt;
	if (kind == K_WORK && !halted) {
		double rate = cpu->ghz[c->lvl] * (c->pend ? cpu->throttle : 1.0);
		c->st.work_cycles += rate * dt;
	}
	if (!halted)
		c->fsum += cpu->ghz[c->lvl] * dt; /* avg_ghz: over run + throttle + switch time */
	if (kind == K_WORK && need == 0) {
		c->st.scalar_ns += dt;
		if (halted || c->pend || cpu->ghz[c->lvl] < cpu->ghz[0])
			c->st.scalar_slowed_ns += dt;
	}
}

/* The next licence event after or at the clock, given running code needs @need. */
static double
next_event(const struct psim_core *c, int need, bool *grant)
{
	if (c->pend) {
		*grant = true;
		return c->pend_end;
	}
	*grant = false;
	if (c->lvl > need)
		return c->last[c->lvl] + c->cpu->hyst_ns;
	return INFINITY;
}

static void
do_event(struct psim_core *c, bool grant, enum kind kind, int need)
{
	double h = c->cpu->halt_ns;
	int target;
	if (grant) {
		target = c->pend > c->lvl ? c->pend : c->lvl;
		c->pend = 0;
		if (in_window(c, c->t))
			c->st.ups++;
	} else {
		target = need;
		for (int l = c->lvl - 1; l > need; l--)
			if (c->last[l] + c->cpu->hyst_ns > c->t) {
				target = l;
				break;
			}
		if (in_window(c, c->t))
			c->st.downs++;
	}
	account(c, c->t, c->t + h, kind, need, true);
	c->t += h;
	c->lvl = target;
}

/*
 * Advance through work (@cycles > 0, K_WORK) or until @until (other kinds).
 */
static void
advance(struct psim_core *c, double cycles, double until, enum kind kind, int need)
{
	const struct vpk_psim_cpu *cpu = c->cpu;
	if (kind == K_WORK && need > c->lvl && c->pend < need) {
		if (!c->pend)
			c->pend_end = c->t + cpu->volt_ns;
		c->pend = need;
	}
	for (;;) {
		if (kind == K_WORK ? !(cycles > 0) : c->t >= until)
			break;
		bool grant;
		double ev = next_event(c, need, &grant);
		if (ev <= c->t) {
			do_event(c, grant, kind, need);
			continue;
		}
		double rate = cpu->ghz[c->lvl] * (c->pend ? cpu->throttle : 1.0);
		double t_done = kind == K_WORK ? c->t + cycles / rate : until;
		if (t_done <= ev) {
			account(c, c->t, t_done, kind, need, false);
			c->t = t_done;
			cycles = 0;
			break;
		}
		account(c, c->t, ev, kind, need, false);
		if (kind == K_WORK)
			cycles -= (ev - c->t) * rate;
		c->t = ev;
		do_event(c, grant, kind, need);
	}
	if (kind == K_WORK)
		for (int l = 1; l <= need; l++)
			c->last[l] = c->t;
}

void
psim_core_run(struct psim_core *c, double cycles, int need)
{
	advance(c, cycles, 0, K_WORK, need);
}

void
psim_core_switch(struct psim_core *c, double ns)
{
	if (ns > 0)
		advance(c, 0, c->t + ns, K_SWITCH, 0);
}

void
psim_core_spin_until(struct psim_core *c, double t)
{
	if (t > c->t)
		advance(c, 0, t, K_SWITCH, 0);
}

void
psim_core_idle_until(struct psim_core *c, double t)
{
	if (t > c->t)
		advance(c, 0, t, K_IDLE, 0);
}

void
psim_core_finish(struct psim_core *c)
{
	double running = c->st.run_ns[0] + c->st.run_ns[1] + c->st.run_ns[2] + c->st.throttle_ns +
			 c->st.switch_ns;
	c->st.avg_ghz = running > 0 ? c->fsum / running : c->cpu->ghz[0];
}
