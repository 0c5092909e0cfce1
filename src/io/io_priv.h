/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_IO_PRIV_H
#define VPK_IO_PRIV_H

/* Private: the port object and the backend operations behind include/vpk/io.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <vpk/io.h>
#include "core/errf.h"
#include "io/desc_kern.h"

struct vpk_io_port;

struct io_ops {
	const char *name;
	int (*open)(struct vpk_io_port *p, char *err, size_t len);
	int (*close)(struct vpk_io_port *p, char *err, size_t len);
	int (*rx)(struct vpk_io_port *p, uint32_t *idx, uint32_t n);
	uint32_t (*tx)(struct vpk_io_port *p, const uint32_t *idx, uint32_t n);  /* frees refused ones */
	int (*flush)(struct vpk_io_port *p);
	bool (*link_up)(struct vpk_io_port *p);
	void (*stats)(const struct vpk_io_port *p, struct vpk_io_stats *st);     /* add backend counters */
	bool counts_bytes;      /* rx and tx add to st.rx_bytes / st.tx_bytes themselves (in their own
				   per-packet loop, saving the generic one a pass over the metadata) */
};

struct vpk_io_port {
	const struct io_ops *ops;
	struct vpk_pool *pool;
	void *base;                     /* pool base */
	struct vpk_io_conf conf;
	char ifname[16];                
	const struct io_desc_kern_impl *k;
	struct vpk_io_stats st;
	int fd;
	char mode[40];                  /* vpk_io_mode() */
	bool has_mac;                   /* mac is the port's address (vpk_io_get_mac) */
	uint8_t mac[6];
	char err[VPK_ERR_LEN];
	void *be;                       /* backend state */
};

/*
 * The tx side of the pcap and replay backends: a pcap file writer whose first
 * error sticks (later bursts are freed and not sent; close reports it).
 */
struct io_pcap_out {
	struct vpk_pcap_writer *wr;     /* NULL: no tx_pcap, transmits are dropped */
	int rc;
};
uint32_t io_pcap_out_tx(struct vpk_io_port *p, struct io_pcap_out *o, const uint32_t *idx, uint32_t n);
int io_pcap_out_flush(struct vpk_io_port *p, struct io_pcap_out *o);
/* Create the writer of @path: 0 or -errno (its text in err). */
int io_pcap_out_open(struct io_pcap_out *o, const char *path, char *err, size_t len);

/* Close the writer: 0 or the first error (its text in err). */
int io_pcap_out_close(struct vpk_io_port *p, struct io_pcap_out *o, char *err, size_t len);
/* The tx and flush ops of a backend whose state (p->be) begins with its struct io_pcap_out. */
uint32_t io_pcap_out_be_tx(struct vpk_io_port *p, const uint32_t *idx, uint32_t n);
int io_pcap_out_be_flush(struct vpk_io_port *p);
/* The link_up op of a backend with no link (files, memory): always up. */
bool io_no_link_up(struct vpk_io_port *p);

extern const struct io_ops io_pcap_ops, io_afpacket_ops, io_xdp_ops;
extern const struct io_ops io_replay_ops;     /* io_replay.c */

/* A backend linked outside libvpk (the DPDK ethdev backend of the vpk tool,
 * which keeps libdpdk out of libvpk's dependencies) registers its ops here
 * before opening ports. 0 or -EINVAL. Not thread-safe: call at start-up. */
int io_backend_register(enum vpk_io_type t, const struct io_ops *ops);

/* Shared by the live backends (io_live.c). */
int io_live_ifindex(struct vpk_io_port *p, unsigned *ifindex, char *err, size_t len);
bool io_live_link_up(struct vpk_io_port *p);
/* The interface's hardware address into p->mac (has_mac set); 0 or -errno. */
int io_live_mac(struct vpk_io_port *p);

#endif
