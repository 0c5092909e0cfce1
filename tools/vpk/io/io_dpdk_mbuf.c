/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mbufs of a vpk pool (io_dpdk_mbuf.h): a DPDK mempool whose objects are
 * mbufs bound one to one to the pool's buffers and whose free list is the
 * vpk pool itself, through the mempool driver "vpk_pool" registered here.
 *
 * The pool memory is also registered with DPDK as external memory
 * (rte_extmem_register), which rte_dev_dma_map() requires before it maps the
 * memory into a device's IOMMU domain. IOVA: the virtual address, so this
 * serves IOVA-as-VA mode (VFIO with an IOMMU, and every virtual device);
 * physical addressing (IOVA as PA, no IOMMU) would need each page's physical
 * address, which is not done.
 */
#ifdef VPK_HAVE_DPDK
#define ALLOW_EXPERIMENTAL_API
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_memory.h>
#pragma GCC diagnostic pop

#include "io/io_dpdk_mbuf.h"

#define OPS_NAME "vpk_pool"
#define MAX_POOLS 4
#define CHUNK 64u
#define MBUF_CACHE 256u               /* indices converted per step of an enqueue / dequeue */

static struct dpdk_mbufs *maps[MAX_POOLS];
static bool ops_registered;

static int
ops_alloc(struct rte_mempool *mp)
{
	mp->pool_data = mp->pool_config;
	return 0;
}

static void
ops_free(struct rte_mempool *mp)
{
	mp->pool_data = NULL;
}

/* Mbufs going home: their buffers go back to the vpk pool. */
static int
ops_enqueue(struct rte_mempool *mp, void *const *obj, unsigned n)
{
	struct dpdk_mbufs *mb = mp->pool_data;
	uint32_t idx[CHUNK];

	if (!mb->ready)                 /* populate: the buffers are already free in the vpk pool */
		return 0;
	for (unsigned done = 0; done < n;) {
		unsigned k = n - done < CHUNK ? n - done : CHUNK;

		for (unsigned i = 0; i < k; i++)
			idx[i] = dpdk_mbuf_idx(mb, obj[done + i]);
		vpk_pool_free_bulk(mb->pool, idx, k);
		done += k;
	}
	return 0;
}

/* All @n or none (the mempool contract). */
static int
ops_dequeue(struct rte_mempool *mp, void **obj, unsigned n)
{
	struct dpdk_mbufs *mb = mp->pool_data;
	uint32_t idx[CHUNK];
	unsigned done = 0;

	if (!mb->ready)                 /* rte_mempool_free purging its objects: they are not the pool's */
		return 0;
	while (done < n) {
		unsigned k = n - done < CHUNK ? n - done : CHUNK;
		uint32_t got = vpk_pool_alloc_burst(mb->pool, idx, k);

		for (uint32_t i = 0; i < got; i++)
			obj[done + i] = dpdk_mbuf_of(mb, idx[i]);
		done += got;
		if (got < k)
			break;
	}
	if (done == n)
		return 0;
	(void)ops_enqueue(mp, obj, done);
	return -ENOBUFS;
}

static unsigned
ops_get_count(const struct rte_mempool *mp)
{
	const struct dpdk_mbufs *mb = mp->pool_data;

	return vpk_pool_size(mb->pool) - vpk_pool_in_use(mb->pool);
}

static const struct rte_mempool_ops vpk_pool_ops = {
	.name = OPS_NAME, .alloc = ops_alloc, .free = ops_free, .enqueue = ops_enqueue,
	.dequeue = ops_dequeue, .get_count = ops_get_count,
};

/*
 * rte_mempool_obj_iter: object @i becomes the mbuf of pool buffer @i. A
 * direct mbuf (no RTE_MBUF_F_EXTERNAL) whose buffer address is simply set
 * elsewhere: nothing in the rx, tx and free paths reads where a direct
 * mbuf's buffer is, and freeing a pinned external one costs the driver a
 * detach call per packet (a quarter of net_null's work). Not for cloning
 * into this pool (rte_pktmbuf_attach/detach would reset the address).
 */
static void
bind_mbuf(struct rte_mempool *mp, void *opaque, void *obj, unsigned i)
{
	struct dpdk_mbufs *mb = opaque;
	struct rte_mbuf *m = obj;
	uint8_t *a = vpk_buf_area(vpk_buf_from_idx(mb->base, i * mb->idx_stride));

	memset(m, 0, sizeof(*m));
	m->buf_addr = a;
	m->buf_iova = (rte_iova_t)(uintptr_t)a;
	m->buf_len = (uint16_t)(VPK_BUF_HEADROOM + vpk_pool_data_size(mb->pool));
	m->data_off = VPK_BUF_HEADROOM;
	m->pool = mp;
	m->nb_segs = 1;
	m->port = RTE_MBUF_PORT_INVALID;
	rte_mbuf_refcnt_set(m, 1);
	mb->of[i] = m;
}

/* Buffer geometry: the index step is (64 + headroom + data size) rounded up to 64, over 64. */
static int
geometry(struct dpdk_mbufs *mb, char *err, size_t len)
{
	uint32_t stride = (64u + VPK_BUF_HEADROOM + vpk_pool_data_size(mb->pool) + 63u) & ~63u;
	long pg = sysconf(_SC_PAGESIZE);
	uint32_t probe;

	mb->base = vpk_pool_base(mb->pool);
	mb->n = vpk_pool_size(mb->pool);
	mb->idx_stride = stride >> 6;
	mb->recip = ((1ull << 32) + mb->idx_stride - 1) / mb->idx_stride;
	mb->mem_len = ((size_t)mb->n * stride + (size_t)pg - 1) & ~((size_t)pg - 1);
	/* Check the geometry on a real buffer: its index must be a multiple of the step. */
	if (vpk_pool_alloc_burst(mb->pool, &probe, 1) == 1) {
		vpk_pool_free_bulk(mb->pool, &probe, 1);
		if (probe % mb->idx_stride != 0 || probe / mb->idx_stride >= mb->n) {
			snprintf(err, len, "dpdk: pool '%s': buffer index %u does not fit a step of %u",
				 vpk_pool_name(mb->pool), probe, mb->idx_stride);
			return -EINVAL;
		}
	}
	if (VPK_BUF_HEADROOM + vpk_pool_data_size(mb->pool) > UINT16_MAX || RTE_PKTMBUF_HEADROOM != VPK_BUF_HEADROOM) {
		snprintf(err, len, "dpdk: pool '%s': buffers of %u data bytes cannot back mbufs",
			 vpk_pool_name(mb->pool), vpk_pool_data_size(mb->pool));
		return -EINVAL;
	}
	return 0;
}

static int
create(struct dpdk_mbufs *mb, int socket, char *err, size_t len)
{
	struct rte_pktmbuf_pool_private priv = {
		.mbuf_data_room_size = (uint16_t)(VPK_BUF_HEADROOM + vpk_pool_data_size(mb->pool)),
		.mbuf_priv_size = 0,
	};
	char name[RTE_MEMPOOL_NAMESIZE];
	int rc;

	if (!ops_registered) {
		if (rte_mempool_register_ops(&vpk_pool_ops) < 0) {
			snprintf(err, len, "dpdk: cannot register the vpk_pool mempool driver");
			return -ENOMEM;
		}
		ops_registered = true;
	}
	rc = geometry(mb, err, len);
	if (rc != 0)
		return rc;
	mb->of = calloc(mb->n, sizeof(*mb->of));
	snprintf(name, sizeof(name), "vpk_%p", (void *)mb->pool);
	/* A per-lcore cache as testpmd's pool has (250): a driver freeing one
	 * mbuf at a time then costs a store, not a call into the vpk pool. */
	mb->mp = mb->of == NULL ? NULL : rte_mempool_create_empty(name, mb->n, sizeof(struct rte_mbuf),
								     MBUF_CACHE, sizeof(priv), socket, 0);
	if (mb->mp == NULL) {
		snprintf(err, len, "dpdk: %u mbufs for pool '%s': %s", mb->n, vpk_pool_name(mb->pool),
			 mb->of == NULL ? "out of memory" : rte_strerror(rte_errno));
		return -ENOMEM;
	}
	rc = rte_mempool_set_ops_byname(mb->mp, OPS_NAME, mb);
	if (rc == 0) {
		rte_pktmbuf_pool_init(mb->mp, &priv);
		rc = rte_mempool_populate_default(mb->mp);
		rc = rc < 0 ? rc : (unsigned)rc == mb->n ? 0 : -ENOMEM;
	}
	if (rc != 0) {
		snprintf(err, len, "dpdk: %u mbufs for pool '%s' (try a larger EAL -m): %s", mb->n,
			 vpk_pool_name(mb->pool), strerror(-rc));
		return rc;
	}
	(void)rte_mempool_obj_iter(mb->mp, bind_mbuf, mb);
	mb->ready = true;
	/* External memory, so devices can map it for DMA (IOVA unknown: VA mode only). */
	mb->registered = rte_extmem_register(mb->base, mb->mem_len, NULL, 0, (size_t)sysconf(_SC_PAGESIZE)) == 0;
	return 0;
}

static void
destroy(struct dpdk_mbufs *mb)
{
	if (mb->registered)
		(void)rte_extmem_unregister(mb->base, mb->mem_len);
	if (mb->mp != NULL) {
		/* What the lcores' caches hold goes back to the vpk pool first. */
		for (unsigned i = 0; mb->ready && i < RTE_MAX_LCORE; i++)
			if (rte_mempool_default_cache(mb->mp, i) != NULL)
				rte_mempool_cache_flush(rte_mempool_default_cache(mb->mp, i), mb->mp);
		mb->ready = false;      /* freeing the objects must not free their buffers */
		rte_mempool_free(mb->mp);
	}
	free(mb->of);
	free(mb);
}

struct dpdk_mbufs *
dpdk_mbufs_get(struct vpk_pool *pool, int socket, char *err, size_t len)
{
	struct dpdk_mbufs *mb;
	int slot = -1;

	for (int i = 0; i < MAX_POOLS; i++) {
		if (maps[i] != NULL && maps[i]->pool == pool) {
			maps[i]->users++;
			return maps[i];
		}
		if (maps[i] == NULL && slot < 0)
			slot = i;
	}
	if (slot < 0) {
		snprintf(err, len, "dpdk: ports on more than %d vpk pools", MAX_POOLS);
		return NULL;
	}
	mb = calloc(1, sizeof(*mb));
	if (mb == NULL) {
		snprintf(err, len, "dpdk: out of memory");
		return NULL;
	}
	mb->pool = pool;
	if (create(mb, socket, err, len) != 0) {
		destroy(mb);
		return NULL;
	}
	mb->users = 1;
	maps[slot] = mb;
	return mb;
}

void
dpdk_mbufs_put(struct dpdk_mbufs *mb)
{
	if (mb == NULL || --mb->users > 0)
		return;
	for (int i = 0; i < MAX_POOLS; i++)
		if (maps[i] == mb)
			maps[i] = NULL;
	destroy(mb);
}

int
dpdk_mbufs_dma_map(struct dpdk_mbufs *mb, struct rte_device *dev)
{
	if (!mb->registered)
		return -ENOTSUP;
	if (rte_dev_dma_map(dev, mb->base, (uint64_t)(uintptr_t)mb->base, mb->mem_len) != 0)
		return rte_errno == 0 ? -EIO : -rte_errno;
	return 0;
}

void
dpdk_mbufs_dma_unmap(struct dpdk_mbufs *mb, struct rte_device *dev)
{
	(void)rte_dev_dma_unmap(dev, mb->base, (uint64_t)(uintptr_t)mb->base, mb->mem_len);
}

#else
typedef int io_dpdk_mbuf_unused;        /* built without libdpdk: nothing here */
#endif
