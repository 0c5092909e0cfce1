/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_SIMD_VEC_H
#define VPK_SIMD_VEC_H

/*
 * vpk's private vector abstraction, for kernel sources compiled once per ISA
 * (vpk_kernel()). It follows VPP's vppinfra/vector.h: GCC vector
 * types give the arithmetic, compares and shifts for free on every width;
 * this header adds the few operations the compiler cannot express (gathers,
 * masked gathers, lane tests) with one implementation per ISA.
 *
 * The width of the build is VPK_VEC_BITS (src/core/kern.h):
 *
 *   VPK_VEC_BITS   u32v lanes   u64v lanes   gathers
 *   0 (scalar)     -            -            -   (vector loops compile out)
 *   128 (sse42)    4            2            emulated: one scalar load per lane
 *   256 (avx2)     8            4            vpgatherdd / vpgatherqd
 *   512 (avx512)   16           8            vpgatherdd / vpgatherqd with k-masks
 *
 * Kernels use
 *
 *   #if VPK_VEC_BITS
 *       for (; i + VPK_U32_LANES <= n; i += VPK_U32_LANES) { ... u32v ... }
 *   #endif
 *       for (; i < n; i++) ...the scalar per-element function...
 *
 * so every variant ends in the same scalar tail (STYLE.md §7.4).
 *
 * Everything here is static inline and always inlined: a stray out-of-line
 * copy in a per-ISA object would carry ISA instructions under a name without
 * the ISA suffix, which the `vpk scan --allow-suffix` test rejects.
 */
#include <stdint.h>
#include <string.h>

#include "core/kern.h"

#if VPK_VEC_BITS
#include <immintrin.h>

#define VPK_VEC_BYTES  (VPK_VEC_BITS / 8)
#define VPK_U32_LANES  (VPK_VEC_BITS / 32)
#define VPK_U64_LANES  (VPK_VEC_BITS / 64)
#define VPK_INLINE     static inline __attribute__((always_inline))

typedef uint32_t u32v __attribute__((vector_size(VPK_VEC_BYTES)));
typedef int32_t  i32v __attribute__((vector_size(VPK_VEC_BYTES)));
typedef uint64_t u64v __attribute__((vector_size(VPK_VEC_BYTES)));
typedef uint16_t u16v __attribute__((vector_size(VPK_VEC_BYTES)));
typedef uint8_t  u8v  __attribute__((vector_size(VPK_VEC_BYTES)));
/* Half-width u32 vector: the lanes that widen into one u64v. */
typedef uint32_t u32h __attribute__((vector_size(VPK_VEC_BYTES / 2)));
/* One byte per u32 lane: what a u32v narrows to. */
typedef uint8_t  u8q  __attribute__((vector_size(VPK_U32_LANES)));

/*
 * T_loadu / T_storeu: unaligned, alias-safe load and store (movdqu /
 * vmovdqu*); T_splat: every lane x.
 */
#define VPK_VEC_BASICS(T, E)                      \
	VPK_INLINE T T##_loadu(const void *p)     \
	{                                         \
		T v;                              \
		memcpy(&v, p, sizeof(v));         \
		return v;                         \
	}                                         \
	VPK_INLINE void T##_storeu(void *p, T v)  \
	{                                         \
		memcpy(p, &v, sizeof(v));         \
	}                                         \
	VPK_INLINE T T##_splat(E x)               \
	{                                         \
		return (T){ 0 } + x;              \
	}
VPK_VEC_BASICS(u32v, uint32_t)
VPK_VEC_BASICS(u64v, uint64_t)

/* The ISA's own integer vector type, what its intrinsics take and return. */
#if VPK_VEC_BITS == 512
typedef __m512i vpk_vi;
#elif VPK_VEC_BITS == 256
typedef __m256i vpk_vi;
#else
typedef __m128i vpk_vi;
#endif

VPK_INLINE vpk_vi
vpk_vi_loadu(const void *p)
{
	vpk_vi v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Every 128-bit lane holds the dwords d0, d1, d2, d3, in that order. */
VPK_INLINE vpk_vi
vpk_vi_lanes4(int d0, int d1, int d2, int d3)
{
#if VPK_VEC_BITS == 512
	return _mm512_set4_epi32(d3, d2, d1, d0);
#elif VPK_VEC_BITS == 256
	return _mm256_setr_epi32(d0, d1, d2, d3, d0, d1, d2, d3);
#else
	return _mm_setr_epi32(d0, d1, d2, d3);
#endif
}

/* Byte i of each 128-bit lane <- byte ctl[i] & 15 of the same lane of @a, or 0 where ctl[i] has bit 7 (pshufb). */
VPK_INLINE vpk_vi
vpk_vi_shuffle_bytes(vpk_vi a, vpk_vi ctl)
{
#if VPK_VEC_BITS == 512
	return _mm512_shuffle_epi8(a, ctl);
#elif VPK_VEC_BITS == 256
	return _mm256_shuffle_epi8(a, ctl);
#else
	return _mm_shuffle_epi8(a, ctl);
#endif
}

/* Lanes 0..L/2-1 (lo) or L/2..L-1 (hi) of @v, zero-extended to 64 bits. */
VPK_INLINE u64v
u32v_widen_lo(u32v v)
{
	u32h h;

	memcpy(&h, &v, sizeof(h));
	return __builtin_convertvector(h, u64v);
}

VPK_INLINE u64v
u32v_widen_hi(u32v v)
{
	u32h h;

	memcpy(&h, (const uint8_t *)&v + sizeof(h), sizeof(h));
	return __builtin_convertvector(h, u64v);
}

/* Truncate each u64 lane to 32 bits and store the VPK_U64_LANES results at @p. */
VPK_INLINE void
u64v_store_narrow32(void *p, u64v v)
{
	u32h h = __builtin_convertvector(v, u32h);

	memcpy(p, &h, sizeof(h));
}

/* Low byte of each u32 lane, stored as VPK_U32_LANES bytes at @p. */
VPK_INLINE void
u32v_store_narrow8(void *p, u32v v)
{
	u8q q = __builtin_convertvector(v, u8q);

	memcpy(p, &q, sizeof(q));
}

/* True if any lane is non-zero. */
VPK_INLINE int
u32v_any(u32v v)
{
#if VPK_VEC_BITS == 512
	return _mm512_test_epi32_mask((__m512i)v, (__m512i)v) != 0;
#elif VPK_VEC_BITS == 256
	return !_mm256_testz_si256((__m256i)v, (__m256i)v);
#else
	return !_mm_testz_si128((__m128i)v, (__m128i)v);
#endif
}

/* Bit i set when lane i is non-zero. */
VPK_INLINE uint32_t
u32v_nonzero_mask(u32v v)
{
#if VPK_VEC_BITS == 512
	return _mm512_test_epi32_mask((__m512i)v, (__m512i)v);
#elif VPK_VEC_BITS == 256
	return (uint32_t)_mm256_movemask_ps((__m256)(u32v)(v != 0));
#else
	return (uint32_t)_mm_movemask_ps((__m128)(u32v)(v != 0));
#endif
}

/*
 * out[i] = base[idx[i]] (32-bit elements). idx is treated as signed by the
 * hardware: tables gathered this way hold fewer than 2^31 elements.
 */
VPK_INLINE u32v
u32v_gather(const uint32_t *base, u32v idx)
{
#if VPK_VEC_BITS == 512
	return (u32v)_mm512_i32gather_epi32((__m512i)idx, base, 4);
#elif VPK_VEC_BITS == 256
	return (u32v)_mm256_i32gather_epi32((const int *)base, (__m256i)idx, 4);
#else
	return (u32v){ base[idx[0]], base[idx[1]], base[idx[2]], base[idx[3]] };
#endif
}

/*
 * Lanes whose @mask lane is non-zero get base[idx[i]]; the others keep
 * src[i] and their memory is not touched (no fault, no over-read).
 */
VPK_INLINE u32v
u32v_gather_masked(u32v src, const uint32_t *base, u32v idx, u32v mask)
{
#if VPK_VEC_BITS == 512
	__mmask16 k = _mm512_test_epi32_mask((__m512i)mask, (__m512i)mask);

	return (u32v)_mm512_mask_i32gather_epi32((__m512i)src, k, (__m512i)idx, base, 4);
#elif VPK_VEC_BITS == 256
	return (u32v)_mm256_mask_i32gather_epi32((__m256i)src, (const int *)base, (__m256i)idx,
						 (__m256i)(u32v)(mask != 0), 4);
#else
	for (int l = 0; l < VPK_U32_LANES; l++)
		if (mask[l])
			src[l] = base[idx[l]];
	return src;
#endif
}

/*
 * out[i] = 32-bit word at ptrs[i] + off, for VPK_U32_LANES pointers; lanes
 * whose @mask lane is zero read nothing and give 0. This is the "one field
 * of many packets" transpose that header kernels are built on.
 */
VPK_INLINE u32v
u32v_gather_ptrs_masked(const uint8_t *const *ptrs, size_t off, u32v mask)
{
#if VPK_VEC_BITS == 512
	__m512i p0 = _mm512_loadu_si512(ptrs), p1 = _mm512_loadu_si512(ptrs + 8);
	__mmask16 k = _mm512_test_epi32_mask((__m512i)mask, (__m512i)mask);
	__m256i lo = _mm512_mask_i64gather_epi32(_mm256_setzero_si256(), (__mmask8)k, p0,
						 (const void *)off, 1);
	__m256i hi = _mm512_mask_i64gather_epi32(_mm256_setzero_si256(), (__mmask8)(k >> 8), p1,
						 (const void *)off, 1);

	return (u32v)_mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
#elif VPK_VEC_BITS == 256
	__m256i p0 = _mm256_loadu_si256((const __m256i *)ptrs);
	__m256i p1 = _mm256_loadu_si256((const __m256i *)(ptrs + 4));
	__m256i m = (__m256i)(u32v)(mask != 0);
	__m128i lo = _mm256_mask_i64gather_epi32(_mm_setzero_si128(), (const int *)off, p0,
						 _mm256_castsi256_si128(m), 1);
	__m128i hi = _mm256_mask_i64gather_epi32(_mm_setzero_si128(), (const int *)off, p1,
						 _mm256_extracti128_si256(m, 1), 1);

	return (u32v)_mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
#else
	/* No gather before AVX2: four scalar loads built into one register
	 * (movd + pinsrd; writing lanes through memory would stall on store
	 * forwarding). */
	uint32_t w[4] = { 0, 0, 0, 0 };

	for (int l = 0; l < 4; l++)
		if (mask[l])
			memcpy(&w[l], ptrs[l] + off, 4);
	return (u32v){ w[0], w[1], w[2], w[3] };
#endif
}

/* As u32v_gather_ptrs_masked() with every lane enabled. */
VPK_INLINE u32v
u32v_gather_ptrs(const uint8_t *const *ptrs, size_t off)
{
#if VPK_VEC_BITS == 512
	__m512i p0 = _mm512_loadu_si512(ptrs), p1 = _mm512_loadu_si512(ptrs + 8);
	__m256i lo = _mm512_i64gather_epi32(p0, (const void *)off, 1);
	__m256i hi = _mm512_i64gather_epi32(p1, (const void *)off, 1);

	return (u32v)_mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
#elif VPK_VEC_BITS == 256
	__m256i p0 = _mm256_loadu_si256((const __m256i *)ptrs);
	__m256i p1 = _mm256_loadu_si256((const __m256i *)(ptrs + 4));
	__m128i lo = _mm256_i64gather_epi32((const int *)off, p0, 1);
	__m128i hi = _mm256_i64gather_epi32((const int *)off, p1, 1);

	return (u32v)_mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
#else
	uint32_t w0, w1, w2, w3;

	memcpy(&w0, ptrs[0] + off, 4);
	memcpy(&w1, ptrs[1] + off, 4);
	memcpy(&w2, ptrs[2] + off, 4);
	memcpy(&w3, ptrs[3] + off, 4);
	return (u32v){ w0, w1, w2, w3 };
#endif
}


/*
 * The same result as u32v_gather_ptrs(), built from one scalar load per
 * lane (movd/pinsrd/vinserti128...). On CPUs whose gathers are slow (AMD
 * Zen 4 issues vpgatherqd as many micro-ops) this is the faster way to
 * transpose a few header words of many packets; vpk bench kernels compares.
 */
VPK_INLINE uint32_t
vpk_ld32(const uint8_t *p)
{
	uint32_t w;

	memcpy(&w, p, 4);
	return w;
}

VPK_INLINE u32v
u32v_load_lanes_ptrs(const uint8_t *const *ptrs, size_t off)
{
	/* A vector literal of scalar loads: the compiler builds it in registers
	 * (movd, pinsrd, vinserti128/vinserti32x4), with no trip through memory
	 * that would stall on store forwarding. */
#define L(i) vpk_ld32(ptrs[i] + off)
#if VPK_VEC_BITS == 512
	return (u32v){ L(0), L(1), L(2), L(3), L(4), L(5), L(6), L(7),
		       L(8), L(9), L(10), L(11), L(12), L(13), L(14), L(15) };
#elif VPK_VEC_BITS == 256
	return (u32v){ L(0), L(1), L(2), L(3), L(4), L(5), L(6), L(7) };
#else
	return (u32v){ L(0), L(1), L(2), L(3) };
#endif
#undef L
}


/*
 * Bit l of the result is set when a[l] == v, for the VPK_U32_LANES u16
 * values at @a (one per u32 lane, so the mask drives u32v_compress_store()).
 */
VPK_INLINE uint32_t
u16_eq_mask(const uint16_t *a, uint16_t v)
{
#if VPK_VEC_BITS == 512
	return _mm256_cmpeq_epi16_mask(_mm256_loadu_si256((const __m256i *)a), _mm256_set1_epi16((short)v));
#elif VPK_VEC_BITS == 256
	__m128i eq = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)a), _mm_set1_epi16((short)v));

	return (uint32_t)_mm_movemask_epi8(_mm_packs_epi16(eq, eq)) & 0xffu;
#else
	__m128i eq = _mm_cmpeq_epi16(_mm_loadl_epi64((const __m128i *)a), _mm_set1_epi16((short)v));

	return (uint32_t)_mm_movemask_epi8(_mm_packs_epi16(eq, eq)) & 0xfu;
#endif
}

#if VPK_VEC_BITS == 256
/* Lane indices that pack the set lanes of an 8-bit mask to the front (vpermd control). */
struct vpk_compress_lut8 { uint8_t idx[256][8]; };
VPK_INLINE const struct vpk_compress_lut8 *
vpk_compress_lut8(void)
{
	/* Built at compile time by the preprocessor-free table below (see vec_lut.h). */
	extern const struct vpk_compress_lut8 vpk_compress_lut8_tab;
	return &vpk_compress_lut8_tab;
}
#endif

/*
 * Store the lanes of @v whose bit is set in @mask, packed and in order, at
 * @out; return how many. Writes a whole vector at @out (lanes past the
 * returned count hold junk): @out needs VPK_U32_LANES elements of slack.
 */
VPK_INLINE uint32_t
u32v_compress_store(uint32_t *out, u32v v, uint32_t mask)
{
#if VPK_VEC_BITS == 512
	/* Register compress + plain store: vpcompressd to memory is microcoded on some CPUs. */
	_mm512_storeu_si512(out, _mm512_maskz_compress_epi32((__mmask16)mask, (__m512i)v));
#elif VPK_VEC_BITS == 256
	__m256i ctl = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)vpk_compress_lut8()->idx[mask]));

	_mm256_storeu_si256((__m256i *)out, _mm256_permutevar8x32_epi32((__m256i)v, ctl));
#else
	uint32_t tmp[4], k = 0;

	memcpy(tmp, &v, sizeof(tmp));
	for (int l = 0; l < 4; l++)
		if (mask & (1u << l))
			out[k++] = tmp[l];
	return k;
#endif
	return (uint32_t)__builtin_popcount(mask);
}


/* The VPK_U64_LANES words at @w as a vector literal (built in registers, no trip through memory). */
VPK_INLINE u64v
u64v_from_words(const uint64_t *w)
{
#if VPK_VEC_BITS == 512
	return (u64v){ w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7] };
#elif VPK_VEC_BITS == 256
	return (u64v){ w[0], w[1], w[2], w[3] };
#else
	return (u64v){ w[0], w[1] };
#endif
}

/*
 * Store the eight words @w at @p (64 bytes), or with !@all only the first
 * five (40 bytes: an IPv6 header and one word after it), in whole vectors
 * and the fifth word alone; AVX-512 one masked store. Nothing is written
 * past the stored words.
 */
VPK_INLINE void
vpk_store_words8(uint8_t *p, const uint64_t *w, int all)
{
#if VPK_VEC_BITS == 512
	_mm512_mask_storeu_epi8(p, all ? ~(__mmask64)0 : ((__mmask64)1 << 40) - 1, (__m512i)u64v_from_words(w));
#else
	for (unsigned k = 0; k < 4; k += VPK_U64_LANES)
		u64v_storeu(p + 8 * k, u64v_from_words(w + k));
	if (all)
		for (unsigned k = 4; k < 8; k += VPK_U64_LANES)
			u64v_storeu(p + 8 * k, u64v_from_words(w + k));
	else
		memcpy(p + 32, &w[4], 8);
#endif
}

/*
 * Copy bytes [off, len) of @src to @dst (len - off a multiple of 16) in
 * whole vectors, writing nothing past dst + len. @src is aligned to and
 * readable in whole vectors (AVX-512 reads full 64-byte lines).
 */
VPK_INLINE void
vpk_copy16s(uint8_t *dst, const uint8_t *src, unsigned off, unsigned len)
{
#if VPK_VEC_BITS == 512
	for (; off < len; off += 64) {
		unsigned left = len - off;
		__mmask64 m = left >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << left) - 1;

		_mm512_mask_storeu_epi8(dst + off, m, _mm512_load_si512((const void *)(src + off)));
	}
#else
#if VPK_VEC_BITS == 256
	for (; off + 32 <= len; off += 32)
		_mm256_storeu_si256((__m256i *)(dst + off), _mm256_load_si256((const __m256i *)(src + off)));
#endif
	for (; off < len; off += 16)
		_mm_storeu_si128((__m128i *)(dst + off), _mm_load_si128((const __m128i *)(src + off)));
#endif
}

/* Byte @p[l * stride] of each lane l, zero-extended (one scalar load per lane, built in registers). */
VPK_INLINE u32v
u32v_load_bytes_strided(const uint8_t *p, size_t stride)
{
#define B(i) (uint32_t)p[(i) * stride]
#if VPK_VEC_BITS == 512
	return (u32v){ B(0), B(1), B(2), B(3), B(4), B(5), B(6), B(7),
		       B(8), B(9), B(10), B(11), B(12), B(13), B(14), B(15) };
#elif VPK_VEC_BITS == 256
	return (u32v){ B(0), B(1), B(2), B(3), B(4), B(5), B(6), B(7) };
#else
	return (u32v){ B(0), B(1), B(2), B(3) };
#endif
#undef B
}

#if VPK_VEC_BITS >= 256
/*
 * Lane masks: a k-register on AVX-512; on AVX2 a vector whose lanes hold
 * the lane's flag in the top bit (m32v) or are all ones or zero (m64v):
 * what the masked gathers read. Masked-gather code is so written once and
 * still uses k-masks and masked instructions where they exist.
 */
#if VPK_VEC_BITS == 512
typedef __mmask16 m32v;
typedef __mmask8 m64v;
#else
typedef u32v m32v;
typedef u64v m64v;
#endif

/* Lanes of @v that are odd (bit 0 set: the FIB's "go one level deeper" bit). */
VPK_INLINE m32v
u32v_odd(u32v v)
{
#if VPK_VEC_BITS == 512
	return _mm512_test_epi32_mask((__m512i)v, _mm512_set1_epi32(1));
#else
	return v << 31;
#endif
}

VPK_INLINE m64v
u64v_odd(u64v v)
{
#if VPK_VEC_BITS == 512
	return _mm512_test_epi64_mask((__m512i)v, _mm512_set1_epi64(1));
#else
	return -(v & 1);
#endif
}

/* True if any lane of the m32v or m64v @m is set. */
#if VPK_VEC_BITS == 512
#define vpk_mask_any(m) ((m) != 0)
#else
#define vpk_mask_any(m) (!_mm256_testz_si256((__m256i)(m), (__m256i)(m)))
#endif

#if VPK_VEC_BITS == 512
/* A zero the compiler cannot see through: given a known zero as the merge
 * source of a full-mask gather it reuses the last result register instead,
 * a false dependency that serialises the gathers of successive blocks. */
VPK_INLINE __m512i
vpk_fresh_zero512(void)
{
	__m512i z;
	__asm__("vpxord %0, %0, %0" : "=v"(z));
	return z;
}

/* An all-ones mask GCC cannot fold (with a constant one it turns the masked
 * gather back into a plain one and drops the fresh merge source). */
VPK_INLINE __mmask16
vpk_all16(void)
{
	__mmask16 k;
	__asm__("kxnorw %0, %0, %0" : "=k"(k));
	return k;
}
#endif

/* The gathers' scale is an immediate: one case per value, folded once sc is known. */
#define VPK_SC_SWITCH(sc, G)          \
	switch (sc) {                 \
	case 1: return G(1);          \
	case 2: return G(2);          \
	case 4: return G(4);          \
	default: return G(8);         \
	}

/*
 * Table walks (FIB levels): the 32-bit words at byte offset idx[l] * sc of
 * @base (sc = 1, 2, 4 or 8, a constant), every lane; the _masked form only
 * for the lanes of @m, the others keeping @src and reading nothing.
 */
VPK_INLINE u32v
u32v_gather_sc(const void *base, u32v idx, const int sc)
{
#if VPK_VEC_BITS == 512
#define G_(S) (u32v)_mm512_mask_i32gather_epi32(vpk_fresh_zero512(), vpk_all16(), (__m512i)idx, base, S)
#else
#define G_(S) (u32v)_mm256_i32gather_epi32((const int *)base, (__m256i)idx, S)
#endif
	VPK_SC_SWITCH(sc, G_);
#undef G_
}

VPK_INLINE u32v
u32v_gather_sc_masked(u32v src, const void *base, u32v idx, m32v m, const int sc)
{
#if VPK_VEC_BITS == 512
#define G_(S) (u32v)_mm512_mask_i32gather_epi32((__m512i)src, m, (__m512i)idx, base, S)
#else
#define G_(S) (u32v)_mm256_mask_i32gather_epi32((__m256i)src, (const int *)base, (__m256i)idx, (__m256i)m, S)
#endif
	VPK_SC_SWITCH(sc, G_);
#undef G_
}

/* The same for 64-bit words at idx[l] * 8, VPK_U64_LANES 32-bit indices. */
VPK_INLINE u64v
u64v_gather8(const void *base, u32h idx)
{
#if VPK_VEC_BITS == 512
	return (u64v)_mm512_mask_i32gather_epi64(vpk_fresh_zero512(), (__mmask8)vpk_all16(), (__m256i)idx, base, 8);
#else
	return (u64v)_mm256_mask_i32gather_epi64(_mm256_setzero_si256(), (const long long *)base, (__m128i)idx,
						 _mm256_set1_epi64x(-1), 8);
#endif
}

VPK_INLINE u64v
u64v_gather8_masked(u64v src, const void *base, u32h idx, m64v m)
{
#if VPK_VEC_BITS == 512
	return (u64v)_mm512_mask_i32gather_epi64((__m512i)src, m, (__m256i)idx, base, 8);
#else
	return (u64v)_mm256_mask_i32gather_epi64((__m256i)src, (const long long *)base, (__m128i)idx, (__m256i)m, 8);
#endif
}

/* @h zero-extended to 64-bit lanes (one vpmovzxdq; a vector conversion
 * may be split into halves under the compiler's 256-bit preference). */
VPK_INLINE u64v
u32h_widen64(u32h h)
{
#if VPK_VEC_BITS == 512
	return (u64v)_mm512_cvtepu32_epi64((__m256i)h);
#else
	return (u64v)_mm256_cvtepu32_epi64((__m128i)h);
#endif
}

/* The low 32 bits of each lane of @v. */
VPK_INLINE u32h
u64v_narrow32(u64v v)
{
#if VPK_VEC_BITS == 512
	return (u32h)_mm512_cvtepi64_epi32((__m512i)v);
#else
	return (u32h)_mm256_castsi256_si128(_mm256_permutevar8x32_epi32((__m256i)v,
								       _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
#endif
}

/* The VPK_U32_LANES lanes of @v zero-extended to 64 bits, stored at @p (two u64v). */
VPK_INLINE void
u32v_store_widen64(uint64_t *p, u32v v)
{
#if VPK_VEC_BITS == 512
	_mm512_storeu_si512((void *)p, _mm512_cvtepu32_epi64(_mm512_castsi512_si256((__m512i)v)));
	_mm512_storeu_si512((void *)(p + 8), _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64((__m512i)v, 1)));
#else
	_mm256_storeu_si256((void *)p, _mm256_cvtepu32_epi64(_mm256_castsi256_si128((__m256i)v)));
	_mm256_storeu_si256((void *)(p + 4), _mm256_cvtepu32_epi64(_mm256_extracti128_si256((__m256i)v, 1)));
#endif
}

/* The VPK_U64_LANES u32 / u16 values at @p, zero-extended to 64-bit lanes. */
VPK_INLINE u64v
u64v_load_u32(const uint32_t *p)
{
	u32h h;

	memcpy(&h, p, sizeof(h));
	return u32h_widen64(h);
}

VPK_INLINE u64v
u64v_load_u16(const uint16_t *p)
{
#if VPK_VEC_BITS == 512
	return (u64v)_mm512_cvtepu16_epi64(_mm_loadu_si128((const __m128i *)p));
#else
	uint64_t q;

	memcpy(&q, p, sizeof(q));
	return (u64v)_mm256_cvtepu16_epi64(_mm_cvtsi64_si128((long long)q));
#endif
}

/* The 32-bit words at byte offsets off[l] of @base, zero-extended. */
VPK_INLINE u64v
u64v_gather32_bytes(const void *base, u64v off)
{
#if VPK_VEC_BITS == 512
	/* A fresh merge source: not the register of the last iteration's result. */
	__m256i g = _mm512_mask_i64gather_epi32(_mm512_castsi512_si256(vpk_fresh_zero512()), (__mmask8)vpk_all16(),
						(__m512i)off, base, 1);

	return (u64v)_mm512_cvtepu32_epi64(g);
#else
	return (u64v)_mm256_cvtepu32_epi64(_mm256_i64gather_epi32((const int *)base, (__m256i)off, 1));
#endif
}

/*
 * Pairs of 64-bit words, as in an array of 16-byte records {x, y}: split
 * the 2 * VPK_U64_LANES words at @p into the x (*lo) and y (*hi) of each
 * record, and the reverse, interleaving x and y into records at @p.
 */
VPK_INLINE void
u64v_load_pairs(const void *p, u64v *lo, u64v *hi)
{
#if VPK_VEC_BITS == 512
	__m512i d0 = _mm512_loadu_si512(p), d1 = _mm512_loadu_si512((const uint8_t *)p + 64);

	*lo = (u64v)_mm512_permutex2var_epi64(d0, _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0), d1);
	*hi = (u64v)_mm512_permutex2var_epi64(d0, _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1), d1);
#else
	__m256i d0 = _mm256_loadu_si256((const __m256i *)p);
	__m256i d1 = _mm256_loadu_si256((const __m256i *)((const uint8_t *)p + 32));

	*lo = (u64v)_mm256_permute4x64_epi64(_mm256_unpacklo_epi64(d0, d1), 0xd8);
	*hi = (u64v)_mm256_permute4x64_epi64(_mm256_unpackhi_epi64(d0, d1), 0xd8);
#endif
}

VPK_INLINE void
u64v_store_pairs(void *p, u64v lo, u64v hi)
{
#if VPK_VEC_BITS == 512
	_mm512_storeu_si512(p, _mm512_permutex2var_epi64((__m512i)lo, _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0),
							 (__m512i)hi));
	_mm512_storeu_si512((uint8_t *)p + 64, _mm512_permutex2var_epi64((__m512i)lo,
									 _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4),
									 (__m512i)hi));
#else
	__m256i a = _mm256_unpacklo_epi64((__m256i)lo, (__m256i)hi), b = _mm256_unpackhi_epi64((__m256i)lo, (__m256i)hi);

	_mm256_storeu_si256((__m256i *)p, _mm256_permute2x128_si256(a, b, 0x20));
	_mm256_storeu_si256((__m256i *)((uint8_t *)p + 32), _mm256_permute2x128_si256(a, b, 0x31));
#endif
}

/* vpk_store_rows4() on 4 lanes: two 64-bit unpacks and a 128-bit lane permute per pair of rows. */
VPK_INLINE void
vpk_store_rows4_256(__m256i a, __m256i b, __m256i c, __m256i ptr)
{
	uint64_t p[4];
	__m256i lo0 = _mm256_unpacklo_epi64(a, b), lo2 = _mm256_unpacklo_epi64(c, _mm256_setzero_si256());
	__m256i hi0 = _mm256_unpackhi_epi64(a, b), hi2 = _mm256_unpackhi_epi64(c, _mm256_setzero_si256());

	_mm256_storeu_si256((__m256i *)p, ptr);
	_mm256_storeu_si256((__m256i *)(uintptr_t)p[0], _mm256_permute2x128_si256(lo0, lo2, 0x20));
	_mm256_storeu_si256((__m256i *)(uintptr_t)p[1], _mm256_permute2x128_si256(hi0, hi2, 0x20));
	_mm256_storeu_si256((__m256i *)(uintptr_t)p[2], _mm256_permute2x128_si256(lo0, lo2, 0x31));
	_mm256_storeu_si256((__m256i *)(uintptr_t)p[3], _mm256_permute2x128_si256(hi0, hi2, 0x31));
}

/*
 * Lane l's 32-byte row {a[l], b, c[l], 0} stored at the address in lane l
 * of @ptr (a record header per buffer, e.g. buffer metadata). AVX-512 does
 * it as two 256-bit halves: measured faster than one cross-lane vpermt2q
 * per pair of rows (vpk bench rx).
 */
VPK_INLINE void
vpk_store_rows4(u64v a, uint64_t b, u64v c, u64v ptr)
{
	const __m256i vb = _mm256_set1_epi64x((long long)b);
#if VPK_VEC_BITS == 512
	vpk_store_rows4_256(_mm512_castsi512_si256((__m512i)a), vb, _mm512_castsi512_si256((__m512i)c),
			    _mm512_castsi512_si256((__m512i)ptr));
	vpk_store_rows4_256(_mm512_extracti64x4_epi64((__m512i)a, 1), vb, _mm512_extracti64x4_epi64((__m512i)c, 1),
			    _mm512_extracti64x4_epi64((__m512i)ptr, 1));
#else
	vpk_store_rows4_256((__m256i)a, vb, (__m256i)c, (__m256i)ptr);
#endif
}

/* The low 32 bits of each lane of @v, stored as VPK_U64_LANES u32 at @p. */
VPK_INLINE void
u64v_store_low32(uint32_t *p, u64v v)
{
	u32h h = u64v_narrow32(v);

#if VPK_VEC_BITS == 512
	/* Keep vpmovqd in registers: its store form is several micro-ops on
	 * Zen 4 (comp-recycle of vpk bench rx 9 % slower). */
	__asm__("" : "+v"(h));
#endif
	memcpy(p, &h, sizeof(h));
}

#endif /* VPK_VEC_BITS >= 256 */

#endif /* VPK_VEC_BITS */
#endif /* VPK_SIMD_VEC_H */
