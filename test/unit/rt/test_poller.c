/* SPDX-License-Identifier: BSD-3-Clause */
/* Pollers: every iteration or per period; busy/idle accounting; unregister. */
#include "rt_ut.h"

struct counter {
	unsigned int calls;
	int ret;
};

static int
count_poll(void *arg)
{
	struct counter *c = arg;

	c->calls++;
	return c->ret;
}

static void
test_every_loop_and_period(void **state)
{
	struct rt_runtime *rt = ut_sim(1, 64);
	struct rt_lcore *d0 = rt_data_lcore(rt, 0);
	struct counter every = { 0, RT_POLLER_IDLE };
	struct counter periodic = { 0, RT_POLLER_BUSY };
	struct rt_poller *p1 = rt_poller_register(d0, count_poll, &every, 0, "every");
	struct rt_poller *p2 = rt_poller_register(d0, count_poll, &periodic, 1000, "periodic");
	struct rt_lcore_stats st;
	unsigned int i;

	(void)state;
	assert_non_null(p1);
	assert_non_null(p2);
	for (i = 0; i < 5; i++) {
		assert_int_equal(rt_lcore_poll(d0), 0); /* idle poller, period not reached */
	}
	assert_int_equal(every.calls, 5);
	assert_int_equal(periodic.calls, 0);
	rt_sim_advance_us(rt, 1000);
	assert_int_equal(rt_lcore_poll(d0), 1);
	assert_int_equal(rt_lcore_poll(d0), 0);
	assert_int_equal(periodic.calls, 1);
	rt_lcore_stats_get(d0, &st);
	assert_int_equal(st.loops, 7);
	assert_int_equal(st.busy_loops, 1);
	rt_poller_unregister(&p1);
	assert_null(p1);
	rt_lcore_poll(d0);
	assert_int_equal(every.calls, 7); /* unregistered: not called again */
	rt_poller_unregister(&p1);        /* NULL: no-op */
	errno = 0;
	assert_null(rt_poller_register(d0, NULL, NULL, 0, "bad"));
	assert_int_equal(errno, EINVAL);
	rt_runtime_destroy(rt); /* frees p2 */
}

static struct rt_poller *g_once;
static unsigned int g_once_calls;

static int
poll_once(void *arg)
{
	(void)arg;
	g_once_calls++;
	rt_poller_unregister(&g_once);
	return RT_POLLER_BUSY;
}

/* A poller may unregister itself from its own callback; the next one still runs. */
static void
test_unregister_self(void **state)
{
	struct rt_runtime *rt = ut_sim(1, 64);
	struct rt_lcore *d0 = rt_data_lcore(rt, 0);
	struct counter after = { 0, RT_POLLER_BUSY };

	(void)state;
	g_once_calls = 0;
	g_once = rt_poller_register(d0, poll_once, NULL, 0, NULL);
	assert_non_null(g_once);
	assert_non_null(rt_poller_register(d0, count_poll, &after, 0, "after"));
	assert_int_equal(rt_lcore_poll(d0), 2);
	assert_null(g_once);
	assert_int_equal(rt_lcore_poll(d0), 1);
	assert_int_equal(g_once_calls, 1);
	assert_int_equal(after.calls, 2);
	errno = 0;
	assert_null(rt_poller_register(NULL, count_poll, &after, 0, "bad"));
	assert_int_equal(errno, EINVAL);
	rt_runtime_destroy(rt);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_loop_and_period),
		cmocka_unit_test(test_unregister_self),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
