/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Several workers: one graph instance per worker thread, pinned to CPU
 * w % ncpu. Flows are spread like NIC RSS: the Toeplitz hash of the 4-tuple
 * (addresses only for other IP traffic; non-IP to worker 0) indexes a
 * 128-entry indirection table whose entry i is worker i % n.
 *
 *  - live input where every input port has a queue per worker (af_packet:
 *    one socket per worker in a PACKET_FANOUT hash group; af_xdp, dpdk:
 *    `queues N` >= workers): worker w reads queues w, w + n, ... of every
 *    port itself ("queue-input"), so the kernel's fanout or the NIC's RSS
 *    spreads the flows and no thread hands packets on;
 *  - otherwise (pcap files, fewer queues than workers): the calling thread
 *    reads the ports and hands each packet's buffer index to its worker over
 *    a single-producer/single-consumer ring (4096 entries); a full ring makes
 *    the reader wait, never drop (back-pressure). Workers run "ring-input".
 *  - in-memory traffic (demo, benchmarks): templates are assigned to workers
 *    by the same hash and each worker generates its own share
 *    ("rss-mem-input"), so the measurement has no dispatcher in it.
 *
 * Outputs: where workers read their own queues, worker w also sends on
 * queue w of an output port that has a queue per worker (no lock: nothing
 * else uses that queue); other outputs (pcap writers, ports with fewer
 * queues) are sent under a lock. Counters are per graph.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <x86intrin.h>

#include <vpk/rss.h>
#include "fwd/fwd_priv.h"
#include "fwd/fwd_workers.h"

static const char ring_input_name[] = "ring-input";
static const char rss_mem_input_name[] = "rss-mem-input";
static const char queue_input_name[] = "queue-input";

/* The worker the calling thread is, where workers read their own queues (-1: none). */
static _Thread_local int tl_worker = -1;

static void
fwd_tx_locked(void *ctx, uint32_t tx_if, const uint32_t *bi, uint32_t n)
{
	struct vpk_fwd *f = ctx;
	struct fwd_wstate *ws = f->wstate;

	if (tl_worker >= 0 && fwd_tx_worker(f, (unsigned)tl_worker, ws->n, tx_if, bi, n))
		return;
	pthread_mutex_lock(&ws->tx_lock);
	fwd_tx(f, tx_if, bi, n);
	pthread_mutex_unlock(&ws->tx_lock);
}

int
fwd_workers_init(struct vpk_fwd *f)
{
	static const uint8_t key[40] = VPK_RSS_KEY_DEFAULT;
	static const size_t lens[4] = { 12, 8, 36, 32 };
	struct fwd_wstate *ws = calloc(1, sizeof(*ws));
	int rc = 0;

	if (ws == NULL)
		return -ENOMEM;
	pthread_mutex_init(&ws->tx_lock, NULL);
	/* Only runs on several workers hash flows (fwd_run_workers()); the
	 * tables take tens of milliseconds to build, which a one-worker
	 * forwarder (and every short-lived one, as in tests) need not pay. */
	for (int i = 0; i < 4 && rc == 0 && (f->conf.workers > 1 || f->conf.wide_cores != NULL); i++)
		rc = vpk_rss_create(&(struct vpk_rss_conf){ .key = key, .key_len = sizeof(key), .len = lens[i] },
				    &ws->rss[i]);
	f->wstate = ws;
	f->out_mt.tx = fwd_tx_locked;
	f->out_mt.ctx = f;
	if (rc != 0)
		fwd_workers_fini(f);
	return rc;
}

void
fwd_workers_fini(struct vpk_fwd *f)
{
	struct fwd_wstate *ws = f->wstate;

	if (ws == NULL)
		return;
	for (int i = 0; i < 4; i++)
		vpk_rss_destroy(ws->rss[i]);
	pthread_mutex_destroy(&ws->tx_lock);
	free(ws);
	f->wstate = NULL;
}

/* RSS: the worker of the frame @d (@len bytes). */
static unsigned
pick_worker(const struct fwd_wstate *ws, const uint8_t *d, uint32_t len, unsigned n)
{
	uint32_t off = 14, h = 0;
	uint16_t et;
	uint8_t tuple[36];

	if (len < 14 || n == 1)
		return 0;
	et = (uint16_t)(d[12] << 8 | d[13]);
	for (int t = 0; t < 2 && (et == 0x8100 || et == 0x88a8) && len >= off + 4; t++) {
		et = (uint16_t)(d[off + 2] << 8 | d[off + 3]);
		off += 4;
	}
	if (et == 0x0800 && len >= off + 20) {
		const uint8_t *ip = d + off;
		uint32_t l4 = off + (ip[0] & 15u) * 4;
		bool frag = ((ip[6] << 8 | ip[7]) & 0x3fff) != 0;

		memcpy(tuple, ip + 12, 8);
		if ((ip[9] == 6 || ip[9] == 17) && !frag && len >= l4 + 4) {
			memcpy(tuple + 8, d + l4, 4);
			vpk_rss_hash_bulk(ws->rss[0], tuple, 12, &h, 1);
		} else {
			vpk_rss_hash_bulk(ws->rss[1], tuple, 8, &h, 1);
		}
	} else if (et == 0x86dd && len >= off + 40) {
		const uint8_t *ip = d + off;

		memcpy(tuple, ip + 8, 32);
		if ((ip[6] == 6 || ip[6] == 17) && len >= off + 44) {
			memcpy(tuple + 32, ip + 40, 4);
			vpk_rss_hash_bulk(ws->rss[2], tuple, 36, &h, 1);
		} else {
			vpk_rss_hash_bulk(ws->rss[3], tuple, 32, &h, 1);
		}
	} else {
		return 0;
	}
	return (h % RETA_SIZE) % n;
}

static uint32_t
ring_input_fn(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	struct fwd_wk *wk = vpk_node_ctx(rt);
	uint32_t head = atomic_load_explicit(&wk->head, memory_order_acquire);
	uint32_t tail = atomic_load_explicit(&wk->tail, memory_order_relaxed);
	uint32_t idx[VPK_FRAME_SIZE], cnt = 0;
	void *base = vpk_node_pool_base(rt);

	(void)b;
	(void)bi;
	(void)n;
	while (tail != head && cnt < VPK_FRAME_SIZE) {
		idx[cnt] = wk->ring[tail % RING_SIZE];
		vpk_node_trace_mark(rt, vpk_buf_from_idx(base, idx[cnt]));
		cnt++;
		tail++;
	}
	atomic_store_explicit(&wk->tail, tail, memory_order_release);
	wk->produced += cnt;
	vpk_node_enqueue_one(rt, idx, 0, cnt);
	return cnt;
}

static uint32_t
rss_mem_input_fn(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	struct fwd_wk *wk = vpk_node_ctx(rt);
	uint32_t got;

	(void)b;
	(void)bi;
	(void)n;
	got = fwd_mem_frame(rt, wk->f, wk->tmpl, wk->n_tmpl, wk->done, wk->quota - wk->done);
	wk->done += got;
	wk->produced += got;
	return got;
}

/* This worker's own queues of every input port, one burst per call, ports in turn. */
static uint32_t
queue_input_fn(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	struct fwd_wk *wk = vpk_node_ctx(rt);
	struct vpk_fwd *f = wk->f;
	uint32_t idx[VPK_FRAME_SIZE];
	void *base = vpk_node_pool_base(rt);

	(void)b;
	(void)bi;
	(void)n;
	for (size_t tries = 0; tries < f->n_ifs; tries++) {
		struct fwd_if *in = &f->ifs[wk->rr];
		int got;

		wk->rr = (wk->rr + 1) % (unsigned)f->n_ifs;
		got = fwd_if_rx_worker(f, in, wk->id, wk->ws->n, idx, 64);  /* as the one-worker input reads */
		if (got <= 0)
			continue;
		for (int i = 0; i < got; i++)
			if (!vpk_node_trace_mark(rt, vpk_buf_from_idx(base, idx[i])))
				break;
		wk->produced += (uint32_t)got;
		vpk_node_enqueue_one(rt, idx, 0, (uint32_t)got);
		return (uint32_t)got;
	}
	return 0;
}

FWD_INPUT_NODE(ring, ring_input_name, ring_input_fn, 1);
FWD_INPUT_NODE(queue, queue_input_name, queue_input_fn, 1);
FWD_INPUT_NODE(rmem, rss_mem_input_name, rss_mem_input_fn, 1);
static pthread_once_t reg_once = PTHREAD_ONCE_INIT;
static int reg_rc;

static void
do_register(void)
{
	reg_rc = vpk_node_register(&ring_reg);
	if (reg_rc == 0)
		reg_rc = vpk_node_register(&rmem_reg);
	if (reg_rc == 0)
		reg_rc = vpk_node_register(&queue_reg);
}

static bool
worker_done(struct fwd_wk *wk, bool mem)
{
	if (!fwd_wide_worker_idle(wk))
		return false;
	if (mem)
		return wk->done >= wk->quota;
	return atomic_load_explicit(&wk->ws->input_done, memory_order_acquire) &&
	       atomic_load_explicit(&wk->head, memory_order_acquire) ==
		       atomic_load_explicit(&wk->tail, memory_order_relaxed);
}

struct wk_arg {
	struct fwd_wk *wk;
	bool mem;
};

static void *
worker_main(void *arg)
{
	struct wk_arg *a = arg;
	struct fwd_wk *wk = a->wk;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((int)(fwd_wide_cpu_of(wk->f, wk->id) % (unsigned)(ncpu > 0 ? ncpu : 1)), &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);  /* best effort */
	fwd_ctl_reader(wk->f, wk->id, true);
	tl_worker = wk->ws->direct ? (int)wk->id : -1;
	for (;;) {
		uint32_t n = vpk_graph_run_once(wk->g);

		fwd_ctl_tick(wk->f, wk->id, wk->g);
		if (n == 0 && worker_done(wk, a->mem))
			break;
		if (n == 0 && wk->ws->direct)
			fwd_io_idle_worker(wk->f, wk->id, wk->ws->n);
		else if (n == 0)
			sched_yield();          /* pcap mode: the reader is behind */
	}
	tl_worker = -1;
	fwd_ctl_reader(wk->f, wk->id, false);
	vpk_pool_cache_flush(wk->f->pool);
	atomic_store_explicit(&wk->finished, true, memory_order_release);
	return NULL;
}

/* The calling thread reads the inputs (pcap files or live ports) and hands packets to the workers. */
static void
dispatch(struct vpk_fwd *f, struct fwd_wstate *ws)
{
	uint32_t idx[VPK_FRAME_SIZE];
	void *base = vpk_pool_base(f->pool);

	while (!fwd_io_inputs_done(f, false)) {
		bool got_any = false;

		for (size_t i = 0; i < f->n_ifs; i++) {
			struct fwd_if *in = &f->ifs[i];
			int got;

			got = fwd_if_rx(f, in, idx, VPK_FRAME_SIZE);
			if (got == 0)
				continue;
			got_any = true;
			in->rx += (uint64_t)got;
			for (int k = 0; k < got; k++) {
				struct vpk_buf *b = vpk_buf_from_idx(base, idx[k]);
				struct fwd_wk *wk = &ws->wk[pick_worker(ws, vpk_buf_data(b), b->len, ws->n)];
				uint32_t head = atomic_load_explicit(&wk->head, memory_order_relaxed);

				/* Back-pressure: wait for room, never drop. */
				while (head - atomic_load_explicit(&wk->tail, memory_order_acquire) == RING_SIZE)
					sched_yield();
				wk->ring[head % RING_SIZE] = idx[k];
				atomic_store_explicit(&wk->head, head + 1, memory_order_release);
			}
		}
		if (!got_any)
			fwd_io_idle(f);
	}
	vpk_pool_cache_flush(f->pool);
	atomic_store_explicit(&ws->input_done, true, memory_order_release);
}

/* Every input is a live port with a queue for each of the @n workers. */
static bool
queues_per_worker(const struct vpk_fwd *f, unsigned n)
{
	size_t inputs = 0;

	if (f->conf.wide_cores != NULL)
		return false;           /* wide workers send too: every output under the lock */
	for (size_t i = 0; i < f->n_ifs; i++) {
		const struct fwd_if *x = &f->ifs[i];

		if (x->io == NULL || !x->has_input)
			continue;
		if (x->live == NULL || x->n_q < n)
			return false;
		inputs++;
	}
	return inputs > 0;
}

/* The workers read their queues: wait until the inputs are done (limits, ports gone), ticking the stats. */
static void
watch_inputs(struct vpk_fwd *f)
{
	while (!fwd_io_inputs_done(f, false)) {
		fwd_stats_tick(f);
		poll(NULL, 0, 2);
	}
}

/* Assign templates to workers by RSS; quotas split the total in proportion. */
static int
split_traffic(struct vpk_fwd *f, struct fwd_wstate *ws)
{
	uint64_t left = f->traffic_total;
	unsigned last = 0;

	for (unsigned w = 0; w < ws->n; w++) {
		ws->wk[w].tmpl = malloc(f->n_tmpl * sizeof(uint32_t));
		if (ws->wk[w].tmpl == NULL)
			return -ENOMEM;
	}
	for (size_t t = 0; t < f->n_tmpl; t++) {
		struct fwd_wk *wk = &ws->wk[pick_worker(ws, f->tmpl + t * FWD_TMPL_MAX, f->tmpl_len[t], ws->n)];

		wk->tmpl[wk->n_tmpl++] = (uint32_t)t;
	}
	for (unsigned w = 0; w < ws->n; w++) {
		if (ws->wk[w].n_tmpl == 0)
			continue;
		ws->wk[w].quota = f->traffic_total * ws->wk[w].n_tmpl / f->n_tmpl;
		left -= ws->wk[w].quota;
		last = w;
	}
	ws->wk[last].quota += left;
	return 0;
}

int
fwd_run_workers(struct vpk_fwd *f, bool mem, struct vpk_fwd_run_stats *st, char *err, size_t len)
{
	struct fwd_wstate *ws = f->wstate;
	unsigned n = f->conf.workers;
	bool started[FWD_MAX_WORKERS] = { false };
	struct wk_arg args[FWD_MAX_WORKERS];
	uint64_t t0;
	bool locked;
	int rc;

	pthread_once(&reg_once, do_register);
	if (reg_rc != 0)
		return reg_rc;
	ws->wk = aligned_alloc(64, ((size_t)n * sizeof(*ws->wk) + 63) / 64 * 64);
	if (ws->wk == NULL)
		return -ENOMEM;
	memset(ws->wk, 0, (size_t)n * sizeof(*ws->wk));
	ws->n = n;
	atomic_store(&ws->input_done, false);
	ws->direct = !mem && queues_per_worker(f, n);
	rc = mem ? split_traffic(f, ws) : 0;
	if (rc == 0 && f->conf.wide_cores != NULL) {
		/* Core specialization: the normal workers' graphs stay within 256 bits. */
		rc = fwd_wide_prepare(f, ws, err, len);
		f->graph_max_bits = 256;
	}
	locked = fwd_ctl_lock(f);       /* the control threads see the graphs built or none */
	for (unsigned w = 0; w < n && rc == 0; w++) {
		ws->wk[w].f = f;
		ws->wk[w].ws = ws;
		ws->wk[w].id = w;
		rc = fwd_build_graph(f, mem ? rss_mem_input_name : ws->direct ? queue_input_name : ring_input_name,
				     &ws->wk[w],
				     f->conf.wide_cores ? fwd_wide_return_name : NULL, &ws->wk[w], w,
				     &f->wgraphs[w], err, len);
		if (rc == 0) {
			f->n_wgraphs = w + 1;
			ws->wk[w].g = f->wgraphs[w];
		}
	}
	fwd_ctl_unlock(f, locked);
	f->graph_max_bits = 0;
	t0 = __rdtsc();
	if (rc == 0 && ws->wide != NULL)
		rc = fwd_wide_start(f, ws, err, len);
	for (unsigned w = 0; w < n && rc == 0; w++) {
		args[w] = (struct wk_arg){ &ws->wk[w], mem };
		if (mem && ws->wk[w].quota == 0) {
			atomic_store(&ws->wk[w].finished, true);
			continue;               /* no flow hashed to this worker */
		}
		if (pthread_create(&ws->wk[w].th, NULL, worker_main, &args[w]) != 0) {
			rc = -EAGAIN;
			snprintf(err, len, "cannot start worker %u", w);
			break;
		}
		started[w] = true;
	}
	if (!mem && !ws->direct) {
		dispatch(f, ws);
	} else {
		if (!mem && rc == 0)
			watch_inputs(f);
		atomic_store(&ws->input_done, true);
	}
	for (unsigned w = 0; w < n; w++) {
		if (started[w])
			pthread_join(ws->wk[w].th, NULL);
		atomic_store(&ws->wk[w].finished, true);
	}
	if (ws->wide != NULL)
		fwd_wide_join(f, ws);
	st->tsc = __rdtsc() - t0;
	for (unsigned w = 0; w < n; w++) {
		st->packets += ws->wk[w].produced;
		if (w < f->n_wgraphs) {
			st->forwarded += fwd_node_error(f->wgraphs[w], "interface-output", 0);
			st->dropped += fwd_node_error(f->wgraphs[w], "error-drop", 0);
		}
		free(ws->wk[w].tmpl);
	}
	fwd_wide_free(ws);
	free(ws->wk);
	ws->wk = NULL;
	return rc;
}
