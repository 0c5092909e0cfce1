/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TEST_ACL_REF_H
#define VPK_TEST_ACL_REF_H

/*
 * Brute-force reference classifier with rte_acl semantics, written directly
 * from the definition (no normalisation, no shared code with src/acl), and a
 * generator of random and adversarial rule sets and packets for the tests.
 */
#include <stddef.h>
#include <stdint.h>

#include <vpk/acl.h>

/* A rule set over one layout. rules: n entries of stride VPK_ACL_RULE_SIZE(nf). */
struct ref_set {
	const char *name;
	struct vpk_acl_field_def defs[VPK_ACL_MAX_FIELDS];
	uint32_t nf;
	uint32_t ncat;
	uint32_t buflen;        /* bytes a packet buffer needs */
	uint8_t *rules;
	uint32_t n, cap;
};

static inline struct vpk_acl_rule *
ref_rule(const struct ref_set *s, uint32_t i)
{
	return (struct vpk_acl_rule *)(void *)(s->rules + (size_t)i * VPK_ACL_RULE_SIZE(s->nf));
}

/* Layouts. */
enum ref_layout {
	REF_IPV4,               /* dpdk-test-acl ipv4_5tuple */
	REF_IPV4VLAN,           /* acl_autotest 7 fields incl. VLAN/domain bitmasks */
	REF_WIDE,               /* 8-byte MASK, 8-byte RANGE, 32-bit RANGE, 32-bit BITMASK */
	REF_IPV6,               /* dpdk-test-acl --ipv6 (4-byte words) */
	REF_SHORT,              /* 12 bytes: fields end before byte 16 (keys without rows) */
	REF_NLAYOUTS
};

void ref_set_init(struct ref_set *s, enum ref_layout l, uint32_t ncat);
void ref_set_free(struct ref_set *s);
/* Append @p n random/adversarial rules; @p prio_span small = many equal priorities. */
void ref_set_gen(struct ref_set *s, uint32_t n, uint32_t prio_span);
/* Fill a packet buffer (s->buflen bytes): corners of a random rule or random bytes. */
void ref_gen_packet(const struct ref_set *s, uint8_t *buf);
/* results[c] for c < categories, as rte_acl would return them. */
void ref_classify(const struct ref_set *s, const uint8_t *pkt, uint32_t *results,
		  uint32_t categories);

#endif
