/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bm6 lookup kernels (bm6.h layout), scalar and sse42 builds: 8 addresses
 * walked in lock step (their node and entry loads overlap), prefetching
 * the addresses and next-hop lines PF_AHEAD addresses ahead; sse42 differs
 * by the POPCNT instruction. The vector variants are bm6_avx2.c and
 * bm6_avx512.c; all return exactly what this loop does.
 */
#include "fib/bm6_walk.h"

BM6_IMPL(VPK_VEC_BITS ? VPK_VEC_BITS : 64, BM6_NO_VEC, BM6_NO_VEC);
