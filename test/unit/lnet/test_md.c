/* SPDX-License-Identifier: BSD-3-Clause */
/* MD options, thresholds, unlink and lazy portals, checked through events and bytes. */
#include "lnet_ut.h"

/* PUT @p len bytes of @p src with bits 1; returns the target-side event. */
static struct lnet_event
put_and_get_target_event(const void *src, unsigned int len, unsigned int offset)
{
	struct lnet_handle_md sh = ut_bind((void *)src, len, 1);
	struct lnet_event ev;

	assert_int_equal(ut_put(sh, LNET_NOACK_REQ, 1, offset), 0);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	return ut_event();
}

static void
test_truncate(void **state)
{
	char dst[4];
	struct lnet_md md = ut_md(dst, sizeof(dst), 1, LNET_MD_OP_PUT | LNET_MD_TRUNCATE);
	struct lnet_event ev;

	(void)state;
	ut_attach(&md, 1, 0, LNET_INS_AFTER, LNET_UNLINK);
	ev = put_and_get_target_event("0123456789", 10, 0);
	assert_int_equal(ev.type, LNET_EVENT_PUT);
	assert_int_equal(ev.rlength, 10);
	assert_int_equal(ev.mlength, 4);
	assert_memory_equal(dst, "0123", 4);
}

static void
test_too_big_without_truncate_is_dropped(void **state)
{
	char dst[4];
	struct lnet_md md = ut_md(dst, sizeof(dst), 1, LNET_MD_OP_PUT);
	struct lnet_event ev;

	(void)state;
	ut_attach(&md, 1, 0, LNET_INS_AFTER, LNET_UNLINK);
	ev = put_and_get_target_event("0123456789", 10, 0);
	assert_int_equal(ev.type, 0);
	assert_int_equal(ut_counters().drop_count, 1);
	/* A message that fits still matches: the MD was not consumed. */
	ev = put_and_get_target_event("ab", 2, 0);
	assert_int_equal(ev.type, LNET_EVENT_PUT);
}

static void
test_local_offset_advances(void **state)
{
	char dst[8];
	struct lnet_md md = ut_md(dst, sizeof(dst), LNET_MD_THRESH_INF, LNET_MD_OP_PUT);
	struct lnet_event ev;

	(void)state;
	memset(dst, '.', sizeof(dst));
	ut_attach(&md, 1, 0, LNET_INS_AFTER, LNET_UNLINK);
	ev = put_and_get_target_event("abc", 3, 5); /* remote offset ignored */
	assert_int_equal(ev.offset, 0);
	ev = put_and_get_target_event("def", 3, 0);
	assert_int_equal(ev.offset, 3);
	assert_memory_equal(dst, "abcdef..", 8);
	ev = put_and_get_target_event("ghi", 3, 0); /* only 2 bytes left: dropped */
	assert_int_equal(ev.type, 0);
}

static void
test_manage_remote(void **state)
{
	char dst[8];
	struct lnet_md md =
		ut_md(dst, sizeof(dst), LNET_MD_THRESH_INF, LNET_MD_OP_PUT | LNET_MD_MANAGE_REMOTE);
	struct lnet_event ev;

	(void)state;
	memset(dst, '.', sizeof(dst));
	ut_attach(&md, 1, 0, LNET_INS_AFTER, LNET_UNLINK);
	ev = put_and_get_target_event("xy", 2, 6);
	assert_int_equal(ev.offset, 6);
	ev = put_and_get_target_event("zw", 2, 1);
	assert_int_equal(ev.offset, 1);
	assert_memory_equal(dst, ".zw...xy", 8);
	ev = put_and_get_target_event("12345", 5, 6); /* beyond the end: dropped */
	assert_int_equal(ev.type, 0);
}

/* Several messages into one MD, each at most max_size (the Motr pattern). */
static void
test_max_size_many_messages(void **state)
{
	char dst[10];
	struct lnet_md md =
		ut_md(dst, sizeof(dst), LNET_MD_THRESH_INF, LNET_MD_OP_PUT | LNET_MD_MAX_SIZE);
	struct lnet_handle_md h;
	struct lnet_event ev;

	(void)state;
	md.umd_max_size = 4;
	memset(dst, '.', sizeof(dst));
	h = ut_attach(&md, 1, 0, LNET_INS_AFTER, LNET_UNLINK);
	ev = put_and_get_target_event("aaa", 3, 0);
	assert_int_equal(ev.offset, 0);
	assert_int_equal(ev.unlinked, 0);
	ev = put_and_get_target_event("bbbb", 4, 0);
	assert_int_equal(ev.offset, 3);
	/* 3 bytes remain < max_size: exhausted, auto-unlinked with this event */
	assert_int_equal(ev.unlinked, 1);
	assert_memory_equal(dst, "aaabbbb...", 10);
	assert_int_equal(LNetMDUnlink(h), -ENOENT);
	ev = put_and_get_target_event("c", 1, 0);
	assert_int_equal(ev.type, 0);
}

static void
test_max_size_bounds_one_message(void **state)
{
	char dst[16];
	struct lnet_md md =
		ut_md(dst, sizeof(dst), LNET_MD_THRESH_INF, LNET_MD_OP_PUT | LNET_MD_MAX_SIZE);
	struct lnet_event ev;

	(void)state;
	md.umd_max_size = 4;
	ut_attach(&md, 1, 0, LNET_INS_AFTER, LNET_UNLINK);
	ev = put_and_get_target_event("too long", 8, 0);
	assert_int_equal(ev.type, 0); /* larger than max_size and no TRUNCATE */
	md.umd_options |= LNET_MD_TRUNCATE;
	md.umd_max_size = 17;
	assert_int_equal(LNetMDBind(&md, LNET_UNLINK, &(struct lnet_handle_md){ 0 }), -EINVAL);
}

static void
test_ack_disable(void **state)
{
	char dst[4];
	struct lnet_md md = ut_md(dst, sizeof(dst), 1, LNET_MD_OP_PUT | LNET_MD_ACK_DISABLE);
	struct lnet_handle_md sh;

	(void)state;
	ut_attach(&md, 1, 0, LNET_INS_AFTER, LNET_UNLINK);
	sh = ut_bind("abc", 4, 2);
	assert_int_equal(ut_put(sh, LNET_ACK_REQ, 1, 0), 0);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	assert_int_equal(ut_event().type, LNET_EVENT_PUT);
	ut_no_event(); /* no ACK */
	assert_int_equal(ut_counters().send_count, 1);
}

static void
test_kiov_fragments(void **state)
{
	char a[3];
	char b[5];
	char c[4];
	struct iovec dst_iov[3] = { { a, sizeof(a) }, { b, sizeof(b) }, { c, sizeof(c) } };
	char s1[6] = "ABCDEF";
	char s2[6] = "GHIJKL";
	struct iovec src_iov[2] = { { s1, sizeof(s1) }, { s2, sizeof(s2) } };
	struct lnet_md md = ut_md(dst_iov, 3, 1, LNET_MD_OP_PUT | LNET_MD_KIOV);
	struct lnet_md smd = ut_md(src_iov, 2, 1, LNET_MD_KIOV);
	struct lnet_handle_md sh;
	struct lnet_event ev;

	(void)state;
	ut_attach(&md, 1, 0, LNET_INS_AFTER, LNET_UNLINK);
	assert_int_equal(LNetMDBind(&smd, LNET_UNLINK, &sh), 0);
	assert_int_equal(ut_put(sh, LNET_NOACK_REQ, 1, 0), 0);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_PUT);
	assert_int_equal(ev.mlength, 12);
	assert_memory_equal(a, "ABC", 3);
	assert_memory_equal(b, "DEFGH", 5);
	assert_memory_equal(c, "IJKL", 4);
	/* Invalid fragment lists */
	smd.umd_length = 0;
	assert_int_equal(LNetMDBind(&smd, LNET_UNLINK, &sh), -EINVAL);
	smd.umd_length = LNET_MAX_MD_FRAGS + 1;
	assert_int_equal(LNetMDBind(&smd, LNET_UNLINK, &sh), -EINVAL);
}

static void
test_threshold_and_retain(void **state)
{
	char dst[4];
	struct lnet_md md = ut_md(dst, sizeof(dst), 2, LNET_MD_OP_PUT | LNET_MD_MANAGE_REMOTE);
	struct lnet_handle_md h;
	struct lnet_event ev;

	(void)state;
	h = ut_attach(&md, 1, 0, LNET_INS_AFTER, LNET_RETAIN);
	ev = put_and_get_target_event("a", 1, 0);
	assert_int_equal(ev.unlinked, 0);
	ev = put_and_get_target_event("b", 1, 0);
	assert_int_equal(ev.type, LNET_EVENT_PUT);
	assert_int_equal(ev.unlinked, 0); /* retained though exhausted */
	ev = put_and_get_target_event("c", 1, 0);
	assert_int_equal(ev.type, 0); /* threshold used up: no match */
	assert_int_equal(LNetMDUnlink(h), 0);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_UNLINK);
	assert_int_equal(ev.unlinked, 1);
	assert_int_equal(LNetMDUnlink(h), -ENOENT);
}

static void
test_op_mismatch(void **state)
{
	char dst[4];
	char sink[4];
	struct lnet_md md = ut_md(dst, sizeof(dst), 1, LNET_MD_OP_PUT);

	(void)state;
	ut_attach(&md, 1, 0, LNET_INS_AFTER, LNET_UNLINK);
	assert_int_equal(ut_get(ut_bind(sink, sizeof(sink), 2), 1, 0), 0);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	ut_no_event(); /* no GET, no REPLY */
	assert_int_equal(ut_counters().drop_count, 1);
}

static void
test_reply_truncation(void **state)
{
	char data[8] = "12345678";
	char sink[4];
	struct lnet_md md = ut_md(data, sizeof(data), 1, LNET_MD_OP_GET);
	struct lnet_md smd = ut_md(sink, sizeof(sink), 2, LNET_MD_TRUNCATE);
	struct lnet_handle_md sh;
	struct lnet_event ev;

	(void)state;
	/* The target sends min(sink_length, MD) bytes, so REPLY fits: mlength 4. */
	ut_attach(&md, 1, 0, LNET_INS_AFTER, LNET_UNLINK);
	assert_int_equal(LNetMDBind(&smd, LNET_UNLINK, &sh), 0);
	assert_int_equal(ut_get(sh, 1, 0), 0);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_GET);
	assert_int_equal(ev.mlength, 4);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_REPLY);
	assert_int_equal(ev.mlength, 4);
	assert_memory_equal(sink, "1234", 4);
}

static void
test_unlink_busy_md_reports_on_last_event(void **state)
{
	char src[4] = "abc";
	char dst[4];
	struct lnet_md md = ut_md(dst, sizeof(dst), 1, LNET_MD_OP_PUT);
	struct lnet_handle_md sh;
	struct lnet_event ev;

	(void)state;
	ut_attach(&md, 1, 0, LNET_INS_AFTER, LNET_UNLINK);
	/* Threshold 2 with an ACK: after SEND the MD waits for the ACK. */
	sh = ut_bind(src, sizeof(src), 2);
	assert_int_equal(ut_put(sh, LNET_ACK_REQ, 1, 0), 0);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	assert_int_equal(ut_event().type, LNET_EVENT_PUT);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_ACK);
	assert_int_equal(ev.unlinked, 1);
}

static void
test_lazy_portal_waits_for_md(void **state)
{
	char dst[4];
	struct lnet_md md = ut_md(dst, sizeof(dst), 1, LNET_MD_OP_PUT);
	struct lnet_event ev;

	(void)state;
	assert_int_equal(LNetSetLazyPortal(UT_PORTAL), 0);
	assert_int_equal(ut_put(ut_bind("zzz", 4, 1), LNET_NOACK_REQ, 1, 0), 0);
	/* Over lo the sender completes when the target takes the data: nothing yet. */
	ut_no_event();
	assert_int_equal(ut_counters().drop_count, 0);
	assert_int_equal(ut_counters().msgs_alloc, 2);
	ut_attach(&md, 1, 0, LNET_INS_AFTER, LNET_UNLINK);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_PUT);
	assert_memory_equal(dst, "zzz", 4);
	/* Another one waits, then the portal is cleared: dropped. */
	assert_int_equal(ut_put(ut_bind("yyy", 4, 1), LNET_NOACK_REQ, 1, 0), 0);
	ut_no_event();
	assert_int_equal(LNetClearLazyPortal(UT_PORTAL), 0);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	assert_int_equal(ut_counters().drop_count, 1);
	assert_int_equal(ut_counters().msgs_alloc, 0);
	/* Not lazy any more: dropped at once. */
	ev = put_and_get_target_event("xxx", 4, 0);
	assert_int_equal(ev.type, 0);
	assert_int_equal(ut_counters().drop_count, 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_truncate, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_too_big_without_truncate_is_dropped, ut_setup1,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_local_offset_advances, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_manage_remote, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_max_size_many_messages, ut_setup1,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_max_size_bounds_one_message, ut_setup1,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_ack_disable, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_kiov_fragments, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_threshold_and_retain, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_op_mismatch, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_reply_truncation, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_unlink_busy_md_reports_on_last_event,
						ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_lazy_portal_waits_for_md, ut_setup1,
						ut_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
