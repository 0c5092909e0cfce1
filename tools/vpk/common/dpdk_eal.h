/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_DPDK_EAL_H
#define VPK_TOOL_DPDK_EAL_H
/*
 * The one DPDK EAL command line of vpk's comparisons with rte_acl and
 * rte_fib (vpk bench acl, vpk fib / bench fib, the *_dpdk tests). It does
 * not call rte_eal_init(): the tool loads DPDK with dlopen, the benchmark
 * and the tests link it, so each passes argv to its own rte_eal_init.
 *
 *   huge:  --in-memory (hugepages, as DPDK is deployed; no files left behind)
 *   else:  --no-shconf --no-huge -m MEM_MB (4 KiB pages; no shared config)
 *   always: --no-pci --no-telemetry -l LCORE --file-prefix=<name><pid>,
 *           EAL's and LIB's logs at error level, --force-max-simd-bitwidth=BITS
 */
#include <stdbool.h>

struct dpdk_eal_args {
	char *argv[20];         /* argv[argc] == NULL; rte_eal_init may reorder it */
	int argc;
	char mem[16], lcore[16], prefix[64], logs[2][48], simd[48];   /* storage behind argv */
};

/* Fill @p a for program @p name; @p lib is the log type of the library compared ("acl", "fib"). */
void dpdk_eal_args(struct dpdk_eal_args *a, const char *name, const char *lib, bool huge, unsigned mem_mb,
		   int lcore, unsigned simd_bits);

#endif
