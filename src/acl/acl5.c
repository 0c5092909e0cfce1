/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The dpdk-test-acl 5-tuple layouts, conversion of file rules to vpk_acl
 * rules and of trace records to classified buffers. The brute-force oracle
 * that writes the expected column of generated traces is the tool's
 * (tools/vpk/acl/acl_oracle.c): a test reference, not a library function.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/acl_file.h>

#define F(t, s, fi, ii, o) ((struct vpk_acl_field_def){ VPK_ACL_FIELD_##t, s, fi, ii, o })

uint32_t
vpk_acl5_layout(bool ipv6, struct vpk_acl_field_def *d)
{
	d[0] = F(BITMASK, 1, 0, 0, 0);
	if (!ipv6) {
		d[1] = F(MASK, 4, 1, 1, 4);
		d[2] = F(MASK, 4, 2, 2, 8);
		d[3] = F(RANGE, 2, 3, 3, 12);
		d[4] = F(RANGE, 2, 4, 3, 14);
		return 5;
	}
	for (uint8_t k = 0; k < 8; k++)
		d[1 + k] = F(MASK, 4, (uint8_t)(1 + k), (uint8_t)(1 + k), 4u + 4u * k);
	d[9] = F(RANGE, 2, 9, 9, 36);
	d[10] = F(RANGE, 2, 10, 9, 38);
	return 11;
}

uint32_t
vpk_acl5_layout_ipv6_8b(struct vpk_acl_field_def *d)
{
	d[0] = F(BITMASK, 1, 0, 0, 0);
	for (uint8_t k = 0; k < 4; k++)         /* src high, src low, dst high, dst low */
		d[1 + k] = F(MASK, 8, (uint8_t)(1 + k), (uint8_t)(1 + k), 4u + 8u * k);
	d[5] = F(RANGE, 2, 5, 5, 36);
	d[6] = F(RANGE, 2, 6, 5, 38);
	return 7;
}

uint32_t
vpk_acl5_buf_size(bool ipv6)
{
	return ipv6 ? 40 : 16;
}

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t
be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

/* Prefix length left for word k of @p bits bits of a /len address. */
static uint8_t
word_len(unsigned len, unsigned k, unsigned bits)
{
	int l = (int)len - (int)(bits * k);

	return (uint8_t)(l < 0 ? 0 : l > (int)bits ? bits : (unsigned)l);
}

/* Rule i of @p nf fields at out: priority and userdata by file order, the protocol field. */
static struct vpk_acl_rule *
rule_head(void *out, uint32_t i, uint32_t nf, uint32_t cats, const struct vpk_acl5_rule *x)
{
	size_t rsz = VPK_ACL_RULE_SIZE(nf);
	struct vpk_acl_rule *o = (struct vpk_acl_rule *)(void *)((uint8_t *)out + (size_t)i * rsz);

	memset(o, 0, rsz);
	o->category_mask = cats;
	o->priority = VPK_ACL_MAX_PRIORITY - (i + 1) % VPK_ACL_MAX_PRIORITY;
	o->userdata = i + 1;
	o->field[0] = (struct vpk_acl_field){ x->proto, x->proto_mask };
	return o;
}

/* Rules with each address as @p nw words of @p bits (32 or 64) bits, then the two ports. */
static void
to_rules_words(const struct vpk_acl5_rule *r, uint32_t n, uint32_t cats, void *out, unsigned nw, unsigned bits)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct vpk_acl5_rule *x = &r[i];
		struct vpk_acl_rule *o = rule_head(out, i, 3 + 2 * nw, cats, x);

		for (unsigned k = 0; k < nw; k++) {
			const uint8_t *sa = x->src + bits / 8 * k, *da = x->dst + bits / 8 * k;

			o->field[1 + k] = (struct vpk_acl_field){ bits == 64 ? be64(sa) : be32(sa),
								  word_len(x->src_len, k, bits) };
			o->field[1 + nw + k] = (struct vpk_acl_field){ bits == 64 ? be64(da) : be32(da),
								       word_len(x->dst_len, k, bits) };
		}
		o->field[1 + 2 * nw] = (struct vpk_acl_field){ x->sport_lo, x->sport_hi };
		o->field[2 + 2 * nw] = (struct vpk_acl_field){ x->dport_lo, x->dport_hi };
	}
}

void
vpk_acl5_to_rules_ipv6_8b(const struct vpk_acl5_rule *r, uint32_t n, uint32_t cats, void *out)
{
	to_rules_words(r, n, cats, out, 2, 64);
}

bool
vpk_acl5_rule_portless(const struct vpk_acl5_rule *r)
{
	return r->sport_lo == 0 && r->sport_hi == 0xffff && r->dport_lo == 0 && r->dport_hi == 0xffff;
}

void
vpk_acl5_to_rules(const struct vpk_acl5_rule *r, uint32_t n, bool ipv6, uint32_t cats, void *out)
{
	to_rules_words(r, n, cats, out, ipv6 ? 4 : 1, 32);
}

void
vpk_acl5_pkt_bytes(const struct vpk_acl5_pkt *p, bool ipv6, uint8_t *b)
{
	unsigned al = ipv6 ? 16 : 4, po = ipv6 ? 36 : 12;

	memset(b, 0, vpk_acl5_buf_size(ipv6));
	b[0] = p->proto;
	memcpy(b + 4, p->src, al);
	memcpy(b + 4 + al, p->dst, al);
	b[po] = (uint8_t)(p->sport >> 8), b[po + 1] = (uint8_t)p->sport;
	b[po + 2] = (uint8_t)(p->dport >> 8), b[po + 3] = (uint8_t)p->dport;
}
