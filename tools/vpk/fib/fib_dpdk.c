/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dlopen() shim for DPDK rte_fib 22.11 (fib_dpdk.h). EAL is initialised once
 * per process with no PCI scan, pinned to the CPU we run on, a unique
 * --file-prefix (other DPDK processes may hold the default one) and
 * --force-max-simd-bitwidth=512 so the AVX-512 lookup can be selected; on
 * hugepages (--in-memory) when a hugetlbfs with the requested memory free is
 * mounted and VPK_DPDK_NO_HUGE is unset, as DPDK is deployed (vpk's tables
 * are on transparent huge pages), else with --no-huge -m.
 */
#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "common/dpdk_eal.h"
#include "fib/fib_dpdk.h"

/* 22.11 struct rte_fib_conf (lib/fib/rte_fib.h). */
struct rte_fib_conf_2211 {
	int type;               /* RTE_FIB_DIR24_8 = 1 */
	uint64_t default_nh;
	int max_routes;
	unsigned int rib_ext_sz;
	struct {
		int nh_sz;      /* 0..3 = 1/2/4/8 bytes */
		uint32_t num_tbl8;
	} dir24_8;
};

/* rte_fib6_conf (22.11) has the same layout: type (RTE_FIB6_TRIE = 1),
 * default_nh, max_routes, rib_ext_sz, trie { nh_sz (1..3 = 2/4/8 bytes), num_tbl8 }. */

/* 22.11 struct rte_malloc_socket_stats. */
struct rte_malloc_socket_stats_2211 {
	size_t heap_totalsz_bytes, heap_freesz_bytes, greatest_free_size;
	unsigned free_count, alloc_count;
	size_t heap_allocsz_bytes;
};

static struct {
	bool ready, huge;      /* huge: EAL on hugepages */
	int (*eal_init)(int, char **);
	void *(*fib_create)(const char *, int, struct rte_fib_conf_2211 *);
	void (*fib_free)(void *);
	int (*fib_add)(void *, uint32_t, uint8_t, uint64_t);
	int (*fib_delete)(void *, uint32_t, uint8_t);
	int (*fib_lookup_bulk)(void *, uint32_t *, uint64_t *, int);
	int (*fib_select_lookup)(void *, int);
	int (*malloc_stats)(int, struct rte_malloc_socket_stats_2211 *);
	void *(*fib6_create)(const char *, int, struct rte_fib_conf_2211 *);
	void (*fib6_free)(void *);
	int (*fib6_add)(void *, const uint8_t *, uint8_t, uint64_t);
	int (*fib6_delete)(void *, const uint8_t *, uint8_t);
	int (*fib6_lookup_bulk)(void *, uint8_t (*)[16], uint64_t *, int);
	int (*fib6_select_lookup)(void *, int);
} d;

/* EAL's runtime directory (/run/dpdk/vpkfib<pid>), empty with --in-memory / --no-shconf: removed at exit. */
static char eal_dir[256];

static void
eal_rmdir(void)
{
	(void)rmdir(eal_dir);
}

bool
dpdk_ready(void)
{
	return d.ready;
}

int
dpdk_open(unsigned mem_mb, const char **why)
{
	static bool tried;
	static const char *fail;

	if (tried) {
		*why = fail;
		return d.ready ? 0 : -1;
	}
	tried = true;
	void *eal = dlopen("librte_eal.so.23", RTLD_NOW | RTLD_GLOBAL);
	void *fib = dlopen("librte_fib.so.23", RTLD_NOW | RTLD_GLOBAL);
	if (eal == NULL || fib == NULL) {
		*why = fail = "DPDK 22.11 libraries (librte_eal.so.23, librte_fib.so.23) not found";
		return -1;
	}
	d.eal_init = (int (*)(int, char **))dlsym(eal, "rte_eal_init");
	d.malloc_stats = (int (*)(int, struct rte_malloc_socket_stats_2211 *))dlsym(eal, "rte_malloc_get_socket_stats");
	d.fib_create = (void *(*)(const char *, int, struct rte_fib_conf_2211 *))dlsym(fib, "rte_fib_create");
	d.fib_free = (void (*)(void *))dlsym(fib, "rte_fib_free");
	d.fib_add = (int (*)(void *, uint32_t, uint8_t, uint64_t))dlsym(fib, "rte_fib_add");
	d.fib_delete = (int (*)(void *, uint32_t, uint8_t))dlsym(fib, "rte_fib_delete");
	d.fib_lookup_bulk = (int (*)(void *, uint32_t *, uint64_t *, int))dlsym(fib, "rte_fib_lookup_bulk");
	d.fib_select_lookup = (int (*)(void *, int))dlsym(fib, "rte_fib_select_lookup");
	d.fib6_create = (void *(*)(const char *, int, struct rte_fib_conf_2211 *))dlsym(fib, "rte_fib6_create");
	d.fib6_free = (void (*)(void *))dlsym(fib, "rte_fib6_free");
	d.fib6_add = (int (*)(void *, const uint8_t *, uint8_t, uint64_t))dlsym(fib, "rte_fib6_add");
	d.fib6_delete = (int (*)(void *, const uint8_t *, uint8_t))dlsym(fib, "rte_fib6_delete");
	d.fib6_lookup_bulk = (int (*)(void *, uint8_t (*)[16], uint64_t *, int))dlsym(fib, "rte_fib6_lookup_bulk");
	d.fib6_select_lookup = (int (*)(void *, int))dlsym(fib, "rte_fib6_select_lookup");
	if (!d.fib6_create || !d.fib6_free || !d.fib6_add || !d.fib6_delete || !d.fib6_lookup_bulk ||
	    !d.fib6_select_lookup) {
		*why = fail = "DPDK libraries lack rte_fib6 symbols";
		return -1;
	}
	if (!d.eal_init || !d.fib_create || !d.fib_free || !d.fib_add || !d.fib_delete || !d.fib_lookup_bulk ||
	    !d.fib_select_lookup) {
		*why = fail = "DPDK libraries lack rte_fib symbols";
		return -1;
	}
	int cpu = sched_getcpu();
	const char *nh = getenv("VPK_DPDK_NO_HUGE");
	bool huge = (nh == NULL || *nh == 0 || strcmp(nh, "0") == 0) &&
		    bench_hugepages_free() >= (size_t)mem_mb << 20;
	static struct dpdk_eal_args ea;         /* EAL may keep pointers into argv */

	/* EAL's runtime directory is removed at exit (eal_rmdir) */
	dpdk_eal_args(&ea, "vpkfib", "fib", huge, mem_mb, cpu, 512);
	if (!huge)
		fprintf(stderr, "vpk: DPDK EAL with --no-huge (%s): rte_fib's tables on 4 KiB pages, vpk's on "
			"transparent huge pages; reserve hugepages for a like-for-like run "
			"(dpdk-hugepages.py -p 2M --setup %uM)\n",
			nh != NULL && *nh != 0 && strcmp(nh, "0") != 0 ? "VPK_DPDK_NO_HUGE is set" :
			"not enough free hugepages mounted", mem_mb);
	/* EAL prints its errors on stderr; it also reorders argv. */
	if (d.eal_init(ea.argc, ea.argv) < 0) {
		*why = fail = "rte_eal_init failed";
		return -1;
	}
	d.ready = true;
	d.huge = huge;
	const char *(*rundir)(void) = (const char *(*)(void))dlsym(eal, "rte_eal_get_runtime_dir");
	if (rundir != NULL && rundir() != NULL) {
		snprintf(eal_dir, sizeof(eal_dir), "%s", rundir());
		atexit(eal_rmdir);
	}
	return 0;
}

bool
dpdk_hugepages(void)
{
	return d.ready && d.huge;
}

/* rte_fib_create() or rte_fib6_create() (same configuration struct in
 * 22.11; the DIR-24-8 fields size the trie's next hops and tbl8 groups too). */
static void *
create_any(bool v6, unsigned nh_size, uint32_t num_tbl8, uint32_t max_routes, uint64_t default_nh,
	   const char **why)
{
	static int seq;
	struct rte_fib_conf_2211 c;
	char name[32];

	if (!d.ready) {
		*why = "DPDK not loaded";
		return NULL;
	}
	memset(&c, 0, sizeof(c));
	c.type = 1;
	c.default_nh = default_nh;
	c.max_routes = (int)max_routes;
	c.dir24_8.nh_sz = __builtin_ctz(nh_size);
	c.dir24_8.num_tbl8 = num_tbl8;
	snprintf(name, sizeof(name), "vpk%s%d", v6 ? "6_" : "", seq++);
	void *f = v6 ? d.fib6_create(name, -1, &c) : d.fib_create(name, -1, &c);
	if (f == NULL)
		*why = v6 ? "rte_fib6_create failed (memory: raise --dpdk-mem)"
			  : "rte_fib_create failed (memory: raise --dpdk-mem)";
	return f;
}

/* struct dpdk_fib is never defined: a handle is rte_fib's own pointer. */
struct dpdk_fib *
dpdk_fib_create(unsigned nh_size, uint32_t num_tbl8, uint32_t max_routes, uint64_t default_nh, const char **why)
{
	return create_any(false, nh_size, num_tbl8, max_routes, default_nh, why);
}

/*
 * The thin calls of one family: P is the handle type and prefix (dpdk_fib,
 * dpdk_fib6), F the prefix of rte's functions in d (fib, fib6), KEY the
 * address parameter, TYPE the lookup type parameter named t.
 */
#define DPDK_FIB_CALLS(P, F, KEY, TYPE)                                         \
	void P##_free(struct P *f)                                              \
	{                                                                       \
		if (f != NULL)                                                  \
			d.F##_free((void *)f);                                  \
	}                                                                       \
	int P##_add(struct P *f, KEY, uint8_t depth, uint64_t nh)               \
	{                                                                       \
		return d.F##_add((void *)f, ip, depth, nh);                     \
	}                                                                       \
	int P##_del(struct P *f, KEY, uint8_t depth)                            \
	{                                                                       \
		return d.F##_delete((void *)f, ip, depth);                      \
	}                                                                       \
	int P##_select(struct P *f, TYPE)                                       \
	{                                                                       \
		return d.F##_select_lookup((void *)f, (int)t);                  \
	}

DPDK_FIB_CALLS(dpdk_fib, fib, uint32_t ip, enum dpdk_fib_lookup t)

void
dpdk_fib_lookup(struct dpdk_fib *f, const uint32_t *ips, uint64_t *nhs, size_t n)
{
	/* int count: whole arrays up to 2^31-1 in one call. */
	while (n > 0) {
		int k = n > 0x40000000 ? 0x40000000 : (int)n;
		d.fib_lookup_bulk((void *)f, (uint32_t *)ips, nhs, k);
		ips += k;
		nhs += k;
		n -= (size_t)k;
	}
}

size_t
dpdk_heap_used(void)
{
	struct rte_malloc_socket_stats_2211 st;

	if (!d.ready || d.malloc_stats == NULL || d.malloc_stats(0, &st) != 0)
		return 0;
	return st.heap_allocsz_bytes;
}

/* The same for rte_fib6. */
struct dpdk_fib6 *
dpdk_fib6_create(unsigned nh_size, uint32_t num_tbl8, uint32_t max_routes, uint64_t default_nh, const char **why)
{
	return create_any(true, nh_size, num_tbl8, max_routes, default_nh, why);
}

DPDK_FIB_CALLS(dpdk_fib6, fib6, const uint8_t ip[16], int t)

void
dpdk_fib6_lookup(struct dpdk_fib6 *f, const uint8_t (*ips)[16], uint64_t *nhs, size_t n)
{
	while (n > 0) {
		int k = n > 0x40000000 ? 0x40000000 : (int)n;
		d.fib6_lookup_bulk((void *)f, (uint8_t (*)[16])ips, nhs, k);
		ips += k;
		nhs += k;
		n -= (size_t)k;
	}
}
