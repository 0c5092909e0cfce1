/* SPDX-License-Identifier: BSD-3-Clause */
/* Real-table helpers for the FIB tests (table.h). */
#include <stdio.h>
#include <stdlib.h>

#include "fib/table.h"
#include "lib/check.h"

struct route4 *
table4_load(const char *path, uint64_t max_nh, size_t *n)
{
	struct vpk_fib_file_routes rt;

	if (vpk_fib_file_load_routes(path, 4, &rt) != 0) {
		printf("cannot load %s: %s\n", path, vpk_last_error());
		return NULL;
	}
	struct route4 *r = malloc(rt.n * sizeof(*r) + 1);
	for (size_t i = 0; i < rt.n; i++) {
		const uint8_t *a = rt.r[i].addr;
		r[i].ip = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
		r[i].depth = rt.r[i].depth;
		r[i].nh = rt.r[i].has_nh ? rt.r[i].nh % (max_nh + 1)
					 : 1 + table_mix((uint64_t)r[i].ip << 8 | r[i].depth) % max_nh;
	}
	*n = rt.n;
	vpk_fib_file_free_routes(&rt);
	return r;
}

void
table4_addrs(const struct route4 *rt, size_t nrt, uint32_t *ips, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i % 2 == 0 || nrt == 0) {
			ips[i] = check_rand_u32();
		} else {
			const struct route4 *r = &rt[check_rand_range(nrt)];
			uint32_t host = r->depth == 32 ? 0 : check_rand_u32() & (uint32_t)((UINT64_C(1) << (32 - r->depth)) - 1);
			ips[i] = r->ip | host;
		}
	}
}
