/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The forwarder's control plane: its state (pool, IPv4 FIB, neighbor
 * table, interfaces) and the configuration commands of fwd.h (accessors: fwd_get.c).
 * Every command is parsed and checked completely before it changes
 * anything, and vpk_fwd_exec_file() checks every line of a file before it
 * applies the first, so a bad configuration changes nothing.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/libvpk_internal.h"
#include "fwd/fwd_priv.h"

#define MAX_ARGS 16

int
vpk_fwd_create(const struct vpk_fwd_conf *conf, struct vpk_fwd **out)
{
	struct vpk_fwd_conf c = conf != NULL ? *conf : (struct vpk_fwd_conf){ 0 };
	struct vpk_pool_conf pc = { .name = "fwd" };
	struct vpk_fib_conf fc = { .nh_size = 4 };
	struct vpk_fwd *f;
	int rc;

	if (out == NULL || (unsigned)c.isa >= VPK_ISA_COUNT)
		return -EINVAL;
	if (c.isa != VPK_ISA_AUTO && !vpk_isa_usable(c.isa) &&
	    !(vpk_isa_cpu_supported(c.isa) && vpk_isa_os_supported(c.isa)))
		return -ENOTSUP;
	c.n_bufs = c.n_bufs ? c.n_bufs : 16384;
	c.max_routes = c.max_routes ? c.max_routes : 1u << 20;
	c.num_tbl8 = c.num_tbl8 ? c.num_tbl8 : 65536;
	c.max_neighbors = c.max_neighbors ? c.max_neighbors : 4095;
	c.workers = c.workers ? c.workers : 1;
	if (c.wide_ring > 4096)
		return -EINVAL;
	if (c.max_neighbors > (1u << 24) || c.workers > FWD_MAX_WORKERS)
		return -EINVAL;
	rc = fwd_register_nodes();
	if (rc != 0)
		return rc;
	if (c.acl_impl != NULL) {
		const struct vpk_impl *pick;
		const char *name = strcmp(c.acl_impl, "sse") == 0 ? "sse42" : c.acl_impl;

		rc = vpk_impl_pick_name(vpk_acl_impls(), name, &pick);
		if (rc != 0)
			return rc;
	}
	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return -ENOMEM;
	f->conf = c;
	pc.n_bufs = c.n_bufs;
	pc.cache_size = 256;
	rc = vpk_pool_create(&pc, &f->pool);
	if (rc != 0)
		goto out_free;
	fc.num_tbl8 = c.num_tbl8;
	fc.type = c.fib4_type;
	fc.max_routes = c.max_routes;
	fc.default_nh = 0;              /* next hop 0 = no route (neighbors are 1..) */
	rc = vpk_fib_create(&fc, &f->fib4);
	if (rc != 0)
		goto out_pool;
	{
		struct vpk_fib6_conf f6 = { .nh_size = 4, .num_tbl8 = c.num_tbl8, .max_routes = c.max_routes };

		rc = vpk_fib6_create(&f6, &f->fib6);
		if (rc != 0) {
			vpk_fib_destroy(f->fib4);
			goto out_pool;
		}
	}
	f->adj = calloc((size_t)c.max_neighbors + 1, sizeof(*f->adj));
	f->adj_if = calloc((size_t)c.max_neighbors + 1, sizeof(*f->adj_if));
	if (f->adj == NULL || f->adj_if == NULL) {
		rc = -ENOMEM;
		goto out_fib;
	}
	f->adjt.n = c.max_neighbors + 1;
	f->adjt.adj = f->adj;
	f->out.tx = fwd_tx;
	f->out.ctx = f;
	rc = fwd_workers_init(f);
	if (rc != 0)
		goto out_fib;
	*out = f;
	return 0;

out_fib:
	free(f->adj);
	free(f->adj_if);
	vpk_fib_destroy(f->fib4);
	vpk_fib6_destroy(f->fib6);
out_pool:
	vpk_pool_destroy(f->pool);
out_free:
	free(f);
	return rc;
}

/* Cleanup of features in other files; one line each. */
static const fwd_free_hook free_hooks[] = {
	fwd_live_free,
	NULL,
	fwd_tunnel_free,
	fwd_icmp_free,
	fwd_ctl_free,
	fwd_if_state_free,
	fwd_l2_free,
	fwd_stats_free,
};

void
vpk_fwd_destroy(struct vpk_fwd *f)
{
	if (f == NULL)
		return;
	fwd_linux_free(f);              /* its thread changes the tables: stop it first */
	fwd_drop_graphs(f);
	fwd_workers_fini(f);
	for (size_t i = 0; i < f->n_ifs; i++) {
		free(f->ifs[i].in_path);
		free(f->ifs[i].out_path);
	}
	for (size_t i = 0; i < f->n_shows; i++)
		free(f->shows[i]);
	fwd_acl_free(&f->acl4);
	fwd_acl_free(&f->acl6);
	for (size_t i = 0; i < sizeof(free_hooks) / sizeof(free_hooks[0]); i++)
		if (free_hooks[i] != NULL)
			free_hooks[i](f);
	free(f->tmpl);
	free(f->tmpl_len);
	free(f->adj);
	free(f->adj_if);
	vpk_fib_destroy(f->fib4);
	vpk_fib6_destroy(f->fib6);
	vpk_pool_destroy(f->pool);
	free(f);
}

/* xx:xx:xx:xx:xx:xx, two hex digits each. */
static int
parse_mac(const char *s, uint8_t mac[6])
{
	static const char hex[] = "0123456789abcdef";

	if (strlen(s) != 17)
		return -EINVAL;
	for (int i = 0; i < 6; i++) {
		const char *hi = strchr(hex, tolower((unsigned char)s[3 * i]));
		const char *lo = strchr(hex, tolower((unsigned char)s[3 * i + 1]));

		if ((i < 5 && s[3 * i + 2] != ':') || s[3 * i] == '\0' || s[3 * i + 1] == '\0' || hi == NULL ||
		    lo == NULL)
			return -EINVAL;
		mac[i] = (uint8_t)((hi - hex) << 4 | (lo - hex));
	}
	return 0;
}

static int
find_if(const struct vpk_fwd *f, const char *s, uint32_t *out)
{
	uint32_t n;

	for (size_t i = 0; i < f->n_ifs; i++)
		if (strcmp(f->ifs[i].name, s) == 0) {
			*out = (uint32_t)i;
			return 0;
		}
	if (fwd_parse_u32(s, UINT32_MAX, &n) == 0 && n < f->n_ifs) {
		*out = n;
		return 0;
	}
	return -ENOENT;
}

static char *
dup_str(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
}

/* interface NAME [mac MAC] [in FILE [loop [N]]] [out FILE] */
/* Options of one interface line that fwd_l2.c / fwd_io.c apply (promisc, multicast, queues, xdp-mode). */
#define FWD_MAX_IF_OPTS 16

static int
cmd_interface(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	uint8_t mac[6] = { 0x02, 0, 0, 0, 0, 0 };
	const char *in = NULL, *out = NULL, *live = NULL;
	enum vpk_io_type io = VPK_IO_AF_PACKET;
	bool io_set = false;
	struct fwd_if *ifc;
	uint32_t dummy = 0;
	bool exists, mac_set = false, loop_set = false;
	char *in_dup, *out_dup, *live_dup;
	uint32_t loops = 0;
	int opts[FWD_MAX_IF_OPTS], n_opts = 0;  /* argv indices of the L2 and queue options */
	int rc;

	if (argc == 3 && (strcmp(argv[2], "up") == 0 || strcmp(argv[2], "down") == 0))
		return fwd_if_state_cmd(f, argc, argv, apply, err, len);

	if (argc < 2)
		goto usage;
	rc = fwd_l2_subif(f, argc, argv, apply, err, len);
	if (rc != 1)
		return rc;
	if (strlen(argv[1]) >= FWD_NAME_MAX || (argv[1][0] >= '0' && argv[1][0] <= '9'))
		return vpk_errf(err, len, -EINVAL, "interface: name '%s' must be shorter than %u and not start with a digit",
			    argv[1], FWD_NAME_MAX);
	exists = find_if(f, argv[1], &dummy) == 0;
	if (!exists && f->n_ifs == FWD_MAX_IFS)
		return vpk_errf(err, len, -ENOSPC, "interface: at most %u interfaces", FWD_MAX_IFS);
	mac[5] = (uint8_t)(f->n_ifs + 1);
	for (int i = 2; i < argc; i += 2) {
		if (strcmp(argv[i], "loop") == 0) {
			/* loop [N]: replay the input from memory, N passes (none: until run-limit) */
			if (i + 1 < argc && fwd_parse_u32(argv[i + 1], UINT32_MAX, &loops) == 0 && loops > 0)
				i++;
			else if (i + 1 < argc && argv[i + 1][0] >= '0' && argv[i + 1][0] <= '9')
				return vpk_errf(err, len, -EINVAL, "interface: loop '%s': want a count 1..%u",
						argv[i + 1], UINT32_MAX);
			else
				loops = 0;
			loop_set = true;
			i--;
			continue;
		}
		if (i + 1 >= argc)
			goto usage;
		if (strcmp(argv[i], "mac") == 0) {
			if (parse_mac(argv[i + 1], mac) != 0)
				return vpk_errf(err, len, -EINVAL, "interface: bad MAC '%s' (want xx:xx:xx:xx:xx:xx)",
					    argv[i + 1]);
			mac_set = true;
		} else if (strcmp(argv[i], "in") == 0) {
			in = argv[i + 1];
		} else if (strcmp(argv[i], "out") == 0) {
			out = argv[i + 1];
		} else if (strcmp(argv[i], "live") == 0 && strlen(argv[i + 1]) < 16) {
			live = argv[i + 1];
		} else if (strcmp(argv[i], "dpdk") == 0) {
			live = argv[i + 1];     /* PCI address or vdev arguments: a DPDK ethdev port */
			io = VPK_IO_DPDK;
			io_set = true;
		} else if (strcmp(argv[i], "io") == 0) {
			if (vpk_io_type_parse(argv[i + 1], &io) != 0 || io == VPK_IO_PCAP || io == VPK_IO_AUTO ||
			    io == VPK_IO_REPLAY)
				return vpk_errf(err, len, -EINVAL, "interface: io '%s': want af_packet or af_xdp", argv[i + 1]);
			io_set = true;
		} else if ((rc = fwd_l2_option(NULL, argv[i], argv[i + 1], false, err, len)) != 1 ||
			   (rc = fwd_io_option(NULL, argv[i], argv[i + 1], false, err, len)) != 1) {
			if (rc != 0)
				return rc;
			if (n_opts == FWD_MAX_IF_OPTS)
				return vpk_errf(err, len, -E2BIG, "interface: at most %u options on one line",
						FWD_MAX_IF_OPTS);
			opts[n_opts++] = i;
		} else {
			return vpk_errf(err, len, -EINVAL, "interface: unknown option '%s'", argv[i]);
		}
	}
	if (live != NULL && (in != NULL || out != NULL))
		return vpk_errf(err, len, -EINVAL, "interface: 'live' replaces 'in' and 'out' (a live device does both)");
	if (loop_set && (live != NULL || (in == NULL && (!exists || f->ifs[dummy].in_path == NULL))))
		return vpk_errf(err, len, -EINVAL, "interface: 'loop' replays an input: give 'in FILE.pcap'");
	if (!apply)
		return 0;
	in_dup = dup_str(in);
	out_dup = dup_str(out);
	live_dup = dup_str(live);
	if ((in != NULL && in_dup == NULL) || (out != NULL && out_dup == NULL) || (live != NULL && live_dup == NULL)) {
		free(in_dup);
		free(out_dup);
		free(live_dup);
		return vpk_errf(err, len, -ENOMEM, "interface: out of memory");
	}
	if (exists) {
		/* Updating a declared interface: only what the line names changes. */
		ifc = &f->ifs[dummy];
	} else {
		ifc = &f->ifs[f->n_ifs++];
		memset(ifc, 0, sizeof(*ifc));
		snprintf(ifc->name, sizeof(ifc->name), "%s", argv[1]);
		memcpy(ifc->mac, mac, 6);
	}
	if (mac_set) {
		memcpy(ifc->mac, mac, 6);
		ifc->mac_set = true;
	}
	for (int k = 0; k < n_opts; k++) {
		(void)fwd_l2_option(ifc, argv[opts[k]], argv[opts[k] + 1], true, NULL, 0);
		(void)fwd_io_option(ifc, argv[opts[k]], argv[opts[k] + 1], true, NULL, 0);
	}
	if (live_dup != NULL) {
		free(ifc->live);
		ifc->live = live_dup;
	}
	if (io_set)
		ifc->live_type = io;
	if (in_dup != NULL) {
		free(ifc->in_path);
		ifc->in_path = in_dup;
	}
	if (loop_set) {
		ifc->loop = true;
		ifc->loops = loops;
	}
	if (out_dup != NULL && strcmp(out_dup, "discard") == 0) {
		/* A sink: packets count as transmitted and are freed (benchmarks). */
		free(out_dup);
		free(ifc->out_path);
		ifc->out_path = NULL;
		ifc->discard = true;
	} else if (out_dup != NULL) {
		free(ifc->out_path);
		ifc->out_path = out_dup;
		ifc->discard = false;
	}
	return 0;
usage:
	return vpk_errf(err, len, -EINVAL, "usage: interface NAME [mac MAC] [in FILE [loop [N]]] [out FILE] "
			"[promisc on|off] [multicast MAC] | interface NAME live DEV [io af_packet|af_xdp] "
			"[queues N|all] [xdp-mode zc|copy|auto] | interface NAME dpdk PCI|VDEV-ARGS [queues N] "
			"| interface PORT.VID[.VID] [tpid 0x8100|0x88a8]");
}

/* neighbor ID MAC dev IFACE | neighbor del ID */
static int
cmd_neighbor(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	struct vpk_adj a = { .valid = 1 };
	uint32_t id, ifx;
	uint8_t mac[6];

	if (argc == 3 && strcmp(argv[1], "del") == 0) {
		if (fwd_parse_u32(argv[2], f->conf.max_neighbors, &id) != 0 || id == 0)
			return vpk_errf(err, len, -EINVAL, "neighbor del: ID '%s' must be 1..%u", argv[2],
					f->conf.max_neighbors);
		if (!f->adj[id].valid)
			return vpk_errf(err, len, -ENOENT, "neighbor del: no neighbor %u", id);
		if (!apply)
			return 0;
		if (fwd_undo_neighbor(f, id) != 0 || fwd_ctl_set_adj(f, id, NULL, 0) != 0)
			return vpk_errf(err, len, -ENOMEM, "neighbor: out of memory");
		return 0;
	}
	if (argc != 5 || strcmp(argv[3], "dev") != 0)
		return vpk_errf(err, len, -EINVAL, "usage: neighbor ID MAC dev IFACE | neighbor del ID");
	if (fwd_parse_u32(argv[1], f->conf.max_neighbors, &id) != 0 || id == 0)
		return vpk_errf(err, len, -EINVAL, "neighbor: ID '%s' must be 1..%u", argv[1], f->conf.max_neighbors);
	if (parse_mac(argv[2], mac) != 0)
		return vpk_errf(err, len, -EINVAL, "neighbor: bad MAC '%s'", argv[2]);
	if (find_if(f, argv[4], &ifx) != 0)
		return vpk_errf(err, len, -ENOENT, "neighbor: no interface '%s'", argv[4]);
	if (!apply)
		return 0;
	memcpy(a.dst_mac, mac, 6);
	memcpy(a.src_mac, f->ifs[ifx].mac, 6);
	a.tx_if = ifx;
	if (fwd_undo_neighbor(f, id) != 0 || fwd_ctl_set_adj(f, id, &a, ifx) != 0)
		return vpk_errf(err, len, -ENOMEM, "neighbor: out of memory");
	return 0;
}

/* route add PREFIX/LEN via ID | route del PREFIX/LEN (IPv4 or IPv6) */
static int
cmd_route(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	uint8_t ip6[16], plen;
	uint32_t ip4, id = 0;
	bool add, v6;
	int rc;

	if (argc < 3 || (strcmp(argv[1], "add") != 0 && strcmp(argv[1], "del") != 0))
		return vpk_errf(err, len, -EINVAL, "usage: route add PREFIX/LEN via ID | route del PREFIX/LEN");
	add = strcmp(argv[1], "add") == 0;
	rc = fwd_parse_prefix(argv[2], ip6, &plen);
	if (rc < 0)
		return vpk_errf(err, len, -EINVAL, "route: bad prefix '%s' (want a.b.c.d/len or an IPv6 address/len)",
				argv[2]);
	v6 = rc == 6;
	ip4 = (uint32_t)ip6[0] << 24 | (uint32_t)ip6[1] << 16 | (uint32_t)ip6[2] << 8 | ip6[3];
	if (add && (argc != 5 || strcmp(argv[3], "via") != 0))
		return vpk_errf(err, len, -EINVAL, "usage: route add PREFIX/LEN via ID");
	if (add && (fwd_parse_u32(argv[4], f->conf.max_neighbors, &id) != 0 || id == 0))
		return vpk_errf(err, len, -EINVAL, "route: next hop '%s' must be a neighbor ID 1..%u",
				argv[4], f->conf.max_neighbors);
	if (!add && argc != 3)
		return vpk_errf(err, len, -EINVAL, "usage: route del PREFIX/LEN");
	if (!apply)
		return 0;
	if ((v6 ? fwd_undo_route6(f, ip6, plen) : fwd_undo_route4(f, ip4, plen)) != 0)
		return vpk_errf(err, len, -ENOMEM, "route %s %s: out of memory", argv[1], argv[2]);
	if (add)
		rc = v6 ? vpk_fib6_add(f->fib6, ip6, plen, id) : vpk_fib_add(f->fib4, ip4, plen, id);
	else
		rc = v6 ? vpk_fib6_del(f->fib6, ip6, plen) : vpk_fib_del(f->fib4, ip4, plen);
	if (rc == 0)
		return 0;
	return vpk_errf(err, len, rc, "route %s %s: %s", argv[1], argv[2],
			rc == -ENOSPC ? "out of tbl8 groups" : rc == -ENOENT ? "no such route" : strerror(-rc));
}

static int
cmd_show(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	char line[128];

	if (!(argc == 2 && (strcmp(argv[1], "runtime") == 0 || strcmp(argv[1], "errors") == 0)) &&
	    !(argc == 3 && strcmp(argv[1], "node") == 0))
		return vpk_errf(err, len, -EINVAL, "usage: show runtime | show errors | show node NAME");
	if (argc == 3 && vpk_node_find(argv[2]) == NULL)
		return vpk_errf(err, len, -ENOENT, "show node: no node '%s'", argv[2]);
	if (f->n_shows == FWD_MAX_SHOWS)
		return vpk_errf(err, len, -ENOSPC, "show: at most %u show commands", FWD_MAX_SHOWS);
	if (!apply)
		return 0;
	snprintf(line, sizeof(line), "%s%s%s", argv[1], argc == 3 ? " " : "", argc == 3 ? argv[2] : "");
	f->shows[f->n_shows] = strdup(line);
	if (f->shows[f->n_shows] == NULL)
		return vpk_errf(err, len, -ENOMEM, "out of memory");
	f->n_shows++;
	return 0;
}

static const struct fwd_cmd cmds[] = {
	{ "interface", cmd_interface },
	{ "neighbor", cmd_neighbor },
	{ "route", cmd_route },
	{ "show", cmd_show },
};

/* Commands of features in other files (see fwd_priv.h); one line each. */
static const struct fwd_cmd *const feature_cmds[] = {
	&fwd_cmd_acl,
	&fwd_cmd_run_limit,
	NULL,
	&fwd_cmd_vxlan,
	&fwd_cmd_sr,
	&fwd_cmd_ip,
	&fwd_cmd_icmp,
	&fwd_cmd_linux_sync,
	&fwd_cmd_stats_period,
	&fwd_cmd_dpdk_eal,
};


/* Split @line (modified) into words; -E2BIG on too many. '#' starts a comment. */
static int
split(char *line, char **argv)
{
	int argc = 0;

	for (char *p = line; *p != '\0';) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			*p++ = '\0';
		if (*p == '\0' || *p == '#')
			break;
		if (argc == MAX_ARGS)
			return -E2BIG;
		argv[argc++] = p;
		while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
			p++;
	}
	if (argc < MAX_ARGS)
		argv[argc] = NULL;
	return argc;
}

static int
exec_line(struct vpk_fwd *f, const char *text, bool apply, char *err, size_t len)
{
	char buf[1024], *argv[MAX_ARGS + 1];
	int argc;

	if (strlen(text) >= sizeof(buf))
		return vpk_errf(err, len, -EINVAL, "line longer than %zu characters", sizeof(buf) - 1);
	strcpy(buf, text);
	argc = split(buf, argv);
	if (argc < 0)
		return vpk_errf(err, len, -EINVAL, "more than %d words", MAX_ARGS);
	if (argc == 0)
		return 0;
	if (fwd_ctl_refuse(f, argc, argv, err, len) != 0)
		return -EBUSY;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strcmp(argv[0], cmds[i].name) == 0)
			return cmds[i].fn(f, argc, argv, apply, err, len);
	for (size_t i = 0; i < sizeof(feature_cmds) / sizeof(feature_cmds[0]); i++)
		if (feature_cmds[i] != NULL && strcmp(argv[0], feature_cmds[i]->name) == 0)
			return feature_cmds[i]->fn(f, argc, argv, apply, err, len);
	return vpk_errf(err, len, -EINVAL, "unknown command '%s' (interface, neighbor, route, acl, show, linux-sync)", argv[0]);
}

static int exec_file(struct vpk_fwd *f, FILE *in, const char *name, char *err, size_t err_len);

/* One line (@line), or a file (@in): checked, applied, published, under the control lock. */
static int
exec_locked(struct vpk_fwd *f, const char *line, FILE *in, const char *name, char *err, size_t err_len)
{
	bool locked;
	int rc;

	if (f == NULL || (line == NULL && in == NULL))
		return vpk_errf(err, err_len, -EINVAL, "no forwarder or %s", line == NULL ? "file" : "line");
	locked = fwd_ctl_lock(f);
	if (line == NULL) {
		rc = exec_file(f, in, name, err, err_len);
	} else {
		rc = exec_line(f, line, false, err, err_len);
		if (rc == 0)
			rc = exec_line(f, line, true, err, err_len);
		/* a tunnel line changed a copy of the tables: into the graphs, or dropped */
		if (rc == 0)
			rc = fwd_tunnel_commit(f, err, err_len);
		else
			fwd_tunnel_abort(f);
	}
	fwd_ctl_unlock(f, locked);
	return rc;
}

int
vpk_fwd_exec(struct vpk_fwd *f, const char *line, char *err, size_t err_len)
{
	return line != NULL ? exec_locked(f, line, NULL, NULL, err, err_len)
			    : vpk_errf(err, err_len, -EINVAL, "no forwarder or line");
}

/*
 * vpk_fwd_exec_file(): lines its check pass applies (show, and interface
 * lines naming an interface that did not exist before the file, index >=
 * @ifs_before); the apply pass skips them.
 */
static bool
applied_when_checked(const struct vpk_fwd *f, int argc, char **argv, size_t ifs_before)
{
	uint32_t ix;

	if (strcmp(argv[0], "show") == 0)
		return true;
	return strcmp(argv[0], "interface") == 0 && !(argc > 1 && find_if(f, argv[1], &ix) == 0 && ix < ifs_before);
}

/* applied_when_checked() for one line of text. */
static bool
early_line(const struct vpk_fwd *f, const char *line, size_t ifs_before)
{
	char tmp[1100], *argv[MAX_ARGS + 1];
	int argc;

	snprintf(tmp, sizeof(tmp), "%s", line);
	argc = split(tmp, argv);
	return argc > 0 && applied_when_checked(f, argc, argv, ifs_before);
}

static int
exec_file(struct vpk_fwd *f, FILE *in, const char *name, char *err, size_t err_len)
{
	char **lines = NULL, *text, why[256];
	size_t n = 0, cap = 0, tlen;
	struct vpk_lines rd = { 0 };
	int rc = 0;
	size_t ifs_before = f->n_ifs, shows_before = f->n_shows;

	if (f == NULL || in == NULL)
		return vpk_errf(err, err_len, -EINVAL, "no forwarder or file");
	name = name != NULL ? name : "<config>";
	rc = vpk_lines_from(&rd, in, name, "configuration files", VPK_FWD_MAX_CONFIG, 1023, err, err_len);
	while (rc == 0 && (rc = vpk_lines_next(&rd, &text, &tlen, err, err_len)) > 0) {
		rc = 0;
		if (n == cap) {
			char **l = realloc(lines, (cap = cap ? 2 * cap : 64) * sizeof(*l));

			if (l == NULL) {
				rc = vpk_errf(err, err_len, -ENOMEM, "%s: out of memory", name);
				goto out;
			}
			lines = l;
		}
		lines[n] = strdup(text);
		if (lines[n] == NULL) {
			rc = vpk_errf(err, err_len, -ENOMEM, "%s: out of memory", name);
			goto out;
		}
		n++;
	}
	vpk_lines_close(&rd);
	if (rc != 0)
		goto out;
	/*
	 * Check every line against the state it will meet: interfaces a line
	 * declares must be visible to the lines after it, so the check pass
	 * applies show lines and the interface lines of interfaces new in this
	 * file (cheap, and undone below on failure by dropping them) and only
	 * checks the others. An interface that existed before the file is
	 * updated in the apply pass instead: the undo below could not give it
	 * back its old settings.
	 */
	for (size_t i = 0; i < n; i++) {
		rc = exec_line(f, lines[i], early_line(f, lines[i], ifs_before), why, sizeof(why));
		if (rc != 0) {
			vpk_errf(err, err_len, rc, "%s:%zu: %s", name, i + 1, why);
			goto undo;
		}
	}
	if (fwd_undo_begin(f) != 0) {
		rc = vpk_errf(err, err_len, -ENOMEM, "%s: out of memory", name);
		goto undo;
	}
	for (size_t i = 0; i <= n; i++) {
		if (i < n && early_line(f, lines[i], ifs_before))
			continue;
		/* after the last line: the tunnel lines' tables into the running graphs */
		rc = i < n ? exec_line(f, lines[i], true, why, sizeof(why)) : fwd_tunnel_commit(f, why, sizeof(why));
		if (rc != 0) {
			/* A resource limit (table full) or a line that conflicts
			 * with an earlier one of the file: say where, and put
			 * everything back as it was (fwd_undo.c). */
			size_t bad = fwd_undo_end(f, true);

			if (bad == 0)
				vpk_errf(err, err_len, rc, "%s:%zu: %s (the changes of this file were undone)",
					 name, i < n ? i + 1 : n, why);
			else
				vpk_errf(err, err_len, rc, "%s:%zu: %s (%zu changes could not be undone)",
					 name, i < n ? i + 1 : n, why, bad);
			goto undo;
		}
	}
	fwd_undo_end(f, false);
	goto out;
undo:
	fwd_if_state_trim(f, ifs_before);
	while (f->n_ifs > ifs_before) {
		f->n_ifs--;
		free(f->ifs[f->n_ifs].in_path);
		free(f->ifs[f->n_ifs].out_path);
		free(f->ifs[f->n_ifs].live);
	}
	while (f->n_shows > shows_before)
		free(f->shows[--f->n_shows]);
out:
	vpk_lines_close(&rd);
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	return rc;
}

int
vpk_fwd_exec_file(struct vpk_fwd *f, FILE *in, const char *name, char *err, size_t err_len)
{
	return in != NULL ? exec_locked(f, NULL, in, name, err, err_len)
			  : vpk_errf(err, err_len, -EINVAL, "no forwarder or file");
}
