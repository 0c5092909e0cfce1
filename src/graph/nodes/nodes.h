/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_GRAPH_NODES_H
#define VPK_GRAPH_NODES_H

/* Helpers shared by the built-in node files (each compiled once per ISA). */
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

/* Drop packet @b for reason @code: record it in the buffer and the counter; return the drop arc. */
static inline __attribute__((always_inline)) uint16_t
vpk_node_drop(struct vpk_node_rt *rt, struct vpk_buf *b, uint16_t code, uint16_t drop_arc)
{
	b->error = vpk_node_error_id(rt, code);
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
