/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 header checksum: every usable variant x every length 0..67 and
 * 255..257 against a naive reference, on random and adversarial headers,
 * each header placed so that its last byte touches an inaccessible page
 * (an over-read faults), outputs poisoned (an over-write shows).
 */
#include <errno.h>
#include <string.h>

#include <vpk/pkt.h>
#include "lib/check.h"
#include "pkt/ip4_csum.h"

#define N_HDRS 300

static uint8_t *hdrs[N_HDRS];
static size_t hdr_len[N_HDRS];
static uint8_t want[N_HDRS];

/* Reference: RFC 1071 over big-endian 16-bit words, written independently of the kernels. */
static uint8_t
ref_ok(const uint8_t *h)
{
	unsigned ihl = h[0] & 15;
	uint64_t sum = 0;

	if (ihl < 5)
		return 0;
	for (unsigned k = 0; k < 4 * ihl; k += 2)
		sum += (uint64_t)h[k] * 256 + h[k + 1];
	while (sum > 0xffff)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

static void
set_csum(uint8_t *h, size_t len)
{
	uint16_t c;

	h[10] = h[11] = 0;
	c = vpk_ip4_csum(h, len);
	memcpy(h + 10, &c, 2);
}

/* Header kinds: the adversarial ones first, then random. */
static void
make_header(size_t i)
{
	unsigned kind = (unsigned)(i < 16 ? i : 16 + check_rand_range(8));
	unsigned ihl = 5 + (unsigned)check_rand_range(11);
	uint8_t tmp[60];

	check_rand_bytes(tmp, sizeof(tmp));
	switch (kind) {
	case 0: memset(tmp, 0, sizeof(tmp)); ihl = 0; break;          /* IHL 0 */
	case 1: memset(tmp, 0xff, sizeof(tmp)); ihl = 15; break;      /* all ones: sum is 0xffff */
	case 2: ihl = 4; break;                                        /* IHL below minimum, random sum */
	case 3: ihl = 15; break;                                       /* maximum options, valid */
	case 4: ihl = 5; break;
	case 5: ihl = 6; break;
	case 6: ihl = 14; break;
	case 7: ihl = 5; memset(tmp, 0, sizeof(tmp)); break;           /* zero header, IHL 5: valid sum would be 0xffff */
	default: break;
	}
	tmp[0] = (uint8_t)((tmp[0] & 0xf0) | ihl);
	hdr_len[i] = ihl < 5 ? 20 : 4 * ihl;
	if (kind == 1) {
		/* IHL 15 with every other byte 0xff: the sum of 30 words of 0xffff is 0xffff. */
	} else if (kind == 4 || kind == 5 || kind == 6 || kind == 3 || kind == 7 || (kind >= 16 && (kind & 1))) {
		set_csum(tmp, hdr_len[i]);
		if (kind == 7)
			tmp[0] = 0x45;
		if (kind == 7)
			set_csum(tmp, 20);
	} else if (kind >= 16 && check_rand_range(2)) {
		set_csum(tmp, hdr_len[i]);
		/* One bit off, anywhere but the IHL nibble (which sets how much may be read). */
		size_t at = 1 + check_rand_range(hdr_len[i] * 8 - 8 + 4);

		if (at < 5)
			tmp[0] ^= (uint8_t)(0x10u << (at - 1));
		else
			tmp[1 + (at - 5) / 8] ^= (uint8_t)(1u << ((at - 5) % 8));
	}
	if (kind == 8) {
		/* Checksum field 0x0000 where 0xffff is also a valid encoding of the same sum. */
		tmp[0] = 0x45;
		set_csum(tmp, 20);
		if (tmp[10] == 0xff && tmp[11] == 0xff)
			tmp[10] = tmp[11] = 0;
	}
	hdrs[i] = check_guard_alloc(hdr_len[i]);
	memcpy(hdrs[i], tmp, hdr_len[i]);
	want[i] = ref_ok(hdrs[i]);
}

static void
run_variant(void *arg, const struct vpk_impl *impl)
{
	vpk_ip4_csum_check_fn fn = ((const struct ip4_csum_impl *)impl)->check_bulk;
	size_t lens[80], nl = check_lengths(lens, 80);
	uint8_t got[N_HDRS + 1];

	(void)arg;
	for (size_t li = 0; li < nl; li++) {
		size_t n = lens[li];

		/* Different windows of the header array so each length sees other headers. */
		for (size_t start = 0; start + n <= N_HDRS && start < 3; start++) {
			memset(got, 0xa5, sizeof(got));
			fn((const uint8_t *const *)hdrs + start, got, n);
			for (size_t i = 0; i < n; i++)
				CHECK(got[i] == want[start + i], "n=%zu packet %zu: got %u want %u (ihl %u)",
				      n, start + i, got[i], want[start + i], hdrs[start + i][0] & 15);
			CHECK(got[n] == 0xa5, "n=%zu: wrote past the end", n);
		}
	}
}

static void
test_known_answers(void)
{
	/* RFC 1071 style example: a real header whose checksum is 0xb861. */
	uint8_t h[20] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
			  0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7 };
	uint16_t c = vpk_ip4_csum(h, 20);

	CHECK(memcmp(&c, "\xb8\x61", 2) == 0, "vpk_ip4_csum gave %02x%02x, want b861",
	      ((uint8_t *)&c)[0], ((uint8_t *)&c)[1]);
	CHECK(ref_ok(h) == 1, "reference rejects a valid header");
	CHECK(ip4_csum_ok_one(h) == 1, "scalar body rejects a valid header");
	h[8] = 0x3f;    /* TTL changed, checksum not: invalid */
	CHECK(ref_ok(h) == 0 && ip4_csum_ok_one(h) == 0, "a stale checksum passed");

	/* Incremental update (RFC 1624) equals a full recompute, for random TTL/proto words. */
	for (int t = 0; t < 2000; t++) {
		uint8_t x[20];
		uint16_t old_word, new_word, inc, full;

		check_rand_bytes(x, sizeof(x));
		x[0] = 0x45;
		set_csum(x, 20);
		memcpy(&old_word, x + 8, 2);
		memcpy(&inc, x + 10, 2);
		x[8] = (uint8_t)(x[8] - 1);     /* TTL decrement */
		if (t & 1)
			x[9] = (uint8_t)check_rand();
		memcpy(&new_word, x + 8, 2);
		inc = vpk_csum_update16(inc, old_word, new_word);
		memcpy(x + 10, &inc, 2);
		CHECK(ref_ok(x) == 1, "incremental update gave an invalid header (t=%d)", t);
		/* ... and the same field as a full recompute (RFC 1624 eqn 3 never yields -0). */
		full = vpk_ip4_csum(x, 20);
		CHECK(full == inc, "incremental %04x, full recompute %04x (t=%d)", inc, full, t);
	}
}

static void
test_comparison_can_fail(void)
{
	/* The comparison above must notice a wrong answer: flip one expected value and count. */
	uint8_t got[N_HDRS];
	size_t mismatches = 0;
	vpk_ip4_csum_check_fn fn;

	CHECK(vpk_ip4_csum_check_get(VPK_ISA_SCALAR, &fn, NULL) == 0, "scalar variant missing");
	fn((const uint8_t *const *)hdrs, got, N_HDRS);
	want[7] ^= 1;
	for (size_t i = 0; i < N_HDRS; i++)
		mismatches += got[i] != want[i];
	want[7] ^= 1;
	CHECK(mismatches == 1, "a corrupted expectation went unnoticed (%zu mismatches)", mismatches);
}

static void
test_getter(void)
{
	vpk_ip4_csum_check_fn fn;
	const struct vpk_impl *impl = NULL;

	CHECK(vpk_ip4_csum_check_get(VPK_ISA_AUTO, NULL, NULL) == -EINVAL, "NULL fn accepted");
	CHECK(vpk_ip4_csum_check_get(VPK_ISA_COUNT, &fn, NULL) == -EINVAL, "bad isa accepted");
	CHECK(vpk_ip4_csum_check_get(VPK_ISA_AUTO, &fn, &impl) == 0 && impl != NULL, "auto failed");
	/* AUTO picks the widest level allowed by the cap. */
	for (enum vpk_isa l = VPK_ISA_AVX512; l >= VPK_ISA_SCALAR; l--) {
		if (vpk_isa_usable(l)) {
			CHECK(impl->isa == l, "auto chose %s, best usable is %s", impl->name, vpk_isa_name(l));
			break;
		}
	}
	for (enum vpk_isa l = VPK_ISA_SCALAR; l <= VPK_ISA_AVX512; l++) {
		int rc = vpk_ip4_csum_check_get(l, &fn, &impl);

		CHECK(rc == (vpk_isa_usable(l) ? 0 : -ENOTSUP), "forced %s: rc %d", vpk_isa_name(l), rc);
	}
}

/*
 * The fixed 20-byte form the forwarder's fast path uses (three loads, one
 * 64-bit sum, two folds) against the reference, on IHL-5 headers: random,
 * with a valid checksum, one bit off, and the largest sums (every other
 * byte 0xff), where one fold too few leaves a good header's sum above 0xffff.
 */
static void
test_fold20(void)
{
	size_t good = 0, bad = 0;

	for (int t = 0; t < 20000; t++) {
		uint8_t h[20];
		struct ip4_hdr20 w;
		uint8_t got;

		if (t % 4 == 3)
			memset(h, 0xff, sizeof(h));
		else
			check_rand_bytes(h, sizeof(h));
		h[0] = 0x45;
		if (t % 4 != 0)
			set_csum(h, 20);
		if (t % 8 == 2)
			h[1 + check_rand_range(19)] ^= (uint8_t)(1u << check_rand_range(8));
		w = ip4_hdr20_load(h);
		got = ip4_csum_fold(ip4_csum_sum20(&w)) == 0xffff;
		CHECK(got == ref_ok(h), "t=%d: 20-byte fold says %u, reference %u", t, got, ref_ok(h));
		CHECK(ip4_csum_ok_one(h) == ref_ok(h), "t=%d: ip4_csum_ok_one disagrees", t);
		good += got;
		bad += !got;
	}
	CHECK(good > 1000 && bad > 1000, "the headers were not mixed (%zu good, %zu bad)", good, bad);
}

int
main(void)
{
	check_init("ip4_csum");
	for (size_t i = 0; i < N_HDRS; i++)
		make_header(i);
	test_known_answers();
	test_fold20();
	test_getter();
	test_comparison_can_fail();
	check_each_impl("ip4-csum-check", ip4_csum_impls, run_variant, NULL);
	for (size_t i = 0; i < N_HDRS; i++)
		check_guard_free(hdrs[i], hdr_len[i]);
	return check_finish();
}
