/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The forwarder's packet sources and sinks, through the burst port
 * interface (include/vpk/io.h): every interface with an input or output
 * is one port (pcap file pair, replay of a pcap from memory, af_packet or
 * af_xdp).
 *  - pcap-input / io-input: one input node (two names: "pcap-input" when
 *    every input is a pcap file, as before; "io-input" when a live port
 *    takes part) reading up to one frame per poll from the ports,
 *    round-robin;
 *  - mem-input: an input node replaying in-memory packet templates (the
 *    demo and the benchmark: no file I/O in the measured loop);
 *  - fwd_tx: interface-output's callback: the interface's port transmits
 *    (and owns the buffers), a discard sink counts and frees, an interface
 *    without output counts "no output" and frees.
 * Live runs end on `run-limit` (seconds / packets), vpk_fwd_stop(), or when
 * every live input went away; idle polls sleep in poll() for up to 1 ms.
 * The input nodes are registered once per process (vpk_node_register).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_packet.h>

#include "common/libvpk_internal.h"
#include "fwd/fwd_priv.h"

/*
 * Packets per input poll: 64, as a NIC driver's rx burst, not a whole
 * frame. The frame's buffers and headers (2 lines a packet) then stay in L1
 * from node to node; at 256 they spill to L2 at every node (about 15%
 * fewer packets per CPU second on the routes-only path, docs/forwarder.md).
 * A graph that classifies polls 128: the classifier's tables fill L1
 * anyway, and the per-frame costs (dispatch, the classify call) spread
 * over twice the packets (docs/forwarder.md).
 */
#define FWD_RX_BURST 64u
#define FWD_RX_BURST_ACL 128u

uint32_t
fwd_rx_burst(const struct vpk_fwd *f)
{
	return f->acl4.acl != NULL || f->acl6.acl != NULL ? FWD_RX_BURST_ACL : FWD_RX_BURST;
}

const char fwd_pcap_input_name[] = "pcap-input";
const char fwd_io_input_name[] = "io-input";
const char fwd_mem_input_name[] = "mem-input";

struct fwd_live {
	double seconds;                 /* run-limit seconds (0: none) */
	uint64_t packets;               /* run-limit packets (0: none) */
	double t_end;                   /* CLOCK_MONOTONIC deadline of this run */
	uint64_t rx;                    /* packets received in this run */
	volatile int stop;              /* vpk_fwd_stop() */
	char *eal;                      /* dpdk-eal arguments */
	bool limited;                   /* a limit was met: stop reading */
};

static struct fwd_live *
live_state(struct vpk_fwd *f)
{
	if (f->live == NULL)
		f->live = calloc(1, sizeof(struct fwd_live));
	return f->live;
}

void
vpk_fwd_stop(struct vpk_fwd *f)
{
	if (f != NULL && f->live != NULL)
		((struct fwd_live *)f->live)->stop = 1;
}

void
fwd_live_free(struct vpk_fwd *f)
{
	for (size_t i = 0; i < f->n_ifs; i++) {
		for (unsigned q = 1; q < f->ifs[i].n_q; q++) {
			vpk_io_destroy(f->ifs[i].xq[q]);
			f->ifs[i].xq[q] = NULL;
		}
		f->ifs[i].n_q = 0;
		vpk_io_destroy(f->ifs[i].io);
		f->ifs[i].io = NULL;
		free(f->ifs[i].live);
		f->ifs[i].live = NULL;
	}
	if (f->live != NULL)
		free(((struct fwd_live *)f->live)->eal);
	free(f->live);
	f->live = NULL;
}

/* run-limit [seconds S] [packets N] */
static int
cmd_run_limit(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	double s = -1;
	uint64_t n = 0;
	bool n_set = false;
	char why[160];
	struct fwd_live *l;

	if (argc < 3 || argc % 2 == 0)
		goto usage;
	for (int i = 1; i < argc; i += 2) {
		if (strcmp(argv[i], "seconds") == 0) {
			if (vpk_num_f64(argv[i + 1], 0, 1e7, &s, why, sizeof(why)) != 0)
				return vpk_errf(err, len, -EINVAL, "run-limit: seconds %s", why);
		} else if (strcmp(argv[i], "packets") == 0) {
			/* Checked, not saturated: 10^23 packets is an error, not 2^63-1. */
			if (vpk_num_u64(argv[i + 1], 0, UINT64_MAX, &n, why, sizeof(why)) != 0)
				return vpk_errf(err, len, -EINVAL, "run-limit: packets %s", why);
			n_set = true;
		} else {
			goto usage;
		}
	}
	if (!apply)
		return 0;
	l = live_state(f);
	if (l == NULL) {
		snprintf(err, len, "run-limit: out of memory");
		return -ENOMEM;
	}
	if (s >= 0)
		l->seconds = s;
	if (n_set)
		l->packets = n;
	return 0;
usage:
	snprintf(err, len, "usage: run-limit [seconds S] [packets N]  (live interfaces: stop after S seconds / N packets)");
	return -EINVAL;
}

const struct fwd_cmd fwd_cmd_run_limit = { "run-limit", cmd_run_limit };

/* dpdk-eal ARG... : kept for the program, which starts the EAL before the run */
static int
cmd_dpdk_eal(struct vpk_fwd *f, int argc, char **argv, bool apply, char *err, size_t len)
{
	char buf[1024] = "";
	size_t n = 0;
	struct fwd_live *l;

	if (argc < 2)
		return vpk_errf(err, len, -EINVAL, "usage: dpdk-eal ARG...  (EAL arguments, e.g. --no-huge -m 512 "
				"--file-prefix vpk)");
	for (int i = 1; i < argc; i++) {
		int w = snprintf(buf + n, sizeof(buf) - n, "%s%s", i > 1 ? " " : "", argv[i]);

		if (w < 0 || (size_t)w >= sizeof(buf) - n)
			return vpk_errf(err, len, -EINVAL, "dpdk-eal: arguments longer than %zu bytes", sizeof(buf) - 1);
		n += (size_t)w;
	}
	if (!apply)
		return 0;
	l = live_state(f);
	if (l == NULL || (free(l->eal), l->eal = strdup(buf)) == NULL)
		return vpk_errf(err, len, -ENOMEM, "dpdk-eal: out of memory");
	return 0;
}

const struct fwd_cmd fwd_cmd_dpdk_eal = { "dpdk-eal", cmd_dpdk_eal };

const char *
vpk_fwd_dpdk_eal(const struct vpk_fwd *f)
{
	return f->live != NULL ? ((const struct fwd_live *)f->live)->eal : NULL;
}

static bool
has_live(const struct vpk_fwd *f)
{
	for (size_t i = 0; i < f->n_ifs; i++)
		if (f->ifs[i].live != NULL)
			return true;
	return false;
}

/* Inputs replayed from memory (`in FILE loop`): run-limit and vpk_fwd_stop() apply. */
static bool
has_loop(const struct vpk_fwd *f)
{
	for (size_t i = 0; i < f->n_ifs; i++)
		if (f->ifs[i].loop && f->ifs[i].in_path != NULL)
			return true;
	return false;
}

const char *
fwd_input_name(const struct vpk_fwd *f)
{
	return f->n_tmpl > 0 ? fwd_mem_input_name : has_live(f) ? fwd_io_input_name : fwd_pcap_input_name;
}

/*
 * Every pcap a run writes must differ from every pcap it reads, and from
 * the other outputs: opening an output truncates it, so `in X out X`
 * would cut its own input to a header. Compared by device and inode, so
 * another path, a symbolic or a hard link to the same file is caught too.
 */
static int
check_distinct_files(const struct vpk_fwd *f, bool want_input, char *err, size_t len)
{
	for (size_t o = 0; o < f->n_ifs; o++) {
		const struct fwd_if *w = &f->ifs[o];

		if (w->live != NULL || w->out_path == NULL)
			continue;
		for (size_t i = 0; i < f->n_ifs; i++) {
			const struct fwd_if *r = &f->ifs[i];

			if (r->live != NULL)
				continue;
			if (want_input && vpk_same_file(r->in_path, w->out_path))
				return vpk_errf(err, len, -EINVAL,
						"interface %s: out %s is the same file as in %s of interface %s "
						"(a run's inputs and outputs must differ)",
						w->name, w->out_path, r->in_path, r->name);
			if (i < o && r->out_path != NULL && (vpk_same_file(r->out_path, w->out_path) ||
							     strcmp(r->out_path, w->out_path) == 0))
				return vpk_errf(err, len, -EINVAL,
						"interface %s: out %s is the same file as out %s of interface %s",
						w->name, w->out_path, r->out_path, r->name);
		}
	}
	return 0;
}

int
fwd_io_option(struct fwd_if *x, const char *opt, const char *val, bool apply, char *err, size_t len)
{
	uint32_t n = 0;

	if (strcmp(opt, "queues") == 0) {
		if (strcmp(val, "all") != 0 && (fwd_parse_u32(val, FWD_MAX_QUEUES, &n) != 0 || n == 0))
			return vpk_errf(err, len, -EINVAL, "interface: queues '%s': want 1..%u or all", val,
					FWD_MAX_QUEUES);
		if (apply && x != NULL) {
			x->queues = n;
			x->queues_set = true;
		}
		return 0;
	}
	if (strcmp(opt, "xdp-mode") == 0) {
		enum vpk_io_xdp_mode m = VPK_IO_XDP_AUTO;

		if (strcmp(val, "zc") == 0)
			m = VPK_IO_XDP_ZEROCOPY;
		else if (strcmp(val, "copy") == 0)
			m = VPK_IO_XDP_COPY;
		else if (strcmp(val, "auto") != 0)
			return vpk_errf(err, len, -EINVAL, "interface: xdp-mode '%s': want zc, copy or auto", val);
		if (apply && x != NULL)
			x->xdp_mode = m;
		return 0;
	}
	return 1;
}

struct vpk_io_port *
fwd_if_queue(const struct fwd_if *x, unsigned q)
{
	if (q == 0)
		return x->io;
	return q < x->n_q ? x->xq[q] : NULL;
}

/*
 * The port(s) of interface @x: one, or with af_xdp one socket per receive
 * queue. A queue without a socket would hand its packets to the kernel
 * unseen: more receive queues than `queues` is an error, as is asking for
 * more than the device has. An af_packet socket receives from every queue.
 */
static int
open_queues(struct vpk_fwd *f, struct fwd_if *x, struct vpk_io_conf *c, char *err, size_t len)
{
	uint32_t rxq = 1, txq = 1, want = 1;
	int rc;

	x->n_q = 0;
	x->q_rr = 0;
	if (x->live != NULL && c->type == VPK_IO_DPDK) {
		want = x->queues_set && x->queues > 0 ? x->queues : 1;
		c->n_queues = want;     /* RSS over them; read in turn */
	}
	if (x->live != NULL && c->type == VPK_IO_AF_PACKET && x->queues_set)
		return vpk_errf(err, len, -EINVAL, "interface %s: 'queues' is for io af_xdp (an af_packet socket "
				"receives from every queue)", x->name);
	if (x->live != NULL && c->type == VPK_IO_AF_PACKET && f->conf.workers > 1) {
		/* One socket per worker in a PACKET_FANOUT group: the kernel spreads flows (hash). */
		want = f->conf.workers < FWD_MAX_QUEUES ? f->conf.workers : FWD_MAX_QUEUES;
		c->fanout_group = (uint16_t)((getpid() * 64 + (int)c->port_id) & 0xffff);
		c->fanout_mode = PACKET_FANOUT_HASH;
	}
	if (x->live != NULL && c->type == VPK_IO_AF_XDP) {
		rc = vpk_io_queue_count(x->live, &rxq, &txq);
		if (rc != 0)
			return vpk_errf(err, len, rc, "%s", vpk_last_error());
		want = !x->queues_set ? 1 : x->queues == 0 ? rxq : x->queues;
		if (rxq > want)
			return vpk_errf(err, len, -EINVAL, "interface %s: %s has %u receive queues and vpk would serve "
					"%u: packets on queues %u..%u would reach the kernel unseen (add 'queues all')",
					x->name, x->live, rxq, want, want, rxq - 1);
		if (want > rxq || want > FWD_MAX_QUEUES)
			return vpk_errf(err, len, -EINVAL, "interface %s: queues %u: %s has %u receive queues",
					x->name, want, x->live, rxq);
		c->xdp_mode = x->xdp_mode;
	}
	c->pool = f->pool;
	rc = vpk_io_create(c, &x->io);
	if (rc != 0)
		return vpk_errf(err, len, rc, "%s", vpk_last_error());
	x->n_q = 1;
	for (uint32_t q = 1; q < want; q++) {
		c->queue = q;
		rc = vpk_io_create(c, &x->xq[q]);
		if (rc != 0)
			return vpk_errf(err, len, rc, "%s", vpk_last_error());
		x->n_q = q + 1;
	}
	return 0;
}

int
fwd_io_open(struct vpk_fwd *f, bool want_input, char *err, size_t len)
{
	size_t inputs = 0;
	struct fwd_live *l = NULL;
	int rc = check_distinct_files(f, want_input, err, len);

	if (rc != 0)
		return rc;

	if (has_live(f) || has_loop(f)) {
		l = live_state(f);
		if (l == NULL)
			return -ENOMEM;
		l->rx = 0;
		l->stop = 0;
		l->limited = false;
		l->t_end = l->seconds > 0 ? fwd_now_s() + l->seconds : 0;
	}
	for (size_t i = 0; i < f->n_ifs; i++) {
		struct fwd_if *x = &f->ifs[i];
		struct vpk_io_conf c = { .port_id = (uint32_t)i, .isa = f->conf.isa };

		x->rd_done = false;
		if (x->live != NULL) {
			c.type = x->live_type;
			c.ifname = x->live;
		} else {
			c.type = x->loop && want_input ? VPK_IO_REPLAY : VPK_IO_PCAP;
			c.replay_loops = x->loops;
			c.rx_pcap = want_input ? x->in_path : NULL;
			c.tx_pcap = x->out_path;
			if (c.rx_pcap == NULL && c.tx_pcap == NULL)
				continue;
		}
		rc = open_queues(f, x, &c, err, len);
		if (rc != 0)
			return rc;
		x->has_input = x->live != NULL || c.rx_pcap != NULL;
		inputs += x->has_input;
	}
	if (want_input && inputs == 0)
		return vpk_errf(err, len, -EINVAL, "no input: declare an interface with 'in FILE.pcap' or 'live DEV'");
	for (size_t i = 0; i < f->n_ifs; i++) {
		struct fwd_if *x = &f->ifs[i];
		uint8_t mac[6];

		/* A router's port answers to its device's address unless told another. */
		if (x->live != NULL && x->io != NULL && !x->mac_set && vpk_io_get_mac(x->io, mac) == 0)
			fwd_l2_set_mac(f, i, mac);
	}
	rc = fwd_l2_prepare(f);
	if (rc != 0)
		return vpk_errf(err, len, rc, "L2 input: out of memory");
	fwd_stats_start(f);
	return 0;
}

void
fwd_io_close(struct vpk_fwd *f, int *rc, char *err, size_t len)
{
	/* Live ports: let the last transmissions leave before the sockets go. */
	for (int round = 0; round < 3 && has_live(f); round++) {
		for (size_t i = 0; i < f->n_ifs; i++)
			for (unsigned q = 0; fwd_if_queue(&f->ifs[i], q) != NULL; q++)
				vpk_io_flush(fwd_if_queue(&f->ifs[i], q));
		poll(NULL, 0, 5);
	}
	fwd_stats_snapshot(f);          /* the run's final port counters */
	for (size_t i = 0; i < f->n_ifs; i++) {
		struct fwd_if *x = &f->ifs[i];
		struct vpk_io_stats st;
		int crc;

		if (x->io == NULL)
			continue;
		for (unsigned q = x->n_q; q-- > 1;) {
			vpk_io_get_stats(x->xq[q], &st);
			x->rx_skipped += st.rx_skipped;
			x->rx_drop += st.rx_drop;
			x->tx_drop += st.tx_drop;
			vpk_io_destroy(x->xq[q]);
			x->xq[q] = NULL;
		}
		x->n_q = 0;
		vpk_io_get_stats(x->io, &st);
		x->rx_skipped += st.rx_skipped;
		x->rx_drop += st.rx_drop;
		x->tx_drop += st.tx_drop;
		crc = vpk_io_destroy(x->io);
		x->io = NULL;
		if (crc != 0 && *rc == 0)
			*rc = vpk_errf(err, len, crc, "%s", vpk_last_error());
	}
}

static bool
limits_met(struct vpk_fwd *f)
{
	struct fwd_live *l = f->live;

	if (l == NULL)
		return false;
	if (!l->limited)
		l->limited = l->stop || (l->packets > 0 && l->rx >= l->packets) ||
			     (l->t_end > 0 && fwd_now_s() >= l->t_end);
	return l->limited;
}

bool
fwd_io_inputs_done(struct vpk_fwd *f, bool mem)
{
	if (mem)
		return f->traffic_done >= f->traffic_total;
	if (limits_met(f))
		return true;
	for (size_t i = 0; i < f->n_ifs; i++)
		if (f->ifs[i].io != NULL && f->ifs[i].has_input && !f->ifs[i].rd_done)
			return false;
	return true;
}

void
fwd_io_idle(struct vpk_fwd *f)
{
	struct pollfd pfd[FWD_MAX_IFS];
	nfds_t n = 0;

	for (size_t i = 0; i < f->n_ifs; i++) {
		struct fwd_if *x = &f->ifs[i];

		if (x->io == NULL || x->live == NULL)
			continue;
		for (unsigned q = 0; fwd_if_queue(x, q) != NULL && n < FWD_MAX_IFS; q++) {
			struct vpk_io_port *io = fwd_if_queue(x, q);

			vpk_io_flush(io);
			if (!x->rd_done && vpk_io_fd(io) >= 0)
				pfd[n++] = (struct pollfd){ .fd = vpk_io_fd(io), .events = POLLIN };
		}
	}
	if (n > 0)
		(void)poll(pfd, n, 1);
}

int
fwd_if_rx(struct vpk_fwd *f, struct fwd_if *in, uint32_t *idx, uint32_t want)
{
	struct vpk_io_port *io;
	int got = 0;

	fwd_stats_tick(f);
	if (in->io == NULL || !in->has_input || in->rd_done)
		return 0;
	/* Every queue in turn, up to one burst per call. */
	for (unsigned t = 0; t < (in->n_q > 1 ? in->n_q : 1u); t++) {
		io = fwd_if_queue(in, in->q_rr);
		in->q_rr = in->n_q > 1 ? (in->q_rr + 1) % in->n_q : 0;
		got = vpk_io_rx_burst(io, idx, want);
		if (got != 0)
			break;
	}
	if (got >= 0)
		return got;
	/* End of a file or a live interface gone: stop reading it. A bad file
	 * is an error of the run (the first one is reported). */
	if (got != -ENODATA && got != -ENETDOWN && f->io_rc == 0) {
		f->io_rc = got;
		snprintf(f->io_err, sizeof(f->io_err), "%s", vpk_last_error());
	}
	in->rd_done = true;
	return 0;
}

/*
 * Worker @w of @nw reads the queues q of @in with q % nw == w (a fanout
 * socket, an af_xdp or a dpdk queue each), one burst per call, in turn.
 * Counters as fwd_if_rx(), added atomically: every worker counts.
 */
int
fwd_if_rx_worker(struct vpk_fwd *f, struct fwd_if *in, unsigned w, unsigned nw, uint32_t *idx, uint32_t want)
{
	struct fwd_live *l = f->live;

	if (in->io == NULL || !in->has_input || in->rd_done || in->n_q <= w)
		return 0;
	if (l != NULL) {
		uint64_t rx = __atomic_load_n(&l->rx, __ATOMIC_RELAXED);

		if (limits_met(f) || (l->packets > 0 && rx >= l->packets))
			return 0;
		if (l->packets > 0 && l->packets - rx < want)
			want = (uint32_t)(l->packets - rx);
	}
	for (unsigned q = w; q < in->n_q; q += nw) {
		int got = vpk_io_rx_burst(fwd_if_queue(in, q), idx, want);

		if (got < 0) {
			in->rd_done = true;     /* the interface went away */
			return 0;
		}
		if (got > 0) {
			__atomic_fetch_add(&in->rx, (uint64_t)got, __ATOMIC_RELAXED);
			if (l != NULL)
				__atomic_fetch_add(&l->rx, (uint64_t)got, __ATOMIC_RELAXED);
			return got;
		}
	}
	return 0;
}

/*
 * Nothing to read for worker @w: flush its queues' transmissions (ports with
 * a queue per worker: no other thread touches them) and wait up to 1 ms.
 */
void
fwd_io_idle_worker(struct vpk_fwd *f, unsigned w, unsigned nw)
{
	struct pollfd pfd[FWD_MAX_IFS];
	nfds_t n = 0;

	for (size_t i = 0; i < f->n_ifs; i++) {
		struct fwd_if *x = &f->ifs[i];

		for (unsigned q = w; x->io != NULL && x->live != NULL && q < x->n_q && n < FWD_MAX_IFS; q += nw) {
			if (x->n_q >= nw)
				vpk_io_flush(fwd_if_queue(x, q));
			if (!x->rd_done && vpk_io_fd(fwd_if_queue(x, q)) >= 0)
				pfd[n++] = (struct pollfd){ .fd = vpk_io_fd(fwd_if_queue(x, q)), .events = POLLIN };
		}
	}
	(void)poll(pfd, n, 1);
}

/*
 * Worker @w of @nw sends on queue w of the output port when the port has a
 * queue per worker: that queue (its socket, its af_xdp rings and ownership
 * bits) is then only ever used by this worker, for input too, so no lock.
 * @return false when the port has fewer queues (or is a file): the caller
 * sends under the output lock through queue 0, which then no worker reads
 * (workers read their own queues only where every worker has one).
 */
bool
fwd_tx_worker(struct vpk_fwd *f, unsigned w, unsigned nw, uint32_t tx_if, const uint32_t *bi, uint32_t n)
{
	struct fwd_if *o = tx_if < f->n_ifs ? &f->ifs[tx_if] : NULL, *port;
	uint32_t sent;

	if (o == NULL)
		return false;
	port = o->parent != 0 ? &f->ifs[o->parent - 1] : o;
	if (port->live == NULL || port->io == NULL || port->n_q < nw || w >= port->n_q)
		return false;
	if (o->parent != 0)
		(void)fwd_l2_egress(f, tx_if, bi, n);  /* tagged, leaves on its port */
	sent = vpk_io_tx_burst(fwd_if_queue(port, w), bi, n);  /* the port owns the buffers now */
	__atomic_fetch_add(&o->tx, (uint64_t)sent, __ATOMIC_RELAXED);
	return true;
}

static uint32_t
io_input_fn(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	struct vpk_fwd *f = vpk_node_ctx(rt);
	struct fwd_live *l = f->live;
	uint32_t idx[VPK_FRAME_SIZE], want = f->rx_burst != 0 ? f->rx_burst : FWD_RX_BURST;
	void *base = vpk_node_pool_base(rt);

	(void)b;
	(void)bi;
	(void)n;
	if (l != NULL) {
		if (limits_met(f))
			return 0;
		if (l->packets > 0 && l->packets - l->rx < want)
			want = (uint32_t)(l->packets - l->rx);
	}
	for (size_t tries = 0; tries < f->n_ifs; tries++) {
		struct fwd_if *in = &f->ifs[f->rr];
		int got;

		f->rr = (f->rr + 1) % f->n_ifs;
		got = fwd_if_rx(f, in, idx, want);
		if (got == 0)
			continue;
		for (int i = 0; i < got; i++)          /* false: the trace budget is spent */
			if (!vpk_node_trace_mark(rt, vpk_buf_from_idx(base, idx[i])))
				break;
		in->rx += (uint64_t)got;
		if (l != NULL)
			l->rx += (uint64_t)got;
		vpk_node_enqueue_one(rt, idx, 0, (uint32_t)got);
		return (uint32_t)got;
	}
	return 0;
}

static uint32_t
mem_input_fn(struct vpk_node_rt *rt, struct vpk_buf **b, uint32_t *bi, uint32_t n)
{
	struct vpk_fwd *f = vpk_node_ctx(rt);
	uint32_t got;

	(void)b;
	(void)bi;
	(void)n;
	got = fwd_mem_frame(rt, f, NULL, 0, f->traffic_done, f->traffic_total - f->traffic_done);
	f->traffic_done += got;
	if (f->n_ifs > 0)
		f->ifs[0].rx += got;
	return got;
}

void
fwd_tx(void *ctx, uint32_t tx_if, const uint32_t *bi, uint32_t n)
{
	struct vpk_fwd *f = ctx;
	struct fwd_if *o = tx_if < f->n_ifs ? &f->ifs[tx_if] : NULL, *port = o;

	if (o != NULL && o->parent != 0)
		port = &f->ifs[fwd_l2_egress(f, tx_if, bi, n)];     /* tagged, leaves on its port */
	if (o != NULL && port->io != NULL && (port->out_path != NULL || port->live != NULL)) {
		uint32_t sent = vpk_io_tx_burst(port->io, bi, n);  /* the port owns the buffers now */

		if (port->live == NULL) {
			/* A pcap write error ends the run with the writer's message. */
			if (sent < n && f->io_rc == 0) {
				f->io_rc = -EIO;
				snprintf(f->io_err, sizeof(f->io_err), "%s", vpk_last_error());
			}
			o->tx += n;
		} else {
			o->tx += sent;
		}
		return;
	}
	if (o != NULL && port->discard)
		o->tx += n;
	else if (o != NULL)
		o->tx_no_output += n;
	vpk_pool_free_bulk(f->pool, bi, n);
}

FWD_INPUT_NODE(pcap_input, fwd_pcap_input_name, io_input_fn, 1);
FWD_INPUT_NODE(io_input, fwd_io_input_name, io_input_fn, 1);
FWD_INPUT_NODE(mem_input, fwd_mem_input_name, mem_input_fn, 1);

static int reg_rc;
static pthread_once_t reg_once = PTHREAD_ONCE_INIT;

static void
do_register(void)
{
	reg_rc = vpk_node_register(&pcap_input_reg);
	if (reg_rc == 0)
		reg_rc = vpk_node_register(&io_input_reg);
	if (reg_rc == 0)
		reg_rc = vpk_node_register(&mem_input_reg);
}

int
fwd_register_nodes(void)
{
	pthread_once(&reg_once, do_register);
	return reg_rc;
}
