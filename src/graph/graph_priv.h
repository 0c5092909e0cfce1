/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_GRAPH_PRIV_H
#define VPK_GRAPH_PRIV_H

/* Private layout of graphs, node runtimes and frames (src/graph/). */
#include <vpk/graph.h>
#include "core/debug.h"
#include "core/kern.h"

/* Compress slack: the widest vector store may run this far past a frame's last packet. */
#define VPK_FRAME_SLACK 16u

struct graph_enqueue_impl {
	struct vpk_impl base;
	uint32_t (*select)(const uint16_t *next, const uint32_t *bi, uint32_t n, uint16_t v,
			   uint32_t *out);
};
VPK_DECLARE_VARIANTS(struct graph_enqueue_impl, graph_enqueue);
extern const struct vpk_impl *const graph_enqueue_impls[];

/*
 * A frame: up to VPK_FRAME_SIZE buffer indices bound for one node.
 *
 *   +------+------+---------+--------------------------------+--------+
 *   | n    | node | next_fr | bi[0] ... bi[n-1]   (<= 256)   | slack  |
 *   +------+------+---------+--------------------------------+--------+
 */
struct vpk_frame {
	uint32_t n;                     /* packets in bi[] */
	uint16_t node;                  /* graph node index it is for */
	struct vpk_frame *next_free;    /* free list link */
	uint32_t bi[VPK_FRAME_SIZE + VPK_FRAME_SLACK];
};

struct vpk_node_rt {
	uint64_t *errors;               /* first: struct vpk_node_rt_pub (inline counter helper) */
	struct vpk_graph *g;
	const struct vpk_node_reg *reg;
	const struct vpk_node_impl *impl;
	void *ctx;
	uint16_t index;                 /* in g->nodes */
	uint16_t next_node[VPK_NODE_MAX_NEXT];  /* arc -> graph node index */
	uint64_t calls, vectors, clocks, polls;
	uint64_t err_store[VPK_NODE_MAX_ERRORS];
};

struct vpk_graph {
	struct vpk_pool *pool;
	void *pool_base;
	unsigned worker;
	vpk_buf_idx_to_ptr_fn to_ptr;
	const struct graph_enqueue_impl *enq;
	size_t n_nodes;
	struct vpk_node_rt nodes[VPK_GRAPH_MAX_NODES];
	struct vpk_frame *open[VPK_GRAPH_MAX_NODES];    /* frame being filled per target node */
	/* Pending frames, FIFO ring (grows). */
	struct vpk_frame **pending;
	size_t pend_cap, pend_head, pend_count;
	struct vpk_frame *free_frames;
	struct vpk_frame **all_frames;  /* every frame allocated, for destroy */
	size_t n_all, cap_all;
	uint64_t last_tsc;              /* chained TSC (VPP's last_time_stamp) */
	struct vpk_buf *ptrs[VPK_FRAME_SIZE + VPK_FRAME_SLACK];
	/* Trace. */
	uint32_t trace_left, trace_next_id;
	bool tracing;
	struct vpk_trace_rec *trace;
	size_t n_trace, cap_trace;
};

/* dispatch.c */
struct vpk_frame *graph_frame_get(struct vpk_graph *g, uint16_t node);
void graph_frame_put(struct vpk_graph *g, struct vpk_frame *f);
void graph_free_all_frames(struct vpk_graph *g);
void graph_trace_add(struct vpk_graph *g, const struct vpk_node_rt *rt, struct vpk_buf *b,
		     const char *next);

#endif
