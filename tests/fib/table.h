/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TEST_FIB_TABLE_H
#define VPK_TEST_FIB_TABLE_H

/*
 * Helpers shared by the real-table FIB tests: load a route file (next hops
 * filled in deterministically when the file has none), and make lookup sets.
 */
#include <stddef.h>
#include <stdint.h>

#include <vpk/fib_file.h>

struct route4 {
	uint32_t ip;
	uint8_t depth;
	uint64_t nh;
};

/* The IPv4 table named by VPK_FIB_TABLE_V4 (CMake) or NULL; routes with next hops in [1, max_nh]. */
struct route4 *table4_load(const char *path, uint64_t max_nh, size_t *n);

/* Addresses: half uniformly random, half inside random routes (random host bits). */
void table4_addrs(const struct route4 *rt, size_t nrt, uint32_t *ips, size_t n);

static inline uint64_t
table_mix(uint64_t x)
{
	x += UINT64_C(0x9e3779b97f4a7c15);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

#endif
