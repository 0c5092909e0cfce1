/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wide cores: the process-wide set of CPUs that run 512-bit code, and the
 * region markers vpk_wide_begin()/vpk_wide_end() that move the calling thread
 * onto that set and back (the user-space form of the KIT prototype's
 * with_avx()/without_avx() system calls: Gottschlag & Bellosa, arXiv
 * 1901.04982, s.3). Linux migrates the caller before sched_setaffinity()
 * returns, so the code after vpk_wide_begin() already runs on a wide core.
 *
 * Per thread: an "inside" flag and the mask to restore (thread-local; a
 * cpu_set_t is 128 bytes). Regions do not nest: a nested begin is refused
 * with -EBUSY rather than counted, because the inner end would otherwise
 * have to guess which mask to restore.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>

#include <vpk/wide.h>
#include "core/num.h"
#include "corespec/wide_priv.h"

pthread_mutex_t vpk_wide_lock = PTHREAD_MUTEX_INITIALIZER;
static cpu_set_t g_wide;
static bool g_have;

static _Thread_local bool t_inside;
static _Thread_local cpu_set_t t_saved;

/* A copy of the wide cores taken under the lock; false if none are set. */
static bool
wide_cores(cpu_set_t *set)
{
	bool have;

	pthread_mutex_lock(&vpk_wide_lock);
	*set = g_wide;
	have = g_have;
	pthread_mutex_unlock(&vpk_wide_lock);
	return have;
}

/* "0,2-3" -> set. -EINVAL on syntax, an empty list or a CPU >= CPU_SETSIZE. */
static int
parse_cpus(const char *s, cpu_set_t *set)
{
	unsigned cpus[CPU_SETSIZE];
	int n = vpk_num_ranges(s, CPU_SETSIZE - 1, cpus, CPU_SETSIZE, NULL, 0);

	CPU_ZERO(set);
	if (n < 0)
		return -EINVAL;
	for (int i = 0; i < n; i++)
		CPU_SET(cpus[i], set);
	return 0;
}

int
vpk_wide_set_cores(const char *cpus)
{
	cpu_set_t set;
	int rc = parse_cpus(cpus, &set);
	if (rc)
		return rc;
	int n = get_nprocs_conf();
	bool any = false;
	for (int c = 0; c < n && c < CPU_SETSIZE; c++)
		any |= CPU_ISSET(c, &set);
	if (!any)
		return -ENODEV;
	pthread_mutex_lock(&vpk_wide_lock);
	if (vpk_wide_worker_running) {
		pthread_mutex_unlock(&vpk_wide_lock);
		return -EBUSY;
	}
	g_wide = set;
	g_have = true;
	pthread_mutex_unlock(&vpk_wide_lock);
	return 0;
}

int
vpk_wide_get_cores(char *buf, size_t len)
{
	cpu_set_t set;

	if (!wide_cores(&set))
		return -ENOENT;
	char tmp[8192];
	size_t n = 0;
	tmp[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		int d = c;
		while (d + 1 < CPU_SETSIZE && CPU_ISSET(d + 1, &set))
			d++;
		n += (size_t)snprintf(tmp + n, sizeof(tmp) - n, d > c ? "%s%d-%d" : "%s%d", n ? "," : "", c, d);
		c = d;
	}
	if (n + 1 > len)
		return -ENOSPC;
	memcpy(buf, tmp, n + 1);
	return (int)n;
}

int
vpk_wide_first_cpu_locked(void)
{
	if (!g_have)
		return -ENOENT;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &g_wide))
			return c;
	return -ENOENT;
}

int
vpk_wide_begin(void)
{
	cpu_set_t set;

	if (t_inside)
		return -EBUSY;
	if (!wide_cores(&set))
		return -ENOENT;
	if (sched_getaffinity(0, sizeof(t_saved), &t_saved))
		return -errno;
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	t_inside = true;
	return 0;
}

int
vpk_wide_end(void)
{
	if (!t_inside)
		return -EINVAL;
	t_inside = false;
	if (sched_setaffinity(0, sizeof(t_saved), &t_saved))
		return -errno;
	return 0;
}

bool
vpk_wide_active(void)
{
	return t_inside;
}
