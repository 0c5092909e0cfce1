/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librte_acl's API (DPDK 22.11, symbol version DPDK_23) answered by vpk:
 * contexts, rules, algorithm choice, classify, dump. The build is in
 * rte_acl_build.c. Return codes and rte_errno follow rte_acl.c; where DPDK's
 * behaviour is undefined (a NULL name in find_existing, more than 16
 * categories in classify) this library returns an error instead.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cpuflags.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_vect.h>

#include "compat_acl.h"
#include "../stats.h"

static pthread_mutex_t acl_list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rte_acl_ctx *acl_list;

#define ACL_NVARIANT 8              /* >= the entries of vpk_acl_impls() */

static bool acl_stats;
static _Atomic uint64_t st_create, st_build, st_classify_calls, st_classify_pkts;
static _Atomic uint64_t st_variant_pkts[ACL_NVARIANT];  /* per entry of vpk_acl_impls() */

/* The vpk variant of each DPDK algorithm (NULL: none on this architecture), looked up once. */
static const struct vpk_impl *alg_impl[RTE_ACL_CLASSIFY_AVX512X32 + 1];

static const struct vpk_impl *
impl_by_name(const char *name)
{
	const struct vpk_impl *const *t = vpk_acl_impls();

	for (unsigned i = 0; name != NULL && t[i] != NULL; i++)
		if (strcmp(t[i]->name, name) == 0)
			return t[i];
	return NULL;
}

__attribute__((constructor)) static void
acl_stats_init(void)
{
	acl_stats = compat_stats_enabled();
	for (unsigned a = 0; a < RTE_DIM(alg_impl); a++)
		alg_impl[a] = impl_by_name(compat_acl_alg_impl((enum rte_acl_classify_alg)a));
}

__attribute__((destructor)) static void
acl_stats_print(void)
{
	if (acl_stats)
		fprintf(stderr, "vpk-rte-acl: create=%" PRIu64 " build=%" PRIu64 " classify_calls=%" PRIu64
			" classify_packets=%" PRIu64 "\n", atomic_load(&st_create), atomic_load(&st_build),
			atomic_load(&st_classify_calls), atomic_load(&st_classify_pkts));
	if (acl_stats) {
		const struct vpk_impl *const *t = vpk_acl_impls();

		fprintf(stderr, "vpk-rte-acl: variant packets:");
		for (unsigned i = 0; i < ACL_NVARIANT && t[i] != NULL; i++)
			fprintf(stderr, " %s=%" PRIu64, t[i]->name, atomic_load(&st_variant_pkts[i]));
		fprintf(stderr, "\n");
	}
}

/* Count @p num packets classified by the variant called @p name (stats only). */
static void
count_variant(const char *name, uint32_t num)
{
	const struct vpk_impl *const *t = vpk_acl_impls();

	for (unsigned i = 0; i < ACL_NVARIANT && t[i] != NULL; i++)
		if (strcmp(t[i]->name, name) == 0)
			atomic_fetch_add_explicit(&st_variant_pkts[i], num, memory_order_relaxed);
}

const char *
compat_acl_alg_impl(enum rte_acl_classify_alg alg)
{
	switch (alg) {
	case RTE_ACL_CLASSIFY_DEFAULT:
	case RTE_ACL_CLASSIFY_SCALAR:
		return "scalar";
	case RTE_ACL_CLASSIFY_SSE:
		return "sse42";
	case RTE_ACL_CLASSIFY_AVX2:
		return "avx2";
	case RTE_ACL_CLASSIFY_AVX512X16:
		return "avx512x16";
	case RTE_ACL_CLASSIFY_AVX512X32:
		return "avx512x32";
	default:
		return NULL;
	}
}

static bool
cpu_has_avx512(void)
{
	return rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512F) > 0 &&
	       rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512VL) > 0 &&
	       rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512CD) > 0 &&
	       rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512BW) > 0;
}

/* rte_acl.c's acl_check_alg() on x86: the CPU and the EAL's max SIMD bitwidth decide. */
static int
acl_check_alg(enum rte_acl_classify_alg alg)
{
	uint16_t bw = rte_vect_get_max_simd_bitwidth();

	switch (alg) {
	case RTE_ACL_CLASSIFY_SCALAR:
		return 0;
	case RTE_ACL_CLASSIFY_SSE:
		return rte_cpu_get_flag_enabled(RTE_CPUFLAG_SSE4_1) > 0 && bw >= RTE_VECT_SIMD_128 ? 0 : -ENOTSUP;
	case RTE_ACL_CLASSIFY_AVX2:
		return rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) > 0 && bw >= RTE_VECT_SIMD_256 ? 0 : -ENOTSUP;
	case RTE_ACL_CLASSIFY_AVX512X16:
		return cpu_has_avx512() && bw >= RTE_VECT_SIMD_256 ? 0 : -ENOTSUP;
	case RTE_ACL_CLASSIFY_AVX512X32:
		return cpu_has_avx512() && bw >= RTE_VECT_SIMD_512 ? 0 : -ENOTSUP;
	case RTE_ACL_CLASSIFY_NEON:
	case RTE_ACL_CLASSIFY_ALTIVEC:
		return -ENOTSUP;
	default:
		return -EINVAL;
	}
}

static enum rte_acl_classify_alg
acl_best_alg(void)
{
	static const enum rte_acl_classify_alg order[] = {
		RTE_ACL_CLASSIFY_AVX512X32, RTE_ACL_CLASSIFY_AVX512X16, RTE_ACL_CLASSIFY_AVX2,
		RTE_ACL_CLASSIFY_SSE,
	};

	for (unsigned i = 0; i < RTE_DIM(order); i++)
		if (acl_check_alg(order[i]) == 0)
			return order[i];
	return RTE_ACL_CLASSIFY_SCALAR;
}

int
rte_acl_set_ctx_classify(struct rte_acl_ctx *ctx, enum rte_acl_classify_alg alg)
{
	int rc;

	if (ctx == NULL || (uint32_t)alg > RTE_ACL_CLASSIFY_AVX512X32)
		return -EINVAL;
	if (alg == RTE_ACL_CLASSIFY_DEFAULT)
		alg = acl_best_alg();
	rc = acl_check_alg(alg);
	if (rc != 0)
		return rc;
	ctx->alg = alg;
	/* vpk's own SIMD cap may be lower than the EAL's: then vpk's best variant under it. */
	if (ctx->acl != NULL && vpk_acl_select(ctx->acl, compat_acl_alg_impl(alg)) < 0)
		vpk_acl_select(ctx->acl, "auto");
	return 0;
}

static struct rte_acl_ctx *
acl_find_locked(const char *name)
{
	struct rte_acl_ctx *c;

	for (c = acl_list; c != NULL; c = c->next)
		if (strncmp(name, c->name, sizeof(c->name)) == 0)
			return c;
	return NULL;
}

struct rte_acl_ctx *
rte_acl_find_existing(const char *name)
{
	struct rte_acl_ctx *c = NULL;

	pthread_mutex_lock(&acl_list_lock);
	if (name != NULL)
		c = acl_find_locked(name);
	pthread_mutex_unlock(&acl_list_lock);
	if (c == NULL)
		rte_errno = ENOENT;
	return c;
}

struct rte_acl_ctx *
rte_acl_create(const struct rte_acl_param *param)
{
	struct rte_acl_ctx *ctx;
	char name[RTE_ACL_NAMESIZE];
	size_t sz;

	if (param == NULL || param->name == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	snprintf(name, sizeof(name), "ACL_%s", param->name);
	sz = sizeof(*ctx) + (size_t)param->max_rule_num * param->rule_size;

	pthread_mutex_lock(&acl_list_lock);
	ctx = acl_find_locked(param->name);
	if (ctx == NULL) {
		ctx = rte_zmalloc_socket(name, sz, RTE_CACHE_LINE_SIZE, param->socket_id);
		if (ctx == NULL) {
			RTE_LOG(ERR, ACL, "allocation of %zu bytes on socket %d for %s failed\n", sz,
				param->socket_id, name);
		} else {
			ctx->rules = (uint8_t *)(ctx + 1);
			ctx->max_rules = param->max_rule_num;
			ctx->rule_sz = param->rule_size;
			ctx->socket_id = param->socket_id;
			ctx->alg = acl_best_alg();
			snprintf(ctx->name, sizeof(ctx->name), "%s", param->name);
			struct rte_acl_ctx **tail = &acl_list;

			while (*tail != NULL)
				tail = &(*tail)->next;
			*tail = ctx;            /* DPDK's list order: list_dump prints oldest first */
			if (acl_stats)
				atomic_fetch_add_explicit(&st_create, 1, memory_order_relaxed);
		}
	}
	pthread_mutex_unlock(&acl_list_lock);
	return ctx;
}

void
rte_acl_free(struct rte_acl_ctx *ctx)
{
	struct rte_acl_ctx **pp;

	if (ctx == NULL)
		return;
	pthread_mutex_lock(&acl_list_lock);
	for (pp = &acl_list; *pp != NULL && *pp != ctx; pp = &(*pp)->next)
		;
	if (*pp == NULL) {
		pthread_mutex_unlock(&acl_list_lock);
		return;
	}
	*pp = ctx->next;
	pthread_mutex_unlock(&acl_list_lock);
	vpk_acl_destroy(ctx->acl);
	rte_free(ctx);
}

static int
acl_check_rule(const struct rte_acl_rule_data *rd)
{
	if ((RTE_LEN2MASK(RTE_ACL_MAX_CATEGORIES, uint32_t) & rd->category_mask) == 0 ||
	    rd->priority > RTE_ACL_MAX_PRIORITY || rd->priority < RTE_ACL_MIN_PRIORITY)
		return -EINVAL;
	return 0;
}

int
rte_acl_add_rules(struct rte_acl_ctx *ctx, const struct rte_acl_rule *rules, uint32_t num)
{
	const struct rte_acl_rule *rv;

	if (ctx == NULL || rules == NULL || ctx->rule_sz == 0)
		return -EINVAL;
	for (uint32_t i = 0; i != num; i++) {
		rv = (const struct rte_acl_rule *)((uintptr_t)rules + (size_t)i * ctx->rule_sz);
		if (acl_check_rule(&rv->data) != 0) {
			RTE_LOG(ERR, ACL, "%s(%s): rule #%u is invalid\n", __func__, ctx->name, i + 1);
			return -EINVAL;
		}
	}
	if ((uint64_t)num + ctx->num_rules > ctx->max_rules)
		return -ENOMEM;
	memcpy(ctx->rules + (size_t)ctx->rule_sz * ctx->num_rules, rules, (size_t)num * ctx->rule_sz);
	ctx->num_rules += num;
	return 0;
}

/* acl_bld.c's acl_check_bld_param(). */
static int
acl_check_bld_param(const struct rte_acl_ctx *ctx, const struct rte_acl_config *cfg)
{
	if (ctx == NULL || cfg == NULL || cfg->num_categories == 0 ||
	    cfg->num_categories > RTE_ACL_MAX_CATEGORIES || cfg->num_fields == 0 ||
	    cfg->num_fields > RTE_ACL_MAX_FIELDS)
		return -EINVAL;
	for (uint32_t i = 0; i != cfg->num_fields; i++) {
		uint8_t s = cfg->defs[i].size;

		if (cfg->defs[i].type > RTE_ACL_FIELD_TYPE_BITMASK) {
			RTE_LOG(ERR, ACL, "ACL context: %s, invalid type: %hhu for %u-th field\n", ctx->name,
				cfg->defs[i].type, i);
			return -EINVAL;
		}
		if (s != 1 && s != 2 && s != 4 && s != 8) {
			RTE_LOG(ERR, ACL, "ACL context: %s, invalid size: %hhu for %u-th field\n", ctx->name, s, i);
			return -EINVAL;
		}
	}
	return 0;
}

int
rte_acl_build(struct rte_acl_ctx *ctx, const struct rte_acl_config *cfg)
{
	int rc = acl_check_bld_param(ctx, cfg);

	if (rc != 0)
		return rc;
	/* As DPDK: the old runtime goes first, a failed build leaves none. */
	vpk_acl_destroy(ctx->acl);
	ctx->acl = NULL;
	ctx->num_categories = 0;
	rc = compat_acl_build(ctx, cfg);
	if (rc == 0) {
		if (vpk_acl_select(ctx->acl, compat_acl_alg_impl(ctx->alg)) < 0)
			vpk_acl_select(ctx->acl, "auto");
		if (&ctx->config != cfg)
			ctx->config = *cfg;
		ctx->has_config = true;
		if (acl_stats)
			atomic_fetch_add_explicit(&st_build, 1, memory_order_relaxed);
	}
	return rc;
}

void
rte_acl_reset_rules(struct rte_acl_ctx *ctx)
{
	if (ctx != NULL)
		ctx->num_rules = 0;
}

void
rte_acl_reset(struct rte_acl_ctx *ctx)
{
	if (ctx == NULL)
		return;
	rte_acl_reset_rules(ctx);
	if (ctx->has_config) {
		rte_acl_build(ctx, &ctx->config);       /* no rules: -EINVAL, no runtime (as DPDK) */
	} else {
		vpk_acl_destroy(ctx->acl);
		ctx->acl = NULL;
	}
}

/*
 * @p im when vpk can run it here, else NULL (the context's variant): as
 * rte_acl_set_ctx_classify(), an algorithm the EAL allows but vpk's own cap
 * does not falls back rather than fails. Checked without building
 * vpk_impl_why_not()'s message, as it runs per call.
 */
static const struct vpk_impl *
usable_or_null(const struct vpk_impl *im)
{
	if (im == NULL || !vpk_isa_compiled(im->isa) || !vpk_isa_cpu_supported(im->isa) ||
	    !vpk_isa_os_supported(im->isa) || im->width > vpk_get_max_simd_bitwidth())
		return NULL;
	return im;
}

/* One vpk call with @p im, or the context's variant when @p im is NULL (or refused). */
static inline void
acl_bulk(const struct rte_acl_ctx *ctx, const struct vpk_impl *im, const uint8_t *const *data, uint32_t *results,
	 uint32_t n, uint32_t categories)
{
	if (im == NULL || vpk_acl_classify_bulk_impl(ctx->acl, im, data, results, n, categories) < 0)
		vpk_acl_classify_bulk(ctx->acl, data, results, n, categories);
}

/* Classify with the vpk variant @p im (NULL: the context's own). */
static int
acl_classify(const struct rte_acl_ctx *ctx, const uint8_t **data, uint32_t *results, uint32_t num,
	     uint32_t categories, const struct vpk_impl *im)
{
	if (num == 0 || categories == 0)
		return 0;
	if (ctx == NULL || categories > RTE_ACL_MAX_CATEGORIES)
		return -EINVAL;
	if (acl_stats) {
		atomic_fetch_add_explicit(&st_classify_calls, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&st_classify_pkts, num, memory_order_relaxed);
	}
	if (ctx->acl == NULL) {
		memset(results, 0, (size_t)num * categories * sizeof(*results));
		return 0;
	}
	im = usable_or_null(im);
	if (acl_stats)
		count_variant(im != NULL ? im->name : vpk_acl_impl_name(ctx->acl), num);
	if (!ctx->gather) {
		acl_bulk(ctx, im, data, results, num, categories);
	} else {
		/* Pack each input as vpk's layout rules want it, 32 at a time. */
		uint8_t buf[32][COMPAT_ACL_GATHER_MAX];
		const uint8_t *ptr[32];

		for (uint32_t i = 0; i < num; i += 32) {
			uint32_t n = RTE_MIN(num - i, 32u);

			for (uint32_t k = 0; k < n; k++) {
				memset(buf[k], 0, ctx->gather_len);
				for (uint32_t c = 0; c < ctx->ncopy; c++)
					memcpy(buf[k] + ctx->copy[c].dst, data[i + k] + ctx->copy[c].src,
					       ctx->copy[c].len);
				ptr[k] = buf[k];
			}
			acl_bulk(ctx, im, ptr, results + (size_t)i * categories, n, categories);
		}
	}
	if (ctx->has_zero) {
		for (size_t i = 0, e = (size_t)num * categories; i < e; i++)
			if (results[i] == ctx->zero_ud)
				results[i] = 0;
	}
	return 0;
}

/*
 * As DPDK's dispatch table: this call runs the algorithm asked for (DEFAULT:
 * the context's own, see docs/dpdk-dropin.md), the context keeps its own.
 */
int
rte_acl_classify_alg(const struct rte_acl_ctx *ctx, const uint8_t **data, uint32_t *results,
		     uint32_t num, uint32_t categories, enum rte_acl_classify_alg alg)
{
	if (categories != 1 && ((RTE_ACL_RESULTS_MULTIPLIER - 1) & categories) != 0)
		return -EINVAL;
	if ((uint32_t)alg > RTE_ACL_CLASSIFY_AVX512X32)
		return -EINVAL;
	/* DPDK's stubs for other architectures (a variant not compiled into vpk: the context's) */
	if (compat_acl_alg_impl(alg) == NULL)
		return -ENOTSUP;
	return acl_classify(ctx, data, results, num, categories,
			    alg == RTE_ACL_CLASSIFY_DEFAULT ? NULL : alg_impl[alg]);
}

int
rte_acl_classify(const struct rte_acl_ctx *ctx, const uint8_t **data, uint32_t *results, uint32_t num,
		 uint32_t categories)
{
	if (categories != 1 && ((RTE_ACL_RESULTS_MULTIPLIER - 1) & categories) != 0)
		return -EINVAL;
	return acl_classify(ctx, data, results, num, categories, NULL);
}

int
rte_acl_classify_scalar(const struct rte_acl_ctx *ctx, const uint8_t **data, uint32_t *results,
			uint32_t num, uint32_t categories)
{
	return acl_classify(ctx, data, results, num, categories, alg_impl[RTE_ACL_CLASSIFY_SCALAR]);
}

void
rte_acl_dump(const struct rte_acl_ctx *ctx)
{
	struct vpk_acl_stats st;

	if (ctx == NULL)
		return;
	memset(&st, 0, sizeof(st));
	if (ctx->acl != NULL)
		vpk_acl_get_stats(ctx->acl, &st);
	printf("acl context <%s>@%p\n", ctx->name, (const void *)ctx);
	printf("  socket_id=%" PRId32 "\n", ctx->socket_id);
	printf("  alg=%" PRId32 "\n", (int32_t)ctx->alg);
	printf("  first_load_sz=%" PRIu32 "\n", ctx->acl != NULL ? 4u : 0u);
	printf("  max_rules=%" PRIu32 "\n", ctx->max_rules);
	printf("  rule_size=%" PRIu32 "\n", ctx->rule_sz);
	printf("  num_rules=%" PRIu32 "\n", ctx->num_rules);
	printf("  num_categories=%" PRIu32 "\n", ctx->num_categories);
	printf("  num_tries=%" PRIu32 "\n", st.trees);
	printf("  vpk: impl=%s rules=%" PRIu32 " runtime_bytes=%zu layout=%s\n",
	       ctx->acl != NULL ? vpk_acl_impl_name(ctx->acl) : "-", st.rules, st.runtime_bytes,
	       ctx->gather ? "packed" : "direct");
}

void
rte_acl_list_dump(void)
{
	pthread_mutex_lock(&acl_list_lock);
	for (const struct rte_acl_ctx *c = acl_list; c != NULL; c = c->next)
		rte_acl_dump(c);
	pthread_mutex_unlock(&acl_list_lock);
}
