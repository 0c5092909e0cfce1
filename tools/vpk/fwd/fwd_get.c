/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The forwarder's accessors (fwd.h): the generated traffic of vpk fwd --demo
 * and the read-only views that vpk fwd's show tables, its JSON and the tests
 * take of the state that fwd.c builds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fwd/fwd_priv.h"

int
vpk_fwd_set_traffic(struct vpk_fwd *f, const uint8_t *const *pkts, const uint16_t *lens,
		    size_t n_tmpl, uint64_t total)
{
	uint8_t *t;
	uint16_t *l;

	if (f == NULL || pkts == NULL || lens == NULL || n_tmpl == 0)
		return -EINVAL;
	for (size_t i = 0; i < n_tmpl; i++)
		if (lens[i] == 0 || lens[i] > FWD_TMPL_MAX || lens[i] > vpk_pool_data_size(f->pool))
			return -EINVAL;
	t = malloc(n_tmpl * FWD_TMPL_MAX);
	l = malloc(n_tmpl * sizeof(*l));
	if (t == NULL || l == NULL) {
		free(t);
		free(l);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n_tmpl; i++) {
		memcpy(t + i * FWD_TMPL_MAX, pkts[i], lens[i]);
		l[i] = lens[i];
	}
	free(f->tmpl);
	free(f->tmpl_len);
	f->tmpl = t;
	f->tmpl_len = l;
	f->n_tmpl = n_tmpl;
	f->traffic_total = total;
	return 0;
}

struct vpk_graph *
vpk_fwd_graph(const struct vpk_fwd *f)
{
	return f->graph != NULL ? f->graph : f->n_wgraphs > 0 ? f->wgraphs[0] : NULL;
}

unsigned
vpk_fwd_n_workers(const struct vpk_fwd *f)
{
	return f->graph != NULL ? 1 : f->n_wgraphs;
}

struct vpk_graph *
vpk_fwd_worker_graph(const struct vpk_fwd *f, unsigned w)
{
	if (f->graph != NULL)
		return w == 0 ? f->graph : NULL;
	return w < f->n_wgraphs ? f->wgraphs[w] : NULL;
}

size_t
vpk_fwd_n_ifs(const struct vpk_fwd *f)
{
	return f->n_ifs;
}

int
vpk_fwd_if_stats(const struct vpk_fwd *f, size_t i, struct vpk_fwd_if_stats *out)
{
	if (f == NULL || out == NULL || i >= f->n_ifs)
		return -EINVAL;
	out->name = f->ifs[i].name;
	out->rx = f->ifs[i].rx;
	out->rx_skipped = f->ifs[i].rx_skipped;
	out->tx = f->ifs[i].tx;
	out->tx_no_output = f->ifs[i].tx_no_output;
	return 0;
}

size_t
vpk_fwd_shows(const struct vpk_fwd *f, const char *const **shows)
{
	*shows = (const char *const *)f->shows;
	return f->n_shows;
}

uint32_t
vpk_fwd_bufs_in_use(const struct vpk_fwd *f)
{
	return vpk_pool_in_use(f->pool);
}

const char *
vpk_fwd_acl_impl(const struct vpk_fwd *f)
{
	return f->acl4.acl != NULL ? vpk_acl_impl_name(f->acl4.acl)
	       : f->acl6.acl != NULL ? vpk_acl_impl_name(f->acl6.acl) : "-";
}

bool
vpk_fwd_has_neighbor(const struct vpk_fwd *f, uint32_t id)
{
	return f != NULL && id >= 1 && id <= f->conf.max_neighbors && f->adj[id].valid;
}

struct vpk_fib *
vpk_fwd_fib4(const struct vpk_fwd *f)
{
	return f->fib4;
}
