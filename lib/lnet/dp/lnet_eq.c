/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Event queues: events copied into rings that application threads poll.
 * Each CPT that posts to a queue has a ring of its own, made on its first
 * event, with that CPT's lcore as its single producer (no atomic
 * read-modify-write to post); LNetEQPoll may run on several threads (one
 * compare-and-swap a take). Events of one MD come from its CPT, so they stay
 * in order. A full ring drops the event and counts it; the next LNetEQPoll
 * reports -EOVERFLOW once for the loss. Each ring holds the capacity given
 * to LNetEQAlloc rounded up to a power of two, as the kernel's did.
 *
 * A ring is an array of slots, each an event and a sequence word that says
 * whose turn the slot is (the kernel's EQ numbered its events the same
 * way). rte_ring, HTS for several consumers, cost 160 instructions an event
 * (112 beside the two copies of it); the slots cost 117 (67): a PUT+ACK
 * over 0@lo, three events, 2425 -> 2299.
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

#include "lnet_internal.h"
#include "rt_wait.h"

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
static __attribute__((noinline)) struct lnet_eq_ring *
lnet_eq_ring_make(struct lnet_eq *eq, unsigned int cpt)
{
	uint64_t nslot = rte_align64pow2(eq->size);
	struct lnet_eq_ring *r;
	uint64_t i;

	if (posix_memalign((void **)&r, RTE_CACHE_LINE_SIZE,
			   sizeof(*r) + nslot * sizeof(r->slot[0])) != 0) {
		return NULL;
	}
	r->head = 0;
	r->tail = 0;
	r->mask = nslot - 1;
	for (i = 0; i < nslot; i++) {
		r->slot[i].seq = i;
	}
	__atomic_store_n(&eq->ring[cpt], r, __ATOMIC_RELEASE);
	if (__atomic_load_n(&eq->nring, __ATOMIC_RELAXED) <= cpt) {
		/* Only data lcores make rings; each raises nring past its own. */
		unsigned int n = __atomic_load_n(&eq->nring, __ATOMIC_RELAXED);

		while (n <= cpt &&
		       !__atomic_compare_exchange_n(&eq->nring, &n, cpt + 1, false,
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

/* No ring yet (it is made now) or a full one (the event is lost and counted). */
void
lnet_eq_enqueue_slow(struct lnet_eq *eq, unsigned int cpt, const struct lnet_event *ev)
{
	if (eq->ring[cpt] == NULL && lnet_eq_ring_make(eq, cpt) != NULL) {
		lnet_eq_enqueue(eq, cpt, ev);
		return;
	}
	__atomic_fetch_add(&eq->dropped, 1, __ATOMIC_RELAXED);
}

void
lnet_eq_wake(struct lnet_eq *eq)
{
	uint64_t one = 1;

	if (write(eq->evfd, &one, sizeof(one)) < 0) {
		(void)errno; /* EAGAIN: the counter is already non-zero */
	}
}

static inline __attribute__((always_inline)) bool
lnet_eq_ring_dequeue(struct lnet_eq_ring *r, struct lnet_event *ev)
{
	struct lnet_eq_slot *s;
	uint64_t pos;

	if (r == NULL) {
		return false;
	}
	pos = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
	for (;;) {
		int64_t ahead;

		s = &r->slot[pos & r->mask];
		ahead = (int64_t)(__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) - (pos + 1));
		if (ahead < 0) {
			return false; /* not filled yet: empty */
		}
		if (ahead > 0) {
			pos = __atomic_load_n(&r->head, __ATOMIC_RELAXED); /* taken: look again */
			continue;
		}
		/* On failure pos becomes the head another consumer moved it to. */
		if (__atomic_compare_exchange_n(&r->head, &pos, pos + 1, true, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED)) {
			break;
		}
	}
	memcpy(ev, &s->ev, sizeof(*ev));
	__atomic_store_n(&s->seq, pos + r->mask + 1, __ATOMIC_RELEASE);
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

/* The event at the ring's head is there (a look: a consumer may take it first). */
static bool
lnet_eq_ring_ready(const struct lnet_eq_ring *r)
{
	uint64_t pos;

	if (r == NULL) {
		return false;
	}
	pos = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
	return __atomic_load_n(&r->slot[pos & r->mask].seq, __ATOMIC_ACQUIRE) == pos + 1;
}

/* Events waiting in @p eq (any ring). */
static bool
lnet_eq_ready(struct lnet_eq *eq)
{
	unsigned int n = __atomic_load_n(&eq->nring, __ATOMIC_ACQUIRE);
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (lnet_eq_ring_ready(__atomic_load_n(&eq->ring[i], __ATOMIC_ACQUIRE))) {
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
	struct timespec ts = { (time_t)(us / LNP_US_PER_S),
			       (long)(us % LNP_US_PER_S * LNP_NS_PER_US) };
	uint64_t drained;
	int i;

	for (i = 0; i < w->neq; i++) {
		pfd[i] = (struct pollfd){ .fd = w->eqs[i]->evfd, .events = POLLIN };
		__atomic_fetch_add(&w->eqs[i]->sleepers, 1, __ATOMIC_RELAXED);
	}
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST); /* sleepers before our look at the rings */
	if (!lnet_eq_any_ready((void *)w)) {
		/* neq is within (0, LNET_EQ_POLL_MAX] here; the bound says so to the compiler. */
		ppoll(pfd, (nfds_t)RTE_MIN((unsigned int)w->neq, (unsigned int)LNET_EQ_POLL_MAX),
		      &ts, NULL);
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
	uint64_t limit = timeout_ms < 0 ? UINT64_MAX : (uint64_t)timeout_ms * LNP_US_PER_MS;
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

	if (rt_runtime_caller_polls(ln->rt)) {
		/* This thread runs the lcores: the runtime waits, running them. */
		rt_wait_driving(ln->rt, lnet_eq_any_ready, &w,
				timeout_ms < 0 ? UINT64_MAX : (uint64_t)timeout_ms * LNP_US_PER_MS);
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
