/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Live port counters of the forwarder: per interface and per queue rx, tx,
 * drops in the kernel / NIC (rx_drop), refused transmissions (tx_drop) and
 * buffers the port holds, as the ports (include/vpk/io.h) count them.
 *
 * Only the thread that reads the ports touches them: it copies their
 * counters into fwd_if::qst about every 100 ms (fwd_stats_tick(), called
 * by fwd_if_rx()) and once more before closing them, so
 * vpk_fwd_queue_stats() reads plain memory that is never freed during a
 * run, from any thread. `stats-period S` also prints them to stderr every
 * S seconds, with rates, as vpk iofwd --stats-period does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fwd/fwd_priv.h"

#define SNAPSHOT_S 0.1

struct fwd_stats {
	double period;                  /* stats-period (0: no printing) */
	double t0, t_snap, t_print;
	unsigned ticks;
	uint64_t last_rx[FWD_MAX_IFS], last_tx[FWD_MAX_IFS];
};

static struct fwd_stats *
state(struct vpk_fwd *f)
{
	if (f->stats == NULL)
		f->stats = calloc(1, sizeof(struct fwd_stats));
	return f->stats;
}

/* stats-period S */
static int
cmd_stats_period(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	char why[160];
	double s;
	struct fwd_stats *st;

	if (argc != 2)
		return vpk_errf(err, len, -EINVAL, "usage: stats-period S  (live runs: port counters on stderr "
				"every S seconds; 0: off)");
	if (vpk_num_f64(argv[1], 0, 1e6, &s, why, sizeof(why)) != 0)
		return vpk_errf(err, len, -EINVAL, "stats-period: %s", why);
	if (!apply)
		return 0;
	st = state(f);
	if (st == NULL)
		return vpk_errf(err, len, -ENOMEM, "stats-period: out of memory");
	st->period = s;
	return 0;
}

const struct fwd_cmd fwd_cmd_stats_period = { "stats-period", cmd_stats_period };

void
fwd_stats_snapshot(struct vpk_fwd *f)
{
	for (size_t i = 0; i < f->n_ifs; i++) {
		struct fwd_if *x = &f->ifs[i];
		unsigned q;

		if (x->io == NULL)
			continue;
		x->qbackend = vpk_io_type_name(x->io);
		for (q = 0; q < FWD_MAX_QUEUES && fwd_if_queue(x, q) != NULL; q++) {
			vpk_io_get_stats(fwd_if_queue(x, q), &x->qst[q]);
			snprintf(x->qmode[q], sizeof(x->qmode[q]), "%s", vpk_io_mode(fwd_if_queue(x, q)));
		}
		x->qn = q;
	}
}

static void
print_stats(struct vpk_fwd *f, struct fwd_stats *st, double now)
{
	double dt = now - st->t_print;

	fprintf(stderr, "fwd: %.1f s\n", now - st->t0);
	for (size_t i = 0; i < f->n_ifs; i++) {
		const struct fwd_if *x = &f->ifs[i];

		if (x->qn == 0)
			continue;
		fprintf(stderr, "  %-8s rx %12llu tx %12llu  rx-pps %10.0f tx-pps %10.0f\n", x->name,
			(unsigned long long)x->rx, (unsigned long long)x->tx,
			dt > 0 ? (double)(x->rx - st->last_rx[i]) / dt : 0,
			dt > 0 ? (double)(x->tx - st->last_tx[i]) / dt : 0);
		st->last_rx[i] = x->rx;
		st->last_tx[i] = x->tx;
		for (unsigned q = 0; q < x->qn; q++) {
			const struct vpk_io_stats *s = &x->qst[q];

			fprintf(stderr, "    %s q%u %-18s rx %12llu tx %12llu rx-drop %8llu tx-drop %8llu bufs %6llu\n",
				x->qbackend, q, x->qmode[q], (unsigned long long)s->rx, (unsigned long long)s->tx,
				(unsigned long long)s->rx_drop, (unsigned long long)s->tx_drop,
				(unsigned long long)s->bufs_held);
		}
	}
	st->t_print = now;
}

void
fwd_stats_tick(struct vpk_fwd *f)
{
	struct fwd_stats *st = state(f);
	double now;

	if (st == NULL || (++st->ticks & 63) != 1)
		return;
	now = fwd_now_s();
	if (st->t0 == 0)
		st->t0 = st->t_snap = st->t_print = now;
	if (now - st->t_snap >= SNAPSHOT_S) {
		fwd_stats_snapshot(f);
		st->t_snap = now;
	}
	if (st->period > 0 && now - st->t_print >= st->period)
		print_stats(f, st, now);
}

/* A run starts: time from now, rates from the counters now. */
void
fwd_stats_start(struct vpk_fwd *f)
{
	struct fwd_stats *st = state(f);

	if (st == NULL)
		return;
	st->t0 = st->t_snap = st->t_print = fwd_now_s();
	st->ticks = 0;
	for (size_t i = 0; i < f->n_ifs && i < FWD_MAX_IFS; i++) {
		st->last_rx[i] = f->ifs[i].rx;
		st->last_tx[i] = f->ifs[i].tx;
		f->ifs[i].qn = 0;
	}
	fwd_stats_snapshot(f);
}

void
fwd_stats_free(struct vpk_fwd *f)
{
	free(f->stats);
	f->stats = NULL;
}

unsigned
vpk_fwd_n_queues(const struct vpk_fwd *f, size_t i)
{
	return f != NULL && i < f->n_ifs ? f->ifs[i].qn : 0;
}

int
vpk_fwd_queue_stats(const struct vpk_fwd *f, size_t i, unsigned q, struct vpk_fwd_queue_stats *out)
{
	const struct fwd_if *x;

	if (f == NULL || out == NULL || i >= f->n_ifs || q >= f->ifs[i].qn)
		return -EINVAL;
	x = &f->ifs[i];
	out->backend = x->qbackend != NULL ? x->qbackend : "";
	out->mode = x->qmode[q];
	out->queue = q;
	out->io = x->qst[q];
	return 0;
}
