/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every ACL classify variant stays within the width it claims
 * (vpk_impl.width): under the max SIMD bitwidth cap 256 (the EAL's default,
 * the drop-in's case) avx512x16 runs, and no 512-bit instruction may run
 * there. The test finds each variant's classify function in this very
 * executable (dladdr() of its pointer, then vpk_scan_file() of the
 * executable, which decodes it with Zydis) and counts its instructions
 * wider than the claim, in the function and in its compiler clones
 * (NAME.part.N, NAME.cold, ...). It reads code, not behaviour: it needs no
 * AVX-512 CPU.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include <vpk/acl.h>
#include <vpk/isa.h>
#include <vpk/scan.h>

#include "acl/acl_int.h"
#include "lib/check.h"

/* The function of @p r holding address @p a, or NULL. */
static const struct vpk_scan_func *
func_at(const struct vpk_scan_report *r, uint64_t a)
{
	for (size_t i = 0; i < r->nfuncs; i++)
		if (a >= r->funcs[i].addr && a < r->funcs[i].addr + r->funcs[i].size &&
		    r->funcs[i].src != VPK_SCAN_SRC_GAP)
			return &r->funcs[i];
	return NULL;
}

/* Instructions of @p f wider than @p width bits. */
static uint64_t
too_wide(const struct vpk_scan_func *f, unsigned width)
{
	return (width < 512 ? f->c.w512 : 0) + (width < 256 ? f->c.w256 : 0);
}

static void
check_variant(const struct vpk_scan_report *r, const struct acl_impl *im, unsigned *capped)
{
	Dl_info info;
	const struct vpk_scan_func *f;
	size_t len;

	if (dladdr((const void *)im->classify, &info) == 0) {
		CHECK(0, "%s: dladdr() does not know its classify function", im->base.name);
		return;
	}
	f = func_at(r, (uint64_t)((uintptr_t)im->classify - (uintptr_t)info.dli_fbase));
	CHECK(f != NULL, "%s: no function of the executable holds its classify function", im->base.name);
	if (f == NULL)
		return;
	len = strlen(f->name);
	for (size_t i = 0; i < r->nfuncs; i++) {
		const struct vpk_scan_func *g = &r->funcs[i];
		uint64_t n;

		if (g != f && (strncmp(g->name, f->name, len) != 0 || g->name[len] != '.'))
			continue;
		n = too_wide(g, im->base.width);
		printf("  %-10s %-40s %5llu insns: %4llu x 256-bit, %4llu x 512-bit (claims %u)\n", im->base.name,
		       g->name, (unsigned long long)g->c.insns, (unsigned long long)g->c.w256,
		       (unsigned long long)g->c.w512, im->base.width);
		CHECK(n == 0, "%s claims width %u, but %s has %llu wider instructions", im->base.name,
		      im->base.width, g->name, (unsigned long long)n);
	}
	*capped += im->base.isa >= VPK_ISA_AVX512 && im->base.width < 512;
}

int
main(void)
{
	const struct vpk_impl *const *t = vpk_acl_impls();
	struct vpk_scan_report *r = NULL;
	char self[PATH_MAX];
	ssize_t n;
	unsigned checked = 0, capped = 0;
	int rc;

	check_init("acl_width");
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		check_skip_all("/proc/self/exe cannot be read");
		return check_finish();
	}
	self[n] = '\0';
	rc = vpk_scan_file(self, VPK_SCAN_NO_DEBUGFILE, &r);
	CHECK(rc == 0, "vpk_scan_file(%s): %s", self, vpk_scan_strerror(rc));
	if (rc != 0)
		return check_finish();
	for (size_t i = 0; t[i] != NULL; i++) {
		const struct acl_impl *im = (const struct acl_impl *)(const void *)t[i];

		check_variant(r, im, &capped);
		checked++;
	}
	CHECK(checked >= 1, "no ACL variant compiled in");
	printf("%u variants checked, %u of them AVX-512 below 512 bits\n", checked, capped);
	vpk_scan_report_destroy(r);
	return check_finish();
}
