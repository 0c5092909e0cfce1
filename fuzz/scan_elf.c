/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the scanner's ELF, symbol, .eh_frame and dynamic-section
 * readers on arbitrary bytes (vpk_scan_mem). Any return code is fine; a
 * crash, leak or sanitizer report is not. Corpus: tests/data/fuzz/scan_elf/
 * (the golden library stripped, and its object file).
 */
// fuzz-libs: vpk_scan_static
#include <stddef.h>
#include <stdint.h>

#include <vpk/scan.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vpk_scan_report *r = NULL;

	if (vpk_scan_mem(data, size, "fuzz", VPK_SCAN_NO_DEBUGFILE, &r) == 0) {
		/* Touch everything the report promises. */
		volatile uint64_t sink = r->total.insns;

		for (size_t i = 0; i < r->nfuncs; i++)
			sink += r->funcs[i].c.bytes + (uint64_t)r->funcs[i].name[0] + (uint64_t)r->funcs[i].section[0];
		for (size_t i = 0; i < r->nneeded; i++)
			sink += (uint64_t)r->needed[i][0];
		(void)sink;
		vpk_scan_report_destroy(r);
	}
	return 0;
}
