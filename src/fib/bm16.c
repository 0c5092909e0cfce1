/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bm16 compressed IPv4 dataplane, control side (bm16.h): the changed range
 * of /16 chunks carried over from the DIR-24-8 tables (compressed nodes
 * patched copy-on-write, flat nodes in place, kinds switched by run count),
 * the node arena (one reserved mapping that never moves, free lists per node
 * size in 64-byte lines, deferred freeing for lock-free readers), and the
 * table of lookup variants.
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
#include "fib/fib_bits.h"

VPK_DECLARE_VARIANTS(struct bm16_impl, vpk_bm16_impl);

VPK_KERNEL_TABLE(vpk_bm16_impls, bm16, vpk_bm16_impl, impl);

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
	/* Run counts of flat nodes, one per arena line (control plane only; pages on first touch). */
	b->flat_runs_len = b->arena_cap / BM16_LINE_WORDS * sizeof(uint16_t);
	void *rc = mmap(NULL, b->flat_runs_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			-1, 0);
	if (rc == MAP_FAILED) {
		munmap(b->map, b->map_len);
		memset(b, 0, sizeof(*b));
		return -ENOMEM;
	}
	b->flat_runs_of = rc;
	b->flat_min = BM16_FLAT_MIN;
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
	if (b->flat_runs_of != NULL)
		munmap(b->flat_runs_of, b->flat_runs_len);
	for (unsigned c = 0; c <= BM16_MAX_LINES; c++)
		free(b->free[c].at);
	free(b->pending);
	free(b->retire);
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
	return (n[9] >> 24) + fib_pop32(n[7]);
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

/* Arena word of a fresh node of `lines` lines, or 0 when exhausted (bm16.h: entries hold word << 2). */
static uint32_t
node_alloc(struct bm16 *b, unsigned lines)
{
	uint32_t at;

	if (b->free[lines].n > 0) {
		at = b->free[lines].at[--b->free[lines].n];
	} else {
		size_t need = (size_t)lines * BM16_LINE_WORDS;
		/* (a line to spare at the end: the lookups' word reads stay inside) */
		if (b->top + need + BM16_LINE_WORDS > b->arena_cap || b->top + need > BM16_MAX_WORDS)
			return 0;
		at = (uint32_t)b->top;
		b->top += need;
	}
	b->live_lines += lines;
	b->nodes++;
	return at;
}

/* Arena word of the node of entry e (a narrow flat node's entry has bit 2 set). */
static inline uint32_t
node_at(uint32_t e)
{
	return (e >> 2) & ~(BM16_LINE_WORDS - 1);
}

/* Entry `e` (a node entry, bm16.h) back to the free list of its size. */
static void
node_release(struct bm16 *b, uint32_t e)
{
	uint32_t at = node_at(e);
	unsigned lines = !(e & BM16_FLAT) ? node_lines(node_runs(b->arena + at))
			 : (e & BM16_NARROW) ? BM16_NARROW_LINES : BM16_FLAT_LINES;

	/* If the free list cannot grow, the node is leaked (still correct). */
	if (push(&b->free[lines].at, &b->free[lines].n, &b->free[lines].cap, at) == 0) {
		b->live_lines -= lines;
		b->nodes--;
	}
}

/* A node readers may still hold: freed now, or parked until vpk_bm16_reclaim(). */
static void
node_retire(struct bm16 *b, uint32_t e)
{
	if (!(e & 1))
		return;
	if (!b->defer || push(&b->pending, &b->npending, &b->pending_cap, e) != 0)
		node_release(b, e);     /* (parking failed for lack of memory: free at once) */
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

/* Bitmap word w of 256 values: bit j set where v[32w + j] starts a run (v[32w - 1] is read for w > 0). */
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

/* What a put() works on: the DIR-24-8 copy, the changed addresses [first, last]. */
struct span {
	const struct dir24_8 *dp;
	uint32_t first, last;
};

#define NO24 UINT32_MAX         /* put() at the /32 level */

static uint32_t put(struct bm16 *b, const struct span *sp, uint32_t old, const uint32_t *src, uint32_t t0,
		    unsigned lo, unsigned hi);

/* Queue a replaced node for retirement once the chunk is published; false when out of memory. */
static bool
queue_retire(struct bm16 *b, uint32_t o)
{
	return push(&b->retire, &b->nretire, &b->retire_cap, o) == 0;
}

/* want() for an ext value at the /24 level: the /32-level node of its group. */
static uint32_t
want_ext(struct bm16 *b, const struct span *sp, uint32_t s, uint32_t o, uint32_t t)
{
	const uint32_t *grp = (const uint32_t *)sp->dp->tbl8 + (size_t)(s >> 1) * 256;
	unsigned lo = sp->first >> 8 == t ? sp->first & 255 : 0;
	unsigned hi = sp->last >> 8 == t ? sp->last & 255 : 255;
	uint32_t e = put(b, sp, o, grp, NO24, (o & 1) ? lo : 0, (o & 1) ? hi : 255);

	if (e == BM16_SAME)
		return o;
	if (e != BM16_NOMEM && (o & 1) && !queue_retire(b, o))
		return BM16_NOMEM;
	return e;
}

/*
 * The entry for DIR-24-8 value s (`value << 1 | ext`) whose bm16 entry was o:
 * at the /24 level (t = absolute /24 number) an ext value becomes the /32-level
 * node of its group (o's node updated, or a fresh one). When the result replaces
 * a node, that node is queued for retirement.
 */
static inline __attribute__((always_inline)) uint32_t
want(struct bm16 *b, const struct span *sp, uint32_t s, uint32_t o, uint32_t t)
{
	if ((s & 1) && t != NO24)
		return want_ext(b, sp, s, o, t);
	if (__builtin_expect(o & 1, 0) && !queue_retire(b, o))
		return BM16_NOMEM;      /* (a leaf replaces a /32-level node) */
	return s;
}

/* OR of v[0..255]. */
static uint32_t
or256(const uint32_t *v)
{
	uint32_t acc = 0;

	for (unsigned i = 0; i < 256; i++)
		acc |= v[i];
	return acc;
}

/* Fill words of a node not yet reachable: atomic stores, as lookups read them (fib_bits.h). */
static void
arena_fill(uint32_t *dst, const uint32_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		FIB_ST(&dst[i], src[i]);
}

/*
 * A flat node holding v (all 256 entries valid), `runs` runs: narrow (16-bit
 * entries) when b->narrow and every entry is a leaf that fits.
 */
static uint32_t
put_flat(struct bm16 *b, const uint32_t *v, unsigned runs)
{
	uint32_t acc = b->narrow ? or256(v) : 1;
	bool nar = !(acc & 1) && acc <= UINT16_MAX;
	uint32_t at = node_alloc(b, nar ? BM16_NARROW_LINES : BM16_FLAT_LINES);

	if (at == 0)
		return BM16_NOMEM;
	/* 32-bit stores only (a narrow node's word holds entries 2k, 2k + 1), the size lookups load */
	if (nar) {
		for (unsigned k = 0; k < 128; k++)
			FIB_ST(&b->arena[at + k], v[2 * k] | v[2 * k + 1] << 16);
	} else {
		arena_fill(b->arena + at, v, 256);
	}
	b->flat_runs_of[at / BM16_LINE_WORDS] = (uint16_t)runs;
	return at << 2 | (nar ? BM16_NARROW : 0) | BM16_FLAT | 1;
}

/* The run (0..runs-1) holding entry x of the compressed node n. */
static inline unsigned
node_get_run(const uint32_t *n, unsigned x)
{
	unsigned cum = ((const uint8_t *)(n + 8))[x >> 5];

	return cum - 1 + fib_pop32(n[x >> 5] & (~UINT32_C(0) >> (31 - (x & 31))));
}

/* A node of `runs` runs: bitmap bm, then the values vals[0..nv0) ++ vals1[0..nv1) ++ vals2[0..nv2). */
static uint32_t
node_build(struct bm16 *b, const uint32_t bm[8], unsigned runs, const uint32_t *vals0, unsigned nv0,
	   const uint32_t *vals1, unsigned nv1, const uint32_t *vals2, unsigned nv2)
{
	uint32_t at = node_alloc(b, node_lines(runs));
	if (at == 0)
		return BM16_NOMEM;
	uint32_t *n = b->arena + at;
	uint8_t cum[8];
	for (unsigned w = 0, k = 0; w < 8; w++) {
		cum[w] = (uint8_t)k;    /* <= 32 * 7 */
		k += fib_pop32(bm[w]);
	}
	uint32_t cw[2];
	memcpy(cw, cum, sizeof(cum));
	arena_fill(n, bm, 8);
	arena_fill(n + 8, cw, 2);
	arena_fill(n + BM16_HDR_WORDS, vals0, nv0);
	arena_fill(n + BM16_HDR_WORDS + nv0, vals1, nv1);
	arena_fill(n + BM16_HDR_WORDS + nv0 + nv1, vals2, nv2);
	return at << 2 | 1;
}

/*
 * The entry for the 256 entries nv (a leaf, a flat node or a compressed node
 * with bitmap bm, `runs` runs; the values: see node_build()), or BM16_NOMEM.
 * When it must be flat, nv[] is completed from the old node o outside [lo, hi].
 */
static uint32_t
finish(struct bm16 *b, const uint32_t *o, unsigned lo, unsigned hi, uint32_t *nv, const uint32_t bm[8],
       unsigned runs, const uint32_t *vals0, unsigned nv0, const uint32_t *vals1, unsigned nv1,
       const uint32_t *vals2, unsigned nv2)
{
	if (runs == 1) {
		uint32_t v = nv0 ? vals0[0] : nv1 ? vals1[0] : vals2[0];
		if (!(v & 1))
			return v;       /* a leaf */
	}
	if (runs >= b->flat_min) {
		if (o != NULL) {        /* every entry of a flat node */
			for (unsigned i = 0, k = BM16_HDR_WORDS - 1; i < 256; i++) {
				k += o[i >> 5] >> (i & 31) & 1;
				if (i < lo || i > hi)
					nv[i] = o[k];
			}
		}
		return put_flat(b, nv, runs);
	}
	return node_build(b, bm, runs, vals0, nv0, vals1, nv1, vals2, nv2);
}

/*
 * The entry replacing `old` (a leaf or a compressed node) whose entries
 * [lo, hi] become nv[lo..hi] (nv has room for 256). BM16_SAME: the result
 * equals old. A compressed old node is patched: its runs are those starting
 * before lo (kept: a copy of their values), the runs starting in [lo, hi + 1]
 * (recomputed from nv and the old entry at hi + 1), and those starting after
 * hi + 1 (kept); only the bitmap bits of [lo, hi + 1] change.
 */
static uint32_t
encode(struct bm16 *b, uint32_t old, unsigned lo, unsigned hi, uint32_t *nv)
{
	uint32_t bm[8], mid[256];
	unsigned nmid = 0;

	if (!(old & 1)) {               /* a leaf: every entry is old outside [lo, hi] */
		for (unsigned i = 0; i < lo; i++)
			nv[i] = old;
		for (unsigned i = hi + 1; i < 256; i++)
			nv[i] = old;
		for (unsigned w = 0; w < 8; w++) {
			bm[w] = run_starts(nv, w);
			for (uint32_t bits = bm[w]; bits; bits &= bits - 1)
				mid[nmid++] = nv[32 * w + (unsigned)__builtin_ctz(bits)];
		}
		if (nmid == 1 && nv[0] == old)
			return BM16_SAME;
		return finish(b, NULL, lo, hi, nv, bm, nmid, mid, nmid, NULL, 0, NULL, 0);
	}
	const uint32_t *o = b->arena + (old >> 2);
	const uint8_t *oc = (const uint8_t *)(o + 8);
	unsigned end = hi < 255 ? hi + 1 : 255, wl = lo >> 5, wh = end >> 5;
	unsigned runs_old = node_runs(o);
	/* Old runs starting before lo, and starting at or before end. */
	unsigned ilo = oc[wl] + fib_pop32(o[wl] & ((UINT32_C(1) << (lo & 31)) - 1));
	unsigned iend = oc[wh] + fib_pop32(o[wh] & (~UINT32_C(0) >> (31 - (end & 31))));
	uint32_t prev = lo ? o[BM16_HDR_WORDS + ilo - 1] : ~nv[0];
	uint32_t after = o[BM16_HDR_WORDS + iend - 1];    /* the old entry at end (used when end > hi) */

	memcpy(bm, o, sizeof(bm));
	for (unsigned w = wl; w <= wh; w++) {
		uint32_t m = ~UINT32_C(0);
		if (w == wl)
			m &= ~UINT32_C(0) << (lo & 31);
		if (w == wh)
			m &= ~UINT32_C(0) >> (31 - (end & 31));
		bm[w] &= ~m;
	}
	for (unsigned p = lo; p <= end;) {
		if ((p & 31) == 0 && p > lo && p + 31 <= hi) {  /* a whole word inside (nv[p - 1] too) */
			uint32_t bits = run_starts(nv, p >> 5);
			bm[p >> 5] = bits;
			for (; bits; bits &= bits - 1)
				mid[nmid++] = nv[p + (unsigned)__builtin_ctz(bits)];
			p += 32;
			prev = nv[p - 1];
			continue;
		}
		uint32_t cur = p <= hi ? nv[p] : after;
		if (cur != prev) {
			bm[p >> 5] |= UINT32_C(1) << (p & 31);
			mid[nmid++] = cur;
		}
		prev = cur;
		p++;
	}
	if (nmid == iend - ilo && memcmp(mid, o + BM16_HDR_WORDS + ilo, nmid * sizeof(uint32_t)) == 0 &&
	    memcmp(bm + wl, o + wl, (wh - wl + 1) * sizeof(uint32_t)) == 0)
		return BM16_SAME;
	return finish(b, o, lo, hi, nv, bm, ilo + nmid + (runs_old - iend), o + BM16_HDR_WORDS, ilo, mid, nmid,
		      o + BM16_HDR_WORDS + iend, runs_old - iend);
}

/*
 * A flat node changes in place: each changed entry is one atomic store (a
 * reader sees its address's old or new entry), and its run count is kept
 * from the boundaries around [lo, hi]. Below half the flat threshold (or at
 * one run) it is rebuilt as a compressed node or a leaf instead, and a
 * narrow node gaining a /32-level entry (or a plain one losing its last
 * while b->narrow) is rebuilt as the other flat kind.
 */
static inline __attribute__((always_inline)) uint32_t
put_in_flat_w(struct bm16 *b, const struct span *sp, uint32_t old, const uint32_t *src, uint32_t t0,
	      unsigned lo, unsigned hi, bool nar)
{
	uint32_t *f = b->arena + node_at(old);
	uint16_t *h = (uint16_t *)f;
#define FGET(i) (nar ? (uint32_t)h[i] : f[i])
	uint32_t v[256];
	uint32_t ext_new = 0, ext_old = 0;
	int delta = 0;

	for (unsigned i = lo; i <= hi; i++) {
		uint32_t o = FGET(i);
		v[i] = want(b, sp, src[i], o, t0 == NO24 ? NO24 : t0 + i);
		if (v[i] == BM16_NOMEM)
			return BM16_NOMEM;
		ext_new |= v[i];
		ext_old |= o;
	}
	for (unsigned j = lo ? lo : 1; j <= hi + 1 && j < 256; j++) {
		uint32_t nj = j <= hi ? v[j] : FGET(j), np = j > lo ? v[j - 1] : FGET(j - 1);
		delta += (nj != np) - (FGET(j) != FGET(j - 1));
	}
	uint16_t *rc = &b->flat_runs_of[node_at(old) / BM16_LINE_WORDS];
	int runs = (int)*rc + delta;
	bool small = runs <= 1 || (unsigned)runs < b->flat_min / 2;
	/*
	 * Kind changes: a narrow node that gains a /32-level entry becomes a
	 * plain flat node; a plain one that loses one may become narrow.
	 */
	bool rekind = nar ? (ext_new & 1) || ext_new > UINT16_MAX : b->narrow && (ext_old & 1) && !(ext_new & 1);
	if (small || rekind) {
		for (unsigned i = 0; i < lo; i++)
			v[i] = FGET(i);
		for (unsigned i = hi + 1; i < 256; i++)
			v[i] = FGET(i);
		if (small) {
			uint32_t e = encode(b, 0, 0, 255, v);   /* (old = leaf 0: "same" means leaf 0) */
			return e == BM16_SAME ? 0 : e;
		}
		if (nar || !(or256(v) & 1))
			return put_flat(b, v, (unsigned)runs);
	}
	for (unsigned i = lo; i <= hi; i++) {
		if (v[i] == FGET(i))
			continue;
		if (nar)        /* the word of entries i & ~1, i | 1: lookups load whole words */
			__atomic_store_n(&f[i >> 1], (f[i >> 1] & ~(UINT32_C(0xffff) << (i & 1) * 16)) |
				v[i] << (i & 1) * 16, __ATOMIC_RELEASE);
		else
			__atomic_store_n(&f[i], v[i], __ATOMIC_RELEASE);
	}
#undef FGET
	*rc = (uint16_t)runs;
	return BM16_SAME;
}

static uint32_t
put_in_flat(struct bm16 *b, const struct span *sp, uint32_t old, const uint32_t *src, uint32_t t0,
	    unsigned lo, unsigned hi)
{
	if (old & BM16_NARROW)
		return put_in_flat_w(b, sp, old, src, t0, lo, hi, true);
	return put_in_flat_w(b, sp, old, src, t0, lo, hi, false);
}

/* v[lo..hi] = src[lo..hi]; returns the OR of those entries. */
static uint32_t
copy_or(uint32_t *v, const uint32_t *src, unsigned lo, unsigned hi)
{
	uint32_t acc = 0;
	unsigned i = lo;
#ifdef __SSE2__
	__m128i a = _mm_setzero_si128();
	for (; i + 4 <= hi + 1; i += 4) {
		__m128i x = _mm_loadu_si128((const __m128i *)(src + i));
		_mm_storeu_si128((__m128i *)(v + i), x);
		a = _mm_or_si128(a, x);
	}
	a = _mm_or_si128(a, _mm_srli_si128(a, 8));
	a = _mm_or_si128(a, _mm_srli_si128(a, 4));
	acc = (uint32_t)_mm_cvtsi128_si32(a);
#endif
	for (; i <= hi; i++) {
		v[i] = src[i];
		acc |= src[i];
	}
	return acc;
}

/*
 * The entry replacing `old` for the 256 DIR-24-8 values src, of which
 * [lo, hi] may have changed; t0: the absolute /24 number of entry 0 at the
 * /24 level, NO24 at the /32 level. BM16_SAME: old stays (unchanged, or a
 * flat node changed in place); BM16_NOMEM: the arena is exhausted.
 */
static uint32_t
put(struct bm16 *b, const struct span *sp, uint32_t old, const uint32_t *src, uint32_t t0, unsigned lo, unsigned hi)
{
	uint32_t v[256];

	if ((old & 3) == (BM16_FLAT | 1))
		return put_in_flat(b, sp, old, src, t0, lo, hi);
	const uint32_t *o = (old & 1) ? b->arena + (old >> 2) : NULL;
	/*
	 * Usually no entry of [lo, hi] is or was a /32-level node: then the new
	 * entries are src's as they are (a copy; a wide range costs little).
	 */
	uint32_t ext = 0;
	if (t0 != NO24)
		ext = copy_or(v, src, lo, hi);
	else
		memcpy(v + lo, src + lo, (hi - lo + 1) * sizeof(uint32_t));
	if (o != NULL)
		for (unsigned k = node_get_run(o, lo), e = node_get_run(o, hi); k <= e; k++)
			ext |= o[BM16_HDR_WORDS + k];
	if (!(ext & 1))
		return encode(b, old, lo, hi, v);
	/* The old entries of [lo, hi] in order: run k advances at every run start. */
	unsigned k = o ? BM16_HDR_WORDS + node_get_run(o, lo) : 0;
	for (unsigned i = lo; i <= hi; i++) {
		k += o && i > lo && (o[i >> 5] >> (i & 31) & 1);
		v[i] = want(b, sp, src[i], o ? o[k] : old, t0 == NO24 ? NO24 : t0 + i);
		if (v[i] == BM16_NOMEM)
			return BM16_NOMEM;
	}
	return encode(b, old, lo, hi, v);
}

int
vpk_bm16_update(struct bm16 *b, const struct dir24_8 *dp, uint32_t first, uint32_t last)
{
	const struct span sp = { dp, first, last };

	for (uint32_t c = first >> 16; c <= last >> 16; c++) {
		uint32_t old = b->direct[c];
		unsigned lo = c == first >> 16 ? (first >> 8) & 255 : 0;
		unsigned hi = c == last >> 16 ? (last >> 8) & 255 : 255;

		b->nretire = 0;
		uint32_t nu = put(b, &sp, old, (const uint32_t *)dp->tbl24 + (size_t)c * 256, c << 8, lo, hi);
		if (nu == BM16_NOMEM) {
			/*
			 * The FIB stops using bm16 (fib.c answers from the DIR-24-8
			 * copy): the nodes built so far and those queued for
			 * retirement (maybe still reachable) are left as they are.
			 */
			b->nretire = 0;
			return -ENOMEM;
		}
		if (nu != BM16_SAME) {
			__atomic_store_n(&b->direct[c], nu, __ATOMIC_RELEASE);
			node_retire(b, old);
		}
		for (size_t i = 0; i < b->nretire; i++)
			node_retire(b, b->retire[i]);
	}
	b->nretire = 0;
	return 0;
}
