/* SPDX-License-Identifier: BSD-3-Clause */
/* The family-independent half of a FIB (fib_core.h). */
#include <errno.h>
#include <stddef.h>

#include "fib/fib_core.h"

int
fib_core_init(struct fib_core *c, const struct fib_dp_ops *ops, const struct vpk_impl *const *impls,
	      enum vpk_isa isa, uint8_t key_bits, uint32_t max_routes, uint64_t default_nh)
{
	int rc;

	if ((unsigned)isa >= VPK_ISA_COUNT || impls == NULL)
		return -EINVAL;
	rc = vpk_impl_pick(impls, isa, &c->impl);
	if (rc != 0)
		return rc;
	if (vpk_rib_init(&c->rib, key_bits, max_routes) != 0)
		return -ENOMEM;
	c->ops = ops;
	c->impls = impls;
	c->default_nh = default_nh;
	c->rcu = (struct fib_rcu){ 0 };
	return 0;
}

void
fib_core_fini(struct fib_core *c)
{
	vpk_rib_fini(&c->rib);
}

uint64_t
fib_core_cover(const struct fib_core *c, struct rib_key k, uint8_t depth)
{
	uint64_t nh;

	return vpk_rib_parent(&c->rib, k, depth, &nh, NULL) ? nh : c->default_nh;
}

int
fib_core_get(const struct fib_core *c, struct rib_key k, uint8_t depth, uint64_t *nh)
{
	uint32_t node = vpk_rib_find(&c->rib, vpk_rib_key_mask(k, depth), depth);

	if (node == RIB_NIL)
		return -ENOENT;
	*nh = c->rib.nodes[node].nh;
	return 0;
}

uint64_t
fib_core_lookup_rib(const struct fib_core *c, struct rib_key k)
{
	uint64_t nh;

	return vpk_rib_lpm(&c->rib, k, &nh) ? nh : c->default_nh;
}

int
fib_core_select(struct fib_core *c, const char *variant)
{
	const struct vpk_impl *impl;
	int rc = variant != NULL ? vpk_impl_pick_name(c->impls, variant, &impl) : -EINVAL;

	if (rc == 0) {
		c->ops->use_impl(c, impl);
		c->impl = impl;
	}
	return rc;
}

int
fib_core_reclaim(struct fib_core *c)
{
	return (int)c->ops->reclaim(c);
}

void
fib_core_set_defer(struct fib_core *c, bool on)
{
	c->ops->set_defer(c, on);
}

void
fib_core_attach_qsbr(struct fib_core *c, struct vpk_qsbr *q, bool sync)
{
	FIB_RCU_ATTACH(&c->rcu, q, sync, fib_core_reclaim(c));
	fib_core_set_defer(c, q != NULL);
}
