/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * powersim: the system model. Cores (psim_core.c) run requests made of
 * segments: runs of consecutive sections with the same placement (scalar
 * core or wide core). Requests are tasks that wait in a queue by ready time;
 * an idle core takes the earliest ready task it may run:
 *
 *   scalar core: scalar segments only (without wide cores: everything)
 *   wide core:   wide segments first, then (unless dedicated) scalar ones
 *
 * A core runs a segment to its end (no preemption), then continues with the
 * task's next segment if it has the same placement (run to completion, as a
 * worker or an nginx process does). Otherwise the task hops: the core spends
 * switch_ns / 2 on the hand-off or migration and the task is queued for the
 * other kind of core. With conf->sync the scalar core then waits (polls) for
 * that task to come back and takes nothing else: a vpk_wide_call() caller.
 * Closed loop: `tasks` requests circulate, a finished one
 * starts again at once. Open loop: requests arrive every 1 / rate seconds.
 *
 * Events are processed in time order by scanning the cores and the tasks
 * (O(cores + tasks) per event): the scenarios have tens of cores and at most
 * a few thousand tasks, and a 200 ms run of the nginx scenario takes ~10 ms.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "power/psim_core.h"

enum { T_FREE, T_QUEUED, T_RUNNING };

struct task {
	uint32_t seg;           /* current segment */
	uint32_t sec;           /* section within the workload (preempted tasks resume here) */
	double done;            /* cycles of that section already run */
	uint8_t state;
	int32_t home;           /* sync: the scalar core waiting for it, or -1 */
	double ready;
};

/* A wide core runs scalar work in slices of this many ns at L0 and checks for
 * waiting wide work between slices: the KIT scheduler preempts a scalar task
 * on an AVX core when an AVX task arrives (by IPI); 50 us bounds that delay. */
#define SLICE_NS 50e3

struct seg {
	uint32_t first, n;
	bool wide;
};

struct core {
	struct psim_core lic;
	bool wide, busy;
	bool blocked;           /* sync: waiting for `task` to come back */
	uint32_t task;
};

struct sim {
	const struct vpk_psim_conf *conf;
	const struct vpk_psim_workload *w;
	struct seg segs[VPK_PSIM_MAX_SECTIONS];
	uint32_t n_segs;
	struct core *cores;
	struct task *tasks;
	uint32_t n_tasks;
	double win0, win1;
	uint64_t dropped;
};

static int
check_conf(const struct vpk_psim_conf *c, const struct vpk_psim_workload *w)
{
	const struct vpk_psim_cpu *cpu = &c->cpu;
	if (c->cores == 0 || c->cores > VPK_PSIM_MAX_CORES || c->wide_cores >= c->cores)
		return -EINVAL;
	if (c->confine >= VPK_PSIM_N_CLASSES || c->tasks > VPK_PSIM_MAX_TASKS)
		return -EINVAL;
	if (!(c->switch_ns >= 0) || !(c->duration_ns >= 0) || !(c->warmup_ns >= 0) ||
	    !isfinite(c->switch_ns) || !isfinite(c->duration_ns) || !isfinite(c->warmup_ns))
		return -EINVAL;
	for (int l = 0; l < VPK_PSIM_LEVELS; l++)
		if (!(cpu->ghz[l] > 0) || !isfinite(cpu->ghz[l]))
			return -EINVAL;
	for (int k = 0; k < VPK_PSIM_N_CLASSES; k++)
		if (cpu->level_of[k] >= VPK_PSIM_LEVELS)
			return -EINVAL;
	if (!(cpu->throttle > 0 && cpu->throttle <= 1) || !(cpu->volt_ns >= 0) ||
	    !(cpu->halt_ns >= 0) || !(cpu->hyst_ns >= 0) || !isfinite(cpu->volt_ns) ||
	    !isfinite(cpu->halt_ns) || !isfinite(cpu->hyst_ns))
		return -EINVAL;
	if (!w || w->n == 0 || w->n > VPK_PSIM_MAX_SECTIONS || !(w->rate >= 0) || !(w->rate <= 1e9))
		return -EINVAL;
	for (size_t i = 0; i < w->n; i++)
		if (w->sec[i].cls >= VPK_PSIM_N_CLASSES || w->sec[i].cycles == 0)
			return -EINVAL;
	return 0;
}

static void
build_segments(struct sim *s)
{
	const struct vpk_psim_conf *c = s->conf;
	uint8_t confine = c->confine ? c->confine : VPK_PSIM_512_LIGHT;
	s->n_segs = 0;
	for (uint32_t i = 0; i < s->w->n; i++) {
		bool wide = c->wide_cores > 0 && s->w->sec[i].cls >= confine;
		if (s->n_segs && s->segs[s->n_segs - 1].wide == wide) {
			s->segs[s->n_segs - 1].n++;
			continue;
		}
		s->segs[s->n_segs++] = (struct seg){ i, 1, wide };
	}
}

/* Earliest-ready queued task core @ci may take at @now, or -1. */
static long
pick(const struct sim *s, uint32_t ci, double now)
{
	const struct core *co = &s->cores[ci];
	long best = -1, best_sc = -1;
	if (co->blocked) {
		const struct task *t = &s->tasks[co->task];
		return t->state == T_QUEUED && t->ready <= now && !s->segs[t->seg].wide ? (long)co->task : -1;
	}
	for (uint32_t i = 0; i < s->n_tasks; i++) {
		const struct task *t = &s->tasks[i];
		if (t->state != T_QUEUED || t->ready > now)
			continue;
		if (t->home >= 0 && (co->wide ? !s->segs[t->seg].wide : t->home != (int32_t)ci))
			continue; /* a waiting caller's request goes back to that caller */
		bool wide = s->segs[t->seg].wide;
		if (wide && co->wide) {
			if (best < 0 || t->ready < s->tasks[best].ready)
				best = i;
		} else if (!wide) {
			if (best_sc < 0 || t->ready < s->tasks[best_sc].ready)
				best_sc = i;
		}
	}
	if (best >= 0)
		return best;
	if (co->wide && (s->conf->dedicated || s->conf->sync))
		return -1;
	return best_sc;
}

/* Run task @ti's current segment on core @ci from @now. */
static void
start(struct sim *s, uint32_t ci, uint32_t ti, double now)
{
	struct core *co = &s->cores[ci];
	struct task *t = &s->tasks[ti];
	if (co->blocked) {
		psim_core_spin_until(&co->lic, now);
		co->blocked = false;
		t->home = -1;
	}
	psim_core_idle_until(&co->lic, now);
	const struct seg *g = &s->segs[t->seg];
	/* Scalar work on a wide core runs in slices (preemptible). */
	double budget = co->wide && !g->wide ? SLICE_NS * s->conf->cpu.ghz[0] : INFINITY;
	if (t->sec < g->first || t->sec >= g->first + g->n) {
		t->sec = g->first;
		t->done = 0;
	}
	while (t->sec < g->first + g->n && budget > 0) {
		const struct vpk_psim_section *sec = &s->w->sec[t->sec];
		double left = (double)sec->cycles - t->done;
		double now_c = left < budget ? left : budget;
		psim_core_run(&co->lic, now_c, s->conf->cpu.level_of[sec->cls]);
		budget -= now_c;
		t->done += now_c;
		if (t->done >= (double)sec->cycles) {
			t->sec++;
			t->done = 0;
		}
	}
	co->busy = true;
	co->task = ti;
	t->state = T_RUNNING;
}

/* Core @ci finished its segment (its clock is the finish time). */
static void
complete(struct sim *s, uint32_t ci)
{
	struct core *co = &s->cores[ci];
	struct task *t = &s->tasks[co->task];
	const struct seg *g = &s->segs[t->seg];
	bool was_wide = g->wide;
	if (t->sec < g->first + g->n) {
		/* A slice of scalar work on a wide core ended: go on unless wide
		 * work waits, which preempts it (a migration: it costs a hop). */
		bool waiting = false;
		for (uint32_t i = 0; i < s->n_tasks && !waiting; i++)
			waiting = s->tasks[i].state == T_QUEUED && s->segs[s->tasks[i].seg].wide &&
				  s->tasks[i].ready <= co->lic.t;
		if (!waiting) {
			start(s, ci, co->task, co->lic.t);
			return;
		}
		if (co->lic.t >= s->win0 && co->lic.t < s->win1)
			co->lic.st.hops++;
		psim_core_switch(&co->lic, s->conf->switch_ns / 2);
		t->state = T_QUEUED;
		t->ready = co->lic.t;
		co->busy = false;
		return;
	}
	uint32_t next = t->seg + 1;
	if (next == s->n_segs) {
		next = 0;
		if (s->w->rate > 0) { /* open loop: the request is done */
			if (t->home >= 0) { /* its caller stops waiting */
				struct core *h = &s->cores[t->home];
				psim_core_spin_until(&h->lic, co->lic.t);
				h->blocked = false;
				t->home = -1;
			}
			t->state = T_FREE;
			co->busy = false;
			return;
		}
	}
	t->seg = next;
	if (s->segs[next].wide == was_wide) {
		start(s, ci, co->task, co->lic.t);
		return;
	}
	double at = co->lic.t;
	if (at >= s->win0 && at < s->win1)
		co->lic.st.hops++;
	psim_core_switch(&co->lic, s->conf->switch_ns / 2);
	t->state = T_QUEUED;
	t->ready = co->lic.t;
	co->busy = false;
	if (s->conf->sync && !co->wide) {
		co->blocked = true; /* polls until the request comes back */
		t->home = (int32_t)ci;
	}
}

static int
simulate(struct sim *s, double rate)
{
	const struct vpk_psim_conf *c = s->conf;
	uint32_t n = c->cores;
	double end = s->win1;
	double period = rate > 0 ? 1e9 / rate : INFINITY;
	double next_arr = rate > 0 ? 0 : INFINITY;
	double now = 0;
	for (;;) {
		while (next_arr <= now) {
			long fi = -1;
			for (uint32_t i = 0; i < s->n_tasks && fi < 0; i++)
				if (s->tasks[i].state == T_FREE)
					fi = i;
			if (fi < 0) {
				if (next_arr >= s->win0)
					s->dropped++;
			} else {
				s->tasks[fi] = (struct task){ .state = T_QUEUED, .home = -1, .ready = next_arr };
			}
			next_arr += period;
		}
		/* Wide cores pick first so that they take the wide work. */
		for (uint32_t k = 0; k < n; k++) {
			uint32_t ci = (k + n - c->wide_cores) % n;
			if (s->cores[ci].busy)
				continue;
			long ti = pick(s, ci, now);
			if (ti >= 0)
				start(s, ci, (uint32_t)ti, now);
		}
		double next = end;
		for (uint32_t i = 0; i < n; i++)
			if (s->cores[i].busy && s->cores[i].lic.t < next)
				next = s->cores[i].lic.t;
		for (uint32_t i = 0; i < s->n_tasks; i++)
			if (s->tasks[i].state == T_QUEUED && s->tasks[i].ready > now && s->tasks[i].ready < next)
				next = s->tasks[i].ready;
		if (next_arr < next)
			next = next_arr;
		if (next >= end)
			break;
		now = next;
		for (uint32_t i = 0; i < n; i++)
			if (s->cores[i].busy && s->cores[i].lic.t <= now)
				complete(s, i);
	}
	for (uint32_t i = 0; i < n; i++) {
		if (s->cores[i].blocked)
			psim_core_spin_until(&s->cores[i].lic, end);
		psim_core_idle_until(&s->cores[i].lic, end);
	}
	return 0;
}

int
vpk_psim_run(const struct vpk_psim_conf *conf, const struct vpk_psim_workload *w,
	     struct vpk_psim_result *res, struct vpk_psim_core_stats *per_core)
{
	if (!conf || !res)
		return -EINVAL;
	int rc = check_conf(conf, w);
	if (rc)
		return rc;
	struct sim s = { .conf = conf, .w = w };
	double dur = conf->duration_ns > 0 ? conf->duration_ns : 200e6;
	double warm = conf->warmup_ns > 0 ? conf->warmup_ns : fmax(5 * conf->cpu.hyst_ns, 1e6);
	s.win0 = warm;
	s.win1 = warm + dur;
	build_segments(&s);
	bool open = w->rate > 0;
	s.n_tasks = conf->tasks ? conf->tasks : open ? 4096 : 4 * conf->cores;
	s.cores = calloc(conf->cores, sizeof(*s.cores));
	s.tasks = calloc(s.n_tasks, sizeof(*s.tasks));
	if (!s.cores || !s.tasks) {
		free(s.cores);
		free(s.tasks);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < conf->cores; i++) {
		psim_core_init(&s.cores[i].lic, &conf->cpu, s.win0, s.win1);
		s.cores[i].wide = i >= conf->cores - conf->wide_cores;
	}
	/* Closed loop: all tasks queued at 0. Open loop: free slots for arrivals. */
	for (uint32_t i = 0; i < s.n_tasks; i++)
		s.tasks[i] = (struct task){ .state = open ? T_FREE : T_QUEUED, .home = -1 };
	simulate(&s, open ? w->rate : 0);

	memset(res, 0, sizeof(*res));
	double cpr = 0;
	for (size_t i = 0; i < w->n; i++)
		cpr += (double)w->sec[i].cycles;
	double work = 0, busy = 0, run = 0, fsum = 0, sc = 0, scs = 0;
	uint64_t hops = 0;
	for (uint32_t i = 0; i < conf->cores; i++) {
		struct psim_core *c = &s.cores[i].lic;
		psim_core_finish(c);
		c->st.wide = s.cores[i].wide;
		work += c->st.work_cycles;
		busy += dur - c->st.idle_ns;
		double r = c->st.run_ns[0] + c->st.run_ns[1] + c->st.run_ns[2] + c->st.throttle_ns +
			   c->st.switch_ns;
		run += r;
		fsum += c->fsum;
		sc += c->st.scalar_ns;
		scs += c->st.scalar_slowed_ns;
		hops += c->st.hops;
		if (per_core)
			per_core[i] = c->st;
	}
	double f0 = conf->cpu.ghz[0];
	res->window_ns = dur;
	res->throughput = work / cpr / (dur * 1e-9);
	res->utilisation = busy / (dur * conf->cores);
	if (open) {
		res->ideal_throughput = w->rate;
		res->loss = busy > 0 ? 1 - (work / f0) / busy : 0;
	} else {
		res->ideal_throughput = conf->cores * f0 * 1e9 / cpr;
		res->loss = 1 - res->throughput / res->ideal_throughput;
	}
	if (fabs(res->loss) < 1e-12) /* rounding of 1 - x when nothing was lost */
		res->loss = 0;
	res->avg_ghz = run > 0 ? fsum / run : f0;
	res->scalar_slowed_share = sc > 0 ? scs / sc : 0;
	res->hops_per_s = hops / (dur * 1e-9);
	res->dropped = s.dropped;
	free(s.cores);
	free(s.tasks);
	return 0;
}
