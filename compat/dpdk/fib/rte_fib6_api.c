/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librte_fib's IPv6 API (DPDK 22.11, DPDK_23) answered by vpk. The FIB
 * object, updates and the lazily filled rte_rib6 are in fib_common.c; the
 * dataplane is vpk_fib6_create() with VPK_FIB6_TYPE_DEFAULT.
 * One difference in return codes: vpk counts tbl8 groups exactly where
 * DPDK's trie reserves for the worst case, so an add that DPDK refuses with
 * -ENOSPC may succeed here (never the other way round).
 * RTE_FIB6_DUMMY: a vpk FIB of 8-byte entries, falling back to RIB lookups
 * for a next hop above 2^63-1 or when its groups run out.
 */
#include <errno.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_cpuflags.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_rib6.h>
#include <rte_fib6.h>
#include <rte_vect.h>

#include <vpk/fib6.h>

#include "compat_fib.h"

#define DUMMY6_TBL8   65536u

struct rte_fib6 {
	struct compat_fib c;
};

static struct compat_fib *fib6_list;

static int
sel6(void *obj, const char *name)
{
	return vpk_fib6_select(obj, name);
}

static int
fib6_select(struct vpk_fib6 *vf, enum rte_fib6_lookup_type type)
{
	const struct vpk_impl *const *impls = vpk_fib6_impls(VPK_FIB6_TYPE_DEFAULT);
	unsigned bw = rte_vect_get_max_simd_bitwidth();

	switch (type) {
	case RTE_FIB6_LOOKUP_DEFAULT:
		return compat_pick_variant(impls, vf, sel6, 0, bw) == 0 ? 0 : -EINVAL;
	case RTE_FIB6_LOOKUP_TRIE_SCALAR:
		return vpk_fib6_select(vf, "scalar") == 0 ? 0 : -EINVAL;
	case RTE_FIB6_LOOKUP_TRIE_VECTOR_AVX512:
		return compat_pick_avx512(impls, vf, sel6,
					  rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512F) > 0 &&
					  rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512DQ) > 0 &&
					  rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512BW) > 0, bw);
	default:
		return -EINVAL;
	}
}

static int
fib6_init(struct compat_fib *f, const void *arg)
{
	const struct rte_fib6_conf *conf = arg;
	struct vpk_fib6_conf vc = { .type = VPK_FIB6_TYPE_DEFAULT, .isa = VPK_ISA_AUTO };
	struct vpk_fib6 *vf;
	int rc;

	compat_fib_init_common(f, conf->type == RTE_FIB6_DUMMY, conf->default_nh, conf->max_routes, &vc.max_routes);
	vc.default_nh = conf->default_nh;
	if (f->dummy) {
		vc.nh_size = 8;
		vc.num_tbl8 = DUMMY6_TBL8;
		if (conf->default_nh > vpk_fib6_max_nh(8)) {
			f->rib_only = true;
			return 0;
		}
	} else {
		unsigned nh_sz = conf->trie.nh_sz;

		if (nh_sz < RTE_FIB6_TRIE_2B || nh_sz > RTE_FIB6_TRIE_8B)
			return -EINVAL;
		f->max_nh = (1ull << (8 * (1u << nh_sz) - 1)) - 1;
		if (conf->trie.num_tbl8 == 0 || conf->trie.num_tbl8 > f->max_nh || conf->default_nh > f->max_nh)
			return -EINVAL;
		vc.nh_size = 1u << nh_sz;
		vc.num_tbl8 = RTE_MIN(conf->trie.num_tbl8, 1u << 23);     /* vpk's limit; DPDK cannot allocate more */
	}
	rc = vpk_fib6_create(&vc, &vf);
	if (rc < 0)
		return rc;
	f->vf = vf;
	fib6_select(vf, RTE_FIB6_LOOKUP_DEFAULT);
	return 0;
}

static int
vadd(void *vf, const void *ip, uint8_t depth, uint64_t nh)
{
	return vpk_fib6_add(vf, ip, depth, nh);
}

static int
vdel(void *vf, const void *ip, uint8_t depth)
{
	return vpk_fib6_del(vf, ip, depth);
}

static void
vfree(void *vf)
{
	vpk_fib6_destroy(vf);
}

static const char *
vtype(const void *vf)
{
	return vpk_fib6_type_name(vf);
}

static const char *
vimpl(const void *vf)
{
	return vpk_fib6_impl_name(vf);
}

static int
rset(void *rib, const void *ip, uint8_t depth, uint64_t nh)
{
	struct rte_rib6_node *node = rte_rib6_lookup_exact(rib, ip, depth);

	if (node == NULL && (node = rte_rib6_insert(rib, ip, depth)) == NULL)
		return -rte_errno;
	return rte_rib6_set_nh(node, nh);
}

static int
rdel(void *rib, const void *ip, uint8_t depth)
{
	if (rte_rib6_lookup_exact(rib, ip, depth) == NULL)
		return -ENOENT;
	rte_rib6_remove(rib, ip, depth);
	return 0;
}

static void
rfree(void *rib)
{
	rte_rib6_free(rib);
}

static int
replay_one(void *arg, const uint8_t ip[16], uint8_t depth, uint64_t nh)
{
	struct compat_fib *f = arg;

	return rset(f->rib, ip, depth, nh);
}

static int
replay(struct compat_fib *f)
{
	return vpk_fib6_walk(f->vf, replay_one, f);
}

static const struct compat_fib_ops fib6_ops = {
	.tag = "vpk-rte-fib6", .mem_prefix = "FIB6_", .cnt_create = COMPAT_FIB6_CREATE, .cnt_add = COMPAT_FIB6_ADD,
	.vpk_max_nh = vpk_fib6_max_nh, .vpk_add = vadd, .vpk_del = vdel, .vpk_free = vfree, .vpk_type = vtype,
	.vpk_impl = vimpl, .rib_set = rset, .rib_del = rdel, .rib_free = rfree, .replay = replay,
};

struct rte_fib6 *
rte_fib6_create(const char *name, int socket_id, struct rte_fib6_conf *conf)
{
	struct rte_rib6_conf rib_conf;
	struct rte_rib6 *rib;

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
	return (struct rte_fib6 *)compat_fib_create(&fib6_ops, &fib6_list, name, socket_id, sizeof(struct rte_fib6),
						    rib, fib6_init, conf);
}

struct rte_fib6 *
rte_fib6_find_existing(const char *name)
{
	return (struct rte_fib6 *)compat_fib_find(&fib6_list, name);
}

void
rte_fib6_free(struct rte_fib6 *fib)
{
	compat_fib_free(&fib6_list, fib == NULL ? NULL : &fib->c);
}

int
rte_fib6_add(struct rte_fib6 *fib, const uint8_t ip[RTE_FIB6_IPV6_ADDR_SIZE], uint8_t depth, uint64_t next_hop)
{
	if (fib == NULL || ip == NULL || depth > RTE_FIB6_MAXDEPTH)
		return -EINVAL;
	return compat_fib_add(&fib->c, ip, depth, next_hop);
}

int
rte_fib6_delete(struct rte_fib6 *fib, const uint8_t ip[RTE_FIB6_IPV6_ADDR_SIZE], uint8_t depth)
{
	if (fib == NULL || ip == NULL || depth > RTE_FIB6_MAXDEPTH)
		return -EINVAL;
	return compat_fib_del(&fib->c, ip, depth);
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
	if (!fib->c.rib_only) {
		vpk_fib6_lookup_bulk(fib->c.vf, (const uint8_t (*)[16])ips, next_hops, (size_t)n);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		struct rte_rib6_node *node = rte_rib6_lookup(fib->c.rib, ips[i]);

		if (node == NULL || rte_rib6_get_nh(node, &next_hops[i]) != 0)
			next_hops[i] = fib->c.def_nh;
	}
	return 0;
}

void *
rte_fib6_get_dp(struct rte_fib6 *fib)
{
	return compat_fib_dp(fib == NULL ? NULL : &fib->c);
}

struct rte_rib6 *
rte_fib6_get_rib(struct rte_fib6 *fib)
{
	return fib == NULL ? NULL : compat_fib_rib(&fib->c);
}

int
rte_fib6_select_lookup(struct rte_fib6 *fib, enum rte_fib6_lookup_type type)
{
	if (fib == NULL || fib->c.dummy)
		return -EINVAL;
	return compat_fib_selected(&fib->c, (int)type, fib6_select(fib->c.vf, type));
}
