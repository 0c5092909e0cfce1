/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk_fwd_run(): open the interfaces' pcaps, build the graph (every node's
 * variant picked now, under the current cap, or as forced), run it until
 * the inputs are exhausted and every frame is drained, close the files.
 * The loop's TSC time is returned for Mpps figures; per-node clocks are in
 * the graph's stats.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include "fwd/fwd_priv.h"

/*
 * Like the nodes, the FIBs' and the classifier's variants follow the cap of
 * this run (the classifier's unless forced with --alg).
 */
static int
select_variants(struct vpk_fwd *f, char *err, size_t len)
{
	vpk_fib_select(f->fib4, "auto");
	vpk_fib6_select(f->fib6, "auto");
	for (int v6 = 0; v6 < 2; v6++) {
		struct fwd_acl *a = v6 ? &f->acl6 : &f->acl4;
		const char *want = f->conf.acl_impl ? (strcmp(f->conf.acl_impl, "sse") == 0 ? "sse42"
											  : f->conf.acl_impl)
						    : "auto";
		int rc;

		if (a->acl == NULL)
			continue;
		rc = vpk_acl_select(a->acl, want);
		if (rc != 0)
			return vpk_errf(err, len, rc, "ACL variant '%s' cannot run under cap %u", want,
				    vpk_get_max_simd_bitwidth());
	}
	return 0;
}


int
vpk_fwd_run(struct vpk_fwd *f, struct vpk_fwd_run_stats *st, char *err, size_t len)
{
	bool mem = f->n_tmpl > 0;
	struct vpk_fwd_run_stats s = { 0 };
	uint64_t t0;
	struct timespec c0, c1;         /* thread CPU time: what a loaded machine does not distort */
	bool locked;
	int rc;

	/* The control threads see the graphs built or none, and the variants and
	 * interfaces (ethernet-input's configuration) prepared whole. */
	locked = fwd_ctl_lock(f);
	fwd_drop_graphs(f);
	f->io_rc = 0;
	f->io_err[0] = '\0';
	f->rr = 0;
	f->traffic_done = 0;
	rc = select_variants(f, err, len);
	if (rc != 0) {
		fwd_ctl_unlock(f, locked);
		return rc;
	}
	rc = fwd_io_open(f, !mem, err, len);
	fwd_ctl_unlock(f, locked);
	if (rc != 0) {
		fwd_io_close(f, &rc, NULL, 0);
		return rc;
	}
	if (f->conf.workers > 1 || f->conf.wide_cores != NULL) {
		rc = fwd_run_workers(f, mem, &s, err, len);
		if (rc != 0) {
			fwd_io_close(f, &rc, NULL, 0);
			return rc;
		}
	} else {
		locked = fwd_ctl_lock(f);
		rc = fwd_build_graph(f, fwd_input_name(f), f, NULL, NULL, 0, &f->graph, err, len);
		f->rx_burst = fwd_rx_burst(f);
		fwd_ctl_unlock(f, locked);
		if (rc != 0) {
			fwd_io_close(f, &rc, NULL, 0);
			return rc;
		}
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
		t0 = __rdtsc();
		fwd_ctl_reader(f, 0, true);
		for (;;) {
			uint32_t n = vpk_graph_run_once(f->graph);

			fwd_ctl_tick(f, 0, f->graph);
			s.packets += n;
			if (n == 0 && fwd_io_inputs_done(f, mem))
				break;
			if (n == 0)
				fwd_io_idle(f);         /* live ports: poll up to 1 ms */
		}
		fwd_ctl_reader(f, 0, false);
		s.tsc = __rdtsc() - t0;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
		s.cpu_ns = (uint64_t)((c1.tv_sec - c0.tv_sec) * 1000000000LL + (c1.tv_nsec - c0.tv_nsec));
		s.forwarded = fwd_node_error(f->graph, "interface-output", 0);
		s.dropped = fwd_node_error(f->graph, "error-drop", 0);
	}
	rc = f->io_rc != 0 ? vpk_errf(err, len, f->io_rc, "%s", f->io_err) : 0;
	fwd_io_close(f, &rc, err, len);
	if (st != NULL)
		*st = s;
	return rc;
}
