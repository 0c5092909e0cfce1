/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The undo journal of vpk_fwd_exec_file(). Every line is checked before the
 * first is applied, against the state before the file, so applying can
 * still fail: resource limits (a FIB out of tbl8 groups, memory) and lines
 * whose check depended on earlier lines of the same file (a second `vxlan
 * tunnel` with the same key, a `del` of a tunnel the file itself adds).
 * Route and neighbor commands record the state they are about to change
 * here; interface settings (with their administrative state) and the
 * tunnel state are copied whole when the journal begins (a few KB and one allocation, on a control-plane path).
 * When a line fails, all of it is put back and the forwarder is as it was
 * before the file.
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
	struct fwd_if *ifs;             /* interfaces at the start, strings owned here */
	size_t n_ifs;
	void *tun;                      /* fwd_tunnel_save() copy */
	bool down[FWD_MAX_IFS];         /* interfaces' administrative state at the start */
};

static void
free_ifs(struct fwd_if *ifs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(ifs[i].in_path);
		free(ifs[i].out_path);
		free(ifs[i].live);
	}
	free(ifs);
}

static char *
dup_or_null(const char *s, bool *fail)
{
	char *d = s != NULL ? strdup(s) : NULL;

	*fail |= s != NULL && d == NULL;
	return d;
}

/* A new entry of @kind: NULL with *rc 0 without a journal, -ENOMEM when it cannot grow. */
static struct undo_ent *
push(struct vpk_fwd *f, enum undo_kind kind, int *rc)
{
	struct fwd_undo *u = f->undo;

	*rc = 0;
	if (u == NULL)
		return NULL;
	if (u->n == u->cap) {
		size_t cap = u->cap ? 2 * u->cap : 64;
		struct undo_ent *e = realloc(u->e, cap * sizeof(*e));

		if (e == NULL) {
			*rc = -ENOMEM;
			return NULL;
		}
		u->e = e;
		u->cap = cap;
	}
	memset(&u->e[u->n], 0, sizeof(u->e[0]));
	u->e[u->n].kind = kind;
	return &u->e[u->n++];
}

int
fwd_undo_begin(struct vpk_fwd *f)
{
	struct fwd_undo *u = calloc(1, sizeof(*f->undo));
	bool fail = false;

	if (u == NULL)
		return -ENOMEM;
	u->ifs = calloc(f->n_ifs + 1, sizeof(*u->ifs));
	fail = u->ifs == NULL || fwd_tunnel_save(f, &u->tun) != 0;
	for (size_t i = 0; !fail && i < f->n_ifs; i++) {
		u->ifs[i] = f->ifs[i];
		u->ifs[i].in_path = dup_or_null(f->ifs[i].in_path, &fail);
		u->ifs[i].out_path = dup_or_null(f->ifs[i].out_path, &fail);
		u->ifs[i].live = dup_or_null(f->ifs[i].live, &fail);
		u->n_ifs = i + 1;
	}
	if (fail) {
		if (u->ifs != NULL)
			free_ifs(u->ifs, u->n_ifs);
		free(u->tun);
		free(u);
		return -ENOMEM;
	}
	fwd_if_state_get(f, u->down);
	f->undo = u;
	return 0;
}

/* A route about to change: @ip6 NULL for IPv4 @ip4. */
static int
note_route(struct vpk_fwd *f, uint32_t ip4, const uint8_t *ip6, uint8_t plen)
{
	int rc;
	struct undo_ent *e = push(f, ip6 != NULL ? UNDO_ROUTE6 : UNDO_ROUTE4, &rc);

	if (e == NULL)
		return rc;
	e->ip4 = ip4;
	if (ip6 != NULL)
		memcpy(e->ip6, ip6, 16);
	e->plen = plen;
	e->had = ip6 != NULL ? vpk_fib6_get(f->fib6, ip6, plen, &e->nh) == 0
			     : vpk_fib_get(f->fib4, ip4, plen, &e->nh) == 0;
	return 0;
}

int
fwd_undo_route4(struct vpk_fwd *f, uint32_t ip, uint8_t plen)
{
	return note_route(f, ip, NULL, plen);
}

int
fwd_undo_route6(struct vpk_fwd *f, const uint8_t ip[16], uint8_t plen)
{
	return note_route(f, 0, ip, plen);
}

int
fwd_undo_neighbor(struct vpk_fwd *f, uint32_t id)
{
	int rc;
	struct undo_ent *e = push(f, UNDO_NEIGHBOR, &rc);

	if (e == NULL)
		return rc;
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
	if (failed) {
		bad = rollback(f);
		for (size_t i = 0; i < f->undo->n_ifs; i++) {
			free(f->ifs[i].in_path);
			free(f->ifs[i].out_path);
			free(f->ifs[i].live);
			f->ifs[i] = f->undo->ifs[i];    /* the copies' strings move back */
		}
		f->undo->n_ifs = 0;
		fwd_tunnel_restore(f, f->undo->tun);
		fwd_if_state_put(f, f->undo->down);
	} else {
		free(f->undo->tun);
	}
	free_ifs(f->undo->ifs, f->undo->n_ifs);
	free(f->undo->e);
	free(f->undo);
	f->undo = NULL;
	return bad;
}
