/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The report of vpk fib for IPv4 and IPv6 (fib_report.h): build and delete
 * cycles per route, memory, and per lookup row the median and best cycles
 * over the timed passes, as a table or as JSON. Both families print the
 * same fields; IPv6 adds "family", and its control plane is its RIB.
 */
#include <stdio.h>

#include "bench.h"
#include "common/json.h"
#include "common/tool.h"
#include "fib/fib_report.h"

static void
report_json(const struct fib_opts *o, const struct fib_report *r)
{
	struct json j;

	json_init(&j, stdout);
	json_obj(&j, NULL);
	if (o->v6) {
		json_str(&j, "family", "ipv6");
		json_str(&j, "type", r->type);
	} else {
		json_str(&j, "routes_file", o->routes_file);
		json_str(&j, "lookups_file", o->lookups_file);
	}
	json_fields(&j, JU("routes", r->nrt), JU("lookups", r->nips), JU("nh_size", o->nh_size));
	if (!o->v6)
		json_u64(&j, "tbl8_groups", r->tbl8_total);
	json_u64(&j, "tbl8_used", r->tbl8_used);
	if (!o->v6)
		json_dbl(&j, "tsc_ghz", r->ghz);
	json_fields(&j, JD("add_cycles_per_route", r->add_cyc), JD("del_cycles_per_route", r->del_cyc),
			JU("dataplane_bytes_touched", r->dataplane));
	json_u64(&j, o->v6 ? "rib_bytes" : "control_plane_bytes", r->rib);
	if (!o->v6)
		json_str(&j, "type", r->type);
	if (r->have_dpdk) {
		json_fields(&j, JD("dpdk_add_cycles_per_route", r->dpdk_add),
				JD("dpdk_del_cycles_per_route", r->dpdk_del),
				JU("dpdk_heap_bytes", r->dpdk_mem));
	}
	if (o->cmp_ref)
		json_u64(&j, "reference_mismatches", r->ref_bad);
	json_arr(&j, "lookup");
	for (size_t i = 0; i < r->nrows; i++) {
		json_obj(&j, NULL);
		json_fields(&j, JS("variant", r->rows[i].name),
				JD("cycles_min", bench_min(r->rows[i].c, o->passes)),
				JD("cycles_median", bench_median(r->rows[i].c, o->passes)));
		if (o->cmp_all)
			json_bool(&j, "same_as_first", r->rows[i].ok);
		json_end(&j);
	}
	json_end(&j);
	json_end(&j);
	json_done(&j);
}

static void
report_text(const struct fib_opts *o, const struct fib_report *r)
{
	const char *dpdk = o->v6 ? "rte_fib6" : "rte_fib";

	printf("%s%s: routes %zu, lookups %zu, entry %u B, tbl8 groups %u used of %u, TSC %.2f GHz\n",
	       o->v6 ? "IPv6 " : "", r->type, r->nrt, r->nips, o->nh_size, r->tbl8_used, r->tbl8_total, r->ghz);
	printf(o->v6 ? "memory: dataplane %.1f MiB touched, RIB %.1f MiB" : "memory: dataplane %.1f MiB, control plane %.1f MiB",
	       r->dataplane / 1048576.0, r->rib / 1048576.0);
	if (r->have_dpdk)
		printf("; %s heap %.1f MiB (incl. RIB)", dpdk, r->dpdk_mem / 1048576.0);
	printf("\nadd %.0f / delete %.0f cycles per route", r->add_cyc, r->del_cyc);
	if (r->have_dpdk)
		printf(" (%s: add %.0f / delete %.0f)", dpdk, r->dpdk_add, r->dpdk_del);
	printf("\n%-10s %12s %12s %10s\n", "variant", "cyc/lookup", "best", "Mlookup/s");
	for (size_t i = 0; i < r->nrows; i++) {
		double m = bench_median(r->rows[i].c, o->passes);

		printf("%-10s %12.2f %12.2f %10.1f%s\n", r->rows[i].name, m, bench_min(r->rows[i].c, o->passes),
		       r->ghz * 1e3 / m, o->cmp_all && !r->rows[i].ok ? "  DIFFERS from the first" : "");
	}
	if (o->cmp_ref)
		printf("reference check (RIB walk): %zu mismatches of %zu\n", r->ref_bad, r->nips);
}

void
fib_report_print(const struct fib_opts *o, const struct fib_report *r)
{
	if (vpk_opts.json)
		report_json(o, r);
	else
		report_text(o, r);
}
