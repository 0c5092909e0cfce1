/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_PCAP_H
#define VPK_PCAP_H

/**
 * @file
 * Reading and writing pcap files into and out of pool buffers (libpcap).
 *
 * Reader: classic pcap files with microsecond or nanosecond timestamps (and
 * pcapng, which libpcap also reads), link type Ethernet (DLT_EN10MB) only.
 * Packets are read in bursts straight into pool buffers: each packet goes to
 * one buffer at data_off = VPK_BUF_HEADROOM with len = total_len = captured
 * bytes and rx_if = the reader's interface. A packet longer than the pool's
 * data size is skipped and counted (never truncated, never overflows).
 *
 * Writer: Ethernet pcap files with microsecond or nanosecond timestamps,
 * one record per buffer chain.
 *
 * Errors: every call returns 0 (or a count) / -errno, and a failed call
 * leaves a one-line reason in vpk_last_error() naming the file, the packet
 * number (1-based, in file order, skipped packets included) and the reason,
 * e.g.
 *   "trace.pcap: packet 17: truncated dump file; tried to read 60 captured
 *    bytes, only got 12"
 * A reader's or writer's error is sticky: later calls fail with it again.
 * The library never prints.
 *
 * Threads: a reader or writer is used by one thread at a time. The buffers
 * belong to the caller after a read; a write does not free them.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <vpk/buf.h>
#include <vpk/error.h>
#include <vpk/isa.h>

#ifdef __cplusplus
extern "C" {
#endif

struct vpk_pcap_reader;                 /* opaque */
struct vpk_pcap_writer;                 /* opaque */

/** Reader counters, since open. */
struct vpk_pcap_reader_stats {
	uint64_t packets;               /**< Packet records read from the file (delivered + skipped). */
	uint64_t delivered;             /**< Packets put into buffers. */
	uint64_t bytes;                 /**< Bytes put into buffers. */
	uint64_t skipped_oversize;      /**< Packets longer than the pool's data size, skipped. */
	uint64_t snapped;               /**< Delivered packets whose capture was cut by the snaplen (caplen < wire length). */
};

/** Reader parameters. Zero-initialise, then set what you need. */
struct vpk_pcap_reader_conf {
	const char *path;               /**< File to read, also the name in messages. */
	FILE *stream;                   /**< Or an open stream to read (a pipe, stdin, fmemopen()): the
					     reader owns it from now on, also on failure (closed then;
					     stdin never is, as in libpcap); path names it (NULL: "<stream>"). */
	uint32_t rx_if;                 /**< Value stored in vpk_buf::rx_if of every packet read. */
};

/**
 * Open a pcap file or stream for reading.
 *
 * @param[out] out  The reader; untouched on failure.
 * @return 0; -EINVAL (NULL @p conf, path and stream or @p out, or not a
 *         pcap/pcapng file: bad magic, truncated or corrupt file header);
 *         -ENOTSUP (link type other than Ethernet; the message names it);
 *         -ENOMEM; or the -errno of fopen() (-ENOENT for a missing file,
 *         -EACCES, -EISDIR, ...). The reason is in vpk_last_error(),
 *         "<path>: <reason>".
 */
VPK_API int vpk_pcap_reader_create(const struct vpk_pcap_reader_conf *conf, struct vpk_pcap_reader **out);

/**
 * Read up to @p n packets into buffers allocated from @p pool.
 *
 * Buffers are allocated first (one vpk_pool_alloc_burst()), so a packet is
 * only taken from the file when a buffer is ready for it: pool exhaustion
 * never loses a packet, the next call returns it. Unused buffers go back to
 * the pool before returning. When an error is met after some packets were
 * read, the call returns those packets and the next call returns the error;
 * errors are sticky.
 *
 * @param idx    Out: buffer indices of the packets read, file order.
 * @param ts_ns  Optional out (may be NULL): timestamps in nanoseconds since
 *               the epoch (microsecond files: multiples of 1000).
 * @param n      Capacity of @p idx and @p ts_ns, 1..INT32_MAX.
 * @return Packets read (1..n); 0 at end of file; -ENOBUFS when @p pool had no
 *         free buffer (nothing was read; retry after freeing buffers);
 *         -EINVAL for @p n out of range or a NULL argument, or a truncated or
 *         corrupt packet record (see vpk_last_error()); -EIO when
 *         reading the file failed.
 */
VPK_API int vpk_pcap_read_burst(struct vpk_pcap_reader *r, struct vpk_pool *pool, uint32_t *idx,
				uint64_t *ts_ns, uint32_t n);

/** Copy @p r's counters to @p out. @return 0 or -EINVAL (NULL). */
VPK_API int vpk_pcap_reader_get_stats(const struct vpk_pcap_reader *r, struct vpk_pcap_reader_stats *out);

/** Close @p r and its file (NULL: no-op). Buffers already returned stay the caller's. */
VPK_API void vpk_pcap_reader_destroy(struct vpk_pcap_reader *r);

/** Writer parameters. Zero-initialise, then set what you need. */
struct vpk_pcap_writer_conf {
	const char *path;               /**< File to create (truncate). */
	bool nsec;                      /**< Nanosecond timestamps (magic 0xa1b23c4d); false: microseconds. */
};

/**
 * Create (truncate) a pcap file for writing, link type Ethernet.
 *
 * @param[out] out  The writer; untouched on failure.
 * @return 0; -EINVAL (NULL @p conf, path or @p out); -ENOMEM; -EIO (the file
 *         header could not be set up); or the -errno of fopen().
 */
VPK_API int vpk_pcap_writer_create(const struct vpk_pcap_writer_conf *conf, struct vpk_pcap_writer **out);

/**
 * Append one record per buffer chain: the bytes of idx[i] (from data_off,
 * len bytes) and, when VPK_BUF_F_NEXT_VALID is set, of the following
 * buffers of its chain. The buffers are not freed.
 *
 * @param ts_ns  Optional timestamps in nanoseconds since the epoch (rounded
 *               down to microseconds in a microsecond file); NULL: the
 *               current time, the same for the whole burst.
 * @return 0; -EINVAL (NULL argument); or the -errno of the failed write
 *         (-ENOSPC, -EIO, ...), which is sticky (see vpk_last_error()).
 *         Records are buffered: a write error may only show at flush or close.
 */
VPK_API int vpk_pcap_write_burst(struct vpk_pcap_writer *w, struct vpk_pool *pool,
				 const uint32_t *idx, const uint64_t *ts_ns, uint32_t n);

/**
 * Push buffered records to the file.
 * @return 0, or the -errno of the failed write (sticky).
 */
VPK_API int vpk_pcap_writer_flush(struct vpk_pcap_writer *w);

/** Records written so far. */
VPK_API uint64_t vpk_pcap_writer_count(const struct vpk_pcap_writer *w);

/**
 * Flush, close the file and free @p w (NULL: returns 0).
 * @return 0, or the first error met by this writer (earlier write or flush
 *         error, or the final flush or close: -ENOSPC, -EIO, ...; the reason
 *         in vpk_last_error()).
 */
VPK_API int vpk_pcap_writer_destroy(struct vpk_pcap_writer *w);

#ifdef __cplusplus
}
#endif

#endif /* VPK_PCAP_H */
