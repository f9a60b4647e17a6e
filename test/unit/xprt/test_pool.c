/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Buffer pools: colour lists (last put, first taken) before the list of all
 * (least recently put first), the threshold and not-empty calls, prune and
 * fini; and TMs whose receive queue a pool fills: the order buffers are
 * taken in, the refill before a receive event is delivered, the deficit a
 * short pool leaves and its refill when the pool is signalled, and the
 * buffers' return on stop.
 */
#include "xprt_ut.h"

static struct {
	unsigned int not_empty;
	unsigned int below;
	bool signal;             /* not_empty signals the pool, as an application wires it */
	unsigned int free_in_cb; /* the pool's free count inside the last receive callback */
	struct xprt_pool *pool;
} g_p;

static void
p_not_empty(struct xprt_pool *pool, void *ctx)
{
	(void)ctx;
	g_p.not_empty++;
	if (g_p.signal) {
		xprt_pool_signal(pool);
	}
}

static void
p_below(struct xprt_pool *pool, void *ctx)
{
	(void)pool;
	(void)ctx;
	g_p.below++;
}

static const struct xprt_pool_ops p_ops = { .not_empty = p_not_empty, .below_threshold = p_below };

/* The application's receive callback: record, and give the buffer back once off its queue. */
static void
p_recv(const struct xprt_buf_event *ev)
{
	struct xprt_pool *pool = ev->buf->pool;

	g_p.free_in_cb = xprt_pool_free_count(pool);
	if ((ev->buf->flags & XPRT_BUF_QUEUED) == 0) {
		assert_int_equal(xprt_pool_put(pool, ev->buf, XPRT_ANY_COLOUR), 0);
	}
	ut_x_buf_cb(ev);
}

static const struct xprt_buf_cbs p_cbs = { .done = { p_recv } };

static struct xprt_pool *
pool_new(struct xprt_dom *dom, unsigned int n, unsigned int colours)
{
	struct xprt_pool_opts o = {
		.opts_size = sizeof(o),
		.nsegs = 2,
		.seg_size = 4096,
		.colours = colours,
	};
	struct xprt_pool *pool;

	memset(&g_p, 0, sizeof(g_p));
	assert_int_equal(xprt_pool_init(dom, &p_ops, NULL, &o, &pool), 0);
	assert_int_equal(xprt_pool_provision(pool, n), n);
	assert_int_equal(xprt_pool_free_count(pool), n);
	g_p.pool = pool;
	return pool;
}

static void
test_colours(void **state)
{
	struct xprt_dom *dom = ut_x_dom(false);
	struct xprt_pool *pool = pool_new(dom, 4, 2);
	struct xprt_buf *b1, *b2, *b3, *b4, *x;

	(void)state;
	assert_int_equal(g_p.not_empty, 1); /* 0 -> 1 at provisioning */
	b1 = xprt_pool_get(pool, XPRT_ANY_COLOUR);
	b2 = xprt_pool_get(pool, 0); /* colour 0 has none: the oldest */
	b3 = xprt_pool_get(pool, 1);
	b4 = xprt_pool_get(pool, XPRT_ANY_COLOUR);
	assert_non_null(b4);
	assert_null(xprt_pool_get(pool, XPRT_ANY_COLOUR));
	assert_int_equal(b1->flags, XPRT_BUF_REGISTERED);
	assert_ptr_equal(b1->pool, pool);
	assert_int_equal(b1->size, 8192);
	assert_int_equal((uintptr_t)b1->segs[0].iov_base % 4096, 0);
	/* Colour 1 gets b1 then b3: last put, first taken. The list of all keeps put order. */
	assert_int_equal(xprt_pool_put(pool, b1, 1), 0);
	assert_int_equal(xprt_pool_put(pool, b2, XPRT_ANY_COLOUR), 0);
	assert_int_equal(xprt_pool_put(pool, b3, 1), 0);
	assert_int_equal(xprt_pool_put(pool, b4, 0), 0);
	assert_int_equal(xprt_pool_put(pool, b4, 7), -EINVAL); /* no such colour */
	assert_ptr_equal(xprt_pool_get(pool, 1), b3);
	assert_ptr_equal(xprt_pool_get(pool, 1), b1);
	/* Colour 1 is empty now: the least recently put of the rest, b2. */
	assert_ptr_equal(xprt_pool_get(pool, 1), b2);
	assert_ptr_equal(xprt_pool_get(pool, 0), b4);
	assert_null(xprt_pool_get(pool, 9));
	/* A buffer taken by colour leaves the list of all too, and the reverse. */
	assert_int_equal(xprt_pool_put(pool, b1, 0), 0);
	assert_ptr_equal(xprt_pool_get(pool, XPRT_ANY_COLOUR), b1);
	assert_null(xprt_pool_get(pool, 0));
	x = b1;
	assert_int_equal(xprt_pool_fini(pool), -EBUSY);
	assert_int_equal(xprt_pool_put(pool, x, XPRT_ANY_COLOUR), 0);
	assert_int_equal(xprt_pool_put(pool, b2, XPRT_ANY_COLOUR), 0);
	assert_int_equal(xprt_pool_put(pool, b3, XPRT_ANY_COLOUR), 0);
	assert_int_equal(xprt_pool_put(pool, b4, XPRT_ANY_COLOUR), 0);
	assert_int_equal(xprt_pool_fini(pool), 0);
	assert_int_equal(xprt_dom_fini(dom), 0);
}

static void
test_threshold_not_empty_prune(void **state)
{
	struct xprt_dom *dom = ut_x_dom(false);
	struct xprt_pool *pool = pool_new(dom, 3, 0);
	struct xprt_buf *a, *b, *c;

	(void)state;
	a = xprt_pool_get(pool, XPRT_ANY_COLOUR); /* 2 left: not below 2 */
	assert_int_equal(g_p.below, 0);
	b = xprt_pool_get(pool, XPRT_ANY_COLOUR); /* 1 left */
	assert_int_equal(g_p.below, 1);
	c = xprt_pool_get(pool, XPRT_ANY_COLOUR); /* 0 left */
	assert_int_equal(g_p.below, 2);
	assert_null(xprt_pool_get(pool, XPRT_ANY_COLOUR));
	assert_int_equal(g_p.below, 2); /* nothing taken, nothing said */
	assert_int_equal(g_p.not_empty, 1);
	assert_int_equal(xprt_pool_put(pool, a, XPRT_ANY_COLOUR), 0); /* 0 -> 1 */
	assert_int_equal(g_p.not_empty, 2);
	assert_int_equal(xprt_pool_put(pool, b, XPRT_ANY_COLOUR), 0); /* 1 -> 2 */
	assert_int_equal(g_p.not_empty, 2);
	assert_false(xprt_pool_prune(pool)); /* 2 free: not above the threshold */
	assert_int_equal(xprt_pool_put(pool, c, XPRT_ANY_COLOUR), 0);
	assert_true(xprt_pool_prune(pool)); /* frees a, the least recently put */
	assert_int_equal(xprt_pool_free_count(pool), 2);
	assert_ptr_equal(xprt_pool_get(pool, XPRT_ANY_COLOUR), b);
	assert_int_equal(xprt_pool_put(pool, b, XPRT_ANY_COLOUR), 0);
	assert_int_equal(xprt_pool_fini(pool), 0);
	assert_int_equal(xprt_dom_fini(dom), 0);
}

/* A pool TM on 0@lo:12345:33:10, taking with @p colour, min receive-queue length @p len. */
static struct xprt_tm *
pool_tm(struct xprt_dom *dom, struct xprt_pool *pool, uint32_t colour, unsigned int len)
{
	unsigned int n = ut_x_count();
	struct xprt_tm *tm;

	assert_int_equal(xprt_tm_init(dom, &ut_x_tm_cbs, NULL, &tm), 0);
	assert_int_equal(xprt_tm_pool_attach(tm, pool, &p_cbs, 256, 1, len), 0);
	assert_int_equal(xprt_tm_colour_get(tm), XPRT_ANY_COLOUR);
	assert_int_equal(xprt_tm_colour_set(tm, colour), 0);
	assert_int_equal(xprt_tm_start(tm, "0@lo:12345:33:10"), 0);
	ut_x_wait(n + 1);
	assert_int_equal(ut_x_ev(n).te.next_state, XPRT_TM_STARTED);
	return tm;
}

static void
send_to_pool_tm(struct xprt_dom *dom, struct xprt_tm *from, uint32_t tmid)
{
	static uint8_t mem[64];
	struct iovec seg;
	struct xprt_buf s;

	ut_x_buf(dom, &s, &seg, 1, mem, sizeof(mem));
	s.qtype = XPRT_Q_MSG_SEND;
	s.length = sizeof(mem);
	assert_int_equal(xprt_addr_parse("0@lo:12345:33:1", &s.dest), 0);
	s.dest.tmid = tmid;
	assert_int_equal(xprt_buf_add(from, &s), 0);
	UT_X_UNTIL((__atomic_load_n(&s.flags, __ATOMIC_ACQUIRE) & XPRT_BUF_QUEUED) == 0);
	assert_int_equal(xprt_buf_deregister(&s), 0);
}

/* Start takes the TM's colour first, then the least recently put; the default length is 2. */
static void
test_provision_order(void **state)
{
	struct xprt_dom *dom = ut_x_dom(false);
	struct xprt_pool *pool = pool_new(dom, 4, 2);
	struct xprt_buf *b[4];
	struct xprt_tm *tm;
	unsigned int i;

	(void)state;
	for (i = 0; i < 4; i++) {
		b[i] = xprt_pool_get(pool, XPRT_ANY_COLOUR);
	}
	/* Put order b0, b1, b2, b3; only b2 with colour 1. */
	assert_int_equal(xprt_pool_put(pool, b[0], XPRT_ANY_COLOUR), 0);
	assert_int_equal(xprt_pool_put(pool, b[1], XPRT_ANY_COLOUR), 0);
	assert_int_equal(xprt_pool_put(pool, b[2], 1), 0);
	assert_int_equal(xprt_pool_put(pool, b[3], XPRT_ANY_COLOUR), 0);
	tm = pool_tm(dom, pool, 1, 0);
	assert_int_equal(xprt_pool_free_count(pool), 2);
	assert_true((b[2]->flags & XPRT_BUF_QUEUED) != 0); /* its colour */
	assert_true((b[0]->flags & XPRT_BUF_QUEUED) != 0); /* then the oldest */
	assert_int_equal(b[1]->flags, XPRT_BUF_REGISTERED);
	assert_int_equal(b[3]->flags, XPRT_BUF_REGISTERED);
	assert_ptr_equal(b[2]->tm, tm);
	assert_int_equal(b[2]->min_recv_size, 256);
	/* A longer queue refills at once. */
	assert_int_equal(xprt_tm_pool_length_set(tm, 3), 0);
	assert_true((b[1]->flags & XPRT_BUF_QUEUED) != 0);
	assert_int_equal(xprt_pool_free_count(pool), 1);
	/* Stop: the pool's buffers go back by themselves, before STOPPED. */
	ut_x_tm_down(tm, 0, false);
	assert_int_equal(xprt_pool_free_count(pool), 4);
	assert_int_equal(xprt_pool_fini(pool), 0);
	assert_int_equal(xprt_dom_fini(dom), 0);
}

/* The receive queue is full again before the application hears of a message. */
static void
test_refill_before_callback(void **state)
{
	struct xprt_dom *dom = ut_x_dom(false);
	struct xprt_pool *pool = pool_new(dom, 4, 0);
	struct xprt_tm *tm = pool_tm(dom, pool, XPRT_ANY_COLOUR, 2);
	struct xprt_tm *peer = ut_x_tm(dom, "0@lo:12345:33:20", false);
	unsigned int n = ut_x_count();
	struct ut_ev e = { 0 };
	unsigned int i;

	(void)state;
	assert_int_equal(xprt_pool_free_count(pool), 2);
	send_to_pool_tm(dom, peer, 10);
	ut_x_wait(n + 2);
	for (i = n; i < n + 2; i++) {
		if (ut_x_ev(i).tmp == tm) {
			e = ut_x_ev(i);
		}
	}
	assert_int_equal(e.be.status, 0);
	assert_int_equal(e.be.length, 64);
	assert_int_equal(e.be.from.tmid, 20);
	/* One buffer left the queue with the message; another was taken before the callback. */
	assert_int_equal(g_p.free_in_cb, 1);
	assert_int_equal(xprt_pool_free_count(pool), 2); /* the callback gave the first back */
	ut_x_tm_down(peer, 0, false);
	ut_x_tm_down(tm, 0, false);
	assert_int_equal(xprt_pool_free_count(pool), 4);
	assert_int_equal(xprt_pool_fini(pool), 0);
	assert_int_equal(xprt_dom_fini(dom), 0);
}

static uint64_t
recv_adds(struct xprt_tm *tm)
{
	struct xprt_qstats st;

	assert_int_equal(xprt_tm_stats(tm, XPRT_Q_MSG_RECV, &st, false), 0);
	return st.adds;
}

/* A short pool leaves a deficit, counted as receive failures; its signal refills. */
static void
test_deficit_and_signal(void **state)
{
	struct xprt_dom *dom = ut_x_dom(false);
	struct xprt_pool *pool = pool_new(dom, 2, 0);
	struct xprt_qstats st;
	struct xprt_tm *tm;

	(void)state;
	g_p.signal = true;
	tm = pool_tm(dom, pool, XPRT_ANY_COLOUR, 3);
	assert_int_equal(xprt_pool_free_count(pool), 0);
	assert_int_equal(xprt_tm_stats(tm, XPRT_Q_MSG_RECV, &st, false), 0);
	assert_int_equal(st.adds, 2);
	assert_int_equal(st.failures, 1); /* the shortfall */
	/* One more buffer: 0 -> 1 says not-empty, which signals; the TM takes it. */
	assert_int_equal(xprt_pool_provision(pool, 1), 1);
	assert_int_equal(g_p.not_empty, 2);
	/* The engine's refill adds it to the receive queue. */
	UT_X_UNTIL(recv_adds(tm) == 3);
	assert_int_equal(xprt_pool_free_count(pool), 0);
	assert_int_equal(xprt_tm_stats(tm, XPRT_Q_MSG_RECV, &st, false), 0);
	assert_int_equal(st.failures, 1);
	ut_x_tm_down(tm, 0, false);
	assert_int_equal(xprt_pool_free_count(pool), 3);
	assert_int_equal(xprt_pool_fini(pool), 0);
	assert_int_equal(xprt_dom_fini(dom), 0);
}

static void
test_attach_refusals(void **state)
{
	struct xprt_dom *dom = ut_x_dom(false);
	struct xprt_pool *pool = pool_new(dom, 1, 0);
	struct xprt_pool_opts bad = { .opts_size = sizeof(bad), .nsegs = 0, .seg_size = 4096 };
	struct xprt_buf_cbs none = { .done = { NULL } };
	struct xprt_pool *p2;
	struct xprt_tm *tm;

	(void)state;
	assert_int_equal(xprt_pool_init(dom, &p_ops, NULL, &bad, &p2), -EINVAL);
	bad.nsegs = 257;
	assert_int_equal(xprt_pool_init(dom, &p_ops, NULL, &bad, &p2), -EINVAL);
	bad.nsegs = 2;
	bad.seg_size = XPRT_BUF_MAX_SIZE;
	assert_int_equal(xprt_pool_init(dom, &p_ops, NULL, &bad, &p2), -EINVAL);
	assert_int_equal(xprt_tm_init(dom, &ut_x_tm_cbs, NULL, &tm), 0);
	assert_int_equal(xprt_tm_pool_attach(tm, pool, &none, 256, 1, 0), -EINVAL);
	assert_int_equal(xprt_tm_pool_attach(tm, pool, &p_cbs, 0, 1, 0), -EINVAL);
	assert_int_equal(xprt_tm_pool_attach(tm, pool, &p_cbs, 256, 0, 0), -EINVAL);
	assert_int_equal(xprt_tm_pool_length_set(tm, 3), -EINVAL); /* no pool */
	assert_int_equal(xprt_tm_fini(tm), 0);
	assert_int_equal(xprt_pool_fini(pool), 0);
	assert_int_equal(xprt_dom_fini(dom), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_colours, ut_x_up, ut_x_down),
		cmocka_unit_test_setup_teardown(test_threshold_not_empty_prune, ut_x_up, ut_x_down),
		cmocka_unit_test_setup_teardown(test_provision_order, ut_x_up, ut_x_down),
		cmocka_unit_test_setup_teardown(test_refill_before_callback, ut_x_up, ut_x_down),
		cmocka_unit_test_setup_teardown(test_deficit_and_signal, ut_x_up, ut_x_down),
		cmocka_unit_test_setup_teardown(test_attach_refusals, ut_x_up, ut_x_down),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
