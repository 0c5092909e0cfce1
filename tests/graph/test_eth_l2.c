/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ethernet-input with a struct vpk_eth_input_conf (router L2 input): which
 * frames are taken, on which (sub-)interface, and which are dropped with
 * which counter. Frames run through ethernet-input, ip4-input, ip4-lookup
 * (every destination routed), ip4-rewrite and interface-output, whose
 * callback records each packet's rx_if; the expected results are written
 * out per frame. Under PER_ISA the graph's variants follow each cap, so
 * every variant of the node meets the same frames and expectations.
 */
#include <stdlib.h>
#include <string.h>

#include <vpk/fib.h>
#include <vpk/graph.h>
#include <vpk/nodes.h>
#include "lib/check.h"

#define MAXF 64

static struct vpk_pool *pool;
static uint32_t got_rx_if[MAXF], n_got;
static uint32_t got_id[MAXF];

static void
capture(void *ctx, uint32_t tx_if, const uint32_t *bi, uint32_t n)
{
	void *base = vpk_pool_base(pool);

	(void)ctx;
	(void)tx_if;
	for (uint32_t i = 0; i < n && n_got < MAXF; i++) {
		struct vpk_buf *b = vpk_buf_from_idx(base, bi[i]);
		const uint8_t *ip = vpk_buf_area(b) + b->l3_off;

		got_rx_if[n_got] = b->rx_if;
		got_id[n_got++] = ip[19];       /* last byte of the destination: the frame's number */
	}
	vpk_pool_free_bulk(pool, bi, n);
}

static const uint8_t port_mac[6] = { 2, 0, 0, 0, 0, 1 };

struct frame {
	uint8_t dst[6];
	uint16_t tags[2][2];            /* TPID, VID pairs (TPID 0: none) */
	uint32_t rx_if;                 /* port the frame arrives on */
	int want_if;                    /* rx_if after ethernet-input, -1: dropped */
	uint16_t want_err;              /* ethernet-input error code when dropped */
};

enum { E_SHORT, E_TYPE, E_TAGS, E_NOT_OURS, E_NO_SUB };

#define BC { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }
#define OURS { 2, 0, 0, 0, 0, 1 }
static const struct frame frames[] = {
	{ OURS, { { 0 } }, 0, 0, 0 },
	{ BC, { { 0 } }, 0, 0, 0 },
	{ { 1, 0, 0x5e, 0, 0, 1 }, { { 0 } }, 0, 0, 0 },                 /* subscribed group */
	{ { 1, 0, 0x5e, 1, 2, 3 }, { { 0 } }, 0, -1, E_NOT_OURS },        /* another group */
	{ { 2, 0, 0, 0, 0, 2 }, { { 0 } }, 0, -1, E_NOT_OURS },           /* another host */
	{ { 3, 0, 0, 0, 0, 1 }, { { 0 } }, 0, -1, E_NOT_OURS },           /* first byte differs */
	{ { 2, 0, 0, 0, 0, 0x81 }, { { 0 } }, 0, -1, E_NOT_OURS },        /* last byte differs */
	{ { 2, 0, 0, 0, 0, 2 }, { { 0 } }, 1, 1, 0 },                     /* port 1 is promisc */
	{ OURS, { { 0 } }, 5, 5, 0 },                                     /* no entry: taken as is */
	{ OURS, { { 0x8100, 100 } }, 0, 3, 0 },                           /* eth0.100 */
	{ OURS, { { 0x8100, 101 } }, 0, -1, E_NO_SUB },
	{ OURS, { { 0x8100, 0 } }, 0, 0, 0 },                             /* priority tag */
	{ OURS, { { 0x88a8, 200 }, { 0x8100, 300 } }, 0, 4, 0 },          /* eth0.200.300 */
	{ OURS, { { 0x8100, 200 }, { 0x8100, 300 } }, 0, -1, E_NO_SUB },  /* wrong outer TPID */
	{ OURS, { { 0x88a8, 200 }, { 0x8100, 301 } }, 0, -1, E_NO_SUB },
	{ OURS, { { 0x88a8, 200 } }, 0, -1, E_NO_SUB },                   /* outer tag alone */
	{ { 2, 0, 0, 0, 0, 9 }, { { 0x8100, 100 } }, 0, -1, E_NOT_OURS }, /* tagged, not ours */
	{ { 2, 0, 0, 0, 0, 9 }, { { 0x8100, 100 } }, 1, -1, E_NO_SUB },   /* promisc port: no subs */
};
#define N_FRAMES (sizeof(frames) / sizeof(frames[0]))

static uint32_t
build(const struct frame *f, unsigned k, uint8_t *d)
{
	uint32_t off = 12, csum = 0;
	uint8_t *ip;

	memcpy(d, f->dst, 6);
	memcpy(d + 6, "\x02\x00\x00\x00\x00\x10", 6);
	for (int t = 0; t < 2 && f->tags[t][0] != 0; t++, off += 4) {
		d[off] = (uint8_t)(f->tags[t][0] >> 8);
		d[off + 1] = (uint8_t)f->tags[t][0];
		d[off + 2] = (uint8_t)(f->tags[t][1] >> 8);
		d[off + 3] = (uint8_t)f->tags[t][1];
	}
	d[off] = 0x08;
	d[off + 1] = 0x00;
	ip = d + off + 2;
	memset(ip, 0, 28);
	ip[0] = 0x45;
	ip[3] = 28;
	ip[8] = 64;
	ip[9] = 17;
	ip[12] = 192;
	ip[15] = 1;
	ip[16] = 10;
	ip[19] = (uint8_t)k;
	for (int w = 0; w < 10; w++)
		csum += (uint32_t)(ip[2 * w] << 8 | ip[2 * w + 1]);
	csum = (csum & 0xffff) + (csum >> 16);
	csum = (csum & 0xffff) + (csum >> 16);
	ip[10] = (uint8_t)(~csum >> 8);
	ip[11] = (uint8_t)~csum;
	return off + 2 + 28;
}

int
main(void)
{
	struct vpk_pool_conf pc = { .n_bufs = 256 };
	struct vpk_fib_conf fc = { .nh_size = 4, .num_tbl8 = 8, .max_routes = 8 };
	static const struct vpk_adj adj[2] = { [1] = { .dst_mac = { 2, 0xaa }, .tx_if = 1, .valid = 1 } };
	struct vpk_adj_table at = { 2, adj };
	struct vpk_if_output out = { capture, NULL };
	struct vpk_eth_if ifs[5] = { 0 };
	struct vpk_eth_sub subs[2] = {
		{ .tpid = 0x8100, .outer_vid = 100, .inner_vid = 0, .rx_if = 3 },
		{ .tpid = 0x88a8, .outer_vid = 200, .inner_vid = 300, .rx_if = 4 },
	};
	struct vpk_eth_input_conf ec = { .n_if = 5, .ifs = ifs, .n_sub = 2, .subs = subs };
	struct vpk_fib *fib;
	struct vpk_graph *g;
	const char *nodes[] = { "ethernet-input", "ip4-input", "ip6-input", "ip4-lookup", "ip6-lookup",
				"ip4-rewrite", "ip6-rewrite", "interface-output", "error-drop", NULL };
	struct vpk_node_conf nc[] = {
		{ .node = "ethernet-input", .conf = &ec }, { .node = "ip4-lookup" },
		{ .node = "ip4-rewrite", .conf = &at }, { .node = "interface-output", .conf = &out },
	};
	struct vpk_graph_conf gc = { .nodes = nodes, .node_conf = nc, .n_node_conf = 4 };
	uint32_t idx[N_FRAMES];
	uint64_t want_err[5] = { 0 }, c;
	int ei;

	check_init("graph_eth_l2");
	CHECK(vpk_pool_create(&pc, &pool) == 0, "pool");
	CHECK(vpk_fib_create(&fc, &fib) == 0 && vpk_fib_add(fib, 0, 0, 1) == 0, "fib");
	nc[1].conf = fib;
	memcpy(ifs[0].mac, port_mac, 6);
	ifs[0].n_mcast = 1;
	memcpy(ifs[0].mcast[0], "\x01\x00\x5e\x00\x00\x01", 6);
	ifs[0].first_sub = 0;
	ifs[0].n_sub = 2;
	ifs[1].promisc = 1;
	ec.n_if = 2;                    /* rx_if 5 has no entry */
	gc.pool = pool;
	CHECK(vpk_graph_create(&gc, &g) == 0, "graph: %s", vpk_last_error());
	CHECK(vpk_pool_alloc_burst(pool, idx, N_FRAMES) == N_FRAMES, "buffers");
	for (unsigned k = 0; k < N_FRAMES; k++) {
		struct vpk_buf *b = vpk_buf_from_idx(vpk_pool_base(pool), idx[k]);

		b->len = b->total_len = (uint16_t)build(&frames[k], k, vpk_buf_data(b));
		b->rx_if = frames[k].rx_if;
		if (frames[k].want_if < 0)
			want_err[frames[k].want_err]++;
	}
	CHECK(vpk_graph_inject(g, "ethernet-input", idx, N_FRAMES) == 0, "inject");
	vpk_graph_run_once(g);
	ei = vpk_graph_node_index(g, "ethernet-input");
	for (uint16_t e = 0; e < 5; e++) {
		const char *why = "";

		c = 0;
		CHECK(vpk_graph_node_error(g, (size_t)ei, e, &why, &c) == 0 && c == want_err[e],
		      "error %u (%s): %llu, want %llu", e, why, (unsigned long long)c, (unsigned long long)want_err[e]);
	}
	for (unsigned k = 0, j = 0; k < N_FRAMES; k++) {
		if (frames[k].want_if < 0)
			continue;
		CHECK(j < n_got && got_id[j] == k && got_rx_if[j] == (uint32_t)frames[k].want_if,
		      "frame %u: got #%u on rx_if %u, want rx_if %d", k, j < n_got ? got_id[j] : 999,
		      j < n_got ? got_rx_if[j] : 999, frames[k].want_if);
		j++;
	}
	vpk_graph_destroy(g);
	vpk_fib_destroy(fib);
	CHECK(vpk_pool_in_use(pool) == 0, "%u buffers leaked", vpk_pool_in_use(pool));
	vpk_pool_destroy(pool);
	return check_finish();
}
