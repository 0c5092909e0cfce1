/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_GRAPH_PRIV_H
#define VPK_GRAPH_PRIV_H

/* Private layout of graphs, node runtimes and frames (src/graph/). */
#include <vpk/graph.h>
#include <x86intrin.h>

#include "core/debug.h"
#include "core/kern.h"

/* An arc whose node is not in the graph (allowed for optional features). */
#define VPK_ARC_NONE 0xffffu

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
	uint32_t queued;                /* its frames in the pending FIFO (open or full) */
	vpk_graph_remote_fn remote;     /* non-NULL: frames go there instead of impl->fn */
	void *remote_ctx;
	uint64_t remote_full;
	uint64_t err_store[VPK_NODE_MAX_ERRORS];
};

/* vpk_node_error_id(): (node index + 1) in the high byte, the node's reason in the low byte.
 * Inline for the built-in nodes' drop paths (nodes.h), which would otherwise pay a call. */
static inline __attribute__((always_inline)) uint16_t
graph_error_id(const struct vpk_node_rt *rt, uint16_t code)
{
	return (uint16_t)(((rt->index + 1u) << 8) | code);
}

struct vpk_graph {
	struct vpk_pool *pool;
	void *pool_base;
	unsigned worker;
	vpk_buf_idx_to_ptr_fn to_ptr;
	const struct graph_enqueue_impl *enq;
	size_t n_nodes;
	struct vpk_node_rt nodes[VPK_GRAPH_MAX_NODES];
	struct vpk_frame *open[VPK_GRAPH_MAX_NODES];    /* frame being filled per target node */
	/* Pending frames, FIFO ring (grows; pend_cap 0 or a power of two). */
	struct vpk_frame **pending;
	size_t pend_cap, pend_head, pend_count;
	struct vpk_frame *free_frames;
	struct vpk_frame **deferred;    /* frames a remote runner refused this pass */
	size_t n_deferred, cap_deferred;
	struct vpk_frame **all_frames;  /* every frame allocated, for destroy */
	size_t n_all, cap_all;
	uint64_t last_tsc;              /* chained TSC (VPP's last_time_stamp) */
	struct vpk_graph_drops drops;   /* packets the runtime freed itself, by reason */
	struct vpk_buf *ptrs[VPK_FRAME_SIZE + VPK_FRAME_SLACK];
	/* Trace. */
	uint32_t trace_left, trace_next_id;
	bool tracing;
	struct vpk_trace_rec *trace;
	size_t n_trace, cap_trace;
};

/*
 * The sink (a node without next arcs) at arc @arc of @rt when a frame for it
 * can run right now, inside @rt, with the result it would have through a
 * queued frame: no frame of it is queued (so none of its packets would go
 * before these), it runs here (not remote) and the graph does not trace
 * (traces list nodes in dispatch order). NULL otherwise.
 */
static inline __attribute__((always_inline)) struct vpk_node_rt *
graph_sink_now(const struct vpk_node_rt *rt, uint16_t arc)
{
	const struct vpk_graph *g = rt->g;
	uint16_t t = rt->next_node[arc];
	const struct vpk_node_rt *s;

	if (t == VPK_ARC_NONE || g->tracing)
		return NULL;
	s = &g->nodes[t];
	if (s->queued != 0 || s->remote != NULL || s->reg->n_next != 0)
		return NULL;
	return (struct vpk_node_rt *)s;
}

/* Charge sink @s's run of @n packets started at TSC @t0 to @s, not to the node that ran it. */
static inline __attribute__((always_inline)) void
graph_charge_sink(struct vpk_graph *g, struct vpk_node_rt *s, uint64_t t0, uint32_t n)
{
	uint64_t t1 = __rdtsc();

	s->clocks += t1 - t0;
	s->calls++;
	s->vectors += n;
	g->last_tsc += t1 - t0;
}

/*
 * Built-in nodes, written as VPP writes its nodes (VLIB_NODE_FN and
 * VLIB_REGISTER_NODE). Each node file is compiled once per ISA:
 *
 *   static uint32_t VPK_FN(x_fn)(rt, b, bi, n) { ... }   the frame function, suffixed
 *   VPK_NODE_FN_IP46(ip4_x, ip6_x, x_frame);            or both of an ip4/ip6 pair
 *   VPK_NODE_TRACE(x_trace) { ... }                     the trace line, if any
 *   VPK_NODE_REGISTER(x, VPK_FN(x_fn), .name = "x", ...);
 *
 * VPK_NODE_REGISTER defines this build's variant object x_<isa> of the frame
 * function and, in the scalar build (VPK_VEC_BITS == 0) only, the
 * registration `const struct vpk_node_reg x_reg` with .impls = the
 * best-first table of the variants, listed in graph.c's builtin_nodes[] (an
 * explicit list, so static linking keeps every built-in node). The other
 * builds compile the same initializer into an unused static, so a node's
 * trace, init and string tables need no #if and the optimiser drops them.
 */
extern const struct vpk_node_reg error_drop_reg, ethernet_input_reg, ip4_input_reg, ip6_input_reg,
	ip4_rewrite_reg, ip6_rewrite_reg, interface_output_reg, ip4_lookup_reg, ip6_lookup_reg, ip4_acl_reg, ip6_acl_reg;
/* Tunnel nodes (VXLAN decap, SRv6 gtp4-d / gtp4-e). */
extern const struct vpk_node_reg ip4_tunnel_bypass_reg, ip6_tunnel_bypass_reg, vxlan4_input_reg,
	vxlan6_input_reg, vxlan4_encap_reg, vxlan6_encap_reg, srv6_gtp4_d_reg, srv6_end_m_gtp4_e_reg;
/* ICMP errors and the router's own addresses. */
extern const struct vpk_node_reg ip4_icmp_error_reg, ip6_icmp_error_reg, ip4_local_reg, ip6_local_reg;

/* The best-first variant table of node function objects NAME_<isa>. */
#define VPK_NODE_VARIANTS(name)                                                \
	VPK_DECLARE_VARIANTS(struct vpk_node_impl, name);                      \
	static VPK_KERNEL_TABLE(name##_impls, graph_node, name, base)

/* Define this build's variant object NAME_<isa> for node function FN. */
#define VPK_NODE_FN_OBJ(name, func)                                            \
	const struct vpk_node_impl VPK_FN(name) = {                            \
		.base = VPK_IMPL_INIT(VPK_VEC_BITS ? VPK_VEC_BITS : 64),       \
		.fn = (func) }

/*
 * Node NAME with frame function FUNC: its variant object NAME_<isa>, and in
 * the scalar build its registration NAME_reg (the struct vpk_node_reg
 * fields that follow, .impls added).
 */
#if defined(VPK_VEC_BITS) && VPK_VEC_BITS != 0
#define VPK_NODE_REGISTER(name, func, ...)                                     \
	VPK_NODE_FN_OBJ(name, func);                                           \
	static const struct vpk_node_reg name##_reg_unused                     \
		__attribute__((unused)) = { __VA_ARGS__ }
#else
#define VPK_NODE_REGISTER(name, func, ...)                                     \
	VPK_NODE_FN_OBJ(name, func);                                           \
	VPK_NODE_VARIANTS(name);                                               \
	const struct vpk_node_reg name##_reg = { .impls = name##_impls, __VA_ARGS__ }
#endif

/*
 * The frame functions NAME4_fn_<isa> and NAME6_fn_<isa> of an ip4/ip6 pair:
 * each calls the one frame function FRAME(rt, b, bi, n, is_ip6)
 * (always_inline) with the flag a constant.
 */
#define VPK_NODE_FN_IP46(name4, name6, frame)                                  \
	VPK_NODE_FN_IP_(name4, frame, false)                                   \
	VPK_NODE_FN_IP_(name6, frame, true)
#define VPK_NODE_FN_IP_(name, frame, is_ip6)                                   \
	static uint32_t VPK_FN(name##_fn)(struct vpk_node_rt *rt, struct vpk_buf **b, \
					  uint32_t *bi, uint32_t n)            \
	{                                                                      \
		return frame(rt, b, bi, n, is_ip6);                            \
	}

/* The trace function FN: one line on what the node did to @b, into @out (@len bytes). */
#define VPK_NODE_TRACE(fn)                                                     \
	static void fn(const struct vpk_node_rt *rt __attribute__((unused)), const struct vpk_buf *b, \
		       char *out, size_t len)

/* The init of a node whose context is its configuration as given (or NULL). */
int graph_node_init_conf(struct vpk_node_rt *rt, void *conf);

/* An init FN whose context is its configuration, or DFLT (a static object) without one. */
#define VPK_NODE_INIT_CONF_OR(fn, dflt)                                        \
	static int fn(struct vpk_node_rt *rt, void *conf)                      \
	{                                                                      \
		return graph_node_init_conf(rt, conf != NULL ? conf : (void *)&(dflt)); \
	}

/* dispatch.c */
struct vpk_frame *graph_frame_get(struct vpk_graph *g, uint16_t node);
void graph_frame_put(struct vpk_graph *g, struct vpk_frame *f);
void graph_free_all_frames(struct vpk_graph *g);
void graph_trace_add(struct vpk_graph *g, const struct vpk_node_rt *rt, struct vpk_buf *b,
		     const char *next);

#endif
