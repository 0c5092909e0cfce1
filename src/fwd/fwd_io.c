/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The forwarder's packet sources and sink:
 *  - pcap-input: an input node reading up to one frame per poll from the
 *    interfaces' pcap files, round-robin, into pool buffers (rx_if set);
 *  - mem-input: an input node replaying in-memory packet templates (the
 *    demo and the benchmark: no file I/O in the measured loop);
 *  - fwd_tx: interface-output's callback: writes to the interface's output
 *    pcap and frees, or counts "no output" and frees.
 * Both input nodes are registered once per process (vpk_node_register).
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "fwd/fwd_priv.h"

const char fwd_pcap_input_name[] = "pcap-input";
const char fwd_mem_input_name[] = "mem-input";

static uint32_t
pcap_input_fn(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	struct vpk_fwd *f = vpk_node_ctx(rt);
	uint32_t idx[VPK_FRAME_SIZE];
	void *base = vpk_node_pool_base(rt);

	(void)b;
	(void)bi;
	(void)n;
	for (size_t tries = 0; tries < f->n_ifs; tries++) {
		struct fwd_if *in = &f->ifs[f->rr];
		int got;

		f->rr = (f->rr + 1) % f->n_ifs;
		if (in->rd == NULL || in->rd_done)
			continue;
		got = vpk_pcap_read_burst(in->rd, f->pool, idx, NULL, VPK_FRAME_SIZE);
		if (got < 0) {
			if (got == -ENOBUFS)
				continue;       /* pool busy: the packet waits for the next poll */
			/* A bad file: stop reading it, report the first such error after the run. */
			if (f->io_rc == 0) {
				f->io_rc = got;
				snprintf(f->io_err, sizeof(f->io_err), "%s", vpk_pcap_reader_error(in->rd));
			}
			in->rd_done = true;
			continue;
		}
		if (got == 0) {
			in->rd_done = true;
			continue;
		}
		for (int i = 0; i < got; i++)
			vpk_node_trace_mark(rt, vpk_buf_from_idx(base, idx[i]));
		in->rx += (uint64_t)got;
		vpk_node_enqueue_one(rt, idx, 0, (uint32_t)got);
		return (uint32_t)got;
	}
	return 0;
}

static uint32_t
mem_input_fn(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	struct vpk_fwd *f = vpk_node_ctx(rt);
	uint32_t idx[VPK_FRAME_SIZE], want = VPK_FRAME_SIZE, got;
	void *base = vpk_node_pool_base(rt);

	(void)b;
	(void)bi;
	(void)n;
	if (f->traffic_total - f->traffic_done < want)
		want = (uint32_t)(f->traffic_total - f->traffic_done);
	got = vpk_pool_alloc_burst(f->pool, idx, want);
	for (uint32_t i = 0; i < got; i++) {
		struct vpk_buf *x = vpk_buf_from_idx(base, idx[i]);
		size_t t = (size_t)((f->traffic_done + i) % f->n_tmpl);

		memcpy(vpk_buf_data(x), f->tmpl + t * FWD_TMPL_MAX, f->tmpl_len[t]);
		x->len = x->total_len = f->tmpl_len[t];
		x->rx_if = 0;
		vpk_node_trace_mark(rt, x);
	}
	f->traffic_done += got;
	if (f->n_ifs > 0)
		f->ifs[0].rx += got;
	vpk_node_enqueue_one(rt, idx, 0, got);
	return got;
}

void
fwd_tx(void *ctx, uint32_t tx_if, const uint32_t *bi, uint32_t n)
{
	struct vpk_fwd *f = ctx;
	struct fwd_if *o = tx_if < f->n_ifs ? &f->ifs[tx_if] : NULL;

	if (o != NULL && o->wr != NULL) {
		int rc = vpk_pcap_write_burst(o->wr, f->pool, bi, NULL, n);

		if (rc != 0 && f->io_rc == 0) {
			f->io_rc = rc;
			snprintf(f->io_err, sizeof(f->io_err), "%s", vpk_pcap_writer_error(o->wr));
		}
		o->tx += n;
	} else if (o != NULL && o->discard) {
		o->tx += n;
	} else if (o != NULL) {
		o->tx_no_output += n;
	}
	vpk_pool_free_bulk(f->pool, bi, n);
}

static const char *const input_next[] = { "ethernet-input" };
static const struct vpk_node_impl pcap_input_impl = { { "scalar", VPK_ISA_SCALAR, 64 }, pcap_input_fn };
static const struct vpk_impl *const pcap_input_impls[] = { &pcap_input_impl.base, NULL };
static const struct vpk_node_impl mem_input_impl = { { "scalar", VPK_ISA_SCALAR, 64 }, mem_input_fn };
static const struct vpk_impl *const mem_input_impls[] = { &mem_input_impl.base, NULL };

static int
input_init(struct vpk_node_rt *rt, void *conf)
{
	vpk_node_set_ctx(rt, conf);
	return conf != NULL ? 0 : -EINVAL;
}

static const struct vpk_node_reg pcap_input_reg = {
	.name = fwd_pcap_input_name, .type = VPK_NODE_INPUT, .n_next = 1, .next_names = input_next,
	.impls = pcap_input_impls, .init = input_init,
};
static const struct vpk_node_reg mem_input_reg = {
	.name = fwd_mem_input_name, .type = VPK_NODE_INPUT, .n_next = 1, .next_names = input_next,
	.impls = mem_input_impls, .init = input_init,
};

static int reg_rc;
static pthread_once_t reg_once = PTHREAD_ONCE_INIT;

static void
do_register(void)
{
	reg_rc = vpk_node_register(&pcap_input_reg);
	if (reg_rc == 0)
		reg_rc = vpk_node_register(&mem_input_reg);
}

int
fwd_register_nodes(void)
{
	pthread_once(&reg_once, do_register);
	return reg_rc;
}
