/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_FIB_CMD_H
#define VPK_TOOL_FIB_CMD_H

/* Options of `vpk fib` (cmd_fib.c parses and runs them, fib_report.c prints). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fib/fib_gen.h"

struct fib_opts {
	const char *routes_file, *lookups_file, *distrib, *w_file, *u_file, *variants;
	size_t nroutes, nlookups;
	unsigned pct_random, nh_size, passes;
	uint32_t tbl8;
	bool cmp_ref, cmp_all, shuffle, dpdk, v6;
	enum gen_lookup_kind kind;
	const char *layout;     /* -b: a layout of the family (fib_family.h), NULL for the default */
	uint64_t seed, nh_max;
};

#endif
