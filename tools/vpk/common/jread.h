/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_JREAD_H
#define VPK_TOOL_JREAD_H

/*
 * A small JSON reader for the tools' inputs (vpk powersim --from-runtime):
 * parses a whole document into a tree. Errors carry the line number. Strings
 * are kept as UTF-8 with escapes decoded (\uXXXX above 0x7f becomes '?').
 */
#include <stddef.h>

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jval {
	enum jtype type;
	unsigned line;          /* line of the value's first character */
	double num;             /* J_NUM, J_BOOL (0/1) */
	char *str;              /* J_STR */
	size_t n;               /* J_ARR, J_OBJ: number of items */
	struct jval *items;     /* J_ARR, J_OBJ */
	char **keys;            /* J_OBJ */
};

/* Parse @text. On error returns NULL, the reason in @err and its line in *err_line. */
struct jval *jread_parse(const char *text, char *err, size_t errlen, unsigned *err_line);
/* Member @key of object @o, or NULL. */
const struct jval *jread_get(const struct jval *o, const char *key);
void jread_free(struct jval *v);

#endif
