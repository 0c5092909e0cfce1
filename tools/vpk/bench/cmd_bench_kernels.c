/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk bench kernels: the foundation kernels (IPv4 checksum check, buffer
 * index -> pointer, Toeplitz RSS hash) per variant x burst size, cycles per packet, variants
 * interleaved in every run so that noise on this shared machine hits them
 * alike. `vpk bench` lists every benchmark command.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/buf.h>
#include <vpk/pkt.h>
#include "bench.h"
#include "buf/buf_kern.h"
#include "common/json.h"
#include "pkt/ip4_csum.h"
#include "pkt/rss.h"
#include "common/tool.h"

static int cmd_bench(int argc, char **argv);
static int cmd_bench_kernels(int argc, char **argv);
VPK_CMD(bench, "bench", "benchmark suite: lists the `vpk bench <what>` commands", cmd_bench);
VPK_CMD(bench_kernels, "bench kernels", "foundation kernels per variant x burst, cycles/packet", cmd_bench_kernels);

extern const struct vpk_cmd __start_vpk_cmds[];
extern const struct vpk_cmd __stop_vpk_cmds[];

static int
cmd_bench(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		return vpk_fail(VPK_EXIT_USAGE, "bench: unknown benchmark '%s' (run 'vpk bench' for the list)", argv[1]);
	printf("benchmarks (each prints a table, or JSON with --json):\n");
	for (const struct vpk_cmd *c = __start_vpk_cmds; c < __stop_vpk_cmds; c++)
		if (strncmp(c->name, "bench ", 6) == 0)
			printf("  vpk %-20s %s\n", c->name, c->summary);
	return VPK_EXIT_OK;
}

/*
 * Working set: by default 256 packets (one full frame) in 2 KiB slots, which
 * stays in L2 as it does in the graph, where ethernet-input has just touched
 * the headers. --working-set=4096 (8 MiB) shows the cache-missing case, where
 * every variant waits on memory alike.
 */
#define MAX_PKTS 65536u
#define SLOT   2048u
static unsigned N_PKTS = 256;

struct kernel_bench {
	const char *kernel;
	const struct vpk_impl *const *impls;
	/* Run one burst of @n packets starting at packet @at. */
	void (*run)(const struct vpk_impl *impl, size_t at, size_t n);
};

static uint8_t *slots;
static const uint8_t *hdr_ptrs[MAX_PKTS];
static uint8_t ok_out[MAX_PKTS];
static uint32_t idx_in[MAX_PKTS];
static struct vpk_buf *ptr_out[MAX_PKTS];

static void
run_csum(const struct vpk_impl *impl, size_t at, size_t n)
{
	((const struct ip4_csum_impl *)impl)->check_bulk(hdr_ptrs + at, ok_out + at, n);
}

static void
run_idx2ptr(const struct vpk_impl *impl, size_t at, size_t n)
{
	((const struct buf_kern_impl *)impl)->idx_to_ptr(slots, idx_in + at, ptr_out + at, n);
}

/* One hasher per variant, tuples = the 12 bytes at IPv4 source address (+ the UDP ports). */
static struct vpk_rss *rss_obj[VPK_ISA_COUNT];
static uint8_t *tuples;
static uint32_t rss_out[MAX_PKTS];

static void
run_rss(const struct vpk_impl *impl, size_t at, size_t n)
{
	vpk_rss_hash_bulk(rss_obj[impl->isa], tuples + at * 16, 16, rss_out + at, n);
}

static const struct kernel_bench kernels[] = {
	{ "ip4-csum-check", ip4_csum_impls, run_csum },
	{ "buf-idx-ptr", buf_kern_impls, run_idx2ptr },
	{ "rss-toeplitz", rss_impls, run_rss },
};

static void
setup(void)
{
	slots = aligned_alloc(64, (size_t)N_PKTS * SLOT);
	memset(slots, 0, (size_t)N_PKTS * SLOT);
	for (uint32_t i = 0; i < N_PKTS; i++) {
		uint8_t *h = slots + (size_t)i * SLOT + 64 + 128 + 14;  /* after metadata, headroom, Ethernet */

		bench_ip4_header(h, i);
		hdr_ptrs[i] = h;
		/* Shuffled buffer order, as a pool hands buffers out after a while. */
		idx_in[i] = (uint32_t)(((size_t)((i * 2654435761u) % N_PKTS) * SLOT) >> VPK_BUF_SHIFT);
	}
	tuples = calloc(N_PKTS, 16);
	for (uint32_t i = 0; i < N_PKTS; i++) {
		memcpy(tuples + i * 16, hdr_ptrs[i] + 12, 8);
		tuples[i * 16 + 8] = (uint8_t)(i >> 8);
		tuples[i * 16 + 9] = (uint8_t)i;
		tuples[i * 16 + 11] = 53;
	}
	{
		static const uint8_t key[40] = VPK_RSS_KEY_DEFAULT;

		struct vpk_rss_conf rc = { .key = key, .key_len = sizeof(key), .len = 12 };

		for (rc.isa = VPK_ISA_SCALAR; rc.isa < VPK_ISA_COUNT; rc.isa++)
			if (vpk_rss_create(&rc, &rss_obj[rc.isa]) != 0)
				rss_obj[rc.isa] = NULL;
	}
}

static int
cmd_bench_kernels(int argc, char **argv)
{
	unsigned bursts[16] = { 1, 7, 8, 15, 16, 17, 32, 64, 256 };
	int nb = 9, rc;
	uint64_t packets = 4u << 20;
	unsigned runs = 7;
	struct json j;
	const struct vpk_optnum nums[] = {
		VPK_OPTNUM_LIST('b', "bench kernels: --burst (a list like 1,8,32,256)", 1, 1000000, bursts, &nb, 16),
		VPK_OPTNUM_U64('n', "bench kernels: --packets", 1000, UINT64_C(1) << 40, &packets),
		VPK_OPTNUM_UINT('r', "bench kernels: --runs", 1, 101, &runs),
		VPK_OPTNUM_UINT('w', "bench kernels: --working-set (packets)", 256, MAX_PKTS, &N_PKTS),
		{ 0 },
	};

	rc = bench_options(argc, argv, "b:n:r:w:h", "burst=b packets=n runs=r working-set=w help/h", nums,
			   "usage: vpk bench kernels [--burst=1,8,32,256] [--packets=N] [--runs=R] "
			   "[--working-set=PKTS] [--json]\n");
	if (rc >= 0)
		return rc;
	setup();
	if (vpk_opts.json) {
		bench_json_begin(&j, "kernels");
		json_fields(&j, JS("cpu", vpk_cpu_model()), JU("cap", vpk_get_max_simd_bitwidth()),
			    JD("tsc_hz", bench_tsc_hz()), JU("runs", runs), JU("working_set", N_PKTS));
		json_arr(&j, "results");
	} else {
		printf("cpu %s, cap %u, %u runs of %llu packets each, working set %u packets; "
		       "cycles/packet: median (min-max)\n",
		       vpk_cpu_model(), vpk_get_max_simd_bitwidth(), runs, (unsigned long long)packets, N_PKTS);
	}
	for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++) {
		const struct kernel_bench *kb = &kernels[k];
		const struct vpk_impl *use[8];
		size_t nv = 0;

		for (const struct vpk_impl *const *t = kb->impls; *t != NULL && nv < 8; t++)
			if (vpk_impl_why_not(*t) == NULL &&
			    (vpk_opts.isa == VPK_ISA_AUTO || (*t)->isa == vpk_opts.isa))
				use[nv++] = *t;
		if (!vpk_opts.json)
			printf("\n%-16s burst %s\n", kb->kernel, "");
		for (int bi = 0; bi < nb; bi++) {
			unsigned b = bursts[bi];
			double cpp[8][101];
			size_t per_pass = N_PKTS / b * b;

			for (unsigned r = 0; r < runs; r++) {
				for (size_t v = 0; v < nv; v++) {
					unsigned long done = 0;
					uint64_t t0;

					for (size_t at = 0; at + b <= per_pass; at += b)   /* warm-up pass */
						kb->run(use[v], at, b);
					t0 = bench_tsc();
					while (done < packets) {
						for (size_t at = 0; at + b <= per_pass; at += b)
							kb->run(use[v], at, b);
						done += per_pass;
					}
					cpp[v][r] = (double)(bench_tsc() - t0) / (double)done;
				}
			}
			if (!vpk_opts.json)
				printf("  %4u:", b);
			for (size_t v = 0; v < nv; v++) {
				double med, lo = bench_min(cpp[v], runs), hi = bench_max(cpp[v], runs);

				med = bench_median(cpp[v], runs);
				if (vpk_opts.json) {
					json_obj(&j, NULL);
					json_str(&j, "kernel", kb->kernel);
					json_str(&j, "variant", use[v]->name);
					json_u64(&j, "burst", b);
					json_dbl(&j, "cycles_per_pkt", med);
					json_dbl(&j, "min", lo);
					json_dbl(&j, "max", hi);
					json_end(&j);
				} else {
					printf("  %s %.2f (%.2f-%.2f)", use[v]->name, med, lo, hi);
				}
			}
			if (!vpk_opts.json)
				printf("\n");
		}
	}
	if (vpk_opts.json) {
		json_end(&j);
		json_end(&j);
		json_done(&j);
	}
	free(slots);
	free(tuples);
	for (enum vpk_isa l = VPK_ISA_SCALAR; l < VPK_ISA_COUNT; l++)
		vpk_rss_destroy(rss_obj[l]);
	return VPK_EXIT_OK;
}
