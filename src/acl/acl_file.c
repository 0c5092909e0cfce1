/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rule and trace files in dpdk-test-acl / ClassBench / l3fwd formats
 * (include/vpk/acl_file.h has the grammar). Everything is parsed into a
 * private array first; only a fully valid input is handed out. Files are
 * read one line at a time (core/lines.h) under the caps of acl_file.h, so
 * a huge or binary file costs one line of memory before it is refused.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/acl_file.h>

#include "core/errf.h"
#include "core/lines.h"
#include "core/num.h"

#define MAXTOK 16

static int
ferr(char *why, size_t len, int rc, const char *name, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (why == NULL || len == 0)
		return rc;
	k = snprintf(why, len, "%s:%u: ", name, line);
	if (k >= 0 && (size_t)k < len) {
		va_start(ap, fmt);
		vsnprintf(why + k, len - (size_t)k, fmt, ap);
		va_end(ap);
	}
	return rc;
}

/* Split [p, end) into blank-separated tokens (NUL-terminated copies in buf). */
static unsigned
tokenize(const char *p, const char *end, char *buf, size_t bufsz, char **tok)
{
	unsigned n = 0;
	size_t o = 0;

	while (p < end) {
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		if (p >= end)
			break;
		if (n == MAXTOK)
			break;
		tok[n++] = buf + o;
		while (p < end && *p != ' ' && *p != '\t' && *p != '\r' && o + 1 < bufsz)
			buf[o++] = *p++;
		while (p < end && *p != ' ' && *p != '\t' && *p != '\r')
			p++;            /* over-long token: truncated, then rejected by its parser */
		buf[o++] = 0;
		if (o >= bufsz)
			break;
	}
	return n;
}

/* Unsigned number (core/num.h rules: decimal or 0x hex), whole token, <= max. */
static bool
num(const char *t, uint64_t max, uint64_t *v)
{
	return vpk_num_u64(t, 0, max, v, NULL, 0) == 0;
}

static bool
addr(const char *t, bool ipv6, uint8_t *out)
{
	uint8_t tmp[16];

	if (inet_pton(ipv6 ? AF_INET6 : AF_INET, t, tmp) != 1)
		return false;
	memcpy(out, tmp, ipv6 ? 16 : 4);
	return true;
}

static bool
prefix(char *t, bool ipv6, uint8_t *a, uint8_t *plen)
{
	char *slash = strchr(t, '/');
	uint64_t l;

	if (slash == NULL)
		return false;
	*slash = 0;
	if (!addr(t, ipv6, a) || !num(slash + 1, ipv6 ? 128 : 32, &l)) {
		*slash = '/';   /* the error message shows the whole token */
		return false;
	}
	*plen = (uint8_t)l;
	return true;
}

static int
parse_rule_line(char **tok, unsigned nt, bool ipv6, bool route, struct vpk_acl5_rule *r,
		const char *name, unsigned line, char *why, size_t len)
{
	uint64_t a, b, c, d;
	char *slash;

	memset(r, 0, sizeof(*r));
	r->port = -1;
	if (nt < 9 + (route ? 1u : 0u))
		return ferr(why, len, -EINVAL, name, line, "%u fields, expected %u (src/len dst/len lo : hi lo : hi proto/mask%s)",
			    nt, 9 + (route ? 1 : 0), route ? " port" : "");
	if (!prefix(tok[0], ipv6, r->src, &r->src_len))
		return ferr(why, len, -EINVAL, name, line, "bad source prefix '%s' (IPv%d address/length)",
			    tok[0], ipv6 ? 6 : 4);
	if (!prefix(tok[1], ipv6, r->dst, &r->dst_len))
		return ferr(why, len, -EINVAL, name, line, "bad destination prefix '%s' (IPv%d address/length)",
			    tok[1], ipv6 ? 6 : 4);
	if (strcmp(tok[3], ":") != 0 || strcmp(tok[6], ":") != 0)
		return ferr(why, len, -EINVAL, name, line, "port ranges must be written 'lo : hi' with ':' as its own token");
	if (!num(tok[2], 65535, &a) || !num(tok[4], 65535, &b))
		return ferr(why, len, -EINVAL, name, line, "bad source port range '%s : %s'", tok[2], tok[4]);
	if (!num(tok[5], 65535, &c) || !num(tok[7], 65535, &d))
		return ferr(why, len, -EINVAL, name, line, "bad destination port range '%s : %s'", tok[5], tok[7]);
	if (a > b)
		return ferr(why, len, -EINVAL, name, line, "source port range %llu > %llu", (unsigned long long)a,
			    (unsigned long long)b);
	if (c > d)
		return ferr(why, len, -EINVAL, name, line, "destination port range %llu > %llu",
			    (unsigned long long)c, (unsigned long long)d);
	r->sport_lo = (uint16_t)a, r->sport_hi = (uint16_t)b;
	r->dport_lo = (uint16_t)c, r->dport_hi = (uint16_t)d;
	slash = strchr(tok[8], '/');
	if (slash == NULL)
		return ferr(why, len, -EINVAL, name, line, "bad protocol '%s' (proto/mask)", tok[8]);
	*slash = 0;
	if (!num(tok[8], 255, &a) || !num(slash + 1, 255, &b))
		return ferr(why, len, -EINVAL, name, line, "bad protocol '%s/%s' (values 0..255)", tok[8], slash + 1);
	r->proto = (uint8_t)a, r->proto_mask = (uint8_t)b;
	if (route) {
		if (!num(tok[9], 0x7fffffff, &a))
			return ferr(why, len, -EINVAL, name, line, "bad route port '%s'", tok[9]);
		r->port = (int32_t)a;
	}
	return 0;
}

/* A rule or trace parse: the records so far (r or p) and where errors go. */
struct pctx {
	const char *name;
	bool ipv6;
	enum vpk_acl5_format fmt;       /* rules only */
	uint32_t max;
	struct vpk_acl5_rule *r;
	struct vpk_acl5_pkt *p;
	uint32_t n, cap;
	char *why;
	size_t len;
};

/* The line's first non-blank character, or NULL for a blank or '#' line. */
static const char *
line_body(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p == e || *p == '#' ? NULL : p;
}

/* @p arr (c->n of c->cap records of @p size bytes used) with room for one more, or NULL. */
static void *
room(struct pctx *c, void *arr, size_t size, uint32_t first_cap)
{
	uint32_t ncap;
	void *na;

	if (c->n < c->cap)
		return arr;
	ncap = c->cap ? c->cap * 2 : first_cap;
	na = realloc(arr, (size_t)ncap * size);
	if (na != NULL)
		c->cap = ncap;
	return na;
}

/* The end of a parse: 0 with the count in @p n, or an error (named when out of memory) with @p arr freed. */
static int
parse_done(struct pctx *c, int rc, void *arr, uint32_t *n)
{
	if (rc < 0) {
		if (rc == -ENOMEM)
			ferr(c->why, c->len, rc, c->name, 0, "out of memory");
		free(arr);
		return rc;
	}
	*n = c->n;
	return 0;
}

static int
rule_line(void *arg, const char *p, const char *e, size_t lineno)
{
	unsigned ln = (unsigned)lineno;
	struct pctx *c = arg;
	struct vpk_acl5_rule *r;
	char buf[1024], *tok[MAXTOK];
	unsigned nt;
	bool route = false;
	int rc;

	if ((p = line_body(p, e)) == NULL)
		return 0;
	if (*p == 'R' && c->fmt != VPK_ACL5_CLASSBENCH)
		route = true;
	else if (*p != '@')
		return ferr(c->why, c->len, -EINVAL, c->name, ln, "line starts with '%c'; expected %s",
			    *p, c->fmt != VPK_ACL5_CLASSBENCH ? "'R', '@' or '#'" : "'@' or '#'");
	if (c->max != 0 && c->n >= c->max)
		return ferr(c->why, c->len, -E2BIG, c->name, ln, "more than %u rules", c->max);
	nt = tokenize(p + 1, e, buf, sizeof(buf), tok);
	if ((r = room(c, c->r, sizeof(*r), 1024)) == NULL)
		return -ENOMEM;
	c->r = r;
	rc = parse_rule_line(tok, nt, c->ipv6, route, &c->r[c->n], c->name, ln, c->why, c->len);
	if (rc == 0)
		c->n++;
	return rc;
}

/* The end of a rule parse: the l3fwd check, then hand out or free. */
static int
rules_done(struct pctx *c, int rc, struct vpk_acl5_rule **out, uint32_t *n)
{
	if (rc == 0 && c->fmt == VPK_ACL5_L3FWD) {
		bool any = false;

		for (uint32_t i = 0; i < c->n && !any; i++)
			any = c->r[i].port >= 0;
		if (!any)
			rc = ferr(c->why, c->len, -EINVAL, c->name, 0, "no route ('R') line; l3fwd needs at least one");
	}
	rc = parse_done(c, rc, c->r, n);
	if (rc == 0)
		*out = c->r;
	return rc;
}

int
vpk_acl5_parse_rules(const char *buf, size_t size, const char *name, bool ipv6,
		     enum vpk_acl5_format fmt, uint32_t max, struct vpk_acl5_rule **out,
		     uint32_t *n)
{
	char *why = vpk_errbuf();
	size_t len = VPK_ERR_LEN;
	struct pctx c = { .name = name ? name : "-", .ipv6 = ipv6, .fmt = fmt, .max = max,
			  .why = why, .len = len };

	why[0] = '\0';  /* no stale reason on a failure without one */
	if ((buf == NULL && size > 0) || out == NULL || n == NULL || (unsigned)fmt > VPK_ACL5_AUTO)
		return -EINVAL;
	return rules_done(&c, vpk_lines_each_buf(buf, size, c.name, rule_line, &c, why, len), out, n);
}

static int
trace_line(void *arg, const char *p, const char *e, size_t lineno)
{
	unsigned ln = (unsigned)lineno;
	struct pctx *c = arg;
	char buf[512], *tok[MAXTOK];
	unsigned nt;
	uint64_t v;
	struct vpk_acl5_pkt *k;

	if ((p = line_body(p, e)) == NULL)
		return 0;
	if (c->max != 0 && c->n >= c->max)
		return 1;       /* enough: stop quietly, like --tracenum */
	nt = tokenize(p, e, buf, sizeof(buf), tok);
	if (nt < 5)
		return ferr(c->why, c->len, -EINVAL, c->name, ln,
			    "%u fields, expected src dst sport dport proto [expected]", nt);
	if ((k = room(c, c->p, sizeof(*k), 4096)) == NULL)
		return -ENOMEM;
	c->p = k;
	k = &c->p[c->n];
	memset(k, 0, sizeof(*k));
	for (int a = 0; a < 2; a++) {
		uint8_t *dst = a ? k->dst : k->src;

		if (c->ipv6) {
			if (!addr(tok[a], true, dst))
				return ferr(c->why, c->len, -EINVAL, c->name, ln, "bad IPv6 %s address '%s'",
					    a ? "destination" : "source", tok[a]);
		} else {
			if (!num(tok[a], UINT32_MAX, &v))
				return ferr(c->why, c->len, -EINVAL, c->name, ln,
					    "bad IPv4 %s address '%s' (an unsigned 32-bit integer)",
					    a ? "destination" : "source", tok[a]);
			dst[0] = (uint8_t)(v >> 24), dst[1] = (uint8_t)(v >> 16);
			dst[2] = (uint8_t)(v >> 8), dst[3] = (uint8_t)v;
		}
	}
	if (!num(tok[2], 65535, &v))
		return ferr(c->why, c->len, -EINVAL, c->name, ln, "bad source port '%s'", tok[2]);
	k->sport = (uint16_t)v;
	if (!num(tok[3], 65535, &v))
		return ferr(c->why, c->len, -EINVAL, c->name, ln, "bad destination port '%s'", tok[3]);
	k->dport = (uint16_t)v;
	if (!num(tok[4], 255, &v))
		return ferr(c->why, c->len, -EINVAL, c->name, ln, "bad protocol '%s'", tok[4]);
	k->proto = (uint8_t)v;
	if (nt >= 6) {
		if (!num(tok[5], UINT32_MAX, &v))
			return ferr(c->why, c->len, -EINVAL, c->name, ln, "bad expected result '%s'", tok[5]);
		k->has_expected = true;
		k->expected = (uint32_t)v;
	}
	c->n++;
	return 0;
}

static int
trace_done(struct pctx *c, int rc, struct vpk_acl5_pkt **out, uint32_t *n)
{
	rc = parse_done(c, rc, c->p, n);
	if (rc == 0)
		*out = c->p;
	return rc;
}

int
vpk_acl5_parse_trace(const char *buf, size_t size, const char *name, bool ipv6, uint32_t max,
		     struct vpk_acl5_pkt **out, uint32_t *n)
{
	char *why = vpk_errbuf();
	size_t len = VPK_ERR_LEN;
	struct pctx c = { .name = name ? name : "-", .ipv6 = ipv6, .max = max, .why = why, .len = len };

	why[0] = '\0';  /* no stale reason on a failure without one */
	if ((buf == NULL && size > 0) || out == NULL || n == NULL)
		return -EINVAL;
	return trace_done(&c, vpk_lines_each_buf(buf, size, c.name, trace_line, &c, why, len), out, n);
}

int
vpk_acl5_load_rules(const char *path, bool ipv6, enum vpk_acl5_format fmt, uint32_t max,
		    struct vpk_acl5_rule **out, uint32_t *n)
{
	char *why = vpk_errbuf();
	size_t len = VPK_ERR_LEN;
	struct pctx c = { .name = path != NULL && strcmp(path, "-") == 0 ? "<stdin>" : path, .ipv6 = ipv6,
			  .fmt = fmt, .max = max, .why = why, .len = len };

	why[0] = '\0';  /* no stale reason on a failure without one */
	if (path == NULL || out == NULL || n == NULL || (unsigned)fmt > VPK_ACL5_AUTO)
		return -EINVAL;
	return rules_done(&c, vpk_lines_each_file(path, "rule files", VPK_ACL5_MAX_RULE_FILE, VPK_ACL5_MAX_LINE,
						  rule_line, &c, why, len),
			  out, n);
}

int
vpk_acl5_load_trace(const char *path, bool ipv6, uint32_t max, struct vpk_acl5_pkt **out,
		    uint32_t *n)
{
	char *why = vpk_errbuf();
	size_t len = VPK_ERR_LEN;
	struct pctx c = { .name = path != NULL && strcmp(path, "-") == 0 ? "<stdin>" : path, .ipv6 = ipv6,
			  .max = max, .why = why, .len = len };

	why[0] = '\0';  /* no stale reason on a failure without one */
	if (path == NULL || out == NULL || n == NULL)
		return -EINVAL;
	return trace_done(&c, vpk_lines_each_file(path, "trace files", VPK_ACL5_MAX_TRACE_FILE, VPK_ACL5_MAX_LINE,
						  trace_line, &c, why, len),
			  out, n);
}

int
vpk_acl5_write_rules(FILE *f, const struct vpk_acl5_rule *r, uint32_t n, bool ipv6)
{
	char s[64], d[64];

	for (uint32_t i = 0; i < n; i++) {
		inet_ntop(ipv6 ? AF_INET6 : AF_INET, r[i].src, s, sizeof(s));
		inet_ntop(ipv6 ? AF_INET6 : AF_INET, r[i].dst, d, sizeof(d));
		fprintf(f, "%c%s/%u\t%s/%u\t%u : %u\t%u : %u\t0x%02x/0x%02x", r[i].port >= 0 ? 'R' : '@',
			s, r[i].src_len, d, r[i].dst_len, r[i].sport_lo, r[i].sport_hi, r[i].dport_lo,
			r[i].dport_hi, r[i].proto, r[i].proto_mask);
		if (r[i].port >= 0)
			fprintf(f, "\t%d", r[i].port);
		fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}

int
vpk_acl5_write_trace(FILE *f, const struct vpk_acl5_pkt *p, uint32_t n, bool ipv6)
{
	char s[64], d[64];

	for (uint32_t i = 0; i < n; i++) {
		if (ipv6) {
			inet_ntop(AF_INET6, p[i].src, s, sizeof(s));
			inet_ntop(AF_INET6, p[i].dst, d, sizeof(d));
		} else {
			snprintf(s, sizeof(s), "%u", (uint32_t)p[i].src[0] << 24 | (uint32_t)p[i].src[1] << 16 |
				 (uint32_t)p[i].src[2] << 8 | p[i].src[3]);
			snprintf(d, sizeof(d), "%u", (uint32_t)p[i].dst[0] << 24 | (uint32_t)p[i].dst[1] << 16 |
				 (uint32_t)p[i].dst[2] << 8 | p[i].dst[3]);
		}
		fprintf(f, "%s\t%s\t%u\t%u\t%u", s, d, p[i].sport, p[i].dport, p[i].proto);
		if (p[i].has_expected)
			fprintf(f, "\t%u", p[i].expected);
		fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}
