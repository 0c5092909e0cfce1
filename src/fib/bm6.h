/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_FIB_BM6_H
#define VPK_FIB_BM6_H

/*
 * Compressed IPv6 dataplane "bm6" (VPK_FIB6_BM6): a 2^16-entry direct table
 * on the first two address bytes, then one popcount-compressed 256-way node
 * per address byte (bytes 2..15), in the spirit of Poptrie's leaf vectors
 * and DXR's range compression. Derived from the trie (trie6.h) that the
 * control plane keeps: the trie's change tracking names the slices and
 * groups an update touched, and only those nodes are rebuilt.
 *
 * Entries (direct table and node entries) are 4 bytes for 2- and 4-byte
 * next hops, 8 bytes for 8-byte ones:
 *     bit0 = 0: next hop = value >> 1
 *     bit0 = 1: node at arena line (value >> 2), direct if bit1 is set
 * Every byte-2 (slice) and byte-3 node is direct by default (at least
 * BM6_DIRECT_RUNS / BM6_DIRECT3_RUNS runs = 1; tests and A/B runs set other
 * thresholds, for any byte): 256 plain entries from its first line, one
 * gather for the level instead of two, and, since every lane of a vector
 * block is then in a direct node at bytes 2 and 3, the header gather of
 * those levels is never issued (docs/fib.md, "bm6, session 6"). The kernels
 * check the kind (bit 1) at every level.
 * A compressed node starts on a 64-byte line: a 48-byte header, then one entry per run
 * of equal entries (4 of 4 bytes or 2 of 8 bytes fit in the header's line,
 * more continue in the next lines of the node):
 *     header bytes 3j, 3j+1: w[j], 16 bits of the run bitmap (bit i set where
 *                            a run starts at entry 16j + i; bit 0 of w[0]
 *                            always set), j = 0..15, little-endian
 *     header byte 3j+2:      c[j], runs starting before entry 16j (<= 240)
 *     entry of byte b (j = b >> 4):
 *       run r = c[j] + popcount(w[j] & (0xffff >> (15 - (b & 15)))) (>= 1)
 *       at byte 48 + (r - 1) * entry size of the node
 * One 4-byte load gives w[j] and c[j] (one 32-bit gather per 16 lanes) and
 * a small node is one line, so a level costs two gathers, usually in one
 * line. An address outside every routed /16 is answered by the direct table
 * alone (256 or 512 KiB, L2-resident).
 *
 * Concurrency: nodes are never changed once reachable. An update builds the
 * changed nodes of a slice bottom-up in free arena space, publishes them
 * with one atomic store of the slice's direct entry, then retires the old
 * ones: to the free lists at once, or parked until vpk_bm6_reclaim() when
 * deferred freeing is on (trie6 groups of the control copy are private and
 * recycled at once).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vpk/isa.h>

#include "fib/trie6.h"

#define BM6_SLICES (1u << 16)
#define BM6_CLASSES 7u          /* node lines 1, 2, 4, ..., 64 */
#define BM6_HDR 48u             /* header bytes; entries follow */
#define BM6_DIRECT_RUNS 1u      /* slice nodes with this many runs are direct (kept down to half) */
#define BM6_DIRECT3_RUNS 1u     /* byte-3 nodes with this many runs are direct (kept down to half) */
#define BM6_TAIL_LV 3u          /* vector kernels: from level (address byte) 3 on, a block with */
#define BM6_TAIL_N 4u           /* at most 4 of 16 lanes left (2 of 8) is finished by scalar steps */
#define BM6_TAIL_Q 5u           /* avx512, 4-byte entries: lanes parked from byte 5 on are queued */
#define BM6_PIPE 2u             /* avx512, 4-byte entries: the software-pipelined walk, queue in 32s (docs/fib.md) */
#define BM6_TQ_CHUNK ((size_t)1 << 26)  /* addresses per queue chunk: 16 x address index stays below 2^31 */

struct bm6_vec {
	uint32_t *v;
	size_t n, cap;
};

struct bm6 {
	void *direct;           /* 2^16 entries */
	void *arena;            /* 64-byte lines (< 2^25); line 0 unused */
	unsigned ent64;         /* 0: 4-byte entries, 1: 8-byte */
	size_t lines_cap, lines_top;    /* bump allocator, in lines */
	size_t lines_live;
	uint32_t *node_of;      /* trie6 group -> line << 1 | direct of its node (0 = none) */
	uint32_t *slice_node;   /* slice -> line << 1 | direct of its node (0 = leaf) */
	struct bm6_vec free_[BM6_CLASSES];
	struct bm6_vec parked;  /* deferred: line << 3 | class */
	struct bm6_vec retire;  /* this update: line << 3 | class */
	bool defer;
	unsigned dir_runs;      /* BM6_DIRECT_RUNS (tests lower it to exercise direct nodes) */
	uint16_t dir_at[16];    /* nodes at byte 3..15: the same (BM6_DIRECT3_RUNS at byte 3, else 257: never) */
	unsigned tail_lv, tail_n;       /* vector kernels: finish a block by scalar steps from byte tail_lv
					 * once at most tail_n lanes continue (BM6_TAIL_LV, BM6_TAIL_N) */
	unsigned tail_q;        /* avx512, 4-byte entries: lanes parked from this byte on are queued
				 * across groups and walked 16 at a time (BM6_TAIL_Q) */
	unsigned pipe;          /* avx512, 4-byte entries: 0 = lock step, 1 = software-pipelined walk with the
				 * deep-lane queue walked 16 lanes at a time, 2 = 32 at a time (BM6_PIPE) */
	size_t tq_chunk;        /* ... within chunks of this many addresses (BM6_TQ_CHUNK; tests lower it) */
	struct trie6_track track;
};

typedef void (*bm6_lookup_fn)(const struct bm6 *b, const uint8_t (*ips)[16], uint64_t *nhs, size_t n);

/* Variants: index ent64 (4-byte, 8-byte entries). */
struct bm6_impl {
	struct vpk_impl impl;
	bm6_lookup_fn lookup[2];
};

extern const struct vpk_impl *const vpk_bm6_impls[];

/* Set up for trie t (already initialised) and attach the change tracking. 0 or -ENOMEM. */
int vpk_bm6_init(struct bm6 *b, struct trie6 *t);
void vpk_bm6_fini(struct bm6 *b, struct trie6 *t);
/* Whether the arena surely has room for an update that may touch [first, last]. */
bool vpk_bm6_room(const struct bm6 *b, const struct trie6 *t, u128 first, u128 last, uint64_t more_groups);
/* Rebuild and publish what the trie writes since the last sync touched. */
void vpk_bm6_sync(struct bm6 *b, struct trie6 *t);
/* Return parked nodes to the free lists; returns how many. */
uint32_t vpk_bm6_reclaim(struct bm6 *b);
/* Bytes the lookup structure occupies (direct table + arena lines in use or parked). */
size_t vpk_bm6_bytes(const struct bm6 *b);
uint64_t vpk_bm6_lookup1(const struct bm6 *b, const uint8_t ip[16]);

struct vpk_fib6;
/*
 * Tests: set a bm6 FIB's direct-node threshold (>= 1; 1 makes every slice
 * node direct, > 256 none). Safe between updates: nodes change kind when next
 * rebuilt. 0, or -EINVAL if fib is not bm6 or runs is 0.
 */
int vpk_fib6_bm6_dir_runs(struct vpk_fib6 *fib, unsigned runs);
/* Tests and A/B runs: the same for the nodes at address byte `by` (3..15). 0, or -EINVAL. */
int vpk_fib6_bm6_dir_runs_at(struct vpk_fib6 *fib, unsigned by, unsigned runs);
/*
 * Tests and A/B runs: the vector kernels finish a block by scalar steps from
 * address byte lv (>= 2) once at most n lanes continue (n / 2 for 8-lane
 * blocks; 0: never, 16: at once). 0, or -EINVAL if fib is not bm6 or lv < 2.
 */
int vpk_fib6_bm6_tail(struct vpk_fib6 *fib, unsigned lv, unsigned n);
/*
 * Tests and A/B runs: the avx512 4-byte kernel queues the lanes it parks
 * from address byte lv on (> 15: never) and walks them 16 at a time with
 * gathers; the others take scalar steps at the end of their group. 0, or
 * -EINVAL if fib is not bm6 or lv < 2.
 */
int vpk_fib6_bm6_tail_queue(struct vpk_fib6 *fib, unsigned lv);
/*
 * Tests: the avx512 4-byte kernel cuts a call into chunks of n addresses (its
 * queue holds 32-bit address indices; BM6_TQ_CHUNK by default), so a test can
 * cross chunk boundaries without 2^26 addresses. 0, or -EINVAL if fib is not
 * bm6 or n < 64.
 */
int vpk_fib6_bm6_tq_chunk(struct vpk_fib6 *fib, size_t n);
/*
 * Tests and A/B runs: the avx512 4-byte kernel walks blocks in lock step
 * with scalar tails (0) or software-pipelined, its deep-lane queue walked
 * 16 (1) or 32 (2, BM6_PIPE) lanes at a time. 0, or -EINVAL if fib is not
 * bm6 or on > 2.
 */
int vpk_fib6_bm6_pipe(struct vpk_fib6 *fib, unsigned on);

#endif
