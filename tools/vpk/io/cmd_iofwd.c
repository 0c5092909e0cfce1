/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk iofwd: testpmd's io forward mode on vpk's burst ports
 * (include/vpk/io.h): every packet received on a port is sent unchanged on
 * its peer (ports 0<->1, 2<->3, ...; a single port loops to itself), with
 * per-port rx / tx / drop counters, periodic statistics and a bounded run
 * (seconds, packets) for tests and benchmarks. At the end every port is
 * closed and the pool must be whole again (buffers in use = 0), also when an
 * interface went away during the run.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_packet.h>

#include <vpk/io.h>
#include "bench.h"
#include "common/json.h"
#include "common/tool.h"
#include "io/io_dpdk.h"

static int cmd_iofwd(int argc, char **argv);
VPK_CMD(iofwd, "iofwd", "testpmd-style io forwarding between live ports (af_packet, af_xdp) or pcap files",
	cmd_iofwd);

#define MAX_PORTS 8
#define MAX_WORKERS 16

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void
usage(FILE *o)
{
	fprintf(o,
		"usage: vpk iofwd --port DEV|pcap:IN.pcap[:OUT.pcap] [--port ...] [--io af_packet|af_xdp|dpdk]\n"
		"                 [--eal 'EAL ARGS'] (--io dpdk: ports are PCI addresses or vdev args)\n"
		"                 [--stats-period S] [--duration S] [--count N] [--burst N] [--rx-ring N]\n"
		"                 [--bufs N] [--busy] [--xdp-skb] [--xdp-mode zc|copy|auto] [--txonly]\n"
		"                 [--workers N | --queues N|all] [--json]\n"
		"Ports pair up 0<->1, 2<->3 (a single port forwards to itself). Ctrl-C stops.\n"
		"--txonly: testpmd's txonly mode instead: every port sends generated 64-byte frames.\n"
		"--workers N: N threads, each with its own af_packet sockets in a PACKET_FANOUT (hash) group per port\n"
		"             (--count is then approximate: workers stop once the total reaches it).\n"
		"--queues N|all: one worker per receive queue (all: as many as the ports have); af_xdp: worker k\n"
		"             has a socket on queue k of every port, and a port with more receive queues than\n"
		"             vpk serves is an error (their packets would reach the kernel, unseen); af_packet:\n"
		"             N fanout workers.\n");
}

struct port {
	struct vpk_io_port *io;
	const char *spec;
	unsigned queue;
	bool down;
};

/* What every worker shares. */
struct shared {
	struct vpk_pool *pool;
	size_t n_ports;
	unsigned burst;
	bool busy, txonly;
	unsigned long long count;
	double duration, t0;
	_Atomic unsigned long long total_rx;
};

/* One forwarding thread with its own sockets (a PACKET_FANOUT member per port when several). */
struct worker {
	struct shared *sh;
	struct port ports[MAX_PORTS];
	unsigned long long rx, tx;
	double t_first, t_last;
	pthread_t th;
	atomic_bool done;
};

/* Port i's counters summed over the workers. */
static void
port_stats(struct worker *w, unsigned nw, size_t i, struct vpk_io_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned k = 0; k < nw; k++) {
		struct vpk_io_stats s;

		vpk_io_get_stats(w[k].ports[i].io, &s);
		out->rx += s.rx;
		out->tx += s.tx;
		out->rx_drop += s.rx_drop;
		out->rx_nobuf += s.rx_nobuf;
		out->tx_drop += s.tx_drop;
	}
}

static void
print_stats(struct worker *w, unsigned nw, size_t n, struct vpk_io_stats *last, double dt, bool final)
{
	for (size_t i = 0; i < n; i++) {
		struct vpk_io_stats s;
		struct port *p = &w[0].ports[i];

		port_stats(w, nw, i, &s);
		fprintf(stderr, "  port %zu %-10s %-9s rx %12llu tx %12llu rx-drop %8llu tx-drop %8llu",
			i, p->spec, vpk_io_type_name(p->io), (unsigned long long)s.rx, (unsigned long long)s.tx,
			(unsigned long long)s.rx_drop, (unsigned long long)s.tx_drop);
		if (!final && dt > 0)
			fprintf(stderr, "  rx-pps %10.0f tx-pps %10.0f", (double)(s.rx - last[i].rx) / dt,
				(double)(s.tx - last[i].tx) / dt);
		fprintf(stderr, "%s\n", !p->down ? "" : vpk_io_fd(p->io) >= 0 ? "  (link gone)" : "  (input ended)");
		last[i] = s;
	}
}

/*
 * testpmd's txonly mode: 60-byte Ethernet/IPv4/UDP frames (64 on the wire
 * with the FCS), 198.18.0.1 -> 198.18.1.2, the UDP source port counting up
 * (flows), to 02:00:00:00:00:02 (no one's MAC: receivers drop it cheaply).
 */
static int
txonly_burst(struct vpk_pool *pool, uint32_t *idx, uint32_t n, unsigned long long seq)
{
	static const uint8_t tmpl[60] = {
		0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00,
		0x45, 0, 0, 46, 0, 0, 0, 0, 64, 17, 0, 0, 198, 18, 0, 1, 198, 18, 1, 2,
		0x04, 0x00, 0x04, 0x00, 0, 26, 0, 0,
	};
	void *base = vpk_pool_base(pool);
	uint32_t got = vpk_pool_alloc_burst(pool, idx, n);

	for (uint32_t i = 0; i < got; i++) {
		struct vpk_buf *b = vpk_buf_from_idx(base, idx[i]);
		uint8_t *d = vpk_buf_data(b);
		uint16_t sport = (uint16_t)(1024 + (seq + i) % 4096);
		uint32_t sum = 0;

		memcpy(d, tmpl, sizeof(tmpl));
		for (int w = 0; w < 10; w++)
			sum += (uint32_t)(d[14 + 2 * w] << 8 | d[15 + 2 * w]);
		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		d[24] = (uint8_t)(~sum >> 8);
		d[25] = (uint8_t)~sum;
		d[34] = (uint8_t)(sport >> 8);
		d[35] = (uint8_t)sport;
		b->len = b->total_len = sizeof(tmpl);
	}
	return (int)got;
}

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	size_t n_ports = sh->n_ports;

	while (!stop) {
		uint32_t idx[VPK_IO_BURST_MAX];
		unsigned long long pass = 0, total;
		size_t live_in = 0;

		for (size_t i = 0; i < n_ports; i++) {
			size_t peer = n_ports == 1 ? 0 : (i ^ 1) < n_ports ? (i ^ 1) : i;
			uint32_t want = sh->burst;
			int got;

			if (w->ports[i].down)
				continue;
			live_in++;
			total = atomic_load(&sh->total_rx);
			if (sh->count > 0 && sh->count - total < want)
				want = (uint32_t)(sh->count - total);
			if (want == 0)
				break;
			got = sh->txonly ? txonly_burst(sh->pool, idx, want, w->rx)
					 : vpk_io_rx_burst(w->ports[i].io, idx, want);
			if (got < 0) {
				w->ports[i].down = true;        /* end of file or interface gone */
				continue;
			}
			if (got == 0)
				continue;
			atomic_fetch_add(&sh->total_rx, (unsigned)got);
			w->rx += (unsigned)got;
			w->tx += vpk_io_tx_burst(w->ports[sh->txonly ? i : peer].io, idx, (uint32_t)got);
			pass += (unsigned)got;
		}
		if (pass > 0) {
			w->t_last = bench_now_s();
			if (w->t_first == 0)
				w->t_first = w->t_last;
		}
		if ((sh->count > 0 && atomic_load(&sh->total_rx) >= sh->count) || live_in == 0)
			break;
		if (pass == 0) {
			struct pollfd pfd[MAX_PORTS];
			nfds_t nf = 0;

			if (sh->duration > 0 && bench_now_s() - sh->t0 >= sh->duration)
				break;
			for (size_t i = 0; i < n_ports; i++) {
				vpk_io_flush(w->ports[i].io);
				if (!sh->busy && vpk_io_fd(w->ports[i].io) >= 0)
					pfd[nf++] = (struct pollfd){ .fd = vpk_io_fd(w->ports[i].io), .events = POLLIN };
			}
			if (nf > 0)
				(void)poll(pfd, nf, 1);
		} else if (sh->duration > 0 && (w->rx & 0x3ff) < pass && bench_now_s() - sh->t0 >= sh->duration) {
			break;
		}
	}
	for (int r = 0; r < 3; r++) {
		for (size_t i = 0; i < n_ports; i++)
			vpk_io_flush(w->ports[i].io);
		poll(NULL, 0, 5);
	}
	atomic_store(&w->done, true);
	return NULL;
}

/* Per worker (queue) counters of port @i: "queues": [{queue, mode, rx, tx, rx_drop, tx_drop}]. */
static void
json_queues(struct json *j, struct worker *w, unsigned nw, size_t i)
{
	json_arr(j, "queues");
	for (unsigned k = 0; k < nw; k++) {
		struct vpk_io_stats s;

		vpk_io_get_stats(w[k].ports[i].io, &s);
		json_obj(j, NULL);
		json_u64(j, "queue", w[k].ports[i].queue);
		json_u64(j, "worker", k);
		json_str(j, "mode", vpk_io_mode(w[k].ports[i].io));
		json_u64(j, "rx", s.rx);
		json_u64(j, "tx", s.tx);
		json_u64(j, "rx_drop", s.rx_drop);
		json_u64(j, "tx_drop", s.tx_drop);
		json_end(j);
	}
	json_end(j);
}

/*
 * How many queues to serve (one worker each). af_xdp binds a socket to one
 * queue: every receive queue of every live port must have one, or its
 * packets would go to the kernel unseen, so a port with more receive queues
 * than served is an error; so is one with fewer (worker k has a socket on
 * queue k of every port). af_packet sees every queue: N fanout workers.
 */
static int
plan_queues(const char *const *specs, size_t n, enum vpk_io_type type, bool all, unsigned *queues)
{
	uint32_t most = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t rx, tx;
		int rc;

		if (strncmp(specs[i], "pcap:", 5) == 0) {
			if (*queues > 1 || all)
				return vpk_fail(VPK_EXIT_USAGE, "iofwd: --queues: pcap ports cannot be shared by workers");
			continue;
		}
		if (type == VPK_IO_DPDK) {              /* RSS over the queues configured: N, all: 1 */
			if (*queues == 0)
				*queues = 1;
			return VPK_EXIT_OK;
		}
		rc = vpk_io_queue_count(specs[i], &rx, &tx);
		if (rc != 0)
			return vpk_fail(VPK_EXIT_USAGE, "iofwd: port %zu: %s", i, vpk_last_error());
		most = rx > most ? rx : most;
	}
	if (most == 0)
		return VPK_EXIT_OK;
	if (all)
		*queues = most;
	if (*queues > MAX_WORKERS)
		return vpk_fail(VPK_EXIT_USAGE, "iofwd: %u queues: at most %d workers", *queues, MAX_WORKERS);
	if (type != VPK_IO_AF_XDP)
		return VPK_EXIT_OK;
	if (*queues == 0)
		*queues = 1;
	for (size_t i = 0; i < n; i++) {
		uint32_t rx = 0, tx = 0;

		if (strncmp(specs[i], "pcap:", 5) == 0 || vpk_io_queue_count(specs[i], &rx, &tx) != 0)
			continue;
		if (rx > *queues)
			return vpk_fail(VPK_EXIT_USAGE, "iofwd: port %zu (%s) has %u receive queues and vpk would serve "
					"%u: packets on queues %u..%u would reach the kernel unseen; use --queues all "
					"(or fewer channels: ethtool -L %s combined %u)", i, specs[i], rx, *queues,
					*queues, rx - 1, specs[i], *queues);
		if (rx < *queues)
			return vpk_fail(VPK_EXIT_USAGE, "iofwd: port %zu (%s) has %u receive queues, fewer than the "
					"%u served (--queues)", i, specs[i], rx, *queues);
	}
	return VPK_EXIT_OK;
}

/* pcap:IN[:OUT] ports: no output may be an input of the run (opening it truncates it). */
static bool
pcap_files_distinct(const char *const *specs, size_t n)
{
	for (size_t o = 0; o < n; o++) {
		const char *out = strncmp(specs[o], "pcap:", 5) == 0 ? strchr(specs[o] + 5, ':') : NULL;

		for (size_t i = 0; out != NULL && i < n; i++) {
			char in[512];

			if (strncmp(specs[i], "pcap:", 5) != 0)
				continue;
			snprintf(in, sizeof(in), "%s", specs[i] + 5);
			in[strcspn(in, ":")] = '\0';
			if (!vpk_opt_distinct("iofwd", "--port input", in, "--port output", out + 1))
				return false;
		}
	}
	return true;
}

/*
 * Open port @i (@spec) for worker @k of @nw: queue k for af_xdp and dpdk,
 * a fanout member with several af_packet workers; af_xdp refused falls
 * back to af_packet. @return VPK_EXIT_OK or the exit code (message printed).
 */
static int
open_port(struct vpk_pool *pool, const struct vpk_io_conf *base, struct port *pt, const char *spec, size_t i,
	  unsigned k, unsigned nw)
{
	struct vpk_io_conf ic = *base;
	char path[512];
	int rc;

	ic.port_id = (uint32_t)i;
	ic.queue = ic.type == VPK_IO_AF_XDP || ic.type == VPK_IO_DPDK ? k : 0;
	ic.n_queues = ic.type == VPK_IO_DPDK ? nw : 0;
	if (nw > 1) {
		/* One fanout group per port, one member per worker: the kernel spreads flows (hash). */
		ic.fanout_group = (uint16_t)((getpid() * 8 + (int)i) & 0xffff);
		ic.fanout_mode = PACKET_FANOUT_HASH;
	}
	pt->spec = spec;
	pt->queue = ic.queue;
	if (strncmp(spec, "pcap:", 5) == 0) {
		char *colon;

		snprintf(path, sizeof(path), "%s", spec + 5);
		colon = strchr(path, ':');
		if (colon != NULL)
			*colon = '\0';
		ic.type = VPK_IO_PCAP;
		ic.rx_pcap = path[0] ? path : NULL;
		ic.tx_pcap = colon != NULL ? colon + 1 : NULL;
	} else {
		ic.ifname = spec;
	}
	ic.pool = pool;
	rc = vpk_io_create(&ic, &pt->io);
	if (rc != 0 && ic.type == VPK_IO_AF_XDP && (rc == -EPERM || rc == -ENOTSUP)) {
		fprintf(stderr, "vpk: iofwd: %s; using af_packet instead\n", vpk_last_error());
		ic.type = VPK_IO_AF_PACKET;
		rc = vpk_io_create(&ic, &pt->io);
	}
	if (rc != 0)
		return vpk_fail(rc == -ENODEV || rc == -EINVAL || rc == -ENOENT ? VPK_EXIT_USAGE : VPK_EXIT_FAIL,
				"iofwd: port %zu: %s", i, vpk_last_error());
	return VPK_EXIT_OK;
}

static int
cmd_iofwd(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "io", required_argument, NULL, 'T' },
		{ "stats-period", required_argument, NULL, 's' },
		{ "duration", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'n' },
		{ "burst", required_argument, NULL, 'b' },
		{ "rx-ring", required_argument, NULL, 'r' },
		{ "bufs", required_argument, NULL, 'B' },
		{ "busy", no_argument, NULL, 'Y' },
		{ "xdp-skb", no_argument, NULL, 'K' },
		{ "txonly", no_argument, NULL, 'X' },
		{ "workers", required_argument, NULL, 'W' },
		{ "queues", required_argument, NULL, 'Q' },
		{ "xdp-mode", required_argument, NULL, 'M' },
		{ "eal", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *specs[MAX_PORTS];
	static struct worker wk[MAX_WORKERS];
	struct shared sh;
	struct vpk_io_stats last[MAX_PORTS];
	unsigned nw = 1, nw_run;
	size_t n_ports = 0;
	enum vpk_io_type type = VPK_IO_AF_PACKET;
	double period = 0, duration = 0, t_first = 0, t_last = 0, t_stat, c0;
	uint64_t count = 0;
	unsigned long long total_rx = 0, total_tx = 0;
	unsigned burst = 32, rx_ring = 0, n_bufs = 65536;
	bool busy = false, xdp_skb = false, txonly = false, queues_all = false;
	unsigned queues = 0;
	enum vpk_io_xdp_mode xdp_mode = VPK_IO_XDP_AUTO;
	const char *eal = "--no-huge -m 512 --no-pci --no-shconf --file-prefix vpk-iofwd";
	struct vpk_pool_conf pc = { .name = "iofwd", .cache_size = 256, .isa = vpk_opts.isa };
	struct vpk_pool *pool;
	char err[VPK_ERR_LEN];
	int c, rc = VPK_EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		bool ok = true;

		switch (c) {
		case 'p':
			if (n_ports == MAX_PORTS)
				return vpk_fail(VPK_EXIT_USAGE, "iofwd: at most %d ports", MAX_PORTS);
			specs[n_ports++] = optarg;
			break;
		case 'T':
			if (vpk_io_type_parse(optarg, &type) != 0 || type == VPK_IO_PCAP || type == VPK_IO_AUTO)
				return vpk_fail(VPK_EXIT_USAGE, "iofwd: --io %s: want af_packet, af_xdp or dpdk", optarg);
			break;
		case 's':
			ok = vpk_opt_f64("iofwd: --stats-period", optarg, 0, 1e6, &period);
			break;
		case 'd':
			ok = vpk_opt_f64("iofwd: --duration", optarg, 0, 1e7, &duration);
			break;
		case 'n':
			ok = vpk_opt_u64("iofwd: --count", optarg, 0, UINT64_MAX, &count);
			break;
		case 'b':
			ok = vpk_opt_uint("iofwd: --burst", optarg, 1, VPK_IO_BURST_MAX, &burst);
			break;
		case 'r':
			ok = vpk_opt_uint("iofwd: --rx-ring", optarg, 0, 1u << 20, &rx_ring);
			break;
		case 'B':
			ok = vpk_opt_uint("iofwd: --bufs", optarg, 1024, 1u << 26, &n_bufs);
			break;
		case 'Y':
			busy = true;
			break;
		case 'K':
			xdp_skb = true;
			break;
		case 'X':
			txonly = true;
			break;
		case 'W':
			ok = vpk_opt_uint("iofwd: --workers", optarg, 1, MAX_WORKERS, &nw);
			break;
		case 'Q':
			queues_all = strcmp(optarg, "all") == 0;
			ok = queues_all || vpk_opt_uint("iofwd: --queues", optarg, 1, MAX_WORKERS, &queues);
			break;
		case 'E':
			eal = optarg;
			break;
		case 'M':
			if (strcmp(optarg, "zc") == 0)
				xdp_mode = VPK_IO_XDP_ZEROCOPY;
			else if (strcmp(optarg, "copy") == 0)
				xdp_mode = VPK_IO_XDP_COPY;
			else if (strcmp(optarg, "auto") != 0)
				return vpk_fail(VPK_EXIT_USAGE, "iofwd: --xdp-mode %s: want zc, copy or auto", optarg);
			break;
		case 'h':
			usage(stdout);
			return VPK_EXIT_OK;
		default:
			usage(stderr);
			return VPK_EXIT_USAGE;
		}
		if (!ok)
			return VPK_EXIT_USAGE;
	}
	if (optind < argc || n_ports == 0) {
		usage(stderr);
		return VPK_EXIT_USAGE;
	}
	if (period < 0 || duration < 0 || n_bufs < 1024)
		return vpk_fail(VPK_EXIT_USAGE, "iofwd: negative period/duration or --bufs below 1024");
	if (type == VPK_IO_DPDK) {
		if (io_dpdk_init(eal, err, sizeof(err)) != 0)
			return vpk_fail(VPK_EXIT_USAGE, "iofwd: %s", err);
	}
	if (nw > 1 && type != VPK_IO_AF_PACKET)
		return vpk_fail(VPK_EXIT_USAGE, "iofwd: --workers needs --io af_packet (PACKET_FANOUT spreads the "
				"packets; af_xdp: --queues N|all, one worker per queue)");
	if ((queues > 0 || queues_all) && nw > 1)
		return vpk_fail(VPK_EXIT_USAGE, "iofwd: --queues and --workers: give one (--queues N runs N workers)");
	if (!txonly) {
		rc = plan_queues(specs, n_ports, type, queues_all, &queues);
		if (rc != VPK_EXIT_OK)
			return rc;
		if (queues > 1)
			nw = queues;
	}
	for (size_t i = 0; nw > 1 && i < n_ports; i++)
		if (strncmp(specs[i], "pcap:", 5) == 0)
			return vpk_fail(VPK_EXIT_USAGE, "iofwd: --workers: pcap ports cannot be shared by workers");
	if (!pcap_files_distinct(specs, n_ports))
		return VPK_EXIT_USAGE;
	pc.n_bufs = n_bufs;
	rc = vpk_pool_create(&pc, &pool);
	if (rc != 0)
		return vpk_fail(VPK_EXIT_FAIL, "iofwd: cannot create a pool of %u buffers: %s", n_bufs, strerror(-rc));
	memset(&sh, 0, sizeof(sh));
	memset(last, 0, sizeof(last));
	sh.pool = pool;
	sh.n_ports = n_ports;
	sh.burst = burst;
	sh.busy = busy;
	sh.txonly = txonly;
	sh.count = count;
	sh.duration = duration;
	nw_run = nw;
	for (unsigned k = 0; k < nw; k++) {
		memset(&wk[k], 0, sizeof(wk[k]));
		wk[k].sh = &sh;
	}
	{
		const struct vpk_io_conf base = { .type = type, .rx_ring = rx_ring, .xdp_skb = xdp_skb,
						  .xdp_mode = xdp_mode, .isa = vpk_opts.isa };

		for (unsigned k = 0; k < nw && rc == VPK_EXIT_OK; k++)
			for (size_t i = 0; i < n_ports && rc == VPK_EXIT_OK; i++)
				rc = open_port(pool, &base, &wk[k].ports[i], specs[i], i, k, nw);
		if (rc != VPK_EXIT_OK)
			goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	sh.t0 = t_stat = bench_now_s();
	c0 = bench_cpu_s();
	for (unsigned k = 0; k < nw; k++)
		if (pthread_create(&wk[k].th, NULL, worker_main, &wk[k]) != 0) {
			stop = 1;
			nw_run = k;
			rc = vpk_fail(VPK_EXIT_FAIL, "iofwd: cannot start worker %u", k);
			break;
		}
	for (;;) {
		bool all = true;
		double t;

		for (unsigned k = 0; k < nw_run; k++)
			all = all && atomic_load(&wk[k].done);
		if (all)
			break;
		poll(NULL, 0, 20);
		t = bench_now_s();
		if (period > 0 && t - t_stat >= period) {
			fprintf(stderr, "iofwd: %.1f s\n", t - sh.t0);
			print_stats(wk, nw, n_ports, last, t - t_stat, false);
			t_stat = t;
		}
	}
	for (unsigned k = 0; k < nw_run; k++) {
		pthread_join(wk[k].th, NULL);
		total_rx += wk[k].rx;
		total_tx += wk[k].tx;
		if (wk[k].t_first > 0 && (t_first == 0 || wk[k].t_first < t_first))
			t_first = wk[k].t_first;
		if (wk[k].t_last > t_last)
			t_last = wk[k].t_last;
	}
	if (rc != VPK_EXIT_OK)
		goto out;
	{
		double cpu = bench_cpu_s() - c0, active = t_last - t_first;
		struct json j;

		if (vpk_opts.json) {
			json_init(&j, stdout);
			json_obj(&j, NULL);
			json_str(&j, "command", "iofwd");
			json_arr(&j, "ports");
			for (size_t i = 0; i < n_ports; i++) {
				struct vpk_io_stats s;

				port_stats(wk, nw, i, &s);
				json_obj(&j, NULL);
				json_str(&j, "port", wk[0].ports[i].spec);
				json_str(&j, "backend", vpk_io_type_name(wk[0].ports[i].io));
				json_str(&j, "desc_impl", vpk_io_impl_name(wk[0].ports[i].io));
				json_str(&j, "mode", vpk_io_mode(wk[0].ports[i].io));
				json_u64(&j, "rx", s.rx);
				json_u64(&j, "tx", s.tx);
				json_u64(&j, "rx_drop", s.rx_drop);
				json_u64(&j, "rx_nobuf", s.rx_nobuf);
				json_u64(&j, "tx_drop", s.tx_drop);
				json_bool(&j, "link_gone", wk[0].ports[i].down && vpk_io_fd(wk[0].ports[i].io) >= 0);
				json_queues(&j, wk, nw, i);
				json_end(&j);
			}
			json_end(&j);
			json_arr(&j, "workers");
			for (unsigned k = 0; k < nw; k++) {
				json_obj(&j, NULL);
				json_u64(&j, "rx", wk[k].rx);
				json_u64(&j, "tx", wk[k].tx);
				json_end(&j);
			}
			json_end(&j);
			json_u64(&j, "rx", total_rx);
			json_u64(&j, "tx", total_tx);
			json_dbl(&j, "active_s", active);
			json_dbl(&j, "mpps", active > 0 ? (double)total_tx / active / 1e6 : 0);
			json_dbl(&j, "cpu_s", cpu);
			json_dbl(&j, "mpps_per_cpu_s", cpu > 0 ? (double)total_tx / cpu / 1e6 : 0);
		}
		if (!vpk_opts.json)
			print_stats(wk, nw, n_ports, last, 0, true);
		for (unsigned k = 0; k < nw; k++)
			for (size_t i = 0; i < n_ports; i++) {
				vpk_io_destroy(wk[k].ports[i].io);
				wk[k].ports[i].io = NULL;
			}
		if (vpk_opts.json) {
			json_u64(&j, "buffers_in_use", vpk_pool_in_use(pool));
			json_end(&j);
			json_done(&j);
		} else {
			fprintf(stderr, "iofwd: rx %llu tx %llu in %.3f s active (%.3f Mpps), %.3f CPU-s, "
				"buffers in use after close: %u\n", total_rx, total_tx, active,
				active > 0 ? (double)total_tx / active / 1e6 : 0, cpu, vpk_pool_in_use(pool));
		}
	}
	if (vpk_pool_in_use(pool) != 0)
		rc = vpk_fail(VPK_EXIT_FAIL, "iofwd: %u buffers still in use after closing the ports (a leak)",
			      vpk_pool_in_use(pool));
out:
	for (unsigned k = 0; k < nw; k++)
		for (size_t i = 0; i < n_ports; i++) {
			vpk_io_destroy(wk[k].ports[i].io);
			wk[k].ports[i].io = NULL;
		}
	vpk_pool_destroy(pool);
	if (type == VPK_IO_DPDK)
		io_dpdk_fini();
	return rc;
}
