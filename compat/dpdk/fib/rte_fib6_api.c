/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librte_fib's IPv6 API (DPDK 22.11, DPDK_23) answered by vpk.
 *
 * As rte_fib_api.c: a real rte_rib6 (what rte_fib6_get_rib() returns) plus
 * a vpk IPv6 FIB (vpk_fib6_create() with VPK_FIB6_TYPE_DEFAULT) for lookups.
 * One difference in return codes: vpk counts tbl8 groups exactly where
 * DPDK's trie reserves for the worst case, so an add that DPDK refuses with
 * -ENOSPC may succeed here (never the other way round).
 * RTE_FIB6_DUMMY: a vpk FIB of 8-byte entries, falling back to RIB lookups
 * for a next hop above 2^63-1 or when its groups run out.
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
#include <rte_rib6.h>
#include <rte_fib6.h>
#include <rte_vect.h>

#include <vpk/fib6.h>

#include "compat_fib.h"

#define FIB6_NAMESIZE 64                /* FIB6_NAMESIZE of rte_fib6.c */
#define DUMMY6_TBL8   65536u

struct rte_fib6 {
	char name[FIB6_NAMESIZE];
	enum rte_fib6_type type;
	struct rte_rib6 *rib;
	struct vpk_fib6 *vf;
	uint64_t def_nh;
	uint64_t max_nh;                /* TRIE: DPDK's get_max_nh(nh_sz) */
	bool rib_only;                  /* DUMMY that vpk cannot hold: RIB lookups */
	struct rte_fib6 *next;
};

static pthread_mutex_t fib6_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rte_fib6 *fib6_list;

static int
sel6(void *obj, const char *name)
{
	return vpk_fib6_select(obj, name);
}

static int
fib6_select(struct rte_fib6 *fib, enum rte_fib6_lookup_type type)
{
	const struct vpk_impl *const *impls = vpk_fib6_impls(VPK_FIB6_TYPE_DEFAULT);
	unsigned bw = rte_vect_get_max_simd_bitwidth();

	switch (type) {
	case RTE_FIB6_LOOKUP_DEFAULT:
		return compat_pick_variant(impls, fib->vf, sel6, 0, bw) == 0 ? 0 : -EINVAL;
	case RTE_FIB6_LOOKUP_TRIE_SCALAR:
		return vpk_fib6_select(fib->vf, "scalar") == 0 ? 0 : -EINVAL;
	case RTE_FIB6_LOOKUP_TRIE_VECTOR_AVX512:
		if (rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512F) <= 0 ||
		    rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512DQ) <= 0 ||
		    rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512BW) <= 0 || bw < RTE_VECT_SIMD_512)
			return -EINVAL;
		if (compat_pick_variant(impls, fib->vf, sel6, 512, 512) == 0)
			return 0;
		return compat_pick_variant(impls, fib->vf, sel6, 0, 512) == 0 ? 0 : -EINVAL;
	default:
		return -EINVAL;
	}
}

static int
fib6_init_dataplane(struct rte_fib6 *fib, const struct rte_fib6_conf *conf)
{
	struct vpk_fib6_conf vc = { .type = VPK_FIB6_TYPE_DEFAULT, .isa = VPK_ISA_AUTO };
	uint64_t routes = 2ull * (uint64_t)conf->max_routes;
	int rc;

	vc.max_routes = (uint32_t)RTE_MIN(routes, (uint64_t)UINT32_MAX);
	vc.default_nh = conf->default_nh;
	if (conf->type == RTE_FIB6_DUMMY) {
		vc.nh_size = 8;
		vc.num_tbl8 = DUMMY6_TBL8;
		if (conf->default_nh > vpk_fib6_max_nh(8)) {
			fib->rib_only = true;
			return 0;
		}
	} else {
		unsigned nh_sz = conf->trie.nh_sz;

		if (nh_sz < RTE_FIB6_TRIE_2B || nh_sz > RTE_FIB6_TRIE_8B)
			return -EINVAL;
		fib->max_nh = (1ull << (8 * (1u << nh_sz) - 1)) - 1;
		if (conf->trie.num_tbl8 == 0 || conf->trie.num_tbl8 > fib->max_nh || conf->default_nh > fib->max_nh)
			return -EINVAL;
		vc.nh_size = 1u << nh_sz;
		vc.num_tbl8 = RTE_MIN(conf->trie.num_tbl8, 1u << 23);     /* vpk's limit; DPDK cannot allocate more */
	}
	rc = vpk_fib6_create(&vc, &fib->vf);
	if (rc < 0)
		return rc;
	fib6_select(fib, RTE_FIB6_LOOKUP_DEFAULT);
	return 0;
}

struct rte_fib6 *
rte_fib6_create(const char *name, int socket_id, struct rte_fib6_conf *conf)
{
	struct rte_rib6_conf rib_conf;
	struct rte_rib6 *rib;
	struct rte_fib6 *fib = NULL, *f;
	char mem_name[FIB6_NAMESIZE];
	int rc;

	if (name == NULL || conf == NULL || conf->max_routes < 0 || conf->type > RTE_FIB6_TRIE) {
		rte_errno = EINVAL;
		return NULL;
	}
	rib_conf.ext_sz = conf->rib_ext_sz;
	rib_conf.max_nodes = conf->max_routes * 2;
	rib = rte_rib6_create(name, socket_id, &rib_conf);
	if (rib == NULL) {
		RTE_LOG(ERR, LPM, "Can not allocate RIB %s\n", name);
		return NULL;
	}
	snprintf(mem_name, sizeof(mem_name), "FIB6_%s", name);
	pthread_mutex_lock(&fib6_lock);
	for (f = fib6_list; f != NULL; f = f->next)
		if (strncmp(name, f->name, FIB6_NAMESIZE) == 0)
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
	rc = fib6_init_dataplane(fib, conf);
	if (rc < 0) {
		RTE_LOG(ERR, LPM, "FIB dataplane struct %s memory allocation failed\n", name);
		rte_errno = -rc;
		rte_free(fib);
		fib = NULL;
		goto fail;
	}
	fib->next = fib6_list;
	fib6_list = fib;
	pthread_mutex_unlock(&fib6_lock);
	if (compat_fib_stats) {
		compat_fib_count(COMPAT_FIB6_CREATE, 1);
		fprintf(stderr, "vpk-rte-fib6: %s: %s, lookup %s\n", name, fib->rib_only ? "rib" : vpk_fib6_type_name(fib->vf),
			fib->rib_only ? "rib" : vpk_fib6_impl_name(fib->vf));
	}
	return fib;
fail:
	pthread_mutex_unlock(&fib6_lock);
	rte_rib6_free(rib);
	return NULL;
}

struct rte_fib6 *
rte_fib6_find_existing(const char *name)
{
	struct rte_fib6 *f = NULL;

	pthread_mutex_lock(&fib6_lock);
	for (f = fib6_list; name != NULL && f != NULL; f = f->next)
		if (strncmp(name, f->name, FIB6_NAMESIZE) == 0)
			break;
	if (name == NULL)
		f = NULL;
	pthread_mutex_unlock(&fib6_lock);
	if (f == NULL)
		rte_errno = ENOENT;
	return f;
}

void
rte_fib6_free(struct rte_fib6 *fib)
{
	struct rte_fib6 **pp;

	if (fib == NULL)
		return;
	pthread_mutex_lock(&fib6_lock);
	for (pp = &fib6_list; *pp != NULL && *pp != fib; pp = &(*pp)->next)
		;
	if (*pp != NULL)
		*pp = fib->next;
	pthread_mutex_unlock(&fib6_lock);
	vpk_fib6_destroy(fib->vf);
	rte_rib6_free(fib->rib);
	rte_free(fib);
}

int
rte_fib6_add(struct rte_fib6 *fib, const uint8_t ip[RTE_FIB6_IPV6_ADDR_SIZE], uint8_t depth, uint64_t next_hop)
{
	struct rte_rib6_node *node;
	bool in_vpk = false;
	uint64_t old;
	int rc;

	if (fib == NULL || ip == NULL || depth > RTE_FIB6_MAXDEPTH)
		return -EINVAL;
	if (fib->type == RTE_FIB6_TRIE && next_hop > fib->max_nh)
		return -EINVAL;
	node = rte_rib6_lookup_exact(fib->rib, ip, depth);
	if (node != NULL && rte_rib6_get_nh(node, &old) == 0 && old == next_hop)
		return 0;
	if (compat_fib_stats)
		compat_fib_count(COMPAT_FIB6_ADD, 1);
	if (!fib->rib_only) {
		if (fib->type == RTE_FIB6_DUMMY && next_hop > vpk_fib6_max_nh(8)) {
			fib->rib_only = true;
		} else {
			rc = vpk_fib6_add(fib->vf, ip, depth, next_hop);
			if (rc < 0 && fib->type == RTE_FIB6_TRIE)
				return rc;
			fib->rib_only = rc < 0;
			in_vpk = rc == 0 && node == NULL;
		}
	}
	if (node == NULL) {
		node = rte_rib6_insert(fib->rib, ip, depth);
		if (node == NULL) {
			rc = -rte_errno;
			if (in_vpk)
				vpk_fib6_del(fib->vf, ip, depth);
			return rc;
		}
	}
	return rte_rib6_set_nh(node, next_hop);
}

int
rte_fib6_delete(struct rte_fib6 *fib, const uint8_t ip[RTE_FIB6_IPV6_ADDR_SIZE], uint8_t depth)
{
	int rc;

	if (fib == NULL || ip == NULL || depth > RTE_FIB6_MAXDEPTH)
		return -EINVAL;
	if (rte_rib6_lookup_exact(fib->rib, ip, depth) == NULL)
		return -ENOENT;
	if (!fib->rib_only) {
		rc = vpk_fib6_del(fib->vf, ip, depth);
		if (rc < 0 && rc != -ENOENT)
			return rc;
	}
	rte_rib6_remove(fib->rib, ip, depth);
	return 0;
}

int
rte_fib6_lookup_bulk(struct rte_fib6 *fib, uint8_t ips[][RTE_FIB6_IPV6_ADDR_SIZE], uint64_t *next_hops, int n)
{
	if (fib == NULL || ips == NULL || next_hops == NULL)
		return -EINVAL;
	if (n <= 0)
		return 0;
	if (compat_fib_stats) {
		compat_fib_count(COMPAT_FIB6_LOOKUP_CALLS, 1);
		compat_fib_count(COMPAT_FIB6_LOOKUP_IPS, (uint64_t)n);
	}
	if (!fib->rib_only) {
		vpk_fib6_lookup_bulk(fib->vf, (const uint8_t (*)[16])ips, next_hops, (size_t)n);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		struct rte_rib6_node *node = rte_rib6_lookup(fib->rib, ips[i]);

		if (node == NULL || rte_rib6_get_nh(node, &next_hops[i]) != 0)
			next_hops[i] = fib->def_nh;
	}
	return 0;
}

void *
rte_fib6_get_dp(struct rte_fib6 *fib)
{
	if (fib == NULL)
		return NULL;
	return fib->type == RTE_FIB6_DUMMY ? (void *)fib : (void *)fib->vf;
}

struct rte_rib6 *
rte_fib6_get_rib(struct rte_fib6 *fib)
{
	return fib == NULL ? NULL : fib->rib;
}

int
rte_fib6_select_lookup(struct rte_fib6 *fib, enum rte_fib6_lookup_type type)
{
	if (fib == NULL || fib->type != RTE_FIB6_TRIE)
		return -EINVAL;
	int rc = fib6_select(fib, type);

	if (compat_fib_stats)
		fprintf(stderr, "vpk-rte-fib6: %s: select_lookup(%d) = %d, lookup %s\n", fib->name, (int)type, rc,
			vpk_fib6_impl_name(fib->vf));
	return rc;
}
