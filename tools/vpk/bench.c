/* SPDX-License-Identifier: BSD-3-Clause */
/* Timing helpers for the benchmarks (see bench.h). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include <vpk/pkt.h>

#include "common/libvpk_internal.h"
#include "bench.h"
#include "common/json.h"
#include "common/tool.h"

uint64_t
bench_tsc(void)
{
	_mm_lfence();
	return __rdtsc();
}

double
bench_tsc_hz(void)
{
	static double hz;
	struct timespec a, b;
	uint64_t t0, t1;

	if (hz > 0)
		return hz;
	clock_gettime(CLOCK_MONOTONIC, &a);
	t0 = bench_tsc();
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec) < 50e6);
	t1 = bench_tsc();
	hz = (double)(t1 - t0) / ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9);
	return hz;
}

double
bench_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
	       ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) * 1e-6;
}

uint64_t
bench_cpu_tsc(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)(((double)ts.tv_sec + (double)ts.tv_nsec * 1e-9) * bench_tsc_hz());
}

uint64_t
bench_clock(int cpu_time)
{
	return cpu_time ? bench_cpu_tsc() : bench_tsc();
}

static int
cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void
bench_sort(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_dbl);
}

double
bench_median(double *v, size_t n)
{
	if (n == 0)
		return 0;
	bench_sort(v, n);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double
bench_min(const double *v, size_t n)
{
	double m = n ? v[0] : 0;

	for (size_t i = 1; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

double
bench_max(const double *v, size_t n)
{
	double m = n ? v[0] : 0;

	for (size_t i = 1; i < n; i++)
		m = v[i] > m ? v[i] : m;
	return m;
}

static unsigned long
read_ulong(const char *path)
{
	FILE *f = fopen(path, "r");
	char buf[32];
	uint64_t v = 0;

	if (f != NULL) {
		if (fgets(buf, sizeof(buf), f) == NULL ||
		    vpk_num_u64n(buf, strcspn(buf, "\n"), 0, ULONG_MAX, &v, NULL, 0) != 0)
			v = 0;
		fclose(f);
	}
	return (unsigned long)v;
}

size_t
bench_hugepages_free(void)
{
	FILE *m = fopen("/proc/mounts", "r");
	char line[512];
	int mounted = 0;
	size_t total = 0;
	DIR *d;
	struct dirent *e;

	if (m == NULL)
		return 0;
	while (fgets(line, sizeof(line), m) != NULL)
		mounted |= strstr(line, " hugetlbfs ") != NULL;
	fclose(m);
	if (!mounted || (d = opendir("/sys/kernel/mm/hugepages")) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		uint64_t kb;
		char path[320];

		if (strncmp(e->d_name, "hugepages-", 10) != 0 || len < 13 || strcmp(e->d_name + len - 2, "kB") != 0 ||
		    vpk_num_u64n(e->d_name + 10, len - 12, 1, UINT32_MAX, &kb, NULL, 0) != 0)
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/%s/free_hugepages", e->d_name);
		total += (size_t)read_ulong(path) * kb * 1024;
	}
	closedir(d);
	return total;
}

int
bench_options(int argc, char **argv, const char *shortopts, const char *longspec,
	      const struct vpk_optnum *nums, const char *usage)
{
	VPK_LONGOPTS(lo, longspec);
	int c;

	optind = 1;
	c = vpk_getopt_nums(argc, argv, shortopts, lo, NULL, nums);
	if (c == -1)
		return -1;
	if (c != 'h')
		return VPK_EXIT_USAGE;
	fputs(usage, stdout);
	return VPK_EXIT_OK;
}

void
bench_json_begin(struct json *j, const char *bench)
{
	json_init(j, stdout);
	json_obj(j, NULL);
	json_str(j, "bench", bench);
}

void
bench_ip4_header(uint8_t *h, uint32_t i)
{
	uint16_t c;

	h[0] = 0x45;
	h[2] = 0x05;
	h[8] = 64;
	h[9] = 17;
	memcpy(h + 12, &i, 4);
	h[16] = 10;
	h[19] = (uint8_t)i;
	c = vpk_ip4_csum(h, 20);
	memcpy(h + 10, &c, 2);
}
