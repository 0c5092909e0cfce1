/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Buffer pool, several threads:
 *  - stress: 4 threads allocate and free random bursts, hand some buffers to
 *    each other through a shared bag (so buffers are freed by a thread that
 *    did not allocate them) and mark ownership in an atomic array, so an
 *    index handed out twice is caught at once; at the end in_use == 0 and the
 *    main thread gets every buffer back (nothing lost in exited threads' caches);
 *  - a thread's cache holds free buffers (counted as free) and returns them
 *    on vpk_pool_cache_flush() and on thread exit;
 *  - a thread that outlives its pool, and exits after the pool is gone.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/buf.h>

#include "lib/check.h"

enum { N_THREADS = 4, N_BUFS = 2048, CACHE = 32, ITERS = 20000, MAX_HELD = 256 };

static struct vpk_pool *pool;
static _Atomic uint8_t owned[N_BUFS * 64];     /* by index; 1 = handed out */
static _Atomic unsigned dup_seen, bad_free, bad_index;
static pthread_mutex_t bag_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t bag[N_BUFS];
static uint32_t bag_n;

static uint64_t
rnd(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static void
give_back(const uint32_t *idx, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (atomic_exchange(&owned[idx[i]], 0) != 1)
			atomic_fetch_add(&bad_free, 1);
	vpk_pool_free_bulk(pool, idx, n);
}

static void *
stress(void *arg)
{
	uint64_t s = check_seed() + (uintptr_t)arg * 7919;
	uint32_t held[MAX_HELD + 64], n_held = 0, tmp[64];

	for (unsigned it = 0; it < ITERS; it++) {
		switch (rnd(&s) % 4) {
		case 0:
		case 1: { /* alloc a burst: sometimes larger than the cache */
			uint32_t want = 1 + (uint32_t)(rnd(&s) % (rnd(&s) % 8 == 0 ? 64 : 16));
			uint32_t got;

			if (n_held + want > MAX_HELD)
				break;
			got = vpk_pool_alloc_burst(pool, held + n_held, want);
			for (uint32_t i = 0; i < got; i++) {
				uint32_t x = held[n_held + i];

				if (x >= N_BUFS * 64) {
					atomic_fetch_add(&bad_index, 1);
					continue;
				}
				if (atomic_exchange(&owned[x], 1) != 0)
					atomic_fetch_add(&dup_seen, 1);
				vpk_buf_from_idx(vpk_pool_base(pool), x)->rx_if = (uint32_t)(uintptr_t)arg;
			}
			n_held += got;
			break;
		}
		case 2: /* free a burst of our own */
			if (n_held > 0) {
				uint32_t k = 1 + (uint32_t)(rnd(&s) % (n_held < 48 ? n_held : 48));

				n_held -= k;
				give_back(held + n_held, k);
			}
			break;
		default: /* trade: put some in the bag, or free some from the bag */
			pthread_mutex_lock(&bag_lock);
			if (rnd(&s) & 1) {
				uint32_t k = n_held < 8 ? n_held : 8;

				n_held -= k;
				memcpy(bag + bag_n, held + n_held, k * sizeof(uint32_t));
				bag_n += k;
				pthread_mutex_unlock(&bag_lock);
			} else {
				uint32_t k = bag_n < 8 ? bag_n : 8;

				bag_n -= k;
				memcpy(tmp, bag + bag_n, k * sizeof(uint32_t));
				pthread_mutex_unlock(&bag_lock);
				give_back(tmp, k);
			}
		}
	}
	give_back(held, n_held);
	return NULL;
}

static void
test_stress(void)
{
	struct vpk_pool_conf c = { .name = "mt", .n_bufs = N_BUFS, .data_size = 64,
				   .cache_size = CACHE };
	pthread_t t[N_THREADS];
	uint32_t *all = malloc(N_BUFS * sizeof(uint32_t));
	uint32_t got;

	CHECK(vpk_pool_create(&c, &pool) == 0, "create");
	if (pool == NULL)
		return;
	for (uintptr_t i = 0; i < N_THREADS; i++)
		pthread_create(&t[i], NULL, stress, (void *)i);
	for (int i = 0; i < N_THREADS; i++)
		pthread_join(t[i], NULL);
	give_back(bag, bag_n);
	CHECK(dup_seen == 0, "%u indices handed out twice", dup_seen);
	CHECK(bad_free == 0, "%u frees of buffers not held", bad_free);
	CHECK(bad_index == 0, "%u out-of-range indices", bad_index);
	CHECK(vpk_pool_in_use(pool) == 0, "in_use %u after all threads freed everything",
	      vpk_pool_in_use(pool));
	/* Exited threads' caches were flushed: every buffer is reachable again. */
	got = vpk_pool_alloc_burst(pool, all, N_BUFS);
	CHECK(got == N_BUFS, "main thread got %u of %u buffers after the workers exited", got,
	      N_BUFS);
	vpk_pool_free_bulk(pool, all, got);
	CHECK(vpk_pool_in_use(pool) == 0, "in_use at end");
	vpk_pool_destroy(pool);
	pool = NULL;
	free(all);
}

/* ---- one thread's cache, seen from another --------------------------- */

static pthread_barrier_t bar;
static struct vpk_pool *p2;
static _Atomic int step_cmd;

static void *
cacher(void *arg)
{
	uint32_t idx[10];

	(void)arg;
	CHECK(vpk_pool_alloc_burst(p2, idx, 10) == 10, "worker alloc");
	vpk_pool_free_bulk(p2, idx, 10);           /* stays in this thread's cache */
	pthread_barrier_wait(&bar);                 /* 1: main looks */
	pthread_barrier_wait(&bar);                 /* 2: main done */
	if (atomic_load(&step_cmd) == 1) {
		vpk_pool_cache_flush(p2);
		pthread_barrier_wait(&bar);         /* 3: flushed */
		pthread_barrier_wait(&bar);         /* 4 */
		CHECK(vpk_pool_alloc_burst(p2, idx, 3) == 3, "worker alloc again");
		vpk_pool_free_bulk(p2, idx, 3);
	}
	return NULL;                                /* exit: cache flushed by the key destructor */
}

static void
test_cache_visibility(int flush_first)
{
	enum { N = 64 };
	struct vpk_pool_conf c = { .name = "vis", .n_bufs = N, .data_size = 64, .cache_size = 32 };
	uint32_t idx[N], got;
	pthread_t t;

	CHECK(vpk_pool_create(&c, &p2) == 0, "create");
	if (p2 == NULL)
		return;
	atomic_store(&step_cmd, flush_first);
	pthread_barrier_init(&bar, NULL, 2);
	pthread_create(&t, NULL, cacher, NULL);
	pthread_barrier_wait(&bar);
	CHECK(vpk_pool_in_use(p2) == 0, "buffers in another thread's cache count as free");
	got = vpk_pool_alloc_burst(p2, idx, N);
	CHECK(got > 0 && got < N, "worker's cache should hold some buffers: main got %u", got);
	vpk_pool_free_bulk(p2, idx, got);
	vpk_pool_cache_flush(p2);
	pthread_barrier_wait(&bar);
	if (flush_first) {
		pthread_barrier_wait(&bar);
		got = vpk_pool_alloc_burst(p2, idx, N);
		CHECK(got == N, "after the worker's flush main got %u of %u", got, N);
		vpk_pool_free_bulk(p2, idx, got);
		vpk_pool_cache_flush(p2);
		pthread_barrier_wait(&bar);
	}
	pthread_join(t, NULL);
	CHECK(vpk_pool_in_use(p2) == 0, "in_use after worker exit");
	got = vpk_pool_alloc_burst(p2, idx, N);
	CHECK(got == N, "after worker exit main got %u of %u", got, N);
	vpk_pool_free_bulk(p2, idx, got);
	pthread_barrier_destroy(&bar);
	vpk_pool_destroy(p2);
}

/* A thread caches buffers of a pool that is destroyed before the thread exits. */
static void *
outliver(void *arg)
{
	uint32_t idx[4];

	(void)arg;
	vpk_pool_alloc_burst(p2, idx, 4);
	vpk_pool_free_bulk(p2, idx, 4);
	pthread_barrier_wait(&bar);     /* main destroys the pool and makes a new one */
	pthread_barrier_wait(&bar);
	CHECK(vpk_pool_alloc_burst(p2, idx, 4) == 4, "alloc from the new pool");
	vpk_pool_free_bulk(p2, idx, 4);
	return NULL;
}

static void
test_outlive(void)
{
	struct vpk_pool_conf c = { .n_bufs = 32, .data_size = 64, .cache_size = 8 };
	pthread_t t;
	uint32_t idx[32];

	CHECK(vpk_pool_create(&c, &p2) == 0, "create");
	pthread_barrier_init(&bar, NULL, 2);
	pthread_create(&t, NULL, outliver, NULL);
	pthread_barrier_wait(&bar);
	vpk_pool_destroy(p2);
	CHECK(vpk_pool_create(&c, &p2) == 0, "create again");
	pthread_barrier_wait(&bar);
	pthread_join(t, NULL);
	CHECK(vpk_pool_in_use(p2) == 0, "in_use of the new pool");
	CHECK(vpk_pool_alloc_burst(p2, idx, 32) == 32, "new pool complete after thread exit");
	vpk_pool_free_bulk(p2, idx, 32);
	pthread_barrier_destroy(&bar);
	vpk_pool_destroy(p2);
}

int
main(void)
{
	check_init("buf.pool_mt");
	test_stress();
	test_cache_visibility(0);
	test_cache_visibility(1);
	test_outlive();
	return check_finish();
}
