/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_PKT_H
#define VPK_PKT_H

/**
 * @file
 * Packet header kernels shared by graph nodes: IPv4 header checksum
 * verification over a batch, and the scalar checksum helpers it rests on.
 *
 * All functions are data plane: they never fail and do not validate their
 * arguments. Headers are in network byte order as they sit in the packet;
 * pointers need no alignment.
 */
#include <stddef.h>
#include <stdint.h>
#include <vpk/isa.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Verify the IPv4 header checksums of @p n packets.
 *
 * For packet i, ok[i] = 1 when the header at hdrs[i] has IHL >= 5 and its
 * 16-bit one's complement sum over 4*IHL bytes (checksum field included) is
 * 0xffff; else ok[i] = 0. Reads exactly max(20, 4*IHL) bytes at each
 * hdrs[i] (20 when IHL < 5): the caller guarantees they are readable.
 */
typedef void (*vpk_ip4_csum_check_fn)(const uint8_t *const *hdrs, uint8_t *ok, size_t n);

/**
 * Get the IPv4 checksum kernel of level @p isa (VPK_ISA_AUTO: best usable under the cap).
 * @param[out] fn    The kernel.
 * @param[out] impl  Its implementation entry (name, isa, width); may be NULL.
 * @return 0, -EINVAL (@p fn NULL or @p isa out of range), or -ENOTSUP
 *         (that level is not compiled in, not supported here, or above the cap).
 */
VPK_API int vpk_ip4_csum_check_get(enum vpk_isa isa, vpk_ip4_csum_check_fn *fn,
				   const struct vpk_impl **impl);

/**
 * The IPv4 header checksum to store in a header of @p len bytes whose
 * checksum field may hold anything (it is treated as zero). Returned in
 * network byte order, ready to be copied into bytes 10-11.
 */
VPK_API uint16_t vpk_ip4_csum(const void *hdr, size_t len);

/**
 * RFC 1624 incremental update: the new checksum (network order) after a
 * 16-bit header word changes from @p old_word to @p new_word (both in
 * network order), given the old checksum @p csum (network order).
 * HC' = ~(~HC + ~m + m').
 */
VPK_API uint16_t vpk_csum_update16(uint16_t csum, uint16_t old_word, uint16_t new_word);

#ifdef __cplusplus
}
#endif

#endif /* VPK_PKT_H */
