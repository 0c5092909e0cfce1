/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the live backends: interface lookup, link state, hardware address. */
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "io/io_priv.h"

int
io_live_ifindex(struct vpk_io_port *p, unsigned *ifindex, char *err, size_t len)
{
	*ifindex = if_nametoindex(p->ifname);
	if (*ifindex == 0)
		return vpk_errf(err, len, -ENODEV, "%s %s: no such interface (in this network namespace)",
			       p->ops->name, p->ifname);
	return 0;
}

bool
io_live_link_up(struct vpk_io_port *p)
{
	struct ifreq ifr;
	int s = p->fd >= 0 ? p->fd : socket(AF_INET, SOCK_DGRAM, 0);
	bool up;

	if (s < 0)
		return false;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", p->ifname);
	up = ioctl(s, SIOCGIFFLAGS, &ifr) == 0 && (ifr.ifr_flags & IFF_UP) && (ifr.ifr_flags & IFF_RUNNING);
	if (s != p->fd)
		close(s);
	return up;
}

int
io_live_mac(struct vpk_io_port *p)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM, 0), rc = 0;

	if (s < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", p->ifname);
	if (ioctl(s, SIOCGIFHWADDR, &ifr) != 0)
		rc = -errno;
	close(s);
	if (rc == 0) {
		memcpy(p->mac, ifr.ifr_hwaddr.sa_data, 6);
		p->has_mac = true;
	}
	return rc;
}
