/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_FIB_MEM_H
#define VPK_FIB_MEM_H

/*
 * The FIB layouts' big tables: anonymous private mappings, zero-filled and
 * backed only where written (MAP_NORESERVE), so a table sized for the
 * worst case costs what the routes touch.
 */
#include <stddef.h>
#include <sys/mman.h>

/* @bytes of zeros, or NULL; @huge: advised for transparent huge pages (fewer TLB misses on lookups). */
static inline void *
fib_map(size_t bytes, int huge)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	if (huge)
		(void)madvise(p, bytes, MADV_HUGEPAGE);        /* a hint */
#else
	(void)huge;
#endif
	return p;
}

/* Undo fib_map(); NULL is a no-op. */
static inline void
fib_unmap(void *p, size_t bytes)
{
	if (p != NULL)
		munmap(p, bytes);
}

#endif
