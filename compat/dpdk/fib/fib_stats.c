/* SPDX-License-Identifier: BSD-3-Clause */
/* Call counters of libvpk_rte_fib.so (VPK_RTE_STATS=1): the proof that vpk answered. */
#include <inttypes.h>
#include <stdio.h>

#include "compat_fib.h"
#include "../stats.h"

bool compat_fib_stats;
static _Atomic uint64_t counts[COMPAT_FIB_NCOUNT];

void
compat_fib_count(unsigned which, uint64_t n)
{
	atomic_fetch_add_explicit(&counts[which], n, memory_order_relaxed);
}

__attribute__((constructor)) static void
fib_stats_init(void)
{
	compat_fib_stats = compat_stats_enabled();
}

__attribute__((destructor)) static void
fib_stats_print(void)
{
	if (!compat_fib_stats)
		return;
	fprintf(stderr, "vpk-rte-fib: create=%" PRIu64 " add=%" PRIu64 " lookup_calls=%" PRIu64 " lookup_ips=%" PRIu64
		" fib6_create=%" PRIu64 " fib6_add=%" PRIu64 " fib6_lookup_calls=%" PRIu64 " fib6_lookup_ips=%" PRIu64 "\n",
		atomic_load(&counts[COMPAT_FIB_CREATE]), atomic_load(&counts[COMPAT_FIB_ADD]),
		atomic_load(&counts[COMPAT_FIB_LOOKUP_CALLS]), atomic_load(&counts[COMPAT_FIB_LOOKUP_IPS]),
		atomic_load(&counts[COMPAT_FIB6_CREATE]), atomic_load(&counts[COMPAT_FIB6_ADD]),
		atomic_load(&counts[COMPAT_FIB6_LOOKUP_CALLS]), atomic_load(&counts[COMPAT_FIB6_LOOKUP_IPS]));
}
