/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_FIB_DIR24_8_H
#define VPK_FIB_DIR24_8_H

/*
 * DIR-24-8 dataplane of the IPv4 FIB (the layout of DPDK rte_fib):
 *
 *   tbl24[ip >> 8]          entry = value << 1 | ext
 *        ext == 0  ->  value is the next hop
 *        ext == 1  ->  value is a tbl8 group g:
 *                      tbl8[g * 256 + (ip & 0xff)] = nh << 1
 *
 * Entries are 1, 2, 4 or 8 bytes (nh_sz). Both tables are anonymous mmaps:
 * untouched pages cost nothing, and a default next hop of 0 needs no fill.
 * Both carry 8 bytes of slack after their last entry because the vector
 * lookups gather 4 bytes for 1- and 2-byte entries.
 *
 * Leaf pushing: every entry holds the final answer for its range, so a
 * lookup is one load plus, for the few /24s with longer routes, a second.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vpk/isa.h>

#define DIR24_8_TBL24_SIZE (1u << 24)
#define DIR24_8_GROUP 256u
#define DIR24_8_MAX_TBL8 (1u << 23)    /* group * 256 * 8 fits a signed 32-bit gather index */

struct dir24_8 {
	void *tbl24;
	void *tbl8;
	unsigned nh_sz;         /* 1, 2, 4, 8 */
	unsigned nh_log;        /* log2(nh_sz) */
	uint32_t num_tbl8;
	uint32_t tbl8_used;
	uint32_t tbl8_hwm;      /* groups ever touched (resident bound) */
	uint64_t *tbl8_free;    /* bitmap: 1 = free */
	uint32_t *pending;      /* freed while deferral is on, awaiting vpk_dir24_8_reclaim() */
	uint32_t npending;
	bool defer;
	uint64_t default_nh;
	size_t tbl24_bytes, tbl8_bytes;
};

typedef void (*dir24_8_lookup_fn)(const struct dir24_8 *dp, const uint32_t *ips, uint64_t *nhs, size_t n);

/* One lookup variant: a function per entry width (index nh_log). */
struct dir24_8_impl {
	struct vpk_impl impl;
	dir24_8_lookup_fn lookup[4];
};

extern const struct vpk_impl *const vpk_dir24_8_impls[];

/* 0 or -ENOMEM. */
int vpk_dir24_8_init(struct dir24_8 *dp, unsigned nh_sz, uint32_t num_tbl8, uint64_t default_nh);
void vpk_dir24_8_fini(struct dir24_8 *dp);

/*
 * Write nh into every address of [first, last] (inclusive).
 * Partial /24s go to tbl8 groups: the caller guarantees (by reservation)
 * that a free group exists whenever one is needed.
 */
void vpk_dir24_8_write_range(struct dir24_8 *dp, uint64_t first, uint64_t last, uint64_t nh);

/* Return deferred groups to the free pool; returns how many. */
uint32_t vpk_dir24_8_reclaim(struct dir24_8 *dp);

/* Single lookup (control plane, tests). */
uint64_t vpk_dir24_8_lookup1(const struct dir24_8 *dp, uint32_t ip);

#endif /* VPK_FIB_DIR24_8_H */
