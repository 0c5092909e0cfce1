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

#define CHUNK_LINE_WORDS 1024u  /* 4 KiB pages of the reservation */

int
vpk_bm16_init(struct bm16 *b, uint64_t default_nh)
{
	memset(b, 0, sizeof(*b));
	b->direct = malloc((1u << 16) * sizeof(uint32_t) + 64);
	if (b->direct == NULL)
		return -ENOMEM;
	/* Address space only (pages come on first touch); smaller if refused. */
	for (size_t words = (size_t)1 << 28; words >= ((size_t)1 << 22) && b->arena == NULL; words >>= 2) {
		void *p = mmap(NULL, words * sizeof(uint32_t), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p != MAP_FAILED) {
			b->arena = p;
			b->arena_cap = words;
		}
	}
	if (b->arena == NULL) {
		vpk_bm16_fini(b);
		return -ENOMEM;
	}
	b->top = BM16_LINE_WORDS;       /* word 0 means "no node" and is a zero header */
	for (uint32_t i = 0; i < (1u << 16); i++)
		b->direct[i] = (uint32_t)(default_nh << 1);
	return 0;
}

void
vpk_bm16_fini(struct bm16 *b)
{
	free(b->direct);
	if (b->arena != NULL)
		munmap(b->arena, b->arena_cap * sizeof(uint32_t));
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
node_runs(const uint32_t *n)
{
	return (n[9] >> 24) + (unsigned)__builtin_popcount(n[7]);
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

/* Compress 256 values into n (>= BM16_HDR_WORDS + 256 words); returns the word count. */
static unsigned
node_encode(uint32_t *n, const uint32_t v[256])
{
	uint32_t k = 0;

	for (unsigned w = 0; w < 8; w++) {
		uint32_t bits = run_starts(v, w);
		((uint8_t *)(n + 8))[w] = (uint8_t)k;   /* <= 32 * 7 */
		n[w] = bits;
		while (bits) {
			n[BM16_HDR_WORDS + k++] = v[32 * w + (unsigned)__builtin_ctz(bits)];
			bits &= bits - 1;
		}
	}
	return BM16_HDR_WORDS + k;
}

/* Publish-ready copy of an encoded node; 0 when the arena is exhausted. */
static uint32_t
node_store(struct bm16 *b, const uint32_t *enc, unsigned words)
{
	uint32_t at = node_alloc(b, node_lines(words - BM16_HDR_WORDS));

	if (at != 0)
		memcpy(b->arena + at, enc, words * sizeof(uint32_t));
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
	uint32_t v[256], enc[BM16_HDR_WORDS + 256];
	uint32_t fresh[256], retire[256], keep[256];
	unsigned nfresh = 0, nretire = 0;
	uint32_t old = b->direct[c], any_ext = 0, diff = 0;
	unsigned lo = lo24 > c * 256 ? lo24 - c * 256 : 0;
	unsigned hi = hi24 < c * 256 + 255 ? hi24 - c * 256 : 255;

	memcpy(v, (const uint32_t *)dp->tbl24 + (size_t)c * 256, sizeof(v));
	for (int i = 0; i < 256; i++) {
		any_ext |= v[i];
		diff |= v[i] ^ v[0];
	}
	/* The old node's /32-level nodes: kept outside [lo, hi], retired inside. */
	bool old_ext = false;
	if (old & 1) {
		const uint32_t *n = b->arena + (old >> 1);
		unsigned runs = node_runs(n);
		uint32_t any = 0;
		for (unsigned k = 0; k < runs; k++)
			any |= n[BM16_HDR_WORDS + k];
		if (any & 1) {
			old_ext = true;
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
	}
	for (unsigned i = 0; (any_ext & 1) && i < 256; i++) {
		if (!(v[i] & 1))
			continue;
		uint32_t o = old_ext ? keep[i] : 0;
		if (o & 1) {
			v[i] = o;               /* untouched /24: keep its /32-level node */
			continue;
		}
		uint32_t g[256];
		memcpy(g, (const uint32_t *)dp->tbl8 + (size_t)(v[i] >> 1) * 256, sizeof(g));
		uint32_t at = node_store(b, enc, node_encode(enc, g));
		if (at == 0)
			goto nomem;
		fresh[nfresh++] = at;
		v[i] = at << 1 | 1;
	}
	uint32_t nu;
	if (diff == 0 && !(v[0] & 1)) {
		nu = v[0];
	} else {
		unsigned words = node_encode(enc, v);
		if ((old & 1) && nfresh == 0 && node_runs(b->arena + (old >> 1)) == words - BM16_HDR_WORDS &&
		    memcmp(b->arena + (old >> 1), enc, words * sizeof(uint32_t)) == 0)
			return 0;       /* same node: nothing to publish */
		uint32_t at = node_store(b, enc, words);
		if (at == 0)
			goto nomem;
		nu = at << 1 | 1;
	}
	if (nu == old)
		return 0;
	__atomic_store_n(&b->direct[c], nu, __ATOMIC_RELEASE);
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
