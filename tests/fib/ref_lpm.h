/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TEST_REF_LPM_H
#define VPK_TEST_REF_LPM_H

/*
 * A plain reference longest-prefix match for the FIB tests: one sorted array
 * of prefixes per length, binary-searched from the longest length down.
 * Keys are 128 bits (IPv4 in the top 32 bits of hi), like the RIB's, but the
 * code shares nothing with it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ref_route {
	uint64_t hi, lo;        /* masked prefix */
	uint64_t nh;
};

struct ref_lpm {
	unsigned bits;                  /* 32 or 128 */
	uint64_t default_nh;
	struct ref_route *d[129];
	size_t n[129], cap[129];
	size_t total;
};

void ref_init(struct ref_lpm *r, unsigned bits, uint64_t default_nh);
void ref_fini(struct ref_lpm *r);
/* Insert or replace; returns true if it replaced. */
bool ref_add(struct ref_lpm *r, uint64_t hi, uint64_t lo, unsigned depth, uint64_t nh);
/* Returns false if absent. */
bool ref_del(struct ref_lpm *r, uint64_t hi, uint64_t lo, unsigned depth);
bool ref_get(const struct ref_lpm *r, uint64_t hi, uint64_t lo, unsigned depth, uint64_t *nh);
uint64_t ref_lookup(const struct ref_lpm *r, uint64_t hi, uint64_t lo);
void ref_mask(unsigned depth, uint64_t *hi, uint64_t *lo);

static inline uint64_t
ref_lookup4(const struct ref_lpm *r, uint32_t ip)
{
	return ref_lookup(r, (uint64_t)ip << 32, 0);
}

#endif
