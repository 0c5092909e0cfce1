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

/* The options of vpk bench acl (acl_bench.c) */
struct abench_opts {
	const char *rulesf, *tracef, *profile, *only;
	uint32_t nrules, npkts, iter, bursts[8], nb, updates;
	uint64_t seed;
	bool ipv6, json, no_dpdk, dpdk_no_huge;
	unsigned kinds, cap;
	const char *matrix;             /* --matrix quick|full (acl_bench_matrix.c) */
	const char *families;           /* --families acl1,fw1-v6,... */
	uint32_t sizes[8], nsizes;      /* --sizes 1000,10000 */
	uint32_t dpdk_max_rules;        /* --dpdk-max-rules: rte_acl only on sets up to this size */
};

/* Classify timing: median cycles per packet over the calls, and verification. */
struct timing {
	double cyc_pkt;         /* median per call / burst */
	double mean_cyc_pkt;    /* total / packets */
	bool ok;
	uint32_t mismatches;
};
typedef void (*cls_fn)(void *arg, const uint8_t **d, uint32_t *r, uint32_t n);
struct timing bench_measure(cls_fn fn, void *arg, const uint8_t **ptrs, uint32_t np, const uint32_t *want,
			    unsigned burst, unsigned iter);
struct vctx {
	struct vpk_acl *acl;
};
struct dctx {
	unsigned alg;
};
void bench_vpk_cls(void *arg, const uint8_t **d, uint32_t *r, uint32_t n);    /* arg: struct vctx */
void bench_dpdk_cls(void *arg, const uint8_t **d, uint32_t *r, uint32_t n);   /* arg: struct dctx */
int bench_matrix(const struct abench_opts *a);

/* Peak-RSS helpers (VmHWM reset through /proc/self/clear_refs). */
void bench_hwm_reset(void);
size_t bench_rss(void);
size_t bench_hwm(void);

/* rte_acl side; all return 0 or a negative errno with a reason. */
/* EAL on hugepages (as DPDK is deployed) when @p huge, else --no-huge -m 4096. */
int dpdk_init(bool want512, bool huge, char *why, size_t len);
int dpdk_build(const struct bench_data *d, double *build_s, size_t *rt_bytes, size_t *peak_bytes,
	       char *why, size_t len);
unsigned dpdk_alg_count(void);
const char *dpdk_alg_name(unsigned i);
bool dpdk_alg_usable(unsigned i);
void dpdk_classify(unsigned alg, const uint8_t **data, uint32_t *res, uint32_t n, uint32_t cats);
void dpdk_free(void);
void dpdk_ctx_free(void);       /* the context only; EAL stays up for the next build */

/* --updates (acl_bench_upd.c): per kind (0 add, 1 delete, 2 change), ms per update. */
struct upd_kind {
	double med_alone, max_alone, med_busy, max_busy;
	double cpu_med, cpu_max; /* writer thread CPU ms, all updates of the kind */
	uint32_t fallbacks;     /* updates that ended in a full build */
};
struct upd_result {
	struct upd_kind kind[3];
	unsigned long calls;    /* classify calls meanwhile */
	uint32_t checked, rules, trees;
	double cyc_incremental; /* classify cycles/packet (burst 256) on the runtime after the updates */
	double cyc_full;        /* the same after a full rebuild of the same rules */
};
struct vpk_acl5_rule;
struct vpk_acl5_pkt;
/* 0, or -1 when an update failed or a result differs from the oracle afterwards. */
int bench_updates(struct vpk_acl *acl, const struct bench_data *d, const struct vpk_acl5_rule *r5,
		  const struct vpk_acl5_pkt *p5, const uint8_t **ptrs, uint32_t np, const char *profile,
		  uint64_t seed, uint32_t n, unsigned kinds /* bit k: kind k */, struct upd_result *out);

#endif
