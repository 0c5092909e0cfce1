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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <vpk/io.h>
#include "json.h"
#include "tool.h"

static int cmd_iofwd(int argc, char **argv);
VPK_CMD(iofwd, "iofwd", "testpmd-style io forwarding between live ports (af_packet, af_xdp) or pcap files",
	cmd_iofwd);

#define MAX_PORTS 8

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double
cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
	       ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) * 1e-6;
}

static void
usage(FILE *o)
{
	fprintf(o,
		"usage: vpk iofwd --port DEV|pcap:IN.pcap[:OUT.pcap] [--port ...] [--io af_packet|af_xdp]\n"
		"                 [--stats-period S] [--duration S] [--count N] [--burst N] [--rx-ring N]\n"
		"                 [--bufs N] [--busy] [--xdp-skb] [--json]\n"
		"Ports pair up 0<->1, 2<->3 (a single port forwards to itself). Ctrl-C stops.\n");
}

struct port {
	struct vpk_io_port *io;
	const char *spec;
	struct vpk_io_stats last;
	bool down;
};

static void
print_stats(struct port *p, size_t n, double dt, bool final)
{
	for (size_t i = 0; i < n; i++) {
		struct vpk_io_stats s;

		vpk_io_stats_get(p[i].io, &s);
		fprintf(stderr, "  port %zu %-10s %-9s rx %12llu tx %12llu rx-drop %8llu tx-drop %8llu",
			i, p[i].spec, vpk_io_type_name(p[i].io), (unsigned long long)s.rx, (unsigned long long)s.tx,
			(unsigned long long)s.rx_drop, (unsigned long long)s.tx_drop);
		if (!final && dt > 0)
			fprintf(stderr, "  rx-pps %10.0f tx-pps %10.0f", (double)(s.rx - p[i].last.rx) / dt,
				(double)(s.tx - p[i].last.tx) / dt);
		fprintf(stderr, "%s\n", !p[i].down ? "" : vpk_io_fd(p[i].io) >= 0 ? "  (link gone)" : "  (input ended)");
		p[i].last = s;
	}
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *specs[MAX_PORTS];
	struct port ports[MAX_PORTS];
	size_t n_ports = 0;
	enum vpk_io_type type = VPK_IO_AF_PACKET;
	double period = 0, duration = 0, t0, t_first = 0, t_last = 0, t_stat, c0;
	unsigned long long count = 0, total_rx = 0, total_tx = 0;
	unsigned burst = 32, rx_ring = 0, n_bufs = 32768;
	bool busy = false, xdp_skb = false;
	struct vpk_pool_conf pc = { .name = "iofwd", .cache_size = 256, .isa = vpk_opts.isa };
	struct vpk_pool *pool;
	char err[VPK_IO_ERR_LEN];
	int c, rc = VPK_EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		char *end = NULL;

		switch (c) {
		case 'p':
			if (n_ports == MAX_PORTS)
				return vpk_fail(VPK_EXIT_USAGE, "iofwd: at most %d ports", MAX_PORTS);
			specs[n_ports++] = optarg;
			break;
		case 'T':
			if (vpk_io_type_parse(optarg, &type) != 0 || type == VPK_IO_PCAP || type == VPK_IO_AUTO)
				return vpk_fail(VPK_EXIT_USAGE, "iofwd: --io %s: want af_packet or af_xdp", optarg);
			break;
		case 's':
			period = strtod(optarg, &end);
			break;
		case 'd':
			duration = strtod(optarg, &end);
			break;
		case 'n':
			count = strtoull(optarg, &end, 10);
			break;
		case 'b':
			burst = (unsigned)strtoul(optarg, &end, 10);
			if (burst == 0 || burst > VPK_IO_BURST_MAX)
				return vpk_fail(VPK_EXIT_USAGE, "iofwd: --burst %s: want 1..%u", optarg, VPK_IO_BURST_MAX);
			break;
		case 'r':
			rx_ring = (unsigned)strtoul(optarg, &end, 10);
			break;
		case 'B':
			n_bufs = (unsigned)strtoul(optarg, &end, 10);
			break;
		case 'Y':
			busy = true;
			break;
		case 'K':
			xdp_skb = true;
			break;
		case 'h':
			usage(stdout);
			return VPK_EXIT_OK;
		default:
			usage(stderr);
			return VPK_EXIT_USAGE;
		}
		if (end != NULL && (*end != '\0' || end == optarg))
			return vpk_fail(VPK_EXIT_USAGE, "iofwd: bad number '%s'", optarg);
	}
	if (optind < argc || n_ports == 0) {
		usage(stderr);
		return VPK_EXIT_USAGE;
	}
	if (period < 0 || duration < 0 || n_bufs < 1024)
		return vpk_fail(VPK_EXIT_USAGE, "iofwd: negative period/duration or --bufs below 1024");
	pc.n_bufs = n_bufs;
	rc = vpk_pool_create(&pc, &pool);
	if (rc != 0)
		return vpk_fail(VPK_EXIT_FAIL, "iofwd: cannot create a pool of %u buffers: %s", n_bufs, strerror(-rc));
	memset(ports, 0, sizeof(ports));
	for (size_t i = 0; i < n_ports; i++) {
		struct vpk_io_conf ic = { .type = type, .port_id = (uint32_t)i, .rx_ring = rx_ring,
					  .xdp_skb = xdp_skb, .isa = vpk_opts.isa };
		char path[512];

		ports[i].spec = specs[i];
		if (strncmp(specs[i], "pcap:", 5) == 0) {
			char *colon;

			snprintf(path, sizeof(path), "%s", specs[i] + 5);
			colon = strchr(path, ':');
			if (colon != NULL)
				*colon = '\0';
			ic.type = VPK_IO_PCAP;
			ic.rx_pcap = path[0] ? path : NULL;
			ic.tx_pcap = colon != NULL ? colon + 1 : NULL;
		} else {
			ic.ifname = specs[i];
		}
		rc = vpk_io_open(pool, &ic, &ports[i].io, err, sizeof(err));
		if (rc != 0 && ic.type == VPK_IO_AF_XDP && (rc == -EPERM || rc == -ENOTSUP)) {
			fprintf(stderr, "vpk: iofwd: %s; using af_packet instead\n", err);
			ic.type = VPK_IO_AF_PACKET;
			rc = vpk_io_open(pool, &ic, &ports[i].io, err, sizeof(err));
		}
		if (rc != 0) {
			rc = vpk_fail(rc == -ENODEV || rc == -EINVAL || rc == -ENOENT ? VPK_EXIT_USAGE : VPK_EXIT_FAIL,
				      "iofwd: port %zu: %s", i, err);
			goto out;
		}
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	t0 = t_stat = now_s();
	c0 = cpu_s();
	while (!stop) {
		uint32_t idx[VPK_IO_BURST_MAX];
		unsigned long long pass = 0;
		size_t live_in = 0;

		for (size_t i = 0; i < n_ports; i++) {
			size_t peer = n_ports == 1 ? 0 : (i ^ 1) < n_ports ? (i ^ 1) : i;
			uint32_t want = burst;
			int got;

			if (ports[i].down)
				continue;
			live_in++;
			if (count > 0 && count - total_rx < want)
				want = (uint32_t)(count - total_rx);
			got = vpk_io_rx_burst(ports[i].io, idx, want);
			if (got < 0) {
				ports[i].down = true;   /* end of file or interface gone */
				continue;
			}
			if (got == 0)
				continue;
			total_rx += (unsigned)got;
			total_tx += vpk_io_tx_burst(ports[peer].io, idx, (uint32_t)got);
			pass += (unsigned)got;
		}
		if (pass > 0) {
			t_last = now_s();
			if (t_first == 0)
				t_first = t_last;
		}
		if ((count > 0 && total_rx >= count) || live_in == 0)
			break;
		if (pass == 0 || period > 0 || duration > 0) {
			double t = now_s();

			if (duration > 0 && t - t0 >= duration)
				break;
			if (period > 0 && t - t_stat >= period) {
				fprintf(stderr, "iofwd: %.1f s\n", t - t0);
				print_stats(ports, n_ports, t - t_stat, false);
				t_stat = t;
			}
		}
		if (pass == 0) {
			struct pollfd pfd[MAX_PORTS];
			nfds_t nf = 0;

			for (size_t i = 0; i < n_ports; i++) {
				vpk_io_flush(ports[i].io);
				if (!busy && vpk_io_fd(ports[i].io) >= 0)
					pfd[nf++] = (struct pollfd){ .fd = vpk_io_fd(ports[i].io), .events = POLLIN };
			}
			if (nf > 0)
				(void)poll(pfd, nf, 1);
		}
	}
	for (int r = 0; r < 3; r++) {
		for (size_t i = 0; i < n_ports; i++)
			vpk_io_flush(ports[i].io);
		poll(NULL, 0, 5);
	}
	{
		double cpu = cpu_s() - c0, active = t_last - t_first;
		struct json j;

		if (vpk_opts.json) {
			json_init(&j, stdout);
			json_obj(&j, NULL);
			json_str(&j, "command", "iofwd");
			json_arr(&j, "ports");
			for (size_t i = 0; i < n_ports; i++) {
				struct vpk_io_stats s;

				vpk_io_stats_get(ports[i].io, &s);
				json_obj(&j, NULL);
				json_str(&j, "port", ports[i].spec);
				json_str(&j, "backend", vpk_io_type_name(ports[i].io));
				json_str(&j, "desc_impl", vpk_io_impl_name(ports[i].io));
				json_u64(&j, "rx", s.rx);
				json_u64(&j, "tx", s.tx);
				json_u64(&j, "rx_drop", s.rx_drop);
				json_u64(&j, "rx_nobuf", s.rx_nobuf);
				json_u64(&j, "tx_drop", s.tx_drop);
				json_bool(&j, "link_gone", ports[i].down && vpk_io_fd(ports[i].io) >= 0);
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
			print_stats(ports, n_ports, 0, true);
		for (size_t i = 0; i < n_ports; i++) {
			vpk_io_close(ports[i].io, NULL, 0);
			ports[i].io = NULL;
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
	for (size_t i = 0; i < n_ports; i++)
		vpk_io_close(ports[i].io, NULL, 0);
	vpk_pool_destroy(pool);
	return rc;
}
