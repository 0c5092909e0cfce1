/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_BUF_H
#define VPK_BUF_H

/**
 * @file
 * Packet buffers and buffer pools.
 *
 * A pool is one contiguous, 64-byte aligned array of fixed-size buffers.
 * A buffer is named by a 32-bit index: its byte offset from the pool base
 * shifted right by 6 (VPP's scheme), so 16 indices fit one 512-bit register
 * and index -> pointer is one shift and one add.
 *
 *    pool base                                            stride = 64 + 128 + data_size
 *    |<- 64 B ->|<---- 128 B ---->|<------- data_size ------->|   (rounded up to 64)
 *    +----------+-----------------+---------------------------+----------+---
 *    | vpk_buf  |    headroom     |      packet data ...      | vpk_buf  | ...
 *    | metadata | (encapsulation) |                           |          |
 *    +----------+-----------------+---------------------------+----------+---
 *               ^ vpk_buf_area(b)  ^ vpk_buf_data(b) when data_off == VPK_BUF_HEADROOM
 *
 * Control plane: create/destroy are not thread-safe against other calls on
 * the same pool. Data plane: vpk_pool_alloc_burst() and vpk_pool_free_bulk()
 * may be called from any number of threads at once; each thread uses its own
 * cache (up to conf.cache_size buffers) in front of the shared free list.
 * The cache is found through thread-local storage, so callers pass nothing;
 * when a thread exits its cache is flushed back to the pool automatically.
 * Accounting is exact: vpk_pool_in_use() counts buffers handed out and not
 * yet freed; a buffer sitting in any thread's cache counts as free.
 * A thread sees the pool exhausted when its own cache and the shared list
 * are empty: buffers cached by other threads are free but out of its reach,
 * so size pools with n_threads * cache_size of slack (as with DPDK mempools).
 * docs/buffers.md describes the design.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vpk/isa.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes between the metadata line and the default start of packet data. */
#define VPK_BUF_HEADROOM 128u
/** Default packet data bytes per buffer. */
#define VPK_BUF_DATA_SIZE 2048u
/** Index shift: buffer index = (buffer address - pool base) >> VPK_BUF_SHIFT. */
#define VPK_BUF_SHIFT 6u
/** "No buffer": end of a chain, empty slot. */
#define VPK_BUF_NONE UINT32_MAX

/** Buffer flags. */
#define VPK_BUF_F_NEXT_VALID  (1u << 0)  /**< vpk_buf::next names the next buffer of a chain. */
#define VPK_BUF_F_TRACE       (1u << 1)  /**< Record this packet's path through the graph. */
#define VPK_BUF_F_L4_CSUM_OK  (1u << 2)  /**< L4 checksum verified. */
/** An IP fragment (IPv4 MF or offset != 0; IPv6 Fragment header other than an
 *  atomic one, RFC 6946). Set by ip4-input / ip6-input. */
#define VPK_BUF_F_FRAG        (1u << 3)
/** A non-first fragment: vpk_buf::l4_off points at fragment payload, not at
 *  an L4 header, so the packet has no ports. Set with VPK_BUF_F_FRAG. */
#define VPK_BUF_F_FRAG_LATER  (1u << 4)
/** An inner frame a tunnel decapsulated: not checked against the port's L2 address and tags. */
#define VPK_BUF_F_INNER       (1u << 5)

/**
 * Buffer metadata: exactly one 64-byte cache line, followed by the headroom
 * and the data area.
 */
struct vpk_buf {
	uint16_t data_off;      /**< Offset of the first data byte from vpk_buf_area(); starts at VPK_BUF_HEADROOM. */
	uint16_t len;           /**< Packet bytes in this buffer, from data_off. */
	uint16_t flags;         /**< VPK_BUF_F_*. */
	uint16_t error;         /**< Drop reason: a node's error code (graph-wide id), 0 = none. */
	uint32_t rx_if;         /**< Interface the packet came in on. */
	uint32_t tx_if;         /**< Interface it is to leave on (set by lookup/rewrite). */
	uint32_t next;          /**< Next buffer of a chain, or VPK_BUF_NONE. */
	uint32_t total_len;     /**< Bytes in the whole chain (== len for one buffer). */
	uint16_t l2_off;        /**< Offset of the L2 header from vpk_buf_area(). */
	uint16_t l3_off;        /**< Offset of the L3 header from vpk_buf_area(). */
	uint16_t l4_off;        /**< Offset of the L4 header from vpk_buf_area(). */
	uint8_t l4_proto;       /**< Upper-layer protocol at l4_off (IPv4 protocol; IPv6: the
				     next header after the extension headers). Set by ip4/ip6-input. */
	uint8_t l3_n_ext;       /**< IPv6 extension headers between l3_off and l4_off. */
	uint32_t flow_hash;     /**< RSS-style hash of the 5-tuple, 0 if not computed. */
	uint32_t adj;           /**< Next hop / adjacency chosen by a lookup node. */
	uint32_t trace_id;      /**< Number of the traced packet when VPK_BUF_F_TRACE is set. */
	uint8_t opaque[20];     /**< Per-node scratch (tunnel index, ACL result, ...). */
};

#ifdef __cplusplus
static_assert(sizeof(struct vpk_buf) == 64, "struct vpk_buf must be one cache line");
#else
_Static_assert(sizeof(struct vpk_buf) == 64, "struct vpk_buf must be one cache line");
#endif

/** Start of the headroom + data area of @p b (the byte after the metadata line). */
static inline uint8_t *
vpk_buf_area(struct vpk_buf *b)
{
	return (uint8_t *)(b + 1);
}

/** First packet byte of @p b. */
static inline uint8_t *
vpk_buf_data(struct vpk_buf *b)
{
	return vpk_buf_area(b) + b->data_off;
}

struct vpk_pool;                        /* opaque */

/** Pool parameters. Zero-initialise, then set what you need. */
struct vpk_pool_conf {
	const char *name;       /**< For messages; copied. NULL: "pool". */
	uint32_t n_bufs;        /**< Buffers in the pool, >= 1. */
	uint32_t data_size;     /**< Data bytes per buffer after the headroom; 0: VPK_BUF_DATA_SIZE. Max 65535 - VPK_BUF_HEADROOM. */
	uint32_t cache_size;    /**< Per-thread cache capacity in buffers; 0: no caches. Max 4096. */
	void *mem;              /**< Optional caller memory (e.g. an AF_XDP UMEM), 64-byte aligned; NULL: the pool allocates. */
	size_t mem_len;         /**< Bytes at @p mem; must hold n_bufs * stride. */
	enum vpk_isa isa;       /**< Variant of the bulk kernels (index<->pointer); VPK_ISA_AUTO: best usable. */
};

/**
 * Create a pool. Every buffer starts free with data_off = VPK_BUF_HEADROOM,
 * len = 0, next = VPK_BUF_NONE, all other metadata 0 (written at create time,
 * also into caller memory).
 * @param conf  Parameters; not retained (the name is copied).
 * @param[out] out  The new pool; untouched on failure.
 * @return 0, -EINVAL (NULL argument, or bad @p conf: n_bufs 0, data_size or
 *         cache_size too large, isa out of range, mem not 64-byte aligned,
 *         mem_len below n_bufs * stride, mem_len set without mem, or the last
 *         buffer's index would not fit below VPK_BUF_NONE), -ENOMEM, or
 *         -ENOTSUP (conf->isa cannot run here: see vpk_buf_kernels_get()).
 */
VPK_API int vpk_pool_create(const struct vpk_pool_conf *conf, struct vpk_pool **out);

/** Destroy @p pool (NULL: no-op). Buffers still in use are simply gone. */
VPK_API void vpk_pool_destroy(struct vpk_pool *pool);

/**
 * Allocate up to @p n buffers, their metadata reset to the initial state
 * (see vpk_pool_create(); the headroom and data are not touched).
 * Never fails; arguments are not validated.
 * @return How many were allocated (< n only when the calling thread's cache
 *         and the shared free list hold fewer than n buffers); idx[0..ret)
 *         are valid, idx[ret..n) untouched. Nothing else changes when the
 *         pool is exhausted.
 */
VPK_API uint32_t vpk_pool_alloc_burst(struct vpk_pool *pool, uint32_t *idx, uint32_t n);

/**
 * Return @p n buffers to the pool. Not validated in release builds; debug
 * builds (VPK_DEBUG) abort on an index out of range or a double free.
 */
VPK_API void vpk_pool_free_bulk(struct vpk_pool *pool, const uint32_t *idx, uint32_t n);

/**
 * Move the calling thread's cached free buffers of @p pool back to the shared
 * free list, so other threads can allocate them (e.g. before a thread goes
 * idle for long). Optional: thread exit does this automatically. Does not
 * change vpk_pool_in_use().
 */
VPK_API void vpk_pool_cache_flush(struct vpk_pool *pool);

/**
 * Buffers allocated and not yet freed, over all threads (including threads
 * that have exited). Exact when no alloc/free runs concurrently; takes a
 * process-wide lock, so it is meant for stats and checks, not per packet.
 */
VPK_API uint32_t vpk_pool_in_use(const struct vpk_pool *pool);

/** Total buffers in the pool. */
VPK_API uint32_t vpk_pool_size(const struct vpk_pool *pool);

/** Data bytes per buffer (after the headroom). */
VPK_API uint32_t vpk_pool_data_size(const struct vpk_pool *pool);

/** Address of buffer index 0's metadata (the pool base). */
VPK_API void *vpk_pool_base(const struct vpk_pool *pool);

/** Variant of the bulk kernels chosen at create time. */
VPK_API const char *vpk_pool_impl_name(const struct vpk_pool *pool);

/** The pool's name (conf.name, or "pool"). */
VPK_API const char *vpk_pool_name(const struct vpk_pool *pool);

/** Pointer to buffer @p idx of the pool whose base is @p base. */
static inline struct vpk_buf *
vpk_buf_from_idx(void *base, uint32_t idx)
{
	return (struct vpk_buf *)((uint8_t *)base + ((uintptr_t)idx << VPK_BUF_SHIFT));
}

/** Index of buffer @p b in the pool whose base is @p base. */
static inline uint32_t
vpk_buf_to_idx(const void *base, const struct vpk_buf *b)
{
	return (uint32_t)(((uintptr_t)b - (uintptr_t)base) >> VPK_BUF_SHIFT);
}

/**
 * Convert @p n buffer indices to pointers with the pool's chosen variant
 * (the graph does this for every frame). Not validated.
 */
VPK_API void vpk_pool_idx_to_ptr_bulk(const struct vpk_pool *pool, const uint32_t *idx,
			      struct vpk_buf **ptrs, size_t n);

/** Convert @p n buffer pointers back to indices. Not validated. */
VPK_API void vpk_pool_ptr_to_idx_bulk(const struct vpk_pool *pool, struct vpk_buf *const *ptrs,
			      uint32_t *idx, size_t n);

/** Function types of the index<->pointer kernels, for callers that pick a variant themselves. */
typedef void (*vpk_buf_idx_to_ptr_fn)(void *base, const uint32_t *idx,
				      struct vpk_buf **ptrs, size_t n);
typedef void (*vpk_buf_ptr_to_idx_fn)(const void *base, struct vpk_buf *const *ptrs,
				      uint32_t *idx, size_t n);

/**
 * Get the index<->pointer kernels of level @p isa (VPK_ISA_AUTO: best usable).
 * @return 0, -EINVAL (NULL out-argument), or -ENOTSUP.
 */
VPK_API int vpk_buf_kernels_get(enum vpk_isa isa, vpk_buf_idx_to_ptr_fn *to_ptr,
			vpk_buf_ptr_to_idx_fn *to_idx, const struct vpk_impl **impl);

#ifdef __cplusplus
}
#endif

#endif /* VPK_BUF_H */
