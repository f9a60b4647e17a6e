/* SPDX-License-Identifier: BSD-3-Clause */
/* Logical lcores in SIM mode: roles, accessors, the loop iteration, stats. */
#include "rt_ut.h"

static void
test_roles_and_accessors(void **state)
{
	struct rt_runtime *rt = ut_sim(3, 0);
	struct rt_lcore *mgmt = rt_mgmt_lcore(rt);
	int ctx = 7;
	unsigned int i;

	(void)state;
	assert_int_equal(rt_runtime_mode(rt), RT_MODE_SIM);
	assert_int_equal(rt_data_lcore_count(rt), 3);
	assert_int_equal(rt_lcore_role(mgmt), RT_ROLE_MGMT);
	assert_int_equal(rt_lcore_cpt(mgmt), -1);
	assert_ptr_equal(rt_lcore_runtime(mgmt), rt);
	for (i = 0; i < 3; i++) {
		struct rt_lcore *lc = rt_data_lcore(rt, i);

		assert_non_null(lc);
		assert_ptr_not_equal(lc, mgmt);
		assert_int_equal(rt_lcore_role(lc), RT_ROLE_DATA);
		assert_int_equal(rt_lcore_cpt(lc), (int)i);
		assert_ptr_equal(rt_lcore_runtime(lc), rt);
	}
	assert_null(rt_data_lcore(rt, 3));
	assert_null(rt_data_lcore(rt, UINT32_MAX));
	assert_null(rt_lcore_ctx(mgmt));
	rt_lcore_set_ctx(mgmt, &ctx);
	assert_ptr_equal(rt_lcore_ctx(mgmt), &ctx);
	assert_null(rt_lcore_ctx(rt_data_lcore(rt, 0)));
	rt_runtime_destroy(rt);
	rt_runtime_destroy(NULL);
}

static void
test_sim_start_stop_run_main(void **state)
{
	struct rt_runtime *rt = ut_sim(1, 0);

	(void)state;
	assert_int_equal(rt_runtime_start(rt), 0);
	assert_int_equal(rt_runtime_start(rt), 0);
	assert_int_equal(rt_runtime_run_main(rt), -EINVAL);
	rt_runtime_stop(rt);
	rt_runtime_stop(rt);
	rt_runtime_destroy(rt);
}

static struct rt_lcore *g_inner_self;
static struct rt_lcore *g_outer_after;

static void
inner_msg(void *ctx)
{
	(void)ctx;
	g_inner_self = rt_lcore_self();
}

/* Polls another lcore from inside a message: self must be restored after. */
static void
outer_msg(void *ctx)
{
	struct rt_lcore *other = ctx;

	assert_int_equal(rt_lcore_send_msg(other, inner_msg, NULL), 0);
	assert_int_equal(rt_lcore_poll(other), 1);
	g_outer_after = rt_lcore_self();
}

static void
test_self_nested_poll(void **state)
{
	struct rt_runtime *rt = ut_sim(1, 0);
	struct rt_lcore *mgmt = rt_mgmt_lcore(rt);
	struct rt_lcore *dp = rt_data_lcore(rt, 0);

	(void)state;
	assert_null(rt_lcore_self());
	assert_int_equal(rt_lcore_send_msg(mgmt, outer_msg, dp), 0);
	assert_int_equal(rt_lcore_poll(mgmt), 1);
	assert_ptr_equal(g_inner_self, dp);
	assert_ptr_equal(g_outer_after, mgmt);
	assert_null(rt_lcore_self());
	rt_runtime_destroy(rt);
}

static unsigned int g_ran;

static void
count_msg(void *ctx)
{
	(void)ctx;
	g_ran++;
}

static void
test_batch_and_stats(void **state)
{
	struct rt_runtime *rt = ut_sim(1, 64);
	struct rt_lcore *dp = rt_data_lcore(rt, 0);
	struct rt_lcore_stats st;
	unsigned int i;

	(void)state;
	g_ran = 0;
	for (i = 0; i < 40; i++) {
		assert_int_equal(rt_lcore_send_msg(dp, count_msg, NULL), 0);
	}
	/* Bounded work: one iteration runs at most a batch of 32. */
	assert_int_equal(rt_lcore_poll(dp), 32);
	assert_int_equal(g_ran, 32);
	assert_int_equal(rt_lcore_poll(dp), 8);
	assert_int_equal(rt_lcore_poll(dp), 0);
	rt_lcore_stats_get(dp, &st);
	assert_int_equal(st.loops, 3);
	assert_int_equal(st.busy_loops, 2);
	assert_int_equal(st.msgs, 40);
	assert_int_equal(st.timers, 0);
	assert_int_equal(st.send_full, 0);
	rt_lcore_stats_get(rt_mgmt_lcore(rt), &st);
	assert_int_equal(st.loops, 0);
	rt_runtime_destroy(rt);
}

static void
chain_msg(void *ctx)
{
	unsigned int *left = ctx;

	g_ran++;
	if (--(*left) != 0) {
		assert_int_equal(rt_lcore_send_msg(rt_lcore_self(), chain_msg, left), 0);
	}
}

static void
test_poll_until_idle(void **state)
{
	struct rt_runtime *rt = ut_sim(2, 0);
	unsigned int left = 5;

	(void)state;
	g_ran = 0;
	assert_int_equal(rt_runtime_poll_until_idle(rt, 100), 1);
	/* Each round runs one link of the chain; the last round finds nothing. */
	assert_int_equal(rt_lcore_send_msg(rt_data_lcore(rt, 1), chain_msg, &left), 0);
	assert_int_equal(rt_runtime_poll_until_idle(rt, 100), 6);
	assert_int_equal(g_ran, 5);
	left = 5;
	assert_int_equal(rt_lcore_send_msg(rt_data_lcore(rt, 1), chain_msg, &left), 0);
	assert_int_equal(rt_runtime_poll_until_idle(rt, 2), 2);
	assert_int_equal(left, 3);
	rt_runtime_poll_until_idle(rt, 100);
	rt_runtime_destroy(rt);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roles_and_accessors),
		cmocka_unit_test(test_sim_start_stop_run_main),
		cmocka_unit_test(test_self_nested_poll),
		cmocka_unit_test(test_batch_and_stats),
		cmocka_unit_test(test_poll_until_idle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
