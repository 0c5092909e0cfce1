/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Peak memory of a build, for vpk bench acl: the process's RSS and its
 * high-water mark (VmRSS, VmHWM of /proc/self/status); the mark is reset
 * through /proc/self/clear_refs ("5") before each build, so each library's
 * build peak is measured alone.
 */
#include <stdio.h>
#include <string.h>

#include "bench/acl_bench.h"
#include "common/libvpk_internal.h"

void
bench_hwm_reset(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");

	if (f != NULL) {
		fputs("5", f);
		fclose(f);
	}
}

static size_t
status_kb(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	size_t kl = strlen(key);
	uint64_t v = 0;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, kl) == 0) {
			const char *p = line + kl + strspn(line + kl, " \t");    /* "VmRSS:   1234 kB" */

			if (vpk_num_u64n(p, strcspn(p, " \n"), 0, UINT64_MAX / 1024, &v, NULL, 0) != 0)
				v = 0;
		}
	fclose(f);
	return (size_t)v * 1024;
}

size_t bench_rss(void) { return status_kb("VmRSS:"); }
size_t bench_hwm(void) { return status_kb("VmHWM:"); }
