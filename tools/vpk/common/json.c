/* SPDX-License-Identifier: BSD-3-Clause */
/* Streaming JSON writer for --json output (see json.h). */
#include <math.h>

#include "common/json.h"

void
json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
	j->pretty = true;
}

static void
indent(struct json *j)
{
	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

static void
put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void
begin_value(struct json *j, const char *key)
{
	if (j->depth > 0) {
		if (!j->first[j->depth])
			fputc(',', j->f);
		indent(j);
	}
	j->first[j->depth] = false;
	if (key != NULL) {
		put_string(j->f, key);
		fputs(j->pretty ? ": " : ":", j->f);
	}
}

static void
open_container(struct json *j, const char *key, char c)
{
	begin_value(j, key);
	fputc(c, j->f);
	if (j->depth < 63)
		j->depth++;
	j->first[j->depth] = true;
	j->close[j->depth] = c == '{' ? '}' : ']';
}

void
json_obj(struct json *j, const char *key)
{
	open_container(j, key, '{');
}

void
json_arr(struct json *j, const char *key)
{
	open_container(j, key, '[');
}

void
json_end(struct json *j)
{
	bool empty = j->first[j->depth];
	char c = j->close[j->depth];

	if (j->depth == 0)
		return;
	j->depth--;
	if (!empty)
		indent(j);
	fputc(c, j->f);
}

void
json_str(struct json *j, const char *key, const char *v)
{
	begin_value(j, key);
	if (v == NULL)
		fputs("null", j->f);
	else
		put_string(j->f, v);
}

void
json_u64(struct json *j, const char *key, uint64_t v)
{
	begin_value(j, key);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void
json_i64(struct json *j, const char *key, int64_t v)
{
	begin_value(j, key);
	fprintf(j->f, "%lld", (long long)v);
}

void
json_dbl(struct json *j, const char *key, double v)
{
	begin_value(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.6g", v);
	else
		fputs("null", j->f);
}

void
json_bool(struct json *j, const char *key, bool v)
{
	begin_value(j, key);
	fputs(v ? "true" : "false", j->f);
}

void
json_null(struct json *j, const char *key)
{
	begin_value(j, key);
	fputs("null", j->f);
}

void
json_done(struct json *j)
{
	fputc('\n', j->f);
}

void
json_doc_arr(struct json *j, FILE *f, const char *key)
{
	json_init(j, f);
	json_obj(j, NULL);
	json_arr(j, key);
}

void
json_close(struct json *j)
{
	while (j->depth > 0)
		json_end(j);
	json_done(j);
}

void
json_fieldv(struct json *j, const struct json_field *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		switch (f[i].type) {
		case 'u': json_u64(j, f[i].key, f[i].v.u); break;
		case 'i': json_i64(j, f[i].key, f[i].v.i); break;
		case 'd': json_dbl(j, f[i].key, f[i].v.d); break;
		case 's': json_str(j, f[i].key, f[i].v.s); break;
		default: json_bool(j, f[i].key, f[i].v.b); break;
		}
	}
}

void
json_recordv(struct json *j, const char *key, const struct json_field *f, size_t n)
{
	json_obj(j, key);
	json_fieldv(j, f, n);
	json_end(j);
}
