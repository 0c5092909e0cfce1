/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_FIB_BM16_H
#define VPK_FIB_BM16_H

/*
 * Compressed IPv4 dataplane "bm16" (VPK_FIB_BM16): a 2^16-entry direct table
 * plus popcount-compressed 256-way nodes for the /24 and /32 levels, in the
 * spirit of Poptrie's leaf vectors and DXR's range compression. It is derived
 * from the DIR-24-8 tables the control plane keeps (dir24_8.h): after every
 * change the touched /16 chunks are recompressed.
 *
 *   direct[ip >> 16]: u32   bit0 = 0: next hop = value >> 1
 *                           bit0 = 1: node at arena word (value >> 1)
 *   node (u32 words, 64-byte aligned):
 *                           bm[8] (8 x 32 bits: bit j of word h set where a
 *                           run of equal entries starts at index 32h + j;
 *                           bit 0 of word 0 always set)
 *                           cum[8] (u8 in words 8-9: runs starting before
 *                           word h, at most 224)
 *                           val[runs] (u32, same encoding as direct; at the
 *                           /24 level bit0 = 1 points to a /32-level node)
 *   entry x of a node = val[cum[x >> 5] + popcount(bm[x >> 5] & ~0u >> (31 - x % 32)) - 1]
 *   A lookup reads one header line (bitmap word + run count) and one value.
 *
 * The real RouteViews table (606 k routes) takes a few MiB instead of 64+ MiB,
 * so random lookups hit L2/LLC instead of DRAM. Next hops must fit 31 bits
 * (entry widths 1, 2 and 4 bytes).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vpk/isa.h>

#include "fib/dir24_8.h"

#define BM16_HDR_WORDS 10u      /* 8 words of bitmap + 2 words of run counts */
#define BM16_LINE_WORDS 16u     /* nodes start on 64-byte lines */
#define BM16_MAX_LINES 17u      /* 10 + 256 words */

/*
 * Concurrency (one writer, lock-free readers): the arena is one reserved
 * mapping that never moves; a node is never changed once published. A
 * changed /16 chunk gets a new /24-level node (and new /32-level nodes for
 * the /24s the change touched), published by one release store of its
 * direct entry; the nodes it replaced are then freed, or parked until
 * vpk_bm16_reclaim() when deferral is on.
 */
struct bm16 {
	void *map;              /* the reservation holding both */
	size_t map_len;
	uint32_t *direct;       /* 2^16 */
	uint32_t *arena;        /* nodes; word 0..15 stay zero (a leaf's dummy header) */
	size_t arena_cap;       /* words reserved */
	size_t top;             /* words handed out so far (bump) */
	size_t live_lines;      /* lines in published or building nodes */
	struct { uint32_t *at; size_t n, cap; } free[BM16_MAX_LINES + 1];  /* per line count */
	uint32_t *pending;      /* parked nodes (arena words) while deferral is on */
	size_t npending, pending_cap;
	bool defer;
	size_t nodes;
	uint64_t has_ext[(1u << 16) / 64];     /* chunk's node holds /32-level nodes */
};
typedef void (*bm16_lookup_fn)(const struct bm16 *b, const uint32_t *ips, uint64_t *nhs, size_t n);

struct bm16_impl {
	struct vpk_impl impl;
	bm16_lookup_fn lookup;
};

extern const struct vpk_impl *const vpk_bm16_impls[];

/* 0 or -ENOMEM (the arena cannot be reserved). */
int vpk_bm16_init(struct bm16 *b, uint64_t default_nh);
void vpk_bm16_fini(struct bm16 *b);
/*
 * The DIR-24-8 tables (4-byte entries) changed in addresses [first, last]:
 * recompress the /16 chunks they span, rebuilding the /32-level nodes of the
 * /24s in the range only; a chunk whose node comes out equal is left alone.
 * 0 or -ENOMEM (arena exhausted: the chunks before the failing one are
 * updated, the rest are not).
 */
int vpk_bm16_update(struct bm16 *b, const struct dir24_8 *dp, uint32_t first, uint32_t last);
/* Free the parked nodes (every reader has quiesced since they were replaced); returns how many. */
size_t vpk_bm16_reclaim(struct bm16 *b);
/* Bytes the lookup structure occupies (direct table + live nodes, whole lines). */
size_t vpk_bm16_bytes(const struct bm16 *b);

#endif
