/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip4-tunnel-bypass and ip6-tunnel-bypass: the tunnel classification that
 * sits between ip4-input / ip6-input and the ACL / lookup (VPP's
 * ip4-vxlan-bypass feature plus the SRv6 steering DPO, in one node):
 *
 *   ip4: UDP, not a fragment, dport == VxLAN port      -> vxlan4-input
 *        destination in a GTP4.D steering prefix        -> srv6-gtp4-d
 *        destination in a VxLAN tunnel's encap prefix   -> vxlan4-encap / vxlan6-encap
 *   ip6: UDP after the extension headers, not a fragment,
 *        dport == VxLAN port                            -> vxlan6-input
 *        destination in an End.M.GTP4.E localsid prefix -> srv6-end-m-gtp4-e
 *   anything else: the normal path (ACL if present, else lookup).
 *
 * The endpoint check (is this our VTEP, which tunnel) happens in
 * vxlan4/6-input, which hands packets for other VTEPs back to the normal
 * path. Prefix tables are scanned linearly in configuration order (first
 * match wins): they hold a few entries per gateway; steering by the FIB
 * would be the step for thousands.
 */
#include "graph/nodes/tunnel_nodes.h"

enum { BP4_NEXT_ACL, BP4_NEXT_LOOKUP, BP4_NEXT_VXLAN, BP4_NEXT_GTP4D, BP4_NEXT_ENCAP, BP4_NEXT_DROP,
       BP4_NEXT_ENCAP6, BP4_N_NEXT };
enum { BP6_NEXT_ACL, BP6_NEXT_LOOKUP, BP6_NEXT_VXLAN, BP6_NEXT_GTP4E, BP6_NEXT_DROP, BP6_N_NEXT };

static inline __attribute__((always_inline)) uint16_t
bp4_one(const struct vpk_tunnel_bypass_conf *c, struct vpk_buf *b, uint16_t fwd, bool vx_in)
{
	const uint8_t *h = vpk_buf_area(b) + b->l3_off;
	uint32_t hlen = (uint32_t)(b->l4_off - b->l3_off), da = tn_rd32be(h + 16);

	if (vx_in && c->vxlan != NULL && b->l4_proto == 17 && !(b->flags & VPK_BUF_F_FRAG) &&
	    vpk_l3_left(b) >= hlen + 8 &&
	    vpk_rd16be(h + hlen + 2) == (c->vxlan->port ? c->vxlan->port : VPK_VXLAN_PORT))
		return BP4_NEXT_VXLAN;
	if (c->gtp4d != NULL)
		for (uint32_t i = 0; i < c->gtp4d->n_steer; i++)
			if (tn_match4(da, c->gtp4d->steer[i].prefix4, c->gtp4d->steer[i].plen4)) {
				tn_set_index(b, i);
				return BP4_NEXT_GTP4D;
			}
	if (c->vxlan != NULL)
		for (uint32_t i = 0; i < c->vxlan->n_tunnels; i++) {
			const struct vpk_vxlan_tunnel *t = &c->vxlan->tunnels[i];

			if (t->encap_plen != 0 && tn_match4(da, t->encap_prefix, t->encap_plen)) {
				tn_set_index(b, i);
				return t->is_ip6 ? BP4_NEXT_ENCAP6 : BP4_NEXT_ENCAP;
			}
		}
	return fwd;
}

static uint32_t
VPK_FN(ip4_tunnel_bypass_fn)(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	const struct vpk_tunnel_bypass_conf *c = vpk_node_ctx(rt);
	uint16_t next[VPK_FRAME_SIZE];
	uint16_t fwd = vpk_node_has_next(rt, BP4_NEXT_ACL) ? BP4_NEXT_ACL : BP4_NEXT_LOOKUP;
	bool vx_in = vpk_node_has_next(rt, BP4_NEXT_VXLAN);     /* no IPv4 tunnels: no decap */

	for (uint32_t i = 0; i < n; i++)
		next[i] = bp4_one(c, b[i], fwd, vx_in);
	vpk_node_enqueue_to_next(rt, bi, next, n);
	return n;
}
VPK_NODE_FN_OBJ(ip4_tunnel_bypass, VPK_FN(ip4_tunnel_bypass_fn));

static inline __attribute__((always_inline)) uint16_t
bp6_one(const struct vpk_tunnel_bypass_conf *c, struct vpk_buf *b, uint16_t fwd, bool vx_in)
{
	const uint8_t *h = vpk_buf_area(b) + b->l3_off;
	uint32_t hlen = (uint32_t)(b->l4_off - b->l3_off);

	if (vx_in && c->vxlan != NULL && b->l4_proto == 17 && !(b->flags & VPK_BUF_F_FRAG) &&
	    vpk_l3_left(b) >= hlen + 8 &&
	    vpk_rd16be(h + hlen + 2) == (c->vxlan->port ? c->vxlan->port : VPK_VXLAN_PORT))
		return BP6_NEXT_VXLAN;
	if (c->gtp4e != NULL)
		for (uint32_t i = 0; i < c->gtp4e->n_sid; i++)
			if (tn_match6(h + 24, c->gtp4e->sid[i].prefix, c->gtp4e->sid[i].plen)) {
				tn_set_index(b, i);
				return BP6_NEXT_GTP4E;
			}
	return fwd;
}

static uint32_t
VPK_FN(ip6_tunnel_bypass_fn)(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	const struct vpk_tunnel_bypass_conf *c = vpk_node_ctx(rt);
	uint16_t next[VPK_FRAME_SIZE];
	uint16_t fwd = vpk_node_has_next(rt, BP6_NEXT_ACL) ? BP6_NEXT_ACL : BP6_NEXT_LOOKUP;
	bool vx_in = vpk_node_has_next(rt, BP6_NEXT_VXLAN);

	for (uint32_t i = 0; i < n; i++)
		next[i] = bp6_one(c, b[i], fwd, vx_in);
	vpk_node_enqueue_to_next(rt, bi, next, n);
	return n;
}
VPK_NODE_FN_OBJ(ip6_tunnel_bypass, VPK_FN(ip6_tunnel_bypass_fn));

#if VPK_VEC_BITS == 0
static const char *const bp4_next[] = { "ip4-acl", "ip4-lookup", "vxlan4-input", "srv6-gtp4-d",
					"vxlan4-encap", "error-drop", "vxlan6-encap" };
static const char *const bp6_next[] = { "ip6-acl", "ip6-lookup", "vxlan6-input", "srv6-end-m-gtp4-e",
					"error-drop" };
static const struct vpk_tunnel_bypass_conf no_tunnels = { 0 };

static int
bp_init(struct vpk_node_rt *rt, void *conf)
{
	vpk_node_set_ctx(rt, conf != NULL ? conf : (void *)&no_tunnels);
	return 0;
}

VPK_NODE_VARIANTS(ip4_tunnel_bypass);
VPK_NODE_VARIANTS(ip6_tunnel_bypass);
const struct vpk_node_reg ip4_tunnel_bypass_reg = {
	.name = "ip4-tunnel-bypass", .n_next = BP4_N_NEXT, .next_names = bp4_next,
	.impls = ip4_tunnel_bypass_impls, .init = bp_init,
};
const struct vpk_node_reg ip6_tunnel_bypass_reg = {
	.name = "ip6-tunnel-bypass", .n_next = BP6_N_NEXT, .next_names = bp6_next,
	.impls = ip6_tunnel_bypass_impls, .init = bp_init,
};
#endif
