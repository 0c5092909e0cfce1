/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Buffer index <-> pointer kernels: every usable variant x every length
 * 0..67 and 255..257 against vpk_buf_from_idx()/vpk_buf_to_idx(), inputs
 * against a guard page, outputs poisoned. Adversarial indices: 0, the
 * largest index (2^32 - 2, so idx << 6 needs 38 bits), values with the top
 * bit set (a signed widening would go wrong), and random ones.
 */
#include <errno.h>
#include <string.h>

#include "buf/buf_kern.h"
#include "lib/check.h"

#define MAXN 257
#define POISON ((struct vpk_buf *)(uintptr_t)0xa5a5a5a5a5a5a5a5ull)

static uint32_t idx_src[MAXN];
static void *base;

static void
fill_indices(unsigned round)
{
	for (size_t i = 0; i < MAXN; i++) {
		switch ((i + round) % 6) {
		case 0: idx_src[i] = 0; break;
		case 1: idx_src[i] = UINT32_MAX - 1; break;
		case 2: idx_src[i] = 0x80000000u | check_rand_u32(); break;
		default: idx_src[i] = check_rand_u32() >> (check_rand_range(32)); break;
		}
	}
}

static void
run_variant(void *arg, const struct vpk_impl *impl)
{
	const struct buf_kern_impl *k = (const struct buf_kern_impl *)impl;
	size_t lens[80], nl = check_lengths(lens, 80);
	struct vpk_buf *ptrs[MAXN + 1];
	uint32_t back[MAXN + 1];

	(void)arg;
	for (unsigned round = 0; round < 6; round++) {
		fill_indices(round);
		for (size_t li = 0; li < nl; li++) {
			size_t n = lens[li];
			/* The input ends exactly at a guard page: reading idx[n] faults. */
			uint32_t *in = check_guard_alloc(n * sizeof(uint32_t) + 1) ;
			struct vpk_buf **pin;

			in = (uint32_t *)((uint8_t *)in + 1);   /* misaligned on purpose */
			memcpy(in, idx_src, n * sizeof(uint32_t));
			for (size_t i = 0; i <= n; i++)
				ptrs[i] = POISON;
			k->idx_to_ptr(base, in, ptrs, n);
			for (size_t i = 0; i < n; i++)
				CHECK(ptrs[i] == vpk_buf_from_idx(base, idx_src[i]),
				      "idx_to_ptr n=%zu i=%zu idx=%u: got %p", n, i, idx_src[i], (void *)ptrs[i]);
			CHECK(ptrs[n] == POISON, "idx_to_ptr n=%zu wrote past the end", n);

			pin = check_guard_alloc(n * sizeof(*pin));
			memcpy(pin, ptrs, n * sizeof(*pin));
			memset(back, 0xa5, sizeof(back));
			k->ptr_to_idx(base, pin, back, n);
			for (size_t i = 0; i < n; i++)
				CHECK(back[i] == idx_src[i], "ptr_to_idx n=%zu i=%zu: got %u want %u",
				      n, i, back[i], idx_src[i]);
			CHECK(back[n] == 0xa5a5a5a5u, "ptr_to_idx n=%zu wrote past the end", n);
			check_guard_free(pin, n * sizeof(*pin));
			check_guard_free((uint8_t *)in - 1, n * sizeof(uint32_t) + 1);
		}
	}
}

int
main(void)
{
	vpk_buf_idx_to_ptr_fn tp;
	vpk_buf_ptr_to_idx_fn ti;
	const struct vpk_impl *impl;

	check_init("buf_kern");
	/* No memory is touched through base: any 64-byte aligned address will do. */
	base = (void *)(uintptr_t)0x7f1234560000ull;
	CHECK(vpk_buf_kernels_get(VPK_ISA_AUTO, NULL, NULL, NULL) == -EINVAL, "all-NULL accepted");
	CHECK(vpk_buf_kernels_get(VPK_ISA_AUTO, &tp, &ti, &impl) == 0, "auto failed");
	CHECK(vpk_buf_kernels_get(VPK_ISA_AVX512ICL, &tp, &ti, &impl) == -ENOTSUP,
	      "no avx512icl variant exists, yet one was returned");
	check_each_impl("buf-idx-ptr", buf_kern_impls, run_variant, NULL);
	return check_finish();
}
