/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * enqueue-to-next's inner step, compiled once per ISA: from a frame's
 * buffer indices pick those whose next index equals @v, packed in order.
 *
 *   next: [ 2 2 0 2 1 2 ... ]     v = 2
 *   bi:   [ a b c d e f ... ]  -> out: [ a b d f ... ]
 *
 * Per vector of lanes: compare the u16 next values with v into a lane mask
 * (vpcmpeqw into a k-mask on AVX-512; pcmpeqw + packsswb + pmovmskb
 * below), then compress the u32 indices by that mask (vpcompressd on
 * AVX-512, a vpermd table on AVX2, four conditional stores on SSE4.2).
 * All-equal vectors, the common case (a frame that all goes one way), are
 * copied without compressing. VPP's vlib_buffer_enqueue_to_next does the
 * same two steps (clib_mask_compare_u16 + clib_compress_u32).
 *
 * Tail policy: whole vectors, then the scalar loop that is also the scalar
 * variant. Output needs VPK_U32_LANES elements of slack (frames have it).
 */
#include "graph/graph_priv.h"
#include "simd/vec.h"

static uint32_t
VPK_FN(graph_select)(const uint16_t *next, const uint32_t *bi, uint32_t n, uint16_t v,
		     uint32_t *out)
{
	uint32_t k = 0, i = 0;

#if VPK_VEC_BITS
	const uint32_t all = (uint32_t)((1ull << VPK_U32_LANES) - 1);

	for (; i + VPK_U32_LANES <= n; i += VPK_U32_LANES) {
		uint32_t m = u16_eq_mask(next + i, v);

		if (m == all) {
			u32v_storeu(out + k, u32v_loadu(bi + i));
			k += VPK_U32_LANES;
		} else if (m != 0) {
			k += u32v_compress_store(out + k, u32v_loadu(bi + i), m);
		}
	}
#endif
	for (; i < n; i++)
		if (next[i] == v)
			out[k++] = bi[i];
	return k;
}

const struct graph_enqueue_impl VPK_FN(graph_enqueue) = {
	.base = VPK_IMPL_INIT(VPK_VEC_BITS ? VPK_VEC_BITS : 64),
	.select = VPK_FN(graph_select),
};
