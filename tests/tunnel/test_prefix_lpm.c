/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tunnel steering LPM (tunnel/prefix_lpm.h) against a linear reference
 * (longest length wins, the first configured of equal prefixes): random
 * tables of 0..300 prefixes drawn from a few lengths and a narrow address
 * space so they nest, in every configuration order tried (given, reversed,
 * shuffled), addresses inside and beside every prefix; skipped entries;
 * lengths 0 and 56; a length above 56 refused.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/check.h"
#include "tunnel/prefix_lpm.h"

#define MAXN 300

static uint64_t pfx[MAXN];
static uint8_t plen[MAXN], skip[MAXN];

static uint32_t
ref_find(uint32_t n, uint64_t a)
{
	uint32_t best = EP_NONE;

	for (uint32_t i = 0; i < n; i++) {
		if (skip[i] || ((a ^ pfx[i]) & tn_lpm_mask(plen[i])) != 0)
			continue;
		if (best == EP_NONE || plen[i] > plen[best])
			best = i;
	}
	return best;
}

static void
check_table(uint32_t n, unsigned round)
{
	struct tn_lpm l;

	CHECK(vpk_tn_lpm_build(&l, pfx, plen, skip, n) == 0, "build of %u prefixes failed", n);
	for (uint32_t i = 0; i < n; i++)
		for (unsigned k = 0; k < 4; k++) {
			uint64_t a = pfx[i] | (check_rand() & ~tn_lpm_mask(plen[i]));

			if (k == 3)
				a ^= 1ull << (63 - (plen[i] ? check_rand_range(plen[i]) : 0));
			CHECK(tn_lpm_find(&l, a) == ref_find(n, a), "round %u, %u prefixes, addr %016llx: got %u want %u",
			      round, n, (unsigned long long)a, tn_lpm_find(&l, a), ref_find(n, a));
		}
	for (unsigned k = 0; k < 64; k++) {
		uint64_t a = check_rand();

		CHECK(tn_lpm_find(&l, a) == ref_find(n, a), "random addr %016llx", (unsigned long long)a);
	}
	vpk_tn_lpm_free(&l);
}

static void
permute(uint32_t n, unsigned how)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t j = how == 1 ? n - 1 - i : (uint32_t)(i + check_rand_range(n - i));

		if (how == 1 && j <= i)
			break;
		uint64_t p = pfx[i];
		uint8_t l = plen[i], s = skip[i];

		pfx[i] = pfx[j];
		plen[i] = plen[j];
		skip[i] = skip[j];
		pfx[j] = p;
		plen[j] = l;
		skip[j] = s;
	}
}

int
main(void)
{
	static const uint8_t lens[] = { 0, 8, 16, 24, 25, 32, 40, 48, 56, 30, 31 };
	static const uint32_t sizes[] = { 0, 1, 2, 3, 8, 40, 300 };
	struct tn_lpm l;
	uint64_t p = 0;
	uint8_t bad = 57;

	check_init("tunnel.prefix_lpm");
	CHECK(vpk_tn_lpm_build(&l, &p, &bad, NULL, 1) == -EINVAL, "length 57 accepted");
	for (unsigned round = 0; round < 40; round++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			uint32_t n = sizes[s];

			for (uint32_t i = 0; i < n; i++) {
				plen[i] = lens[check_rand_range(round % 2 ? 3 + round % 8 : sizeof(lens))];
				/* a narrow space: top byte fixed, a few values per level, so prefixes nest */
				pfx[i] = (0xd4ull << 56 | (check_rand_range(4) << 40) | (check_rand_range(4) << 30) |
					  (check_rand_range(2) << 14)) & tn_lpm_mask(plen[i]);
				skip[i] = check_rand_range(10) == 0;
			}
			for (unsigned how = 0; how < 3; how++) {
				if (how != 0)
					permute(n, how);
				check_table(n, round);
			}
		}
	return check_finish();
}
