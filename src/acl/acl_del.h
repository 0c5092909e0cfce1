/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_ACL_DEL_H
#define VPK_ACL_DEL_H

/* Fast rule deletions over the last full build (acl_del.c). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl_int.h"

#define ACL_FPOS_NEW UINT32_MAX /* a stored rule added after the last full build */
/*
 * Largest update tree (rules added since the last full build plus rules a
 * deleted rule may have shadowed) built incrementally; beyond it a full
 * build is cheaper (docs/acl.md, "Threads and updates", has the measurement).
 */
#define ACL_UPDATE_MAX 1024
/*
 * Patch rules are moved into a "frozen" tree built once (and then shared by
 * later runtimes like the full build's trees) when more than this many have
 * accumulated, so that later updates do not rebuild them; frozen trees may
 * hold up to ACL_FROZEN_MAX(n) rules of an n-rule full build in total.
 */
#define ACL_FREEZE_MIN 64
#define ACL_FROZEN_MAX(n) ((n) / 8 > 1024 ? (n) / 8 : 1024)

/*
 * Deletion state since the last full build. Positions are the full build's
 * rank positions (rank = acl_rank_of(pos, shift)).
 */
struct acl_delstate {
	bool valid;                     /* set up for the current full build */
	struct acl_mem mt;
	struct acl_nrules fnr;          /* the full build's normalised rules (rank order) */
	uint32_t *bstart;               /* [nfull + 1]: first box of position k */
	uint32_t nfull, shift;
	uint64_t *dead;                 /* bit k: position k deleted */
	uint64_t *patch;                /* bit k: a deleted rule may have shadowed k in the trees */
	uint32_t ndead;
	uint32_t nfrozen;               /* rules in frozen trees */
	uint32_t *pending;              /* deleted positions not analysed yet */
	uint32_t npending, cappending;
};

/* After a full build: take over @p fnr (allocated through @p mt). 0 or -ENOMEM (state invalid). */
int acl_del_init(struct acl_delstate *ds, struct acl_nrules *fnr, const struct acl_mem *mt);
void acl_del_free(struct acl_delstate *ds);
/* Room for @p n more deletions, so that acl_del_mark() cannot fail. 0 or -ENOMEM. */
int acl_del_reserve(struct acl_delstate *ds, uint32_t n);
/* Position @p pos of the full build is deleted (after acl_del_reserve()). */
void acl_del_mark(struct acl_delstate *ds, uint32_t pos);
/* Find what the pending deletions may have shadowed in @p base's trees. 0 or -ENOMEM. */
int acl_del_analyse(struct acl_delstate *ds, const struct acl_rt *base);
/*
 * Build the live patch rules into a frozen tree: *base (a reference, whose
 * trees all later runtimes use) becomes that tree composed over *base.
 * 0, -E2BIG (too many trees), -ENOMEM, -ERANGE; *base unchanged on error.
 */
int acl_del_freeze(struct acl_delstate *ds, struct acl_rt **base, const struct acl_dimsrc *src,
		   uint32_t ncat, size_t max_size, char *why, size_t len);
/* Live rules in the patch set. */
uint32_t acl_del_patch_count(const struct acl_delstate *ds);
/*
 * The rules of the update tree: the live patch rules (with their full-build
 * ranks) merged in rank order with @p add (may be NULL). 0 or -ENOMEM.
 */
int acl_del_extra(const struct acl_delstate *ds, const struct acl_nrules *add, struct acl_mem *mt,
		  struct acl_nrules *out);
/*
 * A runtime using @p inner's trees and skipping the deleted ranks; takes
 * over the caller's reference on @p inner. 0 or -ENOMEM (inner untouched).
 */
int acl_del_wrap(const struct acl_delstate *ds, struct acl_rt *inner, struct acl_rt **out);

#endif /* VPK_ACL_DEL_H */
