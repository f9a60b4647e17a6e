/* SPDX-License-Identifier: BSD-3-Clause */
/* Messages, calls, waits and fan-out in SIM mode. */
#include "rt_ut.h"

struct log {
	int seen[64];
	unsigned int n;
	struct rt_lcore *ran_on[64];
};

static struct log g_log;

static void
record(void *ctx)
{
	g_log.ran_on[g_log.n] = rt_lcore_self();
	g_log.seen[g_log.n++] = (int)(intptr_t)ctx;
}

static void
test_order_and_owner(void **state)
{
	struct rt_runtime *rt = ut_sim(2, 64);
	struct rt_lcore *d1 = rt_data_lcore(rt, 1);
	int i;

	(void)state;
	memset(&g_log, 0, sizeof(g_log));
	for (i = 0; i < 10; i++) {
		assert_int_equal(rt_lcore_send_msg(d1, record, (void *)(intptr_t)i), 0);
	}
	assert_int_equal(g_log.n, 0); /* nothing runs until polled */
	rt_runtime_poll_until_idle(rt, 100);
	assert_int_equal(g_log.n, 10);
	for (i = 0; i < 10; i++) {
		assert_int_equal(g_log.seen[i], i);
		assert_ptr_equal(g_log.ran_on[i], d1);
	}
	assert_null(rt_lcore_self());
	assert_int_equal(rt_lcore_role(d1), RT_ROLE_DATA);
	assert_int_equal(rt_lcore_cpt(d1), 1);
	assert_int_equal(rt_lcore_role(rt_mgmt_lcore(rt)), RT_ROLE_MGMT);
	assert_int_equal(rt_lcore_cpt(rt_mgmt_lcore(rt)), -1);
	assert_ptr_equal(rt_lcore_runtime(d1), rt);
	assert_int_equal(rt_data_lcore_count(rt), 2);
	assert_null(rt_data_lcore(rt, 2));
	rt_runtime_destroy(rt);
}

static void
nop(void *ctx)
{
	(void)ctx;
}

static void
test_ring_full(void **state)
{
	struct rt_runtime *rt = ut_sim(1, 16);
	struct rt_lcore *d0 = rt_data_lcore(rt, 0);
	struct rt_lcore_stats st;
	int i;
	int rc = 0;

	(void)state;
	for (i = 0; i < 16 && rc == 0; i++) {
		rc = rt_lcore_send_msg(d0, nop, NULL);
	}
	assert_int_equal(rc, -ENOBUFS);
	assert_int_equal(i, 16); /* a ring of 16 holds 15 */
	rt_lcore_stats_get(d0, &st);
	assert_int_equal(st.send_full, 1);
	rt_runtime_poll_until_idle(rt, 10);
	rt_lcore_stats_get(d0, &st);
	assert_int_equal(st.msgs, 15);
	assert_int_equal(rt_lcore_send_msg(d0, nop, NULL), 0);
	rt_runtime_destroy(rt);
}

static struct rt_lcore *g_expect;

static int
call_fn(void *ctx)
{
	assert_ptr_equal(rt_lcore_self(), g_expect);
	return *(int *)ctx;
}

static int
nested_call(void *ctx)
{
	/* From a lcore to another lcore: refused; to itself: direct. */
	struct rt_runtime *rt = ctx;
	int v = 7;

	assert_int_equal(rt_lcore_call(rt_data_lcore(rt, 1), call_fn, &v), -EDEADLK);
	g_expect = rt_data_lcore(rt, 0);
	return rt_lcore_call(rt_data_lcore(rt, 0), call_fn, &v);
}

static void
test_call(void **state)
{
	struct rt_runtime *rt = ut_sim(2, 64);
	int v = -42;

	(void)state;
	g_expect = rt_data_lcore(rt, 1);
	assert_int_equal(rt_lcore_call(rt_data_lcore(rt, 1), call_fn, &v), -42);
	g_expect = rt_data_lcore(rt, 0);
	assert_int_equal(rt_lcore_call(rt_data_lcore(rt, 0), nested_call, rt), 7);
	rt_runtime_destroy(rt);
}

static int g_counter;

static bool
counter_reached(void *arg)
{
	return g_counter >= *(int *)arg;
}

static void
bump(void *ctx)
{
	(void)ctx;
	g_counter++;
}

static void
test_wait_until_sim(void **state)
{
	struct rt_runtime *rt = ut_sim(1, 64);
	int want = 3;

	(void)state;
	g_counter = 0;
	rt_lcore_send_msg(rt_data_lcore(rt, 0), bump, NULL);
	rt_lcore_send_msg(rt_data_lcore(rt, 0), bump, NULL);
	rt_lcore_send_msg(rt_mgmt_lcore(rt), bump, NULL);
	assert_true(rt_wait_until(rt, counter_reached, &want, 1000));
	want = 4; /* nothing left to run: SIM returns instead of spinning */
	assert_false(rt_wait_until(rt, counter_reached, &want, UINT64_MAX));
	rt_runtime_destroy(rt);
}

static int
arm_2ms(void *ctx)
{
	rt_timer_arm(ctx, 2000);
	return 0;
}

static void
bump_timer(void *arg)
{
	(void)arg;
	g_counter++;
}

/* POLLED: the waiting caller runs the lcores, and time is the real clock's. */
static void
test_wait_until_polled(void **state)
{
	struct rt_runtime_opts o = { .opts_size = sizeof(o), .mode = RT_MODE_POLLED, .n_data = 1 };
	struct rt_runtime *rt = NULL;
	struct rt_timer t = { .fn = bump_timer };
	uint64_t t0;
	int want = 2;

	(void)state;
	assert_int_equal(rt_runtime_create(&o, &rt), 0);
	assert_true(rt_runtime_caller_polls(rt));
	assert_int_equal(rt_runtime_start(rt), 0); /* no thread to start */
	g_counter = 0;
	rt_lcore_send_msg(rt_data_lcore(rt, 0), bump, NULL);
	t0 = rt_now_us(rt);
	/* A timer armed on the lcore; only the real clock can make it fire. */
	assert_int_equal(rt_lcore_call(rt_data_lcore(rt, 0), arm_2ms, &t), 0);
	assert_true(rt_wait_until(rt, counter_reached, &want, 5000000));
	assert_true(rt_now_us(rt) - t0 >= 2000);
	want = 3; /* never: returns at the timeout, on the real clock */
	t0 = rt_now_us(rt);
	assert_false(rt_wait_until(rt, counter_reached, &want, 3000));
	assert_true(rt_now_us(rt) - t0 >= 3000);
	rt_runtime_stop(rt);
	rt_runtime_destroy(rt);
}

static unsigned int g_fanout_runs;
static struct rt_lcore *g_cpl_on;

static void
fan_fn(void *ctx)
{
	(void)ctx;
	assert_int_equal(rt_lcore_role(rt_lcore_self()), RT_ROLE_DATA);
	g_fanout_runs++;
}

static void
fan_cpl(void *ctx)
{
	(void)ctx;
	g_cpl_on = rt_lcore_self();
}

static int
start_fanout(void *ctx)
{
	return rt_for_each_dp_lcore(ctx, fan_fn, NULL, fan_cpl);
}

static void
test_for_each_dp(void **state)
{
	struct rt_runtime *rt = ut_sim(3, 64);

	(void)state;
	g_fanout_runs = 0;
	g_cpl_on = NULL;
	assert_int_equal(rt_for_each_dp_lcore(rt, fan_fn, NULL, fan_cpl),
			 -EINVAL); /* not a lcore */
	assert_int_equal(rt_lcore_call(rt_mgmt_lcore(rt), start_fanout, rt), 0);
	rt_runtime_poll_until_idle(rt, 100);
	assert_int_equal(g_fanout_runs, 3);
	assert_ptr_equal(g_cpl_on, rt_mgmt_lcore(rt));
	rt_runtime_destroy(rt);
}

static void
noop_msg(void *ctx)
{
	(void)ctx;
}

/* Data lcore 1's ring is full: lcore 0 still runs fn, cpl never runs, nothing leaks. */
static void
test_for_each_dp_ring_full(void **state)
{
	struct rt_runtime *rt = ut_sim(3, 4); /* a ring of 4 holds 3 */
	struct rt_lcore *d1 = rt_data_lcore(rt, 1);
	struct rt_lcore_stats st;

	(void)state;
	g_fanout_runs = 0;
	g_cpl_on = NULL;
	while (rt_lcore_send_msg(d1, noop_msg, NULL) == 0) {
	}
	assert_int_equal(rt_lcore_call(rt_mgmt_lcore(rt), start_fanout, rt), -ENOBUFS);
	rt_runtime_poll_until_idle(rt, 100);
	assert_int_equal(g_fanout_runs, 1);
	assert_null(g_cpl_on);
	rt_lcore_stats_get(d1, &st);
	assert_int_equal(st.send_full, 2);
	rt_runtime_destroy(rt);
}

static void
test_create_errors(void **state)
{
	struct rt_runtime_opts o = { .opts_size = sizeof(o), .mode = RT_MODE_SIM, .n_data = 0 };
	struct rt_runtime *rt = NULL;

	(void)state;
	assert_int_equal(rt_runtime_create(&o, &rt), -EINVAL);
	o.n_data = 1;
	o.ring_size = 100; /* not a power of 2 */
	assert_int_equal(rt_runtime_create(&o, &rt), -EINVAL);
	o.ring_size = 0;
	o.mode = 9;
	assert_int_equal(rt_runtime_create(&o, &rt), -EINVAL);
	assert_int_equal(rt_runtime_create(NULL, &rt), -EINVAL);
	o.mode = RT_MODE_SIM;
	assert_int_equal(rt_runtime_create(&o, &rt), 0);
	assert_int_equal(rt_runtime_start(rt), 0); /* SIM: nothing to start */
	assert_int_equal(rt_runtime_run_main(rt), -EINVAL);
	rt_runtime_stop(rt);
	rt_runtime_destroy(rt);
	rt_runtime_destroy(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_owner),
		cmocka_unit_test(test_ring_full),
		cmocka_unit_test(test_call),
		cmocka_unit_test(test_wait_until_sim),
		cmocka_unit_test(test_wait_until_polled),
		cmocka_unit_test(test_for_each_dp),
		cmocka_unit_test(test_for_each_dp_ring_full),
		cmocka_unit_test(test_create_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
