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
 * Data path without a per-packet copy or buffer exchange: every pool buffer
 * has its own mbuf for life, and the mbufs' mempool takes and returns
 * buffers through the vpk pool itself (io_dpdk_mbuf.h), so one mempool per
 * vpk pool serves every port and queue, as testpmd's one mbuf pool does.
 *  - rx: the driver fills mbufs it took from that mempool (= pool buffers);
 *    rx_burst sets the frame's vpk metadata and hands the buffer on;
 *  - tx: each buffer's mbuf gets the frame's offset and length (and the
 *    chain, if any) and goes to the device, which frees it after sending
 *    (rte_pktmbuf_free: straight back to the vpk pool), refused ones too.
 * The pool memory is registered as DPDK external memory and DMA-mapped for
 * each device whose bus maps memory (PCI through VFIO); virtual devices copy
 * with the CPU and need no mapping. IOVA is the virtual address (IOVA as VA:
 * VFIO with an IOMMU, --no-huge, vdevs); physical addressing is refused for
 * PCI devices.
 */
#include <errno.h>
#include <stddef.h>
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
#include "io/io_dpdk_mbuf.h"


struct dpdk_be {
	uint16_t port;
	uint16_t queue;
	bool owner;                     /* this object configured, started and probed the device */
	bool probed;
	bool dma_mapped;                /* dpdk_mbufs_dma_map() succeeded for the device */
	uint16_t nb_rxd;                /* receive descriptors per queue (buffers a NIC holds) */
	struct dpdk_mbufs *mb;          /* the pool's mbufs, shared by every port on it */
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

/*
 * Let the device DMA into pool buffers. PCI devices must get the mapping
 * (and IOVA as VA); a bus that maps nothing (vdevs) is fine.
 */
static int
map_for_dma(struct dpdk_be *b, char *err, size_t len)
{
	const struct rte_bus *bus = rte_dev_bus(b->dev);
	bool pci = bus != NULL && strcmp(rte_bus_name(bus), "pci") == 0;
	int rc;

	if (pci && rte_eal_iova_mode() != RTE_IOVA_VA)
		return vpk_errf(err, len, -ENOTSUP, "dpdk %s: vpk's pool memory needs IOVA as VA (VFIO with an "
				"IOMMU, EAL --iova-mode=va) for a PCI device", b->devname);
	rc = dpdk_mbufs_dma_map(b->mb, b->dev);
	b->dma_mapped = rc == 0 && pci;         /* a vdev "maps" without doing anything */
	if (rc != 0 && pci)
		return vpk_errf(err, len, rc, "dpdk %s: cannot map vpk's pool memory for the device's DMA: %s",
				b->devname, strerror(-rc));
	return 0;
}

static int
setup_device(struct vpk_io_port *p, struct dpdk_be *b, char *err, size_t len)
{
	struct rte_eth_conf ec;
	struct rte_eth_dev_info di;
	uint16_t nq = (uint16_t)(p->conf.n_queues ? p->conf.n_queues : 1u);
	unsigned sock = (unsigned)(rte_eth_dev_socket_id(b->port) < 0 ? 0 : rte_eth_dev_socket_id(b->port));
	int rc = rte_eth_dev_info_get(b->port, &di);

	if (rc != 0)
		return vpk_errf(err, len, rc, "dpdk %s: device info: %s", b->devname, strerror(-rc));
	if (nq > di.max_rx_queues || nq > di.max_tx_queues)
		return vpk_errf(err, len, -EINVAL, "dpdk %s: %u queues asked, the device has %u rx / %u tx",
				b->devname, nq, di.max_rx_queues, di.max_tx_queues);
	memset(&ec, 0, sizeof(ec));
	if (nq > 1) {
		ec.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		ec.rx_adv_conf.rss_conf.rss_hf = (RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP) &
						 di.flow_type_rss_offloads;
	}
	/* Tx: every mbuf is a plain one of one pool, freed by reference count 1. */
	if (di.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE)
		ec.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
	rc = rte_eth_dev_configure(b->port, nq, nq, &ec);
	if (rc != 0)
		return vpk_errf(err, len, rc, "dpdk %s: configure %u queues: %s", b->devname, nq, strerror(-rc));
	b->owner = true;                /* from here on close stops and closes the device */
	rc = map_for_dma(b, err, len);
	if (rc != 0)
		return rc;
	/* The driver's descriptor counts unless asked (rx_ring): 0 takes the default. */
	for (uint16_t q = 0; q < nq; q++) {
		rc = rte_eth_rx_queue_setup(b->port, q, (uint16_t)p->conf.rx_ring, sock, NULL, b->mb->mp);
		if (rc == 0)
			rc = rte_eth_tx_queue_setup(b->port, q, (uint16_t)p->conf.rx_ring, sock, NULL);
		if (rc != 0)
			return vpk_errf(err, len, rc, "dpdk %s: queue %u setup: %s", b->devname, q, strerror(-rc));
	}
	rc = rte_eth_dev_start(b->port);
	if (rc != 0)
		return vpk_errf(err, len, rc, "dpdk %s: start: %s", b->devname, strerror(-rc));
	(void)rte_eth_promiscuous_enable(b->port);
	return 0;
}

/* A further queue of a device its queue 0's port configured. */
static int
join_device(struct dpdk_be *b, char *err, size_t len)
{
	struct rte_eth_dev_info di;

	if (rte_eth_dev_info_get(b->port, &di) != 0 || b->queue >= di.nb_rx_queues)
		return vpk_errf(err, len, -EINVAL, "dpdk %s: queue %u: open queue 0 first, with n_queues > %u",
				b->devname, b->queue, b->queue);
	return 0;
}

static void
release(struct dpdk_be *b)
{
	if (b->owner) {
		(void)rte_eth_dev_stop(b->port);        /* the driver frees its mbufs: buffers go home */
		(void)rte_eth_dev_close(b->port);
		if (b->dma_mapped)
			dpdk_mbufs_dma_unmap(b->mb, b->dev);
	}
	if (b->probed && b->dev != NULL)
		(void)rte_dev_remove(b->dev);
	dpdk_mbufs_put(b->mb);
	free(b);
}

static int
dpdk_open(struct vpk_io_port *p, char *err, size_t len)
{
	struct dpdk_be *b;
	struct rte_ether_addr ea;
	struct rte_eth_rxq_info qi;
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
	if (rc == 0) {
		int sock = rte_eth_dev_socket_id(b->port);

		b->mb = dpdk_mbufs_get(p->pool, sock < 0 ? 0 : sock, err, len);
		rc = b->mb == NULL ? -ENOMEM : 0;
	}
	if (rc == 0)
		rc = b->queue == 0 ? setup_device(p, b, err, len) : join_device(b, err, len);
	if (rc != 0) {
		release(b);
		return rc;
	}
	if (rte_eth_rx_queue_info_get(b->port, b->queue, &qi) == 0)
		b->nb_rxd = qi.nb_desc;
	if (rte_eth_macaddr_get(b->port, &ea) == 0) {
		memcpy(p->mac, ea.addr_bytes, 6);
		p->has_mac = true;
	}
	/* extmem: the pool memory is DPDK external memory; dma-mapped: in the device's IOMMU domain too. */
	snprintf(p->mode, sizeof(p->mode), "ethdev %s%s%s", b->driver != NULL ? b->driver : "?",
		 b->mb->registered ? " extmem" : "", b->dma_mapped ? " dma-mapped" : "");
	p->be = b;
	return 0;
}

static int
dpdk_close(struct vpk_io_port *p, char *err, size_t len)
{
	(void)err;
	(void)len;
	release(p->be);
	return 0;
}

/*
 * A received frame's metadata line: the pool's initial state (the mbuf may
 * come straight from a transmit, through the mbuf cache, with any metadata)
 * plus offset, lengths and input: three computed words and 40 zero bytes,
 * six stores. @w1 is rx_if (tx_if 0), the same for the whole burst.
 */
static inline void
set_meta(struct vpk_buf *vb, uint64_t data_off, uint64_t len, uint64_t w1)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	_Static_assert(offsetof(struct vpk_buf, len) == 2 && offsetof(struct vpk_buf, rx_if) == 8 &&
		       offsetof(struct vpk_buf, next) == 16 && offsetof(struct vpk_buf, total_len) == 20,
		       "struct vpk_buf layout");
	uint64_t w0 = data_off | len << 16;                                 /* flags, error: 0 */
	uint64_t w2 = (uint64_t)VPK_BUF_NONE | len << 32;                   /* next, total_len */
	uint64_t *d = (uint64_t *)(void *)vb;

	/* Scalar stores: gcc would otherwise build a vector of two with pinsrq. */
	d[0] = w0;
	__asm__("" ::: "memory");
	d[1] = w1;
	__asm__("" ::: "memory");
	d[2] = w2;
	memset(d + 3, 0, sizeof(*vb) - 24);
#else
	*vb = (struct vpk_buf){ .data_off = (uint16_t)data_off, .len = (uint16_t)len, .rx_if = (uint32_t)w1,
				.next = VPK_BUF_NONE, .total_len = (uint32_t)len };
#endif
}

/*
 * The rest of a burst from mbuf @i on, where a chained frame (scattered rx)
 * or a foreign mbuf was found: those are counted and freed, segments and
 * all, the others taken as in dpdk_rx().
 */
static __attribute__((noinline)) uint32_t
rx_rest(struct vpk_io_port *p, struct rte_mbuf **m, uint32_t i, uint32_t got, uint32_t *idx)
{
	const struct dpdk_mbufs *mb = ((struct dpdk_be *)p->be)->mb;
	uint32_t used = i;

	for (; i < got; i++) {
		struct rte_mbuf *x = m[i];
		struct vpk_buf *vb = (struct vpk_buf *)x->buf_addr - 1;

		if (x->nb_segs != 1 || x->pool != mb->mp) {
			p->st.rx_skipped++;
			rte_pktmbuf_free(x);
			continue;
		}
		set_meta(vb, x->data_off, x->data_len, p->conf.port_id);
		p->st.rx_bytes += x->data_len;
		idx[used++] = vpk_buf_to_idx(mb->base, vb);
	}
	return used;
}

/*
 * Per frame: the mbuf's buffer address, offset and length in, the metadata
 * line and the index out. The index is the offset of the metadata line
 * (buf_addr - 64) from the pool base, over 64: one subtraction from
 * base + 64 and a shift.
 */
static int
dpdk_rx(struct vpk_io_port *p, uint32_t *idx, uint32_t n)
{
	struct dpdk_be *b = p->be;
	const struct dpdk_mbufs *mb = b->mb;
	const struct rte_mempool *mp = mb->mp;
	const uint64_t w1 = p->conf.port_id;
	const uintptr_t area0 = (uintptr_t)mb->base + sizeof(struct vpk_buf);
	struct rte_mbuf *m[VPK_IO_BURST_MAX];
	uint32_t got, i;
	uint64_t bytes = 0;

	/* A thread DPDK did not start gets an lcore id: the mbuf cache is per lcore. */
	if (__builtin_expect(rte_lcore_id() == LCORE_ID_ANY, 0))
		(void)rte_thread_register();
	got = rte_eth_rx_burst(b->port, b->queue, m, (uint16_t)n);
#pragma GCC unroll 4
	for (i = 0; i < got; i++) {
		struct rte_mbuf *x = m[i];
		uintptr_t a = (uintptr_t)x->buf_addr;
		uint64_t len = x->data_len;

		if (__builtin_expect(x->nb_segs != 1 || x->pool != mp, 0))
			break;
		set_meta((struct vpk_buf *)a - 1, x->data_off, len, w1);
		bytes += len;
		idx[i] = (uint32_t)((a - area0) >> VPK_BUF_SHIFT);
	}
	p->st.rx_bytes += bytes;
	if (__builtin_expect(i < got, 0))
		i = rx_rest(p, m, i, got, idx);
	return (int)i;
}

/* A vpk chain becomes an mbuf chain (its buffers' own mbufs). */
static __attribute__((noinline)) void
tx_chain(const struct dpdk_mbufs *mb, struct rte_mbuf *x, uint32_t next)
{
	struct rte_mbuf *last = x;

	for (uint32_t s = next; s != VPK_BUF_NONE;) {
		const struct vpk_buf *sb = vpk_buf_from_idx(mb->base, s);
		struct rte_mbuf *y = dpdk_mbuf_of(mb, s);

		y->data_off = sb->data_off;
		y->data_len = sb->len;
		last->next = y;
		last = y;
		x->nb_segs++;
		s = sb->next;
	}
}

/*
 * Per frame: the buffer's mbuf gets the fields a driver's transmit reads
 * that vpk may have changed: data_off, data_len, pkt_len (and the chain).
 * ol_flags is left as it is: only receive flags are ever set on these
 * mbufs, and drivers look at the transmit offload bits alone (testpmd's io
 * mode forwards received mbufs the same way).
 */
static uint32_t
dpdk_tx(struct vpk_io_port *p, const uint32_t *idx, uint32_t n)
{
	struct dpdk_be *b = p->be;
	const struct dpdk_mbufs *mb = b->mb;
	uint8_t *base = mb->base;
	struct rte_mbuf *const *of = mb->of;
	const uint64_t recip = mb->recip;
	struct rte_mbuf *m[VPK_IO_BURST_MAX];
	uint64_t bytes = 0;
	uint32_t sent;

	if (__builtin_expect(rte_lcore_id() == LCORE_ID_ANY, 0))
		(void)rte_thread_register();
#pragma GCC unroll 4
	for (uint32_t i = 0; i < n; i++) {
		const struct vpk_buf *vb = vpk_buf_from_idx(base, idx[i]);
		struct rte_mbuf *x = of[((uint64_t)idx[i] * recip) >> 32];
		uint32_t total = vb->total_len;

		x->data_off = vb->data_off;
		x->data_len = vb->len;
		x->pkt_len = total;
		bytes += total;
		if (__builtin_expect(vb->next != VPK_BUF_NONE, 0))
			tx_chain(mb, x, vb->next);
		m[i] = x;
	}
	sent = rte_eth_tx_burst(b->port, b->queue, m, (uint16_t)n);
	if (sent < n) {
		for (uint32_t i = sent; i < n; i++)
			bytes -= m[i]->pkt_len;
		rte_pktmbuf_free_bulk(m + sent, n - sent);     /* refused: their buffers go back to the pool */
	}
	p->st.tx_bytes += bytes;
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
	st->bufs_held = b->nb_rxd;      /* what the receive ring holds at most (a NIC keeps it full) */
}

static const struct io_ops io_dpdk_ops = {
	.name = "dpdk", .open = dpdk_open, .close = dpdk_close, .rx = dpdk_rx, .tx = dpdk_tx,
	.link_up = dpdk_link_up, .stats = dpdk_stats, .counts_bytes = true,
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
