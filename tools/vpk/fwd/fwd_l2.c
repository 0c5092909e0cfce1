/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The forwarder's layer 2, as a router has it:
 *  - every port takes frames to its MAC, broadcast and subscribed multicast
 *    (the IPv4 and IPv6 all-nodes / all-routers groups, plus `multicast MAC`
 *    lines); other unicast is dropped and counted by ethernet-input, unless
 *    the port is `promisc on`. A live port without `mac` uses its device's;
 *  - VLAN sub-interfaces `interface P.VID` (802.1Q) and `interface
 *    P.OUTER.INNER` (802.1ad outer tag, 802.1Q inner tag; `tpid 0x8100` for
 *    Q-in-Q with two 802.1Q tags) are interfaces of their own (neighbors,
 *    routes, counters) on port P, with P's MAC. Tagged frames for no
 *    sub-interface are dropped and counted;
 *  - egress: frames for a sub-interface get its tags pushed in front of the
 *    EtherType (the headroom has room) and leave on the port.
 * The ethernet-input configuration is built once per run, before the
 * graphs, and is read-only while they run.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fwd/fwd_priv.h"

struct fwd_l2 {
	struct vpk_eth_input_conf c;
	struct vpk_eth_if ifs[FWD_MAX_IFS];
	struct vpk_eth_sub subs[FWD_MAX_IFS];
};

/* Groups every router port listens to: IPv4 all-hosts / all-routers (224.0.0.1/2),
 * IPv6 all-nodes / all-routers (ff02::1/2). */
static const uint8_t default_mcast[][6] = {
	{ 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 }, { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x02 },
	{ 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 }, { 0x33, 0x33, 0x00, 0x00, 0x00, 0x02 },
};
#define N_DEFAULT_MCAST (sizeof(default_mcast) / sizeof(default_mcast[0]))

static int
parse_mac6(const char *s, uint8_t mac[6])
{
	unsigned v[6];
	char tail;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &tail) != 6 ||
	    strlen(s) != 17)
		return -EINVAL;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)v[i];
	return 0;
}

static int
parse_vid(const char *s, size_t n, uint16_t *vid)
{
	unsigned v = 0;

	if (n == 0 || n > 4)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v < 1 || v > 4094)
		return -ERANGE;
	*vid = (uint16_t)v;
	return 0;
}

/*
 * "P.VID" or "P.OUTER.INNER" where P is a declared port: 0 with the parts;
 * 1 when the name is not of that form or P is no port; -EINVAL/-ERANGE for
 * a bad VLAN ID after a port's name.
 */
static int
split_name(const struct vpk_fwd *f, const char *name, uint32_t *parent, uint16_t vid[2], unsigned *n_tags)
{
	for (size_t i = 0; i < f->n_ifs; i++) {
		const struct fwd_if *p = &f->ifs[i];
		size_t pl = strlen(p->name);
		const char *rest = name + pl, *dot;
		int rc;

		if (p->parent != 0 || strncmp(name, p->name, pl) != 0 || rest[0] != '.')
			continue;
		rest++;
		dot = strchr(rest, '.');
		rc = parse_vid(rest, dot != NULL ? (size_t)(dot - rest) : strlen(rest), &vid[0]);
		if (rc == 0 && dot != NULL)
			rc = parse_vid(dot + 1, strlen(dot + 1), &vid[1]);
		if (rc != 0)
			return rc;
		*n_tags = dot != NULL ? 2 : 1;
		*parent = (uint32_t)i;
		return 0;
	}
	return 1;
}

int
fwd_l2_subif(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	uint16_t vid[2] = { 0, 0 }, tpid;
	uint32_t parent, ix;
	unsigned n_tags;
	struct fwd_if *x = NULL;
	int rc;

	if (argc < 2)
		return 1;
	rc = split_name(f, argv[1], &parent, vid, &n_tags);
	if (rc == 1)
		return 1;
	if (rc != 0)
		return vpk_errf(err, len, -EINVAL, "interface %s: VLAN IDs are 1..4094 (want PORT.VID or "
				"PORT.OUTER.INNER)", argv[1]);
	tpid = n_tags == 2 ? 0x88a8 : 0x8100;
	for (int i = 2; i < argc; i += 2) {
		if (i + 1 < argc && strcmp(argv[i], "tpid") == 0 &&
		    (strcmp(argv[i + 1], "0x8100") == 0 || strcmp(argv[i + 1], "0x88a8") == 0)) {
			tpid = strcmp(argv[i + 1], "0x8100") == 0 ? 0x8100 : 0x88a8;
		} else {
			return vpk_errf(err, len, -EINVAL, "interface %s: a VLAN sub-interface takes only "
					"[tpid 0x8100|0x88a8] (it uses %s's MAC and port), not '%s'", argv[1],
					f->ifs[parent].name, argv[i]);
		}
	}
	for (ix = 0; ix < f->n_ifs; ix++)
		if (strcmp(f->ifs[ix].name, argv[1]) == 0)
			x = &f->ifs[ix];
	for (size_t i = 0; i < f->n_ifs; i++) {
		const struct fwd_if *o = &f->ifs[i];

		if (o != x && o->parent == parent + 1 && o->tpid == tpid && o->vid == vid[0] &&
		    o->inner_vid == vid[1])
			return vpk_errf(err, len, -EEXIST, "interface %s: %s has the same tags", argv[1], o->name);
	}
	if (x == NULL && f->n_ifs == FWD_MAX_IFS)
		return vpk_errf(err, len, -ENOSPC, "interface: at most %u interfaces", FWD_MAX_IFS);
	if (!apply)
		return 0;
	if (x == NULL) {
		x = &f->ifs[f->n_ifs++];
		memset(x, 0, sizeof(*x));
		snprintf(x->name, sizeof(x->name), "%s", argv[1]);
	}
	memcpy(x->mac, f->ifs[parent].mac, 6);
	x->parent = parent + 1;
	x->tpid = tpid;
	x->vid = vid[0];
	x->inner_vid = vid[1];
	return 0;
}

int
fwd_l2_option(struct fwd_if *x, const char *opt, const char *val, bool apply, char *err, size_t len)
{
	uint8_t mac[6];

	if (strcmp(opt, "promisc") == 0) {
		if (strcmp(val, "on") != 0 && strcmp(val, "off") != 0)
			return vpk_errf(err, len, -EINVAL, "interface: promisc '%s': want on or off", val);
		if (apply && x != NULL)
			x->promisc = strcmp(val, "on") == 0;
		return 0;
	}
	if (strcmp(opt, "multicast") == 0) {
		if (parse_mac6(val, mac) != 0 || (mac[0] & 1) == 0)
			return vpk_errf(err, len, -EINVAL, "interface: multicast '%s': want a group MAC "
					"(xx:xx:xx:xx:xx:xx, first byte odd)", val);
		if (x != NULL && x->n_mcast + N_DEFAULT_MCAST >= VPK_ETH_MAX_MCAST)
			return vpk_errf(err, len, -ENOSPC, "interface: at most %u multicast subscriptions",
					(unsigned)(VPK_ETH_MAX_MCAST - N_DEFAULT_MCAST));
		if (apply && x != NULL)
			memcpy(x->mcast[x->n_mcast++], mac, 6);
		return 0;
	}
	return 1;
}

void
fwd_l2_set_mac(struct vpk_fwd *f, size_t i, const uint8_t mac[6])
{
	memcpy(f->ifs[i].mac, mac, 6);
	for (size_t k = 0; k < f->n_ifs; k++)
		if (f->ifs[k].parent == i + 1)
			memcpy(f->ifs[k].mac, mac, 6);
	for (uint32_t id = 1; id <= f->conf.max_neighbors; id++) {
		uint32_t ifx = f->adj_if[id];

		if (f->adj[id].valid && ifx < f->n_ifs && (ifx == i || f->ifs[ifx].parent == i + 1))
			memcpy(f->adj[id].src_mac, mac, 6);
	}
}

int
fwd_l2_prepare(struct vpk_fwd *f)
{
	struct fwd_l2 *l = f->l2;
	uint32_t ns = 0;

	if (l == NULL) {
		l = calloc(1, sizeof(*l));
		if (l == NULL)
			return -ENOMEM;
		f->l2 = l;
	}
	memset(l, 0, sizeof(*l));
	for (size_t i = 0; i < f->n_ifs; i++) {
		const struct fwd_if *x = &f->ifs[i];
		struct vpk_eth_if *e = &l->ifs[i];

		if (x->parent != 0) {
			e->promisc = 1;         /* never a port's rx_if: no frame is checked here */
			continue;
		}
		memcpy(e->mac, x->mac, 6);
		e->promisc = x->promisc;
		memcpy(e->mcast, default_mcast, sizeof(default_mcast));
		e->n_mcast = N_DEFAULT_MCAST;
		for (unsigned k = 0; k < x->n_mcast && e->n_mcast < VPK_ETH_MAX_MCAST; k++)
			memcpy(e->mcast[e->n_mcast++], x->mcast[k], 6);
		e->first_sub = (uint16_t)ns;
		for (size_t k = 0; k < f->n_ifs; k++) {
			const struct fwd_if *s = &f->ifs[k];

			if (s->parent != i + 1)
				continue;
			l->subs[ns++] = (struct vpk_eth_sub){ .tpid = s->tpid, .outer_vid = s->vid,
							      .inner_vid = s->inner_vid, .rx_if = (uint32_t)k };
		}
		e->n_sub = (uint16_t)(ns - e->first_sub);
	}
	l->c = (struct vpk_eth_input_conf){ .n_if = (uint32_t)f->n_ifs, .ifs = l->ifs, .n_sub = ns,
					    .subs = l->subs };
	return 0;
}

int
fwd_l2_graph(struct vpk_fwd *f, struct fwd_graph *fg, char *err, size_t len)
{
	struct fwd_l2 *l = f->l2;

	if (l == NULL)
		return 0;
	if (fwd_graph_add(fg, "ethernet-input", &l->c) != 0)
		return vpk_errf(err, len, -ENOSPC, "ethernet-input: too many node configurations");
	return 0;
}

const struct vpk_eth_input_conf *
fwd_l2_conf(const struct vpk_fwd *f)
{
	const struct fwd_l2 *l = f->l2;

	return l != NULL ? &l->c : NULL;
}

uint32_t
fwd_l2_egress(struct vpk_fwd *f, uint32_t tx_if, const uint32_t *bi, uint32_t n)
{
	const struct fwd_if *x = &f->ifs[tx_if];
	uint32_t add = x->inner_vid != 0 ? 8 : 4;
	uint8_t tag[8] = { (uint8_t)(x->tpid >> 8), (uint8_t)x->tpid, (uint8_t)(x->vid >> 8), (uint8_t)x->vid,
			   0x81, 0x00, (uint8_t)(x->inner_vid >> 8), (uint8_t)x->inner_vid };
	void *base = vpk_pool_base(f->pool);

	for (uint32_t i = 0; i < n; i++) {
		struct vpk_buf *b = vpk_buf_from_idx(base, bi[i]);
		uint8_t *d;

		if (b->data_off < add)          /* cannot happen after a rewrite: headroom is 128 */
			continue;
		d = vpk_buf_data(b);
		memmove(d - add, d, 12);
		memcpy(d - add + 12, tag, add);
		b->data_off = (uint16_t)(b->data_off - add);
		b->l2_off = b->data_off;
		b->len = (uint16_t)(b->len + add);
		b->total_len += add;
	}
	return x->parent - 1;
}

void
fwd_l2_free(struct vpk_fwd *f)
{
	free(f->l2);
	f->l2 = NULL;
}
