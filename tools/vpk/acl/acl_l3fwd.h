/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_ACL_L3FWD_H
#define VPK_TOOL_ACL_L3FWD_H

/* vpk gen acl --l3fwd-out: l3fwd rule files with `R` routes and a share of `@` denies (acl_l3fwd.c). */
#include <stdbool.h>
#include <stdint.h>

#include <vpk/acl_file.h>

/* An --l3fwd-ports / --l3fwd-deny option: 1 taken, 0 not ours, -1 bad value (reason printed). */
int acl_l3fwd_option(const char *name, const char *val);
/* Write rules @r as an l3fwd file at @path; 0 or a VPK_EXIT_* code after printing the reason. */
int acl_l3fwd_write(const char *path, const struct vpk_acl5_rule *r, uint32_t n, bool ipv6, uint64_t seed);

#endif
