/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Router buffer pools (lnet-facts §6): per CPT a tiny (no payload), a
 * small (one page) and a large (1 MiB) pool, each owned by its CPT's data
 * lcore, which alone takes, returns, grows and shrinks it: no lock, no
 * atomic. As the kernel's lnet_rtrpool_adjust_bufs: growing allocates the
 * new buffers at once and hands them to messages waiting; shrinking only
 * lowers the wanted count, and a buffer coming back while the credits are
 * at it is freed (lnet_return_rx_credits_locked), so `routing show` keeps
 * the old counts until traffic has cycled the buffers.
 *
 * Each buffer is its own page-aligned allocation (1 MiB ones are mapped by
 * the allocator and committed as they are first written); the free ones
 * sit in an rte_ring (single producer, single consumer: the owning lcore),
 * not an rte_mempool, because pools must work without EAL too (an
 * application polling LNet on its own thread, the tests).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ring.h>

#include "lnet_ctl.h"
#include "lnet_internal.h"

#define LNET_RTR_PAGE 4096U

static const unsigned int lnet_rtr_npages[LNET_CTL_RTR_NPOOLS] = { 0, 1, LNET_MTU / LNET_RTR_PAGE };

void
lnet_rtr_pool_init(struct lnet_rtr_pool *p, unsigned int kind)
{
	memset(p, 0, sizeof(*p));
	p->npages = lnet_rtr_npages[kind];
	TAILQ_INIT(&p->waitq);
}

unsigned int
lnet_rtr_pool_kind(unsigned int len)
{
	unsigned int k;

	for (k = 0; k + 1 < LNET_CTL_RTR_NPOOLS && len > lnet_rtr_npages[k] * LNET_RTR_PAGE; k++) {
	}
	return k;
}

static size_t
lnet_rtr_buf_size(const struct lnet_rtr_pool *p)
{
	return (size_t)p->npages * LNET_RTR_PAGE;
}

/* Room in the free ring for @p n buffers: a bigger ring takes the free ones over. */
static int
lnet_rtr_ring_reserve(struct lnet_rtr_pool *p, unsigned int n)
{
	unsigned int count = rte_align32pow2(n + 1);
	struct rte_ring *r;
	ssize_t size;
	void *b;

	if (p->free != NULL && rte_ring_get_capacity(p->free) >= n) {
		return 0;
	}
	size = rte_ring_get_memsize(count);
	r = size < 0 ? NULL : aligned_alloc(RTE_CACHE_LINE_SIZE, (size_t)size);
	if (r == NULL || rte_ring_init(r, "lnet_rtr", count, RING_F_SP_ENQ | RING_F_SC_DEQ) != 0) {
		free(r);
		return -ENOMEM;
	}
	while (p->free != NULL && rte_ring_sc_dequeue(p->free, &b) == 0) {
		rte_ring_sp_enqueue(r, b);
	}
	free(p->free);
	p->free = r;
	return 0;
}

/* Up to @p n new buffers into the free ring; how many were made. */
static unsigned int
lnet_rtr_pool_fill(struct lnet_rtr_pool *p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n && lnet_rtr_buf_size(p) != 0; i++) {
		void *b = aligned_alloc(LNET_RTR_PAGE, lnet_rtr_buf_size(p));

		if (b == NULL) {
			break;
		}
		rte_ring_sp_enqueue(p->free, b);
	}
	return lnet_rtr_buf_size(p) != 0 ? i : n;
}

/* The free ring back to @p keep buffers: a fill that failed halfway leaves nothing. */
static void
lnet_rtr_pool_trim(struct lnet_rtr_pool *p, unsigned int keep)
{
	void *b;

	while (p->free != NULL && rte_ring_count(p->free) > keep &&
	       rte_ring_sc_dequeue(p->free, &b) == 0) {
		free(b);
	}
}

/*
 * Resize @p p to @p n buffers (its lcore). Growing fails whole with
 * -ENOMEM (as the kernel's, the pool keeps its size); the messages waiting
 * get the new buffers through @p give.
 */
int
lnet_rtr_pool_resize(struct lnet_cpt *c, struct lnet_rtr_pool *p, int n,
		     void (*give)(struct lnet_cpt *c, struct lnet_msg *msg))
{
	struct lnet_msg *msg;
	unsigned int free_before;
	unsigned int add;

	if (n <= p->req || n <= p->nbuffers) {
		p->req = n; /* fewer: thrown away as they come back */
		return 0;
	}
	add = (unsigned int)(n - p->nbuffers);
	if (lnet_rtr_buf_size(p) != 0 && lnet_rtr_ring_reserve(p, (unsigned int)n) != 0) {
		return -ENOMEM;
	}
	free_before = p->free != NULL ? rte_ring_count(p->free) : 0;
	if (lnet_rtr_pool_fill(p, add) != add) {
		lnet_rtr_pool_trim(p, free_before); /* what was made goes */
		return -ENOMEM;
	}
	p->req = n;
	p->nbuffers = n;
	p->credits += (int)add;
	p->mincredits = p->credits;
	while (add-- > 0 && (msg = TAILQ_FIRST(&p->waitq)) != NULL) {
		TAILQ_REMOVE(&p->waitq, msg, link);
		msg->rtr_buf = lnet_rtr_buf_get(p);
		give(c, msg);
	}
	return 0;
}

void *
lnet_rtr_buf_get(struct lnet_rtr_pool *p)
{
	void *b = NULL;

	if (p->free != NULL && rte_ring_sc_dequeue(p->free, &b) != 0) {
		b = NULL; /* cannot happen while the credits count the buffers */
	}
	return b;
}

/*
 * A buffer (and its credit) comes back: thrown away while the credits are
 * at the wanted count (a pool made smaller), else kept; the message
 * waiting for it, if any.
 */
struct lnet_msg *
lnet_rtr_buf_put(struct lnet_rtr_pool *p, void *b, uint32_t gen)
{
	struct lnet_msg *next;

	if (gen != p->gen) {
		free(b); /* taken before routing went off: that pool's counts are gone */
		return NULL;
	}
	if (p->credits >= p->req) {
		free(b);
		p->nbuffers -= p->nbuffers > 0;
		return NULL;
	}
	if (b != NULL) {
		rte_ring_sp_enqueue(p->free, b);
	}
	p->credits++;
	if (p->credits > 0 || (next = TAILQ_FIRST(&p->waitq)) == NULL) {
		return NULL;
	}
	TAILQ_REMOVE(&p->waitq, next, link);
	next->rtr_buf = lnet_rtr_buf_get(p);
	return next;
}

/*
 * Routing off (the kernel's lnet_rtrpool_free_bufs): the free buffers go,
 * the counts are 0; a buffer still out is freed when it comes back, its
 * generation telling it from one of a pool made again since.
 */
void
lnet_rtr_pool_empty(struct lnet_rtr_pool *p)
{
	lnet_rtr_pool_trim(p, 0);
	p->gen++;
	p->nbuffers = 0;
	p->req = 0;
	p->credits = 0;
	p->mincredits = 0;
}

/* LNet down, the lcores stopped: the ring too. */
void
lnet_rtr_pool_fini(struct lnet_rtr_pool *p)
{
	lnet_rtr_pool_empty(p);
	free(p->free);
	p->free = NULL;
}
