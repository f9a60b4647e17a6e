/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers for lib/xprt's tests over LNet on the unit tests' inline runtime
 * (0@lo, no EAL): the domain's engine thread is the one thread that runs
 * LNet. TM and buffer events are recorded; tests wait for a count of them
 * (a condition, with a generous bound), never for a time.
 */
#ifndef XPRT_UT_H
#define XPRT_UT_H

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "api.h"
#include "lnet_sim.h"
#include "xprt.h"

/* How long a test waits for what must come before it calls the run failed. */
#define UT_WAIT_MS 20000
#define UT_MAX_EVENTS 256

struct ut_ev {
	bool tm; /* a TM event, else a buffer event */
	struct xprt_tm *tmp;
	struct xprt_tm_event te;
	struct xprt_buf_event be;
	uint32_t flags; /* the buffer's flags in its callback */
	pthread_t thread;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct ut_ev ev[UT_MAX_EVENTS];
	unsigned int n;
	uint64_t clock_ns; /* the domain's clock when a test gives one */
} g_x = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER };

static void
ut_x_record(const struct ut_ev *e)
{
	pthread_mutex_lock(&g_x.lock);
	assert_true(g_x.n < UT_MAX_EVENTS);
	g_x.ev[g_x.n++] = *e;
	pthread_cond_broadcast(&g_x.cond);
	pthread_mutex_unlock(&g_x.lock);
}

static void __attribute__((unused))
ut_x_tm_cb(struct xprt_tm *tm, const struct xprt_tm_event *ev, void *ctx)
{
	struct ut_ev e = { .tm = true, .tmp = tm, .te = *ev, .thread = pthread_self() };

	(void)ctx;
	ut_x_record(&e);
}

static void
ut_x_buf_cb(const struct xprt_buf_event *ev)
{
	struct ut_ev e = {
		.tm = false,
		.tmp = ev->buf->tm,
		.be = *ev,
		.flags = ev->buf->flags,
		.thread = pthread_self(),
	};

	ut_x_record(&e);
}

static const struct xprt_tm_cbs ut_x_tm_cbs __attribute__((unused)) = { .event = ut_x_tm_cb };
static const struct xprt_buf_cbs ut_x_buf_cbs __attribute__((unused)) = {
	.done = { ut_x_buf_cb, ut_x_buf_cb, ut_x_buf_cb, ut_x_buf_cb, ut_x_buf_cb, ut_x_buf_cb },
};

static uint64_t __attribute__((unused)) ut_x_clock(void *ctx)
{
	uint64_t now;

	(void)ctx;
	pthread_mutex_lock(&g_x.lock);
	now = g_x.clock_ns;
	pthread_mutex_unlock(&g_x.lock);
	return now;
}

static void __attribute__((unused)) ut_x_clock_set(uint64_t ns)
{
	pthread_mutex_lock(&g_x.lock);
	g_x.clock_ns = ns;
	pthread_mutex_unlock(&g_x.lock);
}

static uint64_t
ut_x_deadline(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000 + UT_WAIT_MS;
}

static bool
ut_x_past(uint64_t deadline_ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000 > deadline_ms;
}

/* Wait until @p cond holds (what another thread makes true), within UT_WAIT_MS. */
#define UT_X_UNTIL(cond)                                    \
	do {                                                \
		uint64_t ut_until_ = ut_x_deadline();       \
		while (!(cond)) {                           \
			assert_false(ut_x_past(ut_until_)); \
			sched_yield();                      \
		}                                           \
	} while (0)

/* Wait until @p n events in all were recorded (asynchronous TMs). */
static void __attribute__((unused)) ut_x_wait(unsigned int n)
{
	uint64_t deadline = ut_x_deadline();
	struct timespec ts;

	pthread_mutex_lock(&g_x.lock);
	while (g_x.n < n) {
		assert_false(ut_x_past(deadline));
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 50 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&g_x.cond, &g_x.lock, &ts);
	}
	pthread_mutex_unlock(&g_x.lock);
}

/* Synchronous TM: deliver its events on this thread until @p n are recorded in all. */
static void __attribute__((unused)) ut_x_wait_sync(struct xprt_tm *tm, unsigned int n)
{
	uint64_t deadline = ut_x_deadline();
	int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

	assert_true(fd >= 0);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t v;

		pthread_mutex_lock(&g_x.lock);
		if (g_x.n >= n) {
			pthread_mutex_unlock(&g_x.lock);
			break;
		}
		pthread_mutex_unlock(&g_x.lock);
		assert_false(ut_x_past(deadline));
		if (xprt_tm_events_pending(tm)) {
			assert_true(xprt_tm_deliver_all(tm) > 0);
			continue;
		}
		assert_int_equal(xprt_tm_notify(tm, fd), 0);
		assert_true(poll(&p, 1, UT_WAIT_MS) == 1);
		assert_int_equal(read(fd, &v, sizeof(v)), sizeof(v));
	}
	close(fd);
}

static struct ut_ev __attribute__((unused)) ut_x_ev(unsigned int i)
{
	struct ut_ev e;

	pthread_mutex_lock(&g_x.lock);
	assert_true(i < g_x.n);
	e = g_x.ev[i];
	pthread_mutex_unlock(&g_x.lock);
	return e;
}

static unsigned int __attribute__((unused)) ut_x_count(void)
{
	unsigned int n;

	pthread_mutex_lock(&g_x.lock);
	n = g_x.n;
	pthread_mutex_unlock(&g_x.lock);
	return n;
}

/* LNet up inline with 0@lo, and the event record emptied. */
static int __attribute__((unused)) ut_x_up(void **state)
{
	struct lnet_init_opts o = {
		.opts_size = sizeof(o),
		.mode = LNET_EXEC_INLINE,
		.ncpts = 1,
		.no_eal = true,
	};

	(void)state;
	assert_int_equal(lnet_init_opts_set(&o), 0);
	assert_int_equal(LNetNIInit(LNET_PID_LUSTRE), 0);
	pthread_mutex_lock(&g_x.lock);
	g_x.n = 0;
	g_x.clock_ns = 1000;
	pthread_mutex_unlock(&g_x.lock);
	return 0;
}

static int __attribute__((unused)) ut_x_down(void **state)
{
	(void)state;
	assert_int_equal(LNetNIFini(), 0);
	return 0;
}

static struct xprt_dom *__attribute__((unused)) ut_x_dom(bool own_clock)
{
	struct xprt_dom_opts o = { .opts_size = sizeof(o) };
	struct xprt_dom *dom;

	if (own_clock) {
		o.now_ns = ut_x_clock;
	}
	assert_int_equal(xprt_dom_init(&o, &dom), 0);
	return dom;
}

/* A started TM at @p addr (asynchronous unless @p sync); its STARTED event is consumed. */
static struct xprt_tm *__attribute__((unused))
ut_x_tm(struct xprt_dom *dom, const char *addr, bool sync)
{
	unsigned int n = ut_x_count();
	struct xprt_tm *tm;
	struct ut_ev e;

	assert_int_equal(xprt_tm_init(dom, &ut_x_tm_cbs, NULL, &tm), 0);
	if (sync) {
		assert_int_equal(xprt_tm_sync_delivery(tm), 0);
	}
	assert_int_equal(xprt_tm_start(tm, addr), 0);
	if (sync) {
		ut_x_wait_sync(tm, n + 1);
	} else {
		ut_x_wait(n + 1);
	}
	e = ut_x_ev(n);
	assert_true(e.tm);
	assert_int_equal(e.te.type, XPRT_TM_EV_STATE);
	assert_int_equal(e.te.status, 0);
	assert_int_equal(e.te.next_state, XPRT_TM_STARTED);
	assert_int_equal(xprt_tm_state_get(tm), XPRT_TM_STARTED);
	return tm;
}

/* Stop (abort) and finalise @p tm, waiting for STOPPED after @p expect_bufs buffer events. */
static void __attribute__((unused))
ut_x_tm_down(struct xprt_tm *tm, unsigned int expect_bufs, bool sync)
{
	unsigned int n = ut_x_count();
	struct ut_ev e;

	assert_int_equal(xprt_tm_stop(tm, true), 0);
	if (sync) {
		ut_x_wait_sync(tm, n + expect_bufs + 1);
	} else {
		ut_x_wait(n + expect_bufs + 1);
	}
	e = ut_x_ev(n + expect_bufs);
	if (!e.tm) {
		print_error("buffer event: status %d length %lu flags %x qtype %d\n", e.be.status,
			    (unsigned long)e.be.length, e.flags, e.be.buf->qtype);
	}
	assert_true(e.tm);
	assert_int_equal(e.te.next_state, XPRT_TM_STOPPED);
	assert_int_equal(xprt_tm_state_get(tm), XPRT_TM_STOPPED);
	assert_int_equal(xprt_tm_fini(tm), 0);
}

/* A registered buffer over @p mem of @p len bytes in @p nsegs equal segments. */
static void __attribute__((unused))
ut_x_buf(struct xprt_dom *dom, struct xprt_buf *b, struct iovec *segs, unsigned int nsegs,
	 uint8_t *mem, size_t len)
{
	unsigned int i;

	memset(b, 0, sizeof(*b));
	for (i = 0; i < nsegs; i++) {
		segs[i].iov_base = mem + i * (len / nsegs);
		segs[i].iov_len = i + 1 < nsegs ? len / nsegs : len - i * (len / nsegs);
	}
	b->segs = segs;
	b->nsegs = nsegs;
	b->cbs = &ut_x_buf_cbs;
	assert_int_equal(xprt_buf_register(dom, b), 0);
	assert_int_equal(b->flags, XPRT_BUF_REGISTERED);
	assert_int_equal(b->deadline_ns, XPRT_NEVER);
}

#endif /* XPRT_UT_H */
