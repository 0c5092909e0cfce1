/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DPDK ethdev port backend (VPK_IO_DPDK, include/vpk/io.h), linked into
 * the vpk tool where libdpdk is installed, so libvpk itself never depends
 * on DPDK: io_dpdk_init() starts the EAL once per process and registers
 * the backend with libvpk (io_backend_register()).
 *
 * A port is a PCI device DPDK's driver has bound, or a virtual device given
 * by its arguments ("net_ring0", "net_null0", "net_pcap0,rx_pcap=a,tx_pcap=b"),
 * probed on open (rte_dev_probe) and removed on close. One rx and one tx
 * queue per port object: conf.queue selects which of the device's queues
 * (queue 0's port configures the device with vpk_io_conf::rx_ring as the
 * descriptor count and RSS over the queues a caller opens).
 *
 * Data path without a per-packet copy: mbufs and pool buffers are paired.
 *  - rx: the device's mbuf pool is created over pool buffers as pinned
 *    external buffers (rte_pktmbuf_pool_create_extbuf, one region per
 *    buffer, data at the same headroom as vpk's), so the driver writes each
 *    frame straight into a pool buffer. rx_burst hands that buffer to the
 *    caller and gives the mbuf a fresh one from the pool before freeing it
 *    back (as AF_XDP's fill ring does); close returns the buffers the mbufs
 *    hold;
 *  - tx: a second pool of mbufs over pool buffers; each packet's mbuf
 *    trades the buffer it holds for the packet's (the traded ones go back
 *    to the pool in bulk), so every mbuf always holds exactly one buffer and
 *    sent or refused mbufs simply return to their pool: no callback.
 * IOVA: the address is the virtual one (IOVA as VA, what --no-huge and
 * vdevs use); a PCI NIC would also need the pool memory DMA-mapped for the
 * device (rte_extmem_register + rte_dev_dma_map), which is not done yet.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io_dpdk.h"

#ifdef VPK_HAVE_DPDK
#define ALLOW_EXPERIMENTAL_API          /* rte_pktmbuf_pool_create_extbuf (DPDK 20.05+, still experimental) */
/* DPDK's inline headers are not clean under our warnings (clang: implicit fall-through). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#pragma GCC diagnostic pop

#include "io/io_priv.h"

#define RX_MBUFS 2048u          /* pool buffers lent to the device's rx side, and as many to tx, per queue */

struct dpdk_be {
	uint16_t port;
	uint16_t queue;
	bool owner;                     /* this object configured, started and probed the device */
	bool probed;
	struct rte_mempool *mp;         /* rx: mbufs over pool buffers (pinned external) */
	struct rte_mempool *txmp;       /* tx: mbufs over pool buffers too (traded per packet) */
	struct rte_device *dev;
	const char *driver;
	char devname[RTE_ETH_NAME_MAX_LEN];
};

static bool eal_up;

static int
find_or_probe(struct vpk_io_port *p, struct dpdk_be *b, char *err, size_t len)
{
	const char *args = p->conf.ifname;
	size_t n = strcspn(args, ",");
	int rc;

	snprintf(b->devname, sizeof(b->devname), "%.*s", (int)n, args);
	if (rte_eth_dev_get_port_by_name(b->devname, &b->port) == 0)
		return 0;
	rc = rte_dev_probe(args);
	if (rc != 0)
		return vpk_errf(err, len, -ENODEV, "dpdk %s: cannot probe the device (no such driver, device "
				"or bad arguments): %s", args, strerror(rc < 0 ? -rc : ENODEV));
	b->probed = true;
	if (rte_eth_dev_get_port_by_name(b->devname, &b->port) != 0)
		return vpk_errf(err, len, -ENODEV, "dpdk %s: probed, but no ethdev named %s", args, b->devname);
	return 0;
}

/* rte_mempool_obj_iter: the pool buffer an rx mbuf holds goes back to the pool. */
static void
return_buf(struct rte_mempool *mp, void *opaque, void *obj, unsigned i)
{
	struct vpk_io_port *p = opaque;
	struct rte_mbuf *m = obj;
	uint32_t idx = vpk_buf_to_idx(p->base, (struct vpk_buf *)m->buf_addr - 1);

	(void)mp;
	(void)i;
	vpk_pool_free_bulk(p->pool, &idx, 1);
}

/* A pool of @n mbufs over as many pool buffers (pinned external buffers), named @name. */
static struct rte_mempool *
pinned_pool(struct vpk_io_port *p, const char *name, uint32_t n, int sock)
{
	uint32_t room = VPK_BUF_HEADROOM + vpk_pool_data_size(p->pool), got = 0;
	struct rte_pktmbuf_extmem *ext = calloc(n, sizeof(*ext));
	struct rte_mempool *mp = NULL;

	while (ext != NULL && got < n) {
		uint32_t idx[VPK_IO_BURST_MAX], k = vpk_pool_alloc_burst(p->pool, idx,
									 n - got < VPK_IO_BURST_MAX ? n - got : VPK_IO_BURST_MAX);

		if (k == 0)
			break;
		for (uint32_t i = 0; i < k; i++, got++) {
			uint8_t *a = vpk_buf_area(vpk_buf_from_idx(p->base, idx[i]));

			ext[got] = (struct rte_pktmbuf_extmem){ .buf_ptr = a, .buf_iova = (rte_iova_t)(uintptr_t)a,
								.buf_len = room, .elt_size = (uint16_t)room };
		}
	}
	if (got == n)
		mp = rte_pktmbuf_pool_create_extbuf(name, n, 128, 0, (uint16_t)room, sock, ext, n);
	if (mp == NULL)
		for (uint32_t i = 0; i < got; i++) {
			uint32_t idx = vpk_buf_to_idx(p->base, (struct vpk_buf *)ext[i].buf_ptr - 1);

			vpk_pool_free_bulk(p->pool, &idx, 1);
		}
	free(ext);
	return mp;
}

/* The rx and tx mbuf pools, each over its own pool buffers. */
static int
make_pools(struct vpk_io_port *p, struct dpdk_be *b, uint32_t n, char *err, size_t len)
{
	uint32_t room = VPK_BUF_HEADROOM + vpk_pool_data_size(p->pool);
	int sock = rte_eth_dev_socket_id(b->port) < 0 ? 0 : rte_eth_dev_socket_id(b->port);
	char name[RTE_MEMPOOL_NAMESIZE];

	if (room > UINT16_MAX || RTE_PKTMBUF_HEADROOM != VPK_BUF_HEADROOM)
		return vpk_errf(err, len, -EINVAL, "dpdk %s: pool buffers of %u bytes cannot back mbufs", b->devname,
				room);
	snprintf(name, sizeof(name), "vpk_%u", b->port);
	b->mp = pinned_pool(p, name, n, sock);
	snprintf(name, sizeof(name), "vpk_tx_%u", b->port);
	if (b->mp != NULL)
		b->txmp = pinned_pool(p, name, n, sock);
	if (b->mp == NULL || b->txmp == NULL)
		return vpk_errf(err, len, -ENOMEM, "dpdk %s: mbufs over 2 x %u pool buffers: %s", b->devname, n,
				vpk_pool_size(p->pool) - vpk_pool_in_use(p->pool) < n ? "the pool is short of buffers"
											: rte_strerror(rte_errno));
	return 0;
}

static void
free_pools(struct vpk_io_port *p, struct dpdk_be *b)
{
	if (b->mp != NULL) {
		rte_mempool_obj_iter(b->mp, return_buf, p);
		rte_mempool_free(b->mp);
	}
	if (b->txmp != NULL) {
		rte_mempool_obj_iter(b->txmp, return_buf, p);
		rte_mempool_free(b->txmp);
	}
	b->mp = b->txmp = NULL;
}

static int
setup_device(struct vpk_io_port *p, struct dpdk_be *b, char *err, size_t len)
{
	struct rte_eth_conf ec;
	struct rte_eth_dev_info di;
	uint16_t nrx, ntx, nb = (uint16_t)(p->conf.rx_ring ? p->conf.rx_ring : 1024u);
	uint16_t nq = (uint16_t)(p->conf.n_queues ? p->conf.n_queues : 1u);
	int rc = rte_eth_dev_info_get(b->port, &di);

	if (rc != 0)
		return vpk_errf(err, len, rc, "dpdk %s: device info: %s", b->devname, strerror(-rc));
	nrx = nq;
	ntx = nq;
	if (nrx > di.max_rx_queues || ntx > di.max_tx_queues)
		return vpk_errf(err, len, -EINVAL, "dpdk %s: %u queues asked, the device has %u rx / %u tx",
				b->devname, nq, di.max_rx_queues, di.max_tx_queues);
	memset(&ec, 0, sizeof(ec));
	if (nq > 1) {
		ec.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		ec.rx_adv_conf.rss_conf.rss_hf = (RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP) &
						 di.flow_type_rss_offloads;
	}
	rc = rte_eth_dev_configure(b->port, nrx, ntx, &ec);
	if (rc != 0)
		return vpk_errf(err, len, rc, "dpdk %s: configure %u queues: %s", b->devname, nq, strerror(-rc));
	rc = make_pools(p, b, RX_MBUFS * nq, err, len);
	if (rc != 0)
		return rc;
	for (uint16_t q = 0; q < nq; q++) {
		rc = rte_eth_rx_queue_setup(b->port, q, nb, (unsigned)rte_eth_dev_socket_id(b->port), NULL, b->mp);
		if (rc == 0)
			rc = rte_eth_tx_queue_setup(b->port, q, nb, (unsigned)rte_eth_dev_socket_id(b->port), NULL);
		if (rc != 0)
			return vpk_errf(err, len, rc, "dpdk %s: queue %u setup: %s", b->devname, q, strerror(-rc));
	}
	rc = rte_eth_dev_start(b->port);
	if (rc != 0)
		return vpk_errf(err, len, rc, "dpdk %s: start: %s", b->devname, strerror(-rc));
	(void)rte_eth_promiscuous_enable(b->port);
	b->owner = true;
	return 0;
}

static int
dpdk_open(struct vpk_io_port *p, char *err, size_t len)
{
	struct dpdk_be *b;
	struct rte_ether_addr ea;
	int rc;

	if (!eal_up)
		return vpk_errf(err, len, -ENOTSUP, "dpdk %s: the EAL is not initialised", p->conf.ifname);
	b = calloc(1, sizeof(*b));
	if (b == NULL)
		return vpk_errf(err, len, -ENOMEM, "dpdk: out of memory");
	rc = find_or_probe(p, b, err, len);
	b->queue = (uint16_t)p->conf.queue;
	if (rc == 0) {
		struct rte_eth_dev_info di;

		rc = rte_eth_dev_info_get(b->port, &di);
		if (rc != 0)
			rc = vpk_errf(err, len, rc, "dpdk %s: device info: %s", b->devname, strerror(-rc));
		b->dev = di.device;
		b->driver = di.driver_name;
	}
	if (rc == 0 && b->queue == 0) {
		rc = setup_device(p, b, err, len);
	} else if (rc == 0) {
		char name[RTE_MEMPOOL_NAMESIZE];
		struct rte_eth_dev_info di;

		/* A further queue of a device queue 0's port configured: its mbufs. */
		snprintf(name, sizeof(name), "vpk_%u", b->port);
		b->mp = rte_mempool_lookup(name);
		snprintf(name, sizeof(name), "vpk_tx_%u", b->port);
		b->txmp = rte_mempool_lookup(name);
		if (b->mp == NULL || b->txmp == NULL || rte_eth_dev_info_get(b->port, &di) != 0 || b->queue >= di.nb_rx_queues)
			rc = vpk_errf(err, len, -EINVAL, "dpdk %s: queue %u: open queue 0 first, with n_queues > %u",
				      b->devname, b->queue, b->queue);
	}
	if (rc != 0) {
		if (b->queue == 0) {
			if (b->mp != NULL)
				(void)rte_eth_dev_stop(b->port);
			free_pools(p, b);
		}
		if (b->probed && b->dev != NULL)
			(void)rte_dev_remove(b->dev);
		free(b);
		return rc;
	}
	if (rte_eth_macaddr_get(b->port, &ea) == 0) {
		memcpy(p->mac, ea.addr_bytes, 6);
		p->has_mac = true;
	}
	snprintf(p->mode, sizeof(p->mode), "ethdev %s", b->driver != NULL ? b->driver : "?");
	p->be = b;
	return 0;
}

static int
dpdk_close(struct vpk_io_port *p, char *err, size_t len)
{
	struct dpdk_be *b = p->be;

	(void)err;
	(void)len;
	if (b->owner) {
		(void)rte_eth_dev_stop(b->port);
		(void)rte_eth_dev_close(b->port);
		if (b->probed && b->dev != NULL)
			(void)rte_dev_remove(b->dev);
		free_pools(p, b);               /* every mbuf is home: their buffers go back */
	}
	free(b);
	return 0;
}

static int
dpdk_rx(struct vpk_io_port *p, uint32_t *idx, uint32_t n)
{
	struct dpdk_be *b = p->be;
	struct rte_mbuf *m[VPK_IO_BURST_MAX];
	uint32_t repl[VPK_IO_BURST_MAX], got, nr, k = 0, used = 0;
	uint32_t room = VPK_BUF_HEADROOM + vpk_pool_data_size(p->pool);

	/* A thread DPDK did not start gets an lcore id, so the mbuf pools use
	 * its per-lcore cache (hot, LIFO) instead of cycling through the ring. */
	if (__builtin_expect(rte_lcore_id() == LCORE_ID_ANY, 0))
		(void)rte_thread_register();
	got = rte_eth_rx_burst(b->port, b->queue, m, (uint16_t)n);
	if (got == 0)
		return 0;
	nr = vpk_pool_alloc_burst(p->pool, repl, got);
	if (nr < got)
		p->st.rx_nobuf++;
	for (uint32_t i = 0; i < got; i++) {
		struct vpk_buf *vb = (struct vpk_buf *)m[i]->buf_addr - 1;
		uint8_t *a;

		if (k == nr || m[i]->nb_segs != 1 || (uint32_t)m[i]->data_off + m[i]->data_len > room) {
			p->st.rx_skipped += k < nr;     /* no fresh buffer: dropped, counted as rx_nobuf */
			continue;                       /* the mbuf keeps its buffer */
		}
		/* The frame's buffer goes to the caller, a fresh one to the mbuf. */
		vb->data_off = m[i]->data_off;
		vb->len = m[i]->data_len;
		vb->total_len = m[i]->data_len;
		vb->flags = 0;
		vb->error = 0;
		vb->rx_if = p->conf.port_id;
		vb->tx_if = 0;
		vb->next = VPK_BUF_NONE;
		idx[used++] = vpk_buf_to_idx(p->base, vb);
		a = vpk_buf_area(vpk_buf_from_idx(p->base, repl[k++]));
		m[i]->buf_addr = a;
		m[i]->buf_iova = (rte_iova_t)(uintptr_t)a;
	}
	rte_pktmbuf_free_bulk(m, got);
	if (k < nr)
		vpk_pool_free_bulk(p->pool, repl + k, nr - k);
	return (int)used;
}

static uint32_t
dpdk_tx(struct vpk_io_port *p, const uint32_t *idx, uint32_t n)
{
	struct dpdk_be *b = p->be;
	struct rte_mbuf *m[VPK_IO_BURST_MAX];
	uint32_t back[VPK_IO_BURST_MAX], sent;

	if (rte_pktmbuf_alloc_bulk(b->txmp, m, n) != 0) {
		vpk_pool_free_bulk(p->pool, idx, n);
		return 0;
	}
	/* Each mbuf trades the buffer it holds for the packet's: the mbuf pool
	 * keeps as many buffers as it has mbufs, the caller's go out. */
	for (uint32_t i = 0; i < n; i++) {
		struct vpk_buf *vb = vpk_buf_from_idx(p->base, idx[i]);
		uint8_t *a = vpk_buf_area(vb);

		back[i] = vpk_buf_to_idx(p->base, (struct vpk_buf *)m[i]->buf_addr - 1);
		m[i]->buf_addr = a;
		m[i]->buf_iova = (rte_iova_t)(uintptr_t)a;
		m[i]->data_off = vb->data_off;
		m[i]->data_len = vb->len;
		m[i]->pkt_len = vb->len;
	}
	vpk_pool_free_bulk(p->pool, back, n);
	sent = rte_eth_tx_burst(b->port, b->queue, m, (uint16_t)n);
	if (sent < n)
		rte_pktmbuf_free_bulk(m + sent, n - sent);     /* refused: back to the mbuf pool, buffers too */
	return sent;
}

static bool
dpdk_link_up(struct vpk_io_port *p)
{
	struct dpdk_be *b = p->be;
	struct rte_eth_link l;

	return rte_eth_link_get_nowait(b->port, &l) == 0 && l.link_status == RTE_ETH_LINK_UP;
}

static void
dpdk_stats(const struct vpk_io_port *p, struct vpk_io_stats *st)
{
	const struct dpdk_be *b = p->be;
	struct rte_eth_stats es;

	if (b->owner && rte_eth_stats_get(b->port, &es) == 0)
		st->rx_drop += es.imissed + es.rx_nombuf;
	if (b->owner && b->mp != NULL)
		st->bufs_held = (uint64_t)b->mp->size + b->txmp->size;
}

static const struct io_ops io_dpdk_ops = {
	.name = "dpdk", .open = dpdk_open, .close = dpdk_close, .rx = dpdk_rx, .tx = dpdk_tx,
	.link_up = dpdk_link_up, .stats = dpdk_stats,
};

int
io_dpdk_init(const char *eal_args, char *err, size_t len)
{
	char buf[1024], *argv[64], *save = NULL;
	int argc = 0, rc;

	if (eal_up)
		return 0;
	snprintf(buf, sizeof(buf), "%s", eal_args != NULL ? eal_args : "");
	argv[argc++] = "vpk";
	for (char *t = strtok_r(buf, " \t", &save); t != NULL && argc < 63; t = strtok_r(NULL, " \t", &save))
		argv[argc++] = t;
	argv[argc] = NULL;
	rc = rte_eal_init(argc, argv);
	if (rc < 0)
		return vpk_errf(err, len, -rte_errno ? -rte_errno : -EINVAL, "dpdk: EAL init with '%s' failed: %s",
				eal_args != NULL ? eal_args : "", rte_strerror(rte_errno));
	eal_up = true;
	return io_backend_register(VPK_IO_DPDK, &io_dpdk_ops);
}

void
io_dpdk_fini(void)
{
	if (eal_up)
		(void)rte_eal_cleanup();
	eal_up = false;
}

#else /* !VPK_HAVE_DPDK */

int
io_dpdk_init(const char *eal_args, char *err, size_t len)
{
	(void)eal_args;
	if (err != NULL && len > 0)
		snprintf(err, len, "dpdk: vpk was built without libdpdk (install libdpdk-dev and rebuild)");
	return -ENOTSUP;
}

void
io_dpdk_fini(void)
{
}

#endif
