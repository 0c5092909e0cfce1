/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `ip address` and `icmp rate-limit`: an address installs a host route to
 * VPK_NH_LOCAL and puts the ICMP nodes in the graph; a duplicate is refused;
 * a file that fails after an `ip address` line takes the address back with
 * its host route (the undo journal), so the same line applies again later.
 */
#include <errno.h>
#include <string.h>

#include <vpk/fib.h>
#include <vpk/icmp.h>
#include "fwd/fwd.h"

#include "fwd/fwd_priv.h"
#include "lib/check.h"
#include "fwd/fwd_text.h"

static uint64_t
nh4(struct vpk_fwd *f, uint32_t ip)
{
	uint64_t nh = 0;

	vpk_fib_lookup_bulk(f->fib4, &ip, &nh, 1);
	return nh;
}

/* Nodes fwd_icmp_graph() adds. */
static size_t
icmp_nodes(struct vpk_fwd *f)
{
	const char *nodes[16] = { NULL };
	struct vpk_node_conf nc[16];
	struct fwd_graph fg = { nodes, 0, 16, nc, 0, 16 };
	char err[256];

	CHECK(fwd_icmp_graph(f, &fg, err, sizeof(err)) == 0, "graph hook: %s", err);
	return fg.n_nodes;
}

int
main(void)
{
	struct vpk_fwd_conf conf = { .num_tbl8 = 64, .n_bufs = 1024 };
	struct vpk_fwd *f;
	char err[512];
	int rc;

	check_init("fwd.icmp");
	CHECK(vpk_fwd_create(&conf, &f) == 0, "create");
	rc = exec_text(f, "interface eth0\ninterface eth1\nroute add 198.51.100.0/24 via 1\n", err, sizeof(err));
	CHECK(rc == 0, "base: %s", err);
	CHECK(icmp_nodes(f) == 0, "ICMP nodes without an address");
	CHECK(vpk_fwd_exec(f, "ip address eth0 192.0.2.1/24", err, sizeof(err)) == 0, "ip address: %s", err);
	CHECK(nh4(f, 0xc0000201u) == VPK_NH_LOCAL, "no host route to VPK_NH_LOCAL");
	CHECK(nh4(f, 0xc0000202u) == 0, "the /24 became local");
	CHECK(icmp_nodes(f) == 4, "want ip4/ip6-icmp-error and ip4/ip6-local");
	rc = vpk_fwd_exec(f, "ip address eth1 192.0.2.1/24", err, sizeof(err));
	CHECK(rc == -EEXIST && strstr(err, "configured already") != NULL, "duplicate: %d %s", rc, err);
	CHECK(vpk_fwd_exec(f, "ip address eth0 2001:db8::1/64", err, sizeof(err)) == 0, "IPv6: %s", err);
	CHECK(vpk_fwd_exec(f, "icmp rate-limit 10 burst 2", err, sizeof(err)) == 0, "rate-limit: %s", err);

	/* Valid lines that conflict when applied: the file is undone, the address with it. */
	rc = exec_text(f,
		       "ip address eth1 198.51.100.1/24\n"
		       "vxlan tunnel src 10.0.0.1 dst 10.0.0.2 vni 1\n"
		       "vxlan tunnel src 10.0.0.1 dst 10.0.0.2 vni 1\n", err, sizeof(err));
	CHECK(rc == -EEXIST && strstr(err, "test.conf:3:") != NULL, "want the line-3 conflict: %d %s", rc, err);
	CHECK(nh4(f, 0xc6336401u) == 1, "host route not taken back (nh %llu)",
	      (unsigned long long)nh4(f, 0xc6336401u));
	CHECK(vpk_fwd_exec(f, "ip address eth1 198.51.100.1/24", err, sizeof(err)) == 0,
	      "the address stayed after the undo: %s", err);
	CHECK(nh4(f, 0xc6336401u) == VPK_NH_LOCAL, "second apply");
	vpk_fwd_destroy(f);
	return check_finish();
}
