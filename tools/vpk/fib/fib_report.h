/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_FIB_REPORT_H
#define VPK_TOOL_FIB_REPORT_H
/* The report of `vpk fib` and `vpk fib -6` (text or --json): one path for
 * both families; the IPv6 report names its family and rte_fib6. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fib/fib_cmd.h"

/* One lookup row: a vpk variant or a DPDK lookup type. */
struct fib_report_row {
	const char *name;
	double *c;              /* cycles/lookup per timed pass (bench_median sorts it) */
	bool ok;                /* same results as the first row */
};

struct fib_report {
	const char *type;       /* vpk_fib_type_name() / vpk_fib6_type_name() */
	size_t nrt, nips, ref_bad;
	uint32_t tbl8_used, tbl8_total;
	uint64_t dataplane, rib; /* bytes touched by lookups; control plane (RIB) */
	double ghz, add_cyc, del_cyc, dpdk_add, dpdk_del;
	bool have_dpdk;
	size_t dpdk_mem;        /* DPDK heap in use (incl. its RIB) */
	const struct fib_report_row *rows;
	size_t nrows;
};

void fib_report_print(const struct fib_opts *o, const struct fib_report *r);

#endif
