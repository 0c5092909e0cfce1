/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz the ACL rule and trace parsers (both formats, IPv4 and IPv6), then
 * build whatever parsed and classify the parsed trace with every usable
 * variant: results must agree with the scalar variant.
 */
// fuzz-libs: vpk_tool_acl
#include <stdlib.h>
#include <string.h>

#include <vpk/acl.h>
#include <vpk/acl_file.h>

#include "acl/acl_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool ipv6 = size > 0 && (data[0] & 1);
	enum vpk_acl5_format fmt = size > 0 && (data[0] & 2) ? VPK_ACL5_L3FWD : VPK_ACL5_CLASSBENCH;
	struct vpk_acl5_rule *r = NULL;
	struct vpk_acl5_pkt *p = NULL;
	uint32_t nr = 0, np = 0;
	const char *buf = (const char *)data;

	if (vpk_acl5_parse_trace(buf, size, "fuzz", ipv6, 64, &p, &np) != 0)
		p = NULL, np = 0;
	if (vpk_acl5_parse_rules(buf, size, "fuzz", ipv6, fmt, 256, &r, &nr) == 0 && nr > 0) {
		struct vpk_acl_field_def defs[11];
		uint32_t nf = vpk_acl5_layout(ipv6, defs), bs = vpk_acl5_buf_size(ipv6);
		struct vpk_acl_conf c = { .num_fields = nf, .defs = defs, .num_categories = 1 };
		uint8_t *rules = malloc((size_t)nr * VPK_ACL_RULE_SIZE(nf)), *bufs = calloc(np + 1, bs);
		const uint8_t **ptrs = calloc(np + 1, sizeof(*ptrs));
		uint32_t *ref = calloc(np + 1, 4), *got = calloc(np + 1, 4);
		struct vpk_acl *acl;

		vpk_acl5_to_rules(r, nr, ipv6, 1, rules);
		for (uint32_t i = 0; i < np; i++) {
			vpk_acl5_pkt_bytes(&p[i], ipv6, bufs + (size_t)i * bs);
			ptrs[i] = bufs + (size_t)i * bs;
		}
		if (vpk_acl_create(&c, &acl) == 0) {
			if (vpk_acl_add_rules(acl, rules, nr) == 0 && vpk_acl_build(acl) == 0) {
				vpk_acl_select(acl, "scalar");
				vpk_acl_classify_bulk(acl, ptrs, ref, np, 1);
				for (uint32_t i = 0; i < np; i++) {
					uint32_t want = 0;

					for (uint32_t k = 0; k < nr && !want; k++)
						if (vpk_acl5_match(&r[k], &p[i], ipv6))
							want = k + 1;
					if (ref[i] != want)
						abort();
				}
				for (const struct vpk_impl *const *im = vpk_acl_impls(); *im; im++) {
					if (vpk_acl_select(acl, (*im)->name) != 0)
						continue;
					vpk_acl_classify_bulk(acl, ptrs, got, np, 1);
					if (memcmp(got, ref, (size_t)np * 4) != 0)
						abort();
				}
			}
			vpk_acl_destroy(acl);
		}
		free(rules), free(bufs), free(ptrs), free(ref), free(got);
	}
	free(r);
	free(p);
	return 0;
}
