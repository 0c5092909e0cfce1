/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Quiescent-state-based reclamation (include/vpk/qsbr.h).
 *
 * One 64-byte line holds the global token, then one line per reader id. A
 * reader's line holds 0 while it is offline, else the token it read at its
 * last quiescent state (or when it went online). The writer's token T is
 * done when every online registered reader shows a value >= T: such a reader
 * loaded the token after vpk_qsbr_start() incremented it to T, so it can no
 * longer hold a reference obtained before the writer unpublished.
 *
 * Ordering: vpk_qsbr_start() is a seq_cst read-modify-write after the
 * writer's unpublishing store; a reader's acquire load of the token that
 * sees T therefore sees the unpublish too. A reader's release store of its
 * count pairs with the writer's acquire load in vpk_qsbr_check(): every
 * read the reader made before the quiescent state happened before the
 * writer frees. Going online is a store followed by a full fence (Dekker
 * with the writer's seq_cst RMW + load): either the writer sees the reader
 * online, or the reader's later reads see the unpublished state.
 *
 * Registration is a bitmap the writer walks; it is changed with atomic
 * read-modify-writes so threads may register while a writer checks.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/qsbr.h>

/*
 * GCC warns (-Wtsan) that ThreadSanitizer does not model the two seq_cst
 * fences below. They order a reader going online against the writer's
 * check (the Dekker pairing above); what TSan must see for reclamation, the
 * reader's release store of its count and the writer's acquire load of it,
 * is modelled. Without the fences TSan would see the same, so it neither
 * misses a report nor gains a false one through them.
 */
#if defined(__SANITIZE_THREAD__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wtsan"
#endif

/* struct vpk_qsbr is opaque: the object is a struct vpk_qsbr_hdr_ (the
 * inline fast path in the header reads it too) followed by the slots and the
 * registration bitmap. */
#define HDR(q) ((struct vpk_qsbr_hdr_ *)(void *)(q))

static inline uint64_t *
reg_words(const struct vpk_qsbr *q)
{
	/* the registration bitmap follows the reader slots */
	return (uint64_t *)(void *)&HDR(q)->slot[HDR(q)->max_threads];
}

int
vpk_qsbr_create(const struct vpk_qsbr_conf *conf, struct vpk_qsbr **out)
{
	uint32_t max_threads = conf != NULL ? conf->max_threads : 0;
	struct vpk_qsbr_hdr_ *h;
	size_t words, sz;

	if (out == NULL || max_threads == 0 || max_threads > VPK_QSBR_MAX_THREADS)
		return -EINVAL;
	words = (max_threads + 63) / 64;
	sz = sizeof(struct vpk_qsbr_hdr_) + (size_t)max_threads * sizeof(struct vpk_qsbr_slot_) +
	     words * sizeof(uint64_t);
	sz = (sz + 63) & ~(size_t)63;
	h = aligned_alloc(64, sz);
	if (h == NULL)
		return -ENOMEM;
	memset(h, 0, sz);
	h->token = 1;
	h->max_threads = max_threads;
	*out = (struct vpk_qsbr *)(void *)h;
	return 0;
}

void
vpk_qsbr_destroy(struct vpk_qsbr *q)
{
	free(q);
}

/* Thread @id's word and bit in the registration bitmap; NULL for a bad @q or @id. */
static uint64_t *
reg_bit(struct vpk_qsbr *q, uint32_t id, uint64_t *bit)
{
	if (q == NULL || id >= HDR(q)->max_threads)
		return NULL;
	*bit = 1ull << (id % 64);
	return &reg_words(q)[id / 64];
}

int
vpk_qsbr_thread_register(struct vpk_qsbr *q, uint32_t id)
{
	uint64_t bit, *w = reg_bit(q, id, &bit);

	if (w == NULL)
		return -EINVAL;
	if (__atomic_fetch_or(w, bit, __ATOMIC_SEQ_CST) & bit)
		return -EEXIST;
	__atomic_store_n(&HDR(q)->slot[id].cnt, 0, __ATOMIC_RELEASE);
	return 0;
}

int
vpk_qsbr_thread_unregister(struct vpk_qsbr *q, uint32_t id)
{
	uint64_t bit, *w = reg_bit(q, id, &bit);

	if (w == NULL)
		return -EINVAL;
	__atomic_store_n(&HDR(q)->slot[id].cnt, 0, __ATOMIC_RELEASE);
	return (__atomic_fetch_and(w, ~bit, __ATOMIC_SEQ_CST) & bit) ? 0 : -ENOENT;
}

/* 0, or why reader @p id cannot go online/offline. */
static int
reader_ok(const struct vpk_qsbr *q, uint32_t id)
{
	if (q == NULL || id >= HDR(q)->max_threads)
		return -EINVAL;
	if (!(__atomic_load_n(&reg_words(q)[id / 64], __ATOMIC_ACQUIRE) & (1ull << (id % 64))))
		return -ENOENT;
	return 0;
}

int
vpk_qsbr_thread_online(struct vpk_qsbr *q, uint32_t id)
{
	int rc = reader_ok(q, id);
	uint64_t t;

	if (rc != 0)
		return rc;
	t = __atomic_load_n(&HDR(q)->token, __ATOMIC_ACQUIRE);
	__atomic_store_n(&HDR(q)->slot[id].cnt, t, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return 0;
}

int
vpk_qsbr_thread_offline(struct vpk_qsbr *q, uint32_t id)
{
	int rc = reader_ok(q, id);

	if (rc == 0)
		__atomic_store_n(&HDR(q)->slot[id].cnt, 0, __ATOMIC_RELEASE);
	return rc;
}

uint64_t
vpk_qsbr_start(struct vpk_qsbr *q)
{
	return q != NULL ? __atomic_add_fetch(&HDR(q)->token, 1, __ATOMIC_SEQ_CST) : 0;
}

/* 1 when reader @p id is offline or has seen @p token. */
static int
reader_done(const struct vpk_qsbr *q, uint32_t id, uint64_t token)
{
	uint64_t c = __atomic_load_n(&HDR(q)->slot[id].cnt, __ATOMIC_SEQ_CST);

	return c == 0 || c >= token;
}

int
vpk_qsbr_check(struct vpk_qsbr *q, uint64_t token, bool wait)
{
	uint32_t words;

	if (q == NULL)
		return -EINVAL;
	words = (HDR(q)->max_threads + 63) / 64;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (uint32_t w = 0; w < words; w++) {
		uint64_t m = __atomic_load_n(&reg_words(q)[w], __ATOMIC_ACQUIRE);

		while (m) {
			uint32_t id = w * 64 + (uint32_t)__builtin_ctzll(m);

			if (reader_done(q, id, token)) {
				m &= m - 1;
				continue;
			}
			if (!wait)
				return 0;
			sched_yield();
			/* an unregistered reader is done too */
			if (!(__atomic_load_n(&reg_words(q)[w], __ATOMIC_ACQUIRE) & (1ull << (id % 64))))
				m &= m - 1;
		}
	}
	return 1;
}

uint32_t
vpk_qsbr_thread_count(const struct vpk_qsbr *q)
{
	uint32_t n = 0, words = (HDR(q)->max_threads + 63) / 64;

	for (uint32_t w = 0; w < words; w++)
		n += (uint32_t)__builtin_popcountll(__atomic_load_n(&reg_words(q)[w], __ATOMIC_RELAXED));
	return n;
}
