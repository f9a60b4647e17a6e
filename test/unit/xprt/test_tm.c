/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transfer machines over LNet (inline runtime, 0@lo): the state table,
 * start with a given and a dynamic TMID (from 4095 down), each reason a
 * start fails, stop, and the domain's refusals.
 */
#include <sched.h>

#include "xprt_internal.h"
#include "xprt_ut.h"

static void
test_fsm_table(void **state)
{
	(void)state;
	assert_int_equal(xprt_tm_fsm(XPRT_TM_INITIALIZED, XPRT_TMI_START), XPRT_TM_STARTING);
	assert_int_equal(xprt_tm_fsm(XPRT_TM_STARTING, XPRT_TMI_STARTED), XPRT_TM_STARTED);
	assert_int_equal(xprt_tm_fsm(XPRT_TM_STARTING, XPRT_TMI_FAIL), XPRT_TM_FAILED);
	assert_int_equal(xprt_tm_fsm(XPRT_TM_STARTED, XPRT_TMI_STOP), XPRT_TM_STOPPING);
	assert_int_equal(xprt_tm_fsm(XPRT_TM_STOPPING, XPRT_TMI_STOPPED), XPRT_TM_STOPPED);
	/* A start answered after a stop leaves the TM stopping. */
	assert_int_equal(xprt_tm_fsm(XPRT_TM_STOPPING, XPRT_TMI_STARTED), XPRT_TM_STOPPING);
	/* Refusals. */
	assert_int_equal(xprt_tm_fsm(XPRT_TM_STARTED, XPRT_TMI_START), XPRT_TM_UNDEFINED);
	assert_int_equal(xprt_tm_fsm(XPRT_TM_INITIALIZED, XPRT_TMI_STOP), XPRT_TM_UNDEFINED);
	assert_int_equal(xprt_tm_fsm(XPRT_TM_FAILED, XPRT_TMI_START), XPRT_TM_UNDEFINED);
	assert_int_equal(xprt_tm_fsm(XPRT_TM_FAILED, XPRT_TMI_STOP), XPRT_TM_UNDEFINED);
	assert_int_equal(xprt_tm_fsm(XPRT_TM_STOPPED, XPRT_TMI_START), XPRT_TM_UNDEFINED);
	assert_int_equal(xprt_tm_fsm((enum xprt_tm_state)99, XPRT_TMI_START), XPRT_TM_UNDEFINED);
}

static void
test_start_stop(void **state)
{
	struct xprt_dom *dom = ut_x_dom(false);
	struct xprt_tm *tm = ut_x_tm(dom, "0@lo:12345:33:5", false);
	struct xprt_addr a;
	char text[XPRT_ADDR_LEN];

	(void)state;
	assert_int_equal(xprt_tm_addr(tm, &a), 0);
	assert_int_equal(xprt_addr_format(&a, text, sizeof(text)), 15);
	assert_string_equal(text, "0@lo:12345:33:5");
	assert_string_equal(text, "0@lo:12345:33:5");
	assert_int_equal(ut_x_ev(0).te.addr.tmid, 5);
	/* Started already; fini refuses a started TM; the domain refuses to close. */
	assert_int_equal(xprt_tm_start(tm, "0@lo:12345:33:6"), -EINVAL);
	assert_int_equal(xprt_tm_fini(tm), -EBUSY);
	assert_int_equal(xprt_dom_fini(dom), -EBUSY);
	ut_x_tm_down(tm, 0, false);
	assert_int_equal(xprt_dom_fini(dom), 0);
}

/* `*` takes the highest free TMID of the same NID, PID and portal. */
static void
test_dynamic_tmid(void **state)
{
	struct xprt_dom *dom = ut_x_dom(false);
	struct xprt_tm *a = ut_x_tm(dom, "0@lo:12345:33:*", false);
	struct xprt_tm *b = ut_x_tm(dom, "0@lo:12345:33:*", false);
	struct xprt_tm *c = ut_x_tm(dom, "0@lo:12345:34:*", false); /* another portal */
	struct xprt_tm *d;
	struct xprt_addr addr;

	(void)state;
	assert_int_equal(xprt_tm_addr(a, &addr), 0);
	assert_int_equal(addr.tmid, 4095);
	assert_int_equal(xprt_tm_addr(b, &addr), 0);
	assert_int_equal(addr.tmid, 4094);
	assert_int_equal(xprt_tm_addr(c, &addr), 0);
	assert_int_equal(addr.tmid, 4095);
	/* 4095 freed is taken again before 4093. */
	ut_x_tm_down(a, 0, false);
	d = ut_x_tm(dom, "0@lo:12345:33:*", false);
	assert_int_equal(xprt_tm_addr(d, &addr), 0);
	assert_int_equal(addr.tmid, 4095);
	ut_x_tm_down(b, 0, false);
	ut_x_tm_down(c, 0, false);
	ut_x_tm_down(d, 0, false);
	assert_int_equal(xprt_dom_fini(dom), 0);
}

/* Start @p addr on a new TM and expect FAILED with @p status; finalise it. */
static void
expect_start_fails(struct xprt_dom *dom, const char *addr, int status)
{
	unsigned int n = ut_x_count();
	struct xprt_tm *tm;
	struct ut_ev e;

	assert_int_equal(xprt_tm_init(dom, &ut_x_tm_cbs, NULL, &tm), 0);
	assert_int_equal(xprt_tm_start(tm, addr), 0);
	ut_x_wait(n + 1);
	e = ut_x_ev(n);
	assert_true(e.tm);
	assert_int_equal(e.te.next_state, XPRT_TM_FAILED);
	assert_int_equal(e.te.status, status);
	assert_int_equal(xprt_tm_state_get(tm), XPRT_TM_FAILED);
	assert_int_equal(xprt_tm_stop(tm, false), -EINVAL); /* a failed TM only finalises */
	assert_int_equal(xprt_tm_fini(tm), 0);
}

static void
test_start_failures(void **state)
{
	struct xprt_dom *dom = ut_x_dom(false);
	struct xprt_tm *tm = ut_x_tm(dom, "0@lo:12345:33:7", false);
	struct xprt_tm *bad;

	(void)state;
	expect_start_fails(dom, "0@lo:12345:33:7", -EADDRINUSE);
	expect_start_fails(dom, "0@lo:12345:0:8", -EINVAL);         /* LNet's reserved portal */
	expect_start_fails(dom, "0@lo:12345:64:8", -EINVAL);        /* past the portal table */
	expect_start_fails(dom, "0@lo:12346:33:8", -ENOENT);        /* not our PID */
	expect_start_fails(dom, "1.2.3.4@tcp:12345:33:8", -ENOENT); /* not our NID */
	/* What does not parse is refused at once; the TM stays INITIALIZED. */
	assert_int_equal(xprt_tm_init(dom, &ut_x_tm_cbs, NULL, &bad), 0);
	assert_int_equal(xprt_tm_start(bad, "0@lo:12345:33:0"), -EINVAL);
	assert_int_equal(xprt_tm_start(bad, "0@lo:12345:33"), -EINVAL);
	assert_int_equal(xprt_tm_state_get(bad), XPRT_TM_INITIALIZED);
	assert_int_equal(xprt_tm_fini(bad), 0);
	ut_x_tm_down(tm, 0, false);
	assert_int_equal(xprt_dom_fini(dom), 0);
}

static void
test_init_refusals(void **state)
{
	struct xprt_dom_opts o = { .opts_size = sizeof(o), .max_tms = 1 };
	struct xprt_tm_cbs none = { .event = NULL };
	struct xprt_dom *dom;
	struct xprt_tm *tm, *tm2;

	(void)state;
	o.ring_events = 100; /* not a power of two */
	assert_int_equal(xprt_dom_init(&o, &dom), -EINVAL);
	o.ring_events = 0;
	o.opts_size = 1;
	assert_int_equal(xprt_dom_init(&o, &dom), -EINVAL);
	o.opts_size = sizeof(o);
	assert_int_equal(xprt_dom_init(&o, &dom), 0);
	assert_int_equal(xprt_tm_init(dom, &none, NULL, &tm), -EINVAL);
	assert_int_equal(xprt_tm_init(dom, &ut_x_tm_cbs, NULL, &tm), 0);
	assert_int_equal(xprt_tm_init(dom, &ut_x_tm_cbs, NULL, &tm2), -ENOSPC);
	assert_int_equal(xprt_tm_sync_delivery(tm), 0);
	assert_int_equal(xprt_tm_fini(tm), 0);
	assert_int_equal(xprt_dom_fini(dom), 0);
}

/* The engine thread runs only where engine_cpus says; a mask of no usable CPU is refused. */
static void
test_engine_cpus(void **state)
{
	struct xprt_dom_opts o = { .opts_size = sizeof(o) };
	cpu_set_t mine, got;
	struct xprt_dom *dom;
	struct xprt_tm *tm;
	int last = -1;
	int cpu;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(mine), &mine), 0);
	for (cpu = 0; cpu < 64; cpu++) {
		if (CPU_ISSET(cpu, &mine)) {
			last = cpu;
		}
	}
	assert_true(last >= 0);
	o.engine_cpus = UINT64_C(1) << last;
	assert_int_equal(xprt_dom_init(&o, &dom), 0);
	assert_int_equal(pthread_getaffinity_np(dom->engine, sizeof(got), &got), 0);
	assert_int_equal(CPU_COUNT(&got), 1);
	assert_true(CPU_ISSET(last, &got));
	tm = ut_x_tm(dom, "0@lo:12345:33:*", false); /* and it works */
	ut_x_tm_down(tm, 0, false);
	assert_int_equal(xprt_dom_fini(dom), 0);
	if (last < 63 && sysconf(_SC_NPROCESSORS_CONF) < 64) {
		o.engine_cpus = UINT64_C(1) << 63; /* a CPU this machine does not have */
		assert_int_equal(xprt_dom_init(&o, &dom), -EINVAL);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fsm_table),
		cmocka_unit_test_setup_teardown(test_start_stop, ut_x_up, ut_x_down),
		cmocka_unit_test_setup_teardown(test_dynamic_tmid, ut_x_up, ut_x_down),
		cmocka_unit_test_setup_teardown(test_start_failures, ut_x_up, ut_x_down),
		cmocka_unit_test_setup_teardown(test_init_refusals, ut_x_up, ut_x_down),
		cmocka_unit_test_setup_teardown(test_engine_cpus, ut_x_up, ut_x_down),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
