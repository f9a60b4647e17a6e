/* SPDX-License-Identifier: BSD-3-Clause */
/* The loopback LND: registered at start-up, moves payload between fragment lists. */
#include "lnet_ut.h"

static void
test_registered(void **state)
{
	const struct lnet_lnd_ops *lo = lnet_lnd_find(LNET_LND_LO);

	(void)state;
	assert_non_null(lo);
	assert_string_equal(lo->name, "lo");
	assert_ptr_equal(lnet_instance()->loni->lnd, lo);
	assert_true(lnet_nid_is_lo0(lnet_ni_nid(lnet_instance()->loni)));
	assert_null(lnet_lnd_find(0xff));
}

/* Fragments on both sides, with a remote offset into the target. */
static void
test_fragments_to_fragments(void **state)
{
	char s0[5] = "01234";
	char s1[7] = "5678901";
	struct iovec src[2] = { { s0, 5 }, { s1, 7 } };
	char d0[4];
	char d1[16];
	struct iovec dst[2] = { { d0, 4 }, { d1, 16 } };
	struct lnet_md tmd =
		ut_md(dst, 2, 1, LNET_MD_OP_PUT | LNET_MD_KIOV | LNET_MD_MANAGE_REMOTE);
	struct lnet_md smd = ut_md(src, 2, 1, LNET_MD_KIOV);
	struct lnet_handle_md sh;
	struct lnet_event ev;

	(void)state;
	memset(d0, '.', sizeof(d0));
	memset(d1, '.', sizeof(d1));
	ut_attach(&tmd, 1, 0, LNET_INS_AFTER, LNET_UNLINK);
	assert_int_equal(LNetMDBind(&smd, LNET_UNLINK, &sh), 0);
	assert_int_equal(ut_put(sh, LNET_NOACK_REQ, 1, 3), 0);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_PUT);
	assert_int_equal(ev.offset, 3);
	assert_int_equal(ev.mlength, 12);
	assert_memory_equal(d0, "...0", 4);
	assert_memory_equal(d1, "12345678901.....", 16);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_registered, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_fragments_to_fragments, ut_setup1,
						ut_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
