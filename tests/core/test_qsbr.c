/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QSBR: API errors, the token rules on one thread, and a reclamation stress
 * test: readers hold a pointer across many reads between quiescent states,
 * the writer swaps it, waits for the readers and poisons (then frees) the
 * old object. A reader that ever reads the poison fails the test (and ASan
 * would see the use after free). A negative control does the same without
 * waiting and must observe the poison, showing the detector works.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include <vpk/qsbr.h>

#include "lib/check.h"

#define LIVE 0x600dcafeu
#define DEAD 0xdeadbeefu
#define NREADERS 2
#define HOLD 2000

struct obj {
	uint32_t magic[16];
};

static struct obj *_Atomic shared;
static struct vpk_qsbr *q;
static _Atomic int stop;
static _Atomic uint64_t seen_dead, reads;

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *
reader(void *arg)
{
	uint32_t id = (uint32_t)(uintptr_t)arg;
	uint64_t n = 0, dead = 0;

	vpk_qsbr_thread_online(q, id);
	while (!atomic_load(&stop)) {
		struct obj *o = atomic_load_explicit(&shared, memory_order_acquire);

		for (int i = 0; i < HOLD; i++) {
			uint32_t v = __atomic_load_n(&o->magic[i & 15], __ATOMIC_RELAXED);

			if (v != LIVE) {
				dead++;
				atomic_fetch_add(&seen_dead, 1);
			}
		}
		n++;
		vpk_qsbr_quiescent(q, id);
		if ((n & 255) == 0) {   /* also exercise offline/online */
			vpk_qsbr_thread_offline(q, id);
			vpk_qsbr_thread_online(q, id);
		}
	}
	vpk_qsbr_thread_offline(q, id);
	(void)dead;
	atomic_fetch_add(&reads, n);
	return NULL;
}

static struct obj *
new_obj(void)
{
	struct obj *o = malloc(sizeof(*o));

	for (int i = 0; i < 16; i++)
		o->magic[i] = LIVE;
	return o;
}

/* wait = 1: the QSBR protocol; 0: negative control (poison at once, never free). */
static uint64_t
run(int wait, double seconds, uint64_t *swaps)
{
	pthread_t th[NREADERS];
	struct obj **keep = NULL;
	size_t nkeep = 0;
	double end;

	atomic_store(&shared, new_obj());
	atomic_store(&stop, 0);
	atomic_store(&seen_dead, 0);
	atomic_store(&reads, 0);
	for (uint32_t i = 0; i < NREADERS; i++)
		pthread_create(&th[i], NULL, reader, (void *)(uintptr_t)i);
	end = now_s() + seconds;
	*swaps = 0;
	while (now_s() < end) {
		struct obj *old = atomic_exchange(&shared, new_obj());
		uint64_t t = vpk_qsbr_start(q);

		if (wait)
			vpk_qsbr_check(q, t, true);
		for (int i = 0; i < 16; i++)
			__atomic_store_n(&old->magic[i], DEAD, __ATOMIC_RELAXED);
		if (wait) {
			free(old);
		} else {
			keep = realloc(keep, (nkeep + 1) * sizeof(*keep));
			keep[nkeep++] = old;
			if (atomic_load(&seen_dead) || nkeep > 100000)
				break;
			/* give readers time to look at the poisoned object */
			for (volatile int spin = 0; spin < 20000; spin++)
				;
		}
		(*swaps)++;
	}
	atomic_store(&stop, 1);
	for (uint32_t i = 0; i < NREADERS; i++)
		pthread_join(th[i], NULL);
	free(atomic_load(&shared));
	for (size_t i = 0; i < nkeep; i++)
		free(keep[i]);
	free(keep);
	return atomic_load(&seen_dead);
}

int
main(void)
{
	uint64_t t, swaps, dead;

	check_init("core.qsbr");

	/* API errors */
	CHECK(vpk_qsbr_create(&(struct vpk_qsbr_conf){ .max_threads = 0 }, &q) == -EINVAL, "0 threads");
	CHECK(vpk_qsbr_create(&(struct vpk_qsbr_conf){ .max_threads = VPK_QSBR_MAX_THREADS + 1 }, &q) == -EINVAL,
	      "too many threads");
	CHECK(vpk_qsbr_create(&(struct vpk_qsbr_conf){ .max_threads = 4 }, NULL) == -EINVAL, "NULL out");
	CHECK(vpk_qsbr_create(NULL, &q) == -EINVAL, "NULL conf");
	CHECK(vpk_qsbr_create(&(struct vpk_qsbr_conf){ .max_threads = 130 }, &q) == 0, "create");
	CHECK(vpk_qsbr_thread_register(q, 130) == -EINVAL, "id out of range");
	CHECK(vpk_qsbr_thread_register(q, 129) == 0, "register 129");
	CHECK(vpk_qsbr_thread_register(q, 129) == -EEXIST, "register twice");
	CHECK(vpk_qsbr_thread_unregister(q, 5) == -ENOENT, "unregister unknown");
	CHECK(vpk_qsbr_thread_unregister(q, 130) == -EINVAL, "unregister out of range");
	CHECK(vpk_qsbr_thread_count(q) == 1, "count 1");
	CHECK(vpk_qsbr_thread_online(q, 130) == -EINVAL && vpk_qsbr_thread_offline(q, 130) == -EINVAL,
	      "online/offline: id out of range");
	CHECK(vpk_qsbr_thread_online(q, 7) == -ENOENT && vpk_qsbr_thread_offline(q, 7) == -ENOENT,
	      "online/offline: id not registered");
	CHECK(vpk_qsbr_thread_online(NULL, 0) == -EINVAL && vpk_qsbr_check(NULL, 1, false) == -EINVAL &&
	      vpk_qsbr_start(NULL) == 0, "NULL object");

	/* token rules, one thread playing reader 129 and reader 3 */
	t = vpk_qsbr_start(q);
	CHECK(vpk_qsbr_check(q, t, false) == 1, "registered but offline: not waited for");
	vpk_qsbr_thread_online(q, 129);
	t = vpk_qsbr_start(q);
	CHECK(vpk_qsbr_check(q, t, false) == 0, "online reader has not passed a quiescent state");
	vpk_qsbr_quiescent(q, 129);
	CHECK(vpk_qsbr_check(q, t, false) == 1, "quiescent after start");
	CHECK(vpk_qsbr_thread_register(q, 3) == 0, "register 3");
	vpk_qsbr_thread_online(q, 3);
	t = vpk_qsbr_start(q);
	vpk_qsbr_quiescent(q, 129);
	CHECK(vpk_qsbr_check(q, t, false) == 0, "reader 3 still pending");
	vpk_qsbr_thread_offline(q, 3);
	CHECK(vpk_qsbr_check(q, t, false) == 1, "offline reader not waited for");
	vpk_qsbr_thread_online(q, 3);
	t = vpk_qsbr_start(q);
	vpk_qsbr_quiescent(q, 129);
	CHECK(vpk_qsbr_thread_unregister(q, 3) == 0, "unregister online reader");
	CHECK(vpk_qsbr_check(q, t, false) == 1, "unregistered reader not waited for");
	CHECK(vpk_qsbr_check(q, t - 1, true) == 1, "older token done too");
	vpk_qsbr_thread_offline(q, 129);
	CHECK(vpk_qsbr_thread_unregister(q, 129) == 0, "unregister 129");
	vpk_qsbr_destroy(q);

	/* stress */
	CHECK(vpk_qsbr_create(&(struct vpk_qsbr_conf){ .max_threads = NREADERS }, &q) == 0, "create");
	for (uint32_t i = 0; i < NREADERS; i++)
		vpk_qsbr_thread_register(q, i);
	dead = run(1, 1.0, &swaps);
	printf("qsbr: %llu swaps, %llu reader passes, %llu poisoned reads\n",
	       (unsigned long long)swaps, (unsigned long long)atomic_load(&reads),
	       (unsigned long long)dead);
	CHECK(dead == 0, "a reader saw a reclaimed object %llu times", (unsigned long long)dead);
	CHECK(swaps > 10, "the writer made progress (%llu swaps)", (unsigned long long)swaps);

	dead = run(0, 3.0, &swaps);
	printf("negative control (no wait): %llu poisoned reads after %llu swaps\n",
	       (unsigned long long)dead, (unsigned long long)swaps);
	CHECK(dead > 0, "the detector never saw a poisoned object without QSBR");
	vpk_qsbr_destroy(q);
	return check_finish();
}
