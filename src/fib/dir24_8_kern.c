/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DIR-24-8 lookup kernels, compiled once per ISA level (VPK_FN suffix).
 *
 *  - scalar / sse42: one key at a time with a software prefetch of the tbl24
 *    entry PF_DIST keys ahead, so ~PF_DIST table misses are in flight. (No
 *    gather below AVX2: an SSE4.2 "vector" version would extract every index
 *    to a GPR and do the same loads, so sse42 is this code built for v2.)
 *  - avx2 / avx512: one loop over src/simd/vec.h, 8 / 16 lanes: one gather
 *    on tbl24, a masked gather on tbl8 for the lanes whose entry has the
 *    ext bit (8-byte entries: 4 / 8 lanes, 8 keys per iteration).
 *  - every vector loop prefetches the tbl24 entries of the keys 128 ahead
 *    (the avx2 8-byte loop without it was 1.3x slower than scalar).
 * Vector loops read 4 bytes per gather lane even for 1- and 2-byte entries
 * (then mask): the tables carry 8 bytes of slack for that (dir24_8.h).
 * Results are identical to the scalar loop for every width and length.
 */
#include <string.h>

#include "core/kern.h"
#include "fib/dir24_8.h"
#include "fib/fib_bits.h"

#include "simd/vec.h"

#define PF_DIST 16
#define PF_BLOCKS 8     /* vector loops prefetch tbl24 128 keys ahead (4 blocks: ~15 % slower, docs/fib.md) */



/* Scalar loop with software prefetch, for entry type T. */
#define SCALAR_LOOKUP(T)                                                               \
	static inline __attribute__((always_inline)) void scalar_##T(const struct dir24_8 *dp, const uint32_t *ips,   \
				      uint64_t *nhs, size_t n, size_t i)               \
	{                                                                              \
		const T *t24 = (const T *)dp->tbl24;                                   \
		const T *t8 = (const T *)dp->tbl8;                                     \
		for (size_t k = i; k < n && k < i + PF_DIST; k++)                      \
			__builtin_prefetch(&t24[fib_ld32(&ips[k]) >> 8]);                  \
		for (; i < n; i++) {                                                   \
			uint32_t ip = fib_ld32(&ips[i]);                                   \
			if (i + PF_DIST < n)                                           \
				__builtin_prefetch(&t24[fib_ld32(&ips[i + PF_DIST]) >> 8]); \
			uint64_t e = FIB_LD_ACQ(&t24[ip >> 8]);                        \
			if (e & 1)                                                     \
				e = FIB_LD(&t8[(size_t)(e >> 1) * DIR24_8_GROUP + (ip & 0xff)]); \
			fib_st64(&nhs[i], e >> 1);                                         \
		}                                                                      \
	}

SCALAR_LOOKUP(uint8_t)
SCALAR_LOOKUP(uint16_t)
SCALAR_LOOKUP(uint32_t)
SCALAR_LOOKUP(uint64_t)

#if VPK_VEC_BITS >= 256
#define L VPK_U32_LANES
#define PF_KEYS (PF_BLOCKS * 16)

/* Prefetch the tbl24 entries (sc bytes each) of the 8 keys at ips. */
static inline __attribute__((always_inline)) void
prefetch8(const void *t24, size_t sc, const uint32_t *ips)
{
	uint32_t pf[8];

	for (int q = 0; q < 8; q += VPK_U64_LANES) {
		u32h x;
		memcpy(&x, ips + q, sizeof(x));
		x >>= 8;
		memcpy(pf + q, &x, sizeof(x));
	}
	for (int q = 0; q < 8; q++)
		__builtin_prefetch((const char *)t24 + (size_t)pf[q] * sc);
}

/* Before a vector loop: prefetch the tbl24 entries of the keys its in-loop
 * prefetch (PF_KEYS ahead) never covers, the first ones of the call, so
 * that a frame-sized call has its misses in flight too. Not in calls too
 * short for the in-loop prefetch: there the gathers alone keep enough
 * misses in flight and the prefetches cost more than they save
 * (docs/fib.md, "DIR-24-8 prefetch distance"). */
static inline __attribute__((always_inline)) void
prefetch_head(const void *t24, size_t sc, const uint32_t *ips, size_t n)
{
	if (n <= PF_KEYS + 16)
		return;
	for (size_t k = 8; k < PF_KEYS; k++)
		__builtin_prefetch((const char *)t24 + (size_t)(fib_ld32(&ips[k]) >> 8) * sc);
}

/*
 * L lanes of 1/2/4-byte entries: gather 4 bytes at scale SC, keep MASK bits;
 * a masked gather on tbl8 for the lanes whose entry has the ext bit.
 */
#define VEC_LOOKUP_32(NAME, SC, MASK)                                                  \
	static inline __attribute__((always_inline)) size_t NAME(const struct dir24_8 *dp, const uint32_t *ips, \
								   uint64_t *nhs, size_t n)    \
	{                                                                              \
		const void *t24 = dp->tbl24, *t8 = dp->tbl8;                           \
		size_t i = 0;                                                          \
		prefetch_head(t24, SC, ips, n);                                        \
		for (; i + L <= n; i += L) {                                           \
			u32v ip = u32v_loadu(ips + i);                                 \
			/* Prefetch the tbl24 entries PF_KEYS ahead: more misses   \
			 * in flight than the gathers alone keep. */                \
			if (i + PF_KEYS + L <= n) {                                    \
				uint32_t pf[L];                                        \
				u32v_storeu(pf, u32v_loadu(ips + i + PF_KEYS) >> 8);   \
				for (int q = 0; q < L; q++)                            \
					__builtin_prefetch((const char *)t24 + (size_t)pf[q] * SC); \
			}                                                              \
			u32v e = u32v_gather_sc(t24, ip >> 8, SC) & (MASK);            \
			m32v ext = u32v_odd(e);                                        \
			if (vpk_mask_any(ext)) {                                         \
				u32v x = ((e >> 1) << 8) + (ip & 0xff);                \
				e = u32v_gather_sc_masked(e, t8, x, ext, SC) & (MASK); \
			}                                                              \
			e >>= 1;                                                       \
			u32v_store_widen64(nhs + i, e);                                \
		}                                                                      \
		return i;                                                              \
	}
VEC_LOOKUP_32(vec_1, 1, 0xffu)
VEC_LOOKUP_32(vec_2, 2, 0xffffu)
VEC_LOOKUP_32(vec_4, 4, 0xffffffffu)

/* 8-byte entries: 8 keys per iteration (one prefetch of 8 keys), in
 * VPK_U64_LANES-lane parts. Group indices < 2^23 fit the 32-bit index. */
static inline __attribute__((always_inline)) size_t
vec_8(const struct dir24_8 *dp, const uint32_t *ips, uint64_t *nhs, size_t n)
{
	size_t i = 0;

	prefetch_head(dp->tbl24, 8, ips, n);
	for (; i + 8 <= n; i += 8) {
		if (i + PF_KEYS + 8 <= n)
			prefetch8(dp->tbl24, 8, ips + i + PF_KEYS);
		for (int h = 0; h < 8; h += VPK_U64_LANES) {
			u32h ip;
			memcpy(&ip, ips + i + h, sizeof(ip));
			u64v e = u64v_gather8(dp->tbl24, ip >> 8);
			m64v ext = u64v_odd(e);
			if (vpk_mask_any(ext)) {
				u64v x = ((e >> 1) << 8) + (u32h_widen64(ip) & 0xff);
				e = u64v_gather8_masked(e, dp->tbl8, u64v_narrow32(x), ext);
			}
			u64v_storeu(nhs + i + h, e >> 1);
		}
	}
	return i;
}
#undef L
#define WIDTH VPK_VEC_BITS
#else
/* No gathers below AVX2: the scalar loop does every key. */
#define vec_1(dp, ips, nhs, n) 0
#define vec_2(dp, ips, nhs, n) 0
#define vec_4(dp, ips, nhs, n) 0
#define vec_8(dp, ips, nhs, n) 0
#define WIDTH (VPK_VEC_BITS ? VPK_VEC_BITS : 64)
#endif

#define BODY(T, V)                                                                     \
	static void VPK_FN(lookup_##T)(const struct dir24_8 *dp, const uint32_t *ips,   \
				       uint64_t *nhs, size_t n)                         \
	{                                                                              \
		scalar_##T(dp, ips, nhs, n, V(dp, ips, nhs, n));                       \
	}
BODY(uint8_t, vec_1)
BODY(uint16_t, vec_2)
BODY(uint32_t, vec_4)
BODY(uint64_t, vec_8)

const struct dir24_8_impl VPK_FN(vpk_dir24_8_impl) = {
	.impl = VPK_IMPL_INIT(WIDTH),
	.lookup = { VPK_FN(lookup_uint8_t), VPK_FN(lookup_uint16_t), VPK_FN(lookup_uint32_t),
		    VPK_FN(lookup_uint64_t) },
};
