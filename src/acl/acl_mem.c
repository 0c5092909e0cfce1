/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Build-memory accounting for the ACL builder: every temporary allocation of
 * a build goes through these wrappers, which keep the bytes in use and the
 * peak (reported as vpk_acl_stats.build_peak_bytes, together with the
 * runtime). A 16-byte header in front of each block holds its size.
 */
#include <stdlib.h>
#include <string.h>

#include "acl/acl_int.h"

struct mhdr {
	size_t n;
	size_t pad;     /* keep 16-byte alignment */
};

void *
acl_malloc(struct acl_mem *mt, size_t n)
{
	struct mhdr *h = malloc(sizeof(*h) + n);

	if (h == NULL) {
		mt->failed = 1;
		return NULL;
	}
	h->n = n;
	mt->cur += n;
	if (mt->cur > mt->peak)
		mt->peak = mt->cur;
	return h + 1;
}

void *
acl_calloc(struct acl_mem *mt, size_t n)
{
	void *p = acl_malloc(mt, n);

	if (p != NULL)
		memset(p, 0, n);
	return p;
}

void *
acl_realloc(struct acl_mem *mt, void *p, size_t n)
{
	struct mhdr *h = p != NULL ? (struct mhdr *)p - 1 : NULL, *nh;
	size_t old = h != NULL ? h->n : 0;

	nh = realloc(h, sizeof(*nh) + n);
	if (nh == NULL) {
		mt->failed = 1;
		free(h);        /* callers treat failure as fatal for the build */
		mt->cur -= old;
		return NULL;
	}
	nh->n = n;
	mt->cur = mt->cur - old + n;
	if (mt->cur > mt->peak)
		mt->peak = mt->cur;
	return nh + 1;
}

void
acl_free(struct acl_mem *mt, void *p)
{
	struct mhdr *h;

	if (p == NULL)
		return;
	h = (struct mhdr *)p - 1;
	mt->cur -= h->n;
	free(h);
}

