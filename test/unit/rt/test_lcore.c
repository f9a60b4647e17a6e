/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Logical lcores in SIM mode: roles, accessors, the loop iteration, stats;
 * and POLLED mode's rounds, which leave out a lcore with nothing due.
 */
#include "rt_internal.h" /* RT_POLLED_SKIP_MAX */
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

static struct rt_runtime *
ut_polled(unsigned int n_data)
{
	struct rt_runtime_opts o = { .opts_size = sizeof(o),
				     .mode = RT_MODE_POLLED,
				     .n_data = n_data };
	struct rt_runtime *rt = NULL;

	assert_int_equal(rt_runtime_create(&o, &rt), 0);
	return rt;
}

static uint64_t
ut_loops(struct rt_lcore *lc)
{
	struct rt_lcore_stats st;

	rt_lcore_stats_get(lc, &st);
	return st.loops;
}

static int
idle_poller(void *arg)
{
	(*(unsigned int *)arg)++;
	return RT_POLLER_IDLE;
}

/*
 * POLLED: a lcore with nothing due is left out of a round, but polled once
 * every RT_POLLED_SKIP_MAX rounds; one with an every-iteration poller is
 * polled in every round.
 */
static void
test_polled_skip_bounded(void **state)
{
	struct rt_runtime *rt = ut_polled(1);
	struct rt_lcore *mgmt = rt_mgmt_lcore(rt);
	struct rt_lcore *d0 = rt_data_lcore(rt, 0);
	unsigned int rounds = 10 * RT_POLLED_SKIP_MAX;
	unsigned int calls = 0;
	struct rt_poller *p;
	unsigned int i;

	(void)state;
	for (i = 0; i < rounds; i++) {
		assert_int_equal(rt_runtime_poll_until_idle(rt, 1), 1);
	}
	assert_int_equal(ut_loops(mgmt), rounds / RT_POLLED_SKIP_MAX);
	assert_int_equal(ut_loops(d0), rounds / RT_POLLED_SKIP_MAX);
	p = rt_poller_register(mgmt, idle_poller, &calls, 0, "every");
	assert_non_null(p);
	for (i = 0; i < rounds; i++) {
		rt_runtime_poll_until_idle(rt, 1);
	}
	assert_int_equal(calls, rounds);
	assert_int_equal(ut_loops(mgmt), rounds / RT_POLLED_SKIP_MAX + rounds);
	assert_int_equal(ut_loops(d0), 2 * (rounds / RT_POLLED_SKIP_MAX));
	rt_poller_unregister(&p);
	rt_runtime_destroy(rt);
}

/*
 * A poller with a pending count is called only while the count is not
 * zero, and with it at zero its lcore is left out of POLLED rounds as if
 * it had no poller; a count that rises brings it back in the next round.
 */
static void
test_poller_pending_count(void **state)
{
	struct rt_runtime *rt = ut_polled(1);
	struct rt_lcore *d0 = rt_data_lcore(rt, 0);
	unsigned int rounds = 10 * RT_POLLED_SKIP_MAX;
	unsigned int calls = 0;
	unsigned int pending = 0;
	struct rt_poller *p = rt_poller_register(d0, idle_poller, &calls, 0, "pending");
	unsigned int i;

	(void)state;
	assert_non_null(p);
	rt_poller_set_pending(p, &pending);
	for (i = 0; i < rounds; i++) {
		rt_runtime_poll_until_idle(rt, 1);
	}
	assert_int_equal(calls, 0);
	assert_int_equal(ut_loops(d0), rounds / RT_POLLED_SKIP_MAX);
	assert_int_equal(rt_lcore_poll(d0), 0); /* polled directly: still not called */
	assert_int_equal(calls, 0);
	pending = 2;
	for (i = 0; i < rounds; i++) {
		rt_runtime_poll_until_idle(rt, 1);
	}
	assert_int_equal(calls, rounds);
	assert_int_equal(ut_loops(d0), rounds / RT_POLLED_SKIP_MAX + 1 + rounds);
	rt_poller_set_pending(p, NULL); /* no count: always due again */
	pending = 0;
	rt_runtime_poll_until_idle(rt, 1);
	assert_int_equal(calls, rounds + 1);
	rt_poller_unregister(&p);
	rt_runtime_destroy(rt);
}

struct stamp {
	struct rt_timer t;
	struct rt_runtime *rt;
	unsigned int fired;
	uint64_t delay_us;
	uint64_t armed_at;
	uint64_t fired_at;
	struct rt_lcore *on;
};

static void
stamp_fire(void *arg)
{
	struct stamp *s = arg;

	s->fired++;
	s->fired_at = rt_now_us(s->rt);
	s->on = rt_lcore_self();
}

static int
stamp_arm(void *ctx)
{
	struct stamp *s = ctx;

	s->armed_at = rt_now_us(s->rt);
	rt_timer_arm(&s->t, s->delay_us);
	return 0;
}

static bool
stamp_fired(void *arg)
{
	return ((struct stamp *)arg)->fired != 0;
}

static void
msg_ran(void *ctx)
{
	(*(unsigned int *)ctx)++;
}

/*
 * POLLED: the management lcore, left out of rounds while it has nothing due,
 * still runs its message and a due timer in the very next round, and a
 * timer armed for later fires (never before its time) while the caller waits.
 */
static void
test_polled_mgmt_timers_and_msgs(void **state)
{
	struct rt_runtime *rt = ut_polled(1);
	struct rt_lcore *mgmt = rt_mgmt_lcore(rt);
	struct stamp s = { .rt = rt };
	unsigned int ran = 0;
	unsigned int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		rt_runtime_poll_until_idle(rt, 1); /* part-way into a run of skips */
	}
	assert_int_equal(rt_lcore_send_msg(mgmt, msg_ran, &ran), 0);
	rt_runtime_poll_until_idle(rt, 1);
	assert_int_equal(ran, 1);
	/* Due at once: the next round polls mgmt and fires it. */
	rt_timer_init(&s.t, stamp_fire, &s);
	assert_int_equal(rt_lcore_call(mgmt, stamp_arm, &s), 0);
	assert_true(rt_timer_pending(&s.t));
	rt_runtime_poll_until_idle(rt, 1);
	assert_int_equal(s.fired, 1);
	assert_ptr_equal(s.on, mgmt);
	/* 3 ms later, while the caller spins: fires, and not early. */
	s.fired = 0;
	s.delay_us = 3000;
	assert_int_equal(rt_lcore_call(mgmt, stamp_arm, &s), 0);
	assert_true(rt_wait_until(rt, stamp_fired, &s, 60 * 1000000ULL));
	assert_int_equal(s.fired, 1);
	assert_true(s.fired_at - s.armed_at >= 3000);
	assert_false(rt_timer_pending(&s.t));
	rt_runtime_destroy(rt);
}

static int
count_periodic(void *arg)
{
	(*(unsigned int *)arg)++;
	return RT_POLLER_IDLE;
}

static bool
twice(void *arg)
{
	return *(unsigned int *)arg >= 2;
}

/* POLLED: a periodic poller on a lcore otherwise skipped still runs when its period is up. */
static void
test_polled_periodic_poller(void **state)
{
	struct rt_runtime *rt = ut_polled(1);
	unsigned int calls = 0;
	struct rt_poller *p =
		rt_poller_register(rt_mgmt_lcore(rt), count_periodic, &calls, 2000, "periodic");

	(void)state;
	assert_non_null(p);
	assert_true(rt_wait_until(rt, twice, &calls, 60 * 1000000ULL));
	rt_poller_unregister(&p);
	rt_runtime_destroy(rt);
}

/* max_gap_us: the time between two iterations of an lcore, up to a reset. */
static void
test_max_gap(void **state)
{
	struct rt_runtime_opts o = { .opts_size = sizeof(o), .mode = RT_MODE_SIM, .n_data = 1 };
	struct rt_runtime *rt = NULL;
	struct rt_lcore *dp;
	struct rt_lcore_stats st;

	(void)state;
	assert_int_equal(rt_runtime_create(&o, &rt), 0);
	dp = rt_data_lcore(rt, 0);
	rt_lcore_poll(dp);
	rt_sim_advance_us(rt, 750);
	rt_lcore_poll(dp);
	rt_sim_advance_us(rt, 200);
	rt_lcore_poll(dp);
	rt_lcore_stats_get(dp, &st);
	assert_int_equal(st.max_gap_us, 750);
	rt_lcore_gap_reset(dp);
	rt_sim_advance_us(rt, 300);
	rt_lcore_poll(dp);
	rt_lcore_stats_get(dp, &st);
	assert_int_equal(st.max_gap_us, 300);
	rt_runtime_destroy(rt);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roles_and_accessors),
		cmocka_unit_test(test_max_gap),
		cmocka_unit_test(test_sim_start_stop_run_main),
		cmocka_unit_test(test_self_nested_poll),
		cmocka_unit_test(test_batch_and_stats),
		cmocka_unit_test(test_poll_until_idle),
		cmocka_unit_test(test_polled_skip_bounded),
		cmocka_unit_test(test_poller_pending_count),
		cmocka_unit_test(test_polled_mgmt_timers_and_msgs),
		cmocka_unit_test(test_polled_periodic_poller),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
