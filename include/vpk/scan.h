/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_SCAN_H
#define VPK_SCAN_H

/**
 * @file
 * Static scanner for wide-vector code in x86-64 ELF files.
 *
 * vpk_scan_file() decodes every executable byte of an ELF file (with Zydis,
 * never by matching byte patterns) and attributes each instruction to a
 * function. Function boundaries come from `.symtab`, `.dynsym`, the symbol
 * table of a separate debug file found by build-id, and the `.eh_frame` FDEs
 * (present in stripped files too); executable bytes that none of these cover
 * are decoded as "gaps" and reported as such.
 *
 * For each function it counts instructions by vector register width
 * (128/256/512 bits), heavy versus light, AVX-512 instructions (EVEX vector
 * instructions and the VEX-encoded opmask `k` instructions), the AVX-512
 * subsets used, and the highest Intel power-licence level the code can
 * request (Skylake-SP semantics, Intel optimization manual; see
 * docs/scan.md):
 *
 *     level 0: scalar, 128-bit (SSE, AVX), 256-bit light, opmask-only
 *     level 1: 256-bit heavy, 512-bit light
 *     level 2: 512-bit heavy
 *
 * Heavy = floating-point arithmetic (not moves/logic/shuffles), FMA, and the
 * integer multiplier (vpmul*, vpmadd*, vpdp*, vpsadbw, ...). VAES, GFNI
 * affine, VPCLMULQDQ and vpmultishiftqb are counted heavy "by assumption"
 * (counted separately in heavy_assumed) because Intel does not document them.
 * A static count gives the highest level a function can request, not the
 * level it gets: heavy code must be dense (about one per two cycles) to
 * reach the heavy licence.
 *
 * Bytes the decoder cannot decode are counted (bad_bytes), the sweep moves
 * one byte on and resynchronises; they are never skipped silently. Zydis 4.0
 * does not know the 2023 extensions (AVX-VNNI-INT8, AVX-IFMA, AVX-NE-CONVERT,
 * AMX-FP16) nor APX: those show up as bad bytes, and an APX EVEX-encoded
 * integer instruction is never counted as vector code.
 *
 * Threading: the functions here are reentrant; a report is immutable once
 * returned. The library never prints.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vpk/isa.h>

#ifdef __cplusplus
extern "C" {
#endif

/** AVX-512 subsets (CPUID feature names without the AVX512 prefix). */
enum vpk_scan_subset {
	VPK_SCAN_F = 0, VPK_SCAN_CD, VPK_SCAN_BW, VPK_SCAN_DQ, VPK_SCAN_VL,
	VPK_SCAN_IFMA, VPK_SCAN_VBMI, VPK_SCAN_VBMI2, VPK_SCAN_VNNI, VPK_SCAN_BITALG,
	VPK_SCAN_VPOPCNTDQ, VPK_SCAN_GFNI, VPK_SCAN_VAES, VPK_SCAN_VPCLMULQDQ,
	VPK_SCAN_BF16, VPK_SCAN_FP16, VPK_SCAN_VP2INTERSECT, VPK_SCAN_ER, VPK_SCAN_PF,
	VPK_SCAN_4FMAPS, VPK_SCAN_4VNNIW,
	VPK_SCAN_SUBSET_COUNT
};

/** Counters over a range of code (one function, a gap, or a whole file). */
struct vpk_scan_counts {
	uint64_t insns;         /**< Decoded instructions. */
	uint64_t bytes;         /**< Bytes swept (decoded plus bad). */
	uint64_t bad_bytes;     /**< Bytes the decoder could not decode. */
	uint64_t w128;          /**< Instructions whose widest vector register is 128-bit (xmm). */
	uint64_t w256;          /**< ... 256-bit (ymm). */
	uint64_t w512;          /**< ... 512-bit (zmm). */
	uint64_t heavy256;      /**< Heavy instructions at 256 bits. */
	uint64_t heavy512;      /**< Heavy instructions at 512 bits. */
	uint64_t heavy_assumed; /**< Of the heavy ones (any width), those heavy by assumption (VAES, ...). */
	uint64_t opmask;        /**< Opmask instructions (kmov, kand, kortest, ...; VEX-encoded). */
	uint64_t avx512;        /**< Instructions that need an AVX-512 feature (EVEX vector + opmask). */
	uint64_t amx;           /**< AMX instructions (tile registers). */
	uint64_t vzeroupper;    /**< vzeroupper / vzeroall instructions. */
	uint32_t subsets;       /**< Bit (1u << enum vpk_scan_subset) per AVX-512 subset used. */
	uint8_t level;          /**< Highest power-licence level requested: 0, 1 or 2. */
	uint64_t loops;         /**< Backward relative branches (loop bodies [target, branch]). */
	uint64_t heavy_in_loops;/**< Heavy 256/512-bit instructions inside some loop body. */
	uint32_t loop_heavy_pm; /**< Densest loop body: heavy instructions per 1000 of its instructions. */
};

/** Where a function's boundaries came from. */
enum vpk_scan_src {
	VPK_SCAN_SRC_SYMTAB,    /**< .symtab STT_FUNC / STT_GNU_IFUNC with a size. */
	VPK_SCAN_SRC_DYNSYM,    /**< .dynsym (exports; stripped files keep these). */
	VPK_SCAN_SRC_DEBUG,     /**< .symtab of the build-id debug file. */
	VPK_SCAN_SRC_EH_FRAME,  /**< an .eh_frame FDE only (named sub_<addr>). */
	VPK_SCAN_SRC_GAP,       /**< executable bytes no function covers (named gap_<addr> or after a size-0 symbol). */
	VPK_SCAN_SRC_COUNT
};

/** One function (or gap) of a scanned file. */
struct vpk_scan_func {
	const char *name;       /**< Symbol name, "sub_<hex>" or "gap_<hex>"/"<sym>+gap". */
	uint64_t addr;          /**< Start (virtual address; section offset in ET_REL files). */
	uint64_t size;          /**< Size in bytes (clipped at the next function's start). */
	const char *section;    /**< Section name (".text", ...). */
	enum vpk_scan_src src;  /**< Where the boundaries came from. */
	struct vpk_scan_counts c;
};

/** The result of scanning one file. */
struct vpk_scan_report {
	const char *path;               /**< As given. */
	size_t nfuncs;                  /**< Entries in funcs, sorted by section then address. */
	struct vpk_scan_func *funcs;
	struct vpk_scan_counts total;   /**< Sum over all functions and gaps. */
	size_t nsrc[VPK_SCAN_SRC_COUNT];/**< Functions per boundary source. */
	const char *debug_file;         /**< Build-id debug file used for names, or NULL. */
	size_t nneeded;                 /**< DT_NEEDED entries, in order. */
	const char **needed;
	const char *runpath;            /**< DT_RUNPATH or NULL. */
	const char *rpath;              /**< DT_RPATH or NULL. */
	bool is_rel;                    /**< ET_REL object: addresses are section offsets. */
	void *priv;                     /**< Internal (section names); do not touch. */
};

/** Flags of vpk_scan_file() / vpk_scan_mem(). */
#define VPK_SCAN_NO_EH_FRAME  (1u << 0)  /**< Ignore .eh_frame FDEs. */
#define VPK_SCAN_NO_DEBUGFILE (1u << 1)  /**< Do not look for a build-id debug file. */
#define VPK_SCAN_F_ALL        (VPK_SCAN_NO_EH_FRAME | VPK_SCAN_NO_DEBUGFILE)

/**
 * Scan an ELF file.
 *
 * @param path   file to read.
 * @param flags  VPK_SCAN_* flags.
 * @param out    receives the report (free with vpk_scan_report_destroy()) on success.
 * @return 0, or
 *   -EINVAL      NULL argument or unknown flag bit;
 *   -ENOENT, -EACCES, -EISDIR, -EIO, ... the file cannot be opened or read (errno of open/read);
 *   -ENOEXEC     not an ELF file;
 *   -ENOTSUP     an ELF file, but not 64-bit little-endian x86-64;
 *   -EBADMSG     truncated or malformed ELF (section or symbol table out of bounds, ...);
 *   -ENOMEM      out of memory.
 */
VPK_API int vpk_scan_file(const char *path, unsigned flags, struct vpk_scan_report **out);

/**
 * Scan an ELF image held in memory (the fuzz target's entry point). Same
 * errors as vpk_scan_file() except the open/read ones. @p name becomes the
 * report's path. The buffer is not modified and may be freed afterwards.
 */
VPK_API int vpk_scan_mem(const void *buf, size_t len, const char *name, unsigned flags,
			 struct vpk_scan_report **out);

/** Free a report (NULL is fine). */
VPK_API void vpk_scan_report_destroy(struct vpk_scan_report *r);

/** A short reason for an error code of vpk_scan_file() ("not an ELF file", ...). */
VPK_API const char *vpk_scan_strerror(int err);

/** Name of an AVX-512 subset ("F", "BW", "VBMI2", ...) or NULL if out of range. */
VPK_API const char *vpk_scan_subset_name(unsigned subset);

/** What vpk_scan_insn() found for one instruction. */
struct vpk_scan_insn {
	unsigned length;        /**< Instruction length in bytes. */
	char mnemonic[32];      /**< Lower-case mnemonic ("vfmadd231ps"). */
	unsigned width;         /**< Widest vector register operand: 0, 128, 256, 512. */
	bool heavy;             /**< Heavy for the power licence (see @file). */
	bool heavy_assumed;     /**< Heavy by assumption (VAES, GFNI affine, VPCLMULQDQ, vpmultishiftqb). */
	bool avx512;            /**< Needs an AVX-512 feature. */
	bool opmask;            /**< An opmask (k register) instruction. */
	bool evex;              /**< EVEX-encoded. */
	bool amx;               /**< Uses tile registers. */
	uint32_t subsets;       /**< AVX-512 subsets (1u << enum vpk_scan_subset). */
	uint8_t level;          /**< Power-licence level this instruction requests: 0, 1, 2. */
};

/**
 * Decode and classify the single instruction at @p code (64-bit mode).
 * @return 0, -EINVAL (NULL argument), or -EILSEQ if the bytes do not decode.
 */
VPK_API int vpk_scan_insn(const void *code, size_t len, struct vpk_scan_insn *out);

/**
 * The naming rule of `vpk scan --allow-suffix`: is a function called @p name
 * allowed to hold AVX-512 code, given the allowed suffixes?
 *
 * The name is first cut at its first '.' (GCC clones such as `.cold`,
 * `.part.0`, `.isra.0`, `.constprop.0` keep their parent's right). It passes
 * if it contains an allowed suffix S followed only by [a-z0-9]* up to the end:
 * with S = "_avx512", `ip4_csum_check_bulk_avx512`, `lookup_avx512icl`,
 * `classify_avx512x16` and `f_avx512.cold` pass; `helper_avx512_tail`,
 * `memcpy` and `foo_avx2` do not.
 *
 * @return true if allowed; false otherwise (also for NULL arguments).
 */
VPK_API bool vpk_scan_name_allowed(const char *name, const char *const *suffixes, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* VPK_SCAN_H */
