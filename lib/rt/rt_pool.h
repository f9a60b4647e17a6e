/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Object pools with a cache per logical lcore: fixed-size objects, all made
 * when the pool is created, taken and returned on any lcore without a
 * malloc, an atomic or a shared cache line on the common path (SPDK's
 * message pool: one pool, a cache per thread).
 *
 * Where the objects live:
 *  - EAL running: an rte_mempool (its memory, its socket, its telemetry),
 *    created without rte_mempool's own per-EAL-lcore cache;
 *  - no EAL (SIM, POLLED, no_eal): one cache-aligned slab of objects whose
 *    free ones sit in an rte_ring (rte_ring_init on our memory).
 * Either way the cache in front is this file's, one per logical lcore of
 * the runtime: logical lcores are the unit of ownership here, and several
 * of them can share one EAL worker thread.
 *
 * A lcore's get takes from its cache, refilled from the pool in batches of
 * cache_size; a put goes into the cache of the lcore that runs it (not the
 * lcore that took the object), and a full cache gives a batch back. A
 * thread that is not a lcore of the runtime goes to the pool directly.
 *
 * An empty pool is a clear failure: rt_pool_get() returns NULL and counts
 * it. The pool never grows: objects stranded in other lcores' caches (up to
 * twice cache_size each) are not available to a lcore whose cache is empty,
 * so size the pool with that headroom (rt_pool_headroom()).
 */
#ifndef RT_POOL_H
#define RT_POOL_H

#include <stddef.h>
#include <stdint.h>

#include <rte_branch_prediction.h>

#include "lnp_api.h"

LNP_BEGIN_DECLS

struct rt_runtime;
struct rt_lcore;
struct rt_pool;

/**
 * One lcore's cache of a pool: a stack, the last object put is the next
 * taken (still warm in that lcore's cache). Private to lib/rt, here for the
 * inline fast path; written by its lcore only, len read relaxed by anyone.
 */
struct rt_pool_cache {
	unsigned int len;  /**< objects in objs */
	unsigned int size; /**< the batch to and from the pool */
	unsigned int cap;  /**< what objs holds: twice size */
	uint64_t empty;    /**< its gets that found nothing */
	void *objs[];      /**< [2 * size] */
};

/** Pool creation options. */
struct rt_pool_opts {
	size_t opts_size; /**< sizeof(struct rt_pool_opts) */
	const char *name; /**< for logs and the mempool's name; may be NULL */
	size_t elt_size;  /**< bytes per object (> 0); objects are cache-line aligned */
	unsigned int n;   /**< objects, all made at creation (> 0) */
	/**
	 * Objects a lcore's cache takes from (or gives back to) the pool at once;
	 * a cache holds up to twice this. 0: no caches, every get and put goes
	 * to the pool.
	 */
	unsigned int cache_size;
};

/** Counters of a pool; each read relaxed, so a sum is a snapshot only when nothing runs. */
struct rt_pool_stats {
	unsigned int n;      /**< objects made */
	unsigned int avail;  /**< in the pool and in the caches */
	unsigned int cached; /**< of which in the lcores' caches */
	uint64_t empty;      /**< gets that found no object */
	uint64_t mempool;    /**< 1: objects in an rte_mempool, 0: in a slab */
};

/**
 * Create a pool of @p o->n objects for the lcores of @p rt (a cache each).
 * Call on any thread before the pool is used; uses rte_mempool when EAL
 * has been initialised.
 * @return 0, -EINVAL (bad options), -ENOMEM
 */
LNP_API int rt_pool_create(struct rt_runtime *rt, const struct rt_pool_opts *o,
			   struct rt_pool **out);

/**
 * Free @p p and every object, taken or not (the caller has stopped using
 * them: the runtime is stopped or no lcore touches the pool). NULL: no-op.
 */
LNP_API void rt_pool_destroy(struct rt_pool *p);

/**
 * An object, from the calling lcore's cache (refilled from the pool when
 * empty), or from the pool on a thread that is not a lcore of the runtime.
 * It is zero the first time it is taken; after that it holds what its
 * last user left.
 * @return the object, or NULL when none is left (counted in empty)
 */
LNP_API void *rt_pool_get(struct rt_pool *p);

/**
 * Give @p obj (from rt_pool_get() of @p p, on any lcore or thread) back:
 * into the calling lcore's cache, or to the pool. Never fails.
 */
LNP_API void rt_pool_put(struct rt_pool *p, void *obj);

/**
 * @p lc's own cache of @p p, for rt_pool_cache_get() and rt_pool_cache_put()
 * on @p lc alone (a caller that keeps it saves rt_pool_get()'s look-up of
 * the calling lcore). NULL: @p lc is not of the pool's runtime, or the pool
 * has no caches.
 */
LNP_API struct rt_pool_cache *rt_pool_lcore_cache(struct rt_pool *p, const struct rt_lcore *lc);

/** Private: rt_pool_cache_get() with an empty cache. */
LNP_API void *rt_pool_cache_refill_get(struct rt_pool *p, struct rt_pool_cache *c);
/** Private: rt_pool_cache_put() into a full cache. */
LNP_API void rt_pool_cache_flush_put(struct rt_pool *p, struct rt_pool_cache *c, void *obj);

/** rt_pool_get() on the lcore that owns @p c (rt_pool_lcore_cache()). */
static inline void *
rt_pool_cache_get(struct rt_pool *p, struct rt_pool_cache *c)
{
	unsigned int len = c->len;

	if (likely(len != 0)) {
		__atomic_store_n(&c->len, len - 1, __ATOMIC_RELAXED);
		return c->objs[len - 1];
	}
	return rt_pool_cache_refill_get(p, c);
}

/** rt_pool_put() on the lcore that owns @p c (rt_pool_lcore_cache()). */
static inline void
rt_pool_cache_put(struct rt_pool *p, struct rt_pool_cache *c, void *obj)
{
	unsigned int len = c->len;

	if (likely(len < c->cap)) {
		c->objs[len] = obj;
		__atomic_store_n(&c->len, len + 1, __ATOMIC_RELAXED);
		return;
	}
	rt_pool_cache_flush_put(p, c, obj);
}

/** Copy of @p p's counters (any thread). */
LNP_API void rt_pool_stats_get(const struct rt_pool *p, struct rt_pool_stats *out);

/** Objects now in @p lc's cache of @p p (0 for a lcore of another runtime). */
LNP_API unsigned int rt_pool_cache_count(const struct rt_pool *p, const struct rt_lcore *lc);

/**
 * Objects the caches of @p rt's lcores can hold at most with @p cache_size:
 * what to add to a pool's working set so a lcore never finds it empty
 * while the others' caches hold the rest.
 */
LNP_API unsigned int rt_pool_headroom(const struct rt_runtime *rt, unsigned int cache_size);

LNP_END_DECLS

#endif /* RT_POOL_H */
