/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vxlan4-input and vxlan6-input: VxLAN decapsulation (RFC 7348), fed by
 * ip4/ip6-tunnel-bypass with UDP to the VxLAN port.
 *
 * Per frame (AVX2 / AVX-512, IPv4: first the fast path, vx_fast(), for the
 * packets an endpoint's first tunnel decapsulates; the steps below for the
 * rest; the scalar node function itself while the endpoint cache thrashes):
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
#include <stddef.h>
#include <stdlib.h>

#include "graph/nodes/tunnel_nodes.h"
#include "tunnel/ep_cache.h"

enum { VX_NEXT_L2, VX_NEXT_IP4, VX_NEXT_IP6, VX_NEXT_ACL, VX_NEXT_LOOKUP, VX_NEXT_DROP, VX_N_NEXT };
enum {
	VX_ERR_DECAP, VX_ERR_NOT_OURS, VX_ERR_TRUNC, VX_ERR_UDP_LEN, VX_ERR_FLAGS, VX_ERR_NO_TUNNEL,
	VX_ERR_INNER_TYPE, VX_ERR_INNER_VLAN, VX_N_ERROR
};

/*
 * The fast path's picture of a packet its endpoint's first tunnel
 * decapsulates: the 32 header bytes [18, 50) from the outer IPv4 header (20
 * bytes, no options) - the end of the outer DA, UDP, VXLAN, the inner
 * Ethernet header - compared under @m with @t: VXLAN flags (RFC: the I bit;
 * strict: 0x08 and the reserved byte after the VNI), the VNI, for decap-next
 * ip4 / ip6 the inner EtherType; for decap-next l2 the inner EtherType must
 * not be a VLAN / QinQ tag (@l2m). The addresses are the endpoint key
 * already matched; the lengths are checked apart. One more template, after
 * the endpoints', never matches: the one of the cache's empty ways (key 0,
 * so header bytes 18 and 19 are 0, where it wants 0xff).
 */
#define VX_WIN 18u              /* the window's first header byte */
#define VX_FAST_LEN 50u         /* IPv4 20 + UDP 8 + VXLAN 8 + inner Ethernet 14 */

struct vx_tmpl {
	uint8_t t[32], m[32];           /* header bytes [VX_WIN, VX_FAST_LEN) */
	uint8_t l2m[32];                /* decap-next l2: 0xff at the inner EtherType */
	uint32_t val;                   /* the tunnel index */
	uint16_t flags;                 /* buffer flags a good packet gets */
	uint16_t next;                  /* its arc */
} __attribute__((aligned(64)));

struct vx_ctx {
	struct ep_cache cache;          /* first: 64-byte aligned */
	struct ep_table ep;             /* endpoint pair key -> endpoint index */
	struct ep_table tun;            /* (endpoint + 1) << 32 | VNI -> tunnel index */
	uint8_t (*ep_addr)[32];         /* endpoint i: remote | local (IPv6 verification) */
	uint32_t *ep_vni, *ep_val;      /* endpoint i: its first tunnel's VNI and value (no probe) */
	struct vx_tmpl *tmpl;           /* IPv4 endpoint i: the header its first tunnel decapsulates */
	uint8_t (*local)[16];           /* our VTEP addresses */
	uint32_t n_local;
	uint32_t n_ep4;                 /* IPv4 endpoints (tmpl[n_ep4]: the empty ways') */
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

/*
 * The per-packet path for @m packets of the frame: packet j is b[at(j)]
 * (@idx: the fast path's leftovers; NULL: all of them, in order). Chunks of
 * VX_CHUNK packets: their headers are still in L1 when the checks read them.
 * The outer addresses are read without a length check: ip4-input /
 * ip6-input, before the tunnel bypass, have checked that the IP header
 * (up to l4_off) is in the frame.
 */
static inline __attribute__((always_inline)) void
vx_checks(struct vpk_node_rt *rt, struct vx_ctx *x, struct vpk_buf **b, const uint16_t *idx, uint32_t m,
	  uint16_t *next, uint32_t *n_ok, uint32_t *n_fwd, bool is6)
{
	uint64_t key[VPK_FRAME_SIZE];
	uint32_t ep[VPK_FRAME_SIZE];
	uint16_t fwd = vpk_node_has_next(rt, VX_NEXT_ACL) ? VX_NEXT_ACL : VX_NEXT_LOOKUP;

#define VX_AT(j) (idx != NULL ? idx[j] : (j))
	for (uint32_t c0 = 0; c0 < m; c0 += VX_CHUNK) {
		uint32_t c1 = m - c0 < VX_CHUNK ? m : c0 + VX_CHUNK;

		for (uint32_t j = c0; j < c1; j++) {
			struct vpk_buf *p = b[VX_AT(j)];
			const uint8_t *h = vpk_buf_area(p) + p->l3_off;

			if (j + 4 < m)
				__builtin_prefetch(vpk_buf_area(b[VX_AT(j + 4)]) + b[VX_AT(j + 4)]->l3_off);
			if (is6)
				key[j] = ep_key6(h + 8, h + 24);
			else
				memcpy(&key[j], h + 12, 8);
		}
		VPK_FN(ep_cache).lookup_bulk(&x->cache, &x->ep, key + c0, ep + c0, c1 - c0);
		for (uint32_t j = c0; j < c1; j++)
			next[VX_AT(j)] = vx_one(rt, x, b[VX_AT(j)], ep[j], fwd, n_ok, n_fwd);
	}
#undef VX_AT
}

#if VPK_VEC_BITS >= 256
#include <immintrin.h>

/*
 * AVX2 / AVX-512 (IPv4): the whole frame first through a fast path for the
 * packets an endpoint's first tunnel decapsulates; one pass, no key array,
 * no cache call. Per packet: the endpoint key (outer SA|DA) against the 8
 * ways of the endpoint cache held in two registers (two vpcmpeqq, one
 * blend, one movmskps), the 32 header bytes [18, 50) against the way's
 * template under its mask plus the VLAN test (vx_tmpl; one load, one
 * vptest), the UDP length, then the new metadata. Everything else (cache
 * misses, unknown endpoints, other VNIs, IP options, bad lengths or flags,
 * tagged inner frames) is left untouched for vx_checks(), which counts and
 * drops it exactly as the scalar variant does. Nothing is read past the
 * frame: the header is read only when the frame has its 50 bytes.
 */
extern const struct vpk_node_impl vxlan4_input_scalar;

/* The header at @h as its template @t wants it (the frame has the VX_FAST_LEN bytes). */
static inline __attribute__((always_inline)) bool
vx_hdr_ok(const uint8_t *h, const struct vx_tmpl *t)
{
	__m256i raw = _mm256_loadu_si256((const void *)(h + VX_WIN));
	__m256i v = _mm256_xor_si256(raw, _mm256_load_si256((const void *)t->t));
	__m256i tag = _mm256_or_si256(_mm256_cmpeq_epi16(raw, _mm256_set1_epi16(0x0081)),      /* 81 00 */
				      _mm256_cmpeq_epi16(raw, _mm256_set1_epi16((short)0xa888)));   /* 88 a8 */

	v = _mm256_or_si256(_mm256_and_si256(v, _mm256_load_si256((const void *)t->m)),
			    _mm256_and_si256(tag, _mm256_load_si256((const void *)t->l2m)));
	return _mm256_testz_si256(v, v);
}

/* The fast path over b[0..n): good packets done (next[], metadata); the others' indices into @rest. */
static inline __attribute__((always_inline)) uint32_t
vx_fast(const struct vx_ctx *x, struct vpk_buf **b, uint32_t n, uint16_t *next, uint16_t *rest, uint32_t *n_ok)
{
	const struct vx_tmpl *tp[EP_CACHE_WAYS];
	__m256i w0 = _mm256_load_si256((const void *)x->cache.key);
	__m256i w1 = _mm256_load_si256((const void *)(x->cache.key + 4));
	uint32_t m = 0;

	/* Hit bit 2j: way j (w0 lane j); bit 2j + 1: way 4 + j (w1 lane j). */
	for (unsigned j = 0; j < EP_CACHE_WAYS; j++)
		tp[(j & 3) * 2 + (j >> 2)] = &x->tmpl[x->cache.val[j] != EP_NONE ? x->cache.val[j] : x->n_ep4];
	for (uint32_t i = 0; i < n; i++) {
		struct vpk_buf *p = b[i];
		uint8_t *h;
		const struct vx_tmpl *t;
		unsigned hit;
		__m256i kk;
		uint32_t l3, ulen, eth;
		uint64_t k;
		int32_t left;

		l3 = p->l3_off;
		left = (int32_t)p->data_off + p->len - (int32_t)l3;
		if (p->l4_off - l3 != 20 || left < (int32_t)VX_FAST_LEN)
			goto slow;
		h = vpk_buf_area(p) + l3;
		memcpy(&k, h + 12, 8);
		kk = _mm256_set1_epi64x((long long)k);
		hit = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(
			_mm256_blend_epi32(_mm256_cmpeq_epi64(w0, kk), _mm256_cmpeq_epi64(w1, kk), 0xaa)));
		if (hit == 0)
			goto slow;
		t = tp[__builtin_ctz(hit)];
		ulen = vpk_rd16be(h + 24);
		if (!vx_hdr_ok(h, t) || ulen - (16 + 14) > (uint32_t)left - VX_FAST_LEN)
			goto slow;
		eth = l3 + 36;
		p->len = (uint16_t)(ulen - 16);
		p->total_len = ulen - 16;
		p->data_off = (uint16_t)eth;
		p->l2_off = (uint16_t)eth;
		p->l3_off = (uint16_t)(eth + 14);
		p->flags |= t->flags;
		tn_set_index(p, t->val);
		next[i] = t->next;
		continue;
slow:
		rest[m++] = (uint16_t)i;
	}
	*n_ok += n - m;
	return m;
}

/*
 * Thrashing (the cache kernel found more endpoints interleaved than ways):
 * the scalar variant's node function itself for the next EP_COLD_CALLS
 * frames (a frame is up to 4 of the kernel's calls, so the ways are tried
 * again 4 times less often than the kernel alone would).
 */
static inline __attribute__((always_inline)) uint32_t
vx_cold(struct vpk_node_rt *rt, struct vx_ctx *x, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	x->cache.cold--;
	return vxlan4_input_scalar.fn(rt, b, bi, n);
}
#endif

static inline __attribute__((always_inline)) uint32_t
vx_frame(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n, bool is6)
{
	struct vx_ctx *x = vpk_node_ctx(rt);
	uint16_t next[VPK_FRAME_SIZE];
	uint32_t n_ok = 0, n_fwd = 0;   /* summed per frame: no store-forwarded counter chain */
	const uint16_t *idx = NULL;     /* the packets vx_checks() does: all, or the fast path's rest */
	uint32_t m = n;

#if VPK_VEC_BITS >= 256
	uint16_t rest[VPK_FRAME_SIZE];

	if (!is6) {
		if (x->cache.cold != 0)
			return vx_cold(rt, x, b, bi, n);
		m = vx_fast(x, b, n, next, rest, &n_ok);
		idx = rest;
	}
#endif
	vx_checks(rt, x, b, idx, m, next, &n_ok, &n_fwd, is6);
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
	free(x->tmpl);
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

/* Header byte @o (VX_WIN..49 from the outer IPv4 header) of the template: @v under mask @m. */
static void
vx_tmpl_byte(struct vx_tmpl *t, unsigned o, uint8_t v, uint8_t m)
{
	t->t[o - VX_WIN] = v;
	t->m[o - VX_WIN] = m;
}

/* The IPv4 fast path's template of each endpoint's first tunnel (x->ep_vni, x->ep_val). */
static int
vx_tmpl_build(struct vx_ctx *x, uint32_t n_ep)
{
	x->tmpl = aligned_alloc(64, (n_ep + 1) * sizeof(*x->tmpl));
	if (x->tmpl == NULL)
		return -ENOMEM;
	memset(x->tmpl, 0, (n_ep + 1) * sizeof(*x->tmpl));
	x->n_ep4 = n_ep;
	vx_tmpl_byte(&x->tmpl[n_ep], 18, 0xff, 0xff);          /* the empty ways' template: never */
	for (uint32_t e = 0; e < n_ep; e++) {
		struct vx_tmpl *t = &x->tmpl[e];
		uint32_t vni = x->ep_vni[e], d = x->ep_val[e] >> VX_NEXT_SHIFT;

		vx_tmpl_byte(t, 28, 0x08, x->strict ? 0xff : 0x08);     /* VXLAN flags: I */
		vx_tmpl_byte(t, 32, (uint8_t)(vni >> 16), 0xff);
		vx_tmpl_byte(t, 33, (uint8_t)(vni >> 8), 0xff);
		vx_tmpl_byte(t, 34, (uint8_t)vni, 0xff);
		if (x->strict)
			vx_tmpl_byte(t, 35, 0, 0xff);                   /* reserved byte after the VNI */
		t->val = x->ep_val[e] & VX_TI_MASK;
		if (d == VPK_VXLAN_NEXT_IP4 || d == VPK_VXLAN_NEXT_IP6) {
			uint16_t et = d == VPK_VXLAN_NEXT_IP4 ? VPK_ETHERTYPE_IP4 : VPK_ETHERTYPE_IP6;

			vx_tmpl_byte(t, 48, (uint8_t)(et >> 8), 0xff);
			vx_tmpl_byte(t, 49, (uint8_t)et, 0xff);
			t->next = d == VPK_VXLAN_NEXT_IP4 ? VX_NEXT_IP4 : VX_NEXT_IP6;
		} else {
			/* Inner EtherType (header bytes 48, 49): not a VLAN / QinQ tag. */
			t->l2m[48 - VX_WIN] = t->l2m[49 - VX_WIN] = 0xff;
			t->next = VX_NEXT_L2;
			t->flags = VPK_BUF_F_INNER;
		}
	}
	return 0;
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
	if (rc == 0 && !is6)
		rc = vx_tmpl_build(x, n_ep);
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
