/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Debug builds (VPK_DEBUG) catch data-plane contract violations: a double
 * free (also one that lands in a per-thread cache), an index out of range,
 * an index that is not a buffer start. Each case runs in a forked child that
 * must die of SIGABRT; the parent also checks the child got that far.
 * Skipped (77) in release builds, where the checks are compiled out.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vpk/buf.h>

#include "lib/check.h"

#ifdef VPK_DEBUG
enum { DOUBLE_FREE, DOUBLE_FREE_SAME_BURST, OUT_OF_RANGE, NOT_A_START, CLEAN };

static void
child(int what, uint32_t cache_size)
{
	struct vpk_pool_conf c = { .n_bufs = 16, .data_size = 64, .cache_size = cache_size };
	struct vpk_pool *p;
	uint32_t idx[4], bad[1];

	if (vpk_pool_create(&c, &p) != 0 || vpk_pool_alloc_burst(p, idx, 4) != 4)
		_exit(3);
	switch (what) {
	case DOUBLE_FREE:
		vpk_pool_free_bulk(p, idx, 2);
		vpk_pool_free_bulk(p, idx + 1, 1);
		break;
	case DOUBLE_FREE_SAME_BURST:
		idx[3] = idx[0];
		vpk_pool_free_bulk(p, idx, 4);
		break;
	case OUT_OF_RANGE:
		bad[0] = 16 * 4;        /* stride 256 B = 4 index steps: one past the end */
		vpk_pool_free_bulk(p, bad, 1);
		break;
	case NOT_A_START:
		bad[0] = idx[1] + 1;
		vpk_pool_free_bulk(p, bad, 1);
		break;
	default:
		vpk_pool_free_bulk(p, idx, 4);
		_exit(vpk_pool_in_use(p) == 0 ? 0 : 4);
	}
	_exit(5);       /* not caught */
}

static void
expect(int what, uint32_t cache_size, const char *name)
{
	pid_t pid = fork();
	int st = 0;

	if (pid == 0)
		child(what, cache_size);
	waitpid(pid, &st, 0);
	if (what == CLEAN)
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: clean run failed (status %#x)",
		      name, st);
	else
		CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT,
		      "%s (cache %u): child not aborted (status %#x)", name, cache_size, st);
}

#endif /* VPK_DEBUG */

int
main(void)
{
	check_init("buf.pool_debug");
#ifndef VPK_DEBUG
	check_skip_all("release build: debug checks are compiled out (VPK_DEBUG off)");
	return check_finish();
#else
	for (uint32_t cache = 0; cache <= 8; cache += 8) {
		expect(DOUBLE_FREE, cache, "double free");
		expect(DOUBLE_FREE_SAME_BURST, cache, "double free in one burst");
		expect(OUT_OF_RANGE, cache, "index out of range");
		expect(NOT_A_START, cache, "index not a buffer start");
		expect(CLEAN, cache, "clean");
	}
	return check_finish();
#endif
}
