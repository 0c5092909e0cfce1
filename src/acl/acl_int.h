/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_ACL_INT_H
#define VPK_ACL_INT_H

/*
 * Internal structures of the ACL classifier (see docs/acl.md for the design).
 *
 * Dimensions. Every field of the layout becomes one 32-bit "dimension" of
 * the search key (an 8-byte field becomes two: high word, low word). A key
 * value is the field's bytes read big-endian. Every rule condition becomes,
 * per dimension,  (key & m) in [lo, hi]  (unsigned): prefixes, prefix-shaped
 * bit masks and ranges have m = ~0; other bit masks keep their mask with
 * lo = hi = value & mask. A 64-bit RANGE does not split into independent
 * word ranges, so a rule with one is expanded into up to 3 sub-rules (boxes)
 * with the same rank.
 *
 * Ranks. Rules are ordered by (priority desc, insertion order asc); a rule's
 * position in that order is its rank, and per category the matching rule of
 * lowest rank wins.
 *
 * Runtime. One or more decision trees (one per rule partition, EffiCuts-like:
 * rules grouped by which dimensions they leave (nearly) wild, so that a tree
 * never cuts a dimension where many of its rules are wild). Inner node n
 * has a dimension d, a threshold t and two children c, c+1:
 *     next = c + (key[d] >= t)
 * stored as one 64-bit word per node so a SIMD walk gathers a node at once:
 *     node[2n] = t,  node[2n + 1] = (c << 5) | d   (inner)
 *     node[2n] = first block | its lines << ACL_LEAF_LSHIFT,
 *     node[2n + 1] = LEAF_BIT | best rank           (leaf)
 * so the gather that finds a walk at a leaf also brings what the scan and
 * its prefetch need: no leaf table to read after the walk.
 * A leaf is a run of blocks of 16 rules in rank order, laid out for a SIMD
 * scan across rules (struct acl_blk + per active dimension lo[16], hi[16]
 * and, only for dimensions with partial bit masks, m[16]).
 */
#include <stdatomic.h>
#include <stdint.h>

#include <vpk/acl.h>

#define ACL_MAX_DIMS   24
#define ACL_BLK        16               /* rules per leaf block */
#define ACL_MAX_TREES  16              /* per runtime: a full build uses <= ACL_BUILD_TREES, a delta adds more */
#define ACL_BUILD_TREES 8
#define ACL_LEAF_BIT   0x80000000u
#define ACL_DIM_MASKED 0x80             /* acl_blk.dim[]: this dim has an m[] array */
#define ACL_DIM_16     0x40             /* acl_blk.dim[]: 16-bit arrays (a dimension of <= 16 bits) */
#define ACL_DIM_ID     0x1f             /* acl_blk.dim[]: the dimension id */
#define ACL_BLK_LAST   0x80             /* acl_blk.lines: last block of its leaf */
#define ACL_BLK_FULL   0x80             /* acl_blk.nd: every dimension active, none masked (acl_leaf.c) */
#define ACL_BLK_ND     0x3f             /* acl_blk.nd: the active dimensions */
#define ACL_RTAB_BITS  10               /* acl_tree.rtab: 2^10 start nodes per tree (4 KB) */
#define ACL_RTAB_SIZE  (1u << ACL_RTAB_BITS)
#define ACL_RTAB_MASK  (ACL_RTAB_SIZE - 1)
#define ACL_LEAF_LSHIFT 26              /* leaf node word 0: its first block's lines, for the prefetch */
#define ACL_LEAF_OFF   ((1u << ACL_LEAF_LSHIFT) - 1)   /* leaf node word 0: its first block (64-byte units) */
#define ACL_LEAF_RANK  0x7fffffffu      /* leaf node word 1: the leaf's best rank (capped: a cap only scans more) */

/* Header of a leaf block; followed by the per-dimension arrays. 64-byte aligned. */
struct acl_blk {
	/* line 0: what every scan reads */
	uint16_t valid;                 /* bit j: slot j holds a rule */
	uint8_t nd;                     /* active dimensions | ACL_BLK_FULL */
	uint8_t lines;                  /* block size in 64-byte lines; | ACL_BLK_LAST on the leaf's last block */
	uint32_t first_rank;            /* rank of slot 0: no rule of this or a later block ranks better */
	uint8_t dim[ACL_MAX_DIMS];      /* dimension ids | ACL_DIM_MASKED | ACL_DIM_16 */
	uint16_t cmask[VPK_ACL_MAX_CATEGORIES]; /* bit j: rule j competes in category c */
	/* lines 1-2: read on a match only; slot j's rank and userdata side by
	 * side, so that a match reads one line */
	uint32_t ru[2 * ACL_BLK];       /* ru[2j]: rank of slot j (UINT32_MAX if empty), ru[2j + 1]: userdata */
};
/*
 * Per active dimension, after the header, in dim[] order (the 32-bit
 * dimensions first, then the 16-bit ones: the scan runs one loop per kind):
 *   32-bit dimension: u32 lo[16], span[16] (= hi - lo), then m[16] if masked (2 or 3 lines);
 *   16-bit dimension (ACL_DIM_16, keys < 2^16): u16 lo[16], span[16] (one line), then
 *   m[16] and 32 bytes of padding if masked (two lines).
 * Slot j matches when ((key & m[j]) - lo[j]) <= span[j] (unsigned, in the arrays' width).
 */

/* Bytes of one active dimension's arrays. */
static inline uint32_t
acl_dim_bytes(unsigned dimbyte)
{
	return (((dimbyte & ACL_DIM_16) ? 1u : 2u) + ((dimbyte & ACL_DIM_MASKED) ? 1u : 0u)) * 64;
}

/* Where a dimension's bytes are in the classified buffer. */
struct acl_dimsrc {
	uint32_t off;                   /* byte offset */
	uint32_t size;                  /* 1, 2 or 4 bytes */
};

struct acl_tree {
	uint32_t root;                  /* node index */
	uint32_t min_rank;              /* lowest rank in the tree */
	/* Root table: a walk starts at node rtab[acl_rtab_index()] (the top bits
	 * of dimension rdim, then those of rdim2), the deepest node whose box
	 * holds that whole slice of the two dimensions: the top levels that cut
	 * them are looked up at once (same leaves as from root). A table over one
	 * dimension has rshift2 = 32 (no bits of rdim2). */
	const uint32_t *rtab;           /* ACL_RTAB_SIZE entries */
	uint32_t rdim, rshift, rdim2, rshift2, rbits2;
	const uint32_t *thr;            /* node n: thr[2n] (nodes of the runtime holding the tree, */
	const uint32_t *info;           /* interleaved: info == thr + 1), info[2n] */
	const uint8_t *blocks;          /* 64-byte aligned */
};

/*
 * Ranks of deleted rules, masked out of the trees they are still in
 * (acl_del.c): rank r is dead when it is a full-build rank (r & low == 0),
 * its position k = (r >> shift) - 1 (acl_rank_pos()) is < n, and bit k is set.
 */
struct acl_dead {
	uint32_t shift, low, n;
	const uint64_t *bits;
};

/*
 * The keys as 16-byte rows (the AVX-512 variants' acl_keys()): row r is the
 * bytes [rstart[r], rstart[r] + 16), never before the buffer's start nor past
 * the last field's last byte; group g takes up to 4 dimensions gdim[g][] of
 * row grow[g]: one byte shuffle by gctl[g] puts each field big-endian in a
 * 32-bit lane (0x80: a zero byte). nr == 0: the fields end before byte 16,
 * keys are read per dimension.
 */
#define ACL_KEY_GROUPS ACL_MAX_DIMS   /* a row may hold a single field */
struct acl_keyplan {
	uint32_t nr, ng;
	uint32_t rstart[ACL_KEY_GROUPS];
	uint8_t grow[ACL_KEY_GROUPS], gcnt[ACL_KEY_GROUPS], gdim[ACL_KEY_GROUPS][4];
	uint8_t gctl[ACL_KEY_GROUPS][16];
};

struct acl_rt {
	uint32_t nd;                    /* dimensions */
	uint32_t ncat;                  /* categories built */
	uint32_t ntrees;
	struct acl_tree tree[ACL_MAX_TREES];
	struct acl_dimsrc src[ACL_MAX_DIMS];
	struct acl_keyplan kp;
	/* A full block's (ACL_BLK_FULL) dimensions in the order of its arrays
	 * (acl_dim_order(), as acl_leaf.c emits them): full_n32 wide ones, then
	 * full_n16 narrow ones. */
	uint8_t full_dim[ACL_MAX_DIMS], full_n32, full_n16;
	struct vpk_acl_stats stats;
	const struct acl_dead *dead;    /* deleted ranks to skip on a match, or NULL */
	struct acl_rt *base;            /* runtime whose trees this one reuses, or NULL */
	uint32_t refs;                  /* owners: the context and runtimes using it as base (writer only) */
	void *mem;                      /* the one allocation holding this runtime's own trees */
};

/* One classify variant. */
struct acl_impl {
	struct vpk_impl base;
	void (*classify)(const struct acl_rt *rt, const uint8_t *const *data,
			 uint32_t *results, uint32_t n, uint32_t categories);
};

#define ACL_DECLARE(name) extern const struct acl_impl name
ACL_DECLARE(acl_impl_scalar);
ACL_DECLARE(acl_impl_sse42);
ACL_DECLARE(acl_impl_avx2);
ACL_DECLARE(acl_impl_avx512x16);
ACL_DECLARE(acl_impl_avx512x32);

/* Normalised rules handed to the builder (acl_norm.c -> acl_build.c). */
struct acl_nrules {
	uint32_t n;                     /* boxes (sub-rules) */
	uint32_t nd;                    /* dimensions */
	uint32_t nrules;                /* original rules */
	uint32_t *lo, *hi, *m;          /* [n * nd] */
	uint32_t *rank;                 /* [n], non-decreasing */
	uint32_t *ud;                   /* [n] */
	uint16_t *cats;                 /* [n], already limited to built categories */
	uint8_t dbits[ACL_MAX_DIMS];    /* width of each dimension: 8, 16 or 32 */
};

/* Build-memory accounting (acl_mem.c). */
struct acl_mem {
	size_t cur, peak;
	int failed;
};
void *acl_malloc(struct acl_mem *mt, size_t n);
void *acl_calloc(struct acl_mem *mt, size_t n);
void *acl_realloc(struct acl_mem *mt, void *p, size_t n);
void acl_free(struct acl_mem *mt, void *p);

/* What a build is for: a full build, or an update / frozen tree (acl.c build_update(), acl_del_freeze()),
 * small and built while the application waits, which has plans of its own (acl_build.c, uplans[]). */
enum acl_build_kind {
	ACL_BUILD_FULL,
	ACL_BUILD_UPDATE,
};
/* Forced choices of a full build, for tests that reach each plan with small rule sets
 * (acl_build_with()); a build without them picks by the set's size and shape. */
#define ACL_PLAN_FORCED_MAX 6
struct acl_build_opts {
	/* 0: the first one-tree plan, 1: the 2-tree plan, 2: the 6-tree plan, 3: the last, 8-tree plan,
	 * 4: start at the 6-tree plan as a set above 32k rules does, with its fallback; 5: the partition
	 * plan (one tree per group of rules with the same wildcard pattern); 6: the partition plan with
	 * every group's tree in big leaves (as a group that copies its rules too often); -1: automatic */
	int plan;               /* -1 .. ACL_PLAN_FORCED_MAX; acl_build_with() refuses others (-EINVAL) */
	unsigned spill;         /* spill when this many wide rules span a cut (0: the plan's threshold) */
	int copies;             /* abandon every plan but the last beyond this many copies per rule (-1: the plans' limits) */
};
/* Build a runtime from normalised rules (@p opt: NULL, or forced choices of a full build).
 * 0, -ENOMEM, -ERANGE. */
int acl_build_rt(const struct acl_nrules *nr, const struct acl_dimsrc *src, uint32_t ncat,
		 enum acl_build_kind kind, const struct acl_build_opts *opt, size_t max_size, struct acl_mem *mt,
		 struct acl_rt **out, char *why, size_t len);
void acl_rt_free(struct acl_rt *rt);
/* vpk_acl_build(), or with @p opt a full build (never an incremental one) with those choices. */
int acl_build_with(struct vpk_acl *a, const struct acl_build_opts *opt);

/* A dimension of <= 16 bits: its block arrays are u16 (ACL_DIM_16). */
static inline int
acl_dim_narrow(uint32_t dbits)
{
	return dbits <= 16;
}

/*
 * The dimensions of mask @p need in a leaf block's array order: the wide
 * ones, then the narrow ones (acl_dim_narrow()), each kind in dimension
 * order, so the scan's per-dimension branches see one pattern per block
 * shape. Returns how many (into @p out); *n32: how many of them are wide.
 */
static inline uint32_t
acl_dim_order(const uint8_t *dbits, uint32_t nd, uint32_t need, uint8_t *out, uint32_t *n32)
{
	uint32_t k = 0;

	for (uint32_t pass = 0; pass < 2; pass++) {
		if (pass == 1)
			*n32 = k;
		for (uint32_t d = 0; d < nd; d++)
			if ((need >> d & 1) && acl_dim_narrow(dbits[d]) == (pass == 1))
				out[k++] = (uint8_t)d;
	}
	return k;
}

/* The root table entry of keys k1 (dimension rdim) and k2 (rdim2). */
static inline uint32_t
acl_rtab_index(const struct acl_tree *tr, uint32_t k1, uint32_t k2)
{
	return ((k1 >> tr->rshift) << tr->rbits2 | (uint32_t)((uint64_t)k2 >> tr->rshift2)) & ACL_RTAB_MASK;
}

/* Scalar helpers shared by every variant (acl_kern.h includes them). */
static inline uint32_t
acl_load_dim(const uint8_t *p, const struct acl_dimsrc *s)
{
	const uint8_t *q = p + s->off;

	switch (s->size) {
	case 1:
		return q[0];
	case 2:
		return (uint32_t)q[0] << 8 | q[1];
	default:
		return (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3];
	}
}

/*
 * The matched slots @p mt of a block (ranks at @p ru[2j], acl_blk.ru) minus
 * those of deleted rules. Called once per block with a match; free when
 * nothing is deleted.
 */
static inline uint32_t
acl_live_slots(const struct acl_dead *dd, const uint32_t *ru, uint32_t mt)
{
	if (dd == NULL)
		return mt;
	for (uint32_t x = mt; x != 0; x &= x - 1) {
		uint32_t j = (uint32_t)__builtin_ctz(x), r = ru[2 * j], k = (r >> dd->shift) - 1;

		if ((r & dd->low) == 0 && k < dd->n && (dd->bits[k >> 6] >> (k & 63) & 1))
			mt &= ~(1u << j);
	}
	return mt;
}

#endif /* VPK_ACL_INT_H */
