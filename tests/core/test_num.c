/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The number parser (src/core/num.h) and the line reader (src/core/lines.h):
 * every rule with the values that broke the old per-file parsers (NaN, inf,
 * "-1" wrapping, saturation at 2^64-1, trailing text, octal), ranges and
 * lists; the reader's NUL, line and file caps.
 */
#include <errno.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/lines.h"
#include "core/num.h"
#include "lib/check.h"

static void
test_u64(void)
{
	static const struct { const char *s; uint64_t lo, hi; int rc; uint64_t v; const char *why; } t[] = {
		{ "0", 0, 10, 0, 0, NULL },
		{ "10", 0, 10, 0, 10, NULL },
		{ "010", 0, 100, 0, 10, NULL },         /* no octal */
		{ "0x1f", 0, 100, 0, 31, NULL },
		{ "0XFF", 0, 255, 0, 255, NULL },
		{ "18446744073709551615", 0, UINT64_MAX, 0, UINT64_MAX, NULL },
		{ "18446744073709551616", 0, UINT64_MAX, -ERANGE, 0, "'18446744073709551616' is out of range" },
		{ "99999999999999999999999", 0, UINT64_MAX, -ERANGE, 0, "out of range" },
		{ "11", 0, 10, -ERANGE, 0, "'11' is out of range 0..10" },
		{ "0", 1, 10, -ERANGE, 0, "out of range 1..10" },
		{ "-1", 0, UINT64_MAX, -EINVAL, 0, "'-1' is negative" },
		{ "+1", 0, 10, -EINVAL, 0, "is not a number" },
		{ "", 0, 10, -EINVAL, 0, "empty value" },
		{ " 1", 0, 10, -EINVAL, 0, "is not a number" },
		{ "1 ", 0, 10, -EINVAL, 0, "has ' ' after the number" },
		{ "12x", 0, 100, -EINVAL, 0, "'12x' has 'x' after the number" },
		{ "nan", 0, 10, -EINVAL, 0, "is not a number" },
		{ "0x", 0, 10, -EINVAL, 0, "is not a number" },
		{ "0xg", 0, 10, -EINVAL, 0, "is not a number" },
		{ "1e3", 0, 10000, -EINVAL, 0, "'1e3' has 'e3' after" },
		{ "1\n", 0, 10, -EINVAL, 0, "'1?' has '?' after" },
	};
	char why[160];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint64_t v = 12345;
		int rc = vpk_num_u64(t[i].s, t[i].lo, t[i].hi, &v, why, sizeof(why));

		CHECK(rc == t[i].rc, "'%s': rc %d, want %d", t[i].s, rc, t[i].rc);
		if (rc == 0)
			CHECK(v == t[i].v, "'%s': %llu", t[i].s, (unsigned long long)v);
		else
			CHECK(v == 12345 && strstr(why, t[i].why) != NULL, "'%s': '%s' lacks '%s'", t[i].s, why, t[i].why);
	}
	/* Not NUL-terminated: only the given length counts. */
	uint64_t v;
	CHECK(vpk_num_u64n("123456", 3, 0, 1000, &v, NULL, 0) == 0 && v == 123, "u64n prefix");
	CHECK(vpk_num_u64(NULL, 0, 1, &v, why, sizeof(why)) == -EINVAL, "NULL");
	/* A long value is cut in the message, which stays one line. */
	char big[200];
	memset(big, '7', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	CHECK(vpk_num_u64(big, 0, 1, &v, why, sizeof(why)) == -ERANGE && strstr(why, "...'") && strlen(why) < 120,
	      "long value: %s", why);
}

static void
test_i64_f64(void)
{
	int64_t i;
	double d;
	char why[160];

	CHECK(vpk_num_i64("-9223372036854775808", INT64_MIN, INT64_MAX, &i, NULL, 0) == 0 && i == INT64_MIN, "min");
	CHECK(vpk_num_i64("9223372036854775807", INT64_MIN, INT64_MAX, &i, NULL, 0) == 0 && i == INT64_MAX, "max");
	CHECK(vpk_num_i64("9223372036854775808", INT64_MIN, INT64_MAX, &i, NULL, 0) == -ERANGE, "max+1");
	CHECK(vpk_num_i64("-9223372036854775809", INT64_MIN, INT64_MAX, &i, NULL, 0) == -ERANGE, "min-1");
	CHECK(vpk_num_i64("-5", -4, 4, &i, NULL, 0) == -ERANGE && vpk_num_i64("-4", -4, 4, &i, NULL, 0) == 0 && i == -4,
	      "range");
	CHECK(vpk_num_i64("-", -4, 4, &i, NULL, 0) == -EINVAL && vpk_num_i64("4x", -4, 4, &i, NULL, 0) == -EINVAL, "junk");

	static const char *const good[] = { "0", "1.5", "-2", ".5", "5.", "1e3", "1E-3", "2.5e+2" };
	static const double want[] = { 0, 1.5, -2, .5, 5, 1e3, 1e-3, 250 };
	for (size_t k = 0; k < sizeof(good) / sizeof(good[0]); k++)
		CHECK(vpk_num_f64(good[k], -1e9, 1e9, &d, NULL, 0) == 0 && d == want[k], "'%s'", good[k]);
	static const char *const bad[] = { "nan", "NaN", "inf", "-inf", "infinity", "0x10", "1e400", "1e-400", "",
					   ".", "-", "e5", "1e", "5%", " 1", "1 ", "1,5" };
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
		CHECK(vpk_num_f64(bad[k], -DBL_MAX, DBL_MAX, &d, why, sizeof(why)) != 0, "'%s' accepted", bad[k]);
	CHECK(vpk_num_f64("nan", 0, 1, &d, why, sizeof(why)) == -EINVAL && strstr(why, "not a finite number"), "%s", why);
	CHECK(vpk_num_f64("1.5", 0, 1, &d, why, sizeof(why)) == -ERANGE && strstr(why, "out of range 0..1"), "%s", why);
	CHECK(vpk_num_f64n("2.5%", 3, 0, 100, &d, NULL, 0) == 0 && d == 2.5, "f64n");
}

static void
test_lists(void)
{
	unsigned out[8];
	char why[160];

	CHECK(vpk_num_list("1,8,32", 1, 64, out, 8, why, sizeof(why)) == 3 && out[2] == 32, "list");
	CHECK(vpk_num_list("1,,2", 1, 64, out, 8, why, sizeof(why)) == -EINVAL && strstr(why, "empty"), "%s", why);
	CHECK(vpk_num_list("1,2,", 1, 64, out, 8, why, sizeof(why)) == -EINVAL, "trailing comma");
	CHECK(vpk_num_list("1,65", 1, 64, out, 8, why, sizeof(why)) == -ERANGE, "range");
	CHECK(vpk_num_list("1,2,3", 1, 64, out, 2, why, sizeof(why)) == -E2BIG && strstr(why, "more than 2"), "%s", why);
	CHECK(vpk_num_ranges("0,2-4,7", 10, out, 8, why, sizeof(why)) == 5 && out[1] == 2 && out[3] == 4 && out[4] == 7,
	      "ranges");
	CHECK(vpk_num_ranges("4-2", 10, out, 8, why, sizeof(why)) == -ERANGE, "reversed");
	CHECK(vpk_num_ranges("0-9", 10, out, 8, why, sizeof(why)) == -E2BIG, "too many");
	CHECK(vpk_num_ranges("1-x", 10, out, 8, why, sizeof(why)) == -EINVAL, "junk");
	CHECK(vpk_num_ranges("11", 10, out, 8, why, sizeof(why)) == -ERANGE, "above hi");

	size_t s;
	CHECK(vpk_num_size_mul(SIZE_MAX / 2 + 1, 2, 0, &s) == -EOVERFLOW, "mul overflow");
	CHECK(vpk_num_size_mul(SIZE_MAX, 1, 1, &s) == -EOVERFLOW, "add overflow");
	CHECK(vpk_num_size_mul(3, 5, 1, &s) == 0 && s == 16, "3*5+1");
}

static int
nop(void *arg, const char *p, const char *e, size_t lineno)
{
	(void)arg, (void)p, (void)e, (void)lineno;
	return 0;
}

static void
test_lines(void)
{
	char path[] = "/tmp/vpk-test-lines-XXXXXX", err[256], *line;
	int fd = mkstemp(path);
	struct vpk_lines l;
	size_t n;

	CHECK(fd >= 0, "mkstemp");
	if (fd < 0)
		return;
	CHECK(write(fd, "a b\n\nlast", 9) == 9, "write");
	close(fd);
	CHECK(vpk_lines_open(&l, path, "test files", 100, 16, err, sizeof(err)) == 0, "%s", err);
	CHECK(vpk_lines_next(&l, &line, &n, err, sizeof(err)) == 1 && n == 3 && strcmp(line, "a b") == 0, "line 1");
	CHECK(vpk_lines_next(&l, &line, &n, err, sizeof(err)) == 1 && n == 0 && l.lineno == 2, "line 2");
	CHECK(vpk_lines_next(&l, &line, &n, err, sizeof(err)) == 1 && strcmp(line, "last") == 0, "unterminated");
	CHECK(vpk_lines_next(&l, &line, &n, err, sizeof(err)) == 0, "end");
	vpk_lines_close(&l);
	/* The file cap is checked before reading; the line cap and NUL while reading. */
	CHECK(vpk_lines_open(&l, path, "test files", 8, 16, err, sizeof(err)) == -EFBIG &&
	      strstr(err, "larger than the 8 bytes cap on test files"), "%s", err);
	CHECK(vpk_lines_open(&l, path, "test files", 100, 2, err, sizeof(err)) == 0, "open");
	CHECK(vpk_lines_next(&l, &line, &n, err, sizeof(err)) == -EINVAL && strstr(err, ":1: line longer than 2"),
	      "%s", err);
	vpk_lines_close(&l);
	CHECK(vpk_lines_each_buf("ok\nx\0y\n", 7, "buf", nop, NULL, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "buf:2: NUL byte at column 2"), "%s", err);
	CHECK(vpk_same_file(path, path) && !vpk_same_file(path, "/") && !vpk_same_file(path, NULL), "same file");
	unlink(path);
	CHECK(vpk_lines_open(&l, path, "test files", 100, 16, err, sizeof(err)) == -ENOENT &&
	      strstr(err, "cannot open"), "%s", err);
}

int
main(void)
{
	check_init("core.num");
	test_u64();
	test_i64_f64();
	test_lists();
	test_lines();
	return check_finish();
}
