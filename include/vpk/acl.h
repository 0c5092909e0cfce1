/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_ACL_H
#define VPK_ACL_H

/**
 * @file
 * Packet classifier (ACL) with DPDK rte_acl 22.11 semantics.
 *
 * A context is created with a fixed field layout (struct vpk_acl_field_def,
 * DPDK's rte_acl_field_def), rules are added, then vpk_acl_build() compiles
 * them into a read-only *runtime* which vpk_acl_classify_bulk() searches.
 *
 * Match semantics (identical to rte_acl):
 *  - Rule values are in host order; the classified bytes are read in network
 *    order, i.e. a multi-byte field is compared as a big-endian unsigned
 *    integer of its size.
 *  - MASK: value + prefix length (mask_range, 0..8*size);
 *    BITMASK: (in & mask) == (value & mask), mask 0 = wildcard;
 *    RANGE: value <= in <= mask_range (inclusive, unsigned). A zeroed RANGE
 *    field is [0,0], not a wildcard.
 *  - All fields of a rule must match. Per category, the result is the
 *    userdata of the matching rule with the highest priority; among rules of
 *    equal priority the one added first wins (DPDK leaves this undefined;
 *    every DPDK tool gives unique priorities so the two agree). No match: 0.
 *
 * Layout rules (rte_acl's input grouping, validated here where DPDK silently
 * mis-classifies): defs[0] is a 1-byte field alone in input group 0;
 * consecutive defs with the same input_index form a group; every other group
 * is either fields of total size 4 lying back to back in memory in defs[]
 * order, or one 8-byte field. An input_index may not be reused by a later,
 * non-adjacent group, and groups may not overlap in memory. field_index
 * values are a permutation of 0..num_fields-1. The classifier reads exactly
 * the bytes of the fields, nothing beyond.
 *
 * Threads: control-plane calls (create, add, del, build, reset, select,
 * destroy) must not run concurrently with each other on one context.
 * vpk_acl_classify_bulk() may run on any number of threads at once, also
 * while vpk_acl_build() publishes a new runtime: the runtime pointer is
 * swapped atomically and the old runtime is freed only after every reader
 * that could still see it has left classify_bulk (an epoch scheme with one
 * slot per reader thread, see acl.c; the 129th and later reader threads of
 * a process share a fallback counter). A build does not wait for readers:
 * replaced runtimes are reclaimed by later builds once readers have moved
 * on (a build waits only when more than 4 are pending) and by
 * vpk_acl_destroy().
 *
 * Updates: after a full build, vpk_acl_build() applies rules added
 * (vpk_acl_add_rules()) and deleted (vpk_acl_del_rules()) since then
 * incrementally: the full build's trees stay, deleted rules are skipped
 * when they match, and one small extra tree holds the added rules plus the
 * rules a deleted one may have hidden in the trees (sub-millisecond for one
 * rule on a 10k-rule set, docs/acl.md). When the extra trees would get
 * too big (more than 1024 added rules, or more rules hidden by deleted ones
 * than max(1024, n/8) of an n-rule full build: e.g. after deleting a
 * wildcard that hid everything below it), or ranks run out, vpk_acl_build()
 * rebuilds everything, and the stats say why (vpk_acl_stats.fallback).
 * After vpk_acl_reset_rules() it always rebuilds everything. A change of a
 * rule is a delete plus an add.
 *
 * Categories: 1..16 (VPK_ACL_MAX_CATEGORIES) chosen at create time; each
 * rule's category_mask selects the categories it competes in.
 */
#include <stddef.h>
#include <stdint.h>
#include <vpk/error.h>
#include <vpk/isa.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VPK_ACL_MAX_CATEGORIES 16
#define VPK_ACL_MAX_FIELDS     24          /**< Field defs per context (8-byte fields count twice). */
#define VPK_ACL_MAX_PRIORITY   0x1fffffff  /**< 2^29 - 1, as RTE_ACL_MAX_PRIORITY. */

/** Field types (values as DPDK's RTE_ACL_FIELD_TYPE_*). */
enum vpk_acl_field_type {
	VPK_ACL_FIELD_MASK = 0,         /**< value + prefix length */
	VPK_ACL_FIELD_RANGE = 1,        /**< value = low, mask_range = high */
	VPK_ACL_FIELD_BITMASK = 2,      /**< value + bit mask */
};

/** One field of the classified buffer (DPDK's rte_acl_field_def). */
struct vpk_acl_field_def {
	uint8_t type;           /**< enum vpk_acl_field_type */
	uint8_t size;           /**< 1, 2, 4 or 8 bytes */
	uint8_t field_index;    /**< index into vpk_acl_rule::field[] */
	uint8_t input_index;    /**< input group (see the layout rules above) */
	uint32_t offset;        /**< byte offset in the classified buffer */
};

/** A rule's value for one field (DPDK's rte_acl_field, host order). */
struct vpk_acl_field {
	uint64_t value;         /**< address / low bound / value */
	uint64_t mask_range;    /**< prefix length / high bound / bit mask */
};

/**
 * Define a rule type with @p n fields; rules passed to vpk_acl_add_rules()
 * are arrays of such a type, with n == the context's num_fields.
 */
#define VPK_ACL_RULE_DEF(name, n)                                            \
	struct name {                                                        \
		uint32_t category_mask; /* bit c: competes in category c */  \
		uint32_t priority;      /* 1..VPK_ACL_MAX_PRIORITY */        \
		uint32_t userdata;      /* returned on match; != 0 */        \
		uint32_t reserved;      /* must be 0 */                      \
		struct vpk_acl_field field[n];                               \
	}

/**
 * The generic rule header; field[] has num_fields entries. field[] is a
 * flexible array member (not VPK_ACL_RULE_DEF(.., 1)) so that code reading
 * field[k] of a longer rule through this type indexes within its declared
 * bounds: compilers and -fsanitize=bounds then have nothing to object to.
 * sizeof(struct vpk_acl_rule) is the header alone; use VPK_ACL_RULE_SIZE().
 */
struct vpk_acl_rule {
	uint32_t category_mask; /**< bit c: competes in category c */
	uint32_t priority;      /**< 1..VPK_ACL_MAX_PRIORITY */
	uint32_t userdata;      /**< returned on match; != 0 */
	uint32_t reserved;      /**< must be 0 */
	struct vpk_acl_field field[];
};

/** Size in bytes of one rule with @p n fields. */
#define VPK_ACL_RULE_SIZE(n) (16 + 16 * (size_t)(n))

/** Context parameters. Zero-initialise, then set what you need. */
struct vpk_acl_conf {
	uint32_t num_fields;                    /**< 1..VPK_ACL_MAX_FIELDS */
	const struct vpk_acl_field_def *defs;   /**< num_fields entries; copied */
	uint32_t num_categories;                /**< 1..16 */
	uint32_t max_rules;                     /**< capacity; 0 = unlimited */
	size_t max_size;                        /**< runtime byte limit; 0 = none */
	enum vpk_isa isa;                       /**< classify variant level (VPK_ISA_AUTO: the best usable);
						     a variant within a level: vpk_acl_select() */
};

struct vpk_acl;                                  /* opaque */

/**
 * Check a configuration without creating anything (the reason of a failure
 * is in vpk_last_error()).
 * @return 0, or -EINVAL (NULL conf/defs, bad count, type, size, indexes,
 *         input grouping, overlapping groups, isa out of range).
 */
VPK_API int vpk_acl_conf_check(const struct vpk_acl_conf *conf);

/**
 * Create an empty context.
 * @param[out] out  The context; untouched on failure.
 * @return 0, -EINVAL (see vpk_acl_conf_check()), -ENOMEM, or -ENOTSUP when
 *         conf->isa has no variant usable here.
 */
VPK_API int vpk_acl_create(const struct vpk_acl_conf *conf, struct vpk_acl **out);

/** Destroy @p acl and its runtimes. NULL is a no-op. No classify may be running or start. */
VPK_API void vpk_acl_destroy(struct vpk_acl *acl);

/**
 * Validate and copy @p n rules (stride VPK_ACL_RULE_SIZE(num_fields)).
 * All or nothing: on error no rule is added, and vpk_last_error() names
 * the first bad rule (0-based within this call) and the reason.
 * Does not change the runtime; call vpk_acl_build() to apply.
 * @return 0, -EINVAL (NULL, priority out of 1..2^29-1, category_mask with no
 *         bit below num_categories, userdata 0, reserved != 0, value wider
 *         than its field, prefix longer than the field, range low > high),
 *         -ENOSPC (max_rules exceeded), -ENOMEM.
 */
VPK_API int vpk_acl_add_rules(struct vpk_acl *acl, const void *rules, uint32_t n);

/**
 * Delete @p n rules (stride VPK_ACL_RULE_SIZE(num_fields)). Each one removes
 * the first-added stored rule byte-equal to it (same fields, priority,
 * category_mask, userdata); identical rules given twice remove two copies.
 * All or nothing: if one is not found, no rule is deleted and
 * vpk_last_error() names it. Does not change the runtime; call
 * vpk_acl_build() to apply (incrementally, see "Updates" above). Rules
 * deleted and added again rank as newly added (last among equal
 * priorities).
 * @return 0, -EINVAL (NULL @p acl, NULL @p rules with n > 0, or a rule that
 *         vpk_acl_add_rules() would refuse), -ENOENT (a rule is not in the
 *         context), -ENOMEM.
 */
VPK_API int vpk_acl_del_rules(struct vpk_acl *acl, const void *rules, uint32_t n);

/** Forget all added rules (the current runtime keeps working). */
VPK_API void vpk_acl_reset_rules(struct vpk_acl *acl);

/** Number of rules stored (added minus deleted since creation / the last reset). */
VPK_API uint32_t vpk_acl_rule_count(const struct vpk_acl *acl);

/**
 * Compile the added rules into a new runtime and publish it atomically.
 * On failure the previous runtime stays in place and usable. Rules added
 * since the last full build only are compiled into an extra tree (see
 * "Updates" above). The replaced runtime is freed later, when no classify
 * call can still use it.
 * @return 0, -ERANGE (runtime would exceed conf->max_size), -ENOMEM
 *         (allocation failed, or the decision tree exceeds its internal
 *         size bound), -EINVAL (NULL).
 */
VPK_API int vpk_acl_build(struct vpk_acl *acl);

/**
 * Classify @p n buffers.
 *
 * results[i * categories + c] = userdata of the best rule matching data[i]
 * in category c, or 0. Categories at or above the context's num_categories
 * give 0. Never fails; preconditions (asserted in debug builds only):
 * 1 <= categories <= 16, every data[i] readable at every field's bytes.
 * Before the first successful build every result is 0.
 * Thread-safe against other classify calls and against vpk_acl_build().
 */
VPK_API void vpk_acl_classify_bulk(const struct vpk_acl *acl, const uint8_t *const *data,
				   uint32_t *results, uint32_t n, uint32_t categories);

/**
 * Switch the classify variant (as vpk_fib_select()): by variant name
 * "scalar", "sse42", "avx2", "avx512x16" (AVX-512VL on 256-bit registers),
 * "avx512x32" (512-bit), by level name, or "auto". Also accepts DPDK's "sse"
 * for sse42. Level avx512 (here or in conf.isa) is avx512x32 under a
 * 512-bit cap and avx512x16 under a 256-bit one; a variant name forces one.
 * Must not race with classify calls on other threads.
 * @return 0, -EINVAL (NULL @p acl, unknown name), -ENOTSUP (not usable here
 *         or above the cap).
 */
VPK_API int vpk_acl_select(struct vpk_acl *acl, const char *variant);

/**
 * vpk_acl_classify_bulk() with the variant @p impl for this call only (as
 * DPDK's rte_acl_classify_alg()); the context's own variant is unchanged.
 * Same results and preconditions as vpk_acl_classify_bulk(), and as it
 * thread-safe against other classify calls and vpk_acl_build() (it does not
 * write the context). Checks @p impl on each call: a loop over the few
 * entries of vpk_acl_impls() and the usability test of vpk_impl_why_not().
 * @param impl  An entry of vpk_acl_impls().
 * @return 0, -EINVAL (NULL @p acl or @p impl, or @p impl not an entry of
 *         vpk_acl_impls()), -ENOTSUP (@p impl cannot run here: CPU, OS or
 *         above the cap); the reason is in vpk_last_error(), nothing classified.
 */
VPK_API int vpk_acl_classify_bulk_impl(const struct vpk_acl *acl, const struct vpk_impl *impl,
				       const uint8_t *const *data, uint32_t *results, uint32_t n,
				       uint32_t categories);

/** Name of the variant in use. */
VPK_API const char *vpk_acl_impl_name(const struct vpk_acl *acl);

/** The classify variants, best first, NULL-terminated (for tools and tests). */
VPK_API const struct vpk_impl *const *vpk_acl_impls(void);

/** Why vpk_acl_build() made a full build where an incremental one was possible. */
enum vpk_acl_fallback {
	VPK_ACL_FALLBACK_NONE = 0,      /**< incremental, or nothing to apply incrementally */
	VPK_ACL_FALLBACK_SIZE,          /**< extra tree would exceed 1024 rules (added + hidden by deleted ones) */
	VPK_ACL_FALLBACK_RANKS,         /**< no free rank between existing ones for an added rule */
	VPK_ACL_FALLBACK_TREES,         /**< too many trees in one runtime */
	VPK_ACL_FALLBACK_MEMORY,        /**< allocation failed or max_size reached for the extra tree */
};

/** Figures about the current runtime and its build. */
struct vpk_acl_stats {
	uint32_t rules;                 /**< rules in the runtime */
	uint32_t trees;                 /**< decision trees (rule partitions) */
	uint32_t nodes;                 /**< inner nodes, all trees */
	uint32_t leaves;                /**< leaves, all trees */
	uint32_t max_depth;             /**< deepest leaf */
	uint64_t leaf_rules;            /**< rule copies stored in leaves */
	size_t runtime_bytes;           /**< memory of the runtime */
	size_t build_peak_bytes;        /**< peak heap bytes used by the build */
	uint64_t build_ns;              /**< wall time of the build */
	uint32_t incremental;           /**< 1: built over the last full build (see "Updates") */
	uint32_t update_rules;          /**< rules in the extra trees (added, or hidden by deleted ones) */
	uint32_t deleted_rules;         /**< rules deleted since the last full build, skipped on a match */
	uint32_t fallback;              /**< enum vpk_acl_fallback (full builds) */
};

/** Fill @p st (zeros before the first build). @return 0 or -EINVAL (NULL). */
VPK_API int vpk_acl_get_stats(const struct vpk_acl *acl, struct vpk_acl_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* VPK_ACL_H */
