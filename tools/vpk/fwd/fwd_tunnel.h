/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_FWD_TUNNEL_H
#define VPK_FWD_TUNNEL_H

/*
 * The tunnel feature's state, shared by its command file (fwd_tunnel.c) and
 * the file that builds graphs with it and publishes changes while they run
 * (fwd_tunnel_live.c).
 */
#include <stdatomic.h>

#include <vpk/tunnel.h>
#include "fwd/fwd_priv.h"

#define TUN_MAX_VXLAN 4096u
#define TUN_MAX_SR 64u          /* SR policies */
#define TUN_MAX_STEER 4096u     /* GTP4.D steering entries, End.M.GTP4.E localsids */
#define TUN_N_NODES 8u          /* the nodes that read the tables (fwd_tunnel_live.c) */

/* One version of the tables: the confs point into its own arrays. */
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

/*
 * vpk_fwd::tunnels. Without live changes `cur` is changed in place. While
 * graphs run with the control socket on, a line (or a file) changes `next`,
 * a copy of `cur`; fwd_tunnel_commit() builds every graph's node contexts
 * from it aside and the graphs take them all at once at their next
 * quiescent state (fwd_tunnel_adopt()); then `next` becomes `cur` and the
 * old version and contexts are freed.
 */
struct fwd_tuns {
	struct fwd_tun *cur;
	struct fwd_tun *next;
	_Atomic uint64_t gen;                   /* publications so far */
	uint64_t seen[FWD_MAX_GRAPHS];          /* per graph slot: the publication it took */
	void *pend[2][FWD_MAX_GRAPHS][TUN_N_NODES];     /* by gen & 1: the contexts to take */
};

/* The version lines read (next while a live change is pending, else cur); NULL: none. */
struct fwd_tun *fwd_tun_rd(const struct vpk_fwd *f);
/* The version a line changes (created, or copied for a live change); NULL: out of memory. */
struct fwd_tun *fwd_tun_wr(struct vpk_fwd *f);
/* True while graphs run that take tunnel changes live. */
bool fwd_tun_live(const struct vpk_fwd *f);

#endif
