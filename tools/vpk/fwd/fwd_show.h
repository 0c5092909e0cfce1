/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_FWD_SHOW_H
#define VPK_TOOL_FWD_SHOW_H

/* Printing the forwarder's state: VPP-style tables, or JSON. */
#include <stdbool.h>
#include "fwd/fwd.h"
#include "common/json.h"

struct fwd_show_opts {
	bool runtime, errors;
	const char *const *nodes;
	size_t n_nodes;
	const char *cfg_nodes[32];      /* from `show node X` config lines */
	size_t n_cfg_nodes;
};

void fwd_show_add_config(struct fwd_show_opts *so, const char *const *shows, size_t n);
/* Summary line, interfaces, trace, then what @so asks for. */
void fwd_show_text(const struct vpk_fwd *f, const struct vpk_fwd_run_stats *st, const struct fwd_show_opts *so);
void fwd_show_json(const struct vpk_fwd *f, const struct vpk_fwd_run_stats *st, const struct fwd_show_opts *so,
		   unsigned cap);
/* One run as a JSON object (inside an array or at top level). */
void fwd_json_run(struct json *j, const struct vpk_fwd *f, const struct vpk_fwd_run_stats *st, unsigned cap);
/* fwd_stats.c: "rx_drop", "tx_drop" and "queues": [...] of interface @i's port (nothing without one). */
void fwd_json_queues(struct json *j, const struct vpk_fwd *f, size_t i);
/* The show-runtime table only. */
void fwd_show_runtime(const struct vpk_graph *g);
/* Mpps of a run (TSC frequency measured once). */
double fwd_mpps(const struct vpk_fwd_run_stats *st);
/* --fib4 dir|bm16: 0, or -EINVAL for another name. */
int fwd_fib4_type(const char *name, enum vpk_fib_type *out);
/* vpk fwd --demo (fwd_demo.c): generated rules, routes and traffic. */
int fwd_demo(int argc, char **argv);

#endif
