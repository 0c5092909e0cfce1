/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `linux-sync [netns NAME] [table N] [rcvbuf BYTES]`: mirror the kernel's
 * routes of one table (main by default), its neighbours, links and
 * addresses into the forwarder (VPP's linux-cp does the same for a routing
 * daemon such as BIRD or FRR that programs the kernel).
 *
 * Two rtnetlink sockets (libmnl) are opened in the namespace: one joins the
 * link, neighbour, address and IPv4/IPv6 route groups before anything is
 * read, the other dumps links, neighbours, addresses and routes; the dump
 * is applied when the line is, then a thread applies the notifications
 * (under the forwarder's control lock, one received batch at a time, so
 * workers see each change published whole: fwd_cli_live.c). When the
 * kernel reports that notifications were lost (ENOBUFS: the socket's
 * receive buffer overflowed) the thread dumps again and deletes the routes
 * it installed that the dump no longer names. fwd_linux_apply.c turns the
 * messages into routes and adjacencies.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <poll.h>
#include <signal.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fwd/fwd_cli.h"
#include "fwd/fwd_linux.h"
#include "common/clock.h"

#define LS_BUF (256u << 10)

static int
msg_cb(const struct nlmsghdr *nh, void *data)
{
	return ls_apply(data, nh);
}

/*
 * Dump one kind of object on @dump and apply every message. A dump the
 * kernel marks interrupted (NLM_F_DUMP_INTR: the table changed while it
 * was being read) is read to its end and then taken again, so the resync
 * never judges routes by a partial dump. 0 or negative errno.
 */
static int
dump_one(struct fwd_lsync *ls, struct mnl_socket *dump, uint16_t type, char *buf)
{
	uint32_t port = mnl_socket_get_portid(dump);

	for (int attempt = 0; attempt < 8; attempt++) {
		struct nlmsghdr *nh = mnl_nlmsg_put_header(buf);
		struct rtgenmsg *g;
		uint32_t seq = ++ls->seq;
		bool intr = false, done = false;

		nh->nlmsg_type = type;
		nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
		nh->nlmsg_seq = seq;
		g = mnl_nlmsg_put_extra_header(nh, sizeof(*g));
		g->rtgen_family = AF_UNSPEC;
		if (mnl_socket_sendto(dump, nh, nh->nlmsg_len) < 0)
			return -errno;
		while (!done) {
			ssize_t n = mnl_socket_recvfrom(dump, buf, LS_BUF);
			int left = (int)n;

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return -errno;
			for (nh = (struct nlmsghdr *)buf; mnl_nlmsg_ok(nh, left); nh = mnl_nlmsg_next(nh, &left)) {
				if (nh->nlmsg_seq != seq || nh->nlmsg_pid != port)
					continue;       /* the rest of an earlier dump */
				intr |= (nh->nlmsg_flags & NLM_F_DUMP_INTR) != 0;
				if (nh->nlmsg_type == NLMSG_DONE) {
					done = true;
					break;
				}
				if (nh->nlmsg_type == NLMSG_ERROR) {
					const struct nlmsgerr *e = mnl_nlmsg_get_payload(nh);

					return e->error != 0 ? e->error : -EPROTO;
				}
				ls_apply(ls, nh);
			}
		}
		if (!intr)
			return 0;
	}
	return -EAGAIN;
}

static int
dump_all(struct fwd_lsync *ls, struct mnl_socket *dump)
{
	static const uint16_t types[] = { RTM_GETLINK, RTM_GETNEIGH, RTM_GETADDR, RTM_GETROUTE };
	char *buf = malloc(LS_BUF);
	int rc = buf != NULL ? 0 : -ENOMEM;

	for (size_t i = 0; rc == 0 && i < sizeof(types) / sizeof(types[0]); i++)
		rc = dump_one(ls, dump, types[i], buf);
	free(buf);
	return rc;
}

struct ls_socks {
	struct mnl_socket *nl, *dump;
};

/*
 * After an overflow, the notifications still queued are older than the
 * dump that follows: applied after it they could bring back a route whose
 * deletion was lost. They are dropped; everything after them is applied.
 */
static void
drain(int fd, char *buf)
{
	for (int i = 0; i < 1 << 20; i++)
		if (recv(fd, buf, LS_BUF, MSG_DONTWAIT) < 0 && errno != ENOBUFS && errno != EINTR)
			break;
}

/* A batch of notifications took @dt seconds from recv() until its last change was in the tables. */
static void
note_batch(struct ls_stats *st, double dt)
{
	unsigned b = 0;

	while (b < 23 && dt * 1e6 >= (double)(1u << b))
		b++;
	st->lat_us[b]++;
	st->busy_s += dt;
	st->batches++;
}

/* Latency percentile @q (0..1) of the batches, upper bucket bound in microseconds. */
static uint64_t
lat_pct(const struct ls_stats *st, double q)
{
	uint64_t want = (uint64_t)((double)st->batches * q), sum = 0;

	for (unsigned b = 0; b < 24; b++) {
		sum += st->lat_us[b];
		if (st->batches > 0 && sum > want)
			return (uint64_t)1 << b;
	}
	return 0;
}

/* Take the kernel's state again; a dump the kernel kept interrupting deletes nothing. */
static bool
resync(struct fwd_lsync *ls, struct mnl_socket *dump)
{
	bool ok = ls_resync_begin(ls) == 0 && dump_all(ls, dump) == 0;

	ls_resync_end(ls, ok);
	return ok;
}

/*
 * Notifications, one received batch per lock hold. After an overflow the
 * resync is tried at once and, while the kernel keeps interrupting the
 * dump (routes changing fast), again every 100 ms between batches.
 */
static void *
ls_main(void *arg)
{
	struct fwd_lsync *ls = arg;
	struct mnl_socket *nl = ls->nl, *dump = (struct mnl_socket *)ls->th_dump;
	char *buf = malloc(LS_BUF);
	bool pending = false;
	double last_try = 0;

	fwd_block_stop_signals();

	while (buf != NULL) {
		struct pollfd p[2] = { { .fd = ls->nl_fd, .events = POLLIN }, { .fd = ls->stop_pipe[0], .events = POLLIN } };
		ssize_t n = 0;
		double t0;
		bool locked;

		if (poll(p, 2, pending ? 100 : -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents != 0)
			break;
		if ((p[0].revents & POLLIN) != 0) {
			n = mnl_socket_recvfrom(nl, buf, LS_BUF);
			if (n < 0 && errno == ENOBUFS) {
				ls->st.enobufs++;
				pending = true;
				last_try = 0;
				drain(ls->nl_fd, buf);
			}
		}
		t0 = mono_now_s();
		locked = fwd_ctl_lock(ls->f);
		if (n > 0)
			mnl_cb_run(buf, (size_t)n, 0, 0, msg_cb, ls);
		if (pending && t0 - last_try >= 0.1) {
			last_try = t0;
			pending = !resync(ls, dump);
		}
		fwd_ctl_unlock(ls->f, locked);
		if (n > 0)
			note_batch(&ls->st, mono_now_s() - t0);
	}
	free(buf);
	return NULL;
}

/* Open both sockets in namespace @netns ("" for ours). 0 or negative errno. */
static int
open_socks(struct fwd_lsync *ls, struct ls_socks *s, char *err, size_t len)
{
	static const unsigned groups[] = { RTNLGRP_LINK, RTNLGRP_NEIGH, RTNLGRP_IPV4_IFADDR, RTNLGRP_IPV6_IFADDR,
					   RTNLGRP_IPV4_ROUTE, RTNLGRP_IPV6_ROUTE };
	int self = -1, ns = -1, rc = 0, one = 1, sz = (int)ls->rcvbuf;
	char path[128];

	if (ls->netns[0] != '\0') {
		snprintf(path, sizeof(path), "/run/netns/%s", ls->netns);
		self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
		ns = open(path, O_RDONLY | O_CLOEXEC);
		if (self < 0 || ns < 0 || setns(ns, CLONE_NEWNET) != 0) {
			rc = vpk_errf(err, len, -errno, "linux-sync: netns %s: %s", ls->netns, strerror(errno));
			goto out;
		}
	}
	s->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	s->dump = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	if (s->nl == NULL || s->dump == NULL || mnl_socket_bind(s->nl, 0, MNL_SOCKET_AUTOPID) != 0 ||
	    mnl_socket_bind(s->dump, 0, MNL_SOCKET_AUTOPID) != 0) {
		rc = vpk_errf(err, len, -errno, "linux-sync: netlink socket: %s", strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
		if (mnl_socket_setsockopt(s->nl, NETLINK_ADD_MEMBERSHIP, (void *)&groups[i], sizeof(groups[i])) != 0) {
			rc = vpk_errf(err, len, -errno, "linux-sync: netlink groups: %s", strerror(errno));
			goto out;
		}
	/* Root may go past net.core.rmem_max. */
	if (setsockopt(mnl_socket_get_fd(s->nl), SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) != 0)
		setsockopt(mnl_socket_get_fd(s->nl), SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	/* Strict dumps: the kernel filters nothing for us, but tells us about interrupted dumps. */
	mnl_socket_setsockopt(s->dump, NETLINK_EXT_ACK, &one, sizeof(one));
out:
	if (self >= 0) {
		if (ns >= 0 && setns(self, CLONE_NEWNET) != 0 && rc == 0)
			rc = vpk_errf(err, len, -errno, "linux-sync: back from netns %s: %s", ls->netns, strerror(errno));
		close(self);
	}
	if (ns >= 0)
		close(ns);
	return rc;
}

static void
ls_destroy(struct fwd_lsync *ls)
{
	if (ls == NULL)
		return;
	if (ls->started && write(ls->stop_pipe[1], "x", 1) == 1)
		pthread_join(ls->th, NULL);
	if (ls->stop_pipe[0] >= 0) {
		close(ls->stop_pipe[0]);
		close(ls->stop_pipe[1]);
	}
	if (ls->nl != NULL)
		mnl_socket_close(ls->nl);
	if (ls->th_dump != NULL)
		mnl_socket_close(ls->th_dump);
	ls_fini(ls);
	free(ls);
}

static int
parse_args(struct vpk_fwd *f, int argc, char **argv, struct fwd_lsync *ls, char *err, size_t len)
{
	ls->table = RT_TABLE_MAIN;
	ls->rcvbuf = 8u << 20;
	if (argc % 2 != 1)
		return vpk_errf(err, len, -EINVAL, "usage: linux-sync [netns NAME] [table N|main] [rcvbuf BYTES]");
	for (int i = 1; i < argc; i += 2) {
		if (strcmp(argv[i], "netns") == 0 && strlen(argv[i + 1]) < sizeof(ls->netns) &&
		    strspn(argv[i + 1], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") ==
			    strlen(argv[i + 1]) && argv[i + 1][0] != '.') {
			snprintf(ls->netns, sizeof(ls->netns), "%s", argv[i + 1]);
		} else if (strcmp(argv[i], "table") == 0) {
			if (strcmp(argv[i + 1], "main") == 0)
				ls->table = RT_TABLE_MAIN;
			else if (fwd_parse_u32(argv[i + 1], UINT32_MAX, &ls->table) != 0 || ls->table == 0)
				return vpk_errf(err, len, -EINVAL, "linux-sync: table '%s': want 1..4294967295 or main",
						argv[i + 1]);
		} else if (strcmp(argv[i], "rcvbuf") == 0) {
			if (fwd_parse_u32(argv[i + 1], 1u << 30, &ls->rcvbuf) != 0 || ls->rcvbuf < 4096)
				return vpk_errf(err, len, -EINVAL, "linux-sync: rcvbuf '%s': want 4096..%u bytes",
						argv[i + 1], 1u << 30);
		} else if (strcmp(argv[i], "netns") == 0) {
			return vpk_errf(err, len, -EINVAL, "linux-sync: netns '%s': want a name of ip netns", argv[i + 1]);
		} else {
			return vpk_errf(err, len, -EINVAL, "linux-sync: unknown option '%s' (netns, table, rcvbuf)",
					argv[i]);
		}
	}
	if (f->lsync != NULL)
		return vpk_errf(err, len, -EEXIST, "linux-sync: already configured");
	return 0;
}

static int
cmd_linux_sync(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	struct fwd_lsync tmp = { 0 }, *ls;
	struct ls_socks s = { 0 };
	int rc = parse_args(f, argc, argv, &tmp, err, len);

	if (rc != 0 || !apply)
		return rc;
	rc = fwd_ctl_enable(f);
	if (rc != 0)
		return vpk_errf(err, len, rc, "linux-sync: %s", strerror(-rc));
	ls = malloc(sizeof(*ls));
	if (ls == NULL)
		return vpk_errf(err, len, -ENOMEM, "linux-sync: out of memory");
	*ls = tmp;
	ls->f = f;
	ls->stop_pipe[0] = ls->stop_pipe[1] = -1;
	rc = ls_init(ls);
	if (rc != 0) {
		vpk_errf(err, len, rc, "linux-sync: out of memory");
		goto fail;
	}
	rc = open_socks(ls, &s, err, len);
	ls->nl = s.nl;
	ls->th_dump = s.dump;
	if (rc != 0)
		goto fail;
	ls->nl_fd = mnl_socket_get_fd(s.nl);
	ls->st.dump_s = mono_now_s();
	rc = dump_all(ls, s.dump);
	ls->st.dump_s = mono_now_s() - ls->st.dump_s;
	ls->st.dump_routes = ls->st.route_add;
	if (rc != 0) {
		vpk_errf(err, len, rc, "linux-sync: dump: %s", strerror(-rc));
		goto fail;
	}
	if (pipe2(ls->stop_pipe, O_CLOEXEC) != 0 || pthread_create(&ls->th, NULL, ls_main, ls) != 0) {
		rc = vpk_errf(err, len, -EAGAIN, "linux-sync: cannot start its thread");
		goto fail;
	}
	ls->started = true;
	f->lsync = ls;
	return 0;
fail:
	ls_destroy(ls);
	return rc;
}

const struct fwd_cmd fwd_cmd_linux_sync = { "linux-sync", cmd_linux_sync };

void
fwd_linux_free(struct vpk_fwd *f)
{
	ls_destroy(f->lsync);
	f->lsync = NULL;
}

bool
fwd_linux_nh(const struct vpk_fwd *f, uint32_t id, char *gw, size_t gw_len, char *dev, size_t dev_len)
{
	const struct fwd_lsync *ls = f->lsync;
	static const uint8_t zero[16];

	if (ls == NULL || id == 0 || id > f->conf.max_neighbors || ls->nh[id].fam == 0)
		return false;
	if (ls->nh[id].drop || memcmp(ls->nh[id].gw, zero, 16) == 0)
		snprintf(gw, gw_len, "%s", ls->nh[id].drop ? "drop" : "");
	else
		inet_ntop(ls->nh[id].fam, ls->nh[id].gw, gw, (socklen_t)gw_len);
	snprintf(dev, dev_len, "%s", ls_link_name(ls, ls->nh[id].ifindex));
	return true;
}

int
fwd_linux_show(const struct vpk_fwd *f, bool json, FILE *out)
{
	const struct fwd_lsync *ls = f->lsync;
	const struct ls_stats *s;
	uint32_t nhs = 0;

	if (ls == NULL)
		return -ENOENT;
	s = &ls->st;
	for (uint32_t id = 1; id <= f->conf.max_neighbors; id++)
		nhs += ls->nh[id].fam != 0;
	fprintf(out, json ? "{\n  \"netns\": \"%s\",\n  \"table\": %u,\n  \"next_hops\": %u,\n"
			    "  \"route_adds\": %llu,\n  \"route_dels\": %llu,\n  \"routes_skipped\": %llu,\n"
			    "  \"messages\": %llu,\n  \"enobufs\": %llu,\n  \"resyncs\": %llu,\n  \"errors\": %llu,\n"
			    "  \"dump_seconds\": %.6f,\n  \"dump_routes\": %llu,\n  \"busy_seconds\": %.6f,\n"
			    "  \"batches\": %llu,\n  \"batch_latency_us_p50\": %llu,\n  \"batch_latency_us_p99\": %llu,\n"
			    "  \"addresses\": ["
			  : "linux-sync netns %s table %u: %u next hops\n  route adds %llu, dels %llu, skipped %llu; "
			    "%llu messages; %llu overflows (ENOBUFS), %llu resyncs; %llu errors\n"
			    "  first dump %.3f s (%llu routes); notifications: %.3f s busy in %llu batches, "
			    "latency p50 < %llu us, p99 < %llu us\n  addresses:",
		ls->netns[0] ? ls->netns : (json ? "" : "(own)"), ls->table, nhs, (unsigned long long)s->route_add,
		(unsigned long long)s->route_del, (unsigned long long)s->route_skip, (unsigned long long)s->msgs,
		(unsigned long long)s->enobufs, (unsigned long long)s->resyncs, (unsigned long long)s->errors,
		s->dump_s, (unsigned long long)s->dump_routes, s->busy_s, (unsigned long long)s->batches,
		(unsigned long long)lat_pct(s, 0.5), (unsigned long long)lat_pct(s, 0.99));
	for (size_t i = 0; i < ls->n_addrs; i++) {
		char a[INET6_ADDRSTRLEN];

		inet_ntop(ls->addrs[i].fam, ls->addrs[i].ip, a, sizeof(a));
		fprintf(out, json ? "%s\n    {\"dev\": \"%s\", \"address\": \"%s/%u\", \"local\": %s}" : " %s%s %s/%u%s",
			i && json ? "," : "", ls_link_name(ls, ls->addrs[i].ifindex), a, ls->addrs[i].plen,
			json ? (ls->addrs[i].local ? "true" : "false") : (ls->addrs[i].local ? " (local)" : ""));
	}
	fputs(json ? "\n  ]\n}\n" : "\n", out);
	return 0;
}
