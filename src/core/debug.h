/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_CORE_DEBUG_H
#define VPK_CORE_DEBUG_H

/*
 * VPK_DEBUG_ASSERT(cond): data-plane preconditions, checked only in debug
 * builds (-DVPK_DEBUG=ON, and always in the sanitizer build). A failure
 * prints file:line and the condition and aborts: the one place the library
 * may abort, because continuing would corrupt memory.
 */
#ifdef VPK_DEBUG
#include <stdio.h>
#include <stdlib.h>
#define VPK_DEBUG_ASSERT(cond)                                                          \
	do {                                                                            \
		if (!(cond)) {                                                          \
			fprintf(stderr, "vpk: debug assertion failed at %s:%d: %s\n",   \
				__FILE__, __LINE__, #cond);                             \
			abort();                                                        \
		}                                                                       \
	} while (0)
#else
#define VPK_DEBUG_ASSERT(cond) ((void)0)
#endif

#endif
