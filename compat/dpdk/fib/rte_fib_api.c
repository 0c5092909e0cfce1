/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librte_fib's IPv4 API (DPDK 22.11, DPDK_23) answered by vpk.
 *
 * Each rte_fib holds a real rte_rib (librte_rib, named and sized as DPDK's:
 * max_nodes = 2 * max_routes, on socket_id), so rte_fib_get_rib() returns a
 * RIB that librte_rib's functions answer exactly as with DPDK, and a vpk FIB
 * that answers lookups. Every add and delete goes to both; the vpk FIB is
 * changed first, as DPDK's dataplane is, so its -ENOSPC (tbl8 groups: same
 * count, same rounding to 64) comes before the RIB is touched.
 *
 * RTE_FIB_DIR24_8: vpk's best layout for the entry width (vpk_fib_create()
 * with VPK_FIB_TYPE_DEFAULT). RTE_FIB_DUMMY (a RIB walk in DPDK): a vpk FIB
 * of 8-byte entries as well; a next hop above 2^63-1, or running out of its
 * groups, turns that FIB into RIB lookups like DPDK's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cpuflags.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_rib.h>
#include <rte_fib.h>
#include <rte_vect.h>

#include <vpk/fib.h>

#include "compat_fib.h"

#define FIB_NAMESIZE 64                 /* RTE_FIB_NAMESIZE of rte_fib.c */
#define DUMMY_TBL8   65536u

struct rte_fib {
	char name[FIB_NAMESIZE];
	enum rte_fib_type type;
	struct rte_rib *rib;
	struct vpk_fib *vf;
	uint64_t def_nh;
	uint64_t max_nh;                /* DIR24_8: DPDK's get_max_nh(nh_sz) */
	bool rib_only;                  /* DUMMY that vpk cannot hold: RIB lookups */
	struct rte_fib *next;
};

static pthread_mutex_t fib_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rte_fib *fib_list;

static int
sel4(void *obj, const char *name)
{
	return vpk_fib_select(obj, name);
}

/* The lookup DPDK would pick for @p type, as a vpk variant; -EINVAL where DPDK has none. */
static int
fib_select(struct rte_fib *fib, enum rte_fib_lookup_type type)
{
	const struct vpk_impl *const *impls = vpk_fib_impls(vpk_fib_get_type(fib->vf));
	unsigned bw = rte_vect_get_max_simd_bitwidth();

	switch (type) {
	case RTE_FIB_LOOKUP_DEFAULT:
		return compat_pick_variant(impls, fib->vf, sel4, 0, bw) == 0 ? 0 : -EINVAL;
	case RTE_FIB_LOOKUP_DIR24_8_SCALAR_MACRO:
	case RTE_FIB_LOOKUP_DIR24_8_SCALAR_INLINE:
	case RTE_FIB_LOOKUP_DIR24_8_SCALAR_UNI:
		return vpk_fib_select(fib->vf, "scalar") == 0 ? 0 : -EINVAL;
	case RTE_FIB_LOOKUP_DIR24_8_VECTOR_AVX512:
		if (rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512F) <= 0 || bw < RTE_VECT_SIMD_512)
			return -EINVAL;
		/* vpk's own cap may forbid 512-bit code: then its best below. */
		if (compat_pick_variant(impls, fib->vf, sel4, 512, 512) == 0)
			return 0;
		return compat_pick_variant(impls, fib->vf, sel4, 0, 512) == 0 ? 0 : -EINVAL;
	default:
		return -EINVAL;
	}
}

static int
fib_init_dataplane(struct rte_fib *fib, const struct rte_fib_conf *conf)
{
	struct vpk_fib_conf vc = { .type = VPK_FIB_TYPE_DEFAULT, .isa = VPK_ISA_AUTO };
	uint64_t routes = 2ull * (uint64_t)conf->max_routes;
	int rc;

	vc.max_routes = (uint32_t)RTE_MIN(routes, (uint64_t)UINT32_MAX);
	if (conf->type == RTE_FIB_DUMMY) {
		vc.type = VPK_FIB_DIR24_8;
		vc.nh_size = 8;
		vc.num_tbl8 = DUMMY_TBL8;
		vc.default_nh = conf->default_nh;
		if (conf->default_nh > vpk_fib_max_nh(8)) {
			fib->rib_only = true;
			return 0;
		}
	} else {
		unsigned nh_sz = conf->dir24_8.nh_sz;

		if (nh_sz > RTE_FIB_DIR24_8_8B)
			return -EINVAL;
		fib->max_nh = (1ull << (8 * (1u << nh_sz) - 1)) - 1;
		if (conf->dir24_8.num_tbl8 == 0 || conf->dir24_8.num_tbl8 > fib->max_nh ||
		    conf->default_nh > fib->max_nh)
			return -EINVAL;
		vc.nh_size = 1u << nh_sz;
		vc.default_nh = conf->default_nh;
		vc.num_tbl8 = conf->dir24_8.num_tbl8;
		if (vc.num_tbl8 > vpk_fib_max_tbl8(VPK_FIB_TYPE_DEFAULT, vc.nh_size))
			vc.type = VPK_FIB_DIR24_8;
		/* More than 2^23 groups (>= 4 GiB of tbl8 in DPDK) are not allocated: the limit is vpk's. */
		vc.num_tbl8 = RTE_MIN(vc.num_tbl8, vpk_fib_max_tbl8(vc.type, vc.nh_size));
	}
	rc = vpk_fib_create(&vc, &fib->vf);
	if (rc < 0)
		return rc;
	fib_select(fib, RTE_FIB_LOOKUP_DEFAULT);
	return 0;
}

struct rte_fib *
rte_fib_create(const char *name, int socket_id, struct rte_fib_conf *conf)
{
	struct rte_rib_conf rib_conf;
	struct rte_rib *rib;
	struct rte_fib *fib = NULL, *f;
	char mem_name[FIB_NAMESIZE];
	int rc;

	if (name == NULL || conf == NULL || conf->max_routes < 0 || conf->type > RTE_FIB_DIR24_8) {
		rte_errno = EINVAL;
		return NULL;
	}
	rib_conf.ext_sz = conf->rib_ext_sz;
	rib_conf.max_nodes = conf->max_routes * 2;
	rib = rte_rib_create(name, socket_id, &rib_conf);
	if (rib == NULL) {
		RTE_LOG(ERR, LPM, "Can not allocate RIB %s\n", name);
		return NULL;
	}
	snprintf(mem_name, sizeof(mem_name), "FIB_%s", name);
	pthread_mutex_lock(&fib_lock);
	for (f = fib_list; f != NULL; f = f->next)
		if (strncmp(name, f->name, FIB_NAMESIZE) == 0)
			break;
	if (f != NULL) {
		rte_errno = EEXIST;
		goto fail;
	}
	fib = rte_zmalloc_socket(mem_name, sizeof(*fib), RTE_CACHE_LINE_SIZE, socket_id);
	if (fib == NULL) {
		RTE_LOG(ERR, LPM, "FIB %s memory allocation failed\n", name);
		rte_errno = ENOMEM;
		goto fail;
	}
	snprintf(fib->name, sizeof(fib->name), "%s", name);
	fib->rib = rib;
	fib->type = conf->type;
	fib->def_nh = conf->default_nh;
	rc = fib_init_dataplane(fib, conf);
	if (rc < 0) {
		RTE_LOG(ERR, LPM, "FIB dataplane struct %s memory allocation failed with err %d\n", name, rc);
		rte_errno = -rc;
		rte_free(fib);
		fib = NULL;
		goto fail;
	}
	fib->next = fib_list;
	fib_list = fib;
	pthread_mutex_unlock(&fib_lock);
	if (compat_fib_stats) {
		compat_fib_count(COMPAT_FIB_CREATE, 1);
		fprintf(stderr, "vpk-rte-fib: %s: %s, lookup %s\n", name, fib->rib_only ? "rib" : vpk_fib_type_name(fib->vf),
			fib->rib_only ? "rib" : vpk_fib_impl_name(fib->vf));
	}
	return fib;
fail:
	pthread_mutex_unlock(&fib_lock);
	rte_rib_free(rib);
	return NULL;
}

struct rte_fib *
rte_fib_find_existing(const char *name)
{
	struct rte_fib *f = NULL;

	pthread_mutex_lock(&fib_lock);
	for (f = fib_list; name != NULL && f != NULL; f = f->next)
		if (strncmp(name, f->name, FIB_NAMESIZE) == 0)
			break;
	if (name == NULL)
		f = NULL;
	pthread_mutex_unlock(&fib_lock);
	if (f == NULL)
		rte_errno = ENOENT;
	return f;
}

void
rte_fib_free(struct rte_fib *fib)
{
	struct rte_fib **pp;

	if (fib == NULL)
		return;
	pthread_mutex_lock(&fib_lock);
	for (pp = &fib_list; *pp != NULL && *pp != fib; pp = &(*pp)->next)
		;
	if (*pp != NULL)
		*pp = fib->next;
	pthread_mutex_unlock(&fib_lock);
	vpk_fib_destroy(fib->vf);
	rte_rib_free(fib->rib);
	rte_free(fib);
}

int
rte_fib_add(struct rte_fib *fib, uint32_t ip, uint8_t depth, uint64_t next_hop)
{
	struct rte_rib_node *node;
	bool in_vpk = false;
	uint64_t old;
	int rc;

	if (fib == NULL || depth > RTE_FIB_MAXDEPTH)
		return -EINVAL;
	if (fib->type == RTE_FIB_DIR24_8 && next_hop > fib->max_nh)
		return -EINVAL;
	node = rte_rib_lookup_exact(fib->rib, ip, depth);
	if (node != NULL && rte_rib_get_nh(node, &old) == 0 && old == next_hop)
		return 0;
	if (compat_fib_stats)
		compat_fib_count(COMPAT_FIB_ADD, 1);
	if (!fib->rib_only) {
		if (fib->type == RTE_FIB_DUMMY && next_hop > vpk_fib_max_nh(8)) {
			fib->rib_only = true;
		} else {
			rc = vpk_fib_add(fib->vf, ip, depth, next_hop);
			if (rc < 0 && fib->type == RTE_FIB_DIR24_8)
				return rc;
			fib->rib_only = rc < 0;
			in_vpk = rc == 0 && node == NULL;
		}
	}
	if (node == NULL) {
		node = rte_rib_insert(fib->rib, ip, depth);
		if (node == NULL) {
			rc = -rte_errno;
			if (in_vpk)
				vpk_fib_del(fib->vf, ip, depth);
			return rc;
		}
	}
	return rte_rib_set_nh(node, next_hop);
}

int
rte_fib_delete(struct rte_fib *fib, uint32_t ip, uint8_t depth)
{
	int rc;

	if (fib == NULL || depth > RTE_FIB_MAXDEPTH)
		return -EINVAL;
	if (rte_rib_lookup_exact(fib->rib, ip, depth) == NULL)
		return -ENOENT;
	if (!fib->rib_only) {
		rc = vpk_fib_del(fib->vf, ip, depth);
		if (rc < 0 && rc != -ENOENT)
			return rc;
	}
	rte_rib_remove(fib->rib, ip, depth);
	return 0;
}

int
rte_fib_lookup_bulk(struct rte_fib *fib, uint32_t *ips, uint64_t *next_hops, int n)
{
	if (fib == NULL || ips == NULL || next_hops == NULL)
		return -EINVAL;
	if (n <= 0)
		return 0;
	if (compat_fib_stats) {
		compat_fib_count(COMPAT_FIB_LOOKUP_CALLS, 1);
		compat_fib_count(COMPAT_FIB_LOOKUP_IPS, (uint64_t)n);
	}
	if (!fib->rib_only) {
		vpk_fib_lookup_bulk(fib->vf, ips, next_hops, (size_t)n);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		struct rte_rib_node *node = rte_rib_lookup(fib->rib, ips[i]);

		if (node == NULL || rte_rib_get_nh(node, &next_hops[i]) != 0)
			next_hops[i] = fib->def_nh;
	}
	return 0;
}

void *
rte_fib_get_dp(struct rte_fib *fib)
{
	if (fib == NULL)
		return NULL;
	return fib->type == RTE_FIB_DUMMY ? (void *)fib : (void *)fib->vf;
}

struct rte_rib *
rte_fib_get_rib(struct rte_fib *fib)
{
	return fib == NULL ? NULL : fib->rib;
}

int
rte_fib_select_lookup(struct rte_fib *fib, enum rte_fib_lookup_type type)
{
	if (fib == NULL || fib->type != RTE_FIB_DIR24_8)
		return -EINVAL;
	int rc = fib_select(fib, type);

	if (compat_fib_stats)
		fprintf(stderr, "vpk-rte-fib: %s: select_lookup(%d) = %d, lookup %s\n", fib->name, (int)type, rc,
			vpk_fib_impl_name(fib->vf));
	return rc;
}
