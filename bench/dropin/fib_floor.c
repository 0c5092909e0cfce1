/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The harness floor of dpdk-test-fib's lookup figure: preloaded beside
 * DPDK's own librte_fib, these replace rte_fib_lookup_bulk() and
 * rte_fib6_lookup_bulk() by a lookup that does no lookup (it reads every key
 * and stores a value derived from it). What dpdk-test-fib prints for it is
 * what its loop costs around any lookup: the timed call, the fences of
 * rte_rdtsc_precise() and the keys' loads. scripts/bench-dropin.sh runs it
 * as its "floor" side; no lookup, vpk's or DPDK's, can print less.
 */
#include <stdint.h>
#include <string.h>

#include <rte_fib.h>
#include <rte_fib6.h>

int
rte_fib_lookup_bulk(struct rte_fib *fib, uint32_t *ips, uint64_t *next_hops, int n)
{
	(void)fib;
	for (int i = 0; i < n; i++)
		next_hops[i] = ips[i];
	return 0;
}

int
rte_fib6_lookup_bulk(struct rte_fib6 *fib, uint8_t ips[][RTE_FIB6_IPV6_ADDR_SIZE], uint64_t *next_hops, int n)
{
	(void)fib;
	for (int i = 0; i < n; i++) {
		uint64_t a, b;

		memcpy(&a, ips[i], 8);
		memcpy(&b, ips[i] + 8, 8);
		next_hops[i] = a ^ b;
	}
	return 0;
}
