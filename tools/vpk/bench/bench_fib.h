/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_BENCH_FIB_H
#define VPK_TOOL_BENCH_FIB_H
/*
 * vpk bench fib [--ipv6]: one benchmark for both address families.
 * bench_fib_opts.c parses the options, cmd_bench_fib.c runs and reports over
 * the family table of fib/fib_family.h.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fib/fib_family.h"

struct bench_fib_opts {
	const char *path;       /* -f ROUTES (required) */
	unsigned sizes[4], nsizes; /* -e: next-hop entry sizes in bytes */
	unsigned passes;        /* -R: timed passes, 1..100 */
	size_t nl;              /* -l: lookups per key set */
	size_t burst;           /* -B: keys per lookup_bulk call; the whole array by default */
	bool use_dpdk;          /* --vs-dpdk (default) / --no-dpdk */
	bool updates;           /* time updates unless -U */
	bool cpu_time;          /* --cpu-time: cycles = thread CPU time x TSC rate */
	bool want[2];           /* -b: the family's two vpk layouts */
	uint64_t seed;          /* --seed */
};

/*
 * Parse argv of `bench fib` (@p v6 false) or `bench fib --ipv6` (true, with
 * the --ipv6 word taken out). @return 0 to run, -1 after --help (exit 0),
 * or an exit code after a message.
 */
int bench_fib_parse(int argc, char **argv, bool v6, struct bench_fib_opts *o);


#endif
