/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * When the graph runtime cannot allocate (a new frame, the pending-frame
 * queue, the deferred-frame list) it gives the packets back to the pool and
 * counts them in vpk_graph_get_drops(): nothing is lost without a reason.
 * Allocation failure is injected by wrapping malloc/realloc/aligned_alloc at
 * link time (-Wl,--wrap, effective for the static libvpk this test links).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include <vpk/buf.h>
#include <vpk/graph.h>

#include "lib/check.h"

void *__real_malloc(size_t n);
void *__real_realloc(void *p, size_t n);
void *__real_aligned_alloc(size_t a, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_aligned_alloc(size_t a, size_t n);

static bool fail_allocs;
static unsigned failed;

void *
__wrap_malloc(size_t n)
{
	if (fail_allocs) {
		failed++;
		return NULL;
	}
	return __real_malloc(n);
}

void *
__wrap_realloc(void *p, size_t n)
{
	if (fail_allocs) {
		failed++;
		return NULL;
	}
	return __real_realloc(p, n);
}

void *
__wrap_aligned_alloc(size_t a, size_t n)
{
	if (fail_allocs) {
		failed++;
		return NULL;
	}
	return __real_aligned_alloc(a, n);
}

static struct vpk_pool *pool;
static uint64_t sunk;

/* oom-a forwards everything to oom-b; oom-b frees what it gets. */
static uint32_t
fwd_fn(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	(void)b;
	vpk_node_enqueue_one(rt, bi, 0, n);
	return n;
}

static uint32_t
sink_fn(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	(void)rt;
	(void)b;
	sunk += n;
	vpk_pool_free_bulk(pool, bi, n);
	return n;
}

static const struct vpk_node_impl fwd_impl = { { "scalar", VPK_ISA_SCALAR, 64 }, fwd_fn };
static const struct vpk_node_impl sink_impl = { { "scalar", VPK_ISA_SCALAR, 64 }, sink_fn };
static const struct vpk_impl *const fwd_impls[] = { &fwd_impl.base, NULL };
static const struct vpk_impl *const sink_impls[] = { &sink_impl.base, NULL };
static const char *const fwd_next[] = { "oom-b" };
static const struct vpk_node_reg fwd_reg = {
	.name = "oom-a", .n_next = 1, .next_names = fwd_next, .impls = fwd_impls,
};
static const struct vpk_node_reg sink_reg = { .name = "oom-b", .impls = sink_impls };

static int
refuse(void *ctx, uint16_t node, const uint32_t *bi, uint32_t n)
{
	(void)ctx;
	(void)node;
	(void)bi;
	(void)n;
	return -EAGAIN;
}

static uint32_t
alloc_pkts(uint32_t *bi, uint32_t n)
{
	uint32_t got = vpk_pool_alloc_burst(pool, bi, n);

	CHECK(got == n, "pool gave %u of %u", got, n);
	return got;
}

int
main(void)
{
	struct vpk_pool_conf pc = { .n_bufs = 2048, .cache_size = 0 };
	static const char *const nodes[] = { "oom-a", "oom-b", NULL };
	struct vpk_graph_conf gc = { .nodes = nodes };
	struct vpk_graph_drops d;
	struct vpk_graph *g;
	uint32_t bi[600], n;

	check_init("graph.oom");
	CHECK(vpk_pool_create(&pc, &pool) == 0, "pool");
	CHECK(vpk_node_register(&fwd_reg) == 0 && vpk_node_register(&sink_reg) == 0, "register");
	gc.pool = pool;
	CHECK(vpk_graph_create(&gc, &g) == 0, "graph: %s", vpk_last_error());

	/* 1. No frame can be allocated: injected packets are freed and counted. */
	n = alloc_pkts(bi, 300);
	fail_allocs = true;
	CHECK(vpk_graph_inject(g, "oom-a", bi, n) == 0, "inject");
	fail_allocs = false;
	vpk_graph_get_drops(g, &d);
	CHECK(failed > 0, "no allocation was attempted: the injection point is wrong");
	CHECK(d.no_memory == n, "no_memory %llu, want %u", (unsigned long long)d.no_memory, n);
	CHECK(vpk_pool_in_use(pool) == 0, "%u buffers lost", vpk_pool_in_use(pool));

	/* 2. Normal operation afterwards: everything reaches the sink. */
	n = alloc_pkts(bi, 600);
	CHECK(vpk_graph_inject(g, "oom-a", bi, n) == 0, "inject");
	while (vpk_graph_busy(g))
		vpk_graph_run_once(g);
	CHECK(sunk == n, "sink got %llu of %u", (unsigned long long)sunk, n);
	CHECK(vpk_pool_in_use(pool) == 0, "%u buffers lost", vpk_pool_in_use(pool));

	/* 3. A remote runner refuses and the deferred list cannot grow. */
	CHECK(vpk_graph_set_remote(g, "oom-b", refuse, NULL) == 0, "set remote");
	n = alloc_pkts(bi, 10);
	CHECK(vpk_graph_inject(g, "oom-a", bi, n) == 0, "inject");
	failed = 0;
	fail_allocs = true;             /* frames and queue room exist from step 2 */
	vpk_graph_run_once(g);          /* oom-a, then oom-b refused: the first defer() cannot allocate */
	fail_allocs = false;
	vpk_graph_get_drops(g, &d);
	CHECK(failed > 0, "defer() did not allocate");
	CHECK(d.no_memory == 300 + n, "no_memory %llu, want %u", (unsigned long long)d.no_memory,
	      300 + n);
	CHECK(vpk_pool_in_use(pool) == 0, "%u buffers lost", vpk_pool_in_use(pool));
	CHECK(!vpk_graph_busy(g), "graph still busy");

	vpk_graph_clear_stats(g);
	vpk_graph_get_drops(g, &d);
	CHECK(d.no_memory == 0 && d.no_arc == 0, "clear_stats keeps drop counters");
	vpk_graph_destroy(g);
	vpk_pool_destroy(pool);
	return check_finish();
}
