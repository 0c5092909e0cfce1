/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_FIB_DPDK_H
#define VPK_TOOL_FIB_DPDK_H

/*
 * DPDK rte_fib (22.11, ABI 23) loaded at run time with dlopen(), so `vpk fib`
 * and `vpk bench fib` can run rte_fib side by side with vpk in the same
 * process on the same data, without libvpk or vpk depending on DPDK. Where
 * the libraries are absent or EAL init fails, dpdk_open() says why and the
 * tools go on without the DPDK rows.
 *
 * Only the 22.11 ABI is used: struct rte_fib_conf / rte_fib6_conf layouts and
 * enum values are those of the 22.11 headers (facts, re-declared here).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* rte_fib lookup types (enum rte_fib_lookup_type, 22.11). */
enum dpdk_fib_lookup {
	DPDK_FIB_LOOKUP_DEFAULT = 0,
	DPDK_FIB_SCALAR_MACRO,          /* dpdk-test-fib -v s1 */
	DPDK_FIB_SCALAR_INLINE,         /* s2 */
	DPDK_FIB_SCALAR_UNI,            /* s3 */
	DPDK_FIB_VECTOR_AVX512,         /* v */
};

struct dpdk_fib;

/* Load librte_eal + librte_fib and init EAL once (--no-huge, mem_mb MiB). 0 or -1 with *why. */
int dpdk_open(unsigned mem_mb, const char **why);
bool dpdk_ready(void);
/* EAL runs on hugepages (else --no-huge: rte_fib's tables on 4 KiB pages). */
bool dpdk_hugepages(void);

/* IPv4 rte_fib, DIR24_8. NULL on failure (*why). */
struct dpdk_fib *dpdk_fib_create(unsigned nh_size, uint32_t num_tbl8, uint32_t max_routes,
				 uint64_t default_nh, const char **why);
void dpdk_fib_free(struct dpdk_fib *f);
int dpdk_fib_add(struct dpdk_fib *f, uint32_t ip, uint8_t depth, uint64_t nh);
int dpdk_fib_del(struct dpdk_fib *f, uint32_t ip, uint8_t depth);
/* 0, or negative errno (e.g. AVX-512 not available). */
int dpdk_fib_select(struct dpdk_fib *f, enum dpdk_fib_lookup t);
void dpdk_fib_lookup(struct dpdk_fib *f, const uint32_t *ips, uint64_t *nhs, size_t n);
/* IPv6 rte_fib6, TRIE (nh_size 2, 4, 8). Lookup types: 0 default, 1 scalar, 2 avx512. */
struct dpdk_fib6;
struct dpdk_fib6 *dpdk_fib6_create(unsigned nh_size, uint32_t num_tbl8, uint32_t max_routes,
				   uint64_t default_nh, const char **why);
void dpdk_fib6_free(struct dpdk_fib6 *f);
int dpdk_fib6_add(struct dpdk_fib6 *f, const uint8_t ip[16], uint8_t depth, uint64_t nh);
int dpdk_fib6_del(struct dpdk_fib6 *f, const uint8_t ip[16], uint8_t depth);
int dpdk_fib6_select(struct dpdk_fib6 *f, int type);
void dpdk_fib6_lookup(struct dpdk_fib6 *f, const uint8_t (*ips)[16], uint64_t *nhs, size_t n);

/* Heap bytes rte_malloc holds (socket stats), for memory figures. */
size_t dpdk_heap_used(void);

#endif
