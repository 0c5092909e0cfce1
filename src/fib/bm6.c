/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Compressed IPv6 dataplane bm6 (bm6.h), control side: the node arena and
 * its size-class allocator, node building from trie6 groups and tbl24
 * slices, publication, retirement with optional deferral, and the table of
 * lookup variants. One writer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/kern.h"
#include "core/registry.h"
#include "fib/bm6.h"
#include "fib/ent.h"
#include "fib/fib_bits.h"
#include "fib/fib_mem.h"

VPK_DECLARE_VARIANTS(struct bm6_impl, vpk_bm6_impl);
extern const struct bm6_impl vpk_bm6_impl_avx512x8;        /* the avx512 ISA's second variant */

VPK_KERNEL_TABLE(vpk_bm6_impls, bm6, vpk_bm6_impl, impl);

VPK_KERNEL_REGISTER(fib6_bm6, "fib6-bm6",
		    "IPv6 FIB lookup, 2^16 direct table + popcount-compressed 256-way byte nodes", vpk_bm6_impls);

#define LINE 64u
#define MAX_LINES (UINT64_C(1) << 25)   /* byte offsets of lines stay below 2^31 */

/* Entry size, and the largest node (a class holding header + 256 entries), in lines. */
static unsigned
ent_size(const struct bm6 *b)
{
	return b->ent64 ? 8 : 4;
}

static size_t
max_node_lines(const struct bm6 *b)
{
	return b->ent64 ? 64 : 32;
}

static void on_free(void *ctx, uint32_t g);

int
vpk_bm6_init(struct bm6 *b, struct trie6 *t)
{
	memset(b, 0, sizeof(*b));
	b->ent64 = t->nh_sz == 8;
	uint64_t worst = ((uint64_t)t->num_tbl8 + BM6_SLICES) * max_node_lines(b);
	b->lines_cap = (size_t)(4 * worst + 1 < MAX_LINES ? 4 * worst + 1 : MAX_LINES);
	b->lines_top = 1;
	b->direct = calloc(BM6_SLICES, b->ent64 ? 8 : 4);
	/* Huge pages: fewer first-touch faults while a table loads (nodes are
	 * allocated from the bottom of the reservation up). */
	b->arena = fib_map(b->lines_cap * LINE, 1);
	b->node_of = fib_map((size_t)t->num_tbl8 * 4, 0);
	b->slice_node = calloc(BM6_SLICES, 4);
	b->track.gdirty = fib_map(t->num_tbl8, 0);
	b->track.glo = fib_map(t->num_tbl8, 0);
	b->track.ghi = fib_map(t->num_tbl8, 0);
	b->track.slo = calloc(BM6_SLICES, 1);
	b->track.shi = calloc(BM6_SLICES, 1);
	b->track.sdirty = calloc(BM6_SLICES / 64, 8);
	b->track.slices = calloc(BM6_SLICES, 4);
	if (b->direct == NULL || b->arena == NULL || b->node_of == NULL || b->slice_node == NULL ||
	    b->track.gdirty == NULL || b->track.sdirty == NULL || b->track.slices == NULL || b->track.glo == NULL ||
	    b->track.ghi == NULL || b->track.slo == NULL || b->track.shi == NULL) {
		vpk_bm6_fini(b, t);
		return -ENOMEM;
	}
	for (uint32_t s = 0; s < BM6_SLICES; s++)
		vpk_ent_set(b->direct, 2 + b->ent64, s, t->default_nh << 1);
	b->track.on_free = on_free;
	b->track.ctx = b;
	t->track = &b->track;
	return 0;
}

void
vpk_bm6_fini(struct bm6 *b, struct trie6 *t)
{
	if (t != NULL && t->track == &b->track)
		t->track = NULL;
	fib_unmap(b->arena, b->lines_cap * LINE);
	if (t != NULL) {
		fib_unmap(b->node_of, (size_t)t->num_tbl8 * 4);
		fib_unmap(b->track.gdirty, t->num_tbl8);
		fib_unmap(b->track.glo, t->num_tbl8);
		fib_unmap(b->track.ghi, t->num_tbl8);
	}
	free(b->track.slo);
	free(b->track.shi);
	free(b->direct);
	free(b->slice_node);
	free(b->track.sdirty);
	free(b->track.slices);
	for (unsigned c = 0; c < BM6_CLASSES; c++)
		free(b->free_[c].v);
	free(b->parked.v);
	free(b->retire.v);
	memset(b, 0, sizeof(*b));
}

/* Append; the vectors are sized ahead by vpk_bm6_room() callers' checks, but grow if needed. */
static void
vec_push(struct bm6_vec *v, uint32_t x)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 64;
		uint32_t *p = realloc(v->v, cap * 4);
		if (p == NULL)
			return;         /* lose the line: the arena has slack for it (never reused) */
		v->v = p;
		v->cap = cap;
	}
	v->v[v->n++] = x;
}

static unsigned
class_of_runs(const struct bm6 *b, unsigned runs)
{
	unsigned lines = (BM6_HDR + runs * ent_size(b) + LINE - 1) / LINE, c = 0;

	while ((1u << c) < lines)
		c++;
	return c;
}

/* Size class of a direct node (256 plain entries). */
static unsigned
dir_class(const struct bm6 *b)
{
	return b->ent64 ? 5 : 4;
}

/* A node ref (node_of, slice_node) is line << 1 | direct; its entry is ref << 1 | 1. */
static uint32_t
ref_line(uint32_t ref)
{
	return ref >> 1;
}

static bool
ref_dir(uint32_t ref)
{
	return ref & 1;
}

static size_t
class_lines(unsigned c)
{
	return (size_t)1 << c;
}

static uint32_t
line_alloc(struct bm6 *b, unsigned c)
{
	b->lines_live += class_lines(c);
	if (b->free_[c].n > 0)
		return b->free_[c].v[--b->free_[c].n];
	uint32_t l = (uint32_t)b->lines_top;
	b->lines_top += class_lines(c);
	return l;
}

/* Population count without a libgcc call (the baseline build has no POPCNT). */
static inline unsigned
pc32(uint32_t x)
{
	x = x - ((x >> 1) & 0x55555555u);
	x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
	return (((x + (x >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

static const uint8_t *
hdr(const struct bm6 *b, uint32_t line)
{
	return (const uint8_t *)b->arena + (size_t)line * LINE;
}

/* Bits 32j..32j+31 of a node's run bitmap (two 16-bit header words). */
static uint32_t
hdr_word(const uint8_t *h, unsigned j)
{
	const uint8_t *p = h + 6 * j;

	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[3] << 16 | (uint32_t)p[4] << 24;
}

/* Run of entry i (1-based), from the header. */
static unsigned
hdr_rank(const uint8_t *h, unsigned i)
{
	const uint8_t *p = h + 3 * (i >> 4);
	uint32_t w = (uint32_t)p[0] | (uint32_t)p[1] << 8;

	return p[2] + pc32(w & (0xffffu >> (15 - (i & 15))));
}

/* Runs of a built node, from its header. */
static unsigned
node_runs(const struct bm6 *b, uint32_t line)
{
	const uint8_t *h = hdr(b, line);
	unsigned r = 0;

	for (unsigned j = 0; j < 8; j++)
		r += pc32(hdr_word(h, j));
	return r;
}

/* Fewest runs of a direct node at address byte `by` (257: never direct; deep nodes always are). */
static unsigned
dir_min(unsigned by)
{
	if (by >= BM6_DIRECT_DEEP)
		return 1;
	return by == 2 ? BM6_DIRECT_RUNS : by == 3 ? BM6_DIRECT3_RUNS : 257;
}

/* A node that is neither direct nor compressed: a skip node (bit 0 of a compressed node's byte 0 is set). */
static bool
is_skip(const struct bm6 *b, uint32_t ref)
{
	return !ref_dir(ref) && !(hdr(b, ref_line(ref))[0] & 1);
}

static void
retire(struct bm6 *b, uint32_t ref)
{
	uint32_t line = ref_line(ref);
	unsigned c = ref_dir(ref) ? dir_class(b) : is_skip(b, ref) ? 0 : class_of_runs(b, node_runs(b, line));

	vec_push(&b->retire, line << 3 | c);
}

/* Store entry r of the entries at p (a reader sees the old or the new value). */
static void
ent_store(const struct bm6 *b, uint8_t *p, size_t r, uint64_t v)
{
	if (b->ent64) {
		uint64_t *q = (uint64_t *)(void *)p + r;
		if (__atomic_load_n(q, __ATOMIC_RELAXED) != v)
			__atomic_store_n(q, v, __ATOMIC_RELEASE);
	} else {
		uint32_t *q = (uint32_t *)(void *)p + r;
		if (__atomic_load_n(q, __ATOMIC_RELAXED) != (uint32_t)v)
			__atomic_store_n(q, (uint32_t)v, __ATOMIC_RELEASE);
	}
}

static void
on_free(void *ctx, uint32_t g)
{
	struct bm6 *b = ctx;

	if (b->node_of[g] != 0)
		retire(b, b->node_of[g]);
	b->node_of[g] = 0;
}

/* Run bitmap of 256 entries; returns the number of runs. */
static unsigned
runs_of(const uint64_t *m, uint32_t w[8])
{
	unsigned runs = 0;

	for (unsigned j = 0; j < 8; j++) {
		uint32_t x = j == 0;
		for (unsigned i = j == 0 ? 1 : 0; i < 32; i++)
			x |= (uint32_t)(m[32 * j + i] != m[32 * j + i - 1]) << i;
		w[j] = x;
		runs += pc32(x);
	}
	return runs;
}

/*
 * Same run bitmap as the node at `line`: store the entries that changed in
 * place (each an atomic store; a reader sees its address's old or new
 * entry) and return true. Else false: the node must be rebuilt.
 */
static bool
patch(struct bm6 *b, uint32_t ref, const uint64_t *m, const uint32_t w[8], unsigned runs, unsigned by)
{
	uint8_t *h = (uint8_t *)b->arena + (size_t)ref_line(ref) * LINE;

	if (ref_dir(ref) || runs >= dir_min(by))
		return false;   /* see patch_window() for direct nodes */
	for (unsigned j = 0; j < 8; j++)
		if (hdr_word(h, j) != w[j])
			return false;
	size_t r = 0;
	for (unsigned i = 0; i < 256; i++) {
		if (!(w[i >> 5] & (1u << (i & 31))))
			continue;
		ent_store(b, h + BM6_HDR, r++, m[i]);
	}
	return true;
}

/*
 * Build a node from 256 entries (already in bm6 encoding) and their run
 * bitmap, for address byte `by`: a node with dir_min(by) runs or more is
 * direct (plain entries), every other node compressed. Returns its ref.
 */
static uint32_t
build(struct bm6 *b, const uint64_t *m, const uint32_t w[8], unsigned runs, unsigned by)
{
	bool dir = runs >= dir_min(by);
	uint32_t line = line_alloc(b, dir ? dir_class(b) : class_of_runs(b, runs));
	uint8_t *h = (uint8_t *)b->arena + (size_t)line * LINE;
	size_t r = 0;

	if (dir) {
		for (unsigned i = 0; i < 256; i++)
			ent_store(b, h, i, m[i]);
		return line << 1 | 1;
	}
	for (unsigned j = 0; j < 8; j++) {
		/* Atomic stores although no lookup reaches the node yet: the
		 * lookups' steps after a gather read it atomically (fib_bits.h). */
		for (unsigned k = 0; k < 2; k++) {     /* 16-bit words 2j, 2j + 1 */
			uint8_t *p = h + 6 * j + 3 * k;
			FIB_ST(&p[0], (uint8_t)(w[j] >> 16 * k));
			FIB_ST(&p[1], (uint8_t)(w[j] >> (16 * k + 8)));
			FIB_ST(&p[2], (uint8_t)(r + (k ? pc32(w[j] & 0xffff) : 0)));     /* <= 240 */
		}
		for (uint32_t x = w[j]; x != 0; x &= x - 1, r++) {
			unsigned i = 32 * j + (unsigned)__builtin_ctz(x);
			if (b->ent64)
				FIB_ST((uint64_t *)(void *)(h + BM6_HDR) + r, m[i]);
			else
				FIB_ST((uint32_t *)(void *)(h + BM6_HDR) + r, (uint32_t)m[i]);
		}
	}
	return line << 1;
}

/*
 * Whether 256 entries are one leaf L but for one entry (its index in *odd):
 * a chain link, which becomes a skip node at bytes BM6_DIRECT_DEEP and on.
 */
static bool
chain_link(const uint64_t *m, unsigned *odd)
{
	uint64_t l = m[0] == m[1] ? m[0] : m[2];
	unsigned n = 0;

	if (l & 1)
		return false;
	for (unsigned i = 0; i < 256 && n < 2; i++)
		if (m[i] != l) {
			*odd = i;
			n++;
		}
	return n == 1;
}

/*
 * The skip node of a chain link at address byte `by` (bm6.h): entry `odd`
 * is x, the others the leaf l. When x is itself a skip node with the same
 * l, the new node takes its chain over: one more byte.
 */
static uint32_t
build_skip(struct bm6 *b, uint64_t l, uint64_t x, unsigned odd, unsigned by)
{
	uint64_t p[2] = { 0, 0 }, mk[2] = { 0, 0 };
	unsigned s = 1;
	uint32_t line = line_alloc(b, 0);
	uint8_t *h = (uint8_t *)b->arena + (size_t)line * LINE;

	if ((x & 1) && is_skip(b, (uint32_t)(x >> 1))) {
		const uint8_t *c = hdr(b, (uint32_t)(x >> 2));
		uint64_t cl;
		memcpy(&cl, c + BM6_SKIP_L, 8);
		if (cl == l) {
			memcpy(p, c, 16);
			memcpy(mk, c + 16, 16);
			memcpy(&x, c + BM6_SKIP_X, 8);
			s += c[BM6_SKIP_S];
		}
	}
	p[by >> 3] |= (uint64_t)odd << 8 * (by & 7);
	mk[by >> 3] |= UINT64_C(0xff) << 8 * (by & 7);
	/* Atomic stores although no lookup reaches the node yet (fib_bits.h). */
	for (unsigned i = 0; i < 2; i++) {
		FIB_ST((uint64_t *)(void *)h + i, p[i]);
		FIB_ST((uint64_t *)(void *)h + 2 + i, mk[i]);
	}
	FIB_ST((uint64_t *)(void *)(h + BM6_SKIP_X), x);
	FIB_ST((uint64_t *)(void *)(h + BM6_SKIP_L), l);
	FIB_ST(h + BM6_SKIP_S, (uint8_t)s);
	return line << 1;
}

static uint32_t rebuild_group(struct bm6 *b, const struct trie6 *t, uint32_t g, unsigned by);
/* bm6 encoding of trie entry e of a node at byte by - 1; a dirty child group (byte by) is rebuilt first. */
static uint64_t
map1(struct bm6 *b, const struct trie6 *t, uint64_t e, unsigned by)
{
	if (!(e & 1))
		return e;
	uint32_t g = (uint32_t)(e >> 1);
	uint32_t ref = b->track.gdirty[g] || b->node_of[g] == 0 ? rebuild_group(b, t, g, by) : b->node_of[g];
	return (uint64_t)ref << 1 | 1;
}

/*
 * Entries [lo, hi] of the 256 at tbl[base] were written; the node `ref`
 * holds the old ones. A direct node takes the changed entries in place and
 * stays unless it has become sparse; a compressed one takes them if its
 * run boundaries stay (checked over lo..hi+1). Then returns true, else the
 * caller rebuilds the node.
 */
static bool
patch_window(struct bm6 *b, const struct trie6 *t, const void *tbl, size_t base, unsigned lo, unsigned hi,
	     uint32_t ref, unsigned by)
{
	uint64_t m[256];
	unsigned a = lo ? lo - 1 : 0, z = hi < 255 ? hi + 1 : 255;
	uint8_t *h = (uint8_t *)b->arena + (size_t)ref_line(ref) * LINE;

	if (is_skip(b, ref))
		return false;   /* never changed once reachable: rebuilt */
	if (ref_dir(ref)) {
		for (unsigned i = lo; i <= hi; i++)
			ent_store(b, h, i, map1(b, t, vpk_ent_get(tbl, t->nh_log, base + i), by + 1));
		/* Kept while it has half the threshold's runs (hysteresis), else rebuilt compressed. */
		unsigned runs = 1;
		for (unsigned i = 1; i < 256 && 2 * runs < dir_min(by); i++)        /* stops once enough */
			runs += b->ent64 ? ((const uint64_t *)(const void *)h)[i] != ((const uint64_t *)(const void *)h)[i - 1]
					 : ((const uint32_t *)(const void *)h)[i] != ((const uint32_t *)(const void *)h)[i - 1];
		return 2 * runs >= dir_min(by);
	}
	for (unsigned i = a; i <= z; i++)
		m[i] = map1(b, t, vpk_ent_get(tbl, t->nh_log, base + i), by + 1);
	for (unsigned i = a + 1; i <= z; i++)
		if ((m[i] != m[i - 1]) != ((hdr_word(h, i >> 5) >> (i & 31)) & 1))
			return false;
	for (unsigned i = lo; i <= hi; i++) {
		if (!((hdr_word(h, i >> 5) >> (i & 31)) & 1))
			continue;
		ent_store(b, h + BM6_HDR, hdr_rank(h, i) - 1, m[i]);
	}
	return true;
}

/* bm6 encoding of 256 trie entries (a node at byte by) from tbl at index base; children rebuilt where dirty. */
static void
map_entries(struct bm6 *b, const struct trie6 *t, const void *tbl, size_t base, uint64_t *m, unsigned by)
{
	uint64_t ext = 0;

	switch (t->nh_log) {
	case 1:
		for (unsigned i = 0; i < 256; i++)
			ext |= m[i] = ((const uint16_t *)tbl)[base + i];
		break;
	case 2:
		for (unsigned i = 0; i < 256; i++)
			ext |= m[i] = ((const uint32_t *)tbl)[base + i];
		break;
	default:
		for (unsigned i = 0; i < 256; i++)
			ext |= m[i] = ((const uint64_t *)tbl)[base + i];
		break;
	}
	for (unsigned i = 0; (ext & 1) && i < 256; i++)
		m[i] = map1(b, t, m[i], by + 1);
}

static uint32_t
rebuild_group(struct bm6 *b, const struct trie6 *t, uint32_t g, unsigned by)
{
	uint64_t m[256];

	uint32_t w[8];

	b->track.gdirty[g] = 0;
	if (b->node_of[g] != 0 && patch_window(b, t, t->tbl8, (size_t)g * TRIE6_GROUP, b->track.glo[g],
					       b->track.ghi[g], b->node_of[g], by))
		return b->node_of[g];
	map_entries(b, t, t->tbl8, (size_t)g * TRIE6_GROUP, m, by);
	unsigned runs = runs_of(m, w);
	unsigned odd;
	if (by >= BM6_DIRECT_DEEP && chain_link(m, &odd)) {
		if (b->node_of[g] != 0)
			retire(b, b->node_of[g]);
		b->node_of[g] = build_skip(b, m[odd == 0], m[odd], odd, by);
		return b->node_of[g];
	}
	if (b->node_of[g] != 0) {
		if (patch(b, b->node_of[g], m, w, runs, by))
			return b->node_of[g];
		retire(b, b->node_of[g]);
	}
	b->node_of[g] = build(b, m, w, runs, by);
	return b->node_of[g];
}

#define UNIFORM_LOOP(T)                                                         \
	do {                                                                    \
		const T *p_ = (const T *)t->tbl24 + base;                       \
		T e_ = p_[0], diff_ = 0;                                        \
		for (unsigned i_ = 0; i_ < 256; i_++)   /* vectorises */        \
			diff_ |= p_[i_] ^ e_;                                   \
		return diff_ != 0 ? 1 : e_;                                     \
	} while (0)

/*
 * The entry all 256 tbl24 entries from base hold, or 1 when they differ
 * (or all lead to one group; then the caller finds that out). A short
 * prefix rewrites whole slices: this spares them map_entries(). Plain
 * loads: the trie is the writer's own copy here.
 */
static uint64_t
uniform_slice(const struct trie6 *t, size_t base)
{
	switch (t->nh_log) {
	case 1: UNIFORM_LOOP(uint16_t);
	case 2: UNIFORM_LOOP(uint32_t);
	default: UNIFORM_LOOP(uint64_t);
	}
}

static void
rebuild_slice(struct bm6 *b, const struct trie6 *t, uint32_t s)
{
	uint64_t m[256], e;
	uint32_t w[8];
	/* Only a slice written whole can have become one leaf without a node's help. */
	uint64_t u = b->track.slo[s] == 0 && b->track.shi[s] == 255 ? uniform_slice(t, (size_t)s * 256) : 1;

	if (!(u & 1)) {         /* one next hop: a leaf in the direct table */
		uint32_t old = b->slice_node[s];
		b->slice_node[s] = 0;
		vpk_ent_set(b->direct, 2 + b->ent64, s, u);
		if (old != 0)
			retire(b, old);
		return;
	}
	if (b->slice_node[s] != 0 &&
	    patch_window(b, t, t->tbl24, (size_t)s * 256, b->track.slo[s], b->track.shi[s], b->slice_node[s], 2))
		return;
	map_entries(b, t, t->tbl24, (size_t)s * 256, m, 2);
	unsigned runs = runs_of(m, w);
	uint32_t old = b->slice_node[s];
	if (runs == 1 && !(m[0] & 1)) {
		e = m[0];
		b->slice_node[s] = 0;
	} else {
		if (old != 0 && patch(b, old, m, w, runs, 2))
			return;
		b->slice_node[s] = build(b, m, w, runs, 2);
		e = (uint64_t)b->slice_node[s] << 1 | 1;
	}
	/* Publish: the release store orders every node write above before it. */
	vpk_ent_set(b->direct, 2 + b->ent64, s, e);
	if (old != 0)
		retire(b, old);
}

bool
vpk_bm6_room(const struct bm6 *b, const struct trie6 *t, u128 first, u128 last, uint64_t more_groups)
{
	uint64_t groups = (uint64_t)t->tbl8_used + more_groups;
	uint64_t slices = (uint64_t)(last >> 112) - (uint64_t)(first >> 112) + 1;

	if (groups > t->num_tbl8)
		groups = t->num_tbl8;
	return (groups + slices) * max_node_lines(b) <= b->lines_cap - b->lines_top;
}

void
vpk_bm6_sync(struct bm6 *b, struct trie6 *t)
{
	struct trie6_track *tr = &b->track;

	for (uint32_t k = 0; k < tr->nslices; k++) {
		uint32_t s = tr->slices[k];
		rebuild_slice(b, t, s);
		tr->sdirty[s >> 6] &= ~(UINT64_C(1) << (s & 63));
	}
	tr->nslices = 0;
	/* Everything retired is unreachable from the direct table now. */
	for (size_t k = 0; k < b->retire.n; k++) {
		uint32_t x = b->retire.v[k];
		if (b->defer) {
			vec_push(&b->parked, x);
		} else {
			vec_push(&b->free_[x & 7], x >> 3);
			b->lines_live -= class_lines(x & 7);
		}
	}
	b->retire.n = 0;
}

uint32_t
vpk_bm6_reclaim(struct bm6 *b)
{
	uint32_t n = (uint32_t)b->parked.n;

	for (size_t k = 0; k < b->parked.n; k++) {
		uint32_t x = b->parked.v[k];
		vec_push(&b->free_[x & 7], x >> 3);
		b->lines_live -= class_lines(x & 7);
	}
	b->parked.n = 0;
	return n;
}

size_t
vpk_bm6_bytes(const struct bm6 *b)
{
	return (size_t)BM6_SLICES * (b->ent64 ? 8 : 4) + b->lines_top * LINE;
}
