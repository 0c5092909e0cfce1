/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk_impl_pick(): choose an implementation from a component's best-first
 * table. A forced request that cannot run returns -ENOTSUP; nothing here
 * ever selects code the CPU, the OS or the cap does not allow.
 */
#include <errno.h>
#include <string.h>

#include <vpk/isa.h>

static bool
impl_usable(const struct vpk_impl *impl)
{
	return impl->isa > VPK_ISA_AUTO && impl->isa < VPK_ISA_COUNT &&
	       vpk_isa_compiled(impl->isa) && vpk_isa_cpu_supported(impl->isa) &&
	       vpk_isa_os_supported(impl->isa) && impl->width <= vpk_get_max_simd_bitwidth();
}

int
vpk_impl_pick(const struct vpk_impl *const *tab, enum vpk_isa want,
	      const struct vpk_impl **out)
{
	if (tab == NULL || out == NULL || (unsigned)want >= VPK_ISA_COUNT)
		return -EINVAL;
	for (; *tab != NULL; tab++) {
		if (want != VPK_ISA_AUTO && (*tab)->isa != want)
			continue;
		if (impl_usable(*tab)) {
			*out = *tab;
			return 0;
		}
	}
	return -ENOTSUP;
}

int
vpk_impl_pick_name(const struct vpk_impl *const *tab, const char *name,
		   const struct vpk_impl **out)
{
	enum vpk_isa isa;

	if (tab == NULL || name == NULL || out == NULL)
		return -EINVAL;
	for (const struct vpk_impl *const *t = tab; *t != NULL; t++) {
		if (strcmp((*t)->name, name) == 0) {
			if (!impl_usable(*t))
				return -ENOTSUP;
			*out = *t;
			return 0;
		}
	}
	if (vpk_isa_from_name(name, &isa) != 0)
		return -EINVAL;
	return vpk_impl_pick(tab, isa, out);
}
