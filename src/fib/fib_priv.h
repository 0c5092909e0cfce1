/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_FIB_PRIV_H
#define VPK_FIB_PRIV_H

/* Internal FIB helpers for tools and tests (not part of the public API). */
#include <stdint.h>

#include <vpk/fib.h>
#include <vpk/fib6.h>

/* Longest-prefix match by walking the RIB (the control plane's own answer,
 * independent of the dataplane): the reference of `vpk fib -c`. */
uint64_t vpk_fib_lookup_rib(const struct vpk_fib *fib, uint32_t ip);

/* The same for IPv6. */
uint64_t vpk_fib6_lookup_rib(const struct vpk_fib6 *fib, const uint8_t ip[16]);

#endif
