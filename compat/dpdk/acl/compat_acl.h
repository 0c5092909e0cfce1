/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_COMPAT_ACL_H
#define VPK_COMPAT_ACL_H

/*
 * rte_acl_ctx as libvpk_rte_acl.so keeps it. Applications only hold the
 * pointer (rte_acl.h declares the struct opaque), so its layout is ours.
 * Rules are stored as DPDK stores them (param->rule_size bytes each, in EAL
 * memory of param->socket_id); rte_acl_build() converts them into a vpk ACL
 * context, which answers every classify call.
 */
#include <stdbool.h>
#include <stdint.h>

#include <rte_acl.h>

#include <vpk/acl.h>

#define COMPAT_ACL_GATHER_MAX 128       /* bytes of one packed input record */
#define COMPAT_ACL_COPY_MAX   (2 * RTE_ACL_MAX_FIELDS)

/* One copy of the gather step: len bytes from the input at src to the packed record at dst. */
struct compat_acl_copy {
	uint32_t src;
	uint16_t dst;
	uint16_t len;
};

struct rte_acl_ctx {
	char name[RTE_ACL_NAMESIZE];
	int socket_id;
	uint32_t rule_sz;
	uint32_t max_rules;
	uint32_t num_rules;
	uint8_t *rules;                 /* max_rules * rule_sz bytes, after the struct */
	enum rte_acl_classify_alg alg;
	bool has_config;
	struct rte_acl_config config;   /* of the last successful build (rte_acl_reset() rebuilds with it) */

	struct vpk_acl *acl;            /* the runtime; NULL before a build and after a failed one */
	uint32_t num_categories;
	uint32_t num_vpk_fields;
	uint32_t zero_ud;               /* stands for userdata 0 inside vpk (which refuses 0) */
	bool has_zero;
	bool gather;                    /* the layout needs packing before vpk reads it */
	uint32_t gather_len;
	uint32_t ncopy;
	struct compat_acl_copy copy[COMPAT_ACL_COPY_MAX];

	struct rte_acl_ctx *next;       /* the process's list of contexts */
};

/* Exported by librte_acl.so.23 but declared only in DPDK's internal header. */
int rte_acl_classify_scalar(const struct rte_acl_ctx *ctx, const uint8_t **data, uint32_t *results,
			    uint32_t num, uint32_t categories);

/* vpk variant name of a DPDK classify algorithm (NULL: none on this architecture). */
const char *compat_acl_alg_impl(enum rte_acl_classify_alg alg);

/* Build the vpk runtime of @p ctx from its rules and @p cfg (checked by the caller). */
int compat_acl_build(struct rte_acl_ctx *ctx, const struct rte_acl_config *cfg);

#endif
