/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/check.h"
#include "lib/width.h"

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

struct vpk_scan_report *
width_scan_self(void)
{
	struct vpk_scan_report *r = NULL;
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int rc;

	if (n <= 0) {
		check_skip_all("/proc/self/exe cannot be read");
		return NULL;
	}
	self[n] = '\0';
	rc = vpk_scan_file(self, VPK_SCAN_NO_DEBUGFILE, &r);
	CHECK(rc == 0, "vpk_scan_file(%s): %s", self, vpk_scan_strerror(rc));
	return rc == 0 ? r : NULL;
}

/* CHECK function @p f of variant @p im and its clones (NAME.part.N, NAME.cold, ...). */
static void
check_func(const struct vpk_scan_report *r, const struct vpk_impl *im, const struct vpk_scan_func *f)
{
	size_t len = strlen(f->name);

	for (size_t i = 0; i < r->nfuncs; i++) {
		const struct vpk_scan_func *g = &r->funcs[i];
		uint64_t n;

		if (g != f && (strncmp(g->name, f->name, len) != 0 || g->name[len] != '.'))
			continue;
		n = too_wide(g, im->width);
		printf("  %-10s %-40s %5llu insns: %4llu x 256-bit, %4llu x 512-bit (claims %u)\n", im->name, g->name,
		       (unsigned long long)g->c.insns, (unsigned long long)g->c.w256, (unsigned long long)g->c.w512,
		       im->width);
		CHECK(n == 0, "%s claims width %u, but %s has %llu wider instructions", im->name, im->width, g->name,
		      (unsigned long long)n);
	}
}

void
width_check(const struct vpk_scan_report *r, const struct vpk_impl *im, const void *fn)
{
	Dl_info info;
	const struct vpk_scan_func *f;

	if (dladdr(fn, &info) == 0) {
		CHECK(0, "%s: dladdr() does not know its function", im->name);
		return;
	}
	f = func_at(r, (uint64_t)((uintptr_t)fn - (uintptr_t)info.dli_fbase));
	CHECK(f != NULL, "%s: no function of the executable holds its entry point", im->name);
	if (f != NULL)
		check_func(r, im, f);
}

void
width_check_named(const struct vpk_scan_report *r, const struct vpk_impl *im, const char *name)
{
	const struct vpk_scan_func *f = NULL;

	for (size_t i = 0; i < r->nfuncs && f == NULL; i++)
		if (strcmp(r->funcs[i].name, name) == 0)
			f = &r->funcs[i];
	CHECK(f != NULL, "%s: no function %s in the executable", im->name, name);
	if (f != NULL)
		check_func(r, im, f);
}
