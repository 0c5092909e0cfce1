/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A refused configuration file changes nothing, also for the settings of
 * interfaces that existed before it and for tunnels: a file that updates
 * such an interface and then fails, or adds a VxLAN tunnel and then fails on
 * a line that only conflicts with its own earlier lines (checked against the
 * state before the file, so refused only when applied), leaves both as they
 * were. Found by fuzz/fwd_config.c; its seeds iface_update_refused.conf and
 * vxlan_dup.conf are these cases.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fwd/fwd.h"

#include "fwd/fwd_priv.h"
#include "lib/check.h"
#include "fwd/fwd_text.h"

int
main(void)
{
	struct vpk_fwd_conf conf = { .num_tbl8 = 64, .n_bufs = 256 };
	static const uint8_t mac1[6] = { 2, 0, 0, 0, 0, 0x11 };
	struct vpk_fwd *f;
	char err[512];
	int rc;

	check_init("fwd.config_refused");
	CHECK(vpk_fwd_create(&conf, &f) == 0, "create");
	rc = exec_text(f, "interface eth0 mac 02:00:00:00:00:11 out discard\ninterface eth1\n", err, sizeof(err));
	CHECK(rc == 0, "base config: %s", err);

	/* Check pass failure after an update of eth0. */
	rc = exec_text(f, "interface eth0 mac 02:00:00:00:00:99 in a.pcap out b.pcap\nbogus\n", err, sizeof(err));
	CHECK(rc == -EINVAL && strstr(err, "test.conf:2:") != NULL, "rc %d (%s)", rc, err);
	CHECK(memcmp(f->ifs[0].mac, mac1, 6) == 0, "eth0's MAC changed by a refused file");
	CHECK(f->ifs[0].in_path == NULL && f->ifs[0].out_path == NULL && f->ifs[0].discard,
	      "eth0's files changed by a refused file");

	/* Apply pass failure (a duplicate tunnel) after an eth0 update and a tunnel. */
	rc = exec_text(f,
		       "interface eth0 mac 02:00:00:00:00:99 out c.pcap\n"
		       "vxlan tunnel src 10.0.0.1 dst 10.0.0.2 vni 1\n"
		       "vxlan tunnel src 10.0.0.1 dst 10.0.0.2 vni 1\n", err, sizeof(err));
	CHECK(rc == -EEXIST && strstr(err, "test.conf:3:") != NULL && strstr(err, "undone") != NULL,
	      "rc %d (%s)", rc, err);
	CHECK(f->tunnels == NULL, "the tunnel of a refused file stayed");
	CHECK(memcmp(f->ifs[0].mac, mac1, 6) == 0 && f->ifs[0].out_path == NULL && f->ifs[0].discard,
	      "eth0 changed by a refused file");

	/* With tunnel state before the file: it is put back as it was. */
	rc = exec_text(f, "vxlan tunnel src 10.0.0.1 dst 10.0.0.2 vni 1\n", err, sizeof(err));
	CHECK(rc == 0, "tunnel: %s", err);
	rc = exec_text(f,
		       "vxlan tunnel src 10.0.0.1 dst 10.0.0.2 vni 1 del\n"
		       "vxlan tunnel src 10.0.0.1 dst 10.0.0.3 vni 2\n"
		       "vxlan tunnel src 10.0.0.1 dst 10.0.0.2 vni 1 del\n", err, sizeof(err));
	CHECK(rc == -ENOENT && strstr(err, "test.conf:3:") != NULL, "rc %d (%s)", rc, err);
	rc = vpk_fwd_exec(f, "vxlan tunnel src 10.0.0.1 dst 10.0.0.2 vni 1", err, sizeof(err));
	CHECK(rc == -EEXIST, "tunnel vni 1 not restored: rc %d (%s)", rc, err);
	rc = vpk_fwd_exec(f, "vxlan tunnel src 10.0.0.1 dst 10.0.0.3 vni 2 del", err, sizeof(err));
	CHECK(rc == -ENOENT, "tunnel vni 2 of a refused file stayed: rc %d (%s)", rc, err);

	/* A successful update still applies, in file order. */
	rc = exec_text(f, "interface eth0 mac 02:00:00:00:00:42\nneighbor 1 02:aa:00:00:00:01 dev eth0\n",
		       err, sizeof(err));
	CHECK(rc == 0 && f->ifs[0].mac[5] == 0x42 && f->adj[1].src_mac[5] == 0x42, "update: %s", err);
	vpk_fwd_destroy(f);
	return check_finish();
}
