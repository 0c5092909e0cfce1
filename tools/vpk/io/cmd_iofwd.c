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

#include <vpk/io.h>
#include "bench.h"
#include "common/clock.h"
#include "common/json.h"
#include "common/tool.h"
#include "io/io_dpdk.h"
#include "io/iofwd.h"

static int cmd_iofwd(int argc, char **argv);
VPK_CMD(iofwd, "iofwd", "testpmd-style io forwarding between live ports (af_packet, af_xdp) or pcap files",
	cmd_iofwd);


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
		"             N fanout workers; dpdk: worker k serves queue k of every device (RSS over N).\n");
}

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
	double cpu_s;                   /* this thread's CPU time (CLOCK_THREAD_CPUTIME_ID) */
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

static double
thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Received packets may number @want more before --count is reached: the burst to ask for. */
static uint32_t
count_room(struct shared *sh, uint32_t want)
{
	unsigned long long total;

	if (sh->count == 0)
		return want;            /* no limit: the shared counter is not touched */
	total = atomic_load_explicit(&sh->total_rx, memory_order_relaxed);
	return sh->count - total < want ? (uint32_t)(sh->count - total) : want;
}

/*
 * One pass over the ports: receive a burst on each, send it on the peer.
 * @return packets forwarded; *live_in: ports still open for input.
 */
static unsigned long long
forward_pass(struct worker *w, size_t *live_in)
{
	struct shared *sh = w->sh;
	size_t n_ports = sh->n_ports;
	uint32_t idx[VPK_IO_BURST_MAX];
	unsigned long long pass = 0;

	*live_in = 0;
	for (size_t i = 0; i < n_ports; i++) {
		size_t peer = n_ports == 1 ? 0 : (i ^ 1) < n_ports ? (i ^ 1) : i;
		uint32_t want;
		int got;

		if (w->ports[i].down)
			continue;
		(*live_in)++;
		want = count_room(sh, sh->burst);
		if (want == 0)
			break;
		got = sh->txonly ? txonly_burst(sh->pool, idx, want, w->rx) : vpk_io_rx_burst(w->ports[i].io, idx, want);
		if (got < 0) {
			w->ports[i].down = true;        /* end of file or interface gone */
			continue;
		}
		if (got == 0)
			continue;
		if (sh->count > 0)
			atomic_fetch_add_explicit(&sh->total_rx, (unsigned)got, memory_order_relaxed);
		w->rx += (unsigned)got;
		w->tx += vpk_io_tx_burst(w->ports[sh->txonly ? i : peer].io, idx, (uint32_t)got);
		pass += (unsigned)got;
	}
	return pass;
}

/* Nothing came: flush what waits to be sent and (unless --busy) wait up to 1 ms for input. */
static void
idle(struct worker *w)
{
	struct shared *sh = w->sh;
	struct pollfd pfd[MAX_PORTS];
	nfds_t nf = 0;

	for (size_t i = 0; i < sh->n_ports; i++) {
		vpk_io_flush(w->ports[i].io);
		if (!sh->busy && vpk_io_fd(w->ports[i].io) >= 0)
			pfd[nf++] = (struct pollfd){ .fd = vpk_io_fd(w->ports[i].io), .events = POLLIN };
	}
	if (nf > 0)
		(void)poll(pfd, nf, 1);
}

/*
 * The clock is read about every 1024 packets, when the ports go idle and at
 * the end (t_last: when the last packets were forwarded), not per pass: a
 * clock_gettime() per two bursts costs about a cycle per packet.
 */
static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	double c0 = thread_cpu_s();
	bool unstamped = false;         /* packets forwarded since t_last was taken */

	while (!stop) {
		size_t live_in;
		unsigned long long pass = forward_pass(w, &live_in);

		if (pass > 0 && w->t_first == 0)
			w->t_first = w->t_last = mono_now_s();
		if (pass > 0)
			unstamped = true;
		if ((sh->count > 0 && atomic_load(&sh->total_rx) >= sh->count) || live_in == 0)
			break;
		if (pass == 0) {
			double now = mono_now_s();

			if (unstamped)
				w->t_last = now;
			unstamped = false;
			if (sh->duration > 0 && now - sh->t0 >= sh->duration)
				break;
			idle(w);
		} else if ((w->rx & 0x3ff) < pass) {
			w->t_last = mono_now_s();
			unstamped = false;
			if (sh->duration > 0 && w->t_last - sh->t0 >= sh->duration)
				break;
		}
	}
	if (unstamped)
		w->t_last = mono_now_s();
	for (int r = 0; r < 3; r++) {
		for (size_t i = 0; i < sh->n_ports; i++)
			vpk_io_flush(w->ports[i].io);
		poll(NULL, 0, 5);
	}
	w->cpu_s = thread_cpu_s() - c0;
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

/* The command line. */
struct iofwd_opts {
	const char *specs[MAX_PORTS];
	size_t n_ports;
	enum vpk_io_type type;
	double period, duration;
	uint64_t count;
	unsigned burst, rx_ring, n_bufs, nw, queues;
	bool busy, xdp_skb, txonly, queues_all;
	enum vpk_io_xdp_mode xdp_mode;
	const char *eal;
};

/* @return -1 to go on, or the exit code (usage printed or help shown). */
static int
parse_opts(int argc, char **argv, struct iofwd_opts *o)
{
	VPK_LONGOPTS(opts, "port=p io=T stats-period=s duration=d count=n burst=b rx-ring=r bufs=B busy/Y "
			   "xdp-skb/K txonly/X workers=W queues=Q xdp-mode=M eal=E help/h");
	int c;

	*o = (struct iofwd_opts){ .type = VPK_IO_AF_PACKET, .burst = 32, .n_bufs = 65536, .nw = 1,
				  .xdp_mode = VPK_IO_XDP_AUTO,
				  .eal = "--no-huge -m 512 --no-pci --no-shconf --file-prefix vpk-iofwd" };
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		bool ok = true;

		switch (c) {
		case 'p':
			if (o->n_ports == MAX_PORTS)
				return vpk_fail(VPK_EXIT_USAGE, "iofwd: at most %d ports", MAX_PORTS);
			o->specs[o->n_ports++] = optarg;
			break;
		case 'T':
			if (vpk_io_type_parse(optarg, &o->type) != 0 || o->type == VPK_IO_PCAP || o->type == VPK_IO_AUTO)
				return vpk_fail(VPK_EXIT_USAGE, "iofwd: --io %s: want af_packet, af_xdp or dpdk", optarg);
			break;
		case 's':
			ok = vpk_opt_f64("iofwd: --stats-period", optarg, 0, 1e6, &o->period);
			break;
		case 'd':
			ok = vpk_opt_f64("iofwd: --duration", optarg, 0, 1e7, &o->duration);
			break;
		case 'n':
			ok = vpk_opt_u64("iofwd: --count", optarg, 0, UINT64_MAX, &o->count);
			break;
		case 'b':
			ok = vpk_opt_uint("iofwd: --burst", optarg, 1, VPK_IO_BURST_MAX, &o->burst);
			break;
		case 'r':
			ok = vpk_opt_uint("iofwd: --rx-ring", optarg, 0, 1u << 20, &o->rx_ring);
			break;
		case 'B':
			ok = vpk_opt_uint("iofwd: --bufs", optarg, 1024, 1u << 26, &o->n_bufs);
			break;
		case 'Y':
			o->busy = true;
			break;
		case 'K':
			o->xdp_skb = true;
			break;
		case 'X':
			o->txonly = true;
			break;
		case 'W':
			ok = vpk_opt_uint("iofwd: --workers", optarg, 1, MAX_WORKERS, &o->nw);
			break;
		case 'Q':
			o->queues_all = strcmp(optarg, "all") == 0;
			ok = o->queues_all || vpk_opt_uint("iofwd: --queues", optarg, 1, MAX_WORKERS, &o->queues);
			break;
		case 'E':
			o->eal = optarg;
			break;
		case 'M':
			if (strcmp(optarg, "zc") == 0)
				o->xdp_mode = VPK_IO_XDP_ZEROCOPY;
			else if (strcmp(optarg, "copy") == 0)
				o->xdp_mode = VPK_IO_XDP_COPY;
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
	if (optind < argc || o->n_ports == 0) {
		usage(stderr);
		return VPK_EXIT_USAGE;
	}
	return -1;
}

/* Workers and queues from the options; the EAL for dpdk. @return -1 to go on, or the exit code. */
static int
check_opts(struct iofwd_opts *o)
{
	char err[VPK_ERR_LEN];
	int rc;

	if (o->period < 0 || o->duration < 0 || o->n_bufs < 1024)
		return vpk_fail(VPK_EXIT_USAGE, "iofwd: negative period/duration or --bufs below 1024");
	if (o->nw > 1 && o->type != VPK_IO_AF_PACKET)
		return vpk_fail(VPK_EXIT_USAGE, "iofwd: --workers needs --io af_packet (PACKET_FANOUT spreads the "
				"packets; af_xdp, dpdk: --queues N|all, one worker per queue)");
	if ((o->queues > 0 || o->queues_all) && o->nw > 1)
		return vpk_fail(VPK_EXIT_USAGE, "iofwd: --queues and --workers: give one (--queues N runs N workers)");
	if (!o->txonly) {
		rc = iofwd_plan_queues(o->specs, o->n_ports, o->type, o->queues_all, &o->queues);
		if (rc != VPK_EXIT_OK)
			return rc;
		if (o->queues > 1)
			o->nw = o->queues;
	}
	for (size_t i = 0; o->nw > 1 && i < o->n_ports; i++)
		if (strncmp(o->specs[i], "pcap:", 5) == 0)
			return vpk_fail(VPK_EXIT_USAGE, "iofwd: --workers: pcap ports cannot be shared by workers");
	if (!iofwd_pcap_files_distinct(o->specs, o->n_ports))
		return VPK_EXIT_USAGE;
	if (o->type == VPK_IO_DPDK && io_dpdk_init(o->eal, err, sizeof(err)) != 0)
		return vpk_fail(VPK_EXIT_USAGE, "iofwd: %s", err);
	return -1;
}

/* Start the workers, print periodic statistics until all are done, join them. */
static int
run_workers(struct worker *wk, unsigned nw, struct shared *sh, const struct iofwd_opts *o)
{
	struct vpk_io_stats last[MAX_PORTS];
	unsigned nw_run = nw;
	double t_stat;
	int rc = VPK_EXIT_OK;

	memset(last, 0, sizeof(last));
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	sh->t0 = t_stat = mono_now_s();
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
		t = mono_now_s();
		if (o->period > 0 && t - t_stat >= o->period) {
			fprintf(stderr, "iofwd: %.1f s\n", t - sh->t0);
			print_stats(wk, nw, o->n_ports, last, t - t_stat, false);
			t_stat = t;
		}
	}
	for (unsigned k = 0; k < nw_run; k++)
		pthread_join(wk[k].th, NULL);
	return rc;
}

/* Totals over the workers. */
struct totals {
	unsigned long long rx, tx;
	double active, cpu, worker_cpu;
};

static void
sum_workers(const struct worker *wk, unsigned nw, double cpu, struct totals *t)
{
	double t_first = 0, t_last = 0;

	memset(t, 0, sizeof(*t));
	for (unsigned k = 0; k < nw; k++) {
		t->rx += wk[k].rx;
		t->tx += wk[k].tx;
		t->worker_cpu += wk[k].cpu_s;
		if (wk[k].t_first > 0 && (t_first == 0 || wk[k].t_first < t_first))
			t_first = wk[k].t_first;
		if (wk[k].t_last > t_last)
			t_last = wk[k].t_last;
	}
	t->active = t_last - t_first;
	t->cpu = cpu;
}

/* The JSON report up to the buffer count (written after the ports close). */
static void
json_report(struct json *j, struct worker *wk, unsigned nw, size_t n_ports, const struct totals *t)
{
	json_init(j, stdout);
	json_obj(j, NULL);
	json_str(j, "command", "iofwd");
	json_arr(j, "ports");
	for (size_t i = 0; i < n_ports; i++) {
		struct vpk_io_stats s;

		port_stats(wk, nw, i, &s);
		json_obj(j, NULL);
		json_str(j, "port", wk[0].ports[i].spec);
		json_str(j, "backend", vpk_io_type_name(wk[0].ports[i].io));
		json_str(j, "desc_impl", vpk_io_impl_name(wk[0].ports[i].io));
		json_str(j, "mode", vpk_io_mode(wk[0].ports[i].io));
		json_u64(j, "rx", s.rx);
		json_u64(j, "tx", s.tx);
		json_u64(j, "rx_drop", s.rx_drop);
		json_u64(j, "rx_nobuf", s.rx_nobuf);
		json_u64(j, "tx_drop", s.tx_drop);
		json_bool(j, "link_gone", wk[0].ports[i].down && vpk_io_fd(wk[0].ports[i].io) >= 0);
		json_queues(j, wk, nw, i);
		json_end(j);
	}
	json_end(j);
	json_arr(j, "workers");
	for (unsigned k = 0; k < nw; k++) {
		json_obj(j, NULL);
		json_fields(j, JU("rx", wk[k].rx), JU("tx", wk[k].tx), JD("cpu_s", wk[k].cpu_s));
		json_end(j);
	}
	json_end(j);
	json_u64(j, "rx", t->rx);
	json_u64(j, "tx", t->tx);
	json_dbl(j, "active_s", t->active);
	json_dbl(j, "mpps", t->active > 0 ? (double)t->tx / t->active / 1e6 : 0);
	json_dbl(j, "cpu_s", t->cpu);
	json_dbl(j, "mpps_per_cpu_s", t->cpu > 0 ? (double)t->tx / t->cpu / 1e6 : 0);
	/* Per second of the forwarding threads' own CPU time: what a busy core does, whatever else runs. */
	json_dbl(j, "worker_cpu_s", t->worker_cpu);
	json_dbl(j, "mpps_per_worker_cpu_s", t->worker_cpu > 0 ? (double)t->tx / t->worker_cpu / 1e6 : 0);
}

static void
close_ports(struct worker *wk, unsigned nw, size_t n_ports)
{
	for (unsigned k = 0; k < nw; k++)
		for (size_t i = 0; i < n_ports; i++) {
			vpk_io_destroy(wk[k].ports[i].io);
			wk[k].ports[i].io = NULL;
		}
}

/* Report, close every port, and check that the pool is whole again. */
static int
finish(struct worker *wk, unsigned nw, struct vpk_pool *pool, size_t n_ports, double cpu)
{
	struct vpk_io_stats last[MAX_PORTS];
	struct totals t;
	struct json j;

	sum_workers(wk, nw, cpu, &t);
	if (vpk_opts.json)
		json_report(&j, wk, nw, n_ports, &t);
	else
		print_stats(wk, nw, n_ports, last, 0, true);
	close_ports(wk, nw, n_ports);
	if (vpk_opts.json) {
		json_u64(&j, "buffers_in_use", vpk_pool_in_use(pool));
		json_end(&j);
		json_done(&j);
	} else {
		fprintf(stderr, "iofwd: rx %llu tx %llu in %.3f s active (%.3f Mpps), %.3f CPU-s, "
			"buffers in use after close: %u\n", t.rx, t.tx, t.active,
			t.active > 0 ? (double)t.tx / t.active / 1e6 : 0, cpu, vpk_pool_in_use(pool));
	}
	if (vpk_pool_in_use(pool) != 0)
		return vpk_fail(VPK_EXIT_FAIL, "iofwd: %u buffers still in use after closing the ports (a leak)",
				vpk_pool_in_use(pool));
	return VPK_EXIT_OK;
}

static int
cmd_iofwd(int argc, char **argv)
{
	static struct worker wk[MAX_WORKERS];
	struct iofwd_opts o;
	struct shared sh;
	struct vpk_pool_conf pc = { .name = "iofwd", .cache_size = 256, .isa = vpk_opts.isa };
	struct vpk_pool *pool;
	double c0;
	int rc;

	rc = parse_opts(argc, argv, &o);
	if (rc < 0)
		rc = check_opts(&o);
	if (rc >= 0)
		return rc;
	pc.n_bufs = o.n_bufs;
	rc = vpk_pool_create(&pc, &pool);
	if (rc != 0) {
		if (o.type == VPK_IO_DPDK)
			io_dpdk_fini();
		return vpk_fail(VPK_EXIT_FAIL, "iofwd: cannot create a pool of %u buffers: %s", o.n_bufs,
				strerror(-rc));
	}
	sh = (struct shared){ .pool = pool, .n_ports = o.n_ports, .burst = o.burst, .busy = o.busy,
			      .txonly = o.txonly, .count = o.count, .duration = o.duration };
	for (unsigned k = 0; k < o.nw; k++)
		wk[k] = (struct worker){ .sh = &sh };
	{
		const struct vpk_io_conf base = { .type = o.type, .rx_ring = o.rx_ring, .xdp_skb = o.xdp_skb,
						  .xdp_mode = o.xdp_mode, .isa = vpk_opts.isa };

		rc = VPK_EXIT_OK;
		for (unsigned k = 0; k < o.nw && rc == VPK_EXIT_OK; k++)
			for (size_t i = 0; i < o.n_ports && rc == VPK_EXIT_OK; i++)
				rc = iofwd_open_port(pool, &base, &wk[k].ports[i], o.specs[i], i, k, o.nw);
	}
	if (rc == VPK_EXIT_OK) {
		c0 = bench_cpu_s();
		rc = run_workers(wk, o.nw, &sh, &o);
		if (rc == VPK_EXIT_OK)
			rc = finish(wk, o.nw, pool, o.n_ports, bench_cpu_s() - c0);
	}
	close_ports(wk, o.nw, o.n_ports);
	vpk_pool_destroy(pool);
	if (o.type == VPK_IO_DPDK)
		io_dpdk_fini();
	return rc;
}
