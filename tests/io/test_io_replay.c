/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The replay backend (VPK_IO_REPLAY): the capture is held in pool buffers
 * from open to close (counted by vpk_pool_in_use()), every rx_burst hands
 * out fresh copies in file order wrapping around, replay_loops passes end
 * in a sticky -ENODATA, an empty pool is counted as rx_nobuf (nothing
 * skipped), a capture larger than the pool and an empty capture are
 * refused with a reason, a tx file is written, and every buffer is back in
 * the pool after close.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <vpk/io.h>
#include <vpk/pcap.h>
#include "lib/check.h"

static struct vpk_pool *
mkpool(uint32_t n)
{
	struct vpk_pool_conf pc = { .name = "t", .n_bufs = n };
	struct vpk_pool *p = NULL;

	CHECK(vpk_pool_create(&pc, &p) == 0, "pool");
	return p;
}

/* Packet i: 60 + i % 200 bytes, its number in the first 4, then i's low byte. */
static void
write_capture(const char *path, uint32_t n_pkts)
{
	struct vpk_pool *pool = mkpool(4);
	struct vpk_pcap_writer *w;

	CHECK(vpk_pcap_writer_create(&(struct vpk_pcap_writer_conf){ .path = path }, &w) == 0, "writer: %s",
	      vpk_last_error());
	for (uint32_t i = 0; i < n_pkts; i++) {
		uint32_t x;
		struct vpk_buf *b;

		CHECK(vpk_pool_alloc_burst(pool, &x, 1) == 1, "alloc");
		b = vpk_buf_from_idx(vpk_pool_base(pool), x);
		b->len = b->total_len = (uint16_t)(60 + i % 200);
		memset(vpk_buf_data(b), (int)(i & 0xff), b->len);
		memcpy(vpk_buf_data(b), &i, sizeof(i));
		CHECK(vpk_pcap_write_burst(w, pool, &x, NULL, 1) == 0, "write");
		vpk_pool_free_bulk(pool, &x, 1);
	}
	CHECK(vpk_pcap_writer_destroy(w) == 0, "close: %s", vpk_last_error());
	vpk_pool_destroy(pool);
}

static bool
is_packet(struct vpk_buf *b, uint32_t i)
{
	uint32_t got;

	memcpy(&got, vpk_buf_data(b), sizeof(got));
	return got == i && b->len == 60 + i % 200 && b->total_len == b->len &&
	       vpk_buf_data(b)[b->len - 1] == (uint8_t)(i & 0xff);
}

static void
loops(const char *in)
{
	struct vpk_pool *pool = mkpool(256);
	void *base = vpk_pool_base(pool);
	struct vpk_io_conf c = { .type = VPK_IO_REPLAY, .rx_pcap = in, .port_id = 5, .replay_loops = 3 };
	struct vpk_io_port *p;
	struct vpk_io_stats st;
	uint32_t idx[VPK_IO_BURST_MAX], seen = 0;
	int got;

	c.pool = pool;
	CHECK(vpk_io_create(&c, &p) == 0, "open: %s", vpk_last_error());
	CHECK(strcmp(vpk_io_type_name(p), "replay") == 0, "type name %s", vpk_io_type_name(p));
	CHECK(vpk_pool_in_use(pool) == 100, "the capture holds %u buffers, want 100", vpk_pool_in_use(pool));
	while ((got = vpk_io_rx_burst(p, idx, 37)) > 0) {
		for (int k = 0; k < got; k++) {
			struct vpk_buf *b = vpk_buf_from_idx(base, idx[k]);

			CHECK(is_packet(b, seen % 100), "packet %u is not record %u", seen, seen % 100);
			CHECK(b->rx_if == 5, "rx_if %u", b->rx_if);
			/* Every other metadata field as a fresh allocation has it, although the
			 * last round left them dirty in these (reused) buffers. */
			CHECK(b->data_off == VPK_BUF_HEADROOM && b->flags == 0 && b->error == 0 &&
			      b->next == VPK_BUF_NONE && b->tx_if == 0 && b->adj == 0 && b->l3_off == 0 &&
			      b->l4_off == 0 && b->trace_id == 0 && b->opaque[19] == 0,
			      "packet %u: metadata not reset", seen);
			/* A copy: writing it must not change the stored packet. */
			memset(vpk_buf_data(b), 0xee, 4);
			b->flags = VPK_BUF_F_TRACE, b->error = 7, b->tx_if = 3, b->adj = 9, b->l3_off = 14;
			b->l4_off = 34, b->trace_id = 2, b->opaque[19] = 1;
			seen++;
		}
		vpk_pool_free_bulk(pool, idx, (uint32_t)got);
	}
	CHECK(got == -ENODATA && vpk_io_rx_burst(p, idx, 1) == -ENODATA, "end after 3 passes, sticky: %d", got);
	CHECK(seen == 300, "replayed %u packets, want 300", seen);
	vpk_io_get_stats(p, &st);
	CHECK(st.rx == 300 && st.rx_nobuf == 0, "rx %llu", (unsigned long long)st.rx);
	/* 3 passes over lengths 60 + i % 200, i < 100. */
	CHECK(st.rx_bytes == 3 * (100 * 60 + 99 * 100 / 2), "rx_bytes %llu", (unsigned long long)st.rx_bytes);
	CHECK(vpk_io_destroy(p) == 0, "close: %s", vpk_last_error());
	CHECK(vpk_pool_in_use(pool) == 0, "%u buffers not back after close", vpk_pool_in_use(pool));
	vpk_pool_destroy(pool);
}

static void
forever_and_empty_pool(const char *in, const char *out)
{
	struct vpk_pool *pool = mkpool(160);
	struct vpk_io_conf c = { .type = VPK_IO_REPLAY, .rx_pcap = in, .tx_pcap = out };
	struct vpk_io_port *p;
	struct vpk_io_stats st;
	uint32_t idx[VPK_IO_BURST_MAX], hold[64], total = 0;
	int got;

	c.pool = pool;
	CHECK(vpk_io_create(&c, &p) == 0, "open: %s", vpk_last_error());
	for (int r = 0; r < 50; r++) {
		got = vpk_io_rx_burst(p, idx, 1000);    /* clamped to VPK_IO_BURST_MAX, then to the pool */
		CHECK(got == 60, "burst %d: %d packets, want the pool's 60 free buffers", r, got);
		if (got <= 0)
			break;
		CHECK(is_packet(vpk_buf_from_idx(vpk_pool_base(pool), idx[0]), total % 100), "order at %u", total);
		total += (uint32_t)got;
		if (r < 49)
			vpk_pool_free_bulk(pool, idx, (uint32_t)got);
	}
	CHECK(total == 3000, "no end without replay_loops: %u", total);
	/* The pool is empty now: nothing is received, nothing skipped. */
	CHECK(vpk_io_rx_burst(p, hold, 64) == 0, "rx from an empty pool");
	vpk_io_get_stats(p, &st);
	CHECK(st.rx_nobuf == 1 && st.rx == 3000, "rx_nobuf %llu rx %llu", (unsigned long long)st.rx_nobuf,
	      (unsigned long long)st.rx);
	CHECK(vpk_io_tx_burst(p, idx, 10) == 10, "tx");
	vpk_io_get_stats(p, &st);
	CHECK(st.tx == 10 && st.tx_bytes == 10 * 100 + 45, "tx %llu, %llu bytes (records 40..49)",
	      (unsigned long long)st.tx, (unsigned long long)st.tx_bytes);
	vpk_pool_free_bulk(pool, idx + 10, 50);
	got = vpk_io_rx_burst(p, hold, 1);
	CHECK(got == 1 && is_packet(vpk_buf_from_idx(vpk_pool_base(pool), hold[0]), 0), "next is record 0");
	vpk_pool_free_bulk(pool, hold, 1);
	CHECK(vpk_io_destroy(p) == 0, "close: %s", vpk_last_error());
	CHECK(vpk_pool_in_use(pool) == 0, "%u buffers not back after close", vpk_pool_in_use(pool));
	{
		struct vpk_pcap_reader *r;
		uint32_t x, k = 0;

		CHECK(vpk_pcap_reader_create(&(struct vpk_pcap_reader_conf){ .path = out }, &r) == 0, "tx file: %s",
		      vpk_last_error());
		while (vpk_pcap_read_burst(r, pool, &x, NULL, 1) == 1) {
			CHECK(is_packet(vpk_buf_from_idx(vpk_pool_base(pool), x), (2940 + k) % 100), "tx record %u", k);
			vpk_pool_free_bulk(pool, &x, 1);
			k++;
		}
		CHECK(k == 10, "tx file has %u records, want 10", k);
		vpk_pcap_reader_destroy(r);
	}
	vpk_pool_destroy(pool);
}

static void
refused(const char *in, const char *empty)
{
	struct vpk_pool *pool = mkpool(64);
	struct vpk_io_conf c = { .pool = pool, .type = VPK_IO_REPLAY };
	struct vpk_io_port *p = NULL;
	enum vpk_io_type t;

	CHECK(vpk_io_create(&c, &p) == -EINVAL && strstr(vpk_last_error(), "needs an rx file"),
	      "replay without a file: %s", vpk_last_error());
	c.rx_pcap = in;
	CHECK(vpk_io_create(&c, &p) == -ENOBUFS && strstr(vpk_last_error(), "does not fit the pool"),
	      "100 packets in 64 buffers: %s", vpk_last_error());
	c.rx_pcap = empty;
	CHECK(vpk_io_create(&c, &p) == -ENODATA && strstr(vpk_last_error(), "no packet"),
	      "empty capture: %s", vpk_last_error());
	c.rx_pcap = "/nonexistent/x.pcap";
	CHECK(vpk_io_create(&c, &p) == -ENOENT && strstr(vpk_last_error(), "/nonexistent/x.pcap"),
	      "missing capture: %s", vpk_last_error());
	CHECK(vpk_pool_in_use(pool) == 0, "refused opens kept %u buffers", vpk_pool_in_use(pool));
	CHECK(vpk_io_type_parse("replay", &t) == 0 && t == VPK_IO_REPLAY, "parse replay");
	vpk_pool_destroy(pool);
}

int
main(void)
{
	char dir[] = "/tmp/vpk_io_replay.XXXXXX", in[512], out[512], empty[512];

	check_init("io_replay");
	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(in, sizeof(in), "%s/in.pcap", dir);
	snprintf(out, sizeof(out), "%s/out.pcap", dir);
	snprintf(empty, sizeof(empty), "%s/empty.pcap", dir);
	write_capture(in, 100);
	write_capture(empty, 0);
	loops(in);
	forever_and_empty_pool(in, out);
	refused(in, empty);
	unlink(in);
	unlink(out);
	unlink(empty);
	rmdir(dir);
	return check_finish();
}
