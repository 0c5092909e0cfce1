/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_FIB6_H
#define VPK_FIB6_H

/**
 * @file
 * IPv6 FIB: longest-prefix match from an IPv6 address to a next hop, with
 * DPDK rte_fib6 (22.11) semantics.
 *
 *  - Routes are (prefix, length 0..128, next hop); host bits are cleared;
 *    /0 is a normal route; adding an existing prefix replaces its next hop;
 *    deleting falls back to the covering route or the default next hop.
 *  - Addresses are 16 bytes in network order, as rte_fib6_lookup_bulk()
 *    takes them; every lookup returns a 64-bit next hop.
 *  - Dataplane `VPK_FIB6_TRIE` (rte_fib6's layout): a 2^24-entry table on
 *    the first 3 bytes, then a chain of 256-entry "tbl8" groups, one per
 *    further byte (at most 13 levels). Entries are 2, 4 or 8 bytes; one bit
 *    flags a group index, so the largest next hop is 2^(8*nh_size-1) - 1.
 *  - Group accounting is exact (unlike rte_fib6 22.11, which reserves up to
 *    5.7x the groups a real table uses): an add, replace or delete that would
 *    need more groups than are free fails with -ENOSPC before anything
 *    changes. So every table rte_fib6 accepts with num_tbl8 groups is accepted
 *    with the same count, and usually with far fewer.
 *  - Dataplane `VPK_FIB6_BM6` (compressed): a 2^16-entry direct table on the
 *    first 2 bytes, then one 256-way node per further byte whose entries are
 *    stored once per run of equal entries (a 256-bit run bitmap and popcount
 *    find the entry). The RouteViews table takes about 2 MiB instead of
 *    76 MiB. It is derived from a trie kept in the control plane, so groups,
 *    -ENOSPC and answers are the trie's; an update rebuilds the changed nodes
 *    aside and publishes them with one atomic store; old nodes are recycled
 *    at once or, with deferred freeing, parked until vpk_fib6_reclaim().
 *    -ENOSPC also when the node arena (4x the worst case) is exhausted by
 *    parked nodes.
 *
 * Errors and threads: as vpk/fib.h (0/-errno, never prints; one writer;
 * lookups on other threads see the old or the new next hop; freed groups are
 * reused at once unless vpk_fib6_set_deferred_free() parks them until
 * vpk_fib6_reclaim()).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vpk/isa.h>
#include <vpk/qsbr.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque IPv6 FIB. */
struct vpk_fib6;

/** Dataplane layouts. */
enum vpk_fib6_type {
	VPK_FIB6_TYPE_DEFAULT = 0,  /**< The best layout: bm6 at every next-hop width. */
	VPK_FIB6_TRIE,              /**< rte_fib6's tbl24 + chained tbl8 groups. */
	VPK_FIB6_BM6,               /**< 2^16 direct table + popcount-compressed byte nodes (a few MiB). */
	VPK_FIB6_TYPE_COUNT
};

/** Creation parameters (zero-initialise, then set what you need). */
struct vpk_fib6_conf {
	enum vpk_fib6_type type;    /**< Layout, VPK_FIB6_TYPE_DEFAULT for the best. */
	unsigned nh_size;           /**< Entry width in bytes: 2, 4 or 8. */
	uint32_t num_tbl8;          /**< tbl8 groups: 1 .. min(max next hop, 2^23). */
	uint64_t default_nh;        /**< Next hop when no route covers; <= max next hop. */
	uint32_t max_routes;        /**< Routes the RIB may hold: >= 1. */
	enum vpk_isa isa;           /**< Lookup variant level: VPK_ISA_AUTO for the best usable. */
};

/** Statistics and memory use. */
struct vpk_fib6_stats {
	uint32_t routes;            /**< Routes held. */
	uint32_t tbl8_total;        /**< Groups available. */
	uint32_t tbl8_used;         /**< Groups populated now. */
	uint32_t tbl8_deferred;     /**< Freed groups (BM6: nodes) awaiting vpk_fib6_reclaim(). */
	size_t dataplane_bytes;     /**< Bytes of lookup tables allocated (virtual). */
	size_t dataplane_touched;   /**< Bytes of lookup tables written (resident upper bound). */
	size_t rib_bytes;           /**< Bytes of the RIB node array (BM6: plus its trie copy). */
};

/** Largest next hop of @p nh_size-byte entries (2, 4, 8); 0 for other sizes. */
VPK_API uint64_t vpk_fib6_max_nh(unsigned nh_size);

/**
 * Create an IPv6 FIB.
 * @return 0; -EINVAL (NULL argument, unknown type, nh_size not 2/4/8,
 *         num_tbl8 0 or too large, default_nh too large, max_routes 0, isa out
 *         of range); -ENOTSUP (forced isa not usable here); -ENOMEM.
 */
VPK_API int vpk_fib6_create(const struct vpk_fib6_conf *conf, struct vpk_fib6 **out);

/** Free; NULL is a no-op. */
VPK_API void vpk_fib6_destroy(struct vpk_fib6 *fib);

/**
 * Add a route or replace its next hop.
 * @param ip     16 bytes, network order; bits beyond @p depth are ignored.
 * @param depth  0..128.
 * @return 0; -EINVAL (NULL argument, depth > 128, nh too large); -ENOSPC
 *         (not enough free tbl8 groups); -ENOMEM (max_routes reached or out
 *         of memory). On error nothing changed.
 */
VPK_API int vpk_fib6_add(struct vpk_fib6 *fib, const uint8_t ip[16], uint8_t depth, uint64_t nh);

/**
 * Delete a route.
 * @return 0; -EINVAL (NULL argument, depth > 128); -ENOENT (absent);
 *         -ENOSPC (rare: the fallback next hop splits a range that groups
 *         had merged, and no group is free). On error nothing changed.
 */
VPK_API int vpk_fib6_del(struct vpk_fib6 *fib, const uint8_t ip[16], uint8_t depth);

/** Exact-match get. @return 0 and *nh; -EINVAL; -ENOENT. */
VPK_API int vpk_fib6_get(const struct vpk_fib6 *fib, const uint8_t ip[16], uint8_t depth, uint64_t *nh);

/**
 * Look up @p n addresses (16 bytes each, network order, any alignment) and
 * write one next hop each. Never fails; arguments are not validated.
 */
VPK_API void vpk_fib6_lookup_bulk(const struct vpk_fib6 *fib, const uint8_t (*ips)[16], uint64_t *nhs, size_t n);

/** Longest-prefix match by walking the RIB, as vpk_fib_lookup_rib(). */
VPK_API uint64_t vpk_fib6_lookup_rib(const struct vpk_fib6 *fib, const uint8_t ip[16]);

/** Callback of vpk_fib6_walk(): non-zero stops the walk. */
typedef int (*vpk_fib6_walk_fn)(void *arg, const uint8_t ip[16], uint8_t depth, uint64_t nh);

/** Every route in (address, length) order. @return 0, the callback's non-zero value, or -EINVAL. */
VPK_API int vpk_fib6_walk(const struct vpk_fib6 *fib, vpk_fib6_walk_fn fn, void *arg);

/** @return 0 or -EINVAL. */
VPK_API int vpk_fib6_get_stats(const struct vpk_fib6 *fib, struct vpk_fib6_stats *st);

/** Lookup variant in use; "?" for NULL. */
VPK_API const char *vpk_fib6_impl_name(const struct vpk_fib6 *fib);

/** Layout in use: "trie" or "bm6"; "?" for NULL. */
VPK_API const char *vpk_fib6_type_name(const struct vpk_fib6 *fib);

/**
 * Switch the lookup variant by name ("scalar", "avx2", "avx512", "auto").
 * Must not race with lookups. @return 0, -EINVAL, -ENOTSUP.
 */
VPK_API int vpk_fib6_select(struct vpk_fib6 *fib, const char *variant);

/**
 * Deferred reclamation for lookups on other threads, as vpk_fib_set_deferred_free():
 * freed groups are parked (contents kept) until vpk_fib6_reclaim(); parked
 * groups are not free, so updates may fail with -ENOSPC until reclaimed.
 * @return 0 or -EINVAL.
 */
VPK_API int vpk_fib6_set_deferred_free(struct vpk_fib6 *fib, bool on);

/** Return parked groups (BM6: parked nodes) to the pool. @return how many, or -EINVAL. */
VPK_API int vpk_fib6_reclaim(struct vpk_fib6 *fib);

/** QSBR-driven reclamation, as vpk_fib_attach_qsbr(). @return 0 or -EINVAL. */
VPK_API int vpk_fib6_attach_qsbr(struct vpk_fib6 *fib, struct vpk_qsbr *q, bool sync);

/** Lookup variants of a layout (VPK_FIB6_TYPE_DEFAULT: bm6's), best first, NULL-terminated; NULL for an unknown type. */
VPK_API const struct vpk_impl *const *vpk_fib6_impls(enum vpk_fib6_type type);

#ifdef __cplusplus
}
#endif

#endif /* VPK_FIB6_H */
