/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ACL layouts and rules: validation (what rte_acl accepts silently and then
 * mis-classifies is refused here with a reason) and normalisation into the
 * per-dimension form the builder works on (acl_int.h).
 *
 * Layout rules follow rte_acl 22.11's input grouping (acl_bld.c
 * acl_build_index): defs[0] is one byte alone in group 0; every other group
 * of consecutive defs with one input_index covers exactly 4 bytes (fields
 * back to back in defs[] order) or is a single 8-byte field.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl_rules.h"
#include "core/errf.h"

#define fail(why, len, ...) vpk_errf(why, len, -EINVAL, __VA_ARGS__)

int
acl_layout_check(const struct vpk_acl_field_def *defs, uint32_t nf, char *why, size_t len)
{
	uint32_t seen_fi = 0, nd = 0;
	uint32_t gstart[VPK_ACL_MAX_FIELDS], gend[VPK_ACL_MAX_FIELDS], ng = 0;

	if (defs == NULL)
		return fail(why, len, "no field definitions");
	if (nf < 1 || nf > VPK_ACL_MAX_FIELDS)
		return fail(why, len, "num_fields %u not in 1..%u", nf, VPK_ACL_MAX_FIELDS);
	for (uint32_t i = 0; i < nf; i++) {
		const struct vpk_acl_field_def *d = &defs[i];

		if (d->type > VPK_ACL_FIELD_BITMASK)
			return fail(why, len, "field def %u: unknown type %u", i, d->type);
		if (d->size != 1 && d->size != 2 && d->size != 4 && d->size != 8)
			return fail(why, len, "field def %u: size %u not 1, 2, 4 or 8", i, d->size);
		if (d->field_index >= nf)
			return fail(why, len, "field def %u: field_index %u >= num_fields %u", i,
				    d->field_index, nf);
		if (seen_fi & (1u << d->field_index))
			return fail(why, len, "field def %u: field_index %u used twice", i,
				    d->field_index);
		seen_fi |= 1u << d->field_index;
		if ((uint64_t)d->offset + d->size > UINT32_MAX)
			return fail(why, len, "field def %u: offset too large", i);
		nd += d->size == 8 ? 2 : 1;
	}
	if (nd > ACL_MAX_DIMS)
		return fail(why, len, "%u fields (8-byte fields count twice) exceed %u", nd,
			    ACL_MAX_DIMS);
	if (defs[0].size != 1)
		return fail(why, len, "field def 0 must be 1 byte (input group 0 is one byte), not %u",
			    defs[0].size);
	if (nf > 1 && defs[1].input_index == defs[0].input_index)
		return fail(why, len, "field def 1 shares input_index %u with def 0, which must be alone",
			    defs[0].input_index);
	gstart[ng] = defs[0].offset;
	gend[ng++] = defs[0].offset + 1;
	for (uint32_t i = 1; i < nf;) {
		uint32_t j = i, sum = 0;

		for (uint32_t k = 0; k < i; k++)
			if (defs[k].input_index == defs[i].input_index)
				return fail(why, len,
					    "field def %u: input_index %u reused by a non-adjacent group",
					    i, defs[i].input_index);
		while (j < nf && defs[j].input_index == defs[i].input_index) {
			if (j > i && defs[j].offset != defs[j - 1].offset + defs[j - 1].size)
				return fail(why, len,
					    "field def %u: offset %u not right after def %u (%u+%u) in input group %u",
					    j, defs[j].offset, j - 1, defs[j - 1].offset,
					    defs[j - 1].size, defs[i].input_index);
			if (defs[j].size == 8 && j > i)
				return fail(why, len, "field def %u: an 8-byte field must be alone in its input group", j);
			sum += defs[j].size;
			j++;
		}
		if (!(sum == 4 || (sum == 8 && j == i + 1)))
			return fail(why, len,
				    "input group %u (defs %u..%u) covers %u bytes; a group must cover 4 (or be one 8-byte field)",
				    defs[i].input_index, i, j - 1, sum);
		gstart[ng] = defs[i].offset;
		gend[ng++] = defs[i].offset + sum;
		i = j;
	}
	for (uint32_t a = 0; a < ng; a++)
		for (uint32_t b = a + 1; b < ng; b++)
			if (gstart[a] < gend[b] && gstart[b] < gend[a])
				return fail(why, len, "input groups %u and %u overlap in memory ([%u,%u) and [%u,%u))",
					    a, b, gstart[a], gend[a], gstart[b], gend[b]);
	return 0;
}

void
acl_layout_dims(const struct vpk_acl_field_def *defs, uint32_t nf, struct acl_layout *lay)
{
	uint32_t nd = 0;

	memset(lay, 0, sizeof(*lay));
	for (uint32_t i = 0; i < nf; i++) {
		const struct vpk_acl_field_def *d = &defs[i];

		lay->def_dim[i] = (uint8_t)nd;
		if (d->size == 8) {
			lay->src[nd] = (struct acl_dimsrc){ d->offset, 4 };
			lay->dbits[nd++] = 32;
			lay->src[nd] = (struct acl_dimsrc){ d->offset + 4, 4 };
			lay->dbits[nd++] = 32;
		} else {
			lay->src[nd] = (struct acl_dimsrc){ d->offset, d->size };
			lay->dbits[nd++] = (uint8_t)(8 * d->size);
		}
	}
	lay->nd = nd;
}

static uint64_t
field_max(unsigned size)
{
	return size == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * size)) - 1;
}

int
acl_rule_check(const struct vpk_acl_field_def *defs, uint32_t nf, uint32_t ncat,
	       const struct vpk_acl_rule *r, char *why, size_t len)
{
	if ((r->category_mask & ((1u << ncat) - 1)) == 0)
		return fail(why, len, "category_mask 0x%x has no bit below num_categories %u",
			    r->category_mask, ncat);
	if (r->priority < 1 || r->priority > VPK_ACL_MAX_PRIORITY)
		return fail(why, len, "priority %u not in 1..%u", r->priority, VPK_ACL_MAX_PRIORITY);
	if (r->userdata == 0)
		return fail(why, len, "userdata 0 is reserved for 'no match'");
	if (r->reserved != 0)
		return fail(why, len, "reserved word is not 0");
	for (uint32_t i = 0; i < nf; i++) {
		const struct vpk_acl_field_def *d = &defs[i];
		const struct vpk_acl_field *f = &r->field[d->field_index];
		uint64_t fmax = field_max(d->size);

		if (f->value > fmax)
			return fail(why, len, "field %u: value 0x%llx wider than %u bits",
				    d->field_index, (unsigned long long)f->value, 8 * d->size);
		switch (d->type) {
		case VPK_ACL_FIELD_MASK:
			if (f->mask_range > 8u * d->size)
				return fail(why, len, "field %u: prefix length %llu longer than the %u-bit field",
					    d->field_index, (unsigned long long)f->mask_range,
					    8 * d->size);
			break;
		case VPK_ACL_FIELD_BITMASK:
			if (f->mask_range > fmax)
				return fail(why, len, "field %u: bit mask 0x%llx wider than %u bits",
					    d->field_index, (unsigned long long)f->mask_range,
					    8 * d->size);
			break;
		default:
			if (f->mask_range > fmax)
				return fail(why, len, "field %u: range high 0x%llx wider than %u bits",
					    d->field_index, (unsigned long long)f->mask_range,
					    8 * d->size);
			if (f->value > f->mask_range)
				return fail(why, len, "field %u: range low %llu > high %llu",
					    d->field_index, (unsigned long long)f->value,
					    (unsigned long long)f->mask_range);
			break;
		}
	}
	return 0;
}

/* One dimension's condition. */
struct cond {
	uint32_t lo, hi, m;
};

/* (x & m) == (v & m) over a word of @p bits bits, as a condition. */
static struct cond
cond_bitmask(uint32_t v, uint32_t m, unsigned bits)
{
	uint32_t full = bits == 32 ? UINT32_MAX : (1u << bits) - 1;
	uint32_t inv = ~m & full;

	m &= full;
	/* Prefix-shaped mask (ones then zeros): an interval. */
	if ((inv & (inv + 1)) == 0)
		return (struct cond){ v & m, (v & m) | inv, UINT32_MAX };
	return (struct cond){ v & m, v & m, m };
}

static uint64_t
prefix_mask(unsigned len, unsigned bits)
{
	uint64_t full = field_max(bits / 8);

	if (len == 0)
		return 0;
	return (full << (bits - len)) & full;
}

/* Conditions of field @p d of rule @p f; boxes for 8-byte ranges. Returns #alternatives (1..3). */
static unsigned
field_conds(const struct vpk_acl_field_def *d, const struct vpk_acl_field *f,
	    struct cond alt[3][2])
{
	unsigned bits = 8u * d->size;
	uint64_t v = f->value, mr = f->mask_range;

	if (d->type == VPK_ACL_FIELD_RANGE) {
		if (d->size != 8) {
			alt[0][0] = (struct cond){ (uint32_t)v, (uint32_t)mr, UINT32_MAX };
			return 1;
		}
		uint32_t lh = (uint32_t)(v >> 32), ll = (uint32_t)v;
		uint32_t hh = (uint32_t)(mr >> 32), hl = (uint32_t)mr;
		unsigned n = 0;

		if (lh == hh) {
			alt[0][0] = (struct cond){ lh, lh, UINT32_MAX };
			alt[0][1] = (struct cond){ ll, hl, UINT32_MAX };
			return 1;
		}
		alt[n][0] = (struct cond){ lh, lh, UINT32_MAX };
		alt[n++][1] = (struct cond){ ll, UINT32_MAX, UINT32_MAX };
		if (lh + 1 <= hh - 1) {
			alt[n][0] = (struct cond){ lh + 1, hh - 1, UINT32_MAX };
			alt[n++][1] = (struct cond){ 0, UINT32_MAX, UINT32_MAX };
		}
		alt[n][0] = (struct cond){ hh, hh, UINT32_MAX };
		alt[n++][1] = (struct cond){ 0, hl, UINT32_MAX };
		return n;
	}
	uint64_t m = d->type == VPK_ACL_FIELD_MASK ? prefix_mask((unsigned)mr, bits) : mr;

	if (d->size == 8) {
		alt[0][0] = cond_bitmask((uint32_t)(v >> 32), (uint32_t)(m >> 32), 32);
		alt[0][1] = cond_bitmask((uint32_t)v, (uint32_t)m, 32);
	} else {
		alt[0][0] = cond_bitmask((uint32_t)v, (uint32_t)m, bits);
	}
	return 1;
}

int
acl_prio_cmp(const void *a, const void *b)
{
	const struct acl_prio_idx *x = a, *y = b;

	if (x->prio != y->prio)
		return x->prio > y->prio ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

uint32_t
acl_rank_shift(uint32_t nrules)
{
	unsigned bits = 0;

	while (bits < 31 && ((uint64_t)1 << bits) <= nrules)
		bits++;
	return 31 - bits;
}

int
acl_normalize(const struct vpk_acl_field_def *defs, uint32_t nf, uint32_t ncat,
	      const uint8_t *rules, uint32_t nrules, size_t rsz, const uint32_t *rank_in,
	      struct acl_mem *mt, struct acl_nrules *out)
{
	uint32_t shift = acl_rank_shift(nrules);

	struct acl_layout lay;
	struct acl_prio_idx *order;
	uint32_t cap, n = 0, nd;
	uint16_t catmask = (uint16_t)((1u << ncat) - 1);

	acl_layout_dims(defs, nf, &lay);
	nd = lay.nd;
	memset(out, 0, sizeof(*out));
	out->nd = nd;
	memcpy(out->dbits, lay.dbits, sizeof(lay.dbits));
	order = acl_malloc(mt, (size_t)nrules * sizeof(*order) + 1);
	if (order == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < nrules; i++) {
		const struct vpk_acl_rule *r = (const void *)(rules + (size_t)i * rsz);

		/* Given ranks sort ascending: their complements descending. */
		order[i] = (struct acl_prio_idx){ rank_in != NULL ? ~rank_in[i] : r->priority, i };
	}
	qsort(order, nrules, sizeof(*order), acl_prio_cmp);

	cap = nrules + 16;
	out->lo = acl_malloc(mt, (size_t)cap * nd * 4);
	out->hi = acl_malloc(mt, (size_t)cap * nd * 4);
	out->m = acl_malloc(mt, (size_t)cap * nd * 4);
	out->rank = acl_malloc(mt, (size_t)cap * 4);
	out->ud = acl_malloc(mt, (size_t)cap * 4);
	out->cats = acl_malloc(mt, (size_t)cap * 2);
	if (!out->lo || !out->hi || !out->m || !out->rank || !out->ud || !out->cats)
		goto nomem;

	for (uint32_t k = 0; k < nrules; k++) {
		const struct vpk_acl_rule *r = (const void *)(rules + (size_t)order[k].idx * rsz);
		uint16_t cats = (uint16_t)(r->category_mask & catmask);
		struct cond base[ACL_MAX_DIMS];
		struct cond alt[VPK_ACL_MAX_FIELDS][3][2];
		unsigned nalt[VPK_ACL_MAX_FIELDS], total = 1;

		if (cats == 0)
			continue;
		for (uint32_t i = 0; i < nf; i++) {
			nalt[i] = field_conds(&defs[i], &r->field[defs[i].field_index], alt[i]);
			total *= nalt[i];
		}
		if (n + total > cap) {
			uint32_t ncap = (n + total) * 2;

			if (!(out->lo = acl_realloc(mt, out->lo, (size_t)ncap * nd * 4)) ||
			    !(out->hi = acl_realloc(mt, out->hi, (size_t)ncap * nd * 4)) ||
			    !(out->m = acl_realloc(mt, out->m, (size_t)ncap * nd * 4)) ||
			    !(out->rank = acl_realloc(mt, out->rank, (size_t)ncap * 4)) ||
			    !(out->ud = acl_realloc(mt, out->ud, (size_t)ncap * 4)) ||
			    !(out->cats = acl_realloc(mt, out->cats, (size_t)ncap * 2)))
				goto nomem;
			cap = ncap;
		}
		/* Enumerate the cross product of alternatives (1 unless 8-byte ranges). */
		for (unsigned b = 0; b < total; b++) {
			unsigned x = b;

			for (uint32_t i = 0; i < nf; i++) {
				unsigned a = x % nalt[i], dd = lay.def_dim[i];

				x /= nalt[i];
				base[dd] = alt[i][a][0];
				if (defs[i].size == 8)
					base[dd + 1] = alt[i][a][1];
			}
			for (uint32_t d = 0; d < nd; d++) {
				out->lo[(size_t)n * nd + d] = base[d].lo;
				out->hi[(size_t)n * nd + d] = base[d].hi;
				out->m[(size_t)n * nd + d] = base[d].m;
			}
			out->rank[n] = rank_in != NULL ? rank_in[order[k].idx] : acl_rank_of(k, shift);
			out->ud[n] = r->userdata;
			out->cats[n] = cats;
			n++;
		}
	}
	out->n = n;
	out->nrules = nrules;
	acl_free(mt, order);
	return 0;
nomem:
	acl_free(mt, order);
	acl_nrules_free(mt, out);
	return -ENOMEM;
}

void
acl_nrules_free(struct acl_mem *mt, struct acl_nrules *nr)
{
	acl_free(mt, nr->lo);
	acl_free(mt, nr->hi);
	acl_free(mt, nr->m);
	acl_free(mt, nr->rank);
	acl_free(mt, nr->ud);
	acl_free(mt, nr->cats);
	memset(nr, 0, sizeof(*nr));
}
