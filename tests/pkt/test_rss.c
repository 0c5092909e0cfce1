/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Toeplitz hash: the reference (bit by bit) against Microsoft's RSS verification suite
 * vectors, then every usable variant against the reference at every length
 * 0..67 and 255..257 for tuple sizes 12 (IPv4 4-tuple), 8 (addresses only),
 * 36 (IPv6), random and adversarial (all zero, all ones) tuples and keys.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/rss.h>
#include "lib/check.h"
#include "pkt/rss.h"

static const uint8_t ms_key[40] = VPK_RSS_KEY_DEFAULT;

static void
test_known_answers(void)
{
	/* 66.9.149.187:2794 -> 161.142.100.80:1766 (Microsoft RSS verification suite). */
	const uint8_t t[12] = { 66, 9, 149, 187, 161, 142, 100, 80, 0x0a, 0xea, 0x06, 0xe6 };
	/* 199.92.111.2:14230 -> 65.69.140.83:4739 */
	const uint8_t t2[12] = { 199, 92, 111, 2, 65, 69, 140, 83, 0x37, 0x96, 0x12, 0x83 };

	CHECK(vpk_rss_hash_one(ms_key, t, 8) == 0x323e8fc2u, "IPv4 only: %08x", vpk_rss_hash_one(ms_key, t, 8));
	CHECK(vpk_rss_hash_one(ms_key, t, 12) == 0x51ccc178u, "IPv4 TCP: %08x", vpk_rss_hash_one(ms_key, t, 12));
	CHECK(vpk_rss_hash_one(ms_key, t2, 8) == 0xd718262au, "IPv4 only #2: %08x", vpk_rss_hash_one(ms_key, t2, 8));
	CHECK(vpk_rss_hash_one(ms_key, t2, 12) == 0xc626b0eau, "IPv4 TCP #2: %08x", vpk_rss_hash_one(ms_key, t2, 12));
}

struct ctx {
	uint8_t key[40];
};

static void
run_variant(void *arg, const struct vpk_impl *impl)
{
	struct ctx *c = arg;
	static const size_t tlens[] = { 12, 8, 36, 1 };
	size_t lens[80], nl = check_lengths(lens, 80);

	for (size_t tl = 0; tl < sizeof(tlens) / sizeof(tlens[0]); tl++) {
		struct vpk_rss *r;
		size_t stride = tlens[tl] + 3;          /* odd stride: unaligned tuples */

		struct vpk_rss_conf rc = { .key = c->key, .key_len = 40, .len = tlens[tl], .isa = impl->isa };

		CHECK(vpk_rss_create(&rc, &r) == 0, "create len %zu", tlens[tl]);
		for (size_t li = 0; li < nl; li++) {
			size_t n = lens[li];
			uint8_t *tu = check_guard_alloc(n * stride + 1);
			uint32_t got[260];

			for (size_t p = 0; p < n; p++) {
				uint8_t *t = tu + p * stride;

				if (p % 7 == 0)
					memset(t, 0, stride);
				else if (p % 7 == 1)
					memset(t, 0xff, stride);
				else
					check_rand_bytes(t, stride);
			}
			tu[n * stride] = 0;
			memset(got, 0xa5, sizeof(got));
			vpk_rss_hash_bulk(r, tu, stride, got, n);
			for (size_t p = 0; p < n; p++)
				CHECK(got[p] == vpk_rss_hash_one(c->key, tu + p * stride, tlens[tl]),
				      "len %zu n %zu p %zu: %08x want %08x", tlens[tl], n, p, got[p],
				      vpk_rss_hash_one(c->key, tu + p * stride, tlens[tl]));
			CHECK(got[n] == 0xa5a5a5a5u, "n %zu: wrote past the end", n);
			check_guard_free(tu, n * stride + 1);
		}
		vpk_rss_destroy(r);
	}
}

int
main(void)
{
	struct ctx c;
	struct vpk_rss *r;

	check_init("rss");
	test_known_answers();
	struct vpk_rss_conf rc = { .key = ms_key, .key_len = 40, .len = 37 };

	CHECK(vpk_rss_create(&rc, &r) == -EINVAL && strstr(vpk_last_error(), "37"), "len 37 accepted");
	rc = (struct vpk_rss_conf){ .key = ms_key, .key_len = 15, .len = 12 };
	CHECK(vpk_rss_create(&rc, &r) == -EINVAL, "short key accepted");
	rc = (struct vpk_rss_conf){ .key = ms_key, .key_len = 40, .len = 12, .isa = VPK_ISA_COUNT };
	CHECK(vpk_rss_create(&rc, &r) == -EINVAL && strstr(vpk_last_error(), "isa"), "bad level accepted");
	rc.isa = VPK_ISA_AVX512ICL;
	if (!vpk_isa_usable(VPK_ISA_AVX512ICL))
		CHECK(vpk_rss_create(&rc, &r) == -ENOTSUP, "unusable level picked");
	CHECK(vpk_rss_create(NULL, &r) == -EINVAL, "NULL conf accepted");
	memcpy(c.key, ms_key, 40);
	check_each_impl("rss-toeplitz", rss_impls, run_variant, &c);
	check_rand_bytes(c.key, 40);
	check_each_impl("rss-toeplitz", rss_impls, run_variant, &c);
	memset(c.key, 0xff, 40);
	check_each_impl("rss-toeplitz", rss_impls, run_variant, &c);
	return check_finish();
}
