/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ECMP adjacencies in ip4-rewrite (vpk_adj::n_paths): frames through
 * ethernet-input, ip4-input, ip4-lookup and ip4-rewrite to a route whose
 * adjacency is a group of three paths. Checked at every variant level:
 * each UDP / TCP flow always leaves by one path, the flows use every path,
 * the fragments of one source / destination pair take one path whatever
 * their ports, a group whose paths lie beyond the table is dropped as "no
 * adjacency", and every level picks exactly the paths scalar picks.
 */
#include <stdlib.h>
#include <string.h>

#include <vpk/fib.h>
#include <vpk/graph.h>
#include <vpk/nodes.h>
#include "lib/check.h"

#define N_FLOWS 64
#define N_PKTS (3 * N_FLOWS + 16 + 8)

static struct vpk_pool *pool;
/* Output interface of each forwarded frame by its flow: [0][sport - 1000] (to 10.0.0.1), [1][k] the
 * fragments (to 10.0.0.2); 0: not seen, UINT32_MAX: seen on two interfaces. */
static uint32_t out_if[2][N_FLOWS], n_out;

static void
capture_tx(void *ctx, uint32_t tx_if, const uint32_t *bi, uint32_t n)
{
	(void)ctx;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *d = vpk_buf_data(vpk_buf_from_idx(vpk_pool_base(pool), bi[i]));
		unsigned sport = (unsigned)(d[34] << 8 | d[35]);
		uint32_t *o = d[33] == 1 ? &out_if[0][(sport - 1000) % N_FLOWS] : &out_if[1][(sport - 7000) / 97 % 16];

		*o = *o == 0 || *o == tx_if ? tx_if : UINT32_MAX;
		n_out++;
	}
	vpk_pool_free_bulk(pool, bi, n);
}

static const struct vpk_if_output out_conf = { capture_tx, NULL };

/* 1: a group of 3 paths (2..4, out of interfaces 10, 11, 12); 5: a group of 3 past the table's end. */
static const struct vpk_adj adjs[6] = {
	[1] = { .n_paths = 3 },
	[2] = { .dst_mac = { 2, 0, 0, 0, 0, 2 }, .src_mac = { 2, 0, 0, 0, 1, 1 }, .tx_if = 10, .valid = 1 },
	[3] = { .dst_mac = { 2, 0, 0, 0, 0, 3 }, .src_mac = { 2, 0, 0, 0, 1, 1 }, .tx_if = 11, .valid = 1 },
	[4] = { .dst_mac = { 2, 0, 0, 0, 0, 4 }, .src_mac = { 2, 0, 0, 0, 1, 1 }, .tx_if = 12, .valid = 1 },
	[5] = { .n_paths = 3 },
};
static const struct vpk_adj_table adj_table = { 6, adjs };

/* Ethernet / IPv4 (to @dst, protocol @proto, fragment field @frag) / 8 bytes of ports and more. */
static void
frame(uint8_t *d, uint32_t dst, uint8_t proto, uint16_t sport, uint16_t frag)
{
	uint32_t s = 0;

	memset(d, 0, 64);
	memcpy(d, "\x02\x00\x00\x00\x01\x01\x02\x00\x00\x00\x00\x99\x08\x00", 14);
	d[14] = 0x45;
	d[17] = 40;
	d[20] = (uint8_t)(frag >> 8);
	d[21] = (uint8_t)frag;
	d[22] = 64;
	d[23] = proto;
	memcpy(d + 26, "\xc0\xa8\x01\x05", 4);
	d[30] = (uint8_t)(dst >> 24);
	d[31] = (uint8_t)(dst >> 16);
	d[32] = (uint8_t)(dst >> 8);
	d[33] = (uint8_t)dst;
	d[34] = (uint8_t)(sport >> 8);
	d[35] = (uint8_t)sport;
	d[36] = 0x13;
	d[37] = 0x88;
	for (int k = 14; k < 34; k += 2)
		s += (uint32_t)(d[k] << 8 | d[k + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	d[24] = (uint8_t)(~s >> 8);
	d[25] = (uint8_t)~s;
}

static uint64_t
errors_of(struct vpk_graph *g, const char *node, const char *reason)
{
	struct vpk_node_stats st;
	const char *r;
	uint64_t c;

	for (size_t i = 0; i < vpk_graph_n_nodes(g); i++) {
		if (vpk_graph_get_node_stats(g, i, &st) != 0 || strcmp(st.name, node) != 0)
			continue;
		for (uint16_t k = 0; k < vpk_graph_node_n_errors(g, i); k++)
			if (vpk_graph_node_error(g, i, k, &r, &c) == 0 && strstr(r, reason) != NULL)
				return c;
	}
	return UINT64_MAX;
}

/* Every frame through a graph at @isa; out_if gets the output interface of each forwarded one, in order. */
static void
run(struct vpk_fib *fib, enum vpk_isa isa)
{
	static const char *const nodes[] = { "ethernet-input", "ip4-input", "ip6-input", "ip4-lookup", "ip6-lookup",
					     "ip4-rewrite", "ip6-rewrite", "interface-output", "error-drop", NULL };
	struct vpk_node_conf nc[] = {
		{ .node = "ip4-lookup", .conf = fib },
		{ .node = "ip4-rewrite", .conf = (void *)&adj_table },
		{ .node = "interface-output", .conf = (void *)&out_conf },
	};
	struct vpk_graph_conf gc = { .pool = pool, .nodes = nodes, .node_conf = nc, .n_node_conf = 3, .isa = isa };
	uint32_t idx[N_PKTS], n = 0;
	struct vpk_graph *g;

	CHECK(vpk_graph_create(&gc, &g) == 0, "graph: %s", vpk_last_error());
	CHECK(vpk_pool_alloc_burst(pool, idx, N_PKTS) == N_PKTS, "alloc");
	for (int rep = 0; rep < 3; rep++)               /* each flow three times, interleaved */
		for (uint16_t fl = 0; fl < N_FLOWS; fl++)
			frame(vpk_buf_data(vpk_buf_from_idx(vpk_pool_base(pool), idx[n++])), 0x0a000001,
			      fl % 2 ? 17 : 6, (uint16_t)(1000 + fl), 0);
	for (uint16_t k = 0; k < 16; k++)              /* fragments of one packet pair: first (MF) and later */
		frame(vpk_buf_data(vpk_buf_from_idx(vpk_pool_base(pool), idx[n++])), 0x0a000002, 17,
		      (uint16_t)(7000 + 97 * k), k % 2 ? 0x2000 : (uint16_t)(0x2000 | k));
	for (uint16_t k = 0; k < 8; k++)               /* the broken group */
		frame(vpk_buf_data(vpk_buf_from_idx(vpk_pool_base(pool), idx[n++])), 0x0b000001, 17,
		      (uint16_t)(2000 + k), 0);
	for (uint32_t i = 0; i < n; i++) {
		struct vpk_buf *b = vpk_buf_from_idx(vpk_pool_base(pool), idx[i]);

		b->len = b->total_len = 14 + 40;
	}
	n_out = 0;
	memset(out_if, 0, sizeof(out_if));
	for (uint32_t i = 0; i < n; i += VPK_FRAME_SIZE) {
		vpk_graph_inject(g, "ethernet-input", idx + i, n - i < VPK_FRAME_SIZE ? n - i : VPK_FRAME_SIZE);
		while (vpk_graph_busy(g))
			vpk_graph_run_once(g);
	}
	CHECK(errors_of(g, "ip4-rewrite", "no adjacency") == 8, "broken group: %llu dropped, want 8",
	      (unsigned long long)errors_of(g, "ip4-rewrite", "no adjacency"));
	CHECK(vpk_pool_in_use(pool) == 0, "%u buffers leaked", vpk_pool_in_use(pool));
	vpk_graph_destroy(g);
}

int
main(void)
{
	struct vpk_pool_conf pc = { .n_bufs = 1024, .cache_size = 64 };
	struct vpk_fib_conf fc = { .nh_size = 4, .num_tbl8 = 64, .max_routes = 64 };
	uint32_t ref[2][N_FLOWS];
	struct vpk_fib *fib;

	check_init("graph.rewrite_ecmp");
	CHECK(vpk_pool_create(&pc, &pool) == 0, "pool");
	CHECK(vpk_fib_create(&fc, &fib) == 0, "fib");
	CHECK(vpk_fib_add(fib, 0x0a000000, 8, 1) == 0 && vpk_fib_add(fib, 0x0b000000, 8, 5) == 0, "routes");
	for (enum vpk_isa isa = VPK_ISA_SCALAR; isa < VPK_ISA_COUNT; isa++) {
		bool used[3] = { false };

		if (!vpk_isa_usable(isa) || isa == VPK_ISA_AVX512ICL) {
			check_variant_skipped("rewrite", vpk_isa_name(isa),
					      vpk_isa_usable(isa) ? "no node has this level" : "not usable here");
			continue;
		}
		check_set_context("rewrite", vpk_isa_name(isa));
		run(fib, isa);
		CHECK(n_out == 3 * N_FLOWS + 16, "%u frames out, want %u", n_out, 3 * N_FLOWS + 16);
		for (uint32_t fl = 0; fl < N_FLOWS; fl++) {
			CHECK(out_if[0][fl] >= 10 && out_if[0][fl] <= 12, "flow %u: interface %u (%u: two of them)",
			      fl, out_if[0][fl], UINT32_MAX);
			used[(out_if[0][fl] - 10) % 3] = true;
		}
		CHECK(used[0] && used[1] && used[2], "the flows did not use every path");
		for (uint32_t k = 1; k < 16; k++)
			CHECK(out_if[1][k] == out_if[1][0] && out_if[1][0] >= 10 && out_if[1][0] <= 12,
			      "fragment %u took interface %u, fragment 0 %u", k, out_if[1][k], out_if[1][0]);
		if (isa == VPK_ISA_SCALAR)
			memcpy(ref, out_if, sizeof(out_if));
		else
			CHECK(memcmp(ref, out_if, sizeof(out_if)) == 0, "%s picks other paths than scalar",
			      vpk_isa_name(isa));
		check_variant_ran("rewrite", vpk_isa_name(isa));
	}
	check_set_context("", "");
	vpk_fib_destroy(fib);
	vpk_pool_destroy(pool);
	return check_finish();
}
