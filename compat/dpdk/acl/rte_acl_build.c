/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_acl_build() into a vpk ACL context: the field layout, then the rules.
 *
 * Layout. DPDK reads an input group (consecutive defs with one input_index)
 * as bytes back to back from the offset of the group's first field, in defs
 * order; it builds any layout, also overlapping or oddly grouped ones. vpk
 * takes the layouts where that reading is plain (vpk_acl_conf_check()):
 * those are passed through and vpk reads the caller's buffers directly.
 * Any other layout is "packed": each group's bytes are copied, at classify
 * time, from where DPDK would read them into a small record that vpk's rules
 * accept (byte 0 alone, then 4-byte groups, short groups padded with
 * wildcard bytes), so the answers stay DPDK's at the cost of the copy.
 *
 * Rules. Values are read at the width of their field, as DPDK reads the
 * union rte_acl_field_types (the bytes above it are not looked at); a MASK
 * length is the whole u64 member, as rte_acl reads it (dpdk_prefix_mask());
 * category bits at or
 * above the build's num_categories are dropped and a rule left without one
 * is not built (DPDK does the same); a RANGE with low > high matches
 * nothing and is left out; userdata 0 (which vpk refuses) is stood in for
 * by an unused value and turned back into 0 after classify.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_log.h>

#include "compat_acl.h"

struct vlayout {
	uint32_t n;                                     /* vpk fields */
	struct vpk_acl_field_def defs[VPK_ACL_MAX_FIELDS];
	int src[VPK_ACL_MAX_FIELDS];                    /* DPDK rule field index, -1: wildcard pad */
	bool mask_bits[VPK_ACL_MAX_FIELDS];             /* a MASK field given to vpk as a BITMASK (see below) */
};

static int
vl_add(struct vlayout *vl, uint8_t type, uint8_t size, uint8_t input, uint32_t off, int src)
{
	struct vpk_acl_field_def *d;

	if (vl->n == VPK_ACL_MAX_FIELDS)
		return -EINVAL;
	d = &vl->defs[vl->n];
	vl->mask_bits[vl->n] = false;
	d->type = type;
	d->size = size;
	d->field_index = (uint8_t)vl->n;
	d->input_index = input;
	d->offset = off;
	vl->src[vl->n++] = src;
	return 0;
}

static int
layout_direct(const struct rte_acl_config *cfg, struct vlayout *vl)
{
	vl->n = 0;
	for (uint32_t i = 0; i < cfg->num_fields; i++) {
		const struct rte_acl_field_def *d = &cfg->defs[i];

		if (vl_add(vl, d->type, d->size, d->input_index, d->offset, d->field_index) < 0)
			return -EINVAL;
	}
	struct vpk_acl_conf c = { .num_fields = vl->n, .defs = vl->defs, .num_categories = 1 };

	return vpk_acl_conf_check(&c);
}

static void
add_copy(struct rte_acl_ctx *ctx, uint32_t src, uint32_t dst, uint32_t len)
{
	struct compat_acl_copy *last = ctx->ncopy > 0 ? &ctx->copy[ctx->ncopy - 1] : NULL;

	if (last != NULL && last->src + last->len == src && last->dst + last->len == dst) {
		last->len += len;
		return;
	}
	ctx->copy[ctx->ncopy++] = (struct compat_acl_copy){ .src = src, .dst = (uint16_t)dst, .len = (uint16_t)len };
}

/* One DPDK input group [first, end) placed at packed offset *pos as vpk input @p input. */
static int
layout_group(struct rte_acl_ctx *ctx, const struct rte_acl_config *cfg, struct vlayout *vl, uint32_t first,
	     uint32_t end, uint8_t input, uint32_t *pos)
{
	uint32_t total = 0, start = cfg->defs[first].offset;

	for (uint32_t i = first; i < end; i++)
		total += cfg->defs[i].size;
	if (total > 4 && !(end - first == 1 && total == 8)) {
		RTE_LOG(ERR, ACL, "ACL context: %s, input group of fields %u..%u holds %u bytes: "
			"vpk takes 4 bytes or one 8-byte field per group\n", ctx->name, first, end - 1, total);
		return -EINVAL;
	}
	if (*pos + RTE_MAX(total, 4u) > COMPAT_ACL_GATHER_MAX)
		return -EINVAL;
	for (uint32_t i = first, cum = 0; i < end; cum += cfg->defs[i].size, i++) {
		const struct rte_acl_field_def *d = &cfg->defs[i];

		if (vl_add(vl, d->type, d->size, input, *pos + cum, d->field_index) < 0)
			return -EINVAL;
		add_copy(ctx, start + cum, *pos + cum, d->size);
	}
	for (uint32_t b = total; b < 4; b++)
		if (vl_add(vl, RTE_ACL_FIELD_TYPE_BITMASK, 1, input, *pos + b, -1) < 0)
			return -EINVAL;
	*pos += RTE_MAX(total, 4u);
	return 0;
}

static int
layout_packed(struct rte_acl_ctx *ctx, const struct rte_acl_config *cfg, struct vlayout *vl)
{
	uint32_t first = 0, pos = 4;
	uint8_t input = 1;
	int rc;

	vl->n = 0;
	ctx->ncopy = 0;
	if (cfg->defs[0].size == 1 && (cfg->num_fields == 1 || cfg->defs[1].input_index != cfg->defs[0].input_index)) {
		vl_add(vl, cfg->defs[0].type, 1, 0, 0, cfg->defs[0].field_index);
		add_copy(ctx, cfg->defs[0].offset, 0, 1);
		first = 1;
	} else {
		vl_add(vl, RTE_ACL_FIELD_TYPE_BITMASK, 1, 0, 0, -1);
	}
	while (first < cfg->num_fields) {
		uint32_t end = first + 1;

		while (end < cfg->num_fields && cfg->defs[end].input_index == cfg->defs[first].input_index)
			end++;
		rc = layout_group(ctx, cfg, vl, first, end, input++, &pos);
		if (rc < 0)
			return rc;
		first = end;
	}
	ctx->gather_len = pos;
	struct vpk_acl_conf c = { .num_fields = vl->n, .defs = vl->defs, .num_categories = 1 };

	rc = vpk_acl_conf_check(&c);
	if (rc < 0)
		RTE_LOG(ERR, ACL, "ACL context: %s, layout not supported by vpk: %s\n", ctx->name,
			vpk_last_error());
	return rc;
}

static uint64_t
read_sized(const union rte_acl_field_types *v, uint8_t size)
{
	switch (size) {
	case 1:
		return v->u8;
	case 2:
		return v->u16;
	case 4:
		return v->u32;
	default:
		return v->u64;
	}
}

/*
 * The bit mask rte_acl builds from a MASK field's length: RTE_ACL_MASKLEN_TO_BITMASK() on
 * mask_range.u64, a shift that x86 takes modulo 64 when the length exceeds the field (a length
 * left in mask_range.u32 over garbage upper bytes does that).
 */
static uint64_t
dpdk_prefix_mask(uint64_t len, uint8_t size)
{
	uint64_t m = size == 8 ? UINT64_MAX : (1ull << (8 * size)) - 1;

	return len == 0 ? 0 : (UINT64_MAX << ((8ull * size - len) & 63)) & m;
}

/* MASK fields with a length beyond their width in some rule go to vpk as BITMASK fields. */
static void
mark_wide_masks(const struct rte_acl_ctx *ctx, struct vlayout *vl)
{
	for (uint32_t k = 0; k < vl->n; k++) {
		if (vl->defs[k].type != RTE_ACL_FIELD_TYPE_MASK || vl->src[k] < 0)
			continue;
		for (uint32_t i = 0; i < ctx->num_rules; i++) {
			const struct rte_acl_rule *r = (const struct rte_acl_rule *)(ctx->rules + (size_t)i * ctx->rule_sz);

			if (r->field[vl->src[k]].mask_range.u64 > 8ull * vl->defs[k].size) {
				vl->mask_bits[k] = true;
				vl->defs[k].type = RTE_ACL_FIELD_TYPE_BITMASK;
				break;
			}
		}
	}
}

/* Convert one DPDK rule; 0 if it can match nothing in this build (skip it). */
static int
convert_rule(const struct rte_acl_ctx *ctx, const struct vlayout *vl, const struct rte_acl_rule *r,
	     struct vpk_acl_rule *o)
{
	o->category_mask = r->data.category_mask & RTE_LEN2MASK(ctx->num_categories, uint32_t);
	if (o->category_mask == 0)
		return 0;
	o->priority = (uint32_t)r->data.priority;
	o->userdata = r->data.userdata != 0 ? r->data.userdata : ctx->zero_ud;
	o->reserved = 0;
	for (uint32_t k = 0; k < vl->n; k++) {
		const struct vpk_acl_field_def *d = &vl->defs[k];
		struct vpk_acl_field *f = &o->field[k];

		if (vl->src[k] < 0) {
			f->value = 0;
			f->mask_range = 0;
			continue;
		}
		const struct rte_acl_field *in = &r->field[vl->src[k]];

		f->value = read_sized(&in->value, d->size);
		if (vl->mask_bits[k]) {
			f->mask_range = dpdk_prefix_mask(in->mask_range.u64, d->size);
		} else if (d->type == RTE_ACL_FIELD_TYPE_MASK) {
			f->mask_range = in->mask_range.u64;
		} else {
			f->mask_range = read_sized(&in->mask_range, d->size);
			if (d->type == RTE_ACL_FIELD_TYPE_RANGE && f->value > f->mask_range)
				return 0;
		}
	}
	return 1;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* A userdata value no rule uses, to stand for 0. */
static int
pick_zero_stand_in(struct rte_acl_ctx *ctx)
{
	const struct rte_acl_rule *r;
	uint32_t max = 0, *all;

	ctx->has_zero = false;
	for (uint32_t i = 0; i < ctx->num_rules; i++) {
		r = (const struct rte_acl_rule *)(ctx->rules + (size_t)i * ctx->rule_sz);
		ctx->has_zero |= r->data.userdata == 0;
		max = RTE_MAX(max, r->data.userdata);
	}
	if (!ctx->has_zero)
		return 0;
	if (max < UINT32_MAX) {
		ctx->zero_ud = max + 1;
		return 0;
	}
	all = malloc((size_t)ctx->num_rules * sizeof(*all));
	if (all == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < ctx->num_rules; i++)
		all[i] = ((const struct rte_acl_rule *)(ctx->rules + (size_t)i * ctx->rule_sz))->data.userdata;
	qsort(all, ctx->num_rules, sizeof(*all), cmp_u32);
	ctx->zero_ud = 1;
	for (uint32_t i = 0; i < ctx->num_rules && all[i] <= ctx->zero_ud; i++)
		if (all[i] == ctx->zero_ud)
			ctx->zero_ud++;
	free(all);
	return 0;
}

static int
add_rules(struct rte_acl_ctx *ctx, struct vpk_acl *acl, const struct vlayout *vl)
{
	size_t vsz = VPK_ACL_RULE_SIZE(vl->n);
	uint8_t *buf = malloc(vsz * (ctx->num_rules > 0 ? ctx->num_rules : 1));
	uint32_t n = 0;
	int rc;

	if (buf == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < ctx->num_rules; i++)
		n += convert_rule(ctx, vl, (const struct rte_acl_rule *)(ctx->rules + (size_t)i * ctx->rule_sz),
				  (struct vpk_acl_rule *)(buf + vsz * n));
	rc = n == 0 ? -EINVAL : vpk_acl_add_rules(acl, buf, n);
	if (rc < 0 && n > 0)
		RTE_LOG(ERR, ACL, "ACL context: %s, vpk refused a rule: %s\n", ctx->name, vpk_last_error());
	free(buf);
	return rc;
}

int
compat_acl_build(struct rte_acl_ctx *ctx, const struct rte_acl_config *cfg)
{
	struct vlayout vl;
	struct vpk_acl *acl;
	int rc;

	for (uint32_t i = 0; i < cfg->num_fields; i++)
		if (RTE_ACL_RULE_SZ(cfg->defs[i].field_index + 1u) > ctx->rule_sz)
			return -EINVAL;         /* the rules have no such field */
	ctx->num_categories = cfg->num_categories;
	ctx->gather = layout_direct(cfg, &vl) < 0;
	if (ctx->gather) {
		rc = layout_packed(ctx, cfg, &vl);
		if (rc < 0)
			return rc;
	}
	mark_wide_masks(ctx, &vl);
	rc = pick_zero_stand_in(ctx);
	if (rc < 0)
		return rc;
	struct vpk_acl_conf conf = {
		.num_fields = vl.n, .defs = vl.defs, .num_categories = cfg->num_categories,
		.max_size = cfg->max_size == SIZE_MAX ? 0 : cfg->max_size,
	};

	rc = vpk_acl_create(&conf, &acl);
	if (rc < 0)
		return rc;
	rc = add_rules(ctx, acl, &vl);
	if (rc == 0)
		rc = vpk_acl_build(acl);
	if (rc < 0) {
		vpk_acl_destroy(acl);
		return rc;
	}
	ctx->num_vpk_fields = vl.n;
	ctx->acl = acl;
	return 0;
}
