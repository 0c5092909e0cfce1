/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The replay backend (VPK_IO_REPLAY): a capture replayed from memory, as
 * DPDK's net_pcap does with infinite_rx=1. At open the whole file is read
 * once into buffers of the port's own pool (they stay allocated, and
 * counted by vpk_pool_in_use(), until close); every rx_burst then allocates
 * fresh buffers and copies the next stored packets into them, wrapping
 * around at the end of the capture. So the measured loop pays what a NIC
 * driver's receive path pays (buffer allocation, a packet's bytes written),
 * never file I/O. conf->replay_loops bounds the passes over the capture
 * (0: forever); after the last one rx_burst returns -ENODATA, as at the end
 * of a pcap file. A tx_pcap, when given, is written as by the pcap backend.
 */
#include <stdlib.h>
#include <string.h>

#include <vpk/pcap.h>
#include "io/io_priv.h"

struct replay_be {
	struct io_pcap_out out;         /* first: io_pcap_out_be_tx() */
	uint32_t *pkt;                  /* the capture, one stored buffer each, file order */
	const uint8_t **data;           /* their first bytes, and ... */
	uint16_t *len;                  /* ... lengths: rx never touches their metadata lines */
	uint32_t n, cap;
	uint32_t pos;                   /* next packet to replay */
	uint64_t pass, loops;           /* passes done, passes wanted (0: forever) */
	bool small_ok;                  /* data areas hold 64 bytes: short packets copied as 64 */
};

static int
grow(struct replay_be *b, uint32_t need)
{
	uint32_t cap = b->cap ? b->cap : 1024;
	uint32_t *a;

	while (cap < need)
		cap *= 2;
	if (cap == b->cap)
		return 0;
	a = realloc(b->pkt, (size_t)cap * sizeof(*a));
	if (a == NULL)
		return -ENOMEM;
	b->pkt = a;
	b->cap = cap;
	return 0;
}

/* Read the whole capture into stored buffers. */
static int
load(struct vpk_io_port *p, struct replay_be *b, char *err, size_t len)
{
	struct vpk_pcap_reader_conf rc_conf = { .path = p->conf.rx_pcap, .rx_if = p->conf.port_id };
	struct vpk_pcap_reader *rd;
	int rc, got;

	rc = vpk_pcap_reader_create(&rc_conf, &rd);
	if (rc != 0)
		return vpk_errcopy(err, len, rc);
	for (;;) {
		if (grow(b, b->n + VPK_IO_BURST_MAX) != 0) {
			rc = vpk_errf(err, len, -ENOMEM, "replay %s: out of memory", p->conf.rx_pcap);
			break;
		}
		got = vpk_pcap_read_burst(rd, p->pool, b->pkt + b->n, NULL, VPK_IO_BURST_MAX);
		if (got > 0) {
			b->n += (uint32_t)got;
			continue;
		}
		if (got == -ENOBUFS)
			rc = vpk_errf(err, len, -ENOBUFS,
				      "replay %s: the capture does not fit the pool (%u buffers held after %u packets)",
				      p->conf.rx_pcap, vpk_pool_size(p->pool), b->n);
		else if (got < 0)
			rc = vpk_errcopy(err, len, got);
		else if (b->n == 0)
			rc = vpk_errf(err, len, -ENODATA, "replay %s: the capture has no packet to replay",
				      p->conf.rx_pcap);
		break;
	}
	vpk_pcap_reader_destroy(rd);
	if (rc == 0) {
		b->data = malloc((size_t)b->n * sizeof(*b->data));
		b->len = malloc((size_t)b->n * sizeof(*b->len));
		if (b->data == NULL || b->len == NULL)
			rc = vpk_errf(err, len, -ENOMEM, "replay %s: out of memory", p->conf.rx_pcap);
		for (uint32_t i = 0; rc == 0 && i < b->n; i++) {
			struct vpk_buf *s = vpk_buf_from_idx(p->base, b->pkt[i]);

			b->data[i] = vpk_buf_data(s);
			b->len[i] = s->len;
		}
	}
	return rc;
}

static void
release(struct vpk_io_port *p, struct replay_be *b)
{
	if (b->n > 0)
		vpk_pool_free_bulk(p->pool, b->pkt, b->n);
	free(b->pkt);
	free(b->data);
	free(b->len);
	free(b);
}

static int
replay_open(struct vpk_io_port *p, char *err, size_t len)
{
	struct replay_be *b = calloc(1, sizeof(*b));
	int rc;

	if (b == NULL)
		return vpk_errf(err, len, -ENOMEM, "io: out of memory");
	b->loops = p->conf.replay_loops;
	b->small_ok = vpk_pool_data_size(p->pool) >= 64;
	rc = load(p, b, err, len);
	if (rc == 0 && p->conf.tx_pcap != NULL)
		rc = io_pcap_out_open(&b->out, p->conf.tx_pcap, err, len);
	if (rc != 0) {
		release(p, b);
		return rc;
	}
	p->be = b;
	return 0;
}

static int
replay_close(struct vpk_io_port *p, char *err, size_t len)
{
	struct replay_be *b = p->be;
	int rc = io_pcap_out_close(p, &b->out, err, len);

	release(p, b);
	return rc;
}

static int
replay_rx(struct vpk_io_port *p, uint32_t *idx, uint32_t n)
{
	struct replay_be *b = p->be;
	void *base = p->base;
	uint32_t got, i;

	if (b->loops != 0 && b->pass >= b->loops)
		return -ENODATA;
	got = vpk_pool_alloc_burst(p->pool, idx, n);
	if (got == 0) {
		p->st.rx_nobuf += n > 0;
		return 0;
	}
	for (i = 0; i < got; i++) {
		struct vpk_buf *d = vpk_buf_from_idx(base, idx[i]);
		const uint8_t *src = b->data[b->pos];
		uint16_t len = b->len[b->pos];
		uint32_t ahead = b->pos + 8;

		while (ahead >= b->n)
			ahead -= b->n;
		/* The stored packets are far apart in the pool: fetch ahead. */
		__builtin_prefetch(b->data[ahead]);
		d->len = len;
		d->total_len = len;
		d->rx_if = p->conf.port_id;
		if (len <= 64 && b->small_ok)           /* one fixed-size copy: a few vector moves */
			memcpy(vpk_buf_data(d), src, 64);
		else
			memcpy(vpk_buf_data(d), src, len);
		if (++b->pos == b->n) {
			b->pos = 0;
			if (++b->pass == b->loops) {
				i++;
				break;
			}
		}
	}
	if (i < got)
		vpk_pool_free_bulk(p->pool, idx + i, got - i);
	return (int)i;
}

const struct io_ops io_replay_ops = {
	.name = "replay", .open = replay_open, .close = replay_close, .rx = replay_rx, .tx = io_pcap_out_be_tx,
	.flush = io_pcap_out_be_flush, .link_up = io_no_link_up,
};
