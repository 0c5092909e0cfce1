/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_FIB_FILE_H
#define VPK_FIB_FILE_H

/**
 * @file
 * Route and lookup files in dpdk-test-fib's formats, for IPv4 and IPv6.
 *
 * Routes (-f): one route per line, `PREFIX/LEN [NEXTHOP]`, separated by
 * spaces or tabs. PREFIX is an IPv4 or IPv6 address (inet_pton), LEN a
 * decimal length <= 32/128, NEXTHOP an unsigned integer, decimal or 0x hex
 * (core/num.h: a leading zero is still decimal), <= 2^63-1. The next hop may be
 * omitted (route-view dumps have none); then has_nh = 0 and the caller
 * chooses one. Blank lines and lines starting with '#' are skipped (an
 * extension: dpdk-test-fib rejects them). Host bits are kept as written.
 *
 * Lookups (-t): one address per line (first token), IPv4 or IPv6. IPv4
 * addresses are returned in host byte order as written: vpk does not copy
 * dpdk-test-fib's byte reversal of IPv4 lookup keys.
 *
 * Errors: -EINVAL with "file:line: reason" in err; nothing is returned then
 * (all or nothing). A NUL byte is an error, never a blank.
 *
 * Files are read one line at a time: a route file over
 * VPK_FIB_FILE_MAX_ROUTES (256 MiB; a full IPv6 table is ~10 MiB) or a
 * lookup file over VPK_FIB_FILE_MAX_LOOKUPS (1 GiB) is refused with -EFBIG
 * before its first line, a line over VPK_FIB_FILE_MAX_LINE bytes with
 * -EINVAL.
 */
#include <stddef.h>
#include <stdint.h>

#include <vpk/error.h>
#include <vpk/isa.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Size caps of the loaders: route files 256 MiB, lookup files 1 GiB, lines 1 KiB. */
#define VPK_FIB_FILE_MAX_ROUTES  (UINT64_C(256) << 20)
#define VPK_FIB_FILE_MAX_LOOKUPS (UINT64_C(1) << 30)
#define VPK_FIB_FILE_MAX_LINE    1024

/** One route as written in the file. */
struct vpk_fib_file_route {
	uint8_t addr[16];       /**< network order; IPv4 in addr[0..3] */
	uint8_t depth;
	uint8_t has_nh;         /**< 0: the line had no next hop */
	uint64_t nh;
};

/** The routes of a file, in file order. */
struct vpk_fib_file_routes {
	struct vpk_fib_file_route *r;
	size_t n;
};

/**
 * Parse route text (@p name is the file name in errors); family 4 or 6.
 * @return 0, -EINVAL (vpk_last_error(): "file:line: reason") or -ENOMEM.
 */
VPK_API int vpk_fib_file_parse_routes(const char *text, size_t len, const char *name, int family,
				      struct vpk_fib_file_routes *out);
/** Read and parse a route file; as vpk_fib_file_parse_routes(), -EFBIG over the cap, -errno from open. */
VPK_API int vpk_fib_file_load_routes(const char *path, int family, struct vpk_fib_file_routes *out);
VPK_API void vpk_fib_file_free_routes(struct vpk_fib_file_routes *rt);

/** Addresses: 4 bytes (host order uint32) or 16 bytes each in *out (malloc'd, free() it). */
VPK_API int vpk_fib_file_parse_addrs(const char *text, size_t len, const char *name, int family,
				     void **out, size_t *n);
VPK_API int vpk_fib_file_load_addrs(const char *path, int family, void **out, size_t *n);

#ifdef __cplusplus
}
#endif

#endif /* VPK_FIB_FILE_H */
