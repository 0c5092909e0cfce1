/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_FIB_ENT_H
#define VPK_FIB_ENT_H

/*
 * Table entries of 1, 2, 4 or 8 bytes (log2 width `log`), shared by the
 * control planes of dir24_8.c and trie6.c. Stores are single atomic stores
 * with release order, so concurrent readers see a whole old or new entry and
 * a group's contents before the entry that publishes it.
 */
#include <stddef.h>
#include <stdint.h>

static inline uint64_t
vpk_ent_get(const void *t, unsigned log, size_t i)
{
	switch (log) {
	case 0: return __atomic_load_n(&((const uint8_t *)t)[i], __ATOMIC_RELAXED);
	case 1: return __atomic_load_n(&((const uint16_t *)t)[i], __ATOMIC_RELAXED);
	case 2: return __atomic_load_n(&((const uint32_t *)t)[i], __ATOMIC_RELAXED);
	default: return __atomic_load_n(&((const uint64_t *)t)[i], __ATOMIC_RELAXED);
	}
}

static inline void
vpk_ent_set(void *t, unsigned log, size_t i, uint64_t v)
{
	switch (log) {
	case 0: __atomic_store_n(&((uint8_t *)t)[i], (uint8_t)v, __ATOMIC_RELEASE); break;
	case 1: __atomic_store_n(&((uint16_t *)t)[i], (uint16_t)v, __ATOMIC_RELEASE); break;
	case 2: __atomic_store_n(&((uint32_t *)t)[i], (uint32_t)v, __ATOMIC_RELEASE); break;
	default: __atomic_store_n(&((uint64_t *)t)[i], v, __ATOMIC_RELEASE); break;
	}
}

#endif
