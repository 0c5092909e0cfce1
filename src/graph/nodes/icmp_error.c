/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip4-icmp-error and ip6-icmp-error (VPP's nodes of the same names): turn
 * the packet another node gave up on into the ICMP error it asked for
 * (type, code, pointer in vpk_buf::opaque, icmp_error.h), sent back to the
 * packet's source through ip4-lookup / ip6-lookup.
 *
 *   IPv4 (RFC 792, RFC 1812 §4.3.2): IPv4 20 (source: an address of the
 *        receiving interface, else the router's first IPv4 address; TTL 64,
 *        DF set, ID 0) / ICMP 8 (Parameter Problem: pointer in byte 4) /
 *        as much of the invoking datagram as keeps the error within 576
 *        bytes (at least its header and 8 data bytes, RFC 792).
 *   IPv6 (RFC 4443 §2.4): IPv6 40 (hop limit 64) / ICMPv6 8 (Parameter
 *        Problem: 32-bit pointer) / as much of the invoking packet as keeps
 *        the error within the minimum MTU, 1280 bytes.
 *
 * Not sent (RFC 1812 §4.3.2.7, RFC 4443 §2.4 (e)), each counted: about an
 * ICMP error message, about a non-first fragment, about a packet from an
 * address that is not unicast or to a multicast / broadcast address, when
 * the router has no address of the family, and beyond the rate: a token
 * bucket per node instance, i.e. per worker (rate and burst in
 * struct vpk_icmp_conf, refilled from the monotonic clock once per frame).
 * A packet whose TTL expired on its way to one of the router's own
 * addresses is not an error: it goes on as if its TTL were good (ie_local()).
 */
#include <stdlib.h>
#include <time.h>

#include "graph/nodes/icmp_nodes.h"

enum { IE_NEXT_LOOKUP, IE_NEXT_DROP, IE_NEXT_LOCAL, IE_NEXT_BYPASS, IE_N_NEXT };
enum {
	IE_ERR_TIME, IE_ERR_UNREACH, IE_ERR_PARAM, IE_ERR_LOCAL, IE_ERR_RATE, IE_ERR_ABOUT_ICMP,
	IE_ERR_FRAG, IE_ERR_NOT_UNICAST, IE_ERR_NO_SRC, IE_ERR_HEADROOM, IE_ERR_MALFORMED, IE_N_ERROR
};

static const char *const ie_errors[] = {
	"time exceeded sent",
	"destination unreachable sent",
	"parameter problem sent",
	"TTL expired at an own address: delivered locally",
	"not sent: rate limited",
	"not sent: about an ICMP error",
	"not sent: about a non-first fragment",
	"not sent: source not unicast or destination multicast/broadcast",
	"not sent: no address of the family on the router",
	"not sent: no headroom for the error header",
	"not sent: invoking packet malformed",
};
/* Next arcs of ip4-icmp-error, then of ip6-icmp-error. */
static const char *const ie_next[2][IE_N_NEXT] = {
	{ [IE_NEXT_LOOKUP] = "ip4-lookup", [IE_NEXT_DROP] = "error-drop", [IE_NEXT_LOCAL] = "ip4-local",
	  [IE_NEXT_BYPASS] = "ip4-tunnel-bypass" },
	{ [IE_NEXT_LOOKUP] = "ip6-lookup", [IE_NEXT_DROP] = "error-drop", [IE_NEXT_LOCAL] = "ip6-local",
	  [IE_NEXT_BYPASS] = "ip6-tunnel-bypass" },
};

#define IE4_MAX 576u
#define IE6_MAX 1280u

struct ie_ctx {
	const struct vpk_icmp_conf *c;
	double tokens;
	uint64_t last_ns;
	const struct vpk_icmp_conf *next_c;     /* vpk_icmp_set_conf(): c from the next frame on */
};

static inline __attribute__((always_inline)) void
ie_refill(struct ie_ctx *x)
{
	struct timespec ts;
	uint64_t now;

	x->c = __atomic_load_n(&x->next_c, __ATOMIC_ACQUIRE);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	x->tokens += (double)(now - x->last_ns) * 1e-9 * x->c->rate;
	if (x->tokens > x->c->burst)
		x->tokens = x->c->burst;
	x->last_ns = now;
}

/*
 * A packet for one of our own addresses whose TTL / hop limit ran out is
 * not an error (TTL applies to forwarded packets only): it takes the path
 * ip4-input / ip6-input give every packet, the tunnel bypass when the graph
 * has one (a VxLAN packet to our VTEP is decapsulated), and reaches
 * ip4-local / ip6-local through the lookup's host route; without a bypass
 * it goes to ip4-local / ip6-local directly.
 */
static inline __attribute__((always_inline)) uint16_t
ie_local(const struct vpk_node_rt *rt)
{
	return vpk_node_has_next(rt, IE_NEXT_BYPASS) ? IE_NEXT_BYPASS : IE_NEXT_LOCAL;
}

static inline __attribute__((always_inline)) bool
ie_take(struct ie_ctx *x)
{
	if (x->tokens < 1.0 || x->c->rate == 0)
		return false;
	x->tokens -= 1.0;
	return true;
}

/*
 * Whether an error about @b (@tlen bytes of it to quote at most) may be
 * sent: an address of the family to send it from (*src), headroom for the
 * new IP + ICMP headers and the Ethernet header, and a token. IE_N_ERROR if
 * so, with *qlen the bytes it quotes and *no where its headers start; else
 * the IE_ERR_* why not.
 */
static inline __attribute__((always_inline)) uint16_t
ie_admit(struct ie_ctx *x, const struct vpk_buf *b, bool is6, uint32_t tlen, const uint8_t **src,
	 uint32_t *qlen, uint32_t *no)
{
	uint32_t hl = is6 ? 48 : 28, max = (is6 ? IE6_MAX : IE4_MAX) - hl;

	*src = ic_src(x->c, b->rx_if, is6);
	if (*src == NULL)
		return IE_ERR_NO_SRC;
	if (b->l3_off < hl + 14)
		return IE_ERR_HEADROOM;
	if (!ie_take(x))
		return IE_ERR_RATE;
	*qlen = tlen < max ? tlen : max;
	*no = b->l3_off - hl;
	return IE_N_ERROR;
}

/* @b is now the error of @type built at @no (IP + ICMP headers, then @qlen quoted bytes): count it, send it. */
static inline __attribute__((always_inline)) uint16_t
ie_sent(struct vpk_node_rt *rt, struct vpk_buf *b, uint32_t no, uint32_t qlen, uint8_t type, bool is6)
{
	uint32_t iphl = is6 ? 40 : 20;

	b->data_off = (uint16_t)no;
	b->len = (uint16_t)(iphl + 8 + qlen);
	b->total_len = b->len;
	b->l3_off = (uint16_t)no;
	b->l4_off = (uint16_t)(no + iphl);
	b->l4_proto = is6 ? 58 : 1;
	b->l3_n_ext = 0;
	b->flags &= (uint16_t)~(VPK_BUF_F_FRAG | VPK_BUF_F_FRAG_LATER);
	vpk_node_count_error(rt, type == (is6 ? 3 : 11) ? IE_ERR_TIME : type == (is6 ? 4 : 12) ? IE_ERR_PARAM
				 : IE_ERR_UNREACH, 1);
	return IE_NEXT_LOOKUP;
}

static inline __attribute__((always_inline)) uint16_t
ie4_one(struct vpk_node_rt *rt, struct ie_ctx *x, struct vpk_buf *b)
{
	uint8_t *h = vpk_buf_area(b) + b->l3_off, *o, type, code;
	uint32_t left = vpk_l3_left(b), hlen, tlen, qlen, no;
	const uint8_t *src;
	uint16_t ptr, why;

	vpk_icmp_error_get(b, &type, &code, &ptr);
	if (left < 20 || (hlen = (h[0] & 15u) * 4) < 20 || hlen > left)
		return vpk_node_drop(rt, b, IE_ERR_MALFORMED, IE_NEXT_DROP);
	tlen = vpk_rd16be(h + 2);
	tlen = tlen < hlen ? hlen : tlen > left ? left : tlen;
	if (type == 11 && ic_is_local(x->c, h + 16, false)) {
		vpk_node_count_error(rt, IE_ERR_LOCAL, 1);
		return ie_local(rt);
	}
	/* source: not 0/8, 127/8, multicast, class E, broadcast; destination: not multicast / broadcast */
	if (h[12] == 0 || h[12] == 127 || h[12] >= 224 || h[16] >= 224)
		return vpk_node_drop(rt, b, IE_ERR_NOT_UNICAST, IE_NEXT_DROP);
	if (vpk_rd16be(h + 6) & 0x1fff)
		return vpk_node_drop(rt, b, IE_ERR_FRAG, IE_NEXT_DROP);
	if (h[9] == 1 && tlen > hlen) {
		uint8_t t = h[hlen];

		if (t == 3 || t == 4 || t == 5 || t == 11 || t == 12)
			return vpk_node_drop(rt, b, IE_ERR_ABOUT_ICMP, IE_NEXT_DROP);
	}
	if ((why = ie_admit(x, b, false, tlen, &src, &qlen, &no)) != IE_N_ERROR)
		return vpk_node_drop(rt, b, why, IE_NEXT_DROP);
	o = vpk_buf_area(b) + no;
	o[0] = 0x45;
	o[1] = 0;
	ic_wr16(o + 2, (uint16_t)(28 + qlen));
	ic_wr16(o + 4, 0);
	ic_wr16(o + 6, 0x4000);                 /* DF */
	o[8] = 64;
	o[9] = 1;
	ic_wr16(o + 10, 0);
	memcpy(o + 12, src, 4);
	memcpy(o + 16, h + 12, 4);              /* the invoking packet's source */
	ic_wr16(o + 10, (uint16_t)~vpk_csum_fold(vpk_csum_add(0, o, 20)));
	o[20] = type;
	o[21] = code;
	memset(o + 22, 0, 6);
	if (type == 12)
		o[24] = (uint8_t)ptr;
	ic_wr16(o + 22, (uint16_t)~vpk_csum_fold(vpk_csum_add(0, o + 20, 8 + qlen)));
	return ie_sent(rt, b, no, qlen, type, false);
}

static inline __attribute__((always_inline)) uint16_t
ie6_one(struct vpk_node_rt *rt, struct ie_ctx *x, struct vpk_buf *b)
{
	uint8_t *h = vpk_buf_area(b) + b->l3_off, *o, type, code, nh;
	uint32_t left = vpk_l3_left(b), tlen, qlen, no, off, nh_at;
	const uint8_t *src;
	uint16_t ptr, why;
	bool frag;

	vpk_icmp_error_get(b, &type, &code, &ptr);
	if (left < 40)
		return vpk_node_drop(rt, b, IE_ERR_MALFORMED, IE_NEXT_DROP);
	tlen = 40u + vpk_rd16be(h + 4);
	tlen = tlen > left ? left : tlen;
	if (type == 3 && ic_is_local(x->c, h + 24, true)) {
		vpk_node_count_error(rt, IE_ERR_LOCAL, 1);
		return ie_local(rt);
	}
	{
		static const uint8_t unspec[16];

		if (h[8] == 0xff || memcmp(h + 8, unspec, 16) == 0 || h[24] == 0xff)
			return vpk_node_drop(rt, b, IE_ERR_NOT_UNICAST, IE_NEXT_DROP);
	}
	if (ic_ip6_upper(h, tlen, &off, &nh, &nh_at, &frag) && nh == 58 && off < tlen && h[off] < 128)
		return vpk_node_drop(rt, b, IE_ERR_ABOUT_ICMP, IE_NEXT_DROP);
	if ((why = ie_admit(x, b, true, tlen, &src, &qlen, &no)) != IE_N_ERROR)
		return vpk_node_drop(rt, b, why, IE_NEXT_DROP);
	o = vpk_buf_area(b) + no;
	o[0] = 0x60;
	o[1] = o[2] = o[3] = 0;
	ic_wr16(o + 4, (uint16_t)(8 + qlen));
	o[6] = 58;
	o[7] = 64;
	memcpy(o + 8, src, 16);
	memcpy(o + 24, h + 8, 16);              /* the invoking packet's source */
	o[40] = type;
	o[41] = code;
	memset(o + 42, 0, 6);
	if (type == 4)
		ic_wr16(o + 46, ptr);
	ic_wr16(o + 42, (uint16_t)~ic_sum6(o + 8, o + 24, o + 40, 8 + qlen));
	return ie_sent(rt, b, no, qlen, type, true);
}

static inline __attribute__((always_inline)) uint32_t
ie_frame(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n, bool is6)
{
	struct ie_ctx *x = vpk_node_ctx(rt);

	ie_refill(x);
	VPK_NODE_EACH(rt, bi, n, i, is6 ? ie6_one(rt, x, b[i]) : ie4_one(rt, x, b[i]));
	return n;
}

VPK_NODE_FN_IP46(ip4_icmp_error, ip6_icmp_error, ie_frame)

static const struct vpk_icmp_conf ie_none = { 0 };

static void
ie_fini(struct vpk_node_rt *rt)
{
	free(vpk_node_ctx(rt));
	vpk_node_set_ctx(rt, NULL);
}

static int
ie_init(struct vpk_node_rt *rt, void *conf)
{
	struct ie_ctx *x = calloc(1, sizeof(*x));
	struct timespec ts;

	if (x == NULL)
		return -ENOMEM;
	x->c = conf != NULL ? conf : &ie_none;
	x->next_c = x->c;
	x->tokens = x->c->burst;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	x->last_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	vpk_node_set_ctx(rt, x);
	return 0;
}

VPK_NODE_TRACE(ie_trace)
{
	snprintf(out, len, "icmp error type %u code %u%s", b->opaque[VPK_ICMP_OPQ], b->opaque[VPK_ICMP_OPQ + 1],
		 b->error ? " not sent" : "");
}

#if VPK_VEC_BITS == 0  /* once in the library, not per ISA */
int
vpk_icmp_set_conf(struct vpk_graph *g, const struct vpk_icmp_conf *conf)
{
	static const char *const names[] = { "ip4-icmp-error", "ip6-icmp-error" };
	int found = 0;

	for (size_t k = 0; conf != NULL && k < 2; k++) {
		int i = vpk_graph_node_index(g, names[k]);
		struct ie_ctx *x = i >= 0 ? g->nodes[i].ctx : NULL;

		if (x != NULL) {
			__atomic_store_n(&x->next_c, conf, __ATOMIC_RELEASE);
			found++;
		}
	}
	return found > 0 ? 0 : -EINVAL;
}

#endif

/* The registration fields ip4-icmp-error and ip6-icmp-error share. */
#define IE_NODE .n_next = IE_N_NEXT, .n_errors = IE_N_ERROR, .error_strings = ie_errors, .init = ie_init, \
		.fini = ie_fini, .format_trace = ie_trace
VPK_NODE_REGISTER(ip4_icmp_error, VPK_FN(ip4_icmp_error_fn), .name = "ip4-icmp-error", .next_names = ie_next[0], IE_NODE);
VPK_NODE_REGISTER(ip6_icmp_error, VPK_FN(ip6_icmp_error_fn), .name = "ip6-icmp-error", .next_names = ie_next[1], IE_NODE);
