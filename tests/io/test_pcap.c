/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcap reader and writer. Test files are made here: by hand, byte by byte
 * (so the reader is checked against the file format, not against libpcap's
 * writer), and by our writer (checked by parsing its bytes by hand).
 *
 *  - round trip: N random packets written (micro and nano), read back, bytes,
 *    lengths, rx_if and timestamps compared; chained buffers become one record
 *  - hand-made files: microsecond, nanosecond, byte-swapped (big-endian)
 *  - errors: missing file, empty file, bad magic, truncated file header,
 *    non-Ethernet link type, truncated record header and data (the message
 *    names file and packet number), impossible caplen, write to /dev/full
 *  - oversized packets skipped and counted; pool exhaustion mid-read loses
 *    nothing; end of file is 0 and stays 0; in_use back to 0 everywhere.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <vpk/buf.h>
#include <vpk/pcap.h>

#include "lib/check.h"

static char dir[256];

/* ---- hand-made pcap bytes ---------------------------------------------- */

struct raw {
	uint8_t b[1 << 20];
	size_t n;
	bool swap;
};

static void
put32(struct raw *r, uint32_t v)
{
	if (r->swap)
		v = __builtin_bswap32(v);
	memcpy(r->b + r->n, &v, 4);
	r->n += 4;
}

static void
put16(struct raw *r, uint16_t v)
{
	if (r->swap)
		v = __builtin_bswap16(v);
	memcpy(r->b + r->n, &v, 2);
	r->n += 2;
}

static void
raw_header(struct raw *r, uint32_t magic, uint32_t linktype, bool swap)
{
	r->n = 0;
	r->swap = swap;
	put32(r, magic);
	put16(r, 2);
	put16(r, 4);
	put32(r, 0);            /* thiszone */
	put32(r, 0);            /* sigfigs */
	put32(r, 65535);        /* snaplen */
	put32(r, linktype);
}

static void
raw_record(struct raw *r, uint32_t sec, uint32_t frac, uint32_t caplen, uint32_t len,
	   const uint8_t *data)
{
	put32(r, sec);
	put32(r, frac);
	put32(r, caplen);
	put32(r, len);
	memcpy(r->b + r->n, data, caplen);
	r->n += caplen;
}

static const char *
save(struct raw *r, const char *name, size_t n)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(r->b, 1, n, f) != n || fclose(f) != 0) {
		CHECK(0, "cannot write %s", path);
		return "/nonexistent";
	}
	return path;
}

static struct vpk_pool *
mkpool(uint32_t n, uint32_t data_size)
{
	struct vpk_pool_conf c = { .name = "pcap", .n_bufs = n, .data_size = data_size,
				   .cache_size = 0 };
	struct vpk_pool *p = NULL;

	CHECK(vpk_pool_create(&c, &p) == 0, "pool create");
	return p;
}

/* Packet k of a test set: length and bytes derived from k. */
static uint32_t
pkt_len(uint32_t k)
{
	static const uint32_t lens[] = { 60, 14, 1514, 64, 9000, 1, 128, 1500 };

	return k < 8 ? lens[k] : 14 + (k * 7919u) % 1500;
}

static void
pkt_fill(uint32_t k, uint8_t *d, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++)
		d[i] = (uint8_t)(k * 31u + i * 7u + (i >> 8));
}

/* Read a whole file; check every packet against pkt_len/pkt_fill and ts. */
static void
read_expect(const char *path, uint32_t n_pkts, bool nsec, uint32_t burst, const char *what)
{
	struct vpk_pool *p = mkpool(64, 9000);
	struct vpk_pcap_reader *r = NULL;
	uint32_t idx[64], seen = 0;
	uint64_t ts[64];
	uint8_t want[9000];
	int rc;

	if (p == NULL)
		return;
	rc = vpk_pcap_reader_create(&(struct vpk_pcap_reader_conf){ .path = path, .rx_if = 7 }, &r);
	CHECK(rc == 0, "%s: open: %d %s", what, rc, vpk_last_error());
	if (rc != 0)
		goto out;
	while ((rc = vpk_pcap_read_burst(r, p, idx, ts, burst)) > 0) {
		CHECK((uint32_t)rc <= burst, "%s: burst %u returned %d", what, burst, rc);
		for (int i = 0; i < rc; i++, seen++) {
			struct vpk_buf *b = vpk_buf_from_idx(vpk_pool_base(p), idx[i]);
			uint32_t len = pkt_len(seen);
			uint64_t want_ts = (uint64_t)(1700000000u + seen) * 1000000000u +
					   (nsec ? seen * 1001u : seen * 1000u);

			pkt_fill(seen, want, len);
			CHECK(b->len == len && b->total_len == len, "%s: packet %u len %u want %u",
			      what, seen, b->len, len);
			CHECK(b->data_off == VPK_BUF_HEADROOM && b->rx_if == 7 &&
			      b->next == VPK_BUF_NONE, "%s: packet %u metadata", what, seen);
			CHECK(b->len == len && memcmp(vpk_buf_data(b), want, len) == 0,
			      "%s: packet %u bytes differ", what, seen);
			CHECK(ts[i] == want_ts, "%s: packet %u ts %llu want %llu", what, seen,
			      (unsigned long long)ts[i], (unsigned long long)want_ts);
		}
		vpk_pool_free_bulk(p, idx, (uint32_t)rc);
	}
	CHECK(rc == 0, "%s: end: %d %s", what, rc, vpk_last_error());
	CHECK(seen == n_pkts, "%s: read %u packets, want %u", what, seen, n_pkts);
	CHECK(vpk_pcap_read_burst(r, p, idx, NULL, burst) == 0, "%s: EOF is not sticky", what);
	CHECK(vpk_pool_in_use(p) == 0, "%s: in_use %u", what, vpk_pool_in_use(p));
	vpk_pcap_reader_destroy(r);
out:
	vpk_pool_destroy(p);
}

static void
test_handmade(void)
{
	static struct raw r;
	static uint8_t d[9000];
	const uint32_t N = 40;

	for (int v = 0; v < 3; v++) {
		bool nsec = v == 1, swap = v == 2;

		raw_header(&r, nsec ? 0xa1b23c4d : 0xa1b2c3d4, 1, swap);
		for (uint32_t k = 0; k < N; k++) {
			pkt_fill(k, d, pkt_len(k));
			raw_record(&r, 1700000000u + k, nsec ? k * 1001u : k, pkt_len(k), pkt_len(k), d);
		}
		read_expect(save(&r, "hand.pcap", r.n), N, nsec, v == 0 ? 64 : 3 + (uint32_t)v,
			    nsec ? "nsec" : swap ? "swapped" : "usec");
	}
}

/* Our writer; its bytes parsed by hand; then our reader. */
static void
test_roundtrip(void)
{
	const uint32_t N = 300;
	struct vpk_pool *p = mkpool(N + 2, 9000);
	char path[512];

	if (p == NULL)
		return;
	for (int nsec = 0; nsec <= 1; nsec++) {
		struct vpk_pcap_writer *w = NULL;
		uint32_t idx[300];
		uint64_t ts[300];
		static uint8_t file[4 << 20];
		size_t fn, off;
		FILE *f;
		int rc;

		snprintf(path, sizeof(path), "%s/rt%d.pcap", dir, nsec);
		rc = vpk_pcap_writer_create(&(struct vpk_pcap_writer_conf){ .path = path, .nsec = nsec }, &w);
		CHECK(rc == 0, "writer open: %d %s", rc, vpk_last_error());
		if (rc != 0)
			continue;
		CHECK(vpk_pool_alloc_burst(p, idx, N) == N, "alloc");
		for (uint32_t k = 0; k < N; k++) {
			struct vpk_buf *b = vpk_buf_from_idx(vpk_pool_base(p), idx[k]);

			b->len = (uint16_t)pkt_len(k);
			pkt_fill(k, vpk_buf_data(b), b->len);
			ts[k] = (uint64_t)(1700000000u + k) * 1000000000u + k * 1001u +
				(nsec ? 0 : 7);   /* sub-microsecond part dropped in usec files */
			if (!nsec)
				ts[k] = (uint64_t)(1700000000u + k) * 1000000000u + k * 1000u + 999;
		}
		for (uint32_t k = 0; k < N; k += 37)
			CHECK(vpk_pcap_write_burst(w, p, idx + k, ts + k, N - k < 37 ? N - k : 37) == 0,
			      "write: %s", vpk_last_error());
		CHECK(vpk_pcap_writer_count(w) == N, "count");
		rc = vpk_pcap_writer_destroy(w);
		CHECK(rc == 0, "close: %d", rc);
		vpk_pool_free_bulk(p, idx, N);

		/* By hand: magic, link type, every record header. */
		f = fopen(path, "rb");
		fn = f != NULL ? fread(file, 1, sizeof(file), f) : 0;
		if (f != NULL)
			fclose(f);
		CHECK(fn > 24 && *(uint32_t *)file == (nsec ? 0xa1b23c4du : 0xa1b2c3d4u),
		      "magic of %s", path);
		CHECK(fn > 24 && *(uint32_t *)(file + 20) == 1, "link type of %s", path);
		off = 24;
		for (uint32_t k = 0; k < N && off + 16 <= fn; k++) {
			uint32_t h[4];
			uint8_t want[9000];

			memcpy(h, file + off, 16);
			pkt_fill(k, want, pkt_len(k));
			CHECK(h[0] == 1700000000u + k && h[1] == (nsec ? k * 1001u : k),
			      "record %u ts %u.%u", k, h[0], h[1]);
			CHECK(h[2] == pkt_len(k) && h[3] == pkt_len(k), "record %u lengths %u/%u", k,
			      h[2], h[3]);
			CHECK(off + 16 + h[2] <= fn && memcmp(file + off + 16, want, pkt_len(k)) == 0,
			      "record %u bytes", k);
			off += 16 + h[2];
		}
		CHECK(off == fn, "file %s: %zu bytes, records end at %zu", path, fn, off);
		read_expect(path, N, nsec, 32, nsec ? "roundtrip nsec" : "roundtrip usec");
	}
	vpk_pool_destroy(p);
}

/* A chain of 3 buffers is one record; ts NULL means "now". */
static void
test_chain(void)
{
	struct vpk_pool *p = mkpool(8, 256);
	struct vpk_pcap_writer *w;
	struct vpk_pcap_reader *r;
	char path[512];
	uint32_t idx[3], got[2];
	uint8_t want[600];
	uint64_t ts;

	snprintf(path, sizeof(path), "%s/chain.pcap", dir);
	if (p == NULL || vpk_pool_alloc_burst(p, idx, 3) != 3 ||
	    vpk_pcap_writer_create(&(struct vpk_pcap_writer_conf){ .path = path, .nsec = true }, &w) != 0) {
		CHECK(0, "setup");
		return;
	}
	for (int i = 0; i < 3; i++) {
		struct vpk_buf *b = vpk_buf_from_idx(vpk_pool_base(p), idx[i]);

		b->len = 200;
		check_rand_bytes(vpk_buf_data(b), 200);
		memcpy(want + 200 * i, vpk_buf_data(b), 200);
		b->total_len = 600;
		if (i < 2) {
			b->flags |= VPK_BUF_F_NEXT_VALID;
			b->next = idx[i + 1];
		}
	}
	CHECK(vpk_pcap_write_burst(w, p, idx, NULL, 1) == 0, "write chain");
	CHECK(vpk_pcap_writer_destroy(w) == 0, "close");
	vpk_pool_free_bulk(p, idx, 3);
	vpk_pool_destroy(p);
	/* Read with big buffers: one 600-byte packet. */
	p = mkpool(2, 1000);
	CHECK(vpk_pcap_reader_create(&(struct vpk_pcap_reader_conf){ .path = path }, &r) == 0, "open chain file");
	CHECK(vpk_pcap_read_burst(r, p, got, &ts, 2) == 1, "one record");
	CHECK(vpk_buf_from_idx(vpk_pool_base(p), got[0])->len == 600 &&
	      memcmp(vpk_buf_data(vpk_buf_from_idx(vpk_pool_base(p), got[0])), want, 600) == 0,
	      "chain bytes");
	CHECK(ts > UINT64_C(1600000000) * 1000000000u, "default timestamp is now");
	vpk_pool_free_bulk(p, got, 1);
	vpk_pcap_reader_destroy(r);
	vpk_pool_destroy(p);
}

static void
expect_open_fail(const char *path, int want_rc, const char *want_a, const char *want_b,
		 const char *what)
{
	struct vpk_pcap_reader *r = (struct vpk_pcap_reader *)(uintptr_t)1;
	int rc = vpk_pcap_reader_create(&(struct vpk_pcap_reader_conf){ .path = path }, &r);

	CHECK(rc == want_rc, "%s: rc %d want %d (%s)", what, rc, want_rc, vpk_last_error());
	CHECK(strstr(vpk_last_error(), path) != NULL, "%s: message '%s' does not name the file", what,
	      vpk_last_error());
	CHECK(want_a == NULL || strstr(vpk_last_error(), want_a) != NULL, "%s: message '%s' lacks '%s'", what,
	      vpk_last_error(), want_a);
	CHECK(want_b == NULL || strstr(vpk_last_error(), want_b) != NULL, "%s: message '%s' lacks '%s'", what,
	      vpk_last_error(), want_b);
	CHECK(r == (struct vpk_pcap_reader *)(uintptr_t)1, "%s: out written", what);
	printf("  %-22s -> %d: %s\n", what, rc, vpk_last_error());
}

static void
test_open_errors(void)
{
	static struct raw r;
	char path[512];

	snprintf(path, sizeof(path), "%s/does-not-exist.pcap", dir);
	expect_open_fail(path, -ENOENT, NULL, NULL, "missing file");
	expect_open_fail(dir, -EISDIR, NULL, NULL, "directory");
	raw_header(&r, 0xa1b2c3d4, 1, false);
	expect_open_fail(save(&r, "empty.pcap", 0), -EINVAL, NULL, NULL, "empty file");
	expect_open_fail(save(&r, "short.pcap", 10), -EINVAL, NULL, NULL, "truncated header");
	raw_header(&r, 0xdeadbeef, 1, false);
	expect_open_fail(save(&r, "magic.pcap", r.n), -EINVAL, "not a pcap", NULL, "bad magic");
	raw_header(&r, 0xa1b2c3d4, 113, false);
	expect_open_fail(save(&r, "sll.pcap", r.n), -ENOTSUP, "113", "Ethernet", "link type SLL");
	raw_header(&r, 0xa1b2c3d4, 105, false);
	expect_open_fail(save(&r, "wifi.pcap", r.n), -ENOTSUP, "105", NULL, "link type 802.11");
	CHECK(vpk_pcap_reader_create(&(struct vpk_pcap_reader_conf){ 0 }, NULL) == -EINVAL, "NULL args");
	{
		struct vpk_pcap_reader *rd = NULL;
		struct vpk_pcap_writer *w = NULL;

		CHECK(vpk_pcap_reader_create(NULL, &rd) == -EINVAL && vpk_pcap_writer_create(NULL, &w) == -EINVAL &&
		      rd == NULL && w == NULL, "NULL conf");
	}
}

/* A file cut at @p cut bytes: packets before it are read, then an error naming packet @p bad. */
static void
expect_read_fail(struct raw *r, size_t cut, uint32_t good, uint32_t bad, const char *what)
{
	const char *path = save(r, "bad.pcap", cut);
	struct vpk_pool *p = mkpool(16, 2048);
	struct vpk_pcap_reader *rd;
	uint32_t idx[16], seen = 0;
	char want[64];
	int rc;

	if (p == NULL || vpk_pcap_reader_create(&(struct vpk_pcap_reader_conf){ .path = path }, &rd) != 0) {
		CHECK(0, "%s: open", what);
		vpk_pool_destroy(p);
		return;
	}
	while ((rc = vpk_pcap_read_burst(rd, p, idx, NULL, 2)) > 0) {
		seen += (uint32_t)rc;
		vpk_pool_free_bulk(p, idx, (uint32_t)rc);
	}
	snprintf(want, sizeof(want), "packet %u:", bad);
	CHECK(rc == -EINVAL, "%s: rc %d want -EINVAL", what, rc);
	CHECK(seen == good, "%s: %u packets before the error, want %u", what, seen, good);
	CHECK(strstr(vpk_last_error(), want) != NULL &&
	      strstr(vpk_last_error(), path) != NULL,
	      "%s: message '%s' lacks file or '%s'", what, vpk_last_error(), want);
	CHECK(vpk_pcap_read_burst(rd, p, idx, NULL, 2) == rc, "%s: error not sticky", what);
	CHECK(vpk_pool_in_use(p) == 0, "%s: buffers leaked: %u", what, vpk_pool_in_use(p));
	printf("  %-22s -> %d: %s\n", what, rc, vpk_last_error());
	vpk_pcap_reader_destroy(rd);
	vpk_pool_destroy(p);
}

static void
test_read_errors(void)
{
	static struct raw r;
	uint8_t d[100] = { 0 };
	size_t after3;

	raw_header(&r, 0xa1b2c3d4, 1, false);
	for (int k = 0; k < 3; k++)
		raw_record(&r, 1, 0, 100, 100, d);
	after3 = r.n;
	raw_record(&r, 1, 0, 100, 100, d);
	raw_record(&r, 1, 0, 100, 100, d);
	expect_read_fail(&r, after3 + 40, 3, 4, "truncated data");
	expect_read_fail(&r, after3 + 9, 3, 4, "truncated rec header");
	/* Impossible caplen in packet 4. */
	r.n = after3;
	raw_record(&r, 1, 0, 0, 100, d);
	memcpy(r.b + after3 + 8, &(uint32_t){ 0x7fffffff }, 4);
	expect_read_fail(&r, r.n, 3, 4, "caplen 2^31-1");
}

/* Packets longer than the data size are skipped and counted. */
static void
test_oversize(void)
{
	static struct raw r;
	static const uint32_t lens[] = { 100, 300, 256, 257, 50, 65535, 0, 256 };
	struct vpk_pool *p = mkpool(8, 256);
	struct vpk_pcap_reader *rd;
	struct vpk_pcap_reader_stats st;
	static uint8_t d[65535];
	uint32_t idx[8], got_lens[8], n = 0;
	int rc;

	raw_header(&r, 0xa1b2c3d4, 1, false);
	for (int i = 0; i < 8; i++)
		raw_record(&r, 1, 0, lens[i], lens[i] + (i == 7 ? 100 : 0), d);
	if (p == NULL ||
	    vpk_pcap_reader_create(&(struct vpk_pcap_reader_conf){ .path = save(&r, "big.pcap", r.n) }, &rd) != 0) {
		CHECK(0, "setup");
		return;
	}
	while ((rc = vpk_pcap_read_burst(rd, p, idx, NULL, 3)) > 0) {
		for (int i = 0; i < rc && n < 8; i++)
			got_lens[n++] = vpk_buf_from_idx(vpk_pool_base(p), idx[i])->len;
		vpk_pool_free_bulk(p, idx, (uint32_t)rc);
	}
	CHECK(rc == 0, "end %d", rc);
	CHECK(n == 5 && got_lens[0] == 100 && got_lens[1] == 256 && got_lens[2] == 50 &&
	      got_lens[3] == 0 && got_lens[4] == 256, "delivered %u packets", n);
	vpk_pcap_reader_get_stats(rd, &st);
	CHECK(st.packets == 8 && st.delivered == 5 && st.skipped_oversize == 3 && st.snapped == 1 &&
	      st.bytes == 100 + 256 + 50 + 256, "stats %llu/%llu/%llu/%llu",
	      (unsigned long long)st.packets, (unsigned long long)st.delivered,
	      (unsigned long long)st.skipped_oversize, (unsigned long long)st.snapped);
	CHECK(vpk_pool_in_use(p) == 0, "in_use");
	vpk_pcap_reader_destroy(rd);
	vpk_pool_destroy(p);
}

/* A 4-buffer pool and a 10-packet file: nothing is lost, order is kept. */
static void
test_exhaustion(void)
{
	static struct raw r;
	uint8_t d[64];
	struct vpk_pool *p = mkpool(4, 128);
	struct vpk_pcap_reader *rd;
	uint32_t idx[8], held[4], next = 0;
	int rc;

	raw_header(&r, 0xa1b2c3d4, 1, false);
	for (uint32_t k = 0; k < 10; k++) {
		memset(d, (int)k, sizeof(d));
		raw_record(&r, 1, 0, 20 + k, 20 + k, d);
	}
	if (p == NULL ||
	    vpk_pcap_reader_create(&(struct vpk_pcap_reader_conf){ .path = save(&r, "ten.pcap", r.n) }, &rd) != 0) {
		CHECK(0, "setup");
		return;
	}
	rc = vpk_pcap_read_burst(rd, p, held, NULL, 8);
	CHECK(rc == 4, "first burst %d want 4 (pool size)", rc);
	CHECK(vpk_pcap_read_burst(rd, p, idx, NULL, 8) == -ENOBUFS, "empty pool: -ENOBUFS");
	for (int i = 0; i < 4; i++)
		CHECK(vpk_buf_from_idx(vpk_pool_base(p), held[i])->len == 20 + next++, "order");
	vpk_pool_free_bulk(p, held, 2);
	rc = vpk_pcap_read_burst(rd, p, idx, NULL, 8);
	CHECK(rc == 2, "after freeing 2: %d", rc);
	for (int i = 0; i < rc; i++) {
		struct vpk_buf *b = vpk_buf_from_idx(vpk_pool_base(p), idx[i]);

		CHECK(b->len == 20 + next && vpk_buf_data(b)[0] == next, "packet %u lost or reordered",
		      next);
		next++;
	}
	vpk_pool_free_bulk(p, idx, (uint32_t)(rc > 0 ? rc : 0));
	vpk_pool_free_bulk(p, held + 2, 2);
	while ((rc = vpk_pcap_read_burst(rd, p, idx, NULL, 8)) > 0) {
		for (int i = 0; i < rc; i++)
			CHECK(vpk_buf_from_idx(vpk_pool_base(p), idx[i])->len == 20 + next++, "tail order");
		vpk_pool_free_bulk(p, idx, (uint32_t)rc);
	}
	CHECK(rc == 0 && next == 10, "end rc %d after %u packets", rc, next);
	CHECK(vpk_pool_in_use(p) == 0, "in_use");
	vpk_pcap_reader_destroy(rd);
	vpk_pool_destroy(p);
}

/* Stream input (fmemopen) and write errors (/dev/full). */
static void
test_stream_and_write_error(void)
{
	static struct raw r;
	uint8_t d[60] = { 1, 2, 3 };
	struct vpk_pool *p = mkpool(4, 128);
	struct vpk_pcap_reader *rd;
	struct vpk_pcap_writer *w;
	uint32_t idx[4];
	FILE *f;
	int rc;

	raw_header(&r, 0xa1b2c3d4, 1, false);
	raw_record(&r, 5, 6, 60, 60, d);
	f = fmemopen(r.b, r.n, "rb");
	struct vpk_pcap_reader_conf sc = { .path = "mem", .stream = f, .rx_if = 3 };

	CHECK(vpk_pcap_reader_create(&sc, &rd) == 0, "stream: %s", vpk_last_error());
	CHECK(vpk_pcap_read_burst(rd, p, idx, NULL, 4) == 1, "stream read");
	vpk_pool_free_bulk(p, idx, 1);
	CHECK(vpk_pcap_read_burst(rd, p, idx, NULL, 4) == 0, "stream eof");
	vpk_pcap_reader_destroy(rd);
	f = fmemopen(r.b, 7, "rb");
	CHECK(vpk_pcap_reader_create(&(struct vpk_pcap_reader_conf){ .stream = f }, &rd) == -EINVAL &&
	      strstr(vpk_last_error(), "<stream>") != NULL, "short stream: %s", vpk_last_error());

	if (access("/dev/full", W_OK) != 0) {
		printf("  /dev/full not writable here: write error case not run\n");
		goto out;
	}
	CHECK(vpk_pcap_writer_create(&(struct vpk_pcap_writer_conf){ .path = "/dev/full" }, &w) == 0,
	      "open /dev/full");
	CHECK(vpk_pool_alloc_burst(p, idx, 1) == 1, "alloc");
	vpk_buf_from_idx(vpk_pool_base(p), idx[0])->len = 100;
	for (int i = 0; i < 100; i++)
		vpk_pcap_write_burst(w, p, idx, NULL, 1);
	rc = vpk_pcap_writer_flush(w);
	CHECK(rc == -ENOSPC, "flush to /dev/full: %d want -ENOSPC", rc);
	CHECK(strstr(vpk_last_error(), "/dev/full") != NULL, "message '%s'",
	      vpk_last_error());
	CHECK(vpk_pcap_write_burst(w, p, idx, NULL, 1) == -ENOSPC, "write error sticky");
	rc = vpk_pcap_writer_destroy(w);
	CHECK(rc == -ENOSPC && strstr(vpk_last_error(), "/dev/full") != NULL, "close: %d '%s'", rc, vpk_last_error());
	printf("  %-22s -> %d: %s\n", "write to /dev/full", rc, vpk_last_error());
	vpk_pool_free_bulk(p, idx, 1);
	CHECK(vpk_pcap_writer_create(&(struct vpk_pcap_writer_conf){ .path = "/nonexistent-dir/x.pcap" }, &w) ==
	      -ENOENT,
	      "writer open in a missing directory: %s", vpk_last_error());
out:
	CHECK(vpk_pool_in_use(p) == 0, "in_use");
	vpk_pool_destroy(p);
}

int
main(void)
{
	const char *tmp = getenv("TMPDIR");

	check_init("io.pcap");
	snprintf(dir, sizeof(dir), "%s/vpk-pcap-XXXXXX", tmp != NULL ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	test_handmade();
	test_roundtrip();
	test_chain();
	test_open_errors();
	test_read_errors();
	test_oversize();
	test_exhaustion();
	test_stream_and_write_error();
	if (check_failures == 0) {
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("could not remove %s\n", dir);
	} else {
		printf("files kept in %s\n", dir);
	}
	return check_finish();
}
