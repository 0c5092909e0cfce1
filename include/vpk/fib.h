/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_FIB_H
#define VPK_FIB_H

/**
 * @file
 * IPv4 FIB: longest-prefix match from an IPv4 address to a next hop, with
 * DPDK rte_fib (22.11) semantics.
 *
 *  - Routes are (prefix, length 0..32, next hop). Host bits beyond the length
 *    are cleared. /0 is a normal route: it then answers for every address no
 *    longer route covers, instead of the default next hop.
 *  - Adding an existing prefix replaces its next hop. Deleting a prefix makes
 *    its range fall back to the covering route's next hop, or the default.
 *  - Lookups return a 64-bit next hop for every address (the default next hop
 *    when nothing matches; there is no miss flag). Addresses are in host byte
 *    order, as rte_fib_lookup_bulk() takes them.
 *  - A control-plane RIB (path-compressed binary trie) holds every route; a
 *    dataplane structure answers lookups. The dataplane is DIR-24-8
 *    (`VPK_FIB_DIR24_8`, the layout of rte_fib): a 2^24-entry table on the top
 *    24 bits plus 256-entry "tbl8" groups for /24 blocks holding longer
 *    routes. Entries are 1, 2, 4 or 8 bytes; one bit flags a group index, so
 *    the largest next hop is 2^(8*nh_size-1) - 1.
 *
 * Errors: control-plane calls return 0 or a negative errno and never print.
 * lookup_bulk never fails and does not validate its arguments (asserted in
 * debug builds).
 *
 * Thread safety: one writer (add/del/free) at a time. vpk_fib_lookup_bulk()
 * may run concurrently on other threads: entries are written with single
 * atomic stores and a tbl8 group is filled before the store that publishes
 * it, so a reader sees either the old or the new next hop. By default freed
 * groups return to the free pool at once (as in rte_fib 22.11): a reader that
 * loaded a group index just before the group was folded back and reused for
 * another /24 could read that /24's next hop. For lock-free readers turn on
 * vpk_fib_set_deferred_free() and call vpk_fib_reclaim() after every reader
 * has passed a quiescent state (the caller's RCU/QSBR/epoch scheme).
 * VPK_FIB_BM16 too: a changed compressed node is built aside and published
 * by one atomic store, a flat (dense) node changes entry by entry with
 * atomic stores; the nodes replaced are freed at once, or parked by deferred
 * freeing until vpk_fib_reclaim() (they do not count against num_tbl8).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vpk/isa.h>
#include <vpk/qsbr.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque FIB object. */
struct vpk_fib;

/** Dataplane layouts. */
enum vpk_fib_type {
	VPK_FIB_TYPE_DEFAULT = 0,   /**< The best layout for the entry width: VPK_FIB_DIR24_8, except
				         VPK_FIB_BM16 at 1-byte next hops (docs/fib.md). */
	VPK_FIB_DIR24_8,            /**< rte_fib's DIR-24-8: 2^24 tbl24 + 256-entry tbl8 groups. */
	VPK_FIB_BM16,               /**< Compressed: 2^16 direct table + popcount-compressed /24 and
				         /32 nodes, dense ones flat (12 MiB for a full table); nh_size 1, 2 or 4.
				         The control plane keeps a DIR-24-8 copy (4-byte entries,
				         2^20 groups, mapped lazily) to derive it from. */
	VPK_FIB_TYPE_COUNT
};

/** Creation parameters (zero-initialise, then set what you need). */
struct vpk_fib_conf {
	enum vpk_fib_type type;     /**< Layout, VPK_FIB_TYPE_DEFAULT for the best. */
	unsigned nh_size;           /**< Entry width in bytes: 1, 2, 4 or 8. */
	uint32_t num_tbl8;          /**< tbl8 groups, 1..vpk_fib_max_tbl8(type, nh_size);
				         VPK_FIB_BM16 keeps no groups in its dataplane but allows as
				         many /24s holding routes longer than /24 (-ENOSPC beyond);
				         rounded up to a multiple of 64 (as rte_fib). */
	uint64_t default_nh;        /**< Next hop for addresses no route covers; <= max next hop. */
	uint32_t max_routes;        /**< Routes the RIB may hold: >= 1. */
	enum vpk_isa isa;           /**< Lookup variant level: VPK_ISA_AUTO for the best usable. */
};

/** Statistics and memory use. */
struct vpk_fib_stats {
	uint32_t routes;            /**< Routes held. */
	uint32_t tbl8_total;        /**< Groups available (after rounding). */
	uint32_t tbl8_used;         /**< Groups populated now. */
	uint32_t tbl8_reserved;     /**< /24 blocks holding routes longer than /24. */
	uint32_t tbl8_deferred;     /**< Freed groups (bm16: nodes) awaiting vpk_fib_reclaim(). */
	size_t dataplane_bytes;     /**< Bytes of lookup tables allocated (virtual). */
	size_t dataplane_touched;   /**< Bytes of lookup tables that were written (resident upper bound). */
	size_t rib_bytes;           /**< Control-plane bytes: the RIB node array, plus (VPK_FIB_BM16)
				         the touched part of its DIR-24-8 copy. */
};

/** Largest next hop an entry of @p nh_size bytes can hold (0 if the size is invalid). */
VPK_API uint64_t vpk_fib_max_nh(unsigned nh_size);

/**
 * Largest num_tbl8 a FIB of this layout and entry width accepts: DIR-24-8
 * min(max next hop, 2^23) (a group index lives in the entry), VPK_FIB_BM16
 * 2^20; VPK_FIB_TYPE_DEFAULT: the layout it stands for at @p nh_size.
 * @return the limit, or 0 for an invalid type or width (bm16 at 8 bytes).
 */
VPK_API uint32_t vpk_fib_max_tbl8(enum vpk_fib_type type, unsigned nh_size);

/**
 * Create a FIB.
 * @param conf  Parameters (see struct vpk_fib_conf).
 * @param[out] out  The new FIB.
 * @return 0; -EINVAL for a NULL argument, an unknown type, nh_size not in
 *         {1,2,4,8}, num_tbl8 == 0 or above vpk_fib_max_tbl8(), default_nh above the max
 *         next hop, max_routes == 0, isa out of range, VPK_FIB_BM16 with
 *         nh_size 8; -ENOTSUP when a
 *         forced isa has no usable lookup variant here (see vpk_impl_why_not());
 *         -ENOMEM.
 */
VPK_API int vpk_fib_create(const struct vpk_fib_conf *conf, struct vpk_fib **out);

/** Free a FIB; NULL is a no-op. */
VPK_API void vpk_fib_destroy(struct vpk_fib *fib);

/**
 * Add a route, or replace the next hop of an existing one.
 * @param ip     Prefix address, host byte order; bits beyond @p depth are ignored.
 * @param depth  Prefix length, 0..32.
 * @param nh     Next hop, <= vpk_fib_max_nh(nh_size).
 * @return 0; -EINVAL (NULL fib, depth > 32, nh too large); -ENOSPC when the
 *         route needs a tbl8 group and all are reserved (or parked, see
 *         vpk_fib_set_deferred_free()); -ENOMEM when the RIB
 *         holds max_routes routes or memory runs out. On error nothing changed.
 */
VPK_API int vpk_fib_add(struct vpk_fib *fib, uint32_t ip, uint8_t depth, uint64_t nh);

/**
 * Delete a route; its range falls back to the covering route or the default.
 * @return 0; -EINVAL (NULL fib, depth > 32); -ENOENT if the route is absent;
 *         -ENOSPC only with deferred freeing, when parked groups fill the pool.
 */
VPK_API int vpk_fib_del(struct vpk_fib *fib, uint32_t ip, uint8_t depth);

/**
 * Exact-match get of a route's next hop.
 * @return 0 and *nh set; -EINVAL (NULL argument, depth > 32); -ENOENT if absent.
 */
VPK_API int vpk_fib_get(const struct vpk_fib *fib, uint32_t ip, uint8_t depth, uint64_t *nh);

/**
 * Look up @p n addresses (host byte order) and write one next hop per
 * address. Never fails; arguments are not validated. @p ips and @p nhs may be
 * unaligned and must not overlap.
 */
VPK_API void vpk_fib_lookup_bulk(const struct vpk_fib *fib, const uint32_t *ips, uint64_t *nhs, size_t n);

/**
 * Longest-prefix match by walking the RIB: the control plane's own answer,
 * independent of the dataplane (slow; for checking a dataplane's results).
 */
VPK_API uint64_t vpk_fib_lookup_rib(const struct vpk_fib *fib, uint32_t ip);

/** Callback of vpk_fib_walk(): return non-zero to stop (vpk_fib_walk() returns it). */
typedef int (*vpk_fib_walk_fn)(void *arg, uint32_t ip, uint8_t depth, uint64_t nh);

/**
 * Call @p fn for every route, ordered by address then length.
 * The FIB must not be modified from the callback.
 * @return 0 after the last route, the callback's non-zero value if it
 *         stopped, or -EINVAL for a NULL argument.
 */
VPK_API int vpk_fib_walk(const struct vpk_fib *fib, vpk_fib_walk_fn fn, void *arg);

/** Fill @p st. @return 0 or -EINVAL (NULL argument). */
VPK_API int vpk_fib_get_stats(const struct vpk_fib *fib, struct vpk_fib_stats *st);

/** Name of the lookup variant in use ("avx512", "scalar", ...); "?" for NULL. */
VPK_API const char *vpk_fib_impl_name(const struct vpk_fib *fib);

/** The dataplane layout (never VPK_FIB_TYPE_DEFAULT, except for NULL). */
VPK_API enum vpk_fib_type vpk_fib_get_type(const struct vpk_fib *fib);

/** Name of the dataplane layout ("dir24-8", "bm16"); "?" for NULL. */
VPK_API const char *vpk_fib_type_name(const struct vpk_fib *fib);

/**
 * Switch the lookup variant (DPDK's rte_fib_select_lookup()): by variant or
 * level name ("scalar", "sse42", "avx2", "avx512", "auto").
 * Must not race with lookups on other threads.
 * @return 0; -EINVAL (NULL argument, unknown name); -ENOTSUP (known but not
 *         usable here: CPU, OS, build or cap).
 */
VPK_API int vpk_fib_select(struct vpk_fib *fib, const char *variant);

/**
 * Deferred reclamation of tbl8 groups, for lookups on other threads (the
 * "defer queue" of rte_fib's RCU support, without an RCU object): while on,
 * a group an update frees keeps its contents and is parked instead of being
 * reused; vpk_fib_reclaim() returns the parked groups to the pool. Call it
 * once every reader thread has finished the lookup_bulk calls it was in when
 * those updates ran. Parked groups count as used: an add or delete fails
 * with -ENOSPC (nothing changed) when reserved plus parked groups could
 * exceed num_tbl8; reclaim and retry. Turning it off does not reclaim.
 * @return 0 or -EINVAL (NULL fib).
 */
VPK_API int vpk_fib_set_deferred_free(struct vpk_fib *fib, bool on);

/**
 * Let the FIB reclaim by itself, with a QSBR object its reader threads
 * report to (include/vpk/qsbr.h; DPDK's rte_fib_rcu_qsbr_add): deferred
 * freeing is switched on and every update that changed the tables takes a
 * QSBR token. @p sync false (defer queue): parked groups/nodes are reclaimed
 * by a later update once all readers passed that token, without waiting;
 * an update that would fail with -ENOSPC or -ENOMEM waits for the readers,
 * reclaims and tries again. @p sync true: every update waits for the readers
 * and reclaims before it returns. @p q NULL detaches (after waiting for the
 * readers and reclaiming) and switches deferred freeing off. Readers must be
 * registered and online in @p q and call vpk_qsbr_quiescent() between
 * lookup_bulk calls; the writer must not itself be an online reader.
 * @return 0 or -EINVAL (NULL fib).
 */
VPK_API int vpk_fib_attach_qsbr(struct vpk_fib *fib, struct vpk_qsbr *q, bool sync);

/** Return parked groups (bm16: parked nodes) to the pool. @return how many (>= 0), or -EINVAL (NULL fib). */
VPK_API int vpk_fib_reclaim(struct vpk_fib *fib);

/**
 * Names of the lookup variants of a layout, best first, NULL-terminated
 * (for tools and tests that try each); VPK_FIB_TYPE_DEFAULT: DIR-24-8's
 * (the default at 2, 4 and 8 bytes).
 */
VPK_API const struct vpk_impl *const *vpk_fib_impls(enum vpk_fib_type type);

#ifdef __cplusplus
}
#endif

#endif /* VPK_FIB_H */
