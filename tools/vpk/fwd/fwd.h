/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_FWD_H
#define VPK_FWD_H

/**
 * @file
 * The forwarder: interfaces, neighbors, routes and the graph that forwards
 * between them (what `vpk fwd` runs).
 *
 * Configuration is a list of commands, one per line, the same from a file,
 * from stdin or from vpk_fwd_exec():
 *
 *     interface NAME [mac MAC] [in FILE.pcap] [out FILE.pcap|discard]   (again: updates it)
 *     interface NAME [mac MAC] live DEV [io af_packet|af_xdp]   (a live port: include/vpk/io.h)
 *     interface NAME live DEV io af_xdp [queues N|all] [xdp-mode zc|copy|auto]   (a socket per queue)
 *     interface NAME dpdk PCI|VDEV-ARGS [queues N]   (a DPDK ethdev; the program starts the EAL)
 *     dpdk-eal ARG...                      (EAL arguments for the program to start DPDK with)
 *     interface NAME ... [promisc on|off] [multicast MAC]   (L2 input: see below)
 *     interface PORT.VID[.INNER] [tpid 0x8100|0x88a8]   (VLAN sub-interface of port PORT)
 *     run-limit [seconds S] [packets N]    (live runs: stop after S s / N received packets)
 *     stats-period S                       (live runs: port counters on stderr every S s)
 *     neighbor ID MAC dev IFACE            (ID >= 1: the next hop routes name)
 *     neighbor del ID
 *     route add PREFIX/LEN via ID          (IPv4 or IPv6)
 *     route del PREFIX/LEN
 *     acl load FILE [ipv6]                 (ClassBench or l3fwd-acl rules; see below)
 *     acl fragments portless|drop          (non-first fragments: see vpk_acl_frag_policy)
 *     acl deny drop|icmp-unreachable       (denied packets: also ICMP "administratively prohibited",
 *                                          with an `ip address`: vpk_acl_node_conf::deny_icmp)
 *     show runtime | show errors | show node NAME    (printed after the run)
 *     linux-sync [netns NAME] [table N|main] [rcvbuf BYTES]   (the kernel's routes: fwd_linux.c)
 *     ip address [del] IFACE ADDR/LEN      (the router's own addresses: fwd_icmp.c)
 *     interface NAME up|down               (while the graphs run only: fwd_live_if.c)
 *     # comment
 *
 * ACL rules (dpdk-test-acl / l3fwd formats, first matching rule in file
 * order wins): `@` lines deny. `R PORT` lines permit (normal mode: the packet
 * goes on to the FIB) or, in l3fwd-acl mode (vpk_fwd_conf::l3fwd_acl),
 * send the packet to neighbor PORT+1 without a FIB lookup (l3fwd's ports
 * count from 0, neighbor IDs from 1). No match: permit (normal mode) or drop
 * (l3fwd-acl mode), as DPDK l3fwd does.
 *
 * L2 input as routers do it: a port takes frames to its MAC (a live port
 * without `mac`: its device's), broadcast, the all-nodes / all-routers
 * groups and `multicast` subscriptions; other unicast is dropped and counted
 * (ethernet-input), unless `promisc on`. Sub-interfaces have their own
 * neighbors, routes and counters, share their port's MAC, take the frames
 * whose tags name them (one 802.1Q tag; two tags with an 802.1ad outer one,
 * or 802.1Q with tpid 0x8100) and push those tags on output. Tagged frames
 * for no sub-interface are dropped and counted.
 *
 * Interfaces are numbered in the order they are declared (0, 1, ...);
 * IFACE is a name or a number. The graph is
 *
 *   pcap-input|io-input|mem-input -> ethernet-input -> ip4-input -> ip4-lookup -> ip4-rewrite
 *        -> interface-output          (ip6-input -> ip6-lookup -> ip6-rewrite likewise)
 *   every drop -> error-drop, counted per node and reason
 *
 * Threading: control-plane calls are not thread-safe, except once live
 * changes are on (the control socket, linux-sync: fwd_cli_live.c): then
 * vpk_fwd_exec() may be called from other threads while vpk_fwd_run() runs,
 * serialised by the control lock, and each change reaches the workers whole. vpk_fwd_run() runs the
 * graph on the calling thread, or with conf.workers > 1 one graph per worker
 * thread: flows are spread by the Toeplitz hash of their 4-tuple (as NIC RSS
 * does), pcap input is read by the calling thread and handed to the workers
 * over single-producer rings; in-memory traffic is generated per worker.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <vpk/acl_file.h>
#include <vpk/fib.h>
#include <vpk/graph.h>
#include <vpk/io.h>
#include <vpk/isa.h>

#ifdef __cplusplus
extern "C" {
#endif

struct vpk_fwd;                 /* opaque */

/** Forwarder parameters. Zero-initialise; zero fields take the defaults shown. */
struct vpk_fwd_conf {
	uint32_t n_bufs;                /**< Pool buffers (default 16384). */
	uint32_t max_routes;            /**< IPv4 routes (default 1 << 20). */
	uint32_t num_tbl8;              /**< IPv4 FIB tbl8 groups (default 65536). */
	enum vpk_fib_type fib4_type;    /**< IPv4 FIB layout (--fib4): VPK_FIB_TYPE_DEFAULT (DIR-24-8
					     at the forwarder's 4-byte next hops) or VPK_FIB_BM16
					     (12 MiB instead of 68 MiB for a full table, about twice
					     the lookup cost per packet: docs/fib.md). */
	uint32_t max_neighbors;         /**< Neighbor IDs 1..max (default 4095). */
	enum vpk_isa isa;               /**< Variant level of every node; VPK_ISA_AUTO: best under the cap. */
	const struct vpk_node_conf *node_variants;  /**< Per-node forced variants (--node-variant). */
	size_t n_node_variants;
	uint32_t trace;                 /**< Trace the first N packets (vpk_graph_trace()). */
	bool l3fwd_acl;                 /**< DPDK l3fwd ACL-mode semantics for ACL rules. */
	const char *wide_cores;         /**< Core specialization: CPUs ("1", "2-3,6") for wide workers
					     that run the wide nodes' 512-bit code; the other workers
					     run at cap 256 and hand frames of wide nodes to them over
					     SPSC rings and take them back. NULL: off. */
	const char *wide_nodes;         /**< Comma-separated wide nodes (NULL: ip4-acl, ip6-acl,
					     ip4-lookup, ip6-lookup: the nodes whose work is a 512-bit
					     classifier or FIB kernel). */
	unsigned wide_ring;             /**< Frames per hand-off ring, each way (default 64). */
	unsigned workers;               /**< Worker threads, each with its own graph, pinned to CPU
					     w % ncpu; flows spread by a Toeplitz (RSS) hash (default 1:
					     the graph runs on the calling thread). */
	const char *acl_impl;           /**< ACL classify variant ("avx512x32", "avx2", ... or NULL: best). */
};

/** Per-interface counters. */
struct vpk_fwd_if_stats {
	const char *name;
	uint64_t rx;                    /**< Packets read from the interface. */
	uint64_t rx_skipped;            /**< Input packets skipped (larger than a buffer). */
	uint64_t tx;                    /**< Packets written. */
	uint64_t tx_no_output;          /**< Packets for this interface, which has no output (freed). */
};

/**
 * Create a forwarder with no interfaces, routes or neighbors.
 * @return 0, -EINVAL (bad conf), -ENOMEM, -ENOTSUP (conf->isa cannot run here).
 */
int vpk_fwd_create(const struct vpk_fwd_conf *conf, struct vpk_fwd **out);

/** Destroy (closes pcaps, frees everything). NULL: no-op. */
void vpk_fwd_destroy(struct vpk_fwd *f);

/**
 * Execute one configuration command (see the file comment).
 * @param err  Receives the reason on failure ("route add: bad prefix '10.0.0/8'").
 * @return 0, or -EINVAL (syntax, range, unknown name), -EEXIST, -ENOENT,
 *         -ENOSPC (table full), -ENOMEM, or the -errno of opening a pcap.
 *         Nothing is changed on failure.
 */
int vpk_fwd_exec(struct vpk_fwd *f, const char *line, char *err, size_t err_len);

/** Size cap of a configuration read by vpk_fwd_exec_file() (64 MiB: a million routes fit). */
#define VPK_FWD_MAX_CONFIG (UINT64_C(64) << 20)

/**
 * Execute a whole configuration. Every line is checked first; only if all
 * are valid are they applied, so a bad file changes nothing. Lines are at
 * most 1023 bytes and hold no NUL byte; a stream over VPK_FWD_MAX_CONFIG
 * bytes is refused (-EFBIG), before its first line when it is a regular file.
 * @param name  For messages: "NAME:LINE: reason".
 * @return 0 or the first failing line's error code.
 */
int vpk_fwd_exec_file(struct vpk_fwd *f, FILE *in, const char *name, char *err,
			      size_t err_len);

/**
 * Use in-memory traffic instead of pcap inputs: @p n_tmpl packet templates
 * (bytes and lengths, copied), replayed round-robin into interface 0's
 * receive side until @p total packets were produced.
 * @return 0, -EINVAL, -ENOMEM.
 */
int vpk_fwd_set_traffic(struct vpk_fwd *f, const uint8_t *const *pkts,
				const uint16_t *lens, size_t n_tmpl, uint64_t total);

/** Results of one run. */
struct vpk_fwd_run_stats {
	uint64_t packets;               /**< Packets produced by the input node. */
	uint64_t tsc;                   /**< TSC ticks spent in the graph loop. */
	uint64_t forwarded;             /**< Packets handed to interfaces. */
	uint64_t dropped;               /**< Packets that ended in error-drop. */
	uint64_t cpu_ns;                /**< CPU time of the loop's thread in the loop (one worker), ns. */
};

/**
 * Build the graph (variants picked now, under the current cap) and run it
 * until every input is exhausted and every frame drained. The graph stays
 * for inspection (vpk_fwd_graph()) until the next run or destroy.
 * @return 0; -EINVAL (no input, or a pcap input/output error: see @p err);
 *         -ENOTSUP (a forced variant cannot run); -ENOMEM.
 */
int vpk_fwd_run(struct vpk_fwd *f, struct vpk_fwd_run_stats *st, char *err, size_t err_len);

/**
 * Ask a running vpk_fwd_run() with live interfaces to stop (it drains its
 * frames and returns). Async-signal-safe: meant for a SIGINT handler.
 * Without live interfaces, or outside a run, it does nothing.
 */
void vpk_fwd_stop(struct vpk_fwd *f);

/** The graph of the last run (worker 0's with several workers), or NULL. */
struct vpk_graph *vpk_fwd_graph(const struct vpk_fwd *f);

/** Workers of the last run and the graph of worker @p w (NULL if out of range). */
unsigned vpk_fwd_n_workers(const struct vpk_fwd *f);
struct vpk_graph *vpk_fwd_worker_graph(const struct vpk_fwd *f, unsigned w);

/** Number of interfaces and their counters (cumulative over runs). */
size_t vpk_fwd_n_ifs(const struct vpk_fwd *f);
int vpk_fwd_if_stats(const struct vpk_fwd *f, size_t i, struct vpk_fwd_if_stats *out);

/** The `dpdk-eal` arguments of the configuration (one string), or NULL. */
const char *vpk_fwd_dpdk_eal(const struct vpk_fwd *f);

/** Counters of one queue of an interface's port. */
struct vpk_fwd_queue_stats {
	const char *backend;            /**< "af_xdp", "af_packet", "pcap". */
	const char *mode;               /**< vpk_io_mode(): "copy (driver XDP)", "tpacket-v3", ... */
	unsigned queue;
	struct vpk_io_stats io;         /**< rx, tx, rx_drop (kernel / NIC), tx_drop (refused), bufs_held. */
};

/** Queues of interface @p i's port in the current or last run (0: no port). */
unsigned vpk_fwd_n_queues(const struct vpk_fwd *f, size_t i);

/**
 * Counters of queue @p q of interface @p i. During a live run they are a
 * snapshot the run refreshes about every 100 ms (so another thread may read
 * them: a value may lag, or be mid-update); after a run, its final values.
 * @return 0 or -EINVAL.
 */
int vpk_fwd_queue_stats(const struct vpk_fwd *f, size_t i, unsigned q, struct vpk_fwd_queue_stats *out);

/** The `show ...` commands of the configuration, in order (strings owned by @p f). */
size_t vpk_fwd_shows(const struct vpk_fwd *f, const char *const **shows);

/** Buffers of the forwarder's pool still in use (0 after a run: nothing lost). */
uint32_t vpk_fwd_bufs_in_use(const struct vpk_fwd *f);

/**
 * Install 5-tuple rules (replacing any IPv4 / IPv6 rule set) as `acl load`
 * does. @return 0, -EINVAL, -ENOMEM, -ERANGE, -ENOTSUP (acl_impl).
 */
int vpk_fwd_acl_rules(struct vpk_fwd *f, const struct vpk_acl5_rule *r, uint32_t n,
			      bool ipv6, char *err, size_t err_len);

/** Variant of the ACL classifier in use ("-" without rules). */
const char *vpk_fwd_acl_impl(const struct vpk_fwd *f);

/** True when neighbor @p id is configured. */
bool vpk_fwd_has_neighbor(const struct vpk_fwd *f, uint32_t id);

/** The IPv4 FIB (for tools that load bulk route files). */
struct vpk_fib *vpk_fwd_fib4(const struct vpk_fwd *f);

#ifdef __cplusplus
}
#endif

#endif /* VPK_FWD_H */
