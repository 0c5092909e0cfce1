/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the pcap reader (src/io/pcap.c, libpcap underneath) on
 * arbitrary bytes, read through fmemopen() into a small pool whose data
 * size (512) is below many packets' caplen, so the skip path runs too.
 * Invariants checked after every input (abort() = finding):
 *   - the reader returns a count within the burst, 0 (end) or an error,
 *     never -ENOBUFS (every burst is freed before the next);
 *   - every delivered buffer has len <= data size, total_len == len,
 *     data_off == headroom;
 *   - all buffers are back: in_use == 0;
 *   - counters add up: delivered + skipped <= packets.
 * Seeds: tests/data/fuzz/pcap_read/ (made by tests/io/gen_pcap_seeds.py).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <vpk/buf.h>
#include <vpk/pcap.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct vpk_pool *pool;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vpk_pcap_reader *r;
	struct vpk_pcap_reader_stats st;
	uint32_t idx[4];
	FILE *f;
	int rc;

	if (pool == NULL) {
		struct vpk_pool_conf c = { .name = "fuzz", .n_bufs = 8, .data_size = 512 };

		if (vpk_pool_create(&c, &pool) != 0)
			abort();
	}
	if (size == 0)
		return 0;       /* fmemopen() refuses empty buffers on older glibc */
	f = fmemopen((void *)(uintptr_t)data, size, "rb");
	if (f == NULL)
		return 0;
	struct vpk_pcap_reader_conf conf = { .path = "fuzz", .stream = f, .rx_if = 1 };

	if (vpk_pcap_reader_create(&conf, &r) != 0)
		return 0;
	while ((rc = vpk_pcap_read_burst(r, pool, idx, NULL, 1 + (uint32_t)(size % 4))) > 0) {
		if (rc > 4)
			abort();
		for (int i = 0; i < rc; i++) {
			struct vpk_buf *b = vpk_buf_from_idx(vpk_pool_base(pool), idx[i]);

			if (b->len > 512 || b->total_len != b->len || b->data_off != VPK_BUF_HEADROOM)
				abort();
		}
		vpk_pool_free_bulk(pool, idx, (uint32_t)rc);
	}
	if (rc == -ENOBUFS)
		abort();
	vpk_pcap_reader_get_stats(r, &st);
	if (st.delivered + st.skipped_oversize > st.packets)
		abort();
	vpk_pcap_reader_destroy(r);
	if (vpk_pool_in_use(pool) != 0)
		abort();
	return 0;
}
