/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_BUF_KERN_H
#define VPK_BUF_KERN_H

/* Private: the buffer index <-> pointer kernels and their implementation table. */
#include <vpk/buf.h>
#include "core/kern.h"

struct buf_kern_impl {
	struct vpk_impl base;
	vpk_buf_idx_to_ptr_fn idx_to_ptr;
	vpk_buf_ptr_to_idx_fn ptr_to_idx;
};

VPK_DECLARE_VARIANTS(struct buf_kern_impl, buf_kern);

/* Best first, NULL-terminated (buf_kernels.c). */
extern const struct vpk_impl *const buf_kern_impls[];

#endif
