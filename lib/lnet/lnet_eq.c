/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Event queues: events copied into rings that application threads poll.
 * Each CPT that posts to a queue has a ring of its own, made on its first
 * event, with that CPT's lcore as its single producer (no compare-and-swap
 * to post); LNetEQPoll may run on several threads (multi-consumer, head/tail
 * sync). Events of one MD come from its CPT, so they stay in order. A full
 * ring drops the event and counts it; the next LNetEQPoll reports -EOVERFLOW
 * once for the loss. The capacity given to LNetEQAlloc is each ring's.
 *
 * Events are copied into and out of the ring's own slots with memcpy
 * (rte_ring's zero-copy API): rte_ring's element copy moves 4 bytes at a
 * time, a third of a PUT+ACK's instructions.
 *
 * In THREADS mode a caller of LNetEQPoll that has spun RT-briefly without an
 * event sleeps in ppoll() on the queues' eventfds; producers write them only
 * when someone sleeps (a fence and a load otherwise), so an event wakes the
 * application at once instead of at the end of a timed sleep.
 */
#include <poll.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include <string.h>
#include <errno.h>
#include <stdlib.h>

#include <rte_atomic.h>
#include <rte_common.h>
#include <rte_pause.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "lnet_internal.h"

_Static_assert(sizeof(struct lnet_event) % 4 == 0, "ring elements are multiples of 4 bytes");

struct lnet_eq *
LNetEQAlloc(unsigned int count)
{
	struct lnet_eq *eq;

	if (count == 0 || count > (1U << 20)) {
		errno = EINVAL;
		return NULL;
	}
	eq = calloc(1, sizeof(*eq));
	if (eq == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	eq->size = count;
	eq->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (eq->evfd < 0) {
		free(eq);
		errno = ENOMEM;
		return NULL;
	}
	return eq;
}

/* @p cpt's ring, on its lcore's first event: NULL if there is no memory for it. */
static __attribute__((noinline)) struct rte_ring *
lnet_eq_ring_make(struct lnet_eq *eq, unsigned int cpt)
{
	/* Exact capacity: the ring rounds its slots up to a power of two itself. */
	ssize_t size = rte_ring_get_memsize_elem(sizeof(struct lnet_event),
						 rte_align32pow2(eq->size + 1));
	struct rte_ring *r;

	if (size < 0 || posix_memalign((void **)&r, RTE_CACHE_LINE_SIZE, (size_t)size) != 0) {
		return NULL;
	}
	if (rte_ring_init(r, "lnet_eq", eq->size,
			  RING_F_EXACT_SZ | RING_F_SP_ENQ | RING_F_MC_HTS_DEQ) != 0) {
		free(r);
		return NULL;
	}
	__atomic_store_n(&eq->ring[cpt], r, __ATOMIC_RELEASE);
	if (__atomic_load_n(&eq->nring, __ATOMIC_RELAXED) <= cpt) {
		/* Only data lcores make rings; each raises nring past its own. */
		unsigned int n = __atomic_load_n(&eq->nring, __ATOMIC_RELAXED);

		while (n <= cpt && !__atomic_compare_exchange_n(&eq->nring, &n, cpt + 1, false,
								__ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
		}
	}
	return r;
}

/*
 * An MD holds its queue from LNetMDAttach/LNetMDBind until it is freed, so
 * a queue outlives every event that can still be posted to it (a response
 * timer's UNLINK included).
 */
void
lnet_eq_get(struct lnet_eq *eq, unsigned int cpt)
{
	int64_t *r = &eq->refs[cpt * LNET_EQ_REF_STRIDE];

	__atomic_store_n(r, *r + 1, __ATOMIC_RELAXED);
}

/* Release: whoever sees the event posted after this also sees the count. */
void
lnet_eq_put(struct lnet_eq *eq, unsigned int cpt)
{
	int64_t *r = &eq->refs[cpt * LNET_EQ_REF_STRIDE];

	__atomic_store_n(r, *r - 1, __ATOMIC_RELEASE);
}

static int64_t
lnet_eq_refs(const struct lnet_eq *eq)
{
	int64_t sum = 0;
	unsigned int i;

	for (i = 0; i < LNP_MAX_CPTS; i++) {
		sum += __atomic_load_n(&eq->refs[i * LNET_EQ_REF_STRIDE], __ATOMIC_ACQUIRE);
	}
	return sum;
}

static void
lnet_eq_destroy(void *obj)
{
	struct lnet_eq *eq = obj;
	unsigned int i;

	close(eq->evfd);
	for (i = 0; i < LNP_MAX_CPTS; i++) {
		free(eq->ring[i]);
	}
	free(eq);
}

struct lnet_eq_retire_args {
	struct lnet *ln;
	struct lnet_eq *eq;
};

static int
lnet_eq_retire_on_mgmt(void *arg)
{
	struct lnet_eq_retire_args *a = arg;

	return rt_rcu_retire(a->ln->rt, a->eq, lnet_eq_destroy);
}

/*
 * The last event an MD posts drops its reference before it is published,
 * so whoever has seen it may free the queue at once; the lcore may still be
 * inside that enqueue (the wake-up), so the memory goes through RCU.
 */
int
LNetEQFree(struct lnet_eq *eq)
{
	struct lnet_eq_retire_args a = { lnet_instance(), eq };

	if (eq == NULL) {
		return -EINVAL;
	}
	if (lnet_eq_refs(eq) != 0) {
		return -EBUSY;
	}
	if (a.ln == NULL) {
		lnet_eq_destroy(eq);
		return 0;
	}
	return rt_lcore_call(rt_mgmt_lcore(a.ln->rt), lnet_eq_retire_on_mgmt, &a);
}

void
lnet_eq_enqueue(struct lnet_eq *eq, unsigned int cpt, const struct lnet_event *ev)
{
	struct rte_ring *r = eq->ring[cpt]; /* only this lcore writes it */
	struct rte_ring_zc_data zc;

	if (unlikely(r == NULL) && (r = lnet_eq_ring_make(eq, cpt)) == NULL) {
		__atomic_fetch_add(&eq->dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	if (rte_ring_enqueue_zc_bulk_elem_start(r, sizeof(*ev), 1, &zc, NULL) == 0) {
		__atomic_fetch_add(&eq->dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	memcpy(zc.ptr1, ev, sizeof(*ev)); /* one element never wraps */
	rte_ring_enqueue_zc_elem_finish(r, 1);
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST); /* the event before our look at sleepers */
	if (__atomic_load_n(&eq->sleepers, __ATOMIC_RELAXED) != 0) {
		uint64_t one = 1;

		if (write(eq->evfd, &one, sizeof(one)) < 0) {
			(void)errno; /* EAGAIN: the counter is already non-zero */
		}
	}
}

static inline __attribute__((always_inline)) bool
lnet_eq_ring_dequeue(struct rte_ring *r, struct lnet_event *ev)
{
	struct rte_ring_zc_data zc;

	if (r == NULL || rte_ring_dequeue_zc_bulk_elem_start(r, sizeof(*ev), 1, &zc, NULL) == 0) {
		return false;
	}
	memcpy(ev, zc.ptr1, sizeof(*ev));
	rte_ring_dequeue_zc_elem_finish(r, 1);
	return true;
}

/* An event from one of @p n rings, starting at the hint so that no CPT starves another. */
static __attribute__((noinline)) bool
lnet_eq_dequeue_any(struct lnet_eq *eq, unsigned int n, struct lnet_event *ev)
{
	unsigned int first = __atomic_load_n(&eq->next, __ATOMIC_RELAXED) % n;
	unsigned int i;

	for (i = 0; i < n; i++) {
		unsigned int k = (first + i) % n;

		if (lnet_eq_ring_dequeue(__atomic_load_n(&eq->ring[k], __ATOMIC_ACQUIRE), ev)) {
			__atomic_store_n(&eq->next, k + 1, __ATOMIC_RELAXED);
			return true;
		}
	}
	return false;
}

static inline bool
lnet_eq_dequeue(struct lnet_eq *eq, struct lnet_event *ev)
{
	unsigned int n = __atomic_load_n(&eq->nring, __ATOMIC_ACQUIRE);

	if (likely(n <= 1)) {
		return lnet_eq_ring_dequeue(__atomic_load_n(&eq->ring[0], __ATOMIC_ACQUIRE), ev);
	}
	return lnet_eq_dequeue_any(eq, n, ev);
}

/* Events waiting in @p eq (any ring). */
static bool
lnet_eq_ready(struct lnet_eq *eq)
{
	unsigned int n = __atomic_load_n(&eq->nring, __ATOMIC_ACQUIRE);
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct rte_ring *r = __atomic_load_n(&eq->ring[i], __ATOMIC_ACQUIRE);

		if (r != NULL && rte_ring_count(r) != 0) {
			return true;
		}
	}
	return false;
}

/* One event from the first non-empty queue; 1, 0 (none) or -EOVERFLOW. */
static inline __attribute__((always_inline)) int
lnet_eq_take(struct lnet_eq **eqs, int neq, struct lnet_event *event, int *which)
{
	int i;

	for (i = 0; i < neq; i++) {
		uint64_t dropped = __atomic_load_n(&eqs[i]->dropped, __ATOMIC_RELAXED);

		if (!lnet_eq_dequeue(eqs[i], event)) {
			continue;
		}
		if (which != NULL) {
			*which = i;
		}
		/* The exchange (a locked instruction) only once there is news to report. */
		if (unlikely(dropped != __atomic_load_n(&eqs[i]->reported, __ATOMIC_RELAXED)) &&
		    dropped != __atomic_exchange_n(&eqs[i]->reported, dropped, __ATOMIC_RELAXED)) {
			return -EOVERFLOW;
		}
		return 1;
	}
	return 0;
}

struct lnet_eq_wait {
	struct lnet_eq **eqs;
	int neq;
};

/* Queues one LNetEQPoll can sleep on; more are polled with back-off. */
#define LNET_EQ_POLL_MAX 16
#define LNET_EQ_SPIN_US 50U
/* Bounds a sleep, should a wake-up ever be missed. */
#define LNET_EQ_SLEEP_MAX_US 10000U

static bool
lnet_eq_any_ready(void *arg)
{
	const struct lnet_eq_wait *w = arg;
	int i;

	for (i = 0; i < w->neq; i++) {
		if (lnet_eq_ready(w->eqs[i])) {
			return true;
		}
	}
	return false;
}

/* Sleep on every queue's eventfd until one is written or @p us pass. */
static void
lnet_eq_sleep(const struct lnet_eq_wait *w, uint64_t us)
{
	struct pollfd pfd[LNET_EQ_POLL_MAX];
	struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };
	uint64_t drained;
	int i;

	for (i = 0; i < w->neq; i++) {
		pfd[i] = (struct pollfd){ .fd = w->eqs[i]->evfd, .events = POLLIN };
		__atomic_fetch_add(&w->eqs[i]->sleepers, 1, __ATOMIC_RELAXED);
	}
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST); /* sleepers before our look at the rings */
	if (!lnet_eq_any_ready((void *)w)) {
		/* neq is within (0, LNET_EQ_POLL_MAX] here; the bound says so to the compiler. */
		ppoll(pfd, (nfds_t)RTE_MIN((unsigned int)w->neq, (unsigned int)LNET_EQ_POLL_MAX), &ts, NULL);
	}
	for (i = 0; i < w->neq; i++) {
		__atomic_fetch_sub(&w->eqs[i]->sleepers, 1, __ATOMIC_RELAXED);
		if (read(w->eqs[i]->evfd, &drained, sizeof(drained)) < 0) {
			(void)errno; /* EAGAIN: nobody wrote */
		}
	}
}

/* THREADS mode: spin briefly (an event is often that close), then sleep until one comes. */
static void
lnet_eq_wait_threads(struct lnet *ln, struct lnet_eq_wait *w, int timeout_ms)
{
	uint64_t start = rt_now_us(ln->rt);
	uint64_t limit = timeout_ms < 0 ? UINT64_MAX : (uint64_t)timeout_ms * 1000;
	uint64_t now = start;

	if (w->neq > LNET_EQ_POLL_MAX) {
		rt_wait_until(ln->rt, lnet_eq_any_ready, w, limit);
		return;
	}
	while (!lnet_eq_any_ready(w) && now - start < limit) {
		if (now - start < LNET_EQ_SPIN_US) {
			sched_yield(); /* the lcore that posts our event may share our CPU */
		} else {
			lnet_eq_sleep(w, RTE_MIN(limit - (now - start), LNET_EQ_SLEEP_MAX_US));
		}
		now = rt_now_us(ln->rt);
	}
}

/* No event was waiting: wait for one as the execution mode does, then look again. */
static __attribute__((noinline)) int
lnet_eq_poll_wait(struct lnet *ln, struct lnet_eq **eqs, int neq, int timeout_ms,
		  struct lnet_event *event, int *which)
{
	struct lnet_eq_wait w = { eqs, neq };

	if (rt_runtime_mode(ln->rt) == RT_MODE_SIM) {
		/* Inline mode (tests): the wait is spent in virtual time. */
		rt_wait_until(ln->rt, lnet_eq_any_ready, &w,
			      timeout_ms < 0 ? UINT64_MAX : (uint64_t)timeout_ms * 1000);
	} else if (rt_runtime_caller_polls(ln->rt)) {
		/* Polled mode: one round even for timeout 0, then spin until the timeout. */
		rt_runtime_poll_until_idle(ln->rt, 1);
		if (timeout_ms != 0) {
			rt_wait_until(ln->rt, lnet_eq_any_ready, &w,
				      timeout_ms < 0 ? UINT64_MAX : (uint64_t)timeout_ms * 1000);
		}
	} else if (timeout_ms != 0) {
		lnet_eq_wait_threads(ln, &w, timeout_ms);
	}
	return lnet_eq_take(eqs, neq, event, which);
}

int
LNetEQPoll(struct lnet_eq **eqs, int neq, int timeout_ms, struct lnet_event *event, int *which)
{
	struct lnet *ln;
	int rc;
	int i;

	if (eqs == NULL || neq <= 0 || event == NULL) {
		return -EINVAL;
	}
	for (i = 0; i < neq; i++) {
		if (eqs[i] == NULL) {
			return -EINVAL;
		}
	}
	/* An event already there is the common case of a busy application: no waiting logic. */
	rc = lnet_eq_take(eqs, neq, event, which);
	if (rc != 0 || (ln = lnet_instance()) == NULL) {
		return rc;
	}
	return lnet_eq_poll_wait(ln, eqs, neq, timeout_ms, event, which);
}
