/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk_kernels(): every kernel registered with VPK_KERNEL_REGISTER(), sorted
 * by name on first use. A few dozen entries at most.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/registry.h"

/* The section always holds at least this entry, so the linker defines its bounds. */
static const struct vpk_impl *const no_impls[] = { NULL };
VPK_KERNEL_REGISTER(none, "", "", no_impls);

extern const struct vpk_kernel __start_vpk_kernel_reg[];
extern const struct vpk_kernel __stop_vpk_kernel_reg[];

static struct vpk_kernel sorted[256];
static size_t n_sorted;
static pthread_once_t sort_once = PTHREAD_ONCE_INIT;

static int
cmp_kernel(const void *a, const void *b)
{
	return strcmp(((const struct vpk_kernel *)a)->name,
		      ((const struct vpk_kernel *)b)->name);
}

static void
sort_kernels(void)
{
	for (const struct vpk_kernel *k = __start_vpk_kernel_reg; k < __stop_vpk_kernel_reg; k++) {
		if (k->name[0] == '\0' || n_sorted == sizeof(sorted) / sizeof(sorted[0]))
			continue;
		sorted[n_sorted++] = *k;
	}
	qsort(sorted, n_sorted, sizeof(sorted[0]), cmp_kernel);
}

const struct vpk_kernel *
vpk_kernels(size_t *n)
{
	pthread_once(&sort_once, sort_kernels);
	if (n != NULL)
		*n = n_sorted;
	return sorted;
}
