/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The graph runtime and the built-in IP nodes, end to end: a test input
 * node feeds hand-built frames through ethernet-input, ip4/ip6-input, a
 * lookup, ip4/ip6-rewrite and interface-output. Checked: every drop reason
 * is counted exactly once, forwarded bytes are right (MACs, TTL/hop limit,
 * IPv4 checksum, VLAN tags removed, padding trimmed), every variant level
 * gives identical output, the pool accounts for every buffer, per-node
 * forcing works and is refused when impossible, stats and trace add up.
 * ethernet-input's IPv4 fast path (past ip4-input) gives the same bytes,
 * L4 fields, counters and order as the way through ip4-input.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/fib.h>
#include <vpk/fib6.h>
#include <vpk/graph.h>
#include <vpk/nodes.h>
#include <vpk/pkt.h>
#include "lib/check.h"

#define MAX_PKTS 20000
#define MAX_LEN 256

static struct {
	uint8_t data[MAX_LEN];
	uint16_t len;
} pkts[MAX_PKTS];
static size_t n_pkts, next_pkt;

static struct captured {
	uint8_t data[MAX_LEN];
	uint16_t len;
	uint32_t tx_if;
	uint16_t l4_at, flags;          /* l4_off - l3_off; the fragment flags */
	uint8_t l4_proto;
} *cap;
static size_t n_cap;
static uint32_t burst_max = VPK_FRAME_SIZE;     /* packets per test-input call */

static struct vpk_pool *pool;
static struct vpk_fib *fib;
static struct vpk_fib6 *fib6;

/* ---- test nodes ---- */

static uint32_t
test_input_fn(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	uint32_t idx[VPK_FRAME_SIZE], want = 0, got;
	void *base = vpk_node_pool_base(rt);

	(void)b;
	(void)bi;
	(void)n;
	while (want < burst_max && next_pkt + want < n_pkts)
		want++;
	got = vpk_pool_alloc_burst(pool, idx, want);
	for (uint32_t i = 0; i < got; i++) {
		struct vpk_buf *x = vpk_buf_from_idx(base, idx[i]);

		memcpy(vpk_buf_data(x), pkts[next_pkt + i].data, pkts[next_pkt + i].len);
		x->len = x->total_len = pkts[next_pkt + i].len;
		vpk_node_trace_mark(rt, x);
	}
	next_pkt += got;
	vpk_node_enqueue_one(rt, idx, 0, got);
	return got;
}

static const struct vpk_node_impl input_impl = { { "scalar", VPK_ISA_SCALAR, 64 }, test_input_fn };
static const struct vpk_impl *const input_impls[] = { &input_impl.base, NULL };
static const char *const input_next[] = { "ethernet-input" };
static const struct vpk_node_reg input_reg = {
	.name = "test-input", .type = VPK_NODE_INPUT, .n_next = 1, .next_names = input_next,
	.impls = input_impls,
};
static void
capture_tx(void *ctx, uint32_t tx_if, const uint32_t *bi, uint32_t n)
{
	void *base = vpk_pool_base(pool);

	(void)ctx;
	for (uint32_t i = 0; i < n; i++) {
		struct vpk_buf *b = vpk_buf_from_idx(base, bi[i]);

		if (n_cap < MAX_PKTS && b->len <= MAX_LEN) {
			memcpy(cap[n_cap].data, vpk_buf_data(b), b->len);
			cap[n_cap].len = b->len;
			cap[n_cap].tx_if = tx_if;
			cap[n_cap].l4_at = (uint16_t)(b->l4_off - b->l3_off);
			cap[n_cap].flags = b->flags & (VPK_BUF_F_FRAG | VPK_BUF_F_FRAG_LATER);
			cap[n_cap].l4_proto = b->l4_proto;
			n_cap++;
		}
	}
	vpk_pool_free_bulk(pool, bi, n);
}

/* ---- packet builders ---- */

static const uint8_t mac_a[6] = { 2, 0, 0, 0, 0, 0xaa }, mac_b[6] = { 2, 0, 0, 0, 0, 0xbb };
static const struct vpk_adj adjs[3] = {
	[0] = { .valid = 0 },
	[1] = { .dst_mac = { 2, 0, 0, 0, 1, 1 }, .src_mac = { 2, 0, 0, 0, 2, 2 }, .tx_if = 7, .valid = 1 },
	[2] = { .valid = 0 },
};
static const struct vpk_adj_table adj_table = { 3, adjs };
static const struct vpk_if_output out_conf = { capture_tx, NULL };

static uint8_t *
add_pkt(uint16_t len)
{
	uint8_t *d = pkts[n_pkts].data;

	memset(d, 0, MAX_LEN);
	pkts[n_pkts++].len = len;
	memcpy(d, mac_a, 6);
	memcpy(d + 6, mac_b, 6);
	return d;
}

/* Ethernet + IPv4 + 8 bytes of payload; @tags VLAN tags; returns the IPv4 header. */
static uint8_t *
ip4_pkt(unsigned tags, uint8_t ttl, uint8_t dst_last, uint16_t pad)
{
	uint16_t hl = (uint16_t)(14 + 4 * tags);
	uint8_t *d = add_pkt((uint16_t)(hl + 28 + pad)), *h;
	uint16_t c;

	for (unsigned t = 0; t < tags; t++) {
		d[12 + 4 * t] = 0x81;
		d[13 + 4 * t] = 0x00;
		d[15 + 4 * t] = (uint8_t)(100 + t);
	}
	d[hl - 2] = 0x08;
	d[hl - 1] = 0x00;
	h = d + hl;
	h[0] = 0x45;
	h[3] = 28;
	h[8] = ttl;
	h[9] = 17;
	h[12] = 10;
	h[15] = (uint8_t)n_pkts;
	h[16] = 10;
	h[19] = dst_last;
	c = vpk_ip4_csum(h, 20);
	memcpy(h + 10, &c, 2);
	return h;
}

static void
ip4_fix_csum(uint8_t *h)
{
	uint16_t c;

	h[10] = h[11] = 0;
	c = vpk_ip4_csum(h, (size_t)(h[0] & 15) * 4);
	memcpy(h + 10, &c, 2);
}

static uint8_t *
ip6_pkt(uint8_t hops, uint8_t dst_last, uint16_t plen_field, uint16_t frame_payload)
{
	uint8_t *d = add_pkt((uint16_t)(14 + 40 + frame_payload)), *h = d + 14;

	d[12] = 0x86;
	d[13] = 0xdd;
	h[0] = 0x60;
	h[4] = (uint8_t)(plen_field >> 8);
	h[5] = (uint8_t)plen_field;
	h[6] = 17;
	h[7] = hops;
	h[8] = 0x20;
	h[23] = (uint8_t)n_pkts;
	h[24] = 0x20;
	h[39] = dst_last;
	return h;
}

/* Expected outcome per reason: node name, reason substring. */
struct expect { const char *node, *reason; unsigned count; };
static struct expect expects[] = {
	{ "ethernet-input", "shorter than its Ethernet", 0 },
	{ "ethernet-input", "unknown EtherType", 0 },
	{ "ethernet-input", "more than two VLAN", 0 },
	{ "ip4-input", "shorter than an IPv4", 0 },
	{ "ip4-input", "version is not 4", 0 },
	{ "ip4-input", "below 20", 0 },
	{ "ip4-input", "longer than the frame", 0 },
	{ "ip4-input", "total length", 0 },
	{ "ip4-input", "checksum", 0 },
	{ "ip4-input", "TTL", 0 },
	{ "ip6-input", "shorter than an IPv6", 0 },
	{ "ip6-input", "version is not 6", 0 },
	{ "ip6-input", "payload length", 0 },
	{ "ip6-input", "hop limit", 0 },
	{ "ip4-lookup", "no route", 0 },
	{ "ip6-lookup", "no route", 0 },
	{ "ip4-rewrite", "no adjacency", 0 },
	{ "ip4-rewrite", "no neighbor", 0 },
};
enum { E_ETH_SHORT, E_ETH_TYPE, E_ETH_TAGS, E_IP4_SHORT, E_IP4_VER, E_IP4_IHL, E_IP4_TRUNC,
       E_IP4_LEN, E_IP4_CSUM, E_IP4_TTL, E_IP6_SHORT, E_IP6_VER, E_IP6_LEN, E_IP6_HOPS,
       E_LK_NOROUTE, E_LK6_NOROUTE, E_RW_NOADJ, E_RW_NONEIGH };
static unsigned n_forward;

static void
build_packets(void)
{
	uint8_t *h;

	n_pkts = 0;
	/* forwarded */
	ip4_pkt(0, 64, 1, 0); n_forward++;
	ip4_pkt(1, 2, 1, 0); n_forward++;                   /* VLAN, TTL 2 -> 1 on the wire */
	ip4_pkt(2, 255, 1, 0); n_forward++;                 /* QinQ-style double tag */
	ip4_pkt(0, 64, 1, 18); n_forward++;                 /* Ethernet padding trimmed */
	h = ip4_pkt(0, 64, 1, 0); h[10] = 0xff; h[11] = 0xff; h[10] = 0; /* replaced below */
	ip4_fix_csum(h); n_forward++;
	ip6_pkt(64, 1, 8, 8); n_forward++;
	ip6_pkt(2, 1, 8, 20); n_forward++;                  /* padding trimmed */
	ip6_pkt(64, 0x77, 8, 8); expects[E_LK6_NOROUTE].count++;
	/* drops */
	add_pkt(10); expects[E_ETH_SHORT].count++;
	h = add_pkt(60); h[12] = 0x08; h[13] = 0x06; expects[E_ETH_TYPE].count++;
	ip4_pkt(3, 64, 1, 0); expects[E_ETH_TAGS].count++;
	h = add_pkt(14 + 10); h[12] = 0x08; expects[E_IP4_SHORT].count++;
	h = ip4_pkt(0, 64, 1, 0); h[0] = 0x55; ip4_fix_csum(h); expects[E_IP4_VER].count++;
	h = ip4_pkt(0, 64, 1, 0); h[0] = 0x44; expects[E_IP4_IHL].count++;
	h = ip4_pkt(0, 64, 1, 0); h[0] = 0x4f; expects[E_IP4_TRUNC].count++;
	h = ip4_pkt(0, 64, 1, 0); h[3] = 200; ip4_fix_csum(h); expects[E_IP4_LEN].count++;
	h = ip4_pkt(0, 64, 1, 0); h[3] = 10; ip4_fix_csum(h); expects[E_IP4_LEN].count++;
	h = ip4_pkt(0, 64, 1, 0); h[11] ^= 1; expects[E_IP4_CSUM].count++;
	ip4_pkt(0, 1, 1, 0); expects[E_IP4_TTL].count++;
	ip4_pkt(0, 0, 1, 0); expects[E_IP4_TTL].count++;
	h = add_pkt(14 + 30); h[12] = 0x86; h[13] = 0xdd; expects[E_IP6_SHORT].count++;
	h = ip6_pkt(64, 1, 8, 8); h[0] = 0x40; expects[E_IP6_VER].count++;
	ip6_pkt(64, 1, 100, 8); expects[E_IP6_LEN].count++;
	ip6_pkt(1, 1, 8, 8); expects[E_IP6_HOPS].count++;
	ip4_pkt(0, 64, 9, 0); expects[E_RW_NOADJ].count++;
	ip4_pkt(0, 64, 77, 0); expects[E_LK_NOROUTE].count++;
	ip4_pkt(0, 64, 2, 0); expects[E_RW_NONEIGH].count++;
}

static const char *const graph_nodes[] = {
	"test-input", "ethernet-input", "ip4-input", "ip6-input", "ip4-lookup",
	"ip6-lookup", "ip4-rewrite", "ip6-rewrite", "interface-output", "error-drop", NULL
};

static struct vpk_node_conf node_conf[] = {
	{ .node = "ip4-rewrite", .conf = (void *)&adj_table },
	{ .node = "ip6-rewrite", .conf = (void *)&adj_table },
	{ .node = "interface-output", .conf = (void *)&out_conf },
	{ .node = "ip4-lookup", .conf = NULL },         /* the FIB, set in main() */
	{ .node = "ip6-lookup", .conf = NULL },         /* the IPv6 FIB, set in main() */
};

static int
make_graph(enum vpk_isa isa, uint32_t trace, struct vpk_graph **g)
{
	struct vpk_graph_conf gc = {
		.pool = pool, .nodes = graph_nodes, .node_conf = node_conf,
		.n_node_conf = sizeof(node_conf) / sizeof(node_conf[0]), .isa = isa, .trace = trace,
	};

	return vpk_graph_create(&gc, g);
}

static void
run_all(struct vpk_graph *g)
{
	next_pkt = 0;
	n_cap = 0;
	while (next_pkt < n_pkts)
		vpk_graph_run_once(g);
	vpk_graph_run_once(g);
}

static size_t
node_idx(struct vpk_graph *g, const char *name)
{
	struct vpk_node_stats st;

	for (size_t i = 0; i < vpk_graph_n_nodes(g); i++)
		if (vpk_graph_get_node_stats(g, i, &st) == 0 && strcmp(st.name, name) == 0)
			return i;
	return SIZE_MAX;
}

static uint64_t
error_count(struct vpk_graph *g, const char *node, const char *reason)
{
	size_t i = node_idx(g, node);
	const char *r;
	uint64_t c;

	for (uint16_t k = 0; k < vpk_graph_node_n_errors(g, i); k++)
		if (vpk_graph_node_error(g, i, k, &r, &c) == 0 && strstr(r, reason) != NULL)
			return c;
	return UINT64_MAX;
}

static struct captured *reference;
static size_t n_reference;

static void
check_outputs(const char *level)
{
	unsigned drops = 0;

	for (size_t e = 0; e < sizeof(expects) / sizeof(expects[0]); e++)
		drops += expects[e].count;
	CHECK(n_cap == n_forward, "%s: %zu forwarded, want %u", level, n_cap, n_forward);
	for (size_t i = 0; i < n_cap; i++) {
		const uint8_t *d = cap[i].data;

		CHECK(cap[i].tx_if == 7, "%s: tx_if %u", level, cap[i].tx_if);
		CHECK(memcmp(d, adjs[1].dst_mac, 6) == 0 && memcmp(d + 6, adjs[1].src_mac, 6) == 0,
		      "%s: packet %zu MACs not rewritten", level, i);
		if (d[12] == 0x08) {
			const uint8_t *h = d + 14;
			const uint8_t *hh[1] = { h };
			uint8_t ok;
			vpk_ip4_csum_check_fn f;

			vpk_ip4_csum_check_get(VPK_ISA_SCALAR, &f, NULL);
			f(hh, &ok, 1);
			CHECK(ok == 1, "%s: packet %zu bad checksum after rewrite", level, i);
			CHECK(cap[i].len == 14 + 28, "%s: packet %zu len %u (VLAN/padding not removed)",
			      level, i, cap[i].len);
		} else {
			CHECK(d[12] == 0x86 && d[13] == 0xdd, "%s: packet %zu ethertype", level, i);
			CHECK(cap[i].len == 14 + 40 + 8, "%s: IPv6 packet %zu len %u", level, i, cap[i].len);
		}
	}
	if (reference == NULL) {
		reference = malloc(n_cap * sizeof(*reference));
		memcpy(reference, cap, n_cap * sizeof(*reference));
		n_reference = n_cap;
	} else {
		CHECK(n_cap == n_reference && memcmp(cap, reference, n_cap * sizeof(*cap)) == 0,
		      "%s: output differs from the first variant level's", level);
	}
	(void)drops;
}

static void
test_levels(void)
{
	/* TTLs in the output: 63, 1, 254, 63, 63 (IPv4) and hop limits 63, 1. */
	for (enum vpk_isa isa = VPK_ISA_SCALAR; isa < VPK_ISA_COUNT; isa++) {
		struct vpk_graph *g;
		unsigned drops = 0;
		int rc;

		for (size_t e = 0; e < sizeof(expects) / sizeof(expects[0]); e++)
			drops += expects[e].count;
		if (!vpk_isa_usable(isa) || isa == VPK_ISA_AVX512ICL) {
			check_variant_skipped("graph", vpk_isa_name(isa),
					      vpk_isa_usable(isa) ? "no node has this level" : "not usable here");
			continue;
		}
		check_set_context("graph", vpk_isa_name(isa));
		rc = make_graph(isa, 0, &g);
		CHECK(rc == 0, "create at %s: %d %s", vpk_isa_name(isa), rc, vpk_last_error());
		if (rc != 0)
			continue;
		run_all(g);
		check_outputs(vpk_isa_name(isa));
		for (size_t e = 0; e < sizeof(expects) / sizeof(expects[0]); e++)
			CHECK(error_count(g, expects[e].node, expects[e].reason) == expects[e].count,
			      "%s: %s '%s' counted %llu, want %u", vpk_isa_name(isa), expects[e].node,
			      expects[e].reason,
			      (unsigned long long)error_count(g, expects[e].node, expects[e].reason),
			      expects[e].count);
		CHECK(error_count(g, "error-drop", "dropped") == drops, "error-drop counted %llu, want %u",
		      (unsigned long long)error_count(g, "error-drop", "dropped"), drops);
		{
			struct vpk_node_stats st;

			vpk_graph_get_node_stats(g, node_idx(g, "ethernet-input"), &st);
			CHECK(st.vectors == n_pkts && st.calls >= 1, "ethernet-input vectors %llu",
			      (unsigned long long)st.vectors);
			CHECK(strcmp(st.variant, vpk_isa_name(isa)) == 0, "ethernet-input runs %s at level %s",
			      st.variant, vpk_isa_name(isa));
		}
		CHECK(vpk_pool_in_use(pool) == 0, "%s: %u buffers leaked", vpk_isa_name(isa),
		      vpk_pool_in_use(pool));
		vpk_graph_destroy(g);
		check_variant_ran("graph", vpk_isa_name(isa));
	}
	check_set_context("", "");
}

static void
test_forcing_and_errors(void)
{
	struct vpk_graph *g;
	struct vpk_node_conf bad = { .node = "ip4-input", .isa = VPK_ISA_AVX512 };
	struct vpk_node_conf byname = { .node = "ip4-input", .variant = "scalar" };
	const char *const unknown[] = { "test-input", "no-such-node", NULL };
	const char *const dup[] = { "error-drop", "error-drop", NULL };
	struct vpk_graph_conf gc = { .pool = pool, .nodes = graph_nodes, .node_conf = &bad, .n_node_conf = 1 };
	int rc = vpk_graph_create(&gc, &g);

	if (vpk_isa_usable(VPK_ISA_AVX512)) {
		CHECK(rc == 0, "forcing avx512 on ip4-input failed: %s", vpk_last_error());
		if (rc == 0) {
			struct vpk_node_stats st;

			vpk_graph_get_node_stats(g, node_idx(g, "ip4-input"), &st);
			CHECK(strcmp(st.variant, "avx512") == 0, "forced variant not active: %s", st.variant);
			vpk_graph_destroy(g);
		}
	} else {
		CHECK(rc == -ENOTSUP && strstr(vpk_last_error(), "ip4-input") != NULL,
		      "forcing an unusable variant: rc %d '%s'", rc, vpk_last_error());
	}
	gc.node_conf = &byname;
	CHECK(vpk_graph_create(&gc, &g) == 0, "forcing by name: %s", vpk_last_error());
	vpk_graph_destroy(g);
	byname.variant = "avx9000";
	CHECK(vpk_graph_create(&gc, &g) == -EINVAL && strstr(vpk_last_error(), "avx9000"),
	      "unknown variant name accepted");
	gc.node_conf = NULL;
	gc.n_node_conf = 0;
	gc.nodes = unknown;
	CHECK(vpk_graph_create(&gc, &g) == -EINVAL && strstr(vpk_last_error(), "no-such-node"),
	      "unknown node accepted");
	gc.nodes = dup;
	CHECK(vpk_graph_create(&gc, &g) == -EINVAL, "duplicate node accepted");
	CHECK(vpk_node_register(&input_reg) == -EEXIST, "double registration accepted");
	CHECK(vpk_node_register(NULL) == -EINVAL, "NULL registration accepted");
}

static void
test_trace(void)
{
	struct vpk_graph *g;
	const struct vpk_trace_rec *r;
	size_t nr;

	CHECK(make_graph(VPK_ISA_AUTO, 2, &g) == 0, "create");
	run_all(g);
	nr = vpk_graph_trace(g, &r);
	/* Packet 0: test-input -> ethernet-input -> ip4-input -> lookup -> rewrite -> output. */
	CHECK(nr >= 6, "only %zu trace records", nr);
	for (size_t i = 0; i < nr; i++)
		CHECK(r[i].pkt < 2, "packet %u traced beyond the budget", r[i].pkt);
	{
		const char *path[] = { "test-input", "ethernet-input", "ip4-input", "ip4-lookup",
				       "ip4-rewrite", "interface-output" };
		size_t k = 0;

		for (size_t i = 0; i < nr && k < 6; i++)
			if (r[i].pkt == 0 && strcmp(r[i].node, path[k]) == 0)
				k++;
		CHECK(k == 6, "packet 0's trace path broke after %zu steps", k);
	}
	vpk_graph_destroy(g);
}

/* Error counters of every node of @g, in node and reason order, into @c (at most @max). */
static size_t
all_errors(struct vpk_graph *g, uint64_t *c, size_t max)
{
	size_t k = 0;

	for (size_t i = 0; i < vpk_graph_n_nodes(g); i++)
		for (uint16_t e = 0; e < vpk_graph_node_n_errors(g, i) && k < max; e++)
			vpk_graph_node_error(g, i, e, NULL, &c[k++]);
	return k;
}

/*
 * ethernet-input passes the common IPv4 packet on itself; a traced graph
 * sends every IPv4 packet through ip4-input. Both must give the same bytes,
 * L4 fields, counters and order: one packet per frame (each takes its own
 * way) and all in one frame (a frame with both kinds goes through ip4-input).
 */
static void
test_ip4_fast_path(void)
{
	size_t keep = n_pkts, n_ref = 0, n_err[2];
	uint64_t err[2][256];
	struct captured *ref = calloc(MAX_PKTS, sizeof(*ref));
	uint8_t *h;

	/* Fragments (first and later), IP options with a good checksum, padding, TTL 2. */
	h = ip4_pkt(0, 64, 1, 0); h[6] = 0x20; ip4_fix_csum(h); n_forward++;
	h = ip4_pkt(0, 64, 1, 0); h[6] = 0x00; h[7] = 0x03; ip4_fix_csum(h); n_forward++;
	h = ip4_pkt(0, 64, 1, 0); h[6] = 0x20; h[7] = 0x01; h[9] = 6; ip4_fix_csum(h); n_forward++;
	h = ip4_pkt(0, 64, 1, 4); h[0] = 0x46; h[3] = 32; ip4_fix_csum(h); n_forward++;
	ip4_pkt(0, 64, 1, 30); n_forward++;
	ip4_pkt(1, 2, 1, 0); n_forward++;
	for (uint32_t burst = 1; burst <= VPK_FRAME_SIZE; burst += VPK_FRAME_SIZE - 1) {
		for (int traced = 0; traced < 2; traced++) {
			struct vpk_graph *g;
			struct vpk_node_stats st;

			burst_max = burst;
			CHECK(make_graph(VPK_ISA_AUTO, traced ? MAX_PKTS : 0, &g) == 0, "create");
			run_all(g);
			n_err[traced] = all_errors(g, err[traced], 256);
			vpk_graph_get_node_stats(g, node_idx(g, "ip4-input"), &st);
			if (burst == 1 && !traced)
				CHECK(st.vectors > 0 && st.vectors < n_pkts / 2, "ip4-input saw %llu of %zu packets",
				      (unsigned long long)st.vectors, n_pkts);
			if (!traced) {
				memcpy(ref, cap, n_cap * sizeof(*cap));
				n_ref = n_cap;
			} else {
				CHECK(n_cap == n_ref && memcmp(cap, ref, n_cap * sizeof(*cap)) == 0,
				      "burst %u: the fast path's output differs from ip4-input's", burst);
				CHECK(n_err[0] == n_err[1] && memcmp(err[0], err[1], n_err[0] * sizeof(err[0][0])) == 0,
				      "burst %u: the fast path's counters differ from ip4-input's", burst);
			}
			CHECK(vpk_pool_in_use(pool) == 0, "%u buffers leaked", vpk_pool_in_use(pool));
			vpk_graph_destroy(g);
		}
	}
	CHECK(n_ref == n_forward, "%zu forwarded, want %u", n_ref, n_forward);
	burst_max = VPK_FRAME_SIZE;
	n_forward -= 6;
	n_pkts = keep;
	free(ref);
}

static void
test_many_frames(void)
{
	struct vpk_graph *g;
	size_t keep = n_pkts;
	struct vpk_node_stats st;

	/* 10000 packets alternating IPv4/IPv6: frames fill, split and aggregate. */
	n_pkts = 0;
	for (int i = 0; i < 10000; i++) {
		if (i % 3 == 2)
			ip6_pkt(64, 1, 8, 8);
		else
			ip4_pkt((unsigned)(i % 2), 64, 1, 0);
	}
	CHECK(make_graph(VPK_ISA_AUTO, 0, &g) == 0, "create");
	run_all(g);
	CHECK(n_cap == 10000, "%zu of 10000 forwarded", n_cap);
	vpk_graph_get_node_stats(g, node_idx(g, "ip4-rewrite"), &st);
	CHECK(st.vectors == 6667, "ip4-rewrite saw %llu", (unsigned long long)st.vectors);
	CHECK(st.vectors / (st.calls ? st.calls : 1) > 100, "frames not aggregated: %.1f vectors/call",
	      (double)st.vectors / (double)(st.calls ? st.calls : 1));
	CHECK(vpk_pool_in_use(pool) == 0, "%u buffers leaked", vpk_pool_in_use(pool));
	vpk_graph_destroy(g);
	n_pkts = keep;
}

/*
 * A truncated IPv4 header in the last buffer of a pool whose memory ends at
 * an inaccessible page: ip4-input must not let the checksum kernel read the
 * 60 bytes its IHL claims (regression: it used to, reading past the pool).
 */
static void
test_truncated_header_at_pool_end(void)
{
	enum { NB = 4, STRIDE = 64 + 128 + 64 };
	void *mem = check_guard_alloc(NB * STRIDE);
	struct vpk_pool_conf pc = { .n_bufs = NB, .data_size = 64, .mem = mem, .mem_len = NB * STRIDE };
	const char *const nodes[] = { "ethernet-input", "ip4-input", "ip6-input", "ip4-lookup", "ip6-lookup",
				      "ip4-rewrite", "ip6-rewrite", "interface-output", "error-drop", NULL };
	struct vpk_graph_conf gc = { .nodes = nodes };
	struct vpk_pool *p;
	struct vpk_graph *g;
	uint32_t idx[NB];

	CHECK(vpk_pool_create(&pc, &p) == 0, "pool on caller memory");
	gc.pool = p;
	CHECK(vpk_graph_create(&gc, &g) == 0, "graph: %s", vpk_last_error());
	CHECK(vpk_pool_alloc_burst(p, idx, NB) == NB, "alloc");
	/* All NB buffers take part, so the last one of the pool (against the guard page) is one. */
	for (int i = 0; i < NB; i++) {
		struct vpk_buf *b = vpk_buf_from_idx(vpk_pool_base(p), idx[i]);
		uint8_t *d = vpk_buf_data(b);

		memset(d, 0, 64);
		d[12] = 0x08;
		d[14] = 0x4f;           /* IHL 15: claims 60 header bytes, the frame has 30 */
		b->len = b->total_len = 14 + 30;
	}
	vpk_graph_inject(g, "ethernet-input", idx, NB);
	vpk_graph_run_once(g);
	CHECK(error_count(g, "ip4-input", "longer than the frame") == NB, "truncated headers not counted");
	CHECK(vpk_pool_in_use(p) == 0, "%u buffers leaked", vpk_pool_in_use(p));
	vpk_graph_destroy(g);
	vpk_pool_destroy(p);
	check_guard_free(mem, NB * STRIDE);
}

int
main(void)
{
	struct vpk_pool_conf pc = { .n_bufs = 4096, .cache_size = 64 };

	check_init("graph_nodes");
	cap = calloc(MAX_PKTS, sizeof(*cap));
	CHECK(vpk_pool_create(&pc, &pool) == 0, "pool");
	CHECK(vpk_node_register(&input_reg) == 0, "register input");
	{
		struct vpk_fib_conf fc = { .nh_size = 4, .num_tbl8 = 64, .max_routes = 64 };

		CHECK(vpk_fib_create(&fc, &fib) == 0, "fib");
		/* 10.0.0.1 -> adjacency 1 (valid), .2 -> 2 (no neighbor), .9 -> 9 (beyond the table);
		 * 10.0.0.77 has no route. */
		CHECK(vpk_fib_add(fib, 0x0a000001, 32, 1) == 0 && vpk_fib_add(fib, 0x0a000002, 32, 2) == 0 &&
		      vpk_fib_add(fib, 0x0a000009, 32, 9) == 0, "routes");
		node_conf[3].conf = fib;
	}
	{
		struct vpk_fib6_conf fc6 = { .nh_size = 4, .num_tbl8 = 64, .max_routes = 64 };
		uint8_t a[16] = { 0x20 };

		CHECK(vpk_fib6_create(&fc6, &fib6) == 0, "fib6");
		a[15] = 1;
		CHECK(vpk_fib6_add(fib6, a, 128, 1) == 0, "route6");
		node_conf[4].conf = fib6;
	}
	build_packets();
	test_levels();
	test_forcing_and_errors();
	test_trace();
	test_ip4_fast_path();
	test_many_frames();
	test_truncated_header_at_pool_end();
	CHECK(vpk_pool_in_use(pool) == 0, "buffers leaked at exit: %u", vpk_pool_in_use(pool));
	vpk_pool_destroy(pool);
	vpk_fib_destroy(fib);
	vpk_fib6_destroy(fib6);
	free(cap);
	free(reference);
	return check_finish();
}
