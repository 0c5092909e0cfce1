/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_COMPAT_STATS_H
#define VPK_COMPAT_STATS_H

/*
 * Call counters of the drop-in libraries, the proof that vpk answered: with
 * VPK_RTE_STATS=1 in the environment each library prints its counters to
 * stderr when the process exits ("vpk-rte-acl: ..."). Without it the
 * counters are not touched, so the data path pays one predictable branch.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

static inline bool
compat_stats_enabled(void)
{
	const char *e = getenv("VPK_RTE_STATS");

	return e != NULL && e[0] != 0 && e[0] != '0';
}

#endif
