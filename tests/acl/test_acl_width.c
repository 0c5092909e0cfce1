/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every ACL classify variant stays within the width it claims
 * (vpk_impl.width): under the max SIMD bitwidth cap 256 (the EAL's default,
 * the drop-in's case) avx512x16 runs, and no 512-bit instruction may run
 * there (tests/lib/width.h: read from this executable's code).
 */
#include <stdio.h>

#include <vpk/acl.h>

#include "acl/acl_int.h"
#include "lib/check.h"
#include "lib/width.h"

int
main(void)
{
	const struct vpk_impl *const *t = vpk_acl_impls();
	struct vpk_scan_report *r;
	unsigned checked = 0, capped = 0;

	check_init("acl_width");
	r = width_scan_self();
	if (r == NULL)
		return check_finish();
	for (size_t i = 0; t[i] != NULL; i++) {
		const struct acl_impl *im = (const struct acl_impl *)(const void *)t[i];

		width_check(r, &im->base, (const void *)im->classify);
		capped += im->base.isa >= VPK_ISA_AVX512 && im->base.width < 512;
		checked++;
	}
	CHECK(checked >= 1, "no ACL variant compiled in");
	printf("%u variants checked, %u of them AVX-512 below 512 bits\n", checked, capped);
	vpk_scan_report_destroy(r);
	return check_finish();
}
