/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TUNNEL_H
#define VPK_TUNNEL_H
/**
 * @file
 * Configuration of the tunnel nodes (give it through
 * vpk_graph_conf::node_conf, keyed by node name). All structures are read
 * when a graph is created (each node's init() builds its own tables and
 * caches from them) and must stay valid while the graph exists.
 *
 *   node               next arcs                                          conf
 *   ip4-tunnel-bypass  ip4-acl, ip4-lookup, vxlan4-input, srv6-gtp4-d,    struct vpk_tunnel_bypass_conf
 *                      vxlan4-encap, error-drop, vxlan6-encap
 *   ip6-tunnel-bypass  ip6-acl, ip6-lookup, vxlan6-input,                 struct vpk_tunnel_bypass_conf
 *                      srv6-end-m-gtp4-e, error-drop
 *   vxlan4-input       ethernet-input, ip4-input, ip6-input,              struct vpk_vxlan_conf
 *   vxlan6-input         ip4-acl, ip4-lookup / ip6-*, error-drop
 *   vxlan4-encap       ip4-lookup, error-drop                             struct vpk_vxlan_conf
 *   vxlan6-encap       ip6-lookup, error-drop                             struct vpk_vxlan_conf
 *   srv6-gtp4-d        ip6-rewrite, ip4-lookup, error-drop, ip6-lookup    struct vpk_gtp4d_conf
 *   srv6-end-m-gtp4-e  ip4-lookup, error-drop, ip6-icmp-error             struct vpk_gtp4e_conf
 *
 * ip4-input / ip6-input hand every good packet to the bypass node when the
 * graph has it. The bypass node diverts, before the ACL and the lookup:
 * UDP to the VxLAN port (not fragments) to vxlan4/6-input; IPv4 packets
 * whose destination is in a GTP4.D steering prefix to srv6-gtp4-d; IPv4
 * packets whose destination is in a tunnel's encap prefix to vxlan4-encap
 * (vxlan6-encap for an IPv6 tunnel);
 * IPv6 packets whose destination is in an End.M.GTP4.E localsid prefix to
 * srv6-end-m-gtp4-e. Everything else continues on the normal path. Each
 * prefix table is matched by longest prefix, whatever the order of the
 * entries (a prefix given twice resolves to its first entry).
 *
 * vpk_buf::opaque[0..3] carries the tunnel / steering entry index
 * (uint32_t, host order) from the bypass to the tunnel node, and after a
 * decapsulation the index of the tunnel the packet arrived on.
 */
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Default VxLAN UDP port (IANA, RFC 7348). */
#define VPK_VXLAN_PORT 4789u
/** GTP-U UDP port (3GPP TS 29.281). */
#define VPK_GTPU_PORT 2152u
/** Most segments in an SR policy (the header must fit the buffer headroom). */
#define VPK_SR_MAX_SEGS 6u

/** Where a decapsulated VxLAN frame goes (vpk_vxlan_tunnel::decap_next). */
enum vpk_vxlan_decap_next {
	VPK_VXLAN_NEXT_L2 = 0,  /**< The inner Ethernet frame to ethernet-input. */
	VPK_VXLAN_NEXT_IP4,     /**< The inner IPv4 packet (inner Ethernet removed) to ip4-input. */
	VPK_VXLAN_NEXT_IP6,     /**< The inner IPv6 packet to ip6-input. */
};

/** One VxLAN tunnel. IPv4 addresses are the first 4 bytes of the 16. */
struct vpk_vxlan_tunnel {
	uint8_t is_ip6;         /**< Outer header family. */
	uint8_t decap_next;     /**< enum vpk_vxlan_decap_next. */
	uint8_t src[16];        /**< Local VTEP address (outer source on encap, outer destination on decap). */
	uint8_t dst[16];        /**< Remote VTEP address. */
	uint32_t vni;           /**< 24-bit VxLAN network identifier. */
	uint32_t encap_prefix;  /**< IPv4 packets to this prefix (host order) are encapsulated ... */
	uint8_t encap_plen;     /**< ... when encap_plen is 1..32 (0: no encap route). */
};

/** VxLAN receive rules (vpk_vxlan_conf::mode). */
enum vpk_vxlan_mode {
	VPK_VXLAN_RFC = 0,      /**< RFC 7348: the I flag must be set, reserved bits ignored. */
	VPK_VXLAN_STRICT,       /**< VPP: flags must be exactly 0x08; a non-zero reserved byte after
				     the VNI makes the key unknown ("no such tunnel"). */
};

/** Conf of vxlan4-input, vxlan6-input, vxlan4-encap and vxlan6-encap. */
struct vpk_vxlan_conf {
	const struct vpk_vxlan_tunnel *tunnels; /**< Tunnel i is named by index i. */
	uint32_t n_tunnels;
	uint16_t port;          /**< UDP destination port; 0: VPK_VXLAN_PORT. */
	uint8_t mode;           /**< enum vpk_vxlan_mode. */
};

/** An SR policy: a segment list S1..Sn and optionally the neighbor (adjacency) toward S1. */
struct vpk_sr_policy {
	uint8_t bsid[16];                       /**< Binding SID (names the policy). */
	uint8_t seg[VPK_SR_MAX_SEGS][16];       /**< S1 (first to visit) .. Sn. */
	uint32_t n_seg;                         /**< 1..VPK_SR_MAX_SEGS. */
	uint32_t adj;                           /**< Adjacency (neighbor id) for ip6-rewrite; 0: ip6-lookup. */
};

/** Inner-packet type rules of GTP4.D (VPP's nhtype). */
enum vpk_gtp4d_nhtype {
	VPK_GTP4D_NH_AUTO = 0,  /**< IPv4 or IPv6 by the inner version nibble; others dropped. */
	VPK_GTP4D_NH_IP4,       /**< Inner must be IPv4. */
	VPK_GTP4D_NH_IP6,       /**< Inner must be IPv6. */
};

/**
 * One H.M.GTP4.D steering entry (RFC 9433 §6.7): IPv4/UDP 2152/GTP-U
 * G-PDUs to @p prefix4 / @p plen4 are re-encapsulated in IPv6 + SRH.
 * The last segment B = @p sr_prefix with IPv4 DA (32 bits) and
 * Args.Mob.Session (QFI 6 | R 1 | U 1 | TEID 32) written after
 * @p sr_plen bits (any bit position, sr_plen <= 56); the IPv6 source =
 * @p v6src with the IPv4 SA written after @p v6src_plen bits (<= 96).
 */
struct vpk_gtp4d_steer {
	uint32_t prefix4;               /**< IPv4 destinations to translate (host order). */
	uint8_t plen4;
	uint8_t sr_plen;
	uint8_t v6src_plen;
	uint8_t nhtype;                 /**< enum vpk_gtp4d_nhtype. */
	uint8_t sr_prefix[16];          /**< Bits past sr_plen must be zero. */
	uint8_t v6src[16];              /**< Bits past v6src_plen must be zero. */
	uint8_t u_from_pdu_type;        /**< VPP compat: U bit = PDU type UL (RFC: U is 0). */
	const struct vpk_sr_policy *policy; /**< Segment list; NULL: DA = B, no SRH. */
	uint32_t adj;                   /**< Adjacency when @p policy is NULL; 0: ip6-lookup. */
};

/** Conf of srv6-gtp4-d. */
struct vpk_gtp4d_conf {
	const struct vpk_gtp4d_steer *steer;
	uint32_t n_steer;
};

/**
 * One End.M.GTP4.E localsid (RFC 9433 §6.6): IPv6 packets to
 * @p prefix / @p plen (plen <= 56) become IPv4/UDP/GTP-U: IPv4 DA and
 * Args.Mob.Session from the 72 bits after plen, IPv4 SA from bits
 * [v4src_pos, v4src_pos + 32) of the IPv6 source, or @p v4src when
 * v4src_pos is 0.
 */
struct vpk_gtp4e_localsid {
	uint8_t prefix[16];
	uint8_t plen;
	uint8_t v4src_pos;
	uint8_t v4src[4];
};

/** Conf of srv6-end-m-gtp4-e. */
struct vpk_gtp4e_conf {
	const struct vpk_gtp4e_localsid *sid;
	uint32_t n_sid;
};

/** Conf of ip4-tunnel-bypass and ip6-tunnel-bypass (the tables they divert by). */
struct vpk_tunnel_bypass_conf {
	const struct vpk_vxlan_conf *vxlan;     /**< NULL: no VxLAN; else divert UDP to its port. */
	const struct vpk_gtp4d_conf *gtp4d;     /**< ip4: steering prefixes; NULL: none. */
	const struct vpk_gtp4e_conf *gtp4e;     /**< ip6: localsid prefixes; NULL: none. */
};

#ifdef __cplusplus
}
#endif

#endif /* VPK_TUNNEL_H */
