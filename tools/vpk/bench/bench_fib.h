/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_BENCH_FIB_H
#define VPK_TOOL_BENCH_FIB_H
/* vpk bench fib --ipv6 (bench_fib6.c), called by vpk bench fib with the
 * --ipv6 word taken out of argv. */
int bench_fib_ipv6(int argc, char **argv);

#endif
