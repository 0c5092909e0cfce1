/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ACL runtime layout: the trees acl_build.c built -> one contiguous runtime
 * (struct acl_rt, then nodes, root tables and leaf blocks; acl_int.h
 * has the format), allocated on huge pages when big, and freed by reference.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "acl/acl_bld.h"
#include "core/errf.h"

/*
 * A runtime of 2 MiB or more is 2 MiB-aligned and asks for transparent huge
 * pages: a classify touches leaf blocks all over it, and with 4 KiB pages a
 * 10 MB runtime needs more TLB entries than the core has.
 */
#define RT_HUGE ((size_t)2 << 20)

static void *
rt_alloc(size_t bytes)
{
	void *mem;

	if (bytes < RT_HUGE)
		return aligned_alloc(64, (bytes + 63) & ~(size_t)63);
	bytes = (bytes + RT_HUGE - 1) & ~(RT_HUGE - 1);
	mem = aligned_alloc(RT_HUGE, bytes);
#ifdef MADV_HUGEPAGE
	if (mem != NULL)
		(void)madvise(mem, bytes, MADV_HUGEPAGE);    /* a hint: failure only costs speed */
#endif
	return mem;
}

void
acl_rt_free(struct acl_rt *rt)
{
	if (rt == NULL || --rt->refs > 0)
		return;
	acl_rt_free(rt->base);
	free(rt->mem);
}

/* A root table's dimensions: the top a bits of d1, then the top b bits of d2 (b = 0: d1 only). */
struct rtab_dims {
	uint32_t d1, a, d2, b;
};

/*
 * Root table of the tree at @p root over @p rd: entry k is where a walk of
 * keys whose top bits are k arrives after the top levels that cut d1 or d2
 * with the whole slice on one side. Returns the levels saved over all
 * ACL_RTAB_SIZE entries (a table of fewer bits counted as if repeated).
 */
static uint64_t
root_table(const struct acl_bld *b, uint32_t root, const struct rtab_dims *rd, uint32_t *tab)
{
	uint32_t s1 = b->nr->dbits[rd->d1] - rd->a, s2 = rd->b ? b->nr->dbits[rd->d2] - rd->b : 0;
	uint32_t d2 = rd->b ? rd->d2 : UINT32_MAX, used = rd->a + rd->b;
	uint64_t saved = 0;

	for (uint32_t e = 0; e < ACL_RTAB_SIZE; e++) {
		uint64_t lo1 = (uint64_t)(e >> rd->b) << s1, hi1 = lo1 + ((uint64_t)1 << s1) - 1;
		uint64_t lo2 = (uint64_t)(e & ((1u << rd->b) - 1)) << s2, hi2 = lo2 + ((uint64_t)1 << s2) - 1;
		uint32_t x = root;

		if (e >> used) {        /* no key reaches it */
			tab[e] = root;
			continue;
		}
		for (;;) {
			uint32_t ix = b->info[x], t = b->thr[x], d = ix & 31;
			uint64_t lo = d == rd->d1 ? lo1 : lo2, hi = d == rd->d1 ? hi1 : hi2;

			if ((ix & ACL_LEAF_BIT) || (d != rd->d1 && d != d2) || (lo < t && hi >= t))
				break;
			x = (ix >> 5) + (lo >= t);
			saved++;
		}
		tab[e] = x;
	}
	return saved << (ACL_RTAB_BITS - used);
}

/* The dimensions of the inner nodes in the top RTAB_TOP levels below @p x (bit d set). */
#define RTAB_TOP 4
static uint32_t
top_dims(const struct acl_bld *b, uint32_t x, uint32_t lv)
{
	uint32_t ix = b->info[x];

	if ((ix & ACL_LEAF_BIT) || lv == RTAB_TOP)
		return 0;
	return 1u << (ix & 31) | top_dims(b, ix >> 5, lv + 1) | top_dims(b, (ix >> 5) + 1, lv + 1);
}

/*
 * Pick each tree's root table (the one saving the most levels): every
 * dimension alone, and every pair of the dimensions its top levels cut with
 * an even split of the bits.
 */
static void
root_tables(const struct acl_bld *b, struct acl_tree *trees, uint32_t ng, uint32_t *tabs)
{
	for (uint32_t t = 0; t < ng; t++) {
		uint32_t *tab = tabs + (size_t)t * ACL_RTAB_SIZE, top = top_dims(b, trees[t].root, 0);
		struct rtab_dims best = { 0, 0, 0, 0 };
		uint64_t bsv = 0;

		for (uint32_t d1 = 0; d1 < b->nd; d1++)
			for (uint32_t d2 = 0; d2 < b->nd; d2++) {
				uint32_t w1 = b->nr->dbits[d1], w2 = b->nr->dbits[d2];

				for (uint32_t a = 2; a <= ACL_RTAB_BITS; a += 2) {
					struct rtab_dims rd = { d1, a < w1 ? a : w1, d2, ACL_RTAB_BITS - a };
					uint64_t sv;

					if (rd.b > w2)
						continue;
					if (d1 == d2 ? a != ACL_RTAB_BITS : !(top >> d1 & top >> d2 & 1) || rd.b == 0)
						continue;
					sv = root_table(b, trees[t].root, &rd, tab);
					if (best.a == 0 || sv > bsv) {
						bsv = sv;
						best = rd;
					}
				}
			}
		root_table(b, trees[t].root, &best, tab);
		trees[t].rdim = best.d1;
		trees[t].rshift = b->nr->dbits[best.d1] - best.a;
		trees[t].rdim2 = best.b ? best.d2 : best.d1;
		trees[t].rshift2 = best.b ? b->nr->dbits[best.d2] - best.b : 32;
		trees[t].rbits2 = best.b;
	}
}

/*
 * Cover the fields with 16-byte rows (struct acl_keyplan): the field ending
 * last that no row holds yet ends the next row (or byte 16 does, for fields
 * ending before it), the row takes every field inside it, 4 to a group. The
 * 5-tuple layouts need one row of two groups.
 */
static void
key_rows(const struct acl_dimsrc *src, uint32_t nd, struct acl_keyplan *kp)
{
	uint32_t last = 0, done = 0;

	memset(kp, 0, sizeof(*kp));
	for (uint32_t d = 0; d < nd; d++)
		last = src[d].off + src[d].size > last ? src[d].off + src[d].size : last;
	if (last < 16)
		return;
	while (done != (nd >= 32 ? UINT32_MAX : (1u << nd) - 1)) {
		uint32_t e = 0, w, g = kp->ng;

		for (uint32_t d = 0; d < nd; d++)
			if (!(done >> d & 1) && src[d].off + src[d].size > e)
				e = src[d].off + src[d].size;
		w = e > 16 ? e : 16;
		for (uint32_t d = 0; d < nd; d++) {
			uint32_t end = src[d].off + src[d].size, s;

			if ((done >> d & 1) || src[d].off < w - 16 || end > w)
				continue;
			done |= 1u << d;
			if (g == kp->ng || kp->gcnt[g] == 4) {
				g = kp->ng++;
				kp->grow[g] = (uint8_t)kp->nr;
				memset(kp->gctl[g], 0x80, 16);
			}
			s = kp->gcnt[g]++;
			kp->gdim[g][s] = (uint8_t)d;
			for (uint32_t j = 0; j < src[d].size; j++)
				kp->gctl[g][4 * s + j] = (uint8_t)(end - 1 - j - (w - 16));
		}
		kp->rstart[kp->nr++] = w - 16;
	}
}

int
acl_rt_layout(const struct acl_bld *b, struct acl_tree *trees, uint32_t ng, const struct acl_dimsrc *src,
	      uint32_t ncat, size_t max_size, struct acl_rt **out, char *why, size_t len)
{
	const struct acl_nrules *nr = b->nr;
	uint32_t nd = nr->nd;
	size_t bytes, off_nodes, off_rtab, off_blk, blkbytes = 0;
	struct acl_rt *rt;
	uint8_t *mem;

	/* Trees in rank order so that resolved packets skip later ones. */
	for (uint32_t i = 1; i < ng; i++)
		for (uint32_t j = i; j > 0 && trees[j].min_rank < trees[j - 1].min_rank; j--) {
			struct acl_tree t = trees[j];

			trees[j] = trees[j - 1];
			trees[j - 1] = t;
		}

	for (uint32_t l = 0; l < b->nleaves; l++)
		blkbytes += acl_leaf_bytes(b, l);
	off_nodes = (sizeof(struct acl_rt) + 63) & ~(size_t)63;
	off_rtab = off_nodes + (((size_t)b->nnodes * 8 + 63) & ~(size_t)63);
	off_blk = off_rtab + (size_t)ng * ACL_RTAB_SIZE * 4;
	bytes = off_blk + blkbytes;
	if (max_size != 0 && bytes > max_size) {
		return vpk_errf(why, len, -ERANGE, "runtime needs %zu bytes, more than max_size %zu", bytes, max_size);
	}
	if (blkbytes / 64 > ACL_LEAF_OFF) {
		return vpk_errf(why, len, -ENOMEM, "runtime too large");
	}
	mem = rt_alloc(bytes);
	if (mem == NULL) {
		return vpk_errf(why, len, -ENOMEM, "out of memory for a %zu-byte runtime", bytes);
	}
	rt = (struct acl_rt *)mem;
	memset(rt, 0, sizeof(*rt));
	rt->mem = mem;
	rt->refs = 1;
	rt->nd = nd;
	rt->ncat = ncat;
	rt->ntrees = ng;
	memcpy(rt->tree, trees, sizeof(rt->tree));
	memcpy(rt->src, src, sizeof(rt->src));
	key_rows(src, nd, &rt->kp);
	{
		uint32_t n32, n = acl_dim_order(nr->dbits, nd, (UINT32_C(1) << nd) - 1, rt->full_dim, &n32);

		rt->full_n32 = (uint8_t)n32;
		rt->full_n16 = (uint8_t)(n - n32);
	}
	{
		uint32_t *node = (uint32_t *)(mem + off_nodes);
		uint32_t *rtab = (uint32_t *)(mem + off_rtab), *loff = malloc((size_t)b->nleaves * 4 + 4);
		uint8_t *blk = mem + off_blk, *p = blk;

		if (loff == NULL) {
			free(mem);
			return vpk_errf(why, len, -ENOMEM, "out of memory for the leaf offsets");
		}
		for (uint32_t l = 0; l < b->nleaves; l++) {
			uint32_t lines;

			acl_leaf_emit(b, l, p, ncat);
			lines = ((const struct acl_blk *)(const void *)p)->lines & ~ACL_BLK_LAST;
			loff[l] = (uint32_t)((size_t)(p - blk) / 64) | (lines < 63 ? lines : 63) << ACL_LEAF_LSHIFT;
			p += acl_leaf_bytes(b, l);
		}
		/* A leaf node carries its first block and best rank (acl_int.h). */
		for (uint32_t i = 0; i < b->nnodes; i++) {
			uint32_t ix = b->info[i], l = ix & ~ACL_LEAF_BIT, r;

			if (!(ix & ACL_LEAF_BIT)) {
				node[2 * i] = b->thr[i];
				node[2 * i + 1] = ix;
				continue;
			}
			r = b->lcnt[l] ? nr->rank[b->lent[b->lstart[l]]] : UINT32_MAX;
			node[2 * i] = loff[l];
			node[2 * i + 1] = ACL_LEAF_BIT | (r < ACL_LEAF_RANK ? r : ACL_LEAF_RANK);
		}
		free(loff);
		root_tables(b, rt->tree, ng, rtab);
		for (uint32_t t = 0; t < ng; t++) {
			rt->tree[t].rtab = rtab + (size_t)t * ACL_RTAB_SIZE;
			rt->tree[t].thr = node;
			rt->tree[t].info = node + 1;
			rt->tree[t].blocks = blk;
		}
	}
	rt->stats.rules = nr->nrules;
	rt->stats.trees = ng;
	rt->stats.nodes = b->nnodes - b->nleaves;
	rt->stats.leaves = b->nleaves;
	rt->stats.max_depth = b->max_depth;
	rt->stats.leaf_rules = b->nlent;
	rt->stats.runtime_bytes = bytes;
	*out = rt;
	return 0;
}
