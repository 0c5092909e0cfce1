/* SPDX-License-Identifier: BSD-3-Clause */
/* The implementation table of the buffer index <-> pointer kernels and its getter. */
#include <errno.h>

#include "buf/buf_kern.h"
#include "core/registry.h"

VPK_KERNEL_TABLE(buf_kern_impls, buf_kern, buf_kern, base);

VPK_KERNEL_REGISTER(buf_kern, "buf-idx-ptr", "buffer index <-> pointer conversion (per frame)",
		    buf_kern_impls);

int
vpk_buf_kernels_get(enum vpk_isa isa, vpk_buf_idx_to_ptr_fn *to_ptr,
		    vpk_buf_ptr_to_idx_fn *to_idx, const struct vpk_impl **impl)
{
	const struct vpk_impl *pick;
	const struct buf_kern_impl *k;
	int rc;

	if (to_ptr == NULL && to_idx == NULL && impl == NULL)
		return -EINVAL;
	rc = vpk_impl_pick(buf_kern_impls, isa, &pick);
	if (rc != 0)
		return rc;
	k = (const struct buf_kern_impl *)pick;
	if (to_ptr != NULL)
		*to_ptr = k->idx_to_ptr;
	if (to_idx != NULL)
		*to_idx = k->ptr_to_idx;
	if (impl != NULL)
		*impl = pick;
	return 0;
}
