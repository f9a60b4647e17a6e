/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * o2iblnd flow control (o2ib-facts §4 and kiblnd's post/receive rules):
 * tunable fix-ups, the queue and the returned credit of every message
 * type, posting limits (concurrent_sends, credits, v1's last credit),
 * NOOP decisions for v1 and v2, and two connections trading credits until
 * a NOOP must carry them home.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "o2ib_credits.h"

static const struct o2ib_credit_tunables tun8 = { 256, 8, 4, 8 };

static void
test_tunables_fix(void **state)
{
	struct o2ib_credit_tunables t = { 256, 8, 0, 0 };

	(void)state;
	o2ib_tunables_fix(&t); /* the module defaults */
	assert_int_equal(t.peer_credits, 8);
	assert_int_equal(t.peer_credits_hiw, 4);
	assert_int_equal(t.concurrent_sends, 8);

	t = (struct o2ib_credit_tunables){ 256, 300, 0, 0 };
	o2ib_tunables_fix(&t);
	assert_int_equal(t.peer_credits, 255); /* ibm_credits is a byte */

	t = (struct o2ib_credit_tunables){ 256, 4, 0, 0 };
	o2ib_tunables_fix(&t);
	assert_int_equal(t.peer_credits, 8); /* never below 8 */

	t = (struct o2ib_credit_tunables){ 16, 32, 0, 0 };
	o2ib_tunables_fix(&t);
	assert_int_equal(t.peer_credits, 16); /* never above the NI's credits */

	t = (struct o2ib_credit_tunables){ 256, 32, 100, 1 };
	o2ib_tunables_fix(&t);
	assert_int_equal(t.peer_credits_hiw, 31);
	assert_int_equal(t.concurrent_sends, 16);

	t = (struct o2ib_credit_tunables){ 256, 32, 3, 100 };
	o2ib_tunables_fix(&t);
	assert_int_equal(t.peer_credits_hiw, 16);
	assert_int_equal(t.concurrent_sends, 64);
}

static void
test_queues_and_rx_credits(void **state)
{
	(void)state;
	assert_int_equal(o2ib_txq_of(O2IB_MSG_IMMEDIATE, 0x12), O2IB_TXQ_CRED);
	assert_int_equal(o2ib_txq_of(O2IB_MSG_PUT_REQ, 0x12), O2IB_TXQ_RSRVD);
	assert_int_equal(o2ib_txq_of(O2IB_MSG_GET_REQ, 0x11), O2IB_TXQ_RSRVD);
	assert_int_equal(o2ib_txq_of(O2IB_MSG_PUT_ACK, 0x12), O2IB_TXQ_NOCRED);
	assert_int_equal(o2ib_txq_of(O2IB_MSG_PUT_NAK, 0x12), O2IB_TXQ_NOCRED);
	assert_int_equal(o2ib_txq_of(O2IB_MSG_PUT_DONE, 0x11), O2IB_TXQ_NOCRED);
	assert_int_equal(o2ib_txq_of(O2IB_MSG_GET_DONE, 0x12), O2IB_TXQ_NOCRED);
	assert_int_equal(o2ib_txq_of(O2IB_MSG_NOOP, 0x12), O2IB_TXQ_NOCRED);
	assert_int_equal(o2ib_txq_of(O2IB_MSG_NOOP, 0x11), O2IB_TXQ_NOOPS);
	assert_int_equal(o2ib_txq_of(O2IB_MSG_CONNREQ, 0x12), -1);

	assert_int_equal(o2ib_rx_credit_of(O2IB_MSG_NOOP, 0x12, 3, false), O2IB_RX_NO_CREDIT);
	assert_int_equal(o2ib_rx_credit_of(O2IB_MSG_NOOP, 0x11, 3, false), O2IB_RX_NO_CREDIT);
	assert_int_equal(o2ib_rx_credit_of(O2IB_MSG_NOOP, 0x11, 0, false), O2IB_RX_PEER_CREDIT);
	assert_int_equal(o2ib_rx_credit_of(O2IB_MSG_IMMEDIATE, 0x12, 0, false),
			 O2IB_RX_PEER_CREDIT);
	assert_int_equal(o2ib_rx_credit_of(O2IB_MSG_PUT_REQ, 0x12, 0, true), O2IB_RX_NO_CREDIT);
	assert_int_equal(o2ib_rx_credit_of(O2IB_MSG_PUT_REQ, 0x12, 0, false), O2IB_RX_PEER_CREDIT);
	assert_int_equal(o2ib_rx_credit_of(O2IB_MSG_PUT_DONE, 0x12, 0, false), O2IB_RX_PEER_CREDIT);
	assert_int_equal(o2ib_rx_credit_of(O2IB_MSG_GET_REQ, 0x12, 0, false), O2IB_RX_PEER_CREDIT);
	assert_int_equal(o2ib_rx_credit_of(O2IB_MSG_PUT_ACK, 0x12, 0, false), O2IB_RX_RSRVD_CREDIT);
	assert_int_equal(o2ib_rx_credit_of(O2IB_MSG_PUT_NAK, 0x12, 0, false), O2IB_RX_RSRVD_CREDIT);
	assert_int_equal(o2ib_rx_credit_of(O2IB_MSG_GET_DONE, 0x12, 0, false),
			 O2IB_RX_RSRVD_CREDIT);
}

static void
test_init(void **state)
{
	const struct o2ib_credit_tunables t = { 256, 8, 7, 32 };
	struct o2ib_credits c;

	(void)state;
	o2ib_credits_init(&c, 0x12, 8, &tun8);
	assert_int_equal(c.credits, 8);
	assert_int_equal(c.reserved, 8);
	assert_int_equal(c.outstanding, 0);
	assert_int_equal(c.hiw, 4);
	assert_int_equal(c.concurrent_sends, 8);
	/* negotiated down to 4: 4 x 7 / 8 = 3 */
	o2ib_credits_init(&c, 0x12, 4, &t);
	assert_int_equal(c.hiw, 3);
	assert_int_equal(c.concurrent_sends, 32);
	/* v1: high-water 7, concurrent_sends within [4, 16] */
	o2ib_credits_init(&c, 0x11, 8, &t);
	assert_int_equal(c.hiw, 7);
	assert_int_equal(c.concurrent_sends, 16);
}

static void
test_post_limits(void **state)
{
	const struct o2ib_credit_tunables t = { 256, 8, 4, 4 };
	struct o2ib_credits c;
	uint8_t hdr;

	(void)state;
	o2ib_credits_init(&c, 0x12, 8, &t);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(o2ib_credits_can_post(&c, O2IB_TXQ_CRED, O2IB_MSG_IMMEDIATE),
				 O2IB_POST_OK);
		o2ib_credits_posted(&c, O2IB_TXQ_CRED, O2IB_MSG_IMMEDIATE);
	}
	/* four in flight: even a credit-free ACK waits for a completion */
	assert_int_equal(o2ib_credits_can_post(&c, O2IB_TXQ_NOCRED, O2IB_MSG_PUT_ACK),
			 O2IB_POST_CONCURRENT);
	o2ib_credits_send_done(&c, O2IB_MSG_IMMEDIATE);
	assert_int_equal(o2ib_credits_can_post(&c, O2IB_TXQ_NOCRED, O2IB_MSG_PUT_ACK),
			 O2IB_POST_OK);
	assert_int_equal(c.credits, 4);

	/* out of credits: IMMEDIATE waits, PUT_DONE does not */
	c.credits = 0;
	assert_int_equal(o2ib_credits_can_post(&c, O2IB_TXQ_CRED, O2IB_MSG_IMMEDIATE),
			 O2IB_POST_NO_CREDIT);
	assert_int_equal(o2ib_credits_can_post(&c, O2IB_TXQ_NOCRED, O2IB_MSG_PUT_DONE),
			 O2IB_POST_OK);

	/* the header carries all that is owed, once */
	c.outstanding = 5;
	hdr = o2ib_credits_posted(&c, O2IB_TXQ_NOCRED, O2IB_MSG_PUT_DONE);
	assert_int_equal(hdr, 5);
	assert_int_equal(c.outstanding, 0);
	assert_int_equal(c.credits, 0);
	/* a failed post gives it all back */
	o2ib_credits_post_failed(&c, O2IB_TXQ_NOCRED, O2IB_MSG_PUT_DONE, hdr);
	assert_int_equal(c.outstanding, 5);
	assert_int_equal(c.nsends_posted, 3);

	/* v1 keeps its last credit for a NOOP */
	o2ib_credits_init(&c, 0x11, 8, &t);
	c.credits = 1;
	assert_int_equal(o2ib_credits_can_post(&c, O2IB_TXQ_CRED, O2IB_MSG_IMMEDIATE),
			 O2IB_POST_LAST_CREDIT);
	assert_int_equal(o2ib_credits_can_post(&c, O2IB_TXQ_NOOPS, O2IB_MSG_NOOP), O2IB_POST_OK);
	o2ib_credits_posted(&c, O2IB_TXQ_NOOPS, O2IB_MSG_NOOP);
	assert_int_equal(c.credits, 0);
	assert_int_equal(c.noops_posted, 1);
}

static void
test_reserved(void **state)
{
	struct o2ib_credits c;

	(void)state;
	o2ib_credits_init(&c, 0x12, 2, &tun8);
	assert_true(o2ib_credits_take_reserved(&c));
	assert_true(o2ib_credits_take_reserved(&c));
	assert_false(o2ib_credits_take_reserved(&c));       /* two requests await replies */
	o2ib_credits_rx_reposted(&c, O2IB_RX_RSRVD_CREDIT); /* a PUT_ACK came */
	assert_true(o2ib_credits_take_reserved(&c));
}

static void
test_received(void **state)
{
	struct o2ib_credits c;

	(void)state;
	o2ib_credits_init(&c, 0x12, 8, &tun8);
	c.credits = 2;
	assert_int_equal(o2ib_credits_received(&c, O2IB_MSG_IMMEDIATE, 6), 0);
	assert_int_equal(c.credits, 8);
	/* more than the queue depth: a protocol error */
	assert_int_equal(o2ib_credits_received(&c, O2IB_MSG_NOOP, 1), -1);
	assert_int_equal(c.credits, 8);
	/* v2 NOOP owes nothing back */
	c.credits = 0;
	assert_int_equal(o2ib_credits_received(&c, O2IB_MSG_NOOP, 3), 0);
	assert_int_equal(c.outstanding, 0);
	/* v1 NOOP with credits owes its own credit back */
	o2ib_credits_init(&c, 0x11, 8, &tun8);
	c.credits = 0;
	assert_int_equal(o2ib_credits_received(&c, O2IB_MSG_NOOP, 3), 0);
	assert_int_equal(c.credits, 3);
	assert_int_equal(c.outstanding, 1);
	o2ib_credits_rx_reposted(&c, o2ib_rx_credit_of(O2IB_MSG_NOOP, 0x11, 3, false));
	assert_int_equal(c.outstanding, 1); /* not twice */
}

static void
test_need_noop_v2(void **state)
{
	struct o2ib_txq_view q = { true, true, true, false };
	struct o2ib_credits c;

	(void)state;
	o2ib_credits_init(&c, 0x12, 8, &tun8);
	c.outstanding = 3;
	assert_false(o2ib_credits_need_noop(&c, &q)); /* below the high-water 4 */
	c.outstanding = 4;
	assert_true(o2ib_credits_need_noop(&c, &q));
	q.nocred_empty = false; /* a PUT_DONE will carry them */
	assert_false(o2ib_credits_need_noop(&c, &q));
	q.nocred_empty = true;
	q.cred_empty = false; /* an IMMEDIATE will carry them */
	assert_false(o2ib_credits_need_noop(&c, &q));
	c.credits = 0; /* ... but it cannot go */
	assert_true(o2ib_credits_need_noop(&c, &q));
	/* keepalive with nothing owed */
	c.credits = 8;
	c.outstanding = 0;
	q = (struct o2ib_txq_view){ true, true, true, true };
	assert_true(o2ib_credits_need_noop(&c, &q));
	/* two NOOPs in flight: a third is dropped at the head of its queue */
	c.noops_posted = 2;
	assert_true(o2ib_credits_noop_redundant(&c, &q));
	c.noops_posted = 1;
	assert_false(o2ib_credits_noop_redundant(&c, &q));
	q.keepalive_due = false;
	assert_true(o2ib_credits_noop_redundant(&c, &q)); /* no longer needed */
}

static void
test_need_noop_v1(void **state)
{
	struct o2ib_txq_view q = { true, true, true, false };
	struct o2ib_credits c;

	(void)state;
	o2ib_credits_init(&c, 0x11, 8, &tun8);
	c.outstanding = 6;
	assert_false(o2ib_credits_need_noop(&c, &q)); /* high-water 7 */
	c.outstanding = 7;
	assert_true(o2ib_credits_need_noop(&c, &q));
	q.noops_empty = false; /* one is queued already */
	assert_false(o2ib_credits_need_noop(&c, &q));
	q.noops_empty = true;
	c.credits = 0; /* a v1 NOOP needs a credit */
	assert_false(o2ib_credits_need_noop(&c, &q));
	c.credits = 1;
	q.cred_empty = false; /* the last credit can only go to a NOOP */
	assert_true(o2ib_credits_need_noop(&c, &q));
	c.credits = 2;
	assert_false(o2ib_credits_need_noop(&c, &q)); /* the IMMEDIATE carries them */
	/* keepalive: the last credit stays when nothing is owed */
	c.credits = 1;
	c.outstanding = 0;
	q = (struct o2ib_txq_view){ true, true, true, true };
	assert_false(o2ib_credits_need_noop(&c, &q));
	/* the v1 limit of NOOPs is the credit, not a count */
	c.credits = 2;
	c.noops_posted = 5;
	assert_false(o2ib_credits_noop_redundant(&c, &q));
}

/*
 * A sends 8 IMMEDIATEs at queue depth 8 and runs dry; B handles them and
 * reposts its buffers, owing 8; with nothing to send it needs a NOOP,
 * which carries all 8 home and costs A nothing to receive.
 */
static void
test_round_trip(void **state)
{
	const struct o2ib_txq_view idle = { true, true, true, false };
	struct o2ib_credits a;
	struct o2ib_credits b;
	uint8_t hdr;

	(void)state;
	o2ib_credits_init(&a, 0x12, 8, &tun8);
	o2ib_credits_init(&b, 0x12, 8, &tun8);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(o2ib_credits_can_post(&a, O2IB_TXQ_CRED, O2IB_MSG_IMMEDIATE),
				 O2IB_POST_OK);
		hdr = o2ib_credits_posted(&a, O2IB_TXQ_CRED, O2IB_MSG_IMMEDIATE);
		assert_int_equal(hdr, 0);
		o2ib_credits_send_done(&a, O2IB_MSG_IMMEDIATE);
		assert_int_equal(o2ib_credits_received(&b, O2IB_MSG_IMMEDIATE, hdr), 0);
		o2ib_credits_rx_reposted(&b, o2ib_rx_credit_of(O2IB_MSG_IMMEDIATE, 0x12, 0, false));
	}
	assert_int_equal(o2ib_credits_can_post(&a, O2IB_TXQ_CRED, O2IB_MSG_IMMEDIATE),
			 O2IB_POST_NO_CREDIT);
	assert_int_equal(b.outstanding, 8);
	assert_true(o2ib_credits_need_noop(&b, &idle));
	assert_int_equal(o2ib_credits_can_post(&b, O2IB_TXQ_NOCRED, O2IB_MSG_NOOP), O2IB_POST_OK);
	hdr = o2ib_credits_posted(&b, O2IB_TXQ_NOCRED, O2IB_MSG_NOOP);
	assert_int_equal(hdr, 8);
	assert_int_equal(b.credits, 8); /* out of band: no credit used */
	assert_int_equal(o2ib_credits_received(&a, O2IB_MSG_NOOP, hdr), 0);
	o2ib_credits_rx_reposted(&a, o2ib_rx_credit_of(O2IB_MSG_NOOP, 0x12, hdr, false));
	assert_int_equal(a.credits, 8);
	assert_int_equal(a.outstanding, 0);
	assert_false(o2ib_credits_need_noop(&a, &idle));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tunables_fix), cmocka_unit_test(test_queues_and_rx_credits),
		cmocka_unit_test(test_init),         cmocka_unit_test(test_post_limits),
		cmocka_unit_test(test_reserved),     cmocka_unit_test(test_received),
		cmocka_unit_test(test_need_noop_v2), cmocka_unit_test(test_need_noop_v1),
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
