/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ACL classify, the avx512x16 variant: acl_kern_avx512.c compiled again with
 * only its ymm paths (ACL_YMM_ONLY), so that no zmm instruction is in the
 * code the cap 256 runs (test acl_width; docs/acl.md).
 */
#define ACL_YMM_ONLY 1
#include "acl_kern_avx512.c"
