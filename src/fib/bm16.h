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
 *   direct[ip >> 16]: u32   bit0 = 0: next hop = value >> 1 (a leaf)
 *                           bit0 = 1: node at arena word (value >> 2),
 *                           bit1 = 1: a flat node, else a compressed one
 *                           bit2 = 1 (flat only): a narrow flat node
 *                           (node words are whole lines: bits 2-5 of a
 *                           node entry are otherwise zero)
 *   flat node (a dense chunk: at least flat_min runs, kept down to half):
 *                           256 u32 entries, entry x at word x
 *   narrow flat node (`narrow` set, i.e. next hops of at most
 *                           2 bytes, and no entry is a /32-level node):
 *                           256 u16 entries (leaves, nh << 1 < 2^16),
 *                           entry x at half-word x (8 lines instead of 16)
 *   compressed node (u32 words, 64-byte aligned):
 *                           bm[8] (8 x 32 bits: bit j of word h set where a
 *                           run of equal entries starts at index 32h + j;
 *                           bit 0 of word 0 always set)
 *                           cum[8] (u8 in words 8-9: runs starting before
 *                           word h, at most 224)
 *                           val[runs] (u32, same encoding as direct; at the
 *                           /24 level bit0 = 1 points to a /32-level node)
 *   entry x of a node = val[cum[x >> 5] + popcount(bm[x >> 5] & ~0u >> (31 - x % 32)) - 1]
 *   A lookup reads one header line (bitmap word + run count) and one value,
 *   or in a flat node the entry alone.
 *
 * The real RouteViews table (606 k routes) takes 12 MiB at 4-byte next hops
 * (9 with the flat threshold at 32 runs, 4.5 without flat nodes; 9.1 at 1-2
 * bytes with narrow flat nodes flat from 8 runs) instead of 64+ MiB, so
 * random lookups hit L2/LLC instead of DRAM. Next hops must fit 31 bits
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
#define BM16_FLAT 2u            /* entry bit: a flat node */
#define BM16_FLAT_LINES 16u     /* 256 words */
#define BM16_NARROW 4u          /* entry bit of a flat node: 16-bit entries */
#define BM16_NARROW_LINES 8u    /* 256 half-words */
#define BM16_FLAT_MIN 16u       /* nodes with this many runs are flat (kept down to half) */
#define BM16_FLAT_MIN_NARROW 8u /* the same where flat nodes are narrow (half the size) */
#define BM16_MAX_WORDS ((UINT32_C(1) << 30) - 64)      /* entries hold word << 2 */
#define BM16_SAME UINT32_MAX    /* put(): the old entry stays */
#define BM16_NOMEM (UINT32_MAX - 2)     /* put(): the arena is exhausted (no valid node entry) */

/*
 * Concurrency (one writer, lock-free readers): the arena is one reserved
 * mapping that never moves. A compressed node is never changed once
 * published: a change builds a new one (copy-on-write), published by one
 * release store of its parent entry. A flat node is changed in place, one
 * atomic store per changed entry. Replaced nodes are then freed, or parked
 * until vpk_bm16_reclaim() when deferral is on.
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
	uint32_t *pending;      /* parked nodes (their entries) while deferral is on */
	size_t npending, pending_cap;
	bool defer;
	size_t nodes;
	uint32_t *retire;       /* entries replaced by the update in progress */
	size_t nretire, retire_cap;
	uint16_t *flat_runs_of; /* runs of the flat node at line l (mapped, control plane) */
	size_t flat_runs_len;
	unsigned flat_min;      /* BM16_FLAT_MIN, or BM16_FLAT_MIN_NARROW with narrow nodes */
	bool narrow;            /* flat nodes without /32-level entries get 16-bit entries */
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
 * carry the change over to the /16 chunks they span (only the /24 and /32
 * entries in the range are read; a node that comes out equal is left alone).
 * 0 or -ENOMEM (arena exhausted: the FIB must stop using bm16, whose chunks
 * may then be partly updated).
 */
int vpk_bm16_update(struct bm16 *b, const struct dir24_8 *dp, uint32_t first, uint32_t last);
/* Free the parked nodes (every reader has quiesced since they were replaced); returns how many. */
size_t vpk_bm16_reclaim(struct bm16 *b);
/* Bytes the lookup structure occupies (direct table + live nodes, whole lines). */
size_t vpk_bm16_bytes(const struct bm16 *b);

#endif
