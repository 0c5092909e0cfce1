/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The brute-force ACL oracle (acl_oracle.h): writes the expected column of
 * generated traces, and is the reference the tool's --verify, the benchmark
 * and the tests compare every classifier variant with.
 *
 * First matching rule in file order. For speed rules are filed under the /16
 * of their destination (if dst_len >= 16), else of their source (if
 * src_len >= 16), else in a residual list; a packet scans the three
 * candidate lists merged in rule order and stops at the first match, so the
 * answer is the same as a full scan. Workload: up to 1M rules x 10M packets
 * (vpk gen acl); a packet touches only the rules of its two /16 buckets and
 * the residual list.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl_oracle.h"

static bool
pfx_match(const uint8_t *a, const uint8_t *b, unsigned len)
{
	unsigned full = len / 8, rem = len % 8;

	if (memcmp(a, b, full) != 0)
		return false;
	if (rem == 0)
		return true;
	uint8_t m = (uint8_t)(0xff << (8 - rem));

	return (a[full] & m) == (b[full] & m);
}

bool
vpk_acl5_match(const struct vpk_acl5_rule *r, const struct vpk_acl5_pkt *p, bool ipv6)
{
	(void)ipv6;
	return (p->proto & r->proto_mask) == (r->proto & r->proto_mask) &&
	       p->sport >= r->sport_lo && p->sport <= r->sport_hi &&
	       p->dport >= r->dport_lo && p->dport <= r->dport_hi &&
	       pfx_match(r->src, p->src, r->src_len) && pfx_match(r->dst, p->dst, r->dst_len);
}

struct kent {
	uint32_t key, idx;
};

static int
cmp_kent(const void *a, const void *b)
{
	const struct kent *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* [lo, hi) of entries with key k. */
static void
slice(const struct kent *e, uint32_t n, uint32_t k, uint32_t *lo, uint32_t *hi)
{
	uint32_t a = 0, b = n;

	while (a < b) {
		uint32_t m = (a + b) / 2;

		if (e[m].key < k)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	b = n;
	while (a < b) {
		uint32_t m = (a + b) / 2;

		if (e[m].key <= k)
			a = m + 1;
		else
			b = m;
	}
	*hi = a;
}

int
vpk_acl5_oracle(const struct vpk_acl5_rule *r, uint32_t nr, struct vpk_acl5_pkt *p, uint32_t np,
		bool ipv6)
{
	struct kent *bd = malloc(((size_t)nr + 1) * sizeof(*bd));
	struct kent *bs = malloc(((size_t)nr + 1) * sizeof(*bs));
	uint32_t *rest = malloc(((size_t)nr + 1) * sizeof(*rest));
	uint32_t nd = 0, ns = 0, nrest = 0;

	if (bd == NULL || bs == NULL || rest == NULL) {
		free(bd);
		free(bs);
		free(rest);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < nr; i++) {
		if (r[i].dst_len >= 16)
			bd[nd++] = (struct kent){ (uint32_t)r[i].dst[0] << 8 | r[i].dst[1], i };
		else if (r[i].src_len >= 16)
			bs[ns++] = (struct kent){ (uint32_t)r[i].src[0] << 8 | r[i].src[1], i };
		else
			rest[nrest++] = i;
	}
	qsort(bd, nd, sizeof(*bd), cmp_kent);
	qsort(bs, ns, sizeof(*bs), cmp_kent);
	for (uint32_t k = 0; k < np; k++) {
		struct vpk_acl5_pkt *x = &p[k];
		uint32_t a, ae, b, be, c = 0, best = VPK_ACL5_NO_MATCH;

		slice(bd, nd, (uint32_t)x->dst[0] << 8 | x->dst[1], &a, &ae);
		slice(bs, ns, (uint32_t)x->src[0] << 8 | x->src[1], &b, &be);
		for (;;) {
			uint32_t ia = a < ae ? bd[a].idx : UINT32_MAX;
			uint32_t ib = b < be ? bs[b].idx : UINT32_MAX;
			uint32_t ic = c < nrest ? rest[c] : UINT32_MAX;
			uint32_t i = ia < ib ? (ia < ic ? ia : ic) : (ib < ic ? ib : ic);

			if (i == UINT32_MAX)
				break;
			if (i == ia)
				a++;
			else if (i == ib)
				b++;
			else
				c++;
			if (vpk_acl5_match(&r[i], x, ipv6)) {
				best = i;
				break;
			}
		}
		x->expected = best;
		x->has_expected = true;
	}
	free(bd);
	free(bs);
	free(rest);
	return 0;
}
