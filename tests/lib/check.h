/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TEST_CHECK_H
#define VPK_TEST_CHECK_H

/*
 * The test harness every C test uses (STYLE.md §7.8):
 *
 *  - CHECK(cond, fmt, ...) records a failure with file:line and a message and
 *    goes on; check_finish() prints the summary and gives the exit code
 *    (0 pass, 1 fail, 77 skipped: nothing could run here).
 *  - A seeded PRNG: the seed comes from VPK_TEST_SEED or the clock and is
 *    printed first, so a failure can be replayed.
 *  - Variant bookkeeping: check_variant_ran() / check_variant_skipped() list,
 *    at the end, which variants ran and which could not (and why), so "all
 *    passed" cannot hide "AVX-512 never ran".
 *  - Guard pages: check_guard_alloc() returns memory whose last byte is
 *    followed by an inaccessible page, to catch over-reads.
 *  - A SIGILL/SIGSEGV handler that names the variant being run.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <vpk/isa.h>

extern unsigned check_failures;
extern unsigned check_passes;

void check_fail_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define CHECK(cond, ...)                                                   \
	do {                                                               \
		if (cond)                                                  \
			check_passes++;                                    \
		else                                                       \
			check_fail_at(__FILE__, __LINE__, __VA_ARGS__);    \
	} while (0)

/* Stop after this many failures: the rest is noise. */
#define CHECK_MAX_FAILURES 20

/* Start: prints the test name and seed; installs the signal handler. */
void check_init(const char *name);
/* End: prints the variant table and "N passed, N failed"; returns the exit code. */
int check_finish(void);
/* Mark the whole test as skipped with a reason (exit code 77 if nothing failed). */
void check_skip_all(const char *why);

uint64_t check_seed(void);
uint64_t check_rand(void);                 /* splitmix64 */
uint32_t check_rand_u32(void);
uint64_t check_rand_range(uint64_t n);     /* 0..n-1 */
void check_rand_bytes(void *p, size_t n);

/* Name the variant now running (for the signal handler and messages). */
void check_set_context(const char *kernel, const char *variant);
void check_variant_ran(const char *kernel, const char *variant);
void check_variant_skipped(const char *kernel, const char *variant, const char *why);

/*
 * Run fn(arg, impl) for every entry of a best-first implementation table:
 * usable ones run (and are recorded as ran), the others are recorded as
 * skipped with vpk_impl_why_not(). Returns how many ran.
 */
unsigned check_each_impl(const char *kernel, const struct vpk_impl *const *tab,
			 void (*fn)(void *arg, const struct vpk_impl *impl), void *arg);

/* Memory whose byte [len] is the first byte of an inaccessible page. */
void *check_guard_alloc(size_t len);
void check_guard_free(void *p, size_t len);

/* Lengths every kernel test sweeps: 0..4*lanes+3 (lanes = 16) plus 255, 256, 257. */
#define CHECK_MAX_LEN_SWEEP (4 * 16 + 3)
size_t check_lengths(size_t *out, size_t cap);

#endif /* VPK_TEST_CHECK_H */
