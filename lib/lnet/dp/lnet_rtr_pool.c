/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Router buffer pools (lnet-facts §6): per CPT a tiny (no payload), a
 * small (one page) and a large (1 MiB) pool, each owned by its CPT's data
 * lcore, which alone takes, returns, grows and shrinks it: no lock, no
 * atomic, and no allocation or free of a buffer (the calling thread makes
 * them, the management lcore frees them). As the kernel's
 * lnet_rtrpool_adjust_bufs: growing makes the new buffers at once and hands
 * them to messages waiting; shrinking only
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

#include "lnet_tunables.h"
#include "lnet_internal.h"

#define LNET_RTR_PAGE 4096U

static const unsigned int lnet_rtr_npages[LNET_CTL_RTR_NPOOLS] = { 0, 1, LNET_MTU / LNET_RTR_PAGE };

void
lnet_rtr_pool_init(struct lnet_rtr_pool *p, unsigned int kind, struct rt_lcore *reaper)
{
	memset(p, 0, sizeof(*p));
	p->npages = lnet_rtr_npages[kind];
	p->reaper = reaper;
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

/*
 * Growing a pool, in three steps so that its lcore allocates nothing (a
 * thousand 1 MiB buffers took the lcore away from its traffic for seconds):
 * the lcore plans (how many, whether the free ring must grow, and from now
 * on keeps every buffer that comes back), the calling thread makes the
 * buffers and the ring, the lcore links them in; what is left over (the
 * old ring, or everything when the making failed) the calling thread frees.
 */
void
lnet_rtr_grow_plan(struct lnet_rtr_pool *p, int n, struct lnet_rtr_grow *g)
{
	memset(g, 0, sizeof(*g));
	g->old_req = p->req;
	g->buf_size = lnet_rtr_buf_size(p);
	if (n <= p->req || n <= p->nbuffers) {
		p->req = n; /* fewer: thrown away as they come back */
		return;
	}
	g->add = (unsigned int)(n - p->nbuffers);
	g->ring_size = g->buf_size != 0 && (p->free == NULL ||
					    rte_ring_get_capacity(p->free) < (unsigned int)n) ?
			       rte_align32pow2((unsigned int)n + 1) :
			       0;
	/* Until the new ones are in, buffers coming back stay (credits < req): the count holds. */
	p->req = n;
}

/* Off the lcore: the ring and the buffers the plan asks for. -ENOMEM: none (release frees). */
int
lnet_rtr_grow_make(struct lnet_rtr_grow *g)
{
	ssize_t size;

	if (g->ring_size != 0) {
		size = rte_ring_get_memsize(g->ring_size);
		g->ring = size < 0 ? NULL : aligned_alloc(RTE_CACHE_LINE_SIZE, (size_t)size);
		if (g->ring == NULL || rte_ring_init(g->ring, "lnet_rtr", g->ring_size,
						     RING_F_SP_ENQ | RING_F_SC_DEQ) != 0) {
			return -ENOMEM;
		}
	}
	if (g->buf_size == 0 || g->add == 0) {
		return 0; /* tiny: credits only */
	}
	g->bufs = calloc(g->add, sizeof(g->bufs[0]));
	if (g->bufs == NULL) {
		return -ENOMEM;
	}
	for (g->nbufs = 0; g->nbufs < g->add; g->nbufs++) {
		g->bufs[g->nbufs] = aligned_alloc(LNET_RTR_PAGE, g->buf_size);
		if (g->bufs[g->nbufs] == NULL) {
			return -ENOMEM;
		}
	}
	return 0;
}

/* On the lcore, the making failed: the pool keeps its size (as the kernel's). */
void
lnet_rtr_grow_abort(struct lnet_rtr_pool *p, const struct lnet_rtr_grow *g)
{
	if (g->add != 0) {
		p->req = g->old_req;
	}
}

/*
 * On the lcore: a bigger ring takes the free buffers over (the old one is
 * left in @p g to be freed), the new buffers go in, and the messages
 * waiting get them through @p give.
 */
void
lnet_rtr_grow_commit(struct lnet_cpt *c, struct lnet_rtr_pool *p, struct lnet_rtr_grow *g,
		     void (*give)(struct lnet_cpt *c, struct lnet_msg *msg))
{
	struct lnet_msg *msg;
	unsigned int add = g->add;
	void *b;

	if (add == 0) {
		return;
	}
	if (g->ring != NULL) {
		struct rte_ring *old = p->free;

		while (old != NULL && rte_ring_sc_dequeue(old, &b) == 0) {
			rte_ring_sp_enqueue(g->ring, b);
		}
		p->free = g->ring;
		g->ring = old;
	}
	if (g->nbufs != 0) {
		rte_ring_sp_enqueue_bulk(p->free, g->bufs, g->nbufs, NULL);
		g->nbufs = 0; /* the pool's now */
	}
	p->nbuffers += (int)add;
	p->credits += (int)add;
	p->mincredits = p->credits;
	while (add-- > 0 && (msg = TAILQ_FIRST(&p->waitq)) != NULL) {
		TAILQ_REMOVE(&p->waitq, msg, link);
		msg->rtr_buf = lnet_rtr_buf_get(p);
		give(c, msg);
	}
}

/* Off the lcore: what a grow leaves (an old ring, or what a failed making made). */
void
lnet_rtr_grow_release(struct lnet_rtr_grow *g)
{
	while (g->nbufs > 0) {
		free(g->bufs[--g->nbufs]);
	}
	free(g->bufs);
	g->bufs = NULL;
	free(g->ring); /* an old one is empty: commit moved its buffers */
	g->ring = NULL;
}

/* A ring and the buffers in it freed (the management lcore's, or at the end). */
static void
lnet_rtr_ring_free(void *arg)
{
	struct rte_ring *r = arg;
	void *b;

	while (r != NULL && rte_ring_sc_dequeue(r, &b) == 0) {
		free(b);
	}
	free(r);
}

/*
 * A buffer the pool no longer keeps: freed on the management lcore, off
 * the data path (a 1 MiB free unmaps); on the spot only should its ring
 * be full.
 */
static void
lnet_rtr_buf_free(struct lnet_rtr_pool *p, void *b)
{
	if (b != NULL && rt_lcore_send_msg(p->reaper, free, b) != 0) {
		free(b);
	}
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
		lnet_rtr_buf_free(
			p, b); /* taken before routing went off: that pool's counts are gone */
		return NULL;
	}
	if (p->credits >= p->req) {
		lnet_rtr_buf_free(p, b);
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
 * Routing off (the kernel's lnet_rtrpool_free_bufs): the counts are 0 and
 * the free buffers go, their ring and all, to the management lcore to be
 * freed; a buffer still out is freed when it comes back, its generation
 * telling it from one of a pool made again since.
 */
void
lnet_rtr_pool_empty(struct lnet_rtr_pool *p)
{
	struct rte_ring *r = p->free;

	p->free = NULL;
	if (r != NULL && rt_lcore_send_msg(p->reaper, lnet_rtr_ring_free, r) != 0) {
		lnet_rtr_ring_free(r);
	}
	p->gen++;
	p->nbuffers = 0;
	p->req = 0;
	p->credits = 0;
	p->mincredits = 0;
}

/* LNet down, the lcores stopped: everything freed here. */
void
lnet_rtr_pool_fini(struct lnet_rtr_pool *p)
{
	lnet_rtr_ring_free(p->free);
	p->free = NULL;
	p->nbuffers = 0;
	p->req = 0;
	p->credits = 0;
	p->mincredits = 0;
}
