/* SPDX-License-Identifier: BSD-3-Clause */
/* Timers on the virtual clock: order, cancel, re-arm, a large random heap. */
#include "rt_ut.h"

struct fired {
	unsigned int order[1100];
	unsigned int n;
	struct rt_lcore *on;
};

static struct fired g_fired;

struct ut_timer {
	struct rt_timer t;
	unsigned int id;
	uint64_t delay;
};

static void
on_fire(void *arg)
{
	struct ut_timer *u = arg;

	g_fired.on = rt_lcore_self();
	g_fired.order[g_fired.n++] = u->id;
}

struct arm_req {
	struct ut_timer *timers;
	unsigned int n;
};

static int
arm_all(void *ctx)
{
	struct arm_req *r = ctx;
	unsigned int i;

	for (i = 0; i < r->n; i++) {
		rt_timer_arm(&r->timers[i].t, r->timers[i].delay);
	}
	return 0;
}

static int
cancel_one(void *ctx)
{
	rt_timer_cancel(ctx);
	return 0;
}

static void
test_order_cancel_rearm(void **state)
{
	struct rt_runtime *rt = ut_sim(1, 64);
	struct rt_lcore *d0 = rt_data_lcore(rt, 0);
	struct ut_timer ts[4];
	struct arm_req req = { ts, 4 };
	static const uint64_t delays[4] = { 300, 100, 200, 400 };
	unsigned int i;

	(void)state;
	memset(&g_fired, 0, sizeof(g_fired));
	for (i = 0; i < 4; i++) {
		rt_timer_init(&ts[i].t, on_fire, &ts[i]);
		ts[i].id = i;
		ts[i].delay = delays[i];
	}
	assert_int_equal(rt_lcore_call(d0, arm_all, &req), 0);
	assert_true(rt_timer_pending(&ts[0].t));
	rt_runtime_poll_until_idle(rt, 10);
	assert_int_equal(g_fired.n, 0); /* virtual time has not moved */
	assert_int_equal(rt_lcore_call(d0, cancel_one, &ts[2].t), 0);
	assert_false(rt_timer_pending(&ts[2].t));
	rt_sim_advance_us(rt, 350);
	rt_runtime_poll_until_idle(rt, 10);
	assert_int_equal(g_fired.n, 2);
	assert_int_equal(g_fired.order[0], 1);
	assert_int_equal(g_fired.order[1], 0);
	assert_ptr_equal(g_fired.on, d0);
	/* re-arm the remaining one further out: it moves */
	req.timers = &ts[3];
	ts[3].delay = 1000;
	req.n = 1;
	assert_int_equal(rt_lcore_call(d0, arm_all, &req), 0);
	rt_sim_advance_us(rt, 100);
	rt_runtime_poll_until_idle(rt, 10);
	assert_int_equal(g_fired.n, 2);
	rt_sim_advance_us(rt, 1000);
	rt_runtime_poll_until_idle(rt, 10);
	assert_int_equal(g_fired.n, 3);
	assert_int_equal(g_fired.order[2], 3);
	assert_false(rt_timer_pending(&ts[3].t));
	rt_runtime_destroy(rt);
}

static void
test_random_heap(void **state)
{
	struct rt_runtime *rt = ut_sim(1, 64);
	struct ut_timer *ts = calloc(1000, sizeof(*ts));
	struct arm_req req = { ts, 1000 };
	uint64_t last = 0;
	unsigned int i;

	(void)state;
	memset(&g_fired, 0, sizeof(g_fired));
	srand(7);
	for (i = 0; i < 1000; i++) {
		rt_timer_init(&ts[i].t, on_fire, &ts[i]);
		ts[i].id = i;
		ts[i].delay = (uint64_t)(rand() % 100000);
	}
	assert_int_equal(rt_lcore_call(rt_data_lcore(rt, 0), arm_all, &req), 0);
	for (i = 0; i < 1000; i += 3) { /* cancel every third */
		assert_int_equal(rt_lcore_call(rt_data_lcore(rt, 0), cancel_one, &ts[i].t), 0);
	}
	rt_sim_advance_us(rt, 100000);
	rt_runtime_poll_until_idle(rt, 100);
	assert_int_equal(g_fired.n, 666);
	for (i = 0; i < g_fired.n; i++) {
		struct ut_timer *u = &ts[g_fired.order[i]];

		assert_int_not_equal(u->id % 3, 0);
		assert_true(u->delay >= last); /* fired in deadline order */
		last = u->delay;
	}
	free(ts);
	rt_runtime_destroy(rt);
}

struct self_rearm {
	struct rt_timer t;
	unsigned int fires;
};

static void
rearm_now(void *arg)
{
	struct self_rearm *r = arg;

	r->fires++;
	rt_timer_arm(&r->t, 0);
}

static int
arm_zero(void *ctx)
{
	rt_timer_arm(ctx, 0);
	return 0;
}

/* A timer that re-arms itself with no delay fires once per iteration, not forever. */
static void
test_self_rearm_bounded(void **state)
{
	struct rt_runtime *rt = ut_sim(1, 64);
	struct rt_lcore *d0 = rt_data_lcore(rt, 0);
	struct self_rearm r = { .fires = 0 };
	struct rt_lcore_stats st;

	(void)state;
	rt_timer_init(&r.t, rearm_now, &r);
	assert_false(rt_timer_pending(&r.t));
	rt_timer_cancel(&r.t); /* not armed: no-op */
	/* The call's iteration runs the arming message, then the due timer once. */
	assert_int_equal(rt_lcore_call(d0, arm_zero, &r.t), 0);
	assert_int_equal(r.fires, 1);
	assert_int_equal(rt_lcore_poll(d0), 1);
	assert_int_equal(r.fires, 2);
	assert_int_equal(rt_lcore_poll(d0), 1);
	assert_int_equal(r.fires, 3);
	assert_true(rt_timer_pending(&r.t));
	rt_lcore_stats_get(d0, &st);
	assert_int_equal(st.timers, 3);
	/* Messages run before timers, so the cancel lands before it can fire again. */
	assert_int_equal(rt_lcore_call(d0, cancel_one, &r.t), 0);
	assert_false(rt_timer_pending(&r.t));
	assert_int_equal(rt_lcore_poll(d0), 0);
	assert_int_equal(r.fires, 3);
	rt_runtime_destroy(rt);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_cancel_rearm),
		cmocka_unit_test(test_random_heap),
		cmocka_unit_test(test_self_rearm_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
