/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Core specialization for the forwarder (`vpk fwd --wide-cores LIST`):
 * confine 512-bit work to a few cores, the user-space, graph-level version
 * of Gottschlag and Bellosa's scheduler patch (shared/sources/kit-...).
 *
 *   normal worker w (cap 256)                     wide worker k (512-bit variants)
 *   ethernet-input -> ip4-input -> [ip4-acl]  --to_wide ring-->  ip4-acl -> ip4-lookup
 *            ip4-rewrite <- <-from_wide ring <-- (every non-wide node is a proxy home)
 *
 * Normal workers build their graphs with no variant wider than 256 bits and
 * mark the wide nodes remote (vpk_graph_set_remote()): a frame for one of
 * them is copied into the normal worker's to_wide ring. The wide worker runs
 * the frame through its own graph, whose non-wide nodes are remote in turn:
 * their frames go back over the from_wide ring of the worker the frame came
 * from and enter that worker's graph at the same node ("wide-return" input).
 * A wide worker takes a new frame only when the previous one is fully back,
 * so it always knows where to return frames.
 *
 * Back-pressure: a full ring refuses the frame; the graph keeps it and offers
 * it again next pass (counted as remote_full); nothing is dropped. A normal
 * worker finishes only when nothing it handed off is still out.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/libvpk_internal.h"
#include "fwd/fwd_workers.h"

#define MAX_WIDE_NODES 16

struct wide_msg {
	uint16_t node;                  /* graph node index (same in every graph of a run) */
	uint16_t n;
	uint32_t bi[VPK_FRAME_SIZE];
};

struct wide_ring {
	uint32_t size;                  /* messages */
	_Atomic uint32_t head, tail;
	struct wide_msg *slot;
};

struct fwd_wwk {
	struct fwd_wide *wide;
	unsigned id, cpu;
	pthread_t th;
	bool started;
	struct vpk_graph *g;
	unsigned rr;                    /* next normal worker to take a frame from */
	int cur;                        /* normal worker whose frame is in the graph, -1: none */
	/* Node numbers differ between a normal graph and a wide one (different
	 * input nodes): map them by name, both ways. */
	uint16_t to_wide_idx[VPK_GRAPH_MAX_NODES], to_home_idx[VPK_GRAPH_MAX_NODES];
};

struct fwd_wide {
	struct fwd_wstate *ws;
	unsigned cpus[FWD_MAX_WORKERS], n_cpus;
	unsigned normal_cpus[FWD_MAX_WORKERS], n_normal_cpus;
	char names[MAX_WIDE_NODES][VPK_NODE_NAME_MAX];
	unsigned n_names;
	struct fwd_wwk ww[FWD_MAX_WORKERS];
	struct wide_ring *rings;        /* 2 per normal worker */
};

const char fwd_wide_return_name[] = "wide-return";
static const char wide_input_name[] = "wide-input";

static int
ring_push(struct wide_ring *r, uint16_t node, const uint32_t *bi, uint32_t n)
{
	uint32_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	struct wide_msg *m;

	if (head - atomic_load_explicit(&r->tail, memory_order_acquire) == r->size)
		return -EAGAIN;
	m = &r->slot[head % r->size];
	m->node = node;
	m->n = (uint16_t)n;
	memcpy(m->bi, bi, n * sizeof(*bi));
	atomic_store_explicit(&r->head, head + 1, memory_order_release);
	return 0;
}

/* The oldest message, or NULL; release it with ring_pop_done(). */
static struct wide_msg *
ring_peek(struct wide_ring *r)
{
	uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);

	if (tail == atomic_load_explicit(&r->head, memory_order_acquire))
		return NULL;
	return &r->slot[tail % r->size];
}

static void
ring_pop_done(struct wide_ring *r)
{
	atomic_store_explicit(&r->tail, atomic_load_explicit(&r->tail, memory_order_relaxed) + 1,
			      memory_order_release);
}

/* Normal worker: a frame for a wide node goes to the wide worker. */
static int
to_wide(void *ctx, uint16_t node, const uint32_t *bi, uint32_t n)
{
	struct fwd_wk *wk = ctx;
	int rc = ring_push(wk->to_wide, node, bi, n);

	if (rc == 0) {
		atomic_fetch_add_explicit(&wk->outstanding, n, memory_order_relaxed);
		wk->handed += n;
	}
	return rc;
}

/* Wide worker: a frame for a non-wide node goes home. */
static int
to_home(void *ctx, uint16_t node, const uint32_t *bi, uint32_t n)
{
	struct fwd_wwk *ww = ctx;

	return ring_push(ww->wide->ws->wk[ww->cur].from_wide, ww->to_home_idx[node], bi, n);
}

/* Normal worker's input node: frames coming back from the wide worker. */
static uint32_t
wide_return_fn(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	struct fwd_wk *wk = vpk_node_ctx(rt);
	struct wide_msg *m;
	uint32_t got = 0;

	(void)b;
	(void)bi;
	(void)n;
	while (got < VPK_FRAME_SIZE && (m = ring_peek(wk->from_wide)) != NULL) {
		vpk_graph_inject_idx(vpk_node_graph(rt), m->node, m->bi, m->n);
		got += m->n;
		ring_pop_done(wk->from_wide);
	}
	wk->returned += got;
	atomic_fetch_sub_explicit(&wk->outstanding, got, memory_order_release);
	return got;
}

/* Wide worker's input node: one frame at a time from the normal workers it serves. */
static uint32_t
wide_input_fn(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	struct fwd_wwk *ww = vpk_node_ctx(rt);
	struct fwd_wstate *ws = ww->wide->ws;

	(void)b;
	(void)bi;
	(void)n;
	if (vpk_graph_busy(ww->g))
		return 0;               /* the previous frame is not all home yet */
	for (unsigned k = 0; k < ws->n; k++) {
		unsigned w = (ww->rr + k) % ws->n;
		struct wide_msg *m;
		uint32_t cnt;

		if (ws->wk[w].to_wide == NULL || w % ww->wide->n_cpus != ww->id)
			continue;
		m = ring_peek(ws->wk[w].to_wide);
		if (m == NULL)
			continue;
		ww->cur = (int)w;
		ww->rr = w + 1;
		cnt = m->n;
		vpk_graph_inject_idx(vpk_node_graph(rt), ww->to_wide_idx[m->node], m->bi, m->n);
		ring_pop_done(ws->wk[w].to_wide);
		return cnt;
	}
	return 0;
}

FWD_INPUT_NODE(ret, fwd_wide_return_name, wide_return_fn, 0);
FWD_INPUT_NODE(win, wide_input_name, wide_input_fn, 0);
static pthread_once_t reg_once = PTHREAD_ONCE_INIT;
static int reg_rc;

static void
do_register(void)
{
	reg_rc = vpk_node_register(&ret_reg);
	if (reg_rc == 0)
		reg_rc = vpk_node_register(&win_reg);
}

/* "1", "2-3,6" -> CPU numbers (CPUs below 1024). */
static int
parse_cpus(const char *s, unsigned *out, unsigned *n, char *why, size_t len)
{
	int k = vpk_num_ranges(s, 1023, out, FWD_MAX_WORKERS, why, len);

	if (k < 0)
		return k == -E2BIG ? -E2BIG : -EINVAL;
	*n = (unsigned)k;
	return 0;
}

bool
fwd_wide_worker_idle(struct fwd_wk *wk)
{
	if (wk->to_wide == NULL)
		return true;
	return atomic_load_explicit(&wk->outstanding, memory_order_acquire) == 0 &&
	       !vpk_graph_busy(wk->g);
}

unsigned
fwd_wide_cpu_of(const struct vpk_fwd *f, unsigned w)
{
	const struct fwd_wide *wd = f->wstate != NULL ? f->wstate->wide : NULL;

	if (wd == NULL || wd->n_normal_cpus == 0)
		return w;
	return wd->normal_cpus[w % wd->n_normal_cpus];
}

static bool
is_wide(const struct fwd_wide *wd, const char *name)
{
	for (unsigned i = 0; i < wd->n_names; i++)
		if (strcmp(wd->names[i], name) == 0)
			return true;
	return false;
}

/* Pick, for an object shared by all workers, its best variant no wider than 256 bits. */
static const char *
best_narrow(const struct vpk_impl *const *tab)
{
	for (; *tab != NULL; tab++)
		if ((*tab)->width <= 256 && vpk_impl_why_not(*tab) == NULL)
			return (*tab)->name;
	return "scalar";
}

/*
 * Before the normal workers' graphs are built: parse the lists, choose the
 * CPUs, make the rings. Normal graphs are then built with variants of at
 * most 256 bits (f->graph_max_bits).
 */
int
fwd_wide_prepare(struct vpk_fwd *f, struct fwd_wstate *ws, char *err, size_t len)
{
	const char *nodes = f->conf.wide_nodes ? f->conf.wide_nodes
					      : "ip4-acl,ip6-acl,ip4-lookup,ip6-lookup";
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct fwd_wide *wd;
	unsigned ring = f->conf.wide_ring ? f->conf.wide_ring : 64;
	char why[160];
	bool locked;
	int rc;

	pthread_once(&reg_once, do_register);
	if (reg_rc != 0)
		return vpk_errf(err, len, reg_rc, "cannot register the wide-core nodes");
	wd = calloc(1, sizeof(*wd));
	if (wd == NULL)
		return vpk_errf(err, len, -ENOMEM, "out of memory");
	ws->wide = wd;
	wd->ws = ws;
	rc = parse_cpus(f->conf.wide_cores, wd->cpus, &wd->n_cpus, why, sizeof(why));
	if (rc != 0)
		return vpk_errf(err, len, -EINVAL, "--wide-cores=%s: %s (want CPU numbers like 1 or 2-3,6)",
				f->conf.wide_cores, why);
	for (unsigned i = 0; i < wd->n_cpus; i++)
		if (ncpu > 0 && wd->cpus[i] >= (unsigned)ncpu)
			return vpk_errf(err, len, -EINVAL, "--wide-cores: CPU %u is not online (0..%ld)",
					wd->cpus[i], ncpu - 1);
	for (long c = 0; c < ncpu; c++) {
		bool wide = false;

		for (unsigned i = 0; i < wd->n_cpus; i++)
			wide = wide || wd->cpus[i] == (unsigned)c;
		if (!wide)
			wd->normal_cpus[wd->n_normal_cpus++] = (unsigned)c;
	}
	while (*nodes != '\0') {
		size_t l = strcspn(nodes, ",");

		if (l == 0 || l >= VPK_NODE_NAME_MAX || wd->n_names == MAX_WIDE_NODES)
			return vpk_errf(err, len, -EINVAL, "--wide-nodes: bad list");
		memcpy(wd->names[wd->n_names], nodes, l);
		wd->names[wd->n_names][l] = '\0';
		if (vpk_node_find(wd->names[wd->n_names]) == NULL)
			return vpk_errf(err, len, -EINVAL, "--wide-nodes: no node '%s'", wd->names[wd->n_names]);
		wd->n_names++;
		nodes += l;
		if (*nodes == ',')
			nodes++;
	}
	wd->rings = calloc(2 * (size_t)ws->n, sizeof(*wd->rings));
	if (wd->rings == NULL)
		return vpk_errf(err, len, -ENOMEM, "out of memory");
	for (unsigned w = 0; w < 2 * ws->n; w++) {
		wd->rings[w].size = ring;
		wd->rings[w].slot = malloc((size_t)ring * sizeof(struct wide_msg));
		if (wd->rings[w].slot == NULL)
			return vpk_errf(err, len, -ENOMEM, "out of memory");
	}
	/* Shared objects used by nodes that stay on the normal workers run narrow too. */
	locked = fwd_ctl_lock(f);       /* live changes replace the ACLs */
	if (!is_wide(wd, "ip4-lookup"))
		vpk_fib_select(f->fib4, best_narrow(vpk_fib_impls(vpk_fib_get_type(f->fib4))));
	if (!is_wide(wd, "ip6-lookup"))
		vpk_fib6_select(f->fib6, best_narrow(vpk_fib6_impls(VPK_FIB6_TYPE_DEFAULT)));
	if (!is_wide(wd, "ip4-acl") && f->acl4.acl != NULL)
		vpk_acl_select(f->acl4.acl, best_narrow(vpk_acl_impls()));
	if (!is_wide(wd, "ip6-acl") && f->acl6.acl != NULL)
		vpk_acl_select(f->acl6.acl, best_narrow(vpk_acl_impls()));
	fwd_ctl_unlock(f, locked);
	return 0;
}

static void *
wide_main(void *arg)
{
	struct fwd_wwk *ww = arg;
	struct fwd_wstate *ws = ww->wide->ws;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((int)ww->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);     /* best effort */
	fwd_ctl_reader(ws->wk[0].f, ws->n + ww->id, true);             /* live changes: a QSBR reader too */
	for (;;) {
		uint32_t n = vpk_graph_run_once(ww->g);
		bool all_done = true;

		fwd_ctl_tick(ws->wk[0].f, ws->n + ww->id, ww->g);

		if (n != 0 || vpk_graph_busy(ww->g))
			continue;
		for (unsigned w = 0; w < ws->n; w++)
			if (w % ww->wide->n_cpus == ww->id &&
			    !atomic_load_explicit(&ws->wk[w].finished, memory_order_acquire))
				all_done = false;
		if (all_done)
			break;
		sched_yield();
	}
	fwd_ctl_reader(ws->wk[0].f, ws->n + ww->id, false);
	vpk_pool_cache_flush(ws->wk[0].f->pool);
	return NULL;
}

/* After the normal graphs exist: wire the rings, build the wide graphs, start the wide workers. */
int
fwd_wide_start(struct vpk_fwd *f, struct fwd_wstate *ws, char *err, size_t len)
{
	struct fwd_wide *wd = ws->wide;
	bool locked;
	int rc = 0;

	for (unsigned w = 0; w < ws->n; w++) {
		struct fwd_wk *wk = &ws->wk[w];

		wk->to_wide = &wd->rings[2 * w];
		wk->from_wide = &wd->rings[2 * w + 1];
		for (unsigned i = 0; i < wd->n_names; i++) {
			rc = vpk_graph_set_remote(wk->g, wd->names[i], to_wide, wk);
			if (rc != 0 && rc != -EINVAL)   /* -EINVAL: that node is not in this graph */
				return vpk_errf(err, len, rc, "cannot hand off node %s", wd->names[i]);
		}
	}
	rc = 0;
	locked = fwd_ctl_lock(f);       /* the control threads see each wide graph built or not */
	for (unsigned k = 0; k < wd->n_cpus && rc == 0; k++) {
		struct fwd_wwk *ww = &wd->ww[k];
		struct vpk_graph *g;

		ww->wide = wd;
		ww->id = k;
		ww->cpu = wd->cpus[k];
		ww->cur = -1;
		rc = fwd_build_graph(f, wide_input_name, ww, NULL, NULL, ws->n + k, &ww->g, err, len);
		if (rc != 0)
			break;
		g = ww->g;
		f->wgraphs[f->n_wgraphs++] = g;
		/* Every normal graph has the same nodes in the same order: map by name. */
		for (size_t i = 0; i < VPK_GRAPH_MAX_NODES; i++)
			ww->to_wide_idx[i] = ww->to_home_idx[i] = 0;
		for (size_t i = 0; i < vpk_graph_n_nodes(ws->wk[0].g); i++) {
			struct vpk_node_stats st;
			int j;

			vpk_graph_get_node_stats(ws->wk[0].g, i, &st);
			j = vpk_graph_node_index(g, st.name);
			if (j >= 0) {
				ww->to_wide_idx[i] = (uint16_t)j;
				ww->to_home_idx[j] = (uint16_t)i;
			}
		}
		for (size_t i = 0; i < vpk_graph_n_nodes(g); i++) {
			struct vpk_node_stats st;

			vpk_graph_get_node_stats(g, i, &st);
			if (!is_wide(wd, st.name) && strcmp(st.name, wide_input_name) != 0)
				vpk_graph_set_remote(g, st.name, to_home, ww);
		}
	}
	fwd_ctl_unlock(f, locked);
	if (rc != 0)
		return rc;
	for (unsigned k = 0; k < wd->n_cpus; k++) {
		if (pthread_create(&wd->ww[k].th, NULL, wide_main, &wd->ww[k]) != 0)
			return vpk_errf(err, len, -EAGAIN, "cannot start wide worker %u", k);
		wd->ww[k].started = true;
	}
	return 0;
}

void
fwd_wide_join(struct vpk_fwd *f, struct fwd_wstate *ws)
{
	(void)f;
	for (unsigned k = 0; k < ws->wide->n_cpus; k++)
		if (ws->wide->ww[k].started)
			pthread_join(ws->wide->ww[k].th, NULL);
}

void
fwd_wide_free(struct fwd_wstate *ws)
{
	struct fwd_wide *wd = ws->wide;

	if (wd == NULL)
		return;
	if (wd->rings != NULL)
		for (unsigned w = 0; w < 2 * ws->n; w++)
			free(wd->rings[w].slot);
	free(wd->rings);
	free(wd);
	ws->wide = NULL;
}
