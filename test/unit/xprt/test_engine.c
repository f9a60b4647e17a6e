/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine against operation entries no front would make (what a client
 * process could write into a shared ring in a later slice): stale and
 * forged handles are ignored; a bad add completes its buffer with -EINVAL
 * before any LNet call; the TM goes on working. Entries are read straight from
 * the TM's event ring.
 */
#include <stdatomic.h>

#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "xprt_internal.h"
#include "xprt_ut.h"

/* The status of @p b's event among those recorded from @p from on. */
static int
event_status(const struct xprt_buf *b, unsigned int from)
{
	unsigned int i;

	for (i = from; i < ut_x_count(); i++) {
		struct ut_ev e = ut_x_ev(i);

		if (!e.tm && e.be.buf == b) {
			return e.be.status;
		}
	}
	fail_msg("no event of the buffer");
	return 0;
}

/* Every event entry the engine wrote for @p tm since the last call. */
static unsigned int
drain(struct xprt_tm *tm, struct xprt_ev *out, unsigned int cap)
{
	xprt_engine_quiesce(tm->dom);
	return rte_ring_mc_dequeue_burst_elem(tm->evr, out, sizeof(out[0]), cap, NULL);
}

static void
test_bad_ops(void **state)
{
	struct xprt_dom *dom = ut_x_dom(false);
	struct xprt_tm *tm = ut_x_tm(dom, "0@lo:12345:33:7", true);
	uint8_t mem[1024];
	struct iovec seg;
	struct xprt_buf b;
	struct xprt_ev ev[8];
	struct xprt_op bad[] = {
		{ .kind = XPRT_OP_BUF_ADD, .qtype = XPRT_Q_NR, .length = 10 },
		{ .kind = XPRT_OP_BUF_ADD,
		  .qtype = XPRT_Q_MSG_SEND,
		  .length = 2048,
		  .addr = { .tmid = 1, .portal = 33 } }, /* longer than the buffer */
		{ .kind = XPRT_OP_BUF_ADD,
		  .qtype = XPRT_Q_MSG_SEND,
		  .length = 10,
		  .addr = { .tmid = 1, .portal = 64 } }, /* no such portal */
		{ .kind = XPRT_OP_BUF_ADD,
		  .qtype = XPRT_Q_ACTIVE_SEND,
		  .length = 10,
		  .addr = { .tmid = 0, .portal = 33 } }, /* TMID 0 */
		{ .kind = XPRT_OP_BUF_ADD,
		  .qtype = XPRT_Q_MSG_RECV,
		  .length = 1024,
		  .min_recv = 2000,
		  .max_msgs = 1 }, /* more per message than the buffer */
		{ .kind = XPRT_OP_BUF_ADD,
		  .qtype = XPRT_Q_MSG_RECV,
		  .length = 1024,
		  .min_recv = 100,
		  .max_msgs = 0 },
		{ .kind = XPRT_OP_BUF_ADD,
		  .qtype = XPRT_Q_PASSIVE_RECV,
		  .length = 1024,
		  .match_bits = (UINT64_C(8) << 52) | 1 }, /* another TM's TMID */
		{ .kind = XPRT_OP_BUF_ADD,
		  .qtype = XPRT_Q_PASSIVE_SEND,
		  .length = 1024,
		  .match_bits = UINT64_C(7) << 52 }, /* the receive queue's id */
	};
	unsigned int i;

	(void)state;
	ut_x_buf(dom, &b, &seg, 1, mem, sizeof(mem));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		bad[i].tm = tm->handle;
		bad[i].buf = b.handle;
		xprt_op_submit(dom, &bad[i]);
		assert_int_equal(drain(tm, ev, 8), 1);
		assert_int_equal(ev[0].kind, XPRT_EV_BUF);
		assert_int_equal(ev[0].buf, b.handle);
		assert_int_equal(ev[0].status, -EINVAL);
		assert_int_equal(ev[0].unlinked, 1);
	}
	/* Handles that name nothing: a stale generation, a slot past the table. */
	bad[1].buf = xprt_handle_make(xprt_handle_slot(b.handle), xprt_handle_gen(b.handle) + 1);
	xprt_op_submit(dom, &bad[1]);
	bad[1].buf = xprt_handle_make(1u << 30, 1);
	xprt_op_submit(dom, &bad[1]);
	bad[1].buf = b.handle;
	bad[1].tm = xprt_handle_make(xprt_handle_slot(tm->handle), xprt_handle_gen(tm->handle) + 9);
	xprt_op_submit(dom, &bad[1]);
	bad[1].kind = 77;
	bad[1].tm = tm->handle;
	xprt_op_submit(dom, &bad[1]);
	/* A second start of a started TM changes nothing. */
	bad[1].kind = XPRT_OP_TM_START;
	assert_int_equal(xprt_addr_parse("0@lo:12345:33:*", &bad[1].addr), 0);
	xprt_op_submit(dom, &bad[1]);
	assert_int_equal(drain(tm, ev, 8), 0);
	/* The front saw nothing of it: the buffer is as registered, and works. */
	assert_int_equal(b.flags, XPRT_BUF_REGISTERED);
	b.qtype = XPRT_Q_MSG_SEND;
	b.length = 10;
	assert_int_equal(xprt_tm_addr(tm, &b.dest), 0);
	b.dest.tmid = 99; /* nobody: LNet drops it at the target, the send still succeeds */
	assert_int_equal(xprt_buf_add(tm, &b), 0);
	ut_x_wait_sync(tm, ut_x_count() + 1);
	assert_int_equal(ut_x_ev(ut_x_count() - 1).be.status, 0);
	assert_int_equal(b.flags, XPRT_BUF_REGISTERED);
	assert_int_equal(xprt_buf_deregister(&b), 0);
	ut_x_tm_down(tm, 0, true);
	assert_int_equal(xprt_dom_fini(dom), 0);
}

/*
 * An add that reserved nothing (as only a broken front makes) overflows the
 * TM's event ring: the TM fails, not the engine. Its MDs are unlinked, its
 * TMID is free again, its queued buffers come off their queues, FAILED
 * (-EOVERFLOW) is delivered; the domain's other TMs go on.
 */
static void
test_overflow_fails_tm(void **state)
{
	struct xprt_dom_opts o = { .opts_size = sizeof(o), .ring_events = 16 };
	static uint8_t rmem[8192], qmem[512], smem[64];
	struct iovec rseg, qseg, sseg;
	struct xprt_buf r, q, s;
	struct xprt_dom *dom;
	struct xprt_tm *a, *b, *again;
	struct xprt_op flood = {
		.kind = XPRT_OP_BUF_ADD,
		.qtype = XPRT_Q_MSG_RECV,
		.length = sizeof(rmem),
		.min_recv = 64,
		.max_msgs = 100,
		.deadline_ns = XPRT_NEVER,
	};
	struct ut_ev e;
	unsigned int i, n;

	(void)state;
	assert_int_equal(xprt_dom_init(&o, &dom), 0);
	a = ut_x_tm(dom, "0@lo:12345:33:7", true);
	b = ut_x_tm(dom, "0@lo:12345:33:8", false);
	/* A buffer queued the proper way, to see it come back. */
	ut_x_buf(dom, &q, &qseg, 1, qmem, sizeof(qmem));
	q.qtype = XPRT_Q_PASSIVE_RECV;
	assert_int_equal(xprt_buf_add(a, &q), 0);
	ut_x_buf(dom, &r, &rseg, 1, rmem, sizeof(rmem));
	flood.tm = a->handle;
	flood.buf = r.handle;
	xprt_op_submit(dom, &flood);
	ut_x_buf(dom, &s, &sseg, 1, smem, sizeof(smem));
	s.qtype = XPRT_Q_MSG_SEND;
	s.length = 64;
	assert_int_equal(xprt_tm_addr(a, &s.dest), 0);
	for (i = 0; i < 20; i++) {
		n = ut_x_count();
		assert_int_equal(xprt_buf_add(b, &s), 0);
		ut_x_wait(n + 1);
		assert_int_equal(ut_x_ev(n).be.status, 0);
	}
	/* 16 events fit a's ring; the 17th failed it. The front delivers them, then FAILED. */
	n = ut_x_count();
	ut_x_wait_sync(a, n + 1);
	e = ut_x_ev(n);
	assert_true(e.tm);
	assert_int_equal(e.te.next_state, XPRT_TM_FAILED);
	assert_int_equal(e.te.status, -EOVERFLOW);
	assert_int_equal(xprt_tm_state_get(a), XPRT_TM_FAILED);
	assert_int_equal(q.flags, XPRT_BUF_REGISTERED);
	assert_false(xprt_tm_events_pending(a));
	assert_int_equal(xprt_buf_add(a, &q), -EINVAL);
	/* Its TMID is free: another TM takes the same address. */
	again = ut_x_tm(dom, "0@lo:12345:33:7", false);
	assert_int_equal(xprt_tm_fini(a), 0);
	ut_x_tm_down(again, 0, false);
	ut_x_tm_down(b, 0, false);
	assert_int_equal(xprt_buf_deregister(&q), 0);
	assert_int_equal(xprt_buf_deregister(&r), 0);
	assert_int_equal(xprt_buf_deregister(&s), 0);
	assert_int_equal(xprt_dom_fini(dom), 0);
}

/*
 * A thread that adds to a TM whose events the engine is delivering, while
 * the op ring is full, must let go of the TM's lock as it waits: the engine
 * needs that lock to finish the delivery before it takes operations again.
 */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool armed, blocked;
	struct xprt_tm *tm;
	struct xprt_buf adds[20];
	atomic_uint added;
} g_blk = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER };

/* A's callback: the first time, on the engine's thread, wait until released. */
static void
blk_cb(const struct xprt_buf_event *ev)
{
	pthread_mutex_lock(&g_blk.lock);
	if (g_blk.armed) {
		g_blk.armed = false;
		g_blk.blocked = true;
		pthread_cond_broadcast(&g_blk.cond);
		while (g_blk.blocked) { /* the test lets it go by clearing it */
			pthread_cond_wait(&g_blk.cond, &g_blk.lock);
		}
	}
	pthread_mutex_unlock(&g_blk.lock);
	ut_x_buf_cb(ev);
}

static void *
blk_adder(void *arg)
{
	unsigned int i;

	(void)arg;
	for (i = 0; i < 20; i++) {
		assert_int_equal(xprt_buf_add(g_blk.tm, &g_blk.adds[i]), 0);
		atomic_fetch_add(&g_blk.added, 1);
	}
	return NULL;
}

static void
test_full_op_ring_lets_go(void **state)
{
	static const struct xprt_buf_cbs blk_cbs = { .done = { blk_cb, blk_cb, blk_cb, blk_cb } };
	struct xprt_dom_opts o = { .opts_size = sizeof(o), .op_ring = 16, .ring_events = 64 };
	static uint8_t mem[22][256];
	struct iovec segs[22];
	struct xprt_buf p1, p2;
	struct xprt_dom *dom;
	struct xprt_tm *a, *b;
	pthread_t adder;
	unsigned int i, n;

	(void)state;
	assert_int_equal(xprt_dom_init(&o, &dom), 0);
	a = ut_x_tm(dom, "0@lo:12345:33:7", false);
	b = ut_x_tm(dom, "0@lo:12345:33:8", false);
	g_blk.tm = a;
	atomic_store(&g_blk.added, 0);
	for (i = 0; i < 20; i++) {
		ut_x_buf(dom, &g_blk.adds[i], &segs[i], 1, mem[i], sizeof(mem[i]));
		g_blk.adds[i].cbs = &blk_cbs;
		g_blk.adds[i].qtype = XPRT_Q_PASSIVE_RECV;
	}
	ut_x_buf(dom, &p1, &segs[20], 1, mem[20], sizeof(mem[20]));
	ut_x_buf(dom, &p2, &segs[21], 1, mem[21], sizeof(mem[21]));
	p1.cbs = p2.cbs = &blk_cbs;
	p1.qtype = p2.qtype = XPRT_Q_PASSIVE_RECV;
	assert_int_equal(xprt_buf_add(a, &p1), 0);
	assert_int_equal(xprt_buf_add(a, &p2), 0);
	/* Two events for A in one delivery: both deletes go in while the engine is held. */
	n = ut_x_count();
	{
		struct xprt_buf hold;
		struct iovec hs;
		static uint8_t hm[64];
		static const struct xprt_buf_cbs hold_cbs = { .done = { NULL, blk_cb } };

		ut_x_buf(dom, &hold, &hs, 1, hm, sizeof(hm));
		hold.cbs = &hold_cbs;
		hold.qtype = XPRT_Q_MSG_SEND;
		hold.length = 8;
		assert_int_equal(xprt_tm_addr(a, &hold.dest), 0);
		hold.dest.tmid = 99;
		pthread_mutex_lock(&g_blk.lock);
		g_blk.armed = true;
		g_blk.blocked = false;
		pthread_mutex_unlock(&g_blk.lock);
		assert_int_equal(xprt_buf_add(b, &hold), 0); /* its callback holds the engine */
		pthread_mutex_lock(&g_blk.lock);
		while (!g_blk.blocked) {
			pthread_cond_wait(&g_blk.cond, &g_blk.lock);
		}
		pthread_mutex_unlock(&g_blk.lock);
		assert_true(xprt_buf_del(a, &p1));
		assert_true(xprt_buf_del(a, &p2));
		/* Arm again for A's first event, and let the engine go on. */
		pthread_mutex_lock(&g_blk.lock);
		g_blk.armed = true;
		g_blk.blocked = false;
		pthread_cond_broadcast(&g_blk.cond);
		while (!g_blk.blocked) {
			pthread_cond_wait(&g_blk.cond, &g_blk.lock);
		}
		pthread_mutex_unlock(&g_blk.lock);
		/* The engine is in A's first callback, A's second event waits behind it. */
		assert_int_equal(pthread_create(&adder, NULL, blk_adder, NULL), 0);
		UT_X_UNTIL(rte_ring_full(dom->ops)); /* the adder waits for room now */
		pthread_mutex_lock(&g_blk.lock);
		g_blk.blocked = false;
		pthread_cond_broadcast(&g_blk.cond);
		pthread_mutex_unlock(&g_blk.lock);
		UT_X_UNTIL(atomic_load(&g_blk.added) == 20);
		assert_int_equal(pthread_join(adder, NULL), 0);
		ut_x_wait(n + 3);
		assert_int_equal(xprt_buf_deregister(&hold), 0);
	}
	assert_int_equal(event_status(&p1, n), -ECANCELED);
	assert_int_equal(event_status(&p2, n), -ECANCELED);
	for (i = 0; i < 20; i++) {
		assert_true((g_blk.adds[i].flags & XPRT_BUF_QUEUED) != 0);
	}
	ut_x_tm_down(a, 20, false);
	ut_x_tm_down(b, 0, false);
	for (i = 0; i < 20; i++) {
		assert_int_equal(xprt_buf_deregister(&g_blk.adds[i]), 0);
	}
	assert_int_equal(xprt_buf_deregister(&p1), 0);
	assert_int_equal(xprt_buf_deregister(&p2), 0);
	assert_int_equal(xprt_dom_fini(dom), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bad_ops, ut_x_up, ut_x_down),
		cmocka_unit_test_setup_teardown(test_overflow_fails_tm, ut_x_up, ut_x_down),
		cmocka_unit_test_setup_teardown(test_full_op_ring_lets_go, ut_x_up, ut_x_down),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
