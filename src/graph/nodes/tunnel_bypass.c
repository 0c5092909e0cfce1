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
 * path. Each prefix table (steering, encap, localsid) is a longest-prefix
 * match (tunnel/prefix_lpm.h) built when the graph is created: a packet in
 * a /24 and a /25 goes by the /25 whatever the configuration order.
 */
#include <stdlib.h>

#include "graph/nodes/tunnel_nodes.h"
#include "tunnel/prefix_lpm.h"

struct bp_ctx {
	const struct vpk_tunnel_bypass_conf *c;
	struct tn_lpm gtp4d, encap, gtp4e;
};

enum { BP4_NEXT_ACL, BP4_NEXT_LOOKUP, BP4_NEXT_VXLAN, BP4_NEXT_GTP4D, BP4_NEXT_ENCAP, BP4_NEXT_DROP,
       BP4_NEXT_ENCAP6, BP4_N_NEXT };
enum { BP6_NEXT_ACL, BP6_NEXT_LOOKUP, BP6_NEXT_VXLAN, BP6_NEXT_GTP4E, BP6_NEXT_DROP, BP6_N_NEXT };

static const char *const bp4_next[BP4_N_NEXT] = {
	[BP4_NEXT_ACL] = "ip4-acl", [BP4_NEXT_LOOKUP] = "ip4-lookup", [BP4_NEXT_VXLAN] = "vxlan4-input",
	[BP4_NEXT_GTP4D] = "srv6-gtp4-d", [BP4_NEXT_ENCAP] = "vxlan4-encap", [BP4_NEXT_DROP] = "error-drop",
	[BP4_NEXT_ENCAP6] = "vxlan6-encap",
};
static const char *const bp6_next[BP6_N_NEXT] = {
	[BP6_NEXT_ACL] = "ip6-acl", [BP6_NEXT_LOOKUP] = "ip6-lookup", [BP6_NEXT_VXLAN] = "vxlan6-input",
	[BP6_NEXT_GTP4E] = "srv6-end-m-gtp4-e", [BP6_NEXT_DROP] = "error-drop",
};

/* UDP to the VxLAN port, not a fragment, its UDP header in the frame: for vxlan4/6-input. */
static inline __attribute__((always_inline)) bool
bp_vxlan(const struct vpk_tunnel_bypass_conf *c, const struct vpk_buf *b, const uint8_t *h, uint32_t hlen)
{
	return c->vxlan != NULL && b->l4_proto == 17 && !(b->flags & VPK_BUF_F_FRAG) && vpk_l3_left(b) >= hlen + 8 &&
	       vpk_rd16be(h + hlen + 2) == (c->vxlan->port ? c->vxlan->port : VPK_VXLAN_PORT);
}

static inline __attribute__((always_inline)) uint16_t
bp4_one(const struct bp_ctx *x, struct vpk_buf *b, uint16_t fwd, bool vx_in)
{
	const struct vpk_tunnel_bypass_conf *c = x->c;
	const uint8_t *h = vpk_buf_area(b) + b->l3_off;
	uint32_t hlen = (uint32_t)(b->l4_off - b->l3_off), da = tn_rd32be(h + 16), i;

	if (vx_in && bp_vxlan(c, b, h, hlen))
		return BP4_NEXT_VXLAN;
	if (x->gtp4d.n_plen != 0 && (i = tn_lpm_find(&x->gtp4d, (uint64_t)da << 32)) != EP_NONE) {
		tn_set_index(b, i);
		return BP4_NEXT_GTP4D;
	}
	if (x->encap.n_plen != 0 && (i = tn_lpm_find(&x->encap, (uint64_t)da << 32)) != EP_NONE) {
		tn_set_index(b, i);
		return c->vxlan->tunnels[i].is_ip6 ? BP4_NEXT_ENCAP6 : BP4_NEXT_ENCAP;
	}
	return fwd;
}

static uint32_t
VPK_FN(ip4_tunnel_bypass_fn)(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	const struct bp_ctx *x = vpk_node_ctx(rt);
	uint16_t fwd = vpk_node_has_next(rt, BP4_NEXT_ACL) ? BP4_NEXT_ACL : BP4_NEXT_LOOKUP;
	bool vx_in = vpk_node_has_next(rt, BP4_NEXT_VXLAN);     /* no IPv4 tunnels: no decap */

	VPK_NODE_EACH(rt, bi, n, i, bp4_one(x, b[i], fwd, vx_in));
	return n;
}

static inline __attribute__((always_inline)) uint16_t
bp6_one(const struct bp_ctx *x, struct vpk_buf *b, uint16_t fwd, bool vx_in)
{
	const struct vpk_tunnel_bypass_conf *c = x->c;
	const uint8_t *h = vpk_buf_area(b) + b->l3_off;
	uint32_t hlen = (uint32_t)(b->l4_off - b->l3_off), i;
	uint64_t da;

	if (vx_in && bp_vxlan(c, b, h, hlen))
		return BP6_NEXT_VXLAN;
	if (x->gtp4e.n_plen == 0)
		return fwd;
	memcpy(&da, h + 24, 8);
	if ((i = tn_lpm_find(&x->gtp4e, __builtin_bswap64(da))) != EP_NONE) {
		tn_set_index(b, i);
		return BP6_NEXT_GTP4E;
	}
	return fwd;
}

static uint32_t
VPK_FN(ip6_tunnel_bypass_fn)(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	const struct bp_ctx *x = vpk_node_ctx(rt);
	uint16_t fwd = vpk_node_has_next(rt, BP6_NEXT_ACL) ? BP6_NEXT_ACL : BP6_NEXT_LOOKUP;
	bool vx_in = vpk_node_has_next(rt, BP6_NEXT_VXLAN);

	VPK_NODE_EACH(rt, bi, n, i, bp6_one(x, b[i], fwd, vx_in));
	return n;
}

static const struct vpk_tunnel_bypass_conf no_tunnels = { 0 };

static void
bp_fini(struct vpk_node_rt *rt)
{
	struct bp_ctx *x = vpk_node_ctx(rt);

	if (x != NULL) {
		vpk_tn_lpm_free(&x->gtp4d);
		vpk_tn_lpm_free(&x->encap);
		vpk_tn_lpm_free(&x->gtp4e);
		free(x);
	}
	vpk_node_set_ctx(rt, NULL);
}

/* The three prefix tables of @c as longest-prefix matches. */
static int
bp_build(struct bp_ctx *x, const struct vpk_tunnel_bypass_conf *c)
{
	uint32_t n = 0;
	uint64_t *pfx;
	uint8_t *plen, *skip;
	int rc = 0;

	if (c->gtp4d != NULL && c->gtp4d->n_steer > n)
		n = c->gtp4d->n_steer;
	if (c->vxlan != NULL && c->vxlan->n_tunnels > n)
		n = c->vxlan->n_tunnels;
	if (c->gtp4e != NULL && c->gtp4e->n_sid > n)
		n = c->gtp4e->n_sid;
	pfx = calloc(n + 1, sizeof(*pfx));
	plen = calloc(n + 1, 1);
	skip = calloc(n + 1, 1);
	if (pfx == NULL || plen == NULL || skip == NULL)
		rc = -ENOMEM;
	if (rc == 0 && c->gtp4d != NULL) {
		for (uint32_t i = 0; i < c->gtp4d->n_steer; i++) {
			pfx[i] = (uint64_t)c->gtp4d->steer[i].prefix4 << 32;
			plen[i] = c->gtp4d->steer[i].plen4;
		}
		rc = vpk_tn_lpm_build(&x->gtp4d, pfx, plen, NULL, c->gtp4d->n_steer);
	}
	if (rc == 0 && c->vxlan != NULL) {
		for (uint32_t i = 0; i < c->vxlan->n_tunnels; i++) {
			pfx[i] = (uint64_t)c->vxlan->tunnels[i].encap_prefix << 32;
			plen[i] = c->vxlan->tunnels[i].encap_plen;
			skip[i] = plen[i] == 0;
		}
		rc = vpk_tn_lpm_build(&x->encap, pfx, plen, skip, c->vxlan->n_tunnels);
	}
	if (rc == 0 && c->gtp4e != NULL) {
		for (uint32_t i = 0; i < c->gtp4e->n_sid; i++) {
			pfx[i] = 0;
			for (unsigned k = 0; k < 8; k++)
				pfx[i] = pfx[i] << 8 | c->gtp4e->sid[i].prefix[k];
			plen[i] = c->gtp4e->sid[i].plen;
		}
		rc = vpk_tn_lpm_build(&x->gtp4e, pfx, plen, NULL, c->gtp4e->n_sid);
	}
	free(pfx);
	free(plen);
	free(skip);
	return rc;
}

static int
bp_init(struct vpk_node_rt *rt, void *conf)
{
	struct bp_ctx *x = calloc(1, sizeof(*x));
	int rc;

	if (x == NULL)
		return -ENOMEM;
	x->c = conf != NULL ? conf : &no_tunnels;
	vpk_node_set_ctx(rt, x);
	rc = bp_build(x, x->c);
	if (rc != 0)
		bp_fini(rt);
	return rc;
}

VPK_NODE_REGISTER(ip4_tunnel_bypass, VPK_FN(ip4_tunnel_bypass_fn), .name = "ip4-tunnel-bypass",
		  .n_next = BP4_N_NEXT, .next_names = bp4_next, .init = bp_init, .fini = bp_fini);
VPK_NODE_REGISTER(ip6_tunnel_bypass, VPK_FN(ip6_tunnel_bypass_fn), .name = "ip6-tunnel-bypass",
		  .n_next = BP6_N_NEXT, .next_names = bp6_next, .init = bp_init, .fini = bp_fini);
