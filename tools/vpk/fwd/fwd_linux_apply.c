/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * linux-sync: kernel objects into the forwarder's tables.
 *
 *  - A route of the synced table becomes a FIB route (IPv4 or IPv6) whose
 *    next hop is a neighbor ID linux-sync gives each distinct (gateway,
 *    interface): IDs are taken from the top of the neighbor range down,
 *    skipping configured neighbors, and freed when no route uses them.
 *  - The adjacency of such an ID is valid when the kernel has a usable
 *    neighbour entry (reachable, stale, delay, probe, permanent) for the
 *    gateway on that interface and the interface is one of vpk's (same
 *    name, or its live device): MAC from the neighbour entry, source MAC
 *    and output from vpk's interface. Otherwise packets are dropped and
 *    counted as "no adjacency" (VPP's incomplete adjacency).
 *  - On-link routes (no gateway) get an ID per interface whose adjacency
 *    stays incomplete; the hosts on the link are reached through host
 *    routes made from the kernel's neighbour table (neigh_host()). vpk does
 *    not resolve addresses itself: a host without a kernel neighbour entry
 *    is dropped as "no adjacency".
 *  - Blackhole, unreachable and prohibit routes share one ID that never
 *    gets an adjacency: dropped.
 *  - ECMP (RTA_MULTIPATH, up to LS_MAX_PATHS paths): the prefix's next hop
 *    is a group ID whose adjacency has n_paths set, followed by one ID per
 *    path (fwd_linux_ecmp.c); ip4/ip6-rewrite pick a path by flow hash.
 *  - One route per prefix: routes that differ only in metric or TOS are not
 *    told apart; the last change the kernel announced wins.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/neighbour.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/icmp.h>
#include "fwd/fwd_cli.h"
#include "fwd/fwd_linux.h"
#include "common/clock.h"

#define NH_BUCKETS LS_NH_BUCKETS
#define NEIGH_BUCKETS LS_NEIGH_BUCKETS

/* ---- links, neighbours ---- */
const char *
ls_link_name(const struct fwd_lsync *ls, int ifindex)
{
	for (size_t i = 0; i < ls->n_links; i++)
		if (ls->links[i].ifindex == ifindex)
			return ls->links[i].name;
	return "";
}

/* vpk's interface for a kernel interface: same name, or that live device; -1: none. */
static int
vpk_if_of(const struct fwd_lsync *ls, int ifindex)
{
	const char *name = ls_link_name(ls, ifindex);

	if (name[0] == '\0')
		return -1;
	for (size_t i = 0; i < ls->f->n_ifs; i++)
		if (strcmp(ls->f->ifs[i].name, name) == 0 ||
		    (ls->f->ifs[i].live != NULL && strcmp(ls->f->ifs[i].live, name) == 0))
			return (int)i;
	return -1;
}

static struct ls_neigh **
neigh_slot(struct fwd_lsync *ls, uint8_t fam, const uint8_t ip[16], int ifindex)
{
	struct ls_neigh **p = &ls->neigh[ls_hash(fam, (uint8_t)ifindex, ip) % NEIGH_BUCKETS];

	for (; *p != NULL; p = &(*p)->next)
		if ((*p)->fam == fam && (*p)->ifindex == ifindex && memcmp((*p)->ip, ip, 16) == 0)
			break;
	return p;
}

/* ---- next hops ---- */
static uint32_t
nh_bucket(uint8_t fam, const uint8_t gw[16], int ifindex, bool drop)
{
	return ls_hash(fam, (uint8_t)(drop ? 255 : ifindex), gw) % NH_BUCKETS;
}

static uint32_t
nh_find(const struct fwd_lsync *ls, uint8_t fam, const uint8_t gw[16], int ifindex, bool drop)
{
	for (uint32_t id = ls->nh_hash[nh_bucket(fam, gw, ifindex, drop)]; id != 0; id = ls->nh[id].next) {
		const struct ls_nh *n = &ls->nh[id];

		if (n->fam == fam && n->drop == drop && n->n_paths == 0 &&
		    (drop || (n->ifindex == ifindex && memcmp(n->gw, gw, 16) == 0)))
			return id;
	}
	return 0;
}

/* Recompute the adjacency of @id from the kernel's neighbour and vpk's interfaces. */
static int
nh_refresh(struct fwd_lsync *ls, uint32_t id)
{
	struct vpk_fwd *f = ls->f;
	const struct ls_nh *n = &ls->nh[id];
	struct vpk_adj a = { 0 };
	static const uint8_t zero[16];
	int ifx = n->drop ? -1 : vpk_if_of(ls, n->ifindex);

	if (n->n_paths != 0) {
		a.n_paths = n->n_paths;         /* the paths' own adjacencies follow it */
		return memcmp(&a, &f->adj[id], sizeof(a)) == 0 ? 0 : fwd_ctl_set_adj(f, id, &a, 0);
	}
	if (ifx >= 0 && memcmp(n->gw, zero, 16) != 0) {
		const struct ls_neigh *e = *neigh_slot(ls, n->fam, n->gw, n->ifindex);

		if (e != NULL && e->valid) {
			memcpy(a.dst_mac, e->mac, 6);
			memcpy(a.src_mac, f->ifs[ifx].mac, 6);
			a.tx_if = (uint32_t)ifx;
			a.valid = 1;
		}
	}
	if (memcmp(&a, &f->adj[id], sizeof(a)) == 0)
		return 0;
	return fwd_ctl_set_adj(f, id, a.valid ? &a : NULL, ifx >= 0 ? (uint32_t)ifx : 0);
}

int
ls_nh_refresh(struct fwd_lsync *ls, uint32_t id)
{
	return nh_refresh(ls, id);
}

static bool
id_free(const struct fwd_lsync *ls, uint32_t c)
{
	return ls->nh[c].fam == 0 && !ls->f->adj[c].valid && ls->f->adj[c].n_paths == 0;
}

uint32_t
ls_ids_alloc(struct fwd_lsync *ls, uint32_t count)
{
	uint32_t max = ls->f->conf.max_neighbors, run = 0;

	if (count > 1) {
		for (uint32_t c = max; c >= 1; c--)
			if ((run = id_free(ls, c) ? run + 1 : 0) == count)
				return c;
		return 0;
	}
	/* Down from the last one taken, wrapping: configured neighbors sit at the bottom. */
	for (uint32_t k = 0; k < max; k++) {
		uint32_t c = (ls->nh_next_free - 1 + max - k) % max + 1;

		if (id_free(ls, c)) {
			ls->nh_next_free = c > 1 ? c - 1 : max;
			return c;
		}
	}
	return 0;
}

/* The ID of this next hop, one more reference; 0 when every ID is taken. */
static uint32_t
nh_get(struct fwd_lsync *ls, uint8_t fam, const uint8_t gw[16], int ifindex, bool drop)
{
	uint32_t id = nh_find(ls, fam, gw, ifindex, drop), b;

	if (id != 0) {
		ls->nh[id].refs++;
		return id;
	}
	if ((id = ls_ids_alloc(ls, 1)) == 0)
		return 0;
	b = nh_bucket(fam, gw, ifindex, drop);
	ls->nh[id] = (struct ls_nh){ .fam = fam, .drop = drop, .ifindex = drop ? 0 : ifindex, .refs = 1,
				     .next = ls->nh_hash[b], .bucket = b };
	if (!drop)
		memcpy(ls->nh[id].gw, gw, 16);
	ls->nh_hash[b] = id;
	nh_refresh(ls, id);
	return id;
}

static void
nh_put(struct fwd_lsync *ls, uint32_t id)
{
	struct ls_nh *n = &ls->nh[id];
	unsigned paths = n->n_paths;
	uint32_t *p;

	if (id == 0 || n->fam == 0 || n->member || --n->refs > 0)
		return;
	for (p = &ls->nh_hash[n->bucket]; *p != 0 && *p != id; p = &ls->nh[*p].next)
		;
	if (*p == id)
		*p = n->next;
	memset(n, 0, sizeof(*n));
	if (ls->f->adj[id].valid || ls->f->adj[id].n_paths != 0)
		fwd_ctl_set_adj(ls->f, id, NULL, 0);
	if (paths != 0)
		ls_grp_release(ls, id, paths);
}

bool
ls_nh_owned(const struct fwd_lsync *ls, uint64_t nh)
{
	return nh != 0 && nh <= ls->f->conf.max_neighbors && ls->nh[nh].fam != 0;
}

/* ---- FIB ---- */
static int
fib_get(struct vpk_fwd *f, uint8_t fam, const uint8_t ip[16], uint8_t len, uint64_t *nh)
{
	if (fam == AF_INET)
		return vpk_fib_get(f->fib4, (uint32_t)ip[0] << 24 | (uint32_t)ip[1] << 16 | (uint32_t)ip[2] << 8 | ip[3],
				   len, nh);
	return vpk_fib6_get(f->fib6, ip, len, nh);
}

static int
fib_set(struct vpk_fwd *f, uint8_t fam, const uint8_t ip[16], uint8_t len, uint64_t nh, bool add)
{
	uint32_t v4 = (uint32_t)ip[0] << 24 | (uint32_t)ip[1] << 16 | (uint32_t)ip[2] << 8 | ip[3];

	if (fam == AF_INET)
		return add ? vpk_fib_add(f->fib4, v4, len, nh) : vpk_fib_del(f->fib4, v4, len);
	return add ? vpk_fib6_add(f->fib6, ip, len, nh) : vpk_fib6_del(f->fib6, ip, len);
}

static void
route_del(struct fwd_lsync *ls, uint8_t fam, const uint8_t ip[16], uint8_t len)
{
	uint64_t old;

	if (fib_get(ls->f, fam, ip, len, &old) != 0 || !ls_nh_owned(ls, old))
		return;                 /* not ours (a configured route) or already gone */
	if (fib_set(ls->f, fam, ip, len, 0, false) == 0) {
		nh_put(ls, (uint32_t)old);
		ls->st.route_del++;
	}
}

static void neigh_hosts_of(struct fwd_lsync *ls, uint8_t fam, int ifindex);

static bool
ls_nh_is_onlink(const struct ls_nh *n)
{
	static const uint8_t zero[16];

	return memcmp(n->gw, zero, 16) == 0;
}

/* Point the prefix at next hop @id (a reference the caller took; 0: none could be had). */
static void
route_set(struct fwd_lsync *ls, uint8_t fam, const uint8_t ip[16], uint8_t len, uint32_t id)
{
	uint64_t old = 0;
	bool had = fib_get(ls->f, fam, ip, len, &old) == 0;

	if (id == 0 || fib_set(ls->f, fam, ip, len, id, true) != 0) {
		nh_put(ls, id);
		ls->st.errors++;
		return;
	}
	if (had && ls_nh_owned(ls, old))
		nh_put(ls, (uint32_t)old);
	ls->st.route_add++;
	if (ls->nh[id].n_paths == 0 && !ls->nh[id].drop && ls_nh_is_onlink(&ls->nh[id]))
		neigh_hosts_of(ls, ls->nh[id].fam, ls->nh[id].ifindex);
}


/* ---- messages ---- */
struct attrs {
	const struct nlattr *a[RTA_MAX + 1 > NDA_MAX + 1 ? (RTA_MAX + 1 > IFLA_MAX + 1 ? RTA_MAX + 1 : IFLA_MAX + 1)
							 : NDA_MAX + 1];
	int max;
};

static int
attr_cb(const struct nlattr *a, void *data)
{
	struct attrs *t = data;
	int type = mnl_attr_get_type(a);

	if (type <= t->max)
		t->a[type] = a;
	return MNL_CB_OK;
}

static void
copy_addr(uint8_t out[16], const struct nlattr *a, uint8_t fam)
{
	size_t want = fam == AF_INET ? 4 : 16;

	memset(out, 0, 16);
	if (a != NULL && mnl_attr_get_payload_len(a) >= want)
		memcpy(out, mnl_attr_get_payload(a), want);
}

/*
 * IPv6 keeps the paths of a multipath route as sibling routes: deleting one
 * path (`ip -6 route del P via G`) is announced as that path's deletion.
 * When the prefix's next hop is a group holding (@gw_a, @oif), the prefix
 * keeps the other paths. @return false when it is not such a group (the
 * prefix is deleted).
 */
static bool
path_del(struct fwd_lsync *ls, uint8_t fam, const uint8_t dst[16], uint8_t len, const struct nlattr *gw_a, int oif)
{
	struct ls_path p[LS_MAX_PATHS];
	uint8_t gw[16];
	uint64_t cur;
	unsigned n, k = 0;

	if (fib_get(ls->f, fam, dst, len, &cur) != 0 || !ls_nh_owned(ls, cur) || ls->nh[cur].n_paths < 2)
		return false;
	copy_addr(gw, gw_a, fam);
	n = ls_grp_paths(ls, (uint32_t)cur, p);
	for (unsigned i = 0; i < n; i++)
		if (memcmp(p[i].gw, gw, 16) != 0 || (oif != 0 && p[i].ifindex != oif))
			p[k++] = p[i];
	if (k == n || k == 0)
		return false;
	route_set(ls, fam, dst, len, k == 1 ? nh_get(ls, fam, p[0].gw, p[0].ifindex, false) : ls_grp_get(ls, fam, p, k));
	return true;
}

static void
apply_route(struct fwd_lsync *ls, const struct nlmsghdr *nh)
{
	const struct rtmsg *rm = mnl_nlmsg_get_payload(nh);
	struct attrs t = { .max = RTA_MAX };
	uint8_t dst[16], gw[16] = { 0 };
	uint32_t table;
	int oif = 0;
	bool drop;

	if (rm->rtm_family != AF_INET && rm->rtm_family != AF_INET6)
		return;
	mnl_attr_parse(nh, sizeof(*rm), attr_cb, &t);
	table = t.a[RTA_TABLE] != NULL ? mnl_attr_get_u32(t.a[RTA_TABLE]) : rm->rtm_table;
	drop = rm->rtm_type == RTN_BLACKHOLE || rm->rtm_type == RTN_UNREACHABLE || rm->rtm_type == RTN_PROHIBIT;
	if (table != ls->table || (rm->rtm_type != RTN_UNICAST && !drop) || (rm->rtm_flags & RTM_F_CLONED) ||
	    rm->rtm_dst_len > (rm->rtm_family == AF_INET ? 32 : 128)) {
		ls->st.route_skip++;
		return;
	}
	copy_addr(dst, t.a[RTA_DST], rm->rtm_family);
	/* Host bits beyond the length are zero in the kernel's routes already. */
	if (t.a[RTA_OIF] != NULL)
		oif = (int)mnl_attr_get_u32(t.a[RTA_OIF]);
	if (nh->nlmsg_type == RTM_DELROUTE) {
		if (t.a[RTA_GATEWAY] == NULL || !path_del(ls, rm->rtm_family, dst, rm->rtm_dst_len, t.a[RTA_GATEWAY], oif))
			route_del(ls, rm->rtm_family, dst, rm->rtm_dst_len);
		ls_set_remove(ls->stale, rm->rtm_family, rm->rtm_dst_len, dst);
		return;
	}
	if (t.a[RTA_GATEWAY] != NULL) {
		copy_addr(gw, t.a[RTA_GATEWAY], rm->rtm_family);
	} else if (t.a[RTA_MULTIPATH] != NULL && !drop) {
		struct ls_path p[LS_MAX_PATHS];
		unsigned n = ls_multipath(t.a[RTA_MULTIPATH], rm->rtm_family, p);

		if (n >= 2) {
			route_set(ls, rm->rtm_family, dst, rm->rtm_dst_len, ls_grp_get(ls, rm->rtm_family, p, n));
			ls_set_remove(ls->stale, rm->rtm_family, rm->rtm_dst_len, dst);
			return;
		}
		if (n == 1) {
			memcpy(gw, p[0].gw, 16);
			oif = p[0].ifindex;
		}
	}
	route_set(ls, rm->rtm_family, dst, rm->rtm_dst_len, nh_get(ls, rm->rtm_family, gw, oif, drop));
	ls_set_remove(ls->stale, rm->rtm_family, rm->rtm_dst_len, dst);
}

/* Does an on-link route of the neighbour's interface (no gateway) cover it? */
static bool
on_link(const struct fwd_lsync *ls, const struct ls_neigh *e)
{
	static const uint8_t zero[16];
	uint64_t nh = 0;

	if (e->fam == AF_INET) {
		uint32_t v4 = (uint32_t)e->ip[0] << 24 | (uint32_t)e->ip[1] << 16 | (uint32_t)e->ip[2] << 8 | e->ip[3];

		vpk_fib_lookup_bulk(ls->f->fib4, &v4, &nh, 1);
	} else {
		vpk_fib6_lookup_bulk(ls->f->fib6, (const uint8_t (*)[16])e->ip, &nh, 1);
	}
	return ls_nh_owned(ls, nh) && ls->nh[nh].n_paths == 0 && !ls->nh[nh].drop &&
	       ls->nh[nh].ifindex == e->ifindex && memcmp(ls->nh[nh].gw, zero, 16) == 0;
}

/*
 * On-link hosts: a usable kernel neighbour on one of vpk's interfaces that
 * an on-link route of that interface covers gets a host route (/32, /128)
 * through its own adjacency, unless a route of that exact prefix is there
 * already (the kernel's, or a local address). It goes when the neighbour
 * stops being usable. (The kernel also keeps entries for hosts that are
 * not on the link, e.g. from ARP requests sent from a loopback address:
 * those get none.)
 */
static void
neigh_host(struct fwd_lsync *ls, struct ls_neigh *e, bool want)
{
	uint8_t len = e->fam == AF_INET ? 32 : 128;
	uint64_t old;
	uint32_t id;

	want = want && e->valid && vpk_if_of(ls, e->ifindex) >= 0 && (e->host || on_link(ls, e));
	if (want && e->host) {
		ls_set_remove(ls->stale, e->fam, len, e->ip);      /* a resync keeps it */
		return;
	}
	if (want) {
		if (fib_get(ls->f, e->fam, e->ip, len, &old) == 0 ||
		    (id = nh_get(ls, e->fam, e->ip, e->ifindex, false)) == 0)
			return;
		if (fib_set(ls->f, e->fam, e->ip, len, id, true) != 0) {
			nh_put(ls, id);
			ls->st.errors++;
			return;
		}
		e->host = true;
		return;
	}
	if (!e->host)
		return;
	e->host = false;
	id = nh_find(ls, e->fam, e->ip, e->ifindex, false);
	if (id != 0 && fib_get(ls->f, e->fam, e->ip, len, &old) == 0 && old == id &&
	    fib_set(ls->f, e->fam, e->ip, len, 0, false) == 0)
		nh_put(ls, id);
}

/* An on-link route of @ifindex came: the neighbours it covers get their host routes. */
static void
neigh_hosts_of(struct fwd_lsync *ls, uint8_t fam, int ifindex)
{
	for (size_t b = 0; b < NEIGH_BUCKETS; b++)
		for (struct ls_neigh *e = ls->neigh[b]; e != NULL; e = e->next)
			if (e->fam == fam && e->ifindex == ifindex && !e->host)
				neigh_host(ls, e, true);
}

static void
apply_neigh(struct fwd_lsync *ls, const struct nlmsghdr *nh)
{
	const struct ndmsg *nd = mnl_nlmsg_get_payload(nh);
	struct attrs t = { .max = NDA_MAX };
	struct ls_neigh **slot, *e;
	uint8_t ip[16];
	uint32_t id;

	if (nd->ndm_family != AF_INET && nd->ndm_family != AF_INET6)
		return;
	mnl_attr_parse(nh, sizeof(*nd), attr_cb, &t);
	if (t.a[NDA_DST] == NULL)
		return;
	copy_addr(ip, t.a[NDA_DST], nd->ndm_family);
	slot = neigh_slot(ls, nd->ndm_family, ip, nd->ndm_ifindex);
	e = *slot;
	if (nh->nlmsg_type == RTM_DELNEIGH) {
		if (e != NULL) {
			neigh_host(ls, e, false);
			*slot = e->next;
			free(e);
		}
	} else {
		if (e == NULL) {
			e = calloc(1, sizeof(*e));
			if (e == NULL) {
				ls->st.errors++;
				return;
			}
			e->fam = nd->ndm_family;
			memcpy(e->ip, ip, 16);
			e->ifindex = nd->ndm_ifindex;
			*slot = e;
		}
		e->seen = true;
		e->valid = (nd->ndm_state & (NUD_REACHABLE | NUD_STALE | NUD_DELAY | NUD_PROBE | NUD_PERMANENT)) != 0 &&
			   t.a[NDA_LLADDR] != NULL && mnl_attr_get_payload_len(t.a[NDA_LLADDR]) == 6;
		if (e->valid)
			memcpy(e->mac, mnl_attr_get_payload(t.a[NDA_LLADDR]), 6);
	}
	ls->st.neigh++;
	id = nh_find(ls, nd->ndm_family, ip, nd->ndm_ifindex, false);
	if (id != 0)
		nh_refresh(ls, id);
	ls_grp_neigh(ls, nd->ndm_family, ip, nd->ndm_ifindex);
	if (nh->nlmsg_type != RTM_DELNEIGH)
		neigh_host(ls, e, true);
}

static void
apply_link(struct fwd_lsync *ls, const struct nlmsghdr *nh)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nh);
	struct attrs t = { .max = IFLA_MAX };
	size_t i;

	mnl_attr_parse(nh, sizeof(*ifi), attr_cb, &t);
	for (i = 0; i < ls->n_links && ls->links[i].ifindex != ifi->ifi_index; i++)
		;
	if (nh->nlmsg_type == RTM_DELLINK) {
		if (i < ls->n_links)
			ls->links[i] = ls->links[--ls->n_links];
	} else if (t.a[IFLA_IFNAME] != NULL) {
		if (i == ls->n_links && ls->n_links == LS_MAX_LINKS)
			return;
		if (i == ls->n_links)
			ls->n_links++;
		ls->links[i].ifindex = ifi->ifi_index;
		snprintf(ls->links[i].name, sizeof(ls->links[i].name), "%s", mnl_attr_get_str(t.a[IFLA_IFNAME]));
	}
	ls->st.link++;
	/* The name decides which vpk interface the adjacencies use. */
	for (uint32_t id = 1; id <= ls->f->conf.max_neighbors; id++)
		if (ls->nh[id].fam != 0 && ls->nh[id].ifindex == ifi->ifi_index)
			nh_refresh(ls, id);
}

/* Make kernel address @x one of the router's own (add) or take it back; x->local says whether it is. */
static void
addr_local(struct fwd_lsync *ls, struct ls_addr *x, bool add)
{
	struct vpk_icmp_addr a = { .is_ip6 = x->fam == AF_INET6, .plen = x->plen };
	int ifx = vpk_if_of(ls, x->ifindex);
	char err[160];

	if (add == x->local || (add && ifx < 0))
		return;                 /* no change, or not on one of vpk's interfaces */
	memcpy(a.addr, x->ip, 16);
	a.if_index = add ? (uint32_t)ifx : x->vpk_if;
	if (fwd_icmp_addr_set(ls->f, &a, !add, err, sizeof(err)) == 0) {
		x->local = add;
		x->vpk_if = a.if_index;
	} else if (add) {
		ls->st.errors++;        /* the same address on two interfaces, or 256 addresses already */
	} else {
		x->local = false;       /* taken already (a route over its host route) */
	}
}

/*
 * An address of one of vpk's interfaces (same name, or its live device) is
 * local: a host route to VPK_NH_LOCAL and a source of ICMP errors, as the
 * `ip address` line makes it (fwd_icmp.c); removed with the kernel's address.
 */
static void
apply_addr(struct fwd_lsync *ls, const struct nlmsghdr *nh)
{
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nh);
	struct attrs t = { .max = IFA_MAX };
	struct ls_addr x = { .ifindex = (int)ifa->ifa_index, .fam = ifa->ifa_family, .plen = ifa->ifa_prefixlen,
			     .seen = true };
	size_t i;

	if (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6)
		return;
	mnl_attr_parse(nh, sizeof(*ifa), attr_cb, &t);
	copy_addr(x.ip, t.a[IFA_LOCAL] != NULL ? t.a[IFA_LOCAL] : t.a[IFA_ADDRESS], ifa->ifa_family);
	for (i = 0; i < ls->n_addrs; i++)
		if (ls->addrs[i].ifindex == x.ifindex && ls->addrs[i].fam == x.fam && memcmp(ls->addrs[i].ip, x.ip, 16) == 0)
			break;
	if (nh->nlmsg_type == RTM_DELADDR) {
		if (i < ls->n_addrs) {
			addr_local(ls, &ls->addrs[i], false);
			ls->addrs[i] = ls->addrs[--ls->n_addrs];
		}
	} else if (i < ls->n_addrs) {
		ls->addrs[i].plen = x.plen;
		ls->addrs[i].seen = true;
		addr_local(ls, &ls->addrs[i], true);
	} else if (ls->n_addrs < LS_MAX_ADDRS) {
		ls->addrs[ls->n_addrs++] = x;
		addr_local(ls, &ls->addrs[i], true);
	}
	ls->st.addr++;
}

int
ls_apply(struct fwd_lsync *ls, const struct nlmsghdr *nh)
{
	ls->st.msgs++;
	switch (nh->nlmsg_type) {
	case RTM_NEWROUTE:
	case RTM_DELROUTE:
		apply_route(ls, nh);
		ls->last_change = mono_now_s();
		break;
	case RTM_NEWNEIGH:
	case RTM_DELNEIGH:
		apply_neigh(ls, nh);
		break;
	case RTM_NEWLINK:
	case RTM_DELLINK:
		apply_link(ls, nh);
		break;
	case RTM_NEWADDR:
	case RTM_DELADDR:
		apply_addr(ls, nh);
		break;
	default:
		break;
	}
	return MNL_CB_OK;
}

int
ls_init(struct fwd_lsync *ls)
{
	ls->nh = calloc((size_t)ls->f->conf.max_neighbors + 1, sizeof(*ls->nh));
	ls->nh_hash = calloc(NH_BUCKETS, sizeof(*ls->nh_hash));
	ls->nh_next_free = ls->f->conf.max_neighbors;
	return ls->nh != NULL && ls->nh_hash != NULL ? 0 : -ENOMEM;
}

void
ls_fini(struct fwd_lsync *ls)
{
	for (size_t b = 0; b < NEIGH_BUCKETS; b++)
		while (ls->neigh[b] != NULL) {
			struct ls_neigh *e = ls->neigh[b];

			ls->neigh[b] = e->next;
			free(e);
		}
	free(ls->nh);
	free(ls->nh_hash);
	if (ls->stale != NULL)
		free(ls->stale->k);
	free(ls->stale);
}

void
ls_resync_end(struct fwd_lsync *ls, bool apply)
{
	struct ls_set *s = ls->stale;

	ls->stale = NULL;
	for (size_t i = 0; apply && s != NULL && i < s->cap; i++)
		if (s->k[i].used == 1)
			route_del(ls, s->k[i].fam, s->k[i].ip, s->k[i].len);
	/* Neighbours and addresses the dump did not name are gone. */
	for (size_t b = 0; apply && b < NEIGH_BUCKETS; b++) {
		for (struct ls_neigh **p = &ls->neigh[b]; *p != NULL;) {
			struct ls_neigh *e = *p;
			uint32_t id;

			if (e->seen) {
				p = &e->next;
				continue;
			}
			*p = e->next;
			e->valid = false;
			neigh_host(ls, e, false);
			id = nh_find(ls, e->fam, e->ip, e->ifindex, false);
			if (id != 0)
				nh_refresh(ls, id);
			ls_grp_neigh(ls, e->fam, e->ip, e->ifindex);
			free(e);
		}
	}
	for (size_t i = 0; apply && i < ls->n_addrs;)
		if (!ls->addrs[i].seen) {
			addr_local(ls, &ls->addrs[i], false);
			ls->addrs[i] = ls->addrs[--ls->n_addrs];
		} else {
			i++;
		}
	if (s != NULL)
		free(s->k);
	free(s);
	ls->st.resyncs += apply;
}
