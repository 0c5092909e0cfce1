/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `vpk power --probe`: a counter-free look for the AVX licence penalty
 * (idea from research/power.md Appendix C; written here).
 *
 * Without a PMU the core frequency cannot be read, but its effect can: a
 * scalar dependency chain (imul, 3-cycle latency on every Intel core since
 * Sandy Bridge) takes a fixed number of core cycles, so its duration in TSC
 * ticks (constant rate) grows when the core clock drops. For each burst
 * kind (512-bit heavy = vfmadd231pd zmm, 512-bit light = vpternlogd/vpaddq
 * zmm, 256-bit heavy = vfmadd231pd ymm) one trial is:
 *
 *   rest (scalar spin, 6 ms: longer than the ~2 ms licence hysteresis)
 *   -> 50 us of the burst, or 50 us of scalar spin (control)
 *   -> window A: a chain sized to take ~20 us at full speed (catches the
 *      8-20 us quarter-speed dispatch throttle of a voltage transition)
 *   -> window B: a chain sized to take ~500 us (catches a licence drop)
 *
 * A run pairs one control trial with one burst trial; ratio = control time
 * / burst time, so 1.0 means no slowdown and 0.8 means the scalar code ran
 * 20 % slower after the burst. Runs are interleaved across the burst kinds;
 * the report gives median, min and max over runs. Only these ratios are used:
 * absolute clock estimates drift (research/power.md §5.4).
 *
 * The wide code is inline assembly in functions named *_avx512 / *_avx2, so
 * `vpk scan --allow-suffix _avx512` keeps passing on the vpk binary; it runs
 * only when the CPU and the OS support the ISA.
 */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <vpk/isa.h>

#include "bench.h"
#include "power/power.h"

/* Scalar work: @n dependent imuls (3 cycles each at any frequency). */
__attribute__((noinline)) static uint64_t
imul_chain(uint64_t n, uint64_t x)
{
	uint64_t m = 1;

	__asm__ volatile("" : "+r"(m));
	for (uint64_t i = 0; i < n; i++)
		__asm__ volatile("imul %1, %0\n\timul %1, %0\n\timul %1, %0\n\timul %1, %0" : "+r"(x) : "r"(m));
	return x;
}

static void
spin_until(uint64_t end)
{
	while (bench_tsc() < end)
		__asm__ volatile("" ::: "memory");
}

/*
 * One burst kind: zero four registers (ZERO: the zeroing instruction, R: the
 * register prefix, "zmm" or "ymm"), then repeat 32 copies of BODY until
 * @end, then vzeroupper. Clobbering xmm0-3 covers the wider registers too.
 */
#define POWER_BURST(fn, ZERO, R, BODY)                                                                 \
	__attribute__((noinline)) static void fn(uint64_t end)                                         \
	{                                                                                              \
		__asm__ volatile(ZERO " %%" R "0, %%" R "0, %%" R "0\n\t" ZERO " %%" R "1, %%" R "1, %%" R \
				 "1\n\t" ZERO " %%" R "2, %%" R "2, %%" R "2\n\t" ZERO " %%" R "3, %%" R   \
				 "3, %%" R "3" ::: "xmm0", "xmm1", "xmm2", "xmm3");                        \
		while (bench_tsc() < end)                                                              \
			__asm__ volatile(".rept 32\n\t" BODY ".endr" ::: "xmm0", "xmm1", "xmm2", "xmm3"); \
		__asm__ volatile("vzeroupper");                                                        \
	}

/* 512-bit heavy: FMA chains on zmm0-3 (dense: about one FMA per cycle). */
POWER_BURST(power_burst_fma512_avx512, "vxorpd", "zmm",
	    "vfmadd231pd %%zmm0, %%zmm0, %%zmm1\n\tvfmadd231pd %%zmm0, %%zmm0, %%zmm2\n\t"
	    "vfmadd231pd %%zmm0, %%zmm0, %%zmm3\n\tvfmadd231pd %%zmm1, %%zmm2, %%zmm0\n\t")

/* 512-bit light: integer logic and adds on zmm. */
POWER_BURST(power_burst_light512_avx512, "vpxorq", "zmm",
	    "vpaddq %%zmm0, %%zmm1, %%zmm1\n\tvpternlogd $0x96, %%zmm0, %%zmm1, %%zmm2\n\t"
	    "vpaddq %%zmm2, %%zmm3, %%zmm3\n\tvpternlogd $0x96, %%zmm1, %%zmm3, %%zmm0\n\t")

/* 256-bit heavy: FMA on ymm. */
POWER_BURST(power_burst_fma256_avx2, "vxorpd", "ymm",
	    "vfmadd231pd %%ymm0, %%ymm0, %%ymm1\n\tvfmadd231pd %%ymm0, %%ymm0, %%ymm2\n\t"
	    "vfmadd231pd %%ymm0, %%ymm0, %%ymm3\n\tvfmadd231pd %%ymm1, %%ymm2, %%ymm0\n\t")

static const struct {
	const char *name;
	const char *what;
	enum vpk_isa isa;
	void (*burst)(uint64_t end);
} kinds[POWER_PROBE_KINDS] = {
	{ "512_heavy", "vfmadd231pd zmm", VPK_ISA_AVX512, power_burst_fma512_avx512 },
	{ "512_light", "vpaddq/vpternlogd zmm", VPK_ISA_AVX512, power_burst_light512_avx512 },
	{ "256_heavy", "vfmadd231pd ymm", VPK_ISA_AVX2, power_burst_fma256_avx2 },
};

/* One trial: rest, burst (or control spin), then the two timed windows (ticks). */
static void
trial(int kind, bool burst, const struct power_probe_cfg *cfg, uint64_t na, uint64_t nb, double hz,
      uint64_t *ta, uint64_t *tb)
{
	uint64_t t0, t1, t2, x;

	spin_until(bench_tsc() + (uint64_t)(cfg->rest_us * 1e-6 * hz));
	t0 = bench_tsc() + (uint64_t)(cfg->burst_us * 1e-6 * hz);
	if (burst)
		kinds[kind].burst(t0);
	else
		spin_until(t0);
	t0 = bench_tsc();
	x = imul_chain(na, t0);
	t1 = bench_tsc();
	x = imul_chain(nb, x);
	t2 = bench_tsc();
	bench_keep(x);
	*ta = t1 - t0;
	*tb = t2 - t1;
}

int
power_probe_run(const struct power_probe_cfg *cfg, struct power_probe_result *res)
{
	double hz = bench_tsc_hz(), b[POWER_PROBE_KINDS][POWER_PROBE_MAX_RUNS];
	double ra[POWER_PROBE_KINDS][POWER_PROBE_MAX_RUNS];
	uint64_t t0, t1, na, nb, ta, tb, ca, cb;
	cpu_set_t set;
	int cpu = sched_getcpu();

	memset(res, 0, sizeof(*res));
	if (cfg->runs < 1 || cfg->runs > POWER_PROBE_MAX_RUNS)
		return -1;
	if (cpu >= 0) {                 /* stay on one core: the licence is per core */
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	res->cpu = cpu;
	res->tsc_hz = hz;
	/* Size the chains: 4 imuls per iteration; time 20000 iterations at rest. */
	imul_chain(20000, 1);
	t0 = bench_tsc();
	imul_chain(20000, 1);
	t1 = bench_tsc();
	na = (uint64_t)(cfg->window_a_us * 1e-6 * hz / ((double)(t1 - t0) / 20000.0)) + 1;
	nb = (uint64_t)(cfg->window_b_us * 1e-6 * hz / ((double)(t1 - t0) / 20000.0)) + 1;
	res->chain_ghz = 4.0 * 3.0 * 20000.0 / ((double)(t1 - t0) / hz) / 1e9;
	for (int k = 0; k < POWER_PROBE_KINDS; k++) {
		res->kind[k].name = kinds[k].name;
		res->kind[k].what = kinds[k].what;
		res->kind[k].ran = vpk_isa_cpu_supported(kinds[k].isa) && vpk_isa_os_supported(kinds[k].isa);
		if (!res->kind[k].ran)
			res->kind[k].why = "CPU or OS lacks the ISA";
	}
	for (int r = 0; r < cfg->runs; r++)
		for (int k = 0; k < POWER_PROBE_KINDS; k++) {
			if (!res->kind[k].ran)
				continue;
			/* Alternate which of the pair goes first, so drift hits both alike. */
			if (r & 1) {
				trial(k, true, cfg, na, nb, hz, &ta, &tb);
				trial(k, false, cfg, na, nb, hz, &ca, &cb);
			} else {
				trial(k, false, cfg, na, nb, hz, &ca, &cb);
				trial(k, true, cfg, na, nb, hz, &ta, &tb);
			}
			ra[k][r] = (double)ca / (double)ta;
			b[k][r] = (double)cb / (double)tb;
		}
	for (int k = 0; k < POWER_PROBE_KINDS; k++) {
		struct power_probe_kind *o = &res->kind[k];

		if (!o->ran)
			continue;
		o->a_min = bench_min(ra[k], (size_t)cfg->runs);
		o->a_max = bench_max(ra[k], (size_t)cfg->runs);
		o->a_median = bench_median(ra[k], (size_t)cfg->runs);
		o->b_min = bench_min(b[k], (size_t)cfg->runs);
		o->b_max = bench_max(b[k], (size_t)cfg->runs);
		o->b_median = bench_median(b[k], (size_t)cfg->runs);
	}
	return 0;
}
