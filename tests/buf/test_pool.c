/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Buffer pool, single thread: create/destroy, every -EINVAL of the conf,
 * exhaustion and refill, random alloc/free sequences against a model (a
 * plain "held" set), metadata reset, no overlap between buffers, caller
 * memory, index <-> pointer bulk conversion, cache flush, more pools than a
 * thread has cache slots.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/buf.h>

#include "lib/check.h"

#define STRIDE_DEFAULT 2240u /* 64 + 128 + 2048 */

static struct vpk_pool *
mk(uint32_t n_bufs, uint32_t data_size, uint32_t cache_size)
{
	struct vpk_pool_conf c = { .name = "t", .n_bufs = n_bufs, .data_size = data_size,
				   .cache_size = cache_size };
	struct vpk_pool *p = NULL;
	int rc = vpk_pool_create(&c, &p);

	CHECK(rc == 0, "create n=%u ds=%u cache=%u: %d", n_bufs, data_size, cache_size, rc);
	return p;
}

static void
test_conf(void)
{
	struct vpk_pool *p = (struct vpk_pool *)(uintptr_t)1;
	struct vpk_pool_conf c;
	static uint8_t mem[4 * STRIDE_DEFAULT + 64] __attribute__((aligned(64)));
	struct {
		const char *what;
		struct vpk_pool_conf conf;
	} bad[] = {
		{ "n_bufs 0", { .n_bufs = 0 } },
		{ "cache_size 4097", { .n_bufs = 8, .cache_size = 4097 } },
		{ "data_size 65408", { .n_bufs = 8, .data_size = 65535 - VPK_BUF_HEADROOM + 1 } },
		{ "isa out of range", { .n_bufs = 8, .isa = VPK_ISA_COUNT } },
		{ "isa negative", { .n_bufs = 8, .isa = (enum vpk_isa)-1 } },
		{ "mem misaligned", { .n_bufs = 4, .mem = mem + 8, .mem_len = sizeof(mem) - 8 } },
		{ "mem too small", { .n_bufs = 4, .mem = mem, .mem_len = 4 * STRIDE_DEFAULT - 1 } },
		{ "mem_len without mem", { .n_bufs = 4, .mem_len = 4096 } },
		/* stride 65600 = 1025 index steps; 4194304 buffers need 2^32+ indices */
		{ "index range", { .n_bufs = 4194304, .data_size = 65535 - VPK_BUF_HEADROOM } },
		{ "index range, default size", { .n_bufs = UINT32_MAX } },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = vpk_pool_create(&bad[i].conf, &p);

		CHECK(rc == -EINVAL, "%s: got %d, want -EINVAL", bad[i].what, rc);
		CHECK(p == (struct vpk_pool *)(uintptr_t)1, "%s: out written on failure", bad[i].what);
	}
	memset(&c, 0, sizeof(c));
	c.n_bufs = 1;
	CHECK(vpk_pool_create(NULL, &p) == -EINVAL, "NULL conf");
	CHECK(vpk_pool_create(&c, NULL) == -EINVAL, "NULL out");

	/* Limits themselves are accepted. */
	c = (struct vpk_pool_conf){ .n_bufs = 1, .data_size = 65535 - VPK_BUF_HEADROOM,
				    .cache_size = 4096 };
	CHECK(vpk_pool_create(&c, &p) == 0, "max data_size + max cache_size refused");
	if (p != NULL) {
		CHECK(vpk_pool_data_size(p) == 65535 - VPK_BUF_HEADROOM, "data_size");
		CHECK(strcmp(vpk_pool_name(p), "pool") == 0, "default name '%s'", vpk_pool_name(p));
		vpk_pool_destroy(p);
	}
	c = (struct vpk_pool_conf){ .n_bufs = 4, .mem = mem, .mem_len = 4 * STRIDE_DEFAULT };
	CHECK(vpk_pool_create(&c, &p) == 0, "exact mem_len refused");
	vpk_pool_destroy(p);
	vpk_pool_destroy(NULL);
}

/* Every variant level: created with it, or -ENOTSUP when it cannot run. */
static void
test_isa(void)
{
	for (int isa = VPK_ISA_AUTO; isa < VPK_ISA_COUNT; isa++) {
		struct vpk_pool_conf c = { .n_bufs = 300, .data_size = 64, .isa = (enum vpk_isa)isa };
		struct vpk_pool *p = NULL;
		int rc = vpk_pool_create(&c, &p);
		uint32_t idx[300], back[300];
		struct vpk_buf *ptr[300];

		if (isa != VPK_ISA_AUTO && !vpk_isa_usable((enum vpk_isa)isa))
			CHECK(rc == -ENOTSUP, "isa %s unusable here but create gave %d",
			      vpk_isa_name((enum vpk_isa)isa), rc);
		CHECK(rc == 0 || rc == -ENOTSUP, "isa %s: %d", vpk_isa_name((enum vpk_isa)isa), rc);
		if (rc != 0) {
			check_variant_skipped("pool-idx-ptr", vpk_isa_name((enum vpk_isa)isa),
					      vpk_isa_usable((enum vpk_isa)isa) ?
					      "no variant of this level" : "level not usable here");
			continue;
		}
		check_variant_ran("pool-idx-ptr", vpk_pool_impl_name(p));
		CHECK(vpk_pool_alloc_burst(p, idx, 300) == 300, "alloc all");
		/* Shuffle so the kernels see non-monotonic indices. */
		for (uint32_t i = 299; i > 0; i--) {
			uint32_t j = (uint32_t)check_rand_range(i + 1), t = idx[i];

			idx[i] = idx[j];
			idx[j] = t;
		}
		for (size_t n = 0; n <= 300; n += (n < 70 ? 1 : 37)) {
			memset(ptr, 0xa5, sizeof(ptr));
			memset(back, 0xa5, sizeof(back));
			vpk_pool_idx_to_ptr_bulk(p, idx, ptr, n);
			vpk_pool_ptr_to_idx_bulk(p, ptr, back, n);
			for (size_t i = 0; i < n; i++) {
				CHECK(ptr[i] == vpk_buf_from_idx(vpk_pool_base(p), idx[i]),
				      "to_ptr n=%zu i=%zu", n, i);
				CHECK(back[i] == idx[i], "to_idx n=%zu i=%zu", n, i);
			}
			if (n < 300) {
				CHECK(ptr[n] == (struct vpk_buf *)(uintptr_t)0xa5a5a5a5a5a5a5a5u,
				      "to_ptr wrote past n=%zu", n);
				CHECK(back[n] == 0xa5a5a5a5u, "to_idx wrote past n=%zu", n);
			}
		}
		vpk_pool_free_bulk(p, idx, 300);
		CHECK(vpk_pool_in_use(p) == 0, "in_use after free");
		vpk_pool_destroy(p);
	}
}

/* Layout, initial state, exhaustion, refill. */
static void
test_exhaust(uint32_t cache_size)
{
	enum { N = 100 };
	struct vpk_pool *p = mk(N, 0, cache_size);
	uint32_t idx[N + 10], more[8];
	uint32_t got;

	if (p == NULL)
		return;
	CHECK(vpk_pool_size(p) == N, "size");
	CHECK(vpk_pool_data_size(p) == VPK_BUF_DATA_SIZE, "default data size");
	CHECK(((uintptr_t)vpk_pool_base(p) & 63) == 0, "base alignment");
	got = vpk_pool_alloc_burst(p, idx, 30);
	CHECK(got == 30, "alloc 30: %u", got);
	got += vpk_pool_alloc_burst(p, idx + got, N + 10 - got);
	CHECK(got == N, "alloc all: got %u of %u", got, N);
	CHECK(vpk_pool_in_use(p) == N, "in_use %u", vpk_pool_in_use(p));
	for (uint32_t i = 0; i < N; i++) {
		struct vpk_buf *b = vpk_buf_from_idx(vpk_pool_base(p), idx[i]);

		CHECK(idx[i] % (STRIDE_DEFAULT / 64) == 0 && idx[i] / (STRIDE_DEFAULT / 64) < N,
		      "index %u not a buffer start", idx[i]);
		CHECK(b->data_off == VPK_BUF_HEADROOM && b->len == 0 && b->next == VPK_BUF_NONE &&
		      b->flags == 0 && b->total_len == 0, "initial metadata of %u", idx[i]);
		for (uint32_t j = 0; j < i; j++)
			CHECK(idx[j] != idx[i], "index %u handed out twice", idx[i]);
	}
	/* Exhausted: nothing more, output untouched, accounting unchanged. */
	memset(more, 0x5a, sizeof(more));
	CHECK(vpk_pool_alloc_burst(p, more, 8) == 0, "alloc from empty pool");
	CHECK(more[0] == 0x5a5a5a5au && more[7] == 0x5a5a5a5au, "idx written on exhaustion");
	CHECK(vpk_pool_in_use(p) == N, "in_use after failed alloc");
	/* Give 5 back: exactly 5 come out again. */
	vpk_pool_free_bulk(p, idx + 10, 5);
	CHECK(vpk_pool_in_use(p) == N - 5, "in_use after partial free");
	got = vpk_pool_alloc_burst(p, more, 8);
	CHECK(got == 5, "refill: got %u want 5", got);
	for (uint32_t i = 0; i < got; i++) {
		bool found = false;

		for (uint32_t j = 10; j < 15; j++)
			found |= more[i] == idx[j];
		CHECK(found, "refill gave %u, not one of the freed buffers", more[i]);
	}
	memcpy(idx + 10, more, 5 * sizeof(uint32_t));
	vpk_pool_free_bulk(p, idx, N);
	CHECK(vpk_pool_in_use(p) == 0, "in_use at end %u", vpk_pool_in_use(p));
	CHECK(vpk_pool_alloc_burst(p, idx, N) == N, "all back after free");
	vpk_pool_free_bulk(p, idx, N);
	vpk_pool_destroy(p);
}

/* Random alloc/free against a model; buffers carry a pattern to catch overlap. */
static void
test_model(uint32_t n_bufs, uint32_t data_size, uint32_t cache_size, unsigned steps)
{
	struct vpk_pool *p = mk(n_bufs, data_size, cache_size);
	uint32_t *held = calloc(n_bufs, sizeof(*held));
	uint32_t n_held = 0, buf[300];
	uint32_t stride = (64 + VPK_BUF_HEADROOM + data_size + 63) / 64 * 64;

	if (p == NULL || held == NULL)
		goto out;
	for (unsigned s = 0; s < steps && check_failures == 0; s++) {
		if (check_rand_range(2) == 0) {
			uint32_t want = (uint32_t)check_rand_range(cache_size * 2 + 40);
			uint32_t avail = n_bufs - n_held;
			uint32_t got = vpk_pool_alloc_burst(p, buf, want);

			CHECK(got == (want < avail ? want : avail),
			      "step %u: alloc %u with %u free gave %u", s, want, avail, got);
			for (uint32_t i = 0; i < got; i++) {
				struct vpk_buf *b = vpk_buf_from_idx(vpk_pool_base(p), buf[i]);

				CHECK(buf[i] % (stride / 64) == 0 && buf[i] / (stride / 64) < n_bufs,
				      "step %u: bad index %u", s, buf[i]);
				CHECK(b->data_off == VPK_BUF_HEADROOM && b->len == 0 &&
				      b->next == VPK_BUF_NONE && b->rx_if == 0 && b->opaque[sizeof(b->opaque) - 1] == 0 && b->trace_id == 0,
				      "step %u: metadata of %u not reset", s, buf[i]);
				/* Dirty everything the user may touch. */
				memset(b, 0xee, 64);
				memset(vpk_buf_area(b), (int)(buf[i] & 0xff), VPK_BUF_HEADROOM + data_size);
				held[n_held++] = buf[i];
			}
		} else if (n_held > 0) {
			uint32_t k = 1 + (uint32_t)check_rand_range(n_held < 300 ? n_held : 300);

			for (uint32_t i = 0; i < k; i++) {
				uint32_t j = (uint32_t)check_rand_range(n_held);
				uint8_t *d = vpk_buf_area(vpk_buf_from_idx(vpk_pool_base(p), held[j]));

				CHECK(d[0] == (held[j] & 0xff) &&
				      d[VPK_BUF_HEADROOM + data_size - 1] == (held[j] & 0xff),
				      "step %u: buffer %u overwritten by a neighbour", s, held[j]);
				buf[i] = held[j];
				held[j] = held[--n_held];
			}
			vpk_pool_free_bulk(p, buf, k);
		}
		CHECK(vpk_pool_in_use(p) == n_held, "step %u: in_use %u, model %u", s,
		      vpk_pool_in_use(p), n_held);
	}
	vpk_pool_free_bulk(p, held, n_held);
	CHECK(vpk_pool_in_use(p) == 0, "in_use at end");
out:
	free(held);
	vpk_pool_destroy(p);
}

/* Caller memory: buffers live in it, metadata is initialised in it, not freed by destroy. */
static void
test_caller_mem(void)
{
	enum { N = 16, DS = 1000 };
	uint32_t stride = (64 + VPK_BUF_HEADROOM + DS + 63) / 64 * 64;
	size_t len = (size_t)N * stride;
	uint8_t *mem = aligned_alloc(64, len);   /* len is a multiple of 64 */
	struct vpk_pool_conf c = { .name = "umem", .n_bufs = N, .data_size = DS, .mem = mem,
				   .mem_len = len, .cache_size = 4 };
	struct vpk_pool *p;
	uint32_t idx[N];

	memset(mem, 0xaa, len);
	CHECK(vpk_pool_create(&c, &p) == 0, "create with caller memory");
	CHECK(vpk_pool_base(p) == mem, "base is not the caller's memory");
	CHECK(((struct vpk_buf *)(mem + stride * 3))->data_off == VPK_BUF_HEADROOM,
	      "metadata not initialised in caller memory");
	CHECK(strcmp(vpk_pool_name(p), "umem") == 0, "name");
	CHECK(vpk_pool_alloc_burst(p, idx, N) == N, "alloc all");
	for (uint32_t i = 0; i < N; i++) {
		uint8_t *b = (uint8_t *)vpk_buf_from_idx(mem, idx[i]);

		CHECK(b >= mem && b + stride <= mem + len, "buffer %u outside caller memory", idx[i]);
		CHECK((size_t)(b - mem) % stride == 0, "buffer %u not on a stride", idx[i]);
	}
	vpk_pool_free_bulk(p, idx, N);
	vpk_pool_destroy(p);
	mem[len - 1] = 1;       /* still ours (ASan would object otherwise) */
	free(mem);
}

/* Flushing the calling thread's cache; more pools than cache slots. */
static void
test_flush_and_many(void)
{
	enum { NP = 24, N = 40 };
	struct vpk_pool *ps[NP];
	uint32_t idx[NP][N];

	for (int i = 0; i < NP; i++)
		ps[i] = mk(N, 64, 8);
	for (int r = 0; r < 3; r++) {
		for (int i = 0; i < NP; i++) {
			if (ps[i] == NULL)
				continue;
			CHECK(vpk_pool_alloc_burst(ps[i], idx[i], 5) == 5, "pool %d alloc 5", i);
			CHECK(vpk_pool_alloc_burst(ps[i], idx[i] + 5, N) == N - 5, "pool %d rest", i);
			CHECK(vpk_pool_in_use(ps[i]) == N, "pool %d in_use", i);
		}
		for (int i = 0; i < NP; i++) {
			if (ps[i] == NULL)
				continue;
			for (uint32_t k = 0; k < N; k += 4)
				vpk_pool_free_bulk(ps[i], idx[i] + k, 4);
			CHECK(vpk_pool_in_use(ps[i]) == 0, "pool %d in_use after free", i);
			vpk_pool_cache_flush(ps[i]);
			CHECK(vpk_pool_in_use(ps[i]) == 0, "pool %d in_use after flush", i);
		}
	}
	for (int i = 0; i < NP; i++)
		vpk_pool_destroy(ps[i]);
	/* New pools after destroy (maybe at the same addresses): fresh caches. */
	for (int r = 0; r < 4; r++) {
		struct vpk_pool *p = mk(N, 64, 8);
		uint32_t got;

		if (p == NULL)
			break;
		got = vpk_pool_alloc_burst(p, idx[0], N);
		CHECK(got == N, "round %d: new pool gave %u", r, got);
		vpk_pool_free_bulk(p, idx[0], got);
		CHECK(vpk_pool_in_use(p) == 0, "round %d in_use", r);
		vpk_pool_destroy(p);
	}
}

int
main(void)
{
	check_init("buf.pool");
	test_conf();
	test_isa();
	test_exhaust(0);
	test_exhaust(16);
	test_exhaust(256);
	test_model(200, 100, 0, 3000);
	test_model(200, 100, 16, 3000);
	test_model(1000, VPK_BUF_DATA_SIZE, 64, 2000);
	test_model(7, 1, 4, 2000);
	test_caller_mem();
	test_flush_and_many();
	return check_finish();
}
