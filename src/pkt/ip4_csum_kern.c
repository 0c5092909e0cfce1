/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 header checksum verification over a batch (RFC 791, RFC 1071),
 * compiled once per ISA. ip4-input runs it on every frame.
 *
 * Layout: packets across lanes. Lane l holds packet i+l; step k gathers the
 * 32-bit word at offset 4k of every header (vpgatherqd on 64-bit header
 * pointers), so 16 headers are summed in parallel on a 512-bit build:
 *
 *   word k:   hdr0[4k..4k+3]  hdr1[4k..4k+3]  ...  hdr15[4k..4k+3]
 *   sum  += (word & 0xffff) + (word >> 16)        (per lane, 32-bit)
 *
 * Words 0..4 exist in every header. Options (IHL 6..15) are rare, so words
 * 5..14 are gathered only while some lane still has them, with a lane mask
 * so that no byte beyond 4*IHL is read (masked-off gather lanes do not
 * touch memory). A 32-bit lane holds at most 30 halves of 16 bits, so it
 * cannot overflow (30 * 0xffff < 2^21); two folds give the 16-bit sum.
 *
 * Tail policy: whole vectors, then ip4_csum_ok_one(), the scalar variant's
 * own body.
 */
#include "pkt/ip4_csum.h"
#include "simd/vec.h"

static void
VPK_FN(ip4_csum_check_bulk)(const uint8_t *const *hdrs, uint8_t *ok, size_t n)
{
	size_t i = 0;

#if VPK_VEC_BITS
	for (; i + VPK_U32_LANES <= n; i += VPK_U32_LANES) {
		const uint8_t *const *p = hdrs + i;
		u32v w = u32v_load_lanes_ptrs(p, 0);
		u32v ihl = w & 0x0f;
		u32v sum = (w & 0xffff) + (w >> 16);

		for (size_t k = 1; k < 5; k++) {
			w = u32v_load_lanes_ptrs(p, 4 * k);
			sum += (w & 0xffff) + (w >> 16);
		}
		for (uint32_t k = 5; k < 15; k++) {
			u32v more = (u32v)(ihl > k);

			if (!u32v_any(more))
				break;
			w = u32v_gather_ptrs_masked(p, 4 * k, more);
			sum += (w & 0xffff) + (w >> 16);
		}
		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		u32v_store_narrow8(ok + i, (u32v)((sum == 0xffff) & (ihl >= 5)) & 1);
	}
#endif
	for (; i < n; i++)
		ok[i] = ip4_csum_ok_one(hdrs[i]);
}

const struct ip4_csum_impl VPK_FN(ip4_csum) = {
	.base = VPK_IMPL_INIT(VPK_VEC_BITS ? VPK_VEC_BITS : 64),
	.check_bulk = VPK_FN(ip4_csum_check_bulk),
};
