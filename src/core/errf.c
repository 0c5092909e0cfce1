/* SPDX-License-Identifier: BSD-3-Clause */
/* vpk_errf(): see errf.h. */
#include <stdarg.h>
#include <stdio.h>

#include "core/errf.h"

int
vpk_errf(char *err, size_t len, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && len > 0) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return rc;
}
