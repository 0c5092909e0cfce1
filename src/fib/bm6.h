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
 * Every byte-2 (slice) and byte-3 node is direct (at least
 * BM6_DIRECT_RUNS / BM6_DIRECT3_RUNS runs = 1), and so is every node of
 * byte BM6_DIRECT_DEEP (6) or deeper that is not a skip node (below); the
 * nodes of bytes 4 and 5 (/33../48, the bulk of real tables) are
 * compressed:
 * a direct node is 256 plain entries from its first line, one gather for
 * the level instead of two, and, since every lane of a vector block is
 * then in a direct node at bytes 2 and 3, the header gather of those
 * levels is never issued (docs/fib.md, "bm6"). The kernels check the kind
 * (bit 1) at every level; from byte BM6_DIRECT_DEEP on only the scalar
 * steps walk (STEPK, bm6_walk.h), each lane at its own byte.
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
 * A node of byte BM6_DIRECT_DEEP or deeper whose 256 entries are one leaf L
 * but for one entry X (a chain link: typically one longer route below its
 * covering route) is a skip node instead (entry bit 1 clear at those
 * bytes, where no node is compressed), one line that stands for the whole
 * chain below it while every link has the same L:
 *     bytes 0-15:  P, the address bytes of the chain at their positions
 *                  (byte k..k+s-1 for a node at byte k), 0 elsewhere
 *     bytes 16-31: M, 0xff at those positions, 0 elsewhere
 *     bytes 32-39: X of the last link (a leaf or a node at byte k+s)
 *     bytes 40-47: L
 *     byte 48:     s (1..16-k)
 * An address a continues with X at byte k+s if a & M == P, else ends with
 * L: a /128 host route below a /64 is one skip node where it was eight
 * direct nodes of 256 entries. P's bytes 0-5 are zero, so byte 0 tells a
 * skip node from a compressed one (whose bit 0 is always set).
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
#define BM6_DIRECT_DEEP 6u      /* nodes of bytes 6..15 (below /48): direct or skip nodes */
#define BM6_SKIP_X 32u           /* skip node: byte offsets of X, L and s (P at 0, M at 16) */
#define BM6_SKIP_L 40u
#define BM6_SKIP_S 48u
#define BM6_TAIL_LV 3u          /* vector kernels: from level (address byte) 3 on, a block with */
#define BM6_TAIL_N 4u           /* at most 4 of 16 lanes left (2 of 8) is finished by scalar steps */
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

#endif
