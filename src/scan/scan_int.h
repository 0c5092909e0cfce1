/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_SCAN_INT_H
#define VPK_SCAN_INT_H

/*
 * Internals of the scanner (src/scan/): the decoder wrapper (classify.c),
 * the .eh_frame FDE reader (ehframe.c) and the ELF/function-list builder
 * (scan.c).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vpk/scan.h>

/* A Zydis decoder without exposing Zydis headers to the rest of the code. */
struct vpk_scan_decoder {
	_Alignas(8) unsigned char opaque[64];
};

void vpk_scan_decoder_init(struct vpk_scan_decoder *d);
/* 0 or -EILSEQ. */
/* @branch_disp (may be NULL): displacement of a relative jmp/jcc from the next instruction, else INT64_MIN. */
int vpk_scan_decode(const struct vpk_scan_decoder *d, const uint8_t *code, size_t len,
		    struct vpk_scan_insn *out, int64_t *branch_disp);
void vpk_scan_count(struct vpk_scan_counts *c, const struct vpk_scan_insn *in);
void vpk_scan_counts_add(struct vpk_scan_counts *to, const struct vpk_scan_counts *c);
/* Returns the count of non-padding instructions plus bad bytes seen so far in @c. */
size_t vpk_scan_sweep(const struct vpk_scan_decoder *d, const uint8_t *code, size_t len,
		      struct vpk_scan_counts *c);

/* One FDE: [start, start + size) in virtual addresses. */
struct vpk_fde {
	uint64_t start;
	uint64_t size;
};

/*
 * Read the FDEs of an .eh_frame section whose bytes are @data (@len bytes)
 * loaded at virtual address @addr. Calls @fn for each FDE with a non-zero
 * range. Returns 0, or -EBADMSG at the first malformed record (FDEs found
 * before it have been reported).
 */
int vpk_eh_frame_fdes(const uint8_t *data, size_t len, uint64_t addr,
		      void (*fn)(void *arg, const struct vpk_fde *fde), void *arg);

#endif /* VPK_SCAN_INT_H */
