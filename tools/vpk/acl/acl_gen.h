/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_ACL_GEN_H
#define VPK_ACL_GEN_H

/**
 * @file
 * A seeded ClassBench-like generator of 5-tuple rule sets and traces,
 * written from the published description of ClassBench's parameters
 * (protocol mix, port-pair classes WC/HI/LO/AR/EM, prefix-length
 * distributions, skewed address hierarchy); the profiles' numbers are our
 * own (docs/acl.md). Same seed and parameters, same output, on any machine.
 */
#include <stdbool.h>
#include <stdint.h>

#include <vpk/acl_file.h>

#ifdef __cplusplus
extern "C" {
#endif

enum vpk_acl_gen_profile {
	VPK_ACL_GEN_ACL = 0,    /**< enterprise ACL: specific destinations, service ports */
	VPK_ACL_GEN_FW = 1,     /**< firewall: more wildcards, ranges, any-protocol rules */
	VPK_ACL_GEN_FAMILY = 2, /**< + 0..11: the ClassBench families acl1..acl5, fw1..fw5, ipc1..ipc2 (acl_family.h) */
};

struct vpk_acl_gen_conf {
	enum vpk_acl_gen_profile profile;
	bool ipv6;              /**< IPv6 addresses (the "ipv6" profile is acl + ipv6) */
	uint32_t rules;         /**< how many (1..2^24) */
	uint64_t seed;
};

/**
 * Generate a rule set, ordered specific-first (priority = file order).
 * Rules are distinct and none is a full wildcard.
 * @param[out] out  malloc'd array of conf->rules rules.
 * @return 0, -EINVAL (NULL, rules 0 or > 2^24, unknown profile), -ENOMEM.
 */
int vpk_acl_gen_rules(const struct vpk_acl_gen_conf *conf, struct vpk_acl5_rule **out);

/**
 * Generate @p n trace records: (1 - random_share) of them from a random
 * rule (each field a corner of the rule's range with probability 1/2, else a
 * uniform interior point), the rest random headers. No expected column
 * (vpk_acl5_oracle() computes it).
 * @return 0, -EINVAL, -ENOMEM.
 */
int vpk_acl_gen_trace(const struct vpk_acl5_rule *r, uint32_t nr, bool ipv6, uint32_t n,
			      uint64_t seed, double random_share, struct vpk_acl5_pkt **out);

/**
 * Profile by name: "acl", "fw", "ipv6" (sets *ipv6), a ClassBench family
 * "acl1".."acl5", "fw1".."fw5", "ipc1", "ipc2", or a family with "-v6"
 * (sets *ipv6). @return 0 or -EINVAL.
 */
int vpk_acl_gen_profile_from_name(const char *name, enum vpk_acl_gen_profile *p, bool *ipv6);

/* The generators' random numbers: splitmix64 from a seed in s. */
struct acl_rng {
	uint64_t s;
};

uint64_t acl_rnd(struct acl_rng *r);
/* Uniform in [0, 1). */
double acl_unif(struct acl_rng *r);

/* A rule's sort key for the generators' final order: highest score first, then index. */
struct acl_scored {
	double score;
	uint32_t idx;
};

/* qsort() comparator of struct acl_scored. */
int acl_cmp_scored(const void *a, const void *b);

#ifdef __cplusplus
}
#endif

#endif /* VPK_ACL_GEN_H */
