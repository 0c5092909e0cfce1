/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_SIMD_VEC_WIDE_H
#define VPK_SIMD_VEC_WIDE_H

/*
 * The part of vpk's vector abstraction that exists only at 256 and 512
 * bits (AVX2, AVX-512): lane masks (k-registers or vector masks), the
 * table-walk gathers with a scale and optional mask, and 64-bit-lane
 * helpers for arrays of records (widen, narrow, pairs, rows). Included by
 * simd/vec.h, after its types and VPK_INLINE; kernels include vec.h.
 */
#ifndef VPK_SIMD_VEC_H
#error "include simd/vec.h, not simd/vec_wide.h"
#endif

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

/* Lanes where @a equals @b (vpcmpeqq: a k-mask on AVX-512, an all-ones lane on AVX2). */
VPK_INLINE m64v
u64v_eq(u64v a, u64v b)
{
#if VPK_VEC_BITS == 512
	return _mm512_cmpeq_epi64_mask((__m512i)a, (__m512i)b);
#else
	return (m64v)(a == b);
#endif
}

/* The lanes of @m from @t, the others from @f (a masked move on AVX-512, vpblendvb on AVX2). */
VPK_INLINE u64v
u64v_blend(m64v m, u64v t, u64v f)
{
#if VPK_VEC_BITS == 512
	return (u64v)_mm512_mask_mov_epi64((__m512i)f, m, (__m512i)t);
#else
	return (u64v)_mm256_blendv_epi8((__m256i)f, (__m256i)t, (__m256i)m);
#endif
}

/* Bit l set when lane l of @m is set. */
VPK_INLINE uint32_t
m64v_bits(m64v m)
{
#if VPK_VEC_BITS == 512
	return m;
#else
	return (uint32_t)_mm256_movemask_pd((__m256d)m);
#endif
}

/* Lane l holds l. */
VPK_INLINE u64v
u64v_iota(void)
{
#if VPK_VEC_BITS == 512
	return (u64v){ 0, 1, 2, 3, 4, 5, 6, 7 };
#else
	return (u64v){ 0, 1, 2, 3 };
#endif
}

#endif /* VPK_VEC_BITS >= 256 */

#endif /* VPK_SIMD_VEC_WIDE_H */
