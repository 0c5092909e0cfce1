/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TEST_FWD_TEXT_H
#define VPK_TEST_FWD_TEXT_H

/* A configuration given as text, applied as a file named test.conf. */
#include <stdio.h>
#include <string.h>

#include "fwd/fwd.h"

static inline int
exec_text(struct vpk_fwd *f, const char *text, char *err, size_t len)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	int rc = vpk_fwd_exec_file(f, in, "test.conf", err, len);

	fclose(in);
	return rc;
}

#endif
