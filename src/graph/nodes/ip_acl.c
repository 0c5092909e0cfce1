/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip4-acl and ip6-acl: the ACL stage of the forwarding path. For a frame,
 * build each packet's 5-tuple in the dpdk-test-acl layout (IPv4: proto, pad,
 * src, dst, sport, dport = 16 bytes; IPv6: 40 bytes), classify the frame in
 * one vpk_acl_classify_bulk() call (the classifier's own SIMD variant does
 * the work) and act on the matching rule's userdata: permit (go on to the
 * FIB), deny (drop, counted; with conf->deny_icmp an ICMP "administratively
 * prohibited" through ip4/ip6-icmp-error), or forward to an adjacency
 * (l3fwd-acl "R" rules, bypassing the FIB).
 *
 * The tuple is the one the destination will act on: protocol and L4 offset
 * come from ip4/ip6-input's walk of the header chain (vpk_buf::l4_proto,
 * l4_off), never from fixed offsets, so extension headers cannot hide a
 * port. Ports are the first 4 bytes of the L4 header for any protocol, as
 * l3fwd reads them. Where no honest tuple exists the packet is dropped and
 * counted (include/vpk/nodes.h, struct vpk_acl_node_conf): L4 header under
 * 4 bytes, TCP fragment at offset 8, and non-first fragments by policy;
 * under VPK_ACL_FRAG_PORTLESS those are classified, ports 0, on the rules
 * without port constraints (conf->acl_frag). Fragments are rare: the frame
 * is classified whole on conf->acl first, then the fragments again.
 */
#include <vpk/acl.h>
#include "graph/nodes/icmp_error.h"
#include "graph/nodes/nodes.h"

enum { ACL_NEXT_LOOKUP, ACL_NEXT_REWRITE, ACL_NEXT_DROP, ACL_NEXT_ICMP, ACL_N_NEXT };
enum {
	ACL_ERR_DENIED, ACL_ERR_NO_MATCH, ACL_ERR_PERMITTED, ACL_ERR_FORWARDED, ACL_ERR_L4_SHORT,
	ACL_ERR_FRAG_OVERLAP, ACL_ERR_FRAG_POLICY, ACL_N_ERROR
};

#define TUPLE_MAX 40
#define TUPLE_WHOLE 0xffffu             /* tuple() for a packet classified on conf->acl */
#define TUPLE_FRAG 0xfffeu              /* ... for a non-first fragment (conf->acl_frag) */

/* Fragment offset of a non-first fragment in 8-byte units: IPv4 header, or
 * the IPv6 Fragment header, which ip6-input's walk left just before l4_off. */
static inline __attribute__((always_inline)) uint32_t
frag_offset(const uint8_t *l3, const uint8_t *l4, bool is_ip6)
{
	return is_ip6 ? (uint32_t)vpk_rd16be(l4 - 6) >> 3 : vpk_rd16be(l3 + 6) & 0x1fffu;
}

/* Write @b's tuple to @t; return TUPLE_WHOLE, TUPLE_FRAG or the ACL_ERR_* to drop it for. The
 * buffer's fields are read before the first store to @t (which the compiler must assume may
 * alias them), and the two addresses, back to back in the header, are one copy. */
static inline __attribute__((always_inline)) uint32_t
tuple(const struct vpk_buf *b, uint8_t *t, bool is_ip6)
{
	const uint8_t *area = vpk_buf_area((struct vpk_buf *)b);
	const uint8_t *l3 = area + b->l3_off, *l4 = area + b->l4_off;
	uint32_t l4_off = b->l4_off, end = (uint32_t)b->data_off + b->len;
	uint32_t w0 = b->l4_proto;      /* protocol, then 3 bytes of padding */
	uint16_t flags = b->flags;
	unsigned po = is_ip6 ? 36 : 12;

	if (is_ip6)
		memset(t, 0, 40);
	memcpy(t, &w0, 4);              /* x86-64 is little-endian: t[0] = protocol */
	memcpy(t + 4, l3 + (is_ip6 ? 8 : 12), is_ip6 ? 32 : 8);        /* source, destination */
	if (__builtin_expect(flags & VPK_BUF_F_FRAG_LATER, 0)) {
		memset(t + po, 0, 4);
		return w0 == 6 && frag_offset(l3, l4, is_ip6) == 1 ? ACL_ERR_FRAG_OVERLAP : TUPLE_FRAG;
	}
	if (__builtin_expect(l4_off + 4 > end, 0)) {
		memset(t + po, 0, 4);
		return w0 == 59 ? TUPLE_WHOLE : ACL_ERR_L4_SHORT;  /* 59: no next header */
	}
	memcpy(t + po, l4, 4);
	return TUPLE_WHOLE;
}

/* Classify the non-first fragments among @p kind again, on conf->acl_frag. */
static inline __attribute__((always_inline)) void
acl_frags(const struct vpk_acl_node_conf *c, const uint8_t *const *data, const uint16_t *kind,
	  uint32_t *res, uint32_t n)
{
	const uint8_t *fd[VPK_FRAME_SIZE];
	uint32_t fi[VPK_FRAME_SIZE], fr[VPK_FRAME_SIZE], nf = 0;

	for (uint32_t i = 0; i < n; i++)
		if (kind[i] == TUPLE_FRAG) {
			fd[nf] = data[i];
			fi[nf++] = i;
		}
	if (nf == 0)
		return;
	if (c->acl_frag != NULL)
		vpk_acl_classify_bulk(c->acl_frag, fd, fr, nf, 1);
	else
		memset(fr, 0, nf * sizeof(fr[0]));
	for (uint32_t j = 0; j < nf; j++)
		res[fi[j]] = fr[j];
}

/* The ACL_ERR_* to drop a packet of tuple() result @p kind for, or TUPLE_WHOLE to act on its result. */
static inline __attribute__((always_inline)) uint32_t
drop_why(const struct vpk_acl_node_conf *c, uint32_t kind)
{
	if (kind == TUPLE_FRAG)
		return c->frag_policy == VPK_ACL_FRAG_DROP ? ACL_ERR_FRAG_POLICY : TUPLE_WHOLE;
	return c->acl != NULL ? kind : TUPLE_WHOLE;     /* no rules: no tuple to trust or doubt */
}

static inline __attribute__((always_inline)) uint32_t
acl_frame(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n, bool is_ip6)
{
	const struct vpk_acl_node_conf *c = vpk_node_ctx(rt);
	_Alignas(64) uint8_t tuples[VPK_FRAME_SIZE * TUPLE_MAX];       /* packed: 16 or 40 bytes each */
	const uint32_t stride = is_ip6 ? 40 : 16;
	const uint8_t *data[VPK_FRAME_SIZE];
	uint32_t res[VPK_FRAME_SIZE];
	uint16_t next[VPK_FRAME_SIZE], kind[VPK_FRAME_SIZE];
	uint64_t permitted = 0, forwarded = 0;
	bool odd = false, icmp = c->deny_icmp && vpk_node_has_next(rt, ACL_NEXT_ICMP);

	for (uint32_t i = 0; i < n; i++) {
		kind[i] = (uint16_t)tuple(b[i], tuples + i * stride, is_ip6);
		odd |= kind[i] != TUPLE_WHOLE;
		data[i] = tuples + i * stride;
	}
	if (c->acl != NULL)
		vpk_acl_classify_bulk(c->acl, data, res, n, 1);
	else
		memset(res, 0, n * sizeof(res[0]));
	if (__builtin_expect(odd, 0) && c->acl != NULL && c->frag_policy == VPK_ACL_FRAG_PORTLESS)
		acl_frags(c, data, kind, res, n);
	for (uint32_t i = 0; i < n; i++) {
		int32_t act = res[i] == 0 ? c->no_match
			      : res[i] < c->n_action ? c->action[res[i]] : VPK_ACL_ACT_DENY;
		uint32_t why;

		if (__builtin_expect(kind[i] != TUPLE_WHOLE, 0) && (why = drop_why(c, kind[i])) != TUPLE_WHOLE) {
			res[i] = 0;
			next[i] = vpk_node_drop(rt, b[i], (uint16_t)why, ACL_NEXT_DROP);
		} else if (act == VPK_ACL_ACT_PERMIT) {
			next[i] = ACL_NEXT_LOOKUP;
			permitted++;
		} else if (act >= 1) {
			b[i]->adj = (uint32_t)act;
			next[i] = ACL_NEXT_REWRITE;
			forwarded++;
		} else if (res[i] != 0 && icmp) {        /* denied: administratively prohibited */
			vpk_node_count_error(rt, ACL_ERR_DENIED, 1);
			vpk_icmp_error_set(b[i], is_ip6 ? 1 : 3, is_ip6 ? 1 : 13, 0);
			next[i] = ACL_NEXT_ICMP;
		} else {
			next[i] = vpk_node_drop(rt, b[i], res[i] == 0 ? ACL_ERR_NO_MATCH : ACL_ERR_DENIED,
						ACL_NEXT_DROP);
		}
	}
	/* For the trace: the matching rule's userdata (no store per packet otherwise). */
	if (rt->g->tracing)
		for (uint32_t i = 0; i < n; i++)
			memcpy(b[i]->opaque, &res[i], sizeof(res[i]));
	vpk_node_count_error(rt, ACL_ERR_PERMITTED, permitted);
	vpk_node_count_error(rt, ACL_ERR_FORWARDED, forwarded);
	vpk_node_enqueue_to_next(rt, bi, next, n);
	return n;
}

VPK_NODE_FN_IP46(ip4_acl, ip6_acl, acl_frame)

static const char *const acl4_next[] = { "ip4-lookup", "ip4-rewrite", "error-drop", "ip4-icmp-error" };
static const char *const acl6_next[] = { "ip6-lookup", "ip6-rewrite", "error-drop", "ip6-icmp-error" };
static const char *const acl_errors[] = {
	"denied by rule",
	"no rule matched (dropped)",
	"permitted",
	"forwarded by rule (l3fwd-acl)",
	"L4 header shorter than its 4 bytes of ports",
	"TCP fragment at offset 8 overlaps the TCP header",
	"non-first fragment (fragment policy drop)",
};
static const struct vpk_acl_node_conf acl_none = { .no_match = VPK_ACL_ACT_PERMIT };

VPK_NODE_INIT_CONF_OR(acl_init, acl_none)

VPK_NODE_TRACE(acl_trace)
{
	uint32_t ud;

	memcpy(&ud, b->opaque, sizeof(ud));
	if (ud == 0)
		snprintf(out, len, "no rule matched");
	else
		snprintf(out, len, "rule %u (userdata %u)", ud - 1, ud);
}

/* The registration fields ip4-acl and ip6-acl share. */
#define ACL_NODE .n_next = ACL_N_NEXT, .n_errors = ACL_N_ERROR, .error_strings = acl_errors, .init = acl_init, \
		.format_trace = acl_trace
VPK_NODE_REGISTER(ip4_acl, VPK_FN(ip4_acl_fn), .name = "ip4-acl", .next_names = acl4_next, ACL_NODE);
VPK_NODE_REGISTER(ip6_acl, VPK_FN(ip6_acl_fn), .name = "ip6-acl", .next_names = acl6_next, ACL_NODE);
