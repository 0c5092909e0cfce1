/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * linux-sync's resync: before a dump, the set of prefixes linux-sync
 * installed (an open-addressing hash set); the dump takes out every prefix
 * it names (ls_set_remove()); ls_resync_end() (fwd_linux_apply.c) deletes
 * the rest.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fwd/fwd_linux.h"

uint32_t
ls_hash(uint8_t fam, uint8_t len, const uint8_t ip[16])
{
	uint32_t h = 2166136261u ^ fam ^ (uint32_t)len << 8;

	for (int i = 0; i < 16; i++)
		h = (h ^ ip[i]) * 16777619u;
	return h;
}

int
ls_set_add(struct ls_set *s, uint8_t fam, uint8_t len, const uint8_t ip[16])
{
	if (2 * (s->n + 1) > s->cap) {
		struct ls_set g = { .cap = s->cap ? 2 * s->cap : 1024 };

		g.k = calloc(g.cap, sizeof(*g.k));
		if (g.k == NULL)
			return -ENOMEM;
		for (size_t i = 0; i < s->cap; i++)
			if (s->k[i].used == 1)
				ls_set_add(&g, s->k[i].fam, s->k[i].len, s->k[i].ip);
		free(s->k);
		*s = g;
	}
	for (size_t i = ls_hash(fam, len, ip) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
		if (s->k[i].used == 0) {
			s->k[i] = (struct ls_key){ fam, len, 1, { 0 } };
			memcpy(s->k[i].ip, ip, 16);
			s->n++;
			return 0;
		}
	}
}

void
ls_set_remove(struct ls_set *s, uint8_t fam, uint8_t len, const uint8_t ip[16])
{
	if (s == NULL || s->cap == 0)
		return;
	for (size_t i = ls_hash(fam, len, ip) & (s->cap - 1); s->k[i].used != 0; i = (i + 1) & (s->cap - 1))
		if (s->k[i].used == 1 && s->k[i].fam == fam && s->k[i].len == len && memcmp(s->k[i].ip, ip, 16) == 0) {
			s->k[i].used = 2;
			return;
		}
}

struct walk_arg {
	struct fwd_lsync *ls;
	int rc;
};

static int
stale4(void *arg, uint32_t ip, uint8_t depth, uint64_t nh)
{
	struct walk_arg *w = arg;
	uint8_t a[16] = { (uint8_t)(ip >> 24), (uint8_t)(ip >> 16), (uint8_t)(ip >> 8), (uint8_t)ip };

	if (ls_nh_owned(w->ls, nh))
		w->rc = ls_set_add(w->ls->stale, AF_INET, depth, a);
	return w->rc;
}

static int
stale6(void *arg, const uint8_t ip[16], uint8_t depth, uint64_t nh)
{
	struct walk_arg *w = arg;

	if (ls_nh_owned(w->ls, nh))
		w->rc = ls_set_add(w->ls->stale, AF_INET6, depth, ip);
	return w->rc;
}

int
ls_resync_begin(struct fwd_lsync *ls)
{
	struct walk_arg w = { ls, 0 };

	ls->stale = calloc(1, sizeof(*ls->stale));
	if (ls->stale == NULL)
		return -ENOMEM;
	for (size_t b = 0; b < LS_NEIGH_BUCKETS; b++)
		for (struct ls_neigh *e = ls->neigh[b]; e != NULL; e = e->next)
			e->seen = false;
	for (size_t i = 0; i < ls->n_addrs; i++)
		ls->addrs[i].seen = false;
	vpk_fib_walk(ls->f->fib4, stale4, &w);
	if (w.rc == 0)
		vpk_fib6_walk(ls->f->fib6, stale6, &w);
	return w.rc;
}

