/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_COMPAT_FIB_H
#define VPK_COMPAT_FIB_H

/*
 * What the rte_fib and rte_fib6 drop-ins share: the FIB object (struct
 * rte_fib / rte_fib6 are opaque to applications, both are a struct
 * compat_fib here), the list of FIBs by name, create / free, add / delete
 * with the RIB kept lazily, choosing a vpk lookup variant the way DPDK
 * chooses its lookup function, and the call counters. The front ends give
 * what differs by address family in a struct compat_fib_ops (keys are passed
 * as const void *: a uint32_t or 16 bytes).
 *
 * The RIB: every FIB owns a real rte_rib / rte_rib6, created with the FIB
 * (DPDK's name, size and socket, so creation fails as DPDK's does), but
 * filled only when it is needed: at the first rte_fib*_get_rib() (vpk's own
 * RIB is replayed into it; from then on every update goes to both), or when
 * a DUMMY FIB turns into RIB lookups. Until then an update is one vpk call.
 *
 * Memory: socket_id places what DPDK's allocator would see, the FIB object
 * (rte_zmalloc_socket) and the RIB (rte_rib_create), so a socket without
 * EAL memory fails the create as DPDK's does. The vpk tables are anonymous
 * mappings of the process (advised for transparent huge pages), not EAL
 * memory, and not bound to socket_id's node: their pages land where the
 * kernel's first-touch policy puts them (no faulting-in at create: see
 * docs/fib.md "Limits").
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vpk/isa.h>

#define COMPAT_FIB_NAMESIZE 64          /* RTE_FIB_NAMESIZE / FIB6_NAMESIZE of DPDK */

struct compat_fib;

struct compat_fib_ops {
	const char *tag;                /* "vpk-rte-fib" / "vpk-rte-fib6": messages */
	const char *mem_prefix;         /* "FIB_" / "FIB6_": the EAL memory name */
	unsigned cnt_create, cnt_add;   /* counters (COMPAT_FIB*_CREATE / _ADD) */
	uint64_t (*vpk_max_nh)(unsigned nh_size);     /* a DUMMY's vpk FIB has 8-byte entries */
	int (*vpk_add)(void *vf, const void *ip, uint8_t depth, uint64_t nh);
	int (*vpk_del)(void *vf, const void *ip, uint8_t depth);
	void (*vpk_free)(void *vf);
	const char *(*vpk_type)(const void *vf);
	const char *(*vpk_impl)(const void *vf);
	/* Insert a route into the RIB or set its next hop: 0 or -errno (nothing changed). */
	int (*rib_set)(void *rib, const void *ip, uint8_t depth, uint64_t nh);
	/* Remove a route from the RIB: 0 or -ENOENT. */
	int (*rib_del)(void *rib, const void *ip, uint8_t depth);
	void (*rib_free)(void *rib);
	/* rib_set() every route of the vpk FIB: 0, or the first error. */
	int (*replay)(struct compat_fib *f);
};

struct compat_fib {
	char name[COMPAT_FIB_NAMESIZE];
	const struct compat_fib_ops *ops;
	void *rib;                      /* rte_rib / rte_rib6 */
	void *vf;                       /* vpk_fib / vpk_fib6; NULL for a DUMMY created RIB-only */
	uint64_t def_nh;
	uint64_t max_nh;                /* DIR24_8 / TRIE: DPDK's get_max_nh(nh_sz) */
	bool dummy;                     /* RTE_FIB_DUMMY / RTE_FIB6_DUMMY */
	bool rib_only;                  /* a DUMMY that vpk cannot hold: RIB lookups */
	bool rib_live;                  /* the RIB holds every route */
	struct compat_fib *next;
};

/* Dataplane set-up of the front end: fill f->vf (or f->rib_only), f->dummy, f->def_nh, f->max_nh. */
typedef int (*compat_fib_init_fn)(struct compat_fib *f, const void *conf);

/*
 * The common part of rte_fib_create() / rte_fib6_create(), once @p rib
 * exists: a name not yet in @p list (else EEXIST), the object of @p size
 * bytes from EAL memory on @p socket_id, @p init. On failure @p rib is
 * freed, rte_errno set and NULL returned.
 */
struct compat_fib *compat_fib_create(const struct compat_fib_ops *ops, struct compat_fib **list, const char *name,
				     int socket_id, size_t size, void *rib, compat_fib_init_fn init, const void *conf);
struct compat_fib *compat_fib_find(struct compat_fib **list, const char *name);
void compat_fib_free(struct compat_fib **list, struct compat_fib *f);
int compat_fib_add(struct compat_fib *f, const void *ip, uint8_t depth, uint64_t nh);
int compat_fib_del(struct compat_fib *f, const void *ip, uint8_t depth);
/* The RIB, filled first if it is not yet (rte_fib_get_rib()). */
void *compat_fib_rib(struct compat_fib *f);
/* rte_fib_get_dp(): the vpk FIB, the FIB itself for DUMMY (as DPDK); NULL for NULL. */
void *compat_fib_dp(struct compat_fib *f);
/* The fields every dataplane set-up fills; @p routes the vpk RIB's capacity (2 * max_routes). */
void compat_fib_init_common(struct compat_fib *f, bool dummy, uint64_t def_nh, int max_routes, uint32_t *routes);
/* rte_fib*_select_lookup()'s result, printed with VPK_RTE_STATS=1; returns @p rc. */
int compat_fib_selected(const struct compat_fib *f, int type, int rc);

typedef int (*compat_select_fn)(void *obj, const char *variant);

/*
 * Select the best variant of @p impls whose register width lies in
 * [min_width, max_width] and that vpk accepts here (vpk_fib_select() also
 * applies vpk's own cap). @return 0 or -ENOTSUP when none does.
 */
static inline int
compat_pick_variant(const struct vpk_impl *const *impls, void *obj, compat_select_fn sel, unsigned min_width,
		    unsigned max_width)
{
	for (unsigned i = 0; impls != NULL && impls[i] != NULL; i++)
		if (impls[i]->width >= min_width && impls[i]->width <= max_width && sel(obj, impls[i]->name) == 0)
			return 0;
	return -ENOTSUP;
}

/*
 * DPDK's AVX-512 lookup type: -EINVAL unless @p cpu_ok and the EAL allows
 * 512 bits (@p bw); then vpk's 512-bit variant, or its best below where
 * vpk's own cap forbids 512-bit code.
 */
static inline int
compat_pick_avx512(const struct vpk_impl *const *impls, void *obj, compat_select_fn sel, bool cpu_ok, unsigned bw)
{
	if (!cpu_ok || bw < 512)
		return -EINVAL;
	if (compat_pick_variant(impls, obj, sel, 512, 512) == 0)
		return 0;
	return compat_pick_variant(impls, obj, sel, 0, 512) == 0 ? 0 : -EINVAL;
}

/* Counters printed at exit with VPK_RTE_STATS=1 (see ../stats.h). */
extern bool compat_fib_stats;
void compat_fib_count(unsigned which, uint64_t n);

enum {
	COMPAT_FIB_CREATE, COMPAT_FIB_ADD, COMPAT_FIB_LOOKUP_CALLS, COMPAT_FIB_LOOKUP_IPS,
	COMPAT_FIB6_CREATE, COMPAT_FIB6_ADD, COMPAT_FIB6_LOOKUP_CALLS, COMPAT_FIB6_LOOKUP_IPS,
	COMPAT_FIB_NCOUNT
};

#endif
