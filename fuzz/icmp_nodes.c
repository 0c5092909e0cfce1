/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz the ICMP nodes (ip4/ip6-icmp-error, ip4/ip6-local) through a whole
 * graph: the input is an IPv4 or IPv6 packet (first byte: the kind) whose
 * header is made valid enough to reach them (to one of the router's
 * addresses, with TTL / hop limit 1, or to a destination without a route),
 * then the fuzz bytes as header fields and payload. Every usable variant
 * must produce the same output bytes and counters, and every buffer must be
 * back in the pool. The rate limit is set so high that it never decides.
 */
#include <stdlib.h>
#include <string.h>

#include <vpk/fib.h>
#include <vpk/fib6.h>
#include <vpk/graph.h>
#include <vpk/icmp.h>
#include <vpk/nodes.h>

#include "graph_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NV 5

static struct vpk_pool *pool;
static struct vpk_fib *fib4;
static struct vpk_fib6 *fib6;
static struct vpk_graph *g[NV];
static unsigned n_g;
static struct fz_out outs[NV];
static struct vpk_if_output out[NV];

static struct vpk_adj adj[2] = { { { 0 } }, { { 2, 0, 0, 0, 0, 1 }, { 2, 0, 0, 0, 0, 2 }, 0, 1 } };
static const struct vpk_adj_table adjt = { 2, adj };
static const struct vpk_icmp_addr addr[2] = {
	{ 0, 0, 24, { 192, 0, 2, 1 } },
	{ 0, 1, 64, { 0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 } },
};
static const struct vpk_icmp_conf icc = { addr, 2, 100000000, 1000000 };

static void
setup(void)
{
	static const char *const nodes[] = {
		"ethernet-input", "ip4-input", "ip6-input", "ip4-lookup", "ip6-lookup", "ip4-rewrite",
		"ip6-rewrite", "ip4-icmp-error", "ip6-icmp-error", "ip4-local", "ip6-local", "interface-output",
		"error-drop", NULL
	};
	static const enum vpk_isa lv[NV] = { VPK_ISA_SCALAR, VPK_ISA_SSE42, VPK_ISA_AVX2, VPK_ISA_AVX512,
					     VPK_ISA_AVX512ICL };
	struct vpk_pool_conf pc = { .name = "fuzz", .n_bufs = 64 };
	struct vpk_fib_conf fc = { .nh_size = 4, .num_tbl8 = 64, .max_routes = 16 };
	struct vpk_fib6_conf f6 = { .nh_size = 4, .num_tbl8 = 64, .max_routes = 16 };
	const uint8_t p6[16] = { 0x20, 0x01, 0x0d, 0xb8 };

	if (vpk_pool_create(&pc, &pool) != 0 || vpk_fib_create(&fc, &fib4) != 0 || vpk_fib6_create(&f6, &fib6) != 0)
		abort();
	if (vpk_fib_add(fib4, 0x0a000000u, 8, 1) != 0 || vpk_fib_add(fib4, 0xc0000201u, 32, VPK_NH_LOCAL) != 0 ||
	    vpk_fib6_add(fib6, p6, 32, 1) != 0 || vpk_fib6_add(fib6, addr[1].addr, 128, VPK_NH_LOCAL) != 0)
		abort();
	for (unsigned v = 0; v < NV; v++) {
		struct vpk_node_conf nc[] = {
			{ "ip4-lookup", fib4, 0, NULL }, { "ip6-lookup", fib6, 0, NULL },
			{ "ip4-rewrite", (void *)&adjt, 0, NULL }, { "ip6-rewrite", (void *)&adjt, 0, NULL },
			{ "ip4-icmp-error", (void *)&icc, 0, NULL }, { "ip6-icmp-error", (void *)&icc, 0, NULL },
			{ "ip4-local", (void *)&icc, 0, NULL }, { "ip6-local", (void *)&icc, 0, NULL },
			{ "interface-output", &out[n_g], 0, NULL },
		};
		struct vpk_graph_conf gc = { .pool = pool, .nodes = nodes, .node_conf = nc,
					     .n_node_conf = sizeof(nc) / sizeof(nc[0]), .isa = lv[v] };

		outs[n_g].pool = pool;
		out[n_g] = (struct vpk_if_output){ fz_out_tx, &outs[n_g] };
		if (vpk_graph_create(&gc, &g[n_g]) == 0)
			n_g++;
	}
	if (n_g == 0)
		abort();
}

/*
 * kind 0: the fuzz bytes as the frame; 1-3: IPv4 (20..60-byte header from
 * the fuzz bytes, IHL kept) to the router / TTL 1 transit / no route; 4-6:
 * IPv6 (next header from the fuzz bytes) likewise.
 */
static size_t
frame(uint8_t *f, unsigned kind, const uint8_t *d, size_t n)
{
	static const uint8_t eth[12] = { 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 9 };
	size_t len;

	if (n > 1900)
		n = 1900;
	if (kind == 0) {
		memcpy(f, d, n);
		return n;
	}
	memcpy(f, eth, 12);
	memcpy(f + 14, d, n);
	if (kind <= 3) {
		unsigned ihl;

		if (n < 20)
			memset(f + 14 + n, 0, 20 - n), n = 20;
		f[12] = 0x08, f[13] = 0x00;
		f[14] = (uint8_t)(0x40 | ((f[14] & 15) < 5 ? 5 : (f[14] & 15)));
		ihl = (f[14] & 15u) * 4;
		if (n < ihl)
			memset(f + 14 + n, 0, ihl - n), n = ihl;
		len = 14 + n;
		f[16] = (uint8_t)(n >> 8), f[17] = (uint8_t)n;
		f[22] = kind == 2 ? 1 : (uint8_t)(f[22] | 2);
		f[26] = 10;                                             /* source 10.x.y.z: routed back */
		memcpy(f + 30, kind == 1 ? (uint8_t[]){ 192, 0, 2, 1 } : kind == 2 ? (uint8_t[]){ 10, 9, 9, 9 }
										   : (uint8_t[]){ 172, 31, 0, 1 }, 4);
		f[24] = 0, f[25] = 0;
		{
			uint16_t c = fz_ip4_csum(f + 14, ihl);

			f[24] = (uint8_t)(c >> 8), f[25] = (uint8_t)c;
		}
		return len;
	}
	if (n < 40)
		memset(f + 14 + n, 0, 40 - n), n = 40;
	f[12] = 0x86, f[13] = 0xdd;
	f[14] = (uint8_t)(0x60 | (f[14] & 15));
	f[18] = (uint8_t)((n - 40) >> 8), f[19] = (uint8_t)(n - 40);
	f[21] = kind == 5 ? 1 : (uint8_t)(f[21] | 2);
	memcpy(f + 22, (uint8_t[]){ 0x20, 0x01, 0x0d, 0xb8, 0, 7 }, 6);        /* routed back */
	if (kind == 4)
		memcpy(f + 38, addr[1].addr, 16);
	else
		memcpy(f + 38, kind == 5 ? (uint8_t[]){ 0x20, 0x01, 0x0d, 0xb8, 0, 9 } : (uint8_t[]){ 0x30, 0, 0, 1, 0, 0 },
		       6);
	return 14 + n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t f[2048];
	size_t len;

	if (pool == NULL)
		setup();
	if (size == 0)
		return 0;
	len = frame(f, data[0] % 7, data + 1, size - 1);
	if (len == 0)
		return 0;
	fz_run_frame(pool, g, outs, n_g, f, len);
	return 0;
}
