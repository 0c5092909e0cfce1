/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TUNNEL_GTP4D_HDR_H
#define VPK_TUNNEL_GTP4D_HDR_H
/*
 * H.M.GTP4.D (RFC 9433 §6.7) outer header construction: IPv6 header
 * [+ SRH with segments B, Sn..S1] written in front of the inner packet.
 *
 *   0        8               24              40     48        64 .. len
 *   | v tc fl plen nh hl | SA (16) | DA (16) | SRH 8 | seg[0]=B | Sn .. S1 |
 *
 * Without a policy: 40 bytes, DA = B, no SRH. With n segments: SRH
 * (NH, HdrExtLen 2(n+1), type 4, SL = n, LastEntry = n, flags 0, tag 0),
 * DA = S1, segment list [B, Sn, .., S1]: len = 48 + 16 (n + 1) <= 160.
 *
 * Per packet: traffic class, payload length, next header, hop limit, the
 * IPv4 SA inside the IPv6 SA, and B = sr_prefix | (IPv4 DA 32 | QFI 6 R 1
 * U 1 | TEID 32) << (56 - sr_plen): any prefix length, no byte alignment.
 * Variants: scalar (gtp4d_hdr_scalar.c) = template copy + field stores
 * (VPP's way); SIMD (gtp4d_hdr_kern.c) = the first 64 bytes (IPv6 + SRH + B) assembled in registers
 * from 8 computed 64-bit words and stored as whole lines, the remaining
 * segments copied as 16/32/64-byte lines. Identical bytes.
 */
#include <stdint.h>

#include "core/kern.h"

#define GTP4D_HDR_MAX 160u

typedef unsigned __int128 gtp4d_u128;

struct gtp4d_tmpl {
	uint8_t hdr[192] __attribute__((aligned(64)));  /* constant bytes, per-packet fields 0 */
	uint16_t len;                   /* header bytes (40 or 48 + 16 (n + 1)) */
	uint8_t has_srh;
	uint8_t sr_plen, v6src_plen;
	gtp4d_u128 sr_prefix, v6src;    /* big-endian values as integers */
};

struct gtp4d_pkt {
	uint32_t sa4, da4, teid;        /* host order */
	uint16_t plen;                  /* IPv6 payload length */
	uint8_t args;                   /* QFI << 2 | R << 1 | U */
	uint8_t tc, hlim, nh;           /* nh: of the IPv6 header (no SRH) or of the SRH */
};

static inline __attribute__((always_inline)) gtp4d_u128
gtp4d_load128(const uint8_t *p)
{
	gtp4d_u128 v = 0;

	for (int i = 0; i < 16; i++)
		v = v << 8 | p[i];
	return v;
}

static inline __attribute__((always_inline)) gtp4d_u128
gtp4d_sid_b(const struct gtp4d_tmpl *t, const struct gtp4d_pkt *p)
{
	gtp4d_u128 f = (gtp4d_u128)p->da4 << 40 | (gtp4d_u128)p->args << 32 | p->teid;

	return t->sr_prefix | f << (56 - t->sr_plen);
}

static inline __attribute__((always_inline)) gtp4d_u128
gtp4d_sa(const struct gtp4d_tmpl *t, const struct gtp4d_pkt *p)
{
	return t->v6src | (gtp4d_u128)p->sa4 << (96 - t->v6src_plen);
}

struct gtp4d_hdr_impl {
	struct vpk_impl base;
	/* Write t->len header bytes at out[i] for packet p[i]. */
	void (*build_bulk)(const struct gtp4d_tmpl *t, const struct gtp4d_pkt *p, uint8_t *const *out,
			   uint32_t n);
};

VPK_DECLARE_VARIANTS(struct gtp4d_hdr_impl, gtp4d_hdr);
extern const struct vpk_impl *const gtp4d_hdr_impls[];

/*
 * gtp4d_hdr.c: prepare @t. @segs: S1..Sn (n 0..VPK_SR_MAX_SEGS; 0 = no SRH).
 * @return 0 or -EINVAL (prefix lengths out of range, n too large).
 */
int vpk_gtp4d_tmpl_init(struct gtp4d_tmpl *t, const uint8_t sr_prefix[16], unsigned sr_plen,
			const uint8_t v6src[16], unsigned v6src_plen, const uint8_t (*segs)[16],
			unsigned n);

#endif
