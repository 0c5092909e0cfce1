/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk_lines: bounded streaming line reader (lines.h). Workload: rule,
 * route, trace and configuration files of up to a few hundred MiB, read
 * once; getc_unlocked() keeps the byte loop cheap without a second buffer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/errf.h"
#include "core/lines.h"

const char *
vpk_lines_size_str(uint64_t b, char *buf, size_t len)
{
	if (b >= (UINT64_C(1) << 30) && b % (UINT64_C(1) << 30) == 0)
		snprintf(buf, len, "%llu GiB", (unsigned long long)(b >> 30));
	else if (b >= VPK_MIB && b % VPK_MIB == 0)
		snprintf(buf, len, "%llu MiB", (unsigned long long)(b >> 20));
	else if (b >= 1024 && b % 1024 == 0)
		snprintf(buf, len, "%llu KiB", (unsigned long long)(b >> 10));
	else
		snprintf(buf, len, "%llu bytes", (unsigned long long)b);
	return buf;
}

bool
vpk_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return a != NULL && b != NULL && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

static int
too_big(const struct vpk_lines *l, char *err, size_t len)
{
	char cap[32];

	return vpk_errf(err, len, -EFBIG, "%s: larger than the %s cap on %s", l->name,
			vpk_lines_size_str(l->max_file, cap, sizeof(cap)), l->what);
}

int
vpk_lines_from(struct vpk_lines *l, FILE *f, const char *name, const char *what, uint64_t max_file,
	       size_t max_line, char *err, size_t len)
{
	struct stat st;

	memset(l, 0, sizeof(*l));
	l->f = f;
	l->name = name;
	l->what = what;
	l->max_file = max_file;
	l->max_line = max_line;
	/* A regular file's size is known: refuse it before reading a byte. */
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > max_file)
		return too_big(l, err, len);
	l->buf = malloc(max_line + 1);
	if (l->buf == NULL)
		return vpk_errf(err, len, -ENOMEM, "%s: out of memory", name);
	return 0;
}

int
vpk_lines_open(struct vpk_lines *l, const char *path, const char *what, uint64_t max_file, size_t max_line,
	       char *err, size_t len)
{
	bool in = strcmp(path, "-") == 0;
	FILE *f = in ? stdin : fopen(path, "rb");
	int rc;

	if (f == NULL) {
		rc = -errno;
		memset(l, 0, sizeof(*l));
		return vpk_errf(err, len, rc, "%s: cannot open: %s", path, strerror(-rc));
	}
	rc = vpk_lines_from(l, f, in ? "<stdin>" : path, what, max_file, max_line, err, len);
	l->own = !in;
	if (rc != 0)
		vpk_lines_close(l);
	return rc;
}

int
vpk_lines_next(struct vpk_lines *l, char **line, size_t *n, char *err, size_t len)
{
	size_t k = 0;
	int c = EOF;

	if (l->buf == NULL)
		return -EINVAL;
	while ((c = getc_unlocked(l->f)) != EOF && c != '\n') {
		if (++l->total > l->max_file)
			return too_big(l, err, len);
		if (c == '\0')
			return vpk_errf(err, len, -EINVAL, "%s:%zu: NUL byte at column %zu (not a text file?)", l->name,
					l->lineno + 1, k + 1);
		if (k == l->max_line)
			return vpk_errf(err, len, -EINVAL, "%s:%zu: line longer than %zu bytes", l->name,
					l->lineno + 1, l->max_line);
		l->buf[k++] = (char)c;
	}
	if (ferror(l->f))
		return vpk_errf(err, len, -EIO, "%s:%zu: read error", l->name, l->lineno + 1);
	if (c == EOF && k == 0)
		return 0;
	if (c == '\n' && ++l->total > l->max_file)
		return too_big(l, err, len);
	l->buf[k] = '\0';
	l->lineno++;
	*line = l->buf;
	*n = k;
	return 1;
}

void
vpk_lines_close(struct vpk_lines *l)
{
	if (l->own && l->f != NULL)
		fclose(l->f);
	free(l->buf);
	l->buf = NULL;
	l->f = NULL;
}

int
vpk_lines_each_buf(const char *buf, size_t size, const char *name, vpk_line_fn *fn, void *arg, char *err,
		   size_t len)
{
	const char *p = buf, *end = buf + size;
	size_t ln = 0;

	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		const char *nul;
		int rc;

		if (e == NULL)
			e = end;
		ln++;
		nul = memchr(p, '\0', (size_t)(e - p));
		if (nul != NULL)
			return vpk_errf(err, len, -EINVAL, "%s:%zu: NUL byte at column %zu (not a text file?)", name,
					ln, (size_t)(nul - p) + 1);
		rc = fn(arg, p, e, ln);
		if (rc != 0)
			return rc;
		p = e + 1;
	}
	return 0;
}

int
vpk_lines_each_file(const char *path, const char *what, uint64_t max_file, size_t max_line, vpk_line_fn *fn,
		    void *arg, char *err, size_t len)
{
	struct vpk_lines l;
	char *line = NULL;      /* set by every vpk_lines_next() > 0; -O3 cannot see that */
	size_t n = 0;
	int rc = vpk_lines_open(&l, path, what, max_file, max_line, err, len);

	while (rc == 0 && (rc = vpk_lines_next(&l, &line, &n, err, len)) > 0)
		rc = fn(arg, line, line + n, l.lineno);
	vpk_lines_close(&l);
	return rc;
}
