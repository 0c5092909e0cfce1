/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_SPLITMIX_H
#define VPK_TOOL_SPLITMIX_H

/*
 * SplitMix64 (Steele, Lea, Flood 2014), the generators' one source of
 * reproducible pseudo-random numbers: fast, any 64-bit seed, and the same
 * sequence on every machine, so a seed names a table or trace.
 */
#include <stdint.h>

/* The output of the state @z (already advanced). */
static inline uint64_t
splitmix64_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Advance the state @s and return the next number. */
static inline uint64_t
splitmix64_next(uint64_t *s)
{
	return splitmix64_mix(*s += UINT64_C(0x9e3779b97f4a7c15));
}

#endif
