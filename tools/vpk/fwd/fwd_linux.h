/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_FWD_LINUX_H
#define VPK_TOOL_FWD_LINUX_H

/* Private: linux-sync (fwd_linux.c: netlink sockets and thread;
 * fwd_linux_apply.c: kernel objects -> FIB routes and adjacencies). */
#include <linux/rtnetlink.h>
#include <pthread.h>
#include <stdatomic.h>

#include "fwd/fwd_priv.h"

#define LS_MAX_LINKS 1024
#define LS_MAX_ADDRS 1024

/* A next hop linux-sync gave a neighbor ID: (family, gateway, interface). */
struct ls_nh {
	uint8_t fam;                    /* AF_INET, AF_INET6; 0: slot unused */
	uint8_t gw[16];                 /* all zero: on link (no gateway) */
	bool drop;                      /* blackhole / unreachable / prohibit routes */
	int ifindex;
	uint32_t refs;                  /* routes using it */
	uint32_t next;                  /* hash chain (IDs), 0: end */
	uint32_t bucket;                /* its hash chain */
	uint8_t n_paths;                /* > 0: an ECMP group; its paths are the next n_paths IDs */
	bool member;                    /* a path of the group just below it (not in a hash chain) */
};

/* A set of prefixes (fwd_linux_resync.c). */
struct ls_key {
	uint8_t fam, len, used;         /* used: 0 empty, 1 in, 2 removed */
	uint8_t ip[16];
};

struct ls_set {
	struct ls_key *k;
	size_t cap, n;
};

/* A path of a multipath route. */
struct ls_path {
	uint8_t gw[16];
	int ifindex;
};

#define LS_NH_BUCKETS 4096u
#define LS_NEIGH_BUCKETS 4096u
#define LS_MAX_PATHS 16u

/* A kernel neighbour (ARP / ND entry). */
struct ls_neigh {
	uint8_t fam, ip[16], mac[6];
	int ifindex;
	bool valid;                     /* reachable, stale, delay, probe, permanent */
	bool seen;                      /* named by the dump of a resync */
	bool host;                      /* its host route is installed (on-link host) */
	struct ls_neigh *next;
};

struct ls_link {
	int ifindex;
	char name[16];
};

struct ls_addr {
	int ifindex;
	uint8_t fam, plen, ip[16];
	bool seen;                      /* named by the dump of a resync */
	bool local;                     /* one of the router's addresses now (fwd_icmp.c) */
	uint32_t vpk_if;                /* on this vpk interface */
};

struct ls_stats {
	uint64_t route_add, route_del, route_skip, neigh, addr, link, resyncs, enobufs, msgs, errors;
	double dump_s;                  /* the first dump, read and applied */
	uint64_t dump_routes;           /* routes it installed */
	double busy_s;                  /* notifications: from recv() to applied, summed */
	uint64_t batches;
	uint64_t lat_us[24];            /* per batch, recv() to applied: [i] counts < 2^i us */
};

struct fwd_lsync {
	struct vpk_fwd *f;
	char netns[64];
	uint32_t table;
	uint32_t rcvbuf;
	uint32_t seq;                   /* of the last dump request */
	int nl_fd;                      /* notifications (struct mnl_socket in fwd_linux.c) */
	void *nl, *th_dump;             /* struct mnl_socket: notifications, dumps */
	int stop_pipe[2];
	pthread_t th;
	bool started;
	uint32_t *nh_hash;              /* LS_NH_BUCKETS buckets of neighbor IDs */
	uint32_t n_groups;              /* ECMP groups in use */
	struct ls_nh *nh;               /* by neighbor ID (1..max_neighbors) */
	uint32_t nh_next_free;          /* allocation scans down from here */
	struct ls_neigh *neigh[LS_NEIGH_BUCKETS];
	struct ls_link links[LS_MAX_LINKS];
	size_t n_links;
	struct ls_addr addrs[LS_MAX_ADDRS];
	size_t n_addrs;
	struct ls_stats st;
	/* resync: the prefixes linux-sync owned before a dump; those the dump did not name are deleted */
	struct ls_set *stale;
	double last_change;             /* CLOCK_MONOTONIC of the last applied route change */
};

/* fwd_linux_apply.c: one rtnetlink message (dump or notification). The lock is held. */
int ls_apply(struct fwd_lsync *ls, const struct nlmsghdr *nh);
int ls_init(struct fwd_lsync *ls);
void ls_fini(struct fwd_lsync *ls);
/* Resync: remember every route linux-sync installed (ls_resync_begin), forget
 * those a dump names again (in ls_apply), delete the rest (ls_resync_end). */
int ls_resync_begin(struct fwd_lsync *ls);
void ls_resync_end(struct fwd_lsync *ls, bool apply);
const char *ls_link_name(const struct fwd_lsync *ls, int ifindex);
uint32_t ls_hash(uint8_t fam, uint8_t len, const uint8_t ip[16]);
int ls_set_add(struct ls_set *s, uint8_t fam, uint8_t len, const uint8_t ip[16]);
void ls_set_remove(struct ls_set *s, uint8_t fam, uint8_t len, const uint8_t ip[16]);
/* @nh is a next hop linux-sync gave out (a route of its own). */
bool ls_nh_owned(const struct fwd_lsync *ls, uint64_t nh);
/* The lowest of @count free consecutive neighbor IDs (count 1: any free one), 0: none. */
uint32_t ls_ids_alloc(struct fwd_lsync *ls, uint32_t count);
int ls_nh_refresh(struct fwd_lsync *ls, uint32_t id);
/* fwd_linux_ecmp.c: the paths of RTA_MULTIPATH into @p (LS_MAX_PATHS room); their number. */
unsigned ls_multipath(const struct nlattr *mp, uint8_t fam, struct ls_path *p);
/* The group of these @n paths (n >= 2), one more reference; 0: no IDs left. */
uint32_t ls_grp_get(struct fwd_lsync *ls, uint8_t fam, const struct ls_path *p, unsigned n);
/* The paths of group @id into @out (LS_MAX_PATHS room); their number. */
unsigned ls_grp_paths(const struct fwd_lsync *ls, uint32_t id, struct ls_path *out);
/* Clear the @n path IDs above group @id (its header is cleared already). */
void ls_grp_release(struct fwd_lsync *ls, uint32_t id, unsigned n);
/* A kernel neighbour changed: refresh the group paths through it. */
void ls_grp_neigh(struct fwd_lsync *ls, uint8_t fam, const uint8_t ip[16], int ifindex);

#endif
