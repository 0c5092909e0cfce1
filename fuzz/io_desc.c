/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz the live-I/O descriptor kernels (src/io/desc_kern.c: AF_XDP rx/tx
 * descriptors, fill/completion ring entries, TPACKET metadata) on the
 * descriptors a kernel can hand over: each names a distinct buffer of the
 * pool, with a data offset and length inside it (the kernels are data-plane
 * code and do not validate, by design). The input gives, per descriptor,
 * the buffer, offset and length, plus the UMEM delta and rx interface.
 * Checks, for every usable variant against the scalar one:
 *   - rx writes the same buffer indices and the same 32-byte metadata heads,
 *     and each head says what the descriptor said (data_off, len, rx_if);
 *   - tx of those buffers gives back the rx descriptors (address, length);
 *   - completion/fill conversions agree and round-trip (idx -> addr -> idx);
 *   - meta_fill writes the same heads with data_off = headroom.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/buf.h>

#include "io/desc_kern.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NB 64

static struct vpk_pool *pool;
static uint32_t all[NB];

static void
heads(uint8_t (*out)[32], const uint32_t *idx, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		memcpy(out[i], vpk_buf_from_idx(vpk_pool_base(pool), idx[i]), 32);
}

static void
poison(const uint32_t *idx, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		memset(vpk_buf_from_idx(vpk_pool_base(pool), idx[i]), 0xa5, 32);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct io_desc d[NB], dtx[NB], dref[NB];
	uint32_t idx[NB], iref[NB], ix2[NB], n = 0, rx_if;
	uint64_t addr[NB], aref[NB], delta;
	uint16_t lens[NB];
	uint8_t href[NB][32], h[NB][32];
	bool used[NB] = { false };
	const struct io_desc_kern_impl *scalar;
	void *base;

	if (pool == NULL) {
		struct vpk_pool_conf c = { .name = "fuzz", .n_bufs = NB };

		if (vpk_pool_create(&c, &pool) != 0 || vpk_pool_alloc_burst(pool, all, NB) != NB)
			abort();
	}
	if (size < 12 || io_desc_kern_get(VPK_ISA_SCALAR, &scalar) != 0)
		return 0;
	base = vpk_pool_base(pool);
	memcpy(&delta, data, 8);
	delta &= IO_ADDR_LO48 >> 1;             /* the UMEM offset of the pool; addresses stay in 48 bits */
	delta &= ~(uint64_t)63;
	memcpy(&rx_if, data + 8, 4);
	for (size_t at = 12; at + 5 <= size && n < NB; at += 5, n++) {
		unsigned k = data[at] % NB, off, len;

		while (used[k])                 /* distinct buffers, as a kernel ring holds */
			k = (k + 1) % NB;
		used[k] = true;
		off = (unsigned)(data[at + 1] | data[at + 2] << 8) % (VPK_BUF_HEADROOM + VPK_BUF_DATA_SIZE);
		len = (unsigned)(data[at + 3] | data[at + 4] << 8) % (VPK_BUF_HEADROOM + VPK_BUF_DATA_SIZE - off + 1);
		d[n].addr = (((uint64_t)all[k] << VPK_BUF_SHIFT) + delta) | (uint64_t)(off + 64) << IO_ADDR_OFF_SHIFT;
		d[n].len = len;
		d[n].options = 0;
		lens[n] = (uint16_t)len;
	}
	poison(all, NB);
	scalar->xdp_rx(base, delta, d, n, rx_if, iref);
	heads(href, iref, n);
	for (uint32_t i = 0; i < n; i++) {
		const struct vpk_buf *b = (const void *)href[i];

		if (b->data_off != (d[i].addr >> IO_ADDR_OFF_SHIFT) - 64 || b->len != d[i].len ||
		    b->total_len != d[i].len || b->rx_if != rx_if || b->next != VPK_BUF_NONE || b->flags != 0)
			abort();
	}
	scalar->xdp_tx(base, delta, iref, n, dref);
	for (uint32_t i = 0; i < n; i++)
		if (dref[i].addr != d[i].addr || dref[i].len != d[i].len || dref[i].options != 0)
			abort();        /* rx then tx is not the identity */
	scalar->idx_to_addr(delta, iref, n, aref);
	scalar->addr_to_idx(delta, aref, n, ix2);
	if (memcmp(ix2, iref, n * sizeof(ix2[0])) != 0)
		abort();
	for (const struct vpk_impl *const *im = io_desc_kern_impls; *im; im++) {
		const struct io_desc_kern_impl *k = (const struct io_desc_kern_impl *)*im;
		const struct vpk_impl *pick;

		if (vpk_impl_pick_name(io_desc_kern_impls, (*im)->name, &pick) != 0)
			continue;
		poison(all, NB);
		k->xdp_rx(base, delta, d, n, rx_if, idx);
		heads(h, iref, n);
		if (memcmp(idx, iref, n * sizeof(idx[0])) != 0 || memcmp(h, href, n * 32) != 0) {
			fprintf(stderr, "fuzz: %s xdp_rx differs from scalar\n", (*im)->name);
			abort();
		}
		k->xdp_tx(base, delta, iref, n, dtx);
		if (memcmp(dtx, dref, n * sizeof(dtx[0])) != 0)
			abort();
		k->idx_to_addr(delta, iref, n, addr);
		k->addr_to_idx(delta, aref, n, ix2);
		if (memcmp(addr, aref, n * sizeof(addr[0])) != 0 || memcmp(ix2, iref, n * sizeof(ix2[0])) != 0)
			abort();
		poison(all, NB);
		k->meta_fill(base, iref, lens, n, rx_if);
		heads(h, iref, n);
		for (uint32_t i = 0; i < n; i++) {
			const struct vpk_buf *b = (const void *)h[i];

			if (b->data_off != VPK_BUF_HEADROOM || b->len != lens[i] || b->rx_if != rx_if)
				abort();
		}
	}
	return 0;
}
