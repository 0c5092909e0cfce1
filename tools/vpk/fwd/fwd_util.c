/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers that the forwarder's feature files share and that call nothing
 * of theirs: numbers and prefixes of configuration words, and adding a node
 * (with its configuration) to a graph under construction, the clock.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/libvpk_internal.h"
#include "fwd/fwd_priv.h"

int
fwd_parse_u32(const char *s, unsigned long max, uint32_t *out)
{
	return vpk_num_uint(s, 0, max > UINT32_MAX ? UINT32_MAX : (unsigned)max, out, NULL, 0);
}

/* "ADDR/LEN" -> family (4 or 6; an IPv4 address fills out[0..3]), the
 * address in network order as written (host bits kept), and the length. */
int
fwd_parse_addr_len(const char *s, uint8_t out[16], uint8_t *plen)
{
	char buf[64];
	const char *slash = strchr(s, '/');
	uint32_t l;
	int fam;

	if (slash == NULL || (size_t)(slash - s) >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, (size_t)(slash - s));
	buf[slash - s] = '\0';
	memset(out, 0, 16);
	if (inet_pton(AF_INET, buf, out) == 1)
		fam = 4;
	else if (inet_pton(AF_INET6, buf, out) == 1)
		fam = 6;
	else
		return -EINVAL;
	if (fwd_parse_u32(slash + 1, fam == 4 ? 32 : 128, &l) != 0)
		return -EINVAL;
	*plen = (uint8_t)l;
	return fam;
}

/* The same with the host bits cleared: a route's prefix. */
int
fwd_parse_prefix(const char *s, uint8_t out[16], uint8_t *plen)
{
	int fam = fwd_parse_addr_len(s, out, plen);

	for (unsigned bit = *plen; fam > 0 && bit < (fam == 4 ? 32u : 128u); bit++)
		out[bit / 8] &= (uint8_t)~(0x80u >> (bit % 8));
	return fam;
}

int
fwd_graph_add(struct fwd_graph *fg, const char *node, void *conf)
{
	size_t i;

	for (i = 0; i < fg->n_nodes; i++)
		if (strcmp(fg->nodes[i], node) == 0)
			break;
	if (i == fg->n_nodes) {
		if (fg->n_nodes + 1 >= fg->max_nodes)
			return -ENOSPC;
		fg->nodes[fg->n_nodes++] = node;
		fg->nodes[fg->n_nodes] = NULL;
	}
	if (conf != NULL) {
		if (fg->n_nc == fg->max_nc)
			return -ENOSPC;
		fg->nc[fg->n_nc++] = (struct vpk_node_conf){ .node = node, .conf = conf };
	}
	return 0;
}

/* A control thread: SIGINT / SIGTERM go to the main thread, which stops the forwarder. */
void
fwd_block_stop_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

double
fwd_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
