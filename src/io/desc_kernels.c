/* SPDX-License-Identifier: BSD-3-Clause */
/* The implementation table of the live-I/O descriptor kernels (desc_kern.c) and its getter. */
#include <errno.h>

#include "io/desc_kern.h"
#include "core/registry.h"

VPK_KERNEL_TABLE(io_desc_kern_impls, io_desc, io_desc_kern, base);

VPK_KERNEL_REGISTER(io_desc_kern, "io-desc",
		    "live I/O: AF_XDP/TPACKET descriptors <-> buffer metadata, fill/completion recycling",
		    io_desc_kern_impls);

int
io_desc_kern_get(enum vpk_isa isa, const struct io_desc_kern_impl **out)
{
	const struct vpk_impl *pick;
	int rc = out != NULL ? vpk_impl_pick(io_desc_kern_impls, isa, &pick) : -EINVAL;

	if (rc == 0)
		*out = (const struct io_desc_kern_impl *)pick;
	return rc;
}
