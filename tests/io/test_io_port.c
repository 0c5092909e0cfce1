/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The burst port interface (include/vpk/io.h) without privileges: argument
 * and error paths of every backend (missing interface, bad names, pool
 * unsuitable for AF_XDP), and the pcap backend end to end: a file read by
 * rx_burst until -ENODATA, sent with tx_burst to a second port's file,
 * compared record by record, counters checked, every buffer back in the
 * pool after close. Live traffic is tested in tests/integration/test_live.py.
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
mkpool(uint32_t n, uint32_t data_size)
{
	struct vpk_pool_conf pc = { .name = "t", .n_bufs = n, .data_size = data_size };
	struct vpk_pool *p = NULL;

	CHECK(vpk_pool_create(&pc, &p) == 0, "pool");
	return p;
}

static void
errors(void)
{
	struct vpk_pool *pool = mkpool(64, 0), *big = mkpool(16, 8192);
	struct vpk_io_port *p = NULL;
	struct vpk_io_conf c;
	enum vpk_io_type t;

	memset(&c, 0, sizeof(c));
	CHECK(vpk_io_create(&c, &p) == -EINVAL, "NULL pool accepted");
	CHECK(vpk_io_create(NULL, &p) == -EINVAL, "NULL conf accepted");
	c.pool = pool;
	c.type = VPK_IO_PCAP;
	CHECK(vpk_io_create(&c, &p) == -EINVAL && strstr(vpk_last_error(), "rx or a tx file"),
	      "pcap without files: %s", vpk_last_error());
	c.type = (enum vpk_io_type)99;
	CHECK(vpk_io_create(&c, &p) == -EINVAL, "bad type accepted");
	c.type = VPK_IO_AF_PACKET;
	CHECK(vpk_io_create(&c, &p) == -EINVAL, "no ifname accepted");
	c.ifname = "a-name-far-too-long";
	CHECK(vpk_io_create(&c, &p) == -EINVAL && strstr(vpk_last_error(), "1..15"), "long name: %s", vpk_last_error());
	c.ifname = "vpknosuch9";
	CHECK(vpk_io_create(&c, &p) == -ENODEV &&
	      strcmp(vpk_last_error(), "af_packet vpknosuch9: no such interface (in this network namespace)") == 0,
	      "missing interface: %s", vpk_last_error());
	c.type = VPK_IO_AF_XDP;
	CHECK(vpk_io_create(&c, &p) == -ENODEV && strstr(vpk_last_error(), "af_xdp vpknosuch9"),
	      "missing interface (xdp): %s", vpk_last_error());
	/* A pool whose stride exceeds a page cannot be a UMEM (lo exists in every namespace). */
	c.ifname = "lo";
	{
		int rc;

		c.pool = big;
		rc = vpk_io_create(&c, &p);
		c.pool = pool;

		CHECK(rc == -EINVAL || rc == -ENOTSUP, "8 KiB buffers accepted as UMEM chunks: %d %s", rc, vpk_last_error());
		if (rc == -EINVAL)
			CHECK(strstr(vpk_last_error(), "UMEM chunk") != NULL, "stride message: %s", vpk_last_error());
	}
	c.type = VPK_IO_PCAP;
	c.rx_pcap = "/nonexistent/x.pcap";
	CHECK(vpk_io_create(&c, &p) == -ENOENT && strstr(vpk_last_error(), "/nonexistent/x.pcap"),
	      "missing pcap: %s", vpk_last_error());
	CHECK(vpk_io_type_parse("af_xdp", &t) == 0 && t == VPK_IO_AF_XDP, "parse af_xdp");
	CHECK(vpk_io_type_parse("af_packet", &t) == 0 && t == VPK_IO_AF_PACKET, "parse af_packet");
	CHECK(vpk_io_type_parse("dpdk", &t) == 0 && t == VPK_IO_DPDK, "parse dpdk");
	CHECK(vpk_io_type_parse("netmap", &t) == -EINVAL, "parse netmap accepted");
	/* libvpk alone has no DPDK backend: a clear -ENOTSUP, nothing allocated. */
	c.type = VPK_IO_DPDK;
	c.ifname = "net_null0";
	CHECK(vpk_io_create(&c, &p) == -ENOTSUP && strstr(vpk_last_error(), "dpdk net_null0") != NULL,
	      "dpdk without a backend: %s", vpk_last_error());
	{
		uint32_t rx = 0, tx = 0;

		CHECK(vpk_io_queue_count("lo", &rx, &tx) == 0 && rx >= 1 && tx >= 1,
		      "queues of lo: %u %u", rx, tx);
		CHECK(vpk_io_queue_count("vpknosuch9", &rx, &tx) == -ENODEV &&
		      strstr(vpk_last_error(), "vpknosuch9") != NULL, "queues of a missing interface: %s", vpk_last_error());
		CHECK(vpk_io_queue_count("", &rx, &tx) == -EINVAL, "queues of ''");
	}
	CHECK(vpk_io_destroy(NULL) == 0, "close NULL");
	CHECK(vpk_pool_in_use(pool) == 0, "buffers leaked by failed opens");
	vpk_pool_destroy(pool);
	vpk_pool_destroy(big);
}

static void
pcap_roundtrip(const char *dir)
{
	char in[512], out[512];
	struct vpk_pool *pool = mkpool(512, 0);
	void *base = vpk_pool_base(pool);
	struct vpk_pcap_writer *w;
	struct vpk_io_port *a, *b;
	struct vpk_io_conf ca = { .type = VPK_IO_PCAP, .port_id = 7 }, cb = { .type = VPK_IO_AUTO };
	struct vpk_io_stats st;
	uint32_t idx[256], total = 0, n_pkts = 1000;
	int got;

	snprintf(in, sizeof(in), "%s/in.pcap", dir);
	snprintf(out, sizeof(out), "%s/out.pcap", dir);
	CHECK(vpk_pcap_writer_create(&(struct vpk_pcap_writer_conf){ .path = in }, &w) == 0, "writer: %s",
	      vpk_last_error());
	for (uint32_t i = 0; i < n_pkts; i++) {
		uint32_t x;
		struct vpk_buf *bb;

		CHECK(vpk_pool_alloc_burst(pool, &x, 1) == 1, "alloc");
		bb = vpk_buf_from_idx(base, x);
		bb->len = bb->total_len = (uint16_t)(60 + i % 1400);
		memset(vpk_buf_data(bb), (int)i, bb->len);
		memcpy(vpk_buf_data(bb), &i, sizeof(i));
		CHECK(vpk_pcap_write_burst(w, pool, &x, NULL, 1) == 0, "write");
		vpk_pool_free_bulk(pool, &x, 1);
	}
	CHECK(vpk_pcap_writer_destroy(w) == 0, "close: %s", vpk_last_error());
	ca.rx_pcap = in;
	cb.tx_pcap = out;
	ca.pool = pool;
	CHECK(vpk_io_create(&ca, &a) == 0, "open a: %s", vpk_last_error());
	cb.pool = pool;
	CHECK(vpk_io_create(&cb, &b) == 0, "open b: %s", vpk_last_error());
	CHECK(strcmp(vpk_io_type_name(a), "pcap") == 0 && strcmp(vpk_io_type_name(b), "pcap") == 0, "type names");
	CHECK(vpk_io_fd(a) == -1 && vpk_io_link_up(a), "pcap fd / link");
	CHECK(vpk_io_rx_burst(b, idx, 32) == -ENODATA, "tx-only port has no input");
	while ((got = vpk_io_rx_burst(a, idx, 1000)) > 0) {     /* clamped to VPK_IO_BURST_MAX */
		CHECK(got <= (int)VPK_IO_BURST_MAX, "burst %d above the max", got);
		for (int i = 0; i < got; i++)
			CHECK(vpk_buf_from_idx(base, idx[i])->rx_if == 7, "rx_if");
		total += (uint32_t)got;
		CHECK(vpk_io_tx_burst(b, idx, (uint32_t)got) == (uint32_t)got, "tx");
	}
	CHECK(got == -ENODATA && vpk_io_rx_burst(a, idx, 1) == -ENODATA, "end of file is -ENODATA, sticky: %d", got);
	CHECK(total == n_pkts, "read %u of %u", total, n_pkts);
	vpk_io_get_stats(a, &st);
	CHECK(st.rx == n_pkts && st.tx == 0, "port a counters rx %llu", (unsigned long long)st.rx);
	vpk_io_get_stats(b, &st);
	CHECK(st.tx == n_pkts && st.tx_drop == 0, "port b counters tx %llu", (unsigned long long)st.tx);
	/* a has no tx file: its tx refuses, frees and counts drops */
	CHECK(vpk_pool_alloc_burst(pool, idx, 3) == 3, "alloc");
	CHECK(vpk_io_tx_burst(a, idx, 3) == 3, "tx on rx-only port");
	vpk_io_get_stats(a, &st);
	CHECK(st.tx_drop == 3 && st.tx == 0, "rx-only port tx_drop %llu", (unsigned long long)st.tx_drop);
	CHECK(vpk_io_destroy(a) == 0 && vpk_io_destroy(b) == 0, "close: %s", vpk_last_error());
	CHECK(vpk_pool_in_use(pool) == 0, "%u buffers not back in the pool", vpk_pool_in_use(pool));
	/* compare the files record by record */
	{
		struct vpk_pcap_reader *r1, *r2;
		uint32_t x1, x2, k = 0;

		CHECK(vpk_pcap_reader_create(&(struct vpk_pcap_reader_conf){ .path = in }, &r1) == 0, "reopen");
		CHECK(vpk_pcap_reader_create(&(struct vpk_pcap_reader_conf){ .path = out }, &r2) == 0, "reopen out");
		while (vpk_pcap_read_burst(r1, pool, &x1, NULL, 1) == 1) {
			struct vpk_buf *b1 = vpk_buf_from_idx(base, x1), *b2;

			CHECK(vpk_pcap_read_burst(r2, pool, &x2, NULL, 1) == 1, "out short at %u", k);
			b2 = vpk_buf_from_idx(base, x2);
			CHECK(b1->len == b2->len && memcmp(vpk_buf_data(b1), vpk_buf_data(b2), b1->len) == 0,
			      "record %u differs", k);
			vpk_pool_free_bulk(pool, &x1, 1);
			vpk_pool_free_bulk(pool, &x2, 1);
			k++;
		}
		CHECK(k == n_pkts && vpk_pcap_read_burst(r2, pool, &x2, NULL, 1) == 0, "record counts");
		vpk_pcap_reader_destroy(r1);
		vpk_pcap_reader_destroy(r2);
	}
	unlink(in);
	unlink(out);
	vpk_pool_destroy(pool);
}

int
main(void)
{
	char dir[] = "/tmp/vpk_io_port.XXXXXX";

	check_init("io_port");
	errors();
	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	pcap_roundtrip(dir);
	rmdir(dir);
	return check_finish();
}
