/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk power [--json] -- COMMAND [ARGS...]
 * vpk power --probe [--runs N] [--json]
 *
 * Without --probe: like `perf stat`, count core cycles at each AVX power
 * licence level and the cycles throttled by a pending licence change
 * (CORE_POWER.* events; encodings per CPU model from intel/perfmon, see
 * research/power.md §4.2) while COMMAND runs. System-wide per CPU when
 * allowed (perf_event_paranoid <= 0 or CAP_PERFMON), else for the command's
 * own threads (inherit). Where the CPU exposes no PMU (CPUID.0AH version 0,
 * or perf_event_open(cycles) fails with ENOENT/EOPNOTSUPP, as in this
 * Firecracker VM) it says so in one line and exits 2: nothing is estimated.
 *
 * --probe: the counter-free probe, control vs burst trials (power_probe.c).
 *
 * Exit: 0 measured; 1 the command failed or could not be started; 2 bad
 * usage, no PMU, PMU not permitted, or no event table for this CPU model.
 */
#include <cpuid.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/json.h"
#include "power/power.h"
#include "common/tool.h"

#define NEV 5   /* cycles + up to four CORE_POWER events */

struct pmu_model {
	const char *arch;
	unsigned char models[8];        /* family 6 model numbers, 0-terminated */
	const char *ev_name[NEV - 1];
	uint16_t ev_config[NEV - 1];    /* umask << 8 | event */
	bool verified;                  /* encoding from the public perfmon tables */
};

static const struct pmu_model models[] = {
	{ "Skylake-SP/Cascade Lake", { 0x55 },
	  { "lvl0_turbo_license", "lvl1_turbo_license", "lvl2_turbo_license", "throttle" },
	  { 0x0728, 0x1828, 0x2028, 0x4028 }, true },
	{ "Ice Lake/Tiger Lake/Rocket Lake", { 0x6a, 0x6c, 0x7d, 0x7e, 0x8c, 0x8d, 0xa7 },
	  { "lvl0_turbo_license", "lvl1_turbo_license", "lvl2_turbo_license", NULL },
	  { 0x0728, 0x1828, 0x2028, 0 }, true },
	{ "Golden Cove class (Alder Lake P-core, Sapphire/Emerald/Granite Rapids)",
	  { 0x97, 0x9a, 0x8f, 0xcf, 0xad, 0xae },
	  { "license_1", "license_2", "license_3", NULL },
	  { 0x0228, 0x0428, 0x0828, 0 }, false },
};

static long
perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, -1, 0);
}

static unsigned
pmu_version(void)
{
	unsigned a, b, c, d;

	if (__get_cpuid_max(0, NULL) < 0xa)
		return 0;
	__cpuid_count(0xa, 0, a, b, c, d);
	return a & 0xff;
}

static unsigned
cpu_model(unsigned *family)
{
	unsigned a, b, c, d, fam, model;

	__cpuid(1, a, b, c, d);
	fam = (a >> 8) & 0xf;
	model = (a >> 4) & 0xf;
	if (fam == 6 || fam == 15)
		model |= ((a >> 16) & 0xf) << 4;
	if (fam == 15)
		fam += (a >> 20) & 0xff;
	*family = fam;
	return model;
}

static void
attr_init(struct perf_event_attr *a, uint32_t type, uint64_t config, bool task)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
	a->disabled = 1;
	a->exclude_hv = 1;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (task) {
		a->inherit = 1;
		a->enable_on_exec = 1;
		a->exclude_kernel = 1;
	}
}

static uint64_t
read_scaled(int fd)
{
	uint64_t v[3] = { 0, 0, 0 };

	if (fd < 0 || read(fd, v, sizeof(v)) != (ssize_t)sizeof(v) || v[2] == 0)
		return 0;
	return v[2] == v[1] ? v[0] : (uint64_t)((double)v[0] * (double)v[1] / (double)v[2]);
}

static int
measure(const struct pmu_model *m, char **cmd)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int (*fd)[NEV], pipefd[2], st = 0;
	bool task = false;
	pid_t child;
	struct perf_event_attr a;
	int rc = VPK_EXIT_OK;

	if (ncpu < 1)
		ncpu = 1;
	fd = calloc((size_t)ncpu, sizeof(*fd));
	if (fd == NULL || pipe(pipefd) != 0)
		return vpk_fail(VPK_EXIT_FAIL, "power: out of memory or pipes");
	child = fork();
	if (child < 0)
		return vpk_fail(VPK_EXIT_FAIL, "power: fork: %s", strerror(errno));
	if (child == 0) {
		char c;

		close(pipefd[1]);
		if (read(pipefd[0], &c, 1) != 1)
			_exit(127);
		execvp(cmd[0], cmd);
		fprintf(stderr, "vpk: power: %s: %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	close(pipefd[0]);
	/* System-wide per CPU if permitted, else the command's threads only. */
	for (long c = 0; c < ncpu; c++)
		for (int e = 0; e < NEV; e++)
			fd[c][e] = -1;
	for (long c = 0; c < ncpu && !task; c++)
		for (int e = 0; e < NEV; e++) {
			if (e > 0 && m->ev_name[e - 1] == NULL)
				continue;
			attr_init(&a, e ? PERF_TYPE_RAW : PERF_TYPE_HARDWARE,
				  e ? m->ev_config[e - 1] : PERF_COUNT_HW_CPU_CYCLES, false);
			fd[c][e] = (int)perf_open(&a, -1, (int)c);
			if (fd[c][e] < 0 && e == 0 && (errno == EACCES || errno == EPERM)) {
				task = true;
				break;
			}
		}
	if (task) {
		for (long c = 0; c < ncpu; c++)
			for (int e = 0; e < NEV; e++)
				if (fd[c][e] >= 0) {
					close(fd[c][e]);
					fd[c][e] = -1;
				}
		ncpu = 1;
		for (int e = 0; e < NEV; e++) {
			if (e > 0 && m->ev_name[e - 1] == NULL)
				continue;
			attr_init(&a, e ? PERF_TYPE_RAW : PERF_TYPE_HARDWARE,
				  e ? m->ev_config[e - 1] : PERF_COUNT_HW_CPU_CYCLES, true);
			fd[0][e] = (int)perf_open(&a, child, -1);
		}
	} else {
		for (long c = 0; c < ncpu; c++)
			for (int e = 0; e < NEV; e++)
				if (fd[c][e] >= 0)
					ioctl(fd[c][e], PERF_EVENT_IOC_ENABLE, 0);
	}
	if (fd[0][0] < 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		return vpk_fail(VPK_EXIT_USAGE, "power: cannot open the cycles counter: %s", strerror(errno));
	}
	if (write(pipefd[1], "x", 1) != 1)
		rc = VPK_EXIT_FAIL;
	close(pipefd[1]);
	waitpid(child, &st, 0);
	if (!task)
		for (long c = 0; c < ncpu; c++)
			for (int e = 0; e < NEV; e++)
				if (fd[c][e] >= 0)
					ioctl(fd[c][e], PERF_EVENT_IOC_DISABLE, 0);

	struct json j;
	if (vpk_opts.json) {
		json_init(&j, stdout);
		json_obj(&j, NULL);
		json_fields(&j, JS("cpu", m->arch), JB("encoding_verified", m->verified),
				JS("scope", task ? "command threads" : "system-wide per cpu"));
		json_arr(&j, "cpus");
	} else {
		printf("CORE_POWER events for %s%s; scope: %s\n", m->arch,
		       m->verified ? "" : " (encoding is a guess: not in the public perfmon tables)",
		       task ? "the command's threads (system-wide needs perf_event_paranoid <= 0)" : "system-wide, per CPU");
		printf("%-5s %16s", "cpu", "cycles");
		for (int e = 1; e < NEV; e++)
			if (m->ev_name[e - 1])
				printf(" %24s", m->ev_name[e - 1]);
		printf("\n");
	}
	for (long c = 0; c < ncpu; c++) {
		uint64_t cyc = read_scaled(fd[c][0]);

		if (vpk_opts.json) {
			json_obj(&j, NULL);
			json_i64(&j, "cpu", task ? -1 : c);
			json_u64(&j, "cycles", cyc);
		} else {
			if (task)
				printf("%-5s %16llu", "task", (unsigned long long)cyc);
			else
				printf("%-5ld %16llu", c, (unsigned long long)cyc);
		}
		for (int e = 1; e < NEV; e++) {
			uint64_t v;

			if (m->ev_name[e - 1] == NULL)
				continue;
			v = read_scaled(fd[c][e]);
			if (vpk_opts.json)
				json_u64(&j, m->ev_name[e - 1], v);
			else
				printf(" %14llu (%5.1f%%)", (unsigned long long)v, cyc ? 100.0 * (double)v / (double)cyc : 0.0);
		}
		if (vpk_opts.json)
			json_end(&j);
		else
			printf("\n");
	}
	if (vpk_opts.json) {
		json_end(&j);
		json_end(&j);
		json_done(&j);
	}
	for (long c = 0; c < ncpu; c++)
		for (int e = 0; e < NEV; e++)
			if (fd[c][e] >= 0)
				close(fd[c][e]);
	free(fd);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		rc = vpk_fail(VPK_EXIT_FAIL, "power: %s did not exit cleanly (status 0x%x)", cmd[0], st);
	return rc;
}

static int
pmu_mode(char **cmd)
{
	struct perf_event_attr a;
	unsigned ver = pmu_version(), family, model = cpu_model(&family);
	long fd;
	int err;

	attr_init(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, true);
	a.enable_on_exec = 0;
	a.inherit = 0;
	fd = perf_open(&a, 0, -1);
	err = fd < 0 ? errno : 0;
	if (fd >= 0)
		close((int)fd);
	if (ver == 0 || err == ENOENT || err == EOPNOTSUPP || err == ENODEV)
		return vpk_fail(VPK_EXIT_USAGE,
				"power: no PMU on this machine (CPUID.0AH version %u, perf_event_open(cycles): %s): "
				"licence residency cannot be measured here; `vpk power --probe` is counter-free",
				ver, err ? strerror(err) : "ok");
	if (err == EACCES || err == EPERM)
		return vpk_fail(VPK_EXIT_USAGE,
				"power: PMU present but not permitted (%s): lower /proc/sys/kernel/perf_event_paranoid, "
				"grant CAP_PERFMON, or run as root", strerror(err));
	if (err != 0)
		return vpk_fail(VPK_EXIT_USAGE, "power: perf_event_open(cycles): %s", strerror(err));
	for (size_t i = 0; family == 6 && i < sizeof(models) / sizeof(models[0]); i++)
		for (size_t k = 0; k < sizeof(models[i].models) && models[i].models[k]; k++)
			if (models[i].models[k] == model)
				return cmd ? measure(&models[i], cmd)
					   : vpk_fail(VPK_EXIT_USAGE, "power: give a command: vpk power -- COMMAND [ARGS]");
	return vpk_fail(VPK_EXIT_USAGE, "power: no CORE_POWER event table for family %u model 0x%x", family, model);
}

static int
probe_mode(int runs)
{
	struct power_probe_cfg cfg = { .runs = runs, .rest_us = 6000, .burst_us = 50, .window_a_us = 20,
				       .window_b_us = 500 };
	struct power_probe_result r;
	struct json j;

	if (power_probe_run(&cfg, &r) != 0)
		return vpk_fail(VPK_EXIT_USAGE, "power: --runs must be 1..%d", POWER_PROBE_MAX_RUNS);
	if (vpk_opts.json) {
		json_init(&j, stdout);
		json_obj(&j, NULL);
		json_fields(&j, JI("cpu", r.cpu), JD("tsc_ghz", r.tsc_hz / 1e9),
				JD("imul_chain_ghz_at_rest", r.chain_ghz), JU("runs", (uint64_t)runs),
				JD("rest_us", cfg.rest_us), JD("burst_us", cfg.burst_us),
				JD("window_a_us", cfg.window_a_us), JD("window_b_us", cfg.window_b_us));
		json_arr(&j, "bursts");
		for (int k = 0; k < POWER_PROBE_KINDS; k++) {
			const struct power_probe_kind *o = &r.kind[k];

			json_obj(&j, NULL);
			json_fields(&j, JS("kind", o->name), JS("instructions", o->what), JB("ran", o->ran));
			if (!o->ran) {
				json_str(&j, "why", o->why);
			} else {
				json_fields(&j, JD("a_median", o->a_median), JD("a_min", o->a_min),
						JD("a_max", o->a_max), JD("b_median", o->b_median),
						JD("b_min", o->b_min), JD("b_max", o->b_max));
			}
			json_end(&j);
		}
		json_end(&j);
		json_end(&j);
		json_done(&j);
		return VPK_EXIT_OK;
	}
	printf("counter-free probe on cpu %d: speed of a scalar imul chain after a %.0f us burst, relative to after\n"
	       "a %.0f us scalar spin (1.000 = no slowdown; < 1 = slower), %d runs, %.0f us rest before each trial;\n"
	       "window A = first %.0f us, window B = next %.0f us. TSC %.3f GHz; imul chain at rest %.2f GHz.\n",
	       r.cpu, cfg.burst_us, cfg.burst_us, runs, cfg.rest_us, cfg.window_a_us, cfg.window_b_us,
	       r.tsc_hz / 1e9, r.chain_ghz);
	printf("%-10s %-22s %-27s %-27s\n", "burst", "instructions", "A median (min..max)", "B median (min..max)");
	for (int k = 0; k < POWER_PROBE_KINDS; k++) {
		const struct power_probe_kind *o = &r.kind[k];

		if (!o->ran) {
			printf("%-10s %-22s not run: %s\n", o->name, o->what, o->why);
			continue;
		}
		printf("%-10s %-22s %.3f (%.3f..%.3f)        %.3f (%.3f..%.3f)\n", o->name, o->what, o->a_median,
		       o->a_min, o->a_max, o->b_median, o->b_min, o->b_max);
	}
	for (int k = 0; k < POWER_PROBE_KINDS; k++)
		if (r.kind[k].ran && (r.kind[k].b_median < 0.97 || r.kind[k].a_median < 0.97)) {
			printf("verdict: scalar code runs >3%% slower after wide bursts here: a licence penalty is visible\n");
			return VPK_EXIT_OK;
		}
	printf("verdict: no slowdown above 3%% after wide bursts on this core (in a VM the host may hide it)\n");
	return VPK_EXIT_OK;
}

static int
cmd_power(int argc, char **argv)
{
	bool probe = false;
	int runs = 15;
	char **cmd = NULL;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--probe") == 0) {
			probe = true;
		} else if (strncmp(argv[i], "--runs", 6) == 0 && (argv[i][6] == '=' || argv[i][6] == '\0')) {
			const char *v = argv[i][6] == '=' ? argv[i] + 7 : i + 1 < argc ? argv[++i] : "";
			unsigned n;

			if (!vpk_opt_uint("power: --runs", v, 1, POWER_PROBE_MAX_RUNS, &n))
				return VPK_EXIT_USAGE;
			runs = (int)n;
		} else if (strcmp(argv[i], "--") == 0) {
			if (i + 1 < argc)
				cmd = argv + i + 1;
			break;
		} else if (argv[i][0] != '-') {
			cmd = argv + i;
			break;
		} else {
			return vpk_fail(VPK_EXIT_USAGE,
					"usage: vpk power [--json] COMMAND [ARGS] | vpk power --probe [--runs N] [--json]");
		}
	}
	if (probe)
		return cmd ? vpk_fail(VPK_EXIT_USAGE, "power: --probe takes no command") : probe_mode(runs);
	return pmu_mode(cmd);
}

VPK_CMD(power, "power", "AVX licence-level cycles while a command runs (PMU), or --probe without counters", cmd_power);
