/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Descriptor <-> buffer metadata kernels of the live backends, compiled
 * once per ISA (scalar, avx2, avx512) and written once over src/simd/vec.h.
 * See desc_kern.h for the address scheme and the 32-byte metadata "head"
 * every rx kernel writes.
 *
 * As in Intel's E810 AVX-512 receive path (4 descriptors per 512-bit
 * register, metadata written with whole stores, buffers recycled in bulk),
 * the vector loops take VPK_U64_LANES descriptors per iteration (8 on
 * avx512, 4 on avx2): the 16-byte descriptors de-interleaved into
 * addresses and lengths (u64v_load_pairs), indices narrowed in one store,
 * each buffer's head built in-register and written with one 256-bit store
 * (vpk_store_rows4). The per-element loops below are the scalar variant
 * and every variant's tail, so the results are identical by construction
 * of the formulas and checked by tests/io/test_io_desc.c.
 */
#include <string.h>

#include "io/desc_kern.h"
#include "simd/vec.h"

#define AI static inline __attribute__((always_inline))

AI void
head_store(void *base, uint32_t idx, uint32_t doff, uint32_t len, uint32_t rx_if)
{
	uint8_t *m = (uint8_t *)vpk_buf_from_idx(base, idx);
	uint64_t q0 = (doff & 0xffffu) | (uint64_t)(len & 0xffffu) << 16, q1 = rx_if;
	uint64_t q2 = VPK_BUF_NONE | (uint64_t)(len & 0xffffu) << 32, q3 = 0;

	/* Four 8-byte stores straight to the line (no stack copy to reload). */
	memcpy(m, &q0, 8);
	memcpy(m + 8, &q1, 8);
	memcpy(m + 16, &q2, 8);
	memcpy(m + 24, &q3, 8);
}

AI uint32_t
addr_idx(uint64_t delta, uint64_t a)
{
	return (uint32_t)(((a & IO_ADDR_LO48) - delta) >> VPK_BUF_SHIFT);
}

/*
 * Each kernel starts on a 64-byte line, so its vector loop (about 40 bytes)
 * sits at the same place in the op cache whatever code the linker puts
 * before it: a loop straddling two lines ran 30 % slower (vpk bench rx).
 */
#define KERN static __attribute__((aligned(64)))

#if VPK_VEC_BITS >= 256
#define L VPK_U64_LANES

/* Heads of L buffers (indices x) from their data offsets and lengths. */
AI void
heads(void *base, u64v x, u64v doff, u64v len, uint32_t rx_if)
{
	vpk_store_rows4(doff | len << 16, rx_if, VPK_BUF_NONE | len << 32,
			(x << VPK_BUF_SHIFT) + (uint64_t)(uintptr_t)base);
}

AI uint32_t
vec_rx(void *base, uint64_t delta, const struct io_desc *d, uint32_t n, uint32_t rx_if, uint32_t *idx)
{
	uint32_t i = 0;

	for (; i + L <= n; i += L) {
		u64v a, len;

		u64v_load_pairs(d + i, &a, &len);
		u64v x = ((a & IO_ADDR_LO48) - delta) >> VPK_BUF_SHIFT;

		u64v_store_low32(idx + i, x);
		heads(base, x, ((a >> IO_ADDR_OFF_SHIFT) - 64) & 0xffff, len & 0xffff, rx_if);
	}
	return i;
}

AI uint32_t
vec_tx(void *base, uint64_t delta, const uint32_t *idx, uint32_t n, struct io_desc *d)
{
	uint32_t i = 0;

	for (; i + L <= n; i += L) {
		u64v off = u64v_load_u32(idx + i) << VPK_BUF_SHIFT;
		u64v w = u64v_gather32_bytes(base, off);   /* data_off | len << 16 */
		u64v doff = (w & 0xffff) + 64;

		u64v_store_pairs(d + i, (off + delta) | doff << IO_ADDR_OFF_SHIFT, w >> 16);
	}
	return i;
}

AI uint32_t
vec_addr_to_idx(uint64_t delta, const uint64_t *addr, uint32_t n, uint32_t *idx)
{
	uint32_t i = 0;

	for (; i + L <= n; i += L)
		u64v_store_low32(idx + i, ((u64v_loadu(addr + i) & IO_ADDR_LO48) - delta) >> VPK_BUF_SHIFT);
	return i;
}

AI uint32_t
vec_idx_to_addr(uint64_t delta, const uint32_t *idx, uint32_t n, uint64_t *addr)
{
	uint32_t i = 0;

	for (; i + L <= n; i += L)
		u64v_storeu(addr + i, (u64v_load_u32(idx + i) << VPK_BUF_SHIFT) + delta);
	return i;
}

AI uint32_t
vec_meta_fill(void *base, const uint32_t *idx, const uint16_t *len, uint32_t n, uint32_t rx_if)
{
	uint32_t i = 0;

	for (; i + L <= n; i += L)
		heads(base, u64v_load_u32(idx + i), u64v_splat(VPK_BUF_HEADROOM), u64v_load_u16(len + i), rx_if);
	return i;
}
#undef L
#else
/* Scalar build: the per-element loops do everything. */
#define vec_rx(base, delta, d, n, rx_if, idx) 0
#define vec_tx(base, delta, idx, n, d) 0
#define vec_addr_to_idx(delta, addr, n, idx) 0
#define vec_idx_to_addr(delta, idx, n, addr) 0
#define vec_meta_fill(base, idx, len, n, rx_if) 0
#endif

KERN void
VPK_FN(io_xdp_rx)(void *base, uint64_t delta, const struct io_desc *d, uint32_t n, uint32_t rx_if,
		  uint32_t *idx)
{
	for (uint32_t i = vec_rx(base, delta, d, n, rx_if, idx); i < n; i++) {
		uint32_t x = addr_idx(delta, d[i].addr);

		idx[i] = x;
		head_store(base, x, (uint32_t)(d[i].addr >> IO_ADDR_OFF_SHIFT) - 64u, d[i].len, rx_if);
	}
}

KERN void
VPK_FN(io_xdp_tx)(void *base, uint64_t delta, const uint32_t *idx, uint32_t n, struct io_desc *d)
{
	for (uint32_t i = vec_tx(base, delta, idx, n, d); i < n; i++) {
		const struct vpk_buf *b = vpk_buf_from_idx(base, idx[i]);
		uint64_t off = (uint64_t)idx[i] << VPK_BUF_SHIFT;

		d[i].addr = (off + delta) | (uint64_t)(b->data_off + 64u) << IO_ADDR_OFF_SHIFT;
		d[i].len = b->len;
		d[i].options = 0;
	}
}

KERN void
VPK_FN(io_addr_to_idx)(uint64_t delta, const uint64_t *addr, uint32_t n, uint32_t *idx)
{
	for (uint32_t i = vec_addr_to_idx(delta, addr, n, idx); i < n; i++)
		idx[i] = addr_idx(delta, addr[i]);
}

KERN void
VPK_FN(io_idx_to_addr)(uint64_t delta, const uint32_t *idx, uint32_t n, uint64_t *addr)
{
	for (uint32_t i = vec_idx_to_addr(delta, idx, n, addr); i < n; i++)
		addr[i] = ((uint64_t)idx[i] << VPK_BUF_SHIFT) + delta;
}

KERN void
VPK_FN(io_meta_fill)(void *base, const uint32_t *idx, const uint16_t *len, uint32_t n, uint32_t rx_if)
{
	for (uint32_t i = vec_meta_fill(base, idx, len, n, rx_if); i < n; i++)
		head_store(base, idx[i], VPK_BUF_HEADROOM, len[i], rx_if);
}

const struct io_desc_kern_impl VPK_FN(io_desc_kern) = {
	.base = VPK_IMPL_INIT(VPK_VEC_BITS ? VPK_VEC_BITS : 64),
	.xdp_rx = VPK_FN(io_xdp_rx),
	.xdp_tx = VPK_FN(io_xdp_tx),
	.addr_to_idx = VPK_FN(io_addr_to_idx),
	.idx_to_addr = VPK_FN(io_idx_to_addr),
	.meta_fill = VPK_FN(io_meta_fill),
};
