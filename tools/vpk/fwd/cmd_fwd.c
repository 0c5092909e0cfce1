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

/* The command line of `vpk fwd`, parsed. */
struct fwd_args {
	const char *config, *ins[64], *outs[64], *show_nodes[16], *rule[2];
	const char *ifaces[64], *io_type, *duration, *count, *cli_path, *stats_period, *eal;
	size_t n_in, n_out, n_show_nodes, n_if, n_var;
	struct vpk_node_conf variants[32];
	char loop[32];
	bool show_rt, show_err;
	struct vpk_fwd_conf conf;
};

/* 0 to go on, -1 after --help, else an exit code after a message. */
static int
parse_args(int argc, char **argv, struct fwd_args *a)
{
	VPK_LONGOPTS(opts, "config=c in=i out=o show-runtime/R show-errors/E show-node=N trace=t "
			   "node-variant=V demo/D l3fwd-acl/L workers=W wide-cores=K wide-nodes=X "
			   "wide-ring=G rule_ipv4=4 rule_ipv6=6 alg=A iface=I io=T duration=U fib4=F "
			   "count=C loop?P cli/S cli-socket=s stats-period=0x102 eal=0x101 help/h");
	int c;

	optind = 1;
	opterr = 0;     /* one line of our own instead of getopt's */
	while ((c = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c': a->config = optarg; break;
		case 'i':
		case 'o':
			if ((c == 'i' ? a->n_in : a->n_out) == 64)
				return vpk_fail(VPK_EXIT_USAGE, "fwd: too many --in/--out");
			if (c == 'i')
				a->ins[a->n_in++] = optarg;
			else
				a->outs[a->n_out++] = optarg;
			break;
		case 'R': a->show_rt = true; break;
		case 'E': a->show_err = true; break;
		case 'N':
			if (a->n_show_nodes == 16)
				return vpk_fail(VPK_EXIT_USAGE, "fwd: too many --show-node");
			a->show_nodes[a->n_show_nodes++] = optarg;
			break;
		case 't':
			if (!vpk_opt_uint("fwd: --trace (packets)", optarg, 0, 100000, &a->conf.trace))
				return VPK_EXIT_USAGE;
			break;
		case 'V': {
			char *eq = strchr(optarg, '=');

			if (eq == NULL || eq == optarg || eq[1] == '\0' || a->n_var == 32)
				return vpk_fail(VPK_EXIT_USAGE, "fwd: --node-variant=%s: want NODE=VARIANT", optarg);
			*eq = '\0';
			if (vpk_node_find(optarg) == NULL)
				return vpk_fail(VPK_EXIT_USAGE, "fwd: --node-variant: no node '%s'", optarg);
			a->variants[a->n_var++] = (struct vpk_node_conf){ .node = optarg, .variant = eq + 1 };
			break;
		}
		case 'L': a->conf.l3fwd_acl = true; break;
		case 'K': a->conf.wide_cores = optarg; break;
		case 'X': a->conf.wide_nodes = optarg; break;
		case 'G':
			if (!vpk_opt_uint("fwd: --wide-ring (frames)", optarg, 1, 4096, &a->conf.wide_ring))
				return VPK_EXIT_USAGE;
			break;
		case 'W':
			if (!vpk_opt_uint("fwd: --workers", optarg, 1, 64, &a->conf.workers))
				return VPK_EXIT_USAGE;
			break;
		case '4': a->rule[0] = optarg; break;
		case '6': a->rule[1] = optarg; break;
		case 'A': a->conf.acl_impl = optarg; break;     /* dpdk-test-acl / l3fwd names */
		case 'I':
			if (a->n_if == 64)
				return vpk_fail(VPK_EXIT_USAGE, "fwd: too many --iface");
			a->ifaces[a->n_if++] = optarg;
			break;
		case 'T': a->io_type = optarg; break;
		case 'U': a->duration = optarg; break;
		case 'F':
			if (fwd_fib4_type(optarg, &a->conf.fib4_type) != 0)
				return vpk_fail(VPK_EXIT_USAGE, "fwd: --fib4 %s: 'dir' or 'bm16'", optarg);
			break;
		case 'C': a->count = optarg; break;
		case 'P':       /* --loop[=N]: every --in replayed from memory, N passes (none: until --count/--duration) */
			snprintf(a->loop, sizeof(a->loop), " loop%s%.20s", optarg ? " " : "", optarg ? optarg : "");
			break;
		case 'S': a->cli_path = FWD_CLI_DEFAULT_SOCKET; break;
		case 's': a->cli_path = optarg; break;
		case 0x102: a->stats_period = optarg; break;
		case 0x101: a->eal = optarg; break;
		case 'h': usage(stdout); return -1;
		default:
			return vpk_fail(VPK_EXIT_USAGE, "fwd: %s: unknown option or missing value (vpk fwd --help)",
					argv[optind - 1]);
		}
	}
	if (optind < argc)
		return vpk_fail(VPK_EXIT_USAGE, "fwd: unexpected argument '%s'", argv[optind]);
	return 0;
}

/* One configuration line made from an option: 0, or an exit code after a message (naming the
 * line where the option's own words are not in the error already). */
static int
exec_line(struct vpk_fwd *f, const char *line, int code, bool name_line)
{
	char err[512];
	int rc = vpk_fwd_exec(f, line, err, sizeof(err));

	if (rc == 0)
		return 0;
	return name_line ? vpk_fail(code, "fwd: %s: %s", line, err) : vpk_fail(code, "fwd: %s", err);
}

/* The options that are configuration lines, after the --config file's. 0 or an exit code. */
static int
configure(struct vpk_fwd *f, struct fwd_args *a)
{
	char line[1100];
	int rc;

	for (size_t i = 0; i < a->n_in; i++)
		if ((rc = io_option(f, a->ins[i], "in", a->loop)) != 0)
			return rc;
	for (size_t i = 0; i < a->n_out; i++)
		if ((rc = io_option(f, a->outs[i], "out", "")) != 0)
			return rc;
	/* --iface IF[=DEV]: "interface IF live DEV [io TYPE]" */
	for (size_t i = 0; i < a->n_if; i++) {
		const char *eq = strchr(a->ifaces[i], '=');

		snprintf(line, sizeof(line), "interface %.*s live %s%s%s", eq ? (int)(eq - a->ifaces[i]) : 64,
			 a->ifaces[i], eq ? eq + 1 : a->ifaces[i], a->io_type ? " io " : "", a->io_type ? a->io_type : "");
		if ((rc = exec_line(f, line, VPK_EXIT_USAGE, true)) != 0)
			return rc;
	}
	if (a->duration != NULL || a->count != NULL) {
		snprintf(line, sizeof(line), "run-limit%s%s%s%s", a->duration ? " seconds " : "",
			 a->duration ? a->duration : "", a->count ? " packets " : "", a->count ? a->count : "");
		if ((rc = exec_line(f, line, VPK_EXIT_USAGE, true)) != 0)
			return rc;
	}
	if (a->stats_period != NULL) {
		snprintf(line, sizeof(line), "stats-period %s", a->stats_period);
		if ((rc = exec_line(f, line, VPK_EXIT_USAGE, true)) != 0)
			return rc;
	}
	/* l3fwd's ports are the interfaces; port P's next hop is neighbor P+1 with
	 * l3fwd's default destination MAC 02:00:00:00:00:PP, unless configured. */
	for (size_t i = 0; a->conf.l3fwd_acl && i < vpk_fwd_n_ifs(f); i++) {
		snprintf(line, sizeof(line), "neighbor %zu 02:00:00:00:00:%02zx dev %zu", i + 1, i & 0xff, i);
		if (!vpk_fwd_has_neighbor(f, (uint32_t)(i + 1)) && (rc = exec_line(f, line, VPK_EXIT_FAIL, false)) != 0)
			return rc;
	}
	for (int v6 = 0; v6 < 2; v6++) {
		if (a->rule[v6] == NULL)
			continue;
		snprintf(line, sizeof(line), "acl load %s%s", a->rule[v6], v6 ? " ipv6" : "");
		if ((rc = exec_line(f, line, VPK_EXIT_USAGE, false)) != 0)
			return rc;
	}
	return 0;
}

/* The forwarder from the options and the --config file; NULL after a message (*code). */
static struct vpk_fwd *
make_fwd(struct fwd_args *a, int *code)
{
	struct vpk_fwd *f;
	char err[512];
	int rc;

	a->conf.node_variants = a->variants;
	a->conf.n_node_variants = a->n_var;
	rc = vpk_fwd_create(&a->conf, &f);
	if (rc != 0) {
		*code = a->conf.acl_impl != NULL
			? vpk_fail(VPK_EXIT_USAGE, "fwd: --alg=%s: %s", a->conf.acl_impl,
				   rc == -ENOTSUP ? "that ACL variant cannot run here (CPU or cap)"
						  : "unknown (scalar, sse, avx2, avx512x16, avx512x32)")
			: vpk_fail(rc == -ENOTSUP ? VPK_EXIT_USAGE : VPK_EXIT_FAIL,
				   "fwd: cannot create the forwarder: %s", strerror(-rc));
		return NULL;
	}
	if (a->config != NULL) {
		bool std = strcmp(a->config, "-") == 0;
		FILE *in = std ? stdin : fopen(a->config, "r");

		if (in == NULL) {
			*code = vpk_fail(VPK_EXIT_USAGE, "fwd: %s: %s", a->config, strerror(errno));
			vpk_fwd_destroy(f);
			return NULL;
		}
		rc = vpk_fwd_exec_file(f, in, std ? "<stdin>" : a->config, err, sizeof(err));
		if (!std)
			fclose(in);
		if (rc != 0) {
			*code = vpk_fail(VPK_EXIT_USAGE, "fwd: %s", err);
			vpk_fwd_destroy(f);
			return NULL;
		}
	}
	return f;
}

/* Run; AF_XDP refused (no bpf() here, or built without libxdp) falls back to AF_PACKET. */
static int
run(struct vpk_fwd *f, const struct fwd_args *a, struct vpk_fwd_run_stats *st, char *err, size_t len)
{
	int rc = vpk_fwd_run(f, st, err, len);

	if ((rc == -EPERM || rc == -ENOTSUP) && a->io_type != NULL && strcmp(a->io_type, "af_xdp") == 0 &&
	    a->n_if > 0) {
		fprintf(stderr, "vpk: fwd: %s; using af_packet instead\n", err);
		for (size_t i = 0; i < a->n_if; i++) {
			char line[128];
			const char *eq = strchr(a->ifaces[i], '=');

			snprintf(line, sizeof(line), "interface %.*s io af_packet", eq ? (int)(eq - a->ifaces[i]) : 64,
				 a->ifaces[i]);
			vpk_fwd_exec(f, line, err, len);
		}
		rc = vpk_fwd_run(f, st, err, len);
	}
	return rc;
}

static void
report(struct vpk_fwd *f, const struct fwd_args *a, const struct vpk_fwd_run_stats *st)
{
	struct fwd_show_opts so = { .runtime = a->show_rt, .errors = a->show_err,
				    .nodes = a->show_nodes, .n_nodes = a->n_show_nodes };
	const char *const *cfg_shows;
	size_t ncs = vpk_fwd_shows(f, &cfg_shows);

	fwd_show_add_config(&so, cfg_shows, ncs);
	if (vpk_opts.json)
		fwd_show_json(f, st, &so, vpk_get_max_simd_bitwidth());
	else
		fwd_show_text(f, st, &so);
}

static int
cmd_fwd(int argc, char **argv)
{
	struct fwd_args *a;
	struct fwd_cli *cli = NULL;
	struct vpk_fwd *f;
	struct vpk_fwd_run_stats st;
	const char *eal;
	char err[512];
	int rc;

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--demo") == 0)
			return fwd_demo(argc, argv);
	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return vpk_fail(VPK_EXIT_FAIL, "fwd: out of memory");
	a->conf.isa = vpk_opts.isa;
	rc = parse_args(argc, argv, a);
	if (rc != 0) {
		free(a);
		return rc < 0 ? VPK_EXIT_OK : rc;
	}
	eal = a->eal;
	if (eal != NULL && io_dpdk_init(eal, err, sizeof(err)) != 0) {
		free(a);
		return vpk_fail(VPK_EXIT_USAGE, "fwd: --eal: %s", err);
	}
	if ((f = make_fwd(a, &rc)) == NULL) {
		if (eal != NULL)
			io_dpdk_fini();
		free(a);
		return rc;
	}
	if ((rc = configure(f, a)) != 0)
		goto out;
	if (eal == NULL && vpk_fwd_dpdk_eal(f) != NULL) {
		/* `dpdk-eal ARGS` in the configuration: start the EAL now. */
		if (io_dpdk_init(vpk_fwd_dpdk_eal(f), err, sizeof(err)) != 0) {
			rc = vpk_fail(VPK_EXIT_USAGE, "fwd: dpdk-eal: %s", err);
			goto out;
		}
		eal = vpk_fwd_dpdk_eal(f);
	}
	live_fwd = f;
	got_signal = 0;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (a->cli_path != NULL) {
		rc = fwd_cli_prepare(f, err, sizeof(err));
		if (rc == 0)
			rc = fwd_cli_start(f, a->cli_path, &cli, err, sizeof(err));
		if (rc != 0) {
			rc = vpk_fail(rc == -EADDRINUSE || rc == -ENOTSUP ? VPK_EXIT_USAGE : VPK_EXIT_FAIL, "fwd: %s", err);
			goto out;
		}
	}
	if (!fwd_cli_has_input(f) && (cli != NULL || fwd_cli_linux_sync_on(f))) {
		/* Control plane only (routes from the kernel, vpk ctl): nothing to forward. */
		fprintf(stderr, "vpk: fwd: no input interface: control plane only, until SIGINT/SIGTERM\n");
		serve_until_signal();
		rc = VPK_EXIT_OK;
		goto out;
	}
	rc = run(f, a, &st, err, sizeof(err));
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
	report(f, a, &st);
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
	free(a);
	return rc;
}
