/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ACL classify, scalar variant: the 16 slots of a block compared in a loop,
 * four packets walked interleaved (acl_kern.h has the shared body).
 */
#define ACL_KEYT 0
#include "acl/acl_kern.h"

INLINE uint32_t
acl_match32(uint32_t x, const uint32_t *lo, const uint32_t *sp, const uint32_t *m, int w)
{
	(void)w;
	return match32_scalar(x, lo, sp, m);
}

INLINE uint32_t
acl_match16(uint32_t x, const uint16_t *lo, const uint16_t *sp, const uint16_t *m, int w)
{
	(void)w;
	return match16_scalar(x, lo, sp, m);
}

INLINE int
acl_walk(const struct acl_rt *rt, uint32_t t, const uint32_t *keys, const uint32_t *keyt, uint32_t nd,
	 uint32_t n, uint32_t *leaf, uint32_t *lr, int w)
{
	(void)keyt, (void)lr, (void)w;
	walk_scalar(&rt->tree[t], keys, nd, n, leaf + t * CHUNK);
	return 0;
}

static void
VPK_FN(acl_classify)(const struct acl_rt *rt, const uint8_t *const *data, uint32_t *results,
		     uint32_t n, uint32_t categories)
{
	classify(rt, data, results, n, categories, 64);
}

const struct acl_impl VPK_FN(acl_impl) = {
	.base = VPK_IMPL_INIT(64),
	.classify = VPK_FN(acl_classify),
};
