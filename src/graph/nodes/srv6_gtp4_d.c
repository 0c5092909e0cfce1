/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srv6-gtp4-d: SRv6 mobile H.M.GTP4.D (RFC 9433 §6.7; VPP's T.M.GTP4.D).
 * ip4-tunnel-bypass steers IPv4 packets whose destination is in a steering
 * prefix here (steering entry index in vpk_buf::opaque).
 *
 * Per packet: IPv4 (any IHL, not a fragment) / UDP dport 2152 (checked,
 * unlike VPP) / GTP-U v1 (3GPP TS 29.281: 8 mandatory bytes; 4 optional
 * bytes when any of E, S, PN is set; then the whole extension header chain,
 * each header `len(4-octet units) .. next-type`, the PDU Session Container
 * 0x85 giving QFI, RQI (DL only) and the PDU type). Message types:
 *   G-PDU (255)          -> IPv6 [+ SRH] around the inner packet (below)
 *   Echo Request (1)     -> answered here: Echo Response with the request's
 *                           sequence number and a Recovery IE, to ip4-lookup
 *   Echo Response (2), Error Indication (26), End Marker (254), others
 *                        -> dropped, each with its own counter (RFC 9433
 *                           translates user data only; VPP's SRH-tag
 *                           mapping of these is not implemented)
 * Translation: SID B = sr-prefix | IPv4 DA | QFI R U | TEID (any prefix
 * length <= 56, U = 0 unless the VPP-compat flag copies the PDU type),
 * IPv6 SA = v6src-prefix | IPv4 SA, traffic class and hop limit copied
 * from TOS and TTL, NH by the inner version (or forced by nhtype), segment
 * list [B, Sn..S1] with DA = S1, or DA = B and no SRH without a policy.
 * The header is built by the GTP4.D header kernel of this node's ISA
 * (tunnel/gtp4d_hdr.h) for runs of packets of the same steering entry,
 * then the packet goes to ip6-rewrite through the policy's (or entry's)
 * neighbor, or to ip6-lookup (IPv6 FIB) when none is given.
 */
#include <stdlib.h>

#include "graph/nodes/tunnel_nodes.h"
#include "tunnel/gtp4d_hdr.h"

enum { GD_NEXT_REWRITE6, GD_NEXT_LOOKUP4, GD_NEXT_DROP, GD_NEXT_LOOKUP6, GD_N_NEXT };
#define GD_TRANSLATE 0xffffu      /* gd_parse(): not an arc, translate this packet */
enum {
	GD_ERR_OK, GD_ERR_ECHO_REPLIED, GD_ERR_NOT_UDP, GD_ERR_FRAGMENT, GD_ERR_PORT, GD_ERR_TRUNC,
	GD_ERR_UDP_LEN, GD_ERR_VERSION, GD_ERR_EXT_LEN, GD_ERR_ECHO_RESP, GD_ERR_ERROR_IND,
	GD_ERR_END_MARKER, GD_ERR_MSG_TYPE, GD_ERR_INNER, GD_ERR_HEADROOM, GD_ERR_NO_STEER, GD_N_ERROR
};

static const char *const gd_next[GD_N_NEXT] = {
	[GD_NEXT_REWRITE6] = "ip6-rewrite", [GD_NEXT_LOOKUP4] = "ip4-lookup", [GD_NEXT_DROP] = "error-drop",
	[GD_NEXT_LOOKUP6] = "ip6-lookup",
};
static const char *const gd_errors[] = {
	"good packets translated to SRv6",
	"echo requests answered",
	"steered packet is not UDP",
	"IPv4 fragment (not translated)",
	"UDP destination port is not 2152 (GTP-U)",
	"truncated IPv4/UDP/GTP-U header or extension",
	"UDP length beyond the IP payload",
	"GTP version is not 1 or PT is 0",
	"GTP extension header with length 0",
	"echo response dropped (no request outstanding)",
	"error indication dropped (not translated)",
	"end marker dropped (not translated)",
	"unsupported GTP-U message type",
	"inner packet not IPv4/IPv6 or not the nhtype",
	"no headroom for the IPv6 + SRH header",
	"no such steering entry (the tables changed)",
};

struct gd_ctx {
	struct gtp4d_tmpl *tmpl;        /* per steering entry, 64-byte aligned */
	const struct vpk_gtp4d_conf *conf;
};

extern const struct gtp4d_hdr_impl VPK_FN(gtp4d_hdr);

/* Answer an Echo Request in place (h: IPv4, u: UDP, g: GTP-U). */
static inline __attribute__((always_inline)) uint16_t
gd_echo_reply(struct vpk_node_rt *rt, struct vpk_buf *b, uint8_t *h, const uint8_t *u, const uint8_t *g)
{
	uint8_t sa[4], da[4], seq0 = 0, seq1 = 0;
	uint16_t sport = vpk_rd16be(u);

	if (g[0] & 0x07) {
		seq0 = g[8];
		seq1 = g[9];
	}
	memcpy(sa, h + 12, 4);
	memcpy(da, h + 16, 4);
	h[0] = 0x45;
	h[1] = 0;
	tn_wr16be(h + 2, 42);
	memset(h + 4, 0, 4);
	h[6] = 0x40;                    /* DF, ID 0: atomic (RFC 6864 §4.1) */
	h[8] = 64;
	h[9] = 17;
	memcpy(h + 12, da, 4);
	memcpy(h + 16, sa, 4);
	tn_wr16be(h + 10, tn_ip4_csum(h, 20));
	tn_wr16be(h + 20, VPK_GTPU_PORT);
	tn_wr16be(h + 22, sport);
	tn_wr16be(h + 24, 22);
	tn_wr16be(h + 26, 0);
	h[28] = 0x32;                   /* v1, PT, S */
	h[29] = 2;                      /* Echo Response */
	tn_wr16be(h + 30, 6);
	memset(h + 32, 0, 4);           /* TEID 0 */
	h[36] = seq0;
	h[37] = seq1;
	h[38] = 0;
	h[39] = 0;
	h[40] = 14;                     /* Recovery IE, restart counter 0 */
	h[41] = 0;
	b->len = (uint16_t)(b->l3_off + 42u - b->data_off);
	b->total_len = b->len;
	tn_set_l3l4(b, b->l3_off, b->l3_off + 20u, 17);
	vpk_node_count_error(rt, GD_ERR_ECHO_REPLIED, 1);
	return GD_NEXT_LOOKUP4;
}

/*
 * Parse and check one packet. Returns GD_TRANSLATE for a G-PDU to translate
 * (fields in *p, inner packet at *inner_off), else the next arc.
 */
static inline __attribute__((always_inline)) uint16_t
gd_parse(struct vpk_node_rt *rt, const struct gd_ctx *x, struct vpk_buf *b, struct gtp4d_pkt *p,
	 uint32_t *inner_off)
{
	uint8_t *h = vpk_buf_area(b) + b->l3_off;
	uint32_t hlen = (uint32_t)(b->l4_off - b->l3_off), left = vpk_l3_left(b), ulen, gl, off, ilen;
	const struct vpk_gtp4d_steer *s = &x->conf->steer[tn_get_index(b)];
	const uint8_t *u = h + hlen, *g = u + 8, *in;
	uint8_t next_ext, args = 0;

	/* an index of another version of the tables (a live change while the frame was in flight) */
	if (tn_get_index(b) >= x->conf->n_steer)
		return vpk_node_drop(rt, b, GD_ERR_NO_STEER, GD_NEXT_DROP);
	if (h[9] != 17)
		return vpk_node_drop(rt, b, GD_ERR_NOT_UDP, GD_NEXT_DROP);
	if (vpk_rd16be(h + 6) & 0x3fff)
		return vpk_node_drop(rt, b, GD_ERR_FRAGMENT, GD_NEXT_DROP);
	if (left < hlen + 8)
		return vpk_node_drop(rt, b, GD_ERR_TRUNC, GD_NEXT_DROP);
	if (vpk_rd16be(u + 2) != VPK_GTPU_PORT)
		return vpk_node_drop(rt, b, GD_ERR_PORT, GD_NEXT_DROP);
	ulen = vpk_rd16be(u + 4);
	if (ulen < 8 || ulen > left - hlen)
		return vpk_node_drop(rt, b, GD_ERR_UDP_LEN, GD_NEXT_DROP);
	if (ulen < 16)
		return vpk_node_drop(rt, b, GD_ERR_TRUNC, GD_NEXT_DROP);
	if ((g[0] & 0xf0) != 0x30)
		return vpk_node_drop(rt, b, GD_ERR_VERSION, GD_NEXT_DROP);
	gl = vpk_rd16be(g + 2);
	if (8 + gl > ulen - 8)
		return vpk_node_drop(rt, b, GD_ERR_TRUNC, GD_NEXT_DROP);
	off = 8;
	next_ext = 0;
	if (g[0] & 0x07) {
		if (gl < 4)
			return vpk_node_drop(rt, b, GD_ERR_TRUNC, GD_NEXT_DROP);
		next_ext = (g[0] & 0x04) ? g[11] : 0;
		off = 12;
	}
	while (next_ext != 0) {
		uint32_t elen;

		if (off + 1 > 8 + gl)
			return vpk_node_drop(rt, b, GD_ERR_TRUNC, GD_NEXT_DROP);
		elen = 4u * g[off];
		if (elen == 0)
			return vpk_node_drop(rt, b, GD_ERR_EXT_LEN, GD_NEXT_DROP);
		if (off + elen > 8 + gl)
			return vpk_node_drop(rt, b, GD_ERR_TRUNC, GD_NEXT_DROP);
		if (next_ext == 0x85 && args == 0) {       /* PDU Session Container (TS 38.415) */
			uint8_t type = g[off + 1] >> 4, q = g[off + 2];

			args = (uint8_t)((q & 0x3f) << 2);
			if (type == 0)
				args |= (uint8_t)(((q >> 6) & 1) << 1);        /* RQI: DL only */
			if (type == 1 && s->u_from_pdu_type)
				args |= 1;
		}
		next_ext = g[off + elen - 1];
		off += elen;
	}
	switch (g[1]) {
	case 255:
		break;
	case 1:
		return gd_echo_reply(rt, b, h, u, g);
	case 2:
		return vpk_node_drop(rt, b, GD_ERR_ECHO_RESP, GD_NEXT_DROP);
	case 26:
		return vpk_node_drop(rt, b, GD_ERR_ERROR_IND, GD_NEXT_DROP);
	case 254:
		return vpk_node_drop(rt, b, GD_ERR_END_MARKER, GD_NEXT_DROP);
	default:
		return vpk_node_drop(rt, b, GD_ERR_MSG_TYPE, GD_NEXT_DROP);
	}
	in = g + off;
	ilen = 8 + gl - off;
	if (ilen == 0)
		return vpk_node_drop(rt, b, GD_ERR_TRUNC, GD_NEXT_DROP);
	if ((in[0] >> 4) == 4 && s->nhtype != VPK_GTP4D_NH_IP6 && ilen >= 20)
		p->nh = 4;
	else if ((in[0] >> 4) == 6 && s->nhtype != VPK_GTP4D_NH_IP4 && ilen >= 40)
		p->nh = 41;
	else
		return vpk_node_drop(rt, b, GD_ERR_INNER, GD_NEXT_DROP);
	*inner_off = (uint32_t)(in - vpk_buf_area(b));
	if (*inner_off < x->tmpl[tn_get_index(b)].len + 14u)
		return vpk_node_drop(rt, b, GD_ERR_HEADROOM, GD_NEXT_DROP);
	p->sa4 = tn_rd32be(h + 12);
	p->da4 = tn_rd32be(h + 16);
	p->teid = tn_rd32be(g + 4);
	p->args = args;
	p->tc = h[1];
	p->hlim = h[8];
	p->plen = (uint16_t)(x->tmpl[tn_get_index(b)].len - 40 + ilen);
	b->len = (uint16_t)ilen;        /* provisional: inner only */
	return GD_TRANSLATE;
}

static uint32_t
VPK_FN(srv6_gtp4_d_fn)(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	const struct gd_ctx *x = vpk_node_ctx(rt);
	uint16_t next[VPK_FRAME_SIZE];
	struct gtp4d_pkt p[VPK_FRAME_SIZE];
	uint8_t *out[VPK_FRAME_SIZE];
	uint32_t who[VPK_FRAME_SIZE], m = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t io;

		next[i] = gd_parse(rt, x, b[i], &p[m], &io);
		if (next[i] != GD_TRANSLATE)
			continue;
		{
			uint32_t si = tn_get_index(b[i]);
			const struct vpk_gtp4d_steer *s = &x->conf->steer[si];
			uint32_t hl = x->tmpl[si].len;

			out[m] = vpk_buf_area(b[i]) + io - hl;
			b[i]->data_off = (uint16_t)(io - hl);
			b[i]->len = (uint16_t)(b[i]->len + hl);
			b[i]->total_len = b[i]->len;
			/* IPv6, then an SRH when the template has one, else the inner IPv4 */
			tn_set_l3l4(b[i], b[i]->data_off, b[i]->data_off + 40u, hl > 40 ? 43 : 4);
			b[i]->adj = s->policy != NULL ? s->policy->adj : s->adj;
			next[i] = b[i]->adj != 0 ? GD_NEXT_REWRITE6 : GD_NEXT_LOOKUP6;     /* no neighbor: IPv6 FIB */
			who[m++] = si;
		}
	}
	/* Build headers for runs of the same steering entry. */
	for (uint32_t i = 0; i < m;) {
		uint32_t j = i + 1;

		while (j < m && who[j] == who[i])
			j++;
		VPK_FN(gtp4d_hdr).build_bulk(&x->tmpl[who[i]], p + i, out + i, j - i);
		i = j;
	}
	if (m != 0)
		vpk_node_count_error(rt, GD_ERR_OK, m);
	vpk_node_enqueue_to_next(rt, bi, next, n);
	return n;
}

static void
gd_fini(struct vpk_node_rt *rt)
{
	struct gd_ctx *x = vpk_node_ctx(rt);

	if (x == NULL)
		return;
	free(x->tmpl);
	free(x);
	vpk_node_set_ctx(rt, NULL);
}

static int
gd_init(struct vpk_node_rt *rt, void *conf)
{
	const struct vpk_gtp4d_conf *c = conf;
	static const struct vpk_gtp4d_conf none = { 0 };
	struct gd_ctx *x = calloc(1, sizeof(*x));
	size_t sz;

	if (x == NULL)
		return -ENOMEM;
	x->conf = c != NULL ? c : &none;
	sz = (x->conf->n_steer + 1) * sizeof(*x->tmpl);
	x->tmpl = aligned_alloc(64, sz);
	vpk_node_set_ctx(rt, x);
	if (x->tmpl == NULL) {
		gd_fini(rt);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < x->conf->n_steer; i++) {
		const struct vpk_gtp4d_steer *s = &x->conf->steer[i];
		int rc = vpk_gtp4d_tmpl_init(&x->tmpl[i], s->sr_prefix, s->sr_plen, s->v6src, s->v6src_plen,
					     s->policy != NULL ? (const uint8_t (*)[16])s->policy->seg : NULL,
					     s->policy != NULL ? s->policy->n_seg : 0);

		if (rc != 0) {
			gd_fini(rt);
			return rc;
		}
	}
	return 0;
}

VPK_NODE_TRACE(gd_trace)
{
	snprintf(out, len, "gtp4.d steer %u%s", tn_get_index(b), b->error ? " dropped" : "");
}

VPK_NODE_REGISTER(srv6_gtp4_d, VPK_FN(srv6_gtp4_d_fn), .name = "srv6-gtp4-d", .n_next = GD_N_NEXT,
		  .next_names = gd_next, .n_errors = GD_N_ERROR, .error_strings = gd_errors, .init = gd_init,
		  .fini = gd_fini, .format_trace = gd_trace);
