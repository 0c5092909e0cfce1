/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The number parser (num.h has the rules). Workload: control plane only,
 * a few thousand calls per configuration or file; clarity over speed.
 * The digits are checked here by hand before strtod() sees them, because
 * strtod() alone accepts "nan", "inf", hex floats, leading blanks and a
 * locale's notion of a number, and strtoull() accepts "-1" as 2^64-1.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"

#define QUOTE_MAX 40

const char *
vpk_num_quote(char *dst, size_t dlen, const char *s, size_t n)
{
	size_t o = 0, k = n > QUOTE_MAX ? QUOTE_MAX : n;

	if (dlen == 0)
		return dst;
	for (size_t i = 0; i < k && o + 1 < dlen; i++) {
		unsigned char c = (unsigned char)s[i];

		dst[o++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	if (k < n)
		for (int i = 0; i < 3 && o + 1 < dlen; i++)
			dst[o++] = '.';
	dst[o] = '\0';
	return dst;
}

static int __attribute__((format(printf, 6, 7)))
why_f(char *why, size_t len, int rc, const char *s, size_t n, const char *fmt, ...)
{
	char q[QUOTE_MAX + 4];
	va_list ap;
	int k;

	if (why == NULL || len == 0)
		return rc;
	if (n == 0)
		k = snprintf(why, len, "empty value");
	else
		k = snprintf(why, len, "'%s' ", vpk_num_quote(q, sizeof(q), s, n));
	if (k >= 0 && (size_t)k < len && n != 0) {
		va_start(ap, fmt);
		vsnprintf(why + k, len - (size_t)k, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Digits of [s, s + n) in base 10 or 16 into *v; -EINVAL (junk) or -ERANGE. */
static int
digits(const char *s, size_t n, unsigned base, uint64_t *v, size_t *stop)
{
	uint64_t x = 0;
	int over = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		int d = hexval(s[i]);

		if (d < 0 || (unsigned)d >= base)
			break;
		if (__builtin_mul_overflow(x, (uint64_t)base, &x) || __builtin_add_overflow(x, (uint64_t)d, &x))
			over = 1;
	}
	*stop = i;
	*v = x;
	return over ? -ERANGE : 0;
}

/* Reason for a text whose number part ends at @stop of @n. */
static int
not_number(const char *s, size_t n, size_t stop, char *why, size_t len)
{
	char q[QUOTE_MAX + 4];

	if (n > 0 && s[0] == '-')
		return why_f(why, len, -EINVAL, s, n, "is negative (want a count or size)");
	if (stop == 0 || n == 0)
		return why_f(why, len, -EINVAL, s, n, "is not a number");
	return why_f(why, len, -EINVAL, s, n, "has '%s' after the number",
		     vpk_num_quote(q, sizeof(q), s + stop, n - stop));
}

int
vpk_num_u64n(const char *s, size_t n, uint64_t lo, uint64_t hi, uint64_t *out, char *why, size_t len)
{
	unsigned base = 10;
	size_t skip = 0, stop;
	uint64_t v;
	int rc;

	if (s == NULL)
		n = 0;
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16, skip = 2;
	if (n == skip)
		return not_number(s, n, 0, why, len);
	rc = digits(s + skip, n - skip, base, &v, &stop);
	if (stop == 0 || skip + stop != n)
		return not_number(s, n, stop == 0 ? 0 : skip + stop, why, len);
	if (rc != 0 || v < lo || v > hi)
		return why_f(why, len, -ERANGE, s, n, "is out of range %llu..%llu", (unsigned long long)lo,
			     (unsigned long long)hi);
	*out = v;
	return 0;
}

int
vpk_num_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out, char *why, size_t len)
{
	return vpk_num_u64n(s, s != NULL ? strlen(s) : 0, lo, hi, out, why, len);
}

/* The narrower destinations: the same parse, then a store of the checked value. */
#define NUM_NARROW(name, type)                                                                  \
	int name(const char *s, type lo, type hi, type *out, char *why, size_t len)             \
	{                                                                                       \
		uint64_t v;                                                                     \
		int rc = vpk_num_u64(s, lo, hi, &v, why, len);                                  \
                                                                                                \
		if (rc == 0)                                                                    \
			*out = (type)v;                                                         \
		return rc;                                                                      \
	}
NUM_NARROW(vpk_num_uint, unsigned)
NUM_NARROW(vpk_num_size, size_t)

int
vpk_num_i64(const char *s, int64_t lo, int64_t hi, int64_t *out, char *why, size_t len)
{
	size_t n = s != NULL ? strlen(s) : 0, neg = n > 0 && s[0] == '-', stop;
	uint64_t mag;
	int rc;

	if (n == neg)
		return why_f(why, len, -EINVAL, s, n, "is not a number");
	rc = digits(s + neg, n - neg, 10, &mag, &stop);
	if (stop == 0 || neg + stop != n)
		return why_f(why, len, -EINVAL, s, n, stop == 0 ? "is not a number" : "has text after the number");
	if (rc == 0 && mag > (uint64_t)INT64_MAX + neg)
		rc = -ERANGE;
	if (rc == 0) {
		/* -2^63 is the one magnitude that fits only negated. */
		int64_t v = !neg ? (int64_t)mag : mag > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)mag;

		if (v < lo || v > hi)
			rc = -ERANGE;
		*out = rc == 0 ? v : *out;
	}
	if (rc != 0)
		return why_f(why, len, -ERANGE, s, n, "is out of range %lld..%lld", (long long)lo, (long long)hi);
	return 0;
}

/* Length of a plain decimal real at the start of [s, s + n): 0 if none. */
static size_t
real_syntax(const char *s, size_t n)
{
	size_t i = 0, int_d = 0, frac_d = 0;

	if (i < n && s[i] == '-')
		i++;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++, int_d++;
	if (i < n && s[i] == '.') {
		i++;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++, frac_d++;
	}
	if (int_d + frac_d == 0)
		return 0;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		size_t j = i + 1, exp_d = 0;

		if (j < n && (s[j] == '+' || s[j] == '-'))
			j++;
		while (j < n && s[j] >= '0' && s[j] <= '9')
			j++, exp_d++;
		if (exp_d > 0)
			i = j;
	}
	return i;
}

int
vpk_num_f64n(const char *s, size_t n, double lo, double hi, double *out, char *why, size_t len)
{
	char buf[128], *end;
	size_t k;
	double v;

	if (s == NULL)
		n = 0;
	k = real_syntax(s, n);
	if (k == 0) {
		char low[8] = "";

		for (size_t i = 0; i < n && i < sizeof(low) - 1; i++)
			low[i] = (char)(s[i] | 0x20);
		if (n > 0 && (strstr(low, "nan") != NULL || strstr(low, "inf") != NULL))
			return why_f(why, len, -EINVAL, s, n, "is not a finite number");
		return why_f(why, len, -EINVAL, s, n, "is not a number");
	}
	if (k != n) {
		char q[QUOTE_MAX + 4];

		return why_f(why, len, -EINVAL, s, n, "has '%s' after the number",
			     vpk_num_quote(q, sizeof(q), s + k, n - k));
	}
	if (n >= sizeof(buf))
		return why_f(why, len, -ERANGE, s, n, "is too long for a number");
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	v = strtod(buf, &end);
	if (errno == ERANGE || !isfinite(v) || v < lo || v > hi || (size_t)(end - buf) != n)
		return why_f(why, len, -ERANGE, s, n, "is out of range %g..%g", lo, hi);
	*out = v;
	return 0;
}

int
vpk_num_f64(const char *s, double lo, double hi, double *out, char *why, size_t len)
{
	return vpk_num_f64n(s, s != NULL ? strlen(s) : 0, lo, hi, out, why, len);
}

int
vpk_num_list(const char *s, unsigned lo, unsigned hi, unsigned *out, size_t max, char *why, size_t len)
{
	const char *all = s;
	size_t n = 0;

	if (s == NULL || *s == '\0')
		return why_f(why, len, -EINVAL, s, 0, "empty list");
	for (;;) {
		const char *c = strchr(s, ',');
		size_t k = c != NULL ? (size_t)(c - s) : strlen(s);
		uint64_t v;
		int rc;

		if (n == max)
			return why_f(why, len, -E2BIG, all, strlen(all), "has more than %zu values", max);
		rc = vpk_num_u64n(s, k, lo, hi, &v, why, len);
		if (rc != 0)
			return rc;
		out[n++] = (unsigned)v;
		if (c == NULL)
			return (int)n;
		s = c + 1;
	}
}

int
vpk_num_ranges(const char *s, unsigned hi, unsigned *out, size_t max, char *why, size_t len)
{
	const char *all = s;
	size_t n = 0;

	if (s == NULL || *s == '\0')
		return why_f(why, len, -EINVAL, s, 0, "empty list");
	for (;;) {
		size_t k = strcspn(s, ","), dash = strcspn(s, "-");
		uint64_t a, b;
		int rc;

		if (dash < k) {
			rc = vpk_num_u64n(s, dash, 0, hi, &a, why, len);
			if (rc == 0)
				rc = vpk_num_u64n(s + dash + 1, k - dash - 1, a, hi, &b, why, len);
		} else {
			rc = vpk_num_u64n(s, k, 0, hi, &a, why, len);
			b = a;
		}
		if (rc != 0)
			return rc;
		for (uint64_t v = a; v <= b; v++) {
			if (n == max)
				return why_f(why, len, -E2BIG, all, strlen(all), "has more than %zu values", max);
			out[n++] = (unsigned)v;
		}
		if (s[k] == '\0')
			return (int)n;
		s += k + 1;
	}
}

int
vpk_num_size_mul(size_t a, size_t b, size_t c, size_t *out)
{
	size_t v;

	if (__builtin_mul_overflow(a, b, &v) || __builtin_add_overflow(v, c, &v))
		return -EOVERFLOW;
	*out = v;
	return 0;
}
