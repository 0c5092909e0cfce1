/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_ACL_FAMILY_H
#define VPK_TOOL_ACL_FAMILY_H

/*
 * Rule sets of the 12 ClassBench families (acl1..acl5, fw1..fw5, ipc1..ipc2)
 * generated from the published statistics of their seed filter sets
 * (acl_seeds.c): protocol mix, port-pair classes per protocol (WC, HI, LO,
 * AR, EM for each port), the arbitrary-range and exact-port lists,
 * (source, destination) prefix-length pairs per port-pair class, and the
 * address tries' branching and skew per depth (nesting and overlap).
 * The generator is ours (acl_family.c); only the numbers are ClassBench's.
 */
#include <stdbool.h>
#include <stdint.h>

#include <vpk/acl_file.h>

#define VPK_ACL_FAMILIES 12

extern const char *const vpk_acl_seed_text[VPK_ACL_FAMILIES];

/** "acl1" .. "ipc2" for 0..11, NULL beyond. */
const char *vpk_acl_family_name(unsigned fam);

/** Index of a family name, or -1. */
int vpk_acl_family_from_name(const char *name);

/**
 * @p n distinct rules of family @p fam (IPv6: every IPv4 prefix bit becomes
 * a 4-bit step, so lengths, nesting and overlap carry over), ordered
 * specific-first, none a full wildcard. Same arguments, same output.
 * @return 0, -EINVAL (bad family, n 0 or > 2^24, the family cannot give n
 *         distinct rules), -ENOMEM.
 */
int vpk_acl_family_rules(unsigned fam, bool ipv6, uint32_t n, uint64_t seed, struct vpk_acl5_rule **out);

#endif /* VPK_TOOL_ACL_FAMILY_H */
