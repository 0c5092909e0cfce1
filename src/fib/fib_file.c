/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Parsers for dpdk-test-fib route and lookup files (format in fib_file.h).
 * Input is untrusted: every token is bounded, every number range-checked,
 * errors name file:line and the reason; on error nothing is returned.
 * Files are read one line at a time under the caps of fib_file.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errf.h"
#include "core/lines.h"
#include "core/num.h"
#include <vpk/fib_file.h>

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

/* Unsigned number (core/num.h rules) <= lim; NULL or reason (in buf). */
static const char *
parse_uint(const char *s, size_t n, uint64_t lim, uint64_t *out, char *buf, size_t blen)
{
	return vpk_num_u64n(s, n, 0, lim, out, buf, blen) == 0 ? NULL : buf;
}

/* What both line parsers read: the source's name for messages, the address family, the error buffer. */
struct file_ctx {
	const char *name;
	int family;
	char *err;
	size_t errlen;
};

/*
 * @arr with room for element n (elements of @elem bytes, capacity *cap):
 * @arr itself, or a copy with the capacity doubled (@first at the start),
 * or NULL when out of memory (@arr then stays valid).
 */
static void *
grow(void *arr, size_t *cap, size_t n, size_t elem, size_t first)
{
	size_t ncap, bytes;
	void *na;

	if (n < *cap)
		return arr;
	ncap = *cap ? *cap * 2 : first;
	if (vpk_num_size_mul(ncap, elem, 0, &bytes) != 0 || (na = realloc(arr, bytes)) == NULL)
		return NULL;
	*cap = ncap;
	return na;
}

/* The end of a parse: on failure (@rc), the message for -ENOMEM and @arr freed. */
static int
parse_done(const struct file_ctx *f, int rc, void *arr)
{
	if (rc != 0) {
		if (rc == -ENOMEM)
			snprintf(f->err, f->errlen, "%s: out of memory", f->name);
		free(arr);
	}
	return rc;
}

/*
 * Start reading @name into @f: this thread's error buffer, cleared (no stale
 * reason on a failure without one). 0, or -EINVAL when @args_ok is false or
 * @family is neither 4 nor 6.
 */
static int
file_begin(struct file_ctx *f, const char *name, int family, bool args_ok)
{
	*f = (struct file_ctx){ name, family, vpk_errbuf(), VPK_ERR_LEN };
	f->err[0] = '\0';
	return args_ok && (family == 4 || family == 6) ? 0 : -EINVAL;
}

/* Each line of @text (@len bytes), or with @text NULL of the file f->name (@what, at most @max bytes), to @fn. */
static int
file_each(const struct file_ctx *f, const char *text, size_t len, const char *what, uint64_t max,
	  vpk_line_fn *fn, void *arg)
{
	if (text != NULL)
		return vpk_lines_each_buf(text, len, f->name, fn, arg, f->err, f->errlen);
	return vpk_lines_each_file(f->name, what, max, VPK_FIB_FILE_MAX_LINE, fn, arg, f->err, f->errlen);
}

struct route_ctx {
	struct file_ctx f;
	struct vpk_fib_file_routes rt;
	size_t cap;
};

static int
route_line(void *arg, const char *p, const char *le, size_t line)
{
	struct route_ctx *c = arg;
	const struct file_ctx *f = &c->f;
	unsigned maxd = f->family == 4 ? 32 : 128;
	const char *tok[3], *why, *slash;
	size_t tl[3];
	struct vpk_fib_file_route r = { 0 }, *nr;
	char nb[128];
	uint64_t v;
	int nt = tokens(p, le, tok, tl, 2);

	if (nt == 0 || tok[0][0] == '#')
		return 0;
	if (nt > 2)
		return fail(f->err, f->errlen, f->name, line, "trailing text after the next hop");
	slash = memchr(tok[0], '/', tl[0]);
	if (slash == NULL)
		return fail(f->err, f->errlen, f->name, line, "expected PREFIX/LEN");
	if ((why = parse_addr(tok[0], (size_t)(slash - tok[0]), f->family, r.addr)) != NULL)
		return fail(f->err, f->errlen, f->name, line, "%s", why);
	why = parse_uint(slash + 1, tl[0] - (size_t)(slash + 1 - tok[0]), maxd, &v, nb, sizeof(nb));
	if (why != NULL)
		return fail(f->err, f->errlen, f->name, line, "prefix length: %s", why);
	r.depth = (uint8_t)v;
	if (nt == 2) {
		if ((why = parse_uint(tok[1], tl[1], INT64_MAX, &r.nh, nb, sizeof(nb))) != NULL)
			return fail(f->err, f->errlen, f->name, line, "next hop: %s", why);
		r.has_nh = 1;
	}
	if ((nr = grow(c->rt.r, &c->cap, c->rt.n, sizeof(r), 1024)) == NULL)
		return -ENOMEM;
	c->rt.r = nr;
	c->rt.r[c->rt.n++] = r;
	return 0;
}

/* The routes of the text @src (@len bytes) or, with @text false, of the file @src. */
static int
routes_read(bool text, const char *src, size_t len, const char *name, int family, struct vpk_fib_file_routes *out)
{
	struct route_ctx c = { 0 };
	int rc = file_begin(&c.f, name, family, src != NULL && out != NULL);

	if (rc != 0)
		return rc;
	rc = file_each(&c.f, text ? src : NULL, len, "route files", VPK_FIB_FILE_MAX_ROUTES, route_line, &c);
	if (parse_done(&c.f, rc, c.rt.r) == 0)
		*out = c.rt;
	return rc;
}

int
vpk_fib_file_parse_routes(const char *text, size_t len, const char *name, int family,
			  struct vpk_fib_file_routes *out)
{
	return routes_read(true, text, len, name, family, out);
}

int
vpk_fib_file_load_routes(const char *path, int family, struct vpk_fib_file_routes *out)
{
	return routes_read(false, path, 0, path, family, out);
}

struct addr_ctx {
	struct file_ctx f;
	uint8_t *a;
	size_t cnt, cap;
};

static int
addr_line(void *arg, const char *p, const char *le, size_t line)
{
	struct addr_ctx *c = arg;
	const struct file_ctx *f = &c->f;
	size_t sz = f->family == 4 ? 4 : 16;
	const char *tok[2] = { NULL, NULL }, *why;
	size_t tl[2] = { 0, 0 };
	uint8_t b[16], *na;
	int nt = tokens(p, le, tok, tl, 1);

	if (nt == 0 || tok[0][0] == '#')
		return 0;
	if (nt > 1)
		return fail(f->err, f->errlen, f->name, line, "trailing text after the address");
	if ((why = parse_addr(tok[0], tl[0], f->family, b)) != NULL)
		return fail(f->err, f->errlen, f->name, line, "%s", why);
	if ((na = grow(c->a, &c->cap, c->cnt, sz, 4096)) == NULL)
		return -ENOMEM;
	c->a = na;
	if (f->family == 4) {
		uint32_t h = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
		memcpy(c->a + c->cnt * 4, &h, 4);
	} else {
		memcpy(c->a + c->cnt * 16, b, 16);
	}
	c->cnt++;
	return 0;
}

/* The addresses of the text @src (@len bytes) or, with @text false, of the file @src. */
static int
addrs_read(bool text, const char *src, size_t len, const char *name, int family, void **out, size_t *n)
{
	struct addr_ctx c = { 0 };
	int rc = file_begin(&c.f, name, family, src != NULL && out != NULL && n != NULL);

	if (rc != 0)
		return rc;
	rc = file_each(&c.f, text ? src : NULL, len, "lookup files", VPK_FIB_FILE_MAX_LOOKUPS, addr_line, &c);
	if (parse_done(&c.f, rc, c.a) == 0) {
		*out = c.a;
		*n = c.cnt;
	}
	return rc;
}

int
vpk_fib_file_parse_addrs(const char *text, size_t len, const char *name, int family,
			 void **out, size_t *n)
{
	return addrs_read(true, text, len, name, family, out, n);
}

int
vpk_fib_file_load_addrs(const char *path, int family, void **out, size_t *n)
{
	return addrs_read(false, path, 0, path, family, out, n);
}

void
vpk_fib_file_free_routes(struct vpk_fib_file_routes *rt)
{
	free(rt->r);
	rt->r = NULL;
	rt->n = 0;
}
