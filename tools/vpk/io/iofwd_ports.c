/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk iofwd's ports (iofwd.h): the queue plan (af_xdp must serve every
 * receive queue; dpdk spreads over the queues it configures; af_packet
 * workers share a fanout group) and opening one port for one worker.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_packet.h>

#include "common/tool.h"
#include "io/iofwd.h"

/*
 * How many queues to serve (one worker each). af_xdp binds a socket to one
 * queue: every receive queue of every live port must have one, or its
 * packets would go to the kernel unseen, so a port with more receive queues
 * than served is an error; so is one with fewer (worker k has a socket on
 * queue k of every port). af_packet sees every queue: N fanout workers.
 */
int
iofwd_plan_queues(const char *const *specs, size_t n, enum vpk_io_type type, bool all, unsigned *queues)
{
	uint32_t most = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t rx, tx;
		int rc;

		if (strncmp(specs[i], "pcap:", 5) == 0) {
			if (*queues > 1 || all)
				return vpk_fail(VPK_EXIT_USAGE, "iofwd: --queues: pcap ports cannot be shared by workers");
			continue;
		}
		if (type == VPK_IO_DPDK) {              /* RSS over the queues configured: N, all: 1 */
			if (*queues == 0)
				*queues = 1;
			return VPK_EXIT_OK;
		}
		rc = vpk_io_queue_count(specs[i], &rx, &tx);
		if (rc != 0)
			return vpk_fail(VPK_EXIT_USAGE, "iofwd: port %zu: %s", i, vpk_last_error());
		most = rx > most ? rx : most;
	}
	if (most == 0)
		return VPK_EXIT_OK;
	if (all)
		*queues = most;
	if (*queues > MAX_WORKERS)
		return vpk_fail(VPK_EXIT_USAGE, "iofwd: %u queues: at most %d workers", *queues, MAX_WORKERS);
	if (type != VPK_IO_AF_XDP)
		return VPK_EXIT_OK;
	if (*queues == 0)
		*queues = 1;
	for (size_t i = 0; i < n; i++) {
		uint32_t rx = 0, tx = 0;

		if (strncmp(specs[i], "pcap:", 5) == 0 || vpk_io_queue_count(specs[i], &rx, &tx) != 0)
			continue;
		if (rx > *queues)
			return vpk_fail(VPK_EXIT_USAGE, "iofwd: port %zu (%s) has %u receive queues and vpk would serve "
					"%u: packets on queues %u..%u would reach the kernel unseen; use --queues all "
					"(or fewer channels: ethtool -L %s combined %u)", i, specs[i], rx, *queues,
					*queues, rx - 1, specs[i], *queues);
		if (rx < *queues)
			return vpk_fail(VPK_EXIT_USAGE, "iofwd: port %zu (%s) has %u receive queues, fewer than the "
					"%u served (--queues)", i, specs[i], rx, *queues);
	}
	return VPK_EXIT_OK;
}

/* pcap:IN[:OUT] ports: no output may be an input of the run (opening it truncates it). */
bool
iofwd_pcap_files_distinct(const char *const *specs, size_t n)
{
	for (size_t o = 0; o < n; o++) {
		const char *out = strncmp(specs[o], "pcap:", 5) == 0 ? strchr(specs[o] + 5, ':') : NULL;

		for (size_t i = 0; out != NULL && i < n; i++) {
			char in[512];

			if (strncmp(specs[i], "pcap:", 5) != 0)
				continue;
			snprintf(in, sizeof(in), "%s", specs[i] + 5);
			in[strcspn(in, ":")] = '\0';
			if (!vpk_opt_distinct("iofwd", "--port input", in, "--port output", out + 1))
				return false;
		}
	}
	return true;
}

/*
 * Open port @i (@spec) for worker @k of @nw: queue k for af_xdp and dpdk,
 * a fanout member with several af_packet workers; af_xdp refused falls
 * back to af_packet. @return VPK_EXIT_OK or the exit code (message printed).
 */
int
iofwd_open_port(struct vpk_pool *pool, const struct vpk_io_conf *base, struct port *pt, const char *spec, size_t i,
	  unsigned k, unsigned nw)
{
	struct vpk_io_conf ic = *base;
	char path[512];
	int rc;

	ic.port_id = (uint32_t)i;
	ic.queue = ic.type == VPK_IO_AF_XDP || ic.type == VPK_IO_DPDK ? k : 0;
	ic.n_queues = ic.type == VPK_IO_DPDK ? nw : 0;
	if (nw > 1) {
		/* One fanout group per port, one member per worker: the kernel spreads flows (hash). */
		ic.fanout_group = (uint16_t)((getpid() * 8 + (int)i) & 0xffff);
		ic.fanout_mode = PACKET_FANOUT_HASH;
	}
	pt->spec = spec;
	pt->queue = ic.queue;
	if (strncmp(spec, "pcap:", 5) == 0) {
		char *colon;

		snprintf(path, sizeof(path), "%s", spec + 5);
		colon = strchr(path, ':');
		if (colon != NULL)
			*colon = '\0';
		ic.type = VPK_IO_PCAP;
		ic.rx_pcap = path[0] ? path : NULL;
		ic.tx_pcap = colon != NULL ? colon + 1 : NULL;
	} else {
		ic.ifname = spec;
	}
	ic.pool = pool;
	rc = vpk_io_create(&ic, &pt->io);
	if (rc != 0 && ic.type == VPK_IO_AF_XDP && (rc == -EPERM || rc == -ENOTSUP)) {
		fprintf(stderr, "vpk: iofwd: %s; using af_packet instead\n", vpk_last_error());
		ic.type = VPK_IO_AF_PACKET;
		rc = vpk_io_create(&ic, &pt->io);
	}
	if (rc != 0)
		return vpk_fail(rc == -ENODEV || rc == -EINVAL || rc == -ENOENT ? VPK_EXIT_USAGE : VPK_EXIT_FAIL,
				"iofwd: port %zu: %s", i, vpk_last_error());
	return VPK_EXIT_OK;
}

