/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * VxLAN endpoint cache: every usable variant against a naive linear search,
 * for tables of 0..33 endpoints and key streams that interleave 1, 2, 4, 8,
 * 9, 16 endpoints (round robin: the worst case of FIFO replacement), runs,
 * random mixes with unknown keys, key 0 (what empty cache slots hold) and
 * one-bit neighbours of known keys; every length 0..67 and 255..257, the
 * cache kept across calls, keys ending at a guard page, outputs poisoned.
 * Also checks what the cache is for: with <= 8 interleaved endpoints the
 * AVX2/AVX-512 variants reach the table once per endpoint, the 1-entry
 * cache (scalar, SSE4.2) on every change of endpoint.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/check.h"
#include "tunnel/ep_cache.h"

#define MAX_EP 33
#define STREAM 2048

static uint64_t ep_keys[MAX_EP];
static uint32_t n_ep;
static struct ep_table table;
static uint64_t stream[STREAM];

static uint32_t
ref_find(uint64_t k)
{
	for (uint32_t i = 0; i < n_ep; i++)
		if (ep_keys[i] == k)
			return i;
	return EP_NONE;
}

static void
make_table(uint32_t n)
{
	vpk_ep_table_free(&table);
	n_ep = n;
	for (uint32_t i = 0; i < n; i++) {
		do
			ep_keys[i] = i < 2 && n > 4 ? (i == 0 ? ~0ull : 1ull) : check_rand();
		while (ep_keys[i] == 0 || (i > 0 && ref_find(ep_keys[i]) != i && ref_find(ep_keys[i]) != EP_NONE));
	}
	CHECK(vpk_ep_table_build(&table, ep_keys, n) == 0, "table build failed for %u keys", n);
}

/* Stream kinds: 0 round robin over m endpoints, 1 runs, 2 random with unknowns, 3 adversarial. */
static void
make_stream(unsigned kind, uint32_t m)
{
	for (size_t i = 0; i < STREAM; i++) {
		uint64_t k;

		if (n_ep == 0) {
			stream[i] = check_rand() & (i & 1 ? ~0ull : 0);
			continue;
		}
		switch (kind) {
		case 0: k = ep_keys[i % (m < n_ep ? m : n_ep)]; break;
		case 1: k = ep_keys[(i / 13) % n_ep]; break;
		case 2: k = check_rand_range(4) == 0 ? check_rand() : ep_keys[check_rand_range(n_ep)]; break;
		default:
			switch (check_rand_range(4)) {
			case 0: k = 0; break;
			case 1: k = ep_keys[check_rand_range(n_ep)] ^ (1ull << check_rand_range(64)); break;
			case 2: k = ~0ull; break;
			default: k = ep_keys[check_rand_range(n_ep)]; break;
			}
		}
		stream[i] = k;
	}
}

static void
run_variant(void *arg, const struct vpk_impl *impl)
{
	const struct ep_cache_impl *ci = (const struct ep_cache_impl *)impl;
	size_t lens[80], nl = check_lengths(lens, 80);
	struct ep_cache *c = aligned_alloc(64, sizeof(*c));
	uint32_t out[260];

	(void)arg;
	vpk_ep_cache_reset(c);
	for (size_t li = 0, at = 0; li < nl; li++) {
		size_t n = lens[li];
		uint64_t *keys = check_guard_alloc(n * sizeof(uint64_t));     /* ends at a PROT_NONE page */

		if (at + n > STREAM)
			at = 0;
		memcpy(keys, stream + at, n * sizeof(uint64_t));
		for (size_t i = 0; i < 260; i++)
			out[i] = 0xa5a5a5a5u;
		ci->lookup_bulk(c, &table, keys, out, (uint32_t)n);
		for (size_t i = 0; i < n; i++)
			CHECK(out[i] == ref_find(keys[i]), "%u endpoints, n=%zu, key %zu (%016llx): got %u want %u",
			      n_ep, n, i, (unsigned long long)keys[i], out[i], ref_find(keys[i]));
		CHECK(out[n] == 0xa5a5a5a5u, "n=%zu: wrote past the end", n);
		check_guard_free(keys, n * sizeof(uint64_t));
		at += n;
	}
	free(c);
}

/* What the cache buys: table lookups for a long round robin over m endpoints. */
static void
run_hits(void *arg, const struct vpk_impl *impl)
{
	const struct ep_cache_impl *ci = (const struct ep_cache_impl *)impl;
	struct ep_cache *c = aligned_alloc(64, sizeof(*c));
	uint32_t m = *(uint32_t *)arg, out[STREAM];

	vpk_ep_cache_reset(c);
	for (size_t i = 0; i < STREAM; i++)
		stream[i] = ep_keys[i % m];
	ci->lookup_bulk(c, &table, stream, out, 256);
	ci->lookup_bulk(c, &table, stream + 256, out + 256, STREAM - 256);
	if (impl->isa < VPK_ISA_AVX2)          /* 1-entry cache */
		CHECK(c->misses == (m == 1 ? 1 : STREAM), "1-entry, %u endpoints: %llu table lookups", m,
		      (unsigned long long)c->misses);
	else if (m <= 8)
		CHECK(c->misses == (m <= 8 ? m : STREAM), "%s, %u endpoints: %llu table lookups, want %u",
		      impl->name, m, (unsigned long long)c->misses, m <= 8 ? m : STREAM);
	else    /* 4/8 at a time: a lane may hit a way an earlier lane of its block replaced */
		CHECK(c->misses >= m && c->misses <= STREAM, "%s, %u endpoints: %llu table lookups",
		      impl->name, m, (unsigned long long)c->misses);
	for (size_t i = 0; i < STREAM; i++)
		CHECK(out[i] == (uint32_t)(i % m), "round robin %u: key %zu got %u", m, i, out[i]);
	free(c);
}

/* Thrashing: 16 endpoints round robin switch the 8-way variants to the 1-entry cache for
 * EP_COLD_CALLS calls; after them a 2-endpoint stream is served by the ways again. */
static void
run_cold(void *arg, const struct vpk_impl *impl)
{
	const struct ep_cache_impl *ci = (const struct ep_cache_impl *)impl;
	struct ep_cache *c = aligned_alloc(64, sizeof(*c));
	uint32_t out[256];

	(void)arg;
	vpk_ep_cache_reset(c);
	for (size_t i = 0; i < 256; i++)
		stream[i] = ep_keys[i % 16];
	ci->lookup_bulk(c, &table, stream, out, 256);
	for (size_t i = 0; i < 256; i++)
		CHECK(out[i] == (uint32_t)(i % 16), "thrash: key %zu got %u", i, out[i]);
	if (impl->isa < VPK_ISA_AVX2) {
		CHECK(c->cold == 0, "1-entry variant %s went cold", impl->name);
		free(c);
		return;
	}
	CHECK(c->cold == EP_COLD_CALLS, "%s: 16 endpoints round robin did not switch to 1 entry", impl->name);
	for (size_t i = 0; i < 256; i++)
		stream[i] = ep_keys[i % 2];
	for (unsigned k = 0; k < EP_COLD_CALLS; k++)
		ci->lookup_bulk(c, &table, stream, out, 256);
	CHECK(c->cold == 0, "%s: still cold after %u calls", impl->name, EP_COLD_CALLS);
	c->misses = 0;
	ci->lookup_bulk(c, &table, stream, out, 256);
	ci->lookup_bulk(c, &table, stream, out, 256);
	CHECK(c->misses <= 2, "%s: 2 endpoints after the cold period: %llu table lookups", impl->name,
	      (unsigned long long)c->misses);
	for (size_t i = 0; i < 256; i++)
		CHECK(out[i] == (uint32_t)(i % 2), "after cold: key %zu got %u", i, out[i]);
	/* short calls (small frames) are judged together */
	vpk_ep_cache_reset(c);
	for (size_t i = 0; i < 256; i++)
		stream[i] = ep_keys[i % 16];
	for (size_t i = 0; i + 4 <= 64; i += 4) {
		ci->lookup_bulk(c, &table, stream + i, out, 4);
		for (size_t k = 0; k < 4; k++)
			CHECK(out[k] == (uint32_t)((i + k) % 16), "short calls: key %zu got %u", i + k, out[k]);
	}
	CHECK(c->cold != 0, "%s: 16 endpoints in calls of 4 did not switch to 1 entry", impl->name);
	free(c);
}

static void
test_build_errors(void)
{
	struct ep_table t = { 0 };
	uint64_t dup[2] = { 5, 5 }, zero[1] = { 0 };

	CHECK(vpk_ep_table_build(&t, dup, 2) == -EINVAL, "duplicate keys accepted");
	CHECK(vpk_ep_table_build(&t, zero, 1) == -EINVAL, "key 0 accepted");
	CHECK(vpk_ep_table_build(NULL, dup, 1) == -EINVAL, "NULL table accepted");
	CHECK(vpk_ep_table_build(&t, NULL, 0) == 0 && ep_table_find(&t, 7) == EP_NONE, "empty table");
	vpk_ep_table_free(&t);
}

int
main(void)
{
	static const uint32_t sizes[] = { 0, 1, 2, 3, 4, 7, 8, 9, 16, 33 };
	static const uint32_t rr[] = { 1, 2, 4, 8, 9, 16 };

	check_init("tunnel.ep_cache");
	test_build_errors();
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		make_table(sizes[s]);
		for (unsigned kind = 0; kind < 4; kind++)
			for (size_t r = 0; r < (kind == 0 ? sizeof(rr) / sizeof(rr[0]) : 1); r++) {
				make_stream(kind, rr[r]);
				check_each_impl("vxlan-endpoint-cache", ep_cache_impls, run_variant, NULL);
			}
	}
	make_table(16);
	for (size_t r = 0; r < sizeof(rr) / sizeof(rr[0]); r++) {
		uint32_t m = rr[r];

		check_each_impl("vxlan-endpoint-cache", ep_cache_impls, run_hits, &m);
	}
	check_each_impl("vxlan-endpoint-cache", ep_cache_impls, run_cold, NULL);
	vpk_ep_table_free(&table);
	return check_finish();
}
