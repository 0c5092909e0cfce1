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
 * Data path: mbufs come from a per-device mempool; rx copies each frame
 * into a pool buffer (rte_memcpy, one cache line at a time) and frees the
 * mbufs in bulk; tx allocates mbufs in bulk, copies, sends, and frees what
 * the driver refused in bulk. The copy is the price of keeping the pool
 * vpk's own memory: see docs/io.md for the zero-copy mapping not built yet.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io_dpdk.h"

#ifdef VPK_HAVE_DPDK
#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>

#include "io/io_priv.h"

#define MBUFS 8191u

struct dpdk_be {
	uint16_t port;
	uint16_t queue;
	bool owner;                     /* this object configured, started and probed the device */
	bool probed;
	struct rte_mempool *mp;
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

static int
setup_device(struct vpk_io_port *p, struct dpdk_be *b, char *err, size_t len)
{
	struct rte_eth_conf ec;
	struct rte_eth_dev_info di;
	uint16_t nrx, ntx, nb = (uint16_t)(p->conf.rx_ring ? p->conf.rx_ring : 1024u);
	uint16_t nq = (uint16_t)(p->conf.n_queues ? p->conf.n_queues : 1u);
	char name[RTE_MEMPOOL_NAMESIZE];
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
	if (di.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE)
		ec.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;     /* one pool, refcount 1 */
	rc = rte_eth_dev_configure(b->port, nrx, ntx, &ec);
	if (rc != 0)
		return vpk_errf(err, len, rc, "dpdk %s: configure %u queues: %s", b->devname, nq, strerror(-rc));
	snprintf(name, sizeof(name), "vpk_%u", b->port);
	b->mp = rte_pktmbuf_pool_create(name, MBUFS * nq, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
					(int)rte_eth_dev_socket_id(b->port) < 0 ? 0 : rte_eth_dev_socket_id(b->port));
	if (b->mp == NULL)
		return vpk_errf(err, len, -ENOMEM, "dpdk %s: mbuf pool: %s", b->devname, rte_strerror(rte_errno));
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
		if (b->mp == NULL || rte_eth_dev_info_get(b->port, &di) != 0 || b->queue >= di.nb_rx_queues)
			rc = vpk_errf(err, len, -EINVAL, "dpdk %s: queue %u: open queue 0 first, with n_queues > %u",
				      b->devname, b->queue, b->queue);
	}
	if (rc != 0) {
		if (b->mp != NULL && b->queue == 0)
			rte_mempool_free(b->mp);
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
		rte_mempool_free(b->mp);
	}
	free(b);
	return 0;
}

static int
dpdk_rx(struct vpk_io_port *p, uint32_t *idx, uint32_t n)
{
	struct dpdk_be *b = p->be;
	struct rte_mbuf *m[VPK_IO_BURST_MAX];
	uint32_t bufs, got, used = 0;
	uint32_t room = vpk_pool_data_size(p->pool);

	bufs = vpk_pool_alloc_burst(p->pool, idx, n);
	if (bufs == 0) {
		p->st.rx_nobuf++;
		return 0;
	}
	got = rte_eth_rx_burst(b->port, b->queue, m, (uint16_t)bufs);
	for (uint32_t i = 0; i < got; i++) {
		struct vpk_buf *vb;

		if (i + 1 < got)
			rte_prefetch0(rte_pktmbuf_mtod(m[i + 1], void *));
		if (m[i]->nb_segs != 1 || m[i]->data_len > room) {
			p->st.rx_skipped++;
			continue;
		}
		vb = vpk_buf_from_idx(p->base, idx[used]);
		rte_memcpy(vpk_buf_data(vb), rte_pktmbuf_mtod(m[i], void *), m[i]->data_len);
		vb->len = vb->total_len = m[i]->data_len;
		vb->rx_if = p->conf.port_id;
		used++;
	}
	if (got > 0)
		rte_pktmbuf_free_bulk(m, got);
	if (used < bufs)
		vpk_pool_free_bulk(p->pool, idx + used, bufs - used);
	return (int)used;
}

static uint32_t
dpdk_tx(struct vpk_io_port *p, const uint32_t *idx, uint32_t n)
{
	struct dpdk_be *b = p->be;
	struct rte_mbuf *m[VPK_IO_BURST_MAX];
	uint32_t sent = 0;

	if (rte_pktmbuf_alloc_bulk(b->mp, m, n) == 0) {
		for (uint32_t i = 0; i < n; i++) {
			struct vpk_buf *vb = vpk_buf_from_idx(p->base, idx[i]);
			char *d = rte_pktmbuf_append(m[i], vb->len);

			if (d != NULL)
				rte_memcpy(d, vpk_buf_data(vb), vb->len);
		}
		sent = rte_eth_tx_burst(b->port, b->queue, m, (uint16_t)n);
		if (sent < n)
			rte_pktmbuf_free_bulk(m + sent, n - sent);
	}
	vpk_pool_free_bulk(p->pool, idx, n);
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
