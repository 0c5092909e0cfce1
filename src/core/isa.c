/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ISA levels: detection (CPUID + XGETBV, once, cached), the SIMD bit-width
 * cap (default, VPK_MAX_SIMD_BITWIDTH, vpk_set_max_simd_bitwidth()), and
 * the usable test that every implementation table goes through.
 *
 * The level table is src/core/isa_levels.def, shared with the build
 * (cmake/VpkIsa.cmake reads the compiler flags from it and lists the levels
 * whose probe compiled in the generated vpk_kernels.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/isa.h>
#include "core/cpu.h"
#include "core/num.h"
#include "vpk_kernels.h"        /* VPK_ISA_BUILT_LIST: the levels built, from the same table */

/* XCR0 state components (Intel SDM vol. 1, 13.1). */
#define VPK_XCR0_SSE        (UINT64_C(1) << 1)
#define VPK_XCR0_YMM        (UINT64_C(1) << 2)
#define VPK_XCR0_OPMASK     (UINT64_C(1) << 5)
#define VPK_XCR0_ZMM_HI256  (UINT64_C(1) << 6)
#define VPK_XCR0_HI16_ZMM   (UINT64_C(1) << 7)

enum cpu_feature_id {
#define VPK_CPU_FEATURE(id, name, leaf, sub, reg, bit) VPK_CPU_##id,
#include "core/isa_levels.def"
#undef VPK_CPU_FEATURE
	VPK_CPU_N_FEATURES
};

static const struct cpu_feature {
	const char *name;
	uint32_t leaf, subleaf;
	uint8_t reg, bit;
} features[VPK_CPU_N_FEATURES] = {
#define VPK_CPU_FEATURE(id, fname, fleaf, fsub, freg, fbit) \
	[VPK_CPU_##id] = { .name = fname, .leaf = fleaf, .subleaf = fsub, .reg = freg, .bit = fbit },
#include "core/isa_levels.def"
#undef VPK_CPU_FEATURE
};

#define F(id) (UINT64_C(1) << VPK_CPU_##id)

static const struct isa_level {
	const char *name;
	unsigned bits;
	uint64_t features;      /* F() mask, in addition to lower levels' */
	uint64_t xcr0;          /* XCR0 bits, in addition to lower levels' */
} levels[VPK_ISA_COUNT] = {
	[VPK_ISA_AUTO] = { "auto", 0, 0, 0 },
#define VPK_ISA_LEVEL(id, lname, lbits, flags, feats, lxcr0) \
	[VPK_ISA_##id] = { .name = #lname, .bits = lbits, .features = (feats), .xcr0 = (lxcr0) },
#include "core/isa_levels.def"
#undef VPK_ISA_LEVEL
};

/* ---- detection, computed once ---- */

static struct {
	uint64_t present;                       /* F() mask of features CPUID reports */
	uint64_t xcr0;
	uint32_t cpu_ok, os_ok;                 /* bit per level, cumulative */
	char model[49];
} det;
static pthread_once_t det_once = PTHREAD_ONCE_INIT;

/*
 * VPK_CPU_DISABLE=avx512f,avx2,...: pretend the CPU lacks these features
 * (like glibc's glibc.cpu.hwcaps tunable). It can only take capabilities
 * away, so it is safe in production; tests use it to exercise the paths
 * of CPUs without AVX-512 or AVX2 on a machine that has them.
 */
static void
hide_features(void)
{
	const char *env = getenv("VPK_CPU_DISABLE");
	char name[32];

	while (env != NULL && *env != '\0') {
		size_t len = strcspn(env, ",");

		if (len > 0 && len < sizeof(name)) {
			memcpy(name, env, len);
			name[len] = '\0';
			for (unsigned i = 0; i < VPK_CPU_N_FEATURES; i++)
				if (strcmp(name, features[i].name) == 0)
					det.present &= ~(UINT64_C(1) << i);
		}
		env += len;
		if (*env == ',')
			env++;
	}
}

static void
detect(void)
{
	uint32_t r[4];
	uint64_t need_f = 0, need_x = 0;
	bool cpu_chain = true, os_chain = true;

	for (unsigned i = 0; i < VPK_CPU_N_FEATURES; i++) {
		vpk_cpuid(features[i].leaf, features[i].subleaf, r);
		if (r[features[i].reg] & (UINT32_C(1) << features[i].bit))
			det.present |= UINT64_C(1) << i;
	}
	if (det.present & F(OSXSAVE))
		det.xcr0 = vpk_xgetbv0();
	hide_features();

	for (unsigned l = VPK_ISA_SCALAR; l < VPK_ISA_COUNT; l++) {
		need_f |= levels[l].features;
		need_x |= levels[l].xcr0;
		cpu_chain = cpu_chain && (det.present & need_f) == need_f;
		os_chain = os_chain && (det.xcr0 & need_x) == need_x;
		if (cpu_chain)
			det.cpu_ok |= 1u << l;
		if (os_chain)
			det.os_ok |= 1u << l;
	}

	memset(det.model, 0, sizeof(det.model));
	for (uint32_t i = 0; i < 3; i++) {
		vpk_cpuid(0x80000002u + i, 0, r);
		memcpy(det.model + 16 * i, r, 16);
	}
	/* Trim the padding some CPUs put around the brand string. */
	size_t s = strspn(det.model, " ");
	memmove(det.model, det.model + s, sizeof(det.model) - s);
	for (size_t e = strlen(det.model); e > 0 && det.model[e - 1] == ' '; e--)
		det.model[e - 1] = '\0';
	if (det.model[0] == '\0')
		strcpy(det.model, "unknown x86-64 CPU");
}

static inline void
detect_once(void)
{
	pthread_once(&det_once, detect);
}

static bool
isa_valid(enum vpk_isa isa)
{
	return isa > VPK_ISA_AUTO && isa < VPK_ISA_COUNT;
}

const char *
vpk_isa_name(enum vpk_isa isa)
{
	if ((unsigned)isa >= VPK_ISA_COUNT)
		return "?";
	return levels[isa].name;
}

int
vpk_isa_from_name(const char *name, enum vpk_isa *out)
{
	if (name == NULL || out == NULL)
		return -EINVAL;
	for (unsigned l = 0; l < VPK_ISA_COUNT; l++) {
		if (strcmp(name, levels[l].name) == 0) {
			*out = (enum vpk_isa)l;
			return 0;
		}
	}
	return -EINVAL;
}

unsigned
vpk_isa_bits(enum vpk_isa isa)
{
	return isa_valid(isa) ? levels[isa].bits : 0;
}

bool
vpk_isa_cpu_supported(enum vpk_isa isa)
{
	detect_once();
	return isa_valid(isa) && (det.cpu_ok & (1u << isa));
}

bool
vpk_isa_os_supported(enum vpk_isa isa)
{
	detect_once();
	return isa_valid(isa) && (det.os_ok & (1u << isa));
}

bool
vpk_isa_compiled(enum vpk_isa isa)
{
#define ISA_BIT(id) | (1u << VPK_ISA_##id)
	static const uint32_t compiled = (1u << VPK_ISA_SCALAR) VPK_ISA_BUILT_LIST(ISA_BIT);
#undef ISA_BIT

	return isa_valid(isa) && (compiled & (1u << isa));
}

enum vpk_isa
vpk_isa_detected(void)
{
	enum vpk_isa best = VPK_ISA_SCALAR;

	for (unsigned l = VPK_ISA_SCALAR; l < VPK_ISA_COUNT; l++)
		if (vpk_isa_cpu_supported((enum vpk_isa)l) && vpk_isa_os_supported((enum vpk_isa)l))
			best = (enum vpk_isa)l;
	return best;
}

size_t
vpk_cpu_feature_count(void)
{
	return VPK_CPU_N_FEATURES;
}

int
vpk_cpu_feature(size_t i, const char **name, enum vpk_isa *level, bool *present)
{
	if (i >= VPK_CPU_N_FEATURES)
		return -EINVAL;
	detect_once();
	if (name != NULL)
		*name = features[i].name;
	if (level != NULL) {
		*level = VPK_ISA_AUTO;
		for (unsigned l = VPK_ISA_SCALAR; l < VPK_ISA_COUNT; l++)
			if (levels[l].features & (UINT64_C(1) << i))
				*level = (enum vpk_isa)l;
	}
	if (present != NULL)
		*present = det.present & (UINT64_C(1) << i);
	return 0;
}

uint64_t
vpk_cpu_xcr0(void)
{
	detect_once();
	return det.xcr0;
}

const char *
vpk_cpu_model(void)
{
	detect_once();
	return det.model;
}

/* First feature of @isa's chain that the CPU lacks, or NULL. */
static const char *
missing_feature(enum vpk_isa isa)
{
	detect_once();
	for (unsigned l = VPK_ISA_SCALAR; l <= (unsigned)isa; l++)
		for (unsigned i = 0; i < VPK_CPU_N_FEATURES; i++)
			if ((levels[l].features & (UINT64_C(1) << i)) &&
			    !(det.present & (UINT64_C(1) << i)))
				return features[i].name;
	return NULL;
}

/* ---- the cap ---- */

static _Atomic unsigned cap_bits;       /* 0 until initialised */
static enum vpk_cap_source cap_source;
static const char *cap_env;
static int cap_env_error;
static pthread_once_t cap_once = PTHREAD_ONCE_INIT;

int
vpk_parse_simd_bitwidth(const char *text, unsigned *out)
{
	unsigned v;

	/* Decimal only: the widths are written that way everywhere (no "0x200"). */
	if (out == NULL || text == NULL || text[strspn(text, "0123456789")] != '\0' ||
	    vpk_num_uint(text, 64, 512, &v, NULL, 0) != 0)
		return -EINVAL;
	if (v != 64 && v != 128 && v != 256 && v != 512)
		return -EINVAL;
	*out = v;
	return 0;
}

static unsigned
default_cap(const char **why)
{
	enum vpk_isa top = vpk_isa_detected();

	if (top >= VPK_ISA_AVX512ICL) {
		*why = "this CPU has the avx512icl level (Ice Lake / Zen 4 or later), where "
		       "512-bit light integer code runs without a frequency licence change of its own";
		return 512;
	}
	if (top == VPK_ISA_AVX512) {
		*why = "this CPU has AVX-512 but not the avx512icl level (Skylake-SP class): 512-bit "
		       "code can lower the core frequency, so vpk stays at 256 bits unless asked (as DPDK does)";
		return 256;
	}
	*why = "256 bits is the default where AVX-512 is absent; the widest usable variant is chosen below it";
	return 256;
}

static void
cap_init(void)
{
	const char *why;
	unsigned bits = default_cap(&why), env_bits;
	const char *env = getenv("VPK_MAX_SIMD_BITWIDTH");

	cap_source = VPK_CAP_DEFAULT;
	if (env != NULL) {
		cap_env = env;
		if (vpk_parse_simd_bitwidth(env, &env_bits) == 0) {
			bits = env_bits;
			cap_source = VPK_CAP_ENV;
		} else {
			cap_env_error = -EINVAL;
		}
	}
	atomic_store(&cap_bits, bits);
}

unsigned
vpk_get_max_simd_bitwidth(void)
{
	pthread_once(&cap_once, cap_init);
	return atomic_load_explicit(&cap_bits, memory_order_relaxed);
}

int
vpk_set_max_simd_bitwidth(unsigned bits)
{
	unsigned cur = vpk_get_max_simd_bitwidth();

	if (bits != 64 && bits != 128 && bits != 256 && bits != 512)
		return -EINVAL;
	if (cap_source == VPK_CAP_ENV)
		return bits == cur ? 0 : -EPERM;
	cap_source = VPK_CAP_API;
	atomic_store(&cap_bits, bits);
	return 0;
}

void
vpk_get_cap_info(struct vpk_cap_info *out)
{
	if (out == NULL)
		return;
	out->bits = vpk_get_max_simd_bitwidth();
	out->source = cap_source;
	out->default_bits = default_cap(&out->default_reason);
	out->env_value = cap_env;
	out->env_error = cap_env_error;
}

bool
vpk_isa_usable(enum vpk_isa isa)
{
	return vpk_isa_compiled(isa) && vpk_isa_cpu_supported(isa) &&
	       vpk_isa_os_supported(isa) && levels[isa].bits <= vpk_get_max_simd_bitwidth();
}

const char *
vpk_impl_why_not(const struct vpk_impl *impl)
{
	static _Thread_local char buf[96];
	const char *miss;

	if (impl == NULL || !isa_valid(impl->isa))
		return "invalid implementation entry";
	if (!vpk_isa_compiled(impl->isa))
		return "not compiled in";
	if (!vpk_isa_cpu_supported(impl->isa)) {
		miss = missing_feature(impl->isa);
		snprintf(buf, sizeof(buf), "CPU lacks %s", miss != NULL ? miss : "a feature");
		return buf;
	}
	if (!vpk_isa_os_supported(impl->isa)) {
		snprintf(buf, sizeof(buf), "OS does not save the %s register state (XCR0=0x%llx)",
			 impl->isa >= VPK_ISA_AVX512 ? "ZMM/opmask" : "YMM",
			 (unsigned long long)det.xcr0);
		return buf;
	}
	if (impl->width > vpk_get_max_simd_bitwidth()) {
		snprintf(buf, sizeof(buf), "width %u above cap %u", impl->width,
			 vpk_get_max_simd_bitwidth());
		return buf;
	}
	return NULL;
}
