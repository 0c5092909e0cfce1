/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ClassBench families from their seed statistics (acl/acl_family.h).
 *
 * Model, written from the description of ClassBench's parameter files:
 *  - a rule's protocol from the protocol mix (0 = any protocol), then its
 *    port-pair class from that protocol's 25 class fractions;
 *  - each port from its class: WC 0-65535, HI 1024-65535, LO 0-1023, AR
 *    and EM drawn from the seed's range and exact-port lists (a side whose
 *    list is empty borrows the other side's, then a random one);
 *  - the (source, destination) prefix lengths from the class's joint
 *    distribution (total length, then source length);
 *  - the addresses from two binary tries built top-down over all rules at
 *    once: at depth d the rules whose prefix ends there stop; the others go
 *    to one child (probability p1child[d]) or are split over two children
 *    with the seed's skew[d] (lighter = heavier * (1 - skew)). The
 *    destination trie splits the rules in source order with probability
 *    pcorr[d] (rules sharing source paths then share destination paths),
 *    else in random order. Prefix nesting is what the tries give; the
 *    seeds' nesting thresholds are not enforced.
 *  - duplicates and full wildcards are dropped and regenerated; rules are
 *    ordered by a noisy specificity score, specific first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl_family.h"
#include "acl/acl_gen.h"

#define NCLS     25
#define MAXPROT  16
#define MAXPORT  512
#define MAXPAIR  2200

static const char *const fam_names[VPK_ACL_FAMILIES] = {
	"acl1", "acl2", "acl3", "acl4", "acl5", "fw1", "fw2", "fw3", "fw4", "fw5", "ipc1", "ipc2",
};

/* The 25 port-pair classes in the seeds' order: source kind, destination kind. */
enum { WC, HI, LO, AR, EM };
static const uint8_t cls_kind[NCLS][2] = {
	{ WC, WC }, { WC, HI }, { HI, WC }, { HI, HI }, { WC, LO }, { LO, WC }, { HI, LO }, { LO, HI },
	{ LO, LO }, { WC, AR }, { AR, WC }, { HI, AR }, { AR, HI }, { WC, EM }, { EM, WC }, { HI, EM },
	{ EM, HI }, { LO, AR }, { AR, LO }, { LO, EM }, { EM, LO }, { AR, AR }, { AR, EM }, { EM, AR },
	{ EM, EM },
};
static const char *const cls_sect[NCLS] = {
	"-wc_wc", "-wc_hi", "-hi_wc", "-hi_hi", "-wc_lo", "-lo_wc", "-hi_lo", "-lo_hi", "-lo_lo",
	"-wc_ar", "-ar_wc", "-hi_ar", "-ar_hi", "-wc_em", "-em_wc", "-hi_em", "-em_hi", "-lo_ar",
	"-ar_lo", "-lo_em", "-em_lo", "-ar_ar", "-ar_em", "-em_ar", "-em_em",
};

struct plist {                          /* spar, spem, dpar, dpem */
	uint32_t n;
	double w[MAXPORT];
	uint16_t lo[MAXPORT], hi[MAXPORT];
};

struct lenpairs {                       /* joint (source, destination) prefix lengths */
	uint32_t n;
	double w[MAXPAIR];
	uint8_t sl[MAXPAIR], dl[MAXPAIR];
};

struct model {
	uint32_t np;
	uint8_t proto[MAXPROT];
	double pw[MAXPROT], cls[MAXPROT][NCLS];
	struct plist port[4];
	struct lenpairs len[NCLS];
	double skew[2][33][3];          /* p1child, p2child, skew */
	double pcorr[33];
};

static uint32_t
pick(struct acl_rng *r, const double *w, uint32_t n)
{
	double tot = 0, x;

	for (uint32_t i = 0; i < n; i++)
		tot += w[i];
	if (n == 0 || tot <= 0)
		return 0;
	x = acl_unif(r) * tot;
	for (uint32_t i = 0; i < n; i++) {
		if (x < w[i])
			return i;
		x -= w[i];
	}
	return n - 1;
}

const char *
vpk_acl_family_name(unsigned fam)
{
	return fam < VPK_ACL_FAMILIES ? fam_names[fam] : NULL;
}

int
vpk_acl_family_from_name(const char *name)
{
	for (unsigned i = 0; name != NULL && i < VPK_ACL_FAMILIES; i++)
		if (strcmp(name, fam_names[i]) == 0)
			return (int)i;
	return -1;
}

/* ---- the seed text: sections "-name", lines ending in ';', '#' ending a section ---- */

enum sect { S_NONE, S_PROTS, S_PORT, S_LEN, S_SKEW, S_PCORR };

static void
line_port(struct plist *p, char **t, unsigned nt)
{
	char *colon;

	if (nt < 2 || p->n >= MAXPORT || (colon = strchr(t[1], ':')) == NULL)
		return;
	p->w[p->n] = strtod(t[0], NULL);
	p->lo[p->n] = (uint16_t)strtoul(t[1], NULL, 10);
	p->hi[p->n] = (uint16_t)strtoul(colon + 1, NULL, 10);
	if (p->hi[p->n] >= p->lo[p->n])
		p->n++;
}

static void
line_len(struct lenpairs *l, char **t, unsigned nt)
{
	unsigned tot = (unsigned)strtoul(t[0], NULL, 10);
	char *c = strchr(t[0], ',');
	double tw = c ? strtod(c + 1, NULL) : 0;

	for (unsigned i = 1; i < nt && l->n < MAXPAIR; i++) {
		unsigned sl = (unsigned)strtoul(t[i], NULL, 10);
		char *k = strchr(t[i], ',');

		if (k == NULL || sl > 32 || tot < sl || tot - sl > 32)
			continue;
		l->w[l->n] = tw * strtod(k + 1, NULL);
		l->sl[l->n] = (uint8_t)sl, l->dl[l->n] = (uint8_t)(tot - sl);
		l->n++;
	}
}

static void
line(struct model *m, enum sect s, int idx, char **t, unsigned nt)
{
	unsigned d;

	if (nt == 0)
		return;
	switch (s) {
	case S_PROTS:
		if (m->np >= MAXPROT || nt < 2)
			return;
		m->proto[m->np] = (uint8_t)strtoul(t[0], NULL, 10);
		m->pw[m->np] = strtod(t[1], NULL);
		for (unsigned i = 2; i < nt && i - 2 < NCLS; i++)
			m->cls[m->np][i - 2] = strtod(t[i], NULL);
		m->np++;
		return;
	case S_PORT:
		line_port(&m->port[idx], t, nt);
		return;
	case S_LEN:
		line_len(&m->len[idx], t, nt);
		return;
	case S_SKEW:
		d = (unsigned)strtoul(t[0], NULL, 10);
		if (d <= 32 && nt >= 4)
			for (unsigned k = 0; k < 3; k++)
				m->skew[idx][d][k] = strtod(t[1 + k], NULL);
		return;
	case S_PCORR:
		d = (unsigned)strtoul(t[0], NULL, 10);
		if (d <= 32 && nt >= 2)
			m->pcorr[d] = strtod(t[1], NULL);
		return;
	default:
		return;
	}
}

static void
section(const char *name, enum sect *s, int *idx)
{
	static const char *const ports[4] = { "-spar", "-spem", "-dpar", "-dpem" };

	*s = S_NONE, *idx = 0;
	if (strcmp(name, "-prots") == 0)
		*s = S_PROTS;
	else if (strcmp(name, "-sskew") == 0 || strcmp(name, "-dskew") == 0)
		*s = S_SKEW, *idx = name[1] == 'd';
	else if (strcmp(name, "-pcorr") == 0)
		*s = S_PCORR;
	for (int i = 0; i < 4; i++)
		if (strcmp(name, ports[i]) == 0)
			*s = S_PORT, *idx = i;
	for (int i = 0; i < NCLS; i++)
		if (strcmp(name, cls_sect[i]) == 0)
			*s = S_LEN, *idx = i;
}

static int
parse(const char *text, struct model *m)
{
	char *buf = strdup(text), *save = NULL, *t[80];
	enum sect s = S_NONE;
	int idx = 0;
	unsigned nt = 0;

	if (buf == NULL)
		return -ENOMEM;
	for (char *tok = strtok_r(buf, " ", &save); tok != NULL; tok = strtok_r(NULL, " ", &save)) {
		size_t l = strlen(tok);
		bool eol = l > 0 && tok[l - 1] == ';';

		if (tok[0] == '#') {
			s = S_NONE, nt = 0;
			continue;
		}
		if (tok[0] == '-' && tok[1] >= 'a' && tok[1] <= 'z') {
			section(tok, &s, &idx), nt = 0;
			continue;
		}
		if (eol)
			tok[l - 1] = '\0';
		if (nt < 80)
			t[nt++] = tok;
		if (eol) {
			line(m, s, idx, t, nt);
			nt = 0;
		}
	}
	free(buf);
	return m->np > 0 ? 0 : -EINVAL;
}

/* ---- rule generation ---- */

struct cand {
	uint32_t addr[2];               /* trie paths, top-aligned */
	uint8_t len[2];
	uint8_t proto, pmask;
	uint16_t port[2][2];            /* [source, destination][lo, hi] */
};

struct trie_ctx {
	struct acl_rng *r;
	const struct model *m;
	struct cand *c;
	int side;                       /* 0 source, 1 destination */
};

static void
shuffle(struct acl_rng *r, uint32_t *a, uint32_t n)
{
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = (uint32_t)(acl_rnd(r) % i), t = a[i - 1];

		a[i - 1] = a[j], a[j] = t;
	}
}

static void
trie(struct trie_ctx *x, uint32_t *idx, uint32_t n, unsigned depth, uint32_t path)
{
	uint32_t k = 0, rest, heavy;
	const double *sk;
	uint32_t bit;

	for (uint32_t i = 0; i < n; i++)
		if (x->c[idx[i]].len[x->side] <= depth) {
			uint32_t t = idx[k];

			idx[k] = idx[i], idx[i] = t;
			x->c[idx[k++]].addr[x->side] = path;
		}
	rest = n - k;
	if (rest == 0 || depth >= 32)
		return;
	idx += k;
	sk = x->m->skew[x->side][depth];
	heavy = rest;
	if (rest >= 2 && acl_unif(x->r) * (sk[0] + sk[1]) >= sk[0]) {
		heavy = (uint32_t)((double)rest / (2.0 - (sk[2] > 1 ? 1 : sk[2] < 0 ? 0 : sk[2])) + 0.5);
		heavy = heavy >= rest ? rest - 1 : heavy < (rest + 1) / 2 ? (rest + 1) / 2 : heavy;
	}
	if (heavy < rest && (x->side == 0 || acl_unif(x->r) >= x->m->pcorr[depth]))
		shuffle(x->r, idx, rest);
	bit = (uint32_t)(acl_rnd(x->r) & 1);
	trie(x, idx, heavy, depth + 1, path | bit << (31 - depth));
	if (heavy < rest)
		trie(x, idx + heavy, rest - heavy, depth + 1, path | (bit ^ 1) << (31 - depth));
}

static void
port_of(struct acl_rng *r, const struct model *m, unsigned kind, int side, uint16_t *lo, uint16_t *hi)
{
	const struct plist *p = NULL, *own, *other;

	switch (kind) {
	case HI:
		*lo = 1024, *hi = 65535;
		return;
	case LO:
		*lo = 0, *hi = 1023;
		return;
	case AR:
	case EM:
		own = &m->port[side * 2 + (kind == EM)];
		other = &m->port[(1 - side) * 2 + (kind == EM)];
		p = own->n ? own : other->n ? other : NULL;
		if (p != NULL) {
			uint32_t i = pick(r, p->w, p->n);

			*lo = p->lo[i], *hi = p->hi[i];
		} else if (kind == EM) {
			*lo = *hi = (uint16_t)(1 + acl_rnd(r) % 65535);
		} else {
			*lo = (uint16_t)(acl_rnd(r) % 60000), *hi = (uint16_t)(*lo + 1 + acl_rnd(r) % 5000);
		}
		return;
	default:
		*lo = 0, *hi = 65535;
		return;
	}
}

static void
draw(struct acl_rng *r, const struct model *m, struct cand *c)
{
	uint32_t pi = pick(r, m->pw, m->np), ci;
	const struct lenpairs *lp;

	memset(c, 0, sizeof(*c));
	c->proto = m->proto[pi];
	c->pmask = c->proto ? 0xff : 0;
	ci = pick(r, m->cls[pi], NCLS);
	lp = &m->len[ci];
	if (lp->n == 0)
		lp = &m->len[0];
	for (int s = 0; s < 2; s++)
		port_of(r, m, cls_kind[ci][s], s, &c->port[s][0], &c->port[s][1]);
	if (lp->n > 0) {
		uint32_t k = pick(r, lp->w, lp->n);

		c->len[0] = lp->sl[k], c->len[1] = lp->dl[k];
	} else {
		c->len[0] = c->len[1] = 32;
	}
}

/* IPv4 path bits -> address bytes; IPv6: each bit a nibble of hashed prefix bits and the bit. */
static void
put_addr(uint32_t path, unsigned len, bool ipv6, uint64_t salt, uint8_t *a, uint8_t *alen)
{
	if (!ipv6) {
		uint32_t v = len ? path & (0xffffffffu << (32 - len)) : 0;

		a[0] = (uint8_t)(v >> 24), a[1] = (uint8_t)(v >> 16), a[2] = (uint8_t)(v >> 8), a[3] = (uint8_t)v;
		*alen = (uint8_t)len;
		return;
	}
	memset(a, 0, 16);
	for (unsigned k = 0; k < len; k++) {
		uint64_t h = ((uint64_t)(k ? path >> (32 - k) : 0) << 6 | k) * 0x9e3779b97f4a7c15ULL ^ salt;
		unsigned nib = (unsigned)(((h ^ h >> 29) * 0xbf58476d1ce4e5b9ULL) >> 61) << 1 | (path >> (31 - k) & 1);

		a[k / 2] |= (uint8_t)(k % 2 ? nib : nib << 4);
	}
	*alen = (uint8_t)(4 * len);
}

static uint64_t
cand_hash(const struct cand *c)
{
	uint32_t w[8] = { c->len[0] ? c->addr[0] & (0xffffffffu << (32 - c->len[0])) : 0,
			  c->len[1] ? c->addr[1] & (0xffffffffu << (32 - c->len[1])) : 0,
			  (uint32_t)c->len[0] << 8 | c->len[1], (uint32_t)c->proto << 8 | c->pmask,
			  c->port[0][0], c->port[0][1], c->port[1][0], c->port[1][1] };
	uint64_t h = 1469598103934665603u;

	for (int i = 0; i < 8; i++)
		h = (h ^ w[i]) * 1099511628211u, h ^= h >> 29;
	return h | 1;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One batch of @p k candidates with their tries. */
static int
batch(struct acl_rng *r, const struct model *m, struct cand *c, uint32_t k)
{
	uint32_t *idx = malloc((size_t)k * sizeof(*idx));
	uint64_t *key = malloc((size_t)k * sizeof(*key));
	struct trie_ctx x = { r, m, c, 0 };

	if (idx == NULL || key == NULL) {
		free(idx), free(key);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < k; i++)
		draw(r, m, &c[i]), idx[i] = i;
	trie(&x, idx, k, 0, 0);
	for (uint32_t i = 0; i < k; i++)        /* the destination trie starts in source order */
		key[i] = (uint64_t)c[i].addr[0] << 32 | i;
	qsort(key, k, sizeof(*key), cmp_u64);
	for (uint32_t i = 0; i < k; i++)
		idx[i] = (uint32_t)key[i];
	x.side = 1;
	trie(&x, idx, k, 0, 0);
	free(idx), free(key);
	return 0;
}

static double
specificity(const struct cand *c, struct acl_rng *r)
{
	double s = c->len[0] + c->len[1] + (c->pmask ? 8 : 0);

	for (int k = 0; k < 2; k++)
		s += c->port[k][0] == c->port[k][1] ? 12 : c->port[k][1] - c->port[k][0] < 65535 ? 6 : 0;
	return s + 24.0 * (acl_unif(r) + acl_unif(r) - 1.0);
}

static void
emit(const struct cand *c, bool ipv6, uint64_t salt, struct vpk_acl5_rule *o)
{
	memset(o, 0, sizeof(*o));
	o->port = -1;
	put_addr(c->addr[0], c->len[0], ipv6, salt, o->src, &o->src_len);
	put_addr(c->addr[1], c->len[1], ipv6, salt ^ 0x5555, o->dst, &o->dst_len);
	o->proto = c->proto, o->proto_mask = c->pmask;
	o->sport_lo = c->port[0][0], o->sport_hi = c->port[0][1];
	o->dport_lo = c->port[1][0], o->dport_hi = c->port[1][1];
}

static bool
wildcard(const struct cand *c)
{
	return c->len[0] == 0 && c->len[1] == 0 && c->pmask == 0 && c->port[0][0] == 0 &&
	       c->port[0][1] == 65535 && c->port[1][0] == 0 && c->port[1][1] == 65535;
}

int
vpk_acl_family_rules(unsigned fam, bool ipv6, uint32_t n, uint64_t seed, struct vpk_acl5_rule **out)
{
	struct model *m;
	struct acl_rng r = { seed * 0x2545f4914f6cdd1dULL + fam * 131 + (ipv6 ? 17 : 5) };
	struct cand *kept = NULL, *c = NULL;
	struct acl_scored *sc = NULL;
	uint64_t *seen = NULL;
	uint32_t got = 0, hcap;
	int rc = -ENOMEM;

	if (fam >= VPK_ACL_FAMILIES || n == 0 || n > (1u << 24) || out == NULL)
		return -EINVAL;
	for (hcap = 1024; hcap < 2 * n; hcap *= 2)
		;
	m = calloc(1, sizeof(*m));
	kept = malloc((size_t)n * sizeof(*kept));
	c = malloc(((size_t)n + n / 8 + 64) * sizeof(*c));
	seen = calloc(hcap, sizeof(*seen));
	if (m == NULL || kept == NULL || c == NULL || seen == NULL)
		goto out;
	rc = parse(vpk_acl_seed_text[fam], m);
	/* Low-diversity classes (short prefixes, few ports) saturate first; later rounds fill up
	 * from the others, as ClassBench's redundancy removal leaves them. */
	for (unsigned idle = 0; rc == 0 && got < n && idle < 8;) {
		uint32_t k = (n - got) + (n - got) / 8 + 64, before = got;

		rc = batch(&r, m, c, k);
		for (uint32_t i = 0; rc == 0 && i < k && got < n; i++) {
			uint64_t h = cand_hash(&c[i]);
			uint32_t slot;

			if (wildcard(&c[i]))
				continue;
			for (slot = (uint32_t)h & (hcap - 1); seen[slot] != 0 && seen[slot] != h;
			     slot = (slot + 1) & (hcap - 1))
				;
			if (seen[slot] == h)
				continue;
			seen[slot] = h;
			kept[got++] = c[i];
		}
		idle = got - before < (n - before) / 64 + 1 ? idle + 1 : 0;
	}
	if (rc == 0 && got < n)
		rc = -EINVAL;
	if (rc == 0 && (sc = malloc((size_t)n * sizeof(*sc))) != NULL &&
	    (*out = malloc((size_t)n * sizeof(**out))) != NULL) {
		for (uint32_t i = 0; i < n; i++)
			sc[i] = (struct acl_scored){ specificity(&kept[i], &r), i };
		qsort(sc, n, sizeof(*sc), acl_cmp_scored);
		for (uint32_t i = 0; i < n; i++)
			emit(&kept[sc[i].idx], ipv6, seed * 0x9e3779b97f4a7c15ULL + fam, &(*out)[i]);
	} else if (rc == 0) {
		rc = -ENOMEM;
	}
out:
	free(m), free(kept), free(c), free(seen), free(sc);
	return rc;
}
