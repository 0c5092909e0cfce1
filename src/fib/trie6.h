/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_FIB_TRIE6_H
#define VPK_FIB_TRIE6_H

/*
 * IPv6 dataplane (the layout of DPDK rte_fib6 TRIE):
 *
 *   tbl24[a0 << 16 | a1 << 8 | a2]      level 0, first 3 address bytes
 *   entry = value << 1 | ext
 *     ext == 0: value is the next hop
 *     ext == 1: value is a group g; next level entry = tbl8[g * 256 + a[k]]
 *   levels 1..13 use address bytes 3..15 (a /128 walks 14 tables).
 *
 * Leaf-pushed: every entry holds the final answer for its range. Groups come
 * from a LIFO free stack and fold back into their parent entry when all 256
 * entries are equal and plain (no ext).
 *
 * Ranges are 128-bit integers (address bytes big-endian). A write first runs
 * dry to count the groups it would allocate, so -ENOSPC is decided before
 * any change; the count is exact for the current table (frees made by the
 * same write are not credited).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vpk/isa.h>

#define TRIE6_TBL24_SIZE (1u << 24)
#define TRIE6_GROUP 256u
#define TRIE6_MAX_TBL8 (1u << 23)

typedef unsigned __int128 u128;

struct trie6 {
	void *tbl24;
	void *tbl8;
	unsigned nh_sz, nh_log;
	uint32_t num_tbl8;
	uint32_t tbl8_used;
	uint32_t tbl8_hwm;
	uint32_t *free_stack;   /* free group indices */
	uint32_t nfree;
	uint32_t *pending;      /* freed while deferral is on */
	uint32_t npending;
	bool defer;
	uint64_t default_nh;
	size_t tbl24_bytes, tbl8_bytes;
	struct trie6_track *track;      /* change tracking for a derived layout, or NULL */
};

/*
 * Change tracking for a layout derived from the trie (bm6.c): the writer
 * marks every group it writes into or allocates, every tbl24 slice of 256
 * entries (one 2^16 prefix) it touches, and reports groups it frees.
 */
struct trie6_track {
	uint8_t *gdirty;                /* per group */
	uint8_t *glo, *ghi;             /* per dirty group: entries written, first and last */
	uint64_t *sdirty;               /* bitmap over the 2^16 slices */
	uint8_t *slo, *shi;             /* per dirty slice: entries written, first and last */
	uint32_t *slices;               /* dirty slices, in marking order */
	uint32_t nslices;
	void (*on_free)(void *ctx, uint32_t g);
	void *ctx;
};

typedef void (*trie6_lookup_fn)(const struct trie6 *t, const uint8_t (*ips)[16], uint64_t *nhs, size_t n);

/* Variants: one function per entry width, index nh_log - 1 (2, 4, 8 bytes). */
struct trie6_impl {
	struct vpk_impl impl;
	trie6_lookup_fn lookup[3];
};

extern const struct vpk_impl *const vpk_trie6_impls[];

int vpk_trie6_init(struct trie6 *t, unsigned nh_sz, uint32_t num_tbl8, uint64_t default_nh);
void vpk_trie6_fini(struct trie6 *t);
/* Groups that writing nh over [first, last] would allocate. */
uint64_t vpk_trie6_groups_needed(const struct trie6 *t, u128 first, u128 last, uint64_t nh);
/* Write nh over [first, last]; the caller checked vpk_trie6_groups_needed() <= free groups. */
void vpk_trie6_write_range(struct trie6 *t, u128 first, u128 last, uint64_t nh);
/* Return deferred groups to the free pool; returns how many. */
uint32_t vpk_trie6_reclaim(struct trie6 *t);
uint64_t vpk_trie6_lookup1(const struct trie6 *t, const uint8_t ip[16]);

#endif
