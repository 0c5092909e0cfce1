/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk_wide_call(): run a function on a worker thread pinned to a wide core
 * and wait for it. research/power.md s.5.1 measured, on this VM, ~0.6 us for
 * a busy-polled hand-off round trip against ~45 us for a migration pair and
 * ~24 us for a futex wake-up; so both sides poll first and sleep only after
 * a while.
 *
 * The mailbox: one request slot, single producer (callers are serialised by
 * call_lock) and single consumer (the worker). Two sequence numbers, each on
 * its own cache line and each a futex word:
 *
 *   caller                         worker
 *   fn, arg = ...                  wait until req != seen   (spin, then futex)
 *   req = s       (seq_cst) ---->  fn(arg); ret = ...
 *   wake worker if it sleeps       done = s      (seq_cst)
 *   wait until done == s  <------  wake caller if it sleeps
 *
 * Lost wake-ups: a sleeper sets its "sleeping" flag, re-reads the sequence,
 * and only then calls FUTEX_WAIT with the value it read (the kernel checks
 * it again atomically); the waker writes the sequence, then reads the flag.
 * With seq_cst on both sides at least one of them sees the other's write.
 */
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <vpk/wide.h>
#include "corespec/wide_priv.h"

/* A caller polls this long for the result before it sleeps. */
#define CALLER_SPIN_NS 200000

struct mailbox {
	_Alignas(64) _Atomic uint32_t req;
	vpk_wide_fn fn;
	void *arg;
	_Atomic uint32_t worker_sleeping;
	_Alignas(64) _Atomic uint32_t done;
	int ret;
	_Atomic uint32_t caller_sleeping;
};

static struct mailbox mb;
static pthread_mutex_t call_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t worker;
static _Atomic bool stopping;
static _Atomic bool up;
static uint64_t worker_spin_ns;
static uint32_t worker_seen0;
bool vpk_wide_worker_running;

static void
fx_wait(_Atomic uint32_t *w, uint32_t v)
{
	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}

static void
fx_wake(_Atomic uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static uint64_t
now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void
cpu_relax(void)
{
	__builtin_ia32_pause();
}

/* Wait until *w != v: poll for spin_ns, then sleep. Returns the new value. */
static uint32_t
wait_change(_Atomic uint32_t *w, uint32_t v, _Atomic uint32_t *sleeping, uint64_t spin_ns,
	    const _Atomic bool *stop)
{
	uint64_t t0 = 0;
	for (unsigned i = 0;; i++) {
		uint32_t cur = atomic_load_explicit(w, memory_order_acquire);
		if (cur != v || (stop && atomic_load(stop)))
			return cur;
		if ((i & 63) == 0) {
			uint64_t t = now_ns();
			if (!t0)
				t0 = t;
			if (t - t0 >= spin_ns) {
				atomic_store(sleeping, 1);
				if (atomic_load(w) == v && !(stop && atomic_load(stop)))
					fx_wait(w, v);
				atomic_store(sleeping, 0);
				t0 = 0;
				continue;
			}
		}
		cpu_relax();
	}
}

static void *
worker_main(void *unused)
{
	(void)unused;
	uint32_t seen = worker_seen0; /* read before the thread existed: a call may come first */
	for (;;) {
		uint32_t r = wait_change(&mb.req, seen, &mb.worker_sleeping, worker_spin_ns, &stopping);
		if (atomic_load(&stopping))
			break;
		seen = r;
		mb.ret = mb.fn(mb.arg);
		atomic_store(&mb.done, r);
		if (atomic_load(&mb.caller_sleeping))
			fx_wake(&mb.done);
	}
	return NULL;
}

int
vpk_wide_worker_start(unsigned spin_us)
{
	pthread_mutex_lock(&vpk_wide_lock);
	int rc = 0;
	if (vpk_wide_worker_running) {
		rc = -EALREADY;
		goto out;
	}
	int cpu = vpk_wide_first_cpu_locked();
	if (cpu < 0) {
		rc = cpu;
		goto out;
	}
	pthread_attr_t attr;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_attr_init(&attr);
	rc = -pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	worker_spin_ns = (uint64_t)spin_us * 1000u;
	atomic_store(&stopping, false);
	worker_seen0 = atomic_load(&mb.req);
	atomic_store(&mb.done, worker_seen0);
	if (!rc)
		rc = -pthread_create(&worker, &attr, worker_main, NULL);
	pthread_attr_destroy(&attr);
	if (!rc) {
		vpk_wide_worker_running = true;
		atomic_store(&up, true);
	}
out:
	pthread_mutex_unlock(&vpk_wide_lock);
	return rc;
}

int
vpk_wide_worker_stop(void)
{
	pthread_mutex_lock(&vpk_wide_lock);
	if (!vpk_wide_worker_running) {
		pthread_mutex_unlock(&vpk_wide_lock);
		return -EINVAL;
	}
	pthread_mutex_lock(&call_lock); /* no call in flight from here on */
	atomic_store(&up, false);
	atomic_store(&stopping, true);
	/* Bump the sequence too: a worker about to sleep on the old value
	 * then returns from FUTEX_WAIT at once. It sees `stopping` first. */
	atomic_fetch_add(&mb.req, 1);
	fx_wake(&mb.req);
	pthread_join(worker, NULL);
	vpk_wide_worker_running = false;
	pthread_mutex_unlock(&call_lock);
	pthread_mutex_unlock(&vpk_wide_lock);
	return 0;
}

int
vpk_wide_call(vpk_wide_fn fn, void *arg, int *ret)
{
	if (!fn)
		return -EINVAL;
	if (!atomic_load(&up))
		return -ENOENT;
	if (pthread_equal(pthread_self(), worker))
		return -EDEADLK;
	pthread_mutex_lock(&call_lock);
	if (!atomic_load(&up)) {
		pthread_mutex_unlock(&call_lock);
		return -ENOENT;
	}
	mb.fn = fn;
	mb.arg = arg;
	uint32_t s = atomic_load_explicit(&mb.req, memory_order_relaxed) + 1;
	atomic_store(&mb.req, s);
	if (atomic_load(&mb.worker_sleeping))
		fx_wake(&mb.req);
	uint32_t d = atomic_load(&mb.done);
	while (d != s)
		d = wait_change(&mb.done, d, &mb.caller_sleeping, CALLER_SPIN_NS, NULL);
	if (ret)
		*ret = mb.ret;
	pthread_mutex_unlock(&call_lock);
	return 0;
}
