/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_ISA_H
#define VPK_ISA_H

/**
 * @file
 * ISA levels, CPU/OS detection, the SIMD bit-width cap and implementation
 * tables: the one run-time dispatch mechanism of vpk.
 *
 * Every kernel exists in several variants ("implementations"), each built
 * for one ISA level. A component keeps a best-first, NULL-terminated table
 * of them and picks one with vpk_impl_pick() when an object (FIB, ACL
 * context, buffer pool, graph node) is created; the object stores the
 * choice and reports it. Changing the cap later affects only objects created
 * later.
 *
 * An implementation is usable when
 *   - it is compiled in (it is in the table at all),
 *   - the CPU reports every CPUID feature of its level and of all lower
 *     levels, and the OS saves the register state it needs (XCR0 via XGETBV),
 *   - its width (the widest register it touches) is <= the cap.
 *
 * The cap (DPDK's "max SIMD bitwidth") is one of 64, 128, 256, 512. Its
 * default is 512 on CPUs with the avx512icl level (Ice Lake and later,
 * Zen 4 and later: 512-bit light integer code no longer costs a frequency
 * transition of its own), else 256, as DPDK does on older Xeons. The
 * environment variable VPK_MAX_SIMD_BITWIDTH overrides the default; once it
 * is set, vpk_set_max_simd_bitwidth() refuses with -EPERM (DPDK semantics:
 * the operator's choice beats the application's).
 *
 * Thread safety: detection runs once, on first use, and is thread-safe.
 * vpk_set_max_simd_bitwidth() may race with object creation on other
 * threads; each creation sees either the old or the new cap.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef VPK_API
#define VPK_API __attribute__((visibility("default")))
#endif

/** ISA levels, lowest first. Each level includes all levels below it. */
enum vpk_isa {
	VPK_ISA_AUTO = 0,       /**< Pick the best usable variant. */
	VPK_ISA_SCALAR,         /**< No SIMD: 64-bit general-purpose registers. */
	VPK_ISA_SSE42,          /**< x86-64-v2, 128-bit registers. */
	VPK_ISA_AVX2,           /**< x86-64-v3, 256-bit registers. */
	VPK_ISA_AVX512,         /**< x86-64-v4: AVX-512 F BW CD DQ VL. */
	VPK_ISA_AVX512ICL,      /**< avx512 + VBMI VBMI2 GFNI VAES VPCLMULQDQ VNNI BITALG VPOPCNTDQ. */
	VPK_ISA_COUNT
};

/**
 * One implementation (variant) of a kernel. Components embed this as the
 * first member of their own implementation structs and list pointers to it,
 * best first, in a NULL-terminated table.
 */
struct vpk_impl {
	const char *name;       /**< Short name: "scalar", "avx2", "avx512x16", ... */
	enum vpk_isa isa;       /**< Level whose instructions it needs. */
	unsigned width;         /**< Widest register it touches, in bits (64..512). */
};

/** Name of @p isa ("auto", "scalar", "sse42", "avx2", "avx512", "avx512icl"), or "?" if out of range. */
VPK_API const char *vpk_isa_name(enum vpk_isa isa);

/**
 * Parse an ISA level name (as printed by vpk_isa_name(), case-sensitive).
 * @return 0, or -EINVAL if @p name is NULL or unknown (*out untouched).
 */
VPK_API int vpk_isa_from_name(const char *name, enum vpk_isa *out);

/** Default register width of a level in bits (64, 128, 256, 512); 0 if out of range or AUTO. */
VPK_API unsigned vpk_isa_bits(enum vpk_isa isa);

/**
 * True when the CPU has every CPUID feature of @p isa and of all lower levels.
 * Features named in the environment variable VPK_CPU_DISABLE (comma-separated,
 * as vpk_cpu_feature() names them, e.g. "avx512f,avx2") count as absent.
 */
VPK_API bool vpk_isa_cpu_supported(enum vpk_isa isa);

/** True when the OS saves the register state @p isa needs (XCR0), and all lower levels'. */
VPK_API bool vpk_isa_os_supported(enum vpk_isa isa);

/** True when libvpk was built with variants of level @p isa (the compiler could build them). */
VPK_API bool vpk_isa_compiled(enum vpk_isa isa);

/** vpk_isa_compiled() && CPU && OS support && vpk_isa_bits(isa) <= the current cap. */
VPK_API bool vpk_isa_usable(enum vpk_isa isa);

/** Highest level the CPU and OS support (ignores the cap and the build). */
VPK_API enum vpk_isa vpk_isa_detected(void);

/** Number of CPU features in vpk's table (see vpk_cpu_feature()). */
VPK_API size_t vpk_cpu_feature_count(void);

/**
 * CPU feature @p i of vpk's table: its name, the level that first needs it,
 * and whether CPUID reports it.
 * @return 0, or -EINVAL if @p i is out of range.
 */
VPK_API int vpk_cpu_feature(size_t i, const char **name, enum vpk_isa *level, bool *present);

/** XCR0 as read by XGETBV, or 0 when the OS has not enabled XSAVE (OSXSAVE clear). */
VPK_API uint64_t vpk_cpu_xcr0(void);

/** The CPU's brand string (CPUID 0x80000002..4), trimmed; never NULL. */
VPK_API const char *vpk_cpu_model(void);

/** Where the current cap came from. */
enum vpk_cap_source {
	VPK_CAP_DEFAULT = 0,    /**< Built-in default (see vpk_cap_info::default_reason). */
	VPK_CAP_ENV,            /**< VPK_MAX_SIMD_BITWIDTH. */
	VPK_CAP_API,            /**< vpk_set_max_simd_bitwidth(). */
};

/** Everything known about the cap, for tools that explain it. */
struct vpk_cap_info {
	unsigned bits;                  /**< Current cap. */
	enum vpk_cap_source source;     /**< Where it came from. */
	unsigned default_bits;          /**< What the default would be on this machine. */
	const char *default_reason;     /**< One sentence: why that default. */
	const char *env_value;          /**< VPK_MAX_SIMD_BITWIDTH as found, or NULL if unset. */
	int env_error;                  /**< 0, or -EINVAL when env_value was set but invalid (then ignored). */
};

/** Current cap in bits: 64, 128, 256 or 512. */
VPK_API unsigned vpk_get_max_simd_bitwidth(void);

/**
 * Set the cap.
 * @param bits  64, 128, 256 or 512.
 * @return 0, -EINVAL if @p bits is not one of those, -EPERM if the cap was
 *         fixed by VPK_MAX_SIMD_BITWIDTH (unless @p bits equals it).
 */
VPK_API int vpk_set_max_simd_bitwidth(unsigned bits);

/** Fill @p out with the cap, its source, the default and its reason. */
VPK_API void vpk_get_cap_info(struct vpk_cap_info *out);

/**
 * Parse a cap value as given on a command line or in the environment.
 * @return 0 and *out set, or -EINVAL (text NULL, empty, not a number, or not 64/128/256/512).
 */
VPK_API int vpk_parse_simd_bitwidth(const char *text, unsigned *out);

/**
 * Why @p impl cannot run now, as one short phrase ("CPU lacks avx512f",
 * "OS does not save ZMM state (XCR0=0x7)", "width 512 above cap 256",
 * "not compiled in"), or NULL if it is usable.
 */
VPK_API const char *vpk_impl_why_not(const struct vpk_impl *impl);

/**
 * Pick an implementation from a best-first NULL-terminated table.
 *
 * @param tab   Table, best first.
 * @param want  VPK_ISA_AUTO: the first usable entry. Any other level: the
 *              first usable entry of exactly that level (so "avx512" picks a
 *              512-bit variant under cap 512 and a 256-bit AVX-512VL one
 *              under cap 256 when the table has both).
 * @param[out] out  Chosen entry; untouched on failure.
 * @return 0, -EINVAL (NULL argument, @p want out of range), or -ENOTSUP
 *         when no entry of the wanted level is compiled in, supported by
 *         this CPU/OS, and within the cap. Never picks something that would
 *         SIGILL.
 */
VPK_API int vpk_impl_pick(const struct vpk_impl *const *tab, enum vpk_isa want,
			  const struct vpk_impl **out);

/**
 * Pick the entry called @p name ("avx512x16"), or by level name ("avx512")
 * when no entry has that exact name; "auto" picks the best.
 * @return 0, -EINVAL (NULL argument or no entry/level of that name), or
 *         -ENOTSUP (it exists but cannot run here, see vpk_impl_why_not()).
 */
VPK_API int vpk_impl_pick_name(const struct vpk_impl *const *tab, const char *name,
			       const struct vpk_impl **out);

/** A kernel registered for `vpk info`: its name and its implementation table. */
struct vpk_kernel {
	const char *name;                       /**< "ip4-csum-check", "fib4-dir24-8-lookup", ... */
	const char *what;                       /**< One line: what it does. */
	const struct vpk_impl *const *impls;    /**< Best first, NULL-terminated. */
};

/**
 * All kernels registered in libvpk.
 * @param[out] n  Number of entries.
 * @return The array (static storage).
 */
VPK_API const struct vpk_kernel *vpk_kernels(size_t *n);

#ifdef __cplusplus
}
#endif

#endif /* VPK_ISA_H */
