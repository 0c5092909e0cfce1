/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The part of the rte_fib and rte_fib6 drop-ins that does not depend on the
 * address family (compat_fib.h): FIB list, create / free, and updates with
 * the RIB filled lazily.
 *
 * Updates: the vpk FIB is changed first, as DPDK's dataplane is, so its
 * -ENOSPC (tbl8 groups) comes before the RIB is touched. While the RIB is
 * not live an update is the vpk call alone; once it is, a RIB failure
 * (librte_rib out of nodes) undoes the vpk change, and the error is DPDK's.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_malloc.h>

#include "compat_fib.h"

static pthread_mutex_t fib_lock = PTHREAD_MUTEX_INITIALIZER;

static struct compat_fib *
find_locked(struct compat_fib *f, const char *name)
{
	for (; f != NULL; f = f->next)
		if (strncmp(name, f->name, COMPAT_FIB_NAMESIZE) == 0)
			return f;
	return NULL;
}

struct compat_fib *
compat_fib_create(const struct compat_fib_ops *ops, struct compat_fib **list, const char *name, int socket_id,
		  size_t size, void *rib, compat_fib_init_fn init, const void *conf)
{
	char mem_name[COMPAT_FIB_NAMESIZE];
	struct compat_fib *f;
	int rc;

	snprintf(mem_name, sizeof(mem_name), "%s%s", ops->mem_prefix, name);
	pthread_mutex_lock(&fib_lock);
	if (find_locked(*list, name) != NULL) {
		rte_errno = EEXIST;
		goto fail;
	}
	f = rte_zmalloc_socket(mem_name, size, RTE_CACHE_LINE_SIZE, socket_id);
	if (f == NULL) {
		RTE_LOG(ERR, LPM, "FIB %s memory allocation failed\n", name);
		rte_errno = ENOMEM;
		goto fail;
	}
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->ops = ops;
	f->rib = rib;
	rc = init(f, conf);
	if (rc < 0) {
		RTE_LOG(ERR, LPM, "FIB dataplane struct %s memory allocation failed with err %d\n", name, rc);
		rte_errno = -rc;
		rte_free(f);
		goto fail;
	}
	f->rib_live = f->rib_only;
	f->next = *list;
	*list = f;
	pthread_mutex_unlock(&fib_lock);
	if (compat_fib_stats) {
		compat_fib_count(ops->cnt_create, 1);
		fprintf(stderr, "%s: %s: %s, lookup %s\n", ops->tag, name, f->rib_only ? "rib" : ops->vpk_type(f->vf),
			f->rib_only ? "rib" : ops->vpk_impl(f->vf));
	}
	return f;
fail:
	pthread_mutex_unlock(&fib_lock);
	ops->rib_free(rib);
	return NULL;
}

struct compat_fib *
compat_fib_find(struct compat_fib **list, const char *name)
{
	struct compat_fib *f = NULL;

	if (name != NULL) {
		pthread_mutex_lock(&fib_lock);
		f = find_locked(*list, name);
		pthread_mutex_unlock(&fib_lock);
	}
	if (f == NULL)
		rte_errno = ENOENT;
	return f;
}

void
compat_fib_free(struct compat_fib **list, struct compat_fib *f)
{
	struct compat_fib **pp;

	if (f == NULL)
		return;
	pthread_mutex_lock(&fib_lock);
	for (pp = list; *pp != NULL && *pp != f; pp = &(*pp)->next)
		;
	if (*pp != NULL)
		*pp = f->next;
	pthread_mutex_unlock(&fib_lock);
	if (f->vf != NULL)
		f->ops->vpk_free(f->vf);
	f->ops->rib_free(f->rib);
	rte_free(f);
}

/* Make the RIB hold every route of the vpk FIB (routes already in it are set again). */
static int
rib_sync(struct compat_fib *f)
{
	int rc;

	if (f->rib_live)
		return 0;
	rc = f->ops->replay(f);
	if (rc == 0)
		f->rib_live = true;
	return rc;
}

void *
compat_fib_rib(struct compat_fib *f)
{
	/* A RIB out of nodes: DPDK would have refused those adds; the RIB holds what fitted. */
	rib_sync(f);
	return f->rib;
}

/* A DUMMY FIB whose vpk FIB cannot take a route: from now on the RIB answers. */
static int
to_rib_only(struct compat_fib *f)
{
	int rc = rib_sync(f);

	if (rc == 0)
		f->rib_only = true;
	return rc;
}

int
compat_fib_add(struct compat_fib *f, const void *ip, uint8_t depth, uint64_t nh)
{
	int rc;

	if (!f->dummy && nh > f->max_nh)
		return -EINVAL;
	if (compat_fib_stats)
		compat_fib_count(f->ops->cnt_add, 1);
	if (!f->rib_only && f->dummy && nh > f->ops->vpk_max_nh(8) && (rc = to_rib_only(f)) < 0)
		return rc;
	if (!f->rib_only) {
		rc = f->ops->vpk_add(f->vf, ip, depth, nh);
		if (rc < 0 && !f->dummy)
			return rc;
		if (rc < 0 && (rc = to_rib_only(f)) < 0)
			return rc;
		if (!f->rib_live)
			return 0;
		if (!f->rib_only) {
			/* Both hold the same routes: the RIB fails only on a new one, which vpk gives back. */
			rc = f->ops->rib_set(f->rib, ip, depth, nh);
			if (rc < 0)
				f->ops->vpk_del(f->vf, ip, depth);
			return rc;
		}
	}
	return f->ops->rib_set(f->rib, ip, depth, nh);
}

int
compat_fib_del(struct compat_fib *f, const void *ip, uint8_t depth)
{
	int rc;

	if (!f->rib_only) {
		rc = f->ops->vpk_del(f->vf, ip, depth);
		if (rc < 0 || !f->rib_live)
			return rc;
	}
	return f->ops->rib_del(f->rib, ip, depth);
}

void *
compat_fib_dp(struct compat_fib *f)
{
	if (f == NULL)
		return NULL;
	return f->dummy ? (void *)f : f->vf;
}

void
compat_fib_init_common(struct compat_fib *f, bool dummy, uint64_t def_nh, int max_routes, uint32_t *routes)
{
	uint64_t r = 2ull * (uint64_t)max_routes;

	f->def_nh = def_nh;
	f->dummy = dummy;
	*routes = (uint32_t)RTE_MIN(r, (uint64_t)UINT32_MAX);
}

int
compat_fib_selected(const struct compat_fib *f, int type, int rc)
{
	if (compat_fib_stats)
		fprintf(stderr, "%s: %s: select_lookup(%d) = %d, lookup %s\n", f->ops->tag, f->name, type, rc,
			f->ops->vpk_impl(f->vf));
	return rc;
}
