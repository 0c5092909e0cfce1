/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DPDK EAL command line shared by every comparison with rte_acl and
 * rte_fib (dpdk_eal.h). One process per run, so the file prefix carries
 * the pid: two runs at once never share EAL's runtime directory.
 */
#include <stdio.h>
#include <unistd.h>

#include "common/dpdk_eal.h"

void
dpdk_eal_args(struct dpdk_eal_args *a, const char *name, const char *lib, bool huge, unsigned mem_mb,
	      int lcore, unsigned simd_bits)
{
	int n = 0;

	snprintf(a->mem, sizeof(a->mem), "%u", mem_mb);
	snprintf(a->lcore, sizeof(a->lcore), "%d", lcore < 0 ? 0 : lcore);
	snprintf(a->prefix, sizeof(a->prefix), "--file-prefix=%s%d", name, (int)getpid());
	snprintf(a->logs[0], sizeof(a->logs[0]), "--log-level=lib.eal:error");
	snprintf(a->logs[1], sizeof(a->logs[1]), "--log-level=lib.%s:error", lib);
	snprintf(a->simd, sizeof(a->simd), "--force-max-simd-bitwidth=%u", simd_bits);
	a->argv[n++] = (char *)name;
	/* no shared config either way, so no files in EAL's runtime directory */
	a->argv[n++] = huge ? "--in-memory" : "--no-shconf";
	if (!huge) {
		a->argv[n++] = "--no-huge";
		a->argv[n++] = "-m";
		a->argv[n++] = a->mem;
	}
	a->argv[n++] = "--no-pci";
	a->argv[n++] = "--no-telemetry";
	a->argv[n++] = "-l";
	a->argv[n++] = a->lcore;
	a->argv[n++] = a->logs[0];
	a->argv[n++] = a->logs[1];
	a->argv[n++] = a->prefix;
	a->argv[n++] = a->simd;
	a->argv[n] = NULL;
	a->argc = n;
}
