/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * JSON reader (jread.h): recursive descent over the text, depth-limited,
 * one allocation per string and per array/object item list.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "common/libvpk_internal.h"
#include "common/jread.h"

#define MAX_DEPTH 64

struct jp {
	const char *p;
	unsigned line;
	char *err;
	size_t errlen;
	bool failed;
};

static void
fail(struct jp *j, const char *fmt, ...)
{
	if (j->failed)
		return;
	j->failed = true;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(j->err, j->errlen, fmt, ap);
	va_end(ap);
}

static void
ws(struct jp *j)
{
	for (; *j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'; j->p++)
		if (*j->p == '\n')
			j->line++;
}

static void free_inner(struct jval *v);

static char *
parse_string(struct jp *j)
{
	/* j->p at the opening quote */
	const char *s = ++j->p;
	size_t cap = 16, n = 0;
	char *out = malloc(cap);
	if (!out) {
		fail(j, "out of memory");
		return NULL;
	}
	for (;;) {
		char c = *s++;
		if (c == '\0' || c == '\n') {
			fail(j, "unterminated string");
			free(out);
			return NULL;
		}
		if (c == '"')
			break;
		if ((unsigned char)c < 0x20) {
			fail(j, "control character in string");
			free(out);
			return NULL;
		}
		if (c == '\\') {
			char e = *s++;
			switch (e) {
			case '"': case '\\': case '/': c = e; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u': {
				unsigned v = 0;
				for (int i = 0; i < 4; i++) {
					char h = *s++;
					v <<= 4;
					if (h >= '0' && h <= '9') v |= (unsigned)(h - '0');
					else if (h >= 'a' && h <= 'f') v |= (unsigned)(h - 'a' + 10);
					else if (h >= 'A' && h <= 'F') v |= (unsigned)(h - 'A' + 10);
					else {
						fail(j, "bad \\u escape");
						free(out);
						return NULL;
					}
				}
				c = v < 0x80 ? (char)v : '?';
				break;
			}
			default:
				fail(j, "bad escape '\\%c'", e);
				free(out);
				return NULL;
			}
		}
		if (n + 2 > cap) {
			char *t = realloc(out, cap *= 2);
			if (!t) {
				free(out);
				fail(j, "out of memory");
				return NULL;
			}
			out = t;
		}
		out[n++] = c;
	}
	out[n] = '\0';
	j->p = s;
	return out;
}

static bool parse_value(struct jp *j, struct jval *v, int depth);

static bool
push(struct jp *j, struct jval *v, size_t *cap)
{
	if (v->n < *cap)
		return true;
	size_t nc = *cap ? *cap * 2 : 8;
	struct jval *it = realloc(v->items, nc * sizeof(*it));
	if (!it) {
		fail(j, "out of memory");
		return false;
	}
	v->items = it;
	if (v->type == J_OBJ) {
		char **k = realloc(v->keys, nc * sizeof(*k));
		if (!k) {
			fail(j, "out of memory");
			return false;
		}
		v->keys = k;
	}
	*cap = nc;
	return true;
}

static bool
parse_container(struct jp *j, struct jval *v, int depth)
{
	char close = v->type == J_OBJ ? '}' : ']';
	size_t cap = 0;
	j->p++;
	ws(j);
	if (*j->p == close) {
		j->p++;
		return true;
	}
	for (;;) {
		ws(j);
		if (!push(j, v, &cap))
			return false;
		if (v->type == J_OBJ) {
			if (*j->p != '"') {
				fail(j, "expected a member name");
				return false;
			}
			char *k = parse_string(j);
			if (!k)
				return false;
			v->keys[v->n] = k;
			ws(j);
			if (*j->p != ':') {
				fail(j, "expected ':' after \"%s\"", k);
				free(k);
				return false;
			}
			j->p++;
		}
		memset(&v->items[v->n], 0, sizeof(v->items[0]));
		if (!parse_value(j, &v->items[v->n], depth + 1)) {
			if (v->type == J_OBJ)
				free(v->keys[v->n]);
			free_inner(&v->items[v->n]);
			return false;
		}
		v->n++;
		ws(j);
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p == close) {
			j->p++;
			return true;
		}
		fail(j, "expected ',' or '%c'", close);
		return false;
	}
}

static bool
parse_value(struct jp *j, struct jval *v, int depth)
{
	ws(j);
	v->line = j->line;
	if (depth > MAX_DEPTH) {
		fail(j, "nested too deeply");
		return false;
	}
	char c = *j->p;
	if (c == '{' || c == '[') {
		v->type = c == '{' ? J_OBJ : J_ARR;
		return parse_container(j, v, depth);
	}
	if (c == '"') {
		v->type = J_STR;
		v->str = parse_string(j);
		return v->str != NULL;
	}
	if (strncmp(j->p, "true", 4) == 0 || strncmp(j->p, "false", 5) == 0) {
		v->type = J_BOOL;
		v->num = c == 't';
		j->p += c == 't' ? 4 : 5;
		return true;
	}
	if (strncmp(j->p, "null", 4) == 0) {
		v->type = J_NULL;
		j->p += 4;
		return true;
	}
	if (c == '-' || (c >= '0' && c <= '9')) {
		/* The number's extent, then the one number parser on all of it:
		 * "1.2.3", "1e999" and "-" are errors, not a prefix or infinity. */
		size_t n = strspn(j->p, "+-.eE0123456789");
		char why[120];
		v->type = J_NUM;
		if (vpk_num_f64n(j->p, n, -DBL_MAX, DBL_MAX, &v->num, why, sizeof(why)) != 0) {
			fail(j, "%s", why);
			return false;
		}
		j->p += n;
		return true;
	}
	fail(j, c ? "unexpected '%c'" : "unexpected end of input", c);
	return false;
}

struct jval *
jread_parse(const char *text, char *err, size_t errlen, unsigned *err_line)
{
	struct jp j = { text, 1, err, errlen, false };
	*err_line = 0;
	struct jval *v = calloc(1, sizeof(*v));
	if (!v) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (parse_value(&j, v, 0)) {
		ws(&j);
		if (*j.p == '\0')
			return v;
		fail(&j, "trailing characters");
	}
	*err_line = j.line;
	jread_free(v);
	return NULL;
}

const struct jval *
jread_get(const struct jval *o, const char *key)
{
	if (!o || o->type != J_OBJ)
		return NULL;
	for (size_t i = 0; i < o->n; i++)
		if (strcmp(o->keys[i], key) == 0)
			return &o->items[i];
	return NULL;
}

static void
free_inner(struct jval *v)
{
	if (v->type == J_STR)
		free(v->str);
	for (size_t i = 0; i < v->n; i++) {
		free_inner(&v->items[i]);
		if (v->type == J_OBJ)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	v->items = NULL;
	v->keys = NULL;
	v->str = NULL;
	v->n = 0;
}

void
jread_free(struct jval *v)
{
	if (!v)
		return;
	free_inner(v);
	free(v);
}
