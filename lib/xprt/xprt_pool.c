/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Buffer pools: registered buffers on a list per colour (last put, first
 * taken: its pages are likely still in the cache of the CPU that colour
 * stands for) and on one list of all, least recently put first. A get that
 * leaves fewer than the threshold free says so; a put that makes the pool
 * non-empty says so. And the TMs a pool fills: their receive queue kept at
 * its minimum length, refilled before a receive event is delivered.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <unistd.h>

#include <rte_common.h>

#include "xprt_internal.h"

struct xprt_pool_item {
	struct xprt_buf buf; /* first: a pool's buffer is its item */
	TAILQ_ENTRY(xprt_pool_item) lru;
	TAILQ_ENTRY(xprt_pool_item) col;
	uint32_t colour; /* the colour list it is on, or XPRT_ANY_COLOUR */
	void *mem;
	struct iovec segs[];
};
TAILQ_HEAD(xprt_pool_item_list, xprt_pool_item);

/* Buffers are page-aligned, as DMA and the kernel's pages would want them. */
#define XPRT_POOL_ALIGN 4096u

static struct xprt_pool_item *
xprt_pool_item_of(struct xprt_buf *buf)
{
	return (struct xprt_pool_item *)(void *)buf;
}

int
xprt_pool_init(struct xprt_dom *dom, const struct xprt_pool_ops *ops, void *ctx,
	       const struct xprt_pool_opts *opts, struct xprt_pool **out)
{
	struct xprt_pool *pool;
	unsigned int i;

	if (dom == NULL || ops == NULL || ops->not_empty == NULL || ops->below_threshold == NULL ||
	    opts == NULL || opts->opts_size != sizeof(*opts) || opts->nsegs == 0 ||
	    opts->nsegs > XPRT_BUF_MAX_SEGS || opts->seg_size == 0 ||
	    opts->seg_size * opts->nsegs > XPRT_BUF_MAX_SIZE) {
		return -EINVAL;
	}
	pool = calloc(1, sizeof(*pool));
	if (pool == NULL) {
		return -ENOMEM;
	}
	pool->lru = calloc(1, sizeof(*pool->lru));
	pool->colour_lists = calloc(opts->colours + 1, sizeof(*pool->colour_lists));
	if (pool->lru == NULL || pool->colour_lists == NULL) {
		free(pool->lru);
		free(pool->colour_lists);
		free(pool);
		return -ENOMEM;
	}
	TAILQ_INIT(pool->lru);
	for (i = 0; i < opts->colours; i++) {
		TAILQ_INIT(&pool->colour_lists[i]);
	}
	pool->dom = dom;
	pool->ops = *ops;
	pool->ctx = ctx;
	pool->opts = *opts;
	if (pool->opts.threshold == 0) {
		pool->opts.threshold = XPRT_POOL_THRESHOLD;
	}
	pthread_mutex_init(&pool->lock, NULL);
	*out = pool;
	return 0;
}

static struct xprt_pool_item *
xprt_pool_item_new(struct xprt_pool *pool)
{
	size_t bytes = pool->opts.seg_size * pool->opts.nsegs;
	struct xprt_pool_item *it = calloc(1, sizeof(*it) + pool->opts.nsegs * sizeof(it->segs[0]));
	unsigned int i;

	if (it == NULL) {
		return NULL;
	}
	it->mem = aligned_alloc(XPRT_POOL_ALIGN, RTE_ALIGN_CEIL(bytes, XPRT_POOL_ALIGN));
	if (it->mem == NULL) {
		free(it);
		return NULL;
	}
	for (i = 0; i < pool->opts.nsegs; i++) {
		it->segs[i].iov_base = (uint8_t *)it->mem + i * pool->opts.seg_size;
		it->segs[i].iov_len = pool->opts.seg_size;
	}
	it->buf.segs = it->segs;
	it->buf.nsegs = pool->opts.nsegs;
	it->colour = XPRT_ANY_COLOUR;
	if (xprt_buf_register(pool->dom, &it->buf) != 0) {
		free(it->mem);
		free(it);
		return NULL;
	}
	it->buf.pool = pool;
	return it;
}

static void
xprt_pool_item_free(struct xprt_pool_item *it)
{
	(void)xprt_buf_deregister(&it->buf);
	free(it->mem);
	free(it);
}

/* Under the lock: @p it onto the lists; true when the pool was empty. */
static bool
xprt_pool_link(struct xprt_pool *pool, struct xprt_pool_item *it, uint32_t colour)
{
	if (colour != XPRT_ANY_COLOUR) {
		TAILQ_INSERT_HEAD(&pool->colour_lists[colour], it, col);
	}
	it->colour = colour;
	TAILQ_INSERT_TAIL(pool->lru, it, lru);
	return ++pool->free == 1;
}

static void
xprt_pool_unlink(struct xprt_pool *pool, struct xprt_pool_item *it)
{
	if (it->colour != XPRT_ANY_COLOUR) {
		TAILQ_REMOVE(&pool->colour_lists[it->colour], it, col);
		it->colour = XPRT_ANY_COLOUR;
	}
	TAILQ_REMOVE(pool->lru, it, lru);
	pool->free--;
}

unsigned int
xprt_pool_provision(struct xprt_pool *pool, unsigned int n)
{
	bool was_empty = false;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct xprt_pool_item *it = xprt_pool_item_new(pool);

		if (it == NULL) {
			break;
		}
		pthread_mutex_lock(&pool->lock);
		was_empty |= xprt_pool_link(pool, it, XPRT_ANY_COLOUR);
		pool->total++;
		pthread_mutex_unlock(&pool->lock);
	}
	if (was_empty) {
		pool->ops.not_empty(pool, pool->ctx);
	}
	return i;
}

struct xprt_buf *
xprt_pool_get(struct xprt_pool *pool, uint32_t colour)
{
	struct xprt_pool_item *it = NULL;
	bool low;

	if (colour != XPRT_ANY_COLOUR && colour >= pool->opts.colours) {
		return NULL;
	}
	pthread_mutex_lock(&pool->lock);
	if (colour != XPRT_ANY_COLOUR) {
		it = TAILQ_FIRST(&pool->colour_lists[colour]);
	}
	if (it == NULL) {
		it = TAILQ_FIRST(pool->lru);
	}
	if (it != NULL) {
		xprt_pool_unlink(pool, it);
	}
	low = it != NULL && pool->free < pool->opts.threshold;
	pthread_mutex_unlock(&pool->lock);
	if (low) {
		pool->ops.below_threshold(pool, pool->ctx);
	}
	return it != NULL ? &it->buf : NULL;
}

int
xprt_pool_put(struct xprt_pool *pool, struct xprt_buf *buf, uint32_t colour)
{
	bool was_empty;

	if (buf == NULL || buf->pool != pool || (buf->flags & XPRT_BUF_QUEUED) != 0 ||
	    (colour != XPRT_ANY_COLOUR && colour >= pool->opts.colours)) {
		return -EINVAL;
	}
	pthread_mutex_lock(&pool->lock);
	was_empty = xprt_pool_link(pool, xprt_pool_item_of(buf), colour);
	pthread_mutex_unlock(&pool->lock);
	if (was_empty) {
		pool->ops.not_empty(pool, pool->ctx);
	}
	return 0;
}

bool
xprt_pool_prune(struct xprt_pool *pool)
{
	struct xprt_pool_item *it = NULL;

	pthread_mutex_lock(&pool->lock);
	if (pool->free > pool->opts.threshold) {
		it = TAILQ_FIRST(pool->lru);
		xprt_pool_unlink(pool, it);
		pool->total--;
	}
	pthread_mutex_unlock(&pool->lock);
	if (it == NULL) {
		return false;
	}
	xprt_pool_item_free(it);
	return true;
}

unsigned int
xprt_pool_free_count(struct xprt_pool *pool)
{
	unsigned int n;

	pthread_mutex_lock(&pool->lock);
	n = pool->free;
	pthread_mutex_unlock(&pool->lock);
	return n;
}

int
xprt_pool_fini(struct xprt_pool *pool)
{
	struct xprt_pool_item *it;

	pthread_mutex_lock(&pool->lock);
	if (pool->free != pool->total) {
		pthread_mutex_unlock(&pool->lock);
		return -EBUSY;
	}
	while ((it = TAILQ_FIRST(pool->lru)) != NULL) {
		xprt_pool_unlink(pool, it);
		xprt_pool_item_free(it);
	}
	pthread_mutex_unlock(&pool->lock);
	pthread_mutex_destroy(&pool->lock);
	free(pool->colour_lists);
	free(pool->lru);
	free(pool);
	return 0;
}

void
xprt_pool_signal(struct xprt_pool *pool)
{
	static const uint64_t one = 1;

	atomic_fetch_add(&pool->signals, 1);
	if (write(pool->dom->kick_fd, &one, sizeof(one)) < 0) {
		(void)errno; /* saturated: the engine wakes anyway */
	}
}

/* ---- TMs whose receive queue a pool fills ---- */

int
xprt_tm_pool_attach(struct xprt_tm *tm, struct xprt_pool *pool, const struct xprt_buf_cbs *cbs,
		    uint64_t min_recv_size, uint32_t max_recv_msgs, unsigned int min_len)
{
	int rc = -EINVAL;

	if (tm == NULL || pool == NULL || cbs == NULL || cbs->done[XPRT_Q_MSG_RECV] == NULL ||
	    min_recv_size == 0 || max_recv_msgs == 0 || pool->dom != tm->dom) {
		return -EINVAL;
	}
	pthread_mutex_lock(&tm->lock);
	if (tm->state == XPRT_TM_INITIALIZED) {
		tm->pool = pool;
		tm->pool_cbs = *cbs;
		tm->pool_min_recv = min_recv_size;
		tm->pool_max_msgs = max_recv_msgs;
		tm->recv_min_len = min_len != 0 ? min_len : XPRT_RECV_QUEUE_LEN;
		rc = 0;
	}
	pthread_mutex_unlock(&tm->lock);
	return rc;
}

int
xprt_tm_pool_length_set(struct xprt_tm *tm, unsigned int min_len)
{
	if (tm == NULL || tm->pool == NULL) {
		return -EINVAL;
	}
	pthread_mutex_lock(&tm->lock);
	tm->recv_min_len = min_len;
	pthread_mutex_unlock(&tm->lock);
	xprt_tm_provision(tm);
	return 0;
}

int
xprt_tm_colour_set(struct xprt_tm *tm, uint32_t colour)
{
	int rc = -EINVAL;

	pthread_mutex_lock(&tm->lock);
	if (tm->state == XPRT_TM_INITIALIZED || tm->state == XPRT_TM_STARTED) {
		tm->colour = colour;
		rc = 0;
	}
	pthread_mutex_unlock(&tm->lock);
	return rc;
}

uint32_t
xprt_tm_colour_get(struct xprt_tm *tm)
{
	uint32_t c;

	pthread_mutex_lock(&tm->lock);
	c = tm->colour;
	pthread_mutex_unlock(&tm->lock);
	return c;
}

/* A pool buffer for @p tm's receive queue, or false (empty, or add refused). */
static bool
xprt_tm_provision_one(struct xprt_tm *tm, uint32_t colour)
{
	struct xprt_buf *b = xprt_pool_get(tm->pool, colour);

	if (b == NULL) {
		return false;
	}
	b->qtype = XPRT_Q_MSG_RECV;
	b->cbs = &tm->pool_cbs;
	b->min_recv_size = tm->pool_min_recv;
	b->max_recv_msgs = tm->pool_max_msgs;
	b->deadline_ns = XPRT_NEVER;
	if (xprt_buf_add(tm, b) != 0) {
		(void)xprt_pool_put(tm->pool, b, colour);
		return false;
	}
	return true;
}

/*
 * Fill @p tm's receive queue to its minimum from its pool. What the pool
 * could not give is the TM's deficit (a signal of the pool retries) and
 * counts as receive failures, as the seed counts it.
 */
void
xprt_tm_provision(struct xprt_tm *tm)
{
	unsigned int have, want;
	uint32_t colour;

	if (tm->pool == NULL) {
		return;
	}
	pthread_mutex_lock(&tm->provision_lock);
	pthread_mutex_lock(&tm->lock);
	have = tm->queued[XPRT_Q_MSG_RECV];
	want = tm->state == XPRT_TM_STARTED ? tm->recv_min_len : 0;
	colour = tm->colour;
	pthread_mutex_unlock(&tm->lock);
	while (have < want && xprt_tm_provision_one(tm, colour)) {
		have++;
	}
	atomic_store(&tm->deficit, have < want ? want - have : 0);
	if (have < want) {
		pthread_mutex_lock(&tm->lock);
		tm->stats[XPRT_Q_MSG_RECV].failures += want - have;
		pthread_mutex_unlock(&tm->lock);
	}
	pthread_mutex_unlock(&tm->provision_lock);
}

/*
 * A pool buffer cancelled off the receive queue of a stopping TM goes back
 * to its pool by itself (the application never took it); true if so.
 */
bool
xprt_tm_pool_reclaim(struct xprt_tm *tm, struct xprt_buf *buf, const struct xprt_ev *ev)
{
	enum xprt_tm_state state;

	if (buf->pool == NULL || buf->pool != tm->pool || buf->qtype != XPRT_Q_MSG_RECV ||
	    ev->unlinked == 0 || ev->status != -ECANCELED) {
		return false;
	}
	pthread_mutex_lock(&tm->lock);
	state = tm->state;
	pthread_mutex_unlock(&tm->lock);
	if (state != XPRT_TM_STOPPING) {
		return false;
	}
	(void)xprt_pool_put(tm->pool, buf, xprt_tm_colour_get(tm));
	return true;
}
