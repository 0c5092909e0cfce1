/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the pcap writer, as a round trip through the reader. The
 * input is packets [len16][ts8][len bytes]... (up to 32; the first byte
 * picks microsecond or nanosecond files and whether the last packet is a
 * two-buffer chain); they are written with vpk_pcap_write_burst() to a
 * temporary file, read back with vpk_pcap_read_burst(), and must come back
 * with the same bytes, lengths, and timestamps (rounded down to the
 * microsecond in a microsecond file). Buffers are all returned (in_use 0)
 * and the writer's and reader's counts agree.
 */
// fuzz-iterations: 5000
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <vpk/buf.h>
#include <vpk/pcap.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_PKTS 32
#define DATA_SIZE 1024

static struct vpk_pool *pool;
static char path[64];

static void
cleanup(void)
{
	unlink(path);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t idx[MAX_PKTS + 1], ridx[MAX_PKTS], n = 0, nbuf;
	uint64_t ts[MAX_PKTS], rts[MAX_PKTS];
	const uint8_t *pk[MAX_PKTS];
	uint16_t len[MAX_PKTS];
	struct vpk_pcap_writer *w;
	struct vpk_pcap_reader *r;
	bool nsec, chain;
	void *base;
	int rc;

	if (pool == NULL) {
		struct vpk_pool_conf c = { .name = "fuzz", .n_bufs = 128, .data_size = DATA_SIZE };
		int fd;

		snprintf(path, sizeof(path), "/tmp/vpk-fuzz-pcap-XXXXXX");
		fd = mkstemp(path);
		if (fd < 0 || vpk_pool_create(&c, &pool) != 0)
			abort();
		close(fd);
		atexit(cleanup);
	}
	if (size == 0)
		return 0;
	nsec = data[0] & 1;
	chain = data[0] & 2;
	for (size_t at = 1; at + 10 <= size && n < MAX_PKTS; n++) {
		uint16_t l = (uint16_t)(data[at] | data[at + 1] << 8) % DATA_SIZE;

		memcpy(&ts[n], data + at + 2, 8);
		ts[n] %= UINT64_C(4000000000) * 1000000000;     /* within the 32-bit seconds of the format */
		at += 10;
		if (l > size - at)
			l = (uint16_t)(size - at);
		pk[n] = data + at;
		len[n] = l;
		at += l;
	}
	if (n == 0)
		return 0;
	chain = chain && len[n - 1] >= 2;
	nbuf = n + chain;
	if (vpk_pool_alloc_burst(pool, idx, nbuf) != nbuf)
		abort();
	base = vpk_pool_base(pool);
	for (uint32_t i = 0; i < n; i++) {
		struct vpk_buf *b = vpk_buf_from_idx(base, idx[i]);
		uint16_t here = chain && i == n - 1 ? len[i] / 2 : len[i];

		memcpy(vpk_buf_data(b), pk[i], here);
		b->len = here;
		b->total_len = len[i];
		if (here != len[i]) {           /* the rest in a second buffer */
			struct vpk_buf *b2 = vpk_buf_from_idx(base, idx[n]);

			memcpy(vpk_buf_data(b2), pk[i] + here, len[i] - here);
			b2->len = (uint16_t)(len[i] - here);
			b2->total_len = b2->len;
			b->next = idx[n];
			b->flags |= VPK_BUF_F_NEXT_VALID;
		}
	}
	if (vpk_pcap_writer_create(&(struct vpk_pcap_writer_conf){ .path = path, .nsec = nsec }, &w) != 0)
		abort();
	if (vpk_pcap_write_burst(w, pool, idx, ts, n) != 0 || vpk_pcap_writer_count(w) != n ||
	    vpk_pcap_writer_destroy(w) != 0)
		abort();
	vpk_pool_free_bulk(pool, idx, nbuf);
	if (vpk_pcap_reader_create(&(struct vpk_pcap_reader_conf){ .path = path, .rx_if = 3 }, &r) != 0)
		abort();
	for (uint32_t got = 0; got < n;) {
		rc = vpk_pcap_read_burst(r, pool, ridx, rts, n - got);
		if (rc <= 0)
			abort();        /* fewer records than written */
		for (int i = 0; i < rc; i++, got++) {
			struct vpk_buf *b = vpk_buf_from_idx(base, ridx[i]);
			uint64_t want = nsec ? ts[got] : ts[got] / 1000 * 1000;

			if (b->len != len[got] || b->rx_if != 3 || rts[i] != want ||
			    memcmp(vpk_buf_data(b), pk[got], len[got]) != 0) {
				fprintf(stderr, "fuzz: record %u differs after the round trip: len %u/%u rx_if %u "
					"ts %llu/%llu\n", got, b->len, len[got], b->rx_if,
					(unsigned long long)rts[i], (unsigned long long)want);
				abort();
			}
		}
		vpk_pool_free_bulk(pool, ridx, (uint32_t)rc);
	}
	if (vpk_pcap_read_burst(r, pool, ridx, rts, 1) != 0)
		abort();        /* more records than written */
	vpk_pcap_reader_destroy(r);
	if (vpk_pool_in_use(pool) != 0)
		abort();
	return 0;
}
