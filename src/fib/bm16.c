/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bm16 compressed IPv4 dataplane, control side (bm16.h): recompression of
 * /16 chunks from the DIR-24-8 tables, the node arena (bump allocation,
 * garbage counted and compacted by a full rebuild when it exceeds the live
 * part), and the table of lookup variants.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/kern.h"
#include "core/registry.h"
#include "fib/bm16.h"

VPK_DECLARE_VARIANTS(struct bm16_impl, vpk_bm16_impl);

const struct vpk_impl *const vpk_bm16_impls[] = {
#ifdef VPK_HAVE_ISA_AVX512ICL
	&vpk_bm16_impl_avx512icl.impl,
#endif
#ifdef VPK_HAVE_ISA_AVX512
	&vpk_bm16_impl_avx512.impl,
#endif
#ifdef VPK_HAVE_ISA_AVX2
	&vpk_bm16_impl_avx2.impl,
#endif
#ifdef VPK_HAVE_ISA_SSE42
	&vpk_bm16_impl_sse42.impl,
#endif
	&vpk_bm16_impl_scalar.impl,
	NULL,
};

VPK_KERNEL_REGISTER(fib4_bm16, "fib4-bm16",
		    "IPv4 FIB lookup, compressed: 2^16 direct table + popcount-compressed /24 and /32 nodes",
		    vpk_bm16_impls);

int
vpk_bm16_init(struct bm16 *b, uint32_t ngroups, uint64_t default_nh)
{
	memset(b, 0, sizeof(*b));
	b->direct = malloc((1u << 16) * sizeof(uint32_t) + 64);
	b->l3_of_group = calloc(ngroups ? ngroups : 1, sizeof(uint32_t));
	b->arena_cap = 1 << 16;
	b->arena = aligned_alloc(64, b->arena_cap * sizeof(uint32_t) + 64);
	b->ngroups = ngroups;
	if (b->direct == NULL || b->arena == NULL || b->l3_of_group == NULL) {
		vpk_bm16_fini(b);
		return -ENOMEM;
	}
	b->arena_used = 16;     /* word 0 means "no node" */
	for (uint32_t i = 0; i < (1u << 16); i++)
		b->direct[i] = (uint32_t)(default_nh << 1);
	return 0;
}

void
vpk_bm16_fini(struct bm16 *b)
{
	free(b->direct);
	free(b->arena);
	free(b->l3_of_group);
	memset(b, 0, sizeof(*b));
}

size_t
vpk_bm16_bytes(const struct bm16 *b)
{
	return (1u << 16) * sizeof(uint32_t) + (b->arena_used - b->arena_garbage) * sizeof(uint32_t);
}

static int
arena_grow(struct bm16 *b, size_t need)
{
	size_t cap = b->arena_cap;

	while (cap < b->arena_used + need)
		cap *= 2;
	if (cap == b->arena_cap)
		return 0;
	uint32_t *a = aligned_alloc(64, cap * sizeof(uint32_t) + 64);
	if (a == NULL)
		return -ENOMEM;
	memcpy(a, b->arena, b->arena_used * sizeof(uint32_t));
	free(b->arena);
	b->arena = a;
	b->arena_cap = cap;
	return 0;
}

static size_t
node_words(const uint32_t *n)
{
	return BM16_HDR_WORDS + (n[9] >> 24) + (size_t)__builtin_popcount(n[7]);
}

/* Compress 256 u32 values into a node; returns its arena word or 0 on ENOMEM. */
static uint32_t
node_build(struct bm16 *b, const uint32_t v[256])
{
	uint32_t runs = 1;

	for (int i = 1; i < 256; i++)
		runs += v[i] != v[i - 1];     /* vectorised by the compiler */
	if (arena_grow(b, BM16_HDR_WORDS + runs + 16) != 0)
		return 0;
	/* 64-byte aligned: bitmaps and run counts (40 bytes) in one cache line. */
	size_t at = (b->arena_used + 15) & ~(size_t)15;
	uint32_t *n = b->arena + at;
	uint32_t bm[8] = { 0 };
	uint8_t cum[8];
	uint32_t k = 0;
	for (int w = 0; w < 8; w++) {
		cum[w] = (uint8_t)k;    /* <= 32 * 7 */
		for (int j = 0; j < 32; j++) {
			int i = w * 32 + j;
			if (i == 0 || v[i] != v[i - 1]) {
				bm[w] |= UINT32_C(1) << j;
				n[BM16_HDR_WORDS + k++] = v[i];
			}
		}
	}
	memcpy(n, bm, sizeof(bm));
	memcpy(n + 8, cum, sizeof(cum));
	b->arena_garbage += at - b->arena_used;
	b->arena_used = at + BM16_HDR_WORDS + runs;
	b->nodes++;
	return (uint32_t)at;
}

static void
node_drop(struct bm16 *b, uint32_t at)
{
	if (at != 0) {
		b->arena_garbage += node_words(b->arena + at);
		b->nodes--;
	}
}

/* The /32-level node of tbl8 group g, rebuilt. */
static uint32_t
l3_build(struct bm16 *b, const struct dir24_8 *dp, uint32_t g)
{
	uint32_t v[256];

	memcpy(v, (const uint32_t *)dp->tbl8 + (size_t)g * 256, sizeof(v));
	for (int i = 0; i < 256; i++)
		v[i] &= ~UINT32_C(1);
	return node_build(b, v);
}

/*
 * Recompress chunk c; the /32-level nodes of /24s lo24..hi24 (absolute /24
 * numbers) are rebuilt. The DIR-24-8 copy has 4-byte entries (fib.c), whose
 * plain encoding nh << 1 is already bm16's: one copy, then patch ext entries.
 */
static int
chunk_update(struct bm16 *b, const struct dir24_8 *dp, uint32_t c, uint32_t lo24, uint32_t hi24)
{
	uint32_t v[256], any_ext = 0, diff = 0;

	memcpy(v, (const uint32_t *)dp->tbl24 + (size_t)c * 256, sizeof(v));
	for (int i = 0; i < 256; i++) {
		any_ext |= v[i];
		diff |= v[i] ^ v[0];
	}
	for (int i = 0; (any_ext & 1) && i < 256; i++) {
		if (!(v[i] & 1))
			continue;
		uint32_t blk = c * 256 + (uint32_t)i, g = v[i] >> 1;
		if (b->l3_of_group[g] == 0 || (blk >= lo24 && blk <= hi24)) {
			node_drop(b, b->l3_of_group[g]);
			uint32_t at = l3_build(b, dp, g);
			if (at == 0)
				return -ENOMEM;
			b->l3_of_group[g] = at;
		}
		v[i] = b->l3_of_group[g] << 1 | 1;
		diff = 1;
	}
	uint32_t old = b->direct[c];
	uint32_t nu;
	if (diff == 0) {
		nu = v[0];
	} else {
		uint32_t at = node_build(b, v);
		if (at == 0)
			return -ENOMEM;
		nu = at << 1 | 1;
	}
	__atomic_store_n(&b->direct[c], nu, __ATOMIC_RELEASE);
	if (old & 1)
		node_drop(b, old >> 1);
	return 0;
}

int
vpk_bm16_update(struct bm16 *b, const struct dir24_8 *dp, uint32_t first, uint32_t last)
{
	for (uint32_t c = first >> 16; c <= last >> 16; c++) {
		int rc = chunk_update(b, dp, c, first >> 8, last >> 8);
		if (rc != 0)
			return rc;
	}
	/* Compact when garbage dominates: rebuild every chunk into a fresh arena. */
	if (b->arena_garbage > (1u << 20) && b->arena_garbage > b->arena_used / 2) {
		struct bm16 nb = *b;
		nb.arena_cap = b->arena_used - b->arena_garbage + 1024;
		nb.arena_cap = (nb.arena_cap + 15) & ~(size_t)15;
		nb.arena = aligned_alloc(64, nb.arena_cap * sizeof(uint32_t) + 64);
		nb.l3_of_group = calloc(b->ngroups ? b->ngroups : 1, sizeof(uint32_t));
		nb.direct = malloc((1u << 16) * sizeof(uint32_t) + 64);
		if (nb.arena == NULL || nb.l3_of_group == NULL || nb.direct == NULL) {
			free(nb.arena);
			free(nb.l3_of_group);
			free(nb.direct);
			return 0;       /* keep the old one: still correct */
		}
		memcpy(nb.direct, b->direct, (1u << 16) * sizeof(uint32_t));
		nb.arena_used = 16;
		nb.arena_garbage = 0;
		nb.nodes = 0;
		for (uint32_t c = 0; c < (1u << 16); c++) {
			nb.direct[c] = 0;       /* no old node to drop in the new arena */
			if (chunk_update(&nb, dp, c, 0, UINT32_MAX) != 0) {
				free(nb.arena);
				free(nb.l3_of_group);
				free(nb.direct);
				return 0;
			}
		}
		free(b->arena);
		free(b->l3_of_group);
		free(b->direct);
		*b = nb;
	}
	return 0;
}
