/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TESTS_WIDTH_H
#define VPK_TESTS_WIDTH_H

/*
 * Width checks of kernel variants (tests acl_width, fib_width): a variant
 * that claims vpk_impl.width 256 runs under the max SIMD bitwidth cap 256
 * (the EAL's default, the drop-ins' case), where no 512-bit instruction may
 * run. width_scan_self() decodes this very executable (vpk_scan_file(),
 * Zydis); width_check() finds the function holding a variant's entry point
 * (dladdr()) and counts its instructions wider than the claim, in it and in
 * its compiler clones (NAME.part.N, NAME.cold, ...). It reads code, not
 * behaviour: it needs no AVX-512 CPU.
 */
#include <vpk/isa.h>
#include <vpk/scan.h>

/* The report of this executable, or NULL (the reason recorded by CHECK or skip). */
struct vpk_scan_report *width_scan_self(void);
/* CHECK that @p fn of variant @p im and its clones hold no instruction wider than im->width. */
void width_check(const struct vpk_scan_report *r, const struct vpk_impl *im, const void *fn);
/* The same for the function named @p name (a variant's out-of-line helper); CHECK that it exists. */
void width_check_named(const struct vpk_scan_report *r, const struct vpk_impl *im, const char *name);

#endif
