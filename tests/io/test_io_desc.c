/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Live-I/O descriptor kernels (src/io/desc_kern.c) on synthetic rings, no
 * interface needed: every usable variant x lengths 0..67 and 255..257,
 * against a naive reference written from the field definitions. Inputs end
 * at a guard page (over-reads fault), outputs and the untouched half of the
 * metadata are poisoned (over-writes show). Adversarial values: data
 * offsets at both ends, lengths above 16 bits (truncated like the u16
 * field), garbage in options, UMEM deltas 0 / odd multiples of 64.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "io/desc_kern.h"
#include "lib/check.h"

#define MAXN 257
#define NBUF 1024
#define STRIDE 2240u
#define PZ 0xa5

static uint8_t *pool;           /* NBUF buffers of STRIDE bytes */
static uint64_t delta;
static uint32_t perm[NBUF];

static uint32_t
buf_idx(uint32_t k)
{
	return k * (STRIDE >> VPK_BUF_SHIFT);
}

static void
shuffle(void)
{
	for (uint32_t i = 0; i < NBUF; i++)
		perm[i] = i;
	for (uint32_t i = NBUF - 1; i > 0; i--) {
		uint32_t j = (uint32_t)check_rand_range(i + 1), t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
}

/* Reference: the metadata head written from the struct's fields. */
static void
check_head(const char *what, size_t n, size_t i, uint32_t idx, uint16_t doff, uint16_t len, uint32_t rx_if)
{
	struct vpk_buf want, *b = vpk_buf_from_idx(pool, idx);
	uint8_t pz[32];

	memset(&want, 0, sizeof(want));
	want.data_off = doff;
	want.len = len;
	want.rx_if = rx_if;
	want.next = VPK_BUF_NONE;
	want.total_len = len;
	CHECK(memcmp(b, &want, 32) == 0, "%s n=%zu i=%zu: head differs (data_off %u/%u len %u/%u rx_if %u/%u "
	      "next %x total %u flags %u)", what, n, i, b->data_off, doff, b->len, len, b->rx_if, rx_if, b->next,
	      b->total_len, b->flags);
	memset(pz, PZ, sizeof(pz));
	CHECK(memcmp((uint8_t *)b + 32, pz, 32) == 0, "%s n=%zu i=%zu: metadata bytes 32..63 overwritten",
	      what, n, i);
}

static uint32_t
rand_len(unsigned round, size_t i)
{
	switch ((round + i) % 5) {
	case 0: return 0;
	case 1: return 0xffffu;
	case 2: return 0x10000u | check_rand_u32();     /* above 16 bits: truncated */
	default: return (uint32_t)check_rand_range(2049);
	}
}

static void
run_variant(void *arg, const struct vpk_impl *impl)
{
	const struct io_desc_kern_impl *k = (const struct io_desc_kern_impl *)impl;
	size_t lens[80], nl = check_lengths(lens, 80);
	uint32_t idx[MAXN + 1];
	uint64_t addr[MAXN + 1];
	struct io_desc dout[MAXN + 1];
	static const uint64_t deltas[] = { 0, 64, 4032, 1u << 20 };

	(void)arg;
	for (unsigned round = 0; round < 8; round++) {
		delta = deltas[round % 4];
		for (size_t li = 0; li < nl; li++) {
			size_t n = lens[li];
			uint32_t rx_if = check_rand_u32();
			struct io_desc *d = check_guard_alloc(n * sizeof(*d));
			uint32_t *in = check_guard_alloc(n * sizeof(*in));
			uint16_t *ln = check_guard_alloc(n * sizeof(*ln));
			uint64_t *ain = check_guard_alloc(n * sizeof(*ain));
			uint16_t doffs[MAXN];

			shuffle();
			/* rx: descriptors -> indices + heads */
			memset(pool, PZ, (size_t)NBUF * STRIDE);
			for (size_t i = 0; i < n; i++) {
				uint32_t off = (i + round) % 3 == 0 ? 64 : (i + round) % 3 == 1 ? 64 + 0xffffu - 64
					       : 64 + (uint32_t)check_rand_range(STRIDE - 64);

				d[i].addr = ((uint64_t)perm[i] * STRIDE + delta) | (uint64_t)off << IO_ADDR_OFF_SHIFT;
				d[i].len = rand_len(round, i);
				d[i].options = check_rand_u32();
				doffs[i] = (uint16_t)(off - 64);
			}
			memset(idx, PZ, sizeof(idx));
			k->xdp_rx(pool, delta, d, (uint32_t)n, rx_if, idx);
			for (size_t i = 0; i < n; i++) {
				CHECK(idx[i] == buf_idx(perm[i]), "xdp_rx n=%zu i=%zu: idx %u want %u", n, i, idx[i],
				      buf_idx(perm[i]));
				check_head("xdp_rx", n, i, buf_idx(perm[i]), doffs[i], (uint16_t)d[i].len, rx_if);
			}
			CHECK(idx[n] == 0xa5a5a5a5u, "xdp_rx n=%zu wrote past the end", n);
			/* untouched buffers stay poisoned */
			for (size_t i = n; i < NBUF; i += 97)
				CHECK(vpk_buf_from_idx(pool, buf_idx(perm[i]))->data_off == 0xa5a5,
				      "xdp_rx n=%zu touched buffer %u", n, perm[i]);

			/* tx: metadata -> descriptors */
			for (size_t i = 0; i < n; i++) {
				struct vpk_buf *b = vpk_buf_from_idx(pool, buf_idx(perm[i]));

				in[i] = buf_idx(perm[i]);
				b->data_off = (uint16_t)((i + round) % 4 == 0 ? 0 : check_rand_range(STRIDE - 64 - 64));
				b->len = (uint16_t)rand_len(round, i);
			}
			memset(dout, PZ, sizeof(dout));
			k->xdp_tx(pool, delta, in, (uint32_t)n, dout);
			for (size_t i = 0; i < n; i++) {
				struct vpk_buf *b = vpk_buf_from_idx(pool, in[i]);
				uint64_t wa = ((uint64_t)perm[i] * STRIDE + delta) |
					      (uint64_t)(b->data_off + 64u) << IO_ADDR_OFF_SHIFT;

				CHECK(dout[i].addr == wa && dout[i].len == b->len && dout[i].options == 0,
				      "xdp_tx n=%zu i=%zu: {%llx %u %u} want {%llx %u 0}", n, i,
				      (unsigned long long)dout[i].addr, dout[i].len, dout[i].options,
				      (unsigned long long)wa, b->len);
			}
			CHECK(dout[n].addr == 0xa5a5a5a5a5a5a5a5ull, "xdp_tx n=%zu wrote past the end", n);

			/* completion ring -> indices (tx addresses, with offsets) and fill ring <- indices */
			for (size_t i = 0; i < n; i++)
				ain[i] = dout[i].addr;
			memset(idx, PZ, sizeof(idx));
			k->addr_to_idx(delta, ain, (uint32_t)n, idx);
			for (size_t i = 0; i < n; i++)
				CHECK(idx[i] == in[i], "addr_to_idx n=%zu i=%zu: %u want %u", n, i, idx[i], in[i]);
			CHECK(idx[n] == 0xa5a5a5a5u, "addr_to_idx n=%zu wrote past the end", n);
			memset(addr, PZ, sizeof(addr));
			k->idx_to_addr(delta, in, (uint32_t)n, addr);
			for (size_t i = 0; i < n; i++)
				CHECK(addr[i] == (uint64_t)perm[i] * STRIDE + delta, "idx_to_addr n=%zu i=%zu: %llx",
				      n, i, (unsigned long long)addr[i]);
			CHECK(addr[n] == 0xa5a5a5a5a5a5a5a5ull, "idx_to_addr n=%zu wrote past the end", n);

			/* TPACKET copy path: lengths -> heads with the default headroom */
			memset(pool, PZ, (size_t)NBUF * STRIDE);
			for (size_t i = 0; i < n; i++)
				ln[i] = (uint16_t)rand_len(round, i);
			k->meta_fill(pool, in, ln, (uint32_t)n, rx_if);
			for (size_t i = 0; i < n; i++)
				check_head("meta_fill", n, i, in[i], VPK_BUF_HEADROOM, ln[i], rx_if);

			check_guard_free(d, n * sizeof(*d));
			check_guard_free(in, n * sizeof(*in));
			check_guard_free(ln, n * sizeof(*ln));
			check_guard_free(ain, n * sizeof(*ain));
		}
	}
}

int
main(void)
{
	const struct io_desc_kern_impl *k;

	check_init("io_desc");
	pool = aligned_alloc(4096, (size_t)NBUF * STRIDE);
	CHECK(pool != NULL, "no memory");
	CHECK(io_desc_kern_get(VPK_ISA_AUTO, NULL) == -EINVAL, "NULL accepted");
	CHECK(io_desc_kern_get(VPK_ISA_AUTO, &k) == 0, "auto failed");
	CHECK(io_desc_kern_get(VPK_ISA_SSE42, &k) == -ENOTSUP, "no sse42 variant exists, yet one was returned");
	check_each_impl("io-desc", io_desc_kern_impls, run_variant, NULL);
	free(pool);
	return check_finish();
}
