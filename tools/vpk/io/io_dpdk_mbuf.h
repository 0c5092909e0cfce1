/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_IO_DPDK_MBUF_H
#define VPK_TOOL_IO_DPDK_MBUF_H

/*
 * One mbuf per vpk pool buffer, for the dpdk port backend (io_dpdk.c): only
 * in sources compiled with DPDK's flags (VPK_HAVE_DPDK).
 *
 * Mbuf k is bound for life to pool buffer k: its data area is that buffer's
 * (at vpk's headroom), so a frame never changes
 * buffer between the device and vpk. The mempool's free list IS the vpk
 * pool's: the mempool driver "vpk_pool" (and no mempool cache) turns
 * dequeues into vpk_pool_alloc_burst() and enqueues into vpk_pool_free_bulk().
 * A buffer is therefore in exactly one place: free in the vpk pool, in a
 * device's rings, or with vpk's caller, and:
 *  - rx hands the frame's buffer on and forgets the mbuf (it stays bound);
 *  - tx takes the buffer's mbuf (dpdk_mbuf_of()) and gives it to the device,
 *    whose free puts the buffer back in the vpk pool;
 *  - a caller freeing a received buffer with vpk_pool_free_bulk() frees its
 *    mbuf too. Per packet there is no allocation beyond the device's own.
 */
#include <stdint.h>

#include <vpk/buf.h>
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#include <rte_mbuf.h>
#include <rte_mempool.h>
#pragma GCC diagnostic pop

struct dpdk_mbufs {
	struct vpk_pool *pool;
	uint8_t *base;                  /* pool base */
	uint32_t n;                     /* buffers (= mbufs) */
	uint32_t idx_stride;            /* index step between buffers */
	uint64_t recip;                 /* ceil(2^32 / idx_stride): buffer number without a division */
	size_t mem_len;                 /* bytes of pool memory, page-rounded (extmem registration) */
	bool registered;                /* rte_extmem_register() accepted the pool memory */
	bool ready;                     /* populated: enqueues are frees from now on */
	unsigned users;
	struct rte_mempool *mp;
	struct rte_mbuf **of;           /* mbuf of buffer number k */
};

/*
 * The mbufs of @pool (created on first use, then shared by every port on
 * it; each call takes a reference). NULL with the reason in @err.
 */
struct dpdk_mbufs *dpdk_mbufs_get(struct vpk_pool *pool, int socket, char *err, size_t len);
/* Drop a reference; the last frees the mempool (every mbuf must be home). */
void dpdk_mbufs_put(struct dpdk_mbufs *mb);

/*
 * Map the pool memory for @dev's DMA (rte_dev_dma_map), what a PCI NIC
 * needs to write into pool buffers. 0, or -ENOTSUP where the device's bus
 * does not map memory (virtual devices: they copy with the CPU).
 */
int dpdk_mbufs_dma_map(struct dpdk_mbufs *mb, struct rte_device *dev);
void dpdk_mbufs_dma_unmap(struct dpdk_mbufs *mb, struct rte_device *dev);

/* The mbuf bound to pool buffer @idx. */
static inline struct rte_mbuf *
dpdk_mbuf_of(const struct dpdk_mbufs *mb, uint32_t idx)
{
	return mb->of[((uint64_t)idx * mb->recip) >> 32];
}

/* The pool buffer index of a bound mbuf. */
static inline uint32_t
dpdk_mbuf_idx(const struct dpdk_mbufs *mb, const struct rte_mbuf *m)
{
	return vpk_buf_to_idx(mb->base, (const struct vpk_buf *)m->buf_addr - 1);
}

#endif
