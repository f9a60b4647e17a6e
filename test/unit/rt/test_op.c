/* SPDX-License-Identifier: BSD-3-Clause */
/* Serialised operations (rt_op.h) in SIM mode: one at a time, in submission order. */
#include "rt_ut.h"
#include "rt_op.h"
#include "rt_wait.h"

#define SLOW_US 1000U /* op A's length: a timer ends it */

struct op {
	struct rt_op op; /* first: start gets it back */
	char name;
	int rc;
	struct rt_timer slow; /* A: ends on this timer */
};

static struct {
	char events[16]; /* 'A'..: a start; 'a'..: a done */
	unsigned int n;
	uint64_t a_done_at;
} g_log;

static struct rt_op_queue g_q;
static struct rt_runtime *g_rt;

static void
note(char c)
{
	assert_true(g_log.n < sizeof(g_log.events) - 1);
	g_log.events[g_log.n++] = c;
}

static void
finish(struct op *o)
{
	note((char)(o->name - 'A' + 'a'));
	rt_op_done(&o->op, o->rc);
}

static void
slow_over(void *arg)
{
	g_log.a_done_at = rt_now_us(g_rt);
	finish(arg);
}

/* On the queue's lcore: A takes SLOW_US (a timer), the others end where they start. */
static void
op_start(struct rt_op *op)
{
	struct op *o = (struct op *)op;

	assert_ptr_equal(rt_lcore_self(), rt_mgmt_lcore(g_rt));
	note(o->name);
	if (o->name == 'A') {
		rt_timer_init(&o->slow, slow_over, o);
		rt_timer_arm(&o->slow, SLOW_US);
		return;
	}
	finish(o);
}

static struct op g_a = { .name = 'A', .rc = 1 };
static struct op g_b = { .name = 'B', .rc = 2 };
static struct op g_c = { .name = 'C', .rc = 3 };

/* On mgmt: A, B and C queued, as lcores queue operations nobody waits for. */
static void
submit_abc(void *arg)
{
	(void)arg;
	rt_op_submit(&g_q, &g_a.op);
	assert_int_equal(g_log.n, 1); /* A started at once: nothing ran before it */
	rt_op_submit(&g_q, &g_b.op);
	rt_op_submit(&g_q, &g_c.op);
	assert_int_equal(g_log.n, 1); /* B and C wait for A */
}

static void
setup(void)
{
	memset(&g_log, 0, sizeof(g_log));
	g_rt = ut_sim(1, 64);
	rt_op_queue_init(&g_q, rt_mgmt_lcore(g_rt));
	g_a.op.start = op_start;
	g_b.op.start = op_start;
	g_c.op.start = op_start;
}

/*
 * A thread that is no lcore runs D while A, B and C are queued: D starts
 * after all three are done, A's done waits for its timer (virtual time the
 * wait itself moves), and D's rc comes back.
 */
static void
test_ops_run_one_at_a_time_in_order(void **state)
{
	struct op d = { .op.start = op_start, .name = 'D', .rc = -42 };
	uint64_t t0;

	(void)state;
	setup();
	t0 = rt_now_us(g_rt);
	assert_int_equal(rt_lcore_send_msg(rt_mgmt_lcore(g_rt), submit_abc, NULL), 0);
	rt_lcore_poll(rt_mgmt_lcore(g_rt));
	assert_int_equal(rt_op_run(&g_q, &d.op), -42);
	assert_string_equal(g_log.events, "AaBbCcDd");
	assert_true(g_log.a_done_at - t0 >= SLOW_US);
	assert_true(TAILQ_EMPTY(&g_q.ops));
	rt_runtime_destroy(g_rt);
}

static int
run_on_lcore(void *arg)
{
	return rt_op_run(&g_q, arg);
}

/* On a lcore, waiting for an operation would stall the loop that must run it. */
static void
test_op_run_on_a_lcore_is_refused(void **state)
{
	struct op d = { .op.start = op_start, .name = 'D' };

	(void)state;
	setup();
	assert_int_equal(rt_lcore_call(rt_data_lcore(g_rt, 0), run_on_lcore, &d.op), -EDEADLK);
	assert_int_equal(g_log.n, 0);
	rt_runtime_destroy(g_rt);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ops_run_one_at_a_time_in_order),
		cmocka_unit_test(test_op_run_on_a_lcore_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
