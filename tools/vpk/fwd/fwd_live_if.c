/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `interface NAME up|down` while the forwarder runs (VPP's `set interface
 * state`): a down interface neither receives nor sends.
 *
 *  - receive: ethernet-input's configuration is replaced by a copy in which
 *    the port is down (every frame dropped and counted, "port is
 *    administratively down"); a down VLAN sub-interface is left out of the
 *    copy, so its frames are "VLAN tag(s) of no sub-interface";
 *  - send: interface-output's output is wrapped: frames for a down
 *    interface, or for a sub-interface of a down port, are freed and counted
 *    (`show interface`: tx_admin_down).
 *
 * Both are published whole to every graph (vpk_graph_set_node_ctx()); the
 * previous copy is freed after the workers passed a quiescent state. Before
 * the start (a configuration file's `interface NAME down`) the state is only
 * recorded: the graph hook below builds the copies for the graphs of the
 * run, so a port configured down is down from its first frame.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "fwd/fwd_priv.h"

/* What the graphs read; never changed once published. */
struct ifs_pub {
	struct vpk_if_output out;               /* tx = ifs_tx, ctx = this */
	const struct vpk_if_output *orig;
	struct vpk_pool *pool;
	_Atomic uint64_t *drops;                /* struct fwd_ifstate::drops */
	uint8_t down[FWD_MAX_IFS];              /* the interface or its port is down */
	struct vpk_eth_input_conf c;
	struct vpk_eth_if ifs[FWD_MAX_IFS];
	struct vpk_eth_sub subs[FWD_MAX_IFS];
};

struct fwd_ifstate {
	struct ifs_pub *pub;
	bool down[FWD_MAX_IFS];
	_Atomic uint64_t drops[FWD_MAX_IFS];
};

static void
ifs_tx(void *ctx, uint32_t tx_if, const uint32_t *bi, uint32_t n)
{
	const struct ifs_pub *p = ctx;

	if (tx_if < FWD_MAX_IFS && p->down[tx_if]) {
		vpk_pool_free_bulk(p->pool, bi, n);
		atomic_fetch_add_explicit(&p->drops[tx_if], n, memory_order_relaxed);
		return;
	}
	p->orig->tx(p->orig->ctx, tx_if, bi, n);
}

/* A new copy of ethernet-input's configuration (from @base) and the output wrapper, with @s's states. */
static struct ifs_pub *
ifs_build(struct vpk_fwd *f, struct fwd_ifstate *s, const struct vpk_eth_input_conf *base)
{
	struct ifs_pub *p = calloc(1, sizeof(*p));
	uint32_t ns = 0;

	if (p == NULL)
		return NULL;
	p->out = (struct vpk_if_output){ .tx = ifs_tx, .ctx = p };
	p->orig = f->conf.workers > 1 ? &f->out_mt : &f->out;
	p->pool = f->pool;
	p->drops = s->drops;
	for (size_t i = 0; i < f->n_ifs; i++)
		p->down[i] = s->down[i] || (f->ifs[i].parent != 0 && s->down[f->ifs[i].parent - 1]);
	for (uint32_t i = 0; i < base->n_if && i < FWD_MAX_IFS; i++) {
		const struct vpk_eth_if *e = &base->ifs[i];

		p->ifs[i] = *e;
		p->ifs[i].down = s->down[i];
		p->ifs[i].first_sub = (uint16_t)ns;
		for (uint32_t k = e->first_sub; k < (uint32_t)e->first_sub + e->n_sub && k < base->n_sub; k++)
			if (base->subs[k].rx_if >= FWD_MAX_IFS || !s->down[base->subs[k].rx_if])
				p->subs[ns++] = base->subs[k];
		p->ifs[i].n_sub = (uint16_t)(ns - p->ifs[i].first_sub);
	}
	p->c = (struct vpk_eth_input_conf){ .n_if = base->n_if < FWD_MAX_IFS ? base->n_if : FWD_MAX_IFS,
					    .ifs = p->ifs, .n_sub = ns, .subs = p->subs };
	return p;
}

static void
ifs_publish(struct vpk_fwd *f, struct ifs_pub *p)
{
	for (unsigned w = 0; w < (f->graph != NULL ? 1u : f->n_wgraphs); w++) {
		struct vpk_graph *g = f->graph != NULL ? f->graph : f->wgraphs[w];

		vpk_graph_set_node_ctx(g, "ethernet-input", &p->c);
		vpk_graph_set_node_ctx(g, "interface-output", &p->out);
	}
}

static int
if_state(struct vpk_fwd *f, char **argv, bool apply, char *err, size_t len)
{
	struct fwd_ifstate *s = f->ifstate;
	const struct vpk_eth_input_conf *base;
	struct ifs_pub *p, *old;
	size_t i;

	for (i = 0; i < f->n_ifs && strcmp(f->ifs[i].name, argv[1]) != 0; i++)
		;
	if (i == f->n_ifs)
		return vpk_errf(err, len, -ENOENT, "interface %s %s: no such interface", argv[1], argv[2]);
	if (!fwd_ctl_has_graphs(f)) {   /* before the start: the graphs of the run take it (fwd_if_state_graph()) */
		if (apply && s == NULL && (s = f->ifstate = calloc(1, sizeof(*s))) == NULL)
			return vpk_errf(err, len, -ENOMEM, "out of memory");
		if (apply)
			s->down[i] = strcmp(argv[2], "down") == 0;
		return 0;
	}
	if (f->ctl == NULL)
		return vpk_errf(err, len, -ENOTSUP, "interface %s %s: while the forwarder runs, only with live changes "
				"(vpk ctl)", argv[1], argv[2]);
	if ((base = fwd_l2_conf(f)) == NULL)
		return vpk_errf(err, len, -ENOTSUP, "interface %s %s: the running graph has no ethernet-input "
				"configuration", argv[1], argv[2]);
	if (!apply)
		return 0;
	if (s == NULL && (s = f->ifstate = calloc(1, sizeof(*s))) == NULL)
		return vpk_errf(err, len, -ENOMEM, "out of memory");
	s->down[i] = strcmp(argv[2], "down") == 0;
	old = s->pub;
	/* The base is fwd_l2's configuration as built for the run (the graphs took it first). */
	p = ifs_build(f, s, base);
	if (p == NULL) {
		s->down[i] = !s->down[i];
		return vpk_errf(err, len, -ENOMEM, "out of memory");
	}
	ifs_publish(f, p);
	s->pub = p;
	fwd_ctl_sync(f);
	free(old);
	return 0;
}

int
fwd_if_state_cmd(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	if (argc != 3 || (strcmp(argv[2], "up") != 0 && strcmp(argv[2], "down") != 0))
		return vpk_errf(err, len, -EINVAL, "usage: interface NAME up|down");
	return if_state(f, argv, apply, err, len);
}

int
fwd_if_state_graph(struct vpk_fwd *f, struct fwd_graph *fg, char *err, size_t len)
{
	struct fwd_ifstate *s = f->ifstate;
	const struct vpk_eth_input_conf *base;
	bool any = false;

	for (size_t i = 0; s != NULL && i < f->n_ifs; i++)
		any |= s->down[i];
	if (!any)
		return 0;
	/* The first graph of a run builds the copies (the last run's graphs are gone); the others share them. */
	if (!fwd_ctl_has_graphs(f) || s->pub == NULL) {
		struct ifs_pub *p;

		if ((base = fwd_l2_conf(f)) == NULL)
			return vpk_errf(err, len, -ENOTSUP, "interface down: no ethernet-input configuration");
		if ((p = ifs_build(f, s, base)) == NULL)
			return vpk_errf(err, len, -ENOMEM, "out of memory");
		free(s->pub);
		s->pub = p;
	}
	for (size_t k = 0; k < fg->n_nc; k++) {
		if (strcmp(fg->nc[k].node, "ethernet-input") == 0)
			fg->nc[k].conf = &s->pub->c;
		else if (strcmp(fg->nc[k].node, "interface-output") == 0)
			fg->nc[k].conf = &s->pub->out;
	}
	return 0;
}

/* A failed configuration file drops the interfaces it declared (from index @n on): their state goes too. */
void
fwd_if_state_trim(struct vpk_fwd *f, size_t n)
{
	struct fwd_ifstate *s = f->ifstate;

	for (size_t i = n; s != NULL && i < FWD_MAX_IFS; i++)
		s->down[i] = false;
}

void
fwd_if_state_get(const struct vpk_fwd *f, bool down[FWD_MAX_IFS])
{
	const struct fwd_ifstate *s = f->ifstate;

	for (size_t i = 0; i < FWD_MAX_IFS; i++)
		down[i] = s != NULL && s->down[i];
}

void
fwd_if_state_put(struct vpk_fwd *f, const bool down[FWD_MAX_IFS])
{
	struct fwd_ifstate *s = f->ifstate;

	if (s == NULL || fwd_ctl_has_graphs(f))        /* running: the published copies stay as they are */
		return;
	for (size_t i = 0; i < FWD_MAX_IFS; i++)
		s->down[i] = down[i];
}

bool
fwd_if_down(const struct vpk_fwd *f, size_t i, uint64_t *tx_drops)
{
	const struct fwd_ifstate *s = f->ifstate;

	*tx_drops = s != NULL && i < FWD_MAX_IFS ? atomic_load_explicit(&s->drops[i], memory_order_relaxed) : 0;
	return s != NULL && i < FWD_MAX_IFS && s->down[i];
}

void
fwd_if_state_free(struct vpk_fwd *f)
{
	struct fwd_ifstate *s = f->ifstate;

	if (s != NULL)
		free(s->pub);
	free(s);
	f->ifstate = NULL;
}
