/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * linux-sync: ECMP groups for the kernel's multipath routes.
 *
 * A group of n paths takes n + 1 consecutive neighbor IDs: the first is
 * the prefix's next hop, its adjacency has n_paths = n and no neighbor of
 * its own; each of the next n is the adjacency of one path (gateway,
 * interface), kept up to date from the kernel's neighbours like any other
 * next hop. ip4-rewrite / ip6-rewrite pick one of the n by the packet's
 * flow hash, so a flow stays on one path. The whole adjacency table is
 * published at once (fwd_ctl_set_adj()): paths are written before the
 * group's entry names them and cleared after it is gone. Routes with the
 * same paths in the same order share a group.
 */
#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <string.h>

#include "fwd/fwd_linux.h"

/*
 * The paths of RTA_MULTIPATH into @p (at most LS_MAX_PATHS); the number of
 * paths. Lengths are checked against the attribute before each is read.
 */
unsigned
ls_multipath(const struct nlattr *mp, uint8_t fam, struct ls_path *p)
{
	const uint8_t *at = mnl_attr_get_payload(mp);
	size_t left = mnl_attr_get_payload_len(mp), want = fam == AF_INET ? 4 : 16;
	unsigned n = 0;

	while (left >= sizeof(struct rtnexthop) && n < LS_MAX_PATHS) {
		const struct rtnexthop *rtnh = (const struct rtnexthop *)at;
		size_t rl = rtnh->rtnh_len;

		if (rl < sizeof(*rtnh) || rl > left)
			break;
		memset(&p[n], 0, sizeof(p[n]));
		p[n].ifindex = rtnh->rtnh_ifindex;
		if (rl > RTNH_ALIGN(sizeof(*rtnh))) {
			const struct nlattr *a = (const struct nlattr *)(at + RTNH_ALIGN(sizeof(*rtnh)));
			int alen = (int)(rl - RTNH_ALIGN(sizeof(*rtnh)));

			for (; mnl_attr_ok(a, alen); a = mnl_attr_next(a), alen = (int)(rl - ((const uint8_t *)a - at)))
				if (mnl_attr_get_type(a) == RTA_GATEWAY && mnl_attr_get_payload_len(a) >= want)
					memcpy(p[n].gw, mnl_attr_get_payload(a), want);
		}
		n++;
		left -= RTNH_ALIGN(rl) < left ? RTNH_ALIGN(rl) : left;
		at += RTNH_ALIGN(rl);
	}
	return n;
}

static uint32_t
grp_bucket(uint8_t fam, const struct ls_path *p, unsigned n)
{
	uint32_t h = 0x6772u ^ fam ^ n;

	for (unsigned i = 0; i < n; i++)
		h = h * 31u + ls_hash(fam, (uint8_t)p[i].ifindex, p[i].gw);
	return h % LS_NH_BUCKETS;
}

static bool
grp_same(const struct fwd_lsync *ls, uint32_t id, uint8_t fam, const struct ls_path *p, unsigned n)
{
	if (ls->nh[id].fam != fam || ls->nh[id].n_paths != n)
		return false;
	for (unsigned i = 0; i < n; i++) {
		const struct ls_nh *m = &ls->nh[id + 1 + i];

		if (m->ifindex != p[i].ifindex || memcmp(m->gw, p[i].gw, 16) != 0)
			return false;
	}
	return true;
}

uint32_t
ls_grp_get(struct fwd_lsync *ls, uint8_t fam, const struct ls_path *p, unsigned n)
{
	uint32_t b = grp_bucket(fam, p, n), g;

	for (g = ls->nh_hash[b]; g != 0; g = ls->nh[g].next)
		if (grp_same(ls, g, fam, p, n)) {
			ls->nh[g].refs++;
			return g;
		}
	if ((g = ls_ids_alloc(ls, n + 1)) == 0)
		return 0;
	for (unsigned i = 0; i < n; i++) {
		ls->nh[g + 1 + i] = (struct ls_nh){ .fam = fam, .ifindex = p[i].ifindex, .member = true };
		memcpy(ls->nh[g + 1 + i].gw, p[i].gw, 16);
		ls_nh_refresh(ls, g + 1 + i);
	}
	ls->nh[g] = (struct ls_nh){ .fam = fam, .ifindex = p[0].ifindex, .refs = 1, .next = ls->nh_hash[b],
				    .bucket = b, .n_paths = (uint8_t)n };
	memcpy(ls->nh[g].gw, p[0].gw, 16);
	ls->nh_hash[b] = g;
	ls_nh_refresh(ls, g);
	ls->n_groups++;
	return g;
}

void
ls_grp_release(struct fwd_lsync *ls, uint32_t id, unsigned n)
{
	for (unsigned i = 1; i <= n; i++) {
		memset(&ls->nh[id + i], 0, sizeof(ls->nh[id + i]));
		if (ls->f->adj[id + i].valid)
			fwd_ctl_set_adj(ls->f, id + i, NULL, 0);
	}
	ls->n_groups--;
}

unsigned
ls_grp_paths(const struct fwd_lsync *ls, uint32_t id, struct ls_path *out)
{
	unsigned n = ls->nh[id].n_paths;

	for (unsigned i = 0; i < n; i++) {
		memcpy(out[i].gw, ls->nh[id + 1 + i].gw, 16);
		out[i].ifindex = ls->nh[id + 1 + i].ifindex;
	}
	return n;
}

void
ls_grp_neigh(struct fwd_lsync *ls, uint8_t fam, const uint8_t ip[16], int ifindex)
{
	for (uint32_t id = 1; ls->n_groups > 0 && id <= ls->f->conf.max_neighbors; id++) {
		const struct ls_nh *m = &ls->nh[id];

		if (m->member && m->fam == fam && m->ifindex == ifindex && memcmp(m->gw, ip, 16) == 0)
			ls_nh_refresh(ls, id);
	}
}

unsigned
fwd_linux_path(const struct vpk_fwd *f, uint32_t id, unsigned i, char *gw, size_t gw_len, char *dev, size_t dev_len)
{
	const struct fwd_lsync *ls = f->lsync;
	const struct ls_nh *m;

	if (ls == NULL || id == 0 || id > f->conf.max_neighbors || ls->nh[id].n_paths == 0 ||
	    i >= ls->nh[id].n_paths)
		return 0;
	m = &ls->nh[id + 1 + i];
	inet_ntop(m->fam, m->gw, gw, (socklen_t)gw_len);
	snprintf(dev, dev_len, "%s", ls_link_name(ls, m->ifindex));
	return ls->nh[id].n_paths;
}
