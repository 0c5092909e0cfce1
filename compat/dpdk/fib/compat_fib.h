/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_COMPAT_FIB_H
#define VPK_COMPAT_FIB_H

/*
 * Helpers shared by the rte_fib and rte_fib6 drop-ins: choosing a vpk lookup
 * variant the way DPDK chooses its lookup function (the CPU and the EAL's
 * max SIMD bitwidth decide), and the call counters.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include <vpk/isa.h>

typedef int (*compat_select_fn)(void *obj, const char *variant);

/*
 * Select the best variant of @p impls whose register width lies in
 * [min_width, max_width] and that vpk accepts here (vpk_fib_select() also
 * applies vpk's own cap). @return 0 or -ENOTSUP when none does.
 */
static inline int
compat_pick_variant(const struct vpk_impl *const *impls, void *obj, compat_select_fn sel, unsigned min_width,
		    unsigned max_width)
{
	for (unsigned i = 0; impls != NULL && impls[i] != NULL; i++)
		if (impls[i]->width >= min_width && impls[i]->width <= max_width && sel(obj, impls[i]->name) == 0)
			return 0;
	return -ENOTSUP;
}

/* Counters printed at exit with VPK_RTE_STATS=1 (see ../stats.h). */
extern bool compat_fib_stats;
void compat_fib_count(unsigned which, uint64_t n);

enum {
	COMPAT_FIB_CREATE, COMPAT_FIB_ADD, COMPAT_FIB_LOOKUP_CALLS, COMPAT_FIB_LOOKUP_IPS,
	COMPAT_FIB6_CREATE, COMPAT_FIB6_ADD, COMPAT_FIB6_LOOKUP_CALLS, COMPAT_FIB6_LOOKUP_IPS,
	COMPAT_FIB_NCOUNT
};

#endif
