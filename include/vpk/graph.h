/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_GRAPH_H
#define VPK_GRAPH_H

/**
 * @file
 * The vector graph: VPP's packet-processing model without VPP.
 *
 * A graph is a set of nodes joined by named next arcs. Packets travel in
 * frames of up to VPK_FRAME_SIZE buffer indices. Input nodes are polled and
 * produce packets; internal nodes run when a frame is pending for them. A
 * node processes the whole frame, chooses a next arc for every packet and
 * hands the frame on with vpk_node_enqueue_to_next(), which groups packets
 * by next index with SIMD compare + compress. Every packet leaves through
 * exactly one next arc; drops go to "error-drop" with a per-node reason.
 *
 *       input node --frame--> ethernet-input --> ip4-input --> ip4-lookup --> ...
 *                                   \--> error-drop (counted per reason)
 *
 * Nodes are registered (vpk_node_register(), usually from a static table)
 * with a name, next-node names, error strings and a best-first table of
 * implementations, one per ISA variant; when a graph is created each node's
 * variant is picked under the current cap, or forced per node.
 *
 * Statistics per node (and per graph instance, i.e. worker): calls,
 * vectors (packets), clocks. Clocks are TSC deltas chained across
 * dispatches exactly as VPP measures them, so "clocks/packet" compares with
 * VPP's `show runtime` and CSIT.
 *
 * Threading: one graph instance per worker thread; nothing in an instance is
 * shared. Registration happens before any graph is created.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vpk/buf.h>
#include <vpk/error.h>
#include <vpk/isa.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest frame: buffer indices per node call (VPP's VLIB_FRAME_SIZE). */
#define VPK_FRAME_SIZE 256u
/** Names are at most this long, including the terminating NUL. */
#define VPK_NODE_NAME_MAX 32u
/** Maximum next arcs per node and error reasons per node. */
#define VPK_NODE_MAX_NEXT 16u
#define VPK_NODE_MAX_ERRORS 32u
/** Maximum nodes in a graph. */
#define VPK_GRAPH_MAX_NODES 64u

struct vpk_graph;               /* opaque: one instance per worker */
struct vpk_node_rt;             /* opaque: a node's runtime in one graph instance */

/** Node kinds (VPP: VLIB_NODE_TYPE_INPUT / INTERNAL). */
enum vpk_node_type {
	VPK_NODE_INTERNAL = 0,  /**< Runs when a frame is pending for it. */
	VPK_NODE_INPUT,         /**< Polled every loop; produces packets (n == 0 on entry). */
};

/**
 * A node function. @p b and @p bi hold the @p n packets of the frame (both
 * forms: pointers are converted once per frame by the dispatcher). The node
 * must hand every packet on with vpk_node_enqueue_to_next() (or
 * vpk_node_enqueue_one()) before returning, and returns the number of
 * packets it processed (input nodes: produced).
 */
typedef uint32_t (*vpk_node_fn)(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi,
				uint32_t n);

/** One implementation (variant) of a node function. */
struct vpk_node_impl {
	struct vpk_impl base;   /**< Name, ISA level, width. */
	vpk_node_fn fn;
};

/** A node registration. All pointers must stay valid while graphs exist. */
struct vpk_node_reg {
	const char *name;                       /**< Unique, < VPK_NODE_NAME_MAX. */
	enum vpk_node_type type;
	uint16_t n_next;                        /**< Arcs; next index i goes to next_names[i]. */
	const char *const *next_names;
	uint16_t n_errors;                      /**< Reasons; error code i is error_strings[i]. */
	const char *const *error_strings;
	const struct vpk_impl *const *impls;    /**< Best first, NULL-terminated; each a struct vpk_node_impl. */
	/**
	 * Optional: set up this node's per-instance state. @p conf is the
	 * pointer given to vpk_graph_conf::node_conf for this node name (or
	 * NULL). Store state with vpk_node_set_ctx(). Return 0 or -errno.
	 */
	int (*init)(struct vpk_node_rt *rt, void *conf);
	/** Optional: release per-instance state. */
	void (*fini)(struct vpk_node_rt *rt);
	/**
	 * Optional: one line on what this node did to @p b (trace), written
	 * into @p out (at most @p len bytes, NUL-terminated).
	 */
	void (*format_trace)(const struct vpk_node_rt *rt, const struct vpk_buf *b, char *out,
			     size_t len);
};

/**
 * Register a node. Registrations are process-wide and must happen before
 * graphs are created.
 * @return 0, -EINVAL (missing name/impls, too many arcs or errors, name too
 *         long), -EEXIST (name taken), -ENOSPC (registry full).
 */
VPK_API int vpk_node_register(const struct vpk_node_reg *reg);

/** The registration called @p name, or NULL. */
VPK_API const struct vpk_node_reg *vpk_node_find(const char *name);

/** Per-node configuration handed to a node's init() when a graph is created. */
struct vpk_node_conf {
	const char *node;               /**< Node name. */
	void *conf;                     /**< Passed to init(). */
	enum vpk_isa isa;               /**< Force a variant level; VPK_ISA_AUTO: best usable. */
	const char *variant;            /**< Or force a variant by name (overrides isa); NULL: not forced. */
};

/** Graph instance parameters. Zero-initialise, then set what you need. */
struct vpk_graph_conf {
	struct vpk_pool *pool;          /**< Buffer pool all packets come from (required). */
	const char *const *nodes;       /**< Node names in this graph (NULL-terminated); their next
					     nodes must be in the list too. */
	const struct vpk_node_conf *node_conf;  /**< Optional per-node settings ... */
	size_t n_node_conf;             /**< ... and how many. */
	enum vpk_isa isa;               /**< Default variant level for every node; VPK_ISA_AUTO: best. */
	uint32_t trace;                 /**< Trace the first this-many packets input nodes produce. */
	unsigned worker;                /**< Worker number (for stats and per-worker state). */
	unsigned max_bits;              /**< No variant wider than this in this graph (0: the cap
					     decides); core specialization builds 256-bit graphs. */
};

/**
 * Create a graph instance: resolve next arcs, pick each node's variant,
 * run each node's init().
 * Next arcs to nodes not in the list are allowed (optional features); a node
 * checks with vpk_node_has_next() before using one.
 * @return 0, -EINVAL (bad conf, unknown node: the message is in
 *         vpk_last_error()), -ENOTSUP (a forced variant cannot run
 *         here), -ENOMEM, or a node init()'s error.
 */
VPK_API int vpk_graph_create(const struct vpk_graph_conf *conf, struct vpk_graph **out);

/** Destroy a graph (fini() of every node). Pending frames' buffers are freed. NULL: no-op. */
VPK_API void vpk_graph_destroy(struct vpk_graph *g);


/**
 * One pass of the main loop: poll every input node, then dispatch pending
 * frames until none is left.
 * @return Packets produced by input nodes in this pass.
 */
VPK_API uint32_t vpk_graph_run_once(struct vpk_graph *g);

/** Hand packets to node @p node_name directly (tests, tools): they are dispatched by the next run_once. */
VPK_API int vpk_graph_inject(struct vpk_graph *g, const char *node_name, const uint32_t *bi,
			     uint32_t n);

/**
 * Run node @p node_name somewhere else: frames dispatched to it in @p g are
 * given to @p fn instead of the node function (core specialization: a
 * worker hands frames of its 512-bit nodes to a wide-core worker). @p fn
 * takes the frame's buffer indices (copies them) and returns 0, or -EAGAIN
 * when it cannot take them now (a full ring): the frame is then kept and
 * offered again in the next vpk_graph_run_once(), never dropped, and the
 * refusal is counted (vpk_node_stats::remote_full).
 * @return 0, -EINVAL (unknown node, NULL fn), -EBUSY (input node).
 */
typedef int (*vpk_graph_remote_fn)(void *ctx, uint16_t node, const uint32_t *bi, uint32_t n);
VPK_API int vpk_graph_set_remote(struct vpk_graph *g, const char *node_name, vpk_graph_remote_fn fn,
				 void *ctx);

/** Index of node @p name in @p g, or -1. */
VPK_API int vpk_graph_node_index(const struct vpk_graph *g, const char *name);

/**
 * Replace node @p node_name's context (what vpk_node_ctx() returns) while the
 * graph may be running on another thread: one release store, so each call of
 * the node function sees the old or the new context, whole. Only for nodes
 * whose context is their configuration as given (ip4-acl, ip6-acl); the
 * caller keeps the old one alive until the graph's thread has passed a
 * quiescent state (include/vpk/qsbr.h).
 * @return 0, or -EINVAL (no such node).
 */
VPK_API int vpk_graph_set_node_ctx(struct vpk_graph *g, const char *node_name, void *ctx);

/**
 * Build a context for node @p node_name from @p conf as the node's init()
 * does, without touching the running graph: publish it with
 * vpk_graph_set_node_ctx() (or drop it with vpk_graph_node_ctx_free()). For
 * nodes whose init() only sets the context (a node without init() gets
 * @p conf itself). Lets a caller rebuild a node's private tables aside and
 * swap them whole while the graph runs.
 * @return 0, -EINVAL (no such node) or the init()'s error (*ctx is NULL).
 */
VPK_API int vpk_graph_node_ctx_build(struct vpk_graph *g, const char *node_name, void *conf, void **ctx);

/** Free a context of node @p node_name that is no longer published (the node's fini()). */
VPK_API void vpk_graph_node_ctx_free(struct vpk_graph *g, const char *node_name, void *ctx);

/** The context node @p node_name currently has, or NULL (no such node). */
VPK_API void *vpk_graph_get_node_ctx(const struct vpk_graph *g, const char *node_name);

/** Hand @p n packets to node index @p node (as vpk_graph_inject()). @return 0 or -EINVAL. */
VPK_API int vpk_graph_inject_idx(struct vpk_graph *g, uint16_t node, const uint32_t *bi, uint32_t n);

/** True while frames are pending or deferred (a run_once would have work). */
VPK_API bool vpk_graph_busy(const struct vpk_graph *g);

/* ---- inside node functions ---- */

/**
 * Send @p n packets to the next arcs given per packet in @p next (values
 * < n_next of the calling node). Grouping uses the graph's enqueue kernel
 * (SIMD compare + compress); order within each next arc is preserved.
 */
VPK_API void vpk_node_enqueue_to_next(struct vpk_node_rt *rt, const uint32_t *bi,
				      const uint16_t *next, uint32_t n);

/** Send @p n packets all to next arc @p next. */
VPK_API void vpk_node_enqueue_one(struct vpk_node_rt *rt, const uint32_t *bi, uint16_t next,
				  uint32_t n);

/** Add @p count to error (reason) counter @p code of this node. */
static inline void vpk_node_count_error(struct vpk_node_rt *rt, uint16_t code, uint64_t count);

/** True when next arc @p arc of this node leads to a node present in the graph. */
VPK_API bool vpk_node_has_next(const struct vpk_node_rt *rt, uint16_t arc);

/** The node's per-instance state (set by init()). */
VPK_API void *vpk_node_ctx(const struct vpk_node_rt *rt);
VPK_API void vpk_node_set_ctx(struct vpk_node_rt *rt, void *ctx);
/** The buffer pool of the node's graph. */
VPK_API struct vpk_pool *vpk_node_pool(const struct vpk_node_rt *rt);
/** Base address of that pool (for vpk_buf_from_idx()). */
VPK_API void *vpk_node_pool_base(const struct vpk_node_rt *rt);
/** Worker number of the node's graph. */
VPK_API unsigned vpk_node_worker(const struct vpk_node_rt *rt);
/** The graph a node runtime belongs to. */
VPK_API struct vpk_graph *vpk_node_graph(const struct vpk_node_rt *rt);
/**
 * Input nodes call this for every packet they produce: while the graph's
 * trace budget lasts it sets VPK_BUF_F_TRACE and a trace number on @p b and
 * returns true.
 */
VPK_API bool vpk_node_trace_mark(struct vpk_node_rt *rt, struct vpk_buf *b);

/**
 * The value a node stores in vpk_buf::error when it drops a packet for its
 * reason @p code (unique in the graph; 0 means no error).
 */
VPK_API uint16_t vpk_node_error_id(const struct vpk_node_rt *rt, uint16_t code);

/**
 * Decode a vpk_buf::error value of graph @p g: the reason string, and the
 * dropping node's name in *node. NULL if @p id is 0 or unknown.
 */
VPK_API const char *vpk_graph_error_string(const struct vpk_graph *g, uint16_t id,
					   const char **node);

/* ---- statistics ---- */

/** One node's counters in one graph instance. */
struct vpk_node_stats {
	const char *name;               /**< Node name. */
	const char *variant;            /**< Active variant name. */
	uint64_t calls;                 /**< Node function calls (input nodes: every poll, as VPP counts). */
	uint64_t vectors;               /**< Sum of the return values: packets. */
	uint64_t clocks;                /**< TSC ticks, chained across dispatches (VPP's definition). */
	uint64_t polls;                 /**< Input nodes: polls that produced nothing. */
	bool remote;                    /**< Frames go to a remote runner (vpk_graph_set_remote()). */
	uint64_t remote_full;           /**< Times the remote runner refused a frame (ring full). */
};

/** Number of nodes in @p g. */
VPK_API size_t vpk_graph_n_nodes(const struct vpk_graph *g);
/** Counters of node @p i (0 <= i < vpk_graph_n_nodes()). @return 0 or -EINVAL. */
VPK_API int vpk_graph_get_node_stats(const struct vpk_graph *g, size_t i, struct vpk_node_stats *out);
/**
 * Error counter @p code of node @p i: its reason string and count.
 * @return 0, or -EINVAL when i or code is out of range.
 */
VPK_API int vpk_graph_node_error(const struct vpk_graph *g, size_t i, uint16_t code,
				 const char **reason, uint64_t *count);
/** Number of error reasons node @p i has. */
VPK_API uint16_t vpk_graph_node_n_errors(const struct vpk_graph *g, size_t i);
/** Zero every counter (VPP's `clear runtime` + `clear errors`). */
VPK_API void vpk_graph_clear_stats(struct vpk_graph *g);

/**
 * Packets the graph runtime itself gave back to the pool instead of a node
 * (rare; each is counted so no packet disappears without a reason).
 */
struct vpk_graph_drops {
	uint64_t no_memory;             /**< A frame or the frame queue could not grow (malloc failed). */
	uint64_t no_arc;                /**< Sent along an arc to a node left out of the graph (a node bug). */
};
/** The graph runtime's own drop counters (zeroed by vpk_graph_clear_stats()). */
VPK_API void vpk_graph_get_drops(const struct vpk_graph *g, struct vpk_graph_drops *out);

/** One recorded trace step: packet number (order of production), node, next node, detail. */
struct vpk_trace_rec {
	uint32_t pkt;                   /**< 0-based number of the traced packet. */
	const char *node;               /**< Node that handled it. */
	const char *next;               /**< Where it sent it ("" at an output/drop node). */
	char detail[96];                /**< The node's format_trace() line, or "". */
};

/** Trace records so far (in order). @return the count; *recs points at them. */
VPK_API size_t vpk_graph_trace(const struct vpk_graph *g, const struct vpk_trace_rec **recs);

/* ---- inline helpers (implementation detail below) ---- */

struct vpk_node_rt_pub {
	uint64_t *errors;               /* per-reason counters of this node in this instance */
};

static inline void
vpk_node_count_error(struct vpk_node_rt *rt, uint16_t code, uint64_t count)
{
	((struct vpk_node_rt_pub *)rt)->errors[code] += count;
}

#ifdef __cplusplus
}
#endif

#endif /* VPK_GRAPH_H */
