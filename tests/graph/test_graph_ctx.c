/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Node contexts built aside (vpk_graph_node_ctx_build()): the node's init()
 * makes a new context from a conf without touching the graph's, publishing
 * it (vpk_graph_set_node_ctx()) changes what the next frame sees,
 * vpk_graph_node_ctx_free() runs the node's fini() on exactly the context
 * given, and vpk_graph_destroy() frees the one published last. A node
 * without init() gets the conf itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/graph.h>
#include <vpk/nodes.h>
#include "lib/check.h"

struct tctx {
	int tag;                /* the conf's value */
	bool freed;
};

static int n_init, n_fini, seen_tag, fail_init;
static struct tctx *last_freed;
static struct vpk_pool *pool;

static uint32_t
src_fn(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	uint32_t idx;

	(void)b;
	(void)bi;
	(void)n;
	if (vpk_pool_alloc_burst(pool, &idx, 1) != 1)
		return 0;
	vpk_buf_from_idx(vpk_node_pool_base(rt), idx)->len = 60;
	vpk_node_enqueue_one(rt, &idx, 0, 1);
	return 1;
}

static uint32_t
sink_fn(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	const struct tctx *x = vpk_node_ctx(rt);

	(void)b;
	seen_tag = x != NULL ? x->tag : -1;
	vpk_pool_free_bulk(pool, bi, n);
	return n;
}

static int
sink_init(struct vpk_node_rt *rt, void *conf)
{
	struct tctx *x;

	if (fail_init)
		return -ENOSPC;
	x = calloc(1, sizeof(*x));
	if (x == NULL)
		return -ENOMEM;
	x->tag = conf != NULL ? *(const int *)conf : 0;
	n_init++;
	vpk_node_set_ctx(rt, x);
	return 0;
}

static void
sink_fini(struct vpk_node_rt *rt)
{
	struct tctx *x = vpk_node_ctx(rt);

	n_fini++;
	last_freed = x;
	free(x);
	vpk_node_set_ctx(rt, NULL);
}

static const struct vpk_node_impl src_impl = { { "scalar", VPK_ISA_SCALAR, 64 }, src_fn };
static const struct vpk_impl *const src_impls[] = { &src_impl.base, NULL };
static const char *const src_next[] = { "ctx-sink" };
static const struct vpk_node_reg src_reg = {
	.name = "ctx-src", .type = VPK_NODE_INPUT, .n_next = 1, .next_names = src_next, .impls = src_impls,
};
static const struct vpk_node_impl sink_impl = { { "scalar", VPK_ISA_SCALAR, 64 }, sink_fn };
static const struct vpk_impl *const sink_impls[] = { &sink_impl.base, NULL };
static const struct vpk_node_reg sink_reg = {
	.name = "ctx-sink", .impls = sink_impls, .init = sink_init, .fini = sink_fini,
};

int
main(void)
{
	struct vpk_pool_conf pc = { .n_bufs = 256, .cache_size = 0 };
	static const char *const nodes[] = { "ctx-src", "ctx-sink", NULL };
	int one = 1, two = 2;
	struct vpk_node_conf nc[] = { { .node = "ctx-sink", .conf = &one } };
	struct vpk_graph_conf gc = { .nodes = nodes, .node_conf = nc, .n_node_conf = 1 };
	struct vpk_graph *g;
	void *first, *built = (void *)1, *same;

	check_init("graph.ctx");
	CHECK(vpk_pool_create(&pc, &pool) == 0, "pool");
	CHECK(vpk_node_register(&src_reg) == 0 && vpk_node_register(&sink_reg) == 0, "register");
	gc.pool = pool;
	CHECK(vpk_graph_create(&gc, &g) == 0, "graph: %s", vpk_last_error());
	vpk_graph_run_once(g);
	CHECK(seen_tag == 1, "the init() context: tag %d", seen_tag);
	first = vpk_graph_get_node_ctx(g, "ctx-sink");
	CHECK(first != NULL && n_init == 1, "current context");

	CHECK(vpk_graph_node_ctx_build(g, "ctx-sink", &two, &built) == 0, "build aside");
	CHECK(built != NULL && built != first && n_init == 2, "a new context from init()");
	CHECK(vpk_graph_get_node_ctx(g, "ctx-sink") == first, "building does not publish");
	vpk_graph_run_once(g);
	CHECK(seen_tag == 1, "the graph still sees the old context (tag %d)", seen_tag);
	CHECK(vpk_graph_set_node_ctx(g, "ctx-sink", built) == 0, "publish");
	vpk_graph_run_once(g);
	CHECK(seen_tag == 2, "the next frame sees the new context (tag %d)", seen_tag);
	vpk_graph_node_ctx_free(g, "ctx-sink", first);
	CHECK(n_fini == 1 && last_freed == first, "fini() on the context given");
	CHECK(vpk_graph_get_node_ctx(g, "ctx-sink") == built, "the published one stays");

	fail_init = 1;
	same = (void *)1;
	CHECK(vpk_graph_node_ctx_build(g, "ctx-sink", &one, &same) == -ENOSPC && same == NULL,
	      "init()'s error, no context");
	fail_init = 0;
	CHECK(vpk_graph_node_ctx_build(g, "no-such-node", &one, &same) == -EINVAL && same == NULL, "unknown node");
	CHECK(vpk_graph_get_node_ctx(g, "no-such-node") == NULL, "unknown node: no context");
	CHECK(vpk_graph_node_ctx_build(g, "ctx-src", &two, &same) == 0 && same == &two,
	      "a node without init() gets the conf");
	vpk_graph_node_ctx_free(g, "ctx-src", same);            /* no fini(): nothing happens */
	CHECK(n_fini == 1, "no fini() ran");

	vpk_graph_destroy(g);
	CHECK(n_fini == 2 && last_freed == built, "destroy frees the published context");
	CHECK(vpk_pool_in_use(pool) == 0, "buffers back");
	vpk_pool_destroy(pool);
	return check_finish();
}
