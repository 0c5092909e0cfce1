/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ClassBench-like rule and trace generator (acl/acl_gen.h).
 *
 * Model, after the parameter description of ClassBench (Taylor & Turner,
 * INFOCOM 2005), with our own numbers:
 *  - protocol mix per profile; ICMP and "any" rules mostly leave ports wild;
 *  - port pair classes: WC (0-65535), HI (1024-65535), LO (0-1023), EM (one
 *    port, Zipf over common service ports, 20 % random) and AR (ranges:
 *    decimal blocks, power-of-two aligned blocks, arbitrary);
 *  - prefix lengths from per-profile distributions;
 *  - addresses from a skewed hierarchy: Zipf-chosen /16 blocks (IPv6: /32
 *    organisations, /48 sites), Zipf-chosen /24 subnets (/64), hosts; source
 *    addresses are half internal, half external;
 *  - distinct rules, no full wildcard, ordered by a noisy specificity score
 *    (specific first, as real ACLs are written).
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl_family.h"
#include "acl/acl_gen.h"
#include "common/splitmix.h"

static uint32_t
below(struct acl_rng *r, uint32_t n)
{
	return n ? (uint32_t)(acl_rnd(r) % n) : 0;
}

/* Zipf(s = 1) over 0..n-1 by inverse CDF on the harmonic approximation. */
static uint32_t
zipf(struct acl_rng *r, uint32_t n)
{
	double h = log((double)n + 1.0), u = acl_unif(r);
	uint32_t k = (uint32_t)(exp(u * h) - 1.0);

	return k >= n ? n - 1 : k;
}

/* Pick from a weight table (weights sum to anything > 0). */
static unsigned
pick(struct acl_rng *r, const unsigned *w, unsigned n)
{
	unsigned tot = 0, x;

	for (unsigned i = 0; i < n; i++)
		tot += w[i];
	x = below(r, tot);
	for (unsigned i = 0; i < n; i++) {
		if (x < w[i])
			return i;
		x -= w[i];
	}
	return n - 1;
}

enum { WC, HI, LO, EM, AR };

struct profile {
	unsigned proto_w[5];            /* TCP UDP any ICMP other */
	unsigned pc_w[9];               /* port pair classes below */
	unsigned src_len_w[6], dst_len_w[6];
};
static const uint8_t pc_s[9] = { WC, WC, WC, WC, HI, EM, EM, AR, AR };
static const uint8_t pc_d[9] = { EM, WC, AR, HI, EM, WC, EM, AR, WC };
/* IPv4 lengths for the six weights: 0, 32, 24, 16, 8, random 9..31 */
static const uint8_t len4[6] = { 0, 32, 24, 16, 8, 255 };
/* IPv6: 0, 128, 64, 48, 32, random multiple of 4 */
static const uint8_t len6[6] = { 0, 128, 64, 48, 32, 255 };

static const struct profile prof_acl = {
	{ 71, 13, 12, 4, 0 }, { 46, 27, 9, 4, 5, 3, 2, 2, 2 },
	{ 42, 26, 18, 7, 2, 5 }, { 5, 49, 26, 10, 2, 8 },
};
static const struct profile prof_fw = {
	{ 52, 21, 22, 3, 2 }, { 25, 37, 12, 5, 6, 4, 3, 4, 4 },
	{ 29, 25, 20, 12, 5, 9 }, { 25, 30, 25, 10, 2, 8 },
};
static const struct profile prof_acl6 = {
	{ 71, 13, 12, 4, 0 }, { 46, 27, 9, 4, 5, 3, 2, 2, 2 },
	{ 39, 15, 23, 12, 5, 6 }, { 3, 39, 38, 10, 5, 5 },
};

static const uint16_t svc[] = { 80, 443, 53, 22, 25, 110, 143, 123, 161, 389, 445, 3306, 5432, 8080,
				8443, 1521, 3389, 21, 23, 69, 88, 137, 138, 139, 179, 514, 636,
				993, 995, 1194, 1433, 1812, 2049, 5060, 5061, 5900, 6379, 9000,
				9090, 11211 };

static void
ports(struct acl_rng *r, unsigned cls, uint16_t *lo, uint16_t *hi)
{
	switch (cls) {
	case HI:
		*lo = 1024, *hi = 65535;
		return;
	case LO:
		*lo = 0, *hi = 1023;
		return;
	case EM:
		*lo = *hi = below(r, 5) == 0 ? (uint16_t)(1 + below(r, 65535))
					     : svc[zipf(r, sizeof(svc) / sizeof(svc[0]))];
		return;
	case AR: {
		unsigned k = below(r, 10);

		if (k < 4) {            /* decimal block */
			uint32_t step = below(r, 2) ? 1000 : 100, b = below(r, 65000 / step);

			*lo = (uint16_t)(b * step), *hi = (uint16_t)(b * step + step - 1);
		} else if (k < 7) {     /* power-of-two aligned */
			uint32_t m = 4 + below(r, 9), b = below(r, 65536u >> m);

			*lo = (uint16_t)(b << m), *hi = (uint16_t)(((b + 1) << m) - 1);
		} else {
			uint32_t a = below(r, 65536), l = 1 + below(r, 5000);

			*lo = (uint16_t)a, *hi = (uint16_t)(a + l > 65535 ? 65535 : a + l);
		}
		return;
	}
	default:
		*lo = 0, *hi = 65535;
		return;
	}
}

/* The address hierarchy. */
struct space {
	uint32_t nb;                    /* blocks */
	uint8_t (*blk)[16];             /* block prefixes: /16 (v4) or /32 (v6) */
	uint8_t perm[256];              /* subnet permutation */
};

static void
mask_to(uint8_t *a, unsigned len, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++) {
		unsigned keep = len >= 8 * (i + 1) ? 8 : len > 8 * i ? len - 8 * i : 0;

		a[i] &= (uint8_t)(keep ? 0xff << (8 - keep) : 0);
	}
}

static void
address(struct acl_rng *r, const struct space *sp, bool ipv6, bool external, unsigned len, uint8_t *a)
{
	unsigned bytes = ipv6 ? 16 : 4;

	for (unsigned i = 0; i < bytes; i += 8) {
		uint64_t x = acl_rnd(r);

		memcpy(a + i, &x, bytes - i < 8 ? bytes - i : 8);
	}
	if (!external) {
		const uint8_t *b = sp->blk[zipf(r, sp->nb)];

		if (!ipv6) {
			a[0] = b[0], a[1] = b[1];
			a[2] = sp->perm[zipf(r, 256)];
			a[3] = (uint8_t)(1 + zipf(r, 254));
		} else {
			memcpy(a, b, 4);
			a[4] = 0, a[5] = sp->perm[zipf(r, 256)];       /* /48 site */
			a[6] = 0, a[7] = sp->perm[zipf(r, 64)];        /* /64 subnet */
			if (below(r, 2)) {                              /* ::1-style host */
				memset(a + 8, 0, 7);
				a[15] = (uint8_t)(1 + zipf(r, 200));
			}
		}
	}
	mask_to(a, len, bytes);
}

static unsigned
length(struct acl_rng *r, const unsigned *w, bool ipv6)
{
	unsigned k = pick(r, w, 6);

	if (!ipv6)
		return len4[k] != 255 ? len4[k] : 9 + below(r, 23);
	return len6[k] != 255 ? len6[k] : 4 * (1 + below(r, 31));
}

uint64_t
acl_rnd(struct acl_rng *r)
{
	return splitmix64_next(&r->s);
}

double
acl_unif(struct acl_rng *r)
{
	return (double)(acl_rnd(r) >> 11) / 9007199254740992.0;
}

int
acl_cmp_scored(const void *a, const void *b)
{
	const struct acl_scored *x = a, *y = b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static uint64_t
rule_hash(const struct vpk_acl5_rule *x)
{
	const uint8_t *p = (const uint8_t *)x;
	uint64_t h = 1469598103934665603u;

	for (size_t i = 0; i < offsetof(struct vpk_acl5_rule, port); i++)
		h = (h ^ p[i]) * 1099511628211u;
	return h | 1;
}

int
vpk_acl_gen_profile_from_name(const char *name, enum vpk_acl_gen_profile *p, bool *ipv6)
{
	if (name == NULL || p == NULL || ipv6 == NULL)
		return -EINVAL;
	if (strcmp(name, "acl") == 0)
		*p = VPK_ACL_GEN_ACL;
	else if (strcmp(name, "fw") == 0)
		*p = VPK_ACL_GEN_FW;
	else if (strcmp(name, "ipv6") == 0)
		*p = VPK_ACL_GEN_ACL, *ipv6 = true;
	else {
		char fam[16];
		size_t l = strlen(name);
		bool v6 = l > 3 && l < sizeof(fam) && strcmp(name + l - 3, "-v6") == 0;
		int f;

		if (l >= sizeof(fam))
			return -EINVAL;
		memcpy(fam, name, l + 1);
		if (v6)
			fam[l - 3] = '\0';
		if ((f = vpk_acl_family_from_name(fam)) < 0)
			return -EINVAL;
		*p = (enum vpk_acl_gen_profile)(VPK_ACL_GEN_FAMILY + f);
		if (v6)
			*ipv6 = true;
	}
	return 0;
}

int
vpk_acl_gen_rules(const struct vpk_acl_gen_conf *c, struct vpk_acl5_rule **out)
{
	struct acl_rng r;
	struct space sp;
	const struct profile *pf;
	struct vpk_acl5_rule *rules, *sorted;
	struct acl_scored *sc;
	uint64_t *seen;
	uint32_t n, hcap, got = 0;
	unsigned bytes;
	uint64_t tries = 0;

	if (c == NULL || out == NULL || c->rules == 0 || c->rules > (1u << 24) ||
	    (unsigned)c->profile >= VPK_ACL_GEN_FAMILY + VPK_ACL_FAMILIES)
		return -EINVAL;
	if (c->profile >= VPK_ACL_GEN_FAMILY)
		return vpk_acl_family_rules(c->profile - VPK_ACL_GEN_FAMILY, c->ipv6, c->rules, c->seed, out);
	n = c->rules;
	bytes = c->ipv6 ? 16 : 4;
	pf = c->profile == VPK_ACL_GEN_FW ? &prof_fw : c->ipv6 ? &prof_acl6 : &prof_acl;
	r.s = c->seed * 0x2545f4914f6cdd1dULL + (c->ipv6 ? 7 : 3) + c->profile;
	sp.nb = 16 + n / 400;
	sp.blk = calloc(sp.nb, 16);
	rules = calloc(n, sizeof(*rules));
	sorted = calloc(n, sizeof(*sorted));
	sc = calloc(n, sizeof(*sc));
	for (hcap = 1024; hcap < 2 * n; hcap *= 2)
		;
	seen = calloc(hcap, sizeof(*seen));
	if (sp.blk == NULL || rules == NULL || sorted == NULL || sc == NULL || seen == NULL) {
		free(sp.blk), free(rules), free(sorted), free(sc), free(seen);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < sp.nb; i++) {
		static const uint8_t priv[3][2] = { { 10, 0 }, { 172, 16 }, { 192, 168 } };
		uint64_t x = acl_rnd(&r);

		memcpy(sp.blk[i], &x, 8);
		if (!c->ipv6 && i < 8) {
			sp.blk[i][0] = priv[i % 3][0];
			sp.blk[i][1] = (uint8_t)(priv[i % 3][1] + (i % 3 == 1 ? i : i % 3 == 0 ? i * 7 : 0));
		}
		if (c->ipv6)
			sp.blk[i][0] = 0x20, sp.blk[i][1] = (uint8_t)(1 + below(&r, 15));
	}
	for (unsigned i = 0; i < 256; i++)
		sp.perm[i] = (uint8_t)i;
	for (unsigned i = 255; i > 0; i--) {
		unsigned j = below(&r, i + 1);
		uint8_t t = sp.perm[i];

		sp.perm[i] = sp.perm[j], sp.perm[j] = t;
	}
	while (got < n && tries++ < (uint64_t)n * 50) {
		struct vpk_acl5_rule x;
		unsigned pr = pick(&r, pf->proto_w, 5), pc = pick(&r, pf->pc_w, 9);
		unsigned sl = length(&r, pf->src_len_w, c->ipv6), dl = length(&r, pf->dst_len_w, c->ipv6);
		uint64_t h;
		uint32_t slot;

		memset(&x, 0, sizeof(x));
		x.port = -1;
		switch (pr) {
		case 0:
			x.proto = 6, x.proto_mask = 0xff;
			break;
		case 1:
			x.proto = 17, x.proto_mask = 0xff;
			break;
		case 3:
			x.proto = c->ipv6 ? 58 : 1, x.proto_mask = 0xff;
			break;
		case 4:
			x.proto = below(&r, 2) ? 47 : 50, x.proto_mask = 0xff;
			break;
		default:
			break;
		}
		if (pr >= 2 && !(pr == 2 && below(&r, 10) == 0))
			pc = 1;         /* ICMP, any, others: ports wild (mostly) */
		ports(&r, pc_s[pc], &x.sport_lo, &x.sport_hi);
		ports(&r, pc_d[pc], &x.dport_lo, &x.dport_hi);
		address(&r, &sp, c->ipv6, below(&r, 2) == 0, sl, x.src);
		address(&r, &sp, c->ipv6, false, dl, x.dst);
		x.src_len = (uint8_t)sl, x.dst_len = (uint8_t)dl;
		if (sl == 0 && dl == 0 && x.proto_mask == 0 && x.sport_lo == 0 && x.sport_hi == 65535 &&
		    x.dport_lo == 0 && x.dport_hi == 65535)
			continue;       /* no accidental catch-all */
		h = rule_hash(&x);
		for (slot = (uint32_t)h & (hcap - 1); seen[slot] != 0 && seen[slot] != h;
		     slot = (slot + 1) & (hcap - 1))
			;
		if (seen[slot] == h)
			continue;
		seen[slot] = h;
		rules[got] = x;
		/* Specificity: bits fixed, in units of "a byte of address". */
		double s = (double)(sl + dl) * (c->ipv6 ? 0.25 : 1.0) + (x.proto_mask ? 8 : 0) +
			   (x.dport_lo == x.dport_hi ? 12 : x.dport_hi - x.dport_lo < 65535 ? 6 : 0) +
			   (x.sport_lo == x.sport_hi ? 12 : x.sport_hi - x.sport_lo < 65535 ? 6 : 0);

		sc[got] = (struct acl_scored){ s + 24.0 * (acl_unif(&r) + acl_unif(&r) - 1.0), got };
		got++;
	}
	(void)bytes;
	qsort(sc, got, sizeof(*sc), acl_cmp_scored);
	for (uint32_t i = 0; i < got; i++)
		sorted[i] = rules[sc[i].idx];
	free(sp.blk), free(rules), free(sc), free(seen);
	if (got < n) {
		free(sorted);
		return -EINVAL;         /* the profile cannot produce that many distinct rules */
	}
	*out = sorted;
	return 0;
}

static void
in_prefix(struct acl_rng *r, const uint8_t *base, unsigned len, unsigned bytes, bool corner, uint8_t *a)
{
	for (unsigned i = 0; i < bytes; i++) {
		unsigned keep = len >= 8 * (i + 1) ? 8 : len > 8 * i ? len - 8 * i : 0;
		uint8_t m = (uint8_t)(keep ? 0xff << (8 - keep) : 0);
		uint8_t hostbits = corner ? (below(r, 2) ? 0xff : 0) : (uint8_t)acl_rnd(r);

		a[i] = (uint8_t)((base[i] & m) | (hostbits & ~m));
	}
}

static uint16_t
in_range(struct acl_rng *r, uint16_t lo, uint16_t hi, bool corner)
{
	if (corner)
		return below(r, 2) ? lo : hi;
	return (uint16_t)(lo + below(r, (uint32_t)(hi - lo) + 1));
}

int
vpk_acl_gen_trace(const struct vpk_acl5_rule *rules, uint32_t nr, bool ipv6, uint32_t n,
		  uint64_t seed, double random_share, struct vpk_acl5_pkt **out)
{
	struct acl_rng r = { seed * 0x9e3779b97f4a7c15ULL + 12345 };
	struct vpk_acl5_pkt *p;
	unsigned bytes = ipv6 ? 16 : 4;

	if (out == NULL || (rules == NULL && nr > 0))
		return -EINVAL;
	p = calloc(n ? n : 1, sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		struct vpk_acl5_pkt *k = &p[i];
		static const uint8_t protos[4] = { 6, 17, 1, 58 };

		if (nr == 0 || acl_unif(&r) < random_share) {
			for (unsigned b = 0; b < bytes; b++)
				k->src[b] = (uint8_t)acl_rnd(&r), k->dst[b] = (uint8_t)acl_rnd(&r);
			k->sport = (uint16_t)acl_rnd(&r), k->dport = (uint16_t)acl_rnd(&r);
			k->proto = below(&r, 4) ? protos[below(&r, 3)] : (uint8_t)acl_rnd(&r);
			continue;
		}
		const struct vpk_acl5_rule *x = &rules[below(&r, nr)];

		in_prefix(&r, x->src, x->src_len, bytes, below(&r, 2), k->src);
		in_prefix(&r, x->dst, x->dst_len, bytes, below(&r, 2), k->dst);
		k->sport = in_range(&r, x->sport_lo, x->sport_hi, below(&r, 2));
		k->dport = in_range(&r, x->dport_lo, x->dport_hi, below(&r, 2));
		if (x->proto_mask == 0xff)
			k->proto = x->proto;
		else
			k->proto = (uint8_t)((x->proto & x->proto_mask) |
					     (protos[below(&r, ipv6 ? 4 : 3)] & ~x->proto_mask));
	}
	*out = p;
	return 0;
}
