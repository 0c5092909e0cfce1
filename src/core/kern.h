/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_CORE_KERN_H
#define VPK_CORE_KERN_H

/*
 * Helpers for kernel sources compiled once per ISA level
 * (vpk_kernel() in cmake/VpkIsa.cmake defines VPK_ISA_SUFFIX and
 * VPK_ISA_ID for each build of the file).
 *
 *   void VPK_FN(ip4_csum_check_bulk)(...)   ->  ip4_csum_check_bulk_avx2 (...)
 *   VPK_IMPL_INIT(256)                       ->  { .name = "avx2", .isa = VPK_ISA_AVX2, .width = 256 }
 *   VPK_IMPL_NAMED("avx512x16", 256)         ->  { .name = "avx512x16", .isa = VPK_ISA_AVX512, .width = 256 }
 *                                                (one of several implementations of an ISA, IMPLS)
 *
 * Rules for such files (docs/adding-a-kernel.md): no non-static functions
 * other than VPK_FN() ones, no dispatch code, no vector types in signatures.
 */
#include <vpk/isa.h>

#include "vpk_kernels.h"

#define VPK_CAT_(a, b) a##_##b
#define VPK_CAT(a, b)  VPK_CAT_(a, b)
#define VPK_STR_(x)    #x
#define VPK_STR(x)     VPK_STR_(x)

#ifdef VPK_ISA_SUFFIX
#define VPK_FN(name)   VPK_CAT(name, VPK_ISA_SUFFIX)
#define VPK_ISA_NAME   VPK_STR(VPK_ISA_SUFFIX)
/*
 * Register width of the build: what the vector loops of a generic kernel
 * use. A file may define it narrower than its ISA before any include (an
 * AVX-512 variant for the cap 256 in ymm registers: bm6_avx512x8.c).
 */
#if defined(VPK_VEC_BITS)
#elif defined(__AVX512F__)
#define VPK_VEC_BITS 512
#elif defined(__AVX2__)
#define VPK_VEC_BITS 256
#elif defined(__SSE4_2__)
#define VPK_VEC_BITS 128
#else
#define VPK_VEC_BITS 0    /* scalar build: vector loops compile out */
#endif
#define VPK_IMPL_INIT(w) VPK_IMPL_NAMED(VPK_ISA_NAME, w)
#define VPK_IMPL_NAMED(n, w) { .name = (n), .isa = VPK_ISA_ID, .width = (w) }
#endif

/*
 * The best-first implementation table of a kernel, from its one
 * declaration (vpk_kernel(NAME kernel ...) in its sources.cmake, written to
 * the generated vpk_kernels.h): one `&prefix_<impl>.member,` per
 * implementation compiled in, e.g.
 *
 *   const struct vpk_impl *const vpk_dir24_8_impls[] = {
 *           VPK_KERNEL_IMPLS(dir24_8, vpk_dir24_8_impl, impl) NULL };
 *
 * VPK_KERNEL_TABLE(vpk_dir24_8_impls, dir24_8, vpk_dir24_8_impl, impl)
 * defines that table (add `static` before it for a file-local one).
 */
#define VPK_KERNEL_ENTRY_(prefix, member, impl) &VPK_CAT(prefix, impl).member,
#define VPK_KERNEL_IMPLS(kernel, prefix, member) VPK_KERNEL_LIST_##kernel(VPK_KERNEL_ENTRY_, prefix, member)
#define VPK_KERNEL_TABLE(table, kernel, prefix, member) \
	const struct vpk_impl *const table[] = { VPK_KERNEL_IMPLS(kernel, prefix, member) NULL }

/* Declare the per-ISA variants of a kernel object called NAME_<isa>. */
#define VPK_DECLARE_VARIANTS(type, name)          \
	extern const type name##_scalar;          \
	extern const type name##_sse42;           \
	extern const type name##_avx2;            \
	extern const type name##_avx512;          \
	extern const type name##_avx512icl

#endif /* VPK_CORE_KERN_H */
