/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * EAL start and clean-up for the drop-in tests: each process has its own
 * --file-prefix (other checkouts may run the same test at the same time), and
 * the runtime directory EAL leaves behind (config, memory arrays) is removed.
 */
#ifndef VPK_TEST_COMPAT_EAL_TEST_H
#define VPK_TEST_COMPAT_EAL_TEST_H

#include <ftw.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_eal.h>

static char eal_test_prefix[64];

/* rte_eal_init() with --no-huge -m @mem_mb on lcore 0: its return value. */
static inline int
eal_test_init(const char *argv0, const char *name, const char *mem_mb)
{
	char *eal[] = { (char *)argv0, "--no-huge", "-m", (char *)mem_mb, "--no-pci", "-l", "0",
			"--file-prefix", eal_test_prefix, "--log-level=*:emerg", NULL };

	snprintf(eal_test_prefix, sizeof(eal_test_prefix), "vpk-rte-%s-%d", name, (int)getpid());
	return rte_eal_init(10, eal);
}

static inline int
eal_test_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static inline void
eal_test_cleanup(void)
{
	char run[96];

	rte_eal_cleanup();
	snprintf(run, sizeof(run), "/run/dpdk/%s", eal_test_prefix);
	(void)nftw(run, eal_test_rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

#endif
