/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GTP4.D header builder, compiled once per ISA (layout: gtp4d_hdr.h).
 *
 * scalar: copy the template, then store each per-packet field (bytes of
 *         the SA and of SID B one by one, as VPP's node does).
 * SIMD:   compute the first 64 bytes as 8 little-endian 64-bit words in
 *         general registers (the 128-bit SA and B are two byte-swapped
 *         halves each), assemble them in 1 zmm / 2 ymm / 4 xmm registers
 *         and store whole lines; the segments after B (multiples of 16
 *         bytes) are copied from the template first, so no store runs past
 *         the header into the inner packet (AVX-512: masked stores).
 */
#include <string.h>

#include "tunnel/gtp4d_hdr.h"

#if VPK_VEC_BITS > 0
#include <immintrin.h>
#endif

#if VPK_VEC_BITS == 0
static inline __attribute__((always_inline)) void
put128(uint8_t *o, gtp4d_u128 v)
{
	for (int i = 15; i >= 0; i--) {
		o[i] = (uint8_t)v;
		v >>= 8;
	}
}

static void
VPK_FN(gtp4d_build_bulk)(const struct gtp4d_tmpl *t, const struct gtp4d_pkt *p, uint8_t *const *out,
			 uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *o = out[i];

		memcpy(o, t->hdr, t->len);
		o[0] = (uint8_t)(0x60 | p[i].tc >> 4);
		o[1] = (uint8_t)(p[i].tc << 4);
		o[4] = (uint8_t)(p[i].plen >> 8);
		o[5] = (uint8_t)p[i].plen;
		o[7] = p[i].hlim;
		put128(o + 8, gtp4d_sa(t, &p[i]));
		if (t->has_srh) {
			o[40] = p[i].nh;
			put128(o + 48, gtp4d_sid_b(t, &p[i]));
		} else {
			o[6] = p[i].nh;
			put128(o + 24, gtp4d_sid_b(t, &p[i]));
		}
	}
}
#else

static inline __attribute__((always_inline)) uint64_t
ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* Copy the template bytes [64, len) (a multiple of 16) in whole lines. */
static inline __attribute__((always_inline)) void
copy_tail(uint8_t *o, const uint8_t *h, unsigned len)
{
	unsigned off = 64;
#if VPK_VEC_BITS >= 512
	for (; off < len; off += 64) {
		unsigned left = len - off;
		__mmask64 m = left >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << left) - 1;

		_mm512_mask_storeu_epi8(o + off, m, _mm512_load_si512((const void *)(h + off)));
	}
#else
#if VPK_VEC_BITS >= 256
	for (; off + 32 <= len; off += 32)
		_mm256_storeu_si256((__m256i *)(o + off), _mm256_load_si256((const __m256i *)(h + off)));
#endif
	for (; off < len; off += 16)
		_mm_storeu_si128((__m128i *)(o + off), _mm_load_si128((const __m128i *)(h + off)));
#endif
}

static void
VPK_FN(gtp4d_build_bulk)(const struct gtp4d_tmpl *t, const struct gtp4d_pkt *p, uint8_t *const *out,
			 uint32_t n)
{
	const uint8_t *h = t->hdr;
	const unsigned len = t->len;
	const uint64_t t3 = ld64(h + 24), t4 = ld64(h + 32), t5 = ld64(h + 40);

	for (uint32_t i = 0; i < n; i++) {
		uint8_t *o = out[i];
		gtp4d_u128 sa = gtp4d_sa(t, &p[i]), b = gtp4d_sid_b(t, &p[i]);
		uint64_t w[8];

		/* bytes 0..7: 6|tc, tc|fl, fl, fl, plen hi, plen lo, nh, hop limit */
		w[0] = (uint64_t)(0x60 | p[i].tc >> 4) | (uint64_t)(uint8_t)(p[i].tc << 4) << 8 |
		       (uint64_t)(p[i].plen >> 8) << 32 | (uint64_t)(p[i].plen & 0xff) << 40 |
		       (uint64_t)(t->has_srh ? 43 : p[i].nh) << 48 | (uint64_t)p[i].hlim << 56;
		w[1] = __builtin_bswap64((uint64_t)(sa >> 64));
		w[2] = __builtin_bswap64((uint64_t)sa);
		if (t->has_srh) {
			w[3] = t3;
			w[4] = t4;
			w[5] = (t5 & ~0xffull) | p[i].nh;
			w[6] = __builtin_bswap64((uint64_t)(b >> 64));
			w[7] = __builtin_bswap64((uint64_t)b);
			copy_tail(o, h, len);
		} else {
			w[3] = __builtin_bswap64((uint64_t)(b >> 64));
			w[4] = __builtin_bswap64((uint64_t)b);
			w[5] = w[6] = w[7] = 0;
		}
#if VPK_VEC_BITS >= 512
		{
			__m512i v = _mm512_set_epi64((long long)w[7], (long long)w[6], (long long)w[5],
						     (long long)w[4], (long long)w[3], (long long)w[2],
						     (long long)w[1], (long long)w[0]);

			_mm512_mask_storeu_epi8(o, t->has_srh ? ~(__mmask64)0 : (((__mmask64)1 << 40) - 1), v);
		}
#elif VPK_VEC_BITS >= 256
		_mm256_storeu_si256((__m256i *)o, _mm256_set_epi64x((long long)w[3], (long long)w[2],
								    (long long)w[1], (long long)w[0]));
		if (t->has_srh)
			_mm256_storeu_si256((__m256i *)(o + 32),
					    _mm256_set_epi64x((long long)w[7], (long long)w[6],
							      (long long)w[5], (long long)w[4]));
		else
			memcpy(o + 32, &w[4], 8);
#else
		_mm_storeu_si128((__m128i *)o, _mm_set_epi64x((long long)w[1], (long long)w[0]));
		_mm_storeu_si128((__m128i *)(o + 16), _mm_set_epi64x((long long)w[3], (long long)w[2]));
		if (t->has_srh) {
			_mm_storeu_si128((__m128i *)(o + 32), _mm_set_epi64x((long long)w[5], (long long)w[4]));
			_mm_storeu_si128((__m128i *)(o + 48), _mm_set_epi64x((long long)w[7], (long long)w[6]));
		} else {
			memcpy(o + 32, &w[4], 8);
		}
#endif
	}
}
#endif

const struct gtp4d_hdr_impl VPK_FN(gtp4d_hdr) = {
	.base = VPK_IMPL_INIT(VPK_VEC_BITS ? VPK_VEC_BITS : 64),
	.build_bulk = VPK_FN(gtp4d_build_bulk),
};
