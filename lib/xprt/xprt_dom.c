/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Domains: the tables of TMs and buffers (slots with generations, so the
 * handles in the rings can be checked), the operation ring to the engine,
 * buffer registration, and the domain's clock.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_pause.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "xprt_internal.h"

#define XPRT_DEF_MAX_TMS 64u
#define XPRT_DEF_MAX_BUFS 4096u
#define XPRT_DEF_RING_EVENTS 4096u
#define XPRT_DEF_OP_RING 4096u

static uint64_t
xprt_monotonic_ns(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * LNP_NS_PER_S + (uint64_t)ts.tv_nsec;
}

uint64_t
xprt_dom_now(const struct xprt_dom *dom)
{
	return dom->opts.now_ns(dom->opts.clock_ctx);
}

static int
xprt_dom_opts_fill(const struct xprt_dom_opts *in, struct xprt_dom_opts *o)
{
	memset(o, 0, sizeof(*o));
	if (in != NULL) {
		if (in->opts_size != sizeof(*in)) {
			return -EINVAL;
		}
		*o = *in;
	}
	o->opts_size = sizeof(*o);
	if (o->now_ns == NULL) {
		o->now_ns = xprt_monotonic_ns;
	}
	o->max_tms = o->max_tms != 0 ? o->max_tms : XPRT_DEF_MAX_TMS;
	o->max_bufs = o->max_bufs != 0 ? o->max_bufs : XPRT_DEF_MAX_BUFS;
	o->ring_events = o->ring_events != 0 ? o->ring_events : XPRT_DEF_RING_EVENTS;
	o->op_ring = o->op_ring != 0 ? o->op_ring : XPRT_DEF_OP_RING;
	if (!rte_is_power_of_2(o->ring_events) || !rte_is_power_of_2(o->op_ring) ||
	    o->ring_events <= 2 * XPRT_TM_EV_RESERVE || o->max_bufs >= UINT32_MAX ||
	    o->max_tms >= UINT32_MAX) {
		return -EINVAL;
	}
	return 0;
}

/* An rte_ring of @p count fixed-size entries in our own memory (no EAL needed). */
struct rte_ring *
xprt_ring_new(const char *name, unsigned int esize, unsigned int count)
{
	/* RING_F_EXACT_SZ makes the ring the next power of two above count: size that memory. */
	ssize_t bytes = rte_ring_get_memsize_elem(esize, rte_align32pow2(count + 1));
	struct rte_ring *r;

	if (bytes < 0) {
		return NULL;
	}
	r = aligned_alloc(RTE_CACHE_LINE_SIZE, RTE_ALIGN_CEIL((size_t)bytes, RTE_CACHE_LINE_SIZE));
	if (r == NULL) {
		return NULL;
	}
	/* Exact size: `count` slots usable, as the event reservations count them. */
	if (rte_ring_init(r, name, count, RING_F_EXACT_SZ) != 0) {
		free(r);
		return NULL;
	}
	return r;
}

static void
xprt_dom_free(struct xprt_dom *dom)
{
	if (dom->eq != NULL) {
		LNetEQFree(dom->eq);
	}
	if (dom->kick_fd >= 0) {
		close(dom->kick_fd);
	}
	free(dom->ops);
	free(dom->bufs);
	free(dom->tms);
	pthread_mutex_destroy(&dom->lock);
	free(dom);
}

int
xprt_dom_init(const struct xprt_dom_opts *opts, struct xprt_dom **out)
{
	struct xprt_dom *dom = calloc(1, sizeof(*dom));
	int rc;

	if (dom == NULL) {
		return -ENOMEM;
	}
	dom->kick_fd = -1;
	pthread_mutex_init(&dom->lock, NULL);
	rc = xprt_dom_opts_fill(opts, &dom->opts);
	if (rc != 0) {
		xprt_dom_free(dom);
		return rc;
	}
	dom->tms = calloc(dom->opts.max_tms, sizeof(*dom->tms));
	dom->bufs = calloc(dom->opts.max_bufs, sizeof(*dom->bufs));
	/* Room for every TM's every event: an LNet event the engine cannot read is lost. */
	dom->eq = LNetEQAlloc(RTE_MIN(dom->opts.ring_events * 4u, 1u << 20));
	dom->ops = xprt_ring_new("xprt_ops", sizeof(struct xprt_op), dom->opts.op_ring);
	dom->kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	dom->next_deadline_ns = XPRT_NEVER;
	if (dom->tms == NULL || dom->bufs == NULL || dom->eq == NULL || dom->ops == NULL ||
	    dom->kick_fd < 0) {
		xprt_dom_free(dom);
		return -ENOMEM;
	}
	rc = xprt_engine_start(dom);
	if (rc != 0) {
		xprt_dom_free(dom);
		return rc;
	}
	*out = dom;
	return 0;
}

int
xprt_dom_fini(struct xprt_dom *dom)
{
	pthread_mutex_lock(&dom->lock);
	if (dom->ntms != 0 || dom->nbufs != 0) {
		pthread_mutex_unlock(&dom->lock);
		return -EBUSY;
	}
	pthread_mutex_unlock(&dom->lock);
	xprt_engine_stop(dom);
	xprt_dom_free(dom);
	return 0;
}

struct xprt_tm *
xprt_dom_tm(struct xprt_dom *dom, uint64_t handle)
{
	uint32_t slot = xprt_handle_slot(handle);

	if (slot >= dom->opts.max_tms || dom->tms[slot].gen != xprt_handle_gen(handle)) {
		return NULL;
	}
	return dom->tms[slot].tm;
}

struct xprt_buf_slot *
xprt_dom_buf(struct xprt_dom *dom, uint64_t handle)
{
	uint32_t slot = xprt_handle_slot(handle);

	if (slot >= dom->opts.max_bufs || dom->bufs[slot].gen != xprt_handle_gen(handle) ||
	    dom->bufs[slot].buf == NULL) {
		return NULL;
	}
	return &dom->bufs[slot];
}

/*
 * Hand @p op to the engine. A full ring only means the engine is behind:
 * wait for room; on the engine's own thread, make it (carry out a burst of
 * operations). A caller that holds a TM's lock lets go of it while it
 * waits, since the engine may need that lock before it takes more
 * operations (to deliver that TM's events). Wake the engine only if it
 * sleeps, so a busy one costs no system call.
 */
void
xprt_op_submit_held(struct xprt_dom *dom, const struct xprt_op *op, pthread_mutex_t *held)
{
	static const uint64_t one = 1;
	struct xprt_op entry = *op; /* rte_ring takes no const */

	while (rte_ring_mp_enqueue_elem(dom->ops, &entry, sizeof(entry)) != 0) {
		if (xprt_engine_self(dom)) {
			(void)xprt_engine_take_ops(dom);
		} else if (held != NULL) {
			pthread_mutex_unlock(held);
			sched_yield();
			pthread_mutex_lock(held);
		} else {
			rte_pause();
		}
	}
	/* Against the engine's store of engine_naps and its look at the ring: one of us sees the other. */
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load(&dom->engine_naps) != 0 && write(dom->kick_fd, &one, sizeof(one)) < 0) {
		(void)errno; /* the counter is saturated: the engine wakes anyway */
	}
}

void
xprt_op_submit(struct xprt_dom *dom, const struct xprt_op *op)
{
	xprt_op_submit_held(dom, op, NULL);
}

/* Segments within the limits of one LNet MD; their sum in *size. */
static int
xprt_buf_shape(const struct xprt_buf *buf, uint64_t *size)
{
	uint64_t sum = 0;
	unsigned int i;

	if (buf->segs == NULL || buf->nsegs == 0 || buf->nsegs > XPRT_BUF_MAX_SEGS) {
		return -EINVAL;
	}
	for (i = 0; i < buf->nsegs; i++) {
		if (buf->segs[i].iov_len == 0 || buf->segs[i].iov_base == NULL) {
			return -EINVAL;
		}
		sum += buf->segs[i].iov_len;
		if (sum > XPRT_BUF_MAX_SIZE) {
			return -EFBIG;
		}
	}
	*size = sum;
	return 0;
}

static int
xprt_buf_slot_take(struct xprt_dom *dom, struct xprt_buf *buf, struct iovec *iov)
{
	/* One allocation: the engine's copy of the segments, then its scratch. */
	memcpy(iov, buf->segs, buf->nsegs * sizeof(*iov));
	uint32_t i;

	pthread_mutex_lock(&dom->lock);
	for (i = 0; i < dom->opts.max_bufs; i++) {
		struct xprt_buf_slot *s = &dom->bufs[i];

		if (s->buf == NULL) {
			s->gen++;
			s->segs = iov;
			s->nsegs = buf->nsegs;
			s->size = buf->size;
			s->iov = iov + buf->nsegs;
			s->buf = buf;
			buf->handle = xprt_handle_make(i, s->gen);
			dom->nbufs++;
			pthread_mutex_unlock(&dom->lock);
			return 0;
		}
	}
	pthread_mutex_unlock(&dom->lock);
	return -ENOSPC;
}

int
xprt_buf_register(struct xprt_dom *dom, struct xprt_buf *buf)
{
	struct iovec *iov;
	uint64_t size = 0;
	int rc;

	if (dom == NULL || buf == NULL || buf->flags != 0) {
		return -EINVAL;
	}
	rc = xprt_buf_shape(buf, &size);
	if (rc != 0) {
		return rc;
	}
	iov = calloc(2 * (size_t)buf->nsegs, sizeof(*iov));
	if (iov == NULL) {
		return -ENOMEM;
	}
	buf->dom = dom;
	buf->size = size;
	buf->tm = NULL;
	buf->deadline_ns = XPRT_NEVER;
	rc = xprt_buf_slot_take(dom, buf, iov);
	if (rc != 0) {
		free(iov);
		return rc;
	}
	buf->flags = XPRT_BUF_REGISTERED;
	return 0;
}

int
xprt_buf_deregister(struct xprt_buf *buf)
{
	struct xprt_dom *dom;
	struct xprt_buf_slot *s;

	if (buf == NULL || buf->flags != XPRT_BUF_REGISTERED) {
		return -EBUSY;
	}
	dom = buf->dom;
	pthread_mutex_lock(&dom->lock);
	s = xprt_dom_buf(dom, buf->handle);
	if (s == NULL) {
		pthread_mutex_unlock(&dom->lock);
		return -EBUSY;
	}
	free(s->segs);
	s->segs = NULL;
	s->iov = NULL;
	s->buf = NULL;
	dom->nbufs--;
	pthread_mutex_unlock(&dom->lock);
	buf->flags = 0;
	buf->dom = NULL;
	return 0;
}
