/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Graph data plane: frames, the main loop (vpk_graph_run_once), enqueue to
 * next nodes, and tracing.
 *
 * Frames: each target node has at most one open frame that every node
 * enqueuing to it appends to (VPP's next-frame aggregation); the frame joins
 * the pending FIFO when it is opened, keeps filling until it is full or is
 * dispatched, and is recycled after its node has run. The FIFO is drained
 * until empty in every pass, so a pass takes packets from input to output.
 *
 * Clocks: one TSC read after every node call; the node is charged from the
 * previous read (VPP's chained last_time_stamp), so the dispatcher's own
 * bookkeeping and the frame's index->pointer conversion count against the
 * node that follows, as in VPP. Figures are TSC ticks ("clocks").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include "graph/graph_priv.h"

struct vpk_frame *
graph_frame_get(struct vpk_graph *g, uint16_t node)
{
	struct vpk_frame *f = g->free_frames;

	if (f != NULL) {
		g->free_frames = f->next_free;
	} else {
		if (g->n_all == g->cap_all) {
			size_t cap = g->cap_all ? 2 * g->cap_all : 16;
			struct vpk_frame **a = realloc(g->all_frames, cap * sizeof(*a));

			if (a == NULL)
				return NULL;
			g->all_frames = a;
			g->cap_all = cap;
		}
		f = aligned_alloc(64, (sizeof(*f) + 63) / 64 * 64);
		if (f == NULL)
			return NULL;
		g->all_frames[g->n_all++] = f;
	}
	f->n = 0;
	f->node = node;
	f->next_free = NULL;
	return f;
}

void
graph_frame_put(struct vpk_graph *g, struct vpk_frame *f)
{
	f->next_free = g->free_frames;
	g->free_frames = f;
}

void
graph_free_all_frames(struct vpk_graph *g)
{
	/* Packets still pending or deferred are returned to the pool: nothing is lost. */
	for (size_t i = 0; i < g->n_deferred; i++)
		vpk_pool_free_bulk(g->pool, g->deferred[i]->bi, g->deferred[i]->n);
	g->n_deferred = 0;
	while (g->pend_count > 0) {
		struct vpk_frame *f = g->pending[g->pend_head];

		g->pend_head = (g->pend_head + 1) & (g->pend_cap - 1);
		g->pend_count--;
		g->nodes[f->node].queued--;
		vpk_pool_free_bulk(g->pool, f->bi, f->n);
	}
	for (size_t i = 0; i < g->n_all; i++)
		free(g->all_frames[i]);
	free(g->all_frames);
	g->all_frames = NULL;
	g->n_all = g->cap_all = 0;
	g->free_frames = NULL;
}

/* The FIFO of frames to run: a ring of a power-of-two size (16, doubled as it fills), indexed by masking. */
static int
pending_push(struct vpk_graph *g, struct vpk_frame *f)
{
	if (g->pend_count == g->pend_cap) {
		size_t cap = g->pend_cap ? 2 * g->pend_cap : 16;
		struct vpk_frame **p = malloc(cap * sizeof(*p));

		if (p == NULL)
			return -ENOMEM;
		for (size_t i = 0; i < g->pend_count; i++)
			p[i] = g->pending[(g->pend_head + i) & (g->pend_cap - 1)];
		free(g->pending);
		g->pending = p;
		g->pend_cap = cap;
		g->pend_head = 0;
	}
	g->pending[(g->pend_head + g->pend_count) & (g->pend_cap - 1)] = f;
	g->pend_count++;
	g->nodes[f->node].queued++;
	return 0;
}

/* The open frame for @target, opening (and queueing) one if needed; NULL on ENOMEM. */
static struct vpk_frame *
open_frame(struct vpk_graph *g, uint16_t target)
{
	struct vpk_frame *f = g->open[target];

	if (f != NULL)
		return f;
	f = graph_frame_get(g, target);
	if (f == NULL)
		return NULL;
	if (pending_push(g, f) != 0) {
		graph_frame_put(g, f);
		return NULL;
	}
	g->open[target] = f;
	return f;
}

/*
 * Copy @n indices into @target's frames, opening new ones as they fill.
 * Frames and the FIFO grow on demand; if memory runs out the packets are
 * freed rather than lost track of (the pool's accounting stays exact).
 */
static void
append(struct vpk_graph *g, uint16_t target, const uint32_t *src, uint32_t n)
{
	if (target == VPK_ARC_NONE) {
		/* An arc to a node left out of the graph: a node bug (debug builds
		 * assert before this); free rather than corrupt memory. */
		g->drops.no_arc += n;
		vpk_pool_free_bulk(g->pool, src, n);
		return;
	}
	while (n > 0) {
		struct vpk_frame *f = open_frame(g, target);
		uint32_t room, take;

		if (f == NULL) {
			g->drops.no_memory += n;
			vpk_pool_free_bulk(g->pool, src, n);
			return;
		}
		room = VPK_FRAME_SIZE - f->n;
		take = n < room ? n : room;
		memcpy(f->bi + f->n, src, take * sizeof(*src));
		f->n += take;
		if (f->n == VPK_FRAME_SIZE)
			g->open[target] = NULL;
		src += take;
		n -= take;
	}
}

void
graph_trace_add(struct vpk_graph *g, const struct vpk_node_rt *rt, struct vpk_buf *b,
		const char *next)
{
	struct vpk_trace_rec *r;

	if (g->n_trace == g->cap_trace) {
		size_t cap = g->cap_trace ? 2 * g->cap_trace : 64;
		struct vpk_trace_rec *t = realloc(g->trace, cap * sizeof(*t));

		if (t == NULL)
			return;
		g->trace = t;
		g->cap_trace = cap;
	}
	r = &g->trace[g->n_trace++];
	r->pkt = b->trace_id;
	r->node = rt->reg->name;
	r->next = next;
	r->detail[0] = '\0';
	if (rt->reg->format_trace != NULL)
		rt->reg->format_trace(rt, b, r->detail, sizeof(r->detail));
}

static void
trace_frame(struct vpk_node_rt *rt, const uint32_t *bi, const uint16_t *next, uint16_t one,
	    uint32_t n)
{
	struct vpk_graph *g = rt->g;

	for (uint32_t i = 0; i < n; i++) {
		struct vpk_buf *b = vpk_buf_from_idx(g->pool_base, bi[i]);
		uint16_t a = next != NULL ? next[i] : one;

		if (b->flags & VPK_BUF_F_TRACE)
			graph_trace_add(g, rt, b, g->nodes[rt->next_node[a]].reg->name);
	}
}

void
vpk_node_enqueue_one(struct vpk_node_rt *rt, const uint32_t *bi, uint16_t next, uint32_t n)
{
	if (n == 0)
		return;
	VPK_DEBUG_ASSERT(next < rt->reg->n_next && rt->next_node[next] != VPK_ARC_NONE);
	if (rt->g->tracing)
		trace_frame(rt, bi, NULL, next, n);
	append(rt->g, rt->next_node[next], bi, n);
}

void
vpk_node_enqueue_to_next(struct vpk_node_rt *rt, const uint32_t *bi, const uint16_t *next,
			 uint32_t n)
{
	struct vpk_graph *g = rt->g;
	uint32_t seen = 0, i = 0, left = n;

	if (n == 0)
		return;
	if (g->tracing)
		trace_frame(rt, bi, next, 0, n);
	/* Until every packet is placed: the last next value needs no final scan. */
	while (left > 0) {
		uint16_t v, target;
		struct vpk_frame *f;

		/* First packet whose next value is not done yet; every earlier one's is. */
		while (i < n && ((seen >> next[i]) & 1))
			i++;
		if (i == n)
			break;
		v = next[i];
		VPK_DEBUG_ASSERT(v < rt->reg->n_next && rt->next_node[v] != VPK_ARC_NONE);
		seen |= 1u << v;
		target = rt->next_node[v];
		f = target == VPK_ARC_NONE ? NULL : open_frame(g, target);
		if (f != NULL && f->n + (n - i) <= VPK_FRAME_SIZE) {
			/* Straight into the frame: it has room for every candidate plus slack. */
			uint32_t k = g->enq->select(next + i, bi + i, n - i, v, f->bi + f->n);

			f->n += k;
			left -= k;
			if (f->n == VPK_FRAME_SIZE)
				g->open[target] = NULL;
		} else {
			uint32_t tmp[VPK_FRAME_SIZE + VPK_FRAME_SLACK];
			uint32_t done = 0;

			/* Frames hold VPK_FRAME_SIZE: select in chunks of at most that many. */
			for (uint32_t at = i; at < n; at += VPK_FRAME_SIZE) {
				uint32_t len = n - at < VPK_FRAME_SIZE ? n - at : VPK_FRAME_SIZE;
				uint32_t k = g->enq->select(next + at, bi + at, len, v, tmp);

				append(g, target, tmp, k);
				done += k;
			}
			left -= done;
		}
	}
}

bool
vpk_node_trace_mark(struct vpk_node_rt *rt, struct vpk_buf *b)
{
	struct vpk_graph *g = rt->g;

	if (g->trace_left == 0)
		return false;
	g->trace_left--;
	b->flags |= VPK_BUF_F_TRACE;
	b->trace_id = g->trace_next_id++;
	return true;
}

uint16_t
vpk_node_error_id(const struct vpk_node_rt *rt, uint16_t code)
{
	return graph_error_id(rt, code);
}

const char *
vpk_graph_error_string(const struct vpk_graph *g, uint16_t id, const char **node)
{
	size_t idx = (size_t)(id >> 8);
	uint16_t code = id & 0xff;

	if (idx == 0 || idx > g->n_nodes || code >= g->nodes[idx - 1].reg->n_errors)
		return NULL;
	if (node != NULL)
		*node = g->nodes[idx - 1].reg->name;
	return g->nodes[idx - 1].reg->error_strings[code];
}

static inline void
charge(struct vpk_graph *g, struct vpk_node_rt *rt, uint32_t n)
{
	uint64_t t = __rdtsc();

	rt->clocks += t - g->last_tsc;
	g->last_tsc = t;
	rt->calls++;
	rt->vectors += n;
}

/* Keep a frame a remote runner refused; it is offered again next pass. */
static int
defer(struct vpk_graph *g, struct vpk_frame *f)
{
	if (g->n_deferred == g->cap_deferred) {
		size_t cap = g->cap_deferred ? 2 * g->cap_deferred : 16;
		struct vpk_frame **d = realloc(g->deferred, cap * sizeof(*d));

		if (d == NULL)
			return -ENOMEM;
		g->deferred = d;
		g->cap_deferred = cap;
	}
	g->deferred[g->n_deferred++] = f;
	return 0;
}

bool
vpk_graph_busy(const struct vpk_graph *g)
{
	return g->pend_count > 0 || g->n_deferred > 0;
}

int
vpk_graph_inject_idx(struct vpk_graph *g, uint16_t node, const uint32_t *bi, uint32_t n)
{
	if (g == NULL || node >= g->n_nodes)
		return -EINVAL;
	append(g, node, bi, n);
	return 0;
}

uint32_t
vpk_graph_run_once(struct vpk_graph *g)
{
	uint32_t produced = 0;

	g->last_tsc = __rdtsc();
	/* Frames a remote runner refused last pass go first. */
	for (size_t i = 0; i < g->n_deferred; i++) {
		struct vpk_frame *f = g->deferred[i];

		if (pending_push(g, f) != 0) {
			g->drops.no_memory += f->n;
			vpk_pool_free_bulk(g->pool, f->bi, f->n);
			graph_frame_put(g, f);
		}
	}
	g->n_deferred = 0;
	for (size_t i = 0; i < g->n_nodes; i++) {
		struct vpk_node_rt *rt = &g->nodes[i];
		uint32_t n;

		if (rt->reg->type != VPK_NODE_INPUT)
			continue;
		n = rt->impl->fn(rt, NULL, NULL, 0);
		charge(g, rt, n);
		if (n == 0)
			rt->polls++;
		produced += n;
	}
	while (g->pend_count > 0) {
		struct vpk_frame *f = g->pending[g->pend_head];
		struct vpk_node_rt *rt = &g->nodes[f->node];
		uint32_t n;

		g->pend_head = (g->pend_head + 1) & (g->pend_cap - 1);
		g->pend_count--;
		rt->queued--;
		if (g->open[f->node] == f)
			g->open[f->node] = NULL;
		if (f->n == 0) {
			graph_frame_put(g, f);
			continue;
		}
		if (rt->remote != NULL) {
			/* Core specialization: the frame runs elsewhere (vpk_graph_set_remote()). */
			if (rt->remote(rt->remote_ctx, rt->index, f->bi, f->n) != 0) {
				rt->remote_full++;
				if (defer(g, f) == 0)
					continue;
				/* Out of memory even for a pointer: give the packets back to
				 * the pool (counted; the pool's count stays exact). */
				g->drops.no_memory += f->n;
				vpk_pool_free_bulk(g->pool, f->bi, f->n);
			}
			charge(g, rt, f->n);
			graph_frame_put(g, f);
			continue;
		}
		g->to_ptr(g->pool_base, f->bi, g->ptrs, f->n);
		if (g->tracing && rt->reg->n_next == 0)
			for (uint32_t k = 0; k < f->n; k++)
				if (g->ptrs[k]->flags & VPK_BUF_F_TRACE)
					graph_trace_add(g, rt, g->ptrs[k], "");
		n = rt->impl->fn(rt, g->ptrs, f->bi, f->n);
		charge(g, rt, n);
		graph_frame_put(g, f);
	}
	return produced;
}

int
vpk_graph_inject(struct vpk_graph *g, const char *node_name, const uint32_t *bi, uint32_t n)
{
	for (size_t i = 0; i < g->n_nodes; i++) {
		if (strcmp(g->nodes[i].reg->name, node_name) == 0) {
			append(g, (uint16_t)i, bi, n);
			return 0;
		}
	}
	return -EINVAL;
}
