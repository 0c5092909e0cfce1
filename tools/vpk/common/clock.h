/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_CLOCK_H
#define VPK_TOOL_CLOCK_H

#include <time.h>

/* CLOCK_MONOTONIC in seconds: wall time of benchmarks, control-socket and netlink timestamps. */
static inline double
mono_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
