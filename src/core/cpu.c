/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Raw CPU queries: CPUID (bounded by the maximum basic and extended leaf, so
 * asking for an unknown leaf gives zeros rather than the highest leaf's data,
 * which is what Intel CPUs return) and XGETBV.
 */
#include <cpuid.h>
#include <string.h>

#include "core/cpu.h"

void
vpk_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
	uint32_t max = __get_cpuid_max(leaf & 0x80000000u, NULL);

	memset(r, 0, 4 * sizeof(r[0]));
	if (max == 0 || leaf > max)
		return;
	__cpuid_count(leaf, subleaf, r[0], r[1], r[2], r[3]);
}

uint64_t
vpk_xgetbv0(void)
{
	uint32_t lo, hi;

	/* xgetbv with ecx = 0; spelled as bytes-free asm so no -mxsave is needed. */
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}
