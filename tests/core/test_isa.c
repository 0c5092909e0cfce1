/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The dispatch core: level names, cap parsing and semantics (default,
 * environment, API, -EPERM), implementation picking with widths (an
 * AVX-512VL variant on 256-bit registers is usable at cap 256), forced
 * choices that cannot run (-ENOTSUP), and nested levels.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/check.h"

static const struct vpk_impl i_x32 = { "avx512x32", VPK_ISA_AVX512, 512 };
static const struct vpk_impl i_x16 = { "avx512x16", VPK_ISA_AVX512, 256 };
static const struct vpk_impl i_avx2 = { "avx2", VPK_ISA_AVX2, 256 };
static const struct vpk_impl i_sse = { "sse42", VPK_ISA_SSE42, 128 };
static const struct vpk_impl i_scalar = { "scalar", VPK_ISA_SCALAR, 64 };
static const struct vpk_impl *const table[] = { &i_x32, &i_x16, &i_avx2, &i_sse, &i_scalar, NULL };

static void
test_names(void)
{
	enum vpk_isa isa;

	for (unsigned l = 0; l < VPK_ISA_COUNT; l++) {
		CHECK(vpk_isa_from_name(vpk_isa_name((enum vpk_isa)l), &isa) == 0 && isa == l,
		      "name round trip of level %u", l);
	}
	CHECK(vpk_isa_from_name("avx1024", &isa) == -EINVAL, "unknown name accepted");
	CHECK(vpk_isa_from_name(NULL, &isa) == -EINVAL, "NULL name accepted");
	CHECK(vpk_isa_from_name("AVX2", &isa) == -EINVAL, "names are case-sensitive");
	CHECK(strcmp(vpk_isa_name(VPK_ISA_COUNT), "?") == 0, "out of range name");
	CHECK(vpk_isa_bits(VPK_ISA_SCALAR) == 64 && vpk_isa_bits(VPK_ISA_SSE42) == 128 &&
	      vpk_isa_bits(VPK_ISA_AVX2) == 256 && vpk_isa_bits(VPK_ISA_AVX512) == 512 &&
	      vpk_isa_bits(VPK_ISA_AVX512ICL) == 512 && vpk_isa_bits(VPK_ISA_AUTO) == 0,
	      "level widths");
}

static void
test_parse(void)
{
	static const char *const bad[] = { "", "0", "100", "1024", "-64", "+64", "64 ", " 64",
					   "512x", "0x200", "256.0", "99999999999999999999" };
	unsigned v;

	CHECK(vpk_parse_simd_bitwidth("64", &v) == 0 && v == 64, "64");
	CHECK(vpk_parse_simd_bitwidth("128", &v) == 0 && v == 128, "128");
	CHECK(vpk_parse_simd_bitwidth("256", &v) == 0 && v == 256, "256");
	CHECK(vpk_parse_simd_bitwidth("512", &v) == 0 && v == 512, "512");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(vpk_parse_simd_bitwidth(bad[i], &v) == -EINVAL, "'%s' accepted", bad[i]);
	CHECK(vpk_parse_simd_bitwidth(NULL, &v) == -EINVAL, "NULL accepted");
}

static void
test_levels_nested(void)
{
	for (unsigned l = VPK_ISA_SSE42; l < VPK_ISA_COUNT; l++) {
		if (vpk_isa_cpu_supported((enum vpk_isa)l))
			CHECK(vpk_isa_cpu_supported((enum vpk_isa)(l - 1)), "level %u without %u", l, l - 1);
		if (vpk_isa_os_supported((enum vpk_isa)l))
			CHECK(vpk_isa_os_supported((enum vpk_isa)(l - 1)), "OS level %u without %u", l, l - 1);
	}
	CHECK(vpk_isa_cpu_supported(VPK_ISA_SCALAR) && vpk_isa_usable(VPK_ISA_SCALAR), "scalar always usable");
	CHECK(!vpk_isa_usable(VPK_ISA_AUTO) && !vpk_isa_usable(VPK_ISA_COUNT), "AUTO/COUNT are not levels");
	if (vpk_isa_cpu_supported(VPK_ISA_AVX2))
		CHECK((vpk_cpu_xcr0() & 6) == 6 || !vpk_isa_os_supported(VPK_ISA_AVX2), "XCR0 vs AVX2");
	CHECK(vpk_cpu_model()[0] != '\0', "empty CPU model");
}

/* Expected pick for AUTO under the current cap, computed from first principles. */
static const struct vpk_impl *
expect_auto(void)
{
	unsigned cap = vpk_get_max_simd_bitwidth();
	bool v4 = vpk_isa_usable(VPK_ISA_SCALAR) && vpk_isa_compiled(VPK_ISA_AVX512) &&
		  vpk_isa_cpu_supported(VPK_ISA_AVX512) && vpk_isa_os_supported(VPK_ISA_AVX512);

	if (v4 && cap >= 512)
		return &i_x32;
	if (v4 && cap >= 256)
		return &i_x16;
	if (vpk_isa_usable(VPK_ISA_AVX2))
		return &i_avx2;
	if (vpk_isa_usable(VPK_ISA_SSE42))
		return &i_sse;
	return &i_scalar;
}

static void
test_pick(void)
{
	const struct vpk_impl *out = NULL;
	unsigned cap = vpk_get_max_simd_bitwidth();
	int rc;

	CHECK(vpk_impl_pick(table, VPK_ISA_AUTO, &out) == 0 && out == expect_auto(),
	      "cap %u: AUTO chose %s, want %s", cap, out ? out->name : "-", expect_auto()->name);
	for (unsigned l = VPK_ISA_SCALAR; l < VPK_ISA_COUNT; l++) {
		out = NULL;
		rc = vpk_impl_pick(table, (enum vpk_isa)l, &out);
		if (rc == 0) {
			CHECK(out->isa == l && out->width <= cap && vpk_impl_why_not(out) == NULL,
			      "forced %s gave %s", vpk_isa_name((enum vpk_isa)l), out->name);
		} else {
			CHECK(rc == -ENOTSUP, "forced %s: rc %d", vpk_isa_name((enum vpk_isa)l), rc);
			/* -ENOTSUP only when every entry of that level is unusable. */
			for (const struct vpk_impl *const *t = table; *t; t++)
				if ((*t)->isa == l)
					CHECK(vpk_impl_why_not(*t) != NULL, "%s usable but refused", (*t)->name);
		}
	}
	/* The 256-bit AVX-512VL variant serves "avx512" under cap 256. */
	if (vpk_isa_cpu_supported(VPK_ISA_AVX512) && vpk_isa_os_supported(VPK_ISA_AVX512) && cap == 256)
		CHECK(vpk_impl_pick(table, VPK_ISA_AVX512, &out) == 0 && out == &i_x16,
		      "cap 256: avx512 should give avx512x16");
	rc = vpk_impl_pick_name(table, "avx512x32", &out);
	CHECK(rc == (vpk_impl_why_not(&i_x32) ? -ENOTSUP : 0), "by name avx512x32: rc %d", rc);
	CHECK(vpk_impl_pick_name(table, "nosuch", &out) == -EINVAL, "unknown name accepted");
	CHECK(vpk_impl_pick_name(table, "scalar", &out) == 0 && out == &i_scalar, "by name scalar");
	rc = vpk_impl_pick_name(table, "auto", &out);
	CHECK(rc == 0 && out == expect_auto(), "auto by name");
	CHECK(vpk_impl_pick(table, VPK_ISA_COUNT, &out) == -EINVAL, "level out of range accepted");
	CHECK(vpk_impl_pick(NULL, VPK_ISA_AUTO, &out) == -EINVAL, "NULL table accepted");
	{
		static const struct vpk_impl icl = { "icl", VPK_ISA_AVX512ICL, 512 };
		static const struct vpk_impl *const only_icl[] = { &icl, NULL };
		rc = vpk_impl_pick(only_icl, VPK_ISA_AUTO, &out);
		CHECK(rc == (vpk_isa_usable(VPK_ISA_AVX512ICL) ? 0 : -ENOTSUP),
		      "table without a usable entry: rc %d", rc);
		CHECK(vpk_impl_pick(only_icl, VPK_ISA_AVX2, &out) == -ENOTSUP, "absent level picked");
	}
	if (!vpk_isa_cpu_supported(VPK_ISA_AVX512))
		CHECK(vpk_impl_why_not(&i_x32) != NULL && strstr(vpk_impl_why_not(&i_x32), "CPU lacks") != NULL,
		      "why_not without the CPU feature: %s", vpk_impl_why_not(&i_x32));
	if (cap < 512 && vpk_isa_cpu_supported(VPK_ISA_AVX512) && vpk_isa_os_supported(VPK_ISA_AVX512))
		CHECK(vpk_impl_why_not(&i_x32) != NULL && strstr(vpk_impl_why_not(&i_x32), "cap") != NULL,
		      "why_not for width above cap: %s", vpk_impl_why_not(&i_x32));
}

static void
test_cap_semantics(void)
{
	const char *env = getenv("VPK_MAX_SIMD_BITWIDTH");
	struct vpk_cap_info ci;
	unsigned want;

	vpk_get_cap_info(&ci);
	CHECK(ci.default_reason != NULL && ci.default_bits >= 256, "default %u", ci.default_bits);
	if (vpk_isa_cpu_supported(VPK_ISA_AVX512ICL) && vpk_isa_os_supported(VPK_ISA_AVX512ICL))
		CHECK(ci.default_bits == 512, "icl-class CPU: default should be 512");
	else
		CHECK(ci.default_bits == 256, "default should be 256 without avx512icl");
	if (env != NULL && vpk_parse_simd_bitwidth(env, &want) == 0) {
		CHECK(ci.source == VPK_CAP_ENV && ci.bits == want, "env cap %s not applied", env);
		CHECK(vpk_set_max_simd_bitwidth(want == 64 ? 128 : 64) == -EPERM, "set overrode the env");
		CHECK(vpk_set_max_simd_bitwidth(want) == 0, "set to the env value refused");
		CHECK(vpk_get_max_simd_bitwidth() == want, "cap changed");
	} else if (env != NULL) {
		CHECK(ci.env_error == -EINVAL && ci.source == VPK_CAP_DEFAULT, "bad env not flagged");
	} else {
		CHECK(ci.source == VPK_CAP_DEFAULT && ci.bits == ci.default_bits, "default not applied");
		CHECK(vpk_set_max_simd_bitwidth(100) == -EINVAL, "100 accepted");
		CHECK(vpk_set_max_simd_bitwidth(128) == 0 && vpk_get_max_simd_bitwidth() == 128, "set 128");
		test_pick();    /* again, under cap 128 */
		CHECK(vpk_set_max_simd_bitwidth(256) == 0, "set 256");
		test_pick();
		CHECK(vpk_set_max_simd_bitwidth(ci.default_bits) == 0, "restore");
	}
}

static void *
detect_thread(void *arg)
{
	*(enum vpk_isa *)arg = vpk_isa_detected();
	return NULL;
}

static void
test_detect_threads(void)
{
	pthread_t t[4];
	enum vpk_isa got[4];

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, detect_thread, &got[i]);
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		CHECK(got[i] == vpk_isa_detected(), "thread %d saw another level", i);
	}
}

int
main(void)
{
	check_init("isa");
	test_detect_threads();
	test_names();
	test_parse();
	test_levels_nested();
	test_pick();
	test_cap_semantics();
	return check_finish();
}
