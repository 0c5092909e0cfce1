/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_ACL_FILE_H
#define VPK_ACL_FILE_H

/**
 * @file
 * 5-tuple rule sets and traces in DPDK's file formats, and the standard
 * 5-tuple layouts.
 *
 * Rule files (research: dpdk-test-acl and l3fwd):
 *  - ClassBench / dpdk-test-acl: `@src/len dst/len lo : hi lo : hi proto/mask`
 *    (tokens split on blanks, the ':' its own token, extra tokens ignored,
 *    `#` comments and blank lines skipped). IPv6 addresses in any RFC 4291
 *    text form with --ipv6.
 *  - l3fwd ACL: the same body after `@` (ACL entry: drop) or `R` (route:
 *    one more token, the output port). Lines starting with anything else
 *    are errors.
 * Rule i (0-based, counting rule lines only) gets priority
 * VPK_ACL_MAX_PRIORITY - i - 1 and userdata i + 1 (dpdk-test-acl), so the
 * first matching rule in file order wins.
 * Traces: `src dst sport dport proto [expected]`, IPv4 addresses as unsigned
 * integers (decimal or 0x), IPv6 as text; expected = 0-based rule index,
 * 4294967295 = no match.
 * Numbers are decimal or 0x hex (a leading zero is still decimal), with no
 * sign and no trailing text. A NUL byte anywhere is an error, never a blank.
 * Parsers read the whole input first: on error nothing is returned and the
 * reason names the file, the line and what is wrong. Files are read one line
 * at a time, so memory follows the rules kept, not the file: a file over its
 * cap (VPK_ACL5_MAX_RULE_FILE, VPK_ACL5_MAX_TRACE_FILE) is refused before its
 * first line when its size is known, and a line over VPK_ACL5_MAX_LINE bytes
 * is an error.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <vpk/acl.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VPK_ACL5_NO_MATCH UINT32_MAX    /**< trace "expected" for no match */

/** Size caps of the loaders: rule files 256 MiB, trace files 1 GiB, lines 4 KiB. */
#define VPK_ACL5_MAX_RULE_FILE  (UINT64_C(256) << 20)
#define VPK_ACL5_MAX_TRACE_FILE (UINT64_C(1) << 30)
#define VPK_ACL5_MAX_LINE       4096

/** A 5-tuple rule as written in the files. Addresses in network byte order. */
struct vpk_acl5_rule {
	uint8_t src[16], dst[16];       /**< IPv4 uses the first 4 bytes */
	uint8_t src_len, dst_len;       /**< prefix lengths */
	uint8_t proto, proto_mask;
	uint16_t sport_lo, sport_hi, dport_lo, dport_hi;
	int32_t port;                   /**< l3fwd: route port, -1 for an ACL (`@`) line */
};

/** One trace record. */
struct vpk_acl5_pkt {
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	uint8_t proto;
	bool has_expected;
	uint32_t expected;              /**< 0-based rule index or VPK_ACL5_NO_MATCH */
};

enum vpk_acl5_format {
	VPK_ACL5_CLASSBENCH = 0,        /**< `@` lines only (dpdk-test-acl) */
	VPK_ACL5_L3FWD = 1,             /**< `R` and `@` lines, at least one `R` */
	VPK_ACL5_AUTO = 2,              /**< `R` and `@` lines: l3fwd when an `R` line is present */
};

/**
 * Parse a rule file (or, with @p path "-", stdin).
 * @param max  stop with an error past this many rules (0 = no limit).
 * @param[out] out  malloc'd array (free()), untouched on error.
 * The reason of a failure is in vpk_last_error(): "file:line: what".
 * @return 0, -ENOENT/-EACCES/-EIO (cannot read), -EINVAL (syntax or value),
 *         -E2BIG (more than @p max rules), -EFBIG (over the file cap), -ENOMEM.
 */
VPK_API int vpk_acl5_load_rules(const char *path, bool ipv6, enum vpk_acl5_format fmt, uint32_t max,
				struct vpk_acl5_rule **out, uint32_t *n);

/** Same, from memory; @p name is used in messages. Same return values minus I/O ones. */
VPK_API int vpk_acl5_parse_rules(const char *buf, size_t size, const char *name, bool ipv6,
				 enum vpk_acl5_format fmt, uint32_t max,
				 struct vpk_acl5_rule **out, uint32_t *n);

/**
 * Parse a trace file; at most @p max records are kept (0 = all), like
 * dpdk-test-acl's --tracenum. Same errors as vpk_acl5_load_rules() except -E2BIG.
 */
VPK_API int vpk_acl5_load_trace(const char *path, bool ipv6, uint32_t max,
				struct vpk_acl5_pkt **out, uint32_t *n);

/** Same, from memory. */
VPK_API int vpk_acl5_parse_trace(const char *buf, size_t size, const char *name, bool ipv6,
				 uint32_t max, struct vpk_acl5_pkt **out, uint32_t *n);

/** Write rules in ClassBench (`@`) or l3fwd (`R` when port >= 0) form. @return 0 or -EIO. */
VPK_API int vpk_acl5_write_rules(FILE *f, const struct vpk_acl5_rule *r, uint32_t n, bool ipv6);

/** Write trace records (with the expected column when has_expected). @return 0 or -EIO. */
VPK_API int vpk_acl5_write_trace(FILE *f, const struct vpk_acl5_pkt *p, uint32_t n, bool ipv6);

/**
 * The dpdk-test-acl layouts: IPv4 `struct ipv4_5tuple` (16 bytes, 5 fields)
 * or IPv6 in 4-byte words (40 bytes, 11 fields). @p defs needs 11 entries.
 * @return the number of fields.
 */
VPK_API uint32_t vpk_acl5_layout(bool ipv6, struct vpk_acl_field_def *defs);

/**
 * dpdk-test-acl's `--ipv6=8B` layout: the same 40-byte buffer as the IPv6
 * layout above, each address as two 8-byte MASK fields (7 fields: protocol,
 * source high and low, destination high and low, ports). @p defs needs 7
 * entries. @return 7.
 */
VPK_API uint32_t vpk_acl5_layout_ipv6_8b(struct vpk_acl_field_def *defs);

/** Bytes of one classified buffer in that layout (16 or 40). */
VPK_API uint32_t vpk_acl5_buf_size(bool ipv6);

/**
 * True when @p r constrains neither port (both ranges 0-65535): the rules a
 * non-first fragment, which carries no ports, may match; build
 * vpk_acl_node_conf::acl_frag from these.
 */
VPK_API bool vpk_acl5_rule_portless(const struct vpk_acl5_rule *r);

/**
 * Convert rules to vpk_acl rules of that layout (stride
 * VPK_ACL_RULE_SIZE(vpk_acl5_layout())), priority and userdata by file order
 * as described above, category_mask @p cats.
 */
VPK_API void vpk_acl5_to_rules(const struct vpk_acl5_rule *r, uint32_t n, bool ipv6,
			       uint32_t cats, void *out);

/** The same for the `--ipv6=8B` layout (vpk_acl5_layout_ipv6_8b(), stride VPK_ACL_RULE_SIZE(7)). */
VPK_API void vpk_acl5_to_rules_ipv6_8b(const struct vpk_acl5_rule *r, uint32_t n, uint32_t cats, void *out);

/** Write a trace record as a classified buffer of that layout (both IPv6 layouts share it). */
VPK_API void vpk_acl5_pkt_bytes(const struct vpk_acl5_pkt *p, bool ipv6, uint8_t *buf);

#ifdef __cplusplus
}
#endif

#endif /* VPK_ACL_FILE_H */
