/* SPDX-License-Identifier: BSD-3-Clause */
/* How a thread that is no lcore waits for the lcores (rt_wait.h), in SIM and POLLED. */
#include <time.h>

#include "rt_ut.h"
#include "rt_wait.h"

#define RING 16U /* holds RING - 1 messages */

static struct {
	int seen[RING + 4];
	unsigned int n;
} g_log;

static void
record(void *ctx)
{
	g_log.seen[g_log.n++] = (int)(intptr_t)ctx;
}

/* A full ring: the sender takes turns running the lcores; the clock stands still. */
static void
test_send_waits_out_a_full_ring(void **state)
{
	struct rt_runtime *rt = ut_sim(1, RING);
	struct rt_lcore *d0 = rt_data_lcore(rt, 0);
	uint64_t t0 = rt_now_us(rt);
	unsigned int i;

	(void)state;
	memset(&g_log, 0, sizeof(g_log));
	for (i = 0; i < RING - 1; i++) {
		assert_int_equal(rt_lcore_send_msg(d0, record, (void *)(intptr_t)i), 0);
	}
	rt_wait_send_msg(d0, record, (void *)(intptr_t)99);
	assert_int_equal(g_log.n, RING - 1); /* the ring drained for it; it is queued */
	rt_wait_settle(rt);
	assert_int_equal(g_log.n, RING);
	for (i = 0; i < RING - 1; i++) {
		assert_int_equal(g_log.seen[i], i);
	}
	assert_int_equal(g_log.seen[RING - 1], 99);
	assert_int_equal(rt_now_us(rt), t0);
	rt_runtime_destroy(rt);
}

static int g_flag;

static bool
flag_set(void *arg)
{
	(void)arg;
	return g_flag != 0;
}

static void
set_flag(void *arg)
{
	(void)arg;
	g_flag = 1;
}

static struct rt_timer g_t;

static int
arm_on_lcore(void *arg)
{
	rt_timer_init(&g_t, set_flag, NULL);
	rt_timer_arm(&g_t, *(uint64_t *)arg);
	return 0;
}

/* SIM: only time ends this wait, and the waiting thread moves the virtual clock. */
static void
test_wait_for_moves_the_virtual_clock(void **state)
{
	struct rt_runtime *rt = ut_sim(1, RING);
	uint64_t delay = 5 * RT_WAIT_SIM_TICK_US + 1;
	uint64_t t0 = rt_now_us(rt);

	(void)state;
	g_flag = 0;
	assert_int_equal(rt_lcore_call(rt_data_lcore(rt, 0), arm_on_lcore, &delay), 0);
	rt_wait_for(rt, flag_set, NULL);
	assert_int_equal(g_flag, 1);
	assert_true(rt_now_us(rt) - t0 >= delay);
	assert_true(rt_now_us(rt) - t0 <= delay + RT_WAIT_SIM_TICK_US);
	rt_runtime_destroy(rt);
}

/* POLLED: the same wait runs the lcores on the real clock. */
static void
test_wait_for_polled(void **state)
{
	struct rt_runtime_opts o = { .opts_size = sizeof(o), .mode = RT_MODE_POLLED, .n_data = 1 };
	struct rt_runtime *rt = NULL;
	uint64_t delay = 2000;
	uint64_t t0;

	(void)state;
	assert_int_equal(rt_runtime_create(&o, &rt), 0);
	g_flag = 0;
	t0 = rt_now_us(rt);
	assert_int_equal(rt_lcore_call(rt_data_lcore(rt, 0), arm_on_lcore, &delay), 0);
	rt_wait_for(rt, flag_set, NULL);
	assert_int_equal(g_flag, 1);
	assert_true(rt_now_us(rt) - t0 >= delay);
	rt_runtime_stop(rt);
	rt_runtime_destroy(rt);
}

static void
chain(void *ctx)
{
	intptr_t left = (intptr_t)ctx;

	record(ctx);
	if (left > 0) {
		assert_int_equal(rt_lcore_send_msg(rt_mgmt_lcore(rt_lcore_runtime(rt_lcore_self())),
						   chain, (void *)(left - 1)),
				 0);
	}
}

/* One turn runs one round; settling runs what the lcores queue for each other too. */
static void
test_turn_and_settle(void **state)
{
	struct rt_runtime *rt = ut_sim(1, RING);

	(void)state;
	memset(&g_log, 0, sizeof(g_log));
	assert_int_equal(rt_lcore_send_msg(rt_data_lcore(rt, 0), chain, (void *)(intptr_t)5), 0);
	rt_wait_turn(rt);
	assert_true(g_log.n >= 1 && g_log.n < 6);
	rt_wait_settle(rt);
	assert_int_equal(g_log.n, 6);
	assert_int_equal(g_log.seen[5], 0);
	rt_runtime_destroy(rt);
}

/* A look with no time to wait still runs the lcores once, in both modes that poll. */
static void
test_driving_runs_a_round_even_without_time(void **state)
{
	struct rt_runtime_opts o = { .opts_size = sizeof(o), .mode = RT_MODE_POLLED, .n_data = 1 };
	struct rt_runtime *rts[2] = { ut_sim(1, RING), NULL };
	unsigned int i;

	(void)state;
	assert_int_equal(rt_runtime_create(&o, &rts[1]), 0);
	for (i = 0; i < 2; i++) {
		g_flag = 0;
		assert_int_equal(rt_lcore_send_msg(rt_data_lcore(rts[i], 0), set_flag, NULL), 0);
		assert_true(rt_wait_driving(rts[i], flag_set, NULL, 0));
		rt_runtime_destroy(rts[i]);
	}
}

/* SIM: a timeout is spent in virtual time, and ends the wait when nothing comes. */
static void
test_driving_spends_virtual_time(void **state)
{
	struct rt_runtime *rt = ut_sim(1, RING);
	uint64_t t0 = rt_now_us(rt);

	(void)state;
	g_flag = 0;
	assert_false(rt_wait_driving(rt, flag_set, NULL, 7000));
	assert_true(rt_now_us(rt) - t0 >= 7000);
	rt_runtime_destroy(rt);
}

/* Where this thread runs the lcores, a pause would only stop them: there is none. */
static void
test_pace_is_no_pause_where_the_caller_polls(void **state)
{
	struct rt_runtime *rt = ut_sim(1, RING);
	struct timespec a;
	struct timespec b;

	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &a);
	rt_wait_pace(rt, 10 * 1000 * 1000);
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_true(b.tv_sec - a.tv_sec < 2);
	rt_runtime_destroy(rt);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_send_waits_out_a_full_ring),
		cmocka_unit_test(test_wait_for_moves_the_virtual_clock),
		cmocka_unit_test(test_wait_for_polled),
		cmocka_unit_test(test_turn_and_settle),
		cmocka_unit_test(test_pace_is_no_pause_where_the_caller_polls),
		cmocka_unit_test(test_driving_runs_a_round_even_without_time),
		cmocka_unit_test(test_driving_spends_virtual_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
