/* SPDX-License-Identifier: BSD-3-Clause */
/* vpk_errf(), vpk_seterr() and vpk_last_error(): see errf.h. */
#include <stdarg.h>
#include <stdio.h>

#include "core/errf.h"

static _Thread_local char last_error[VPK_ERR_LEN];

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

char *
vpk_errbuf(void)
{
	return last_error;
}

int
vpk_seterr(int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return rc;
}

int
vpk_errcopy(char *err, size_t len, int rc)
{
	if (err != NULL && err != last_error && len > 0)
		snprintf(err, len, "%s", last_error);
	return rc;
}

const char *
vpk_last_error(void)
{
	return last_error;
}
