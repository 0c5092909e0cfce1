/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk-gather-probe: cycles (TSC) per 16 table reads from an L1-resident
 * 16 KiB table, done as scalar loads (8 independent dependent chains), as
 * 16-lane AVX-512 gathers (4 independent chains: throughput; 1 chain:
 * latency) and as 8-lane AVX2 gathers (4 chains). Median of 9 runs of 2^22
 * steps each. Every step's index is the previous read's value, so nothing
 * is hoisted. Output: JSON on stdout.
 *
 * Why: the ACL walk and the FIB lookups are chains of table reads. Where a
 * gather costs as much per element as a scalar load, a vector variant can
 * only win on the work around the reads (docs/acl.md, x32 / scalar).
 */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>

#include "bench.h"

#define TAB 4096
#define STEPS (1 << 22)
#define RUNS 9

static uint32_t tab[TAB] __attribute__((aligned(64)));

/* Median of the runs, per step. */
static double
median(double *v)
{
	return bench_median(v, RUNS) / STEPS;
}

/* 16 scalar reads per step: 8 chains, two reads each. */
static uint64_t
scalar16(uint32_t *sink)
{
	uint32_t a = 1, b = 2, c = 3, d = 4, e = 5, f = 6, g = 7, h = 8;
	uint64_t t0 = __rdtsc();

	for (int i = 0; i < STEPS; i++) {
		a = tab[tab[a]];
		b = tab[tab[b]];
		c = tab[tab[c]];
		d = tab[tab[d]];
		e = tab[tab[e]];
		f = tab[tab[f]];
		g = tab[tab[g]];
		h = tab[tab[h]];
	}
	uint64_t t = __rdtsc() - t0;
	*sink += a + b + c + d + e + f + g + h;
	return t;
}

/* Per step: one 16-lane gather of one chain (latency) or of four (throughput,
 * time / 4). The chains live in named registers: an array of vectors indexed
 * in a loop may stay in memory, a store-forwarding round trip per gather. */
__attribute__((target("avx512f"))) static uint64_t
gather16(int chains, uint32_t *sink)
{
	const __m512i i0 = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
	__m512i a = i0, b = _mm512_add_epi32(i0, _mm512_set1_epi32(16)), c = _mm512_add_epi32(i0, _mm512_set1_epi32(32)),
		d = _mm512_add_epi32(i0, _mm512_set1_epi32(48));
	uint64_t t0 = __rdtsc();

	if (chains == 1)
		for (int i = 0; i < STEPS; i++)
			a = _mm512_i32gather_epi32(a, tab, 4);
	else
		for (int i = 0; i < STEPS / 4; i++) {
			a = _mm512_i32gather_epi32(a, tab, 4);
			b = _mm512_i32gather_epi32(b, tab, 4);
			c = _mm512_i32gather_epi32(c, tab, 4);
			d = _mm512_i32gather_epi32(d, tab, 4);
		}
	uint64_t t = __rdtsc() - t0;
	*sink += (uint32_t)_mm512_reduce_add_epi32(_mm512_add_epi32(_mm512_add_epi32(a, b), _mm512_add_epi32(c, d)));
	return t;
}

/* 4 chains of 8-lane AVX2 gathers; per step two of them (16 reads). */
__attribute__((target("avx2"))) static uint64_t
gather8x2(uint32_t *sink)
{
	const __m256i i0 = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
	__m256i a = i0, b = _mm256_add_epi32(i0, _mm256_set1_epi32(8)), c = _mm256_add_epi32(i0, _mm256_set1_epi32(16)),
		d = _mm256_add_epi32(i0, _mm256_set1_epi32(24));
	uint64_t t0 = __rdtsc();

	for (int i = 0; i < STEPS / 2; i++) {
		a = _mm256_i32gather_epi32((const int *)tab, a, 4);
		b = _mm256_i32gather_epi32((const int *)tab, b, 4);
		c = _mm256_i32gather_epi32((const int *)tab, c, 4);
		d = _mm256_i32gather_epi32((const int *)tab, d, 4);
	}
	uint64_t t = __rdtsc() - t0;
	*sink += (uint32_t)_mm256_extract_epi32(_mm256_add_epi32(_mm256_add_epi32(a, b), _mm256_add_epi32(c, d)), 0);
	return t;
}

int
main(void)
{
	double s[RUNS], g4[RUNS], g1[RUNS], y[RUNS];
	uint32_t sink = 0;
	int has512 = __builtin_cpu_supports("avx512f"), has2 = __builtin_cpu_supports("avx2");

	for (uint32_t i = 0; i < TAB; i++)
		tab[i] = (uint32_t)(i * 2654435761u) % TAB;
	for (int r = 0; r < RUNS; r++) {
		s[r] = (double)scalar16(&sink);
		g4[r] = has512 ? (double)gather16(4, &sink) : 0;
		g1[r] = has512 ? (double)gather16(1, &sink) : 0;
		y[r] = has2 ? (double)gather8x2(&sink) : 0;
	}
	printf("{\"table_bytes\": %d, \"steps\": %d, \"runs\": %d,\n", TAB * 4, STEPS, RUNS);
	printf(" \"scalar_16_loads_cycles\": %.2f,\n", median(s));
	if (has512)
		printf(" \"zmm_gather_16_throughput_cycles\": %.2f,\n \"zmm_gather_16_latency_cycles\": %.2f,\n",
		       median(g4), median(g1));
	if (has2)
		printf(" \"ymm_gather_2x8_throughput_cycles\": %.2f,\n", median(y));
	printf(" \"sink\": %u}\n", sink);
	return 0;
}
