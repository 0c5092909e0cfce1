/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bm6 lookups, the avx512x8 variant: bm6_pipe.h's software-pipelined 4-byte
 * walk on 8 lanes in ymm registers with AVX-512VL's k-masks (masked
 * gathers and compress stores), for the max SIMD bitwidth 256
 * (the EAL's default, the drop-in's case), where no zmm instruction may run
 * (test fib_width). 8-byte entries take the scalar walk, as on avx2.
 * Returns exactly what the scalar loop does.
 */
#define VPK_VEC_BITS 256        /* vec.h and v6vec.h at ymm width in this avx512 build */
#define BM6_LOOKUP_FN(T) VPK_FN(lookup_##T##_x8)        /* lookup_uint32_t_x8_avx512, ... */
#include "fib/bm6_walk.h"
#include "fib/v6vec.h"

#define BM6_W 8
#include "fib/bm6_pipe.h"

BM6_IMPL_AS(vpk_bm6_impl_avx512x8, VPK_IMPL_NAMED("avx512x8", 256), vec_4, BM6_NO_VEC);
