/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk bench vxlan / vpk bench gtp4d: the tunnel nodes per variant.
 *
 * vxlan: for 1, 2, 3, 4, 6, 8, 12, 16, 64, 256, 1024, 4096 tunnel endpoints whose packets are interleaved
 *   round robin (the case the 1-entry cache loses on), two figures per
 *   variant: the endpoint check alone (the ep_cache kernel on 256-key
 *   frames, cache kept across frames, as in the node, the round robin
 *   continuing across frames) and the whole
 *   vxlan4-input node (graph clocks/packet, VPP's `show runtime` measure)
 *   on full 256-packet frames, the endpoints rotating across frames (so
 *   1024 and 4096 endpoints are all active), one graph per variant.
 * gtp4d: the header builder alone (IPv6 + SRH with 0, 1, 2, 4, 6 policy
 *   segments) and the srv6-gtp4-d node on full frames, per variant.
 * Variants run interleaved in each of R runs; medians are reported.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/graph.h>
#include <vpk/tunnel.h>
#include "bench.h"
#include "common/json.h"
#include "common/tool.h"
#include "tunnel/ep_cache.h"
#include "tunnel/gtp4d_hdr.h"

static int cmd_bench_vxlan(int argc, char **argv);
static int cmd_bench_gtp4d(int argc, char **argv);
VPK_CMD(bench_vxlan, "bench vxlan", "vxlan4-input and its endpoint cache, 1-4096 interleaved endpoints, per variant",
	cmd_bench_vxlan);
VPK_CMD(bench_gtp4d, "bench gtp4d", "srv6-gtp4-d node and header build, scalar field stores vs SIMD lines",
	cmd_bench_gtp4d);

#define FRAME 256u
#define MAXV 8

struct opts {
	unsigned runs, frames, tunnels;
	unsigned endpoints;     /* vxlan: only this endpoint count (0: all) */
};

static int
parse_opts(int argc, char **argv, const char *name, struct opts *o)
{
	VPK_LONGOPTS(lo, "runs=r frames=f tunnels=t endpoints=e help/h");
	int c;

	o->runs = 7;
	o->frames = 2000;
	o->tunnels = 0;
	o->endpoints = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "r:f:t:e:h", lo, NULL)) != -1) {
		char where[40];
		bool ok = true;

		snprintf(where, sizeof(where), "bench %s: --%s", name,
			 c == 't' ? "tunnels" : c == 'r' ? "runs" : c == 'e' ? "endpoints" : "frames");
		if (c == 'e')
			ok = vpk_opt_uint(where, optarg, 1, 4096, &o->endpoints);
		else if (c == 't')
			ok = vpk_opt_uint(where, optarg, 0, 65536, &o->tunnels);
		else if (c == 'r')
			ok = vpk_opt_uint(where, optarg, 1, 101, &o->runs);
		else if (c == 'f')
			ok = vpk_opt_uint(where, optarg, 10, 1000000, &o->frames);
		if (!ok)
			return -2;
		if (c == 't' || c == 'r' || c == 'f' || c == 'e')
			continue;
		if (c == 'h') {
			printf("usage: vpk bench %s [--runs=R (1..101)] [--frames=N (10..1000000)] [--json]\n"
			       "       (vxlan: [--tunnels=T] configured tunnels in the table besides the active ones,\n"
			       "        [--endpoints=E] only the run with E active endpoints, 1..4096)\n",
			       name);
			return -1;
		}
		vpk_fail(VPK_EXIT_USAGE,
			 "bench %s: bad option (--runs 1..101, --frames 10..1000000, --tunnels 0..65536, --endpoints 0..4096)",
			 name);
		return -2;
	}
	return 0;
}

/* Usable variants of a table under the cap (and --isa). */
static size_t
variants(const struct vpk_impl *const *tab, const struct vpk_impl **use)
{
	size_t nv = 0;

	for (; *tab != NULL && nv < MAXV; tab++)
		if (vpk_impl_why_not(*tab) == NULL && (vpk_opts.isa == VPK_ISA_AUTO || (*tab)->isa == vpk_opts.isa))
			use[nv++] = *tab;
	return nv;
}

/* ---- a node on full frames: inject, run, read its clocks ---- */

typedef void (*fill_fn)(struct vpk_buf *b, uint32_t i, void *arg);

struct node_bench {
	const char *node;
	const char *const *nodes;
	void *conf;
	fill_fn fill;
	void *arg;
};

/* One run of @o->frames full frames through @g (after 20 warm-up frames): nb->node's clocks/packet. */
static double
node_run(const struct node_bench *nb, struct vpk_pool *pool, struct vpk_graph *g, size_t ni, const struct opts *o)
{
	struct vpk_node_stats st = { 0 };

	for (unsigned f = 0; f < o->frames + 20; f++) {
		uint32_t bi[FRAME];
		void *base = vpk_pool_base(pool);

		if (f == 20)
			vpk_graph_clear_stats(g);
		if (vpk_pool_alloc_burst(pool, bi, FRAME) != FRAME)
			break;
		for (uint32_t i = 0; i < FRAME; i++)
			nb->fill(vpk_buf_from_idx(base, bi[i]), i, nb->arg);
		vpk_graph_inject(g, nb->node, bi, FRAME);
		vpk_graph_run_once(g);
	}
	vpk_graph_get_node_stats(g, ni, &st);
	return st.vectors ? (double)st.clocks / (double)st.vectors : 0;
}

/* Median clocks/packet of nb->node forced to @variant; < 0 on error. */
static double
node_cpp(const struct node_bench *nb, const char *variant, const struct opts *o, double *lo, double *hi)
{
	struct vpk_pool_conf pc = { .name = "bench", .n_bufs = 4 * FRAME };
	struct vpk_node_conf nc = { .node = nb->node, .conf = nb->conf, .variant = variant };
	struct vpk_graph_conf gc = { .nodes = nb->nodes, .node_conf = &nc, .n_node_conf = 1 };
	struct vpk_pool *pool;
	struct vpk_graph *g;
	double cpp[101];
	size_t ni = SIZE_MAX;

	if (vpk_pool_create(&pc, &pool) != 0)
		return -1;
	gc.pool = pool;
	if (vpk_graph_create(&gc, &g) != 0) {
		vpk_pool_destroy(pool);
		return -1;
	}
	for (size_t i = 0; i < vpk_graph_n_nodes(g); i++) {
		struct vpk_node_stats st;

		if (vpk_graph_get_node_stats(g, i, &st) == 0 && strcmp(st.name, nb->node) == 0)
			ni = i;
	}
	for (unsigned r = 0; r < o->runs; r++)
		cpp[r] = node_run(nb, pool, g, ni, o);
	vpk_graph_destroy(g);
	vpk_pool_destroy(pool);
	*lo = bench_min(cpp, o->runs);
	*hi = bench_max(cpp, o->runs);
	return bench_median(cpp, o->runs);
}

/*
 * node_cpp() for the @nv variants @use at once: one graph each, the
 * variants taking turns within every run, so that a noisy neighbour
 * weighs on all of them alike. Medians (min, max) per variant; < 0 on error.
 */
static int
node_cpp_each(const struct node_bench *nb, const struct vpk_impl *const *use, size_t nv, const struct opts *o,
	      double *med, double *lo, double *hi)
{
	struct vpk_pool *pool[MAXV] = { NULL };
	struct vpk_graph *g[MAXV] = { NULL };
	size_t ni[MAXV];
	double cpp[MAXV][101];
	int rc = 0;

	for (size_t v = 0; v < nv && rc == 0; v++) {
		struct vpk_pool_conf pc = { .name = "bench", .n_bufs = 4 * FRAME };
		struct vpk_node_conf nc = { .node = nb->node, .conf = nb->conf, .variant = use[v]->name };
		struct vpk_graph_conf gc = { .nodes = nb->nodes, .node_conf = &nc, .n_node_conf = 1 };

		rc = vpk_pool_create(&pc, &pool[v]);
		gc.pool = pool[v];
		if (rc == 0)
			rc = vpk_graph_create(&gc, &g[v]);
		ni[v] = SIZE_MAX;
		for (size_t i = 0; rc == 0 && i < vpk_graph_n_nodes(g[v]); i++) {
			struct vpk_node_stats st;

			if (vpk_graph_get_node_stats(g[v], i, &st) == 0 && strcmp(st.name, nb->node) == 0)
				ni[v] = i;
		}
	}
	for (unsigned r = 0; rc == 0 && r < o->runs; r++)
		for (size_t v = 0; v < nv; v++)
			cpp[v][r] = node_run(nb, pool[v], g[v], ni[v], o);
	for (size_t v = 0; v < nv; v++) {
		if (rc == 0) {
			lo[v] = bench_min(cpp[v], o->runs);
			hi[v] = bench_max(cpp[v], o->runs);
			med[v] = bench_median(cpp[v], o->runs);
		}
		if (g[v] != NULL)
			vpk_graph_destroy(g[v]);
		if (pool[v] != NULL)
			vpk_pool_destroy(pool[v]);
	}
	return rc;
}

static void
put_row(struct json *j, const char *what, const char *variant, unsigned param, const char *pname, double med,
	double lo, double hi)
{
	if (vpk_opts.json) {
		json_obj(j, NULL);
		json_str(j, "measure", what);
		json_str(j, "variant", variant);
		json_u64(j, pname, param);
		json_dbl(j, "cycles_per_pkt", med);
		json_dbl(j, "min", lo);
		json_dbl(j, "max", hi);
		json_end(j);
	} else {
		printf("  %-22s %-7s %s=%-3u %8.2f  (%.2f-%.2f)\n", what, variant, pname, param, med, lo, hi);
	}
}

static void
head(struct json *j, const char *name, const struct opts *o)
{
	if (vpk_opts.json) {
		bench_json_begin(j, name);
		json_str(j, "cpu", vpk_cpu_model());
		json_u64(j, "cap", vpk_get_max_simd_bitwidth());
		json_dbl(j, "tsc_hz", bench_tsc_hz());
		json_u64(j, "runs", o->runs);
		json_u64(j, "frames", o->frames);
		json_u64(j, "other_tunnels", o->tunnels);
		json_arr(j, "results");
	} else {
		printf("cpu %s, cap %u, %u runs x %u frames of %u packets; TSC cycles/packet: median (min-max)\n",
		       vpk_cpu_model(), vpk_get_max_simd_bitwidth(), o->runs, o->frames, FRAME);
	}
}

static void
tail(struct json *j)
{
	if (vpk_opts.json) {
		json_end(j);
		json_end(j);
		json_done(j);
	}
}

/* ---- vxlan ---- */

static const uint8_t local4[4] = { 172, 16, 1, 1 };

struct vx_arg {
	unsigned n_ep;
	unsigned seq;           /* packets filled so far: the endpoints rotate across frames too */
	uint8_t pkt[14 + 20 + 8 + 8 + 14 + 20 + 8 + 18];
};

/* One Ethernet + IPv4 (no options) frame of @len bytes at the headroom. */
static void
frame_meta(struct vpk_buf *b, size_t len)
{
	b->data_off = VPK_BUF_HEADROOM;
	b->len = (uint16_t)len;
	b->total_len = b->len;
	b->l2_off = b->data_off;
	b->l3_off = (uint16_t)(b->data_off + 14);
	b->l4_off = (uint16_t)(b->l3_off + 20);
}

static void
vx_fill(struct vpk_buf *b, uint32_t i, void *arg)
{
	struct vx_arg *a = arg;
	uint8_t *d;
	uint32_t e = a->seq++ % a->n_ep;

	(void)i;

	frame_meta(b, sizeof(a->pkt));
	d = vpk_buf_data(b);
	memcpy(d, a->pkt, sizeof(a->pkt));
	d[14 + 14] = (uint8_t)(2 + e / 250);            /* outer SA 172.16.(2 + e / 250).(e % 250 + 1) */
	d[14 + 15] = (uint8_t)(e % 250 + 1);
	d[14 + 20 + 8 + 4] = (uint8_t)((100 + e) >> 16);        /* VNI 100 + e */
	d[14 + 20 + 8 + 5] = (uint8_t)((100 + e) >> 8);
	d[14 + 20 + 8 + 6] = (uint8_t)(100 + e);
}

static void
vx_packet(struct vx_arg *a)
{
	uint8_t *p = a->pkt;

	memset(p, 0, sizeof(a->pkt));
	p[12] = 0x08;
	p[14] = 0x45;
	p[14 + 2] = 0;
	p[14 + 3] = (uint8_t)(sizeof(a->pkt) - 14);
	p[14 + 8] = 64;
	p[14 + 9] = 17;
	memcpy(p + 14 + 12, (uint8_t[]){ 172, 16, 2, 1 }, 4);
	memcpy(p + 14 + 16, local4, 4);
	p[34] = 0x12, p[35] = 0xb5, p[36] = 0x12, p[37] = 0xb5;         /* 4789 -> 4789 */
	p[39] = (uint8_t)(sizeof(a->pkt) - 34);
	p[42] = 0x08;                                                   /* VXLAN I flag */
	p[50 + 12] = 0x08;                                              /* inner IPv4 */
	p[64] = 0x45;
	p[64 + 3] = 46;
	p[64 + 8] = 64;
	p[64 + 9] = 17;
}

static int
cmd_bench_vxlan(int argc, char **argv)
{
	static const unsigned eps[] = { 1, 2, 3, 4, 6, 8, 12, 16, 64, 256, 1024, 4096 };
	const unsigned max_ep = 4096;
	static const char *const nodes[] = { "vxlan4-input", "ethernet-input", "ip4-input", "ip6-input",
					     "ip4-lookup", "ip6-lookup", "error-drop", NULL };
	const struct vpk_impl *use[MAXV], *node_use[MAXV];
	size_t nv = variants(ep_cache_impls, use), nn = variants(vpk_node_find("vxlan4-input")->impls, node_use);
	struct vpk_vxlan_tunnel *tun;
	uint64_t *tk;
	struct vpk_vxlan_conf vc = { .n_tunnels = 0 };
	struct vx_arg arg;
	struct opts o;
	struct json j;
	int rc = parse_opts(argc, argv, "vxlan", &o);

	if (rc != 0)
		return rc == -1 ? VPK_EXIT_OK : VPK_EXIT_USAGE;
	tun = calloc(max_ep + o.tunnels, sizeof(*tun));
	tk = calloc(max_ep + o.tunnels, sizeof(*tk));
	if (tun == NULL || tk == NULL)
		return vpk_fail(VPK_EXIT_FAIL, "bench vxlan: out of memory");
	vc.tunnels = tun;
	vx_packet(&arg);
	head(&j, "vxlan", &o);
	if (!vpk_opts.json)
		printf("endpoint table: the active endpoints + %u other tunnels\n", o.tunnels);
	for (size_t e = 0; e < (o.endpoints ? 1 : sizeof(eps) / sizeof(eps[0])); e++) {
		unsigned n = o.endpoints ? o.endpoints : eps[e];
		uint64_t *keys = malloc((max_ep + FRAME) * sizeof(*keys));   /* frame f reads keys + f * FRAME % n */
		uint32_t out[FRAME];
		struct ep_table t;
		struct ep_cache *c = aligned_alloc(64, sizeof(*c));
		double cpp[MAXV][101], med[MAXV], lo[MAXV], hi[MAXV];
		struct node_bench nb = { "vxlan4-input", nodes, &vc, vx_fill, &arg };


		memset(tun, 0, (max_ep + o.tunnels) * sizeof(*tun));
		for (unsigned i = 0; i < n + o.tunnels; i++) {
			uint8_t kb[8] = { 172, 16, (uint8_t)(2 + i / 250), (uint8_t)(i % 250 + 1), 172, 16, 1, 1 };

			if (i >= n) {                   /* other tunnels: remote 10.x.y.z */
				kb[0] = 10, kb[1] = (uint8_t)(i >> 16), kb[2] = (uint8_t)(i >> 8), kb[3] = (uint8_t)i;
			}
			memcpy(tun[i].src, local4, 4);
			memcpy(tun[i].dst, kb, 4);
			tun[i].vni = 100 + i;
			memcpy(&tk[i], kb, 8);
		}
		vc.n_tunnels = n + o.tunnels;
		for (unsigned i = 0; keys != NULL && i < n + FRAME; i++)
			keys[i] = tk[i % n];
		if (c == NULL || keys == NULL || vpk_ep_table_build(&t, tk, n + o.tunnels) != 0)
			return vpk_fail(VPK_EXIT_FAIL, "bench vxlan: out of memory");
		for (unsigned r = 0; r < o.runs; r++)
			for (size_t v = 0; v < nv; v++) {
				const struct ep_cache_impl *ci = (const struct ep_cache_impl *)use[v];
				uint64_t t0;

				vpk_ep_cache_reset(c);
				ci->lookup_bulk(c, &t, keys, out, FRAME);
				t0 = bench_tsc();
				for (unsigned f = 0; f < o.frames * 4; f++)
					ci->lookup_bulk(c, &t, keys + (size_t)f * FRAME % n, out, FRAME);
				cpp[v][r] = (double)(bench_tsc() - t0) / ((double)o.frames * 4 * FRAME);
				bench_keep(out[FRAME - 1]);
			}
		for (size_t v = 0; v < nv; v++)
			put_row(&j, "endpoint-check", use[v]->name, n, "endpoints", bench_median(cpp[v], o.runs),
				bench_min(cpp[v], o.runs), bench_max(cpp[v], o.runs));
		arg.n_ep = n;
		arg.seq = 0;
		if (node_cpp_each(&nb, node_use, nn, &o, med, lo, hi) != 0)
			return vpk_fail(VPK_EXIT_FAIL, "bench vxlan: graph setup failed");
		for (size_t v = 0; v < nn; v++)
			put_row(&j, "vxlan4-input-node", node_use[v]->name, n, "endpoints", med[v], lo[v], hi[v]);
		vpk_ep_table_free(&t);
		free(keys);
		free(c);
	}
	tail(&j);
	free(tun);
	free(tk);
	return VPK_EXIT_OK;
}

/* ---- gtp4d ---- */

/*
 * Not a variant: the scalar builder with 64-bit byte-swapped stores of the
 * SA and SID halves instead of byte stores, to show where the SIMD
 * variants' gain comes from (docs/tunnels.md). Same bytes (checked below).
 */
static void
hdr_build_words(const struct gtp4d_tmpl *t, const struct gtp4d_pkt *p, uint8_t *const *out, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *o = out[i];
		gtp4d_u128 sa = gtp4d_sa(t, &p[i]), b = gtp4d_sid_b(t, &p[i]);
		uint64_t w[4] = { __builtin_bswap64((uint64_t)(sa >> 64)), __builtin_bswap64((uint64_t)sa),
				  __builtin_bswap64((uint64_t)(b >> 64)), __builtin_bswap64((uint64_t)b) };

		memcpy(o, t->hdr, t->len);
		o[0] = (uint8_t)(0x60 | p[i].tc >> 4);
		o[1] = (uint8_t)(p[i].tc << 4);
		o[4] = (uint8_t)(p[i].plen >> 8);
		o[5] = (uint8_t)p[i].plen;
		o[7] = p[i].hlim;
		memcpy(o + 8, w, 16);
		o[t->has_srh ? 40 : 6] = p[i].nh;
		memcpy(o + (t->has_srh ? 48 : 24), w + 2, 16);
	}
}

struct gd_arg {
	uint8_t pkt[14 + 20 + 8 + 8 + 4 + 4 + 40 + 8 + 20];
};

static void
gd_fill(struct vpk_buf *b, uint32_t i, void *arg)
{
	struct gd_arg *a = arg;
	uint8_t *d;
	uint32_t zero = 0;

	frame_meta(b, sizeof(a->pkt));
	memcpy(b->opaque, &zero, 4);                    /* steering entry 0 */
	d = vpk_buf_data(b);
	memcpy(d, a->pkt, sizeof(a->pkt));
	d[14 + 12 + 3] = (uint8_t)i;                    /* vary the IPv4 SA and TEID */
	d[42 + 7] = (uint8_t)(i * 7);
}

static void
gd_packet(struct gd_arg *a)
{
	uint8_t *p = a->pkt;
	unsigned ulen = (unsigned)sizeof(a->pkt) - 34, glen = ulen - 16;

	memset(p, 0, sizeof(a->pkt));
	p[12] = 0x08;
	p[14] = 0x45;
	p[14 + 3] = (uint8_t)(sizeof(a->pkt) - 14);
	p[14 + 8] = 64;
	p[14 + 9] = 17;
	memcpy(p + 14 + 12, (uint8_t[]){ 2, 2, 2, 2 }, 4);
	memcpy(p + 14 + 16, (uint8_t[]){ 1, 1, 1, 1 }, 4);
	p[34] = 0x08, p[35] = 0x68, p[36] = 0x08, p[37] = 0x68;         /* 2152 -> 2152 */
	p[39] = (uint8_t)ulen;
	p[42] = 0x34;                                                   /* v1 PT E */
	p[43] = 255;
	p[45] = (uint8_t)glen;
	p[49] = 200;                                                    /* TEID */
	p[53] = 0x85;                                                   /* next: PDU session container */
	p[54] = 1, p[55] = 0, p[56] = 9, p[57] = 0;                     /* DL, QFI 9 */
	p[58] = 0x60;                                                   /* inner IPv6 */
	p[58 + 5] = 28;
	p[58 + 6] = 17;
	p[58 + 7] = 64;
}

static int
cmd_bench_gtp4d(int argc, char **argv)
{
	static const unsigned segs[] = { 0, 1, 2, 4, 6 };
	static const char *const nodes[] = { "srv6-gtp4-d", "ip6-rewrite", "ip4-lookup", "error-drop", NULL };
	const struct vpk_impl *use[MAXV], *node_use[MAXV];
	size_t nv = variants(gtp4d_hdr_impls, use), nn = variants(vpk_node_find("srv6-gtp4-d")->impls, node_use);
	struct vpk_sr_policy pol = { .n_seg = 0, .adj = 1 };
	struct vpk_gtp4d_steer st = { .prefix4 = 0x01010101, .plen4 = 32, .sr_plen = 32, .v6src_plen = 64,
				      .sr_prefix = { 0, 0xd4 }, .v6src = { 0, 0xc1 }, .adj = 1 };
	struct vpk_gtp4d_conf gc = { .steer = &st, .n_steer = 1 };
	struct gtp4d_tmpl *t = aligned_alloc(64, sizeof(*t));
	struct gtp4d_pkt *p = calloc(FRAME, sizeof(*p));
	uint8_t *mem = aligned_alloc(64, (size_t)FRAME * 256), *out[FRAME];
	struct gd_arg arg;
	struct opts o;
	struct json j;
	int rc = parse_opts(argc, argv, "gtp4d", &o);

	if (rc != 0 || t == NULL || p == NULL || mem == NULL) {
		free(t), free(p), free(mem);
		return rc == -1 ? VPK_EXIT_OK : rc == -2 ? VPK_EXIT_USAGE : vpk_fail(VPK_EXIT_FAIL, "out of memory");
	}
	gd_packet(&arg);
	for (unsigned i = 0; i < FRAME; i++) {
		p[i] = (struct gtp4d_pkt){ .sa4 = 0x02020200u + i, .da4 = 0x01010101, .teid = i * 7919u,
					   .plen = 100, .args = 9 << 2, .hlim = 64, .nh = 41 };
		out[i] = mem + (size_t)i * 256 + 32;
	}
	for (unsigned s = 0; s < VPK_SR_MAX_SEGS; s++)
		pol.seg[s][1] = (uint8_t)(0xd2 + s);
	head(&j, "gtp4d", &o);
	for (size_t si = 0; si < sizeof(segs) / sizeof(segs[0]); si++) {
		double cpp[MAXV + 1][101];
		struct node_bench nb = { "srv6-gtp4-d", nodes, &gc, gd_fill, &arg };

		vpk_gtp4d_tmpl_init(t, st.sr_prefix, 32, st.v6src, 64, (const uint8_t (*)[16])pol.seg, segs[si]);
		for (unsigned r = 0; r < o.runs; r++)
			for (size_t v = 0; v < nv; v++) {
				const struct gtp4d_hdr_impl *hi = (const struct gtp4d_hdr_impl *)use[v];
				uint64_t t0;

				hi->build_bulk(t, p, out, FRAME);
				t0 = bench_tsc();
				for (unsigned f = 0; f < o.frames; f++)
					hi->build_bulk(t, p, out, FRAME);
				cpp[v][r] = (double)(bench_tsc() - t0) / ((double)o.frames * FRAME);
				bench_keep(mem[100]);
			}
		for (unsigned r = 0; r < o.runs; r++) {
			uint64_t t0;

			hdr_build_words(t, p, out, FRAME);
			t0 = bench_tsc();
			for (unsigned f = 0; f < o.frames; f++)
				hdr_build_words(t, p, out, FRAME);
			cpp[nv][r] = (double)(bench_tsc() - t0) / ((double)o.frames * FRAME);
		}
		if (nv > 0) {   /* the word-store builder must write what the variants write */
			uint8_t ref[GTP4D_HDR_MAX], *rp = ref;

			((const struct gtp4d_hdr_impl *)use[0])->build_bulk(t, p + 3, &rp, 1);
			if (memcmp(ref, out[3], t->len) != 0)
				return vpk_fail(VPK_EXIT_FAIL, "bench gtp4d: word-store builder differs from %s",
						use[0]->name);
		}
		for (size_t v = 0; v <= nv; v++)
			put_row(&j, "header-build", v < nv ? use[v]->name : "scalar-words", segs[si], "segments",
				bench_median(cpp[v], o.runs), bench_min(cpp[v], o.runs), bench_max(cpp[v], o.runs));
		pol.n_seg = segs[si];
		st.policy = segs[si] ? &pol : NULL;
		for (size_t v = 0; v < nn; v++) {
			double lo, hi, med = node_cpp(&nb, node_use[v]->name, &o, &lo, &hi);

			if (med < 0)
				return vpk_fail(VPK_EXIT_FAIL, "bench gtp4d: graph setup failed for %s", node_use[v]->name);
			put_row(&j, "srv6-gtp4-d-node", node_use[v]->name, segs[si], "segments", med, lo, hi);
		}
	}
	tail(&j);
	free(t);
	free(p);
	free(mem);
	return VPK_EXIT_OK;
}
