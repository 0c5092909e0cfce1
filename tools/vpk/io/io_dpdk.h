/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_IO_DPDK_H
#define VPK_TOOL_IO_DPDK_H

/* The DPDK ethdev backend of the vpk tool (io_dpdk.c). */
#include <stddef.h>

/*
 * Start DPDK's EAL with @eal_args (space-separated, e.g. "--no-huge -m 512
 * --file-prefix vpk --no-pci") once per process and register the dpdk port
 * backend (VPK_IO_DPDK). 0, or -ENOTSUP (built without libdpdk) / the EAL's
 * -errno, with the reason in @err.
 */
int io_dpdk_init(const char *eal_args, char *err, size_t len);
/* Release the EAL (after every dpdk port is closed). */
void io_dpdk_fini(void);

#endif
