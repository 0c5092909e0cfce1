/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srv6-end-m-gtp4-e: SRv6 mobile End.M.GTP4.E (RFC 9433 §6.6), the reverse
 * of srv6-gtp4-d. ip6-tunnel-bypass sends IPv6 packets whose destination is
 * in a localsid prefix here (localsid index in vpk_buf::opaque).
 *
 * Per packet: the IPv6 extension headers are walked and popped (Hop-by-Hop,
 * Destination Options, Routing; RFC 9433 §6.6: the IPv6 header and its
 * extension headers are removed). A Routing header with Segments Left != 0
 * means the SID is not the last one: ICMPv6 Parameter Problem (code 0,
 * pointer to Segments Left for an SRH, to the routing type otherwise, RFC
 * 8200 §4.4) through ip6-icmp-error when the graph has it, else dropped;
 * both counted. A fragment header drops the packet (no reassembly). The
 * upper-layer header must be IPv4 (4) or IPv6 (41) and hold at least a whole
 * header of its version (what GTP4.D requires of the packets it takes).
 * From the destination, after the localsid prefix (any bit length <= 56):
 * IPv4 DA (32), Args.Mob.Session (QFI 6, R 1, U 1, TEID 32); U is ignored
 * (RFC 9433 §6.1). IPv4 SA: 32 bits of the IPv6 source at v4src-position
 * (or the fixed address). The IPv6 headers are replaced by
 *   IPv4 (TOS = traffic class, TTL = hop limit, DF set, ID 0: an atomic
 *   datagram, RFC 6864 §4.1) / UDP 2152 -> 2152 (checksum 0) / GTP-U v1
 *   G-PDU with the TEID, plus a PDU Session Container (DL, QFI, RQI = R)
 *   when QFI or R is non-zero,
 * and the packet goes to ip4-lookup.
 */
#include "graph/nodes/tunnel_nodes.h"
#include "graph/nodes/icmp_error.h"
#include "tunnel/gtp4d_hdr.h"

enum { GE_NEXT_LOOKUP4, GE_NEXT_DROP, GE_NEXT_ICMP6, GE_N_NEXT };
enum { GE_ERR_OK, GE_ERR_TRUNC, GE_ERR_SL, GE_ERR_NH, GE_ERR_HEADROOM, GE_ERR_INNER, GE_ERR_FRAG, GE_ERR_NO_SID, GE_N_ERROR };

static const char *const ge_next[GE_N_NEXT] = {
	[GE_NEXT_LOOKUP4] = "ip4-lookup", [GE_NEXT_DROP] = "error-drop", [GE_NEXT_ICMP6] = "ip6-icmp-error",
};
static const char *const ge_errors[] = {
	"good packets translated to GTP-U",
	"truncated IPv6 extension header",
	"routing header segments left is not 0 (parameter problem)",
	"upper-layer header not IPv4/IPv6",
	"no headroom for IPv4 + UDP + GTP-U",
	"inner packet shorter than an IPv4/IPv6 header or not that version",
	"IPv6 fragment (not translated)",
	"no such localsid (the tables changed)",
};

/*
 * Walk the extension headers from @h (IPv6, @left bytes): *off = the
 * upper-layer header, *nh its type. GE_N_NEXT when the packet goes on, else
 * the arc (drop or Parameter Problem).
 */
static inline __attribute__((always_inline)) uint16_t
ge_walk(struct vpk_node_rt *rt, struct vpk_buf *b, const uint8_t *h, uint32_t left, uint32_t *off,
	uint8_t *nh)
{
	uint32_t o = 40;
	uint8_t t = h[6];

	while (t == 0 || t == 43 || t == 60 || t == 44) {
		uint32_t elen;

		if (t == 44)
			return vpk_node_drop(rt, b, GE_ERR_FRAG, GE_NEXT_DROP);
		if (left < o + 8)
			return vpk_node_drop(rt, b, GE_ERR_TRUNC, GE_NEXT_DROP);
		elen = 8u * (h[o + 1] + 1u);
		if (left < o + elen)
			return vpk_node_drop(rt, b, GE_ERR_TRUNC, GE_NEXT_DROP);
		if (t == 43 && h[o + 3] != 0) {
			if (!vpk_node_has_next(rt, GE_NEXT_ICMP6))
				return vpk_node_drop(rt, b, GE_ERR_SL, GE_NEXT_DROP);
			vpk_node_count_error(rt, GE_ERR_SL, 1);
			vpk_icmp_error_set(b, 4, 0, (uint16_t)(o + (h[o + 2] == 4 ? 3 : 2)));
			return GE_NEXT_ICMP6;
		}
		t = h[o];
		o += elen;
	}
	*off = o;
	*nh = t;
	return GE_N_NEXT;
}

static inline __attribute__((always_inline)) uint16_t
ge_one(struct vpk_node_rt *rt, const struct vpk_gtp4e_conf *c, struct vpk_buf *b)
{
	uint8_t *h = vpk_buf_area(b) + b->l3_off, *o;
	const struct vpk_gtp4e_localsid *s = &c->sid[tn_get_index(b)];
	uint32_t left = vpk_l3_left(b), off = 40, ilen, hl, io, da4, sa4, teid;
	uint8_t nh = 0, args, tos = (uint8_t)((h[0] & 0x0f) << 4 | h[1] >> 4), ttl = h[7];
	uint16_t arc;
	gtp4d_u128 f;

	/* an index of another version of the tables (a live change while the frame was in flight) */
	if (tn_get_index(b) >= c->n_sid)
		return vpk_node_drop(rt, b, GE_ERR_NO_SID, GE_NEXT_DROP);
	arc = ge_walk(rt, b, h, left, &off, &nh);
	if (arc != GE_N_NEXT)
		return arc;
	if (nh != 4 && nh != 41)
		return vpk_node_drop(rt, b, GE_ERR_NH, GE_NEXT_DROP);
	ilen = left - off;
	if (ilen < (nh == 4 ? 20u : 40u) || h[off] >> 4 != (nh == 4 ? 4 : 6))
		return vpk_node_drop(rt, b, GE_ERR_INNER, GE_NEXT_DROP);
	f = gtp4d_load128(h + 24) >> (56 - s->plen);
	da4 = (uint32_t)(f >> 40);
	args = (uint8_t)(f >> 32) & 0xfe;       /* U is ignored on receipt (RFC 9433 §6.1) */
	teid = (uint32_t)f;
	sa4 = s->v4src_pos ? (uint32_t)(gtp4d_load128(h + 8) >> (96 - s->v4src_pos)) : tn_rd32be(s->v4src);
	hl = 36 + (args ? 8 : 0);
	io = b->l3_off + off;
	if (io < hl + 14)
		return vpk_node_drop(rt, b, GE_ERR_HEADROOM, GE_NEXT_DROP);
	o = vpk_buf_area(b) + io - hl;
	tn_ip4_udp_hdr(o, tos, (uint16_t)(hl + ilen), ttl, __builtin_bswap32(sa4), __builtin_bswap32(da4));
	tn_wr16be(o + 20, VPK_GTPU_PORT);
	tn_wr16be(o + 22, VPK_GTPU_PORT);
	tn_wr16be(o + 24, (uint16_t)(hl - 20 + ilen));
	tn_wr16be(o + 26, 0);
	o[28] = args ? 0x34 : 0x30;
	o[29] = 255;
	tn_wr16be(o + 30, (uint16_t)(hl - 36 + ilen));
	tn_wr32be(o + 32, teid);
	if (args) {
		o[36] = o[37] = o[38] = 0;      /* sequence, N-PDU */
		o[39] = 0x85;                   /* PDU Session Container follows */
		o[40] = 1;                      /* 4 octets */
		o[41] = 0;                      /* PDU type DL */
		o[42] = (uint8_t)(((args >> 1) & 1) << 6 | args >> 2);  /* RQI, QFI */
		o[43] = 0;                      /* no further extension */
	}
	tn_set_outer_udp(b, io - hl, 20, io + ilen);
	vpk_node_count_error(rt, GE_ERR_OK, 1);
	return GE_NEXT_LOOKUP4;
}

VPK_NODE_FN_EACH(srv6_end_m_gtp4_e, const struct vpk_gtp4e_conf *, ge_one(rt, c, b[i]))

static const struct vpk_gtp4e_conf ge_none = { 0 };

VPK_NODE_INIT_CONF_OR(ge_init, ge_none)

VPK_NODE_REGISTER(srv6_end_m_gtp4_e, VPK_FN(srv6_end_m_gtp4_e_fn), .name = "srv6-end-m-gtp4-e",
		  .n_next = GE_N_NEXT, .next_names = ge_next, .n_errors = GE_N_ERROR,
		  .error_strings = ge_errors, .init = ge_init);
