/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vxlan4-input, every usable variant against the scalar one, packet by
 * packet: the next node, the 64 bytes of metadata, the buffer's bytes and
 * the node's counters must be the same. The AVX2/AVX-512 variants take good
 * packets through a fast path and leave the rest to the per-packet checks,
 * so frames mix good packets with every way of failing one check: UDP
 * length (0, 15, 16, 29, 30, exact, one too many), VXLAN flags, reserved
 * byte (strict mode), VNI (other tunnels of the endpoint, unknown), IP
 * options, unknown endpoints (ours / not ours), endpoint key 0 (what the
 * cache's empty ways hold), inner VLAN / QinQ tags, wrong inner EtherType,
 * frames cut short (20..60 bytes from the IPv4 header: ip4-input, before
 * the node, lets only whole IPv4 headers through). Frames of every
 * length 1..256, for RFC and strict mode, with 1..16 endpoints interleaved
 * (the cache thrashes above 8). One buffer of the pool ends at an
 * inaccessible page and is in every frame with its packet flush against the
 * page: any read past a frame faults.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <vpk/buf.h>
#include <vpk/graph.h>
#include <vpk/tunnel.h>

#include "lib/check.h"

#define NB 300u                 /* buffers; the last one ends at the guard page */
#define STRIDE 4096u
#define DATA (STRIDE - 64 - VPK_BUF_HEADROOM)
#define MAXV 8
#define N_EP 16
#define N_TUN (3 * N_EP)

static const char *const nodes[] = { "vxlan4-input", "ethernet-input", "ip4-input", "ip6-input",
				     "ip4-lookup", "error-drop", NULL };
static const uint8_t local4[4] = { 172, 16, 1, 1 };

struct rec {
	int node;                       /* graph node index the packet went to; -1: none */
	uint8_t meta[64];
};

struct run {
	struct vpk_pool *pool;
	struct vpk_graph *g;
	void *base;
	struct rec *rec;                /* by buffer number */
};

static uint8_t *mem;
static struct vpk_vxlan_tunnel tun[N_TUN];

/* Packet under test, before it is copied into a buffer. */
struct pkt {
	uint8_t d[160];
	uint16_t len, hl;               /* frame bytes from the outer IPv4 header; IPv4 header length */
};

static int
capture(void *ctx, uint16_t node, const uint32_t *bi, uint32_t n)
{
	struct run *r = ctx;

	for (uint32_t i = 0; i < n; i++) {
		struct vpk_buf *b = vpk_buf_from_idx(r->base, bi[i]);
		uint32_t k = (uint32_t)(((uint8_t *)b - (uint8_t *)r->base) / STRIDE);

		r->rec[k].node = node;
		memcpy(r->rec[k].meta, b, 64);
	}
	return 0;
}

static void
tunnels(void)
{
	for (unsigned i = 0; i < N_TUN; i++) {
		unsigned e = i % N_EP;

		memcpy(tun[i].src, local4, 4);
		tun[i].dst[0] = 172, tun[i].dst[1] = 16, tun[i].dst[2] = 2, tun[i].dst[3] = (uint8_t)(e + 1);
		tun[i].vni = 100 + i;                   /* endpoint e: VNIs 100+e (first), 100+e+16, 100+e+32 */
		tun[i].decap_next = (uint8_t)((e + i / N_EP) % 3);
	}
}

/* A packet of kind @kind for endpoint @e (n_ep active endpoints). */
static void
make_pkt(struct pkt *p, unsigned kind, unsigned e)
{
	/* Options: a real 24-byte header, or a 20-byte one that the metadata says is 24 (l4_off). */
	bool opt_meta = kind == 4 && check_rand_range(2);
	unsigned t = e + N_EP * (unsigned)check_rand_range(kind == 3 || kind == 7 ? 3 : 1), hl = kind == 4 && !opt_meta ? 24 : 20;
	unsigned next = tun[t].decap_next, ulen = 16 + 14 + (unsigned)check_rand_range(80);
	uint8_t *h = p->d, *u, *vx;

	memset(p, 0, sizeof(*p));
	p->hl = (uint16_t)hl;
	p->len = (uint16_t)(hl + ulen + (check_rand_range(4) ? 0 : check_rand_range(5)));     /* padding */
	h[0] = (uint8_t)(0x40 | hl / 4);
	h[8] = 64, h[9] = 17;
	memcpy(h + 12, tun[t].dst, 4);
	memcpy(h + 16, local4, 4);
	u = h + hl;
	vx = u + 8;
	u[0] = 0x12, u[1] = 0xb5, u[2] = 0x12, u[3] = 0xb5;
	u[4] = (uint8_t)(ulen >> 8), u[5] = (uint8_t)ulen;
	vx[0] = 0x08;
	vx[4] = (uint8_t)(tun[t].vni >> 16), vx[5] = (uint8_t)(tun[t].vni >> 8), vx[6] = (uint8_t)tun[t].vni;
	vx[8 + 12] = next == VPK_VXLAN_NEXT_IP6 ? 0x86 : 0x08;
	vx[8 + 13] = next == VPK_VXLAN_NEXT_IP6 ? 0xdd : 0x00;
	check_rand_bytes(vx + 8 + 14, p->len - hl - 16 - 14);
	if (kind == 4 && !opt_meta)
		h[20] = 0x94, h[21] = 4;          /* router alert */
	switch (kind) {
	case 1: {                       /* UDP length */
		static const int d[] = { -1, 0, 1 };
		unsigned v[] = { 0, 15, 16, 29, 30, ulen + 1, ulen + 4, 0xffff, ulen - 1 };
		unsigned x = (unsigned)check_rand_range(sizeof(v) / sizeof(v[0]) + 3);

		ulen = x < sizeof(v) / sizeof(v[0]) ? v[x] : ulen + (unsigned)d[x - sizeof(v) / sizeof(v[0])];
		u[4] = (uint8_t)(ulen >> 8), u[5] = (uint8_t)ulen;
		break;
	}
	case 2:                         /* flags */
		vx[0] = (uint8_t)(check_rand_range(2) ? check_rand_u32() : 0x08 | 1u << check_rand_range(8));
		break;
	case 3:                         /* another VNI: the endpoint's others, or unknown */
		if (check_rand_range(3) == 0)
			vx[6] ^= (uint8_t)(1 + check_rand_range(255));
		break;
	case 5:                         /* unknown endpoint; DA ours or not */
		h[15] = (uint8_t)(100 + check_rand_range(100));
		if (check_rand_range(2))
			h[19] ^= 1;
		break;
	case 6:                         /* key 0 */
		memset(h + 12, 0, 8);
		break;
	case 7: {                       /* inner VLAN / QinQ / ARP / near misses, to any of the tunnels */
		static const uint8_t et[][2] = { { 0x81, 0x00 }, { 0x88, 0xa8 }, { 0x08, 0x06 }, { 0x81, 0x01 },
						 { 0x89, 0xa8 }, { 0x86, 0xdd }, { 0x08, 0x00 } };
		unsigned x = (unsigned)check_rand_range(sizeof(et) / sizeof(et[0]));

		vx[8 + 12] = et[x][0], vx[8 + 13] = et[x][1];
		break;
	}
	case 8:                         /* reserved bytes */
		vx[check_rand_range(2) ? 7 : 1 + check_rand_range(3)] = (uint8_t)(1 + check_rand_range(255));
		break;
	case 9:                         /* cut short (ip4-input passes only whole IPv4 headers) */
		p->len = (uint16_t)(hl + check_rand_range(41));
		break;
	default:
		break;
	}
	if (opt_meta)
		p->hl = 24;
	if (check_rand_range(16) == 0)  /* any byte of the header */
		h[check_rand_range(50)] ^= (uint8_t)(1 + check_rand_range(255));
}

static int
run_setup(struct run *r, const char *variant, const struct vpk_vxlan_conf *vc)
{
	struct vpk_pool_conf pc = { .name = "vx", .n_bufs = NB, .data_size = DATA, .mem = mem,
				    .mem_len = (size_t)NB * STRIDE };
	struct vpk_node_conf nc = { .node = "vxlan4-input", .conf = (void *)vc, .variant = variant };
	struct vpk_graph_conf gc = { .nodes = nodes, .node_conf = &nc, .n_node_conf = 1 };
	uint32_t bi[NB];

	memset(r, 0, sizeof(*r));
	if (vpk_pool_create(&pc, &r->pool) != 0)
		return -1;
	gc.pool = r->pool;
	if (vpk_graph_create(&gc, &r->g) != 0) {
		vpk_pool_destroy(r->pool);
		return -1;
	}
	r->base = vpk_pool_base(r->pool);
	CHECK(vpk_pool_alloc_burst(r->pool, bi, NB) == NB, "pool");    /* all ours, never freed */
	for (unsigned i = 1; nodes[i] != NULL; i++)
		CHECK(vpk_graph_set_remote(r->g, nodes[i], capture, r) == 0, "set_remote %s", nodes[i]);
	r->rec = calloc(NB, sizeof(*r->rec));
	return 0;
}

/* Packet i in buffer bn[i], its frame ending at area byte end[i]. */
static void
run_frame(struct run *r, const struct pkt *p, const unsigned *bn, const uint32_t *end_, uint32_t n)
{
	uint32_t bi[VPK_FRAME_SIZE];

	for (uint32_t i = 0; i < n; i++) {
		struct vpk_buf *b = (struct vpk_buf *)(mem + (size_t)bn[i] * STRIDE);
		uint32_t end = end_[i];

		memset(b, 0, 64);
		b->next = VPK_BUF_NONE;
		b->l2_off = (uint16_t)(end - p[i].len - 14);
		b->data_off = b->l2_off;
		b->len = (uint16_t)(p[i].len + 14);
		b->total_len = b->len;
		b->l3_off = (uint16_t)(b->l2_off + 14);
		b->l4_off = (uint16_t)(b->l3_off + p[i].hl);
		b->l4_proto = 17;
		b->rx_if = i;
		memset(vpk_buf_area(b), 0xa5, end);
		memcpy(vpk_buf_area(b) + b->l3_off, p[i].d, p[i].len);
		vpk_buf_area(b)[b->l2_off + 12] = 0x08;
		bi[i] = (uint32_t)(((uint8_t *)b - (uint8_t *)r->base) >> VPK_BUF_SHIFT);
		r->rec[bn[i]].node = -1;
	}
	CHECK(vpk_graph_inject(r->g, "vxlan4-input", bi, n) == 0, "inject");
	vpk_graph_run_once(r->g);
}

static void
counters(const struct run *r, uint64_t *c, uint16_t *nc)
{
	int ni = vpk_graph_node_index(r->g, "vxlan4-input");

	CHECK(ni >= 0, "no vxlan4-input");
	*nc = ni >= 0 ? vpk_graph_node_n_errors(r->g, (size_t)ni) : 0;
	for (uint16_t k = 0; k < *nc && k < 16; k++)
		CHECK(vpk_graph_node_error(r->g, (size_t)ni, k, NULL, &c[k]) == 0, "counter %u", k);
}

/* One configuration: every frame length 1..256, n_ep endpoints, all variants against scalar. */
static void
test_conf(uint8_t mode, unsigned n_ep)
{
	const struct vpk_node_reg *reg = vpk_node_find("vxlan4-input");
	struct vpk_vxlan_conf vc = { tun, N_TUN, 0, mode };
	struct run r[MAXV];
	const char *name[MAXV];
	unsigned nv = 0, rr = 0;
	static struct pkt p[VPK_FRAME_SIZE];
	static uint8_t ref_area[VPK_FRAME_SIZE][STRIDE];
	unsigned bn[VPK_FRAME_SIZE];
	uint32_t end[VPK_FRAME_SIZE];     /* the guarded buffer's frame ends at its last byte */

	for (const struct vpk_impl *const *t = reg->impls; *t != NULL && nv < MAXV; t++) {
		const char *why = vpk_impl_why_not(*t);

		if (why != NULL) {
			check_variant_skipped("vxlan4-input", (*t)->name, why);
			continue;
		}
		if (run_setup(&r[nv], (*t)->name, &vc) != 0) {
			CHECK(0, "graph with vxlan4-input variant %s", (*t)->name);
			continue;
		}
		check_variant_ran("vxlan4-input", (*t)->name);
		name[nv++] = (*t)->name;
	}
	/* Scalar last in the best-first table: it is the reference. */
	CHECK(nv > 0 && strcmp(name[nv - 1], "scalar") == 0, "no scalar variant");
	for (uint32_t n = 1; n <= VPK_FRAME_SIZE && check_failures < CHECK_MAX_FAILURES; n++) {
		unsigned guard = (unsigned)check_rand_range(n);

		for (uint32_t i = 0; i < n; i++) {
			bn[i] = i == guard ? NB - 1 : i;
		}
		for (uint32_t i = 0; i < n; i++) {
			unsigned kind = check_rand_range(3) ? 0 : (unsigned)check_rand_range(10);

			make_pkt(&p[i], kind, rr++ % n_ep);
			end[i] = bn[i] == NB - 1 ? VPK_BUF_HEADROOM + DATA : VPK_BUF_HEADROOM + 14 + 200 +
				 (uint32_t)check_rand_range(64);
		}
		for (unsigned v = nv; v-- > 0;) {
			uint64_t c[16] = { 0 }, c0[16] = { 0 };
			uint16_t k, k0;

			check_set_context("vxlan4-input", name[v]);
			run_frame(&r[v], p, bn, end, n);
			for (uint32_t i = 0; i < n; i++) {
				const uint8_t *area = mem + (size_t)bn[i] * STRIDE + 64;
				const struct rec *a = &r[v].rec[bn[i]], *s = &r[nv - 1].rec[bn[i]];

				if (v == nv - 1) {
					memcpy(ref_area[i], area, STRIDE - 64);
					CHECK(a->node >= 0, "scalar: packet %u of %u went nowhere", i, n);
					continue;
				}
				CHECK(a->node == s->node && memcmp(a->meta, s->meta, 64) == 0 &&
				      memcmp(ref_area[i], area, STRIDE - 64) == 0,
				      "%s, mode %u, %u endpoints, frame of %u, packet %u (%u bytes from IPv4, flags %02x): "
				      "node %d vs scalar %d, metadata %s", name[v], mode, n_ep, n, i, p[i].len,
				      p[i].d[p[i].hl + 8], a->node, s->node,
				      memcmp(a->meta, s->meta, 64) == 0 ? "same" : "differs");
			}
			counters(&r[v], c, &k);
			counters(&r[nv - 1], c0, &k0);
			CHECK(k == k0 && memcmp(c, c0, sizeof(c)) == 0, "%s: counters differ from scalar after frame %u",
			      name[v], n);
		}
	}
	if (nv > 0) {
		uint64_t c[16] = { 0 }, all = 0;
		uint16_t k;

		/* The frames reach every reason: decapsulated, forwarded and each drop. */
		counters(&r[nv - 1], c, &k);
		for (uint16_t j = 0; j < k && j < 16; j++)
			all += c[j];
		CHECK(c[0] * 2 > all, "mode %u, %u endpoints: only %llu of %llu packets decapsulated", mode, n_ep,
		      (unsigned long long)c[0], (unsigned long long)all);
		for (uint16_t j = 1; j < k && j < 16; j++)
			CHECK(c[j] > 0, "mode %u, %u endpoints: no packet counted on reason %u", mode, n_ep, j);
	}
	for (unsigned v = 0; v < nv; v++) {
		vpk_graph_destroy(r[v].g);
		vpk_pool_destroy(r[v].pool);
		free(r[v].rec);
	}
}

int
main(void)
{
	static const unsigned eps[] = { 1, 3, 8, 12, 16 };
	long pg = sysconf(_SC_PAGESIZE);

	check_init("tunnel.vxlan_input");
	if (pg <= 0 || STRIDE % (unsigned long)pg != 0) {
		check_skip_all("page size does not divide the buffer stride");
		return check_finish();
	}
	mem = mmap(NULL, (size_t)(NB + 1) * STRIDE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED || mprotect(mem + (size_t)NB * STRIDE, STRIDE, PROT_NONE) != 0) {
		check_skip_all("no guard page");
		return check_finish();
	}
	tunnels();
	for (uint8_t mode = VPK_VXLAN_RFC; mode <= VPK_VXLAN_STRICT; mode++)
		for (size_t e = 0; e < sizeof(eps) / sizeof(eps[0]); e++)
			test_conf(mode, eps[e]);
	munmap(mem, (size_t)(NB + 1) * STRIDE);
	return check_finish();
}
