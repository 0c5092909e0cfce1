/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Path-compressed binary trie of routes (the RIB behind vpk_fib and
 * vpk_fib6). Workload: control plane only; ~1 M routes, each add/delete
 * walks at most `depth` nodes. See rib.h for the layout and invariants.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fib/rib.h"

static inline unsigned
key_bit(struct rib_key k, unsigned i)
{
	return i < 64 ? (unsigned)(k.hi >> (63 - i)) & 1 : (unsigned)(k.lo >> (127 - i)) & 1;
}

struct rib_key
vpk_rib_key_mask(struct rib_key k, unsigned depth)
{
	if (depth == 0) {
		k.hi = 0;
		k.lo = 0;
	} else if (depth < 64) {
		k.hi &= ~UINT64_C(0) << (64 - depth);
		k.lo = 0;
	} else if (depth == 64) {
		k.lo = 0;
	} else if (depth < 128) {
		k.lo &= ~UINT64_C(0) << (128 - depth);
	}
	return k;
}

/* Length of the common prefix of a and b, at most lim. */
static inline unsigned
common_len(struct rib_key a, struct rib_key b, unsigned lim)
{
	uint64_t x = a.hi ^ b.hi;
	unsigned n;

	if (x != 0)
		n = (unsigned)__builtin_clzll(x);
	else if ((x = a.lo ^ b.lo) != 0)
		n = 64 + (unsigned)__builtin_clzll(x);
	else
		n = 128;
	return n < lim ? n : lim;
}

/* Does prefix (k, depth) contain the node's prefix (node deeper or equal)? */
static inline bool
contains(struct rib_key k, unsigned depth, const struct rib_node *n)
{
	return n->depth >= depth && common_len(k, n->key, depth) == depth;
}

/*
 * The node array is an anonymous mapping grown by mremap() and advised for
 * transparent huge pages: a full IPv4 table needs ~58 MiB of nodes, which as
 * malloc()/realloc() memory took ~14 000 first-touch 4 KiB page faults, about
 * 80 cycles per added route (docs/fib.md, "Fresh vs warm memory").
 */
static size_t
nodes_bytes(uint64_t cap)
{
	return ((size_t)cap * sizeof(struct rib_node) + 4095) & ~(size_t)4095;
}

static struct rib_node *
nodes_map(struct rib_node *old, uint64_t old_cap, uint64_t cap)
{
	size_t bytes = nodes_bytes(cap);
	void *p = old == NULL ? mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
			      : mremap(old, nodes_bytes(old_cap), bytes, MREMAP_MAYMOVE);

	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	if (bytes >= ((size_t)4 << 20))
		(void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
	return p;
}

int
vpk_rib_init(struct rib *r, uint8_t max_depth, uint32_t max_routes)
{
	memset(r, 0, sizeof(*r));
	r->max_depth = max_depth;
	r->max_routes = max_routes;
	r->root = RIB_NIL;
	r->free_head = RIB_NIL;
	r->cap = 64;
	r->nodes = nodes_map(NULL, 0, r->cap);
	return r->nodes != NULL ? 0 : -ENOMEM;
}

void
vpk_rib_fini(struct rib *r)
{
	if (r->nodes != NULL)
		munmap(r->nodes, nodes_bytes(r->cap));
	memset(r, 0, sizeof(*r));
	r->root = RIB_NIL;
}

size_t
vpk_rib_mem(const struct rib *r)
{
	return sizeof(*r->nodes) * (size_t)r->cap;
}

/* Make sure `need` more nodes can be allocated without failing. */
static int
reserve(struct rib *r, uint32_t need)
{
	uint32_t avail = r->cap - r->used;
	uint32_t f = r->free_head;

	while (f != RIB_NIL && avail < need) {
		avail++;
		f = r->nodes[f].child[0];
	}
	if (avail >= need)
		return 0;
	uint64_t ncap = (uint64_t)r->cap * 2;
	if (ncap > UINT32_MAX - 1)
		return -ENOMEM;
	struct rib_node *n = nodes_map(r->nodes, r->cap, ncap);
	if (n == NULL)
		return -ENOMEM;
	r->nodes = n;
	r->cap = (uint32_t)ncap;
	return 0;
}

static uint32_t
node_new(struct rib *r, struct rib_key k, uint8_t depth)
{
	uint32_t i;

	if (r->free_head != RIB_NIL) {
		i = r->free_head;
		r->free_head = r->nodes[i].child[0];
	} else {
		i = r->used++;
	}
	struct rib_node *n = &r->nodes[i];
	n->key = k;
	n->depth = depth;
	n->is_route = 0;
	n->nh = 0;
	n->child[0] = n->child[1] = RIB_NIL;
	n->parent = RIB_NIL;
	r->nb_nodes++;
	return i;
}

static void
node_free(struct rib *r, uint32_t i)
{
	r->nodes[i].child[0] = r->free_head;
	r->nodes[i].is_route = 0;
	r->free_head = i;
	r->nb_nodes--;
}

/* Point the link that leads to `old` (in old's parent, or the root) at `nu`. */
static void
relink(struct rib *r, uint32_t parent, uint32_t old, uint32_t nu)
{
	if (parent == RIB_NIL) {
		r->root = nu;
	} else {
		struct rib_node *p = &r->nodes[parent];
		p->child[p->child[0] == old ? 0 : 1] = nu;
	}
	if (nu != RIB_NIL)
		r->nodes[nu].parent = parent;
}

/*
 * The route node (k, depth) or RIB_NIL; with @track, *has_parent and
 * *parent_nh say whether a route above it exists and its next hop. Always
 * inlined, so the untracked lookup carries none of the tracking.
 */
static inline __attribute__((always_inline)) uint32_t
find(const struct rib *r, struct rib_key k, uint8_t depth, const bool track, bool *has_parent, uint64_t *parent_nh)
{
	uint32_t cur = r->root;

	if (track)
		*has_parent = false;
	while (cur != RIB_NIL) {
		const struct rib_node *n = &r->nodes[cur];

		if (n->depth > depth || common_len(k, n->key, n->depth) < n->depth)
			return RIB_NIL;
		if (n->depth == depth)
			return n->is_route ? cur : RIB_NIL;
		if (track && n->is_route) {
			*has_parent = true;
			*parent_nh = n->nh;
		}
		cur = n->child[key_bit(k, n->depth)];
	}
	return RIB_NIL;
}

uint32_t
vpk_rib_find_with_parent(const struct rib *r, struct rib_key k, uint8_t depth, bool *has_parent, uint64_t *parent_nh)
{
	return find(r, k, depth, true, has_parent, parent_nh);
}

uint32_t
vpk_rib_find(const struct rib *r, struct rib_key k, uint8_t depth)
{
	return find(r, k, depth, false, NULL, NULL);
}

int
vpk_rib_insert(struct rib *r, struct rib_key k, uint8_t depth, uint64_t nh, bool *existed)
{
	uint32_t at;
	uint64_t old, pnh;
	bool hp;

	return vpk_rib_insert_at(r, k, depth, nh, existed, &at, &old, &hp, &pnh);
}

int
vpk_rib_insert_at(struct rib *r, struct rib_key k, uint8_t depth, uint64_t nh, bool *existed, uint32_t *at,
		  uint64_t *old_nh, bool *has_parent, uint64_t *parent_nh)
{
	uint32_t cur = r->root, parent = RIB_NIL;
	unsigned l = 0;

	*existed = false;
	*has_parent = false;
	while (cur != RIB_NIL) {
		struct rib_node *n = &r->nodes[cur];

		l = common_len(k, n->key, n->depth < depth ? n->depth : depth);
		if (l < n->depth)
			break;
		if (n->depth == depth) {
			*at = cur;
			if (n->is_route) {
				*existed = true;
				*old_nh = n->nh;
				n->nh = nh;
				return 0;
			}
			if (r->nb_routes >= r->max_routes)
				return -ENOMEM;
			n->is_route = 1;
			n->nh = nh;
			r->nb_routes++;
			return 0;
		}
		if (n->is_route) {
			*has_parent = true;
			*parent_nh = n->nh;
		}
		parent = cur;
		cur = n->child[key_bit(k, n->depth)];
	}
	if (r->nb_routes >= r->max_routes || reserve(r, 2) != 0)
		return -ENOMEM;

	uint32_t leaf = node_new(r, k, depth);
	*at = leaf;
	r->nodes[leaf].is_route = 1;
	r->nodes[leaf].nh = nh;
	r->nb_routes++;
	if (cur == RIB_NIL) {
		if (parent == RIB_NIL) {
			r->root = leaf;
		} else {
			struct rib_node *p = &r->nodes[parent];
			p->child[key_bit(k, p->depth)] = leaf;
			r->nodes[leaf].parent = parent;
		}
		return 0;
	}
	/* cur's prefix diverges from k at bit l (l < cur depth). */
	if (l == depth) {
		/* The new route covers cur: insert above it. */
		relink(r, parent, cur, leaf);
		r->nodes[leaf].child[key_bit(r->nodes[cur].key, depth)] = cur;
		r->nodes[cur].parent = leaf;
		return 0;
	}
	uint32_t mid = node_new(r, vpk_rib_key_mask(k, l), (uint8_t)l);
	relink(r, parent, cur, mid);
	unsigned b = key_bit(k, l);
	r->nodes[mid].child[b] = leaf;
	r->nodes[mid].child[b ^ 1] = cur;
	r->nodes[leaf].parent = mid;
	r->nodes[cur].parent = mid;
	return 0;
}

int
vpk_rib_remove(struct rib *r, struct rib_key k, uint8_t depth)
{
	uint32_t i = vpk_rib_find(r, k, depth);

	if (i == RIB_NIL)
		return -ENOENT;
	struct rib_node *n = &r->nodes[i];
	n->is_route = 0;
	r->nb_routes--;
	for (;;) {
		n = &r->nodes[i];
		if (n->is_route)
			return 0;
		unsigned nc = (n->child[0] != RIB_NIL) + (n->child[1] != RIB_NIL);
		uint32_t parent = n->parent;
		if (nc == 2)
			return 0;
		if (nc == 1) {
			relink(r, parent, i, n->child[0] != RIB_NIL ? n->child[0] : n->child[1]);
			node_free(r, i);
			return 0;
		}
		relink(r, parent, i, RIB_NIL);
		node_free(r, i);
		if (parent == RIB_NIL)
			return 0;
		i = parent;     /* it may now be an internal node with one child */
	}
}

bool
vpk_rib_parent(const struct rib *r, struct rib_key k, uint8_t depth, uint64_t *nh, uint8_t *pdepth)
{
	uint32_t cur = r->root;
	bool found = false;

	while (cur != RIB_NIL) {
		const struct rib_node *n = &r->nodes[cur];

		if (n->depth >= depth || common_len(k, n->key, n->depth) < n->depth)
			break;
		if (n->is_route) {
			found = true;
			*nh = n->nh;
			if (pdepth != NULL)
				*pdepth = n->depth;
		}
		cur = n->child[key_bit(k, n->depth)];
	}
	return found;
}

bool
vpk_rib_lpm(const struct rib *r, struct rib_key k, uint64_t *nh)
{
	uint32_t cur = r->root;
	bool found = false;

	while (cur != RIB_NIL) {
		const struct rib_node *n = &r->nodes[cur];

		if (common_len(k, n->key, n->depth) < n->depth)
			break;
		if (n->is_route) {
			found = true;
			*nh = n->nh;
		}
		if (n->depth >= r->max_depth)
			break;
		cur = n->child[key_bit(k, n->depth)];
	}
	return found;
}

/* Topmost node inside prefix (k, depth), or RIB_NIL. */
static uint32_t
subtree(const struct rib *r, struct rib_key k, uint8_t depth)
{
	uint32_t cur = r->root;

	while (cur != RIB_NIL) {
		const struct rib_node *n = &r->nodes[cur];

		if (n->depth >= depth)
			return contains(k, depth, n) ? cur : RIB_NIL;
		if (common_len(k, n->key, n->depth) < n->depth)
			return RIB_NIL;
		cur = n->child[key_bit(k, n->depth)];
	}
	return RIB_NIL;
}

/* Pre-order walk below i; stop at routes deeper than `stop_below` when first_level. */
static int
walk(const struct rib *r, uint32_t i, uint8_t depth, bool first_level, rib_walk_fn fn, void *arg)
{
	/* Explicit stack: the trie is at most 129 levels deep. */
	uint32_t stack[2 * 130];
	unsigned sp = 0;

	if (i == RIB_NIL)
		return 0;
	stack[sp++] = i;
	while (sp > 0) {
		const struct rib_node *n = &r->nodes[stack[--sp]];
		int rc;

		if (n->is_route && (!first_level || n->depth > depth)) {
			if ((rc = fn(arg, &n->key, n->depth, n->nh)) != 0)
				return rc;
			if (first_level)
				continue;
		}
		if (n->child[1] != RIB_NIL)
			stack[sp++] = n->child[1];
		if (n->child[0] != RIB_NIL)
			stack[sp++] = n->child[0];
	}
	return 0;
}

int
vpk_rib_children_of(const struct rib *r, uint32_t i, rib_walk_fn fn, void *arg)
{
	return walk(r, i, r->nodes[i].depth, true, fn, arg);
}

int
vpk_rib_children(const struct rib *r, struct rib_key k, uint8_t depth, rib_walk_fn fn, void *arg)
{
	return walk(r, subtree(r, k, depth), depth, true, fn, arg);
}

static int
stop_at_first(void *arg, const struct rib_key *key, uint8_t depth, uint64_t nh)
{
	(void)arg;
	(void)key;
	(void)depth;
	(void)nh;
	return 1;
}

bool
vpk_rib_has_longer(const struct rib *r, struct rib_key k, uint8_t depth)
{
	return vpk_rib_children(r, k, depth, stop_at_first, NULL) != 0;
}

int
vpk_rib_walk(const struct rib *r, rib_walk_fn fn, void *arg)
{
	return walk(r, r->root, 0, false, fn, arg);
}
