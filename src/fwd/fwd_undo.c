/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The undo journal of vpk_fwd_exec_file(). Every line is checked before the
 * first is applied, so only resource limits can fail while applying (a FIB
 * out of tbl8 groups, memory). Route and neighbor commands record the state
 * they are about to change here; when a later line fails, the journal is
 * played backwards and the tables are as they were before the file.
 *
 * Undo cannot fail for lack of groups: entries are replayed newest first,
 * so each one restores a state the tables held before, and every group it
 * needs was in use at that moment (and freed by the later changes undone
 * before it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fwd/fwd_priv.h"

enum undo_kind { UNDO_ROUTE4, UNDO_ROUTE6, UNDO_NEIGHBOR };

struct undo_ent {
	enum undo_kind kind;
	bool had;                       /* routes: the prefix existed */
	uint8_t plen;
	uint32_t ip4;
	uint8_t ip6[16];
	uint64_t nh;                    /* routes: its next hop then */
	uint32_t id;                    /* neighbor: its id, entry and interface then */
	struct vpk_adj adj;
	uint32_t adj_if;
};

struct fwd_undo {
	struct undo_ent *e;
	size_t n, cap;
};

static struct undo_ent *
push(struct vpk_fwd *f)
{
	struct fwd_undo *u = f->undo;

	if (u->n == u->cap) {
		size_t cap = u->cap ? 2 * u->cap : 64;
		struct undo_ent *e = realloc(u->e, cap * sizeof(*e));

		if (e == NULL)
			return NULL;
		u->e = e;
		u->cap = cap;
	}
	memset(&u->e[u->n], 0, sizeof(u->e[0]));
	return &u->e[u->n++];
}

int
fwd_undo_begin(struct vpk_fwd *f)
{
	f->undo = calloc(1, sizeof(*f->undo));
	return f->undo != NULL ? 0 : -ENOMEM;
}

int
fwd_undo_route4(struct vpk_fwd *f, uint32_t ip, uint8_t plen)
{
	struct undo_ent *e;

	if (f->undo == NULL)
		return 0;
	if ((e = push(f)) == NULL)
		return -ENOMEM;
	e->kind = UNDO_ROUTE4;
	e->ip4 = ip;
	e->plen = plen;
	e->had = vpk_fib_get(f->fib4, ip, plen, &e->nh) == 0;
	return 0;
}

int
fwd_undo_route6(struct vpk_fwd *f, const uint8_t ip[16], uint8_t plen)
{
	struct undo_ent *e;

	if (f->undo == NULL)
		return 0;
	if ((e = push(f)) == NULL)
		return -ENOMEM;
	e->kind = UNDO_ROUTE6;
	memcpy(e->ip6, ip, 16);
	e->plen = plen;
	e->had = vpk_fib6_get(f->fib6, ip, plen, &e->nh) == 0;
	return 0;
}

int
fwd_undo_neighbor(struct vpk_fwd *f, uint32_t id)
{
	struct undo_ent *e;

	if (f->undo == NULL)
		return 0;
	if ((e = push(f)) == NULL)
		return -ENOMEM;
	e->kind = UNDO_NEIGHBOR;
	e->id = id;
	e->adj = f->adj[id];
	e->adj_if = f->adj_if[id];
	return 0;
}

/* Play the journal backwards. Returns the number of entries that could not be undone (0). */
static size_t
rollback(struct vpk_fwd *f)
{
	struct fwd_undo *u = f->undo;
	size_t bad = 0;

	while (u->n > 0) {
		const struct undo_ent *e = &u->e[--u->n];
		int rc = 0;

		switch (e->kind) {
		case UNDO_ROUTE4:
			rc = e->had ? vpk_fib_add(f->fib4, e->ip4, e->plen, e->nh)
				    : vpk_fib_del(f->fib4, e->ip4, e->plen);
			break;
		case UNDO_ROUTE6:
			rc = e->had ? vpk_fib6_add(f->fib6, e->ip6, e->plen, e->nh)
				    : vpk_fib6_del(f->fib6, e->ip6, e->plen);
			break;
		case UNDO_NEIGHBOR:
			f->adj[e->id] = e->adj;
			f->adj_if[e->id] = e->adj_if;
			break;
		}
		/* -ENOENT: a failed add left nothing to delete */
		bad += rc != 0 && rc != -ENOENT;
	}
	return bad;
}

size_t
fwd_undo_end(struct vpk_fwd *f, bool failed)
{
	size_t bad = 0;

	if (f->undo == NULL)
		return 0;
	if (failed)
		bad = rollback(f);
	free(f->undo->e);
	free(f->undo);
	f->undo = NULL;
	return bad;
}
