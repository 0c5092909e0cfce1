/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_SCAN_DEPS_H
#define VPK_TOOL_SCAN_DEPS_H

/* Library search of `vpk scan --deps` (scan_deps.c). */
#include <stddef.h>
#include <vpk/scan.h>

/*
 * Find DT_NEEDED entry @name of the object @obj (scanned from @obj_path) as
 * ld.so would; @root_rpath is the DT_RPATH of the executable at the root of
 * the tree (or NULL). Writes the path to @out. Returns 0 or -ENOENT.
 */
int deps_resolve(const char *name, const struct vpk_scan_report *obj, const char *obj_path,
		 const char *root_rpath, char *out, size_t outlen);

/* Free the parsed `ldconfig -p` cache. */
void deps_free_cache(void);

#endif
