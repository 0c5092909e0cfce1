/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk fwd: the forwarder (fwd/fwd.h) from the command line:
 * configuration file or stdin, pcap interfaces, VPP-style `show runtime`,
 * `show errors`, `show node`, packet trace, per-node forced variants, and
 * `--demo`, which needs nothing prepared (fwd_demo.c).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fwd/fwd.h"
#include "fwd/fwd_cli.h"
#include "bench.h"
#include "fwd/fwd_show.h"
#include "common/json.h"
#include "common/tool.h"
#include "io/io_dpdk.h"

static int cmd_fwd(int argc, char **argv);
VPK_CMD(fwd, "fwd", "the forwarder: pcap interfaces, config commands, show runtime/errors/node, --demo", cmd_fwd);

static void
usage(FILE *o)
{
	fprintf(o,
		"usage: vpk fwd [--config FILE|-] [--in IF=FILE.pcap [--loop[=N]]] [--out IF=FILE.pcap]\n"
		"               [--show-runtime] [--show-errors] [--show-node NODE] [--trace N]\n"
		"               [--node-variant NODE=VARIANT] [--workers N] [--fib4 dir|bm16] [--json]\n"
		"               [--wide-cores CPUS [--wide-nodes N1,N2] [--wide-ring FRAMES]]\n"
		"               [--cli | --cli-socket PATH]   (control socket for vpk ctl; default %s)\n"
		"       vpk fwd --l3fwd-acl --rule_ipv4 FILE [--rule_ipv6 FILE] [--alg=ALG] --in ... --out ...\n"
		"       vpk fwd --iface IF[=DEV] ... [--io af_packet|af_xdp] [--duration S] [--count N] (live, or --in with --loop)\n"
		"               [--stats-period S]  (live: port counters per queue on stderr every S seconds)\n"
		"               [--eal 'EAL ARGS']  (start DPDK's EAL: 'interface NAME dpdk PCI|VDEV-ARGS' ports)\n"
		"       vpk fwd --demo [--packets N] [--routes N | --routes-file F] [--rules N] [--flows N] [--fib4 dir|bm16] [--json]\n"
		"config commands (one per line; see docs/forwarder.md):\n"
		"  interface NAME [mac MAC] [in FILE [loop [N]]] [out FILE] | interface NAME live DEV [io af_packet|af_xdp]\n"
		"    [io af_xdp queues N|all xdp-mode zc|copy|auto] | interface NAME dpdk PCI|VDEV-ARGS [queues N]\n"
		"    [promisc on|off] [multicast MAC] | interface PORT.VID[.VID] [tpid 0x8100|0x88a8]\n"
		"  run-limit [seconds S] [packets N] | stats-period S | dpdk-eal ARG...\n"
		"  neighbor ID MAC dev IFACE | neighbor del ID\n"
		"  route add PREFIX/LEN via ID | route del PREFIX/LEN\n"
		"  acl load FILE [ipv6] | acl fragments portless|drop\n"
		"  show runtime | show errors | show node NAME\n"
		"  linux-sync [netns NAME] [table N]\n", FWD_CLI_DEFAULT_SOCKET);
}

/* "NAME=VALUE" -> "interface NAME in|out VALUE[ SUFFIX]" */
static int
io_option(struct vpk_fwd *f, const char *opt, const char *dir, const char *suffix)
{
	const char *eq = strchr(opt, '=');
	char line[1100], err[256];
	int rc;

	if (eq == NULL || eq == opt)
		return vpk_fail(VPK_EXIT_USAGE, "fwd: --%s=%s: want INTERFACE=FILE.pcap", dir, opt);
	snprintf(line, sizeof(line), "interface %.*s %s %s%s", (int)(eq - opt), opt, dir, eq + 1, suffix);
	rc = vpk_fwd_exec(f, line, err, sizeof(err));
	if (rc != 0)
		return vpk_fail(VPK_EXIT_USAGE, "fwd: --%s=%s: %s", dir, opt, err);
	return 0;
}


static struct vpk_fwd *live_fwd;
static volatile sig_atomic_t got_signal;

static void
on_signal(int sig)
{
	(void)sig;
	got_signal = 1;
	vpk_fwd_stop(live_fwd);
}

/* A router stays up for `vpk ctl` until SIGINT / SIGTERM. */
static void
serve_until_signal(void)
{
	/* Not pause(): the signal may be taken by another thread. */
	while (!got_signal)
		nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 }, NULL);
}

static int
cmd_fwd(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "in", required_argument, NULL, 'i' },
		{ "out", required_argument, NULL, 'o' },
		{ "show-runtime", no_argument, NULL, 'R' },
		{ "show-errors", no_argument, NULL, 'E' },
		{ "show-node", required_argument, NULL, 'N' },
		{ "trace", required_argument, NULL, 't' },
		{ "node-variant", required_argument, NULL, 'V' },
		{ "demo", no_argument, NULL, 'D' },
		{ "l3fwd-acl", no_argument, NULL, 'L' },
		{ "workers", required_argument, NULL, 'W' },
		{ "wide-cores", required_argument, NULL, 'K' },
		{ "wide-nodes", required_argument, NULL, 'X' },
		{ "wide-ring", required_argument, NULL, 'G' },
		{ "rule_ipv4", required_argument, NULL, '4' },
		{ "rule_ipv6", required_argument, NULL, '6' },
		{ "alg", required_argument, NULL, 'A' },
		{ "iface", required_argument, NULL, 'I' },
		{ "io", required_argument, NULL, 'T' },
		{ "duration", required_argument, NULL, 'U' },
		{ "fib4", required_argument, NULL, 'F' },
		{ "count", required_argument, NULL, 'C' },
		{ "loop", optional_argument, NULL, 'P' },
		{ "cli", no_argument, NULL, 'S' },
		{ "cli-socket", required_argument, NULL, 's' },
		{ "stats-period", required_argument, NULL, 0x102 },
		{ "eal", required_argument, NULL, 0x101 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL, *ins[64], *outs[64], *show_nodes[16], *rule4 = NULL, *rule6 = NULL;
	const char *ifaces[64], *io_type = NULL, *duration = NULL, *count = NULL, *cli_path = NULL;
	const char *stats_period = NULL, *eal = NULL;
	struct fwd_cli *cli = NULL;
	size_t n_in = 0, n_out = 0, n_show_nodes = 0, n_if = 0;
	struct vpk_node_conf variants[32];
	size_t n_var = 0;
	char loop[32] = "";
	bool show_rt = false, show_err = false;
	struct vpk_fwd_conf conf = { .isa = vpk_opts.isa };
	struct vpk_fwd *f;
	struct vpk_fwd_run_stats st;
	char err[512];
	int c, rc;

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--demo") == 0)
			return fwd_demo(argc, argv);
	optind = 1;
	opterr = 0;     /* one line of our own instead of getopt's */
	while ((c = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			config = optarg;
			break;
		case 'i':
		case 'o':
			if ((c == 'i' ? n_in : n_out) == 64)
				return vpk_fail(VPK_EXIT_USAGE, "fwd: too many --in/--out");
			if (c == 'i')
				ins[n_in++] = optarg;
			else
				outs[n_out++] = optarg;
			break;
		case 'R':
			show_rt = true;
			break;
		case 'E':
			show_err = true;
			break;
		case 'N':
			if (n_show_nodes == 16)
				return vpk_fail(VPK_EXIT_USAGE, "fwd: too many --show-node");
			show_nodes[n_show_nodes++] = optarg;
			break;
		case 't':
			if (!vpk_opt_uint("fwd: --trace (packets)", optarg, 0, 100000, &conf.trace))
				return VPK_EXIT_USAGE;
			break;
		case 'V': {
			char *eq = strchr(optarg, '=');

			if (eq == NULL || eq == optarg || eq[1] == '\0' || n_var == 32)
				return vpk_fail(VPK_EXIT_USAGE, "fwd: --node-variant=%s: want NODE=VARIANT", optarg);
			*eq = '\0';
			if (vpk_node_find(optarg) == NULL)
				return vpk_fail(VPK_EXIT_USAGE, "fwd: --node-variant: no node '%s'", optarg);
			variants[n_var++] = (struct vpk_node_conf){ .node = optarg, .variant = eq + 1 };
			break;
		}
		case 'L':
			conf.l3fwd_acl = true;
			break;
		case 'K':
			conf.wide_cores = optarg;
			break;
		case 'X':
			conf.wide_nodes = optarg;
			break;
		case 'G':
			if (!vpk_opt_uint("fwd: --wide-ring (frames)", optarg, 1, 4096, &conf.wide_ring))
				return VPK_EXIT_USAGE;
			break;
		case 'W':
			if (!vpk_opt_uint("fwd: --workers", optarg, 1, 64, &conf.workers))
				return VPK_EXIT_USAGE;
			break;
		case '4':
			rule4 = optarg;
			break;
		case '6':
			rule6 = optarg;
			break;
		case 'A':
			/* dpdk-test-acl / l3fwd names: scalar sse avx2 avx512x16 avx512x32 */
			conf.acl_impl = optarg;
			break;
		case 'I':
			if (n_if == 64)
				return vpk_fail(VPK_EXIT_USAGE, "fwd: too many --iface");
			ifaces[n_if++] = optarg;
			break;
		case 'T':
			io_type = optarg;
			break;
		case 'U':
			duration = optarg;
			break;
		case 'F':
			if (fwd_fib4_type(optarg, &conf.fib4_type) != 0)
				return vpk_fail(VPK_EXIT_USAGE, "fwd: --fib4 %s: 'dir' or 'bm16'", optarg);
			break;
		case 'C':
			count = optarg;
			break;
		case 'P':       /* --loop[=N]: every --in replayed from memory, N passes (none: until --count/--duration) */
			snprintf(loop, sizeof(loop), " loop%s%.20s", optarg ? " " : "", optarg ? optarg : "");
			break;
		case 'S':
			cli_path = FWD_CLI_DEFAULT_SOCKET;
			break;
		case 's':
			cli_path = optarg;
			break;
		case 0x102:
			stats_period = optarg;
			break;
		case 0x101:
			eal = optarg;
			break;
		case 'h':
			usage(stdout);
			return VPK_EXIT_OK;
		default:
			return vpk_fail(VPK_EXIT_USAGE, "fwd: %s: unknown option or missing value (vpk fwd --help)",
					argv[optind - 1]);
		}
	}
	if (optind < argc)
		return vpk_fail(VPK_EXIT_USAGE, "fwd: unexpected argument '%s'", argv[optind]);
	if (eal != NULL && io_dpdk_init(eal, err, sizeof(err)) != 0)
		return vpk_fail(VPK_EXIT_USAGE, "fwd: --eal: %s", err);
	conf.node_variants = variants;
	conf.n_node_variants = n_var;
	rc = vpk_fwd_create(&conf, &f);
	if (rc != 0 && conf.acl_impl != NULL)
		return vpk_fail(VPK_EXIT_USAGE, "fwd: --alg=%s: %s", conf.acl_impl,
				rc == -ENOTSUP ? "that ACL variant cannot run here (CPU or cap)"
					       : "unknown (scalar, sse, avx2, avx512x16, avx512x32)");
	if (rc != 0)
		return vpk_fail(rc == -ENOTSUP ? VPK_EXIT_USAGE : VPK_EXIT_FAIL, "fwd: cannot create the forwarder: %s",
				strerror(-rc));
	if (config != NULL) {
		FILE *in = strcmp(config, "-") == 0 ? stdin : fopen(config, "r");

		if (in == NULL) {
			vpk_fwd_destroy(f);
			return vpk_fail(VPK_EXIT_USAGE, "fwd: %s: %s", config, strerror(errno));
		}
		rc = vpk_fwd_exec_file(f, in, strcmp(config, "-") == 0 ? "<stdin>" : config, err, sizeof(err));
		if (in != stdin)
			fclose(in);
		if (rc != 0) {
			vpk_fwd_destroy(f);
			return vpk_fail(VPK_EXIT_USAGE, "fwd: %s", err);
		}
	}
	for (size_t i = 0; i < n_in; i++)
		if ((rc = io_option(f, ins[i], "in", loop)) != 0)
			goto out;
	for (size_t i = 0; i < n_out; i++)
		if ((rc = io_option(f, outs[i], "out", "")) != 0)
			goto out;
	/* --iface IF[=DEV]: "interface IF live DEV [io TYPE]"; --duration/--count: "run-limit" */
	for (size_t i = 0; i < n_if + 2; i++) {
		char line[256];
		const char *eq = i < n_if ? strchr(ifaces[i], '=') : NULL;

		if (i < n_if)
			snprintf(line, sizeof(line), "interface %.*s live %s%s%s", eq ? (int)(eq - ifaces[i]) : 64,
				 ifaces[i], eq ? eq + 1 : ifaces[i], io_type ? " io " : "", io_type ? io_type : "");
		else if (i == n_if && (duration != NULL || count != NULL))
			snprintf(line, sizeof(line), "run-limit%s%s%s%s", duration ? " seconds " : "",
				 duration ? duration : "", count ? " packets " : "", count ? count : "");
		else if (i == n_if + 1 && stats_period != NULL)
			snprintf(line, sizeof(line), "stats-period %s", stats_period);
		else if (i == n_if)
			continue;
		else
			break;
		rc = vpk_fwd_exec(f, line, err, sizeof(err));
		if (rc != 0) {
			rc = vpk_fail(VPK_EXIT_USAGE, "fwd: %s: %s", line, err);
			goto out;
		}
	}
	if (conf.l3fwd_acl) {
		/* l3fwd's ports are the interfaces; port P's next hop is neighbor P+1 with
		 * l3fwd's default destination MAC 02:00:00:00:00:PP, unless configured. */
		for (size_t i = 0; i < vpk_fwd_n_ifs(f); i++) {
			char line[128];

			snprintf(line, sizeof(line), "neighbor %zu 02:00:00:00:00:%02zx dev %zu", i + 1, i & 0xff, i);
			if (!vpk_fwd_has_neighbor(f, (uint32_t)(i + 1)) &&
			    vpk_fwd_exec(f, line, err, sizeof(err)) != 0) {
				rc = vpk_fail(VPK_EXIT_FAIL, "fwd: %s", err);
				goto out;
			}
		}
	}
	for (int v6 = 0; v6 < 2; v6++) {
		const char *path = v6 ? rule6 : rule4;
		char line[1100];

		if (path == NULL)
			continue;
		snprintf(line, sizeof(line), "acl load %s%s", path, v6 ? " ipv6" : "");
		rc = vpk_fwd_exec(f, line, err, sizeof(err));
		if (rc != 0) {
			rc = vpk_fail(rc == -ENOTSUP ? VPK_EXIT_USAGE : VPK_EXIT_USAGE, "fwd: %s", err);
			goto out;
		}
	}
	if (eal == NULL && vpk_fwd_dpdk_eal(f) != NULL) {
		/* `dpdk-eal ARGS` in the configuration: start the EAL now. */
		eal = vpk_fwd_dpdk_eal(f);
		if (io_dpdk_init(eal, err, sizeof(err)) != 0) {
			rc = vpk_fail(VPK_EXIT_USAGE, "fwd: dpdk-eal: %s", err);
			eal = NULL;
			goto out;
		}
	}
	live_fwd = f;
	got_signal = 0;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (cli_path != NULL) {
		rc = fwd_cli_prepare(f, err, sizeof(err));
		if (rc == 0)
			rc = fwd_cli_start(f, cli_path, &cli, err, sizeof(err));
		if (rc != 0) {
			rc = vpk_fail(rc == -EADDRINUSE || rc == -ENOTSUP ? VPK_EXIT_USAGE : VPK_EXIT_FAIL, "fwd: %s", err);
			goto out;
		}
	}
	if (!fwd_cli_has_input(f) && (cli != NULL || fwd_cli_linux_sync_on(f))) {
		/* Control plane only (routes from the kernel, vpk ctl): nothing to forward. */
		fprintf(stderr, "vpk: fwd: no input interface: control plane only, until SIGINT/SIGTERM\n");
		serve_until_signal();
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		rc = VPK_EXIT_OK;
		goto out;
	}
	rc = vpk_fwd_run(f, &st, err, sizeof(err));
	if ((rc == -EPERM || rc == -ENOTSUP) && io_type != NULL && strcmp(io_type, "af_xdp") == 0 && n_if > 0) {
		/* AF_XDP refused (no bpf() here, or built without libxdp): AF_PACKET instead. */
		fprintf(stderr, "vpk: fwd: %s; using af_packet instead\n", err);
		for (size_t i = 0; i < n_if; i++) {
			char line[128];
			const char *eq = strchr(ifaces[i], '=');

			snprintf(line, sizeof(line), "interface %.*s io af_packet", eq ? (int)(eq - ifaces[i]) : 64,
				 ifaces[i]);
			vpk_fwd_exec(f, line, err, sizeof(err));
		}
		rc = vpk_fwd_run(f, &st, err, sizeof(err));
	}
	if (cli == NULL) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
	}
	if (rc != 0) {
		rc = vpk_fail(rc == -ENOTSUP || rc == -EINVAL || rc == -ENOENT || rc == -ENODEV ? VPK_EXIT_USAGE
											      : VPK_EXIT_FAIL,
			      "fwd: %s", err);
		goto out;
	}
	{
		struct fwd_show_opts so = { .runtime = show_rt, .errors = show_err,
					    .nodes = show_nodes, .n_nodes = n_show_nodes };
		const char *const *cfg_shows;
		size_t ncs = vpk_fwd_shows(f, &cfg_shows);

		fwd_show_add_config(&so, cfg_shows, ncs);
		if (vpk_opts.json)
			fwd_show_json(f, &st, &so, vpk_get_max_simd_bitwidth());
		else
			fwd_show_text(f, &st, &so);
	}
	if (vpk_fwd_bufs_in_use(f) != 0)
		rc = vpk_fail(VPK_EXIT_FAIL, "fwd: %u buffers still in use after the run (a leak)",
			      vpk_fwd_bufs_in_use(f));
	if (cli != NULL && !got_signal) {
		/* The inputs ended; the counters stay readable with vpk ctl until a signal. */
		fflush(stdout);
		serve_until_signal();
	}
out:
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	fwd_cli_stop(cli);
	vpk_fwd_destroy(f);
	if (eal != NULL)
		io_dpdk_fini();
	return rc;
}
