/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * AF_XDP backend (libxdp's xsk API; libxdp loads its default XDP program
 * that redirects the queue to the socket).
 *
 * The UMEM is the pool's own memory: the pages covering the pool are
 * registered in unaligned-chunk mode with chunk size = pool stride
 * (2048..4096 bytes), so any pool buffer can be put on the fill ring or
 * named by a tx descriptor, and a received packet already sits in the pool
 * buffer it will travel in (no copy in user space; the kernel copies in
 * copy mode, DMA does in zero-copy mode). Addresses: desc_kern.h.
 *
 * Ownership: every buffer given to the kernel (fill ring, tx ring) is
 * marked in a bitmap over buffer indices and unmarked when it comes back
 * (rx ring, completion ring); close() deletes the socket and returns every
 * marked buffer, so nothing is lost when the interface vanished with
 * packets in flight. Fill and completion rings are recycled in bulk with
 * the idx_to_addr / addr_to_idx kernels, rx/tx descriptors converted with
 * xdp_rx / xdp_tx.
 *
 * Where bpf() is not permitted (not root, no CAP_BPF), open fails with
 * -EPERM and says so; callers fall back to af_packet.
 */
#include <stdlib.h>
#include <string.h>

#include "io/io_priv.h"

#ifdef VPK_HAVE_LIBXDP
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <sys/socket.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include <xdp/xsk.h>

_Static_assert(sizeof(struct xdp_desc) == sizeof(struct io_desc), "xdp_desc layout");

#define FILL_MIN 64u
#define UMEM_MIN_CHUNK 2048u   /* UMEM_MIN_CHUNK (kernel-internal) */

struct xdp_be {
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct xsk_ring_prod fq, tx;
	struct xsk_ring_cons cq, rx;
	uint64_t delta;
	uint64_t *owned;                /* bitmap over buffer indices held by the kernel */
	size_t owned_words;
	uint32_t fill_target, in_fill;
	uint32_t tx_out;                /* transmitted, completion not seen yet */
	uint32_t idle;
	int rx_rc;
};

static inline void
own_set(struct xdp_be *b, const uint32_t *idx, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		b->owned[idx[i] >> 6] |= UINT64_C(1) << (idx[i] & 63);
}

static inline void
own_clear(struct xdp_be *b, const uint32_t *idx, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		b->owned[idx[i] >> 6] &= ~(UINT64_C(1) << (idx[i] & 63));
}

/*
 * libbpf / libxdp print to stderr by default; the library never prints, so
 * their messages are kept (last warning) and quoted in our error instead.
 */
static __thread char lib_msg[160];

static int
keep_xdp_msg(enum libxdp_print_level lvl, const char *fmt, va_list ap)
{
	if (lvl == LIBXDP_WARN)
		vsnprintf(lib_msg, sizeof(lib_msg), fmt, ap);
	return 0;
}

static int
keep_bpf_msg(enum libbpf_print_level lvl, const char *fmt, va_list ap)
{
	if (lvl == LIBBPF_WARN)
		vsnprintf(lib_msg, sizeof(lib_msg), fmt, ap);
	return 0;
}

static const char *
lib_why(void)
{
	size_t n = strlen(lib_msg);

	while (n > 0 && lib_msg[n - 1] == '\n')
		lib_msg[--n] = '\0';
	return lib_msg;
}

static uint32_t
pool_stride(struct vpk_pool *pool)
{
	return (uint32_t)((sizeof(struct vpk_buf) + VPK_BUF_HEADROOM + vpk_pool_data_size(pool) + 63) & ~63u);
}

/* Put up to the fill target of fresh buffers on the fill ring. */
static void
refill(struct vpk_io_port *p)
{
	struct xdp_be *b = p->be;
	uint32_t want = b->fill_target - b->in_fill, idx[VPK_IO_BURST_MAX], got, at;

	if (want < FILL_MIN)
		return;
	if (want > VPK_IO_BURST_MAX)
		want = VPK_IO_BURST_MAX;
	got = vpk_pool_alloc_burst(p->pool, idx, want);
	if (got == 0)
		return;
	if (xsk_ring_prod__reserve(&b->fq, got, &at) != got) {
		vpk_pool_free_bulk(p->pool, idx, got);
		return;
	}
	{
		uint32_t pos = at & b->fq.mask, first = b->fq.size - pos;

		if (first > got)
			first = got;
		p->k->idx_to_addr(b->delta, idx, first, (uint64_t *)(void *)xsk_ring_prod__fill_addr(&b->fq, at));
		if (got > first)
			p->k->idx_to_addr(b->delta, idx + first, got - first, (uint64_t *)(void *)xsk_ring_prod__fill_addr(&b->fq, 0));
	}
	own_set(b, idx, got);
	xsk_ring_prod__submit(&b->fq, got);
	b->in_fill += got;
}

/*
 * Kick the kernel to send. In copy mode one sendto() sends at most 32
 * descriptors (the kernel's TX_BATCH_SIZE) and says EAGAIN while more are
 * queued, so kick until the ring is drained (bounded) or the kernel is
 * out of room; one kick per burst would let the tx ring fill and drop.
 */
static void
kick_tx(struct vpk_io_port *p)
{
	struct xdp_be *b = p->be;

	if (!xsk_ring_prod__needs_wakeup(&b->tx))
		return;
	for (int i = 0; i < 64; i++)
		if (sendto(p->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) >= 0 || errno != EAGAIN)
			break;
}

/* Return transmitted buffers (completion ring) to the pool. */
static void
recycle(struct vpk_io_port *p)
{
	struct xdp_be *b = p->be;
	uint32_t at, n, idx[VPK_IO_BURST_MAX];

	while ((n = xsk_ring_cons__peek(&b->cq, VPK_IO_BURST_MAX, &at)) > 0) {
		uint32_t pos = at & b->cq.mask, first = b->cq.size - pos;

		if (first > n)
			first = n;
		p->k->addr_to_idx(b->delta, (const uint64_t *)(const void *)xsk_ring_cons__comp_addr(&b->cq, at), first, idx);
		if (n > first)
			p->k->addr_to_idx(b->delta, (const uint64_t *)(const void *)xsk_ring_cons__comp_addr(&b->cq, 0), n - first, idx + first);
		xsk_ring_cons__release(&b->cq, n);
		own_clear(b, idx, n);
		b->tx_out -= n;
		vpk_pool_free_bulk(p->pool, idx, n);
	}
}

static int
xdp_open(struct vpk_io_port *p, char *err, size_t len)
{
	struct xdp_be *b;
	unsigned ifindex;
	uint32_t stride = pool_stride(p->pool), ring = p->conf.rx_ring ? p->conf.rx_ring : 16384u;
	uint32_t txr = p->conf.tx_ring ? p->conf.tx_ring : 4096u;
	uintptr_t base = (uintptr_t)p->base, pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	struct xsk_umem_config uc;
	struct xsk_socket_config sc;
	size_t size;
	int rc;

	rc = io_live_ifindex(p, &ifindex, err, len);
	if (rc != 0)
		return rc;
	libxdp_set_print(keep_xdp_msg);
	libbpf_set_print(keep_bpf_msg);
	lib_msg[0] = '\0';
	if (stride < UMEM_MIN_CHUNK || stride > pg)
		return vpk_errf(err, len, -EINVAL, "af_xdp %s: pool stride %u bytes: a UMEM chunk must be %u..%lu",
			       p->ifname, stride, UMEM_MIN_CHUNK, (unsigned long)pg);
	/* Ring sizes: powers of two. */
	while (ring & (ring - 1))
		ring += ring & -ring;
	while (txr & (txr - 1))
		txr += txr & -txr;
	b = calloc(1, sizeof(*b));
	if (b == NULL)
		return vpk_errf(err, len, -ENOMEM, "af_xdp %s: out of memory", p->ifname);
	b->delta = base & (pg - 1);
	size = (b->delta + (size_t)vpk_pool_size(p->pool) * stride + pg - 1) & ~(pg - 1);
	b->owned_words = ((size_t)vpk_pool_size(p->pool) * stride / 64 + 63) / 64 + 1;
	b->owned = calloc(b->owned_words, sizeof(uint64_t));
	if (b->owned == NULL) {
		free(b);
		return vpk_errf(err, len, -ENOMEM, "af_xdp %s: out of memory", p->ifname);
	}
	memset(&uc, 0, sizeof(uc));
	uc.fill_size = ring;
	uc.comp_size = txr;
	uc.frame_size = stride;
	uc.frame_headroom = 0;
	uc.flags = XDP_UMEM_UNALIGNED_CHUNK_FLAG;
	rc = xsk_umem__create(&b->umem, (void *)(base - b->delta), size, &b->fq, &b->cq, &uc);
	if (rc != 0) {
		rc = rc < 0 ? rc : -rc;
		vpk_errf(err, len, rc == -EPERM ? -EPERM : rc, "af_xdp %s: UMEM of %zu bytes: %s%s", p->ifname, size,
			strerror(-rc), rc == -EPERM ? ": not permitted (AF_XDP needs root, or CAP_NET_RAW + CAP_IPC_LOCK); use af_packet"
				     : "");
		goto fail;
	}
	memset(&sc, 0, sizeof(sc));
	sc.rx_size = ring;
	sc.tx_size = txr;
	/* auto: the kernel binds zero-copy where the driver has it, else copy */
	sc.bind_flags = XDP_USE_NEED_WAKEUP | (p->conf.xdp_mode == VPK_IO_XDP_ZEROCOPY ? XDP_ZEROCOPY
					       : p->conf.xdp_mode == VPK_IO_XDP_COPY ? XDP_COPY : 0);
	sc.xdp_flags = p->conf.xdp_skb ? XDP_FLAGS_SKB_MODE : 0;
	rc = xsk_socket__create(&b->xsk, p->ifname, p->conf.queue, b->umem, &b->rx, &b->tx, &sc);
	if (rc != 0 && rc != -EPERM && !p->conf.xdp_skb) {
		/* The driver's XDP mode refused: try generic XDP. */
		sc.xdp_flags = XDP_FLAGS_SKB_MODE;
		rc = xsk_socket__create(&b->xsk, p->ifname, p->conf.queue, b->umem, &b->rx, &b->tx, &sc);
	}
	if (rc != 0) {
		rc = rc < 0 ? rc : -rc;
		vpk_errf(err, len, rc, "af_xdp %s queue %u: socket / XDP program setup failed: %s%s%s%s%s", p->ifname,
			p->conf.queue, strerror(-rc),
			rc == -EPERM ? ": bpf() not permitted (needs root or CAP_BPF + CAP_NET_ADMIN); use af_packet"
				     : "",
			p->conf.xdp_mode == VPK_IO_XDP_ZEROCOPY ? " (xdp-mode zc: the driver may have no zero-copy)" : "",
			lib_why()[0] ? "; libxdp: " : "", lib_why());
		goto fail;
	}
	p->fd = xsk_socket__fd(b->xsk);
	{
		struct xdp_options xo = { 0 };
		socklen_t ol = sizeof(xo);
		bool zc = getsockopt(p->fd, SOL_XDP, XDP_OPTIONS, &xo, &ol) == 0 &&
			  (xo.flags & XDP_OPTIONS_ZEROCOPY) != 0;

		struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex((int)ifindex);
		bool skb = sc.xdp_flags == XDP_FLAGS_SKB_MODE;

		/* libxdp may itself have fallen back to generic XDP: ask what is attached. */
		if (mp != NULL && libxdp_get_error(mp) == 0) {
			skb = xdp_multiprog__attach_mode(mp) == XDP_MODE_SKB;
			xdp_multiprog__close(mp);
		}
		snprintf(p->mode, sizeof(p->mode), "%s (%s XDP)", zc ? "zerocopy" : "copy",
			 skb ? "generic" : "driver");
	}
	p->be = b;
	b->fill_target = ring;
	if (b->fill_target > vpk_pool_size(p->pool) / 4)
		b->fill_target = vpk_pool_size(p->pool) / 4;
	while (b->in_fill + FILL_MIN <= b->fill_target) {
		uint32_t before = b->in_fill;

		refill(p);
		if (b->in_fill == before)
			break;
	}
	return 0;
fail:
	if (b->umem != NULL)
		xsk_umem__delete(b->umem);
	free(b->owned);
	free(b);
	return rc;
}

static int
xdp_close(struct vpk_io_port *p, char *err, size_t len)
{
	struct xdp_be *b = p->be;
	uint32_t idx[VPK_IO_BURST_MAX], n = 0;

	(void)err;
	(void)len;
	xsk_socket__delete(b->xsk);
	xsk_umem__delete(b->umem);
	/* The kernel is gone: everything it held is ours again. */
	for (size_t w = 0; w < b->owned_words; w++) {
		uint64_t m = b->owned[w];

		while (m != 0) {
			idx[n++] = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(m));
			m &= m - 1;
			if (n == VPK_IO_BURST_MAX) {
				vpk_pool_free_bulk(p->pool, idx, n);
				n = 0;
			}
		}
	}
	vpk_pool_free_bulk(p->pool, idx, n);
	free(b->owned);
	free(b);
	return 0;
}

static int
xdp_rx(struct vpk_io_port *p, uint32_t *idx, uint32_t n)
{
	struct xdp_be *b = p->be;
	uint32_t at, got;

	if (b->rx_rc != 0)
		return b->rx_rc;
	got = xsk_ring_cons__peek(&b->rx, n, &at);
	if (got > 0) {
		uint32_t pos = at & b->rx.mask, first = b->rx.size - pos;
		const struct io_desc *d = (const struct io_desc *)xsk_ring_cons__rx_desc(&b->rx, at);

		if (first > got)
			first = got;
		p->k->xdp_rx(p->base, b->delta, d, first, p->conf.port_id, idx);
		if (got > first)
			p->k->xdp_rx(p->base, b->delta, (const struct io_desc *)xsk_ring_cons__rx_desc(&b->rx, 0),
				     got - first, p->conf.port_id, idx + first);
		xsk_ring_cons__release(&b->rx, got);
		own_clear(b, idx, got);
		b->in_fill -= got;
		b->idle = 0;
	} else if (++b->idle >= 1024) {
		int e = 0;
		socklen_t el = sizeof(e);

		b->idle = 0;
		if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &e, &el) == 0 && (e == ENETDOWN || e == ENXIO)) {
			b->rx_rc = -ENETDOWN;
			snprintf(p->err, sizeof(p->err), "af_xdp %s: interface went away", p->ifname);
			return b->rx_rc;
		}
	}
	refill(p);
	if (xsk_ring_prod__needs_wakeup(&b->fq))
		(void)recvfrom(p->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
	return (int)got;
}

static uint32_t
xdp_tx(struct vpk_io_port *p, const uint32_t *idx, uint32_t n)
{
	struct xdp_be *b = p->be;
	uint32_t at, m;

	recycle(p);
	m = xsk_prod_nb_free(&b->tx, n);
	if (m > n)
		m = n;
	if (m > 0 && xsk_ring_prod__reserve(&b->tx, m, &at) == m) {
		uint32_t pos = at & b->tx.mask, first = b->tx.size - pos;

		if (first > m)
			first = m;
		p->k->xdp_tx(p->base, b->delta, idx, first, (struct io_desc *)xsk_ring_prod__tx_desc(&b->tx, at));
		if (m > first)
			p->k->xdp_tx(p->base, b->delta, idx + first, m - first,
				     (struct io_desc *)xsk_ring_prod__tx_desc(&b->tx, 0));
		own_set(b, idx, m);
		b->tx_out += m;
		xsk_ring_prod__submit(&b->tx, m);
		kick_tx(p);
	} else {
		m = 0;
	}
	if (m < n)
		vpk_pool_free_bulk(p->pool, idx + m, n - m);
	return m;
}

static int
xdp_flush(struct vpk_io_port *p)
{
	kick_tx(p);
	recycle(p);
	return 0;
}

static bool
xdp_link_up(struct vpk_io_port *p)
{
	return io_live_link_up(p);
}

static void
xdp_stats(const struct vpk_io_port *p, struct vpk_io_stats *st)
{
	struct xdp_statistics xs;
	socklen_t sl = sizeof(xs);

	if (getsockopt(p->fd, SOL_XDP, XDP_STATISTICS, &xs, &sl) == 0)
		st->rx_drop += xs.rx_dropped + xs.rx_ring_full;
	st->bufs_held = (uint64_t)((const struct xdp_be *)p->be)->in_fill + ((const struct xdp_be *)p->be)->tx_out;
}

const struct io_ops io_xdp_ops = {
	.name = "af_xdp", .open = xdp_open, .close = xdp_close, .rx = xdp_rx, .tx = xdp_tx,
	.flush = xdp_flush, .link_up = xdp_link_up, .stats = xdp_stats,
};

#else /* !VPK_HAVE_LIBXDP */

static int
xdp_open(struct vpk_io_port *p, char *err, size_t len)
{
	return vpk_errf(err, len, -ENOTSUP, "af_xdp %s: vpk was built without libxdp/libbpf (install libxdp-dev "
		       "libbpf-dev and rebuild); use af_packet", p->ifname);
}

const struct io_ops io_xdp_ops = { .name = "af_xdp", .open = xdp_open };

#endif
