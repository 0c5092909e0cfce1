/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The endpoint table (control plane: built once per graph instance from the
 * tunnel list) and the variant table of the endpoint cache (ep_cache.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "core/registry.h"
#include "tunnel/ep_cache.h"

VPK_KERNEL_TABLE(ep_cache_impls, ep_cache, ep_cache, base);

VPK_KERNEL_REGISTER(ep_cache, "vxlan-endpoint-cache",
		    "VxLAN tunnel endpoint check: 1-entry (scalar) or 8-way SIMD cache before the table",
		    ep_cache_impls);

int
vpk_ep_table_build(struct ep_table *t, const uint64_t *keys, uint32_t n)
{
	uint32_t slots = 16;

	if (t == NULL || (n > 0 && keys == NULL) || n > (1u << 24))
		return -EINVAL;
	while (slots < 2 * n)
		slots <<= 1;
	t->keys = calloc(slots, sizeof(*t->keys));
	t->vals = calloc(slots, sizeof(*t->vals));
	if (t->keys == NULL || t->vals == NULL) {
		vpk_ep_table_free(t);
		return -ENOMEM;
	}
	t->mask = slots - 1;
	t->n = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s;

		if (keys[i] == 0 || ep_table_find(t, keys[i]) != EP_NONE) {
			vpk_ep_table_free(t);
			return -EINVAL;
		}
		for (s = ep_slot(keys[i], t->mask); t->keys[s] != 0; s = (s + 1) & t->mask)
			;
		t->keys[s] = keys[i];
		t->vals[s] = i;
		t->n++;
	}
	return 0;
}

void
vpk_ep_table_free(struct ep_table *t)
{
	if (t == NULL)
		return;
	free(t->keys);
	free(t->vals);
	t->keys = NULL;
	t->vals = NULL;
	t->n = 0;
	t->mask = 0;
}

void
vpk_ep_cache_reset(struct ep_cache *c)
{
	memset(c, 0, sizeof(*c));
	for (unsigned i = 0; i < EP_CACHE_WAYS; i++)
		c->val[i] = EP_NONE;
	c->last_val = EP_NONE;
}
