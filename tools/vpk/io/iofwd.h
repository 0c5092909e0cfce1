/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_IOFWD_H
#define VPK_TOOL_IOFWD_H

/* vpk iofwd's ports: how many queues to serve and how each is opened (iofwd_ports.c). */
#include <stdbool.h>
#include <stddef.h>

#include <vpk/io.h>

#define MAX_PORTS 8
#define MAX_WORKERS 16

struct port {
	struct vpk_io_port *io;
	const char *spec;
	unsigned queue;
	bool down;
};

/*
 * How many queues to serve (one worker each) into *queues, checking that
 * every receive queue of an af_xdp port is served. VPK_EXIT_OK or the exit
 * code (message printed).
 */
int iofwd_plan_queues(const char *const *specs, size_t n, enum vpk_io_type type, bool all, unsigned *queues);
/* pcap:IN[:OUT] ports: false (message printed) when an output is also an input. */
bool iofwd_pcap_files_distinct(const char *const *specs, size_t n);
/* Open port @i (@spec) for worker @k of @nw into @pt. VPK_EXIT_OK or the exit code. */
int iofwd_open_port(struct vpk_pool *pool, const struct vpk_io_conf *base, struct port *pt, const char *spec,
		    size_t i, unsigned k, unsigned nw);

#endif
