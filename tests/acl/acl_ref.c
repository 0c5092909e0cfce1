/* SPDX-License-Identifier: BSD-3-Clause */
/* Brute-force ACL reference and test-set generator (see acl_ref.h). */
#include <stdlib.h>
#include <string.h>

#include "acl/acl_ref.h"
#include "lib/check.h"

static uint64_t
fmax_of(unsigned size)
{
	return size == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * size)) - 1;
}

static uint64_t
rd_be(const uint8_t *p, unsigned size)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < size; i++)
		v = v << 8 | p[i];
	return v;
}

static void
wr_be(uint8_t *p, unsigned size, uint64_t v)
{
	for (unsigned i = size; i-- > 0; v >>= 8)
		p[i] = (uint8_t)v;
}

#define D(t, s, fi, ii, o) ((struct vpk_acl_field_def){ VPK_ACL_FIELD_##t, s, fi, ii, o })

void
ref_set_init(struct ref_set *s, enum ref_layout l, uint32_t ncat)
{
	memset(s, 0, sizeof(*s));
	s->ncat = ncat;
	switch (l) {
	case REF_IPV4:
		s->name = "ipv4";
		s->defs[0] = D(BITMASK, 1, 0, 0, 0);
		s->defs[1] = D(MASK, 4, 1, 1, 4);
		s->defs[2] = D(MASK, 4, 2, 2, 8);
		s->defs[3] = D(RANGE, 2, 3, 3, 12);
		s->defs[4] = D(RANGE, 2, 4, 3, 14);
		s->nf = 5;
		s->buflen = 16;
		break;
	case REF_IPV4VLAN:
		/* field_index order differs from defs[] order on purpose (test_convert). */
		s->name = "ipv4vlan";
		s->defs[0] = D(BITMASK, 1, 0, 0, 4);
		s->defs[1] = D(BITMASK, 2, 5, 1, 0);
		s->defs[2] = D(BITMASK, 2, 6, 1, 2);
		s->defs[3] = D(MASK, 4, 2, 2, 12);
		s->defs[4] = D(MASK, 4, 1, 3, 8);
		s->defs[5] = D(RANGE, 2, 3, 4, 16);
		s->defs[6] = D(RANGE, 2, 4, 4, 18);
		s->nf = 7;
		s->buflen = 20;
		break;
	case REF_WIDE:
		s->name = "wide";
		s->defs[0] = D(BITMASK, 1, 0, 0, 0);
		s->defs[1] = D(MASK, 8, 1, 1, 8);
		s->defs[2] = D(RANGE, 8, 2, 2, 16);
		s->defs[3] = D(RANGE, 4, 3, 3, 24);
		s->defs[4] = D(BITMASK, 4, 4, 4, 28);
		s->defs[5] = D(BITMASK, 1, 5, 5, 1);
		s->defs[6] = D(RANGE, 1, 6, 5, 2);
		s->defs[7] = D(MASK, 2, 7, 5, 3);
		s->nf = 8;
		s->buflen = 32;
		break;
	case REF_SHORT:
		s->name = "short";
		s->defs[0] = D(BITMASK, 1, 0, 0, 0);
		s->defs[1] = D(MASK, 4, 1, 1, 4);
		s->defs[2] = D(RANGE, 2, 2, 2, 8);
		s->defs[3] = D(RANGE, 2, 3, 2, 10);
		s->nf = 4;
		s->buflen = 12;
		break;
	default:
		s->name = "ipv6";
		s->defs[0] = D(BITMASK, 1, 0, 0, 0);
		for (uint8_t k = 0; k < 8; k++)
			s->defs[1 + k] = D(MASK, 4, (uint8_t)(1 + k), (uint8_t)(1 + k), 4u + 4u * k);
		s->defs[9] = D(RANGE, 2, 9, 9, 36);
		s->defs[10] = D(RANGE, 2, 10, 9, 38);
		s->nf = 11;
		s->buflen = 40;
		break;
	}
}

void
ref_set_free(struct ref_set *s)
{
	free(s->rules);
	s->rules = NULL;
	s->n = s->cap = 0;
}

/* A small pool of "interesting" values per field so that rules nest and overlap. */
static uint64_t
pick_value(unsigned size)
{
	static const uint64_t base[] = { 0, 1, 0x0a000000, 0x0a010000, 0x0a010100, 0xc0a80000,
					 0xffffffff, 0x7f, 0x80, 0xff, 0x5, 0x35, 0x50, 0xffff,
					 0x1234, 0x8000 };
	uint64_t fm = fmax_of(size), v;

	switch (check_rand_range(4)) {
	case 0:
		v = base[check_rand_range(sizeof(base) / sizeof(base[0]))];
		break;
	case 1:
		v = check_rand();
		break;
	case 2:
		v = check_rand_range(4);
		break;
	default:
		v = fm - check_rand_range(4);
		break;
	}
	if (size == 8 && check_rand_range(2))
		v = v << 32 | (check_rand_range(3) == 0 ? 0xffffffffu : check_rand_range(5));
	return v & fm;
}

static void
gen_field(const struct vpk_acl_field_def *d, struct vpk_acl_field *f)
{
	unsigned bits = 8u * d->size;
	uint64_t fm = fmax_of(d->size), a, b;

	switch (d->type) {
	case VPK_ACL_FIELD_MASK: {
		static const unsigned lens[] = { 0, 1, 7, 8, 9, 16, 24, 31, 32 };
		unsigned len = check_rand_range(3) == 0 ? (unsigned)check_rand_range(bits + 1)
							: lens[check_rand_range(9)];

		f->value = pick_value(d->size);
		f->mask_range = len > bits ? bits : len;
		break;
	}
	case VPK_ACL_FIELD_BITMASK:
		f->value = pick_value(d->size);
		switch (check_rand_range(5)) {
		case 0:
			f->mask_range = 0;
			break;
		case 1:
			f->mask_range = fm;
			break;
		case 2: /* partial, non-prefix (0x64/0x7f, 0x5/0x5) */
			f->mask_range = check_rand() & fm;
			break;
		case 3:
			f->mask_range = (fm << check_rand_range(bits)) & fm;
			break;
		default:
			f->mask_range = fm >> 1;
			break;
		}
		break;
	default:
		a = pick_value(d->size);
		b = pick_value(d->size);
		switch (check_rand_range(5)) {
		case 0:
			a = 0, b = fm;
			break;
		case 1:
			b = a;
			break;
		case 2: {
			uint64_t dlt = check_rand_range(1000);

			b = fm - a < dlt ? fm : a + dlt;
			break;
		}
		default:
			break;
		}
		if (a > b) {
			uint64_t t = a;

			a = b;
			b = t;
		}
		f->value = a;
		f->mask_range = b;
		break;
	}
}

void
ref_set_gen(struct ref_set *s, uint32_t n, uint32_t prio_span)
{
	size_t rsz = VPK_ACL_RULE_SIZE(s->nf);

	if (s->n + n > s->cap) {
		s->cap = (s->n + n) * 2;
		s->rules = realloc(s->rules, (size_t)s->cap * rsz);
	}
	for (uint32_t i = 0; i < n; i++) {
		struct vpk_acl_rule *r = ref_rule(s, s->n);

		memset(r, 0, rsz);
		do
			r->category_mask = check_rand_range(3) == 0 ? 0xffff : check_rand_u32() & 0xffff;
		while ((r->category_mask & ((1u << s->ncat) - 1)) == 0);
		r->priority = 1 + (uint32_t)check_rand_range(prio_span);
		if (check_rand_range(50) == 0)
			r->priority = VPK_ACL_MAX_PRIORITY;
		r->userdata = s->n + 1;
		for (uint32_t k = 0; k < s->nf; k++)
			gen_field(&s->defs[k], &r->field[s->defs[k].field_index]);
		/* A copy of an earlier rule with one field narrowed: nesting. */
		if (s->n > 0 && check_rand_range(4) == 0) {
			const struct vpk_acl_rule *o = ref_rule(s, (uint32_t)check_rand_range(s->n));
			uint32_t k = (uint32_t)check_rand_range(s->nf);

			memcpy(r->field, o->field, 16 * (size_t)s->nf);
			gen_field(&s->defs[k], &r->field[s->defs[k].field_index]);
		}
		s->n++;
	}
}

static bool
field_match(const struct vpk_acl_field_def *d, const struct vpk_acl_field *f, uint64_t x)
{
	unsigned bits = 8u * d->size;
	uint64_t fm = fmax_of(d->size), m;

	switch (d->type) {
	case VPK_ACL_FIELD_MASK:
		m = f->mask_range == 0 ? 0 : (fm << (bits - f->mask_range)) & fm;
		return (x & m) == (f->value & m);
	case VPK_ACL_FIELD_BITMASK:
		return (x & f->mask_range) == (f->value & f->mask_range);
	default:
		return f->value <= x && x <= f->mask_range;
	}
}

void
ref_gen_packet(const struct ref_set *s, uint8_t *buf)
{
	const struct vpk_acl_rule *r;

	check_rand_bytes(buf, s->buflen);
	if (s->n == 0 || check_rand_range(8) == 0)
		return;
	r = ref_rule(s, (uint32_t)check_rand_range(s->n));
	for (uint32_t k = 0; k < s->nf; k++) {
		const struct vpk_acl_field_def *d = &s->defs[k];
		const struct vpk_acl_field *f = &r->field[d->field_index];
		uint64_t fm = fmax_of(d->size), x = rd_be(buf + d->offset, d->size), lo, hi;

		if (d->type == VPK_ACL_FIELD_RANGE) {
			lo = f->value;
			hi = f->mask_range;
		} else {
			uint64_t m = d->type == VPK_ACL_FIELD_BITMASK ? f->mask_range
					: f->mask_range == 0 ? 0
					: (fm << (8 * d->size - f->mask_range)) & fm;

			lo = f->value & m;
			hi = lo | (~m & fm);
			if (check_rand_range(2))
				x = (x & ~m) | (f->value & m);  /* satisfies partial masks too */
		}
		switch (check_rand_range(7)) {
		case 0:
			x = lo;
			break;
		case 1:
			x = hi;
			break;
		case 2:
			x = lo - 1;     /* wraps at 0: also a corner */
			break;
		case 3:
			x = hi + 1;
			break;
		default:
			break;
		}
		wr_be(buf + d->offset, d->size, x & fm);
	}
}

void
ref_classify(const struct ref_set *s, const uint8_t *pkt, uint32_t *results, uint32_t categories)
{
	uint32_t bestp[VPK_ACL_MAX_CATEGORIES] = { 0 };

	for (uint32_t c = 0; c < categories; c++)
		results[c] = 0;
	for (uint32_t i = 0; i < s->n; i++) {
		const struct vpk_acl_rule *r = ref_rule(s, i);
		bool ok = true;

		for (uint32_t k = 0; k < s->nf && ok; k++) {
			const struct vpk_acl_field_def *d = &s->defs[k];

			ok = field_match(d, &r->field[d->field_index], rd_be(pkt + d->offset, d->size));
		}
		if (!ok)
			continue;
		for (uint32_t c = 0; c < categories && c < s->ncat; c++)
			if ((r->category_mask >> c & 1) && r->priority > bestp[c]) {
				bestp[c] = r->priority;
				results[c] = r->userdata;
			}
	}
}
