/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_CORE_REGISTRY_H
#define VPK_CORE_REGISTRY_H

/*
 * Kernel registration for vpk_kernels() / `vpk info`.
 *
 * A component registers each kernel once, next to its implementation table:
 *
 *     VPK_KERNEL_REGISTER(ip4_csum, "ip4-csum-check",
 *                         "IPv4 header checksum verification", ip4_csum_impls);
 *
 * The entry is placed in the ELF section "vpk_kernel_reg"; the linker provides
 * __start_/__stop_ symbols that registry.c walks. Sanitizers do not pad
 * globals placed in named sections, so the section stays a dense array.
 */
#include <vpk/isa.h>

#define VPK_KERNEL_REGISTER(id, kname, kwhat, table)                           \
	static const struct vpk_kernel vpk_kernel_reg_##id                     \
	__attribute__((used, section("vpk_kernel_reg"), aligned(8))) = {          \
		.name = (kname), .what = (kwhat), .impls = (table) }

#endif /* VPK_CORE_REGISTRY_H */
