/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LNet on real EAL worker threads: two CPTs' data lcores and the management
 * lcore on worker lcore 1, the test on the main lcore. Every PUT+ACK and
 * GET+REPLY completes with the right events and counters; LNetNIFini waits
 * for threads that hold the instance.
 */
#include <pthread.h>
#include <unistd.h>

#include <rte_eal.h>

#include "lnet_ut.h"
#include "lnp_test.h"

#define ROUNDS 2000

static void
test_put_get_rounds_on_threads(void **state)
{
	char src[64];
	char dst[64];
	char sink[64];
	struct lnet_md md = ut_md(dst, sizeof(dst), LNET_MD_THRESH_INF,
				  LNET_MD_OP_PUT | LNET_MD_OP_GET | LNET_MD_MANAGE_REMOTE);
	struct lnet_counters c;
	unsigned int i;

	(void)state;
	assert_int_equal(lnet_instance()->mode, LNET_EXEC_THREADS);
	assert_int_equal(lnet_instance()->ncpts, 2);
	struct lnet_handle_md th = ut_attach(&md, 9, 0, LNET_INS_AFTER, LNET_RETAIN);
	for (i = 0; i < ROUNDS; i++) {
		struct lnet_handle_md sh;

		memset(src, (int)(i & 0x7f), sizeof(src));
		sh = ut_bind(src, sizeof(src), 2);
		assert_int_equal(ut_put(sh, LNET_ACK_REQ, 9, 0), 0);
		ut_events_expect_put_ack(sh, th);
		assert_memory_equal(dst, src, sizeof(src));
		sh = ut_bind(sink, sizeof(sink), 2);
		assert_int_equal(ut_get(sh, 9, 0), 0);
		ut_events_expect_kinds((enum lnet_event_kind[]){ LNET_EVENT_SEND, LNET_EVENT_GET,
								 LNET_EVENT_REPLY },
				       3);
		assert_memory_equal(sink, src, sizeof(src));
	}
	c = ut_counters();
	assert_int_equal(c.send_count, 4 * ROUNDS);
	assert_int_equal(c.recv_count, 4 * ROUNDS);
	assert_int_equal(c.drop_count, 0);
}

struct ut_fini_thread {
	pthread_t tid;
	bool returned; /* atomic */
};

static void *
ut_fini_run(void *arg)
{
	struct ut_fini_thread *f = arg;

	LNetNIFini();
	__atomic_store_n(&f->returned, true, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * A thread holding the instance (a telemetry client of the daemon) keeps
 * LNetNIFini from freeing it; once LNetNIFini has begun a new hold is
 * refused, and after it returns too. The test is the holder: it waits until
 * LNetNIFini reports it found our hold and is waiting on it (a handshake,
 * no time guessed), sees the instance still there, then releases it. Runs last: it takes LNet
 * down and up.
 */
static void
test_fini_waits_for_holders(void **state)
{
	struct ut_fini_thread f = { 0 };
	struct lnet_init_opts o = { .opts_size = sizeof(o), .ncpts = 2 };
	unsigned int waits = lnet_ctl_hold_waits();
	uint64_t t0 = lnp_test_real_us();

	(void)state;
	assert_int_equal(lnet_ctl_hold(), 0);
	assert_int_equal(pthread_create(&f.tid, NULL, ut_fini_run, &f), 0);
	/* Twice: LNetNIFini is in its wait, looking at our hold again and again. */
	while (lnet_ctl_hold_waits() - waits < 2) {
		if (lnp_test_real_us() - t0 > LNP_TEST_WAIT_LIMIT_US) {
			fail_msg("LNetNIFini did not wait for our hold within %llu s",
				 LNP_TEST_WAIT_LIMIT_US / 1000000);
		}
		usleep(1000);
	}
	assert_int_equal(lnet_ctl_hold(), -ESHUTDOWN); /* begun: no new hold */
	/* It waits on our hold, which we have not released: it cannot have returned. */
	assert_false(__atomic_load_n(&f.returned, __ATOMIC_SEQ_CST));
	assert_non_null(lnet_instance()); /* still there for the holder */
	lnet_ctl_release();
	assert_int_equal(pthread_join(f.tid, NULL), 0);
	assert_true(f.returned);
	assert_null(lnet_instance());
	assert_int_equal(lnet_ctl_hold(), -ESHUTDOWN);
	assert_int_equal(LNetEQFree(g_ut.eq), 0); /* its MDs went with LNet */

	assert_int_equal(lnet_init_opts_set(&o), 0);
	assert_int_equal(LNetNIInit(LNET_PID_LUSTRE), 0);
	assert_int_equal(lnet_ctl_hold(), 0);
	lnet_ctl_release();
	g_ut.eq = LNetEQAlloc(UT_EQ_SIZE);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_get_rounds_on_threads),
		cmocka_unit_test(test_fini_waits_for_holders),
	};
	struct lnet_init_opts o = { .opts_size = sizeof(o), .ncpts = 2 };
	struct lnp_test_eal_args a;
	int rc;

	lnp_test_eal_args_init(&a, "lnet-ut", "0,1");
	if (rte_eal_init(a.argc, a.argv) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	if (lnet_init_opts_set(&o) != 0 || LNetNIInit(LNET_PID_LUSTRE) != 0) {
		fprintf(stderr, "LNet init failed\n");
		return 1;
	}
	g_ut.eq = LNetEQAlloc(UT_EQ_SIZE);
	g_ut.self.pid = LNET_PID_LUSTRE;
	lnet_nid_set_lo0(&g_ut.self.nid);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	LNetNIFini();
	LNetEQFree(g_ut.eq);
	rte_eal_cleanup();
	return rc;
}
