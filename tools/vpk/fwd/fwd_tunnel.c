/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The forwarder's tunnel feature: configuration commands, the
 * graph hook that adds the tunnel nodes when something is configured, and
 * cleanup. State: struct fwd_tun behind vpk_fwd::tunnels.
 *
 *   vxlan tunnel src A dst B vni N [decap-next l2|ip4|ip6] [encap PREFIX/LEN] [del]
 *   vxlan port N                     (UDP destination port, default 4789)
 *   vxlan mode rfc|strict            (RFC 7348 receive rules, or VPP's exact flags)
 *   sr policy bsid B segments S1 [S2 ..] [via ID]
 *   sr steer gtp4-d PREFIX/LEN sr-prefix P/L v6src-prefix P/L [policy BSID | via ID]
 *        [nhtype auto|ipv4|ipv6] [u-pdu-type] [drop-in]
 *   sr localsid end-m-gtp4-e PREFIX/LEN (v4src-position BITS | v4src-addr A)
 *
 * The SID list of a GTP4.D steering entry is named explicitly (policy
 * BSID) instead of VPP's "the policy whose BSID equals the sr-prefix"
 * (research/vpp.md §3.6.5). `drop-in` is accepted for VPP configurations:
 * every G-PDU is translated (RFC 9433), which is VPP's drop-in mode.
 * SRv6 output leaves through the given neighbor (`via ID`) straight to
 * ip6-rewrite, or without one is routed by the IPv6 FIB (`route add
 * PREFIX6/LEN via ID`), as VPP does.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/tunnel.h>
#include "fwd/fwd_priv.h"

#define TUN_MAX_VXLAN 4096u
#define TUN_MAX_SR 64u          /* SR policies */
#define TUN_MAX_STEER 4096u     /* GTP4.D steering entries, End.M.GTP4.E localsids */

struct fwd_tun {
	struct vpk_vxlan_tunnel vx[TUN_MAX_VXLAN];
	struct vpk_vxlan_conf vxc;
	struct vpk_sr_policy pol[TUN_MAX_SR];
	uint32_t n_pol;
	struct vpk_gtp4d_steer steer[TUN_MAX_STEER];
	struct vpk_gtp4d_conf gdc;
	struct vpk_gtp4e_localsid sid[TUN_MAX_STEER];
	struct vpk_gtp4e_conf gec;
	struct vpk_tunnel_bypass_conf bp4, bp6;
};



/* Address: 4 (IPv4, first 4 bytes of out) or 6; -EINVAL. */
static int
addr(const char *s, uint8_t out[16])
{
	memset(out, 0, 16);
	if (inet_pton(AF_INET, s, out) == 1)
		return 4;
	if (inet_pton(AF_INET6, s, out) == 1)
		return 6;
	return -EINVAL;
}

/* "ADDR/LEN" of family @fam (4 or 6), host bits cleared. */
static int
prefix(const char *s, int fam, uint8_t out[16], uint8_t *plen)
{
	return fwd_parse_prefix(s, out, plen) == fam ? 0 : -EINVAL;
}

static struct fwd_tun *
tun_get(struct vpk_fwd *f)
{
	struct fwd_tun *t = f->tunnels;

	if (t == NULL) {
		t = calloc(1, sizeof(*t));
		if (t == NULL)
			return NULL;
		t->vxc.tunnels = t->vx;
		t->gdc.steer = t->steer;
		t->gec.sid = t->sid;
		f->tunnels = t;
	}
	return t;
}

static bool
zero(const uint8_t *a)
{
	static const uint8_t z[16];

	return memcmp(a, z, 16) == 0;
}

static int
cmd_vxlan(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	struct vpk_vxlan_tunnel v = { 0 };
	struct fwd_tun *t;
	bool del = false;
	uint32_t x;
	int fs = 0, fd = 0;

	if (argc == 3 && strcmp(argv[1], "port") == 0) {
		if (fwd_parse_u32(argv[2], 65535, &x) != 0 || x == 0)
			return vpk_errf(err, len, -EINVAL, "vxlan port: '%s' is not a UDP port 1..65535", argv[2]);
		if (!apply)
			return 0;
		if ((t = tun_get(f)) == NULL)
			return vpk_errf(err, len, -ENOMEM, "out of memory");
		t->vxc.port = (uint16_t)x;
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "mode") == 0) {
		if (strcmp(argv[2], "rfc") != 0 && strcmp(argv[2], "strict") != 0)
			return vpk_errf(err, len, -EINVAL, "vxlan mode: want rfc or strict, not '%s'", argv[2]);
		if (!apply)
			return 0;
		if ((t = tun_get(f)) == NULL)
			return vpk_errf(err, len, -ENOMEM, "out of memory");
		t->vxc.mode = strcmp(argv[2], "strict") == 0 ? VPK_VXLAN_STRICT : VPK_VXLAN_RFC;
		return 0;
	}
	if (argc < 2 || strcmp(argv[1], "tunnel") != 0)
		return vpk_errf(err, len, -EINVAL, "usage: vxlan tunnel src A dst B vni N [decap-next l2|ip4|ip6] "
			    "[encap PREFIX/LEN] [del] | vxlan port N | vxlan mode rfc|strict");
	v.vni = UINT32_MAX;
	for (int i = 2; i < argc; i++) {
		const char *k = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(k, "del") == 0) {
			del = true;
			continue;
		}
		if (val == NULL)
			return vpk_errf(err, len, -EINVAL, "vxlan tunnel: '%s' needs a value", k);
		i++;
		if (strcmp(k, "src") == 0) {
			if ((fs = addr(val, v.src)) < 0 || zero(v.src))
				return vpk_errf(err, len, -EINVAL, "vxlan tunnel: bad src address '%s'", val);
		} else if (strcmp(k, "dst") == 0) {
			if ((fd = addr(val, v.dst)) < 0 || zero(v.dst))
				return vpk_errf(err, len, -EINVAL, "vxlan tunnel: bad dst address '%s'", val);
		} else if (strcmp(k, "vni") == 0) {
			if (fwd_parse_u32(val, 0xffffff, &v.vni) != 0)
				return vpk_errf(err, len, -EINVAL, "vxlan tunnel: vni '%s' must be 0..16777215", val);
		} else if (strcmp(k, "decap-next") == 0) {
			if (strcmp(val, "l2") == 0)
				v.decap_next = VPK_VXLAN_NEXT_L2;
			else if (strcmp(val, "ip4") == 0)
				v.decap_next = VPK_VXLAN_NEXT_IP4;
			else if (strcmp(val, "ip6") == 0)
				v.decap_next = VPK_VXLAN_NEXT_IP6;
			else
				return vpk_errf(err, len, -EINVAL, "vxlan tunnel: decap-next '%s': want l2, ip4 or ip6", val);
		} else if (strcmp(k, "encap") == 0) {
			uint8_t p[16];

			if (prefix(val, 4, p, &v.encap_plen) != 0 || v.encap_plen == 0)
				return vpk_errf(err, len, -EINVAL, "vxlan tunnel: encap '%s': want an IPv4 prefix a.b.c.d/1..32", val);
			v.encap_prefix = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
		} else {
			return vpk_errf(err, len, -EINVAL, "vxlan tunnel: unknown keyword '%s'", k);
		}
	}
	if (fs == 0 || fd == 0 || v.vni == UINT32_MAX)
		return vpk_errf(err, len, -EINVAL, "vxlan tunnel: src, dst and vni are required");
	if (fs != fd)
		return vpk_errf(err, len, -EINVAL, "vxlan tunnel: src and dst must both be IPv4 or both IPv6");
	v.is_ip6 = fs == 6;
	t = f->tunnels;
	for (uint32_t i = 0; t != NULL && i < t->vxc.n_tunnels; i++) {
		struct vpk_vxlan_tunnel *o = &t->vx[i];

		if (o->is_ip6 == v.is_ip6 && memcmp(o->src, v.src, 16) == 0 &&
		    memcmp(o->dst, v.dst, 16) == 0 && o->vni == v.vni) {
			if (!del)
				return vpk_errf(err, len, -EEXIST, "vxlan tunnel: src %s dst %s vni %u exists",
					    argv[3], argv[5], v.vni);
			if (apply) {
				memmove(o, o + 1, (t->vxc.n_tunnels - i - 1) * sizeof(*o));
				t->vxc.n_tunnels--;
			}
			return 0;
		}
	}
	if (del && apply)       /* the check pass of a file runs before earlier lines apply */
		return vpk_errf(err, len, -ENOENT, "vxlan tunnel del: no such tunnel");
	if (del)
		return 0;
	if (t != NULL && t->vxc.n_tunnels == TUN_MAX_VXLAN)
		return vpk_errf(err, len, -ENOSPC, "vxlan tunnel: at most %u tunnels", TUN_MAX_VXLAN);
	if (!apply)
		return 0;
	if ((t = tun_get(f)) == NULL)
		return vpk_errf(err, len, -ENOMEM, "out of memory");
	t->vx[t->vxc.n_tunnels++] = v;
	return 0;
}

static int
sr_policy(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	struct vpk_sr_policy p = { 0 };
	struct fwd_tun *t = f->tunnels;
	int i;

	bool via = argc >= 7 && strcmp(argv[argc - 2], "via") == 0;
	int end = via ? argc - 2 : argc;

	if (argc < 6 || strcmp(argv[2], "bsid") != 0 || strcmp(argv[4], "segments") != 0 || end < 6)
		return vpk_errf(err, len, -EINVAL, "usage: sr policy bsid B segments S1 [S2 ..] [via ID]");
	if (addr(argv[3], p.bsid) != 6)
		return vpk_errf(err, len, -EINVAL, "sr policy: bad BSID '%s' (want an IPv6 address)", argv[3]);
	for (i = 5; i < end; i++) {
		if (p.n_seg == VPK_SR_MAX_SEGS)
			return vpk_errf(err, len, -EINVAL, "sr policy: at most %u segments", VPK_SR_MAX_SEGS);
		if (addr(argv[i], p.seg[p.n_seg++]) != 6)
			return vpk_errf(err, len, -EINVAL, "sr policy: bad segment '%s'", argv[i]);
	}
	if (via && (fwd_parse_u32(argv[argc - 1], f->conf.max_neighbors, &p.adj) != 0 || p.adj == 0))
		return vpk_errf(err, len, -EINVAL, "sr policy: via '%s' must be a neighbor ID 1..%u", argv[argc - 1],
			    f->conf.max_neighbors);
	for (uint32_t k = 0; t != NULL && k < t->n_pol; k++)
		if (memcmp(t->pol[k].bsid, p.bsid, 16) == 0)
			return vpk_errf(err, len, -EEXIST, "sr policy: BSID %s exists", argv[3]);
	if (t != NULL && t->n_pol == TUN_MAX_SR)
		return vpk_errf(err, len, -ENOSPC, "sr policy: at most %u policies", TUN_MAX_SR);
	if (!apply)
		return 0;
	if ((t = tun_get(f)) == NULL)
		return vpk_errf(err, len, -ENOMEM, "out of memory");
	t->pol[t->n_pol++] = p;
	return 0;
}

static int
sr_steer(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	struct vpk_gtp4d_steer s = { 0 };
	struct fwd_tun *t = f->tunnels;
	uint8_t p4[16], plen4 = 0, bsid[16];
	bool have_sr = false, have_src = false, have_pol = false, have_via = false;

	if (argc < 4 || strcmp(argv[2], "gtp4-d") != 0 || prefix(argv[3], 4, p4, &plen4) != 0)
		return vpk_errf(err, len, -EINVAL, "usage: sr steer gtp4-d A.B.C.D/LEN sr-prefix P/L v6src-prefix P/L "
			    "[policy BSID | via ID] [nhtype auto|ipv4|ipv6] [u-pdu-type] [drop-in]");
	s.prefix4 = (uint32_t)p4[0] << 24 | (uint32_t)p4[1] << 16 | (uint32_t)p4[2] << 8 | p4[3];
	s.plen4 = plen4;
	for (int i = 4; i < argc; i++) {
		const char *k = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(k, "drop-in") == 0)
			continue;
		if (strcmp(k, "u-pdu-type") == 0) {
			s.u_from_pdu_type = 1;
			continue;
		}
		if (val == NULL)
			return vpk_errf(err, len, -EINVAL, "sr steer: '%s' needs a value", k);
		i++;
		if (strcmp(k, "sr-prefix") == 0) {
			if (prefix(val, 6, s.sr_prefix, &s.sr_plen) != 0 || s.sr_plen > 56)
				return vpk_errf(err, len, -EINVAL, "sr steer: sr-prefix '%s': want an IPv6 prefix of "
					    "length <= 56 (32 + 40 bits must follow it)", val);
			have_sr = true;
		} else if (strcmp(k, "v6src-prefix") == 0) {
			if (prefix(val, 6, s.v6src, &s.v6src_plen) != 0 || s.v6src_plen > 96)
				return vpk_errf(err, len, -EINVAL, "sr steer: v6src-prefix '%s': want an IPv6 prefix of "
					    "length <= 96", val);
			have_src = true;
		} else if (strcmp(k, "policy") == 0) {
			if (addr(val, bsid) != 6)
				return vpk_errf(err, len, -EINVAL, "sr steer: bad policy BSID '%s'", val);
			have_pol = true;
		} else if (strcmp(k, "via") == 0) {
			if (fwd_parse_u32(val, f->conf.max_neighbors, &s.adj) != 0 || s.adj == 0)
				return vpk_errf(err, len, -EINVAL, "sr steer: via '%s' must be a neighbor ID", val);
			have_via = true;
		} else if (strcmp(k, "nhtype") == 0) {
			if (strcmp(val, "auto") == 0)
				s.nhtype = VPK_GTP4D_NH_AUTO;
			else if (strcmp(val, "ipv4") == 0)
				s.nhtype = VPK_GTP4D_NH_IP4;
			else if (strcmp(val, "ipv6") == 0)
				s.nhtype = VPK_GTP4D_NH_IP6;
			else
				return vpk_errf(err, len, -EINVAL, "sr steer: nhtype '%s': want auto, ipv4 or ipv6", val);
		} else {
			return vpk_errf(err, len, -EINVAL, "sr steer: unknown keyword '%s'", k);
		}
	}
	if (!have_sr || !have_src || (have_pol && have_via))
		return vpk_errf(err, len, -EINVAL, "sr steer: sr-prefix and v6src-prefix are required; policy and via "
			    "exclude each other (the policy has its own via)");
	if (have_pol && apply) {        /* the check pass of a file runs before earlier lines apply */
		uint32_t k;

		for (k = 0; t != NULL && k < t->n_pol; k++)
			if (memcmp(t->pol[k].bsid, bsid, 16) == 0)
				break;
		if (t == NULL || k == t->n_pol)
			return vpk_errf(err, len, -ENOENT, "sr steer: no policy with BSID %s (define it first)",
				    argv[argc - 1]);
		s.policy = &t->pol[k];
	}
	if (t != NULL && t->gdc.n_steer == TUN_MAX_STEER)
		return vpk_errf(err, len, -ENOSPC, "sr steer: at most %u steering entries", TUN_MAX_STEER);
	if (!apply)
		return 0;
	if ((t = tun_get(f)) == NULL)
		return vpk_errf(err, len, -ENOMEM, "out of memory");
	t->steer[t->gdc.n_steer++] = s;
	return 0;
}

static int
sr_localsid(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	struct vpk_gtp4e_localsid s = { 0 };
	struct fwd_tun *t = f->tunnels;
	uint8_t a[16];
	uint32_t pos;

	if (argc != 6 || strcmp(argv[2], "end-m-gtp4-e") != 0)
		return vpk_errf(err, len, -EINVAL, "usage: sr localsid end-m-gtp4-e PREFIX/LEN "
			    "(v4src-position BITS | v4src-addr A.B.C.D)");
	if (prefix(argv[3], 6, s.prefix, &s.plen) != 0 || s.plen > 56)
		return vpk_errf(err, len, -EINVAL, "sr localsid: '%s': want an IPv6 prefix of length <= 56", argv[3]);
	if (strcmp(argv[4], "v4src-position") == 0) {
		if (fwd_parse_u32(argv[5], 96, &pos) != 0 || pos == 0)
			return vpk_errf(err, len, -EINVAL, "sr localsid: v4src-position '%s' must be 1..96", argv[5]);
		s.v4src_pos = (uint8_t)pos;
	} else if (strcmp(argv[4], "v4src-addr") == 0) {
		if (addr(argv[5], a) != 4)
			return vpk_errf(err, len, -EINVAL, "sr localsid: bad v4src-addr '%s'", argv[5]);
		memcpy(s.v4src, a, 4);
	} else {
		return vpk_errf(err, len, -EINVAL, "sr localsid: want v4src-position or v4src-addr, not '%s'", argv[4]);
	}
	if (t != NULL && t->gec.n_sid == TUN_MAX_STEER)
		return vpk_errf(err, len, -ENOSPC, "sr localsid: at most %u localsids", TUN_MAX_STEER);
	if (!apply)
		return 0;
	if ((t = tun_get(f)) == NULL)
		return vpk_errf(err, len, -ENOMEM, "out of memory");
	t->sid[t->gec.n_sid++] = s;
	return 0;
}

static int
cmd_sr(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	if (argc >= 2 && strcmp(argv[1], "policy") == 0)
		return sr_policy(f, argc, argv, apply, err, len);
	if (argc >= 2 && strcmp(argv[1], "steer") == 0)
		return sr_steer(f, argc, argv, apply, err, len);
	if (argc >= 2 && strcmp(argv[1], "localsid") == 0)
		return sr_localsid(f, argc, argv, apply, err, len);
	return vpk_errf(err, len, -EINVAL, "usage: sr policy ... | sr steer gtp4-d ... | sr localsid end-m-gtp4-e ...");
}

const struct fwd_cmd fwd_cmd_vxlan = { "vxlan", cmd_vxlan };
const struct fwd_cmd fwd_cmd_sr = { "sr", cmd_sr };

int
fwd_tunnel_graph(struct vpk_fwd *f, struct fwd_graph *fg, char *err, size_t len)
{
	struct fwd_tun *t = f->tunnels;
	bool v4 = false, v6 = false;
	int rc = 0;

	if (t == NULL)
		return 0;
	for (uint32_t i = 0; i < t->vxc.n_tunnels; i++) {
		v4 |= !t->vx[i].is_ip6;
		v6 |= t->vx[i].is_ip6;
	}
	t->bp4 = (struct vpk_tunnel_bypass_conf){ .vxlan = v4 ? &t->vxc : NULL,
						  .gtp4d = t->gdc.n_steer ? &t->gdc : NULL };
	t->bp6 = (struct vpk_tunnel_bypass_conf){ .vxlan = v6 ? &t->vxc : NULL,
						  .gtp4e = t->gec.n_sid ? &t->gec : NULL };
	if (v6 && t->bp4.vxlan == NULL)
		t->bp4.vxlan = &t->vxc;         /* IPv4 packets may be encapsulated into IPv6 tunnels */
	if (t->bp4.vxlan != NULL || t->bp4.gtp4d != NULL)
		rc |= fwd_graph_add(fg, "ip4-tunnel-bypass", &t->bp4);
	if (t->bp6.vxlan != NULL || t->bp6.gtp4e != NULL)
		rc |= fwd_graph_add(fg, "ip6-tunnel-bypass", &t->bp6);
	if (v4) {
		rc |= fwd_graph_add(fg, "vxlan4-input", &t->vxc);
		rc |= fwd_graph_add(fg, "vxlan4-encap", &t->vxc);
	}
	if (v6) {
		rc |= fwd_graph_add(fg, "vxlan6-input", &t->vxc);
		rc |= fwd_graph_add(fg, "vxlan6-encap", &t->vxc);
	}
	if (t->gdc.n_steer)
		rc |= fwd_graph_add(fg, "srv6-gtp4-d", &t->gdc);
	if (t->gec.n_sid)
		rc |= fwd_graph_add(fg, "srv6-end-m-gtp4-e", &t->gec);
	return rc != 0 ? vpk_errf(err, len, -ENOSPC, "tunnels: too many graph nodes") : 0;
}

int
fwd_tunnel_save(const struct vpk_fwd *f, void **out)
{
	*out = NULL;
	if (f->tunnels == NULL)
		return 0;
	*out = malloc(sizeof(struct fwd_tun));
	if (*out == NULL)
		return -ENOMEM;
	memcpy(*out, f->tunnels, sizeof(struct fwd_tun));
	return 0;
}

void
fwd_tunnel_restore(struct vpk_fwd *f, void *saved)
{
	if (saved == NULL) {
		fwd_tunnel_free(f);     /* none before: drop what the file created */
		return;
	}
	/* Copied back into the same allocation, so the pointers inside (the
	 * confs' arrays, steering entries' policies) point where they did. */
	memcpy(f->tunnels, saved, sizeof(struct fwd_tun));
	free(saved);
}

void
fwd_tunnel_free(struct vpk_fwd *f)
{
	free(f->tunnels);
	f->tunnels = NULL;
}
