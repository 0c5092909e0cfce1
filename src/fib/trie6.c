/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 trie dataplane, control side (trie6.h): table allocation, the group
 * pool, dry-run group counting and range writes with group recycling, and
 * the table of lookup variants. One writer; see ent.h for the publication
 * order that keeps concurrent readers consistent.
 */
#include <errno.h>
#include <string.h>

#include "core/kern.h"
#include "core/registry.h"
#include "fib/ent.h"
#include "fib/fib_mem.h"
#include "fib/trie6.h"

VPK_DECLARE_VARIANTS(struct trie6_impl, vpk_trie6_impl);

VPK_KERNEL_TABLE(vpk_trie6_impls, trie6, vpk_trie6_impl, impl);

VPK_KERNEL_REGISTER(fib6_trie, "fib6-trie",
		    "IPv6 FIB lookup, tbl24 + chained tbl8 byte levels, 2/4/8-byte entries", vpk_trie6_impls);

#define SLACK 8
/* Bits of address an entry of level 0 covers (128 - 24); each level below covers 8 fewer. */
#define SHIFT0 104

int
vpk_trie6_init(struct trie6 *t, unsigned nh_sz, uint32_t num_tbl8, uint64_t default_nh)
{
	memset(t, 0, sizeof(*t));
	t->nh_sz = nh_sz;
	t->nh_log = (unsigned)__builtin_ctz(nh_sz);
	t->num_tbl8 = num_tbl8;
	t->default_nh = default_nh;
	t->tbl24_bytes = (size_t)TRIE6_TBL24_SIZE * nh_sz + SLACK;
	t->tbl8_bytes = (size_t)num_tbl8 * TRIE6_GROUP * nh_sz + SLACK;
	/* tbl24 and tbl8 on huge pages: 2 MiB pages fault once per 2 MiB as groups are
	 * first written (updates) and spare TLB misses on tbl24 (lookups). */
	t->tbl24 = fib_map(t->tbl24_bytes, 1);
	t->tbl8 = fib_map(t->tbl8_bytes, 1);
	t->free_stack = fib_map((size_t)num_tbl8 * 4, 0);
	t->pending = fib_map((size_t)num_tbl8 * 4, 0);
	if (t->tbl24 == NULL || t->tbl8 == NULL || t->free_stack == NULL || t->pending == NULL) {
		vpk_trie6_fini(t);
		return -ENOMEM;
	}
	/* Pop order 0, 1, 2, ...: low groups first keeps touched memory compact. */
	for (uint32_t i = 0; i < num_tbl8; i++)
		t->free_stack[i] = num_tbl8 - 1 - i;
	t->nfree = num_tbl8;
	if (default_nh != 0)
		for (size_t i = 0; i < TRIE6_TBL24_SIZE; i++)
			vpk_ent_set(t->tbl24, t->nh_log, i, default_nh << 1);
	return 0;
}

void
vpk_trie6_fini(struct trie6 *t)
{
	fib_unmap(t->tbl24, t->tbl24_bytes);
	fib_unmap(t->tbl8, t->tbl8_bytes);
	fib_unmap(t->free_stack, (size_t)t->num_tbl8 * 4);
	fib_unmap(t->pending, (size_t)t->num_tbl8 * 4);
	memset(t, 0, sizeof(*t));
}

static uint32_t
group_alloc(struct trie6 *t)
{
	uint32_t g = t->free_stack[--t->nfree];

	t->tbl8_used++;
	if (t->track != NULL) {
		t->track->gdirty[g] = 1;
		t->track->glo[g] = 0;
		t->track->ghi[g] = 255;
	}
	if (g + 1 > t->tbl8_hwm)
		t->tbl8_hwm = g + 1;
	return g;
}

/* A freed group keeps its contents; with deferral on it is parked until reclaimed. */
static void
group_free(struct trie6 *t, uint32_t g)
{
	if (t->track != NULL)
		t->track->on_free(t->track->ctx, g);
	if (t->defer)
		t->pending[t->npending++] = g;
	else
		t->free_stack[t->nfree++] = g;
	t->tbl8_used--;
}

uint32_t
vpk_trie6_reclaim(struct trie6 *t)
{
	uint32_t n = t->npending;

	for (uint32_t i = 0; i < n; i++)
		t->free_stack[t->nfree++] = t->pending[i];
	t->npending = 0;
	return n;
}

/* Free group g and every group below it. */
static void
free_subtree(struct trie6 *t, uint32_t g)
{
	size_t base = (size_t)g * TRIE6_GROUP;

	for (unsigned i = 0; i < TRIE6_GROUP; i++) {
		uint64_t e = vpk_ent_get(t->tbl8, t->nh_log, base + i);
		if (e & 1)
			free_subtree(t, (uint32_t)(e >> 1));
	}
	group_free(t, g);
}

/*
 * Groups needed to write [a, b] into one table (tbl at index base, covering
 * entries of `shift` bits from block start bs). A NULL table stands for a
 * group yet to be made: every entry plain.
 */
static uint64_t
count(const struct trie6 *t, const void *tbl, size_t base, unsigned shift, u128 bs, u128 a, u128 b, uint64_t nh)
{
	u128 lo = (a - bs) >> shift, hi = (b - bs) >> shift;
	uint64_t need = 0;

	/* Only the first and last entry can be partial. */
	for (int side = 0; side < 2; side++) {
		u128 idx = side == 0 ? lo : hi;
		if (side == 1 && hi == lo)
			break;
		u128 es = bs + (idx << shift), ee = es + ((((u128)1) << shift) - 1);
		if (a <= es && ee <= b)
			continue;
		u128 sa = a > es ? a : es, sb = b < ee ? b : ee;
		uint64_t e = tbl != NULL ? vpk_ent_get(tbl, t->nh_log, base + (size_t)idx) : 0;
		if (tbl != NULL && (e & 1))
			need += count(t, t->tbl8, (size_t)(e >> 1) * TRIE6_GROUP, shift - 8, es, sa, sb, nh);
		else if (tbl == NULL || (e >> 1) != nh)
			need += 1 + count(t, NULL, 0, shift - 8, es, sa, sb, nh);
	}
	return need;
}

uint64_t
vpk_trie6_groups_needed(const struct trie6 *t, u128 first, u128 last, uint64_t nh)
{
	return count(t, t->tbl24, 0, SHIFT0, 0, first, last, nh);
}

/* Record that entries [lo, hi] of a table are written (tracking on). */
static void
track_write(struct trie6 *t, const void *tbl, size_t base, size_t lo, size_t hi)
{
	struct trie6_track *tr = t->track;

	if (tbl == t->tbl8) {
		uint32_t g = (uint32_t)(base >> 8);
		if (!tr->gdirty[g]) {
			tr->gdirty[g] = 1;
			tr->glo[g] = (uint8_t)lo;
			tr->ghi[g] = (uint8_t)hi;
		} else {
			tr->glo[g] = lo < tr->glo[g] ? (uint8_t)lo : tr->glo[g];
			tr->ghi[g] = hi > tr->ghi[g] ? (uint8_t)hi : tr->ghi[g];
		}
		return;
	}
	for (size_t i = lo; i <= hi; i = (i | 255) + 1) {
		uint32_t s = (uint32_t)(i >> 8);
		uint8_t a = (uint8_t)i, z = (uint8_t)((i | 255) < hi ? 255 : hi);
		if (!(tr->sdirty[s >> 6] & (UINT64_C(1) << (s & 63)))) {
			tr->sdirty[s >> 6] |= UINT64_C(1) << (s & 63);
			tr->slices[tr->nslices++] = s;
			tr->slo[s] = a;
			tr->shi[s] = z;
		} else {
			tr->slo[s] = a < tr->slo[s] ? a : tr->slo[s];
			tr->shi[s] = z > tr->shi[s] ? z : tr->shi[s];
		}
	}
}

/*
 * Entries [i, j] of tbl, each wholly inside the written range, become v;
 * groups they led to are freed after the store that unlinks them. A short
 * prefix fills 2^(24 - depth) tbl24 entries, so blocks of 16 are scanned
 * first with plain loads (the writer's own reads race with nothing; the
 * loop vectorises): a block already holding v is skipped (no write to an
 * untouched page), one without group entries is stored entry by entry
 * (atomic stores: lookups may read the trie meanwhile), only a block with a
 * group entry takes the entry-by-entry path that frees subtrees.
 */
#define FILL_ONE(T, p, k, v)                                                    \
	do {                                                                    \
		T e1_ = __atomic_load_n(&(p)[k], __ATOMIC_RELAXED);             \
		if (e1_ != (v)) {                                               \
			__atomic_store_n(&(p)[k], (v), __ATOMIC_RELEASE);       \
			if (e1_ & 1)                                            \
				free_subtree(t, (uint32_t)(e1_ >> 1));          \
		}                                                               \
	} while (0)
#define FILL_LOOP(T)                                                            \
	do {                                                                    \
		T *p_ = tbl, v_ = (T)v;                                         \
		size_t k_ = i;                                                  \
		for (; k_ + 16 <= j + 1; k_ += 16) {                            \
			T ext_ = 0, diff_ = 0;                                  \
			for (unsigned x_ = 0; x_ < 16; x_++) {                  \
				ext_ |= p_[k_ + x_];                            \
				diff_ |= p_[k_ + x_] ^ v_;                      \
			}                                                       \
			if (diff_ == 0)                                         \
				continue;                                       \
			if (ext_ & 1) {                                         \
				for (unsigned x_ = 0; x_ < 16; x_++)            \
					FILL_ONE(T, p_, k_ + x_, v_);           \
				continue;                                       \
			}                                                       \
			_Pragma("GCC unroll 16")                                \
			for (unsigned x_ = 0; x_ < 16; x_++)                    \
				__atomic_store_n(&p_[k_ + x_], v_, __ATOMIC_RELAXED); \
		}                                                               \
		for (; k_ <= j; k_++)                                           \
			FILL_ONE(T, p_, k_, v_);                                \
	} while (0)

static void
fill(struct trie6 *t, void *tbl, size_t i, size_t j, uint64_t v)
{
	switch (t->nh_log) {
	case 1: FILL_LOOP(uint16_t); break;
	case 2: FILL_LOOP(uint32_t); break;
	default: FILL_LOOP(uint64_t); break;
	}
}

static void write(struct trie6 *t, void *tbl, size_t base, unsigned shift, u128 bs, u128 a, u128 b, uint64_t nh);

/* Write the part [a, b] of entry idx (not wholly inside it) through its group, made if needed. */
static void
write_part(struct trie6 *t, void *tbl, size_t base, unsigned shift, u128 bs, u128 idx, u128 a, u128 b, uint64_t nh)
{
	unsigned log = t->nh_log;
	size_t i = base + (size_t)idx;
	u128 es = bs + (idx << shift), ee = es + ((((u128)1) << shift) - 1);
	uint64_t e = vpk_ent_get(tbl, log, i);
	uint32_t g;

	if (e & 1) {
		g = (uint32_t)(e >> 1);
	} else {
		if ((e >> 1) == nh)
			return;
		g = group_alloc(t);
		size_t gb = (size_t)g * TRIE6_GROUP;
		for (unsigned k = 0; k < TRIE6_GROUP; k++)
			vpk_ent_set(t->tbl8, log, gb + k, e);
		vpk_ent_set(tbl, log, i, (uint64_t)g << 1 | 1);
	}
	size_t gb = (size_t)g * TRIE6_GROUP;
	write(t, t->tbl8, gb, shift - 8, es, a > es ? a : es, b < ee ? b : ee, nh);
	/* Fold the group back when it became uniform and plain. */
	uint64_t f = vpk_ent_get(t->tbl8, log, gb);
	if (f & 1)
		return;
	unsigned k = 1;
	while (k < TRIE6_GROUP && vpk_ent_get(t->tbl8, log, gb + k) == f)
		k++;
	if (k == TRIE6_GROUP) {
		vpk_ent_set(tbl, log, i, f);
		group_free(t, g);
	}
}

/*
 * Write [a, b] into the table whose entries cover `shift` bits from bs:
 * only the first and the last entry can be partly inside [a, b]; those go
 * through their groups, the entries between are filled. Index order.
 */
static void
write(struct trie6 *t, void *tbl, size_t base, unsigned shift, u128 bs, u128 a, u128 b, uint64_t nh)
{
	u128 lo = (a - bs) >> shift, hi = (b - bs) >> shift;
	u128 ones = (((u128)1) << shift) - 1;
	bool lo_part = a != bs + (lo << shift), hi_part = b != bs + (hi << shift) + ones;

	if (t->track != NULL)
		track_write(t, tbl, base, (size_t)lo, (size_t)hi);
	if (lo_part)
		write_part(t, tbl, base, shift, bs, lo, a, b, nh);
	if (hi == lo) {
		if (lo_part)
			return;
		if (hi_part)
			write_part(t, tbl, base, shift, bs, hi, a, b, nh);
		else
			fill(t, tbl, base + (size_t)lo, base + (size_t)lo, nh << 1);
		return;
	}
	u128 flo = lo_part ? lo + 1 : lo, fhi = hi_part ? hi - 1 : hi;        /* hi > lo: no wrap */
	if (flo <= fhi)
		fill(t, tbl, base + (size_t)flo, base + (size_t)fhi, nh << 1);
	if (hi_part)
		write_part(t, tbl, base, shift, bs, hi, a, b, nh);
}

void
vpk_trie6_write_range(struct trie6 *t, u128 first, u128 last, uint64_t nh)
{
	write(t, t->tbl24, 0, SHIFT0, 0, first, last, nh);
}

uint64_t
vpk_trie6_lookup1(const struct trie6 *t, const uint8_t ip[16])
{
	uint64_t e = vpk_ent_get(t->tbl24, t->nh_log, (size_t)ip[0] << 16 | ip[1] << 8 | ip[2]);

	for (unsigned k = 3; (e & 1) && k < 16; k++)
		e = vpk_ent_get(t->tbl8, t->nh_log, (size_t)(e >> 1) * TRIE6_GROUP + ip[k]);
	return e >> 1;
}
