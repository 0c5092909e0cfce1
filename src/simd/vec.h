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

/* The u32v literal { E(0), E(1), ... } of one scalar expression per lane. */
#if VPK_VEC_BITS == 512
#define VPK_U32V_OF(E) ((u32v){ E(0), E(1), E(2), E(3), E(4), E(5), E(6), E(7), \
				 E(8), E(9), E(10), E(11), E(12), E(13), E(14), E(15) })
#elif VPK_VEC_BITS == 256
#define VPK_U32V_OF(E) ((u32v){ E(0), E(1), E(2), E(3), E(4), E(5), E(6), E(7) })
#else
#define VPK_U32V_OF(E) ((u32v){ E(0), E(1), E(2), E(3) })
#endif

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
	return VPK_U32V_OF(L);
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
	return VPK_U32V_OF(B);
#undef B
}

/* AVX2 and AVX-512 only: lane masks, table-walk gathers, 64-bit lane records. */
#include "simd/vec_wide.h"

#endif /* VPK_VEC_BITS */
#endif /* VPK_SIMD_VEC_H */
