/* SPDX-License-Identifier: BSD-3-Clause */
/* The running library's version (include/vpk/version.h). */
#include <vpk/version.h>

const char *
vpk_version(void)
{
	return VPK_VERSION;
}

unsigned
vpk_version_num(void)
{
	return VPK_VERSION_NUM;
}
