/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GTP4.D header builder: every usable variant against a reference written
 * bit by bit (no 128-bit arithmetic), for every sr-prefix length 0..56,
 * v6src lengths 0..96, 0..6 segments, random and adversarial fields (all
 * zero, all ones, prefixes with bits set past their length), batches of
 * every length 0..67 and 255..257; output slots poisoned before and after
 * the header (an over-write into the inner packet shows), the template's
 * worked example from VPP's test (research/vpp.md §3.4) byte for byte.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/tunnel.h>
#include "lib/check.h"
#include "tunnel/gtp4d_hdr.h"

#define SLOT 256
#define PAD 32
#define MAXN 260

struct setup {
	struct gtp4d_tmpl *t;
	uint8_t srp[16], v6p[16], segs[VPK_SR_MAX_SEGS][16];
	unsigned srl, v6l, n;
	struct gtp4d_pkt p[MAXN];
};

static void
set_bit(uint8_t *a, unsigned bit, unsigned v)
{
	if (v)
		a[bit / 8] |= (uint8_t)(0x80u >> (bit % 8));
	else
		a[bit / 8] &= (uint8_t)~(0x80u >> (bit % 8));
}

/* Write the @nbits low bits of @v (MSB first) at bit @at of @a. */
static void
put_bits(uint8_t *a, unsigned at, uint64_t v, unsigned nbits)
{
	for (unsigned i = 0; i < nbits; i++)
		set_bit(a, at + i, (unsigned)(v >> (nbits - 1 - i)) & 1u);
}

static void
ref_build(const struct setup *s, const struct gtp4d_pkt *p, uint8_t *o)
{
	uint8_t b[16] = { 0 }, sa[16] = { 0 };
	unsigned len = s->n ? 48 + 16 * (s->n + 1) : 40;

	for (unsigned i = 0; i < s->srl; i++)
		set_bit(b, i, (s->srp[i / 8] >> (7 - i % 8)) & 1);
	put_bits(b, s->srl, p->da4, 32);
	put_bits(b, s->srl + 32, p->args, 8);
	put_bits(b, s->srl + 40, p->teid, 32);
	for (unsigned i = 0; i < s->v6l; i++)
		set_bit(sa, i, (s->v6p[i / 8] >> (7 - i % 8)) & 1);
	put_bits(sa, s->v6l, p->sa4, 32);
	memset(o, 0, len);
	o[0] = (uint8_t)(0x60 | p->tc >> 4);
	o[1] = (uint8_t)(p->tc << 4);
	o[4] = (uint8_t)(p->plen >> 8);
	o[5] = (uint8_t)p->plen;
	o[6] = s->n ? 43 : p->nh;
	o[7] = p->hlim;
	memcpy(o + 8, sa, 16);
	if (s->n == 0) {
		memcpy(o + 24, b, 16);
		return;
	}
	memcpy(o + 24, s->segs[0], 16);
	o[40] = p->nh;
	o[41] = (uint8_t)(2 * (s->n + 1));
	o[42] = 4;
	o[43] = o[44] = (uint8_t)s->n;
	memcpy(o + 48, b, 16);
	for (unsigned i = 0; i < s->n; i++)
		memcpy(o + 64 + 16 * i, s->segs[s->n - 1 - i], 16);
}

static void
random_pkt(struct gtp4d_pkt *p, unsigned mode)
{
	if (mode == 0) {
		memset(p, 0, sizeof(*p));
	} else if (mode == 1) {
		p->sa4 = p->da4 = p->teid = UINT32_MAX;
		p->plen = UINT16_MAX;
		p->args = p->tc = p->hlim = p->nh = 0xff;
	} else {
		p->sa4 = check_rand_u32();
		p->da4 = check_rand_u32();
		p->teid = check_rand_u32();
		p->plen = (uint16_t)check_rand();
		p->args = (uint8_t)check_rand();
		p->tc = (uint8_t)check_rand();
		p->hlim = (uint8_t)check_rand();
		p->nh = (uint8_t)check_rand();
	}
}

static void
run_variant(void *arg, const struct vpk_impl *impl)
{
	struct setup *s = arg;
	const struct gtp4d_hdr_impl *hi = (const struct gtp4d_hdr_impl *)impl;
	size_t lens[80], nl = check_lengths(lens, 80);
	static uint8_t mem[MAXN][SLOT + 2 * PAD];
	uint8_t *out[MAXN], want[SLOT];
	unsigned len = s->t->len;

	/* Every batch length for some prefix lengths; the longest batch (all packets) for the rest. */
	if (s->srl % 8 != 0) {
		lens[0] = lens[nl - 1];
		nl = 1;
	}
	for (size_t li = 0; li < nl; li++) {
		size_t n = lens[li];

		memset(mem, 0x5a, sizeof(mem));
		for (size_t i = 0; i < n; i++)
			out[i] = mem[i] + PAD + (i % 7);        /* unaligned slots too */
		hi->build_bulk(s->t, s->p, out, (uint32_t)n);
		for (size_t i = 0; i < n; i++) {
			ref_build(s, &s->p[i], want);
			CHECK(memcmp(out[i], want, len) == 0, "srl %u v6l %u n_seg %u batch %zu pkt %zu: bytes differ",
			      s->srl, s->v6l, s->n, n, i);
			for (size_t k = 0; k < SLOT + 2 * PAD; k++) {
				size_t off = (size_t)(out[i] - mem[i]);

				if (k < off || k >= off + len)
					if (mem[i][k] != 0x5a) {
						CHECK(0, "srl %u n_seg %u: byte %zd outside the header written", s->srl,
						      s->n, (ssize_t)k - (ssize_t)off);
						break;
					}
			}
		}
		CHECK(mem[n][PAD] == 0x5a, "batch %zu: wrote to slot n", n);
	}
}

static void
test_worked_example(void)
{
	static const uint8_t want[] = {
		0x60, 0, 0, 0, 0, 0x68, 0x2b, 0x40,
		0, 0xc1, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2, 0, 0, 0, 0,
		0, 0xd2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0x29, 6, 4, 2, 2, 0, 0, 0,
		0, 0xd4, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0xc8, 0, 0, 0,
		0, 0xd3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0xd2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	uint8_t srp[16] = { 0, 0xd4 }, v6p[16] = { 0, 0xc1 }, segs[2][16] = { { 0, 0xd2 }, { 0, 0xd3 } };
	struct gtp4d_tmpl *t = aligned_alloc(64, sizeof(*t));
	struct gtp4d_pkt p = { .sa4 = 0x02020202, .da4 = 0x01010101, .teid = 200, .plen = 104,
			       .hlim = 64, .nh = 41 };
	uint8_t out[160], *o = out;

	CHECK(vpk_gtp4d_tmpl_init(t, srp, 32, v6p, 64, (const uint8_t (*)[16])segs, 2) == 0, "init");
	for (const struct vpk_impl *const *i = gtp4d_hdr_impls; *i != NULL; i++) {
		if (!vpk_isa_usable((*i)->isa))
			continue;
		memset(out, 0xee, sizeof(out));
		((const struct gtp4d_hdr_impl *)*i)->build_bulk(t, &p, &o, 1);
		CHECK(t->len == sizeof(want) && memcmp(out, want, sizeof(want)) == 0,
		      "%s: worked example bytes differ", (*i)->name);
	}
	CHECK(vpk_gtp4d_tmpl_init(t, srp, 57, v6p, 64, NULL, 0) == -EINVAL, "sr_plen 57 accepted");
	CHECK(vpk_gtp4d_tmpl_init(t, srp, 32, v6p, 97, NULL, 0) == -EINVAL, "v6src_plen 97 accepted");
	CHECK(vpk_gtp4d_tmpl_init(t, srp, 32, v6p, 64, (const uint8_t (*)[16])segs, 7) == -EINVAL, "7 segs");
	free(t);
}

int
main(void)
{
	struct setup *s = calloc(1, sizeof(*s));

	check_init("tunnel.gtp4d_hdr");
	test_worked_example();
	s->t = aligned_alloc(64, sizeof(*s->t));
	for (unsigned srl = 0; srl <= 56; srl++) {
		s->srl = srl;
		s->v6l = srl < 4 ? srl * 32 : (unsigned)check_rand_range(97);
		s->n = srl % (VPK_SR_MAX_SEGS + 1);
		check_rand_bytes(s->srp, 16);
		check_rand_bytes(s->v6p, 16);
		if (srl % 5 == 0) {     /* adversarial: all-ones prefixes (bits past the length ignored) */
			memset(s->srp, 0xff, 16);
			memset(s->v6p, 0xff, 16);
		}
		check_rand_bytes(s->segs, sizeof(s->segs));
		/* The template takes prefixes with bits past their length set; the reference masks. */
		CHECK(vpk_gtp4d_tmpl_init(s->t, s->srp, srl, s->v6p, s->v6l, (const uint8_t (*)[16])s->segs,
					  s->n) == 0, "init srl %u", srl);
		for (unsigned b = srl; b < 128; b++)
			set_bit(s->srp, b, 0);
		for (unsigned b = s->v6l; b < 128; b++)
			set_bit(s->v6p, b, 0);
		for (size_t i = 0; i < MAXN; i++)
			random_pkt(&s->p[i], i < 2 ? (unsigned)i : 2);
		check_each_impl("srv6-gtp4d-header", gtp4d_hdr_impls, run_variant, s);
	}
	free(s->t);
	free(s);
	return check_finish();
}
