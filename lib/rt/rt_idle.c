/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Idle sleep of THREADS-mode loops, in the manner of DPDK's interrupt mode
 * (l3fwd-power): a loop that has found no work for a while sleeps in
 * epoll_wait on one eventfd and on the file descriptors its pollers wait on
 * (socklnd's epoll set), until one of them is ready, a message is sent to one
 * of its lcores, or its next timer is due.
 *
 * Lost wake-ups are avoided the Dekker way: the sleeper publishes
 * "sleeping", then looks at its rings; a sender enqueues, then looks at
 * "sleeping". Full fences on both sides mean at least one sees the other.
 * The sender's cost when nobody sleeps is one fence and one load.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <rte_atomic.h>

#include "rt_internal.h"

RTE_LOG_REGISTER_SUFFIX(rt_logtype_idle, idle, NOTICE);
#define RT_LOGTYPE rt_logtype_idle

#define RT_IDLE_EVENTS 8

static int
rt_waiter_init(struct rt_waiter *w)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };

	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	w->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->epfd < 0 || w->evfd < 0 || epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->evfd, &ev) != 0) {
		return -errno;
	}
	return 0;
}

static void
rt_waiter_fini(struct rt_waiter *w)
{
	if (w->epfd >= 0) {
		close(w->epfd);
	}
	if (w->evfd >= 0) {
		close(w->evfd);
	}
	w->epfd = w->evfd = -1;
}

void
rt_idle_fini(struct rt_runtime *rt)
{
	unsigned int i;

	for (i = 0; i < rt->nwaiters; i++) {
		rt_waiter_fini(&rt->waiters[i]);
	}
	free(rt->waiters);
	rt->waiters = NULL;
	rt->nwaiters = 0;
	for (i = 0; i < rt->n; i++) {
		rt->lcores[i].waiter = NULL;
	}
}

int
rt_idle_poller_watch(struct rt_poller *p)
{
	struct rt_waiter *w = p->lc->waiter;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = p };

	if (w == NULL || p->wait_fd < 0) {
		return 0;
	}
	return epoll_ctl(w->epfd, EPOLL_CTL_ADD, p->wait_fd, &ev) == 0 ? 0 : -errno;
}

void
rt_idle_poller_unwatch(struct rt_poller *p)
{
	if (p->lc->waiter != NULL && p->wait_fd >= 0) {
		/* The owner may have closed it already: epoll then forgot it itself. */
		epoll_ctl(p->lc->waiter->epfd, EPOLL_CTL_DEL, p->wait_fd, NULL);
	}
}

/* One waiter per thread that runs loops: the EAL workers, then the main thread. */
int
rt_idle_init(struct rt_runtime *rt, const unsigned int *thread_of_lcore, unsigned int nthreads)
{
	unsigned int i;
	int rc = 0;

	rt->waiters = calloc(nthreads, sizeof(*rt->waiters));
	if (rt->waiters == NULL) {
		return -ENOMEM;
	}
	rt->nwaiters = nthreads;
	for (i = 0; i < nthreads; i++) {
		rt->waiters[i].epfd = rt->waiters[i].evfd = -1;
	}
	for (i = 0; rc == 0 && i < nthreads; i++) {
		rc = rt_waiter_init(&rt->waiters[i]);
	}
	for (i = 0; rc == 0 && i < rt->n; i++) {
		struct rt_poller *p;

		rt->lcores[i].waiter = &rt->waiters[thread_of_lcore[i]];
		for (p = rt->lcores[i].pollers; rc == 0 && p != NULL; p = p->next) {
			rc = rt_idle_poller_watch(p);
		}
	}
	if (rc != 0) {
		RT_LOG(ERR, "cannot set up idle sleep: %s", strerror(-rc));
		rt_idle_fini(rt);
	}
	return rc;
}

void
rt_idle_wake(struct rt_lcore *lc)
{
	struct rt_waiter *w = lc->waiter;
	uint64_t one = 1;

	if (w == NULL) {
		return;
	}
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST); /* our enqueue before our look at "sleeping" */
	if (__atomic_load_n(&w->sleeping, __ATOMIC_RELAXED) != 0 &&
	    write(w->evfd, &one, sizeof(one)) < 0 && errno != EAGAIN) {
		RT_LOG(ERR, "wake-up lost: %s", strerror(errno));
	}
}

void
rt_idle_wake_all(struct rt_runtime *rt)
{
	uint64_t one = 1;
	unsigned int i;

	for (i = 0; i < rt->nwaiters; i++) {
		if (write(rt->waiters[i].evfd, &one, sizeof(one)) < 0 && errno != EAGAIN) {
			RT_LOG(ERR, "wake-up lost: %s", strerror(errno));
		}
	}
}

/* Until the earliest timer or periodic poller of @p w's lcores, at most the cap. */
static uint64_t
rt_idle_timeout_us(struct rt_runtime *rt, const struct rt_waiter *w, uint64_t now)
{
	uint64_t until = now + RT_IDLE_SLEEP_MAX_NS / LNP_NS_PER_US;
	unsigned int i;

	for (i = 0; i < rt->n; i++) {
		uint64_t due;

		if (rt->lcores[i].waiter != w) {
			continue;
		}
		due = rt_lcore_next_due_us(&rt->lcores[i]);
		until = due < until ? due : until;
	}
	return until > now ? until - now : 0;
}

static bool
rt_idle_rings_empty(struct rt_runtime *rt, const struct rt_waiter *w)
{
	unsigned int i;

	for (i = 0; i < rt->n; i++) {
		if (rt->lcores[i].waiter == w && !rte_ring_empty(rt->lcores[i].ring)) {
			return false;
		}
	}
	return true;
}

/*
 * A sleep that ended @p over_us past its due time, the stall threshold or
 * more: the host ran the thread that late (CPU given to others, a
 * throttled cgroup). Its lcores could not poll meanwhile, as in a stall,
 * but nothing of ours blocked: counted apart, and logged, so that a late
 * message is not blamed on the code (the watchdog sees polls only).
 */
static __attribute__((noinline, cold)) void
rt_idle_overslept(struct rt_waiter *w, uint64_t over_us)
{
	struct timespec wall;

	rt_stat_add(&w->oversleeps, 1);
	if (over_us > w->oversleep_longest_us) {
		__atomic_store_n(&w->oversleep_longest_us, over_us, __ATOMIC_RELAXED);
	}
	clock_gettime(CLOCK_REALTIME, &wall); /* to be matched with other processes' logs */
	RT_LOG(WARNING,
	       "thread %d woke %" PRIu64 " ms after its sleep was due: no CPU for it "
	       "(woke at %lld.%03ld)",
	       w->tid, over_us / LNP_US_PER_MS, (long long)wall.tv_sec,
	       wall.tv_nsec / (long)LNP_NS_PER_MS);
}

void
rt_idle_sleep(struct rt_runtime *rt, struct rt_waiter *w)
{
	struct epoll_event evs[RT_IDLE_EVENTS];
	struct timespec ts;
	uint64_t timeout_us;
	uint64_t drained;
	uint64_t threshold;
	uint64_t t0;
	uint64_t slept;
	int n;

	__atomic_store_n(&w->sleeping, 1, __ATOMIC_RELAXED);
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST); /* "sleeping" before our look at the rings */
	t0 = rt_now_us(rt);
	timeout_us = rt_idle_timeout_us(rt, w, t0);
	if (rt_idle_rings_empty(rt, w) && timeout_us > 0 &&
	    !__atomic_load_n(&rt->stop, __ATOMIC_ACQUIRE)) {
		ts.tv_sec = (time_t)(timeout_us / LNP_US_PER_S);
		ts.tv_nsec = (long)(timeout_us % LNP_US_PER_S * LNP_NS_PER_US);
		n = epoll_pwait2(w->epfd, evs, RT_IDLE_EVENTS, &ts, NULL);
		(void)n; /* whatever woke us, the next loop iteration finds it */
		slept = rt_now_us(rt) - t0;
		threshold = rt_watchdog_threshold_us(rt);
		if (threshold != 0 && slept > timeout_us && slept - timeout_us >= threshold) {
			rt_idle_overslept(w, slept - timeout_us);
		}
	}
	__atomic_store_n(&w->sleeping, 0, __ATOMIC_RELAXED);
	rt_stat_add(&w->sleeps, 1);
	if (read(w->evfd, &drained, sizeof(drained)) < 0) {
		(void)errno; /* EAGAIN: nobody wrote */
	}
}
