/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_FIB_RIB_H
#define VPK_FIB_RIB_H

/*
 * The control-plane RIB of the FIBs: every route, in a path-compressed
 * binary trie (PATRICIA-like, as DPDK's rte_rib). One implementation serves
 * IPv4 and IPv6: keys are 128 bits, most significant bit first; an IPv4
 * address a.b.c.d is the key whose top 32 bits are the address.
 *
 *            (0.0.0.0/0, route)
 *              /            \
 *     (10.0.0.0/8, route)   (128.0.0.0/1, internal: 2 children)
 *                              /                 \
 *                  (192.168.0.0/16)        (172.16.0.0/12)
 *
 * Invariants: a child's prefix strictly extends its parent's; a node that
 * holds no route (internal) has exactly two children. So the trie has at
 * most 2 x routes - 1 nodes, and a walk in child-0-first pre-order yields
 * the routes ordered by (address, length).
 *
 * Nodes live in one array addressed by 32-bit indices (48 bytes each) with a
 * free list; the array grows by doubling. Not thread-safe: one writer.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rib_key {
	uint64_t hi, lo;
};

#define RIB_NIL UINT32_MAX

struct rib_node {
	struct rib_key key;     /* host bits beyond depth are zero */
	uint64_t nh;
	uint32_t child[2];
	uint32_t parent;
	uint8_t depth;
	uint8_t is_route;
};

struct rib {
	struct rib_node *nodes;
	uint32_t cap;           /* slots allocated */
	uint32_t used;          /* slots handed out ever (high-water mark) */
	uint32_t free_head;     /* free list through child[0] */
	uint32_t nb_nodes;      /* live nodes */
	uint32_t nb_routes;
	uint32_t max_routes;
	uint32_t root;
	uint8_t max_depth;      /* 32 or 128 */
};

/* Callback for walks: return non-zero to stop the walk (that value is returned). */
typedef int (*rib_walk_fn)(void *arg, const struct rib_key *key, uint8_t depth, uint64_t nh);

/* 0, or -ENOMEM. */
int vpk_rib_init(struct rib *r, uint8_t max_depth, uint32_t max_routes);
void vpk_rib_fini(struct rib *r);

/* Key helpers. */
struct rib_key vpk_rib_key_mask(struct rib_key k, unsigned depth);
static inline struct rib_key
rib_key4(uint32_t ip)
{
	struct rib_key k = { (uint64_t)ip << 32, 0 };
	return k;
}

/* Node index of the route (k, depth), or RIB_NIL. k must be masked. */
uint32_t vpk_rib_find(const struct rib *r, struct rib_key k, uint8_t depth);

/*
 * One descent: the route (k, depth) if present (else RIB_NIL), and the next
 * hop of the longest route strictly shorter that covers it (*has_parent).
 */
uint32_t vpk_rib_find_with_parent(const struct rib *r, struct rib_key k, uint8_t depth, bool *has_parent,
				  uint64_t *parent_nh);

/* First-level more-specific routes below route node i (see vpk_rib_children()). */
int vpk_rib_children_of(const struct rib *r, uint32_t i, rib_walk_fn fn, void *arg);

/*
 * Add a route or replace its next hop. k must be masked.
 * @return 0 (and *old_nh / *existed set), -ENOMEM when the route count is
 *         at max_routes or memory runs out: nothing changed then.
 */
int vpk_rib_insert(struct rib *r, struct rib_key k, uint8_t depth, uint64_t nh, bool *existed);
/* The same, also giving the route's node index. */
int vpk_rib_insert_at(struct rib *r, struct rib_key k, uint8_t depth, uint64_t nh, bool *existed, uint32_t *at);

/* Remove the route: 0 or -ENOENT. */
int vpk_rib_remove(struct rib *r, struct rib_key k, uint8_t depth);

/*
 * The longest route strictly shorter than depth covering (k, depth).
 * @return true and *nh, *pdepth set; false if none.
 */
bool vpk_rib_parent(const struct rib *r, struct rib_key k, uint8_t depth, uint64_t *nh, uint8_t *pdepth);

/*
 * The first-level more-specific routes of (k, depth): routes strictly inside
 * the prefix that no other route strictly inside it covers, in address order.
 */
int vpk_rib_children(const struct rib *r, struct rib_key k, uint8_t depth, rib_walk_fn fn, void *arg);

/* True when some route strictly longer than depth lies inside (k, depth). */
bool vpk_rib_has_longer(const struct rib *r, struct rib_key k, uint8_t depth);

/* Every route in (address, length) order. */
int vpk_rib_walk(const struct rib *r, rib_walk_fn fn, void *arg);

/* Longest-prefix match on the trie itself (slow path, tests). */
bool vpk_rib_lpm(const struct rib *r, struct rib_key k, uint64_t *nh);

/* Bytes of the node array. */
size_t vpk_rib_mem(const struct rib *r);

#endif /* VPK_FIB_RIB_H */
