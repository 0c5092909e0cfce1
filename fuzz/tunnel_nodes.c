/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz the tunnel nodes (VxLAN decap/encap, GTP4.D, End.M.GTP4.E) through
 * a whole graph: the input is a frame (optionally behind a valid outer
 * header chosen by its first byte: VxLAN over IPv4 or IPv6, GTP-U to a
 * steered prefix, IPv6 to an End.M.GTP4.E localsid; lengths and the IPv4
 * checksum fixed up so the fuzzed bytes reach the tunnel parsers). Every
 * usable variant must produce the same output bytes and drop reasons, and
 * every buffer must be back in the pool.
 */
#include <stdlib.h>
#include <string.h>

#include <vpk/fib.h>
#include <vpk/graph.h>
#include <vpk/nodes.h>
#include <vpk/tunnel.h>

#include "graph_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NV 5

static struct vpk_pool *pool;
static struct vpk_fib *fib;
static struct vpk_graph *g[NV];
static unsigned n_g;
static struct fz_out outs[NV];
static struct vpk_if_output out[NV];

static struct vpk_adj adj[2] = { { { 0 } }, { { 2, 0, 0, 0, 0, 1 }, { 2, 0, 0, 0, 0, 2 }, 0, 1 } };
static const struct vpk_adj_table adjt = { 2, adj };
static struct vpk_vxlan_tunnel tun[5];
static const struct vpk_vxlan_conf vxc = { tun, 5, 0, VPK_VXLAN_RFC };
static struct vpk_sr_policy pol = { { 0 }, { { 0, 0xd2 }, { 0, 0xd3 } }, 2, 1 };
static struct vpk_gtp4d_steer steer[2];
static const struct vpk_gtp4d_conf gdc = { steer, 2 };
static const struct vpk_gtp4e_localsid sid = { { 0, 0xd4 }, 32, 64, { 0 } };
static const struct vpk_gtp4e_conf gec = { &sid, 1 };
static struct vpk_tunnel_bypass_conf bp4 = { &vxc, &gdc, NULL }, bp6 = { &vxc, NULL, &gec };

static void
setup(void)
{
	static const char *const nodes[] = {
		"ethernet-input", "ip4-input", "ip6-input", "ip4-tunnel-bypass", "ip6-tunnel-bypass",
		"vxlan4-input", "vxlan6-input", "vxlan4-encap", "vxlan6-encap", "srv6-gtp4-d", "srv6-end-m-gtp4-e",
		"ip4-lookup", "ip6-lookup", "ip4-rewrite", "ip6-rewrite", "interface-output", "error-drop", NULL
	};
	struct vpk_node_conf nc[] = {
		{ "ip4-tunnel-bypass", &bp4, 0, NULL }, { "ip6-tunnel-bypass", &bp6, 0, NULL },
		{ "vxlan4-input", (void *)&vxc, 0, NULL }, { "vxlan6-input", (void *)&vxc, 0, NULL },
		{ "vxlan4-encap", (void *)&vxc, 0, NULL }, { "vxlan6-encap", (void *)&vxc, 0, NULL },
		{ "srv6-gtp4-d", (void *)&gdc, 0, NULL },
		{ "srv6-end-m-gtp4-e", (void *)&gec, 0, NULL }, { "ip4-lookup", NULL, 0, NULL },
		{ "ip4-rewrite", (void *)&adjt, 0, NULL }, { "ip6-rewrite", (void *)&adjt, 0, NULL },
		{ "interface-output", NULL, 0, NULL },
	};
	struct vpk_pool_conf pc = { .name = "fuzz", .n_bufs = 64 };
	struct vpk_fib_conf fc = { .nh_size = 4, .num_tbl8 = 64, .max_routes = 16 };
	static const enum vpk_isa lv[NV] = { VPK_ISA_SCALAR, VPK_ISA_SSE42, VPK_ISA_AVX2, VPK_ISA_AVX512,
					     VPK_ISA_AVX512ICL };

	for (unsigned i = 0; i < 5; i++) {
		tun[i].is_ip6 = i >= 3;
		tun[i].decap_next = (uint8_t)(i % 3);
		tun[i].vni = i;
		tun[i].src[0] = i >= 3 ? 0x20 : 10, tun[i].src[i >= 3 ? 15 : 3] = 1;
		tun[i].dst[0] = i >= 3 ? 0x20 : 10, tun[i].dst[i >= 3 ? 15 : 3] = 2;
	}
	tun[0].encap_prefix = 0xc0a80000u, tun[0].encap_plen = 16;
	tun[4].encap_prefix = 0xc0a90000u, tun[4].encap_plen = 16;
	steer[0] = (struct vpk_gtp4d_steer){ .prefix4 = 0x01010100u, .plen4 = 24, .sr_plen = 32, .v6src_plen = 64,
					     .sr_prefix = { 0, 0xd4 }, .v6src = { 0, 0xc1 }, .policy = &pol };
	steer[1] = (struct vpk_gtp4d_steer){ .prefix4 = 0x01010200u, .plen4 = 24, .sr_plen = 37, .v6src_plen = 61,
					     .sr_prefix = { 0x20, 1, 0xd, 0xb8 }, .v6src = { 0xfc }, .adj = 1,
					     .nhtype = VPK_GTP4D_NH_IP4, .u_from_pdu_type = 1 };
	if (vpk_pool_create(&pc, &pool) != 0 || vpk_fib_create(&fc, &fib) != 0 || vpk_fib_add(fib, 0, 0, 1) != 0)
		abort();
	nc[8].conf = fib;
	for (unsigned v = 0; v < NV; v++) {
		struct vpk_graph_conf gc = { .pool = pool, .nodes = nodes, .node_conf = nc,
					     .n_node_conf = sizeof(nc) / sizeof(nc[0]), .isa = lv[v] };

		outs[n_g].pool = pool;
		out[n_g] = (struct vpk_if_output){ fz_out_tx, &outs[n_g] };
		nc[sizeof(nc) / sizeof(nc[0]) - 1].conf = &out[n_g];
		if (vpk_graph_create(&gc, &g[n_g]) == 0)
			n_g++;
	}
	if (n_g == 0)
		abort();
}

/* Build the frame: an outer header by @kind, then the fuzz bytes. */
static size_t
frame(uint8_t *f, unsigned kind, const uint8_t *d, size_t n)
{
	static const uint8_t eth4[14] = { 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 9, 0x08, 0x00 };
	static const uint8_t eth6[14] = { 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 9, 0x86, 0xdd };
	size_t h = 0, len;

	if (kind == 1 || kind == 3) {           /* IPv4 / UDP to 4789 or 2152 */
		memcpy(f, eth4, 14);
		memset(f + 14, 0, 28);
		f[14] = 0x45, f[22] = 64, f[23] = 17;
		memcpy(f + 26, kind == 1 ? (uint8_t[]){ 10, 0, 0, 2 } : (uint8_t[]){ 2, 2, 2, 2 }, 4);
		memcpy(f + 30, kind == 1 ? (uint8_t[]){ 10, 0, 0, 1 } : (uint8_t[]){ 1, 1, (uint8_t)(1 + (n & 1)), 1 }, 4);
		f[36] = kind == 1 ? 0x12 : 0x08, f[37] = kind == 1 ? 0xb5 : 0x68;
		h = 42;
	} else if (kind == 2 || kind == 4) {    /* IPv6 / UDP 4789, or IPv6 to the localsid */
		memcpy(f, eth6, 14);
		memset(f + 14, 0, 40);
		f[14] = 0x60, f[21] = 64;
		if (kind == 2) {
			f[20] = 17;
			f[22] = 0x20, f[37] = 2, f[38] = 0x20, f[53] = 1;
			memset(f + 54, 0, 8);
			f[56] = 0x12, f[57] = 0xb5;
			h = 62;
		} else {
			f[20] = 43;     /* SRH (fuzzed) */
			f[38] = 0, f[39] = 0xd4;
			h = 54;
		}
	}
	if (n > 2000 - h)
		n = 2000 - h;
	memcpy(f + h, d, n);
	len = h + n;
	if (kind == 1 || kind == 3) {
		f[16] = (uint8_t)((len - 14) >> 8), f[17] = (uint8_t)(len - 14);
		f[38] = (uint8_t)((len - 34) >> 8), f[39] = (uint8_t)(len - 34);
		uint16_t c = fz_ip4_csum(f + 14, 20);

		f[24] = (uint8_t)(c >> 8), f[25] = (uint8_t)c;
	} else if (kind == 2 || kind == 4) {
		f[18] = (uint8_t)((len - 54) >> 8), f[19] = (uint8_t)(len - 54);
		if (kind == 2)
			f[58] = (uint8_t)((len - 54) >> 8), f[59] = (uint8_t)(len - 54);
	}
	return len;
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
	len = frame(f, data[0] % 5, data + 1, size - 1);
	fz_run_frame(pool, g, outs, n_g, f, len);
	return 0;
}
