/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every bm6 and bm16 lookup variant stays within the width it claims
 * (vpk_impl.width): under the max SIMD bitwidth cap 256 (the EAL's default,
 * the drop-ins' case) bm6's avx512x8 runs, and no 512-bit instruction may
 * run there (tests/lib/width.h: read from this executable's code).
 */
#include <stdio.h>
#include <string.h>

#include "fib/bm16.h"
#include "fib/bm6.h"
#include "lib/check.h"
#include "lib/width.h"

int
main(void)
{
	struct vpk_scan_report *r;
	unsigned checked = 0, capped = 0;

	check_init("fib_width");
	r = width_scan_self();
	if (r == NULL)
		return check_finish();
	for (size_t i = 0; vpk_bm6_impls[i] != NULL; i++) {
		const struct bm6_impl *im = (const struct bm6_impl *)(const void *)vpk_bm6_impls[i];

		for (int w = 0; w < 2; w++)
			width_check(r, &im->impl, (const void *)im->lookup[w]);
		/* the walk's out-of-line deep-lane drain (bm6_pipe.h), named by width */
		if (strcmp(im->impl.name, "avx512x8") == 0)
			width_check_named(r, &im->impl, "tq_drain_x8_avx512");
		capped += im->impl.isa >= VPK_ISA_AVX512 && im->impl.width < 512;
		checked++;
	}
	for (size_t i = 0; vpk_bm16_impls[i] != NULL; i++) {
		const struct bm16_impl *im = (const struct bm16_impl *)(const void *)vpk_bm16_impls[i];

		width_check(r, &im->impl, (const void *)im->lookup);
		checked++;
	}
	CHECK(checked >= 2, "no bm6 or bm16 variant compiled in");
	printf("%u variants checked, %u of them AVX-512 below 512 bits\n", checked, capped);
	vpk_scan_report_destroy(r);
	return check_finish();
}
