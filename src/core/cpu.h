/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_CORE_CPU_H
#define VPK_CORE_CPU_H

#include <stdint.h>

/* CPUID(leaf, subleaf) into r[0..3] = EAX, EBX, ECX, EDX; zeros above the max leaf. */
void vpk_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t r[4]);
/* XGETBV(0); only valid when CPUID.1:ECX.OSXSAVE is set. */
uint64_t vpk_xgetbv0(void);

#endif
