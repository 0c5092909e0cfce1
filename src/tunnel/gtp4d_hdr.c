/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GTP4.D header template preparation and the builder's variant table
 * (gtp4d_hdr.h).
 */
#include <errno.h>
#include <string.h>

#include <vpk/tunnel.h>
#include "core/registry.h"
#include "tunnel/gtp4d_hdr.h"

VPK_KERNEL_TABLE(gtp4d_hdr_impls, gtp4d_hdr, gtp4d_hdr, base);

VPK_KERNEL_REGISTER(gtp4d_hdr, "srv6-gtp4d-header",
		    "SRv6 H.M.GTP4.D IPv6+SRH header build: field stores vs whole-line register stores",
		    gtp4d_hdr_impls);

static gtp4d_u128
mask_after(gtp4d_u128 v, unsigned plen)
{
	return plen == 0 ? 0 : v & ~(gtp4d_u128)0 << (128 - plen);
}

int
vpk_gtp4d_tmpl_init(struct gtp4d_tmpl *t, const uint8_t sr_prefix[16], unsigned sr_plen,
		    const uint8_t v6src[16], unsigned v6src_plen, const uint8_t (*segs)[16], unsigned n)
{
	uint8_t *h;

	if (t == NULL || sr_prefix == NULL || v6src == NULL || sr_plen > 56 || v6src_plen > 96 ||
	    n > VPK_SR_MAX_SEGS || (n > 0 && segs == NULL))
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	h = t->hdr;
	t->sr_plen = (uint8_t)sr_plen;
	t->v6src_plen = (uint8_t)v6src_plen;
	t->sr_prefix = mask_after(gtp4d_load128(sr_prefix), sr_plen);
	t->v6src = mask_after(gtp4d_load128(v6src), v6src_plen);
	t->has_srh = n > 0;
	/* v6 | tc | flow label 0 | plen (per packet) | nh | hop limit (per packet) */
	h[0] = 0x60;
	if (n == 0) {
		t->len = 40;
		return 0;       /* DA = B, nh per packet */
	}
	t->len = (uint16_t)(48 + 16 * (n + 1));
	h[6] = 43;              /* routing header */
	memcpy(h + 24, segs[0], 16);            /* DA = S1 */
	h[41] = (uint8_t)(2 * (n + 1));         /* HdrExtLen in 8-octet units */
	h[42] = 4;                              /* SRH */
	h[43] = (uint8_t)n;                     /* segments left */
	h[44] = (uint8_t)n;                     /* last entry */
	for (unsigned i = 0; i < n; i++)        /* [B, Sn, .., S1] */
		memcpy(h + 64 + 16 * i, segs[n - 1 - i], 16);
	return 0;
}
