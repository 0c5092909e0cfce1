/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scan Debian's DPDK 22.11 ACL and FIB libraries (stripped: functions come
 * from .dynsym and .eh_frame) and check what research/power.md §2.7 found:
 * their AVX-512 classify/lookup code is light 512-bit (level 1, never 2),
 * and ACL's AVX2 path is level 1 through vpmaddubsw/vpmaddwd. Skips (77)
 * when the libraries are not installed.
 */
#include <string.h>
#include <unistd.h>

#include <vpk/scan.h>

#include "lib/check.h"

static const char *const libdirs[] = { "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/local/lib" };

static bool
locate(const char *name, char *out, size_t len)
{
	for (size_t i = 0; i < sizeof(libdirs) / sizeof(libdirs[0]); i++) {
		snprintf(out, len, "%s/%s", libdirs[i], name);
		if (access(out, R_OK) == 0)
			return true;
	}
	return false;
}

static void
check_lib(const char *name, bool want_avx2_heavy)
{
	struct vpk_scan_report *r = NULL;
	char path[512];
	size_t n512 = 0, l2 = 0, avx2_heavy = 0;
	int rc;

	if (!locate(name, path, sizeof(path))) {
		printf("skip %s: not installed (Debian librte-*23 / dpdk-dev)\n", name);
		return;
	}
	rc = vpk_scan_file(path, 0, &r);
	CHECK(rc == 0, "%s: %s", path, vpk_scan_strerror(rc));
	if (rc != 0)
		return;
	for (size_t i = 0; i < r->nfuncs; i++) {
		const struct vpk_scan_func *f = &r->funcs[i];

		if (f->c.w512 > 0 && f->c.level == 1 && (f->c.subsets & (1u << VPK_SCAN_F)))
			n512++;
		l2 += f->c.level == 2;
		if (f->c.w512 == 0 && f->c.heavy256 > 0 && f->c.level == 1)
			avx2_heavy++;
		if (f->c.w512 * 5 > f->c.insns)
			printf("  %s: %s level %u, %.1f%% 512-bit, %llu insns\n", name, f->name, f->c.level,
			       100.0 * (double)f->c.w512 / (double)f->c.insns, (unsigned long long)f->c.insns);
	}
	CHECK(n512 >= 1, "%s: no 512-bit level-1 function found", name);
	CHECK(l2 == 0, "%s: %zu functions at level 2 (DPDK's paths are light)", name, l2);
	CHECK(r->nsrc[VPK_SCAN_SRC_EH_FRAME] > r->nsrc[VPK_SCAN_SRC_DYNSYM] / 4,
	      "%s: few .eh_frame functions (%zu)", name, r->nsrc[VPK_SCAN_SRC_EH_FRAME]);
	CHECK(r->total.bad_bytes == 0, "%s: %llu undecodable bytes", name, (unsigned long long)r->total.bad_bytes);
	if (want_avx2_heavy)
		CHECK(avx2_heavy >= 1, "%s: AVX2 heavy (vpmaddubsw) function not found", name);
	check_variant_ran("dpdk", name);
	vpk_scan_report_destroy(r);
}

int
main(void)
{
	char p[512];

	check_init("scan_dpdk");
	if (!locate("librte_acl.so.23", p, sizeof(p)) && !locate("librte_fib.so.23", p, sizeof(p))) {
		check_skip_all("DPDK 22.11 librte_acl.so.23 / librte_fib.so.23 not installed");
		return check_finish();
	}
	check_lib("librte_acl.so.23", true);
	check_lib("librte_fib.so.23", false);
	return check_finish();
}
