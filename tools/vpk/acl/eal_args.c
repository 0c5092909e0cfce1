/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <string.h>

#include "acl/eal_args.h"

int
vpk_skip_eal_args(const char *cmd, int argc, char **argv)
{
	int k;

	for (k = 1; k < argc && strcmp(argv[k], "--") != 0; k++)
		;
	if (k >= argc)
		return argc;
	fprintf(stderr, "vpk %s: %d DPDK EAL argument%s before -- ignored (vpk runs without the EAL)\n", cmd, k - 1,
		k == 2 ? "" : "s");
	memmove(argv + 1, argv + k + 1, (size_t)(argc - k) * sizeof(*argv));    /* with the NULL at argv[argc] */
	return argc - k;
}
