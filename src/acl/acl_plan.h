/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_ACL_PLAN_H
#define VPK_ACL_PLAN_H

/* The decision-tree build plans of acl_build.c (its only includer): full
 * builds (plans[]) and update / frozen trees (uplans[]). */
#include "acl/acl_bld.h"

/*
 * Plans, tried in order: one tree first (the fastest when the rules allow
 * it), then more trees with spilling. A plan is abandoned when its leaves
 * need more than max_copies copies per rule. The last tree of a plan (which
 * cannot spill) refuses a cut that copies more than repl4/4 of a node's
 * rules unless the node holds more than big rules: small leaves are fast
 * (a packet scans fewer blocks) but cost copies, so the first plans cut
 * down to small leaves and the later ones settle for bigger leaves when the
 * copies would run away (docs/acl.md, "plans"). Leaves of up to 64 rules
 * between the 32- and 128-rule plans: where the first is abandoned, the
 * 64-rule plan scans fewer blocks per packet for 1.1-1.8x the leaf entries
 * (acl 4096: 131 -> 113 cycles, fw2 10k: 147 -> 128). Only on sets of up to
 * max_boxes boxes (0: any): where it is abandoned too (acl, IPv6 10k) the
 * attempt doubled the build time.
 */
struct plan {
	unsigned max_trees, repl4, big, max_copies, spill, max_boxes;
	unsigned part;                  /* partition plan: at most this many groups, one tree each (0: not one) */
};
static const struct plan plans[] = {
	{ 1, 6, 32, 16, 0 },
	{ 1, 6, 64, 24, 0, 8192 },
	{ 1, 6, 128, 24, 0 },
	{ 1, 6, 256, 30, 0 },
	{ 1, 6, 1024, 12, 0 },
	{ 2, 6, 1024, 10, 16 },
	{ 6, 5, 256, 8, 32 },
	{ ACL_BUILD_TREES, 5, 512, 0, 16 },
	{ 4, 6, 32, 16, 0, 0, 4 },
};
#define NPLANS (sizeof(plans) / sizeof(plans[0]))
static const uint8_t fplans[] = { 0, 1, 2, 3, 4, 5, 6, 7 };  /* a full build tries them in order */
#define PLAN_TWO  5                     /* the two-tree plan */
#define PLAN_MANY 6                     /* the first many-tree plan */
#define PLAN_EIGHT 7                    /* the last spilling plan (8 trees) */
#define NFPLANS (sizeof(fplans) / sizeof(fplans[0]))
/*
 * The partition plan (acl_shape.c acl_rules_partition()): the rules split up
 * front by which dimensions they are narrow in, up to 4 groups, one tree each
 * that never spills, every tree cut like the first plan's (leaves of <= 32
 * rules where a cut copies > 1.5x). Crossing rules land in different trees,
 * so none copies the other kind: ClassBench fw1 10k in 2 trees of 59k leaf
 * entries instead of 5 spilling trees of 24k, 0.5x the cycles. Tried next to
 * the spilling plans (acl_build.c build_auto()), alone: pplans[] puts plans
 * after it only so that it is not a last plan, which could not be abandoned.
 */
#define PLAN_PART 8
/* A group's tree that copies its rules more than PART_COPIES times each (plus PART_SLACK) is built again
 * with leaves of up to PART_WIDE_BIG rules where a cut copies more than PART_WIDE_REPL4/4 of a node's
 * rules (acl_build.c build_group()), as the spilling plans' last tree is. */
#define PART_COPIES 16
#define PART_ONE_COPIES 3               /* ...or this many when the partition found a single group */
#define PART_SLACK 65536
#define PART_WIDE_REPL4 5
#define PART_WIDE_BIG 256
static const uint8_t pplans[] = { PLAN_PART, PLAN_MANY, PLAN_EIGHT };
#define NPPLANS (sizeof(pplans) / sizeof(pplans[0]))

/*
 * The plans of update and frozen trees (ACL_BUILD_UPDATE), a subsequence of
 * plans[] in another order: at most ~1024 rules
 * (frozen trees of big sets up to n/8), built while the application waits
 * for vpk_acl_build(). An abandoned plan costs about as much as a kept one,
 * and the full build's first plans, given 65536 leaf entries beyond their
 * copy limit, built 60-120k entries on overlapping wide rules before being
 * abandoned or kept (1000 crossing wide rules: 22-25 ms; freezing 3400
 * patch rules of acl 100k: 50-115 ms). So the slack is UPD_SLACK entries,
 * and where the sequence starts depends on the size (boxes):
 *  - up to UPD_SMALL: the full build's first plan (leaves of <= 32 rules;
 *    cheap at that size, and a one-leaf tree of 100+ rules would cost every
 *    packet reaching it 8 blocks);
 *  - up to UPD_ONE_TREE: one tree with leaves of up to 128 rules where a cut
 *    copies > 1.5x (half the build time of the 32-rule plan on 1000 fw rules,
 *    a third on crossing wide rules; a one-tree base plus a one-tree update
 *    keeps the x32 two-tree paths);
 *  - bigger (only frozen trees of sets above 8k rules), or when that is
 *    abandoned: two spilling trees (nested or crossing rules spill instead
 *    of being copied: 6 ms instead of 50-115 for 3400 patch rules, and
 *    fewer cycles per packet there); then big leaves in one tree, then the
 *    full build's last plan (docs/acl.md, "Update and frozen trees").
 */
static const uint8_t uplans[] = { 0, 2, PLAN_TWO, 4, PLAN_EIGHT };     /* indices into plans[] */
#define NUPLANS (sizeof(uplans) / sizeof(uplans[0]))
#define UPLAN_MID 1                     /* where trees of more than UPD_SMALL boxes start */
#define UPLAN_TWO 2                     /* where trees of more than UPD_ONE_TREE boxes start */
#define UPD_SMALL 256
#define UPD_ONE_TREE 1024
#define UPD_SLACK 4096                  /* leaf entries allowed beyond max_copies per rule */

#endif /* VPK_ACL_PLAN_H */
