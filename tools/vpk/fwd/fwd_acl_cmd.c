/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The forwarder's `acl` configuration command: load a rule file (ClassBench
 * or l3fwd format, IPv4 or IPv6) into the ACL stage (fwd_acl.c), and the
 * policies for non-first fragments and for denied packets.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fwd/fwd_priv.h"

/* acl fragments portless|drop */
static int
cmd_acl_fragments(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	enum vpk_acl_frag_policy p;

	if (argc == 3 && strcmp(argv[2], "portless") == 0)
		p = VPK_ACL_FRAG_PORTLESS;
	else if (argc == 3 && strcmp(argv[2], "drop") == 0)
		p = VPK_ACL_FRAG_DROP;
	else
		return vpk_errf(err, len, -EINVAL, "usage: acl fragments portless|drop");
	if (apply) {
		f->acl_frag_policy = p;
		f->acl4.nc.frag_policy = p;
		f->acl6.nc.frag_policy = p;
	}
	return 0;
}

/* acl deny drop|icmp-unreachable */
static int
cmd_acl_deny(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	bool icmp;

	if (argc == 3 && strcmp(argv[2], "drop") == 0)
		icmp = false;
	else if (argc == 3 && strcmp(argv[2], "icmp-unreachable") == 0)
		icmp = true;
	else
		return vpk_errf(err, len, -EINVAL, "usage: acl deny drop|icmp-unreachable");
	if (apply) {
		f->acl_deny_icmp = icmp;
		f->acl4.nc.deny_icmp = icmp;
		f->acl6.nc.deny_icmp = icmp;
	}
	return 0;
}

/* acl load FILE [ipv6] | acl fragments portless|drop | acl deny drop|icmp-unreachable */
static int
cmd_acl(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	struct vpk_acl5_rule *r = NULL;
	uint32_t n = 0;
	bool ipv6;
	char why[256];
	int rc;

	if (argc >= 2 && strcmp(argv[1], "fragments") == 0)
		return cmd_acl_fragments(f, argc, argv, apply, err, len);
	if (argc >= 2 && strcmp(argv[1], "deny") == 0)
		return cmd_acl_deny(f, argc, argv, apply, err, len);
	if (argc < 3 || argc > 4 || strcmp(argv[1], "load") != 0 ||
	    (argc == 4 && strcmp(argv[3], "ipv6") != 0))
		return vpk_errf(err, len, -EINVAL, "usage: acl load FILE [ipv6] | acl fragments portless|drop | "
				"acl deny drop|icmp-unreachable");
	ipv6 = argc == 4;
	/* l3fwd files add `R ... PORT` lines to ClassBench's `@` lines. */
	rc = vpk_acl5_load_rules(argv[2], ipv6, VPK_ACL5_AUTO, 0, &r, &n);
	if (rc != 0)
		return vpk_errf(err, len, rc, "acl load: %s", vpk_last_error());
	if (apply)
		rc = fwd_ctl_acl_install(f, r, n, ipv6, why, sizeof(why));
	free(r);
	return rc != 0 ? vpk_errf(err, len, rc, "acl load %s: %s", argv[2], why) : 0;
}

const struct fwd_cmd fwd_cmd_acl = { "acl", cmd_acl };
