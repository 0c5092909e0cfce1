/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GTP4.D header builder, vector variants (sse42, avx2, avx512) written
 * once over src/simd/vec.h (layout: gtp4d_hdr.h): compute the first 64
 * bytes as 8 little-endian 64-bit words in general registers (the 128-bit
 * SA and B are two byte-swapped halves each), assemble them in 1 zmm / 2
 * ymm / 4 xmm registers and store whole lines; the segments after B
 * (multiples of 16 bytes) are copied from the template first, so no store
 * runs past the header into the inner packet (AVX-512: masked stores).
 * The scalar variant is gtp4d_hdr_scalar.c; both write the same bytes.
 */
#include <string.h>

#include "tunnel/gtp4d_hdr.h"
#include "simd/vec.h"

static inline __attribute__((always_inline)) uint64_t
ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void
VPK_FN(gtp4d_build_bulk)(const struct gtp4d_tmpl *t, const struct gtp4d_pkt *p, uint8_t *const *out,
			 uint32_t n)
{
	const uint8_t *h = t->hdr;
	const unsigned len = t->len;
	const uint64_t t3 = ld64(h + 24), t4 = ld64(h + 32), t5 = ld64(h + 40);

	for (uint32_t i = 0; i < n; i++) {
		uint8_t *o = out[i];
		gtp4d_u128 sa = gtp4d_sa(t, &p[i]), b = gtp4d_sid_b(t, &p[i]);
		uint64_t w[8];

		/* bytes 0..7: 6|tc, tc|fl, fl, fl, plen hi, plen lo, nh, hop limit */
		w[0] = (uint64_t)(0x60 | p[i].tc >> 4) | (uint64_t)(uint8_t)(p[i].tc << 4) << 8 |
		       (uint64_t)(p[i].plen >> 8) << 32 | (uint64_t)(p[i].plen & 0xff) << 40 |
		       (uint64_t)(t->has_srh ? 43 : p[i].nh) << 48 | (uint64_t)p[i].hlim << 56;
		w[1] = __builtin_bswap64((uint64_t)(sa >> 64));
		w[2] = __builtin_bswap64((uint64_t)sa);
		if (t->has_srh) {
			w[3] = t3;
			w[4] = t4;
			w[5] = (t5 & ~0xffull) | p[i].nh;
			w[6] = __builtin_bswap64((uint64_t)(b >> 64));
			w[7] = __builtin_bswap64((uint64_t)b);
			vpk_copy16s(o, h, 64, len);
		} else {
			w[3] = __builtin_bswap64((uint64_t)(b >> 64));
			w[4] = __builtin_bswap64((uint64_t)b);
			w[5] = w[6] = w[7] = 0;
		}
		vpk_store_words8(o, w, t->has_srh);
	}
}

const struct gtp4d_hdr_impl VPK_FN(gtp4d_hdr) = {
	.base = VPK_IMPL_INIT(VPK_VEC_BITS),
	.build_bulk = VPK_FN(gtp4d_build_bulk),
};
