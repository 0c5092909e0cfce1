/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_IO_DESC_KERN_H
#define VPK_IO_DESC_KERN_H

/*
 * Private: the per-packet descriptor work of the live backends, compiled
 * once per ISA (desc_kern.c) and picked at port open (desc_kernels.c).
 *
 * AF_XDP rings carry 16-byte descriptors {u64 addr, u32 len, u32 options}.
 * The UMEM is the buffer pool's memory registered in unaligned-chunk mode
 * from the page below the pool base: an address is
 *     (pool byte offset of the buffer + delta) | (offset of the data in the buffer << 48)
 * so buffer index = (lo48(addr) - delta) >> 6 and the data offset from the
 * buffer's area is (addr >> 48) - 64. A fill / completion ring entry is the
 * same u64 without (fill) or with (completion of a tx) the upper offset.
 *
 * Every kernel writes the first 32 bytes of a buffer's metadata as one
 * "head": data_off, len, flags 0, error 0, rx_if, tx_if 0, next NONE,
 * total_len = len, l2/l3/l4_off 0, l4_proto and l3_n_ext 0. The other 32
 * bytes are left as the pool's allocation reset them.
 */
#include <stdint.h>
#include <vpk/buf.h>
#include "core/kern.h"

/** Same layout as struct xdp_desc (linux/if_xdp.h). */
struct io_desc {
	uint64_t addr;
	uint32_t len;
	uint32_t options;
};

#define IO_ADDR_LO48 ((UINT64_C(1) << 48) - 1)
#define IO_ADDR_OFF_SHIFT 48

struct io_desc_kern_impl {
	struct vpk_impl base;
	/* rx: n descriptors -> idx[n] and each buffer's metadata head. */
	void (*xdp_rx)(void *base, uint64_t delta, const struct io_desc *d, uint32_t n,
		       uint32_t rx_if, uint32_t *idx);
	/* tx: n buffers (data_off, len read from metadata) -> n descriptors. */
	void (*xdp_tx)(void *base, uint64_t delta, const uint32_t *idx, uint32_t n, struct io_desc *d);
	/* completion ring entries -> buffer indices (recycling). */
	void (*addr_to_idx)(uint64_t delta, const uint64_t *addr, uint32_t n, uint32_t *idx);
	/* buffer indices -> fill ring entries. */
	void (*idx_to_addr)(uint64_t delta, const uint32_t *idx, uint32_t n, uint64_t *addr);
	/* TPACKET rx: metadata heads for copied packets, data_off = VPK_BUF_HEADROOM. */
	void (*meta_fill)(void *base, const uint32_t *idx, const uint16_t *len, uint32_t n, uint32_t rx_if);
};

VPK_DECLARE_VARIANTS(struct io_desc_kern_impl, io_desc_kern);

/* Best first, NULL-terminated (desc_kernels.c). */
extern const struct vpk_impl *const io_desc_kern_impls[];

/* Pick a variant (VPK_ISA_AUTO: best under the cap). @return 0, -ENOTSUP, -EINVAL. */
int io_desc_kern_get(enum vpk_isa isa, const struct io_desc_kern_impl **out);

#endif
