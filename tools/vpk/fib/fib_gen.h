/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_FIB_GEN_H
#define VPK_TOOL_FIB_GEN_H

/*
 * Route tables and lookup sets for `vpk fib`, `vpk gen routes` and
 * `vpk bench fib`.
 *
 * Generated IPv4 tables imitate a BGP full table (research/fib.md §4):
 * the prefix-length histogram of a 2023 Tier-1 table by default (or a
 * dpdk-test-fib style "-d depth:P%,depth:COUNT" list), nothing shorter than
 * /8, nothing in 0/8, 10/8, 127/8 or 224/3, about half of the prefixes nested
 * in a shorter one (deaggregation) and /24s in runs of siblings. Seeded:
 * the same seed gives the same table.
 */
#include <stddef.h>
#include <stdint.h>

struct gen_route4 {
	uint32_t ip;            /* host order, masked */
	uint8_t depth;
	uint64_t nh;
};

/* A splitmix64 stream. */
struct gen_rng {
	uint64_t s;
};
uint64_t gen_next(struct gen_rng *r);
static inline uint64_t
gen_below(struct gen_rng *r, uint64_t n)
{
	return n ? (uint64_t)(((unsigned __int128)gen_next(r) * n) >> 64) : 0;
}

/*
 * Parse "-d" ("24:60%,22:12%,32:886"): out[d] = routes of depth d for a table
 * of n routes; unlisted depths get nothing. NULL spec: the Tier-1 histogram.
 * Returns 0 or -1 (bad spec; *why set).
 */
int gen_distribution(const char *spec, size_t n, size_t out[33], const char **why);

/* Generate a table with out counts per depth; next hops uniform in [1, nh_max]. Returns routes (malloc'd). */
struct gen_route4 *gen_routes4(const size_t count[33], uint64_t nh_max, uint64_t seed, size_t *n);

/* Shuffle routes in place. */
void gen_shuffle(void *base, size_t n, size_t size, uint64_t seed);

/* Lookup sets. */
enum gen_lookup_kind {
	GEN_LOOKUP_RANDOM,      /* uniform 32-bit addresses */
	GEN_LOOKUP_INTABLE,     /* a uniformly chosen route + random host bits */
	GEN_LOOKUP_SKEWED,      /* routes chosen with a power law (few hot prefixes) */
};
/* n addresses of a kind; pct_random % of them replaced by uniform addresses. */
void gen_lookups4(const struct gen_route4 *rt, size_t nrt, enum gen_lookup_kind kind, unsigned pct_random,
		  uint64_t seed, uint32_t *ips, size_t n);
int gen_lookup_kind(const char *name, enum gen_lookup_kind *out);


/* IPv6 (research/fib.md §4.3): all in 2000::/3, RIR regions weighted as in
 * 2023, /48 47 %, /32 14 %, /44 9 %, /40 8 %, ...; ~57 % nested. */
struct gen_route6 {
	uint8_t ip[16];
	uint8_t depth;
	uint64_t nh;
};
struct gen_route6 *gen_routes6(size_t n, uint64_t nh_max, uint64_t seed, size_t *out_n);
void gen_lookups6(const struct gen_route6 *rt, size_t nrt, enum gen_lookup_kind kind, unsigned pct_random,
		  uint64_t seed, uint8_t (*ips)[16], size_t n);

#endif
