/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The enqueue-to-next select kernel: every usable variant x every length
 * 0..67 and 255..257 x next patterns (all equal, alternating, random over
 * 2..16 values, runs) against a plain filter, plus writes bounded by the
 * documented slack (VPK_FRAME_SLACK past the count) and inputs at guard pages.
 */
#include <string.h>

#include "graph/graph_priv.h"
#include "lib/check.h"

#define MAXN 257

static void
make_next(uint16_t *next, size_t n, unsigned pattern)
{
	unsigned k = 2 + (unsigned)check_rand_range(15);

	for (size_t i = 0; i < n; i++) {
		switch (pattern % 5) {
		case 0: next[i] = 3; break;
		case 1: next[i] = (uint16_t)(i & 1); break;
		case 2: next[i] = (uint16_t)check_rand_range(k); break;
		case 3: next[i] = (uint16_t)((i / 7) % 3); break;
		default: next[i] = check_rand_range(10) == 0 ? 15 : 0; break;
		}
	}
}

static void
run_variant(void *arg, const struct vpk_impl *impl)
{
	const struct graph_enqueue_impl *k = (const struct graph_enqueue_impl *)impl;
	size_t lens[80], nl = check_lengths(lens, 80);
	uint32_t out[MAXN + VPK_FRAME_SLACK + 8];

	(void)arg;
	for (unsigned pattern = 0; pattern < 10; pattern++) {
		for (size_t li = 0; li < nl; li++) {
			size_t n = lens[li];
			uint16_t *next = check_guard_alloc(n * sizeof(uint16_t) + 1);
			uint32_t *bi = check_guard_alloc(n * sizeof(uint32_t));

			next = (uint16_t *)((uint8_t *)next + 1);       /* unaligned */
			make_next(next, n, pattern);
			for (size_t i = 0; i < n; i++)
				bi[i] = check_rand_u32();
			for (uint16_t v = 0; v < 16; v++) {
				uint32_t want[MAXN], nw = 0, got;

				for (size_t i = 0; i < n; i++)
					if (next[i] == v)
						want[nw++] = bi[i];
				memset(out, 0xa5, sizeof(out));
				got = k->select(next, bi, (uint32_t)n, v, out);
				CHECK(got == nw, "n=%zu v=%u: %u selected, want %u", n, v, got, nw);
				CHECK(memcmp(out, want, nw * sizeof(uint32_t)) == 0,
				      "n=%zu v=%u pattern %u: wrong or reordered indices", n, v, pattern);
				for (size_t i = nw + VPK_FRAME_SLACK; i < sizeof(out) / sizeof(out[0]); i++)
					CHECK(out[i] == 0xa5a5a5a5u, "n=%zu v=%u: wrote beyond the slack at %zu", n, v, i);
			}
			check_guard_free((uint8_t *)next - 1, n * sizeof(uint16_t) + 1);
			check_guard_free(bi, n * sizeof(uint32_t));
		}
	}
}

int
main(void)
{
	check_init("graph_enqueue");
	check_each_impl("graph-enqueue", graph_enqueue_impls, run_variant, NULL);
	return check_finish();
}
