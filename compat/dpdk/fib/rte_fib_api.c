/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librte_fib's IPv4 API (DPDK 22.11, DPDK_23) answered by vpk. The FIB
 * object, updates and the lazily filled rte_rib are in fib_common.c.
 *
 * RTE_FIB_DIR24_8: vpk's bm16 layout for 1-, 2- and 4-byte next hops (it
 * answers as DIR-24-8 does, counts tbl8 groups as DPDK does, and its table
 * stays in cache where a DIR-24-8 one does not), DIR-24-8 for 8 bytes or
 * more groups than bm16 allows. RTE_FIB_DUMMY (a RIB walk in DPDK): a vpk
 * FIB of 8-byte entries as well; a next hop above 2^63-1, or running out of
 * its groups, turns that FIB into RIB lookups like DPDK's.
 */
#include <errno.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_cpuflags.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_rib.h>
#include <rte_fib.h>
#include <rte_vect.h>

#include <vpk/fib.h>

#include "compat_fib.h"

#define DUMMY_TBL8   65536u

struct rte_fib {
	struct compat_fib c;
};

static struct compat_fib *fib_list;

static int
sel4(void *obj, const char *name)
{
	return vpk_fib_select(obj, name);
}

/* The lookup DPDK would pick for @p type, as a vpk variant; -EINVAL where DPDK has none. */
static int
fib_select(struct vpk_fib *vf, enum rte_fib_lookup_type type)
{
	const struct vpk_impl *const *impls = vpk_fib_impls(vpk_fib_get_type(vf));
	unsigned bw = rte_vect_get_max_simd_bitwidth();

	switch (type) {
	case RTE_FIB_LOOKUP_DEFAULT:
		return compat_pick_variant(impls, vf, sel4, 0, bw) == 0 ? 0 : -EINVAL;
	case RTE_FIB_LOOKUP_DIR24_8_SCALAR_MACRO:
	case RTE_FIB_LOOKUP_DIR24_8_SCALAR_INLINE:
	case RTE_FIB_LOOKUP_DIR24_8_SCALAR_UNI:
		return vpk_fib_select(vf, "scalar") == 0 ? 0 : -EINVAL;
	case RTE_FIB_LOOKUP_DIR24_8_VECTOR_AVX512:
		return compat_pick_avx512(impls, vf, sel4, rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512F) > 0, bw);
	default:
		return -EINVAL;
	}
}

static int
fib_init(struct compat_fib *f, const void *arg)
{
	const struct rte_fib_conf *conf = arg;
	struct vpk_fib_conf vc = { .type = VPK_FIB_DIR24_8, .isa = VPK_ISA_AUTO };
	struct vpk_fib *vf;
	int rc;

	compat_fib_init_common(f, conf->type == RTE_FIB_DUMMY, conf->default_nh, conf->max_routes, &vc.max_routes);
	vc.default_nh = conf->default_nh;
	if (f->dummy) {
		vc.nh_size = 8;
		vc.num_tbl8 = DUMMY_TBL8;
		if (conf->default_nh > vpk_fib_max_nh(8)) {
			f->rib_only = true;
			return 0;
		}
	} else {
		unsigned nh_sz = conf->dir24_8.nh_sz;

		if (nh_sz > RTE_FIB_DIR24_8_8B)
			return -EINVAL;
		f->max_nh = (1ull << (8 * (1u << nh_sz) - 1)) - 1;
		if (conf->dir24_8.num_tbl8 == 0 || conf->dir24_8.num_tbl8 > f->max_nh || conf->default_nh > f->max_nh)
			return -EINVAL;
		vc.nh_size = 1u << nh_sz;
		vc.num_tbl8 = conf->dir24_8.num_tbl8;
		if (vc.nh_size <= 4 && vc.num_tbl8 <= vpk_fib_max_tbl8(VPK_FIB_BM16, vc.nh_size))
			vc.type = VPK_FIB_BM16;
		/* More than 2^23 groups (>= 4 GiB of tbl8 in DPDK) are not allocated: the limit is vpk's. */
		vc.num_tbl8 = RTE_MIN(vc.num_tbl8, vpk_fib_max_tbl8(vc.type, vc.nh_size));
	}
	rc = vpk_fib_create(&vc, &vf);
	if (rc < 0)
		return rc;
	f->vf = vf;
	fib_select(vf, RTE_FIB_LOOKUP_DEFAULT);
	return 0;
}

static int
vadd(void *vf, const void *ip, uint8_t depth, uint64_t nh)
{
	return vpk_fib_add(vf, *(const uint32_t *)ip, depth, nh);
}

static int
vdel(void *vf, const void *ip, uint8_t depth)
{
	return vpk_fib_del(vf, *(const uint32_t *)ip, depth);
}

static void
vfree(void *vf)
{
	vpk_fib_destroy(vf);
}

static const char *
vtype(const void *vf)
{
	return vpk_fib_type_name(vf);
}

static const char *
vimpl(const void *vf)
{
	return vpk_fib_impl_name(vf);
}

static int
rset(void *rib, const void *ip, uint8_t depth, uint64_t nh)
{
	uint32_t a = *(const uint32_t *)ip;
	struct rte_rib_node *node = rte_rib_lookup_exact(rib, a, depth);

	if (node == NULL && (node = rte_rib_insert(rib, a, depth)) == NULL)
		return -rte_errno;
	return rte_rib_set_nh(node, nh);
}

static int
rdel(void *rib, const void *ip, uint8_t depth)
{
	uint32_t a = *(const uint32_t *)ip;

	if (rte_rib_lookup_exact(rib, a, depth) == NULL)
		return -ENOENT;
	rte_rib_remove(rib, a, depth);
	return 0;
}

static void
rfree(void *rib)
{
	rte_rib_free(rib);
}

static int
replay_one(void *arg, uint32_t ip, uint8_t depth, uint64_t nh)
{
	struct compat_fib *f = arg;

	return rset(f->rib, &ip, depth, nh);
}

static int
replay(struct compat_fib *f)
{
	return vpk_fib_walk(f->vf, replay_one, f);
}

static const struct compat_fib_ops fib4_ops = {
	.tag = "vpk-rte-fib", .mem_prefix = "FIB_", .cnt_create = COMPAT_FIB_CREATE, .cnt_add = COMPAT_FIB_ADD,
	.vpk_max_nh = vpk_fib_max_nh, .vpk_add = vadd, .vpk_del = vdel, .vpk_free = vfree, .vpk_type = vtype, .vpk_impl = vimpl,
	.rib_set = rset, .rib_del = rdel, .rib_free = rfree, .replay = replay,
};

struct rte_fib *
rte_fib_create(const char *name, int socket_id, struct rte_fib_conf *conf)
{
	struct rte_rib_conf rib_conf;
	struct rte_rib *rib;

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
	return (struct rte_fib *)compat_fib_create(&fib4_ops, &fib_list, name, socket_id, sizeof(struct rte_fib), rib,
						   fib_init, conf);
}

struct rte_fib *
rte_fib_find_existing(const char *name)
{
	return (struct rte_fib *)compat_fib_find(&fib_list, name);
}

void
rte_fib_free(struct rte_fib *fib)
{
	compat_fib_free(&fib_list, fib == NULL ? NULL : &fib->c);
}

int
rte_fib_add(struct rte_fib *fib, uint32_t ip, uint8_t depth, uint64_t next_hop)
{
	if (fib == NULL || depth > RTE_FIB_MAXDEPTH)
		return -EINVAL;
	return compat_fib_add(&fib->c, &ip, depth, next_hop);
}

int
rte_fib_delete(struct rte_fib *fib, uint32_t ip, uint8_t depth)
{
	if (fib == NULL || depth > RTE_FIB_MAXDEPTH)
		return -EINVAL;
	return compat_fib_del(&fib->c, &ip, depth);
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
	if (!fib->c.rib_only) {
		vpk_fib_lookup_bulk(fib->c.vf, ips, next_hops, (size_t)n);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		struct rte_rib_node *node = rte_rib_lookup(fib->c.rib, ips[i]);

		if (node == NULL || rte_rib_get_nh(node, &next_hops[i]) != 0)
			next_hops[i] = fib->c.def_nh;
	}
	return 0;
}

void *
rte_fib_get_dp(struct rte_fib *fib)
{
	return compat_fib_dp(fib == NULL ? NULL : &fib->c);
}

struct rte_rib *
rte_fib_get_rib(struct rte_fib *fib)
{
	return fib == NULL ? NULL : compat_fib_rib(&fib->c);
}

int
rte_fib_select_lookup(struct rte_fib *fib, enum rte_fib_lookup_type type)
{
	if (fib == NULL || fib->c.dummy)
		return -EINVAL;
	return compat_fib_selected(&fib->c, (int)type, fib_select(fib->c.vf, type));
}
