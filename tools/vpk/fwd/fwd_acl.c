/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The forwarder's ACL stage: turn 5-tuple rules (ClassBench / l3fwd files,
 * or generated) into a vpk_acl context on the dpdk-test-acl layout and an
 * action per rule for the ip4-acl / ip6-acl nodes (fwd/fwd.h gives
 * the semantics of normal and l3fwd-acl modes).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fwd/fwd_priv.h"

void
fwd_acl_free(struct fwd_acl *a)
{
	vpk_acl_destroy(a->acl);
	vpk_acl_destroy(a->acl_frag);
	free(a->action);
	memset(a, 0, sizeof(*a));
}

/*
 * The context non-first fragments are classified in: the rules of @p all
 * (converted, n of them) that constrain no port, with their priorities and
 * userdata, so the first of them in file order wins as in the full set.
 * None: *out stays NULL.
 */
static int
build_frag_acl(const struct vpk_acl_conf *ac, const char *variant, const struct vpk_acl5_rule *r,
	       const void *all, uint32_t n, struct vpk_acl **out, char *err, size_t len)
{
	size_t rsz = VPK_ACL_RULE_SIZE(ac->num_fields);
	uint32_t m = 0;
	uint8_t *sub;
	int rc;

	for (uint32_t i = 0; i < n; i++)
		m += vpk_acl5_rule_portless(&r[i]);
	if (m == 0)
		return 0;
	sub = malloc(m * rsz);
	if (sub == NULL) {
		snprintf(err, len, "acl: out of memory");
		return -ENOMEM;
	}
	m = 0;
	for (uint32_t i = 0; i < n; i++)
		if (vpk_acl5_rule_portless(&r[i]))
			memcpy(sub + (size_t)m++ * rsz, (const uint8_t *)all + (size_t)i * rsz, rsz);
	rc = vpk_acl_create(ac, out);
	if (rc == 0 && variant != NULL)
		rc = vpk_acl_select(*out, variant);
	if (rc == 0)
		rc = vpk_acl_add_rules(*out, sub, m);
	if (rc == 0)
		rc = vpk_acl_build(*out);
	if (rc != 0)
		snprintf(err, len, "acl (rules for fragments): %s",
			 *out != NULL && vpk_last_error()[0] ? vpk_last_error() : strerror(-rc));
	free(sub);
	return rc;
}

int
fwd_acl_install(struct vpk_fwd *f, const struct vpk_acl5_rule *r, uint32_t n, bool ipv6,
		char *err, size_t len)
{
	struct vpk_acl_field_def defs[11];
	struct vpk_acl_conf ac = { .defs = defs, .num_categories = 1 };
	struct fwd_acl a = { 0 };
	void *rules = NULL;
	int rc;

	ac.num_fields = vpk_acl5_layout(ipv6, defs);
	rc = vpk_acl_create(&ac, &a.acl);
	if (rc == 0 && f->conf.acl_impl != NULL)
		rc = vpk_acl_select(a.acl, f->conf.acl_impl);
	if (rc != 0) {
		vpk_acl_destroy(a.acl);
		snprintf(err, len, "acl: cannot create the classifier: %s", vpk_last_error());
		return rc;
	}
	a.action = malloc(((size_t)n + 1) * sizeof(*a.action));
	rules = calloc(n ? n : 1, VPK_ACL_RULE_SIZE(ac.num_fields));
	if (a.action == NULL || rules == NULL) {
		rc = -ENOMEM;
		snprintf(err, len, "acl: out of memory");
		goto fail;
	}
	a.action[0] = f->conf.l3fwd_acl ? VPK_ACL_ACT_DENY : VPK_ACL_ACT_PERMIT;
	for (uint32_t i = 0; i < n; i++) {
		if (r[i].port < 0)
			a.action[i + 1] = VPK_ACL_ACT_DENY;
		else if (!f->conf.l3fwd_acl)
			a.action[i + 1] = VPK_ACL_ACT_PERMIT;
		else if ((uint32_t)r[i].port + 1 > f->conf.max_neighbors) {
			rc = -EINVAL;
			snprintf(err, len, "acl: rule %u routes to port %d, beyond the %u neighbors", i, r[i].port,
				 f->conf.max_neighbors);
			goto fail;
		} else {
			a.action[i + 1] = r[i].port + 1;
		}
	}
	vpk_acl5_to_rules(r, n, ipv6, 1, rules);
	rc = vpk_acl_add_rules(a.acl, rules, n);
	if (rc == 0)
		rc = vpk_acl_build(a.acl);
	if (rc != 0) {
		snprintf(err, len, "acl: %s", vpk_last_error()[0] ? vpk_last_error()
									  : strerror(-rc));
		goto fail;
	}
	rc = build_frag_acl(&ac, f->conf.acl_impl, r, rules, n, &a.acl_frag, err, len);
	if (rc != 0)
		goto fail;
	free(rules);
	a.nc.acl = a.acl;
	a.nc.acl_frag = a.acl_frag;
	a.nc.frag_policy = f->acl_frag_policy;
	a.nc.deny_icmp = f->acl_deny_icmp;
	a.nc.action = a.action;
	a.nc.n_action = n + 1;
	a.nc.no_match = a.action[0];
	fwd_acl_free(ipv6 ? &f->acl6 : &f->acl4);
	if (ipv6)
		f->acl6 = a;
	else
		f->acl4 = a;
	/* The node conf points into the struct it lives in: fix it after the copy. */
	(ipv6 ? &f->acl6 : &f->acl4)->nc.action = (ipv6 ? &f->acl6 : &f->acl4)->action;
	return 0;
fail:
	free(rules);
	fwd_acl_free(&a);
	return rc;
}

int
vpk_fwd_acl_rules(struct vpk_fwd *f, const struct vpk_acl5_rule *r, uint32_t n, bool ipv6,
		  char *err, size_t err_len)
{
	char why[256];
	int rc;

	if (f == NULL || (r == NULL && n > 0))
		return -EINVAL;
	rc = fwd_acl_install(f, r, n, ipv6, why, sizeof(why));
	if (rc != 0 && err != NULL)
		snprintf(err, err_len, "%s", why);
	return rc;
}
