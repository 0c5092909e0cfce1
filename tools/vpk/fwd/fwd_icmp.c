/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The forwarder's own addresses and ICMP: configuration commands, the graph
 * hook that adds ip4/ip6-icmp-error and ip4/ip6-local when an address is
 * configured, and cleanup. State: struct fwd_icmp behind vpk_fwd::icmp.
 *
 *   ip address IFACE ADDR/LEN        an address of the router on IFACE (IPv4 or IPv6):
 *                                    a FIB host route ADDR/32 (/128) to VPK_NH_LOCAL,
 *                                    the source of ICMP errors for packets from IFACE
 *   ip address del IFACE ADDR/LEN    the address and its host route go
 *   icmp rate-limit PPS [burst N]    ICMP errors per second per worker (default 1000,
 *                                    burst 100; 0: none sent, all counted)
 *
 * Without an address (and without live changes) nothing changes: packets
 * with an expired TTL or no route are dropped and counted, as before. An
 * address lasts as long as its host route: a failed configuration file
 * (undo journal) or a `route` line over ADDR/32 (/128) takes it away. All
 * three lines work while the graphs run (vpk ctl, linux-sync's kernel
 * addresses: fwd_icmp_addr_set()); see icmp_begin() for how.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/icmp.h>
#include "fwd/fwd_priv.h"

#define ICMP_MAX_ADDR 256u

struct fwd_icmp {
	struct vpk_icmp_addr addr[ICMP_MAX_ADDR];
	struct vpk_icmp_conf conf;
};

static struct fwd_icmp *
icmp_get(struct vpk_fwd *f)
{
	struct fwd_icmp *s = f->icmp;

	if (s == NULL) {
		s = calloc(1, sizeof(*s));
		if (s == NULL)
			return NULL;
		s->conf.addr = s->addr;
		s->conf.rate = 1000;
		s->conf.burst = 100;
		f->icmp = s;
	}
	return s;
}

/* Is @a's host route still VPK_NH_LOCAL? */
static bool
icmp_route_local(const struct vpk_fwd *f, const struct vpk_icmp_addr *a)
{
	uint64_t nh = 0;

	if (a->is_ip6) {
		vpk_fib6_lookup_bulk(f->fib6, (const uint8_t (*)[16])a->addr, &nh, 1);
	} else {
		uint32_t ip = (uint32_t)a->addr[0] << 24 | (uint32_t)a->addr[1] << 16 |
			      (uint32_t)a->addr[2] << 8 | a->addr[3];

		vpk_fib_lookup_bulk(f->fib4, &ip, &nh, 1);
	}
	return nh == VPK_NH_LOCAL;
}

/*
 * The state the graphs read is never written while they run: a change is
 * made to a copy, which the ICMP nodes of every graph take whole
 * (vpk_icmp_set_conf()); the old copy is freed once the readers moved on.
 * Before the graphs exist (or without live changes) it is changed in place.
 * @return the state to change (the copy), NULL: out of memory.
 */
static struct fwd_icmp *
icmp_begin(struct vpk_fwd *f)
{
	struct fwd_icmp *s = icmp_get(f), *nw;

	if (s == NULL || f->ctl == NULL || !fwd_ctl_has_graphs(f))
		return s;
	nw = malloc(sizeof(*nw));
	if (nw == NULL)
		return NULL;
	*nw = *s;
	nw->conf.addr = nw->addr;
	return nw;
}

static void
icmp_commit(struct vpk_fwd *f, struct fwd_icmp *nw)
{
	struct fwd_icmp *old = f->icmp;

	if (nw == old)
		return;
	if (f->graph != NULL)
		vpk_icmp_set_conf(f->graph, &nw->conf);
	for (unsigned w = 0; w < f->n_wgraphs; w++)
		vpk_icmp_set_conf(f->wgraphs[w], &nw->conf);
	f->icmp = nw;
	fwd_ctl_sync(f);
	free(old);
}

static void
icmp_abort(struct vpk_fwd *f, struct fwd_icmp *nw)
{
	if (nw != f->icmp)
		free(nw);
}

/*
 * Keep only the addresses whose host route is still VPK_NH_LOCAL: when a
 * configuration file fails, the undo journal takes its routes back, the
 * host routes of its `ip address` lines with them, and those addresses go.
 */
static void
icmp_prune(struct vpk_fwd *f)
{
	struct fwd_icmp *s = f->icmp, *nw;
	uint32_t k = 0, i;

	if (s == NULL)
		return;
	for (i = 0; i < s->conf.n_addr && icmp_route_local(f, &s->addr[i]); i++)
		;
	if (i == s->conf.n_addr || (nw = icmp_begin(f)) == NULL)
		return;                 /* nothing gone (or no memory: kept; the FIB decides what is local) */
	for (i = 0; i < nw->conf.n_addr; i++)
		if (icmp_route_local(f, &nw->addr[i]))
			nw->addr[k++] = nw->addr[i];
	nw->conf.n_addr = k;
	icmp_commit(f, nw);
}

static int
icmp_find(const struct fwd_icmp *s, const struct vpk_icmp_addr *a)
{
	for (uint32_t i = 0; s != NULL && i < s->conf.n_addr; i++)
		if (s->addr[i].is_ip6 == a->is_ip6 && memcmp(s->addr[i].addr, a->addr, a->is_ip6 ? 16 : 4) == 0)
			return (int)i;
	return -1;
}

static int
host_route(struct vpk_fwd *f, const struct vpk_icmp_addr *a, bool add)
{
	uint32_t ip4 = (uint32_t)a->addr[0] << 24 | (uint32_t)a->addr[1] << 16 | (uint32_t)a->addr[2] << 8 | a->addr[3];

	if ((a->is_ip6 ? fwd_undo_route6(f, a->addr, 128) : fwd_undo_route4(f, ip4, 32)) != 0)
		return -ENOMEM;
	if (a->is_ip6)
		return add ? vpk_fib6_add(f->fib6, a->addr, 128, VPK_NH_LOCAL) : vpk_fib6_del(f->fib6, a->addr, 128);
	return add ? vpk_fib_add(f->fib4, ip4, 32, VPK_NH_LOCAL) : vpk_fib_del(f->fib4, ip4, 32);
}

int
fwd_icmp_addr_check(struct vpk_fwd *f, const struct vpk_icmp_addr *a, bool del, char *err, size_t len)
{
	struct fwd_icmp *s = f->icmp;
	int at;

	icmp_prune(f);
	s = f->icmp;
	at = icmp_find(s, a);
	if (del)
		return at < 0 || s->addr[at].if_index != a->if_index
			       ? vpk_errf(err, len, -ENOENT, "ip address del: not an address of that interface")
			       : 0;
	if (at >= 0)
		return vpk_errf(err, len, -EEXIST, "ip address: the address is configured already");
	if (s != NULL && s->conf.n_addr == ICMP_MAX_ADDR)
		return vpk_errf(err, len, -ENOSPC, "ip address: at most %u addresses", ICMP_MAX_ADDR);
	if (f->ctl != NULL && fwd_ctl_has_graphs(f) &&
	    vpk_graph_node_index(f->graph != NULL ? f->graph : f->wgraphs[0],
				 a->is_ip6 ? "ip6-local" : "ip4-local") < 0)
		return vpk_errf(err, len, -ENOTSUP, "ip address: the running graph has no ICMP nodes");
	return 0;
}

int
fwd_icmp_addr_set(struct vpk_fwd *f, const struct vpk_icmp_addr *a, bool del, char *err, size_t len)
{
	struct fwd_icmp *nw;
	int rc = fwd_icmp_addr_check(f, a, del, err, len), at;

	if (rc != 0)
		return rc;
	if ((nw = icmp_begin(f)) == NULL)
		return vpk_errf(err, len, -ENOMEM, "out of memory");
	at = icmp_find(nw, a);
	if (del) {
		memmove(&nw->addr[at], &nw->addr[at + 1], (nw->conf.n_addr - (uint32_t)at - 1) * sizeof(nw->addr[0]));
		nw->conf.n_addr--;
		/* Off the FIB first: nothing reaches ip4-local for an address the nodes no longer know. */
		if ((rc = host_route(f, a, false)) != 0) {
			icmp_abort(f, nw);
			return vpk_errf(err, len, rc, "ip address del: host route: %s", strerror(-rc));
		}
		icmp_commit(f, nw);
		return 0;
	}
	nw->addr[nw->conf.n_addr++] = *a;
	icmp_commit(f, nw);
	if ((rc = host_route(f, a, true)) != 0) {
		icmp_prune(f);
		return vpk_errf(err, len, rc, "ip address: host route: %s", strerror(-rc));
	}
	return 0;
}

static int
ip_address(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	struct vpk_icmp_addr a = { 0 };
	bool del = argc == 5 && strcmp(argv[2], "del") == 0;
	size_t ifx;
	int fam;

	if ((argc != 4 && !del) || strcmp(argv[1], "address") != 0)
		return vpk_errf(err, len, -EINVAL, "usage: ip address [del] IFACE ADDR/LEN");
	argv += del;
	for (ifx = 0; ifx < f->n_ifs && strcmp(f->ifs[ifx].name, argv[2]) != 0; ifx++)
		;
	if (ifx == f->n_ifs)
		return vpk_errf(err, len, -ENOENT, "ip address: no interface '%s'", argv[2]);
	fam = fwd_parse_addr_len(argv[3], a.addr, &a.plen);
	if (fam < 0)
		return vpk_errf(err, len, -EINVAL, "ip address: '%s': want a.b.c.d/len or an IPv6 address/len", argv[3]);
	a.is_ip6 = fam == 6;
	a.if_index = (uint32_t)ifx;
	return apply ? fwd_icmp_addr_set(f, &a, del, err, len) : fwd_icmp_addr_check(f, &a, del, err, len);
}

static int
cmd_ip(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	return ip_address(f, argc, argv, apply, err, len);
}

static int
cmd_icmp(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	uint32_t rate, burst = 100;
	struct fwd_icmp *s;

	if ((argc != 3 && argc != 5) || strcmp(argv[1], "rate-limit") != 0 ||
	    (argc == 5 && strcmp(argv[3], "burst") != 0))
		return vpk_errf(err, len, -EINVAL, "usage: icmp rate-limit PPS [burst N]");
	if (fwd_parse_u32(argv[2], 100000000, &rate) != 0)
		return vpk_errf(err, len, -EINVAL, "icmp rate-limit: '%s' must be 0..100000000 per second", argv[2]);
	if (argc == 5 && (fwd_parse_u32(argv[4], 1000000, &burst) != 0 || burst == 0))
		return vpk_errf(err, len, -EINVAL, "icmp rate-limit: burst '%s' must be 1..1000000", argv[4]);
	if (!apply)
		return 0;
	if ((s = icmp_begin(f)) == NULL)
		return vpk_errf(err, len, -ENOMEM, "out of memory");
	s->conf.rate = rate;
	s->conf.burst = burst;
	icmp_commit(f, s);
	return 0;
}

const struct fwd_cmd fwd_cmd_ip = { "ip", cmd_ip };
const struct fwd_cmd fwd_cmd_icmp = { "icmp", cmd_icmp };

int
fwd_icmp_graph(struct vpk_fwd *f, struct fwd_graph *fg, char *err, size_t len)
{
	struct fwd_icmp *s;
	int rc = 0;

	icmp_prune(f);
	s = f->icmp;
	/* With live changes on, addresses may come later (ip address, linux-sync): the nodes are there. */
	if (f->ctl != NULL && s == NULL)
		s = icmp_get(f);
	if (s == NULL || (s->conf.n_addr == 0 && f->ctl == NULL))
		return 0;
	rc |= fwd_graph_add(fg, "ip4-icmp-error", &s->conf);
	rc |= fwd_graph_add(fg, "ip6-icmp-error", &s->conf);
	rc |= fwd_graph_add(fg, "ip4-local", &s->conf);
	rc |= fwd_graph_add(fg, "ip6-local", &s->conf);
	return rc != 0 ? vpk_errf(err, len, -ENOSPC, "icmp: too many graph nodes") : 0;
}

void
fwd_icmp_free(struct vpk_fwd *f)
{
	free(f->icmp);
	f->icmp = NULL;
}
