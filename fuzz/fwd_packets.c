/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz the forwarder's packet path: every input is one frame sent through
 * ethernet-input, ip4/ip6-input, ip4-acl, ip4-lookup, ip4/ip6-rewrite and
 * interface-output (or error-drop). Checks: no crash (ASan/UBSan in CI),
 * exactly one packet accounted for (forwarded + dropped), no buffer leaked.
 */
// fuzz-libs: vpk_tool_fwd
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fwd/fwd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct vpk_fwd *fwd;

static void
setup(void)
{
	static const char *const cfg[] = {
		"interface eth0",
		"interface eth1 out discard",
		"neighbor 1 02:00:00:00:00:01 dev eth1",
		"route add 0.0.0.0/0 via 1",
		"route add 10.0.0.0/8 via 2",           /* neighbor 2 missing: "no neighbor" */
	};
	struct vpk_fwd_conf conf = { .n_bufs = 256, .max_routes = 64, .num_tbl8 = 64, .trace = 4 };
	struct vpk_acl5_rule rule = { .dst = { 192, 168, 0, 0 }, .dst_len = 16, .proto = 17,
				      .proto_mask = 0xff, .sport_hi = 65535, .dport_lo = 53,
				      .dport_hi = 53, .port = -1 };
	char err[256];

	if (vpk_fwd_create(&conf, &fwd) != 0)
		abort();
	for (size_t i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++)
		if (vpk_fwd_exec(fwd, cfg[i], err, sizeof(err)) != 0) {
			fprintf(stderr, "fuzz setup: %s\n", err);
			abort();
		}
	if (vpk_fwd_acl_rules(fwd, &rule, 1, false, err, sizeof(err)) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *pkts[1] = { data };
	uint16_t len = (uint16_t)size;
	struct vpk_fwd_run_stats st;
	char err[256];

	if (fwd == NULL)
		setup();
	if (size == 0 || size > 2048)
		return 0;
	if (vpk_fwd_set_traffic(fwd, pkts, &len, 1, 1) != 0)
		abort();
	if (vpk_fwd_run(fwd, &st, err, sizeof(err)) != 0) {
		fprintf(stderr, "fuzz: run failed: %s\n", err);
		abort();
	}
	if (st.packets != 1 || st.forwarded + st.dropped != 1 || vpk_fwd_bufs_in_use(fwd) != 0) {
		fprintf(stderr, "fuzz: packets %llu forwarded %llu dropped %llu in use %u\n",
			(unsigned long long)st.packets, (unsigned long long)st.forwarded,
			(unsigned long long)st.dropped, vpk_fwd_bufs_in_use(fwd));
		abort();
	}
	return 0;
}
