/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_BENCH_ACL_H
#define VPK_BENCH_ACL_H

/* Shared between acl_bench.c (vpk, driver) and acl_bench_dpdk.c (rte_acl). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vpk/acl.h>

struct bench_data {
	bool ipv6;
	uint32_t nf;
	struct vpk_acl_field_def defs[11];
	const uint8_t *rules;           /* vpk rules, stride VPK_ACL_RULE_SIZE(nf) */
	uint32_t nrules;
	uint32_t ncat_build;
};

/* Peak-RSS helpers (VmHWM reset through /proc/self/clear_refs). */
void bench_hwm_reset(void);
size_t bench_rss(void);
size_t bench_hwm(void);

/* rte_acl side; all return 0 or a negative errno with a reason. */
int dpdk_init(bool want512, char *why, size_t len);
int dpdk_build(const struct bench_data *d, double *build_s, size_t *rt_bytes, size_t *peak_bytes,
	       char *why, size_t len);
unsigned dpdk_alg_count(void);
const char *dpdk_alg_name(unsigned i);
bool dpdk_alg_usable(unsigned i);
void dpdk_classify(unsigned alg, const uint8_t **data, uint32_t *res, uint32_t n, uint32_t cats);
void dpdk_free(void);

#endif
