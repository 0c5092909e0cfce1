/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_GRAPH_NODES_H
#define VPK_GRAPH_NODES_H

/* Helpers shared by the built-in node files (each compiled once per ISA). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <vpk/nodes.h>
#include "graph/graph_priv.h"

#define VPK_ETHERTYPE_IP4  0x0800
#define VPK_ETHERTYPE_IP6  0x86dd
#define VPK_ETHERTYPE_VLAN 0x8100
#define VPK_ETHERTYPE_QINQ 0x88a8

static inline __attribute__((always_inline)) uint16_t
vpk_rd16be(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* One's complement sum of @len bytes as big-endian 16-bit words, added to @s (not folded). */
static inline __attribute__((always_inline)) uint32_t
vpk_csum_add(uint32_t s, const uint8_t *p, uint32_t len)
{
	for (uint32_t i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		s += (uint32_t)p[len - 1] << 8;
	return s;
}

static inline __attribute__((always_inline)) uint16_t
vpk_csum_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/*
 * The plain frame loop of a node: the next arc of packet @i is @expr
 * (evaluated in packet order), then one enqueue of the whole frame.
 */
#define VPK_NODE_EACH(rt, bi, n, i, expr)                                       \
	do {                                                                    \
		uint16_t vpk_next_[VPK_FRAME_SIZE];                             \
		for (uint32_t i = 0; i < (n); i++)                              \
			vpk_next_[i] = (expr);                                  \
		vpk_node_enqueue_to_next((rt), (bi), vpk_next_, (n));           \
	} while (0)

/*
 * The frame function NAME_fn_<isa> of a node that decides each packet on its
 * own: c is the node's context (of type CTX_T), the next arc of b[i] is @expr.
 */
#define VPK_NODE_FN_EACH(name, ctx_t, expr)                                     \
	static uint32_t VPK_FN(name##_fn)(struct vpk_node_rt *rt, struct vpk_buf **b, \
					  uint32_t *bi, uint32_t n)             \
	{                                                                       \
		ctx_t c = vpk_node_ctx(rt);                                     \
                                                                                \
		VPK_NODE_EACH(rt, bi, n, i, expr);                              \
		return n;                                                       \
	}

/* Drop packet @b for reason @code: record it in the buffer and the counter; return the drop arc. */
static inline __attribute__((always_inline)) uint16_t
vpk_node_drop(struct vpk_node_rt *rt, struct vpk_buf *b, uint16_t code, uint16_t drop_arc)
{
	b->error = graph_error_id(rt, code);
	vpk_node_count_error(rt, code, 1);
	return drop_arc;
}

/* Bytes of the frame from the L3 header to the end of the buffer's data. */
static inline __attribute__((always_inline)) uint32_t
vpk_l3_left(const struct vpk_buf *b)
{
	return (uint32_t)b->data_off + b->len - b->l3_off;
}

#endif
