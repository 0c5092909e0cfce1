/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_GRAPH_ICMP_ERROR_H
#define VPK_GRAPH_ICMP_ERROR_H
/*
 * What a node asks of ip4-icmp-error / ip6-icmp-error when it sends a packet
 * there instead of dropping it: ICMP type, code and (Parameter Problem) the
 * pointer, in vpk_buf::opaque[12..15]. The invoking packet keeps its L3
 * header at vpk_buf::l3_off.
 */
#include <string.h>

#include <vpk/buf.h>

#define VPK_ICMP_OPQ 12u

static inline __attribute__((always_inline)) void
vpk_icmp_error_set(struct vpk_buf *b, uint8_t type, uint8_t code, uint16_t pointer)
{
	b->opaque[VPK_ICMP_OPQ] = type;
	b->opaque[VPK_ICMP_OPQ + 1] = code;
	memcpy(b->opaque + VPK_ICMP_OPQ + 2, &pointer, 2);
}

static inline __attribute__((always_inline)) void
vpk_icmp_error_get(const struct vpk_buf *b, uint8_t *type, uint8_t *code, uint16_t *pointer)
{
	*type = b->opaque[VPK_ICMP_OPQ];
	*code = b->opaque[VPK_ICMP_OPQ + 1];
	memcpy(pointer, b->opaque + VPK_ICMP_OPQ + 2, 2);
}

#endif
