/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bm16 compressed IPv4 dataplane, control side (bm16.h): recompression of
 * /16 chunks from the DIR-24-8 tables, the node arena (one reserved mapping
 * that never moves, free lists per node size in 64-byte lines, deferred
 * freeing for lock-free readers), and the table of lookup variants.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

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

#define HUGE_SZ ((size_t)2 << 20)

int
vpk_bm16_init(struct bm16 *b, uint64_t default_nh)
{
	memset(b, 0, sizeof(*b));
	/*
	 * One reservation (address space only, pages on first touch; smaller
	 * if refused): the direct table, then the node arena, 2 MiB aligned
	 * and advised for transparent huge pages so that the few MiB a real
	 * table uses sit in a few TLB entries.
	 */
	for (size_t words = (size_t)1 << 28; words >= ((size_t)1 << 22) && b->arena == NULL; words >>= 2) {
		size_t len = (words + (1u << 16)) * sizeof(uint32_t) + HUGE_SZ;
		void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED)
			continue;
		b->map = p;
		b->map_len = len;
		uintptr_t a = ((uintptr_t)p + HUGE_SZ - 1) & ~(uintptr_t)(HUGE_SZ - 1);
#ifdef MADV_HUGEPAGE
		(void)madvise((void *)a, len - (a - (uintptr_t)p), MADV_HUGEPAGE);  /* a hint */
#endif
		b->direct = (uint32_t *)a;
		b->arena = b->direct + (1u << 16);
		b->arena_cap = words;
	}
	if (b->arena == NULL)
		return -ENOMEM;
	b->top = BM16_LINE_WORDS;       /* word 0 means "no node" and is a zero header */
	for (uint32_t i = 0; i < (1u << 16); i++)
		b->direct[i] = (uint32_t)(default_nh << 1);
	return 0;
}

void
vpk_bm16_fini(struct bm16 *b)
{
	if (b->map != NULL)
		munmap(b->map, b->map_len);
	for (unsigned c = 0; c <= BM16_MAX_LINES; c++)
		free(b->free[c].at);
	free(b->pending);
	memset(b, 0, sizeof(*b));
}

size_t
vpk_bm16_bytes(const struct bm16 *b)
{
	return (1u << 16) * sizeof(uint32_t) + b->live_lines * BM16_LINE_WORDS * sizeof(uint32_t);
}

static unsigned
pop32(uint32_t x)
{
	x -= (x >> 1) & 0x55555555u;
	x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
	return (((x + (x >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

static unsigned
node_runs(const uint32_t *n)
{
	return (n[9] >> 24) + pop32(n[7]);
}

static unsigned
node_lines(unsigned runs)
{
	return (BM16_HDR_WORDS + runs + BM16_LINE_WORDS - 1) / BM16_LINE_WORDS;
}

static int
push(uint32_t **a, size_t *n, size_t *cap, uint32_t v)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		uint32_t *p = realloc(*a, c * sizeof(uint32_t));
		if (p == NULL)
			return -ENOMEM;
		*a = p;
		*cap = c;
	}
	(*a)[(*n)++] = v;
	return 0;
}

/* Arena word of a fresh node of `lines` lines, or 0 when exhausted. */
static uint32_t
node_alloc(struct bm16 *b, unsigned lines)
{
	uint32_t at;

	if (b->free[lines].n > 0) {
		at = b->free[lines].at[--b->free[lines].n];
	} else {
		size_t need = (size_t)lines * BM16_LINE_WORDS;
		if (b->top + need > b->arena_cap || b->top + need > (UINT32_C(1) << 31))
			return 0;
		at = (uint32_t)b->top;
		b->top += need;
	}
	b->live_lines += lines;
	b->nodes++;
	return at;
}

static void
node_release(struct bm16 *b, uint32_t at)
{
	unsigned lines = node_lines(node_runs(b->arena + at));

	/* If the free list cannot grow, the node is leaked (still correct). */
	if (push(&b->free[lines].at, &b->free[lines].n, &b->free[lines].cap, at) == 0) {
		b->live_lines -= lines;
		b->nodes--;
	}
}

/* A node readers may still hold: freed now, or parked until vpk_bm16_reclaim(). */
static void
node_retire(struct bm16 *b, uint32_t at)
{
	if (at == 0)
		return;
	if (!b->defer || push(&b->pending, &b->npending, &b->pending_cap, at) != 0)
		node_release(b, at);    /* (parking failed for lack of memory: free at once) */
}

size_t
vpk_bm16_reclaim(struct bm16 *b)
{
	size_t n = b->npending;

	for (size_t i = 0; i < n; i++)
		node_release(b, b->pending[i]);
	b->npending = 0;
	return n;
}

/* Bitmap word w of 256 values: bit j set where v[32w + j] starts a run. */
static uint32_t
run_starts(const uint32_t v[256], unsigned w)
{
	const uint32_t *p = v + 32 * w;
	uint32_t bits = 0;
#ifdef __SSE2__
	for (unsigned j = 0; j < 32; j += 4) {
		__m128i cur = _mm_loadu_si128((const __m128i *)(p + j));
		__m128i prev = w + j == 0 ? _mm_set_epi32((int)p[2], (int)p[1], (int)p[0], (int)~p[0])
					  : _mm_loadu_si128((const __m128i *)(p + j - 1));
		bits |= (uint32_t)(~_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(cur, prev))) & 0xf) << j;
	}
#else
	for (unsigned j = 0; j < 32; j++)
		bits |= (uint32_t)(p[j] != (w + j == 0 ? ~p[0] : p[(int)j - 1])) << j;
#endif
	return bits;
}

#define BM16_SAME UINT32_MAX

/*
 * A fresh node holding the 256 values v. When `old` (arena word, 0 = none)
 * is a node whose entries equal v outside [lo, hi], only the bitmap words
 * those entries can affect (lo >> 5 .. (hi + 1) >> 5) are recomputed; the
 * runs before and after them are copied from the old node. Returns the
 * node's arena word, BM16_SAME when it would equal `old`, 0 when the arena
 * is exhausted.
 */
static uint32_t
node_put(struct bm16 *b, const uint32_t *v, uint32_t old, unsigned lo, unsigned hi)
{
	const uint32_t *o = old ? b->arena + old : NULL;
	unsigned wl = 0, wh = 7, pre = 0, old_mid_end = 0, old_runs = 0, nmid = 0;
	uint32_t bm[8], mid[256];
	bool same = o != NULL;

	if (o != NULL) {
		wl = lo >> 5;
		wh = (hi + 1) >> 5 > 7 ? 7 : (hi + 1) >> 5;
		old_runs = node_runs(o);
		pre = ((const uint8_t *)(o + 8))[wl];
		old_mid_end = wh == 7 ? old_runs : ((const uint8_t *)(o + 8))[wh + 1];
	}
	for (unsigned w = 0; w < 8; w++) {
		if (w < wl || w > wh) {
			bm[w] = o[w];
			continue;
		}
		bm[w] = run_starts(v, w);
		same = same && bm[w] == o[w];
		for (uint32_t bits = bm[w]; bits; bits &= bits - 1)
			mid[nmid++] = v[32 * w + (unsigned)__builtin_ctz(bits)];
	}
	if (same && nmid == old_mid_end - pre &&
	    memcmp(mid, o + BM16_HDR_WORDS + pre, nmid * sizeof(uint32_t)) == 0)
		return BM16_SAME;
	unsigned post = old_runs - old_mid_end, runs = pre + nmid + post;
	uint32_t at = node_alloc(b, node_lines(runs));
	if (at == 0)
		return 0;
	uint32_t *n = b->arena + at;
	uint8_t cum[8];
	for (unsigned w = 0, k = 0; w < 8; w++) {
		cum[w] = (uint8_t)k;    /* <= 32 * 7 */
		k += pop32(bm[w]);
	}
	memcpy(n, bm, sizeof(bm));
	memcpy(n + 8, cum, sizeof(cum));
	if (pre)
		memcpy(n + BM16_HDR_WORDS, o + BM16_HDR_WORDS, pre * sizeof(uint32_t));
	memcpy(n + BM16_HDR_WORDS + pre, mid, nmid * sizeof(uint32_t));
	if (post)
		memcpy(n + BM16_HDR_WORDS + pre + nmid, o + BM16_HDR_WORDS + old_mid_end, post * sizeof(uint32_t));
	return at;
}

/*
 * Recompress chunk c; /24s lo24..hi24 (absolute /24 numbers) changed and get
 * new /32-level nodes, the others keep theirs. The DIR-24-8 copy has 4-byte
 * entries (fib.c), whose plain encoding nh << 1 is already bm16's.
 */
static int
chunk_update(struct bm16 *b, const struct dir24_8 *dp, uint32_t c, uint32_t lo24, uint32_t hi24)
{
	uint32_t v[256];
	uint32_t fresh[256], retire[256], keep[256];
	unsigned nfresh = 0, nretire = 0;
	uint32_t old = b->direct[c], any_ext = 0, diff = 0;
	unsigned lo = lo24 > c * 256 ? lo24 - c * 256 : 0;
	unsigned hi = hi24 < c * 256 + 255 ? hi24 - c * 256 : 255;

	const uint32_t *src = (const uint32_t *)dp->tbl24 + (size_t)c * 256;
	for (int i = 0; i < 256; i++) {
		any_ext |= src[i];
		diff |= src[i] ^ src[0];
	}
	if (any_ext & 1) {      /* group indexes become /32-level node words */
		memcpy(v, src, sizeof(v));
		src = v;
	}
	/* The old node's /32-level nodes: kept outside [lo, hi], retired inside. */
	bool old_ext = (old & 1) && (b->has_ext[c / 64] >> (c % 64) & 1);
	if (old_ext) {
		const uint32_t *n = b->arena + (old >> 1);
		memset(keep, 0, sizeof(keep));
		for (unsigned w = 0, k = 0; w < 8; w++)
			for (uint32_t bits = n[w]; bits; bits &= bits - 1) {
				unsigned pos = 32 * w + (unsigned)__builtin_ctz(bits);
				uint32_t o = n[BM16_HDR_WORDS + k++];
				if (!(o & 1))
					continue;
				if (pos >= lo && pos <= hi)
					retire[nretire++] = o >> 1;
				else
					keep[pos] = o;
			}
	}
	for (unsigned i = 0; (any_ext & 1) && i < 256; i++) {
		if (!(v[i] & 1))
			continue;
		uint32_t o = old_ext ? keep[i] : 0;
		if (o & 1) {
			v[i] = o;               /* untouched /24: keep its /32-level node */
			continue;
		}
		uint32_t at = node_put(b, (const uint32_t *)dp->tbl8 + (size_t)(v[i] >> 1) * 256, 0, 0, 255);
		if (at == 0)
			goto nomem;
		fresh[nfresh++] = at;
		v[i] = at << 1 | 1;
	}
	uint32_t nu;
	if (diff == 0 && !(src[0] & 1)) {
		nu = src[0];
	} else {
		uint32_t at = node_put(b, src, old & 1 ? old >> 1 : 0, lo, hi);
		if (at == BM16_SAME)
			return 0;       /* same node: nothing to publish */
		if (at == 0)
			goto nomem;
		nu = at << 1 | 1;
	}
	if (nu == old)
		return 0;
	__atomic_store_n(&b->direct[c], nu, __ATOMIC_RELEASE);
	if ((nu & 1) && (any_ext & 1))
		b->has_ext[c / 64] |= UINT64_C(1) << (c % 64);
	else
		b->has_ext[c / 64] &= ~(UINT64_C(1) << (c % 64));
	if (old & 1)
		node_retire(b, old >> 1);
	for (unsigned i = 0; i < nretire; i++)
		node_retire(b, retire[i]);
	return 0;
nomem:
	for (unsigned i = 0; i < nfresh; i++)
		node_release(b, fresh[i]);      /* never published */
	return -ENOMEM;
}

int
vpk_bm16_update(struct bm16 *b, const struct dir24_8 *dp, uint32_t first, uint32_t last)
{
	for (uint32_t c = first >> 16; c <= last >> 16; c++) {
		int rc = chunk_update(b, dp, c, first >> 8, last >> 8);
		if (rc != 0)
			return rc;
	}
	return 0;
}
