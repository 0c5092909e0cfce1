/* SPDX-License-Identifier: BSD-3-Clause */
/* Test harness (see check.h). */
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "lib/check.h"

unsigned check_failures;
unsigned check_passes;

static const char *test_name = "test";
static uint64_t seed, rng;
static const char *ctx_kernel = "", *ctx_variant = "";
static bool skipped_all;

#define MAX_VARIANTS 128
static struct {
	char kernel[48];
	char variant[24];
	char why[96];
	bool ran;
} variants[MAX_VARIANTS];
static unsigned n_variants;

void
check_fail_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	check_failures++;
	if (check_failures > CHECK_MAX_FAILURES)
		return;
	fprintf(stderr, "FAIL %s:%d [%s %s seed=%llu] ", file, line, ctx_kernel, ctx_variant,
		(unsigned long long)seed);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (check_failures == CHECK_MAX_FAILURES)
		fprintf(stderr, "(further failures not printed)\n");
}

static void
on_signal(int sig)
{
	/* Only async-signal-safe calls here. */
	const char *what = sig == SIGILL ? "SIGILL" : sig == SIGSEGV ? "SIGSEGV" : "SIGBUS";

	(void)!write(2, "\nCRASH: ", 8);
	(void)!write(2, what, strlen(what));
	(void)!write(2, " in kernel ", 11);
	(void)!write(2, ctx_kernel, strlen(ctx_kernel));
	(void)!write(2, " variant ", 9);
	(void)!write(2, ctx_variant, strlen(ctx_variant));
	(void)!write(2, "\n", 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

void
check_init(const char *name)
{
	const char *s = getenv("VPK_TEST_SEED");

	test_name = name;
	seed = s != NULL ? strtoull(s, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	rng = seed;
	printf("%s: seed %llu (replay with VPK_TEST_SEED=%llu), cap %u\n", name,
	       (unsigned long long)seed, (unsigned long long)seed, vpk_get_max_simd_bitwidth());
	signal(SIGILL, on_signal);
	signal(SIGSEGV, on_signal);
	signal(SIGBUS, on_signal);
}

void
check_skip_all(const char *why)
{
	printf("%s: SKIPPED: %s\n", test_name, why);
	skipped_all = true;
}

int
check_finish(void)
{
	unsigned ran = 0, skipped = 0;

	for (unsigned i = 0; i < n_variants; i++) {
		if (variants[i].ran) {
			ran++;
			printf("  ran      %-28s %s\n", variants[i].kernel, variants[i].variant);
		}
	}
	for (unsigned i = 0; i < n_variants; i++) {
		if (!variants[i].ran) {
			skipped++;
			printf("  skipped  %-28s %-10s (%s)\n", variants[i].kernel,
			       variants[i].variant, variants[i].why);
		}
	}
	printf("%s: %u checks passed, %u failed; variants: %u ran, %u skipped\n", test_name,
	       check_passes, check_failures, ran, skipped);
	if (check_failures > 0)
		return 1;
	if (skipped_all && check_passes == 0)
		return 77;
	return 0;
}

uint64_t
check_seed(void)
{
	return seed;
}

uint64_t
check_rand(void)
{
	uint64_t z = (rng += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

uint32_t
check_rand_u32(void)
{
	return (uint32_t)(check_rand() >> 32);
}

uint64_t
check_rand_range(uint64_t n)
{
	return n == 0 ? 0 : check_rand() % n;
}

void
check_rand_bytes(void *p, size_t n)
{
	uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)check_rand();
}

void
check_set_context(const char *kernel, const char *variant)
{
	ctx_kernel = kernel;
	ctx_variant = variant;
}

static void
record(const char *kernel, const char *variant, const char *why, bool ran)
{
	for (unsigned i = 0; i < n_variants; i++)
		if (strcmp(variants[i].kernel, kernel) == 0 &&
		    strcmp(variants[i].variant, variant) == 0)
			return;
	if (n_variants == MAX_VARIANTS)
		return;
	snprintf(variants[n_variants].kernel, sizeof(variants[0].kernel), "%s", kernel);
	snprintf(variants[n_variants].variant, sizeof(variants[0].variant), "%s", variant);
	snprintf(variants[n_variants].why, sizeof(variants[0].why), "%s", why ? why : "");
	variants[n_variants].ran = ran;
	n_variants++;
}

void
check_variant_ran(const char *kernel, const char *variant)
{
	record(kernel, variant, NULL, true);
}

void
check_variant_skipped(const char *kernel, const char *variant, const char *why)
{
	record(kernel, variant, why, false);
}

unsigned
check_each_impl(const char *kernel, const struct vpk_impl *const *tab,
		void (*fn)(void *arg, const struct vpk_impl *impl), void *arg)
{
	unsigned ran = 0;

	for (; *tab != NULL; tab++) {
		const char *why = vpk_impl_why_not(*tab);

		if (why != NULL) {
			check_variant_skipped(kernel, (*tab)->name, why);
			continue;
		}
		check_set_context(kernel, (*tab)->name);
		fn(arg, *tab);
		check_variant_ran(kernel, (*tab)->name);
		ran++;
	}
	check_set_context("", "");
	return ran;
}

void *
check_guard_alloc(size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t body = (len + pg - 1) / pg * pg;
	uint8_t *m = mmap(NULL, body + pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED) {
		perror("mmap");
		abort();
	}
	if (mprotect(m + body, pg, PROT_NONE) != 0) {
		perror("mprotect");
		abort();
	}
	return m + body - len;
}

void
check_guard_free(void *p, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t body = (len + pg - 1) / pg * pg;

	munmap((uint8_t *)p + len - body, body + pg);
}

size_t
check_lengths(size_t *out, size_t cap)
{
	size_t n = 0;

	for (size_t l = 0; l <= CHECK_MAX_LEN_SWEEP && n < cap; l++)
		out[n++] = l;
	for (size_t l = 255; l <= 257 && n < cap; l++)
		out[n++] = l;
	return n;
}
