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

#endif
