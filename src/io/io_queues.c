/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queue counts of a live interface (vpk_io_queue_count()): ethtool's
 * channel counts (ETHTOOL_GCHANNELS through SIOCETHTOOL, right in any
 * network namespace), where a NIC reports combined channels and veth
 * separate rx / tx counts; drivers without channel counts: the queues in
 * /sys/class/net/IF/queues; else one queue.
 */
#include <dirent.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "io/io_priv.h"

static uint32_t
sysfs_queues(const char *ifname, const char *prefix)
{
	char path[64];
	DIR *d;
	struct dirent *e;
	uint32_t n = 0;

	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", ifname);
	d = opendir(path);
	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL)
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return n;
}

int
vpk_io_queue_count(const char *ifname, uint32_t *rx, uint32_t *tx)
{
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	struct ifreq ifr;
	int s, rc;

	if (ifname == NULL || rx == NULL || tx == NULL || ifname[0] == '\0' || strlen(ifname) >= IFNAMSIZ)
		return vpk_seterr(-EINVAL, "io: queue count: want an interface name of 1..15 characters");
	if (if_nametoindex(ifname) == 0)
		return vpk_seterr(-ENODEV, "%s: no such interface (in this network namespace)", ifname);
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&ch;
	s = socket(AF_INET, SOCK_DGRAM, 0);
	rc = s >= 0 ? ioctl(s, SIOCETHTOOL, &ifr) : -1;
	if (s >= 0)
		close(s);
	if (rc == 0 && ch.combined_count + ch.rx_count > 0) {
		*rx = ch.combined_count + ch.rx_count;
		*tx = ch.combined_count + ch.tx_count;
		if (*tx == 0)
			*tx = 1;
		return 0;
	}
	*rx = sysfs_queues(ifname, "rx-");
	*tx = sysfs_queues(ifname, "tx-");
	if (*rx == 0)
		*rx = 1;
	if (*tx == 0)
		*tx = 1;
	return 0;
}
