/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_ACL_UPDATE_H
#define VPK_ACL_UPDATE_H

/* Fast rule additions: delta runtimes over the last full build (acl_update.c). */
#include <stddef.h>
#include <stdint.h>

#include "acl/acl_int.h"

#define ACL_DELTA_MAX 1024      /* rules added since the last full build */

/* Priorities (desc) and ranks of the last full build's rules, in rank order. */
struct acl_ranktab {
	uint32_t n;
	uint32_t step;          /* spacing of the full build's ranks */
	uint32_t *prio;
	uint32_t *rank;
};

/* After a full build of @p n rules; pos_out[i] (if not NULL) = rank position of rule i. 0 or -ENOMEM. */
int acl_ranktab_build(struct acl_ranktab *t, const uint8_t *rules, uint32_t n, size_t rsz,
		      uint32_t *pos_out);
/* Ranks for @p n rules added (in this order) after the table's: 0, -ERANGE (no gap), -ENOMEM. */
int acl_ranktab_place(const struct acl_ranktab *t, const uint8_t *rules, uint32_t n, size_t rsz,
		      uint32_t *rank_out);
void acl_ranktab_free(struct acl_ranktab *t);
/* Make @p delta use @p base's trees too (takes a reference on base). 0 or -E2BIG. */
int acl_compose(struct acl_rt *base, struct acl_rt *delta);

#endif /* VPK_ACL_UPDATE_H */
