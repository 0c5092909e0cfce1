/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_EAL_ARGS_H
#define VPK_TOOL_EAL_ARGS_H

/*
 * dpdk-test-acl and dpdk-test-fib take DPDK's EAL arguments, then "--",
 * then their own options. vpk acl and vpk fib accept the same command
 * lines: everything before the first "--" is dropped, with one note on
 * stderr, so scripts written for DPDK's tools run unchanged.
 * @return the new argc; argv[1..] then holds the tool's own options.
 */
int vpk_skip_eal_args(const char *cmd, int argc, char **argv);

#endif
