/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_FWD_PRIV_H
#define VPK_FWD_PRIV_H

/* Private state of the forwarder (src/fwd/). */
#include <vpk/buf.h>
#include <vpk/fib.h>
#include <vpk/fwd.h>
#include <vpk/nodes.h>
#include <vpk/pcap.h>

#define FWD_MAX_IFS 64
#define FWD_NAME_MAX 32
#define FWD_MAX_SHOWS 32

struct fwd_if {
	char name[FWD_NAME_MAX];
	uint8_t mac[6];
	char *in_path, *out_path;
	struct vpk_pcap_reader *rd;     /* open during a run */
	struct vpk_pcap_writer *wr;
	bool rd_done;
	bool discard;                   /* out discard: a sink that counts */
	uint64_t rx, rx_skipped, tx, tx_no_output;
};

struct vpk_fwd {
	struct vpk_fwd_conf conf;
	struct vpk_pool *pool;
	struct vpk_fib *fib4;
	struct vpk_adj *adj;            /* [0 .. max_neighbors], 0 unused ("no route") */
	struct vpk_adj_table adjt;
	uint32_t *adj_if;               /* interface index of each neighbor (MAC source) */
	struct fwd_if ifs[FWD_MAX_IFS];
	size_t n_ifs;
	char *shows[FWD_MAX_SHOWS];
	size_t n_shows;
	/* in-memory traffic */
	uint8_t *tmpl;                  /* n_tmpl slots of FWD_TMPL_MAX bytes */
	uint16_t *tmpl_len;
	size_t n_tmpl;
	uint64_t traffic_total, traffic_done;
	/* the run */
	struct vpk_graph *graph;
	struct vpk_if_output out;
	size_t rr;                      /* round-robin cursor over inputs */
	char io_err[256];
	int io_rc;
};

#define FWD_TMPL_MAX 2048u

/* fwd_io.c */
int fwd_register_nodes(void);
extern const char fwd_pcap_input_name[], fwd_mem_input_name[];
void fwd_tx(void *ctx, uint32_t tx_if, const uint32_t *bi, uint32_t n);

#endif
