/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk info --tune: measure every usable variant of the kernels that have a
 * runner here, on this CPU, and say where a narrower variant beats the one
 * the dispatcher picks. The dispatcher's order stays the ISA table's (widest
 * usable first, docs/isa-dispatch.md): predictable, and a choice an
 * application can override with the cap or a forced level. This command only
 * reports; the other kernels are measured by the `vpk bench` command it names.
 *
 * Method (the benchmarks'): variants interleaved in one process, warm-up
 * pass, TSC cycles per item over a fixed count of items, median of the runs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/buf.h>
#include <vpk/fib.h>
#include <vpk/pkt.h>
#include <vpk/rss.h>

#include "bench.h"
#include "common/json.h"
#include "common/tool.h"

#define TUNE_ITEMS 256u        /* one frame: the graph's working set */
#define TUNE_FIB_KEYS 262144u  /* random addresses over a 64 MiB table */
#define TUNE_MAX_RUNS 31u
#define TUNE_WIN 0.95          /* "wins" = at most 95 % of the default's cycles */

struct tune_data {
	uint8_t *slots;
	const uint8_t *hdrs[TUNE_ITEMS];
	uint8_t ok[TUNE_ITEMS];
	uint32_t idx[TUNE_ITEMS];
	struct vpk_buf *ptrs[TUNE_ITEMS];
	uint8_t tuples[TUNE_ITEMS * 16];
	uint32_t hash[TUNE_ITEMS];
	uint32_t *keys;
	uint64_t *nhs;
	struct vpk_rss *rss[VPK_ISA_COUNT];
	struct vpk_fib *fib[VPK_ISA_COUNT];
};

static struct tune_data D;

/* One pass over the working set in calls of @burst items; returns items done. */
typedef size_t (*tune_pass_fn)(const struct vpk_impl *impl, unsigned burst);

/*
 * The statement @call for each burst of @burst items in the first @items of
 * the working set (`at` is the burst's first item); evaluates to the items
 * done. A macro, so every pass times direct calls of its kernel.
 */
#define TUNE_SWEEP(items, burst, call)                                   \
	__extension__({                                                  \
		for (size_t at = 0; at + (burst) <= (items); at += (burst)) \
			call;                                            \
		(size_t)(items) / (burst) * (burst);                     \
	})

static size_t
pass_csum(const struct vpk_impl *impl, unsigned burst)
{
	vpk_ip4_csum_check_fn fn;

	if (vpk_ip4_csum_check_get(impl->isa, &fn, NULL) != 0)
		return 0;
	return TUNE_SWEEP(TUNE_ITEMS, burst, fn(D.hdrs + at, D.ok + at, burst));
}

static size_t
pass_idx(const struct vpk_impl *impl, unsigned burst)
{
	vpk_buf_idx_to_ptr_fn fn;

	if (vpk_buf_kernels_get(impl->isa, &fn, NULL, NULL) != 0)
		return 0;
	return TUNE_SWEEP(TUNE_ITEMS, burst, fn(D.slots, D.idx + at, D.ptrs + at, burst));
}

static size_t
pass_rss(const struct vpk_impl *impl, unsigned burst)
{
	struct vpk_rss *r = D.rss[impl->isa];

	if (r == NULL)
		return 0;
	return TUNE_SWEEP(TUNE_ITEMS, burst, vpk_rss_hash_bulk(r, D.tuples + at * 16, 16, D.hash + at, burst));
}

static size_t
pass_fib(const struct vpk_impl *impl, unsigned burst)
{
	struct vpk_fib *t = D.fib[impl->isa];

	if (t == NULL)
		return 0;
	return TUNE_SWEEP(TUNE_FIB_KEYS, burst, vpk_fib_lookup_bulk(t, D.keys + at, D.nhs + at, burst));
}

static uint32_t
lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 32);
}

static void
setup_frames(void)
{
	static const uint8_t key[40] = VPK_RSS_KEY_DEFAULT;

	D.slots = aligned_alloc(64, (size_t)TUNE_ITEMS * 2048);
	memset(D.slots, 0, (size_t)TUNE_ITEMS * 2048);
	for (uint32_t i = 0; i < TUNE_ITEMS; i++) {
		uint8_t *h = D.slots + (size_t)i * 2048 + 206;   /* metadata, headroom, Ethernet */

		bench_ip4_header(h, i);
		D.hdrs[i] = h;
		D.idx[i] = (uint32_t)(((size_t)((i * 2654435761u) % TUNE_ITEMS) * 2048) >> VPK_BUF_SHIFT);
		memcpy(D.tuples + i * 16, h + 12, 8);
		D.tuples[i * 16 + 9] = (uint8_t)i;
		D.tuples[i * 16 + 11] = 53;
	}
	struct vpk_rss_conf rc = { .key = key, .key_len = sizeof(key), .len = 12 };

	for (rc.isa = VPK_ISA_SCALAR; rc.isa < VPK_ISA_COUNT; rc.isa++)
		if (vpk_rss_create(&rc, &D.rss[rc.isa]) != 0)
			D.rss[rc.isa] = NULL;
}

/* A BGP-like table: 100 000 routes, /8../24 mostly, a few longer. */
static void
setup_fib(void)
{
	uint64_t s = 1;

	D.keys = malloc(TUNE_FIB_KEYS * sizeof(*D.keys));
	D.nhs = malloc(TUNE_FIB_KEYS * sizeof(*D.nhs));
	if (D.keys == NULL || D.nhs == NULL)
		return;
	for (size_t i = 0; i < TUNE_FIB_KEYS; i++)
		D.keys[i] = lcg(&s);
	for (unsigned l = VPK_ISA_SCALAR; l < VPK_ISA_COUNT; l++) {
		struct vpk_fib_conf conf = { .type = VPK_FIB_DIR24_8, .nh_size = 4, .num_tbl8 = 16384,
					     .max_routes = 200000, .isa = (enum vpk_isa)l };
		uint64_t r = 7;

		if (vpk_fib_create(&conf, &D.fib[l]) != 0) {
			D.fib[l] = NULL;
			continue;
		}
		for (unsigned i = 0; i < 100000; i++) {
			uint32_t v = lcg(&r), len = 8 + v % 17;

			if (v % 50 == 0)
				len = 25 + v % 8;
			vpk_fib_add(D.fib[l], lcg(&r), (uint8_t)len, 1 + v % 127);
		}
	}
}

static void
teardown(void)
{
	for (unsigned l = VPK_ISA_SCALAR; l < VPK_ISA_COUNT; l++) {
		vpk_rss_destroy(D.rss[l]);
		vpk_fib_destroy(D.fib[l]);
	}
	free(D.slots);
	free(D.keys);
	free(D.nhs);
	memset(&D, 0, sizeof(D));
}

static const struct {
	const char *kernel;
	tune_pass_fn pass;
} runners[] = {
	{ "ip4-csum-check", pass_csum },
	{ "buf-idx-ptr", pass_idx },
	{ "rss-toeplitz", pass_rss },
	{ "fib4-dir24-8", pass_fib },
};

/* The benchmark that measures the kernels without a runner here. */
static const struct {
	const char *prefix, *bench;
} elsewhere[] = {
	{ "acl-", "vpk bench acl" },   { "fib4-", "vpk bench fib" }, { "fib6-", "vpk bench fib --ipv6" },
	{ "io-", "vpk bench rx" },     { "srv6-", "vpk bench gtp4d" }, { "vxlan-", "vpk bench vxlan" },
	{ "graph-", "vpk bench fwd" },
};

static tune_pass_fn
runner_of(const char *kernel)
{
	for (size_t i = 0; i < sizeof(runners) / sizeof(runners[0]); i++)
		if (strcmp(runners[i].kernel, kernel) == 0)
			return runners[i].pass;
	return NULL;
}

static const char *
bench_of(const char *kernel)
{
	for (size_t i = 0; i < sizeof(elsewhere) / sizeof(elsewhere[0]); i++)
		if (strncmp(kernel, elsewhere[i].prefix, strlen(elsewhere[i].prefix)) == 0)
			return elsewhere[i].bench;
	return "vpk bench kernels";
}

struct tune_row {
	const struct vpk_impl *v[8];
	double cyc[8];
	size_t n;
	const struct vpk_impl *chosen, *fastest;
};

/* Median cycles per item of every usable variant at @burst, interleaved over @runs. */
static void
measure(const struct vpk_kernel *k, tune_pass_fn pass, unsigned burst, unsigned runs, struct tune_row *row)
{
	double c[8][TUNE_MAX_RUNS], cyc_best = 0;

	row->n = 0;
	vpk_impl_pick(k->impls, VPK_ISA_AUTO, &row->chosen);
	for (const struct vpk_impl *const *t = k->impls; *t != NULL && row->n < 8; t++)
		if (vpk_impl_why_not(*t) == NULL)
			row->v[row->n++] = *t;
	for (unsigned r = 0; r < runs; r++)
		for (size_t i = 0; i < row->n; i++) {
			size_t done = pass(row->v[i], burst), items = 0;   /* warm-up */
			uint64_t t0 = bench_tsc();

			while (done > 0 && items < 1u << 20)
				items += pass(row->v[i], burst);
			c[i][r] = items ? (double)(bench_tsc() - t0) / (double)items : 0;
		}
	row->fastest = NULL;
	for (size_t i = 0; i < row->n; i++) {
		row->cyc[i] = bench_median(c[i], runs);
		if (row->cyc[i] > 0 && (row->fastest == NULL || row->cyc[i] < cyc_best))
			row->fastest = row->v[i], cyc_best = row->cyc[i];
	}
}

static double
cyc_of(const struct tune_row *row, const struct vpk_impl *v)
{
	for (size_t i = 0; i < row->n; i++)
		if (row->v[i] == v)
			return row->cyc[i];
	return 0;
}

static void
emit(struct json *j, const struct vpk_kernel *k, unsigned burst, const struct tune_row *row, int *wins)
{
	double dc = cyc_of(row, row->chosen), fc = cyc_of(row, row->fastest);
	bool narrower = row->fastest != NULL && row->chosen != NULL && row->fastest->width < row->chosen->width &&
			fc <= dc * TUNE_WIN;

	*wins += narrower;
	if (j != NULL) {
		json_obj(j, NULL);
		json_str(j, "kernel", k->name);
		json_u64(j, "burst", burst);
		json_str(j, "default", row->chosen ? row->chosen->name : NULL);
		json_str(j, "fastest", row->fastest ? row->fastest->name : NULL);
		json_dbl(j, "fastest_over_default", dc > 0 ? fc / dc : 0);
		json_bool(j, "narrower_wins", narrower);
		json_arr(j, "variants");
		for (size_t i = 0; i < row->n; i++) {
			json_obj(j, NULL);
			json_str(j, "name", row->v[i]->name);
			json_u64(j, "width", row->v[i]->width);
			json_dbl(j, "cycles_per_item", row->cyc[i]);
			json_end(j);
		}
		json_end(j);
		json_end(j);
		return;
	}
	printf("%-16s %5u  ", k->name, burst);
	for (size_t i = 0; i < row->n; i++)
		printf("%s%s %.2f", i ? "  " : "", row->v[i]->name, row->cyc[i]);
	printf("\n%-16s %5s  default %s, fastest %s", "", "", row->chosen ? row->chosen->name : "-",
	       row->fastest ? row->fastest->name : "-");
	if (narrower)
		printf(": narrower wins (%.2fx the default's cycles)", fc / dc);
	printf("\n");
}

int vpk_info_tune(int argc, char **argv);

int
vpk_info_tune(int argc, char **argv)
{
	static const unsigned bursts[] = { 32, 256 };
	unsigned runs = 5;
	size_t nk;
	const struct vpk_kernel *k = vpk_kernels(&nk);
	struct json j;
	int wins = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
			if (!vpk_opt_uint("info --tune: --runs", argv[++i], 1, TUNE_MAX_RUNS, &runs))
				return VPK_EXIT_USAGE;
		} else {
			return vpk_fail(VPK_EXIT_USAGE, "info --tune: unexpected argument '%s' (options: --runs N)",
					argv[i]);
		}
	}
	setup_frames();
	setup_fib();
	if (vpk_opts.json) {
		json_init(&j, stdout);
		json_obj(&j, NULL);
		json_str(&j, "cpu", vpk_cpu_model());
		json_u64(&j, "cap", vpk_get_max_simd_bitwidth());
		json_u64(&j, "runs", runs);
		json_arr(&j, "tune");
	} else {
		printf("cpu %s, cap %u; cycles per item, median of %u interleaved runs; a frame of %u packets "
		       "(fib4-dir24-8: %u random addresses, 100 000 routes)\n\n",
		       vpk_cpu_model(), vpk_get_max_simd_bitwidth(), runs, TUNE_ITEMS, TUNE_FIB_KEYS);
		printf("%-16s %5s  variants\n", "kernel", "burst");
	}
	for (size_t i = 0; i < nk; i++) {
		tune_pass_fn pass = runner_of(k[i].name);

		for (size_t b = 0; pass != NULL && b < sizeof(bursts) / sizeof(bursts[0]); b++) {
			struct tune_row row;

			measure(&k[i], pass, bursts[b], runs, &row);
			emit(vpk_opts.json ? &j : NULL, &k[i], bursts[b], &row, &wins);
		}
	}
	if (vpk_opts.json) {
		json_end(&j);
		json_arr(&j, "measured_elsewhere");
	} else {
		printf("\nMeasured by their benchmarks:\n");
	}
	for (size_t i = 0; i < nk; i++) {
		if (runner_of(k[i].name) != NULL)
			continue;
		if (vpk_opts.json) {
			json_obj(&j, NULL);
			json_str(&j, "kernel", k[i].name);
			json_str(&j, "command", bench_of(k[i].name));
			json_end(&j);
		} else {
			printf("  %-22s %s\n", k[i].name, bench_of(k[i].name));
		}
	}
	if (vpk_opts.json) {
		json_end(&j);
		json_u64(&j, "narrower_wins", (uint64_t)wins);
		json_end(&j);
		json_done(&j);
	} else {
		printf("\n%d kernel x burst case(s) where a narrower variant takes at most %.0f %% of the default's "
		       "cycles.\nThe default stays the widest usable variant under the cap (docs/isa-dispatch.md); "
		       "lower the cap (--max-simd-bitwidth, VPK_MAX_SIMD_BITWIDTH) or force a level (--isa) to use "
		       "a narrower one.\n", wins, TUNE_WIN * 100);
	}
	teardown();
	return VPK_EXIT_OK;
}
