/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Parsers for dpdk-test-fib route and lookup files (format in fib_file.h).
 * Input is untrusted: every token is bounded, every number range-checked,
 * errors name file:line and the reason; on error nothing is returned.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fib/fib_file.h"

static int
fail(char *err, size_t errlen, const char *name, size_t line, const char *fmt, ...)
{
	if (err != NULL && errlen > 0) {
		int k = snprintf(err, errlen, "%s:%zu: ", name, line);
		va_list ap;

		if (k < 0)
			k = 0;
		if ((size_t)k < errlen) {
			va_start(ap, fmt);
			vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
			va_end(ap);
		}
	}
	return -EINVAL;
}

static inline int
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Split a line [p, e) into at most max tokens; returns the count (max + 1 if more). */
static int
tokens(const char *p, const char *e, const char **tok, size_t *tlen, int max)
{
	int n = 0;

	while (p < e) {
		while (p < e && is_space(*p))
			p++;
		if (p >= e)
			break;
		const char *s = p;
		while (p < e && !is_space(*p))
			p++;
		if (n == max)
			return max + 1;
		tok[n] = s;
		tlen[n++] = (size_t)(p - s);
	}
	return n;
}

/* Parse an address token into 16 bytes. Returns 0 or a reason. */
static const char *
parse_addr(const char *s, size_t n, int family, uint8_t out[16])
{
	char buf[64];

	if (n == 0 || n >= sizeof(buf))
		return "address too long";
	memcpy(buf, s, n);
	buf[n] = 0;
	memset(out, 0, 16);
	if (family == 4) {
		if (memchr(buf, ':', n) != NULL)
			return "IPv6 address in an IPv4 file (use -6)";
		if (inet_pton(AF_INET, buf, out) != 1)
			return "bad IPv4 address";
	} else {
		if (inet_pton(AF_INET6, buf, out) != 1)
			return memchr(buf, ':', n) == NULL ? "IPv4 address in an IPv6 file" : "bad IPv6 address";
	}
	return NULL;
}

/* Unsigned decimal/hex/octal (strtoull base 0 rules) <= lim; NULL or reason. */
static const char *
parse_uint(const char *s, size_t n, int base, uint64_t lim, uint64_t *out)
{
	char buf[32];
	char *end;

	if (n == 0 || n >= sizeof(buf))
		return "number too long";
	memcpy(buf, s, n);
	buf[n] = 0;
	if (buf[0] == '-' || buf[0] == '+')
		return "signed number";
	errno = 0;
	unsigned long long v = strtoull(buf, &end, base);
	if (errno != 0 || *end != 0 || end == buf)
		return "not a number";
	if (v > lim)
		return "number out of range";
	*out = v;
	return NULL;
}

int
vpk_fib_file_parse_routes(const char *text, size_t len, const char *name, int family,
			  struct fib_file_routes *out, char *err, size_t errlen)
{
	struct fib_file_routes rt = { NULL, 0 };
	size_t cap = 0, line = 0;
	const char *p = text, *end = text + len;
	unsigned maxd = family == 4 ? 32 : 128;

	if (text == NULL || out == NULL || (family != 4 && family != 6))
		return -EINVAL;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl != NULL ? nl : end;
		const char *tok[3];
		size_t tl[3];
		const char *why;
		struct fib_file_route r = { 0 };

		line++;
		if (memchr(p, 0, (size_t)(le - p)) != NULL) {
			free(rt.r);
			return fail(err, errlen, name, line, "NUL byte");
		}
		int nt = tokens(p, le, tok, tl, 2);
		p = nl != NULL ? nl + 1 : end;
		if (nt == 0 || tok[0][0] == '#')
			continue;
		if (nt > 2) {
			free(rt.r);
			return fail(err, errlen, name, line, "trailing text after the next hop");
		}
		const char *slash = memchr(tok[0], '/', tl[0]);
		if (slash == NULL) {
			free(rt.r);
			return fail(err, errlen, name, line, "expected PREFIX/LEN");
		}
		if ((why = parse_addr(tok[0], (size_t)(slash - tok[0]), family, r.addr)) != NULL) {
			free(rt.r);
			return fail(err, errlen, name, line, "%s", why);
		}
		uint64_t v;
		if ((why = parse_uint(slash + 1, tl[0] - (size_t)(slash + 1 - tok[0]), 10, maxd, &v)) != NULL) {
			free(rt.r);
			return fail(err, errlen, name, line, "prefix length: %s (0..%u)", why, maxd);
		}
		r.depth = (uint8_t)v;
		if (nt == 2) {
			if ((why = parse_uint(tok[1], tl[1], 0, INT64_MAX, &r.nh)) != NULL) {
				free(rt.r);
				return fail(err, errlen, name, line, "next hop: %s", why);
			}
			r.has_nh = 1;
		}
		if (rt.n == cap) {
			cap = cap ? cap * 2 : 1024;
			struct fib_file_route *nr = realloc(rt.r, cap * sizeof(*nr));
			if (nr == NULL) {
				free(rt.r);
				return -ENOMEM;
			}
			rt.r = nr;
		}
		rt.r[rt.n++] = r;
	}
	*out = rt;
	return 0;
}

int
vpk_fib_file_parse_addrs(const char *text, size_t len, const char *name, int family,
			 void **out, size_t *n, char *err, size_t errlen)
{
	size_t sz = family == 4 ? 4 : 16, cap = 0, cnt = 0, line = 0;
	uint8_t *a = NULL;
	const char *p = text, *end = text + len;

	if (text == NULL || out == NULL || n == NULL || (family != 4 && family != 6))
		return -EINVAL;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl != NULL ? nl : end;
		const char *tok[2] = { NULL, NULL };
		size_t tl[2] = { 0, 0 };
		uint8_t b[16];
		const char *why;

		line++;
		if (memchr(p, 0, (size_t)(le - p)) != NULL) {
			free(a);
			return fail(err, errlen, name, line, "NUL byte");
		}
		int nt = tokens(p, le, tok, tl, 1);
		p = nl != NULL ? nl + 1 : end;
		if (nt == 0 || tok[0][0] == '#')
			continue;
		if (nt > 1) {
			free(a);
			return fail(err, errlen, name, line, "trailing text after the address");
		}
		if ((why = parse_addr(tok[0], tl[0], family, b)) != NULL) {
			free(a);
			return fail(err, errlen, name, line, "%s", why);
		}
		if (cnt == cap) {
			cap = cap ? cap * 2 : 4096;
			uint8_t *na = realloc(a, cap * sz);
			if (na == NULL) {
				free(a);
				return -ENOMEM;
			}
			a = na;
		}
		if (family == 4) {
			uint32_t h = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
			memcpy(a + cnt * 4, &h, 4);
		} else {
			memcpy(a + cnt * 16, b, 16);
		}
		cnt++;
	}
	*out = a;
	*n = cnt;
	return 0;
}

int
vpk_fib_file_read(const char *path, char **text, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (f == NULL)
		return -errno;
	for (;;) {
		if (cap - n < 65536) {
			cap = cap ? cap * 2 : 1 << 20;
			char *nb = realloc(buf, cap + 1);
			if (nb == NULL) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = nb;
		}
		size_t k = fread(buf + n, 1, cap - n, f);
		n += k;
		if (k == 0)
			break;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		return -EIO;
	}
	buf[n] = 0;
	*text = buf;
	*len = n;
	return 0;
}

int
vpk_fib_file_load_routes(const char *path, int family, struct fib_file_routes *out, char *err, size_t errlen)
{
	char *text;
	size_t len;
	int rc = vpk_fib_file_read(path, &text, &len);

	if (rc != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	rc = vpk_fib_file_parse_routes(text, len, path, family, out, err, errlen);
	free(text);
	return rc;
}

int
vpk_fib_file_load_addrs(const char *path, int family, void **out, size_t *n, char *err, size_t errlen)
{
	char *text;
	size_t len;
	int rc = vpk_fib_file_read(path, &text, &len);

	if (rc != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	rc = vpk_fib_file_parse_addrs(text, len, path, family, out, n, err, errlen);
	free(text);
	return rc;
}

void
vpk_fib_file_free_routes(struct fib_file_routes *rt)
{
	free(rt->r);
	rt->r = NULL;
	rt->n = 0;
}
