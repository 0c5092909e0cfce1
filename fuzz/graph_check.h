/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the fuzz targets that run one graph per ISA level on the same
 * packets (ip_nodes.c, icmp_nodes.c, tunnel_nodes.c): interface-output's callback
 * records what each graph sends (interface, length, bytes) so the graphs'
 * outputs can be compared byte for byte, and the graphs' drop counters are
 * compared reason by reason.
 */
#ifndef VPK_FUZZ_GRAPH_CHECK_H
#define VPK_FUZZ_GRAPH_CHECK_H

#include <stdlib.h>
#include <string.h>

#include <vpk/graph.h>
#include <vpk/nodes.h>

#define FZ_OUT_MAX (64 * 2100)

struct fz_out {
	struct vpk_pool *pool;
	uint8_t buf[FZ_OUT_MAX];        /* records: tx_if (4), len (2), pad (2), bytes */
	size_t n;
	uint32_t pkts;
};

static void
fz_out_tx(void *ctx, uint32_t tx_if, const uint32_t *bi, uint32_t n)
{
	struct fz_out *o = ctx;
	void *base = vpk_pool_base(o->pool);

	for (uint32_t i = 0; i < n; i++) {
		struct vpk_buf *b = vpk_buf_from_idx(base, bi[i]);

		if (o->n + b->len + 8 <= FZ_OUT_MAX) {
			memcpy(o->buf + o->n, &tx_if, 4);
			memcpy(o->buf + o->n + 4, &b->len, 2);
			memcpy(o->buf + o->n + 8, vpk_buf_data(b), b->len);
			o->n += 8 + b->len;
		}
	}
	o->pkts += n;
	vpk_pool_free_bulk(o->pool, bi, n);
}

/* abort() unless @a sent what @b sent and counted the same drops. */
static void
fz_same(const struct fz_out *oa, struct vpk_graph *a, const struct fz_out *ob, struct vpk_graph *b)
{
	if (oa->pkts != ob->pkts || oa->n != ob->n || memcmp(oa->buf, ob->buf, oa->n) != 0)
		abort();        /* variants disagree on the output */
	for (size_t i = 0; i < vpk_graph_n_nodes(a); i++)
		for (uint16_t k = 0; k < vpk_graph_node_n_errors(a, i); k++) {
			uint64_t x = 0, y = 0;

			vpk_graph_node_error(a, i, k, NULL, &x);
			vpk_graph_node_error(b, i, k, NULL, &y);
			if (x != y)
				abort();        /* ... or on a drop reason */
		}
}

/*
 * Inject the frame @f (@len bytes) into each of the @n_g graphs @g (their
 * outputs recorded in @outs), run them, and abort() unless every buffer is
 * back in @pool and every graph did what the first one did.
 */
static inline void
fz_run_frame(struct vpk_pool *pool, struct vpk_graph **g, struct fz_out *outs, unsigned n_g, const uint8_t *f,
	     size_t len)
{
	for (unsigned v = 0; v < n_g; v++) {
		uint32_t bi;
		struct vpk_buf *b;

		outs[v].n = 0;
		outs[v].pkts = 0;
		if (vpk_pool_alloc_burst(pool, &bi, 1) != 1)
			abort();
		b = vpk_buf_from_idx(vpk_pool_base(pool), bi);
		memcpy(vpk_buf_data(b), f, len);
		b->len = (uint16_t)len;
		b->total_len = b->len;
		vpk_graph_clear_stats(g[v]);
		vpk_graph_inject(g[v], "ethernet-input", &bi, 1);
		vpk_graph_run_once(g[v]);
		if (vpk_pool_in_use(pool) != 0)
			abort();        /* a buffer was lost or not yet dispatched */
		fz_same(&outs[v], g[v], &outs[0], g[0]);
	}
}

/* The IPv4 header checksum to store for the @len-byte header @h (its checksum field skipped). */
static inline uint16_t
fz_ip4_csum(const uint8_t *h, unsigned len)
{
	uint32_t s = 0;

	for (unsigned k = 0; k < len; k += 2)
		if (k != 10)
			s += (uint32_t)(h[k] << 8 | h[k + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

#endif
