/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Buffer index <-> pointer conversion, compiled once per ISA.
 *
 * ptr = base + ((uint64_t)idx << 6)   and   idx = (ptr - base) >> 6
 * (include/vpk/buf.h). The graph converts every frame of up to 256 indices
 * before a node runs, so this is one of the hottest loops in vpk. A 512-bit
 * build widens 16 indices into two registers of 8 pointers per iteration.
 *
 * Tail policy: whole vectors, then the same per-element inline functions the
 * public header offers (vpk_buf_from_idx / vpk_buf_to_idx). No ISA-specific
 * tail.
 */
#include "buf/buf_kern.h"
#include "simd/vec.h"

static void
VPK_FN(buf_idx_to_ptr)(void *base, const uint32_t *idx, struct vpk_buf **ptrs, size_t n)
{
	size_t i = 0;

#if VPK_VEC_BITS
	const u64v vbase = u64v_splat((uint64_t)(uintptr_t)base);

	for (; i + VPK_U32_LANES <= n; i += VPK_U32_LANES) {
		u32v x = u32v_loadu(idx + i);

		u64v_storeu(ptrs + i, (u32v_widen_lo(x) << VPK_BUF_SHIFT) + vbase);
		u64v_storeu(ptrs + i + VPK_U64_LANES, (u32v_widen_hi(x) << VPK_BUF_SHIFT) + vbase);
	}
#endif
	for (; i < n; i++)
		ptrs[i] = vpk_buf_from_idx(base, idx[i]);
}

static void
VPK_FN(buf_ptr_to_idx)(const void *base, struct vpk_buf *const *ptrs, uint32_t *idx, size_t n)
{
	size_t i = 0;

#if VPK_VEC_BITS
	const u64v vbase = u64v_splat((uint64_t)(uintptr_t)base);

	for (; i + VPK_U64_LANES <= n; i += VPK_U64_LANES)
		u64v_store_narrow32(idx + i, (u64v_loadu(ptrs + i) - vbase) >> VPK_BUF_SHIFT);
#endif
	for (; i < n; i++)
		idx[i] = vpk_buf_to_idx(base, ptrs[i]);
}

const struct buf_kern_impl VPK_FN(buf_kern) = {
	.base = VPK_IMPL_INIT(VPK_VEC_BITS ? VPK_VEC_BITS : 64),
	.idx_to_ptr = VPK_FN(buf_idx_to_ptr),
	.ptr_to_idx = VPK_FN(buf_ptr_to_idx),
};
