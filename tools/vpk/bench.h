/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_BENCH_H
#define VPK_TOOL_BENCH_H

/*
 * Timing helpers every `vpk bench ...` command shares: the TSC (the only
 * clock that works in this PMU-less VM; constant-rate on every CPU vpk
 * targets), its frequency, and medians. Method (docs/benchmarks.md): warm
 * up, time many iterations between two TSC reads, repeat R runs, report the
 * median (and min/max) of the per-run figures; variants of one kernel run
 * interleaved in the same process so machine noise hits them alike.
 */
#include <stddef.h>
#include <stdint.h>

/* TSC read ordered after earlier instructions (lfence; rdtsc). */
uint64_t bench_tsc(void);
/* TSC ticks per second, measured once against CLOCK_MONOTONIC (~50 ms). */
double bench_tsc_hz(void);
/* CPU seconds of this process (user + system, every thread). */
double bench_cpu_s(void);
/* This thread's CPU time in TSC ticks: time spent descheduled on a shared
 * machine is not counted (`--cpu-time` in the benches). */
uint64_t bench_cpu_tsc(void);
/* The benches' clock in TSC ticks: bench_cpu_tsc() when cpu_time (their
 * `--cpu-time`), else bench_tsc(). */
uint64_t bench_clock(int cpu_time);
/* v[0..n) in ascending order. */
void bench_sort(double *v, size_t n);
/* Median / min / max of v[0..n) (v is reordered). */
double bench_median(double *v, size_t n);
double bench_min(const double *v, size_t n);
double bench_max(const double *v, size_t n);
/*
 * Free hugepage bytes a DPDK EAL can use: the free pages of every size
 * (/sys/kernel/mm/hugepages) when a hugetlbfs is mounted, else 0. The
 * comparisons with rte_acl / rte_fib run DPDK on hugepages when at least
 * what they need is free, as DPDK is deployed: vpk's own tables are on
 * transparent huge pages (docs/benchmarks.md, "DPDK's memory").
 */
size_t bench_hugepages_free(void);

/* Packet @i's 20-byte IPv4 header at @h (UDP, 10.x.x.x, distinct per i, valid checksum): the
 * frames of the kernel benchmarks and of vpk info --tune. */
void bench_ip4_header(uint8_t *h, uint32_t i);
struct json;
struct vpk_optnum;
/*
 * The options of a `vpk bench ...` command: getopt_long over @longspec
 * (vpk_longopts) and @shortopts, the numbers @nums lists (vpk_getopt_nums),
 * and --help, which prints @usage. Returns -1 to go on, else the exit code.
 */
int bench_options(int argc, char **argv, const char *shortopts, const char *longspec,
		  const struct vpk_optnum *nums, const char *usage);
/* Start the --json document of the benchmark @bench on stdout: {"bench": "@bench", ... */
void bench_json_begin(struct json *j, const char *bench);

/* Keep the optimiser from dropping a result. */
#define bench_keep(x) __asm__ volatile("" : : "r,m"(x) : "memory")

#endif
