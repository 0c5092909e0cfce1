/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Graph control plane: the node registry, creating a graph instance
 * (resolving next arcs by name, picking every node's variant under the cap
 * or as forced, running node init()), destroying it, and reading counters.
 * A graph holds at most VPK_GRAPH_MAX_NODES (64) nodes with up to 16 arcs
 * each; creation is rare (start-up, per worker), so nothing here is fast.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include "core/errf.h"
#include "core/registry.h"
#include "graph/graph_priv.h"

VPK_KERNEL_TABLE(graph_enqueue_impls, graph_enqueue, graph_enqueue, base);
VPK_KERNEL_REGISTER(graph_enqueue, "graph-enqueue",
		    "enqueue-to-next: group a frame's packets by next node (compare + compress)",
		    graph_enqueue_impls);

#define MAX_REGS 128
static const struct vpk_node_reg *regs[MAX_REGS];
static size_t n_regs;
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;

static int
fail(int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(vpk_errbuf(), VPK_ERR_LEN, fmt, ap);
	va_end(ap);
	return rc;
}

int
vpk_node_register(const struct vpk_node_reg *reg)
{
	int rc = 0;

	if (reg == NULL || reg->name == NULL || reg->impls == NULL || reg->impls[0] == NULL ||
	    strlen(reg->name) == 0 || strlen(reg->name) >= VPK_NODE_NAME_MAX ||
	    reg->n_next > VPK_NODE_MAX_NEXT || reg->n_errors > VPK_NODE_MAX_ERRORS ||
	    (reg->n_next > 0 && reg->next_names == NULL) ||
	    (reg->n_errors > 0 && reg->error_strings == NULL))
		return -EINVAL;
	pthread_mutex_lock(&reg_lock);
	if (vpk_node_find(reg->name) != NULL)
		rc = -EEXIST;
	else if (n_regs == MAX_REGS)
		rc = -ENOSPC;
	else
		regs[n_regs++] = reg;
	pthread_mutex_unlock(&reg_lock);
	return rc;
}

static const struct vpk_node_reg *const builtin_nodes[] = {
	&error_drop_reg, &ethernet_input_reg, &ip4_input_reg, &ip6_input_reg,
	&ip4_rewrite_reg, &ip6_rewrite_reg, &interface_output_reg, &ip4_lookup_reg, &ip6_lookup_reg,
	&ip4_acl_reg, &ip6_acl_reg,
	&ip4_tunnel_bypass_reg, &ip6_tunnel_bypass_reg, &vxlan4_input_reg, &vxlan6_input_reg,
	&vxlan4_encap_reg, &vxlan6_encap_reg, &srv6_gtp4_d_reg, &srv6_end_m_gtp4_e_reg,
	&ip4_icmp_error_reg, &ip6_icmp_error_reg, &ip4_local_reg, &ip6_local_reg,
};

const struct vpk_node_reg *
vpk_node_find(const char *name)
{
	if (name == NULL)
		return NULL;
	for (size_t i = 0; i < sizeof(builtin_nodes) / sizeof(builtin_nodes[0]); i++)
		if (strcmp(builtin_nodes[i]->name, name) == 0)
			return builtin_nodes[i];
	for (size_t i = 0; i < n_regs; i++)
		if (strcmp(regs[i]->name, name) == 0)
			return regs[i];
	return NULL;
}

static int
node_index(const struct vpk_graph *g, const char *name)
{
	for (size_t i = 0; i < g->n_nodes; i++)
		if (strcmp(g->nodes[i].reg->name, name) == 0)
			return (int)i;
	return -1;
}

static const struct vpk_node_conf *
find_conf(const struct vpk_graph_conf *conf, const char *name)
{
	for (size_t i = 0; i < conf->n_node_conf; i++)
		if (conf->node_conf[i].node != NULL && strcmp(conf->node_conf[i].node, name) == 0)
			return &conf->node_conf[i];
	return NULL;
}

static int
pick_variant(struct vpk_node_rt *rt, const struct vpk_graph_conf *conf)
{
	unsigned max_bits = conf->max_bits;
	const struct vpk_node_conf *nc = find_conf(conf, rt->reg->name);
	const struct vpk_impl *pick;
	enum vpk_isa isa = nc != NULL && nc->isa != VPK_ISA_AUTO ? nc->isa : conf->isa;
	int rc;

	if (nc != NULL && nc->variant != NULL) {
		rc = vpk_impl_pick_name(rt->reg->impls, nc->variant, &pick);
		if (rc == -EINVAL)
			return fail(rc, "node %s has no variant '%s'", rt->reg->name, nc->variant);
	} else if (max_bits != 0 && isa == VPK_ISA_AUTO) {
		/* The best usable variant within this graph's width limit. */
		rc = -ENOTSUP;
		for (const struct vpk_impl *const *t = rt->reg->impls; *t != NULL; t++) {
			if ((*t)->width <= max_bits && vpk_impl_why_not(*t) == NULL) {
				pick = *t;
				rc = 0;
				break;
			}
		}
	} else {
		rc = vpk_impl_pick(rt->reg->impls, isa, &pick);
		/* A graph-wide level a node lacks falls back to that node's best;
		 * a level forced on this node must be honoured or refused. */
		if (rc == -ENOTSUP && (nc == NULL || nc->isa == VPK_ISA_AUTO) && isa != VPK_ISA_AUTO)
			rc = vpk_impl_pick(rt->reg->impls, VPK_ISA_AUTO, &pick);
	}
	if (rc == -ENOTSUP)
		return fail(rc, "node %s: variant %s cannot run here",
			    rt->reg->name, nc && nc->variant ? nc->variant : vpk_isa_name(isa));
	if (rc != 0)
		return fail(rc, "node %s: no variant", rt->reg->name);
	rt->impl = (const struct vpk_node_impl *)pick;
	return 0;
}

/* Release the per-instance state of nodes [0, @n), last first. */
static void
fini_nodes(struct vpk_graph *g, size_t n)
{
	while (n-- > 0)
		if (g->nodes[n].reg->fini != NULL)
			g->nodes[n].reg->fini(&g->nodes[n]);
}

int
vpk_graph_create(const struct vpk_graph_conf *conf, struct vpk_graph **out)
{
	struct vpk_graph *g;
	const struct vpk_impl *enq;
	size_t n = 0, inited = 0;
	int rc;

	vpk_errbuf()[0] = '\0';
	if (conf == NULL || out == NULL || conf->pool == NULL || conf->nodes == NULL)
		return fail(-EINVAL, "graph conf needs a pool and a node list");
	while (conf->nodes[n] != NULL)
		n++;
	if (n == 0 || n > VPK_GRAPH_MAX_NODES)
		return fail(-EINVAL, "graph needs 1..%u nodes, got %zu", VPK_GRAPH_MAX_NODES, n);
	g = calloc(1, sizeof(*g));
	if (g == NULL)
		return fail(-ENOMEM, "out of memory");
	g->pool = conf->pool;
	g->pool_base = vpk_pool_base(conf->pool);
	g->worker = conf->worker;
	rc = vpk_buf_kernels_get(VPK_ISA_AUTO, &g->to_ptr, NULL, NULL);
	if (rc == 0)
		rc = vpk_impl_pick(graph_enqueue_impls, VPK_ISA_AUTO, &enq);
	if (rc != 0) {
		fail(rc, "no usable frame kernels");
		goto out_free;
	}
	g->enq = (const struct graph_enqueue_impl *)enq;
	for (size_t i = 0; i < n; i++) {
		const struct vpk_node_reg *reg = vpk_node_find(conf->nodes[i]);

		if (reg == NULL) {
			rc = fail(-EINVAL, "unknown node '%s'", conf->nodes[i]);
			goto out_free;
		}
		if (node_index(g, reg->name) >= 0) {
			rc = fail(-EINVAL, "node '%s' listed twice", reg->name);
			goto out_free;
		}
		g->nodes[i].reg = reg;
		g->nodes[i].g = g;
		g->nodes[i].index = (uint16_t)i;
		g->nodes[i].errors = g->nodes[i].err_store;
		g->n_nodes = i + 1;
	}
	for (size_t i = 0; i < n; i++) {
		struct vpk_node_rt *rt = &g->nodes[i];

		for (uint16_t a = 0; a < rt->reg->n_next; a++) {
			int t = node_index(g, rt->reg->next_names[a]);

			/* Arcs to nodes left out of the graph are allowed (optional
			 * features such as an ACL); using one is a bug that debug
			 * builds catch. Nodes ask with vpk_node_has_next(). */
			rt->next_node[a] = t < 0 ? VPK_ARC_NONE : (uint16_t)t;
		}
		rc = pick_variant(rt, conf);
		if (rc != 0)
			goto out_free;
	}
	for (size_t i = 0; i < conf->n_node_conf; i++)
		if (node_index(g, conf->node_conf[i].node ? conf->node_conf[i].node : "") < 0) {
			rc = fail(-EINVAL, "configuration for node '%s', which is not in the graph",
				  conf->node_conf[i].node ? conf->node_conf[i].node : "(null)");
			goto out_free;
		}
	for (; inited < n; inited++) {
		struct vpk_node_rt *rt = &g->nodes[inited];
		const struct vpk_node_conf *nc = find_conf(conf, rt->reg->name);

		if (rt->reg->init == NULL)
			continue;
		rc = rt->reg->init(rt, nc != NULL ? nc->conf : NULL);
		if (rc != 0) {
			if (vpk_errbuf()[0] == '\0')
				fail(rc, "node %s: init failed (%d)", rt->reg->name, rc);
			goto out_fini;
		}
	}
	g->trace_left = conf->trace;
	g->tracing = conf->trace > 0;
	g->last_tsc = __rdtsc();
	*out = g;
	return 0;

out_fini:
	fini_nodes(g, inited);
out_free:
	free(g);
	return rc;
}

void
vpk_graph_destroy(struct vpk_graph *g)
{
	if (g == NULL)
		return;
	graph_free_all_frames(g);
	fini_nodes(g, g->n_nodes);
	free(g->pending);
	free(g->deferred);
	free(g->trace);
	free(g);
}

bool
vpk_node_has_next(const struct vpk_node_rt *rt, uint16_t arc)
{
	return arc < rt->reg->n_next && rt->next_node[arc] != VPK_ARC_NONE;
}

void *
vpk_node_ctx(const struct vpk_node_rt *rt)
{
	/* Acquire: a context published by vpk_graph_set_node_ctx() is seen whole. */
	return __atomic_load_n(&rt->ctx, __ATOMIC_ACQUIRE);
}

void
vpk_node_set_ctx(struct vpk_node_rt *rt, void *ctx)
{
	rt->ctx = ctx;
}

int
graph_node_init_conf(struct vpk_node_rt *rt, void *conf)
{
	rt->ctx = conf;
	return 0;
}

struct vpk_pool *
vpk_node_pool(const struct vpk_node_rt *rt)
{
	return rt->g->pool;
}

void *
vpk_node_pool_base(const struct vpk_node_rt *rt)
{
	return rt->g->pool_base;
}

unsigned
vpk_node_worker(const struct vpk_node_rt *rt)
{
	return rt->g->worker;
}

struct vpk_graph *
vpk_node_graph(const struct vpk_node_rt *rt)
{
	return rt->g;
}

int
vpk_graph_node_index(const struct vpk_graph *g, const char *name)
{
	return g != NULL && name != NULL ? node_index(g, name) : -1;
}

int
vpk_graph_set_node_ctx(struct vpk_graph *g, const char *node_name, void *ctx)
{
	int i = vpk_graph_node_index(g, node_name);

	if (i < 0)
		return -EINVAL;
	__atomic_store_n(&g->nodes[i].ctx, ctx, __ATOMIC_RELEASE);
	return 0;
}

/*
 * A stand-in for node @i with context @ctx, for its init() or fini() beside
 * the running graph: the fields set when the graph was built (the counters
 * the graph's thread writes are not read, the stand-in counts into its own).
 */
static void
node_shadow(const struct vpk_graph *g, int i, void *ctx, struct vpk_node_rt *tmp)
{
	const struct vpk_node_rt *rt = &g->nodes[i];

	memset(tmp, 0, sizeof(*tmp));
	tmp->errors = tmp->err_store;
	tmp->g = rt->g;
	tmp->reg = rt->reg;
	tmp->impl = rt->impl;
	tmp->index = rt->index;
	memcpy(tmp->next_node, rt->next_node, sizeof(tmp->next_node));
	tmp->ctx = ctx;
}

int
vpk_graph_node_ctx_build(struct vpk_graph *g, const char *node_name, void *conf, void **ctx)
{
	int i = vpk_graph_node_index(g, node_name), rc = 0;
	struct vpk_node_rt tmp;

	if (ctx == NULL)
		return -EINVAL;
	*ctx = NULL;
	if (i < 0)
		return -EINVAL;
	/* init() sets the stand-in's context, the graph's stays. */
	node_shadow(g, i, g->nodes[i].reg->init != NULL ? NULL : conf, &tmp);
	if (tmp.reg->init != NULL)
		rc = tmp.reg->init(&tmp, conf);
	if (rc == 0)
		*ctx = tmp.ctx;
	return rc;
}

void
vpk_graph_node_ctx_free(struct vpk_graph *g, const char *node_name, void *ctx)
{
	int i = vpk_graph_node_index(g, node_name);
	struct vpk_node_rt tmp;

	if (i < 0 || ctx == NULL || g->nodes[i].reg->fini == NULL)
		return;
	node_shadow(g, i, ctx, &tmp);
	tmp.reg->fini(&tmp);
}

void *
vpk_graph_get_node_ctx(const struct vpk_graph *g, const char *node_name)
{
	int i = vpk_graph_node_index(g, node_name);

	return i < 0 ? NULL : __atomic_load_n(&g->nodes[i].ctx, __ATOMIC_ACQUIRE);
}

int
vpk_graph_set_remote(struct vpk_graph *g, const char *node_name, vpk_graph_remote_fn fn, void *ctx)
{
	int i = vpk_graph_node_index(g, node_name);

	if (i < 0 || fn == NULL)
		return -EINVAL;
	if (g->nodes[i].reg->type == VPK_NODE_INPUT)
		return -EBUSY;
	g->nodes[i].remote = fn;
	g->nodes[i].remote_ctx = ctx;
	return 0;
}

size_t
vpk_graph_n_nodes(const struct vpk_graph *g)
{
	return g->n_nodes;
}

int
vpk_graph_get_node_stats(const struct vpk_graph *g, size_t i, struct vpk_node_stats *out)
{
	const struct vpk_node_rt *rt;

	if (g == NULL || out == NULL || i >= g->n_nodes)
		return -EINVAL;
	rt = &g->nodes[i];
	out->name = rt->reg->name;
	out->variant = rt->impl->base.name;
	out->calls = rt->calls;
	out->vectors = rt->vectors;
	out->clocks = rt->clocks;
	out->polls = rt->polls;
	out->remote = rt->remote != NULL;
	out->remote_full = rt->remote_full;
	return 0;
}

uint16_t
vpk_graph_node_n_errors(const struct vpk_graph *g, size_t i)
{
	return i < g->n_nodes ? g->nodes[i].reg->n_errors : 0;
}

int
vpk_graph_node_error(const struct vpk_graph *g, size_t i, uint16_t code, const char **reason,
		     uint64_t *count)
{
	if (g == NULL || i >= g->n_nodes || code >= g->nodes[i].reg->n_errors)
		return -EINVAL;
	if (reason != NULL)
		*reason = g->nodes[i].reg->error_strings[code];
	if (count != NULL)
		*count = g->nodes[i].errors[code];
	return 0;
}

void
vpk_graph_clear_stats(struct vpk_graph *g)
{
	for (size_t i = 0; i < g->n_nodes; i++) {
		struct vpk_node_rt *rt = &g->nodes[i];

		rt->calls = rt->vectors = rt->clocks = rt->polls = rt->remote_full = 0;
		memset(rt->err_store, 0, sizeof(rt->err_store));
	}
	memset(&g->drops, 0, sizeof(g->drops));
}

void
vpk_graph_get_drops(const struct vpk_graph *g, struct vpk_graph_drops *out)
{
	*out = g->drops;
}

size_t
vpk_graph_trace(const struct vpk_graph *g, const struct vpk_trace_rec **recs)
{
	if (recs != NULL)
		*recs = g->trace;
	return g->n_trace;
}
