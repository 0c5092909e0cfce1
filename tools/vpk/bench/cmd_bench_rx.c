/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk bench rx: the live backends' descriptor kernels (src/io/desc_kern.c)
 * on in-memory rings, per variant, in TSC cycles per packet: what the
 * AF_XDP / TPACKET receive and transmit paths spend per packet in user
 * space, without the kernel (whose cost on veth, ~600 ns/packet, hides it:
 * docs/io.md). Kernels:
 *   xdp-rx      rx descriptors -> buffer indices + 32-byte metadata heads
 *   xdp-tx      buffer metadata -> tx descriptors
 *   comp-recycle completion ring addresses -> buffer indices
 *   fill        buffer indices -> fill ring addresses
 *   tpacket-meta TPACKET copy path: lengths -> metadata heads
 * Ring of --ring descriptors naming buffers spread over a pool-sized area
 * (shuffled, as a pool hands them out after a while), processed in bursts
 * of --burst; variants interleaved in each run; median of --runs.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "io/desc_kern.h"
#include "common/json.h"
#include "common/tool.h"

static int cmd_bench_rx(int argc, char **argv);
VPK_CMD(bench_rx, "bench rx", "live I/O descriptor kernels (AF_XDP/TPACKET) per variant, cycles/packet",
	cmd_bench_rx);

#define STRIDE 2240u
#define NK 5
#define MAXV 4

static const char *const knames[NK] = { "xdp-rx", "xdp-tx", "comp-recycle", "fill", "tpacket-meta" };

struct ring {
	uint8_t *pool;
	uint32_t n;
	struct io_desc *rxd, *txd;
	uint32_t *idx;
	uint64_t *addr;
	uint16_t *len;
};

static void
run_kernel(const struct io_desc_kern_impl *k, int which, struct ring *r, uint32_t at, uint32_t n)
{
	switch (which) {
	case 0: k->xdp_rx(r->pool, 0, r->rxd + at, n, 1, r->idx + at); break;
	case 1: k->xdp_tx(r->pool, 0, r->idx + at, n, r->txd + at); break;
	case 2: k->addr_to_idx(0, r->addr + at, n, r->idx + at); break;
	case 3: k->idx_to_addr(0, r->idx + at, n, r->addr + at); break;
	default: k->meta_fill(r->pool, r->idx + at, r->len + at, n, 1); break;
	}
}

static int
cmd_bench_rx(int argc, char **argv)
{
	unsigned burst = 32, ring_n = 4096, runs = 11, passes = 200;
	const struct io_desc_kern_impl *v[MAXV];
	int nv = 0;
	double cpp[NK][MAXV][64];
	struct ring r;
	double hz = bench_tsc_hz();

	const struct vpk_optnum nums[] = {
		VPK_OPTNUM_UINT('b', "bench rx: --burst", 1, 256, &burst),
		VPK_OPTNUM_UINT('n', "bench rx: --ring", 1, 1u << 20, &ring_n),
		VPK_OPTNUM_UINT('r', "bench rx: --runs", 1, 64, &runs),
		VPK_OPTNUM_UINT('p', "bench rx: --passes", 1, 1000000, &passes),
		{ 0 },
	};

	int rc = bench_options(argc, argv, "h", "burst=b ring=n runs=r passes=p help/h", nums,
			       "usage: vpk bench rx [--burst N (32)] [--ring N (4096)] [--runs N (11)] "
			       "[--passes N (200)] [--json]\n");

	if (rc >= 0)
		return rc;
	if (burst == 0 || burst > 256 || ring_n < burst || ring_n > (1u << 20) || ring_n % burst != 0 ||
	    runs == 0 || runs > 64 || passes == 0)
		return vpk_fail(VPK_EXIT_USAGE, "bench rx: want --burst 1..256, --ring a multiple of it up to 2^20, "
				"--runs 1..64");
	for (const struct vpk_impl *const *t = io_desc_kern_impls; *t != NULL; t++)
		if (vpk_impl_why_not(*t) == NULL && nv < MAXV)
			v[nv++] = (const struct io_desc_kern_impl *)*t;
	r.n = ring_n;
	r.pool = aligned_alloc(4096, (size_t)ring_n * STRIDE);
	r.rxd = aligned_alloc(64, ring_n * sizeof(*r.rxd));
	r.txd = aligned_alloc(64, ring_n * sizeof(*r.txd));
	r.idx = aligned_alloc(64, ring_n * sizeof(*r.idx));
	r.addr = aligned_alloc(64, ring_n * sizeof(*r.addr));
	r.len = aligned_alloc(64, ring_n * sizeof(*r.len));
	if (!r.pool || !r.rxd || !r.txd || !r.idx || !r.addr || !r.len)
		return vpk_fail(VPK_EXIT_FAIL, "bench rx: out of memory");
	memset(r.pool, 0, (size_t)ring_n * STRIDE);
	for (uint32_t i = 0; i < ring_n; i++) {
		uint32_t b = (uint32_t)(((uint64_t)i * 2654435761u) % ring_n);

		r.rxd[i] = (struct io_desc){ ((uint64_t)b * STRIDE) | (uint64_t)256 << IO_ADDR_OFF_SHIFT, 60 + (i & 1023), 0 };
		r.addr[i] = r.rxd[i].addr;
		r.len[i] = (uint16_t)(60 + (i & 1023));
		r.idx[i] = b * (STRIDE >> VPK_BUF_SHIFT);
	}
	for (unsigned run = 0; run < runs; run++)
		for (int kk = 0; kk < NK; kk++)
			for (int vi = 0; vi < nv; vi++) {
				uint64_t t0;

				run_kernel(v[vi], kk, &r, 0, burst);     /* warm */
				t0 = bench_tsc();
				for (unsigned p = 0; p < passes; p++)
					for (uint32_t at = 0; at < ring_n; at += burst)
						run_kernel(v[vi], kk, &r, at, burst);
				cpp[kk][vi][run] = (double)(bench_tsc() - t0) / ((double)passes * ring_n);
				bench_keep(r.idx[0]);
			}
	if (vpk_opts.json) {
		struct json j;

		bench_json_begin(&j, "rx");
		json_u64(&j, "burst", burst);
		json_u64(&j, "ring", ring_n);
		json_u64(&j, "runs", runs);
		json_dbl(&j, "tsc_ghz", hz / 1e9);
		json_arr(&j, "kernels");
		for (int kk = 0; kk < NK; kk++) {
			double scalar = 0;

			json_obj(&j, NULL);
			json_str(&j, "kernel", knames[kk]);
			json_arr(&j, "variants");
			for (int vi = 0; vi < nv; vi++) {
				double med = bench_median(cpp[kk][vi], runs);

				if (v[vi]->base.isa == VPK_ISA_SCALAR)
					scalar = med;
				json_obj(&j, NULL);
				json_str(&j, "variant", v[vi]->base.name);
				json_dbl(&j, "cycles_per_packet", med);
				json_dbl(&j, "min", bench_min(cpp[kk][vi], runs));
				json_dbl(&j, "max", bench_max(cpp[kk][vi], runs));
				json_end(&j);
			}
			json_end(&j);
			for (int vi = 0; vi < nv; vi++)
				if (v[vi]->base.isa != VPK_ISA_SCALAR && scalar > 0) {
					char key[48];

					snprintf(key, sizeof(key), "speedup_%s_vs_scalar", v[vi]->base.name);
					json_dbl(&j, key, scalar / bench_median(cpp[kk][vi], runs));
				}
			json_end(&j);
		}
		json_end(&j);
		json_end(&j);
		json_done(&j);
	} else {
		printf("descriptor kernels, burst %u, ring %u, median of %u runs, TSC cycles/packet\n", burst, ring_n, runs);
		printf("%-14s", "kernel");
		for (int vi = 0; vi < nv; vi++)
			printf(" %10s", v[vi]->base.name);
		printf("   best vs scalar\n");
		for (int kk = 0; kk < NK; kk++) {
			double scalar = bench_median(cpp[kk][nv - 1], runs), best = scalar;

			printf("%-14s", knames[kk]);
			for (int vi = 0; vi < nv; vi++) {
				double m = bench_median(cpp[kk][vi], runs);

				best = m < best ? m : best;
				printf(" %10.2f", m);
			}
			printf("   %.2fx\n", scalar / best);
		}
	}
	free(r.pool);
	free(r.rxd);
	free(r.txd);
	free(r.idx);
	free(r.addr);
	free(r.len);
	return VPK_EXIT_OK;
}
