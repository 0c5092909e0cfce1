/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Buffer pool: fixed-size buffers named by 32-bit indices, a shared free
 * stack, per-thread caches in front of it, exact accounting.
 *
 * Memory (include/vpk/buf.h has the diagram): n_bufs buffers of `stride`
 * bytes (64 metadata + 128 headroom + data_size, rounded up to 64), one
 * contiguous 64-byte aligned block, ours (mmap) or the caller's (conf.mem,
 * e.g. an AF_XDP UMEM). Buffer i starts at base + i * stride and its index
 * is (i * stride) >> 6, so indices step by idx_stride = stride / 64.
 *
 * Shared free stack: a uint32_t array of n_bufs indices and a top, under a
 * mutex (glibc's adaptive kind: it spins briefly before sleeping, which suits
 * critical sections of a few hundred nanoseconds and 2-core machines where a
 * pure spinlock holder may be preempted). LIFO, so recently freed (cache-warm)
 * buffers go out first.
 *
 * Per-thread caches (the DPDK mempool per-lcore cache idea, but found through
 * thread-local storage instead of an lcore id, so callers do nothing):
 *
 *   thread T                          pool P (gen 7)
 *   tl_slots (_Thread_local pointer)  caches --> [cache T] --> [cache U] --> NULL
 *    |  16 slots, malloc'd              ^ list under g_lock, walked by
 *    v +----------+-----+---------+     |   vpk_pool_in_use() and destroy
 *      | pool = P | gen | cache --+-----+
 *      +----------+-----+---------+
 *      | NULL ... (free slots)    |   cache: len, net, objs[2 * cache_size]
 *
 *   - A slot matches when slot.pool == pool && slot.gen == pool->gen. The
 *     generation is a process-wide counter stamped on each pool at creation,
 *     so a slot left behind by a destroyed pool never matches a new pool
 *     that happens to get the same address, and is never dereferenced.
 *   - The only thread-local variable is one pointer, in the initial-exec
 *     TLS model: one %fs-relative load, no __tls_get_addr() call, even in
 *     libvpk.so (built -fPIC), and 8 bytes of static TLS, small enough for a
 *     dlopen()ed libvpk. The slot table itself is malloc'd on first use.
 *   - First use of a pool by a thread takes the global lock g_lock, reuses a
 *     free or stale slot (its pool is no longer on the live list), mallocs
 *     the cache, links it into the pool's list, and registers the slot
 *     table with a pthread key so that thread exit runs cache_thread_exit():
 *     every cache of a live pool is flushed back to its pool's stack, its
 *     counter folded into pool->retired_net, and freed. Nothing is lost.
 *   - A thread using more than 16 pools at once, a failed cache malloc, or
 *     cache_size 0 fall back to the uncached path (stack + one atomic
 *     counter): slower, never wrong.
 *   - Small bursts (n <= cache_size / 2) use the cache. alloc: take from the
 *     cache; if it holds fewer than n, first refill it from the stack with
 *     cache_size + n - len buffers (so it ends the call holding about
 *     cache_size). free: append; when the cache exceeds cache_size, the
 *     oldest (coldest) entries above cache_size / 2 go back to the stack.
 *     Between calls len <= cache_size, so objs[] never needs more than
 *     2 * cache_size entries.
 *   - Larger bursts go straight to the stack (alloc still tops up from the
 *     cache when the stack runs dry): one lock round trip is then cheap per
 *     buffer, while passing such a burst through the cache would copy it
 *     twice (measured, docs/buffers.md: at burst 256 through a 256-entry
 *     cache 5.8 cycles/buffer against 3.6 direct).
 *   - A thread sees exhaustion only when its own cache and the shared stack
 *     are both empty; buffers in other threads' caches are free but not
 *     reachable (as in DPDK). Size pools for n_threads * cache_size slack.
 *
 * Accounting: each cache has `net` = buffers allocated minus freed by its
 * thread (signed: a thread may free what another allocated), written only
 * by its owner (relaxed atomic store, no shared cache line on the hot path).
 * in_use = uncached_net + retired_net + sum(cache->net), summed under g_lock.
 * Exact whenever no alloc/free is in flight; a buffer sitting in any
 * thread's cache counts as free.
 *
 * Debug builds (VPK_DEBUG): one state byte per buffer (FREE/ALLOC), swapped
 * atomically on every alloc and free: an index that is out of range or not
 * a buffer start, a double free (even into a cache), or a free buffer found
 * in use aborts with a message naming the pool and index. This is the one
 * place libvpk aborts: a debug assertion on a data-plane contract.
 *
 * Workload: bursts of 1..256 indices, cache_size 64..512, up to a few
 * million buffers, a handful of pools, one thread per core.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <vpk/buf.h>
#include "buf/pool_priv.h"

#include "core/debug.h"

#define POOL_CACHE_MAX  4096u   /* conf.cache_size limit (objs[] = 32 KiB) */
#define TL_SLOTS        16      /* pools one thread can cache at once */
#define META_AND_HEAD   (64u + VPK_BUF_HEADROOM)

enum { BUF_FREE = 0, BUF_ALLOC = 1 };

/* One thread's cache of one pool; 64-byte aligned so no two threads' caches
 * share a cache line. */
struct pool_cache {
	struct pool_cache *next;        /* pool->caches list, under g_lock */
	_Atomic int64_t net;            /* allocs - frees by the owner thread */
	uint32_t len;                   /* indices in objs[], <= cache_size between calls */
	_Alignas(64) uint32_t objs[];   /* 2 * cache_size entries */
};

struct vpk_pool {
	uint8_t *base;                  /* buffer 0, 64-byte aligned */
	uint32_t n_bufs;
	uint32_t data_size;             /* as configured (usable area may be larger) */
	uint32_t stride;                /* bytes per buffer, multiple of 64 */
	uint32_t idx_stride;            /* stride >> VPK_BUF_SHIFT */
	uint32_t cache_size;
	size_t map_len;                 /* bytes mmapped by us, 0 for caller memory */
	uint64_t gen;                   /* unique per pool ever created */
	char *name;
	vpk_buf_idx_to_ptr_fn to_ptr;
	vpk_buf_ptr_to_idx_fn to_idx;
	const struct vpk_impl *impl;
	struct vpk_buf tmpl;            /* what alloc resets metadata to */

	/* Written by every thread that touches the stack: own cache lines, away
	 * from the read-mostly fields above that every alloc/free reads. */
	_Alignas(64) pthread_mutex_t lock;      /* protects top and stack[] */
	uint32_t top;                   /* free indices in stack[0..top) */
	uint32_t *stack;

	_Alignas(64) _Atomic int64_t uncached_net;      /* allocs - frees that had no cache */
	int64_t retired_net;            /* nets of caches of exited threads (g_lock) */
	struct pool_cache *caches;      /* caches of live threads (g_lock) */
	struct vpk_pool *next_live;     /* live pool list (g_lock) */
#ifdef VPK_DEBUG
	_Atomic uint8_t *state;         /* BUF_FREE / BUF_ALLOC per buffer */
#endif
};

struct tl_slot {
	const struct vpk_pool *pool;    /* NULL: free slot */
	uint64_t gen;
	struct pool_cache *cache;
};

/* This thread's slot table (TL_SLOTS entries), NULL until its first cache. */
static _Thread_local struct tl_slot *tl_slots __attribute__((tls_model("initial-exec")));

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vpk_pool *g_live;                 /* under g_lock */
static _Atomic uint64_t g_next_gen = 1;
static pthread_key_t g_key;
static pthread_once_t g_key_once = PTHREAD_ONCE_INIT;
static bool g_key_ok;

/* ---- shared stack ------------------------------------------------------ */

static uint32_t
stack_pop(struct vpk_pool *p, uint32_t *out, uint32_t n)
{
	uint32_t got;

	pthread_mutex_lock(&p->lock);
	got = n < p->top ? n : p->top;
	p->top -= got;
	memcpy(out, p->stack + p->top, (size_t)got * sizeof(*out));
	pthread_mutex_unlock(&p->lock);
	return got;
}

static void
stack_push(struct vpk_pool *p, const uint32_t *in, uint32_t n)
{
	pthread_mutex_lock(&p->lock);
	/* Cannot overflow: debug builds reject double frees before this point,
	 * and release builds trust the caller (data-plane contract). */
	memcpy(p->stack + p->top, in, (size_t)n * sizeof(*in));
	p->top += n;
	pthread_mutex_unlock(&p->lock);
}

/* ---- per-thread caches ------------------------------------------------- */

static bool
pool_is_live(const struct vpk_pool *p, uint64_t gen)
{
	for (const struct vpk_pool *q = g_live; q != NULL; q = q->next_live)
		if (q == p && q->gen == gen)
			return true;
	return false;
}

/* Called with g_lock held: flush @c to @p's stack, keep its count, free it. */
static void
cache_retire(struct vpk_pool *p, struct pool_cache *c)
{
	struct pool_cache **pp;

	if (c->len > 0)
		stack_push(p, c->objs, c->len);
	p->retired_net += atomic_load_explicit(&c->net, memory_order_relaxed);
	for (pp = &p->caches; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	free(c);
}

/* pthread key destructor: the thread exits; give every cached buffer back. */
static void
cache_thread_exit(void *arg)
{
	struct tl_slot *slots = arg;

	pthread_mutex_lock(&g_lock);
	for (unsigned i = 0; i < TL_SLOTS; i++) {
		/* A slot of a destroyed pool: its cache was freed by destroy. */
		if (slots[i].pool != NULL && pool_is_live(slots[i].pool, slots[i].gen))
			cache_retire((struct vpk_pool *)slots[i].pool, slots[i].cache);
	}
	pthread_mutex_unlock(&g_lock);
	free(slots);
	/* If a later destructor of this thread uses a pool again, cache_create()
	 * makes a new table and registers it; glibc then runs another round
	 * (up to PTHREAD_DESTRUCTOR_ITERATIONS). */
	tl_slots = NULL;
}

static void
key_init(void)
{
	g_key_ok = pthread_key_create(&g_key, cache_thread_exit) == 0;
}

/* Slow path, once per (thread, pool): NULL means "use the uncached path". */
static struct pool_cache *
cache_create(struct vpk_pool *p)
{
	struct pool_cache *c = NULL;
	unsigned i;

	pthread_once(&g_key_once, key_init);
	if (!g_key_ok)
		return NULL;    /* without the key a thread's cache could be lost */
	if (tl_slots == NULL) {
		struct tl_slot *t = calloc(TL_SLOTS, sizeof(*t));

		if (t == NULL)
			return NULL;
		if (pthread_setspecific(g_key, t) != 0) {
			free(t);
			return NULL;
		}
		tl_slots = t;
	}
	pthread_mutex_lock(&g_lock);
	for (i = 0; i < TL_SLOTS; i++)
		if (tl_slots[i].pool == NULL || !pool_is_live(tl_slots[i].pool, tl_slots[i].gen))
			break;
	if (i < TL_SLOTS) {
		/* Size rounded up to 64 as aligned_alloc() wants. */
		size_t sz = (sizeof(*c) + 2 * (size_t)p->cache_size * sizeof(c->objs[0]) + 63) & ~(size_t)63;

		c = aligned_alloc(64, sz);
		if (c != NULL)
			memset(c, 0, sizeof(*c));
	}
	if (c != NULL) {
		c->next = p->caches;
		p->caches = c;
		tl_slots[i] = (struct tl_slot){ .pool = p, .gen = p->gen, .cache = c };
	}
	pthread_mutex_unlock(&g_lock);
	return c;
}

static inline struct pool_cache *
cache_get(struct vpk_pool *p)
{
	struct tl_slot *t = tl_slots;

	if (p->cache_size == 0)
		return NULL;
	if (t != NULL)
		for (unsigned i = 0; i < TL_SLOTS; i++)
			if (t[i].pool == p && t[i].gen == p->gen)
				return t[i].cache;
	return cache_create(p);
}

static inline void
net_add(struct vpk_pool *p, struct pool_cache *c, int64_t d)
{
	if (c != NULL)
		atomic_store_explicit(&c->net,
				      atomic_load_explicit(&c->net, memory_order_relaxed) + d,
				      memory_order_relaxed);
	else
		atomic_fetch_add_explicit(&p->uncached_net, d, memory_order_relaxed);
}

/* ---- debug checks ------------------------------------------------------ */

#ifdef VPK_DEBUG
static _Noreturn void
pool_die(const struct vpk_pool *p, const char *what, uint32_t idx)
{
	fprintf(stderr, "vpk: pool '%s': %s (buffer index %u, pool of %u buffers, index step %u)\n",
		p->name, what, idx, p->n_bufs, p->idx_stride);
	abort();
}

static void
debug_on_free(struct vpk_pool *p, const uint32_t *idx, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = idx[i] / p->idx_stride;

		if (idx[i] % p->idx_stride != 0 || k >= p->n_bufs)
			pool_die(p, "vpk_pool_free_bulk: index out of range or not a buffer start", idx[i]);
		if (atomic_exchange(&p->state[k], BUF_FREE) != BUF_ALLOC)
			pool_die(p, "vpk_pool_free_bulk: double free", idx[i]);
	}
}

static void
debug_on_alloc(struct vpk_pool *p, const uint32_t *idx, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (atomic_exchange(&p->state[idx[i] / p->idx_stride], BUF_ALLOC) != BUF_FREE)
			pool_die(p, "vpk_pool_alloc_burst: free list corrupt, buffer already in use",
				 idx[i]);
}
#else
#define debug_on_free(p, idx, n)  ((void)0)
#define debug_on_alloc(p, idx, n) ((void)0)
#endif

/* ---- data plane -------------------------------------------------------- */

/*
 * Copy @n indices between a caller's array and a cache. Short bursts (the
 * common case: 1..32) in a plain loop, since a libc call costs more than the
 * copy; longer ones with memcpy(), which uses the widest registers.
 */
static inline void
copy_idx(uint32_t *restrict dst, const uint32_t *restrict src, uint32_t n)
{
	if (n > 32) {
		memcpy(dst, src, (size_t)n * sizeof(*dst));
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		dst[i] = src[i];
}

uint32_t
pool_alloc_raw(struct vpk_pool *p, uint32_t *idx, uint32_t n)
{
	struct pool_cache *c;
	uint32_t got;

	VPK_DEBUG_ASSERT(p != NULL && (idx != NULL || n == 0));
	c = cache_get(p);

	if (c == NULL || n > p->cache_size / 2) {
		got = stack_pop(p, idx, n);
		if (c != NULL && got < n && c->len > 0) {
			/* Stack dry: what this thread has cached is free too. */
			uint32_t k = n - got < c->len ? n - got : c->len;

			c->len -= k;
			memcpy(idx + got, c->objs + c->len, (size_t)k * sizeof(*idx));
			got += k;
		}
	} else {
		if (c->len < n)
			c->len += stack_pop(p, c->objs + c->len, p->cache_size + n - c->len);
		got = n < c->len ? n : c->len;
		c->len -= got;
		copy_idx(idx, c->objs + c->len, got);
	}
	debug_on_alloc(p, idx, got);
	net_add(p, c, got);
	return got;
}

const struct vpk_buf *
pool_template(const struct vpk_pool *p)
{
	return &p->tmpl;
}

uint32_t
vpk_pool_alloc_burst(struct vpk_pool *p, uint32_t *idx, uint32_t n)
{
	uint32_t got = pool_alloc_raw(p, idx, n);

	if (got > 0) {
		/* Template and base in locals: a store to a buffer could alias *p,
		 * which would make the compiler reload both every iteration. */
		const struct vpk_buf t = p->tmpl;
		uint8_t *base = p->base;

		for (uint32_t i = 0; i < got; i++)
			*vpk_buf_from_idx(base, idx[i]) = t;
	}
	return got;
}

void
vpk_pool_free_bulk(struct vpk_pool *p, const uint32_t *idx, uint32_t n)
{
	struct pool_cache *c;

	VPK_DEBUG_ASSERT(p != NULL && (idx != NULL || n == 0));
	c = cache_get(p);
	debug_on_free(p, idx, n);
	if (c == NULL || n > p->cache_size / 2) {
		stack_push(p, idx, n);
	} else {
		copy_idx(c->objs + c->len, idx, n);
		c->len += n;
		if (c->len > p->cache_size) {
			/* Give back the oldest entries; keep the recently freed
			 * (cache-warm) half for the next alloc. */
			uint32_t k = c->len - p->cache_size / 2;

			stack_push(p, c->objs, k);
			memmove(c->objs, c->objs + k, (size_t)(c->len - k) * sizeof(c->objs[0]));
			c->len -= k;
		}
	}
	net_add(p, c, -(int64_t)n);
}

void
vpk_pool_cache_flush(struct vpk_pool *p)
{
	if (p->cache_size == 0 || tl_slots == NULL)
		return;
	for (unsigned i = 0; i < TL_SLOTS; i++) {
		if (tl_slots[i].pool == p && tl_slots[i].gen == p->gen) {
			struct pool_cache *c = tl_slots[i].cache;

			stack_push(p, c->objs, c->len);
			c->len = 0;
			return;
		}
	}
}

void
vpk_pool_idx_to_ptr_bulk(const struct vpk_pool *p, const uint32_t *idx,
			 struct vpk_buf **ptrs, size_t n)
{
	p->to_ptr(p->base, idx, ptrs, n);
}

void
vpk_pool_ptr_to_idx_bulk(const struct vpk_pool *p, struct vpk_buf *const *ptrs,
			 uint32_t *idx, size_t n)
{
	p->to_idx(p->base, ptrs, idx, n);
}

/* ---- control plane ----------------------------------------------------- */

static int
conf_check(const struct vpk_pool_conf *conf, uint32_t *stride)
{
	uint64_t data, bytes;

	if (conf->n_bufs == 0 || conf->cache_size > POOL_CACHE_MAX ||
	    conf->data_size > 65535u - VPK_BUF_HEADROOM ||
	    (unsigned)conf->isa >= VPK_ISA_COUNT)
		return -EINVAL;
	data = conf->data_size != 0 ? conf->data_size : VPK_BUF_DATA_SIZE;
	*stride = (uint32_t)((META_AND_HEAD + data + 63) & ~UINT64_C(63));
	/* The last buffer's index must be below VPK_BUF_NONE. */
	if ((uint64_t)conf->n_bufs * (*stride >> VPK_BUF_SHIFT) > UINT32_MAX)
		return -EINVAL;
	bytes = (uint64_t)conf->n_bufs * *stride;
	if (conf->mem == NULL)
		return conf->mem_len == 0 ? 0 : -EINVAL;
	if (((uintptr_t)conf->mem & 63) != 0 || conf->mem_len < bytes)
		return -EINVAL;
	return 0;
}

int
vpk_pool_create(const struct vpk_pool_conf *conf, struct vpk_pool **out)
{
	struct vpk_pool *p;
	uint32_t stride;
	int rc;

	if (conf == NULL || out == NULL)
		return -EINVAL;
	rc = conf_check(conf, &stride);
	if (rc < 0)
		return rc;
	/* struct vpk_pool has 64-byte aligned members: calloc() is not enough. */
	p = aligned_alloc(64, (sizeof(*p) + 63) & ~(size_t)63);
	if (p == NULL)
		return -ENOMEM;
	memset(p, 0, sizeof(*p));
	rc = vpk_buf_kernels_get(conf->isa, &p->to_ptr, &p->to_idx, &p->impl);
	if (rc < 0)
		goto out_free_pool;
	rc = -ENOMEM;
	p->name = strdup(conf->name != NULL ? conf->name : "pool");
	if (p->name == NULL)
		goto out_free_pool;
	p->n_bufs = conf->n_bufs;
	p->data_size = conf->data_size != 0 ? conf->data_size : VPK_BUF_DATA_SIZE;
	p->stride = stride;
	p->idx_stride = stride >> VPK_BUF_SHIFT;
	p->cache_size = conf->cache_size;
	p->stack = malloc((size_t)p->n_bufs * sizeof(p->stack[0]));
	if (p->stack == NULL)
		goto out_free_name;
#ifdef VPK_DEBUG
	p->state = calloc(p->n_bufs, 1);        /* all BUF_FREE */
	if (p->state == NULL)
		goto out_free_stack;
#endif
	if (conf->mem != NULL) {
		p->base = conf->mem;
	} else {
		p->map_len = (size_t)p->n_bufs * stride;
		p->base = mmap(NULL, p->map_len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p->base == MAP_FAILED)
			goto out_free_state;
		/* 2 MiB pages where the kernel has them (THP): a packet path
		 * touches buffers all over the pool, one TLB entry per 4 KiB page
		 * would miss on nearly every packet (DPDK's mbufs live on hugepages). */
		(void)madvise(p->base, p->map_len, MADV_HUGEPAGE);
	}
	if (pthread_mutex_init(&p->lock, NULL) != 0)
		goto out_unmap;

	p->tmpl = (struct vpk_buf){ .data_off = VPK_BUF_HEADROOM, .next = VPK_BUF_NONE };
	/* Stack top = buffer 0, so a fresh pool hands out buffers in order. */
	for (uint32_t i = 0; i < p->n_bufs; i++) {
		uint32_t k = p->n_bufs - 1 - i;

		p->stack[i] = k * p->idx_stride;
		*vpk_buf_from_idx(p->base, k * p->idx_stride) = p->tmpl;
	}
	p->top = p->n_bufs;
	p->gen = atomic_fetch_add(&g_next_gen, 1);

	pthread_mutex_lock(&g_lock);
	p->next_live = g_live;
	g_live = p;
	pthread_mutex_unlock(&g_lock);
	*out = p;
	return 0;

out_unmap:
	if (p->map_len != 0)
		munmap(p->base, p->map_len);
out_free_state:
#ifdef VPK_DEBUG
	free((void *)p->state);
out_free_stack:
#endif
	free(p->stack);
out_free_name:
	free(p->name);
out_free_pool:
	free(p);
	return rc;
}

void
vpk_pool_destroy(struct vpk_pool *p)
{
	struct vpk_pool **pp;

	if (p == NULL)
		return;
	pthread_mutex_lock(&g_lock);
	for (pp = &g_live; *pp != NULL; pp = &(*pp)->next_live) {
		if (*pp == p) {
			*pp = p->next_live;
			break;
		}
	}
	/* Threads still holding slots for this pool see a dead generation. */
	while (p->caches != NULL) {
		struct pool_cache *c = p->caches;

		p->caches = c->next;
		free(c);
	}
	pthread_mutex_unlock(&g_lock);
	pthread_mutex_destroy(&p->lock);
	if (p->map_len != 0)
		munmap(p->base, p->map_len);
#ifdef VPK_DEBUG
	free((void *)p->state);
#endif
	free(p->stack);
	free(p->name);
	free(p);
}

uint32_t
vpk_pool_in_use(const struct vpk_pool *p)
{
	int64_t sum;

	pthread_mutex_lock(&g_lock);
	sum = atomic_load_explicit(&p->uncached_net, memory_order_relaxed) + p->retired_net;
	for (const struct pool_cache *c = p->caches; c != NULL; c = c->next)
		sum += atomic_load_explicit(&c->net, memory_order_relaxed);
	pthread_mutex_unlock(&g_lock);
	/* Only while alloc/free run on other threads can the sum be briefly off. */
	if (sum < 0)
		return 0;
	return sum > p->n_bufs ? p->n_bufs : (uint32_t)sum;
}

uint32_t
vpk_pool_size(const struct vpk_pool *p)
{
	return p->n_bufs;
}

uint32_t
vpk_pool_data_size(const struct vpk_pool *p)
{
	return p->data_size;
}

void *
vpk_pool_base(const struct vpk_pool *p)
{
	return p->base;
}

const char *
vpk_pool_impl_name(const struct vpk_pool *p)
{
	return p->impl->name;
}

const char *
vpk_pool_name(const struct vpk_pool *p)
{
	return p->name;
}
