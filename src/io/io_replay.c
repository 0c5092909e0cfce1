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
 *
 * The receive loop is what a NIC driver's is and no more: it copies from a
 * compact copy of the capture made at open (each packet at a 64-byte
 * aligned offset, in file order: the copies read one sequential stream,
 * where the stored buffers lie a buffer size apart in the pool), walks the
 * packets' data pointers and lengths (two arrays, REPLAY_AHEAD entries
 * longer than the capture, wrapping, so the prefetch ahead needs no bound)
 * in runs up to the end of the capture, and counts the received bytes
 * itself (no second pass over the metadata in vpk_io_rx_burst()).
 */
#include <stdlib.h>
#include <string.h>

#include <vpk/pcap.h>
#include "buf/pool_priv.h"
#include "io/io_priv.h"

/* Packets prefetched ahead of the copy. */
#define REPLAY_AHEAD 8u

/* A metadata line as one value (GCC's generic vectors: kept in registers, stored whole). */
typedef uint64_t meta_line __attribute__((vector_size(64)));
_Static_assert(sizeof(meta_line) == sizeof(struct vpk_buf), "a metadata line is 64 bytes");

struct replay_be {
	struct io_pcap_out out;         /* first: io_pcap_out_be_tx() */
	uint32_t *pkt;                  /* the capture, one stored buffer each, file order */
	const uint8_t **data;           /* their first bytes in the arena, and ... */
	uint16_t *len;                  /* ... lengths: rx never touches their metadata lines;
					   both n + REPLAY_AHEAD long, wrapping around */
	uint8_t *arena;                 /* the compact copy the data pointers point into */
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
		b->data = malloc(((size_t)b->n + REPLAY_AHEAD) * sizeof(*b->data));
		b->len = malloc(((size_t)b->n + REPLAY_AHEAD) * sizeof(*b->len));
		if (b->data == NULL || b->len == NULL)
			rc = vpk_errf(err, len, -ENOMEM, "replay %s: out of memory", p->conf.rx_pcap);
		size_t total = 0;

		for (uint32_t i = 0; rc == 0 && i < b->n; i++)
			total += (vpk_buf_from_idx(p->base, b->pkt[i])->len + 63u) / 64u * 64u;
		b->arena = rc == 0 ? aligned_alloc(64, total + 64) : NULL;
		if (rc == 0 && b->arena == NULL)
			rc = vpk_errf(err, len, -ENOMEM, "replay %s: out of memory", p->conf.rx_pcap);
		total = 0;
		for (uint32_t i = 0; rc == 0 && i < b->n + REPLAY_AHEAD; i++) {
			struct vpk_buf *s = vpk_buf_from_idx(p->base, b->pkt[i % b->n]);

			if (i < b->n) {
				memcpy(b->arena + total, vpk_buf_data(s), s->len);
				b->data[i] = b->arena + total;
				total += (s->len + 63u) / 64u * 64u;
			} else {
				b->data[i] = b->data[i - b->n];
			}
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
	free(b->arena);
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

/* Copy stored packets @from.. into the @m buffers @idx, each metadata line written whole (the
 * pool's template with the packet's fields: one store, pool_alloc_raw()); the bytes received. */
static uint64_t
copy_run(struct vpk_io_port *p, const struct replay_be *b, uint32_t from, const uint32_t *idx, uint32_t m)
{
	const uint8_t *const *src = b->data + from;
	const uint16_t *lens = b->len + from;
	struct vpk_buf t = *pool_template(p->pool);     /* with this port's rx_if ... */
	meta_line line;                                 /* ... in registers, whole */
	void *base = p->base;
	uint64_t bytes = 0;
	const bool small_ok = b->small_ok;      /* locals and loads first: the stores to a buffer */
						/* could alias *b for the compiler */
	t.rx_if = p->conf.port_id;
	memcpy(&line, &t, sizeof(line));
	for (uint32_t k = 0; k < m; k++) {
		struct vpk_buf *d = vpk_buf_from_idx(base, idx[k]);
		uint8_t *dst = vpk_buf_area(d) + t.data_off;
		const uint8_t *s = src[k];
		uint16_t len = lens[k];

		__builtin_prefetch(src[k + REPLAY_AHEAD]);
		memcpy(d, &line, sizeof(line));
		d->len = len;
		d->total_len = len;
		bytes += len;
		if (len <= 64 && small_ok)              /* one fixed-size copy: a few vector moves */
			memcpy(dst, s, 64);
		else
			memcpy(dst, s, len);
	}
	return bytes;
}

static int
replay_rx(struct vpk_io_port *p, uint32_t *idx, uint32_t n)
{
	struct replay_be *b = p->be;
	uint32_t got, i = 0;

	if (b->loops != 0 && b->pass >= b->loops)
		return -ENODATA;
	got = pool_alloc_raw(p->pool, idx, n);     /* copy_run() writes each metadata line */
	if (got == 0) {
		p->st.rx_nobuf += n > 0;
		return 0;
	}
	/* In runs up to the end of the capture. */
	while (i < got) {
		uint32_t m = got - i < b->n - b->pos ? got - i : b->n - b->pos;

		p->st.rx_bytes += copy_run(p, b, b->pos, idx + i, m);
		i += m;
		b->pos += m;
		if (b->pos == b->n) {
			b->pos = 0;
			if (++b->pass == b->loops)
				break;
		}
	}
	if (i < got)            /* metadata never written: free as allocated (free reads none) */
		vpk_pool_free_bulk(p->pool, idx + i, got - i);
	return (int)i;
}

/* The pcap writer's transmit, with the bytes sent counted here (counts_bytes). */
static uint32_t
replay_tx(struct vpk_io_port *p, const uint32_t *idx, uint32_t n)
{
	uint64_t bytes = 0;
	uint32_t sent;

	for (uint32_t i = 0; i < n; i++)
		bytes += vpk_buf_from_idx(p->base, idx[i])->total_len;
	sent = io_pcap_out_be_tx(p, idx, n);
	p->st.tx_bytes += sent == n ? bytes : 0;
	return sent;
}

const struct io_ops io_replay_ops = {
	.name = "replay", .open = replay_open, .close = replay_close, .rx = replay_rx, .tx = replay_tx,
	.flush = io_pcap_out_be_flush, .link_up = io_no_link_up, .counts_bytes = true,
};
