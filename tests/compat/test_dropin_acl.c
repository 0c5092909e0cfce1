/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libvpk_rte_acl.so against DPDK's librte_acl in one process: this program
 * links DPDK's library and dlopen()s the drop-in (argv[1]), then gives both
 * the same calls and compares every return code and every result.
 *
 *  - Random field layouts as applications define them with RTE_ACL_RULE_DEF:
 *    1-, 2-, 4- and 8-byte fields of every type, input groups in any order,
 *    gaps, and layouts DPDK builds although its documentation forbids them
 *    (groups overlapping each other in the input), which the drop-in packs.
 *  - Rules with unique priorities (DPDK leaves ties undefined), category
 *    masks over all 16 bits against builds of 1..16 categories, userdata 0,
 *    garbage in the value bytes above the field's size.
 *  - Packets: random bytes and bytes inside rules' ranges.
 *  - Errors: bad rules, a full context, bad build parameters, max_size too
 *    small (-ERANGE), bad categories and algorithms.
 *  - rte_acl_classify_alg(): a child process (this program with "alg", the
 *    drop-in's counters on) classifies with SCALAR, AVX512X32, DEFAULT and
 *    the context's SSE; its per-variant packet counts show which vpk variant
 *    answered each call.
 * Exits 77 when EAL cannot start.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_acl.h>
#include <rte_eal.h>
#include <vpk/isa.h>

#include "eal_test.h"
#include "lib/check.h"

#define NFMAX   12
#define NPKT    512
#define PKTLEN  64
#define RSZ     RTE_ACL_RULE_SZ(NFMAX)

struct acl_api {
	const char *who;
	struct rte_acl_ctx *(*create)(const struct rte_acl_param *);
	void (*free)(struct rte_acl_ctx *);
	int (*add)(struct rte_acl_ctx *, const struct rte_acl_rule *, uint32_t);
	int (*build)(struct rte_acl_ctx *, const struct rte_acl_config *);
	int (*classify)(const struct rte_acl_ctx *, const uint8_t **, uint32_t *, uint32_t, uint32_t);
	int (*set_alg)(struct rte_acl_ctx *, enum rte_acl_classify_alg);
	int (*classify_alg)(const struct rte_acl_ctx *, const uint8_t **, uint32_t *, uint32_t, uint32_t,
			    enum rte_acl_classify_alg);
	int (*classify_scalar)(const struct rte_acl_ctx *, const uint8_t **, uint32_t *, uint32_t, uint32_t);
	void (*reset)(struct rte_acl_ctx *);
	struct rte_acl_ctx *(*find)(const char *);
};

static struct acl_api dpdk = {
	"dpdk", rte_acl_create, rte_acl_free, rte_acl_add_rules, rte_acl_build, rte_acl_classify,
	rte_acl_set_ctx_classify, NULL, NULL, rte_acl_reset, rte_acl_find_existing,
};
static struct acl_api vpk = { .who = "vpk" };

static int
load_vpk(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (h == NULL) {
		fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
		return -1;
	}
	*(void **)&vpk.create = dlsym(h, "rte_acl_create");
	*(void **)&vpk.free = dlsym(h, "rte_acl_free");
	*(void **)&vpk.add = dlsym(h, "rte_acl_add_rules");
	*(void **)&vpk.build = dlsym(h, "rte_acl_build");
	*(void **)&vpk.classify = dlsym(h, "rte_acl_classify");
	*(void **)&vpk.set_alg = dlsym(h, "rte_acl_set_ctx_classify");
	*(void **)&vpk.classify_alg = dlsym(h, "rte_acl_classify_alg");
	*(void **)&vpk.classify_scalar = dlsym(h, "rte_acl_classify_scalar");
	*(void **)&vpk.reset = dlsym(h, "rte_acl_reset");
	*(void **)&vpk.find = dlsym(h, "rte_acl_find_existing");
	if (vpk.create == NULL || vpk.classify == NULL || vpk.classify_alg == NULL || vpk.classify_scalar == NULL || vpk.find == NULL || (void *)vpk.create == (void *)rte_acl_create)
		return -1;
	return 0;
}

struct layout {
	struct rte_acl_config cfg;
	uint32_t len;                   /* input bytes read */
};

/* A random layout: defs[0] 1 byte alone, then groups of 4 bytes or one 8-byte field. */
static void
rand_layout(struct layout *l, bool overlap)
{
	static const uint8_t shapes[][4] = { { 4 }, { 2, 2 }, { 1, 1, 2 }, { 2, 1, 1 }, { 1, 1, 1, 1 }, { 8 } };
	static const uint8_t nshape[] = { 1, 2, 3, 3, 4, 1 };
	struct rte_acl_config *c = &l->cfg;
	uint32_t ngroups = 1 + check_rand_range(4), nf = 1, off;
	uint8_t fidx[NFMAX];

	memset(l, 0, sizeof(*l));
	c->defs[0] = (struct rte_acl_field_def){ .type = check_rand_range(3), .size = 1, .input_index = 0,
						 .offset = check_rand_range(8) };
	off = 8;
	for (uint32_t g = 0; g < ngroups; g++) {
		uint32_t s = check_rand_range(6), gstart = overlap ? check_rand_range(24) : off + check_rand_range(3);

		if (nf + nshape[s] > NFMAX)
			break;
		for (uint32_t k = 0, cum = 0; k < nshape[s]; cum += shapes[s][k], k++, nf++)
			c->defs[nf] = (struct rte_acl_field_def){ .type = check_rand_range(3), .size = shapes[s][k],
								  .input_index = g + 1, .offset = gstart + cum };
		off = gstart + (shapes[s][0] == 8 ? 8 : 4);
		if (off > l->len)
			l->len = off;
	}
	c->num_fields = nf;
	/* field_index: a random permutation (rules list fields in any order) */
	for (uint32_t i = 0; i < nf; i++)
		fidx[i] = i;
	for (uint32_t i = nf - 1; i > 0; i--) {
		uint32_t j = check_rand_range(i + 1);
		uint8_t t = fidx[i];

		fidx[i] = fidx[j];
		fidx[j] = t;
	}
	for (uint32_t i = 0; i < nf; i++)
		c->defs[i].field_index = fidx[i];
	if (l->len < 16)
		l->len = 16;
}

static uint64_t
fmask(uint8_t size)
{
	return size == 8 ? UINT64_MAX : (1ull << (8 * size)) - 1;
}

/* Rule i; garbage above each field's size, as C code writing .value.u16 leaves it. */
static void
rand_rule(const struct layout *l, struct rte_acl_rule *r, uint32_t i, uint32_t n)
{
	const struct rte_acl_config *c = &l->cfg;

	check_rand_bytes(r->field, sizeof(struct rte_acl_field) * NFMAX);
	r->data.priority = 1 + (int32_t)((i * 7919u) % n);      /* unique */
	r->data.category_mask = check_rand_u32() & 0xffff;
	if (r->data.category_mask == 0)
		r->data.category_mask = 1;
	r->data.userdata = check_rand_range(8) == 0 ? 0 : 1 + check_rand_range(1000000);
	for (uint32_t k = 0; k < c->num_fields; k++) {
		const struct rte_acl_field_def *d = &c->defs[k];
		struct rte_acl_field *f = &r->field[d->field_index];
		uint64_t m = fmask(d->size), a = check_rand() & m, b = check_rand() & m;
		bool wild = check_rand_range(3) == 0;

		switch (d->type) {
		case RTE_ACL_FIELD_TYPE_MASK:
			/*
			 * rte_acl reads the length from all 8 bytes; a length beyond the field is
			 * undefined behaviour in its RTE_ACL_MASKLEN_TO_BITMASK(), so not tested.
			 */
			f->mask_range.u64 = wild ? 0 : (uint32_t)check_rand_range(8 * d->size + 1);
			break;
		case RTE_ACL_FIELD_TYPE_RANGE:
			if (wild) {
				a = 0;
				b = m;
			} else if (a > b) {
				uint64_t t = a;

				a = b;
				b = t;
			}
			f->mask_range.u64 = (f->mask_range.u64 & ~m) | b;
			break;
		default:
			f->mask_range.u64 = (f->mask_range.u64 & ~m) | (wild ? 0 : check_rand() & m);
			break;
		}
		f->value.u64 = (f->value.u64 & ~m) | a;
	}
}

/* A packet: random, or one that a rule's fields admit (where the layout lets them coexist). */
static void
rand_packet(const struct layout *l, const uint8_t *rules, uint32_t n, uint8_t *p)
{
	const struct rte_acl_config *c = &l->cfg;
	const struct rte_acl_rule *r = (const struct rte_acl_rule *)(rules + RSZ * check_rand_range(n));

	check_rand_bytes(p, PKTLEN);
	if (check_rand_range(2) == 0)
		return;
	for (uint32_t k = 0; k < c->num_fields; k++) {
		const struct rte_acl_field_def *d = &c->defs[k];
		const struct rte_acl_field *f = &r->field[d->field_index];
		uint64_t v = f->value.u64 & fmask(d->size);

		if (d->type == RTE_ACL_FIELD_TYPE_RANGE) {
			uint64_t hi = f->mask_range.u64 & fmask(d->size);

			if (hi > v && check_rand_range(2))
				v += hi - v == UINT64_MAX ? check_rand() : check_rand() % (hi - v + 1);
		}
		for (uint32_t b = 0; b < d->size; b++)           /* network order */
			p[d->offset + b] = (uint8_t)(v >> (8 * (d->size - 1 - b)));
	}
}

static void
dump_rule(const struct layout *l, const struct rte_acl_rule *r)
{
	printf("  rule ud=%u prio=%d cm=%#x:", r->data.userdata, r->data.priority, r->data.category_mask);
	for (uint32_t k = 0; k < l->cfg.num_fields; k++) {
		const struct rte_acl_field *f = &r->field[l->cfg.defs[k].field_index];
		uint64_t m = fmask(l->cfg.defs[k].size);

		printf(" [%#llx %#llx]", (unsigned long long)(f->value.u64 & m),
		       (unsigned long long)(l->cfg.defs[k].type == RTE_ACL_FIELD_TYPE_MASK ? f->mask_range.u32
					    : f->mask_range.u64 & m));
	}
	printf("\n");
}

static bool
ref_match(const struct layout *l, const struct rte_acl_rule *r, const uint8_t *p)
{
	for (uint32_t k = 0; k < l->cfg.num_fields; k++) {
		const struct rte_acl_field_def *d = &l->cfg.defs[k];
		const struct rte_acl_field *f = &r->field[d->field_index];
		uint64_t m = fmask(d->size), x = 0, v = f->value.u64 & m;

		for (uint32_t b = 0; b < d->size; b++)
			x = x << 8 | p[d->offset + b];
		if (d->type == RTE_ACL_FIELD_TYPE_MASK) {
			/* rte_acl reads the length from all of mask_range (u64); x86 shifts modulo 64 */
			uint64_t len = f->mask_range.u64;
			uint64_t pm = len == 0 ? 0 : (UINT64_MAX << ((8ull * d->size - len) & 63)) & m;


			if ((x & pm) != (v & pm))
				return false;
		} else if (d->type == RTE_ACL_FIELD_TYPE_RANGE) {
			if (x < v || x > (f->mask_range.u64 & m))
				return false;
		} else if ((x & f->mask_range.u64 & m) != (v & f->mask_range.u64 & m)) {
			return false;
		}
	}
	return true;
}

/* The documented answer: the userdata of the highest-priority matching rule of category c. */
static uint32_t
ref_result(const struct layout *l, const uint8_t *rules, uint32_t n, const uint8_t *p, uint32_t c)
{
	const struct rte_acl_rule *best = NULL;

	if (c >= l->cfg.num_categories)
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct rte_acl_rule *r = (const struct rte_acl_rule *)(rules + RSZ * i);

		if ((r->data.category_mask >> c & 1) && (best == NULL || r->data.priority > best->data.priority) &&
		    ref_match(l, r, p))
			best = r;
	}
	return best == NULL ? 0 : best->data.userdata;
}

static void
dump_case(const struct layout *l, const uint8_t *rules, uint32_t n, const uint8_t *p, uint32_t ud1, uint32_t ud2)
{
	for (uint32_t k = 0; k < l->cfg.num_fields; k++) {
		const struct rte_acl_field_def *d = &l->cfg.defs[k];

		printf("  def %u: type %u size %u field %u input %u offset %u\n", k, d->type, d->size, d->field_index,
		       d->input_index, d->offset);
	}
	printf("  packet:");
	for (uint32_t b = 0; b < 40; b++)
		printf(" %02x", p[b]);
	printf("\n");
	for (uint32_t i = 0; i < n; i++) {
		const struct rte_acl_rule *r = (const struct rte_acl_rule *)(rules + RSZ * i);

		if (r->data.userdata == ud1 || r->data.userdata == ud2 || ref_match(l, r, p)) {
			printf("  %s", ref_match(l, r, p) ? "matches:" : "no match:");
			dump_rule(l, r);
		}
	}
}

static void
one_case(uint32_t seq, bool overlap)
{
	char name[32];
	struct layout l;
	uint32_t n = 1 + check_rand_range(300);
	uint8_t *rules = calloc(n, RSZ), pkts[NPKT][PKTLEN];
	const uint8_t *ptr[NPKT];
	uint32_t rd[NPKT * 16], rv[NPKT * 16];
	struct rte_acl_ctx *cd, *cv;
	int bd, bv;

	snprintf(name, sizeof(name), "dropin%u", seq);
	struct rte_acl_param prm = { .name = name, .socket_id = SOCKET_ID_ANY, .rule_size = RSZ, .max_rule_num = n };

	rand_layout(&l, overlap);
	l.cfg.num_categories = 1 + check_rand_range(16);
	cd = dpdk.create(&prm);
	cv = vpk.create(&prm);
	CHECK(cd != NULL && cv != NULL, "create %s", name);
	if (cd == NULL || cv == NULL)
		goto out;
	for (uint32_t i = 0; i < n; i++)
		rand_rule(&l, (struct rte_acl_rule *)(rules + RSZ * i), i, n);
	CHECK(dpdk.add(cd, (void *)rules, n) == 0 && vpk.add(cv, (void *)rules, n) == 0, "add %u rules", n);
	CHECK(dpdk.add(cd, (void *)rules, 1) == -ENOMEM && vpk.add(cv, (void *)rules, 1) == -ENOMEM,
	      "a full context refuses with -ENOMEM");
	bd = dpdk.build(cd, &l.cfg);
	bv = vpk.build(cv, &l.cfg);
	if (bd == -ENOMEM && bv == 0) {
		/* rte_acl's tries outgrow its memory on some random sets: nothing to compare. */
		printf("case %u: rte_acl_build -ENOMEM, skipped\n", seq);
		goto out;
	}
	CHECK(bd == bv, "case %u (%u fields, %u rules, %u categories%s): build dpdk %d vpk %d", seq,
	      l.cfg.num_fields, n, l.cfg.num_categories, overlap ? ", overlapping groups" : "", bd, bv);
	if (bd != 0 || bv != 0)
		goto out;
	for (uint32_t i = 0; i < NPKT; i++) {
		rand_packet(&l, rules, n, pkts[i]);
		ptr[i] = pkts[i];
	}
	for (uint32_t cat = 1; cat <= 16; cat = cat == 1 ? 4 : cat + 4) {
		memset(rd, 0xa5, sizeof(rd));
		memset(rv, 0x5a, sizeof(rv));
		CHECK(dpdk.classify(cd, ptr, rd, NPKT, cat) == 0 && vpk.classify(cv, ptr, rv, NPKT, cat) == 0,
		      "classify");
		for (uint32_t i = 0; i < NPKT * cat; i++)
			if (rd[i] != rv[i]) {
				CHECK(0, "case %u%s, %u categories: packet %u category %u: dpdk %u vpk %u (by the "
				      "field definitions: %u)", seq, overlap ? " (overlapping groups)" : "", cat, i / cat,
				      i % cat, rd[i], rv[i], ref_result(&l, rules, n, pkts[i / cat], i % cat));
				if (getenv("DROPIN_DEBUG") != NULL)
					dump_case(&l, rules, n, pkts[i / cat], rd[i], rv[i]);
				break;
			}
	}
out:
	dpdk.free(cd);
	vpk.free(cv);
	free(rules);
}

/* The IPv4 5-tuple layout of DPDK's examples: small tries, no -ENOMEM from rte_acl. */
static void
ipv4_layout(struct layout *l)
{
	memset(l, 0, sizeof(*l));
	l->len = 16;
	l->cfg.num_fields = 5;
	l->cfg.defs[0] = (struct rte_acl_field_def){ RTE_ACL_FIELD_TYPE_BITMASK, 1, 0, 0, 0 };
	l->cfg.defs[1] = (struct rte_acl_field_def){ RTE_ACL_FIELD_TYPE_MASK, 4, 1, 1, 4 };
	l->cfg.defs[2] = (struct rte_acl_field_def){ RTE_ACL_FIELD_TYPE_MASK, 4, 2, 2, 8 };
	l->cfg.defs[3] = (struct rte_acl_field_def){ RTE_ACL_FIELD_TYPE_RANGE, 2, 3, 3, 12 };
	l->cfg.defs[4] = (struct rte_acl_field_def){ RTE_ACL_FIELD_TYPE_RANGE, 2, 4, 3, 14 };
	l->cfg.num_categories = 4;
}

static void
errors(void)
{
	struct layout l;
	struct rte_acl_param prm = { .name = "dropin_err", .socket_id = SOCKET_ID_ANY, .rule_size = RSZ,
				     .max_rule_num = 200 };
	struct acl_api *apis[2] = { &dpdk, &vpk };
	int rc[2][12];
	uint8_t *rules = calloc(200, RSZ);
	uint32_t res[4];
	const uint8_t *p[1] = { (const uint8_t *)rules };

	ipv4_layout(&l);
	for (uint32_t i = 0; i < 200; i++)
		rand_rule(&l, (struct rte_acl_rule *)(rules + RSZ * i), i, 200);
	for (int a = 0; a < 2; a++) {
		struct acl_api *x = apis[a];
		struct rte_acl_ctx *c = x->create(&prm);
		struct rte_acl_rule *r0 = (struct rte_acl_rule *)rules;
		struct rte_acl_config bad = l.cfg;
		int32_t pr = r0->data.priority;

		CHECK(c != NULL && x->create(&prm) == c && x->find("dropin_err") == c && x->find("nope") == NULL,
		      "%s: create returns the existing context of a name; find", x->who);
		r0->data.priority = 0;
		rc[a][0] = x->add(c, r0, 1);
		r0->data.priority = RTE_ACL_MAX_PRIORITY + 1;
		rc[a][1] = x->add(c, r0, 1);
		r0->data.priority = pr;
		rc[a][2] = x->add(c, NULL, 1);
		rc[a][3] = x->build(c, &l.cfg);                 /* no rules */
		x->add(c, (void *)rules, 200);
		bad.num_categories = 0;
		rc[a][4] = x->build(c, &bad);
		bad = l.cfg;
		bad.defs[1].size = 3;
		rc[a][5] = x->build(c, &bad);
		bad = l.cfg;
		bad.defs[0].type = 3;
		rc[a][6] = x->build(c, &bad);
		bad = l.cfg;
		bad.max_size = 256;
		rc[a][7] = x->build(c, &bad);
		rc[a][8] = x->set_alg(c, RTE_ACL_CLASSIFY_NEON);
		rc[a][9] = x->set_alg(c, (enum rte_acl_classify_alg)42);
		rc[a][10] = x->classify(c, p, res, 1, 3);
		rc[a][11] = x->build(c, &l.cfg);
		x->free(c);
	}
	for (int i = 0; i < 12; i++)
		CHECK(rc[0][i] == rc[1][i], "error case %d: dpdk %d vpk %d", i, rc[0][i], rc[1][i]);
	CHECK(rc[0][7] == -ERANGE, "max_size 256: -ERANGE (dpdk %d)", rc[0][7]);
	free(rules);
}

/* The calls of the child: algorithm (-1: rte_acl_classify, -2: rte_acl_classify_scalar), packets. */
static const struct alg_call {
	int alg;
	uint32_t n;
} alg_calls[] = {
	{ RTE_ACL_CLASSIFY_SCALAR, 96 }, { RTE_ACL_CLASSIFY_AVX512X32, 160 }, { RTE_ACL_CLASSIFY_DEFAULT, 64 },
	{ -2, 32 }, { -1, 16 },
};

/* Child: each call of alg_calls[] on one context whose own algorithm is SSE, results checked. */
static void
alg_child(void)
{
	struct rte_acl_param prm = { .name = "dropin_alg", .socket_id = SOCKET_ID_ANY, .rule_size = RSZ,
				     .max_rule_num = 200 };
	struct layout l;
	uint8_t *rules = calloc(200, RSZ), pkts[NPKT][PKTLEN];
	const uint8_t *ptr[NPKT];
	uint32_t res[NPKT * 4];
	struct rte_acl_ctx *c = vpk.create(&prm);

	ipv4_layout(&l);
	for (uint32_t i = 0; i < 200; i++)
		rand_rule(&l, (struct rte_acl_rule *)(rules + RSZ * i), i, 200);
	for (uint32_t i = 0; i < NPKT; i++) {
		rand_packet(&l, rules, 200, pkts[i]);
		ptr[i] = pkts[i];
	}
	CHECK(c != NULL && vpk.add(c, (void *)rules, 200) == 0 && vpk.build(c, &l.cfg) == 0, "alg: build");
	CHECK(vpk.set_alg(c, RTE_ACL_CLASSIFY_SSE) == 0, "alg: context's algorithm SSE");
	for (size_t k = 0; k < sizeof(alg_calls) / sizeof(alg_calls[0]); k++) {
		const struct alg_call *a = &alg_calls[k];
		uint32_t bad = 0;
		int rc;

		memset(res, 0xa5, sizeof(res));
		if (a->alg == -1)
			rc = vpk.classify(c, ptr, res, a->n, 4);
		else if (a->alg == -2)
			rc = vpk.classify_scalar(c, ptr, res, a->n, 4);
		else
			rc = vpk.classify_alg(c, ptr, res, a->n, 4, (enum rte_acl_classify_alg)a->alg);
		for (uint32_t i = 0; i < a->n * 4; i++)
			bad += res[i] != ref_result(&l, rules, 200, pkts[i / 4], i % 4);
		CHECK(rc == 0 && bad == 0, "alg %d: rc %d, %u of %u results wrong", a->alg, rc, bad, a->n * 4);
	}
	vpk.free(c);
	free(rules);
}

/* @p name's count in the drop-in's "variant packets:" line of @p out, or -1. */
static long
variant_count(const char *out, const char *name)
{
	const char *line = strstr(out, "vpk-rte-acl: variant packets:"), *p;
	char key[32];

	if (line == NULL)
		return -1;
	snprintf(key, sizeof(key), " %s=", name);
	p = strstr(line, key);
	return p == NULL ? -1 : strtol(p + strlen(key), NULL, 10);
}

/*
 * Run alg_child() in a process of its own (the counters are printed at its
 * exit) under a 512-bit vpk cap, and check which variant answered each call:
 * SCALAR and classify_scalar scalar, AVX512X32 avx512x32 where the CPU has
 * it (else the context's), DEFAULT and classify the context's sse42.
 */
static void
alg_variants(const char *self, const char *lib)
{
	static char out[1 << 16];
	char cmd[4096];
	size_t len = 0, r;
	FILE *f;
	int st;
	bool x32 = vpk_isa_compiled(VPK_ISA_AVX512) && vpk_isa_cpu_supported(VPK_ISA_AVX512) &&
		   vpk_isa_os_supported(VPK_ISA_AVX512);
	long scalar = 96 + 32, sse = 64 + 16 + (x32 ? 0 : 160), avx512 = x32 ? 160 : 0;

	snprintf(cmd, sizeof(cmd), "VPK_RTE_STATS=1 VPK_MAX_SIMD_BITWIDTH=512 '%s' '%s' alg 2>&1", self, lib);
	f = popen(cmd, "r");
	CHECK(f != NULL, "popen %s", cmd);
	if (f == NULL)
		return;
	while (len < sizeof(out) - 1 && (r = fread(out + len, 1, sizeof(out) - 1 - len, f)) > 0)
		len += r;
	out[len] = 0;
	st = pclose(f);
	fputs(out, stdout);
	CHECK(st == 0, "alg child: exit status %d", st);
	CHECK(variant_count(out, "scalar") == scalar && variant_count(out, "sse42") == sse &&
	      variant_count(out, "avx512x32") == avx512 && variant_count(out, "avx2") == 0 &&
	      variant_count(out, "avx512x16") == 0,
	      "classify_alg ran the variants asked: scalar %ld sse42 %ld avx512x32 %ld (want %ld %ld %ld), "
	      "avx2 %ld avx512x16 %ld (want 0)", variant_count(out, "scalar"), variant_count(out, "sse42"),
	      variant_count(out, "avx512x32"), scalar, sse, avx512, variant_count(out, "avx2"),
	      variant_count(out, "avx512x16"));
}

int
main(int argc, char **argv)
{
	check_init("compat_acl_diff");
	if (argc < 2 || load_vpk(argv[1]) < 0) {
		fprintf(stderr, "usage: %s libvpk_rte_acl.so\n", argv[0]);
		return 2;
	}
	if (eal_test_init(argv[0], "dtest", "1024") < 0) {
		check_skip_all("rte_eal_init failed");
		return check_finish();
	}
	if (argc > 2 && strcmp(argv[2], "alg") == 0) {
		alg_child();
	} else {
		char self[1024];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		errors();
		for (uint32_t i = 0; i < 150; i++)
			one_case(i, i % 3 == 2);
		self[n > 0 ? n : 0] = 0;
		alg_variants(self, argv[1]);
	}
	eal_test_cleanup();
	return check_finish();
}
