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

/*
 * acl fragments portless|drop, acl deny drop|icmp-unreachable: two policies
 * of two words each, kept by the forwarder and both ACL stages' contexts.
 */
static int
cmd_acl_policy(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	bool frag = strcmp(argv[1], "fragments") == 0, second;
	const char *w0 = frag ? "portless" : "drop", *w1 = frag ? "drop" : "icmp-unreachable";

	if (argc == 3 && strcmp(argv[2], w0) == 0)
		second = false;
	else if (argc == 3 && strcmp(argv[2], w1) == 0)
		second = true;
	else
		return vpk_errf(err, len, -EINVAL, "usage: acl %s %s|%s", argv[1], w0, w1);
	if (apply && frag) {
		f->acl_frag_policy = second ? VPK_ACL_FRAG_DROP : VPK_ACL_FRAG_PORTLESS;
		f->acl4.nc.frag_policy = f->acl_frag_policy;
		f->acl6.nc.frag_policy = f->acl_frag_policy;
	} else if (apply) {
		f->acl_deny_icmp = second;
		f->acl4.nc.deny_icmp = second;
		f->acl6.nc.deny_icmp = second;
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

	if (argc >= 2 && (strcmp(argv[1], "fragments") == 0 || strcmp(argv[1], "deny") == 0))
		return cmd_acl_policy(f, argc, argv, apply, err, len);
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
