/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcap files <-> pool buffers, through libpcap (pcap_fopen_offline / dumper).
 *
 * Reading: libpcap parses the file (classic pcap in either byte order, micro
 * or nano timestamps, and pcapng); we ask for nanosecond precision so both
 * kinds give nanoseconds. Each call allocates its buffers first and only then
 * pulls packets, one per buffer, so pool exhaustion cannot lose a packet.
 * A record whose caplen exceeds the pool's data size is skipped and counted.
 * libpcap reports a truncated or corrupt record as an error (-1 from
 * pcap_next_ex) with a reason in pcap_geterr(); we prefix file name and
 * packet number. Errors are sticky: a file that went wrong stays wrong.
 *
 * Writing: pcap_open_dead_with_tstamp_precision() + pcap_dump_fopen() on a
 * FILE we opened (so fopen's errno reaches the caller). pcap_dump() returns
 * nothing, so after each burst we check ferror() on the stream; flush and
 * close report the errno of the failing write (ENOSPC on a full disk).
 * Buffer chains are gathered into a scratch area (at most SNAPLEN bytes).
 *
 * Workload: files of up to millions of packets, bursts of 32..256; the copy
 * into the buffer is the only per-byte work.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <vpk/pcap.h>

#include "core/errf.h"

/* libpcap's own maximum for DLT_EN10MB; also our writer's snaplen. */
#define SNAPLEN 262144u

struct vpk_pcap_reader {
	pcap_t *pc;
	char *name;
	uint32_t rx_if;
	int err;                        /* sticky -errno, 0 if fine */
	bool eof;
	struct vpk_pcap_reader_stats st;
	char msg[VPK_ERR_LEN];
};

struct vpk_pcap_writer {
	pcap_t *dead;
	pcap_dumper_t *d;
	FILE *f;
	char *name;
	bool nsec;
	int err;                        /* sticky -errno */
	uint64_t count;
	uint8_t *scratch;               /* SNAPLEN bytes, for chains; allocated on first use */
	char msg[VPK_ERR_LEN];
};

/* ---- reader ------------------------------------------------------------ */

static int
reader_open_stream(FILE *f, const char *name, uint32_t rx_if, struct vpk_pcap_reader **out, char *err,
		   size_t err_len)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	struct vpk_pcap_reader *r;
	int dlt, rc;

	if (name == NULL)
		name = "<stream>";
	if (f == NULL || out == NULL) {
		vpk_errf(err, err_len, -EINVAL, "%s: invalid argument", name);
		if (f != NULL && f != stdin)
			fclose(f);
		return -EINVAL;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL || (r->name = strdup(name)) == NULL) {
		rc = vpk_errf(err, err_len, -ENOMEM, "%s: out of memory", name);
		goto out_close_f;
	}
	r->pc = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (r->pc == NULL) {
		/* libpcap leaves f to us on failure. */
		if (ferror(f))
			rc = vpk_errf(err, err_len, -EIO, "%s: read error: %s", name, ebuf);
		else
			rc = vpk_errf(err, err_len, -EINVAL, "%s: not a pcap file: %s", name, ebuf);
		goto out_close_f;
	}
	dlt = pcap_datalink(r->pc);
	if (dlt != DLT_EN10MB) {
		const char *dn = pcap_datalink_val_to_name(dlt);

		vpk_errf(err, err_len, -ENOTSUP, "%s: link type %d (%s) is not supported, only Ethernet (1, EN10MB)",
			 name, dlt, dn != NULL ? dn : "unknown");
		pcap_close(r->pc);      /* closes f */
		free(r->name);
		free(r);
		return -ENOTSUP;
	}
	r->rx_if = rx_if;
	*out = r;
	return 0;

out_close_f:
	if (f != stdin)         /* as libpcap does on close */
		fclose(f);
	if (r != NULL)
		free(r->name);
	free(r);
	return rc;
}

static int
reader_open(const char *path, uint32_t rx_if, struct vpk_pcap_reader **out, char *err, size_t err_len)
{
	struct stat st;
	FILE *f;

	if (path == NULL || out == NULL)
		return vpk_errf(err, err_len, -EINVAL, "%s: invalid argument", path != NULL ? path : "(null)");
	f = fopen(path, "rb");
	if (f == NULL) {
		int e = errno;

		return vpk_errf(err, err_len, -e, "%s: %s", path, strerror(e));
	}
	/* fopen() accepts a directory; its read error would say less. */
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		return vpk_errf(err, err_len, -EISDIR, "%s: %s", path, strerror(EISDIR));
	}
	return reader_open_stream(f, path, rx_if, out, err, err_len);
}

int
vpk_pcap_reader_create(const struct vpk_pcap_reader_conf *conf, struct vpk_pcap_reader **out)
{
	if (conf == NULL)
		return vpk_seterr(-EINVAL, "pcap reader: no configuration");
	if (conf->stream != NULL)
		return reader_open_stream(conf->stream, conf->path, conf->rx_if, out, vpk_errbuf(), VPK_ERR_LEN);
	return reader_open(conf->path, conf->rx_if, out, vpk_errbuf(), VPK_ERR_LEN);
}

/* Record a file error met at packet r->st.packets; returns the -errno. */
static int
reader_fail(struct vpk_pcap_reader *r)
{
	FILE *f = pcap_file(r->pc);

	r->err = f != NULL && ferror(f) ? -EIO : -EINVAL;
	return vpk_errf(r->msg, sizeof(r->msg), r->err, "%s: packet %llu: %s", r->name,
			(unsigned long long)r->st.packets, pcap_geterr(r->pc));
}

int
vpk_pcap_read_burst(struct vpk_pcap_reader *r, struct vpk_pool *pool, uint32_t *idx,
		    uint64_t *ts_ns, uint32_t n)
{
	void *base;
	uint32_t have, got = 0, room;

	if (r == NULL || pool == NULL || idx == NULL || n == 0 || n > INT32_MAX)
		return vpk_seterr(-EINVAL, "pcap read: invalid argument");
	if (r->err != 0)
		return vpk_seterr(r->err, "%s", r->msg);
	if (r->eof)
		return 0;
	have = vpk_pool_alloc_burst(pool, idx, n);
	if (have == 0)
		return vpk_seterr(-ENOBUFS, "%s: no free buffer in the pool", r->name);
	base = vpk_pool_base(pool);
	room = vpk_pool_data_size(pool);
	while (got < have) {
		struct pcap_pkthdr *h;
		const u_char *data;
		struct vpk_buf *b;
		int rc = pcap_next_ex(r->pc, &h, &data);

		if (rc == PCAP_ERROR_BREAK) {           /* -2: end of file */
			r->eof = true;
			break;
		}
		r->st.packets++;
		if (rc != 1) {
			reader_fail(r);
			break;
		}
		if (h->caplen > room) {
			r->st.skipped_oversize++;
			continue;
		}
		b = vpk_buf_from_idx(base, idx[got]);
		/* Fresh from alloc: data_off == VPK_BUF_HEADROOM, next == NONE. */
		memcpy(vpk_buf_data(b), data, h->caplen);
		b->len = (uint16_t)h->caplen;
		b->total_len = h->caplen;
		b->rx_if = r->rx_if;
		/* The record's seconds are an unsigned 32-bit field, which libpcap
		 * passes through a signed one: from 2038 on (>= 2^31 s) tv_sec
		 * arrives negative, so take its low 32 bits back as unsigned. */
		if (ts_ns != NULL)
			ts_ns[got] = (uint64_t)(uint32_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec;
		r->st.bytes += h->caplen;
		r->st.snapped += h->caplen < h->len;
		got++;
	}
	if (got < have)
		vpk_pool_free_bulk(pool, idx + got, have - got);
	r->st.delivered += got;
	if (got > 0)
		return (int)got;
	return r->err != 0 ? vpk_seterr(r->err, "%s", r->msg) : 0;     /* 0 at end of file */
}

int
vpk_pcap_reader_get_stats(const struct vpk_pcap_reader *r, struct vpk_pcap_reader_stats *out)
{
	if (r == NULL || out == NULL)
		return -EINVAL;
	*out = r->st;
	return 0;
}

void
vpk_pcap_reader_destroy(struct vpk_pcap_reader *r)
{
	if (r == NULL)
		return;
	pcap_close(r->pc);
	free(r->name);
	free(r);
}

/* ---- writer ------------------------------------------------------------ */

int
vpk_pcap_writer_create(const struct vpk_pcap_writer_conf *conf, struct vpk_pcap_writer **out)
{
	const char *path = conf != NULL ? conf->path : NULL;
	bool nsec = conf != NULL && conf->nsec;
	char *err = vpk_errbuf();
	size_t err_len = VPK_ERR_LEN;
	struct vpk_pcap_writer *w;
	int rc;

	if (path == NULL || out == NULL)
		return vpk_errf(err, err_len, -EINVAL, "%s: invalid argument", path != NULL ? path : "(null)");
	w = calloc(1, sizeof(*w));
	if (w == NULL || (w->name = strdup(path)) == NULL) {
		rc = vpk_errf(err, err_len, -ENOMEM, "%s: out of memory", path);
		goto out_free;
	}
	w->nsec = nsec;
	w->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, (int)SNAPLEN,
			nsec ? PCAP_TSTAMP_PRECISION_NANO : PCAP_TSTAMP_PRECISION_MICRO);
	if (w->dead == NULL) {
		rc = vpk_errf(err, err_len, -ENOMEM, "%s: out of memory", path);
		goto out_free;
	}
	w->f = fopen(path, "wb");
	if (w->f == NULL) {
		rc = -errno;
		vpk_errf(err, err_len, rc, "%s: %s", path, strerror(-rc));
		goto out_close_dead;
	}
	w->d = pcap_dump_fopen(w->dead, w->f);
	if (w->d == NULL) {
		rc = vpk_errf(err, err_len, -EIO, "%s: %s", path, pcap_geterr(w->dead));
		fclose(w->f);
		goto out_close_dead;
	}
	*out = w;
	return 0;

out_close_dead:
	pcap_close(w->dead);
out_free:
	if (w != NULL)
		free(w->name);
	free(w);
	return rc;
}

/* Check the stream after writes; records the first error. */
static int
writer_check(struct vpk_pcap_writer *w, const char *when)
{
	if (w->err == 0 && ferror(w->f)) {
		int e = errno != 0 ? errno : EIO;

		w->err = -e;
		vpk_errf(w->msg, sizeof(w->msg), w->err, "%s: %s after %llu packets: %s", w->name, when,
			 (unsigned long long)w->count, strerror(e));
	}
	return w->err != 0 ? vpk_seterr(w->err, "%s", w->msg) : 0;
}

int
vpk_pcap_write_burst(struct vpk_pcap_writer *w, struct vpk_pool *pool, const uint32_t *idx,
		     const uint64_t *ts_ns, uint32_t n)
{
	uint64_t now = 0;
	void *base;

	if (w == NULL || pool == NULL || (idx == NULL && n > 0))
		return vpk_seterr(-EINVAL, "pcap write: invalid argument");
	if (w->err != 0)
		return vpk_seterr(w->err, "%s", w->msg);
	if (ts_ns == NULL) {
		struct timespec t;

		clock_gettime(CLOCK_REALTIME, &t);
		now = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
	}
	base = vpk_pool_base(pool);
	errno = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct vpk_buf *b = vpk_buf_from_idx(base, idx[i]);
		uint64_t ts = ts_ns != NULL ? ts_ns[i] : now;
		struct pcap_pkthdr h = { 0 };
		const uint8_t *bytes = vpk_buf_data(b);

		h.caplen = h.len = b->len;
		if (b->flags & VPK_BUF_F_NEXT_VALID) {
			uint32_t off = 0;

			if (w->scratch == NULL && (w->scratch = malloc(SNAPLEN)) == NULL)
				return -ENOMEM;
			h.len = 0;
			for (;;) {
				uint32_t take = b->len < SNAPLEN - off ? b->len : SNAPLEN - off;

				memcpy(w->scratch + off, vpk_buf_data(b), take);
				off += take;
				h.len += b->len;
				if (!(b->flags & VPK_BUF_F_NEXT_VALID))
					break;
				b = vpk_buf_from_idx(base, b->next);
			}
			h.caplen = off;
			bytes = w->scratch;
		}
		h.ts.tv_sec = (time_t)(ts / 1000000000u);
		h.ts.tv_usec = (suseconds_t)(w->nsec ? ts % 1000000000u : ts % 1000000000u / 1000u);
		pcap_dump((u_char *)w->d, &h, bytes);
		w->count++;
	}
	return writer_check(w, "write");
}

int
vpk_pcap_writer_flush(struct vpk_pcap_writer *w)
{
	if (w->err != 0)
		return vpk_seterr(w->err, "%s", w->msg);
	errno = 0;
	if (pcap_dump_flush(w->d) != 0 && !ferror(w->f)) {
		w->err = -EIO;
		vpk_errf(w->msg, sizeof(w->msg), w->err, "%s: flush after %llu packets failed", w->name,
			 (unsigned long long)w->count);
	}
	return writer_check(w, "flush");
}

uint64_t
vpk_pcap_writer_count(const struct vpk_pcap_writer *w)
{
	return w->count;
}

int
vpk_pcap_writer_destroy(struct vpk_pcap_writer *w)
{
	int rc;

	if (w == NULL)
		return 0;
	rc = vpk_pcap_writer_flush(w);
	/* The dumper is the stream: pcap_dump_close() is fclose(); call fclose
	 * ourselves to see its result (NFS and friends report errors there). */
	errno = 0;
	if (fclose(w->f) != 0 && rc == 0) {
		rc = errno != 0 ? -errno : -EIO;
		vpk_errf(w->msg, sizeof(w->msg), rc, "%s: close: %s", w->name, strerror(-rc));
	}
	if (rc != 0)
		vpk_seterr(rc, "%s", w->msg);
	pcap_close(w->dead);
	free(w->scratch);
	free(w->name);
	free(w);
	return rc;
}
