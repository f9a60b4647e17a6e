/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stall watchdog: a poll of a lcore that runs past the threshold is
 * counted once, with the step it was in (its kind and function), measured
 * while it goes on, and seen to end. Each stalled step here waits for the
 * watchdog's own verdict (bounded at 10 s), so nothing depends on timing.
 */
#include <pthread.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rte_eal.h>

#include "lnp_test.h"
#include "rt_ut.h"

/* Far above a descheduled thread's gap on a busy shared machine, far below the bound. */
#define THRESHOLD_US 100000ULL
#define VERDICT_BOUND_US (10ULL * 1000 * 1000)

struct stall {
	struct rt_lcore *lc;    /* the lcore that stalls */
	uint64_t stalls_before; /* its count when the step began */
	int armed;              /* atomic: the poller stalls once when set */
	int counted;            /* atomic: the watchdog counted it in time */
};

/* Spin until the watchdog has counted one more stall of @p s->lc (or the bound). */
static void
stall_until_counted(struct stall *s)
{
	struct rt_runtime *rt = rt_lcore_runtime(s->lc);
	uint64_t t0 = rt_now_us(rt);
	struct rt_lcore_stalls st;

	do {
		sched_yield();
		rt_lcore_stalls_get(s->lc, &st);
	} while (st.stalls == s->stalls_before && rt_now_us(rt) - t0 < VERDICT_BOUND_US);
	__atomic_store_n(&s->counted, st.stalls == s->stalls_before + 1 && st.ongoing,
			 __ATOMIC_RELEASE);
}

static int
stalling_poller(void *arg)
{
	struct stall *s = arg;

	if (__atomic_exchange_n(&s->armed, 0, __ATOMIC_ACQ_REL) != 0) {
		stall_until_counted(s);
		return RT_POLLER_BUSY;
	}
	return RT_POLLER_IDLE;
}

static void
stalling_msg(void *arg)
{
	stall_until_counted(arg);
}

static void
stalling_timer(void *arg)
{
	stall_until_counted(arg);
}

static int
arm_now(void *arg)
{
	rt_timer_arm(arg, 0);
	return 0;
}

static int
nop(void *arg)
{
	(void)arg;
	return 0;
}

static bool
verdict_in(void *arg)
{
	return __atomic_load_n(&((struct stall *)arg)->counted, __ATOMIC_ACQUIRE) >= 0;
}

static bool
stall_over(void *arg)
{
	struct rt_lcore_stalls st;

	rt_lcore_stalls_get(((struct stall *)arg)->lc, &st);
	return !st.ongoing;
}

static void
stall_begin(struct stall *s)
{
	struct rt_lcore_stalls st;

	rt_lcore_stalls_get(s->lc, &st);
	s->stalls_before = st.stalls;
	__atomic_store_n(&s->counted, -1, __ATOMIC_RELEASE);
}

/* The stall was counted once, as @p step in @p fn, and is over; its length is kept. */
static void
assert_stall(struct rt_runtime *rt, struct stall *s, enum rt_step step, const void *fn)
{
	struct rt_lcore_stalls st;

	assert_true(rt_wait_until(rt, verdict_in, s, VERDICT_BOUND_US));
	assert_int_equal(__atomic_load_n(&s->counted, __ATOMIC_ACQUIRE), 1);
	assert_true(rt_wait_until(rt, stall_over, s, VERDICT_BOUND_US));
	rt_lcore_stalls_get(s->lc, &st);
	assert_int_equal(st.stalls, s->stalls_before + 1); /* looked at many times, counted once */
	assert_int_equal(st.last_step, step);
	assert_ptr_equal(st.last_fn, fn);
	assert_true(st.last_us > THRESHOLD_US);
	assert_true(st.longest_us >= st.last_us);
	assert_false(st.ongoing);
	/* it spins: running or preempted ('R'; 0 in POLLED, whose thread the watchdog does not know) */
	assert_true(st.last_state == 'R' || st.last_state == 0);
	assert_int_equal(st.blocked, 0); /* not in a system call that waits */
}

static struct rt_runtime *
threads_runtime(uint64_t stall_us)
{
	struct rt_runtime_opts o = {
		.opts_size = sizeof(o),
		.mode = RT_MODE_THREADS,
		.n_data = 1,
		.stall_us = stall_us,
	};
	struct rt_runtime *rt = NULL;

	assert_int_equal(rt_runtime_create(&o, &rt), 0);
	return rt;
}

/* A poller, a message and a timer that stall a data lcore: each counted with what it was. */
static void
test_watchdog_sees_each_kind_of_step(void **state)
{
	struct rt_runtime *rt = threads_runtime(THRESHOLD_US);
	struct stall s = { .lc = rt_data_lcore(rt, 0) };
	struct rt_timer t;

	(void)state;
	assert_int_equal(rt_watchdog_threshold_us(rt), THRESHOLD_US);
	assert_non_null(rt_poller_register(s.lc, stalling_poller, &s, 0, "stalls"));
	assert_int_equal(rt_runtime_start(rt), 0);

	stall_begin(&s);
	__atomic_store_n(&s.armed, 1, __ATOMIC_RELEASE);
	assert_stall(rt, &s, RT_STEP_POLLER, (const void *)stalling_poller);

	stall_begin(&s);
	assert_int_equal(rt_lcore_send_msg(s.lc, stalling_msg, &s), 0);
	assert_stall(rt, &s, RT_STEP_MSG, (const void *)stalling_msg);

	rt_timer_init(&t, stalling_timer, &s);
	stall_begin(&s);
	assert_int_equal(rt_lcore_call(s.lc, arm_now, &t), 0);
	assert_stall(rt, &s, RT_STEP_TIMER, (const void *)stalling_timer);

	rt_runtime_stop(rt);
	rt_runtime_destroy(rt); /* the watchdog stops with it */
}

static int g_blocking_fd = -1;

/* A poller that blocks in read() on a blocking eventfd: a lcore in a system call. */
static int
blocking_poller(void *arg)
{
	struct stall *s = arg;
	uint64_t v;

	if (__atomic_exchange_n(&s->armed, 0, __ATOMIC_ACQ_REL) == 0) {
		return RT_POLLER_IDLE;
	}
	return read(g_blocking_fd, &v, sizeof(v)) == (ssize_t)sizeof(v) ? RT_POLLER_BUSY :
									  RT_POLLER_IDLE;
}

static bool
counted(void *arg)
{
	struct stall *s = arg;
	struct rt_lcore_stalls st;

	rt_lcore_stalls_get(s->lc, &st);
	return st.stalls > s->stalls_before;
}

/*
 * The stall report says where the thread is: blocked ('S') in read(2), the
 * evidence that tells a blocking call on a lcore from a preempted thread.
 */
static void
test_watchdog_names_the_blocking_syscall(void **state)
{
	struct rt_runtime *rt = threads_runtime(THRESHOLD_US);
	struct stall s = { .lc = rt_data_lcore(rt, 0) };
	struct rt_lcore_stalls st;
	uint64_t one = 1;

	(void)state;
	g_blocking_fd = eventfd(0, EFD_CLOEXEC); /* blocking: read() waits for our write */
	assert_true(g_blocking_fd >= 0);
	assert_non_null(rt_poller_register(s.lc, blocking_poller, &s, 0, "blocks"));
	assert_int_equal(rt_runtime_start(rt), 0);
	stall_begin(&s);
	__atomic_store_n(&s.armed, 1, __ATOMIC_RELEASE);
	assert_true(rt_wait_until(rt, counted, &s, VERDICT_BOUND_US));
	rt_lcore_stalls_get(s.lc, &st);
	assert_int_equal(st.last_step, RT_STEP_POLLER);
	assert_ptr_equal(st.last_fn, (const void *)blocking_poller);
	assert_int_equal(st.last_state, 'S');
	assert_int_equal(st.last_syscall, SYS_read);
	assert_int_equal(st.blocked, 1); /* counted as the code's, not the host's */
	assert_int_equal(write(g_blocking_fd, &one, sizeof(one)), (ssize_t)sizeof(one));
	assert_true(rt_wait_until(rt, stall_over, &s, VERDICT_BOUND_US));
	rt_runtime_stop(rt);
	rt_runtime_destroy(rt);
	close(g_blocking_fd);
}

/* Polls shorter than the threshold are no stalls, however many. */
static void
test_watchdog_quiet_when_polls_are_short(void **state)
{
	struct rt_runtime *rt = threads_runtime(20 * THRESHOLD_US);
	struct rt_lcore_stalls st;
	unsigned int i;

	(void)state;
	assert_int_equal(rt_runtime_start(rt), 0);
	for (i = 0; i < 1000; i++) {
		assert_int_equal(rt_lcore_call(rt_data_lcore(rt, 0), nop, NULL), 0);
	}
	rt_runtime_stop(rt);
	rt_lcore_stalls_get(rt_data_lcore(rt, 0), &st);
	assert_int_equal(st.stalls, 0);
	rt_lcore_stalls_get(rt_mgmt_lcore(rt), &st);
	assert_int_equal(st.stalls, 0);
	rt_runtime_destroy(rt);
}

/* POLLED: the application's thread polls; a stall inside its poll is watched as well. */
static void
test_watchdog_polled_mode(void **state)
{
	struct rt_runtime_opts o = {
		.opts_size = sizeof(o),
		.mode = RT_MODE_POLLED,
		.n_data = 1,
		.stall_us = THRESHOLD_US,
	};
	struct rt_runtime *rt = NULL;
	struct stall s;

	(void)state;
	assert_int_equal(rt_runtime_create(&o, &rt), 0);
	s = (struct stall){ .lc = rt_data_lcore(rt, 0) };
	assert_non_null(rt_poller_register(s.lc, stalling_poller, &s, 0, "stalls"));
	stall_begin(&s);
	__atomic_store_n(&s.armed, 1, __ATOMIC_RELEASE);
	rt_lcore_poll(s.lc); /* returns once the watchdog counted the stall */
	assert_stall(rt, &s, RT_STEP_POLLER, (const void *)stalling_poller);
	rt_runtime_destroy(rt);
}

/* A virtual clock has no stalls; stall_us 0 asks for no watchdog. */
static void
test_watchdog_off(void **state)
{
	struct rt_runtime_opts o = {
		.opts_size = sizeof(o),
		.mode = RT_MODE_SIM,
		.n_data = 1,
		.stall_us = THRESHOLD_US,
	};
	struct rt_runtime *rt = NULL;

	(void)state;
	assert_int_equal(rt_runtime_create(&o, &rt), 0);
	assert_int_equal(rt_watchdog_threshold_us(rt), 0);
	rt_runtime_destroy(rt);
	rt = threads_runtime(0);
	assert_int_equal(rt_watchdog_threshold_us(rt), 0);
	rt_runtime_destroy(rt);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_watchdog_sees_each_kind_of_step),
		cmocka_unit_test(test_watchdog_names_the_blocking_syscall),
		cmocka_unit_test(test_watchdog_quiet_when_polls_are_short),
		cmocka_unit_test(test_watchdog_polled_mode),
		cmocka_unit_test(test_watchdog_off),
	};
	struct lnp_test_eal_args a;
	int rc;

	lnp_test_eal_args_init(&a, "rt-wd", "0,1");
	if (rte_eal_init(a.argc, a.argv) < 0) {
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	rte_eal_cleanup();
	return rc;
}
