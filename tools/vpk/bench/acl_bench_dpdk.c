/* SPDX-License-Identifier: BSD-3-Clause */
/* rte_acl side of vpk bench acl (compiled to stubs without libdpdk). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/acl_bench.h"
#include "common/dpdk_eal.h"

#ifdef VPK_HAVE_DPDK
#include <rte_acl.h>
#include <rte_eal.h>
#include <rte_malloc.h>

static struct rte_acl_ctx *ctx;
static const struct {
	const char *name;
	enum rte_acl_classify_alg alg;
} algs[] = {
	{ "scalar", RTE_ACL_CLASSIFY_SCALAR }, { "sse", RTE_ACL_CLASSIFY_SSE },
	{ "avx2", RTE_ACL_CLASSIFY_AVX2 }, { "avx512x16", RTE_ACL_CLASSIFY_AVX512X16 },
	{ "avx512x32", RTE_ACL_CLASSIFY_AVX512X32 },
};
static bool usable[5];
static bool eal_up;

int
dpdk_init(bool want512, bool huge, char *why, size_t len)
{
	static struct dpdk_eal_args ea;         /* EAL may keep pointers into argv */

	/* EAL's runtime directory is removed by dpdk_free() */
	dpdk_eal_args(&ea, "vpkaclbench", "acl", huge, 4096, 0, want512 ? 512 : 256);
	if (rte_eal_init(ea.argc, ea.argv) < 0) {
		snprintf(why, len, "rte_eal_init failed (errno %d)", rte_errno);
		return -ENODEV;
	}
	eal_up = true;
	return 0;
}

static size_t
heap_bytes(void)
{
	struct rte_malloc_socket_stats st;

	if (rte_malloc_get_socket_stats(0, &st) < 0)
		return 0;
	return st.heap_allocsz_bytes;
}

int
dpdk_build(const struct bench_data *d, double *build_s, size_t *rt_bytes, size_t *peak_bytes,
	   char *why, size_t len)
{
	struct rte_acl_param prm = { .name = "vpkbench", .socket_id = 0,
				     .rule_size = (uint32_t)RTE_ACL_RULE_SZ(d->nf),
				     .max_rule_num = d->nrules };
	struct rte_acl_config cfg = { .num_categories = d->ncat_build, .num_fields = d->nf };
	struct timespec t0, t1;
	size_t h0, r0;
	int rc;

	_Static_assert(sizeof(struct rte_acl_field_def) == sizeof(struct vpk_acl_field_def), "def layout");
	ctx = rte_acl_create(&prm);
	if (ctx == NULL) {
		snprintf(why, len, "rte_acl_create failed");
		return -ENOMEM;
	}
	/* The rule layouts are identical: {u32 cat, i32 prio, u32 ud, pad} + 16-byte fields. */
	rc = rte_acl_add_rules(ctx, (const struct rte_acl_rule *)(const void *)d->rules, d->nrules);
	if (rc < 0) {
		snprintf(why, len, "rte_acl_add_rules: %d", rc);
		return rc;
	}
	memcpy(cfg.defs, d->defs, d->nf * sizeof(d->defs[0]));
	h0 = heap_bytes();
	r0 = bench_rss();
	bench_hwm_reset();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = rte_acl_build(ctx, &cfg);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rc < 0) {
		snprintf(why, len, "rte_acl_build: %d", rc);
		return rc;
	}
	*build_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	*rt_bytes = heap_bytes() - h0;
	/* Build pool (calloc, in RSS) plus the runtime (EAL heap, counted once). */
	*peak_bytes = bench_hwm() - r0;
	if (*peak_bytes < *rt_bytes)
		*peak_bytes = *rt_bytes;
	for (unsigned i = 0; i < 5; i++)
		usable[i] = rte_acl_set_ctx_classify(ctx, algs[i].alg) == 0;
	return 0;
}

unsigned dpdk_alg_count(void) { return 5; }
const char *dpdk_alg_name(unsigned i) { return algs[i].name; }
bool dpdk_alg_usable(unsigned i) { return usable[i]; }

void
dpdk_classify(unsigned alg, const uint8_t **data, uint32_t *res, uint32_t n, uint32_t cats)
{
	rte_acl_classify_alg(ctx, data, res, n, cats, algs[alg].alg);
}

void
dpdk_ctx_free(void)
{
	rte_acl_free(ctx);
	ctx = NULL;
}

void
dpdk_free(void)
{
	char dir[256];

	rte_acl_free(ctx);
	ctx = NULL;
	if (!eal_up)
		return;
	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	eal_up = false;
	(void)rmdir(dir);       /* empty: no shared config */
}
#else
int dpdk_init(bool want512, bool huge, char *why, size_t len)
{
	(void)want512, (void)huge;
	snprintf(why, len, "built without libdpdk");
	return -ENOTSUP;
}
int dpdk_build(const struct bench_data *d, double *b, size_t *r, size_t *p, char *why, size_t len)
{
	(void)d, (void)b, (void)r, (void)p;
	snprintf(why, len, "built without libdpdk");
	return -ENOTSUP;
}
unsigned dpdk_alg_count(void) { return 0; }
const char *dpdk_alg_name(unsigned i) { (void)i; return "?"; }
bool dpdk_alg_usable(unsigned i) { (void)i; return false; }
void dpdk_classify(unsigned a, const uint8_t **d, uint32_t *r, uint32_t n, uint32_t c)
{
	(void)a, (void)d, (void)r, (void)n, (void)c;
}
void dpdk_free(void) {}
void dpdk_ctx_free(void) {}
#endif
