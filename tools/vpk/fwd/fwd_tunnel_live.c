/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tunnel tables in the graphs: the graph hook that adds the tunnel
 * nodes, the versions of the tables, and publishing a changed version while
 * the graphs run.
 *
 * Eight nodes read the tables: ip4/ip6-tunnel-bypass (prefix tables),
 * vxlan4/6-input (endpoint tables), vxlan4/6-encap, srv6-gtp4-d (SRv6
 * header templates) and srv6-end-m-gtp4-e. Their contexts are built from the
 * confs by their init(), and the bypass hands the others tunnel indices in
 * the buffer, so a graph must take all of them from the same version at
 * once. A live change (a `vxlan` or `sr` line, or all of them in a file):
 *
 *  1. the line changes `next`, a copy of the current version (fwd_tun_wr());
 *  2. fwd_tunnel_commit() builds every graph's contexts from it aside
 *     (vpk_graph_node_ctx_build(), the nodes' own init()) and bumps `gen`;
 *  3. each graph's thread takes its contexts, all eight, between two
 *     vpk_graph_run_once() right after its quiescent state
 *     (fwd_tunnel_adopt()), so no frame of it sees two versions;
 *  4. once every graph passed that point (QSBR), the old contexts and the
 *     old version are freed.
 *
 * With the control socket on, the graphs get every tunnel node from the
 * start (empty tables cost the bypass's checks), so a tunnel can be added
 * to a forwarder started without one. Frames in flight between a worker
 * and a wide worker (--wide-cores) during a change may meet the other
 * version in the second graph: the nodes check the index they are handed
 * against their table (counted "no such ..."), they never read past it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fwd/fwd_tunnel.h"

static const char *const tun_nodes[TUN_N_NODES] = {
	"ip4-tunnel-bypass", "ip6-tunnel-bypass", "vxlan4-input", "vxlan6-input",
	"vxlan4-encap", "vxlan6-encap", "srv6-gtp4-d", "srv6-end-m-gtp4-e",
};

/* The conf node tun_nodes[k] is built from. */
static void *
node_conf(struct fwd_tun *t, unsigned k)
{
	switch (k) {
	case 0:
		return &t->bp4;
	case 1:
		return &t->bp6;
	case 6:
		return &t->gdc;
	case 7:
		return &t->gec;
	default:
		return &t->vxc;
	}
}

/* Point the confs of @t into its own arrays; @from: the version it was copied from (or NULL). */
static void
tun_fix(struct fwd_tun *t, const struct fwd_tun *from)
{
	t->vxc.tunnels = t->vx;
	t->gdc.steer = t->steer;
	t->gec.sid = t->sid;
	for (uint32_t i = 0; from != NULL && i < t->gdc.n_steer; i++)
		if (t->steer[i].policy != NULL)
			t->steer[i].policy = t->pol + (t->steer[i].policy - from->pol);
}

static struct fwd_tun *
tun_new(const struct fwd_tun *from)
{
	struct fwd_tun *t = from != NULL ? malloc(sizeof(*t)) : calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	if (from != NULL)
		memcpy(t, from, sizeof(*t));
	tun_fix(t, from);
	return t;
}

/* Which families and nodes the bypass confs name; @full: all of them (live changes possible). */
static void
tun_bind(struct fwd_tun *t, bool full, bool *v4, bool *v6)
{
	*v4 = *v6 = full;
	for (uint32_t i = 0; i < t->vxc.n_tunnels; i++) {
		*v4 |= !t->vx[i].is_ip6;
		*v6 |= t->vx[i].is_ip6;
	}
	/* IPv4 packets may be encapsulated into IPv6 tunnels: ip4-tunnel-bypass sees both. */
	t->bp4 = (struct vpk_tunnel_bypass_conf){ .vxlan = *v4 || *v6 ? &t->vxc : NULL,
						  .gtp4d = full || t->gdc.n_steer ? &t->gdc : NULL };
	t->bp6 = (struct vpk_tunnel_bypass_conf){ .vxlan = *v6 ? &t->vxc : NULL,
						  .gtp4e = full || t->gec.n_sid ? &t->gec : NULL };
}

bool
fwd_tun_live(const struct vpk_fwd *f)
{
	return f->ctl != NULL && fwd_ctl_has_graphs(f);
}

struct fwd_tun *
fwd_tun_rd(const struct vpk_fwd *f)
{
	const struct fwd_tuns *s = f->tunnels;

	return s == NULL ? NULL : s->next != NULL ? s->next : s->cur;
}

static struct fwd_tuns *
tuns_get(struct vpk_fwd *f)
{
	if (f->tunnels == NULL)
		f->tunnels = calloc(1, sizeof(struct fwd_tuns));
	return f->tunnels;
}

struct fwd_tun *
fwd_tun_wr(struct vpk_fwd *f)
{
	struct fwd_tuns *s = tuns_get(f);

	if (s == NULL)
		return NULL;
	if (fwd_tun_live(f)) {
		if (s->next == NULL)
			s->next = tun_new(s->cur);
		return s->next;
	}
	if (s->cur == NULL)
		s->cur = tun_new(NULL);
	return s->cur;
}

int
fwd_tunnel_graph(struct vpk_fwd *f, struct fwd_graph *fg, char *err, size_t len)
{
	struct fwd_tuns *s = f->tunnels;
	bool full = f->ctl != NULL, v4, v6;
	struct fwd_tun *t;
	int rc = 0;

	if (full && ((s = tuns_get(f)) == NULL || (s->cur == NULL && (s->cur = tun_new(NULL)) == NULL)))
		return vpk_errf(err, len, -ENOMEM, "tunnels: out of memory");
	if (s == NULL || s->cur == NULL)
		return 0;
	t = s->cur;
	tun_bind(t, full, &v4, &v6);
	if (t->bp4.vxlan != NULL || t->bp4.gtp4d != NULL)
		rc |= fwd_graph_add(fg, "ip4-tunnel-bypass", &t->bp4);
	if (t->bp6.vxlan != NULL || t->bp6.gtp4e != NULL)
		rc |= fwd_graph_add(fg, "ip6-tunnel-bypass", &t->bp6);
	if (v4) {
		rc |= fwd_graph_add(fg, "vxlan4-input", &t->vxc);
		rc |= fwd_graph_add(fg, "vxlan4-encap", &t->vxc);
	}
	if (v6) {
		rc |= fwd_graph_add(fg, "vxlan6-input", &t->vxc);
		rc |= fwd_graph_add(fg, "vxlan6-encap", &t->vxc);
	}
	if (t->bp4.gtp4d != NULL)
		rc |= fwd_graph_add(fg, "srv6-gtp4-d", &t->gdc);
	if (t->bp6.gtp4e != NULL)
		rc |= fwd_graph_add(fg, "srv6-end-m-gtp4-e", &t->gec);
	return rc != 0 ? vpk_errf(err, len, -ENOSPC, "tunnels: too many graph nodes") : 0;
}

static struct vpk_graph *
slot_graph(const struct vpk_fwd *f, unsigned w)
{
	return f->graph != NULL ? f->graph : f->wgraphs[w];
}

/* Set graph slot @w's tunnel node contexts to publication @gen's. */
static void
set_ctxs(struct fwd_tuns *s, struct vpk_graph *g, unsigned w, uint64_t gen)
{
	for (unsigned k = 0; k < TUN_N_NODES; k++)
		if (s->pend[gen & 1][w][k] != NULL)
			vpk_graph_set_node_ctx(g, tun_nodes[k], s->pend[gen & 1][w][k]);
}

void
fwd_tunnel_adopt(struct vpk_fwd *f, unsigned id, struct vpk_graph *g)
{
	struct fwd_tuns *s = f->tunnels;
	unsigned n = f->graph != NULL ? 1 : f->n_wgraphs;
	uint64_t gen;

	if (s == NULL || id >= FWD_MAX_GRAPHS)
		return;
	if (g == NULL)          /* reader IDs are graph slots: workers, then wide workers */
		g = f->graph != NULL ? f->graph : id < n ? f->wgraphs[id] : NULL;
	gen = atomic_load(&s->gen);
	if (gen == s->seen[id])
		return;
	for (unsigned w = 0; w < n; w++)
		if (slot_graph(f, w) == g)
			set_ctxs(s, g, w, gen);
	s->seen[id] = gen;
}

void
fwd_tunnel_abort(struct vpk_fwd *f)
{
	struct fwd_tuns *s = f->tunnels;

	if (s != NULL) {
		free(s->next);
		s->next = NULL;
	}
}

/* Build publication @gen's contexts of every graph from @t; on failure none is left. */
static int
build_ctxs(struct vpk_fwd *f, struct fwd_tuns *s, struct fwd_tun *t, uint64_t gen, char *err, size_t len)
{
	unsigned n = f->graph != NULL ? 1 : f->n_wgraphs;
	void *(*pend)[TUN_N_NODES] = s->pend[gen & 1];
	int rc = 0;

	memset(pend, 0, sizeof(s->pend[0]));
	for (unsigned w = 0; w < n && rc == 0; w++) {
		struct vpk_graph *g = slot_graph(f, w);

		if (vpk_graph_node_index(g, tun_nodes[0]) < 0) {
			rc = vpk_errf(err, len, -ENOTSUP, "the running graphs have no tunnel nodes (they were built "
				      "before the control socket was on)");
			break;
		}
		for (unsigned k = 0; k < TUN_N_NODES && rc == 0; k++)
			if (vpk_graph_node_index(g, tun_nodes[k]) >= 0 &&
			    (rc = vpk_graph_node_ctx_build(g, tun_nodes[k], node_conf(t, k), &pend[w][k])) != 0)
				vpk_errf(err, len, rc, "%s: building its tables failed (%d)", tun_nodes[k], rc);
	}
	if (rc != 0)
		for (unsigned w = 0; w < n; w++)
			for (unsigned k = 0; k < TUN_N_NODES; k++)
				vpk_graph_node_ctx_free(slot_graph(f, w), tun_nodes[k], pend[w][k]);
	return rc;
}

int
fwd_tunnel_commit(struct vpk_fwd *f, char *err, size_t len)
{
	struct fwd_tuns *s = f->tunnels;
	unsigned n = f->graph != NULL ? 1 : f->n_wgraphs;
	void *old[FWD_MAX_GRAPHS][TUN_N_NODES];
	uint64_t gen;
	bool v4, v6;
	int rc;

	if (s == NULL || s->next == NULL)
		return 0;
	tun_bind(s->next, true, &v4, &v6);
	gen = atomic_load(&s->gen) + 1;
	rc = build_ctxs(f, s, s->next, gen, err, len);
	if (rc != 0) {
		fwd_tunnel_abort(f);
		return rc;
	}
	for (unsigned w = 0; w < n; w++)
		for (unsigned k = 0; k < TUN_N_NODES; k++)
			old[w][k] = vpk_graph_get_node_ctx(slot_graph(f, w), tun_nodes[k]);
	atomic_store(&s->gen, gen);
	fwd_ctl_sync(f);
	/* Every running graph took them after its quiescent state; set them
	 * for the graphs not running (the same pointers again for the others). */
	for (unsigned w = 0; w < n; w++)
		set_ctxs(s, slot_graph(f, w), w, gen);
	for (unsigned w = 0; w < n; w++)
		for (unsigned k = 0; k < TUN_N_NODES; k++)
			if (old[w][k] != s->pend[gen & 1][w][k])
				vpk_graph_node_ctx_free(slot_graph(f, w), tun_nodes[k], old[w][k]);
	free(s->cur);
	s->cur = s->next;
	s->next = NULL;
	return 0;
}

int
fwd_tunnel_save(const struct vpk_fwd *f, void **out)
{
	const struct fwd_tuns *s = f->tunnels;

	*out = NULL;
	if (s == NULL || s->cur == NULL || fwd_tun_live(f))
		return 0;       /* live: the lines change `next`, dropped on failure */
	*out = malloc(sizeof(struct fwd_tun));
	if (*out == NULL)
		return -ENOMEM;
	memcpy(*out, s->cur, sizeof(struct fwd_tun));
	return 0;
}

void
fwd_tunnel_restore(struct vpk_fwd *f, void *saved)
{
	struct fwd_tuns *s = f->tunnels;

	if (s == NULL || fwd_tun_live(f)) {
		fwd_tunnel_abort(f);
		free(saved);
		return;
	}
	if (saved == NULL) {    /* none before: drop what the file created */
		fwd_tunnel_free(f);
		return;
	}
	/* Copied back into the same allocation, so the pointers inside (the
	 * confs' arrays, steering entries' policies) point where they did. */
	memcpy(s->cur, saved, sizeof(struct fwd_tun));
	free(saved);
}

void
fwd_tunnel_free(struct vpk_fwd *f)
{
	struct fwd_tuns *s = f->tunnels;

	if (s == NULL)
		return;
	free(s->cur);
	free(s->next);
	free(s);
	f->tunnels = NULL;
}
