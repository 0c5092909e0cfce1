/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_BUF_POOL_PRIV_H
#define VPK_BUF_POOL_PRIV_H

/*
 * Private: allocation for a receive path that writes every metadata line it
 * gets whole (the replay port builds each line from the template and the
 * packet's fields in one store, where vpk_pool_alloc_burst() would store
 * the template first and the receive loop the fields after it).
 */
#include <vpk/buf.h>

/* vpk_pool_alloc_burst() without the metadata reset: the caller must write
 * each buffer's metadata line, starting from pool_template(). */
uint32_t pool_alloc_raw(struct vpk_pool *p, uint32_t *idx, uint32_t n);

/* What vpk_pool_alloc_burst() resets metadata to. */
const struct vpk_buf *pool_template(const struct vpk_pool *p);

#endif
