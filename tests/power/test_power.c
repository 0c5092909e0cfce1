/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `vpk power` end to end (argv[1] = the vpk binary):
 *  - PMU mode: where CPUID.0AH reports no architectural PMU (this VM) the
 *    command must exit 2 with one line saying so and must not print numbers;
 *    where a PMU exists it must either measure (exit 0, "cycles" in the
 *    output) or explain why not (exit 2: not permitted / no event table);
 *  - --probe --json: exit 0, every burst kind reported, ratios positive;
 *    AVX-512 kinds ran exactly when the CPU and OS support AVX-512;
 *  - bad usage exits 2.
 */
#include <cpuid.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <vpk/isa.h>

#include "lib/check.h"

static char out[1 << 16];

static int
run(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	size_t n = 0, k;
	int st;

	if (p == NULL)
		return -1;
	while (n + 1 < sizeof(out) && (k = fread(out + n, 1, sizeof(out) - 1 - n, p)) > 0)
		n += k;
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
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

int
main(int argc, char **argv)
{
	char cmd[4096];
	int rc;

	check_init("power");
	if (argc < 2)
		return 2;
	snprintf(cmd, sizeof(cmd), "%s power -- true 2>&1", argv[1]);
	rc = run(cmd);
	if (pmu_version() == 0) {
		CHECK(rc == 2, "no PMU: exit %d, want 2", rc);
		CHECK(strstr(out, "no PMU") != NULL, "no PMU: message missing: %s", out);
		CHECK(strchr(out, '\n') == strrchr(out, '\n'), "no PMU: more than one line: %s", out);
		CHECK(strstr(out, "%") == NULL, "no PMU: printed figures: %s", out);
	} else {
		CHECK((rc == 0 && strstr(out, "cycles") != NULL) ||
		      (rc == 2 && (strstr(out, "not permitted") || strstr(out, "no CORE_POWER") || strstr(out, "no PMU"))),
		      "PMU: exit %d: %s", rc, out);
	}

	snprintf(cmd, sizeof(cmd), "%s --json power --probe --runs 2", argv[1]);
	rc = run(cmd);
	CHECK(rc == 0, "probe: exit %d", rc);
	for (const char *k = "512_heavy\0" "512_light\0" "256_heavy\0"; *k; k += strlen(k) + 1)
		CHECK(strstr(out, k) != NULL, "probe: %s missing", k);
	{
		bool avx512 = vpk_isa_cpu_supported(VPK_ISA_AVX512) && vpk_isa_os_supported(VPK_ISA_AVX512);
		const char *p = strstr(out, "512_heavy"), *ran = p ? strstr(p, "\"ran\"") : NULL;

		CHECK(ran != NULL && (strncmp(ran, avx512 ? "\"ran\": true" : "\"ran\": false", avx512 ? 11 : 12) == 0 ||
				      strncmp(ran, avx512 ? "\"ran\":true" : "\"ran\":false", avx512 ? 10 : 11) == 0),
		      "probe: 512_heavy ran flag wrong (avx512 %d): %.400s", avx512, ran ? ran : "(none)");
		if (avx512) {
			const char *m = strstr(p, "\"b_median\"");
			double v = m ? strtod(strchr(m, ':') + 1, NULL) : 0;

			CHECK(v > 0.05 && v < 20, "probe: 512_heavy b_median %g", v);
		}
	}
	snprintf(cmd, sizeof(cmd), "%s power --probe --runs 0 2>/dev/null", argv[1]);
	CHECK(run(cmd) == 2, "--runs 0 accepted");
	snprintf(cmd, sizeof(cmd), "%s power --bogus 2>/dev/null", argv[1]);
	CHECK(run(cmd) == 2, "--bogus accepted");
	return check_finish();
}
