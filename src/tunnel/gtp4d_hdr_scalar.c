/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GTP4.D header builder, scalar variant (layout: gtp4d_hdr.h): copy the
 * template, then store each per-packet field (bytes of the SA and of SID B
 * one by one, as VPP's node does). The vector variants are
 * gtp4d_hdr_kern.c; both write the same bytes.
 */
#include <string.h>

#include "tunnel/gtp4d_hdr.h"

static inline __attribute__((always_inline)) void
put128(uint8_t *o, gtp4d_u128 v)
{
	for (int i = 15; i >= 0; i--) {
		o[i] = (uint8_t)v;
		v >>= 8;
	}
}

static void
VPK_FN(gtp4d_build_bulk)(const struct gtp4d_tmpl *t, const struct gtp4d_pkt *p, uint8_t *const *out,
			 uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *o = out[i];

		memcpy(o, t->hdr, t->len);
		o[0] = (uint8_t)(0x60 | p[i].tc >> 4);
		o[1] = (uint8_t)(p[i].tc << 4);
		o[4] = (uint8_t)(p[i].plen >> 8);
		o[5] = (uint8_t)p[i].plen;
		o[7] = p[i].hlim;
		put128(o + 8, gtp4d_sa(t, &p[i]));
		if (t->has_srh) {
			o[40] = p[i].nh;
			put128(o + 48, gtp4d_sid_b(t, &p[i]));
		} else {
			o[6] = p[i].nh;
			put128(o + 24, gtp4d_sid_b(t, &p[i]));
		}
	}
}

const struct gtp4d_hdr_impl VPK_FN(gtp4d_hdr) = {
	.base = VPK_IMPL_INIT(64),
	.build_bulk = VPK_FN(gtp4d_build_bulk),
};
