/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_JSON_H
#define VPK_TOOL_JSON_H

/*
 * A small streaming JSON writer for the tools' --json output. It tracks
 * nesting and commas; strings are escaped. Usage:
 *
 *     struct json j; json_init(&j, stdout);
 *     json_obj(&j, NULL);  json_str(&j, "cpu", model);  json_u64(&j, "cap", 512);
 *     json_arr(&j, "levels"); ... json_end(&j);  json_end(&j);  json_done(&j);
 *
 * A NULL key is for values inside arrays (and the top-level value).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json {
	FILE *f;
	int depth;
	bool first[64];
	char close[64];        /* closing bracket per depth */
	bool pretty;
};

void json_init(struct json *j, FILE *f);
void json_obj(struct json *j, const char *key);
void json_arr(struct json *j, const char *key);
void json_end(struct json *j);
void json_str(struct json *j, const char *key, const char *v);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_i64(struct json *j, const char *key, int64_t v);
void json_dbl(struct json *j, const char *key, double v);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);
void json_done(struct json *j);
/* Start a document that is an object holding the array @key: {"key": [ ... */
void json_doc_arr(struct json *j, FILE *f, const char *key);
/* Close every open array and object, then json_done(). */
void json_close(struct json *j);

/*
 * Several fields of one object in one call, in order:
 *
 *     json_fields(j, JU("rx", s.rx), JS("name", s.name), JD("cpu_s", t));
 *
 * JU/JI/JD/JS/JB are json_u64/i64/dbl/str/bool: the value converts as it
 * would as that function's argument.
 */
struct json_field {
	const char *key;
	char type;
	union {
		uint64_t u;
		int64_t i;
		double d;
		const char *s;
		bool b;
	} v;
};
#define JU(k, x) { (k), 'u', { .u = (x) } }
#define JI(k, x) { (k), 'i', { .i = (x) } }
#define JD(k, x) { (k), 'd', { .d = (x) } }
#define JS(k, x) { (k), 's', { .s = (x) } }
#define JB(k, x) { (k), 'b', { .b = (x) } }
#define json_fields(j, ...)                                            \
	json_fieldv((j), (const struct json_field[]){ __VA_ARGS__ },    \
		    sizeof((const struct json_field[]){ __VA_ARGS__ }) / sizeof(struct json_field))
void json_fieldv(struct json *j, const struct json_field *f, size_t n);
/* The object @key holding just the fields: json_obj(), json_fields(), json_end(). */
#define json_record(j, key, ...)                                            \
	json_recordv((j), (key), (const struct json_field[]){ __VA_ARGS__ }, \
		     sizeof((const struct json_field[]){ __VA_ARGS__ }) / sizeof(struct json_field))
void json_recordv(struct json *j, const char *key, const struct json_field *f, size_t n);

#endif
