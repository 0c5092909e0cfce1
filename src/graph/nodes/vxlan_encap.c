/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vxlan4-encap and vxlan6-encap: VxLAN encapsulation over IPv4 / IPv6 (RFC 7348 §5). ip4-tunnel-bypass
 * sends IPv4 packets whose destination is in a tunnel's encap prefix, with
 * the tunnel index in vpk_buf::opaque. The received Ethernet frame (from
 * vpk_buf::l2_off) becomes the inner frame, its VLAN tags (up to two)
 * removed: RFC 7348 §6.1, a VTEP SHOULD NOT include an inner VLAN tag.
 *
 *   [IPv4 20: local -> remote, TTL 64, DF set and ID 0 (an atomic datagram,
 *   RFC 6864 §4.1; RFC 7348 §4.3: VTEPs do not fragment), proto 17]
 *   [UDP 8: sport = hash of the inner flow in 49152..65535 (RFC 7348 §5),
 *   dport = VxLAN port, checksum 0 (RFC 7348 SHOULD)] [VXLAN 8: flags 0x08,
 *   VNI] [inner frame]
 *
 * The inner flow: IPv4 / IPv6 addresses, protocol and, for TCP, UDP and
 * SCTP that are not fragments, the ports; for other EtherTypes the MAC
 * addresses and EtherType. Nothing that changes within a flow (length, ID,
 * TTL, checksum) enters the hash, so a flow keeps one source port and ECMP
 * in the underlay cannot reorder it.
 *
 * Over IPv6: [IPv6 40: local -> remote, hop limit 64, next header UDP]
 * [UDP 8 with its checksum computed: RFC 8200 §8.1 requires it; the
 * zero-checksum exception of RFC 6935 is not taken] [VXLAN 8] [frame].
 *
 * The outer packet goes to ip4-lookup / ip6-lookup, so the underlay route
 * and neighbor decide where it leaves (the rewrite node writes the outer
 * Ethernet header).
 */
#include "graph/nodes/tunnel_nodes.h"

enum { VE_NEXT_LOOKUP, VE_NEXT_DROP, VE_N_NEXT };
enum { VE_ERR_ENCAP, VE_ERR_HEADROOM, VE_ERR_TUNNEL, VE_N_ERROR };

static const char *const ve_next[VE_N_NEXT] = {
	[VE_NEXT_LOOKUP] = "ip4-lookup", [VE_NEXT_DROP] = "error-drop",
};
static const char *const ve6_next[VE_N_NEXT] = {
	[VE_NEXT_LOOKUP] = "ip6-lookup", [VE_NEXT_DROP] = "error-drop",
};
static const char *const ve_errors[] = {
	"good packets encapsulated",
	"no headroom for the outer headers",
	"no such IPv4 tunnel",
};
static const char *const ve6_errors[] = {
	"good packets encapsulated",
	"no headroom for the outer headers",
	"no such IPv6 tunnel",
};

static inline __attribute__((always_inline)) uint32_t
ve_fnv(uint32_t h, const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* FNV-1a of the inner flow of the (untagged) frame @p, @len bytes, folded into 49152..65535. */
static inline __attribute__((always_inline)) uint16_t
ve_sport(const uint8_t *p, uint32_t len)
{
	uint32_t h = 2166136261u, et = len >= 14 ? vpk_rd16be(p + 12) : 0, l4 = 0;
	const uint8_t *ip = p + 14;
	uint8_t proto = 0;

	if (et == VPK_ETHERTYPE_IP4 && len >= 14 + 20 && (ip[0] & 15u) >= 5) {
		h = ve_fnv(h, ip + 12, 8);
		proto = ip[9];
		if (!(vpk_rd16be(ip + 6) & 0x3fff))
			l4 = 14 + (ip[0] & 15u) * 4;
	} else if (et == VPK_ETHERTYPE_IP6 && len >= 14 + 40) {
		h = ve_fnv(h, ip + 8, 32);
		proto = ip[6];
		l4 = 14 + 40;
	} else {
		return (uint16_t)(49152u | ((ve_fnv(h, p, len < 14 ? len : 14) >> 8) & 0x3fffu));
	}
	h = ve_fnv(h, &proto, 1);
	if (l4 != 0 && (proto == 6 || proto == 17 || proto == 132) && len >= l4 + 4)
		h = ve_fnv(h, p + l4, 4);
	h ^= h >> 16;
	return (uint16_t)(49152u | (h & 0x3fffu));
}

/* Remove up to two VLAN tags of the frame at @l2 (moving the MAC addresses); the new l2 offset. */
static inline __attribute__((always_inline)) uint32_t
ve_untag(uint8_t *a, uint32_t l2, uint32_t end)
{
	for (int k = 0; k < 2 && l2 + 18 <= end; k++) {
		uint16_t et = vpk_rd16be(a + l2 + 12);

		if (et != VPK_ETHERTYPE_VLAN && et != VPK_ETHERTYPE_QINQ)
			break;
		memmove(a + l2 + 4, a + l2, 12);
		l2 += 4;
	}
	return l2;
}

/* UDP (checksum 0) + VXLAN header at @u for tunnel @t, before the @ilen-byte inner frame @inner. */
static inline __attribute__((always_inline)) void
ve_udp_vxlan(uint8_t *u, const struct vpk_vxlan_conf *c, const struct vpk_vxlan_tunnel *t, const uint8_t *inner,
	     uint32_t ilen)
{
	tn_wr16be(u, ve_sport(inner, ilen));
	tn_wr16be(u + 2, c->port ? c->port : VPK_VXLAN_PORT);
	tn_wr16be(u + 4, (uint16_t)(16 + ilen));
	tn_wr16be(u + 6, 0);
	u[8] = 0x08;
	u[9] = u[10] = u[11] = 0;
	u[12] = (uint8_t)(t->vni >> 16);
	u[13] = (uint8_t)(t->vni >> 8);
	u[14] = (uint8_t)t->vni;
	u[15] = 0;
}

/*
 * The start of an encapsulation of @b: its tunnel (one of family @is6) into
 * *t, the inner frame untagged, *o the offset of the @hl bytes of outer
 * headers before it. VE_NEXT_LOOKUP, or the drop arc.
 */
static inline __attribute__((always_inline)) uint16_t
ve_begin(struct vpk_node_rt *rt, const struct vpk_vxlan_conf *c, struct vpk_buf *b, bool is6, uint32_t hl,
	 const struct vpk_vxlan_tunnel **t, uint32_t *o)
{
	uint32_t ti = tn_get_index(b), end = (uint32_t)b->data_off + b->len;

	if (c == NULL || ti >= c->n_tunnels || !c->tunnels[ti].is_ip6 != !is6)
		return vpk_node_drop(rt, b, VE_ERR_TUNNEL, VE_NEXT_DROP);
	*t = &c->tunnels[ti];
	if (b->l2_off < hl + 14)
		return vpk_node_drop(rt, b, VE_ERR_HEADROOM, VE_NEXT_DROP);
	b->l2_off = (uint16_t)ve_untag(vpk_buf_area(b), b->l2_off, end);
	*o = b->l2_off - hl;
	return VE_NEXT_LOOKUP;
}

static inline __attribute__((always_inline)) uint16_t
ve_one(struct vpk_node_rt *rt, const struct vpk_vxlan_conf *c, struct vpk_buf *b)
{
	uint32_t end = (uint32_t)b->data_off + b->len, ilen, o, sa, da;
	const struct vpk_vxlan_tunnel *t;
	uint8_t *a = vpk_buf_area(b), *h;
	uint16_t next = ve_begin(rt, c, b, false, 36, &t, &o);

	if (next != VE_NEXT_LOOKUP)
		return next;
	ilen = end - b->l2_off;
	h = a + o;
	memcpy(&sa, t->src, 4);
	memcpy(&da, t->dst, 4);
	tn_ip4_udp_hdr(h, 0, (uint16_t)(36 + ilen), 64, sa, da);
	ve_udp_vxlan(h + 20, c, t, a + b->l2_off, ilen);
	tn_set_outer_udp(b, o, 20, end);
	vpk_node_count_error(rt, VE_ERR_ENCAP, 1);
	return VE_NEXT_LOOKUP;
}

static inline __attribute__((always_inline)) uint16_t
ve6_one(struct vpk_node_rt *rt, const struct vpk_vxlan_conf *c, struct vpk_buf *b)
{
	uint32_t end = (uint32_t)b->data_off + b->len, ilen, o, s;
	const struct vpk_vxlan_tunnel *t;
	uint8_t *a = vpk_buf_area(b), *h;
	uint16_t cs, next = ve_begin(rt, c, b, true, 56, &t, &o);

	if (next != VE_NEXT_LOOKUP)
		return next;
	ilen = end - b->l2_off;
	h = a + o;
	h[0] = 0x60;
	h[1] = h[2] = h[3] = 0;
	tn_wr16be(h + 4, (uint16_t)(16 + ilen));
	h[6] = 17;
	h[7] = 64;
	memcpy(h + 8, t->src, 16);
	memcpy(h + 24, t->dst, 16);
	ve_udp_vxlan(h + 40, c, t, a + b->l2_off, ilen);
	/* pseudo-header (RFC 8200 §8.1): addresses, upper-layer length, next header */
	s = vpk_csum_add(0, h + 8, 32) + 16 + ilen + 17;
	s = vpk_csum_fold(vpk_csum_add(s, h + 40, 16 + ilen));
	cs = (uint16_t)~s;
	tn_wr16be(h + 46, cs ? cs : 0xffff);
	tn_set_outer_udp(b, o, 40, end);
	vpk_node_count_error(rt, VE_ERR_ENCAP, 1);
	return VE_NEXT_LOOKUP;
}

VPK_NODE_FN_EACH(vxlan6_encap, const struct vpk_vxlan_conf *, ve6_one(rt, c, b[i]))
VPK_NODE_FN_EACH(vxlan4_encap, const struct vpk_vxlan_conf *, ve_one(rt, c, b[i]))

/* The registration fields vxlan4-encap and vxlan6-encap share. */
#define VE_NODE .n_next = VE_N_NEXT, .n_errors = VE_N_ERROR, .init = graph_node_init_conf
VPK_NODE_REGISTER(vxlan4_encap, VPK_FN(vxlan4_encap_fn), .name = "vxlan4-encap", .next_names = ve_next,
		  .error_strings = ve_errors, VE_NODE);
VPK_NODE_REGISTER(vxlan6_encap, VPK_FN(vxlan6_encap_fn), .name = "vxlan6-encap", .next_names = ve6_next,
		  .error_strings = ve6_errors, VE_NODE);
