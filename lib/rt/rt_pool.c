/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Object pools with a cache per logical lcore (rt_pool.h): the cache layer,
 * and the two places the objects live (an rte_mempool with EAL, a slab and
 * an rte_ring without).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "rt_internal.h"
#include "rt_pool.h"

RTE_LOG_REGISTER_SUFFIX(rt_logtype_pool, pool, NOTICE);
#define RT_LOGTYPE rt_logtype_pool

struct rt_pool {
	struct rt_runtime *rt;
	struct rte_mempool *mp; /* with EAL: the objects; else NULL */
	struct rte_ring *ring;  /* without: the free objects of slab */
	void *slab;             /* anonymous mapping: zero pages until first written */
	size_t slab_len;
	size_t elt_size; /* rounded up to a cache line */
	unsigned int n;
	unsigned int cache_size;       /* the batch between a cache and the pool */
	uint64_t empty_shared;         /* gets of threads that are not lcores (atomic) */
	struct rt_pool_cache **caches; /* [rt->n], by lcore id; NULL without caches */
	char name[RTE_MEMPOOL_NAMESIZE];
};

/* ---- where the objects live ---- */

/* Up to @p n objects from the pool into @p objs (any thread). @return how many. */
static unsigned int
rt_pool_take(struct rt_pool *p, void **objs, unsigned int n)
{
	if (p->mp == NULL) {
		return rte_ring_mc_dequeue_burst(p->ring, objs, n, NULL);
	}
	/* A mempool get is all or nothing: ask for less until something comes. */
	while (n != 0 && rte_mempool_generic_get(p->mp, objs, n, NULL) != 0) {
		n /= 2;
	}
	return n;
}

/* @p n objects back into the pool (any thread); it always has room for all it made. */
static void
rt_pool_give(struct rt_pool *p, void *const *objs, unsigned int n)
{
	if (p->mp == NULL) {
		unsigned int done = rte_ring_mp_enqueue_bulk(p->ring, objs, n, NULL);

		RTE_VERIFY(done == n); /* more back than were made: a double put */
		return;
	}
	rte_mempool_generic_put(p->mp, (void *const *)objs, n, NULL);
}

static unsigned int
rt_pool_count_free(const struct rt_pool *p)
{
	return p->mp != NULL ? rte_mempool_avail_count(p->mp) : rte_ring_count(p->ring);
}

/* ---- the cache layer ---- */

struct rt_pool_cache *
rt_pool_lcore_cache(struct rt_pool *p, const struct rt_lcore *lc)
{
	if (p->caches == NULL || lc == NULL || lc->rt != p->rt) {
		return NULL;
	}
	return p->caches[lc->id];
}

/* An empty cache takes a batch from the pool, then gives one object. */
void *
rt_pool_cache_refill_get(struct rt_pool *p, struct rt_pool_cache *c)
{
	unsigned int got = rt_pool_take(p, c->objs, c->size);

	if (got == 0) {
		rt_stat_add(&c->empty, 1);
		return NULL;
	}
	__atomic_store_n(&c->len, got - 1, __ATOMIC_RELAXED);
	return c->objs[got - 1];
}

/* A full cache gives its oldest half (the coldest) back to the pool, then takes @p obj. */
void
rt_pool_cache_flush_put(struct rt_pool *p, struct rt_pool_cache *c, void *obj)
{
	unsigned int keep = c->len - c->size;

	rt_pool_give(p, c->objs, c->size);
	memmove(c->objs, &c->objs[c->size], keep * sizeof(c->objs[0]));
	c->objs[keep] = obj;
	__atomic_store_n(&c->len, keep + 1, __ATOMIC_RELAXED);
}

void *
rt_pool_get(struct rt_pool *p)
{
	struct rt_pool_cache *c = rt_pool_lcore_cache(p, rt_lcore_self());
	void *obj;

	if (c != NULL) {
		return rt_pool_cache_get(p, c);
	}
	if (rt_pool_take(p, &obj, 1) == 0) {
		__atomic_fetch_add(&p->empty_shared, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	return obj;
}

void
rt_pool_put(struct rt_pool *p, void *obj)
{
	struct rt_pool_cache *c = rt_pool_lcore_cache(p, rt_lcore_self());

	if (c != NULL) {
		rt_pool_cache_put(p, c, obj);
		return;
	}
	rt_pool_give(p, &obj, 1);
}

/* ---- creation ---- */

static bool
rt_pool_opts_ok(const struct rt_pool_opts *o)
{
	return o != NULL && o->opts_size >= sizeof(*o) && o->elt_size != 0 && o->n != 0 &&
	       o->cache_size <= o->n;
}

/* With EAL: an rte_mempool, its own cache off (ours is per logical lcore). */
static int
rt_pool_make_mempool(struct rt_pool *p)
{
	static unsigned int serial; /* mempool names are global to the process */
	unsigned int id = __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED);
	char name[RTE_MEMPOOL_NAMESIZE];

	snprintf(name, sizeof(name), "rtp%u_%.16s", id, p->name);
	p->mp = rte_mempool_create(name, p->n, p->elt_size, 0, 0, NULL, NULL, NULL, NULL,
				   SOCKET_ID_ANY, 0);
	if (p->mp == NULL) {
		RT_LOG(INFO, "pool %s: no mempool of %u x %zu B (%s), a slab instead", p->name,
		       p->n, p->elt_size, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

/* Without EAL: the objects in one slab, the free ones in a ring. */
static int
rt_pool_make_slab(struct rt_pool *p)
{
	unsigned int ring_size = rte_align32pow2(p->n + 1);
	ssize_t ring_bytes = rte_ring_get_memsize(ring_size);
	unsigned int i;

	if (ring_bytes < 0) {
		return -EINVAL;
	}
	p->ring = rt_zalloc_aligned((size_t)ring_bytes);
	if (p->ring == NULL || rte_ring_init(p->ring, "rt_pool", ring_size, 0) != 0) {
		return -ENOMEM;
	}
	p->slab_len = p->elt_size * p->n;
	p->slab =
		mmap(NULL, p->slab_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p->slab == MAP_FAILED) {
		p->slab = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < p->n; i++) {
		void *obj = (char *)p->slab + (size_t)i * p->elt_size;

		rt_pool_give(p, &obj, 1);
	}
	return 0;
}

static int
rt_pool_make_caches(struct rt_pool *p)
{
	unsigned int i;

	if (p->cache_size == 0) {
		return 0;
	}
	p->caches = calloc(p->rt->n, sizeof(p->caches[0]));
	if (p->caches == NULL) {
		return -ENOMEM;
	}
	for (i = 0; i < p->rt->n; i++) {
		/* Each on cache lines of its own: no lcore writes a line another's cache is on. */
		p->caches[i] = rt_zalloc_aligned(sizeof(struct rt_pool_cache) +
						 2 * (size_t)p->cache_size * sizeof(void *));
		if (p->caches[i] == NULL) {
			return -ENOMEM;
		}
		p->caches[i]->size = p->cache_size;
		p->caches[i]->cap = 2 * p->cache_size;
	}
	return 0;
}

/* EAL is up: rte_lcore_count() reads a configuration only rte_eal_init() fills. */
static bool
rt_pool_eal_running(void)
{
	return rte_lcore_count() != 0;
}

int
rt_pool_create(struct rt_runtime *rt, const struct rt_pool_opts *o, struct rt_pool **out)
{
	struct rt_pool *p;
	int rc;

	if (rt == NULL || out == NULL || !rt_pool_opts_ok(o)) {
		return -EINVAL;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL) {
		return -ENOMEM;
	}
	p->rt = rt;
	p->n = o->n;
	p->cache_size = o->cache_size;
	p->elt_size = RTE_ALIGN_CEIL(o->elt_size, RTE_CACHE_LINE_SIZE);
	snprintf(p->name, sizeof(p->name), "%s", o->name != NULL ? o->name : "pool");
	if (!rt_pool_eal_running() || rt_pool_make_mempool(p) != 0) {
		rc = rt_pool_make_slab(p);
		if (rc != 0) {
			goto fail;
		}
	}
	rc = rt_pool_make_caches(p);
	if (rc != 0) {
		goto fail;
	}
	*out = p;
	return 0;
fail:
	rt_pool_destroy(p);
	return rc;
}

void
rt_pool_destroy(struct rt_pool *p)
{
	unsigned int i;

	if (p == NULL) {
		return;
	}
	for (i = 0; p->caches != NULL && i < p->rt->n; i++) {
		free(p->caches[i]);
	}
	free(p->caches);
	rte_mempool_free(p->mp);
	free(p->ring);
	if (p->slab != NULL) {
		munmap(p->slab, p->slab_len);
	}
	free(p);
}

/* ---- counters ---- */

void
rt_pool_stats_get(const struct rt_pool *p, struct rt_pool_stats *out)
{
	unsigned int i;

	memset(out, 0, sizeof(*out));
	out->n = p->n;
	out->mempool = p->mp != NULL;
	out->empty = __atomic_load_n(&p->empty_shared, __ATOMIC_RELAXED);
	for (i = 0; p->caches != NULL && i < p->rt->n; i++) {
		out->cached += __atomic_load_n(&p->caches[i]->len, __ATOMIC_RELAXED);
		out->empty += __atomic_load_n(&p->caches[i]->empty, __ATOMIC_RELAXED);
	}
	out->avail = rt_pool_count_free(p) + out->cached;
}

unsigned int
rt_pool_cache_count(const struct rt_pool *p, const struct rt_lcore *lc)
{
	if (p->caches == NULL || lc == NULL || lc->rt != p->rt) {
		return 0;
	}
	return __atomic_load_n(&p->caches[lc->id]->len, __ATOMIC_RELAXED);
}

unsigned int
rt_pool_headroom(const struct rt_runtime *rt, unsigned int cache_size)
{
	return rt->n * 2 * cache_size;
}
