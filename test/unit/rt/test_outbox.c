/* SPDX-License-Identifier: BSD-3-Clause */
/* The ordered outbox (rt_outbox.h) in SIM mode: nothing lost, order kept per destination. */
#include "rt_ut.h"
#include "rt_outbox.h"

#define RING 16U /* holds RING - 1 messages */
#define NOBJ 40U

/* An object of the caller's, its outbox link not first: the handler gets the object. */
struct obj {
	unsigned int id;
	struct rt_outbox_item out;
};

static struct {
	unsigned int ids[2][NOBJ];
	unsigned int n[2];
	struct rt_lcore *ran_on[2];
} g_log;

static void
log_at(unsigned int dst, void *ctx)
{
	const struct obj *o = ctx;

	g_log.ran_on[dst] = rt_lcore_self();
	g_log.ids[dst][g_log.n[dst]++] = o->id;
}

static void
got_d0(void *ctx)
{
	log_at(0, ctx);
}

static void
got_d1(void *ctx)
{
	log_at(1, ctx);
}

static void
nop(void *ctx)
{
	(void)ctx;
}

static struct rt_outbox g_o;
static struct obj g_objs[NOBJ];

/* Runs on the management lcore, which owns the outbox: send objs [from, to) to dst. */
struct send_args {
	unsigned int dst;
	unsigned int from;
	unsigned int to;
};

static void
send_on_mgmt(void *arg)
{
	const struct send_args *a = arg;
	unsigned int i;

	for (i = a->from; i < a->to; i++) {
		g_objs[i].id = i;
		rt_outbox_send(&g_o, a->dst, &g_objs[i].out, &g_objs[i]);
	}
}

/*
 * One poll of the management lcore only (a rt_lcore_call would poll the
 * data lcores too, and drain the ring the test keeps full): the sends,
 * then the outbox's poller.
 */
static void
send_from_mgmt(struct rt_runtime *rt, struct send_args *a)
{
	assert_int_equal(rt_lcore_send_msg(rt_mgmt_lcore(rt), send_on_mgmt, a), 0);
	rt_lcore_poll(rt_mgmt_lcore(rt));
}

static struct rt_runtime *
setup(void)
{
	struct rt_runtime *rt = ut_sim(2, RING);

	memset(&g_log, 0, sizeof(g_log));
	memset(&g_o, 0, sizeof(g_o));
	assert_false(rt_outbox_ready(&g_o));
	assert_int_equal(rt_outbox_init(&g_o, rt_mgmt_lcore(rt), 2, "test-outbox"), 0);
	assert_true(rt_outbox_ready(&g_o));
	rt_outbox_set_dst(&g_o, 0, rt_data_lcore(rt, 0), got_d0);
	rt_outbox_set_dst(&g_o, 1, rt_data_lcore(rt, 1), got_d1);
	return rt;
}

static void
teardown(struct rt_runtime *rt)
{
	rt_outbox_fini(&g_o);
	assert_false(rt_outbox_ready(&g_o));
	rt_runtime_destroy(rt);
}

static void
test_outbox_with_room_sends_at_once(void **state)
{
	struct rt_runtime *rt = setup();
	struct send_args a = { 0, 0, 5 };
	unsigned int i;

	(void)state;
	send_from_mgmt(rt, &a);
	assert_false(rt_outbox_waiting(&g_o, 0));
	rt_runtime_poll_until_idle(rt, 10);
	assert_int_equal(g_log.n[0], 5);
	for (i = 0; i < 5; i++) {
		assert_int_equal(g_log.ids[0][i], i);
	}
	assert_ptr_equal(g_log.ran_on[0], rt_data_lcore(rt, 0));
	teardown(rt);
}

/*
 * Destination 0's ring is full: everything for it waits, in order, even
 * what is sent once the ring has room again; destination 1 is not held up.
 * The poller gets them all through as the ring drains, oldest first.
 */
static void
test_outbox_keeps_order_through_a_full_ring(void **state)
{
	struct rt_runtime *rt = setup();
	struct rt_lcore *d0 = rt_data_lcore(rt, 0);
	struct send_args first = { 0, 0, 30 };
	struct send_args later = { 0, 30, 35 };
	struct send_args other = { 1, 35, NOBJ };
	unsigned int i;

	(void)state;
	for (i = 0; i < RING - 1; i++) {
		assert_int_equal(rt_lcore_send_msg(d0, nop, NULL), 0);
	}
	send_from_mgmt(rt, &first);
	assert_true(rt_outbox_waiting(&g_o, 0));
	send_from_mgmt(rt, &other);
	assert_false(rt_outbox_waiting(&g_o, 1));
	assert_int_equal(g_log.n[0], 0);
	rt_lcore_poll(d0); /* room again: later ones still go behind */
	send_from_mgmt(rt, &later);
	assert_true(rt_outbox_waiting(&g_o, 0));

	rt_runtime_poll_until_idle(rt, 100);
	assert_false(rt_outbox_waiting(&g_o, 0));
	assert_int_equal(g_log.n[0], 35); /* nothing lost */
	for (i = 0; i < 35; i++) {
		assert_int_equal(g_log.ids[0][i], i);
	}
	assert_int_equal(g_log.n[1], NOBJ - 35);
	for (i = 35; i < NOBJ; i++) {
		assert_int_equal(g_log.ids[1][i - 35], i);
	}
	assert_ptr_equal(g_log.ran_on[0], d0);
	assert_ptr_equal(g_log.ran_on[1], rt_data_lcore(rt, 1));
	teardown(rt);
}

/* Items still waiting when the outbox ends are the caller's: nothing is freed or run. */
static void
test_outbox_fini_with_items_waiting(void **state)
{
	struct rt_runtime *rt = setup();
	struct send_args a = { 0, 0, 3 };
	unsigned int i;

	(void)state;
	for (i = 0; i < RING - 1; i++) {
		assert_int_equal(rt_lcore_send_msg(rt_data_lcore(rt, 0), nop, NULL), 0);
	}
	send_from_mgmt(rt, &a);
	rt_outbox_fini(&g_o);
	rt_runtime_poll_until_idle(rt, 100);
	assert_int_equal(g_log.n[0], 0);
	rt_runtime_destroy(rt);
}

static void
test_outbox_init_refusals(void **state)
{
	struct rt_runtime *rt = ut_sim(1, RING);
	struct rt_outbox o;

	(void)state;
	memset(&o, 0, sizeof(o));
	assert_int_equal(rt_outbox_init(&o, rt_mgmt_lcore(rt), 0, "none"), -EINVAL);
	assert_false(rt_outbox_ready(&o));
	rt_outbox_fini(&o); /* never initialised: harmless */
	rt_runtime_destroy(rt);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outbox_with_room_sends_at_once),
		cmocka_unit_test(test_outbox_keeps_order_through_a_full_ring),
		cmocka_unit_test(test_outbox_fini_with_items_waiting),
		cmocka_unit_test(test_outbox_init_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
