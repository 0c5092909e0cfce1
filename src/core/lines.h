/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_CORE_LINES_H
#define VPK_CORE_LINES_H

/*
 * Streaming reader of untrusted text files, one line at a time (internal).
 * Memory stays at one line whatever the file holds: a file larger than its
 * cap is refused before its first line when its size is known (a regular
 * file; the error names the cap and what it applies to), and while reading
 * otherwise (a pipe); a line longer than the line cap, or holding a NUL
 * byte, is an error naming FILE:LINE. Text files never hold NUL bytes, so
 * one is a sign of a binary or corrupt file, never a blank.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define VPK_MIB (UINT64_C(1) << 20)

struct vpk_lines {
	FILE *f;
	const char *name;       /* for messages: the path, or "<stdin>" */
	const char *what;       /* "rule files": what the cap applies to */
	uint64_t max_file;      /* bytes */
	size_t max_line;        /* bytes, without the newline */
	uint64_t total;         /* bytes read so far */
	size_t lineno;          /* number of the line last returned (1-based) */
	char *buf;
	bool own;               /* f was opened here */
};

/*
 * Open @path ("-": stdin) for reading; @what names the kind of file in the
 * size error ("rule files"). Returns 0 or a negative errno with the reason
 * ("PATH: cannot open: ...", "PATH: larger than the 256 MiB cap on rule
 * files") in err.
 */
int vpk_lines_open(struct vpk_lines *l, const char *path, const char *what, uint64_t max_file, size_t max_line,
		   char *err, size_t len);
/* The same over an open stream (not closed by vpk_lines_close()). */
int vpk_lines_from(struct vpk_lines *l, FILE *f, const char *name, const char *what, uint64_t max_file,
		   size_t max_line, char *err, size_t len);
/*
 * Next line, NUL-terminated, without its '\n' (valid until the next call).
 * Returns 1 with a line, 0 at the end, or a negative errno with
 * "NAME:LINE: reason" in err.
 */
int vpk_lines_next(struct vpk_lines *l, char **line, size_t *n, char *err, size_t len);
void vpk_lines_close(struct vpk_lines *l);

/*
 * Call fn(arg, start, end, lineno) for each line (without '\n') of a buffer,
 * or of a file read with the reader above; stop at the first non-zero
 * return and return it. A NUL byte in a buffer line is an error too.
 */
typedef int vpk_line_fn(void *arg, const char *p, const char *e, size_t lineno);
int vpk_lines_each_buf(const char *buf, size_t size, const char *name, vpk_line_fn *fn, void *arg,
		       char *err, size_t len);
int vpk_lines_each_file(const char *path, const char *what, uint64_t max_file, size_t max_line, vpk_line_fn *fn,
			void *arg, char *err, size_t len);

/*
 * True when both paths name one existing file (same st_dev and st_ino, so
 * also through other paths, symbolic and hard links). A run that reads one
 * and writes the other would truncate its own input before reading it.
 */
bool vpk_same_file(const char *a, const char *b);

/* "256 MiB" / "1 GiB" / "64 KiB" for a cap in messages and usage texts. */
const char *vpk_lines_size_str(uint64_t bytes, char *buf, size_t len);

#endif /* VPK_CORE_LINES_H */
