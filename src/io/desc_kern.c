/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Descriptor <-> buffer metadata kernels of the live backends, compiled
 * once per ISA (scalar, avx2, avx512). See desc_kern.h for the address
 * scheme and the 32-byte metadata "head" every rx kernel writes.
 *
 * As in Intel's E810 AVX-512 receive path (4 descriptors per 512-bit
 * register, metadata written with whole stores, buffers recycled in bulk):
 *  - avx512: 8 descriptors per iteration, two 512-bit loads de-interleaved
 *    into 8 addresses and 8 lengths, indices narrowed in one store, each
 *    buffer's head built in-register and written with one 256-bit store;
 *  - avx2: 4 descriptors per iteration, the same with 256-bit registers;
 *  - scalar: the per-element functions below, which are also every
 *    variant's tail, so the results are identical by construction of the
 *    formulas and checked by tests/io/test_io_desc.c.
 */
#include <string.h>

#include "io/desc_kern.h"

#if VPK_VEC_BITS >= 256
#include <immintrin.h>
#endif

#define AI static inline __attribute__((always_inline))

AI void
VPK_FN(head_store)(void *base, uint32_t idx, uint32_t doff, uint32_t len, uint32_t rx_if)
{
	uint8_t *m = (uint8_t *)vpk_buf_from_idx(base, idx);
	uint64_t q0 = (doff & 0xffffu) | (uint64_t)(len & 0xffffu) << 16, q1 = rx_if;
	uint64_t q2 = VPK_BUF_NONE | (uint64_t)(len & 0xffffu) << 32, q3 = 0;

	/* Four 8-byte stores straight to the line (no stack copy to reload). */
	memcpy(m, &q0, 8);
	memcpy(m + 8, &q1, 8);
	memcpy(m + 16, &q2, 8);
	memcpy(m + 24, &q3, 8);
}

AI uint32_t
VPK_FN(addr_idx)(uint64_t delta, uint64_t a)
{
	return (uint32_t)(((a & IO_ADDR_LO48) - delta) >> VPK_BUF_SHIFT);
}

#if VPK_VEC_BITS >= 256
/* Heads of 4 buffers: two 64-bit unpacks and a 128-bit lane permute per pair of heads. */
AI void
VPK_FN(heads4)(__m256i q0, __m256i q2, __m256i r, __m256i p)
{
	uint64_t ptr[4];
	__m256i lo0 = _mm256_unpacklo_epi64(q0, r), lo2 = _mm256_unpacklo_epi64(q2, _mm256_setzero_si256());
	__m256i hi0 = _mm256_unpackhi_epi64(q0, r), hi2 = _mm256_unpackhi_epi64(q2, _mm256_setzero_si256());

	_mm256_storeu_si256((__m256i *)ptr, p);
	_mm256_storeu_si256((__m256i *)(uintptr_t)ptr[0], _mm256_permute2x128_si256(lo0, lo2, 0x20));
	_mm256_storeu_si256((__m256i *)(uintptr_t)ptr[1], _mm256_permute2x128_si256(hi0, hi2, 0x20));
	_mm256_storeu_si256((__m256i *)(uintptr_t)ptr[2], _mm256_permute2x128_si256(lo0, lo2, 0x31));
	_mm256_storeu_si256((__m256i *)(uintptr_t)ptr[3], _mm256_permute2x128_si256(hi0, hi2, 0x31));
}

#endif

#if VPK_VEC_BITS == 256
/* 4 u64 lanes -> 4 u32 stored at @p out (the avx2 loops only: avx512 narrows with vpmovqd). */
AI void
VPK_FN(narrow4)(uint32_t *out, __m256i v)
{
	__m256i n = _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));

	_mm_storeu_si128((__m128i *)out, _mm256_castsi256_si128(n));
}
#endif

#if VPK_VEC_BITS >= 512
/*
 * Heads of 8 buffers: q0 = data_off | len << 16, q2 = NONE | len << 32, p =
 * pointers. The two 256-bit halves go through heads4: measured faster here
 * than one cross-lane vpermt2q per pair of heads (bench rx).
 */
AI void
VPK_FN(heads8)(__m512i q0, __m512i q2, __m256i r, __m512i p)
{
	VPK_FN(heads4)(_mm512_castsi512_si256(q0), _mm512_castsi512_si256(q2), r, _mm512_castsi512_si256(p));
	VPK_FN(heads4)(_mm512_extracti64x4_epi64(q0, 1), _mm512_extracti64x4_epi64(q2, 1), r,
		       _mm512_extracti64x4_epi64(p, 1));
}
#endif

static void
VPK_FN(io_xdp_rx)(void *base, uint64_t delta, const struct io_desc *d, uint32_t n, uint32_t rx_if,
		  uint32_t *idx)
{
	uint32_t i = 0;

#if VPK_VEC_BITS >= 512
	const __m512i pa = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
	const __m512i pl = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
	const __m512i lo48 = _mm512_set1_epi64((long long)IO_ADDR_LO48), vdelta = _mm512_set1_epi64((long long)delta);
	const __m512i m16 = _mm512_set1_epi64(0xffff), c64 = _mm512_set1_epi64(64);
	const __m512i none = _mm512_set1_epi64(VPK_BUF_NONE), vbase = _mm512_set1_epi64((long long)(uintptr_t)base);
	const __m256i r = _mm256_set1_epi64x(rx_if);

	for (; i + 8 <= n; i += 8) {
		__m512i d0 = _mm512_loadu_si512(d + i), d1 = _mm512_loadu_si512(d + i + 4);
		__m512i a = _mm512_permutex2var_epi64(d0, pa, d1);
		__m512i l = _mm512_and_si512(_mm512_permutex2var_epi64(d0, pl, d1), m16);
		__m512i x = _mm512_srli_epi64(_mm512_sub_epi64(_mm512_and_si512(a, lo48), vdelta), VPK_BUF_SHIFT);
		__m512i doff = _mm512_and_si512(_mm512_sub_epi64(_mm512_srli_epi64(a, IO_ADDR_OFF_SHIFT), c64), m16);

		_mm256_storeu_si256((__m256i *)(idx + i), _mm512_cvtepi64_epi32(x));
		VPK_FN(heads8)(_mm512_or_si512(doff, _mm512_slli_epi64(l, 16)),
			       _mm512_or_si512(none, _mm512_slli_epi64(l, 32)), r,
			       _mm512_add_epi64(_mm512_slli_epi64(x, VPK_BUF_SHIFT), vbase));
	}
#elif VPK_VEC_BITS >= 256
	const __m256i lo48 = _mm256_set1_epi64x((long long)IO_ADDR_LO48), vdelta = _mm256_set1_epi64x((long long)delta);
	const __m256i m16 = _mm256_set1_epi64x(0xffff), c64 = _mm256_set1_epi64x(64);
	const __m256i none = _mm256_set1_epi64x(VPK_BUF_NONE), vbase = _mm256_set1_epi64x((long long)(uintptr_t)base);
	const __m256i r = _mm256_set1_epi64x(rx_if);

	for (; i + 4 <= n; i += 4) {
		__m256i d0 = _mm256_loadu_si256((const __m256i *)(d + i));
		__m256i d1 = _mm256_loadu_si256((const __m256i *)(d + i + 2));
		__m256i a = _mm256_permute4x64_epi64(_mm256_unpacklo_epi64(d0, d1), 0xd8);
		__m256i l = _mm256_and_si256(_mm256_permute4x64_epi64(_mm256_unpackhi_epi64(d0, d1), 0xd8), m16);
		__m256i x = _mm256_srli_epi64(_mm256_sub_epi64(_mm256_and_si256(a, lo48), vdelta), VPK_BUF_SHIFT);
		__m256i doff = _mm256_and_si256(_mm256_sub_epi64(_mm256_srli_epi64(a, IO_ADDR_OFF_SHIFT), c64), m16);

		VPK_FN(narrow4)(idx + i, x);
		VPK_FN(heads4)(_mm256_or_si256(doff, _mm256_slli_epi64(l, 16)),
			       _mm256_or_si256(none, _mm256_slli_epi64(l, 32)), r,
			       _mm256_add_epi64(_mm256_slli_epi64(x, VPK_BUF_SHIFT), vbase));
	}
#endif
	for (; i < n; i++) {
		uint32_t x = VPK_FN(addr_idx)(delta, d[i].addr);

		idx[i] = x;
		VPK_FN(head_store)(base, x, (uint32_t)(d[i].addr >> IO_ADDR_OFF_SHIFT) - 64u, d[i].len, rx_if);
	}
}

static void
VPK_FN(io_xdp_tx)(void *base, uint64_t delta, const uint32_t *idx, uint32_t n, struct io_desc *d)
{
	uint32_t i = 0;

#if VPK_VEC_BITS >= 512
	const __m512i vdelta = _mm512_set1_epi64((long long)delta), m16 = _mm512_set1_epi64(0xffff);
	const __m512i c64 = _mm512_set1_epi64(64);
	const __m512i s0 = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0), s1 = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);

	for (; i + 8 <= n; i += 8) {
		__m512i off = _mm512_slli_epi64(_mm512_cvtepu32_epi64(_mm256_loadu_si256((const __m256i *)(idx + i))),
						VPK_BUF_SHIFT);
		__m512i w = _mm512_cvtepu32_epi64(_mm512_i64gather_epi32(off, base, 1));
		__m512i doff = _mm512_add_epi64(_mm512_and_si512(w, m16), c64);
		__m512i a = _mm512_or_si512(_mm512_add_epi64(off, vdelta), _mm512_slli_epi64(doff, IO_ADDR_OFF_SHIFT));
		__m512i l = _mm512_srli_epi64(w, 16);

		_mm512_storeu_si512(d + i, _mm512_permutex2var_epi64(a, s0, l));
		_mm512_storeu_si512(d + i + 4, _mm512_permutex2var_epi64(a, s1, l));
	}
#elif VPK_VEC_BITS >= 256
	const __m256i vdelta = _mm256_set1_epi64x((long long)delta), m16 = _mm256_set1_epi64x(0xffff);
	const __m256i c64 = _mm256_set1_epi64x(64);

	for (; i + 4 <= n; i += 4) {
		__m256i off = _mm256_slli_epi64(_mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)(idx + i))),
						VPK_BUF_SHIFT);
		__m256i w = _mm256_cvtepu32_epi64(_mm256_i64gather_epi32((const int *)base, off, 1));
		__m256i doff = _mm256_add_epi64(_mm256_and_si256(w, m16), c64);
		__m256i a = _mm256_or_si256(_mm256_add_epi64(off, vdelta), _mm256_slli_epi64(doff, IO_ADDR_OFF_SHIFT));
		__m256i l = _mm256_srli_epi64(w, 16);
		__m256i lo = _mm256_unpacklo_epi64(a, l), hi = _mm256_unpackhi_epi64(a, l);

		_mm256_storeu_si256((__m256i *)(d + i), _mm256_permute2x128_si256(lo, hi, 0x20));
		_mm256_storeu_si256((__m256i *)(d + i + 2), _mm256_permute2x128_si256(lo, hi, 0x31));
	}
#endif
	for (; i < n; i++) {
		const struct vpk_buf *b = vpk_buf_from_idx(base, idx[i]);
		uint64_t off = (uint64_t)idx[i] << VPK_BUF_SHIFT;

		d[i].addr = (off + delta) | (uint64_t)(b->data_off + 64u) << IO_ADDR_OFF_SHIFT;
		d[i].len = b->len;
		d[i].options = 0;
	}
}

static void
VPK_FN(io_addr_to_idx)(uint64_t delta, const uint64_t *addr, uint32_t n, uint32_t *idx)
{
	uint32_t i = 0;

#if VPK_VEC_BITS >= 512
	const __m512i lo48 = _mm512_set1_epi64((long long)IO_ADDR_LO48), vdelta = _mm512_set1_epi64((long long)delta);

	for (; i + 8 <= n; i += 8) {
		__m512i a = _mm512_loadu_si512(addr + i);

		_mm256_storeu_si256((__m256i *)(idx + i),
				    _mm512_cvtepi64_epi32(_mm512_srli_epi64(
					    _mm512_sub_epi64(_mm512_and_si512(a, lo48), vdelta), VPK_BUF_SHIFT)));
	}
#elif VPK_VEC_BITS >= 256
	const __m256i lo48 = _mm256_set1_epi64x((long long)IO_ADDR_LO48), vdelta = _mm256_set1_epi64x((long long)delta);

	for (; i + 4 <= n; i += 4) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(addr + i));

		VPK_FN(narrow4)(idx + i, _mm256_srli_epi64(_mm256_sub_epi64(_mm256_and_si256(a, lo48), vdelta),
							   VPK_BUF_SHIFT));
	}
#endif
	for (; i < n; i++)
		idx[i] = VPK_FN(addr_idx)(delta, addr[i]);
}

static void
VPK_FN(io_idx_to_addr)(uint64_t delta, const uint32_t *idx, uint32_t n, uint64_t *addr)
{
	uint32_t i = 0;

#if VPK_VEC_BITS >= 512
	const __m512i vdelta = _mm512_set1_epi64((long long)delta);

	for (; i + 8 <= n; i += 8) {
		__m512i x = _mm512_cvtepu32_epi64(_mm256_loadu_si256((const __m256i *)(idx + i)));

		_mm512_storeu_si512(addr + i, _mm512_add_epi64(_mm512_slli_epi64(x, VPK_BUF_SHIFT), vdelta));
	}
#elif VPK_VEC_BITS >= 256
	const __m256i vdelta = _mm256_set1_epi64x((long long)delta);

	for (; i + 4 <= n; i += 4) {
		__m256i x = _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)(idx + i)));

		_mm256_storeu_si256((__m256i *)(addr + i), _mm256_add_epi64(_mm256_slli_epi64(x, VPK_BUF_SHIFT), vdelta));
	}
#endif
	for (; i < n; i++)
		addr[i] = ((uint64_t)idx[i] << VPK_BUF_SHIFT) + delta;
}

static void
VPK_FN(io_meta_fill)(void *base, const uint32_t *idx, const uint16_t *len, uint32_t n, uint32_t rx_if)
{
	uint32_t i = 0;

#if VPK_VEC_BITS >= 512
	const __m512i hr = _mm512_set1_epi64(VPK_BUF_HEADROOM), none = _mm512_set1_epi64(VPK_BUF_NONE);
	const __m512i vbase = _mm512_set1_epi64((long long)(uintptr_t)base);
	const __m256i r = _mm256_set1_epi64x(rx_if);

	for (; i + 8 <= n; i += 8) {
		__m512i x = _mm512_cvtepu32_epi64(_mm256_loadu_si256((const __m256i *)(idx + i)));
		__m512i l = _mm512_cvtepu16_epi64(_mm_loadu_si128((const __m128i *)(len + i)));

		VPK_FN(heads8)(_mm512_or_si512(hr, _mm512_slli_epi64(l, 16)),
			       _mm512_or_si512(none, _mm512_slli_epi64(l, 32)), r,
			       _mm512_add_epi64(_mm512_slli_epi64(x, VPK_BUF_SHIFT), vbase));
	}
#elif VPK_VEC_BITS >= 256
	const __m256i hr = _mm256_set1_epi64x(VPK_BUF_HEADROOM), none = _mm256_set1_epi64x(VPK_BUF_NONE);
	const __m256i vbase = _mm256_set1_epi64x((long long)(uintptr_t)base);
	const __m256i r = _mm256_set1_epi64x(rx_if);

	for (; i + 4 <= n; i += 4) {
		__m256i x = _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)(idx + i)));
		uint64_t l64;
		__m256i l;

		memcpy(&l64, len + i, sizeof(l64));
		l = _mm256_cvtepu16_epi64(_mm_cvtsi64_si128((long long)l64));
		VPK_FN(heads4)(_mm256_or_si256(hr, _mm256_slli_epi64(l, 16)),
			       _mm256_or_si256(none, _mm256_slli_epi64(l, 32)), r,
			       _mm256_add_epi64(_mm256_slli_epi64(x, VPK_BUF_SHIFT), vbase));
	}
#endif
	for (; i < n; i++)
		VPK_FN(head_store)(base, idx[i], VPK_BUF_HEADROOM, len[i], rx_if);
}

const struct io_desc_kern_impl VPK_FN(io_desc_kern) = {
	.base = VPK_IMPL_INIT(VPK_VEC_BITS ? VPK_VEC_BITS : 64),
	.xdp_rx = VPK_FN(io_xdp_rx),
	.xdp_tx = VPK_FN(io_xdp_tx),
	.addr_to_idx = VPK_FN(io_addr_to_idx),
	.idx_to_addr = VPK_FN(io_idx_to_addr),
	.meta_fill = VPK_FN(io_meta_fill),
};
