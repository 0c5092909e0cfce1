/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_FIB_CMD_H
#define VPK_TOOL_FIB_CMD_H

/* Options of `vpk fib` (cmd_fib.c parses them; fib_run6.c runs -6). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vpk/fib.h>

#include "fib/fib_gen.h"

struct fib_opts {
	const char *routes_file, *lookups_file, *distrib, *w_file, *u_file, *variants;
	size_t nroutes, nlookups;
	unsigned pct_random, nh_size, passes;
	uint32_t tbl8;
	bool cmp_ref, cmp_all, shuffle, dpdk, v6;
	enum gen_lookup_kind kind;
	enum vpk_fib_type type;
	int type6;              /* enum vpk_fib6_type of -6 -b (0 = default) */
	uint64_t seed, nh_max;
};

/* `vpk fib -6`: returns the exit code. */
int fib_run6(struct fib_opts *o);

#endif
