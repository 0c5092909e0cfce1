/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ACL build, leaf layout: a leaf's rules (in rank order) become blocks of 16
 * slots: a header line (valid mask, active dimensions, size, per-category
 * masks, first rank), two lines of (rank, userdata) pairs, then per
 * dimension (every one, unless a rule of the block needs a mask: then those
 * that some rule still has to check inside the leaf's box) its lo/span (and,
 * for partial bit masks, m) arrays: u32 for 32-bit dimensions, first, then
 * u16 for dimensions of <= 16 bits (acl_int.h, docs/acl.md).
 */
#include <string.h>

#include "acl/acl_bld.h"

/* Dimensions that the block of leaf @p l starting at slot @p s must check
 * (every one when none needs a mask), and which of them need a mask. */
static void
blk_need(const struct acl_bld *b, uint32_t l, uint32_t s, uint32_t *need, uint32_t *masked)
{
	const struct acl_nrules *nr = b->nr;

	*need = *masked = 0;
	for (uint32_t j = s; j < s + ACL_BLK && j < b->lcnt[l]; j++) {
		size_t e = b->lstart[l] + j;
		uint32_t r = b->lent[e];

		*need |= b->lneed[e];
		for (uint32_t d = 0; d < b->nd; d++)
			if ((b->lneed[e] >> d & 1) && nr->m[(size_t)r * b->nd + d] != UINT32_MAX)
				*masked |= 1u << d;
	}
	/* Without masks a block keeps every dimension (the ones no rule checks
	 * always match): such a full block takes the scan's unrolled path
	 * (match_full()), which pays more than the arrays cost. */
	if (*masked == 0)
		*need = (1u << b->nd) - 1;
}

/* acl_blk.dim[] byte of dimension @p d. */
static uint8_t
dim_byte(const struct acl_bld *b, uint32_t d, uint32_t masked)
{
	return (uint8_t)(d | ((masked >> d & 1) ? ACL_DIM_MASKED : 0) |
			 (acl_dim_narrow(b->nr->dbits[d]) ? ACL_DIM_16 : 0));
}

static size_t
blk_bytes(const struct acl_bld *b, uint32_t need, uint32_t masked)
{
	size_t bytes = sizeof(struct acl_blk);

	for (uint32_t d = 0; d < b->nd; d++)
		if (need >> d & 1)
			bytes += acl_dim_bytes(dim_byte(b, d, masked));
	return bytes;
}

size_t
acl_leaf_bytes(const struct acl_bld *b, uint32_t l)
{
	size_t bytes = 0;

	for (uint32_t s = 0; s < b->lcnt[l] || s == 0; s += ACL_BLK) {
		uint32_t need, masked;

		blk_need(b, l, s, &need, &masked);
		bytes += blk_bytes(b, need, masked);
	}
	return bytes;
}

/* One dimension's arrays of a block (layout in acl_int.h). */
static void
emit_dim(const struct acl_bld *b, uint32_t l, uint32_t s, uint32_t cnt, uint32_t d, uint8_t db, uint8_t *out)
{
	const struct acl_nrules *nr = b->nr;
	uint32_t *w32 = (uint32_t *)(void *)out;
	uint16_t *w16 = (uint16_t *)(void *)out;

	memset(out, 0, acl_dim_bytes(db));
	for (uint32_t j = 0; j < ACL_BLK; j++) {
		uint32_t lo = 0, span = UINT32_MAX, m = UINT32_MAX;

		if (j < cnt) {
			size_t e = b->lstart[l] + s + j;
			size_t o = (size_t)b->lent[e] * b->nd + d;

			if (b->lneed[e] >> d & 1) {
				lo = nr->lo[o];
				span = nr->hi[o] - nr->lo[o];
				m = nr->m[o];
			}
		}
		if (db & ACL_DIM_16) {
			w16[j] = (uint16_t)lo;
			w16[ACL_BLK + j] = (uint16_t)span;
			if (db & ACL_DIM_MASKED)
				w16[2 * ACL_BLK + j] = (uint16_t)m;
		} else {
			w32[j] = lo;
			w32[ACL_BLK + j] = span;
			if (db & ACL_DIM_MASKED)
				w32[2 * ACL_BLK + j] = m;
		}
	}
}

void
acl_leaf_emit(const struct acl_bld *b, uint32_t l, uint8_t *out, uint32_t ncat)
{
	const struct acl_nrules *nr = b->nr;

	for (uint32_t s = 0; s < b->lcnt[l] || s == 0; s += ACL_BLK) {
		struct acl_blk *h = (struct acl_blk *)(void *)out;
		uint32_t need, masked, k = 0, cnt = b->lcnt[l] - s;
		size_t size;
		uint8_t *arr;

		if (cnt > ACL_BLK)
			cnt = ACL_BLK;
		blk_need(b, l, s, &need, &masked);
		size = blk_bytes(b, need, masked);
		memset(h, 0, sizeof(*h));
		for (uint32_t j = 0; j < ACL_BLK; j++) {
			h->ru[2 * j] = UINT32_MAX;
			if (j >= cnt)
				continue;
			uint32_t r = b->lent[b->lstart[l] + s + j];

			h->ru[2 * j] = nr->rank[r];
			h->ru[2 * j + 1] = nr->ud[r];
			h->valid |= (uint16_t)(1u << j);
			for (uint32_t c = 0; c < ncat; c++)
				if (nr->cats[r] >> c & 1)
					h->cmask[c] |= (uint16_t)(1u << j);
		}
		arr = (uint8_t *)(h + 1);
		uint8_t order[ACL_MAX_DIMS];
		uint32_t n32, nk = acl_dim_order(b->nr->dbits, b->nd, need, order, &n32);

		for (; k < nk; k++) {
			h->dim[k] = dim_byte(b, order[k], masked);
			emit_dim(b, l, s, cnt, order[k], h->dim[k], arr);
			arr += acl_dim_bytes(h->dim[k]);
		}
		/* Every dimension active and none masked: its arrays are where the
		 * runtime's dimension kinds alone say (the scan's full path). */
		h->nd = (uint8_t)(k | (k == b->nd && masked == 0 ? ACL_BLK_FULL : 0));
		h->lines = (uint8_t)(size / 64 | (s + ACL_BLK >= b->lcnt[l] ? ACL_BLK_LAST : 0));
		h->first_rank = h->ru[0];
		out += size;
	}
}
