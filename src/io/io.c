/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The burst port interface (include/vpk/io.h): argument checks, backend
 * dispatch, counters; and the pcap backend, a pcap reader / writer pair
 * (include/vpk/pcap.h) behind the same rx/tx burst calls.
 */
#include <stdlib.h>
#include <string.h>

#include <vpk/pcap.h>
#include "io/io_priv.h"

static const struct io_ops *dpdk_ops;   /* io_backend_register() */

/* Ports of a type with no backend linked into this program open with -ENOTSUP. */
static int
unlinked_open(struct vpk_io_port *p, char *err, size_t len)
{
	return vpk_errf(err, len, -ENOTSUP, "%s %s: no such backend in this program (the vpk tool has it when "
		       "built with libdpdk-dev, once --eal 'EAL ARGS' started the EAL)", p->ops->name, p->ifname);
}

static const struct io_ops unlinked_dpdk_ops = { .name = "dpdk", .open = unlinked_open };

static const struct io_ops *
backend(enum vpk_io_type t)
{
	switch (t) {
	case VPK_IO_PCAP: return &io_pcap_ops;
	case VPK_IO_AF_PACKET: return &io_afpacket_ops;
	case VPK_IO_AF_XDP: return &io_xdp_ops;
	case VPK_IO_REPLAY: return &io_replay_ops;
	case VPK_IO_DPDK: return dpdk_ops != NULL ? dpdk_ops : &unlinked_dpdk_ops;
	default: return NULL;
	}
}

int
io_backend_register(enum vpk_io_type t, const struct io_ops *ops)
{
	if (t != VPK_IO_DPDK || ops == NULL)
		return -EINVAL;
	dpdk_ops = ops;
	return 0;
}

int
vpk_io_type_parse(const char *s, enum vpk_io_type *out)
{
	static const char *const names[] = { "auto", "pcap", "af_packet", "af_xdp", "replay", "dpdk" };

	if (s == NULL || out == NULL)
		return -EINVAL;
	for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (enum vpk_io_type)i;
			return 0;
		}
	return -EINVAL;
}

int
vpk_io_create(const struct vpk_io_conf *conf, struct vpk_io_port **out)
{
	char *err = vpk_errbuf();
	size_t len = VPK_ERR_LEN;
	struct vpk_pool *pool;
	struct vpk_io_port *p;
	enum vpk_io_type t;
	int rc;

	pool = conf != NULL ? conf->pool : NULL;
	if (pool == NULL || conf == NULL || out == NULL)
		return vpk_errf(err, len, -EINVAL, "io: NULL argument");
	t = conf->type;
	if (t == VPK_IO_AUTO)
		t = conf->rx_pcap != NULL || conf->tx_pcap != NULL ? VPK_IO_PCAP : VPK_IO_AF_PACKET;
	if (backend(t) == NULL)
		return vpk_errf(err, len, -EINVAL, "io: unknown backend %d", (int)conf->type);
	if (t != VPK_IO_PCAP && t != VPK_IO_REPLAY && t != VPK_IO_DPDK &&
	    (conf->ifname == NULL || conf->ifname[0] == '\0' || strlen(conf->ifname) >= 16))
		return vpk_errf(err, len, -EINVAL, "io: a live port needs an interface name of 1..15 characters");
	if (t == VPK_IO_DPDK && (conf->ifname == NULL || conf->ifname[0] == '\0'))
		return vpk_errf(err, len, -EINVAL, "io: a dpdk port needs a PCI address or vdev arguments");
	if (t == VPK_IO_PCAP && conf->rx_pcap == NULL && conf->tx_pcap == NULL)
		return vpk_errf(err, len, -EINVAL, "io: a pcap port needs an rx or a tx file");
	if (t == VPK_IO_REPLAY && conf->rx_pcap == NULL)
		return vpk_errf(err, len, -EINVAL, "io: a replay port needs an rx file");
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return vpk_errf(err, len, -ENOMEM, "io: out of memory");
	p->ops = backend(t);
	p->pool = pool;
	p->base = vpk_pool_base(pool);
	p->conf = *conf;
	p->conf.type = t;
	p->fd = -1;
	snprintf(p->ifname, sizeof(p->ifname), "%s", t == VPK_IO_PCAP || t == VPK_IO_REPLAY ? p->ops->name : conf->ifname);
	rc = io_desc_kern_get(conf->isa, &p->k);
	if (rc != 0) {
		free(p);
		return vpk_errf(err, len, rc, "io: descriptor kernels: no %s variant usable here",
			       vpk_isa_name(conf->isa));
	}
	rc = p->ops->open(p, err, len);
	if (rc != 0) {
		free(p);
		return rc;
	}
	if (!p->has_mac && (t == VPK_IO_AF_PACKET || t == VPK_IO_AF_XDP))
		(void)io_live_mac(p);   /* none readable: vpk_io_get_mac() says -ENOTSUP */
	*out = p;
	return 0;
}

int
vpk_io_destroy(struct vpk_io_port *p)
{
	int rc;

	if (p == NULL)
		return 0;
	rc = p->ops->close(p, vpk_errbuf(), VPK_ERR_LEN);
	free(p);
	return rc;
}

int
vpk_io_rx_burst(struct vpk_io_port *p, uint32_t *idx, uint32_t n)
{
	int got;

	if (n > VPK_IO_BURST_MAX)
		n = VPK_IO_BURST_MAX;
	got = p->ops->rx(p, idx, n);
	if (got < 0)
		snprintf(vpk_errbuf(), VPK_ERR_LEN, "%s", p->err);
	if (got > 0) {
		p->st.rx += (uint64_t)got;
		if (!p->ops->counts_bytes)
			for (int i = 0; i < got; i++)
				p->st.rx_bytes += vpk_buf_from_idx(p->base, idx[i])->len;
	}
	return got;
}

uint32_t
vpk_io_tx_burst(struct vpk_io_port *p, const uint32_t *idx, uint32_t n)
{
	uint32_t done = 0;

	while (done < n) {
		uint32_t m = n - done > VPK_IO_BURST_MAX ? VPK_IO_BURST_MAX : n - done;
		uint32_t sent;
		uint64_t bytes = 0;

		if (!p->ops->counts_bytes)
			for (uint32_t i = 0; i < m; i++)
				bytes += vpk_buf_from_idx(p->base, idx[done + i])->total_len;
		sent = p->ops->tx(p, idx + done, m);
		if (sent < m && p->err[0] != '\0')
			snprintf(vpk_errbuf(), VPK_ERR_LEN, "%s", p->err);
		p->st.tx += sent;
		p->st.tx_drop += m - sent;
		p->st.tx_bytes += sent == m ? bytes : 0;
		done += m;
	}
	return n;
}

int
vpk_io_flush(struct vpk_io_port *p)
{
	int rc = p->ops->flush != NULL ? p->ops->flush(p) : 0;

	if (rc < 0)
		snprintf(vpk_errbuf(), VPK_ERR_LEN, "%s", p->err);
	return rc;
}

bool
vpk_io_link_up(struct vpk_io_port *p)
{
	return p->ops->link_up(p);
}

int
vpk_io_get_mac(const struct vpk_io_port *p, uint8_t mac[6])
{
	if (!p->has_mac)
		return -ENOTSUP;
	memcpy(mac, p->mac, 6);
	return 0;
}

int
vpk_io_get_stats(const struct vpk_io_port *p, struct vpk_io_stats *out)
{
	if (p == NULL || out == NULL)
		return -EINVAL;
	*out = p->st;
	if (p->ops->stats != NULL)
		p->ops->stats(p, out);
	return 0;
}

int
vpk_io_fd(const struct vpk_io_port *p)
{
	return p->fd;
}

const char *
vpk_io_type_name(const struct vpk_io_port *p)
{
	return p->ops->name;
}

const char *
vpk_io_mode(const struct vpk_io_port *p)
{
	return p->mode[0] != '\0' ? p->mode : p->ops == &io_pcap_ops ? "file" : "-";
}

const char *
vpk_io_impl_name(const struct vpk_io_port *p)
{
	return p->k->base.name;
}

/* ---- pcap backend ---- */

struct pcap_be {
	struct io_pcap_out out;         /* first: io_pcap_out_be_tx() */
	struct vpk_pcap_reader *rd;
	int rx_rc;                      /* sticky end / error */
};

static void
pcap_be_free(struct pcap_be *b)
{
	vpk_pcap_reader_destroy(b->rd);
	free(b);
}

static int
pcap_rx(struct vpk_io_port *p, uint32_t *idx, uint32_t n)
{
	struct pcap_be *b = p->be;
	int got;

	if (b->rx_rc != 0 || n == 0)
		return b->rx_rc;
	got = vpk_pcap_read_burst(b->rd, p->pool, idx, NULL, n);
	if (got == -ENOBUFS) {
		p->st.rx_nobuf++;
		return 0;
	}
	if (got == 0)
		got = -ENODATA;
	if (got < 0) {
		b->rx_rc = got;
		if (got != -ENODATA)
			snprintf(p->err, sizeof(p->err), "%s", vpk_last_error());
	}
	return got;
}

static int
pcap_open(struct vpk_io_port *p, char *err, size_t len)
{
	struct pcap_be *b = calloc(1, sizeof(*b));
	int rc;

	if (b == NULL)
		return vpk_errf(err, len, -ENOMEM, "io: out of memory");
	if (p->conf.rx_pcap != NULL) {
		struct vpk_pcap_reader_conf rc_conf = { .path = p->conf.rx_pcap, .rx_if = p->conf.port_id };

		rc = vpk_errcopy(err, len, vpk_pcap_reader_create(&rc_conf, &b->rd));
		if (rc != 0)
			goto fail;
	}
	if (p->conf.tx_pcap != NULL) {
		rc = io_pcap_out_open(&b->out, p->conf.tx_pcap, err, len);
		if (rc != 0)
			goto fail;
	}
	if (b->rd == NULL)
		b->rx_rc = -ENODATA;
	p->be = b;
	return 0;
fail:
	pcap_be_free(b);
	return rc;
}

static int
pcap_close(struct vpk_io_port *p, char *err, size_t len)
{
	int rc = io_pcap_out_close(p, &((struct pcap_be *)p->be)->out, err, len);

	pcap_be_free(p->be);
	return rc;
}

uint32_t
io_pcap_out_be_tx(struct vpk_io_port *p, const uint32_t *idx, uint32_t n)
{
	return io_pcap_out_tx(p, p->be, idx, n);
}

int
io_pcap_out_be_flush(struct vpk_io_port *p)
{
	return io_pcap_out_flush(p, p->be);
}

bool
io_no_link_up(struct vpk_io_port *p)
{
	(void)p;
	return true;
}

uint32_t
io_pcap_out_tx(struct vpk_io_port *p, struct io_pcap_out *o, const uint32_t *idx, uint32_t n)
{
	uint32_t sent = 0;

	if (o->wr != NULL && o->rc == 0) {
		o->rc = vpk_pcap_write_burst(o->wr, p->pool, idx, NULL, n);
		if (o->rc != 0)
			snprintf(p->err, sizeof(p->err), "%s", vpk_last_error());
		else
			sent = n;
	}
	vpk_pool_free_bulk(p->pool, idx, n);
	return sent;
}

int
io_pcap_out_flush(struct vpk_io_port *p, struct io_pcap_out *o)
{
	if (o->wr != NULL && o->rc == 0) {
		o->rc = vpk_pcap_writer_flush(o->wr);
		if (o->rc != 0)
			snprintf(p->err, sizeof(p->err), "%s", vpk_last_error());
	}
	return o->rc;
}

int
io_pcap_out_open(struct io_pcap_out *o, const char *path, char *err, size_t len)
{
	struct vpk_pcap_writer_conf wc = { .path = path };

	return vpk_errcopy(err, len, vpk_pcap_writer_create(&wc, &o->wr));
}

int
io_pcap_out_close(struct vpk_io_port *p, struct io_pcap_out *o, char *err, size_t len)
{
	int rc = vpk_errcopy(err, len, vpk_pcap_writer_destroy(o->wr));

	if (o->rc != 0) {
		rc = o->rc;
		vpk_errf(err, len, rc, "%s", p->err);
	}
	return rc;
}

static void
pcap_stats(const struct vpk_io_port *p, struct vpk_io_stats *st)
{
	const struct pcap_be *b = p->be;

	if (b->rd != NULL) {
		struct vpk_pcap_reader_stats ps;

		vpk_pcap_reader_get_stats(b->rd, &ps);
		st->rx_skipped += ps.skipped_oversize;
	}
}

const struct io_ops io_pcap_ops = {
	.name = "pcap", .open = pcap_open, .close = pcap_close, .rx = pcap_rx, .tx = io_pcap_out_be_tx,
	.flush = io_pcap_out_be_flush, .link_up = io_no_link_up, .stats = pcap_stats,
};
