/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip4-rewrite / ip6-rewrite running interface-output's work themselves on a
 * frame that all goes out (graph_sink_now()): the same packets, bytes,
 * interfaces and order as through interface-output's own frames, and the
 * same counters (interface-output's calls, vectors and errors, the
 * rewrites' drops), at every variant level. The reference is the same graph
 * with tracing on, where every frame goes through interface-output's queue.
 * Frames with a packet to drop take the queue; frames with an interface
 * above the ones interface-output gathers in one sweep (9) are handed over
 * as it hands them; packets an input hands to interface-output itself,
 * queued before a rewrite runs, stay ahead of the rewritten ones.
 */
#include <stdlib.h>
#include <string.h>

#include <vpk/graph.h>
#include <vpk/nodes.h>
#include "lib/check.h"

#define N_PKTS 6000
#define PKT_LEN 64
#define MAX_CAP (2 * N_PKTS)

enum { IN_IP4_RW, IN_IP6_RW, IN_OUT, IN_N_NEXT };

static struct vpk_pool *pool;
static uint32_t next_pkt, burst_no;

static struct cap {
	uint8_t data[PKT_LEN];
	uint32_t tx_if, seq;
} *cap;
static size_t n_cap;

static const struct vpk_adj adjs[5] = {
	[0] = { .valid = 0 },
	[1] = { .dst_mac = { 2, 0, 0, 0, 1, 1 }, .src_mac = { 2, 0, 0, 0, 2, 1 }, .tx_if = 3, .valid = 1 },
	[2] = { .dst_mac = { 2, 0, 0, 0, 1, 2 }, .src_mac = { 2, 0, 0, 0, 2, 2 }, .tx_if = 5, .valid = 1 },
	[3] = { .valid = 0 },           /* no neighbor yet: dropped */
	[4] = { .dst_mac = { 2, 0, 0, 0, 1, 4 }, .src_mac = { 2, 0, 0, 0, 2, 4 }, .tx_if = 9, .valid = 1 },
};
static const struct vpk_adj_table adj_table = { 5, adjs };

/* Burst @k: its size (1..VPK_FRAME_SIZE), whether it has packets to drop, and
 * whether it first hands a few packets straight to interface-output. */
static uint32_t
burst_size(uint32_t k)
{
	static const uint32_t sizes[] = { 1, 7, 64, 128, 256, 200, 33, 256, 2, 99 };

	return sizes[k % (sizeof(sizes) / sizeof(sizes[0]))];
}

/* A packet: IPv4 or IPv6 by burst, its sequence number in the last 4 bytes. */
static void
fill(struct vpk_buf *x, uint32_t seq, bool ip6, uint32_t adj)
{
	uint8_t *d = vpk_buf_data(x);

	memset(d, 0, PKT_LEN);
	x->len = x->total_len = PKT_LEN;
	x->l2_off = x->data_off;
	x->l3_off = (uint16_t)(x->data_off + 14);
	x->adj = adj;
	if (ip6) {
		d[12] = 0x86, d[13] = 0xdd;
		d[14] = 0x60, d[19] = 10, d[20] = 17, d[21] = 64;
	} else {
		d[12] = 0x08, d[14] = 0x45, d[17] = 50, d[22] = 64, d[23] = 17;
		d[24] = (uint8_t)(seq >> 8), d[25] = (uint8_t)seq;      /* any checksum: updated, not checked */
	}
	memcpy(d + PKT_LEN - 4, &seq, 4);
}

static uint32_t
input_fn(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	uint32_t idx[VPK_FRAME_SIZE], want, got, k = burst_no++, direct = k % 3 == 2 ? 3 : 0;
	bool ip6 = k % 4 == 1, drops = k % 5 == 3, far = k % 7 == 4;  /* far: an interface >= 8 too */
	void *base = vpk_node_pool_base(rt);

	(void)b;
	(void)bi;
	(void)n;
	if (next_pkt >= N_PKTS)
		return 0;
	want = burst_size(k);
	if (want > N_PKTS - next_pkt)
		want = N_PKTS - next_pkt;
	got = vpk_pool_alloc_burst(pool, idx, want);
	for (uint32_t i = 0; i < got; i++) {
		struct vpk_buf *x = vpk_buf_from_idx(base, idx[i]);
		uint32_t adj = 1 + (next_pkt + i) % 2;

		if (far && i % 5 == 1)
			adj = 4;
		if (drops && i % 17 == 5)
			adj = (i / 17) % 2 ? 3 : 9;     /* no neighbor; no adjacency */
		fill(x, next_pkt + i, ip6, adj);
		if (i < direct)
			x->tx_if = 4;          /* handed to interface-output as they are */
		vpk_node_trace_mark(rt, x);
	}
	next_pkt += got;
	if (direct > got)
		direct = got;
	/* The rewrite's frame is queued first, then interface-output's: when the
	 * rewrite runs, interface-output has a frame waiting. */
	vpk_node_enqueue_one(rt, idx + direct, ip6 ? IN_IP6_RW : IN_IP4_RW, got - direct);
	vpk_node_enqueue_one(rt, idx, IN_OUT, direct);
	return got;
}

static const struct vpk_node_impl input_impl = { { "scalar", VPK_ISA_SCALAR, 64 }, input_fn };
static const struct vpk_impl *const input_impls[] = { &input_impl.base, NULL };
static const char *const input_next[IN_N_NEXT] = { "ip4-rewrite", "ip6-rewrite", "interface-output" };
static const struct vpk_node_reg input_reg = {
	.name = "rw-test-input", .type = VPK_NODE_INPUT, .n_next = IN_N_NEXT, .next_names = input_next,
	.impls = input_impls,
};

static void
capture(void *ctx, uint32_t tx_if, const uint32_t *bi, uint32_t n)
{
	void *base = vpk_pool_base(pool);

	(void)ctx;
	for (uint32_t i = 0; i < n && n_cap < MAX_CAP; i++) {
		struct vpk_buf *b = vpk_buf_from_idx(base, bi[i]);

		memcpy(cap[n_cap].data, vpk_buf_data(b), PKT_LEN);
		memcpy(&cap[n_cap].seq, vpk_buf_data(b) + b->len - 4, 4);
		cap[n_cap++].tx_if = tx_if;
	}
	vpk_pool_free_bulk(pool, bi, n);
}

struct run {
	struct cap *cap;
	size_t n_cap;
	struct vpk_node_stats out, rw4, rw6;
	uint64_t out_err[2], rw_err[2][2], drop;
};

static void
node_stats(struct vpk_graph *g, const char *name, struct vpk_node_stats *st, uint64_t *err, uint16_t n_err)
{
	for (size_t i = 0; i < vpk_graph_n_nodes(g); i++) {
		if (vpk_graph_get_node_stats(g, i, st) != 0 || strcmp(st->name, name) != 0)
			continue;
		for (uint16_t k = 0; k < n_err; k++) {
			const char *r;

			CHECK(vpk_graph_node_error(g, i, k, &r, &err[k]) == 0, "%s: error %u", name, k);
		}
		return;
	}
	CHECK(0, "no node %s", name);
}

static void
run(enum vpk_isa isa, uint32_t trace, struct run *r)
{
	static const char *const nodes[] = { "rw-test-input", "ip4-rewrite", "ip6-rewrite", "interface-output",
					     "error-drop", NULL };
	struct vpk_if_output out = { capture, NULL };
	struct vpk_node_conf nc[] = {
		{ .node = "ip4-rewrite", .conf = (void *)&adj_table },
		{ .node = "ip6-rewrite", .conf = (void *)&adj_table },
		{ .node = "interface-output", .conf = &out },
	};
	struct vpk_graph_conf gc = { .pool = pool, .nodes = nodes, .node_conf = nc, .n_node_conf = 3, .isa = isa,
				     .trace = trace };
	struct vpk_node_stats dst;
	struct vpk_graph *g;

	memset(r, 0, sizeof(*r));
	CHECK(vpk_graph_create(&gc, &g) == 0, "graph: %s", vpk_last_error());
	next_pkt = burst_no = 0;
	n_cap = 0;
	while (next_pkt < N_PKTS)
		vpk_graph_run_once(g);
	vpk_graph_run_once(g);
	r->cap = malloc(n_cap * sizeof(*cap) + 1);
	memcpy(r->cap, cap, n_cap * sizeof(*cap));
	r->n_cap = n_cap;
	node_stats(g, "interface-output", &r->out, r->out_err, 2);
	node_stats(g, "ip4-rewrite", &r->rw4, r->rw_err[0], 2);
	node_stats(g, "ip6-rewrite", &r->rw6, r->rw_err[1], 2);
	node_stats(g, "error-drop", &dst, &r->drop, 1);
	CHECK(vpk_pool_in_use(pool) == 0, "%u buffers not returned", vpk_pool_in_use(pool));
	vpk_graph_destroy(g);
}

static void
check_level(enum vpk_isa isa)
{
	struct run ref, got;
	size_t dropped;

	run(isa, N_PKTS * 2, &ref);     /* traced: every frame through interface-output's queue */
	run(isa, 0, &got);
	CHECK(got.n_cap == ref.n_cap && memcmp(got.cap, ref.cap, got.n_cap * sizeof(*cap)) == 0,
	      "%zu packets out, traced graph %zu, or not the same bytes, interfaces and order", got.n_cap,
	      ref.n_cap);
	CHECK(got.out.calls == ref.out.calls && got.out.vectors == ref.out.vectors,
	      "interface-output calls %llu vectors %llu, traced graph %llu %llu",
	      (unsigned long long)got.out.calls, (unsigned long long)got.out.vectors,
	      (unsigned long long)ref.out.calls, (unsigned long long)ref.out.vectors);
	CHECK(memcmp(got.out_err, ref.out_err, sizeof(got.out_err)) == 0 &&
	      memcmp(got.rw_err, ref.rw_err, sizeof(got.rw_err)) == 0 && got.drop == ref.drop,
	      "counters differ from the traced graph's");
	dropped = (size_t)(got.rw_err[0][0] + got.rw_err[0][1] + got.rw_err[1][0] + got.rw_err[1][1]);
	CHECK(dropped > 0 && got.drop == dropped, "%zu rewrite drops, error-drop %llu", dropped,
	      (unsigned long long)got.drop);
	CHECK(got.n_cap + dropped == N_PKTS && got.out_err[0] == got.n_cap, "%zu out + %zu dropped of %u",
	      got.n_cap, dropped, N_PKTS);
	/* Packets handed to interface-output directly (tx_if 4) were queued before each rewrite ran:
	 * they leave ahead of the packets of their burst, which come after the burst before. */
	for (size_t i = 1; i < got.n_cap; i++)
		if (got.cap[i].tx_if == 4 && got.cap[i - 1].tx_if != 4)
			CHECK(got.cap[i - 1].seq < got.cap[i].seq, "packet %u left behind a later one",
			      got.cap[i].seq);
	for (size_t i = 0; i < got.n_cap; i++) {
		uint32_t t = got.cap[i].tx_if;

		CHECK(t == 4 || t == 3 || t == 5 || t == 9, "packet %u to interface %u", got.cap[i].seq, t);
		if (t != 4)
			CHECK(memcmp(got.cap[i].data, adjs[t == 3 ? 1 : t == 5 ? 2 : 4].dst_mac, 6) == 0,
			      "packet %u not rewritten", got.cap[i].seq);
	}
	free(ref.cap);
	free(got.cap);
}

int
main(void)
{
	struct vpk_pool_conf pc = { .n_bufs = 2048, .cache_size = 256 };

	check_init("graph_rewrite_output");
	CHECK(vpk_node_register(&input_reg) == 0, "register: %s", vpk_last_error());
	CHECK(vpk_pool_create(&pc, &pool) == 0, "pool");
	cap = malloc(MAX_CAP * sizeof(*cap));
	for (enum vpk_isa isa = VPK_ISA_SCALAR; isa < VPK_ISA_COUNT; isa++) {
		if (!vpk_isa_usable(isa) || isa == VPK_ISA_AVX512ICL) {
			check_variant_skipped("rewrite-output", vpk_isa_name(isa),
					      vpk_isa_usable(isa) ? "no node has this level" : "not usable here");
			continue;
		}
		check_set_context("rewrite-output", vpk_isa_name(isa));
		check_level(isa);
		check_variant_ran("rewrite-output", vpk_isa_name(isa));
	}
	check_set_context("", "");
	free(cap);
	vpk_pool_destroy(pool);
	return check_finish();
}
