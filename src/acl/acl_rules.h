/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_ACL_RULES_H
#define VPK_ACL_RULES_H

/* Layout and rule validation, normalisation into dimensions (acl_rules.c). */
#include <stddef.h>
#include <stdint.h>

#include "acl/acl_int.h"

/* The key dimensions of a layout. */
struct acl_layout {
	uint32_t nd;                            /* dimensions */
	uint8_t def_dim[VPK_ACL_MAX_FIELDS];    /* defs[i] -> its first dimension */
	uint8_t dbits[ACL_MAX_DIMS];            /* dimension width: 8, 16 or 32 */
	struct acl_dimsrc src[ACL_MAX_DIMS];    /* where its bytes are */
};

/* 0 or -EINVAL with a reason in why[len]. */
int acl_layout_check(const struct vpk_acl_field_def *defs, uint32_t nf, char *why, size_t len);
/* For a checked layout. */
void acl_layout_dims(const struct vpk_acl_field_def *defs, uint32_t nf, struct acl_layout *lay);
/* 0 or -EINVAL with a reason. */
int acl_rule_check(const struct vpk_acl_field_def *defs, uint32_t nf, uint32_t ncat,
		   const struct vpk_acl_rule *r, char *why, size_t len);
/*
 * Rank-sort and normalise checked rules (stride rsz). Ranks are spaced
 * (acl_rank_of(k, acl_rank_shift(nrules))) so that rules added later can be
 * ranked in between without renumbering; with rank_in (one rank per rule,
 * any order) those ranks are used instead. 0 or -ENOMEM.
 */
int acl_normalize(const struct vpk_acl_field_def *defs, uint32_t nf, uint32_t ncat,
		  const uint8_t *rules, uint32_t nrules, size_t rsz, const uint32_t *rank_in,
		  struct acl_mem *mt, struct acl_nrules *out);
/* Spacing of full-build ranks: rank k is acl_rank_of(k, shift), all below 2^31. */
uint32_t acl_rank_shift(uint32_t nrules);
/* Rank of full-build position k. Position 0 gets one step too, so that a rule
 * added later above every rule of the build has a gap to go in (rank 0 there
 * made every such addition a full build). Keep acl_live_slots() in step. */
static inline uint32_t
acl_rank_of(uint32_t k, uint32_t shift)
{
	return (k + 1) << shift;
}
/* Full-build position of full-build rank r. */
static inline uint32_t
acl_rank_pos(uint32_t r, uint32_t shift)
{
	return (r >> shift) - 1;
}
void acl_nrules_free(struct acl_mem *mt, struct acl_nrules *nr);
/* A rule's priority and its index, sorted by acl_prio_cmp(): priority
 * descending, index ascending (the rank order: first added wins ties). */
struct acl_prio_idx {
	uint32_t prio, idx;
};
int acl_prio_cmp(const void *a, const void *b);

#endif /* VPK_ACL_RULES_H */
