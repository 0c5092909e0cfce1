/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_FWD_PRIV_H
#define VPK_FWD_PRIV_H

/* Private state of the forwarder (src/fwd/). */
#include <vpk/acl.h>
#include <vpk/acl_file.h>
#include <vpk/buf.h>
#include <vpk/fib.h>
#include <vpk/fib6.h>
#include "fwd/fwd.h"
#include <vpk/io.h>
#include <vpk/nodes.h>
#include <vpk/pcap.h>

#include "common/libvpk_internal.h"

#define FWD_MAX_IFS 64
#define FWD_NAME_MAX 32
#define FWD_MAX_SHOWS 32
#define FWD_MAX_WORKERS 64
#define FWD_MAX_GRAPHS (2 * FWD_MAX_WORKERS)
#define FWD_MAX_QUEUES 16               /* receive queues served per live port */

struct fwd_if {
	char name[FWD_NAME_MAX];
	uint8_t mac[6];
	char *in_path, *out_path;
	char *live;                     /* live device (fwd_io.c), NULL: pcap files */
	enum vpk_io_type live_type;     /* af_packet or af_xdp */
	struct vpk_io_port *io;         /* open during a run (fwd_io.c); af_xdp: queue 0 */
	struct vpk_io_port *xq[FWD_MAX_QUEUES];  /* af_xdp queues 1..n_q-1 (xq[0] unused) */
	unsigned n_q, q_rr;             /* queues open, next one to read */
	unsigned queues;                /* `queues N` (0: all of the device's; default 1) */
	bool queues_set;
	enum vpk_io_xdp_mode xdp_mode;  /* `xdp-mode zc|copy|auto` */
	/* port counters per queue of the current / last run (fwd_stats.c snapshots) */
	unsigned qn;
	struct vpk_io_stats qst[FWD_MAX_QUEUES];
	const char *qbackend;
	char qmode[FWD_MAX_QUEUES][40];
	bool has_input;
	bool rd_done;
	bool discard;                   /* out discard: a sink that counts */
	bool loop;                      /* in FILE loop [N]: replayed from memory (io replay) */
	uint32_t loops;                 /* passes over the capture (0: until run-limit) */
	uint64_t rx, rx_skipped, tx, tx_no_output;
	uint64_t rx_drop, tx_drop;      /* live ports: kernel ring drops, refused transmissions */
	/* L2 (fwd_l2.c) */
	bool mac_set;                   /* `mac` given: a live port keeps it instead of its device's */
	uint8_t promisc;                /* `promisc on`: every destination taken */
	uint8_t n_mcast;                /* `multicast MAC` subscriptions */
	uint8_t mcast[VPK_ETH_MAX_MCAST][6];
	uint32_t parent;                /* VLAN sub-interface: parent's index + 1 (0: a port) */
	uint16_t tpid, vid, inner_vid;  /* its tags (inner_vid 0: one tag) */
};

struct fwd_wstate;

struct fwd_acl {
	struct vpk_acl *acl;
	struct vpk_acl *acl_frag;       /* the rules without port constraints (non-first fragments) */
	int32_t *action;                /* by userdata */
	struct vpk_acl_node_conf nc;
};

struct vpk_fwd {
	struct vpk_fwd_conf conf;
	struct vpk_pool *pool;
	struct vpk_fib *fib4;
	struct vpk_fib6 *fib6;
	struct vpk_adj *adj;            /* [0 .. max_neighbors], 0 unused ("no route") */
	struct vpk_adj_table adjt;
	uint32_t *adj_if;               /* interface index of each neighbor (MAC source) */
	struct fwd_if ifs[FWD_MAX_IFS];
	size_t n_ifs;
	struct fwd_acl acl4, acl6;
	enum vpk_acl_frag_policy acl_frag_policy;       /* `acl fragments` */
	bool acl_deny_icmp;                             /* `acl deny icmp-unreachable` */
	void *tunnels;                  /* owned by the tunnel feature (fwd_tunnel*.c) */
	void *icmp;                     /* owned by the ICMP feature (fwd_icmp.c) */
	void *live;                     /* owned by the live-interface feature */
	void *l2;                       /* owned by the L2 feature (fwd_l2.c) */
	void *stats;                    /* owned by the live counters (fwd_stats.c) */
	struct fwd_undo *undo;          /* journal while vpk_fwd_exec_file() applies (fwd_undo.c) */
	struct fwd_ctl *ctl;            /* live changes while running (fwd_cli_live.c), NULL: off */
	void *lsync;                    /* owned by linux-sync (fwd_linux*.c) */
	void *ifstate;                  /* owned by `interface NAME up|down` (fwd_live_if.c) */
	/* workers (fwd_workers.c) */
	struct vpk_graph *wgraphs[FWD_MAX_GRAPHS];      /* workers, then wide workers */
	unsigned n_wgraphs;
	struct vpk_if_output out_mt;    /* fwd_tx behind a lock, for several workers */
	struct fwd_wstate *wstate;
	unsigned graph_max_bits;        /* widest variant in graphs built now (0: the cap) */
	char *shows[FWD_MAX_SHOWS];
	size_t n_shows;
	/* in-memory traffic */
	uint8_t *tmpl;                  /* n_tmpl slots of FWD_TMPL_MAX bytes */
	uint16_t *tmpl_len;
	size_t n_tmpl;
	uint64_t traffic_total, traffic_done;
	/* the run */
	struct vpk_graph *graph;
	struct vpk_if_output out;
	size_t rr;                      /* round-robin cursor over inputs */
	uint32_t rx_burst;              /* packets per input poll of the one-graph run (fwd_rx_burst()) */
	char io_err[256];
	int io_rc;
};

#define FWD_TMPL_MAX 2048u

/*
 * Extension points for features that live in their own files (tunnels,
 * live interfaces, ...):
 *  - a configuration command: `const struct fwd_cmd fwd_cmd_<x>` listed in
 *    fwd.c's feature_cmds[] (the handler checks only when !apply, applies when apply);
 *  - graph contributions for a run: a `fwd_graph_hook` listed in fwd_graph.c's
 *    graph_hooks[], which appends node names and node configurations;
 *  - cleanup: a `fwd_free_hook` listed in fwd.c's free_hooks[];
 *  - state: a pointer member of struct vpk_fwd owned by the feature's file.
 */
struct fwd_cmd {
	const char *name;
	int (*fn)(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len);
};

struct fwd_graph {
	const char **nodes;             /* NULL-terminated list being built */
	size_t n_nodes, max_nodes;
	struct vpk_node_conf *nc;
	size_t n_nc, max_nc;
};

typedef int (*fwd_graph_hook)(struct vpk_fwd *f, struct fwd_graph *fg, char *err, size_t len);
typedef void (*fwd_free_hook)(struct vpk_fwd *f);

/* Append a node (once) and optionally its configuration. @return 0 or -ENOSPC. */
int fwd_graph_add(struct fwd_graph *fg, const char *node, void *conf);

/* fwd_io.c: read up to @want packets from interface @in (0 when it has no
 * input or is done); end of file / interface gone marks it done, any other
 * error also becomes the run's first error (f->io_rc, f->io_err). */
int fwd_if_rx(struct vpk_fwd *f, struct fwd_if *in, uint32_t *idx, uint32_t want);
/* fwd_io.c: the same for worker @w of @nw, from the queues q of @in with q % nw == w. */
int fwd_if_rx_worker(struct vpk_fwd *f, struct fwd_if *in, unsigned w, unsigned nw, uint32_t *idx, uint32_t want);
void fwd_io_idle_worker(struct vpk_fwd *f, unsigned w, unsigned nw);
/* fwd_io.c: worker @w sends on its own queue of the output port; false: the port has none. */
bool fwd_tx_worker(struct vpk_fwd *f, unsigned w, unsigned nw, uint32_t tx_if, const uint32_t *bi, uint32_t n);

/* fwd_util.c: a decimal or 0x-hexadecimal number <= max into *out; 0 or -EINVAL. */
int fwd_parse_u32(const char *s, unsigned long max, uint32_t *out);

/* fwd_util.c: "ADDR/LEN" -> 4 or 6 (the family), network-order address with the
 * host bits cleared (IPv4 in out[0..3]) and length; -EINVAL. */
int fwd_parse_prefix(const char *s, uint8_t out[16], uint8_t *plen);
/* "ADDR/LEN" with the host bits kept (an interface address): as fwd_parse_prefix(). */
int fwd_parse_addr_len(const char *s, uint8_t out[16], uint8_t *plen);
/* fwd_util.c: CLOCK_MONOTONIC in seconds. */
double fwd_now_s(void);

/* fwd_util.c: in a control thread, leave SIGINT / SIGTERM to the main thread. */
void fwd_block_stop_signals(void);


/*
 * Input nodes of the forwarder (pcap/io, mem, ring, rss-mem, wide-*): one
 * scalar variant, next arc "ethernet-input" (or none), ctx = the conf
 * pointer. FWD_INPUT_NODE(var, name, fn, n_next) defines `var##_reg`.
 */
extern const char *const fwd_input_next[];
int fwd_input_init(struct vpk_node_rt *rt, void *conf);
#define FWD_INPUT_NODE(var, nodename, func, nnext)                                      \
	static const struct vpk_node_impl var##_impl = { { "scalar", VPK_ISA_SCALAR, 64 }, func }; \
	static const struct vpk_impl *const var##_impls[] = { &var##_impl.base, NULL };  \
	static const struct vpk_node_reg var##_reg = {                                   \
		.name = nodename, .type = VPK_NODE_INPUT, .n_next = (nnext),             \
		.next_names = (nnext) ? fwd_input_next : NULL, .impls = var##_impls,      \
		.init = fwd_input_init }

/*
 * In-memory traffic: up to a frame (at most @left packets) of buffers from
 * the pool, filled with packet templates and handed to next 0; the k-th gets
 * template order[(done + k) % n_order] (order NULL: (done + k) % f->n_tmpl).
 * Marks traced packets. @return Packets made (fewer when the pool runs low).
 */
uint32_t fwd_mem_frame(struct vpk_node_rt *rt, const struct vpk_fwd *f, const uint32_t *order, size_t n_order,
		       uint64_t done, uint64_t left);

/* fwd_acl.c */
int fwd_acl_install(struct vpk_fwd *f, const struct vpk_acl5_rule *r, uint32_t n, bool ipv6,
		    char *err, size_t len);
void fwd_acl_free(struct fwd_acl *a);
/* fwd_acl_cmd.c */
extern const struct fwd_cmd fwd_cmd_acl;

/* fwd_graph.c */
int fwd_build_graph(struct vpk_fwd *f, const char *input, void *input_ctx, const char *input2,
		    void *input2_ctx, unsigned worker, struct vpk_graph **out, char *err, size_t len);
uint64_t fwd_node_error(struct vpk_graph *g, const char *node, uint16_t code);
void fwd_drop_graphs(struct vpk_fwd *f);

/* fwd_workers.c */
int fwd_run_workers(struct vpk_fwd *f, bool mem, struct vpk_fwd_run_stats *st, char *err, size_t len);
int fwd_workers_init(struct vpk_fwd *f);
void fwd_workers_fini(struct vpk_fwd *f);

/* fwd_io.c: ports of the interfaces (include/vpk/io.h), input nodes, tx, live runs */
int fwd_register_nodes(void);
extern const char fwd_pcap_input_name[], fwd_io_input_name[], fwd_mem_input_name[];
extern const struct fwd_cmd fwd_cmd_run_limit, fwd_cmd_dpdk_eal;
const char *fwd_input_name(const struct vpk_fwd *f);
uint32_t fwd_rx_burst(const struct vpk_fwd *f);
int fwd_io_open(struct vpk_fwd *f, bool want_input, char *err, size_t len);
void fwd_io_close(struct vpk_fwd *f, int *rc, char *err, size_t len);
bool fwd_io_inputs_done(struct vpk_fwd *f, bool mem);
void fwd_io_idle(struct vpk_fwd *f);
void fwd_live_free(struct vpk_fwd *f);
void fwd_tx(void *ctx, uint32_t tx_if, const uint32_t *bi, uint32_t n);

/* fwd_icmp.c */
extern const struct fwd_cmd fwd_cmd_ip, fwd_cmd_icmp;
int fwd_icmp_graph(struct vpk_fwd *f, struct fwd_graph *fg, char *err, size_t len);
/* An address of the router added (del false) or removed, live when the graphs run: what
 * `ip address [del]` and linux-sync do. check: could it be done (0 or -errno, @err set)? */
struct vpk_icmp_addr;
int fwd_icmp_addr_check(struct vpk_fwd *f, const struct vpk_icmp_addr *a, bool del, char *err, size_t len);
int fwd_icmp_addr_set(struct vpk_fwd *f, const struct vpk_icmp_addr *a, bool del, char *err, size_t len);
void fwd_icmp_free(struct vpk_fwd *f);

/* fwd_l2.c: VLAN sub-interfaces, router L2 input, egress tags */
/* `interface P.VID[.VID] [tpid 0x8100|0x88a8]` when P is a declared port: 0 or -errno;
 * 1 when argv[1] names no sub-interface (a port: cmd_interface goes on). */
int fwd_l2_subif(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len);
/* `promisc on|off` / `multicast MAC` options of a port: 0, -EINVAL, or 1 (not an L2 option). */
int fwd_l2_option(struct fwd_if *x, const char *opt, const char *val, bool apply, char *err, size_t len);
/* fwd_io.c: `queues N|all` / `xdp-mode zc|copy|auto` of a live port: 0, -EINVAL, or 1 (not one). */
int fwd_io_option(struct fwd_if *x, const char *opt, const char *val, bool apply, char *err, size_t len);
/* fwd_io.c: port @q of interface @x (0: x->io), NULL past the last. */
struct vpk_io_port *fwd_if_queue(const struct fwd_if *x, unsigned q);
/* Port @i's MAC (and its sub-interfaces' and their neighbors' source MAC) becomes @mac. */
void fwd_l2_set_mac(struct vpk_fwd *f, size_t i, const uint8_t mac[6]);
/* ethernet-input's configuration from the interfaces (before the graphs are built). */
int fwd_l2_prepare(struct vpk_fwd *f);
int fwd_l2_graph(struct vpk_fwd *f, struct fwd_graph *fg, char *err, size_t len);
/* Tag the @n frames for sub-interface @tx_if; @return the port that sends them. */
uint32_t fwd_l2_egress(struct vpk_fwd *f, uint32_t tx_if, const uint32_t *bi, uint32_t n);
void fwd_l2_free(struct vpk_fwd *f);

/* fwd_stats.c: live port counters, `stats-period S` */
extern const struct fwd_cmd fwd_cmd_stats_period;
void fwd_stats_snapshot(struct vpk_fwd *f);     /* open ports' counters into fwd_if::qst */
void fwd_stats_tick(struct vpk_fwd *f);         /* the reader thread, often: snapshot / print when due */
void fwd_stats_start(struct vpk_fwd *f);        /* ports just opened */
void fwd_stats_free(struct vpk_fwd *f);

/* fwd_tunnel.c, fwd_tunnel_live.c */
extern const struct fwd_cmd fwd_cmd_vxlan, fwd_cmd_sr;
int fwd_tunnel_graph(struct vpk_fwd *f, struct fwd_graph *fg, char *err, size_t len);
void fwd_tunnel_free(struct vpk_fwd *f);
/* A copy of the tunnel state (*out NULL when there is none) for the undo
 * journal; restore puts it back (NULL: frees the state) and frees it. 0 or -ENOMEM.
 * While graphs run, lines change a copy: restore drops it. */
int fwd_tunnel_save(const struct vpk_fwd *f, void **out);
void fwd_tunnel_restore(struct vpk_fwd *f, void *saved);
/* Publish what the lines changed to the running graphs (lock held): 0, or an
 * error with the change dropped. Without running graphs: nothing to do. */
int fwd_tunnel_commit(struct vpk_fwd *f, char *err, size_t len);
void fwd_tunnel_abort(struct vpk_fwd *f);
/* A graph's thread (reader @id; @g NULL: its slot's), after its quiescent state: take the published tables. */
void fwd_tunnel_adopt(struct vpk_fwd *f, unsigned id, struct vpk_graph *g);

/*
 * Undo journal (fwd_undo.c): while vpk_fwd_exec_file() applies a file,
 * route and neighbor commands note the state they change first (0, or
 * -ENOMEM and then they must not change anything); on a failure the
 * journal restores it. Without a journal (fwd_undo_begin not called) the
 * note calls do nothing. fwd_undo_end() returns the entries it could not
 * undo (0 unless the tables misbehave).
 */
int fwd_undo_begin(struct vpk_fwd *f);
int fwd_undo_route4(struct vpk_fwd *f, uint32_t ip, uint8_t plen);
int fwd_undo_route6(struct vpk_fwd *f, const uint8_t ip[16], uint8_t plen);
int fwd_undo_neighbor(struct vpk_fwd *f, uint32_t id);
size_t fwd_undo_end(struct vpk_fwd *f, bool failed);

/*
 * Live changes (fwd_cli_live.c): once fwd_ctl_enable() ran, commands may
 * come from the control socket and linux-sync threads while the graphs run.
 * Writers serialise on fwd_ctl_lock(); graph readers report quiescent
 * states, FIB groups, adjacency tables and ACL contexts are reclaimed after
 * them. Everything is a no-op while f->ctl is NULL.
 */
struct fwd_ctl;
int fwd_ctl_enable(struct vpk_fwd *f);
void fwd_ctl_free(struct vpk_fwd *f);
bool fwd_ctl_lock(struct vpk_fwd *f);          /* true: locked (unlock it) */
void fwd_ctl_unlock(struct vpk_fwd *f, bool locked);
bool fwd_ctl_has_graphs(const struct vpk_fwd *f);
void fwd_ctl_reader(struct vpk_fwd *f, unsigned id, bool online);
void fwd_ctl_tick_slow(struct vpk_fwd *f, unsigned id, struct vpk_graph *g);
static inline void
fwd_ctl_tick(struct vpk_fwd *f, unsigned id, struct vpk_graph *g)
{
	if (f->ctl != NULL)
		fwd_ctl_tick_slow(f, id, g);
}
/* Change neighbor @id (adj NULL: remove it); graphs see the old or the new entry. 0 or -ENOMEM. */
int fwd_ctl_set_adj(struct vpk_fwd *f, uint32_t id, const struct vpk_adj *adj, uint32_t ifx);
/* Wait until every graph thread passed a quiescent state (what was unpublished may be freed). */
void fwd_ctl_sync(struct vpk_fwd *f);
/* `acl load` while graphs may run: the node contexts are swapped whole. */
int fwd_ctl_acl_install(struct vpk_fwd *f, const struct vpk_acl5_rule *r, uint32_t n, bool ipv6,
			 char *err, size_t len);
/* A command that cannot change while the graphs run: the error, else 0. */
int fwd_ctl_refuse(const struct vpk_fwd *f, int argc, char **argv, char *err, size_t len);

/* fwd_live_if.c: `interface NAME up|down` while the graphs run */
int fwd_if_state_cmd(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len);
/* Interface @i is administratively down; *tx_drops: frames not sent because of it. */
bool fwd_if_down(const struct vpk_fwd *f, size_t i, uint64_t *tx_drops);
void fwd_if_state_free(struct vpk_fwd *f);
/* Graph hook: interfaces configured down before the start are down in the run's graphs. */
int fwd_if_state_graph(struct vpk_fwd *f, struct fwd_graph *fg, char *err, size_t len);
void fwd_if_state_trim(struct vpk_fwd *f, size_t n);
/* The down flags, for the undo journal (put: only before the start). */
void fwd_if_state_get(const struct vpk_fwd *f, bool down[FWD_MAX_IFS]);
void fwd_if_state_put(struct vpk_fwd *f, const bool down[FWD_MAX_IFS]);
/* fwd_l2.c: ethernet-input's configuration as built for the run (NULL: none). */
const struct vpk_eth_input_conf *fwd_l2_conf(const struct vpk_fwd *f);

/* fwd_linux.c: `linux-sync [netns NAME] [table N]` */
extern const struct fwd_cmd fwd_cmd_linux_sync;
void fwd_linux_free(struct vpk_fwd *f);
/* Gateway ("10.0.0.1", "fe80::1", "" when the prefix is on the link) and
 * kernel interface of a neighbor ID linux-sync made; false for any other. */
bool fwd_linux_nh(const struct vpk_fwd *f, uint32_t id, char *gw, size_t gw_len, char *dev, size_t dev_len);
/* Path @i of ECMP group @id (gateway, kernel interface): the group's number of paths, 0: not a group. */
unsigned fwd_linux_path(const struct vpk_fwd *f, uint32_t id, unsigned i, char *gw, size_t gw_len, char *dev,
			size_t dev_len);
/* linux-sync state for `show linux-sync` (text or JSON): 0, or -ENOENT when off. */
int fwd_linux_show(const struct vpk_fwd *f, bool json, FILE *out);

#endif
