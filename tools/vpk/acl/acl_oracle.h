/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ACL oracle of the vpk tool: the first rule in file order that matches
 * a 5-tuple record, by brute force. It is the reference that vpk acl
 * --verify, vpk bench acl and the tests hold every classifier variant to;
 * libvpk does not ship it (an application classifies with <vpk/acl.h>).
 */
#ifndef VPK_TOOL_ACL_ORACLE_H
#define VPK_TOOL_ACL_ORACLE_H

#include <stdbool.h>
#include <stdint.h>

#include <vpk/acl_file.h>

/** True when @p p matches @p r (the oracle's test). */
bool vpk_acl5_match(const struct vpk_acl5_rule *r, const struct vpk_acl5_pkt *p, bool ipv6);

/**
 * Fill every record's expected column by brute force (first rule in order
 * that matches; rules bucketed by /16 of destination or source, exact).
 * @return 0 or -ENOMEM.
 */
int vpk_acl5_oracle(const struct vpk_acl5_rule *r, uint32_t nr, struct vpk_acl5_pkt *p,
		    uint32_t np, bool ipv6);

#endif /* VPK_TOOL_ACL_ORACLE_H */
