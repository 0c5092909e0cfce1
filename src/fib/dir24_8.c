/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DIR-24-8 dataplane, control side: table allocation, range writes with
 * tbl8 group allocation and recycling, and the table of lookup variants.
 * Workload: route add/delete (one writer); lookups live in dir24_8_kern.c.
 *
 * Publication order for concurrent readers: a new group is filled completely
 * before the tbl24 store that points at it (release); every entry store is a
 * single atomic store of the entry width, so a reader sees old or new.
 */
#include <errno.h>
#include <string.h>

#include "core/kern.h"
#include "core/registry.h"
#include "fib/dir24_8.h"
#include "fib/ent.h"
#include "fib/fib_mem.h"

VPK_DECLARE_VARIANTS(struct dir24_8_impl, vpk_dir24_8_impl);

VPK_KERNEL_TABLE(vpk_dir24_8_impls, dir24_8, vpk_dir24_8_impl, impl);

VPK_KERNEL_REGISTER(fib4_dir24_8, "fib4-dir24-8",
		    "IPv4 FIB lookup, DIR-24-8 (tbl24 + tbl8 groups), 1/2/4/8-byte entries",
		    vpk_dir24_8_impls);

#define SLACK 8

int
vpk_dir24_8_init(struct dir24_8 *dp, unsigned nh_sz, uint32_t num_tbl8, uint64_t default_nh)
{
	memset(dp, 0, sizeof(*dp));
	dp->nh_sz = nh_sz;
	dp->nh_log = (unsigned)__builtin_ctz(nh_sz);
	dp->num_tbl8 = num_tbl8;
	dp->default_nh = default_nh;
	dp->tbl24_bytes = (size_t)DIR24_8_TBL24_SIZE * nh_sz + SLACK;
	dp->tbl8_bytes = (size_t)num_tbl8 * DIR24_8_GROUP * nh_sz + SLACK;
	dp->tbl24 = fib_map(dp->tbl24_bytes, 1);
	dp->tbl8 = fib_map(dp->tbl8_bytes, 1);
	size_t words = (num_tbl8 + 63) / 64;
	dp->tbl8_free = fib_map(words * 8, 1);
	dp->pending = fib_map((size_t)num_tbl8 * 4, 1);
	if (dp->tbl24 == NULL || dp->tbl8 == NULL || dp->tbl8_free == NULL || dp->pending == NULL) {
		vpk_dir24_8_fini(dp);
		return -ENOMEM;
	}
	for (uint32_t g = 0; g < num_tbl8; g++)
		dp->tbl8_free[g / 64] |= UINT64_C(1) << (g % 64);
	if (default_nh != 0)
		for (size_t i = 0; i < DIR24_8_TBL24_SIZE; i++)
			vpk_ent_set(dp->tbl24, dp->nh_log, i, default_nh << 1);
	return 0;
}

void
vpk_dir24_8_fini(struct dir24_8 *dp)
{
	fib_unmap(dp->tbl24, dp->tbl24_bytes);
	fib_unmap(dp->tbl8, dp->tbl8_bytes);
	fib_unmap(dp->tbl8_free, (dp->num_tbl8 + 63) / 64 * 8);
	fib_unmap(dp->pending, (size_t)dp->num_tbl8 * 4);
	memset(dp, 0, sizeof(*dp));
}

/* Lowest free group, or UINT32_MAX. Lowest-first keeps touched memory compact. */
static uint32_t
group_alloc(struct dir24_8 *dp)
{
	size_t words = (dp->num_tbl8 + 63) / 64;

	for (size_t w = 0; w < words; w++) {
		if (dp->tbl8_free[w] != 0) {
			unsigned b = (unsigned)__builtin_ctzll(dp->tbl8_free[w]);
			dp->tbl8_free[w] &= ~(UINT64_C(1) << b);
			uint32_t g = (uint32_t)(w * 64 + b);
			dp->tbl8_used++;
			if (g + 1 > dp->tbl8_hwm)
				dp->tbl8_hwm = g + 1;
			return g;
		}
	}
	return UINT32_MAX;
}

/* A freed group keeps its contents; with deferral on it is parked until reclaimed. */
static void
group_free(struct dir24_8 *dp, uint32_t g)
{
	if (dp->defer)
		dp->pending[dp->npending++] = g;
	else
		dp->tbl8_free[g / 64] |= UINT64_C(1) << (g % 64);
	dp->tbl8_used--;
}

uint32_t
vpk_dir24_8_reclaim(struct dir24_8 *dp)
{
	uint32_t n = dp->npending;

	for (uint32_t i = 0; i < n; i++)
		dp->tbl8_free[dp->pending[i] / 64] |= UINT64_C(1) << (dp->pending[i] % 64);
	dp->npending = 0;
	return n;
}

/* Write entries [lo, hi] of the /24 block `blk` through a tbl8 group. */
static void
write_partial(struct dir24_8 *dp, uint32_t blk, unsigned lo, unsigned hi, uint64_t nh)
{
	unsigned log = dp->nh_log;
	uint64_t e = vpk_ent_get(dp->tbl24, log, blk);
	uint32_t g;

	if ((e & 1) == 0) {
		if ((e >> 1) == nh)
			return;         /* already that value everywhere */
		g = group_alloc(dp);
		if (g == UINT32_MAX)
			return;         /* cannot happen: the caller reserved groups */
		size_t base = (size_t)g * DIR24_8_GROUP;
		for (unsigned i = 0; i < DIR24_8_GROUP; i++)
			vpk_ent_set(dp->tbl8, log, base + i, e);
		vpk_ent_set(dp->tbl24, log, blk, (uint64_t)g << 1 | 1);
	} else {
		g = (uint32_t)(e >> 1);
	}
	size_t base = (size_t)g * DIR24_8_GROUP;
	for (unsigned i = lo; i <= hi; i++)
		vpk_ent_set(dp->tbl8, log, base + i, nh << 1);

	/* Recycle: a group whose entries are all equal folds back into tbl24. */
	uint64_t first = vpk_ent_get(dp->tbl8, log, base);
	for (unsigned i = 1; i < DIR24_8_GROUP; i++)
		if (vpk_ent_get(dp->tbl8, log, base + i) != first)
			return;
	vpk_ent_set(dp->tbl24, log, blk, first);
	group_free(dp, g);
}

void
vpk_dir24_8_write_range(struct dir24_8 *dp, uint64_t first, uint64_t last, uint64_t nh)
{
	unsigned log = dp->nh_log;

	while (first <= last) {
		uint32_t blk = (uint32_t)(first >> 8);

		if ((first & 0xff) == 0 && last - first >= 0xff) {
			uint64_t end = ((last + 1) >> 8);     /* blocks [blk, end) are whole */
			for (uint64_t b = blk; b < end; b++) {
				uint64_t e = vpk_ent_get(dp->tbl24, log, b);
				vpk_ent_set(dp->tbl24, log, b, nh << 1);
				if (e & 1)
					group_free(dp, (uint32_t)(e >> 1));
			}
			first = end << 8;
			continue;
		}
		uint64_t blk_last = ((uint64_t)blk << 8) | 0xff;
		uint64_t hi = last < blk_last ? last : blk_last;
		write_partial(dp, blk, (unsigned)(first & 0xff), (unsigned)(hi & 0xff), nh);
		first = hi + 1;
	}
}

uint64_t
vpk_dir24_8_lookup1(const struct dir24_8 *dp, uint32_t ip)
{
	uint64_t e = vpk_ent_get(dp->tbl24, dp->nh_log, ip >> 8);

	if (e & 1)
		e = vpk_ent_get(dp->tbl8, dp->nh_log, (size_t)(e >> 1) * DIR24_8_GROUP + (ip & 0xff));
	return e >> 1;
}
