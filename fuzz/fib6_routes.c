/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz the IPv6 side of the dpdk-test-fib route format and the IPv6 FIBs:
 * parse the input as an IPv6 route file, load up to 48 routes of length
 * >= 16 into one FIB of each layout (trie: rte_fib6's tbl24 + tbl8 chain;
 * bm6: compressed),
 * then check, against a naive longest-prefix match over the same routes:
 *   - every route reads back (get) with its next hop;
 *   - each route's first and last address, and the address one past its
 *     end, look up to the reference answer, in every usable lookup variant;
 *   - deleting every route empties the FIB: no routes, no tbl8 groups.
 * The first input byte picks which routes are deleted before the lookups,
 * so delete-then-fall-back-to-the-covering-route is checked too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/fib6.h>

#include <vpk/fib_file.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_R 48
#define NH_MAX 0x7fffffffu      /* 4-byte entries: one bit flags a group */

static struct vpk_fib6 *fib[2];

struct ref {
	uint8_t a[16], len;
	uint64_t nh;
	bool live;
};

static bool
covers(const struct ref *r, const uint8_t *ip)
{
	unsigned full = r->len / 8, rem = r->len % 8;

	if (memcmp(r->a, ip, full) != 0)
		return false;
	return rem == 0 || ((r->a[full] ^ ip[full]) & (uint8_t)(0xff00 >> rem)) == 0;
}

static uint64_t
ref_lookup(const struct ref *r, size_t n, const uint8_t *ip)
{
	int best = -1;

	for (size_t i = 0; i < n; i++)
		if (r[i].live && covers(&r[i], ip) && (best < 0 || r[i].len > r[best].len))
			best = (int)i;
	return best < 0 ? 0 : r[best].nh;
}

static void
mask(uint8_t *a, unsigned len)
{
	for (unsigned b = len; b < 128; b++)
		a[b / 8] &= (uint8_t)~(0x80 >> (b % 8));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum vpk_fib6_type types[2] = { VPK_FIB6_TRIE, VPK_FIB6_BM6 };
	struct vpk_fib_file_routes rt;
	struct ref ref[MAX_R];
	uint8_t (*ips)[16];
	uint64_t *want, *got;
	size_t n = 0, nip = 0;
	uint8_t sel = size > 0 ? data[0] : 0;

	if (fib[0] == NULL)
		for (int t = 0; t < 2; t++) {
			struct vpk_fib6_conf c = { .type = types[t], .nh_size = 4, .num_tbl8 = 256,
						   .max_routes = MAX_R };

			if (vpk_fib6_create(&c, &fib[t]) != 0)
				abort();
		}
	int rc = vpk_fib_file_parse_routes((const char *)data, size, "fuzz", 6, &rt);
	if (rc == -EINVAL && strncmp(vpk_last_error(), "fuzz:", 5) != 0)
		abort();        /* every error names file:line */
	if (rc != 0)
		return 0;
	for (size_t i = 0; i < rt.n && n < MAX_R; i++) {
		struct ref r = { .len = rt.r[i].depth, .nh = (rt.r[i].has_nh ? rt.r[i].nh : i + 1) % NH_MAX,
				 .live = true };
		int a[2];

		if (r.len < 16)
			continue;       /* keep inputs cheap: a /0 rewrites the trie's whole 2^24-entry tbl24 */
		memcpy(r.a, rt.r[i].addr, 16);
		mask(r.a, r.len);
		for (int t = 0; t < 2; t++)
			a[t] = vpk_fib6_add(fib[t], rt.r[i].addr, r.len, r.nh);
		if (a[0] != a[1]) {
			fprintf(stderr, "fuzz: trie and bm6 disagree on add (%d, %d)\n", a[0], a[1]);
			abort();
		}
		if (a[0] == -ENOSPC)
			continue;
		if (a[0] != 0)
			abort();
		for (size_t k = 0; k < n; k++)  /* a replace: one entry per prefix */
			if (ref[k].live && ref[k].len == r.len && memcmp(ref[k].a, r.a, 16) == 0)
				ref[k].live = false;
		ref[n++] = r;
	}
	vpk_fib_file_free_routes(&rt);
	for (size_t i = 0; i < n; i++)         /* delete some: lookups fall back to covering routes */
		if (ref[i].live && (sel >> (i % 8) & 1)) {
			for (int t = 0; t < 2; t++)
				if (vpk_fib6_del(fib[t], ref[i].a, ref[i].len) != 0)
					abort();
			ref[i].live = false;
		}
	ips = malloc((3 * n + 1) * sizeof(*ips));
	want = malloc((3 * n + 1) * sizeof(*want));
	got = malloc((3 * n + 1) * sizeof(*got));
	if (ips == NULL || want == NULL || got == NULL)
		abort();
	for (size_t i = 0; i < n; i++) {
		uint8_t last[16];
		int c = 1;

		memcpy(last, ref[i].a, 16);
		for (unsigned b = ref[i].len; b < 128; b++)
			last[b / 8] |= (uint8_t)(0x80 >> (b % 8));
		memcpy(ips[nip++], ref[i].a, 16);
		memcpy(ips[nip++], last, 16);
		for (int k = 15; k >= 0 && c; k--) {    /* one past the end */
			last[k] = (uint8_t)(last[k] + 1);
			c = last[k] == 0;
		}
		memcpy(ips[nip++], last, 16);
	}
	memset(ips[nip++], 0, 16);
	for (size_t i = 0; i < nip; i++)
		want[i] = ref_lookup(ref, n, ips[i]);
	for (int t = 0; t < 2; t++) {
		for (size_t i = 0; i < n; i++) {
			uint64_t nh;

			if (ref[i].live && (vpk_fib6_get(fib[t], ref[i].a, ref[i].len, &nh) != 0 || nh != ref[i].nh))
				abort();
		}
		for (const struct vpk_impl *const *im = vpk_fib6_impls(types[t]); *im; im++) {
			if (vpk_fib6_select(fib[t], (*im)->name) != 0)
				continue;
			vpk_fib6_lookup_bulk(fib[t], (const uint8_t (*)[16])ips, got, nip);
			for (size_t i = 0; i < nip; i++)
				if (got[i] != want[i]) {
					fprintf(stderr, "fuzz: %s %s: address %zu gives %llu, want %llu\n",
						vpk_fib6_type_name(fib[t]), (*im)->name, i,
						(unsigned long long)got[i], (unsigned long long)want[i]);
					abort();
				}
		}
		vpk_fib6_select(fib[t], "auto");
	}
	for (size_t i = 0; i < n; i++)
		if (ref[i].live)
			for (int t = 0; t < 2; t++)
				if (vpk_fib6_del(fib[t], ref[i].a, ref[i].len) != 0)
					abort();
	for (int t = 0; t < 2; t++) {
		struct vpk_fib6_stats st;

		vpk_fib6_get_stats(fib[t], &st);
		if (st.routes != 0 || st.tbl8_used != 0)
			abort();
	}
	free(ips);
	free(want);
	free(got);
	return 0;
}
