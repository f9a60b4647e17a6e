/* SPDX-License-Identifier: BSD-3-Clause */
/* The reliable hop (rt_hop.h) in SIM mode: a full ring delays it, never loses it. */
#include "rt_ut.h"
#include "rt_hop.h"

#define RING 16U /* holds RING - 1 messages */

static struct {
	unsigned int runs;
	struct rt_lcore *ran_on;
	void *ctx;
} g_got;

static void
got(void *ctx)
{
	g_got.runs++;
	g_got.ran_on = rt_lcore_self();
	g_got.ctx = ctx;
}

static void
nop(void *ctx)
{
	(void)ctx;
}

static struct rt_hop g_hop;
static struct rt_lcore *g_dst;

/* On the management lcore: the hop starts from a lcore, whose timer retries it. */
static void
hop_from_mgmt(void *ctx)
{
	rt_hop_send(&g_hop, g_dst, got, ctx);
}

static void
fill(struct rt_lcore *lc)
{
	unsigned int i;

	for (i = 0; i < RING - 1; i++) {
		assert_int_equal(rt_lcore_send_msg(lc, nop, NULL), 0);
	}
	assert_int_equal(rt_lcore_send_msg(lc, nop, NULL), -ENOBUFS);
}

static void
setup_hop(struct rt_runtime *rt, void *ctx)
{
	memset(&g_got, 0, sizeof(g_got));
	memset(&g_hop, 0, sizeof(g_hop));
	g_dst = rt_data_lcore(rt, 0);
	assert_int_equal(rt_lcore_send_msg(rt_mgmt_lcore(rt), hop_from_mgmt, ctx), 0);
}

static void
test_hop_with_room_goes_at_once(void **state)
{
	struct rt_runtime *rt = ut_sim(1, RING);
	int obj;

	(void)state;
	setup_hop(rt, &obj);
	rt_runtime_poll_until_idle(rt, 10);
	assert_int_equal(g_got.runs, 1);
	assert_ptr_equal(g_got.ran_on, rt_data_lcore(rt, 0));
	assert_ptr_equal(g_got.ctx, &obj);
	assert_false(rt_timer_pending(&g_hop.retry)); /* no retry was needed */
	rt_runtime_destroy(rt);
}

static void
test_hop_waits_out_a_full_ring(void **state)
{
	struct rt_runtime *rt = ut_sim(1, RING);
	struct rt_lcore *mgmt = rt_mgmt_lcore(rt);
	struct rt_lcore *d0 = rt_data_lcore(rt, 0);
	int obj;

	(void)state;
	fill(d0);
	setup_hop(rt, &obj);
	rt_lcore_poll(mgmt); /* refused: the ring is full */
	assert_true(rt_timer_pending(&g_hop.retry));
	rt_lcore_poll(d0); /* the ring drains; the hop still waits for its timer */
	rt_runtime_poll_until_idle(rt, 10);
	assert_int_equal(g_got.runs, 0);

	fill(d0); /* full again when the timer fires: it re-arms */
	rt_sim_advance_us(rt, RT_HOP_RETRY_US);
	rt_lcore_poll(mgmt);
	assert_int_equal(g_got.runs, 0);
	assert_true(rt_timer_pending(&g_hop.retry));

	rt_lcore_poll(d0);
	rt_sim_advance_us(rt, RT_HOP_RETRY_US - 1);
	rt_runtime_poll_until_idle(rt, 10);
	assert_int_equal(g_got.runs, 0); /* not before its period */
	rt_sim_advance_us(rt, 1);
	rt_runtime_poll_until_idle(rt, 10);
	assert_int_equal(g_got.runs, 1); /* once, where it was sent, with its context */
	assert_ptr_equal(g_got.ran_on, d0);
	assert_ptr_equal(g_got.ctx, &obj);
	assert_false(rt_timer_pending(&g_hop.retry));
	rt_sim_advance_us(rt, 10 * RT_HOP_RETRY_US);
	rt_runtime_poll_until_idle(rt, 10);
	assert_int_equal(g_got.runs, 1);
	rt_runtime_destroy(rt);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hop_with_room_goes_at_once),
		cmocka_unit_test(test_hop_waits_out_a_full_ring),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
