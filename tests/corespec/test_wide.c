/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wide-core markers and call worker, on CPUs 0 (scalar) and 1 (wide): the
 * markers move the thread and back (sched_getcpu), nesting and unbalanced
 * ends are refused, vpk_wide_call runs on the wide CPU in another thread and
 * returns the result, hot and cold (futex) paths, concurrent callers, and
 * stop leaves no thread behind. Skips where CPUs 0 and 1 are not both usable.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <vpk/wide.h>
#include "lib/check.h"

static int
n_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Threads once a joined thread has left /proc: pthread_join returns when the
 * kernel clears the thread's tid, a moment before the task leaves the thread
 * group, so a loaded machine can still list it (waits up to 1 s for @want). */
static int
n_threads_settled(int want)
{
	int n = n_threads();

	for (int i = 0; i < 1000 && n != want; i++) {
		usleep(1000);
		n = n_threads();
	}
	return n;
}

static int
pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return sched_setaffinity(0, sizeof(s), &s);
}

static void
test_cores_list(void)
{
	char buf[64];
	const char *bad[] = { "", "a", "1-", "3-1", "1,,2", ",1", "1,", "99999", "-1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(vpk_wide_set_cores(bad[i]) == -EINVAL, "'%s' accepted", bad[i]);
	CHECK(vpk_wide_set_cores("1000") == -ENODEV, "CPU 1000 accepted");
	CHECK(vpk_wide_set_cores("0,2-3") == 0 && vpk_wide_get_cores(buf, sizeof(buf)) == 5 &&
		      strcmp(buf, "0,2-3") == 0,
	      "get_cores '%s'", buf);
	CHECK(vpk_wide_get_cores(buf, 3) == -ENOSPC, "short buffer");
	CHECK(vpk_wide_set_cores("1") == 0 && vpk_wide_get_cores(buf, sizeof(buf)) == 1 && strcmp(buf, "1") == 0,
	      "get_cores '%s'", buf);
}

static void
test_markers(void)
{
	for (int i = 0; i < 20; i++) {
		CHECK(sched_getcpu() == 0, "not on CPU 0 before begin");
		CHECK(vpk_wide_begin() == 0, "begin");
		CHECK(sched_getcpu() == 1, "begin: on CPU %d, want 1", sched_getcpu());
		CHECK(vpk_wide_active(), "active");
		CHECK(vpk_wide_begin() == -EBUSY, "nested begin not refused");
		CHECK(sched_getcpu() == 1, "nested begin moved the thread");
		CHECK(vpk_wide_end() == 0, "end");
		CHECK(sched_getcpu() == 0, "end: on CPU %d, want 0", sched_getcpu());
		CHECK(!vpk_wide_active(), "still active");
		CHECK(vpk_wide_end() == -EINVAL, "end without begin not refused");
	}
	cpu_set_t s;
	CHECK(sched_getaffinity(0, sizeof(s), &s) == 0 && CPU_COUNT(&s) == 1 && CPU_ISSET(0, &s),
	      "mask not restored");
}

struct probe {
	int cpu;
	pid_t tid;
};

static int
where(void *arg)
{
	struct probe *p = arg;
	p->cpu = sched_getcpu();
	p->tid = (pid_t)syscall(SYS_gettid);
	return 1000 + p->cpu;
}

static int
add_one(void *arg)
{
	++*(unsigned long *)arg;
	return 7;
}

static int
recurse(void *arg)
{
	(void)arg;
	int r;
	return vpk_wide_call(add_one, &r, &r);
}

static unsigned long shared_counter;

static void *
caller_thread(void *unused)
{
	(void)unused;
	for (int i = 0; i < 2000; i++) {
		int r = 0;
		if (vpk_wide_call(add_one, &shared_counter, &r) || r != 7)
			return (void *)1;
	}
	return NULL;
}

static void
test_call(unsigned spin_us, const char *what)
{
	int threads0 = n_threads(), r = 0;
	CHECK(vpk_wide_call(where, NULL, &r) == -ENOENT, "%s: call without worker", what);
	CHECK(vpk_wide_worker_start(spin_us) == 0, "%s: start", what);
	CHECK(vpk_wide_worker_start(spin_us) == -EALREADY, "%s: second start", what);
	CHECK(vpk_wide_set_cores("0") == -EBUSY, "%s: set_cores while running", what);
	CHECK(n_threads() == threads0 + 1, "%s: worker thread not there", what);
	struct probe p = { -1, 0 };
	CHECK(vpk_wide_call(where, &p, &r) == 0 && r == 1001 && p.cpu == 1 && p.tid != (pid_t)syscall(SYS_gettid),
	      "%s: ran on CPU %d (ret %d)", what, p.cpu, r);
	CHECK(vpk_wide_call(NULL, NULL, &r) == -EINVAL, "%s: NULL fn", what);
	CHECK(vpk_wide_call(recurse, NULL, &r) == 0 && r == -EDEADLK, "%s: call from the worker: %d", what, r);
	unsigned long count = 0;
	unsigned n = spin_us ? 20000 : 200;
	for (unsigned i = 0; i < n; i++)
		if (vpk_wide_call(add_one, &count, NULL))
			break;
	CHECK(count == n, "%s: %lu of %u calls ran", what, count, n);
	if (spin_us) {
		/* The main thread moves off CPU 0 for this so that both callers
		 * and the worker share the two CPUs. */
		pthread_t t[2];
		shared_counter = 0;
		for (int i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, caller_thread, NULL);
		void *rv[2];
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], &rv[i]);
		CHECK(!rv[0] && !rv[1] && shared_counter == 4000, "concurrent callers: %lu", shared_counter);
	}
	CHECK(vpk_wide_worker_stop() == 0, "%s: stop", what);
	CHECK(vpk_wide_worker_stop() == -EINVAL, "%s: second stop", what);
	CHECK(vpk_wide_call(where, &p, &r) == -ENOENT, "%s: call after stop", what);
	int threads1 = n_threads_settled(threads0);
	CHECK(threads1 == threads0, "%s: %d threads after stop, %d before", what, threads1, threads0);
}

int
main(void)
{
	check_init("wide");
	cpu_set_t s;
	if (sched_getaffinity(0, sizeof(s), &s) || !CPU_ISSET(0, &s) || !CPU_ISSET(1, &s)) {
		check_skip_all("needs CPUs 0 and 1");
		return check_finish();
	}
	CHECK(vpk_wide_begin() == -ENOENT, "begin without wide cores");
	CHECK(vpk_wide_worker_start(0) == -ENOENT, "worker without wide cores");
	test_cores_list();
	if (pin(0)) {
		check_skip_all("cannot pin to CPU 0");
		return check_finish();
	}
	test_markers();
	test_call(100, "hot");
	test_call(0, "cold");
	return check_finish();
}
