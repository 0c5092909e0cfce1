/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vxlan4-input and vxlan6-input: VxLAN decapsulation (RFC 7348), fed by
 * ip4/ip6-tunnel-bypass with UDP to the VxLAN port.
 *
 * Per frame:
 *  1. key every packet by its endpoint pair (IPv4: the 8 bytes SA|DA as one
 *     64-bit load, VPP's key[0]; IPv6: a 64-bit fold of SA and DA);
 *  2. resolve all keys with the endpoint cache of this node's ISA
 *     (tunnel/ep_cache.h: scalar 1 entry, SIMD 8 ways in one compare) in
 *     front of the endpoint table; IPv6 hits are verified against the full
 *     addresses, so a fold collision can never select a wrong endpoint;
 *  3. per packet: an unknown pair whose DA is not one of our VTEP addresses
 *     is not ours and goes back to the normal path (ACL / lookup); for ours:
 *     truncation, UDP length, flags (RFC: I bit set, reserved bits ignored;
 *     strict: flags == 0x08 and the reserved byte after the VNI in the key,
 *     like VPP), then (endpoint, VNI) -> tunnel, then strip outer headers
 *     and hand the inner frame (discarded when it carries a VLAN tag: RFC
 *     7348 §6.1 SHOULD) to ethernet-input (l2), or its IPv4 / IPv6
 *     packet to ip4-input / ip6-input (decap-next ip4 / ip6), with the
 *     tunnel index in vpk_buf::opaque.
 * Every drop reason has its own counter; "decapsulated" and "not for a
 * local VTEP" count good packets.
 */
#include <stdlib.h>

#include "graph/nodes/tunnel_nodes.h"
#include "tunnel/ep_cache.h"

enum { VX_NEXT_L2, VX_NEXT_IP4, VX_NEXT_IP6, VX_NEXT_ACL, VX_NEXT_LOOKUP, VX_NEXT_DROP, VX_N_NEXT };
enum {
	VX_ERR_DECAP, VX_ERR_NOT_OURS, VX_ERR_TRUNC, VX_ERR_UDP_LEN, VX_ERR_FLAGS, VX_ERR_NO_TUNNEL,
	VX_ERR_INNER_TYPE, VX_ERR_INNER_VLAN, VX_N_ERROR
};

struct vx_ctx {
	struct ep_cache cache;          /* first: 64-byte aligned */
	struct ep_table ep;             /* endpoint pair key -> endpoint index */
	struct ep_table tun;            /* (endpoint + 1) << 32 | VNI -> tunnel index */
	uint8_t (*ep_addr)[32];         /* endpoint i: remote | local (IPv6 verification) */
	uint32_t *ep_vni, *ep_val;      /* endpoint i: its first tunnel's VNI and value (no probe) */
	uint8_t (*local)[16];           /* our VTEP addresses */
	uint32_t n_local;
	const struct vpk_vxlan_tunnel *t;
	uint16_t port;
	uint8_t strict, is6;
};

extern const struct ep_cache_impl VPK_FN(ep_cache);

static inline __attribute__((always_inline)) bool
vx_is_local(const struct vx_ctx *x, const uint8_t *da)
{
	for (uint32_t i = 0; i < x->n_local; i++)
		if (memcmp(x->local[i], da, x->is6 ? 16 : 4) == 0)
			return true;
	return false;
}

/* Tunnel table values: tunnel index | decap_next << VX_NEXT_SHIFT. */
#define VX_NEXT_SHIFT 24
#define VX_CHUNK 64u
#define VX_TI_MASK ((1u << VX_NEXT_SHIFT) - 1)

static inline __attribute__((always_inline)) uint16_t
vx_one(struct vpk_node_rt *rt, const struct vx_ctx *x, struct vpk_buf *b, uint32_t ep, uint16_t fwd,
       uint32_t *n_ok, uint32_t *n_fwd)
{
	uint8_t *h = vpk_buf_area(b) + b->l3_off;
	uint32_t hlen = (uint32_t)(b->l4_off - b->l3_off);     /* after IPv6 extension headers */
	uint32_t left = vpk_l3_left(b), ulen, vni, ti, eth;
	const uint8_t *u = h + hlen, *vx = u + 8;
	uint8_t *inner;

	if (ep != EP_NONE && x->is6 && memcmp(x->ep_addr[ep], h + 8, 32) != 0)
		ep = EP_NONE;   /* fold collision: not this endpoint */
	if (ep == EP_NONE && !vx_is_local(x, h + (x->is6 ? 24 : 16))) {
		(*n_fwd)++;
		return fwd;
	}
	if (left < hlen + 16)
		return vpk_node_drop(rt, b, VX_ERR_TRUNC, VX_NEXT_DROP);
	ulen = vpk_rd16be(u + 4);
	if (ulen < 16 || ulen > left - hlen)
		return vpk_node_drop(rt, b, VX_ERR_UDP_LEN, VX_NEXT_DROP);
	if (x->strict ? vx[0] != 0x08 : !(vx[0] & 0x08))
		return vpk_node_drop(rt, b, VX_ERR_FLAGS, VX_NEXT_DROP);
	if (ep == EP_NONE || (x->strict && vx[7] != 0))
		return vpk_node_drop(rt, b, VX_ERR_NO_TUNNEL, VX_NEXT_DROP);
	vni = (uint32_t)vx[4] << 16 | (uint32_t)vx[5] << 8 | vx[6];
	ti = vni == x->ep_vni[ep] ? x->ep_val[ep] : ep_table_find(&x->tun, (uint64_t)(ep + 1) << 32 | vni);
	if (ti == EP_NONE)
		return vpk_node_drop(rt, b, VX_ERR_NO_TUNNEL, VX_NEXT_DROP);
	if (ulen < 16 + 14)
		return vpk_node_drop(rt, b, VX_ERR_TRUNC, VX_NEXT_DROP);
	inner = (uint8_t *)vx + 8;
	eth = (uint32_t)(inner - vpk_buf_area(b));
	b->len = (uint16_t)(ulen - 16);
	b->total_len = b->len;
	b->data_off = (uint16_t)eth;
	b->l2_off = (uint16_t)eth;
	b->l3_off = (uint16_t)(eth + 14);
	tn_set_index(b, ti & VX_TI_MASK);
	if (vpk_rd16be(inner + 12) == VPK_ETHERTYPE_VLAN || vpk_rd16be(inner + 12) == VPK_ETHERTYPE_QINQ)
		return vpk_node_drop(rt, b, VX_ERR_INNER_VLAN, VX_NEXT_DROP);
	switch (ti >> VX_NEXT_SHIFT) {
	case VPK_VXLAN_NEXT_IP4:
		if (vpk_rd16be(inner + 12) != VPK_ETHERTYPE_IP4)
			return vpk_node_drop(rt, b, VX_ERR_INNER_TYPE, VX_NEXT_DROP);
		(*n_ok)++;
		return VX_NEXT_IP4;
	case VPK_VXLAN_NEXT_IP6:
		if (vpk_rd16be(inner + 12) != VPK_ETHERTYPE_IP6)
			return vpk_node_drop(rt, b, VX_ERR_INNER_TYPE, VX_NEXT_DROP);
		(*n_ok)++;
		return VX_NEXT_IP6;
	default:
		(*n_ok)++;
		b->flags |= VPK_BUF_F_INNER;
		return VX_NEXT_L2;
	}
}

static inline __attribute__((always_inline)) uint32_t
vx_frame(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n, bool is6)
{
	struct vx_ctx *x = vpk_node_ctx(rt);
	uint64_t key[VPK_FRAME_SIZE];
	uint32_t ep[VPK_FRAME_SIZE];
	uint16_t next[VPK_FRAME_SIZE];
	uint16_t fwd = vpk_node_has_next(rt, VX_NEXT_ACL) ? VX_NEXT_ACL : VX_NEXT_LOOKUP;
	uint32_t n_ok = 0, n_fwd = 0;   /* summed per frame: no store-forwarded counter chain */

	/* Chunks of VX_CHUNK packets: their headers are still in L1 when the checks read them. */
	for (uint32_t c0 = 0; c0 < n; c0 += VX_CHUNK) {
		uint32_t c1 = n - c0 < VX_CHUNK ? n : c0 + VX_CHUNK;

		for (uint32_t i = c0; i < c1; i++) {
			const uint8_t *h = vpk_buf_area(b[i]) + b[i]->l3_off;

			if (i + 4 < n)
				__builtin_prefetch(vpk_buf_area(b[i + 4]) + b[i + 4]->l3_off);
			if (is6)
				key[i] = ep_key6(h + 8, h + 24);
			else
				memcpy(&key[i], h + 12, 8);
		}
		VPK_FN(ep_cache).lookup_bulk(&x->cache, &x->ep, key + c0, ep + c0, c1 - c0);
		for (uint32_t i = c0; i < c1; i++)
			next[i] = vx_one(rt, x, b[i], ep[i], fwd, &n_ok, &n_fwd);
	}
	vpk_node_count_error(rt, VX_ERR_DECAP, n_ok);
	vpk_node_count_error(rt, VX_ERR_NOT_OURS, n_fwd);
	vpk_node_enqueue_to_next(rt, bi, next, n);
	return n;
}

VPK_NODE_FN_IP46(vxlan4_input, vxlan6_input, vx_frame)

static const char *const vx4_next[] = { "ethernet-input", "ip4-input", "ip6-input", "ip4-acl",
					"ip4-lookup", "error-drop" };
static const char *const vx6_next[] = { "ethernet-input", "ip4-input", "ip6-input", "ip6-acl",
					"ip6-lookup", "error-drop" };
static const char *const vx_errors[] = {
	"good packets decapsulated",
	"not for a local VTEP (forwarded)",
	"packet too short for UDP + VXLAN + inner Ethernet",
	"UDP length beyond the IP payload or below 16",
	"bad VXLAN flags (I bit clear; strict: flags != 0x08)",
	"no such tunnel (endpoints + VNI)",
	"inner frame is not the decap-next IP version",
	"inner frame has a VLAN tag (RFC 7348 6.1)",
};

static void
vx_fini(struct vpk_node_rt *rt)
{
	struct vx_ctx *x = vpk_node_ctx(rt);

	if (x == NULL)
		return;
	vpk_ep_table_free(&x->ep);
	vpk_ep_table_free(&x->tun);
	free(x->ep_addr);
	free(x->ep_vni);
	free(x->ep_val);
	free(x->local);
	free(x);
	vpk_node_set_ctx(rt, NULL);
}

static uint64_t
vx_ep_key(const struct vpk_vxlan_tunnel *t)
{
	uint64_t k;
	uint8_t b[8];

	if (t->is_ip6)
		return ep_key6(t->dst, t->src);
	memcpy(b, t->dst, 4);           /* outer SA = remote */
	memcpy(b + 4, t->src, 4);       /* outer DA = local */
	memcpy(&k, b, 8);
	return k;
}

static int
vx_init_family(struct vpk_node_rt *rt, const struct vpk_vxlan_conf *c, bool is6)
{
	uint32_t nt = c != NULL ? c->n_tunnels : 0, n_ep = 0;
	uint64_t *epk = calloc(nt + 1, sizeof(*epk)), *tk = calloc(nt + 1, sizeof(*tk));
	uint32_t *tv = calloc(nt + 1, sizeof(*tv)), n_t = 0;
	struct vx_ctx *x = aligned_alloc(64, (sizeof(*x) + 63) & ~(size_t)63);
	int rc = -ENOMEM;

	if (x != NULL)
		memset(x, 0, sizeof(*x));
	if (x == NULL || epk == NULL || tk == NULL || tv == NULL)
		goto out;
	rc = -EINVAL;
	if (nt > VX_TI_MASK)
		goto out;
	rc = -ENOMEM;
	x->ep_addr = calloc(nt + 1, sizeof(*x->ep_addr));
	x->ep_vni = malloc((nt + 1) * sizeof(*x->ep_vni));
	x->ep_val = malloc((nt + 1) * sizeof(*x->ep_val));
	x->local = calloc(nt + 1, sizeof(*x->local));
	if (x->ep_addr == NULL || x->ep_vni == NULL || x->ep_val == NULL || x->local == NULL)
		goto out;
	vpk_ep_cache_reset(&x->cache);
	x->is6 = is6;
	x->t = c != NULL ? c->tunnels : NULL;
	x->port = c != NULL && c->port ? c->port : VPK_VXLAN_PORT;
	x->strict = c != NULL && c->mode == VPK_VXLAN_STRICT;
	for (uint32_t i = 0; i < nt; i++) {
		const struct vpk_vxlan_tunnel *t = &c->tunnels[i];
		uint64_t k;
		uint32_t e, l;

		if (!t->is_ip6 != !is6)
			continue;
		k = vx_ep_key(t);
		for (e = 0; e < n_ep && epk[e] != k; e++)
			;
		if (e == n_ep) {
			x->ep_vni[n_ep] = t->vni & 0xffffffu;   /* the endpoint's first tunnel */
			x->ep_val[n_ep] = i | (uint32_t)t->decap_next << VX_NEXT_SHIFT;
			epk[n_ep] = k;
			memcpy(x->ep_addr[n_ep], t->dst, 16);
			memcpy(x->ep_addr[n_ep] + 16, t->src, 16);
			n_ep++;
		}
		tk[n_t] = (uint64_t)(e + 1) << 32 | (t->vni & 0xffffffu);
		tv[n_t++] = i;
		for (l = 0; l < x->n_local && memcmp(x->local[l], t->src, 16) != 0; l++)
			;
		if (l == x->n_local)
			memcpy(x->local[x->n_local++], t->src, 16);
	}
	rc = vpk_ep_table_build(&x->ep, epk, n_ep);
	if (rc == 0)
		rc = vpk_ep_table_build(&x->tun, tk, n_t);
	if (rc == 0) {
		/* The tunnel table maps to positions in tk[]; translate to tunnel indices. */
		for (uint32_t s = 0; s <= x->tun.mask; s++)
			if (x->tun.keys[s] != 0)
				x->tun.vals[s] = tv[x->tun.vals[s]] |
						 (uint32_t)c->tunnels[tv[x->tun.vals[s]]].decap_next << VX_NEXT_SHIFT;
	}
out:
	free(epk);
	free(tk);
	free(tv);
	if (x != NULL)
		vpk_node_set_ctx(rt, x);
	if (rc != 0)
		vx_fini(rt);
	return rc;
}

static int
vx4_init(struct vpk_node_rt *rt, void *conf)
{
	return vx_init_family(rt, conf, false);
}

static int
vx6_init(struct vpk_node_rt *rt, void *conf)
{
	return vx_init_family(rt, conf, true);
}

VPK_NODE_TRACE(vx_trace)
{
	const struct vx_ctx *x = vpk_node_ctx(rt);
	uint32_t ti = tn_get_index(b);

	if (b->error == 0 && x != NULL && x->t != NULL && b->l2_off == b->data_off)
		snprintf(out, len, "vxlan decap tunnel %u vni %u inner len %u", ti, x->t[ti].vni, b->len);
	else
		snprintf(out, len, "vxlan: not decapsulated");
}

/* The registration fields vxlan4-input and vxlan6-input share. */
#define VX_NODE .n_next = VX_N_NEXT, .n_errors = VX_N_ERROR, .error_strings = vx_errors, .fini = vx_fini, \
		.format_trace = vx_trace
VPK_NODE_REGISTER(vxlan4_input, VPK_FN(vxlan4_input_fn), .name = "vxlan4-input", .next_names = vx4_next,
		  .init = vx4_init, VX_NODE);
VPK_NODE_REGISTER(vxlan6_input, VPK_FN(vxlan6_input_fn), .name = "vxlan6-input", .next_names = vx6_next,
		  .init = vx6_init, VX_NODE);
