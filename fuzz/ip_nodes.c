/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz the IP forwarding path as a graph: ethernet-input, ip4-input,
 * ip6-input, ip4-acl, ip6-acl, ip4-lookup, ip6-lookup, ip4-rewrite,
 * ip6-rewrite, interface-output, error-drop, one graph per usable ISA level
 * (each with its own ACL classifier variant).
 *
 * Input: packets [kind][len][len bytes]..., up to 64, injected as one frame
 * so the vector loops (8 and 16 lanes) and their tails both run. kind & 3
 * picks how the bytes are framed: raw frame, or behind an Ethernet header
 * as IPv4, IPv6 or VLAN-tagged IPv4 with version, lengths and the IPv4
 * header checksum fixed up so the bytes reach the checks behind them;
 * kind >> 2 picks a destination from the routes below (or keeps the bytes').
 *
 * Checks (abort() = finding):
 *   - every variant transmits the same bytes on the same interfaces and
 *     counts the same drop reasons;
 *   - every packet is accounted for: transmitted + error-drop == injected,
 *     no graph-runtime drop, and all buffers are back in the pool;
 *   - a transmitted IPv4 packet has a valid header checksum and TTL >= 1;
 *   - the deny rules hold: no unfragmented IPv4 UDP packet to
 *     192.168.0.0/16 port 53 is transmitted, and no IPv6 TCP packet to
 *     2001:db8:9::/48 port 22 whatever extension headers precede the TCP
 *     header (walked here independently of ip6-input).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/acl.h>
#include <vpk/acl_file.h>
#include <vpk/fib.h>
#include <vpk/fib6.h>
#include <vpk/graph.h>
#include <vpk/nodes.h>

#include "graph_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NV 5
#define MAX_PKTS 64

static struct vpk_pool *pool;
static struct vpk_fib *fib4;
static struct vpk_fib6 *fib6;
static struct vpk_acl *acl4[NV], *acl6[NV], *frag4[NV];
static struct vpk_acl_node_conf anc4[NV], anc6[NV];
static struct vpk_graph *g[NV];
static unsigned n_g;
static struct fz_out outs[NV];
static struct vpk_if_output out[NV];

/* Adjacencies: 1 and 2 valid, 3 without a neighbor; next hops >= 4 have none. */
static const struct vpk_adj adj[4] = {
	{ { 0 }, { 0 }, 0, 0 },
	{ { 2, 0, 0, 0, 0, 0x11 }, { 2, 0, 0, 0, 0, 1 }, 1, 1 },
	{ { 2, 0, 0, 0, 0, 0x22 }, { 2, 0, 0, 0, 0, 2 }, 0, 1 },
	{ { 2, 0, 0, 0, 0, 0x33 }, { 2, 0, 0, 0, 0, 3 }, 1, 0 },
};
static const struct vpk_adj_table adjt = { 4, adj };
/* userdata 1: deny, 2: forward to adjacency 2 (an l3fwd "R" rule). */
static const int32_t action[3] = { 0, VPK_ACL_ACT_DENY, 2 };

static const uint8_t dst4[][4] = { { 192, 168, 1, 1 }, { 10, 1, 2, 3 }, { 10, 2, 0, 1 }, { 10, 9, 9, 9 },
				   { 8, 8, 8, 8 }, { 127, 0, 0, 1 }, { 224, 0, 0, 5 } };
static const uint8_t dst6[][4] = { { 0x20, 0x01, 0x0d, 0xb8 }, { 0x20, 0x01, 0x0d, 0xb9 }, { 0xfe, 0x80, 0, 0 },
				   { 0xff, 0x02, 0, 0 } };

/* The rules @p r (only those without port constraints when @p portless,
 * keeping their userdata: the node's classifier for non-first fragments). */
static struct vpk_acl *
make_acl(const struct vpk_acl5_rule *r, uint32_t n, bool ipv6, unsigned v, bool portless)
{
	struct vpk_acl_field_def defs[11];
	uint32_t nf = vpk_acl5_layout(ipv6, defs), m = 0;
	struct vpk_acl_conf c = { .num_fields = nf, .defs = defs, .num_categories = 1 };
	size_t rsz = VPK_ACL_RULE_SIZE(nf);
	uint8_t rules[4 * VPK_ACL_RULE_SIZE(11)];
	const struct vpk_impl *const *im = vpk_acl_impls();
	size_t n_im = 0;
	struct vpk_acl *a;

	vpk_acl5_to_rules(r, n, ipv6, 1, rules);
	for (uint32_t i = 0; i < n; i++)
		if (!portless || vpk_acl5_rule_portless(&r[i]))
			memmove(rules + m++ * rsz, rules + i * rsz, rsz);
	if (m == 0)
		return NULL;
	if (vpk_acl_create(&c, &a) != 0 || vpk_acl_add_rules(a, rules, m) != 0 || vpk_acl_build(a) != 0)
		abort();
	while (im[n_im] != NULL)
		n_im++;
	/* Graph v uses the v-th variant that runs here (wrapping), so variants get compared too. */
	for (size_t k = 0; k < n_im; k++)
		if (vpk_acl_select(a, im[(v + k) % n_im]->name) == 0)
			break;
	return a;
}

static void
setup(void)
{
	static const char *const nodes[] = {
		"ethernet-input", "ip4-input", "ip6-input", "ip4-acl", "ip6-acl", "ip4-lookup", "ip6-lookup",
		"ip4-rewrite", "ip6-rewrite", "interface-output", "error-drop", NULL
	};
	static const enum vpk_isa lv[NV] = { VPK_ISA_SCALAR, VPK_ISA_SSE42, VPK_ISA_AVX2, VPK_ISA_AVX512,
					     VPK_ISA_AVX512ICL };
	const struct vpk_acl5_rule r4[2] = {
		{ .dst = { 192, 168 }, .dst_len = 16, .proto = 17, .proto_mask = 0xff, .sport_hi = 65535,
		  .dport_lo = 53, .dport_hi = 53, .port = -1 },
		{ .dst = { 10, 1 }, .dst_len = 16, .sport_hi = 65535, .dport_hi = 65535, .port = 1 },
	};
	const struct vpk_acl5_rule r6[1] = {
		{ .dst = { 0x20, 0x01, 0x0d, 0xb8, 0, 9 }, .dst_len = 48, .proto = 6, .proto_mask = 0xff,
		  .sport_hi = 65535, .dport_lo = 22, .dport_hi = 22, .port = -1 },
	};
	struct vpk_pool_conf pc = { .name = "fuzz", .n_bufs = 512 };
	struct vpk_fib_conf fc = { .nh_size = 4, .num_tbl8 = 64, .max_routes = 16 };
	struct vpk_fib6_conf f6 = { .nh_size = 4, .num_tbl8 = 64, .max_routes = 16 };
	const uint8_t p6a[16] = { 0 }, p6b[16] = { 0x20, 0x01, 0x0d, 0xb8 }, p6c[16] = { 0x20, 0x01, 0x0d, 0xb9 };

	if (vpk_pool_create(&pc, &pool) != 0 || vpk_fib_create(&fc, &fib4) != 0 || vpk_fib6_create(&f6, &fib6) != 0)
		abort();
	if (vpk_fib_add(fib4, 0, 0, 1) != 0 || vpk_fib_add(fib4, 0x0a000000u, 8, 3) != 0 ||
	    vpk_fib_add(fib4, 0x0a020000u, 16, 9) != 0 || vpk_fib_add(fib4, 0x0a010200u, 24, 2) != 0 ||
	    vpk_fib6_add(fib6, p6a, 0, 1) != 0 || vpk_fib6_add(fib6, p6b, 32, 2) != 0 ||
	    vpk_fib6_add(fib6, p6c, 32, 3) != 0)
		abort();
	for (unsigned v = 0; v < NV; v++) {
		struct vpk_node_conf nc[] = {
			{ "ip4-acl", &anc4[n_g], 0, NULL }, { "ip6-acl", &anc6[n_g], 0, NULL },
			{ "ip4-lookup", fib4, 0, NULL }, { "ip6-lookup", fib6, 0, NULL },
			{ "ip4-rewrite", (void *)&adjt, 0, NULL }, { "ip6-rewrite", (void *)&adjt, 0, NULL },
			{ "interface-output", &out[n_g], 0, NULL },
		};
		struct vpk_graph_conf gc = { .pool = pool, .nodes = nodes, .node_conf = nc,
					     .n_node_conf = sizeof(nc) / sizeof(nc[0]), .isa = lv[v] };

		outs[n_g].pool = pool;
		out[n_g] = (struct vpk_if_output){ fz_out_tx, &outs[n_g] };
		acl4[n_g] = make_acl(r4, 2, false, n_g, false);
		acl6[n_g] = make_acl(r6, 1, true, n_g, false);
		frag4[n_g] = make_acl(r4, 2, false, n_g, true);         /* r4[1]; r6 has none */
		anc4[n_g] = (struct vpk_acl_node_conf){ .acl = acl4[n_g], .acl_frag = frag4[n_g], .action = action,
							 .n_action = 3, .no_match = VPK_ACL_ACT_PERMIT };
		anc6[n_g] = (struct vpk_acl_node_conf){ .acl = acl6[n_g], .action = action, .n_action = 3,
							 .no_match = VPK_ACL_ACT_PERMIT };
		if (vpk_graph_create(&gc, &g[n_g]) == 0) {
			n_g++;
		} else {
			vpk_acl_destroy(acl4[n_g]);
			vpk_acl_destroy(acl6[n_g]);
			vpk_acl_destroy(frag4[n_g]);
		}
	}
	if (n_g == 0)
		abort();
}

static uint16_t
csum(const uint8_t *h, unsigned hlen)
{
	uint32_t s = 0;

	for (unsigned k = 0; k < hlen; k += 2)
		s += (uint32_t)(h[k] << 8 | h[k + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* One frame from @d[0..n) framed by @kind into @f; returns its length. */
static size_t
frame(uint8_t *f, unsigned kind, const uint8_t *d, size_t n)
{
	static const uint8_t eth[12] = { 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 9 };
	unsigned how = kind & 3, dst = kind >> 2;
	size_t h;

	if (how == 0) {
		memcpy(f, d, n);
		return n;
	}
	memcpy(f, eth, 12);
	h = 14;
	if (how == 3) {                         /* VLAN 5, then IPv4 */
		f[12] = 0x81, f[13] = 0x00, f[14] = 0, f[15] = 5;
		h = 18;
	}
	f[h - 2] = how == 2 ? 0x86 : 0x08, f[h - 1] = how == 2 ? 0xdd : 0x00;
	memcpy(f + h, d, n);
	if (how == 2 && n >= 40) {
		f[h] = (uint8_t)(0x60 | (f[h] & 15));
		f[h + 4] = (uint8_t)((n - 40) >> 8), f[h + 5] = (uint8_t)(n - 40);
		if (dst < sizeof(dst6) / sizeof(dst6[0]))
			memcpy(f + h + 24, dst6[dst], 4);
	} else if (how != 2 && n >= 20) {
		unsigned ihl = f[h] & 15u;

		if (ihl < 5 || ihl * 4 > n)
			ihl = 5;
		f[h] = (uint8_t)(0x40 | ihl);
		f[h + 2] = (uint8_t)(n >> 8), f[h + 3] = (uint8_t)n;
		if (dst < sizeof(dst4) / sizeof(dst4[0]))
			memcpy(f + h + 16, dst4[dst], 4);
		f[h + 10] = 0, f[h + 11] = 0;
		uint16_t c = (uint16_t)~csum(f + h, ihl * 4);

		f[h + 10] = (uint8_t)(c >> 8), f[h + 11] = (uint8_t)c;
	}
	return h + n;
}

/* True when IPv6 packet @p ip (@p len bytes) is TCP to 2001:db8:9::/48 port 22. */
static bool
ip6_tcp22(const uint8_t *ip, size_t len)
{
	static const uint8_t pfx[6] = { 0x20, 0x01, 0x0d, 0xb8, 0, 9 };
	size_t off = 40;
	uint8_t nh;

	if (len < 40 || memcmp(ip + 24, pfx, 6) != 0)
		return false;
	nh = ip[6];
	for (unsigned k = 0; k < 64 && off + 8 <= len; k++) {
		if (nh == 44) {                 /* a later fragment has no TCP header */
			if ((ip[off + 2] << 8 | ip[off + 3]) & 0xfff8)
				return false;
			nh = ip[off];
			off += 8;
		} else if (nh == 51) {
			nh = ip[off];
			off += (ip[off + 1] + 2u) * 4;
		} else if (nh == 0 || nh == 43 || nh == 60 || nh == 135 || nh == 139 || nh == 140 ||
			   nh == 253 || nh == 254) {
			nh = ip[off];
			off += (ip[off + 1] + 1u) * 8;
		} else {
			break;
		}
	}
	return nh == 6 && off + 4 <= len && (ip[off + 2] << 8 | ip[off + 3]) == 22;
}

/* Checks on one transmitted frame (rewritten by ip4/ip6-rewrite). */
static void
check_tx(const uint8_t *p, size_t len)
{
	size_t h = 14;
	uint16_t et;

	if (len < 14)
		abort();
	et = (uint16_t)(p[12] << 8 | p[13]);
	if ((et == 0x8100 || et == 0x88a8) && len >= 18) {
		et = (uint16_t)(p[16] << 8 | p[17]);
		h = 18;
	}
	if (et == 0x86dd && ip6_tcp22(p + h, len - h)) {
		fprintf(stderr, "fuzz: TCP/22 to 2001:db8:9::/48 passed the deny rule\n");
		abort();
	}
	if (et != 0x0800 || len < h + 20)
		return;
	const uint8_t *ip = p + h;
	unsigned hlen = (ip[0] & 15u) * 4;

	if (hlen < 20 || len < h + hlen || csum(ip, hlen) != 0xffff || ip[8] == 0) {
		fprintf(stderr, "fuzz: transmitted IPv4 header is bad (checksum or TTL)\n");
		abort();
	}
	if (ip[9] == 17 && (ip[6] & 0x3f) == 0 && ip[7] == 0 && ip[16] == 192 && ip[17] == 168 &&
	    len >= h + hlen + 4 && (ip[hlen + 2] << 8 | ip[hlen + 3]) == 53) {
		fprintf(stderr, "fuzz: UDP/53 to 192.168.0.0/16 passed the deny rule\n");
		abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t f[MAX_PKTS][2048];
	static size_t flen[MAX_PKTS];
	size_t np = 0;

	if (pool == NULL)
		setup();
	for (size_t at = 0; at + 2 <= size && np < MAX_PKTS;) {
		unsigned kind = data[at], n = data[at + 1];

		at += 2;
		if (n > size - at)
			n = (unsigned)(size - at);
		flen[np] = frame(f[np], kind, data + at, n);
		np++;
		at += n;
	}
	if (np == 0)
		return 0;
	for (unsigned v = 0; v < n_g; v++) {
		uint32_t bi[MAX_PKTS];
		struct vpk_node_stats ns;
		struct vpk_graph_drops gd;
		int ed = vpk_graph_node_index(g[v], "error-drop");

		outs[v].n = 0;
		outs[v].pkts = 0;
		if (vpk_pool_alloc_burst(pool, bi, (uint32_t)np) != np)
			abort();
		for (size_t i = 0; i < np; i++) {
			struct vpk_buf *b = vpk_buf_from_idx(vpk_pool_base(pool), bi[i]);

			memcpy(vpk_buf_data(b), f[i], flen[i]);
			b->len = (uint16_t)flen[i];
			b->total_len = b->len;
		}
		vpk_graph_clear_stats(g[v]);
		vpk_graph_inject(g[v], "ethernet-input", bi, (uint32_t)np);
		vpk_graph_run_once(g[v]);
		if (vpk_pool_in_use(pool) != 0)
			abort();        /* a buffer was lost or not yet dispatched */
		vpk_graph_get_drops(g[v], &gd);
		if (ed < 0 || vpk_graph_get_node_stats(g[v], (size_t)ed, &ns) != 0 || gd.no_memory || gd.no_arc ||
		    outs[v].pkts + ns.vectors != np) {
			fprintf(stderr, "fuzz: %zu packets in, %u sent, %llu dropped\n", np, outs[v].pkts,
				(unsigned long long)ns.vectors);
			abort();
		}
		fz_same(&outs[v], g[v], &outs[0], g[0]);
	}
	for (size_t at = 0; at < outs[0].n;) {
		uint16_t len;

		memcpy(&len, outs[0].buf + at + 4, 2);
		check_tx(outs[0].buf + at + 8, len);
		at += 8 + len;
	}
	return 0;
}
