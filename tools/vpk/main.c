/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk: one binary, many subcommands (see tool.h). This file removes the
 * global options from the command line, applies the cap and the forced ISA
 * level, and dispatches.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <vpk/version.h>

#include "common/tool.h"

struct vpk_tool_opts vpk_opts = { .isa = VPK_ISA_AUTO };

static int cmd_help(int argc, char **argv);
VPK_CMD(help, "help", "list the subcommands", cmd_help);

extern const struct vpk_cmd __start_vpk_cmds[];
extern const struct vpk_cmd __stop_vpk_cmds[];

int
vpk_fail(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("vpk: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: vpk [--max-simd-bitwidth=64|128|256|512] [--isa=NAME] [--json] COMMAND [ARGS]\n"
		   "       vpk --help | --version | COMMAND --help\n\n"
		   "vpk: the Vector Packet Kit's tool: forwarder, benchmarks, ACL and FIB checkers, scanner.\n\n"
		   "commands:\n");
	/* Sorted output without sorting the section: print in name order by selection. */
	const char *last = "";
	for (;;) {
		const struct vpk_cmd *best = NULL;

		for (const struct vpk_cmd *c = __start_vpk_cmds; c < __stop_vpk_cmds; c++)
			if (strcmp(c->name, last) > 0 && (best == NULL || strcmp(c->name, best->name) < 0))
				best = c;
		if (best == NULL)
			break;
		fprintf(f, "  %-14s %s\n", best->name, best->summary);
		last = best->name;
	}
	fprintf(f, "\nVPK_MAX_SIMD_BITWIDTH in the environment sets the cap too; `vpk info` explains the choice.\n");
}

static int
cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	usage(stdout);
	return VPK_EXIT_OK;
}

/*
 * `vpk COMMAND --help` succeeds for every command: the handler runs with
 * --help and its output (stdout and stderr) is captured; a handler that
 * rejects --help still printed its usage line, which is shown under the
 * command's summary without the complaint about --help itself.
 */
static int
cmd_help_of(const struct vpk_cmd *cmd, char **argv)
{
	FILE *tmp = tmpfile();
	int out, err, rc;
	char line[1024];

	if (tmp == NULL)
		return cmd->fn(2, argv);
	fflush(stdout);
	fflush(stderr);
	out = dup(STDOUT_FILENO);
	err = dup(STDERR_FILENO);
	dup2(fileno(tmp), STDOUT_FILENO);
	dup2(fileno(tmp), STDERR_FILENO);
	rc = cmd->fn(2, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(out, STDOUT_FILENO);
	dup2(err, STDERR_FILENO);
	close(out);
	close(err);
	if (rc != VPK_EXIT_OK)
		printf("vpk %s: %s\n", cmd->name, cmd->summary);
	rewind(tmp);
	while (fgets(line, sizeof(line), tmp) != NULL) {
		if (rc != VPK_EXIT_OK && (strstr(line, "'--help'") != NULL || strstr(line, "--help needs") != NULL))
			continue;
		fputs(rc != VPK_EXIT_OK && strncmp(line, "vpk: ", 5) == 0 ? line + 5 : line, stdout);
	}
	fclose(tmp);
	return VPK_EXIT_OK;
}

/* Take the global options out of argv; return the new argc or -1 on error. */
static int
strip_global_options(int argc, char **argv)
{
	int out = 1;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		bool is_cap = false, is_isa = false;

		if (strcmp(a, "--") == 0) {         /* the rest belongs to the subcommand */
			while (i < argc)
				argv[out++] = argv[i++];
			break;
		}
		if (strcmp(a, "--json") == 0) {
			vpk_opts.json = true;
			continue;
		}
		if (strncmp(a, "--max-simd-bitwidth", 19) == 0 && (a[19] == '=' || a[19] == '\0'))
			is_cap = true;
		else if (strncmp(a, "--isa", 5) == 0 && (a[5] == '=' || a[5] == '\0'))
			is_isa = true;
		if (!is_cap && !is_isa) {
			argv[out++] = argv[i];
			continue;
		}
		val = strchr(a, '=');
		if (val != NULL) {
			val++;
		} else if (i + 1 < argc) {
			val = argv[++i];
		} else {
			vpk_fail(0, "%s needs a value", a);
			return -1;
		}
		if (is_cap) {
			if (vpk_parse_simd_bitwidth(val, &vpk_opts.cap) != 0) {
				vpk_fail(0, "--max-simd-bitwidth=%s: must be one of 64, 128, 256, 512", val);
				return -1;
			}
			vpk_opts.cap_set = true;
		} else if (vpk_isa_from_name(val, &vpk_opts.isa) != 0) {
			vpk_fail(0, "--isa=%s: unknown ISA level (scalar, sse42, avx2, avx512, avx512icl, auto)", val);
			return -1;
		}
	}
	argv[out] = NULL;
	return out;
}

static int
apply_global_options(void)
{
	struct vpk_cap_info ci;

	vpk_get_cap_info(&ci);
	if (ci.env_error != 0)
		return vpk_fail(VPK_EXIT_USAGE, "VPK_MAX_SIMD_BITWIDTH=%s: must be one of 64, 128, 256, 512",
				ci.env_value);
	if (vpk_opts.cap_set) {
		int rc = vpk_set_max_simd_bitwidth(vpk_opts.cap);

		if (rc == -EPERM)
			return vpk_fail(VPK_EXIT_USAGE,
					"--max-simd-bitwidth=%u conflicts with VPK_MAX_SIMD_BITWIDTH=%s in the environment",
					vpk_opts.cap, ci.env_value);
		if (rc != 0)
			return vpk_fail(VPK_EXIT_USAGE, "--max-simd-bitwidth=%u: %s", vpk_opts.cap, strerror(-rc));
	}
	if (vpk_opts.isa != VPK_ISA_AUTO) {
		enum vpk_isa isa = vpk_opts.isa;

		if (!vpk_isa_compiled(isa))
			return vpk_fail(VPK_EXIT_USAGE, "--isa=%s: not compiled into this build of vpk",
					vpk_isa_name(isa));
		if (!vpk_isa_cpu_supported(isa) || !vpk_isa_os_supported(isa)) {
			struct vpk_impl probe = { vpk_isa_name(isa), isa, vpk_isa_bits(isa) };

			return vpk_fail(VPK_EXIT_USAGE, "--isa=%s: this machine cannot run it: %s",
					vpk_isa_name(isa), vpk_impl_why_not(&probe));
		}
	}
	return 0;
}

static const struct vpk_cmd *
find_cmd(int argc, char **argv, int *words)
{
	char two[128];

	if (argc >= 3) {
		snprintf(two, sizeof(two), "%s %s", argv[1], argv[2]);
		for (const struct vpk_cmd *c = __start_vpk_cmds; c < __stop_vpk_cmds; c++)
			if (strcmp(c->name, two) == 0) {
				*words = 2;
				return c;
			}
	}
	for (const struct vpk_cmd *c = __start_vpk_cmds; c < __stop_vpk_cmds; c++)
		if (strcmp(c->name, argv[1]) == 0) {
			*words = 1;
			return c;
		}
	return NULL;
}

int
main(int argc, char **argv)
{
	const struct vpk_cmd *cmd;
	int words = 1, rc;

	argc = strip_global_options(argc, argv);
	if (argc < 0)
		return VPK_EXIT_USAGE;
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? VPK_EXIT_USAGE : VPK_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("vpk %s\n", VPK_VERSION);
		return VPK_EXIT_OK;
	}
	cmd = find_cmd(argc, argv, &words);
	if (cmd == NULL)
		return vpk_fail(VPK_EXIT_USAGE, "unknown command '%s' (try 'vpk help')", argv[1]);
	rc = apply_global_options();
	if (rc != 0)
		return rc;
	/* The handler sees its own name as argv[0] ("gen acl" for two words). */
	argv[words] = (char *)cmd->name;
	if (argc == words + 2 && (strcmp(argv[words + 1], "--help") == 0 || strcmp(argv[words + 1], "-h") == 0))
		return cmd_help_of(cmd, argv + words);
	return cmd->fn(argc - words, argv + words);
}
