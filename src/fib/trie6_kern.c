/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 trie lookup kernels (trie6.h layout), scalar and sse42 builds: the
 * walk of trie6_walk.h for every address. The vector variants are
 * trie6_avx2.c and trie6_avx512.c; all return exactly what this does.
 */
#include "fib/trie6_walk.h"

TRIE6_IMPL(VPK_VEC_BITS ? VPK_VEC_BITS : 64, TRIE6_NO_VEC, TRIE6_NO_VEC, TRIE6_NO_VEC);
