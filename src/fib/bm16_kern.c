/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bm16 lookup kernels (layout in bm16.h), scalar and sse42 builds: the
 * software pipeline over keys of bm16_walk.h (direct entry -> node header
 * -> value, each stage prefetching what the next one reads; a flat node
 * has no header); sse42 has the popcnt instruction. The vector variants
 * are bm16_avx2.c and bm16_avx512.c; all return exactly what this does.
 */
#include "fib/bm16_walk.h"

BM16_IMPL(VPK_VEC_BITS ? VPK_VEC_BITS : 64, BM16_NO_VEC);
