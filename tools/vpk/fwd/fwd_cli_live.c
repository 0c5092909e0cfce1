/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Live changes: commands from the control socket (fwd_cli.c) and from
 * linux-sync (fwd_linux.c) arrive on their own threads while the graphs
 * forward. One mutex serialises the writers (and the graph builds of a
 * run); the graph threads are QSBR readers (include/vpk/qsbr.h) that pass a
 * quiescent state after every burst, so:
 *
 *  - routes: the FIBs publish each change with atomic stores and park the
 *    groups they free until the readers moved on (vpk_fib_attach_qsbr());
 *  - neighbors: a changed adjacency table is a new copy, published by one
 *    pointer store, the old one freed after the readers moved on;
 *  - ACLs: the ip4-acl / ip6-acl context is swapped whole
 *    (vpk_graph_set_node_ctx()): the classifier, the fragment classifier and
 *    the actions of one rule set always go together.
 *
 * `clear runtime` is done by each graph's own thread at its next quiescent
 * state, so counters are never written by two threads.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vpk/qsbr.h>
#include "fwd/fwd_cli.h"
#include "fwd/fwd_priv.h"
#include "common/clock.h"

struct fwd_ctl {
	pthread_mutex_t lock;
	struct vpk_qsbr *q;
	_Atomic uint64_t clear_gen;
	uint64_t seen_gen[FWD_MAX_GRAPHS];     /* workers, then wide workers (their graphs' order) */
	_Atomic bool online[FWD_MAX_GRAPHS];
	double t_clear;                 /* CLOCK_MONOTONIC seconds of the last clear (or run start) */
};

int
fwd_ctl_enable(struct vpk_fwd *f)
{
	struct fwd_ctl *c;
	int rc;

	if (f->ctl != NULL)
		return 0;
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	rc = vpk_qsbr_create(&(struct vpk_qsbr_conf){ .max_threads = FWD_MAX_GRAPHS }, &c->q);
	for (unsigned i = 0; rc == 0 && i < FWD_MAX_GRAPHS; i++)
		rc = vpk_qsbr_thread_register(c->q, i);
	if (rc == 0)
		rc = vpk_fib_attach_qsbr(f->fib4, c->q, false);
	if (rc == 0)
		rc = vpk_fib6_attach_qsbr(f->fib6, c->q, false);
	if (rc != 0) {
		vpk_fib_attach_qsbr(f->fib4, NULL, false);
		vpk_fib6_attach_qsbr(f->fib6, NULL, false);
		vpk_qsbr_destroy(c->q);
		free(c);
		return rc;
	}
	pthread_mutex_init(&c->lock, NULL);
	c->t_clear = mono_now_s();
	f->ctl = c;
	return 0;
}

void
fwd_ctl_free(struct vpk_fwd *f)
{
	struct fwd_ctl *c = f->ctl;

	if (c == NULL)
		return;
	vpk_fib_attach_qsbr(f->fib4, NULL, false);
	vpk_fib6_attach_qsbr(f->fib6, NULL, false);
	vpk_qsbr_destroy(c->q);
	pthread_mutex_destroy(&c->lock);
	free(c);
	f->ctl = NULL;
}

bool
fwd_ctl_lock(struct vpk_fwd *f)
{
	if (f->ctl == NULL)
		return false;
	pthread_mutex_lock(&f->ctl->lock);
	return true;
}

void
fwd_ctl_unlock(struct vpk_fwd *f, bool locked)
{
	if (locked)
		pthread_mutex_unlock(&f->ctl->lock);
}

bool
fwd_ctl_has_graphs(const struct vpk_fwd *f)
{
	return f->graph != NULL || f->n_wgraphs > 0;
}

static void
ctl_sync(struct vpk_fwd *f)
{
	vpk_qsbr_check(f->ctl->q, vpk_qsbr_start(f->ctl->q), true);
}

void
fwd_ctl_sync(struct vpk_fwd *f)
{
	if (f->ctl != NULL)
		ctl_sync(f);
}

void
fwd_ctl_reader(struct vpk_fwd *f, unsigned id, bool online)
{
	struct fwd_ctl *c = f->ctl;

	if (c == NULL || id >= FWD_MAX_GRAPHS)
		return;
	if (online) {
		c->seen_gen[id] = atomic_load(&c->clear_gen);
		if (id == 0)
			c->t_clear = mono_now_s();
		atomic_store(&c->online[id], true);
		vpk_qsbr_thread_online(c->q, id);
		fwd_tunnel_adopt(f, id, NULL);
	} else {
		vpk_qsbr_thread_offline(c->q, id);
		atomic_store(&c->online[id], false);
	}
}

void
fwd_ctl_tick_slow(struct vpk_fwd *f, unsigned id, struct vpk_graph *g)
{
	struct fwd_ctl *c = f->ctl;
	uint64_t gen = atomic_load_explicit(&c->clear_gen, memory_order_acquire);

	if (gen != c->seen_gen[id]) {
		vpk_graph_clear_stats(g);
		c->seen_gen[id] = gen;
	}
	vpk_qsbr_quiescent(c->q, id);
	/* After the quiescent state: a writer that saw it may free what the
	 * graph used before, so the tables published before it are taken now. */
	fwd_tunnel_adopt(f, id, g);
}

/* Called with the lock held. */
void
fwd_ctl_clear(struct vpk_fwd *f)
{
	struct fwd_ctl *c = f->ctl;
	unsigned n = f->graph != NULL ? 1 : f->n_wgraphs;

	atomic_fetch_add(&c->clear_gen, 1);
	ctl_sync(f);
	for (unsigned w = 0; w < n; w++)
		if (!atomic_load(&c->online[w]))
			vpk_graph_clear_stats(f->graph != NULL ? f->graph : f->wgraphs[w]);
	c->t_clear = mono_now_s();
}

double
fwd_ctl_since_clear(const struct vpk_fwd *f)
{
	return f->ctl != NULL ? mono_now_s() - f->ctl->t_clear : 0;
}

int
fwd_ctl_set_adj(struct vpk_fwd *f, uint32_t id, const struct vpk_adj *adj, uint32_t ifx)
{
	struct vpk_adj *old = f->adj, *nw;

	if (f->ctl == NULL || !fwd_ctl_has_graphs(f)) {
		if (adj != NULL)
			f->adj[id] = *adj;
		else
			memset(&f->adj[id], 0, sizeof(f->adj[id]));
		f->adj_if[id] = ifx;
		return 0;
	}
	nw = malloc((size_t)f->adjt.n * sizeof(*nw));
	if (nw == NULL)
		return -ENOMEM;
	memcpy(nw, old, (size_t)f->adjt.n * sizeof(*nw));
	if (adj != NULL)
		nw[id] = *adj;
	else
		memset(&nw[id], 0, sizeof(nw[id]));
	__atomic_store_n(&f->adjt.adj, nw, __ATOMIC_RELEASE);
	f->adj = nw;
	f->adj_if[id] = ifx;
	ctl_sync(f);
	free(old);
	return 0;
}

static void
publish_acl(struct vpk_fwd *f, const char *node, struct vpk_acl_node_conf *nc)
{
	if (f->graph != NULL)
		vpk_graph_set_node_ctx(f->graph, node, nc);
	for (unsigned w = 0; w < f->n_wgraphs; w++)
		vpk_graph_set_node_ctx(f->wgraphs[w], node, nc);
	ctl_sync(f);
}

/*
 * The graphs point at f->acl4.nc (or acl6): move them to a copy of the old
 * rule set first, build the new one in place, then move them back. Every
 * step publishes a complete context.
 */
int
fwd_ctl_acl_install(struct vpk_fwd *f, const struct vpk_acl5_rule *r, uint32_t n, bool ipv6,
		    char *err, size_t len)
{
	struct fwd_acl *cur = ipv6 ? &f->acl6 : &f->acl4, *old;
	const char *node = ipv6 ? "ip6-acl" : "ip4-acl";
	int rc;

	if (f->ctl == NULL || !fwd_ctl_has_graphs(f))
		return fwd_acl_install(f, r, n, ipv6, err, len);
	if (vpk_graph_node_index(f->graph != NULL ? f->graph : f->wgraphs[0], node) < 0) {
		snprintf(err, len, "the running graph has no %s node (load rules before the start)", node);
		return -ENOTSUP;
	}
	old = malloc(sizeof(*old));
	if (old == NULL) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	*old = *cur;
	publish_acl(f, node, &old->nc);
	memset(cur, 0, sizeof(*cur));
	rc = fwd_acl_install(f, r, n, ipv6, err, len);
	if (rc != 0)
		*cur = *old;
	publish_acl(f, node, &cur->nc);
	if (rc == 0)
		fwd_acl_free(old);
	free(old);
	return rc;
}

int
fwd_ctl_refuse(const struct vpk_fwd *f, int argc, char **argv, char *err, size_t len)
{
	static const char *const live_ok[] = { "route", "neighbor", "acl", "show", "ip", "icmp", "vxlan", "sr" };
	const char *cmd = argv[0];

	if (f->ctl == NULL || !fwd_ctl_has_graphs(f))
		return 0;
	for (size_t i = 0; i < sizeof(live_ok) / sizeof(live_ok[0]); i++)
		if (strcmp(cmd, live_ok[i]) == 0)
			return 0;
	if (strcmp(cmd, "interface") == 0 && argc == 3 && (strcmp(argv[2], "up") == 0 || strcmp(argv[2], "down") == 0))
		return 0;
	if (strcmp(cmd, "interface") == 0)
		return vpk_errf(err, len, -EBUSY, "interface: cannot change while the forwarder runs: ports are opened "
				"and ethernet-input configured when the run starts (live: interface NAME up|down)");
	return vpk_errf(err, len, -EBUSY, "%s: cannot change while the forwarder runs "
			"(live: route, neighbor, acl, ip address, icmp, vxlan, sr, interface NAME up|down)", cmd);
}
