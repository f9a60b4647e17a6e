/* SPDX-License-Identifier: BSD-3-Clause */
/* THREADS mode on real EAL workers: message counts, calls, pollers, stop drains. */
#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_eal.h>

#include "lnp_test.h"
#include "rt_ut.h"

#define NMSGS 100000

static uint64_t g_received;

static void
count_msg(void *ctx)
{
	(void)ctx;
	g_received++; /* only data lcore 0 writes it */
}

static bool
all_received(void *arg)
{
	return __atomic_load_n(&g_received, __ATOMIC_ACQUIRE) == *(uint64_t *)arg;
}

static int
where_am_i(void *ctx)
{
	*(struct rt_lcore **)ctx = rt_lcore_self();
	return 5;
}

static int g_polls;

static int
poll_fn(void *arg)
{
	(void)arg;
	__atomic_fetch_add(&g_polls, 1, __ATOMIC_RELAXED);
	return RT_POLLER_IDLE;
}

static void
test_threads_messages_calls_stop(void **state)
{
	struct rt_runtime_opts o = { .opts_size = sizeof(o), .mode = RT_MODE_THREADS, .n_data = 2 };
	struct rt_runtime *rt = NULL;
	struct rt_lcore *where = NULL;
	uint64_t want = NMSGS;
	uint64_t i;

	(void)state;
	assert_int_equal(rt_runtime_create(&o, &rt), 0);
	assert_non_null(rt_poller_register(rt_data_lcore(rt, 1), poll_fn, NULL, 0, "p"));
	assert_int_equal(rt_runtime_start(rt), 0);
	assert_int_equal(rt_runtime_start(rt), -EBUSY);
	for (i = 0; i < NMSGS; i++) {
		while (rt_lcore_send_msg(rt_data_lcore(rt, 0), count_msg, NULL) != 0) {
			/* ring full: the worker drains it */
		}
	}
	assert_true(rt_wait_until(rt, all_received, &want, LNP_TEST_WAIT_LIMIT_US));
	assert_int_equal(rt_lcore_call(rt_data_lcore(rt, 1), where_am_i, &where), 5);
	assert_ptr_equal(where, rt_data_lcore(rt, 1));
	assert_true(__atomic_load_n(&g_polls, __ATOMIC_RELAXED) > 0);
	/* Queued when stop is called: still executed before stop returns. */
	assert_int_equal(rt_lcore_send_msg(rt_data_lcore(rt, 0), count_msg, NULL), 0);
	rt_runtime_stop(rt);
	assert_int_equal(g_received, NMSGS + 1);
	rt_runtime_stop(rt); /* idempotent */
	rt_runtime_destroy(rt);
}

/* An application thread: calls the mgmt lcore, which runs on main, then stops it. */
static void *
stopper(void *arg)
{
	struct rt_runtime *rt = arg;
	struct rt_lcore *where = NULL;
	intptr_t ok;

	ok = rt_lcore_call(rt_mgmt_lcore(rt), where_am_i, &where) == 5 &&
	     where == rt_mgmt_lcore(rt);
	rt_runtime_stop(rt);
	return (void *)ok;
}

static void
test_threads_mgmt_on_main(void **state)
{
	struct rt_runtime_opts o = {
		.opts_size = sizeof(o),
		.mode = RT_MODE_THREADS,
		.n_data = 1,
		.mgmt_on_main = true,
	};
	struct rt_runtime *rt = NULL;
	pthread_t th;
	void *ok = NULL;

	(void)state;
	assert_int_equal(rt_runtime_create(&o, &rt), 0);
	assert_int_equal(rt_runtime_run_main(rt), -EINVAL); /* not started */
	assert_int_equal(rt_runtime_start(rt), 0);
	assert_int_equal(pthread_create(&th, NULL, stopper, rt), 0);
	assert_int_equal(rt_runtime_run_main(rt), 0);
	assert_int_equal(pthread_join(th, &ok), 0);
	assert_true(ok != NULL);
	rt_runtime_destroy(rt);
}

static void
test_threads_run_main_needs_opt(void **state)
{
	struct rt_runtime_opts o = { .opts_size = sizeof(o), .mode = RT_MODE_THREADS, .n_data = 1 };
	struct rt_runtime *rt = NULL;

	(void)state;
	assert_int_equal(rt_runtime_create(&o, &rt), 0);
	assert_int_equal(rt_runtime_start(rt), 0);
	assert_int_equal(rt_runtime_run_main(rt), -EINVAL);
	rt_runtime_stop(rt);
	rt_runtime_destroy(rt);
}

static bool
never(void *arg)
{
	(void)arg;
	return false;
}

static void
stamp_msg(void *ctx)
{
	__atomic_store_n((uint64_t *)ctx, rt_now_us(rt_lcore_runtime(rt_lcore_self())),
			 __ATOMIC_RELEASE);
}

static bool
stamped(void *arg)
{
	return __atomic_load_n((uint64_t *)arg, __ATOMIC_ACQUIRE) != 0;
}

struct sleeps_arg {
	struct rt_lcore *lc;
	uint64_t want;
};

/* True once @p arg's lcore's thread has slept (idle) at least want times. */
static bool
slept(void *arg)
{
	struct sleeps_arg *a = arg;
	struct rt_lcore_stats st;

	rt_lcore_stats_get(a->lc, &st);
	return st.sleeps >= a->want;
}

/*
 * A timed-out wait returns false, not before its timeout on the real clock
 * (a lower bound the clock guarantees, whatever the load), and an idle
 * worker that has gone to sleep still picks a message up. How promptly is
 * not asserted: a sleep ends after 1 ms anyway, so a lost wake-up would not
 * show in the delay, and a delay bound fails on a loaded machine.
 */
static void
test_threads_wait_timeout_and_wakeup(void **state)
{
	struct rt_runtime_opts o = { .opts_size = sizeof(o), .mode = RT_MODE_THREADS, .n_data = 1 };
	struct rt_runtime *rt = NULL;
	struct sleeps_arg a;
	uint64_t t0;
	uint64_t ran = 0;

	(void)state;
	assert_int_equal(rt_runtime_create(&o, &rt), 0);
	assert_int_equal(rt_runtime_start(rt), 0);
	t0 = rt_now_us(rt);
	assert_false(rt_wait_until(rt, never, NULL, 30000));
	assert_true(rt_now_us(rt) - t0 >= 30000);
	assert_false(rt_wait_until(rt, never, NULL, 0));
	a = (struct sleeps_arg){ rt_data_lcore(rt, 0), 1 };
	assert_true(rt_wait_until(rt, slept, &a, LNP_TEST_WAIT_LIMIT_US)); /* backed off, asleep */
	assert_int_equal(rt_lcore_send_msg(rt_data_lcore(rt, 0), stamp_msg, &ran), 0);
	assert_true(rt_wait_until(rt, stamped, &ran, LNP_TEST_WAIT_LIMIT_US));
	rt_runtime_stop(rt);
	rt_runtime_destroy(rt);
}

static bool
polls_reached(void *arg)
{
	return __atomic_load_n(&g_polls, __ATOMIC_RELAXED) >= *(int *)arg;
}

static int
read_evfd(void *arg)
{
	int fd = *(int *)arg;
	uint64_t v;

	if (read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v)) {
		__atomic_fetch_add(&g_polls, 1, __ATOMIC_RELAXED);
		return RT_POLLER_BUSY;
	}
	return RT_POLLER_IDLE;
}

/*
 * An idle worker sleeps instead of spinning: once it has slept (200 us
 * without work), every iteration of its loop sleeps until something is
 * ready. Counted, not timed: through 50 of its sleeps it made no more
 * iterations than sleeps (give or take the one under way at each end) and
 * did no work; a loop that spun would make thousands per sleep, one that
 * never slept would not get there. The sleeps are read around the
 * iterations (before them first, after them last), so a delay between the
 * two reads only widens the sleeps' window. A message and a write to the
 * poller's wait fd are then handled: that checks no wake-up is lost for
 * good, not how fast it comes (the 1 ms cap would mask a slow one).
 */
static void
test_threads_idle_sleep_and_wake(void **state)
{
	struct rt_runtime_opts o = { .opts_size = sizeof(o), .mode = RT_MODE_THREADS, .n_data = 1 };
	struct rt_runtime *rt = NULL;
	struct rt_lcore_stats before;
	struct rt_lcore_stats after;
	struct rt_lcore_stats st;
	struct rt_poller *p;
	struct sleeps_arg a;
	uint64_t sleeps0;
	uint64_t ran = 0;
	uint64_t one = 1;
	int want = 1;
	int fd = eventfd(0, EFD_NONBLOCK);

	(void)state;
	assert_true(fd >= 0);
	g_polls = 0;
	assert_int_equal(rt_runtime_create(&o, &rt), 0);
	p = rt_poller_register(rt_data_lcore(rt, 0), read_evfd, &fd, 0, "evfd");
	assert_int_equal(rt_poller_set_wait_fd(p, fd), 0);
	assert_int_equal(rt_poller_set_wait_fd(p, fd), -EINVAL); /* one fd per poller */
	assert_int_equal(rt_runtime_start(rt), 0);
	a = (struct sleeps_arg){ rt_data_lcore(rt, 0), 1 };
	assert_true(rt_wait_until(rt, slept, &a, LNP_TEST_WAIT_LIMIT_US));
	rt_lcore_stats_get(rt_data_lcore(rt, 0), &st);
	sleeps0 = st.sleeps;
	rt_lcore_stats_get(rt_data_lcore(rt, 0), &before);
	a.want = sleeps0 + 50;
	assert_true(rt_wait_until(rt, slept, &a, LNP_TEST_WAIT_LIMIT_US));
	rt_lcore_stats_get(rt_data_lcore(rt, 0), &after);
	rt_lcore_stats_get(rt_data_lcore(rt, 0), &st);
	assert_int_equal(after.busy_loops, before.busy_loops);
	if (after.loops - before.loops > st.sleeps - sleeps0 + 2) {
		fail_msg("idle: %llu iterations, %llu sleeps",
			 (unsigned long long)(after.loops - before.loops),
			 (unsigned long long)(st.sleeps - sleeps0));
	}
	assert_int_equal(rt_lcore_send_msg(rt_data_lcore(rt, 0), stamp_msg, &ran), 0);
	assert_true(rt_wait_until(rt, stamped, &ran, LNP_TEST_WAIT_LIMIT_US));
	assert_int_equal(write(fd, &one, sizeof(one)), (ssize_t)sizeof(one));
	assert_true(rt_wait_until(rt, polls_reached, &want, LNP_TEST_WAIT_LIMIT_US));
	rt_runtime_stop(rt);
	rt_runtime_destroy(rt);
	close(fd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads_messages_calls_stop),
		cmocka_unit_test(test_threads_mgmt_on_main),
		cmocka_unit_test(test_threads_run_main_needs_opt),
		cmocka_unit_test(test_threads_wait_timeout_and_wakeup),
		cmocka_unit_test(test_threads_idle_sleep_and_wake),
	};
	struct lnp_test_eal_args a;
	int rc;

	lnp_test_eal_args_init(&a, "rt-ut", "0,1");
	if (rte_eal_init(a.argc, a.argv) < 0) {
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	rte_eal_cleanup();
	return rc;
}
