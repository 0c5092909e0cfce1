/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * interface-output: frames whose packets go to many interfaces, interleaved
 * (numbers below and above the ones gathered directly, more interfaces than
 * one sweep gathers): every packet is handed over exactly once, to its own
 * interface, one call per interface and frame, each interface's packets in
 * arrival order. At every variant level.
 */
#include <stdlib.h>
#include <string.h>

#include <vpk/graph.h>
#include <vpk/nodes.h>
#include "lib/check.h"

#define N_PKTS 4000
#define N_IFS 40

static struct vpk_pool *pool;
static uint32_t last_seq[N_IFS], got, calls_in_frame[N_IFS];
static bool bad_if, bad_order, bad_calls;

/* Each buffer carries its sequence number in its first 4 data bytes. */
static void
capture(void *ctx, uint32_t tx_if, const uint32_t *bi, uint32_t n)
{
	void *base = vpk_pool_base(pool);

	(void)ctx;
	if (tx_if >= N_IFS || ++calls_in_frame[tx_if] > 1)
		bad_calls = true;
	for (uint32_t i = 0; i < n; i++) {
		struct vpk_buf *b = vpk_buf_from_idx(base, bi[i]);
		uint32_t seq;

		memcpy(&seq, vpk_buf_data(b), 4);
		if (b->tx_if != tx_if)
			bad_if = true;
		if (tx_if < N_IFS) {
			if (seq + 1 <= last_seq[tx_if])
				bad_order = true;
			last_seq[tx_if] = seq + 1;
		}
		got++;
	}
	vpk_pool_free_bulk(pool, bi, n);
}

static void
run_level(enum vpk_isa isa, const uint32_t *ifs)
{
	static const char *const nodes[] = { "interface-output", "error-drop", NULL };
	struct vpk_if_output out = { capture, NULL };
	struct vpk_node_conf nc = { .node = "interface-output", .conf = &out };
	struct vpk_graph_conf gc = { .pool = pool, .nodes = nodes, .node_conf = &nc, .n_node_conf = 1, .isa = isa };
	struct vpk_graph *g;
	uint32_t idx[VPK_FRAME_SIZE];

	CHECK(vpk_graph_create(&gc, &g) == 0, "graph: %s", vpk_last_error());
	memset(last_seq, 0, sizeof(last_seq));
	got = 0;
	bad_if = bad_order = bad_calls = false;
	for (uint32_t at = 0; at < N_PKTS; at += VPK_FRAME_SIZE) {
		uint32_t n = N_PKTS - at < VPK_FRAME_SIZE ? N_PKTS - at : VPK_FRAME_SIZE;

		CHECK(vpk_pool_alloc_burst(pool, idx, n) == n, "buffers");
		for (uint32_t i = 0; i < n; i++) {
			struct vpk_buf *b = vpk_buf_from_idx(vpk_pool_base(pool), idx[i]);
			uint32_t seq = at + i;

			b->len = b->total_len = 60;
			memcpy(vpk_buf_data(b), &seq, 4);
			b->tx_if = ifs[seq];
		}
		memset(calls_in_frame, 0, sizeof(calls_in_frame));
		CHECK(vpk_graph_inject(g, "interface-output", idx, n) == 0, "inject");
		vpk_graph_run_once(g);
	}
	CHECK(got == N_PKTS, "%s: %u of %u packets handed over", vpk_isa_name(isa), got, N_PKTS);
	CHECK(!bad_if, "%s: a packet handed to another interface", vpk_isa_name(isa));
	CHECK(!bad_order, "%s: an interface's packets out of arrival order", vpk_isa_name(isa));
	CHECK(!bad_calls, "%s: more than one call for an interface in a frame", vpk_isa_name(isa));
	CHECK(vpk_pool_in_use(pool) == 0, "%u buffers leaked", vpk_pool_in_use(pool));
	vpk_graph_destroy(g);
}

int
main(void)
{
	struct vpk_pool_conf pc = { .n_bufs = 1024 };
	static uint32_t ifs[N_PKTS];

	check_init("graph_if_output");
	CHECK(vpk_pool_create(&pc, &pool) == 0, "pool");
	srand((unsigned)check_seed());
	/* Runs of one interface, two interleaved, then any of N_IFS. */
	for (uint32_t i = 0; i < N_PKTS; i++)
		ifs[i] = i < 600 ? i / 300 : i < 1600 ? (uint32_t)rand() % 2 : (uint32_t)rand() % N_IFS;
	for (enum vpk_isa isa = VPK_ISA_SCALAR; isa < VPK_ISA_COUNT; isa++) {
		if (!vpk_isa_usable(isa) || isa == VPK_ISA_AVX512ICL)      /* no node has that level */
			continue;
		check_set_context("graph", vpk_isa_name(isa));
		run_level(isa, ifs);
	}
	check_set_context("", "");
	vpk_pool_destroy(pool);
	return check_finish();
}
