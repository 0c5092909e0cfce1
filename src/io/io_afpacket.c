/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * AF_PACKET backend: a TPACKET_V3 receive ring (block-based: the kernel
 * fills whole blocks, we walk their packets and hand each block back in
 * one store) and sendmmsg() transmit from the pool buffers.
 *
 * Rings are deep by default (docs/io.md: on a shared machine the process
 * is descheduled for milliseconds; a ring must hold at least 10 ms of
 * traffic): rx_ring packets of 2 KB in 256 KB blocks, retired after 2 ms.
 * Received packets are copied into pool buffers (the ring is kernel
 * memory); their metadata heads are written by the descriptor kernel's
 * meta_fill variant. Our own transmissions are not looped back to our rx
 * ring (PACKET_IGNORE_OUTGOING). Optional PACKET_FANOUT spreads one
 * interface over several ports (workers).
 */
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "io/io_priv.h"

#define BLOCK_SIZE (256u << 10)
#define FRAME_SIZE 2048u
#define RETIRE_MS 2u
#define MAX_SEGS 8

struct afp_be {
	uint8_t *ring;
	size_t ring_len;
	uint32_t n_blocks, cur;
	struct tpacket3_hdr *pkt;       /* next packet of the open block, NULL: none open */
	uint32_t left;                  /* packets left in the open block */
	uint32_t idle;                  /* empty polls since the last SO_ERROR check */
	int rx_rc;                      /* sticky -ENETDOWN */
	uint64_t kdrops;
};

static int
afp_open(struct vpk_io_port *p, char *err, size_t len)
{
	struct afp_be *b;
	unsigned ifindex;
	int one = 1, ver = TPACKET_V3, rc;
	uint32_t frames = p->conf.rx_ring ? p->conf.rx_ring : 16384u;
	struct tpacket_req3 req;
	struct sockaddr_ll sll;

	rc = io_live_ifindex(p, &ifindex, err, len);
	if (rc != 0)
		return rc;
	b = calloc(1, sizeof(*b));
	if (b == NULL)
		return vpk_errf(err, len, -ENOMEM, "af_packet %s: out of memory", p->ifname);
	/* Protocol 0: nothing is queued before the ring exists and bind() names ETH_P_ALL. */
	p->fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (p->fd < 0) {
		rc = -errno;
		free(b);
		if (rc == -EPERM || rc == -EACCES)
			return vpk_errf(err, len, -EPERM, "af_packet %s: not permitted (needs CAP_NET_RAW): %s",
				       p->ifname, strerror(-rc));
		return vpk_errf(err, len, rc, "af_packet %s: socket: %s", p->ifname, strerror(-rc));
	}
	if (setsockopt(p->fd, SOL_PACKET, PACKET_VERSION, &ver, sizeof(ver)) != 0) {
		rc = vpk_errf(err, len, -errno, "af_packet %s: ring setup failed: TPACKET_V3: %s", p->ifname,
			     strerror(errno));
		goto fail;
	}
	(void)setsockopt(p->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	(void)setsockopt(p->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
	memset(&req, 0, sizeof(req));
	req.tp_block_size = BLOCK_SIZE;
	req.tp_frame_size = FRAME_SIZE;
	req.tp_block_nr = (uint32_t)(((uint64_t)frames * FRAME_SIZE + BLOCK_SIZE - 1) / BLOCK_SIZE);
	if (req.tp_block_nr < 2)
		req.tp_block_nr = 2;
	req.tp_frame_nr = req.tp_block_nr * (BLOCK_SIZE / FRAME_SIZE);
	req.tp_retire_blk_tov = RETIRE_MS;
	if (setsockopt(p->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)) != 0) {
		rc = vpk_errf(err, len, -errno, "af_packet %s: ring setup failed: PACKET_RX_RING %u x %u KB: %s",
			     p->ifname, req.tp_block_nr, BLOCK_SIZE >> 10, strerror(errno));
		goto fail;
	}
	b->n_blocks = req.tp_block_nr;
	b->ring_len = (size_t)req.tp_block_nr * BLOCK_SIZE;
	b->ring = mmap(NULL, b->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0);
	if (b->ring == MAP_FAILED) {
		b->ring = NULL;
		rc = vpk_errf(err, len, -errno, "af_packet %s: ring setup failed: mmap %zu bytes: %s", p->ifname,
			     b->ring_len, strerror(errno));
		goto fail;
	}
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = (int)ifindex;
	if (bind(p->fd, (struct sockaddr *)&sll, sizeof(sll)) != 0) {
		rc = vpk_errf(err, len, -errno, "af_packet %s: bind: %s", p->ifname, strerror(errno));
		goto fail;
	}
	if (p->conf.fanout_group != 0) {
		int arg = p->conf.fanout_group | (p->conf.fanout_mode << 16);

		if (setsockopt(p->fd, SOL_PACKET, PACKET_FANOUT, &arg, sizeof(arg)) != 0) {
			rc = vpk_errf(err, len, -errno, "af_packet %s: PACKET_FANOUT group %u mode %u: %s",
				     p->ifname, p->conf.fanout_group, p->conf.fanout_mode, strerror(errno));
			goto fail;
		}
	}
	snprintf(p->mode, sizeof(p->mode), "tpacket-v3%s", p->conf.fanout_group != 0 ? " fanout" : "");
	p->be = b;
	return 0;
fail:
	if (b->ring != NULL)
		munmap(b->ring, b->ring_len);
	close(p->fd);
	p->fd = -1;
	free(b);
	return rc;
}

static void
afp_poll_stats(struct vpk_io_port *p)
{
	struct afp_be *b = p->be;
	struct tpacket_stats_v3 ks;
	socklen_t sl = sizeof(ks);

	if (getsockopt(p->fd, SOL_PACKET, PACKET_STATISTICS, &ks, &sl) == 0)
		b->kdrops += ks.tp_drops;       /* reading resets the kernel's counters */
}

static int
afp_close(struct vpk_io_port *p, char *err, size_t len)
{
	struct afp_be *b = p->be;

	(void)err;
	(void)len;
	munmap(b->ring, b->ring_len);
	close(p->fd);
	free(b);
	return 0;                       /* received packets were copied: the ring holds no buffer */
}

static int
afp_rx(struct vpk_io_port *p, uint32_t *idx, uint32_t n)
{
	struct afp_be *b = p->be;
	uint32_t bufs[VPK_IO_BURST_MAX], have, used = 0, got = 0;
	uint16_t lens[VPK_IO_BURST_MAX];
	uint32_t room = vpk_pool_data_size(p->pool);

	if (b->rx_rc != 0)
		return b->rx_rc;
	if (b->pkt == NULL) {
		struct tpacket_block_desc *bd = (void *)(b->ring + (size_t)b->cur * BLOCK_SIZE);

		if (!(__atomic_load_n(&bd->hdr.bh1.block_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER)) {
			int e = 0;
			socklen_t el = sizeof(e);

			/* Idle: now and then ask whether the interface went away. */
			if (++b->idle >= 1024) {
				b->idle = 0;
				if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &e, &el) == 0 && e != 0 &&
				    (e == ENETDOWN || e == ENXIO || e == ENODEV)) {
					b->rx_rc = -ENETDOWN;
					snprintf(p->err, sizeof(p->err), "af_packet %s: interface went away",
						 p->ifname);
					return b->rx_rc;
				}
			}
			return 0;
		}
		b->idle = 0;
		b->left = bd->hdr.bh1.num_pkts;
		b->pkt = (void *)((uint8_t *)bd + bd->hdr.bh1.offset_to_first_pkt);
	}
	have = vpk_pool_alloc_burst(p->pool, bufs, n);
	if (have == 0) {
		p->st.rx_nobuf++;
		return 0;
	}
	while (used < have) {
		struct tpacket3_hdr *h = b->pkt;

		if (b->left == 0) {
			struct tpacket_block_desc *bd = (void *)(b->ring + (size_t)b->cur * BLOCK_SIZE);

			__atomic_store_n(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
			b->cur = (b->cur + 1) % b->n_blocks;
			bd = (void *)(b->ring + (size_t)b->cur * BLOCK_SIZE);
			if (!(__atomic_load_n(&bd->hdr.bh1.block_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER)) {
				b->pkt = NULL;
				break;
			}
			b->left = bd->hdr.bh1.num_pkts;
			b->pkt = (void *)((uint8_t *)bd + bd->hdr.bh1.offset_to_first_pkt);
			continue;
		}
		/* A VLAN tag the kernel took out of the frame (rx offload) is put back, as libpcap does. */
		uint32_t tag = (h->tp_status & TP_STATUS_VLAN_VALID) && h->tp_snaplen >= 12 ? 4 : 0;

		if (h->tp_snaplen + tag > room || h->tp_snaplen + tag > 0xffffu) {
			p->st.rx_skipped++;
		} else {
			uint8_t *dst = vpk_buf_area(vpk_buf_from_idx(p->base, bufs[used])) + VPK_BUF_HEADROOM;
			const uint8_t *src = (const uint8_t *)h + h->tp_mac;

			if (tag) {
				uint16_t tpid = (h->tp_status & TP_STATUS_VLAN_TPID_VALID) && h->hv1.tp_vlan_tpid
						? h->hv1.tp_vlan_tpid : ETH_P_8021Q;
				uint8_t t[4] = { (uint8_t)(tpid >> 8), (uint8_t)tpid, (uint8_t)(h->hv1.tp_vlan_tci >> 8),
						 (uint8_t)h->hv1.tp_vlan_tci };

				memcpy(dst, src, 12);
				memcpy(dst + 12, t, 4);
				memcpy(dst + 16, src + 12, h->tp_snaplen - 12);
			} else {
				memcpy(dst, src, h->tp_snaplen);
			}
			lens[got] = (uint16_t)(h->tp_snaplen + tag);
			idx[got++] = bufs[used++];
		}
		b->left--;
		b->pkt = (void *)((uint8_t *)h + h->tp_next_offset);
	}
	if (b->pkt != NULL && b->left == 0) {
		struct tpacket_block_desc *bd = (void *)(b->ring + (size_t)b->cur * BLOCK_SIZE);

		__atomic_store_n(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		b->cur = (b->cur + 1) % b->n_blocks;
		b->pkt = NULL;
	}
	if (used < have)
		vpk_pool_free_bulk(p->pool, bufs + used, have - used);
	p->k->meta_fill(p->base, idx, lens, got, p->conf.port_id);
	return (int)got;
}

static uint32_t
afp_tx(struct vpk_io_port *p, const uint32_t *idx, uint32_t n)
{
	struct mmsghdr msg[VPK_IO_BURST_MAX];
	struct iovec iov[VPK_IO_BURST_MAX];
	uint32_t m = 0, sent = 0;

	for (uint32_t i = 0; i < n; i++) {
		struct vpk_buf *x = vpk_buf_from_idx(p->base, idx[i]);

		/* Chains are not produced by vpk's nodes yet: such a packet is refused. */
		if (x->flags & VPK_BUF_F_NEXT_VALID)
			continue;
		iov[m].iov_base = vpk_buf_data(x);
		iov[m].iov_len = x->len;
		memset(&msg[m], 0, sizeof(msg[m]));
		msg[m].msg_hdr.msg_iov = &iov[m];
		msg[m].msg_hdr.msg_iovlen = 1;
		m++;
	}
	while (sent < m) {
		int r = sendmmsg(p->fd, msg + sent, m - sent, MSG_DONTWAIT);

		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			break;          /* EAGAIN / ENOBUFS (full), ENETDOWN / ENXIO (gone): the rest drops */
		}
		sent += (uint32_t)r;
	}
	vpk_pool_free_bulk(p->pool, idx, n);    /* the kernel copied what it took */
	return sent;
}

static bool
afp_link_up(struct vpk_io_port *p)
{
	return io_live_link_up(p);
}

static void
afp_stats(const struct vpk_io_port *p, struct vpk_io_stats *st)
{
	struct afp_be *b = p->be;

	afp_poll_stats((struct vpk_io_port *)p);
	st->rx_drop += b->kdrops;
}

const struct io_ops io_afpacket_ops = {
	.name = "af_packet", .open = afp_open, .close = afp_close, .rx = afp_rx, .tx = afp_tx,
	.link_up = afp_link_up, .stats = afp_stats,
};
