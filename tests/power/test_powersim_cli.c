/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk powersim as a command: the built-in scenario's JSON figures within the
 * paper's shape, the sweep finds where specialization stops paying,
 * --from-runtime reads the documented schema, and bad input exits 2 with the
 * file and line in the message.
 * Usage: test_powersim_cli <vpk binary> <tests/data/corespec directory>
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/check.h"

static const char *vpk, *data;
static char out[1 << 16], err[4096];

static void
slurp(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
}

/* Run "vpk <args>"; returns the exit code, output in out/err. */
static int
run(const char *args)
{
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "%s %s >/tmp/psim_cli_out.%d 2>/tmp/psim_cli_err.%d", vpk, args, (int)getpid(),
		 (int)getpid());
	int st = system(cmd);
	char p[64];
	snprintf(p, sizeof(p), "/tmp/psim_cli_out.%d", (int)getpid());
	slurp(p, out, sizeof(out));
	unlink(p);
	snprintf(p, sizeof(p), "/tmp/psim_cli_err.%d", (int)getpid());
	slurp(p, err, sizeof(err));
	unlink(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static double
num(const char *key)
{
	char k[64];
	snprintf(k, sizeof(k), "\"%s\": ", key);
	const char *p = strstr(out, k);
	return p ? strtod(p + strlen(k), NULL) : -1;
}

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

int
main(int argc, char **argv)
{
	check_init("powersim_cli");
	if (argc < 3) {
		fprintf(stderr, "usage: %s VPK DATA_DIR\n", argv[0]);
		return 2;
	}
	vpk = argv[1];
	data = argv[2];
	char a[1024];

	CHECK(run("powersim --scenario nginx-openssl-avx512 --duration-ms 50 --json") == 0, "scenario: %s", err);
	double wo = num("loss_without"), wi = num("loss_with");
	CHECK(wo >= 0.09 && wo <= 0.15 && wi > 0 && 1 - wi / wo >= 0.6 && 1 - wi / wo <= 0.9,
	      "scenario: loss_without %g loss_with %g", wo, wi);
	CHECK(run("powersim --scenario nginx-openssl-avx512 --duration-ms 20 --sweep 1,256 --json") == 0 &&
		      num("stops_paying_at_k") == 256,
	      "sweep: stops paying at %g", num("stops_paying_at_k"));
	CHECK(run("powersim --scenario nginx-openssl-avx512 --duration-ms 20 --cpu zen4-epyc --json") == 0 &&
		      num("loss_without") < 1e-9 && num("loss_without") > -1e-9,
	      "no-licence CPU: loss_without %g", num("loss_without"));
	CHECK(run("powersim --scenario nginx-openssl-avx512 --duration-ms 20") == 0 && strstr(out, "loss_without"),
	      "text output");
	CHECK(run("powersim --request scalar:1ms,512l:20us --cores 4 --wide-cores 1 --duration-ms 20 --json") == 0 &&
		      num("loss_without") > 0,
	      "request: %s", err);
	CHECK(run("powersim --list --json") == 0 && strstr(out, "skx-6130") && strstr(out, "zen4-epyc"), "list");

	snprintf(a, sizeof(a), "powersim --from-runtime %s/runtime-l3fwd.json --duration-ms 20 --json", data);
	CHECK(run(a) == 0 && strstr(out, "\"prediction\"") && num("packets_per_s_inline") > 0 &&
		      num("best_wide_cores") >= 1 && num("packets_per_s_alt_widths") > 0,
	      "from-runtime: %s", err);

	/* The forwarder's own format: runs per cap; cap 512 used, cap 256 as the alternative. */
	snprintf(a, sizeof(a), "powersim --from-runtime %s/fwd-demo.json --duration-ms 20 --json", data);
	CHECK(run(a) == 0 && num("packets_per_s_inline") > 0 && num("packets_per_s_alt_widths") > 0 &&
		      num("cores") == 4,
	      "fwd --demo output: %s", err);

	/* Bad input: exit 2, a reason naming file and line. */
	char bad[64];
	snprintf(bad, sizeof(bad), "/tmp/psim_cli_bad.%d.json", (int)getpid());
	snprintf(a, sizeof(a), "powersim --from-runtime %s", bad);
	write_file(bad, "{\n  \"nodes\": [\n    { \"name\": \"x\", \"width\": 512,, }\n  ]\n}\n");
	CHECK(run(a) == 2 && strstr(err, ":3:") && strstr(err, bad), "syntax error: '%s'", err);
	write_file(bad, "{ \"nodes\": [\n { \"name\": \"x\", \"clocks_per_packet\": 3, \"packets\": 5 } ] }");
	CHECK(run(a) == 2 && strstr(err, ":2:") && strstr(err, "width"), "missing width: '%s'", err);
	write_file(bad, "{ \"nodes\": [ { \"name\": \"x\", \"width\": 300, \"clocks_per_packet\": 3, \"packets\": 5 } ] }");
	CHECK(run(a) == 2 && strstr(err, "width"), "bad width: '%s'", err);
	write_file(bad, "{ \"nodes\": [] }");
	CHECK(run(a) == 2 && strstr(err, "nodes"), "no nodes: '%s'", err);
	write_file(bad, "{ \"nodes\": [ { \"name\": \"x\", \"width\": 512, \"clocks_per_packet\": 3, \"packets\": 0 } ] }");
	CHECK(run(a) == 2, "no packets: '%s'", err);
	unlink(bad);
	CHECK(run("powersim --from-runtime /nonexistent/x.json") == 2 && strstr(err, "/nonexistent/x.json"),
	      "missing file: '%s'", err);
	CHECK(run("powersim --request foo:1") == 2 && strstr(err, "offset 0"), "bad request: '%s'", err);
	CHECK(run("powersim") == 2, "no workload");
	CHECK(run("powersim --scenario nope") == 2, "unknown scenario");
	CHECK(run("powersim --scenario nginx-openssl-avx512 --cpu nope") == 2, "unknown cpu");
	CHECK(run("powersim --scenario nginx-openssl-avx512 --wide-cores 12") == 2, "wide >= cores");
	CHECK(run("powersim --scenario nginx-openssl-avx512 --sweep 0") == 2, "sweep 0");
	CHECK(run("powersim --scenario nginx-openssl-avx512 --ghz 2.8,2.4") == 2, "--ghz with two figures");
	CHECK(run("powersim --scenario nginx-openssl-avx512 --throttle 0") == 2, "--throttle 0");
	CHECK(run("powersim --scenario nginx-openssl-avx512 --sync --dedicated --duration-ms 20 --json") == 0 &&
		      strstr(out, "\"sync\": true"),
	      "--sync");
	/* A shorter hysteresis leaves more of the compression at L0: less loss. */
	CHECK(run("powersim --scenario nginx-openssl-avx512 --duration-ms 50 --hyst-us 680 --json") == 0 &&
		      num("loss_without") < wo - 0.03,
	      "--hyst-us 680: loss_without %g vs %g", num("loss_without"), wo);
	return check_finish();
}
