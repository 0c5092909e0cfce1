/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_IO_H
#define VPK_IO_H

/**
 * @file
 * Burst packet I/O ports: one interface for every backend.
 *
 * A port moves packets between a backend and pool buffers in bursts of
 * buffer indices (include/vpk/buf.h), as DPDK's rte_eth_rx_burst /
 * rte_eth_tx_burst move mbufs:
 *
 *   backend     what it is                                      rx                    tx
 *   pcap        a pcap file pair (include/vpk/pcap.h)           file records          file records
 *   af_packet   a Linux interface, TPACKET_V3 rx ring           copy from ring blocks sendmmsg (kernel copy)
 *               (block-based, deep by default) + sendmmsg tx
 *   replay      a pcap file loaded once into pool           copies of the stored  file records
 *               buffers (as net_pcap's infinite_rx=1)           packets, looping      (as pcap)
 *   af_xdp      a Linux interface queue, AF_XDP socket whose    zero copy: the UMEM   zero copy: descriptors
 *               UMEM is the pool's own memory (copy mode on      buffer is the pool    name pool buffers,
 *               drivers without zero-copy, e.g. veth)            buffer                recycled on completion
 *
 * rx_burst() hands buffers to the caller; tx_burst() takes ownership of all
 * the buffers it is given (sent ones go back to the pool when the backend
 * is done with them, refused ones are freed at once and counted as
 * tx_drop), so the caller never frees after a tx. vpk_io_destroy() returns
 * every buffer the port still holds (AF_XDP fill ring, rx ring, tx in
 * flight) to the pool, also when the interface has gone away: after close,
 * vpk_pool_in_use() counts only the caller's buffers. A replay port holds
 * one buffer per packet of its capture from open to close.
 *
 * Errors: control-plane calls return 0 / -errno and write a one-line reason
 * into the caller's buffer ("af_xdp veth0: bpf() not permitted (needs root
 * or CAP_BPF): Operation not permitted"); the library never prints.
 * Threads: a port is used by one thread at a time; different ports may be
 * used by different threads. Ports on one pool share it safely.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vpk/buf.h>
#include <vpk/error.h>
#include <vpk/isa.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest burst a port handles in one call (more is clamped). */
#define VPK_IO_BURST_MAX 256u

/** Backends. */
enum vpk_io_type {
	VPK_IO_AUTO = 0,        /**< pcap when rx_pcap/tx_pcap is set, else af_packet. */
	VPK_IO_PCAP,
	VPK_IO_AF_PACKET,
	VPK_IO_AF_XDP,
	VPK_IO_REPLAY,          /**< rx_pcap loaded into pool buffers once, replayed from memory (copies). */
	VPK_IO_DPDK,            /**< A DPDK ethdev (ifname: PCI address or vdev args); only where a
				     DPDK backend was registered (the vpk tool built with libdpdk). */
};

struct vpk_io_port;             /* opaque */

/** AF_XDP binding: zero-copy, copy, or zero-copy where the driver has it (auto). */
enum vpk_io_xdp_mode {
	VPK_IO_XDP_AUTO = 0,
	VPK_IO_XDP_ZEROCOPY,            /**< Refused (-EOPNOTSUPP) where the driver has no zero-copy. */
	VPK_IO_XDP_COPY,
};

/** Port parameters. Zero-initialise, then set what you need. */
struct vpk_io_conf {
	struct vpk_pool *pool;          /**< Buffers the port receives into and frees (required). */
	enum vpk_io_type type;
	const char *ifname;             /**< Live backends: the interface (in the caller's network namespace). */
	const char *rx_pcap;            /**< pcap / replay backend: file read by rx_burst (NULL: no rx). */
	const char *tx_pcap;            /**< pcap backend: file written by tx_burst (NULL: tx drops). */
	uint32_t port_id;               /**< Stored in vpk_buf::rx_if of every received packet. */
	uint32_t rx_ring;               /**< Live: rx ring depth in packets (0: af_packet 16384, af_xdp 16384; rounded up). */
	uint32_t tx_ring;               /**< af_xdp: tx ring depth (0: 4096). af_packet: unused (sendmmsg). */
	uint32_t queue;                 /**< af_xdp, dpdk: queue id (0). */
	uint32_t n_queues;              /**< dpdk: rx / tx queues queue 0's port configures (0: 1; RSS
					     spreads flows over them); ports of queues 1.. open after it. */
	uint16_t fanout_group;          /**< af_packet: PACKET_FANOUT group id (0: no fanout). */
	uint16_t fanout_mode;           /**< af_packet: PACKET_FANOUT_HASH (0), _LB (1), _CPU (2), ... */
	bool xdp_skb;                   /**< af_xdp: generic (skb) XDP mode instead of the driver's. */
	enum vpk_io_xdp_mode xdp_mode;  /**< af_xdp: zero-copy / copy / auto (vpk_io_mode() says which). */
	enum vpk_isa isa;               /**< Descriptor-kernel variant (VPK_ISA_AUTO: best under the cap). */
	uint64_t replay_loops;          /**< replay: passes over the capture, then -ENODATA (0: forever). */
};

/** Port counters since open. */
struct vpk_io_stats {
	uint64_t rx;                    /**< Packets delivered by rx_burst. */
	uint64_t rx_bytes;
	uint64_t rx_drop;               /**< Dropped by the backend before us: ring full (kernel counters). */
	uint64_t rx_nobuf;              /**< rx_burst calls that found the pool empty (packets wait in the ring). */
	uint64_t rx_skipped;            /**< Packets not delivered: longer than a buffer, or chained. */
	uint64_t tx;                    /**< Packets accepted by the backend. */
	uint64_t tx_bytes;
	uint64_t tx_drop;               /**< Packets refused (ring full, link down, no tx file) and freed. */
	uint64_t bufs_held;             /**< Pool buffers the port holds now (AF_XDP: fill ring and
					     transmissions not yet completed; af_packet, pcap: 0). */
};

/**
 * Open a port on conf->pool (the reason of a failure is in vpk_last_error()).
 * @return 0; -EINVAL (NULL argument or pool, no ifname / no file, bad type,
 *         pool unsuitable: af_xdp needs a pool stride of 2048..4096 bytes);
 *         -ENODEV (no such interface); -EPERM (not permitted: AF_PACKET needs
 *         CAP_NET_RAW, AF_XDP needs bpf() as root); -ENOTSUP (backend or
 *         kernel variant not available here: e.g. libxdp missing);
 *         -ENOMEM; or the -errno of the ring setup / file open that failed.
 */
VPK_API int vpk_io_create(const struct vpk_io_conf *conf, struct vpk_io_port **out);

/**
 * Close @p p (NULL: returns 0); every buffer it held returns to the pool.
 * @return 0, or the first error of a pcap writer (an earlier write, the
 *         final flush or close: -ENOSPC, -EIO, ...; reason in vpk_last_error()).
 */
VPK_API int vpk_io_destroy(struct vpk_io_port *p);

/**
 * Receive up to @p n packets (clamped to VPK_IO_BURST_MAX), one buffer each,
 * rx_if = port_id, data at data_off, len = total_len = frame bytes.
 * @return Packets received (0: none now); -ENODATA at the end of a pcap
 *         file (sticky); -ENETDOWN when the interface is gone; -EIO / -EINVAL
 *         for a pcap read error (vpk_last_error() has the reason).
 */
VPK_API int vpk_io_rx_burst(struct vpk_io_port *p, uint32_t *idx, uint32_t n);

/**
 * Transmit @p n buffers; the port owns them all from now on.
 * @return Packets accepted (the rest were freed and counted in tx_drop).
 */
VPK_API uint32_t vpk_io_tx_burst(struct vpk_io_port *p, const uint32_t *idx, uint32_t n);

/**
 * Push queued work: flush a pcap writer, kick an AF_XDP tx ring and recycle
 * its completions.
 * @return 0 or the -errno of a pcap write (sticky).
 */
VPK_API int vpk_io_flush(struct vpk_io_port *p);

/** Link state: pcap ports are always up; live ports report IFF_RUNNING (false when gone). */
VPK_API bool vpk_io_link_up(struct vpk_io_port *p);

/**
 * The port's own MAC address (a live port: its interface's, read at open).
 * @return 0, or -ENOTSUP (a pcap port has none).
 */
VPK_API int vpk_io_get_mac(const struct vpk_io_port *p, uint8_t mac[6]);

/** Copy the counters of @p p to @p out. @return 0 or -EINVAL (NULL). */
VPK_API int vpk_io_get_stats(const struct vpk_io_port *p, struct vpk_io_stats *out);

/** File descriptor to poll() for input (POLLIN), or -1 (pcap). */
VPK_API int vpk_io_fd(const struct vpk_io_port *p);

/** Backend name: "pcap", "af_packet", "af_xdp", "replay", "dpdk". */
VPK_API const char *vpk_io_type_name(const struct vpk_io_port *p);

/**
 * How the port moves packets: af_xdp "zerocopy" or "copy" followed by
 * " (driver XDP)" or " (generic XDP)" as the kernel granted them; af_packet
 * "tpacket-v3" (plus " fanout" in a fanout group); pcap "file".
 */
VPK_API const char *vpk_io_mode(const struct vpk_io_port *p);

/**
 * Receive and transmit queues of interface @p ifname, counted as packets
 * can arrive on them: combined channels plus rx-only (tx-only) ones from
 * ethtool's channel counts (a NIC reports combined channels, veth separate
 * rx / tx counts), else the device's queues in sysfs, else 1.
 * @return 0, -EINVAL (bad name), -ENODEV (no such interface).
 */
VPK_API int vpk_io_queue_count(const char *ifname, uint32_t *rx, uint32_t *tx);

/** Variant of the descriptor kernels this port uses ("scalar", "avx2", "avx512"). */
VPK_API const char *vpk_io_impl_name(const struct vpk_io_port *p);

/**
 * Parse a backend name ("pcap", "af_packet", "af_xdp", "replay", "dpdk", "auto").
 * @return 0 or -EINVAL.
 */
VPK_API int vpk_io_type_parse(const char *s, enum vpk_io_type *out);

#ifdef __cplusplus
}
#endif

#endif /* VPK_IO_H */
