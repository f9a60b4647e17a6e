/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine against operation entries no front would make (what a client
 * process could write into a shared ring in a later slice): stale and
 * forged handles are ignored; a bad add completes its buffer with -EINVAL
 * before any LNet call; the TM goes on working. Entries are read straight from
 * the TM's event ring.
 */
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "xprt_internal.h"
#include "xprt_ut.h"

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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bad_ops, ut_x_up, ut_x_down),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
