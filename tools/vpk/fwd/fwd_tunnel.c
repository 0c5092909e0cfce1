/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The forwarder's tunnel feature: its configuration commands. The tables
 * they change (struct fwd_tun, fwd_tunnel.h) go into the graphs, also while
 * they run, through fwd_tunnel_live.c.
 *
 *   vxlan tunnel src A dst B vni N [decap-next l2|ip4|ip6] [encap PREFIX/LEN] [del]
 *   vxlan port N                     (UDP destination port, default 4789)
 *   vxlan mode rfc|strict            (RFC 7348 receive rules, or VPP's exact flags)
 *   sr policy bsid B segments S1 [S2 ..] [via ID]
 *   sr policy bsid B del             (not while a steering entry uses it)
 *   sr steer gtp4-d PREFIX/LEN sr-prefix P/L v6src-prefix P/L [policy BSID | via ID]
 *        [nhtype auto|ipv4|ipv6] [u-pdu-type] [drop-in]
 *   sr steer gtp4-d PREFIX/LEN del   (every entry of that prefix)
 *   sr localsid end-m-gtp4-e PREFIX/LEN (v4src-position BITS | v4src-addr A)
 *   sr localsid end-m-gtp4-e PREFIX/LEN del
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
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fwd/fwd_tunnel.h"

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

/*
 * The apply step of an adding line: refuses when @n entries of @max are
 * there, returns 1 with *t the version to change (0 in the check pass).
 */
static int
tun_room(struct vpk_fwd *f, bool apply, uint32_t n, uint32_t max, const char *what, struct fwd_tun **t,
	 char *err, size_t len)
{
	if (n >= max)   /* @what: "LINE: ENTRIES" */
		return vpk_errf(err, len, -ENOSPC, "%.*s: at most %u%s", (int)strcspn(what, ":"), what, max,
				what + strcspn(what, ":") + 1);
	if (!apply)
		return 0;
	if ((*t = fwd_tun_wr(f)) == NULL)
		return vpk_errf(err, len, -ENOMEM, "out of memory");
	return 1;
}

enum tun_kind { TK_VXLAN, TK_POLICY, TK_STEER, TK_SID };

/* Append @e, one entry of @kind, to the version changed (the check pass checks the room). */
static int
tun_append(struct vpk_fwd *f, bool apply, enum tun_kind kind, const void *e, char *err, size_t len)
{
	static const struct {
		size_t arr, n, size;
		uint32_t max;
		const char *what;
	} k[] = {
		{ offsetof(struct fwd_tun, vx), offsetof(struct fwd_tun, vxc.n_tunnels), sizeof(struct vpk_vxlan_tunnel),
		  TUN_MAX_VXLAN, "vxlan tunnel: tunnels" },
		{ offsetof(struct fwd_tun, pol), offsetof(struct fwd_tun, n_pol), sizeof(struct vpk_sr_policy),
		  TUN_MAX_SR, "sr policy: policies" },
		{ offsetof(struct fwd_tun, steer), offsetof(struct fwd_tun, gdc.n_steer), sizeof(struct vpk_gtp4d_steer),
		  TUN_MAX_STEER, "sr steer: steering entries" },
		{ offsetof(struct fwd_tun, sid), offsetof(struct fwd_tun, gec.n_sid), sizeof(struct vpk_gtp4e_localsid),
		  TUN_MAX_STEER, "sr localsid: localsids" },
	};
	struct fwd_tun *t = fwd_tun_rd(f);
	uint32_t *n;
	int rc;

	if ((rc = tun_room(f, apply, t != NULL ? *(uint32_t *)((char *)t + k[kind].n) : 0, k[kind].max,
			   k[kind].what, &t, err, len)) <= 0)
		return rc;
	n = (uint32_t *)((char *)t + k[kind].n);
	memcpy((char *)t + k[kind].arr + (size_t)*n * k[kind].size, e, k[kind].size);
	(*n)++;
	return 0;
}

/* The version to change for a setting (1), 0 in the check pass. */
static int
tun_set(struct vpk_fwd *f, bool apply, struct fwd_tun **t, char *err, size_t len)
{
	return tun_room(f, apply, 0, 1, "vxlan: settings", t, err, len);
}

/* *out = the position of @val among three words, else the error naming @what. */
static int
pick3(const char *val, const char *const words[3], const char *what, uint8_t *out, char *err, size_t len)
{
	for (uint8_t i = 0; i < 3; i++)
		if (strcmp(val, words[i]) == 0) {
			*out = i;
			return 0;
		}
	return vpk_errf(err, len, -EINVAL, "%s '%s': want %s, %s or %s", what, val, words[0], words[1], words[2]);
}

static bool
zero(const uint8_t *a)
{
	static const uint8_t z[16];

	return memcmp(a, z, 16) == 0;
}

static int
vxlan_setting(struct vpk_fwd *f, char **argv, bool apply, char *err, size_t len)
{
	struct fwd_tun *t;
	uint32_t x = 0;
	int rc;

	if (strcmp(argv[1], "port") == 0) {
		if (fwd_parse_u32(argv[2], 65535, &x) != 0 || x == 0)
			return vpk_errf(err, len, -EINVAL, "vxlan port: '%s' is not a UDP port 1..65535", argv[2]);
	} else if (strcmp(argv[2], "rfc") != 0 && strcmp(argv[2], "strict") != 0) {
		return vpk_errf(err, len, -EINVAL, "vxlan mode: want rfc or strict, not '%s'", argv[2]);
	}
	if ((rc = tun_set(f, apply, &t, err, len)) <= 0)
		return rc;
	if (x != 0)
		t->vxc.port = (uint16_t)x;
	else
		t->vxc.mode = strcmp(argv[2], "strict") == 0 ? VPK_VXLAN_STRICT : VPK_VXLAN_RFC;
	return 0;
}

/* One `KEY VALUE` of a vxlan tunnel line into @v; @fs/@fd: the families of src/dst. */
static int
vxlan_key(struct vpk_vxlan_tunnel *v, const char *k, const char *val, int *fs, int *fd, char *err, size_t len)
{
	if (strcmp(k, "src") == 0) {
		if ((*fs = addr(val, v->src)) < 0 || zero(v->src))
			return vpk_errf(err, len, -EINVAL, "vxlan tunnel: bad src address '%s'", val);
	} else if (strcmp(k, "dst") == 0) {
		if ((*fd = addr(val, v->dst)) < 0 || zero(v->dst))
			return vpk_errf(err, len, -EINVAL, "vxlan tunnel: bad dst address '%s'", val);
	} else if (strcmp(k, "vni") == 0) {
		if (fwd_parse_u32(val, 0xffffff, &v->vni) != 0)
			return vpk_errf(err, len, -EINVAL, "vxlan tunnel: vni '%s' must be 0..16777215", val);
	} else if (strcmp(k, "decap-next") == 0) {
		static const char *const next[3] = { "l2", "ip4", "ip6" };     /* enum vpk_vxlan_decap_next */

		return pick3(val, next, "vxlan tunnel: decap-next", &v->decap_next, err, len);
	} else if (strcmp(k, "encap") == 0) {
		uint8_t p[16];

		if (prefix(val, 4, p, &v->encap_plen) != 0 || v->encap_plen == 0)
			return vpk_errf(err, len, -EINVAL, "vxlan tunnel: encap '%s': want an IPv4 prefix a.b.c.d/1..32", val);
		v->encap_prefix = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	} else {
		return vpk_errf(err, len, -EINVAL, "vxlan tunnel: unknown keyword '%s'", k);
	}
	return 0;
}

static int
cmd_vxlan(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	struct vpk_vxlan_tunnel v = { .vni = UINT32_MAX };
	struct fwd_tun *t;
	bool del = false;
	int fs = 0, fd = 0, rc;

	if (argc == 3 && (strcmp(argv[1], "port") == 0 || strcmp(argv[1], "mode") == 0))
		return vxlan_setting(f, argv, apply, err, len);
	if (argc < 2 || strcmp(argv[1], "tunnel") != 0)
		return vpk_errf(err, len, -EINVAL, "usage: vxlan tunnel src A dst B vni N [decap-next l2|ip4|ip6] "
			    "[encap PREFIX/LEN] [del] | vxlan port N | vxlan mode rfc|strict");
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "del") == 0) {
			del = true;
			continue;
		}
		if (i + 1 == argc)
			return vpk_errf(err, len, -EINVAL, "vxlan tunnel: '%s' needs a value", argv[i]);
		if ((rc = vxlan_key(&v, argv[i], argv[i + 1], &fs, &fd, err, len)) != 0)
			return rc;
		i++;
	}
	if (fs == 0 || fd == 0 || v.vni == UINT32_MAX)
		return vpk_errf(err, len, -EINVAL, "vxlan tunnel: src, dst and vni are required");
	if (fs != fd)
		return vpk_errf(err, len, -EINVAL, "vxlan tunnel: src and dst must both be IPv4 or both IPv6");
	v.is_ip6 = fs == 6;
	t = fwd_tun_rd(f);
	for (uint32_t i = 0; t != NULL && i < t->vxc.n_tunnels; i++) {
		const struct vpk_vxlan_tunnel *o = &t->vx[i];

		if (o->is_ip6 != v.is_ip6 || memcmp(o->src, v.src, 16) != 0 || memcmp(o->dst, v.dst, 16) != 0 ||
		    o->vni != v.vni)
			continue;
		if (!del)
			return vpk_errf(err, len, -EEXIST, "vxlan tunnel: src %s dst %s vni %u exists",
				    argv[3], argv[5], v.vni);
		if (apply) {
			if ((t = fwd_tun_wr(f)) == NULL)
				return vpk_errf(err, len, -ENOMEM, "out of memory");
			memmove(&t->vx[i], &t->vx[i + 1], (t->vxc.n_tunnels - i - 1) * sizeof(t->vx[0]));
			t->vxc.n_tunnels--;
		}
		return 0;
	}
	if (del)        /* the check pass of a file runs before earlier lines apply */
		return apply ? vpk_errf(err, len, -ENOENT, "vxlan tunnel del: no such tunnel") : 0;
	return tun_append(f, apply, TK_VXLAN, &v, err, len);
}

/* `sr policy bsid B del`: not while a steering entry uses it. */
static int
sr_policy_del(struct vpk_fwd *f, char **argv, const uint8_t bsid[16], bool apply, char *err, size_t len)
{
	struct fwd_tun *t = fwd_tun_rd(f);
	uint32_t k;

	for (k = 0; t != NULL && k < t->n_pol && memcmp(t->pol[k].bsid, bsid, 16) != 0; k++)
		;
	if (t == NULL || k == t->n_pol)
		return apply ? vpk_errf(err, len, -ENOENT, "sr policy del: no policy with BSID %s", argv[3]) : 0;
	for (uint32_t i = 0; i < t->gdc.n_steer; i++)
		if (t->steer[i].policy == &t->pol[k])
			return vpk_errf(err, len, -EBUSY, "sr policy del: BSID %s is used by a steering entry",
					argv[3]);
	if (!apply)
		return 0;
	if ((t = fwd_tun_wr(f)) == NULL)
		return vpk_errf(err, len, -ENOMEM, "out of memory");
	memmove(&t->pol[k], &t->pol[k + 1], (t->n_pol - k - 1) * sizeof(t->pol[0]));
	t->n_pol--;
	for (uint32_t i = 0; i < t->gdc.n_steer; i++)   /* the policies after it moved down */
		if (t->steer[i].policy > &t->pol[k])
			t->steer[i].policy--;
	return 0;
}

static int
sr_policy(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	struct vpk_sr_policy p = { 0 };
	struct fwd_tun *t = fwd_tun_rd(f);
	bool via = argc >= 7 && strcmp(argv[argc - 2], "via") == 0;
	int end = via ? argc - 2 : argc;

	if (argc == 5 && strcmp(argv[2], "bsid") == 0 && strcmp(argv[4], "del") == 0) {
		if (addr(argv[3], p.bsid) != 6)
			return vpk_errf(err, len, -EINVAL, "sr policy: bad BSID '%s' (want an IPv6 address)", argv[3]);
		return sr_policy_del(f, argv, p.bsid, apply, err, len);
	}
	if (argc < 6 || strcmp(argv[2], "bsid") != 0 || strcmp(argv[4], "segments") != 0 || end < 6)
		return vpk_errf(err, len, -EINVAL, "usage: sr policy bsid B segments S1 [S2 ..] [via ID] | "
			    "sr policy bsid B del");
	if (addr(argv[3], p.bsid) != 6)
		return vpk_errf(err, len, -EINVAL, "sr policy: bad BSID '%s' (want an IPv6 address)", argv[3]);
	for (int i = 5; i < end; i++) {
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
	return tun_append(f, apply, TK_POLICY, &p, err, len);
}

/* Remove every entry of @base[0..*n) (each @size bytes) whose key (at offset 0, @klen bytes) is @key. */
static uint32_t
drop_key(void *base, uint32_t *n, size_t size, const void *key, size_t klen)
{
	uint8_t *p = base;
	uint32_t out = 0, gone;

	for (uint32_t i = 0; i < *n; i++)
		if (memcmp(p + i * size, key, klen) != 0)
			memmove(p + out++ * size, p + i * size, size);
	gone = *n - out;
	*n = out;
	return gone;
}

/* `... del` of a steering entry or localsid: @key's entries go. */
static int
sr_del(struct vpk_fwd *f, bool steer, const void *key, bool apply, const char *what, char *err, size_t len)
{
	struct fwd_tun *t;
	uint32_t gone;

	if (!apply)     /* the check pass of a file runs before earlier lines apply */
		return 0;
	if ((t = fwd_tun_wr(f)) == NULL)
		return vpk_errf(err, len, -ENOMEM, "out of memory");
	if (steer)
		gone = drop_key(t->steer, &t->gdc.n_steer, sizeof(t->steer[0]), key,
				offsetof(struct vpk_gtp4d_steer, plen4) + 1);
	else
		gone = drop_key(t->sid, &t->gec.n_sid, sizeof(t->sid[0]), key,
				offsetof(struct vpk_gtp4e_localsid, plen) + 1);
	return gone != 0 ? 0 : vpk_errf(err, len, -ENOENT, "%s del: no such prefix", what);
}

/* One `KEY [VALUE]` of a steering line into @s; returns the words taken or a negative error. */
static int
steer_key(struct vpk_fwd *f, struct vpk_gtp4d_steer *s, uint8_t bsid[16], unsigned *have, const char *k,
	  const char *val, char *err, size_t len)
{
	if (strcmp(k, "drop-in") == 0)
		return 1;
	if (strcmp(k, "del") == 0) {
		*have |= 16;
		return 1;
	}
	if (strcmp(k, "u-pdu-type") == 0) {
		s->u_from_pdu_type = 1;
		return 1;
	}
	if (val == NULL)
		return vpk_errf(err, len, -EINVAL, "sr steer: '%s' needs a value", k);
	if (strcmp(k, "sr-prefix") == 0) {
		if (prefix(val, 6, s->sr_prefix, &s->sr_plen) != 0 || s->sr_plen > 56)
			return vpk_errf(err, len, -EINVAL, "sr steer: sr-prefix '%s': want an IPv6 prefix of "
				    "length <= 56 (32 + 40 bits must follow it)", val);
		*have |= 1;
	} else if (strcmp(k, "v6src-prefix") == 0) {
		if (prefix(val, 6, s->v6src, &s->v6src_plen) != 0 || s->v6src_plen > 96)
			return vpk_errf(err, len, -EINVAL, "sr steer: v6src-prefix '%s': want an IPv6 prefix of "
				    "length <= 96", val);
		*have |= 2;
	} else if (strcmp(k, "policy") == 0) {
		if (addr(val, bsid) != 6)
			return vpk_errf(err, len, -EINVAL, "sr steer: bad policy BSID '%s'", val);
		*have |= 4;
	} else if (strcmp(k, "via") == 0) {
		if (fwd_parse_u32(val, f->conf.max_neighbors, &s->adj) != 0 || s->adj == 0)
			return vpk_errf(err, len, -EINVAL, "sr steer: via '%s' must be a neighbor ID", val);
		*have |= 8;
	} else if (strcmp(k, "nhtype") == 0) {
		static const char *const nh[3] = { "auto", "ipv4", "ipv6" };   /* enum vpk_gtp4d_nhtype */

		return pick3(val, nh, "sr steer: nhtype", &s->nhtype, err, len) < 0 ? -EINVAL : 2;
	} else {
		return vpk_errf(err, len, -EINVAL, "sr steer: unknown keyword '%s'", k);
	}
	return 2;
}

static int
sr_steer(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	struct vpk_gtp4d_steer s = { 0 };
	struct fwd_tun *t = fwd_tun_rd(f);
	uint8_t p4[16], plen4 = 0, bsid[16];
	unsigned have = 0;      /* 1 sr-prefix, 2 v6src-prefix, 4 policy, 8 via, 16 del */
	int rc;

	if (argc < 4 || strcmp(argv[2], "gtp4-d") != 0 || prefix(argv[3], 4, p4, &plen4) != 0)
		return vpk_errf(err, len, -EINVAL, "usage: sr steer gtp4-d A.B.C.D/LEN sr-prefix P/L v6src-prefix P/L "
			    "[policy BSID | via ID] [nhtype auto|ipv4|ipv6] [u-pdu-type] [drop-in] | "
			    "sr steer gtp4-d A.B.C.D/LEN del");
	s.prefix4 = (uint32_t)p4[0] << 24 | (uint32_t)p4[1] << 16 | (uint32_t)p4[2] << 8 | p4[3];
	s.plen4 = plen4;
	for (int i = 4; i < argc; i += rc)
		if ((rc = steer_key(f, &s, bsid, &have, argv[i], i + 1 < argc ? argv[i + 1] : NULL, err, len)) < 0)
			return rc;
	if (have & 16)
		return sr_del(f, true, &s, apply, "sr steer", err, len);
	if ((have & 3) != 3 || (have & 12) == 12)
		return vpk_errf(err, len, -EINVAL, "sr steer: sr-prefix and v6src-prefix are required; policy and via "
			    "exclude each other (the policy has its own via)");
	if ((have & 4) && apply) {      /* the check pass of a file runs before earlier lines apply */
		uint32_t k;

		for (k = 0; t != NULL && k < t->n_pol && memcmp(t->pol[k].bsid, bsid, 16) != 0; k++)
			;
		if (t == NULL || k == t->n_pol)
			return vpk_errf(err, len, -ENOENT, "sr steer: no policy with BSID %s (define it first)",
				    argv[argc - 1]);
		if ((t = fwd_tun_wr(f)) == NULL)        /* the policy of the version changed, same index */
			return vpk_errf(err, len, -ENOMEM, "out of memory");
		s.policy = &t->pol[k];
	}
	return tun_append(f, apply, TK_STEER, &s, err, len);
}

static int
sr_localsid(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	struct vpk_gtp4e_localsid s = { 0 };
	uint8_t a[16];
	uint32_t pos;

	if ((argc != 6 && argc != 5) || strcmp(argv[2], "end-m-gtp4-e") != 0 ||
	    (argc == 5 && strcmp(argv[4], "del") != 0))
		return vpk_errf(err, len, -EINVAL, "usage: sr localsid end-m-gtp4-e PREFIX/LEN "
			    "(v4src-position BITS | v4src-addr A.B.C.D) | sr localsid end-m-gtp4-e PREFIX/LEN del");
	if (prefix(argv[3], 6, s.prefix, &s.plen) != 0 || s.plen > 56)
		return vpk_errf(err, len, -EINVAL, "sr localsid: '%s': want an IPv6 prefix of length <= 56", argv[3]);
	if (argc == 5)
		return sr_del(f, false, &s, apply, "sr localsid", err, len);
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
	return tun_append(f, apply, TK_SID, &s, err, len);
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
