/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk gen acl --l3fwd-out FILE: the generated rules as an l3fwd rule file
 * (DPDK's l3fwd -L / --lookup=acl, and `vpk fwd --l3fwd-acl`): each rule a
 * route (`R`, to one of --l3fwd-ports ports) or, for a seeded share
 * --l3fwd-deny of them, an ACL entry (`@`, deny). l3fwd gives the first
 * matching line priority and drops what no line matches, so the file order
 * of the generator (specific first) is kept. At least one line is a route:
 * l3fwd refuses a file without one.
 *
 *   --l3fwd-ports N   ports the routes go to, 0..N-1 in turn (default 2)
 *   --l3fwd-deny X    share of rules written as `@` deny lines (default 0.1)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl_l3fwd.h"
#include "common/splitmix.h"
#include "common/tool.h"

static uint64_t ports = 2;
static double deny = 0.1;

int
acl_l3fwd_option(const char *name, const char *val)
{
	if (strcmp(name, "l3fwd-ports") == 0)
		return vpk_opt_u64("gen acl: --l3fwd-ports", val, 1, 32, &ports) ? 1 : -1;
	if (strcmp(name, "l3fwd-deny") == 0)
		return vpk_opt_f64("gen acl: --l3fwd-deny", val, 0, 1, &deny) ? 1 : -1;
	return 0;
}

static uint64_t
mix(uint64_t x)
{
	return splitmix64_mix(x + UINT64_C(0x9e3779b97f4a7c15));
}

int
acl_l3fwd_write(const char *path, const struct vpk_acl5_rule *r, uint32_t n, bool ipv6, uint64_t seed)
{
	struct vpk_acl5_rule *l3 = malloc(((size_t)n + 1) * sizeof(*l3));
	uint32_t routes = 0, next_port = 0;
	FILE *f;
	int rc;

	if (l3 == NULL)
		return vpk_fail(VPK_EXIT_FAIL, "gen acl: out of memory");
	memcpy(l3, r, (size_t)n * sizeof(*l3));
	for (uint32_t i = 0; i < n; i++) {
		/* The top 53 bits of a hash of (seed, i): a uniform draw in [0, 1). */
		double u = (double)(mix(seed ^ mix(i)) >> 11) / 9007199254740992.0;

		if (u < deny) {
			l3[i].port = -1;
		} else {
			l3[i].port = (int32_t)next_port;
			next_port = (uint32_t)((next_port + 1) % ports);
			routes++;
		}
	}
	if (routes == 0)        /* every rule denies: one catch-all route keeps the file valid */
		l3[n++] = (struct vpk_acl5_rule){ .sport_hi = 65535, .dport_hi = 65535, .port = 0 };
	f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
	if (f == NULL) {
		free(l3);
		return vpk_fail(VPK_EXIT_FAIL, "gen acl: cannot write %s: %s", path, strerror(errno));
	}
	rc = vpk_acl5_write_rules(f, l3, n, ipv6);
	if (f != stdout && fclose(f) != 0)
		rc = -EIO;
	free(l3);
	if (rc < 0)
		return vpk_fail(VPK_EXIT_FAIL, "gen acl: write error on %s", path);
	return 0;
}
