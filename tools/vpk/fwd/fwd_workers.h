/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_FWD_WORKERS_H
#define VPK_FWD_WORKERS_H

/* Private: worker threads of the forwarder (fwd_workers.c) and wide cores (fwd_wide.c). */
#include <pthread.h>
#include <stdatomic.h>

#include <vpk/rss.h>
#include "fwd/fwd_priv.h"

#define RING_SIZE 4096u
#define RETA_SIZE 128u

struct fwd_wide;
struct wide_ring;

struct fwd_wk {
	struct vpk_fwd *f;
	struct fwd_wstate *ws;
	unsigned id;
	pthread_t th;
	struct vpk_graph *g;
	uint32_t ring[RING_SIZE];
	_Atomic uint32_t head, tail;    /* producer writes head, consumer tail */
	uint32_t *tmpl;                 /* template numbers of this worker's flows */
	size_t n_tmpl;
	uint64_t quota, done, produced;
	/* core specialization (fwd_wide.c): frames of wide nodes go to a wide worker */
	struct wide_ring *to_wide, *from_wide;
	_Atomic uint64_t outstanding;   /* packets handed to the wide worker, not yet back */
	_Atomic bool finished;          /* set when this worker has nothing left */
	uint64_t handed, returned;
	unsigned rr;                    /* queue-input: next port to read */
};

struct fwd_wstate {
	pthread_mutex_t tx_lock;
	struct vpk_rss *rss[4];         /* tuple lengths 12, 8, 36, 32 */
	_Atomic bool input_done;
	bool direct;                    /* workers read their own queues (queue-input), no dispatcher */
	struct fwd_wk *wk;
	unsigned n;
	struct fwd_wide *wide;          /* NULL unless --wide-cores */
};


/* fwd_wide.c */
int fwd_wide_prepare(struct vpk_fwd *f, struct fwd_wstate *ws, char *err, size_t len);
int fwd_wide_start(struct vpk_fwd *f, struct fwd_wstate *ws, char *err, size_t len);
void fwd_wide_join(struct vpk_fwd *f, struct fwd_wstate *ws);
void fwd_wide_free(struct fwd_wstate *ws);
bool fwd_wide_worker_idle(struct fwd_wk *wk);
unsigned fwd_wide_cpu_of(const struct vpk_fwd *f, unsigned normal_worker);
extern const char fwd_wide_return_name[];

#endif
