/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_ACL_BLD_H
#define VPK_ACL_BLD_H

/*
 * Builder state shared by the tree builder (acl_build.c, acl_cut.c), the leaf
 * layout (acl_leaf.c) and the runtime layout (acl_layout.c). Internal.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl_int.h"

struct acl_bld {
	const struct acl_nrules *nr;
	uint32_t nd;
	struct acl_mem *mt;
	uint32_t *plo, *phi;            /* conservative interval per box and dim */
	uint32_t dmax[ACL_MAX_DIMS];    /* largest key value per dim */
	uint32_t *thr, *info;           /* nodes */
	uint32_t nnodes, capnodes;
	uint32_t *lent;                 /* leaf entries: box index */
	uint32_t *lneed;                /* leaf entries: dims to check */
	size_t nlent, caplent;
	uint32_t *lstart, *lcnt;        /* per leaf */
	uint32_t nleaves, capleaves;
	uint32_t *sa, *sb, *sc;         /* scratch for split search */
	uint32_t max_depth;
	size_t limit_entries;           /* give up beyond this many leaf entries */
	size_t part_limit;              /* a partition tried against spilling trees: at most this many (0: no cap) */
	uint8_t *spill;                 /* per box: moved to the next tree */
	bool can_spill;                 /* a later tree exists */
	unsigned max_trees;             /* of the current plan */
	unsigned repl4;                 /* last tree: stop when a cut copies > repl4/4 x... */
	uint32_t bigleaf;               /* ...in a node of at most this many rules */
	uint32_t spill_min;             /* spill when at least this many rules span a cut... */
	uint64_t spill_w[ACL_MAX_DIMS];  /* ...and are at least this wide there */
	unsigned part;                  /* partition plan: at most this many groups (0: spilling trees) */
	int part_copies;                /* ...a group's tree rebuilt in big leaves beyond this many copies per rule (-1: PART_COPIES) */
	uint64_t cw, cdepth, cblocks;   /* the current tree's leaves: sum of weights (rules + 1), of weight x depth, */
	uint64_t cost;                  /* ...of weight x blocks; the plan's estimated cost per packet (tree_cost()) */
	int err;
};


/* The best cut of the node holding rules idx[0..cnt) in the box blo..bhi: larger child *bestc
 * (UINT32_MAX: none), both children *bests, dimension *bestd, threshold *bestt (acl_cut.c). */
void acl_choose_cut(struct acl_bld *b, const uint32_t *idx, uint32_t cnt, const uint32_t *blo, const uint32_t *bhi,
		    uint32_t *bestc, uint32_t *bests, uint32_t *bestd, uint32_t *bestt);

/* True when many rules are wide where many others are narrow and back (acl_shape.c). */
bool acl_rules_cross(const struct acl_bld *b);
/* Rules wide (a /16 or shorter, or as wide) in some 32-bit dimension (acl_shape.c). */
uint32_t acl_rules_wide_addr(const struct acl_bld *b);

/* Wildcard partition: group of every box in @p grp (0..k-1, groups in the order built), returns k >= 1
 * (acl_shape.c). */
uint32_t acl_rules_partition(const struct acl_bld *b, uint32_t maxg, uint32_t *grp);

/* Bytes of leaf @p l's blocks in the runtime (acl_int.h has the layout). */
size_t acl_leaf_bytes(const struct acl_bld *b, uint32_t l);
/* Write leaf @p l's blocks (acl_leaf_bytes(b, l) bytes, 64-byte aligned) to @p out. */
void acl_leaf_emit(const struct acl_bld *b, uint32_t l, uint8_t *out, uint32_t ncat);

/* The runtime of @p ng built trees (sorted here by rank) in one allocation: 0, or -ERANGE when it
 * would exceed @p max_size (0: no limit), -ENOMEM; @p why says which. */
int acl_rt_layout(const struct acl_bld *b, struct acl_tree *trees, uint32_t ng, const struct acl_dimsrc *src,
		  uint32_t ncat, size_t max_size, struct acl_rt **out, char *why, size_t len);

#endif /* VPK_ACL_BLD_H */
