/* SPDX-License-Identifier: BSD-3-Clause */
/* LNet API over 0@lo: init, ids, PUT/ACK, GET/REPLY, events, counters, errors. */
#include <time.h>

#include "lnet_ut.h"

static void
test_init_refcount_and_ids(void **state)
{
	struct lnet_processid id;

	(void)state;
	assert_int_equal(LNetNIInit(LNET_PID_LUSTRE), 1);
	assert_int_equal(LNetNIFini(), 0);
	assert_int_equal(LNetGetId(0, &id, true), 0);
	assert_true(lnet_nid_is_lo0(&id.nid));
	assert_int_equal(id.pid, LNET_PID_LUSTRE);
	assert_int_equal(LNetGetId(1, &id, true), -ENOENT);
	assert_int_equal(LNetGetId(0, NULL, true), -EINVAL);
}

static void
test_opts_rejected_while_up(void **state)
{
	struct lnet_init_opts o = { .opts_size = sizeof(o) };

	(void)state;
	assert_int_equal(lnet_init_opts_set(&o), -EBUSY);
	o.opts_size = 0;
	assert_int_equal(lnet_init_opts_set(&o), -EINVAL);
}

static void
test_put_ack_events(void **state)
{
	char src[32] = "hello, lnet over the loopback";
	char dst[64];
	struct lnet_md md = ut_md(dst, sizeof(dst), 1, LNET_MD_OP_PUT);
	struct lnet_handle_md th = ut_attach(&md, 0x1234, 0, LNET_INS_AFTER, LNET_UNLINK);
	struct lnet_handle_md sh = ut_bind(src, sizeof(src), 2);
	struct lnet_counters c;
	struct lnet_event ev;

	(void)state;
	memset(dst, 0, sizeof(dst));
	assert_int_equal(ut_put(sh, LNET_ACK_REQ, 0x1234, 0), 0);

	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, 0);
	assert_int_equal(ev.mlength, sizeof(src));
	assert_int_equal(ev.md_handle.cookie, sh.cookie);
	assert_int_equal(ev.unlinked, 0);

	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_PUT);
	assert_int_equal(ev.status, 0);
	assert_int_equal(ev.rlength, sizeof(src));
	assert_int_equal(ev.mlength, sizeof(src));
	assert_int_equal(ev.offset, 0);
	assert_int_equal(ev.match_bits, 0x1234);
	assert_int_equal(ev.hdr_data, 0xabcdef);
	assert_int_equal(ev.pt_index, UT_PORTAL);
	assert_int_equal(ev.initiator.pid, LNET_PID_LUSTRE);
	assert_true(lnet_nid_is_lo0(&ev.initiator.nid));
	assert_int_equal(ev.md_handle.cookie, th.cookie);
	assert_int_equal(ev.unlinked, 1); /* threshold 1, auto-unlink */
	assert_memory_equal(dst, src, sizeof(src));

	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_ACK);
	assert_int_equal(ev.mlength, sizeof(src));
	assert_int_equal(ev.match_bits, 0x1234);
	assert_int_equal(ev.unlinked, 1); /* threshold 2 consumed by SEND + ACK */
	ut_no_event();

	c = ut_counters();
	assert_int_equal(c.send_count, 2); /* PUT and ACK */
	assert_int_equal(c.recv_count, 2);
	assert_int_equal(c.send_length, sizeof(src));
	assert_int_equal(c.recv_length, sizeof(src));
	assert_int_equal(c.drop_count, 0);
	assert_int_equal(c.msgs_alloc, 0);
	assert_true(c.msgs_max >= 1);
	/* Both MDs are gone. */
	assert_int_equal(LNetMDUnlink(th), -ENOENT);
	assert_int_equal(LNetMDUnlink(sh), -ENOENT);
}

/*
 * Messages come back from a cache with only their first part zeroed; the
 * header and the event are written whole by whoever makes a message. A
 * GET after a PUT+ACK reuses those messages: nothing of the PUT's event
 * (portal, header data, offset) may show in the ACK, GET, REPLY or SEND.
 */
static void
test_reused_messages_carry_nothing_over(void **state)
{
	char src[8] = "0123456";
	char data[16];
	char sink[16];
	struct lnet_md pmd = ut_md(data, sizeof(data), LNET_MD_THRESH_INF,
				   LNET_MD_OP_PUT | LNET_MD_OP_GET | LNET_MD_MANAGE_REMOTE);
	struct lnet_handle_md sh = ut_bind(src, sizeof(src), 2);
	struct lnet_handle_md gh;
	struct lnet_nid zero;
	struct lnet_event ev;

	(void)state;
	memset(&zero, 0, sizeof(zero));
	memset(data, 'x', sizeof(data));
	ut_attach(&pmd, 0x55, 0, LNET_INS_AFTER, LNET_UNLINK);
	assert_int_equal(ut_put(sh, LNET_ACK_REQ, 0x55, 3), 0);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_memory_equal(&ev.sender, &zero, sizeof(zero));
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_PUT);
	assert_int_equal(ev.hdr_data, 0xabcdef);
	assert_int_equal(ev.offset, 3);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_ACK);
	assert_int_equal(ev.pt_index, 0);
	assert_int_equal(ev.hdr_data, 0);
	assert_int_equal(ev.offset, 0);

	memset(sink, 0, sizeof(sink));
	gh = ut_bind(sink, sizeof(sink), 2);
	assert_int_equal(ut_get(gh, 0x55, 0), 0);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.hdr_data, 0);
	assert_int_equal(ev.offset, 0);
	assert_memory_equal(&ev.sender, &zero, sizeof(zero));
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_GET);
	assert_int_equal(ev.hdr_data, 0);
	assert_int_equal(ev.offset, 0);
	assert_int_equal(ev.pt_index, UT_PORTAL);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_REPLY);
	assert_int_equal(ev.pt_index, 0);
	assert_int_equal(ev.hdr_data, 0);
	assert_int_equal(ev.match_bits, 0);
	assert_int_equal(ev.mlength, sizeof(sink));
	assert_memory_equal(sink, data, sizeof(sink));
	ut_no_event();
	assert_int_equal(ut_counters().msgs_alloc, 0);
}

static void
test_put_noack(void **state)
{
	char src[8] = "abcdefg";
	char dst[8];
	struct lnet_md md = ut_md(dst, sizeof(dst), 1, LNET_MD_OP_PUT);
	struct lnet_handle_md sh;
	struct lnet_event ev;

	(void)state;
	ut_attach(&md, 7, 0, LNET_INS_AFTER, LNET_UNLINK);
	sh = ut_bind(src, sizeof(src), 1);
	assert_int_equal(ut_put(sh, LNET_NOACK_REQ, 7, 0), 0);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.unlinked, 1);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_PUT);
	ut_no_event();
	assert_int_equal(ut_counters().send_count, 1);
}

static void
test_get_reply(void **state)
{
	char data[40];
	char sink[40]; /* a GET asking for more than the MD holds needs TRUNCATE */
	struct lnet_md md = ut_md(data, sizeof(data), 1, LNET_MD_OP_GET);
	struct lnet_handle_md th;
	struct lnet_handle_md sh;
	struct lnet_event ev;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(data); i++) {
		data[i] = (char)('A' + i % 26);
	}
	memset(sink, 0, sizeof(sink));
	th = ut_attach(&md, 0x77, 0, LNET_INS_AFTER, LNET_UNLINK);
	sh = ut_bind(sink, sizeof(sink), 2);
	assert_int_equal(ut_get(sh, 0x77, 0), 0);

	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.md_handle.cookie, sh.cookie);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_GET);
	assert_int_equal(ev.md_handle.cookie, th.cookie);
	assert_int_equal(ev.rlength, sizeof(sink));
	assert_int_equal(ev.mlength, sizeof(data));
	assert_int_equal(ev.match_bits, 0x77);
	assert_int_equal(ev.unlinked, 1);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_REPLY);
	assert_int_equal(ev.mlength, sizeof(data));
	assert_int_equal(ev.rlength, sizeof(data));
	assert_int_equal(ev.unlinked, 1);
	assert_memory_equal(sink, data, sizeof(data));
	ut_no_event();
}

static void
test_get_with_remote_offset(void **state)
{
	char data[16] = "0123456789abcdef";
	char sink[4];
	struct lnet_md md = ut_md(data, sizeof(data), 1, LNET_MD_OP_GET | LNET_MD_MANAGE_REMOTE);
	struct lnet_event ev;

	(void)state;
	ut_attach(&md, 1, 0, LNET_INS_AFTER, LNET_UNLINK);
	assert_int_equal(ut_get(ut_bind(sink, sizeof(sink), 2), 1, 10), 0);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_GET);
	assert_int_equal(ev.offset, 10);
	assert_int_equal(ev.mlength, 4);
	assert_int_equal(ut_event().type, LNET_EVENT_REPLY);
	assert_memory_equal(sink, "abcd", 4);
}

static void
test_mismatch_dropped_and_counted(void **state)
{
	char src[16] = "not for you";
	char dst[16];
	struct lnet_md md = ut_md(dst, sizeof(dst), 1, LNET_MD_OP_PUT);
	struct lnet_handle_md th;
	struct lnet_counters c;
	struct lnet_event ev;

	(void)state;
	memset(dst, 0, sizeof(dst));
	th = ut_attach(&md, 0x10, 0, LNET_INS_AFTER, LNET_UNLINK);
	assert_int_equal(ut_put(ut_bind(src, sizeof(src), 2), LNET_ACK_REQ, 0x11, 0), 0);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, 0); /* the sender cannot tell */
	ut_no_event();                  /* no PUT, no ACK */
	c = ut_counters();
	assert_int_equal(c.drop_count, 1);
	assert_int_equal(c.drop_length, sizeof(src));
	assert_int_equal(c.recv_count, 0);
	assert_int_equal(c.msgs_alloc, 0);
	assert_memory_equal(dst, "\0\0\0\0", 4);
	/* The target MD is untouched and still there. */
	assert_int_equal(LNetMDUnlink(th), 0);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_UNLINK);
	assert_int_equal(ev.unlinked, 1);
	assert_int_equal(ev.md_handle.cookie, th.cookie);
	/* The source MD (threshold 2, one left) too. */
}

static void
test_ignore_bits(void **state)
{
	char src[4] = "xyz";
	char dst[4];
	struct lnet_md md = ut_md(dst, sizeof(dst), LNET_MD_THRESH_INF, LNET_MD_OP_PUT);
	struct lnet_event ev;

	(void)state;
	ut_attach(&md, 0xff00, 0x00ff, LNET_INS_AFTER, LNET_UNLINK);
	assert_int_equal(ut_put(ut_bind(src, sizeof(src), 1), LNET_NOACK_REQ, 0xff42, 0), 0);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_PUT);
	assert_int_equal(ev.match_bits, 0xff42);
	/* A bit outside the ignore mask must match exactly. */
	assert_int_equal(ut_put(ut_bind(src, sizeof(src), 1), LNET_NOACK_REQ, 0xfe42, 0), 0);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	ut_no_event();
	assert_int_equal(ut_counters().drop_count, 1);
}

static void
test_match_id_filters(void **state)
{
	char src[4] = "abc";
	char dst[4];
	struct lnet_md md = ut_md(dst, sizeof(dst), LNET_MD_THRESH_INF, LNET_MD_OP_PUT);
	struct lnet_processid other_pid = { .pid = 999, .nid = LNET_ANY_NID };
	struct lnet_processid other_nid = { .pid = LNET_PID_ANY };
	struct lnet_handle_md h;
	struct lnet_me *me;

	(void)state;
	lnet_nid4_to_nid(LNET_MKNID(LNET_MKNET(LNET_LND_SOCK, 0), 0x0a000001), &other_nid.nid);
	me = LNetMEAttach(UT_PORTAL, &other_pid, 5, 0, LNET_UNLINK, LNET_INS_AFTER);
	assert_non_null(me);
	assert_int_equal(LNetMDAttach(me, &md, LNET_UNLINK, &h), 0);
	me = LNetMEAttach(UT_PORTAL, &other_nid, 5, 0, LNET_UNLINK, LNET_INS_AFTER);
	assert_non_null(me);
	assert_int_equal(LNetMDAttach(me, &md, LNET_UNLINK, &h), 0);
	assert_int_equal(ut_put(ut_bind(src, sizeof(src), 1), LNET_NOACK_REQ, 5, 0), 0);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	ut_no_event();
	assert_int_equal(ut_counters().drop_count, 1);
	/* An ME naming our pid and any NID matches. */
	other_pid.pid = LNET_PID_LUSTRE;
	me = LNetMEAttach(UT_PORTAL, &other_pid, 5, 0, LNET_UNLINK, LNET_INS_AFTER);
	assert_int_equal(LNetMDAttach(me, &md, LNET_UNLINK, &h), 0);
	assert_int_equal(ut_put(ut_bind(src, sizeof(src), 1), LNET_NOACK_REQ, 5, 0), 0);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	assert_int_equal(ut_event().md_handle.cookie, h.cookie);
}

static void
test_unique_wildcard_conflict(void **state)
{
	struct lnet_processid exact = g_ut.self;
	struct lnet_processid any = { .pid = LNET_PID_ANY, .nid = LNET_ANY_NID };
	char buf[4];
	struct lnet_md md = ut_md(buf, sizeof(buf), 1, LNET_MD_OP_PUT);
	struct lnet_handle_md h;
	struct lnet_me *me;

	(void)state;
	me = LNetMEAttach(20, &exact, 1, 0, LNET_UNLINK, LNET_INS_AFTER);
	assert_non_null(me);
	assert_int_equal(LNetMDAttach(me, &md, LNET_UNLINK, &h), 0);
	errno = 0;
	assert_null(LNetMEAttach(20, &any, 1, 0, LNET_UNLINK, LNET_INS_AFTER));
	assert_int_equal(errno, EPERM);
	/* ignore bits make an exact id wildcard too */
	assert_null(LNetMEAttach(20, &exact, 1, 1, LNET_UNLINK, LNET_INS_AFTER));
	assert_int_equal(errno, EPERM);
	me = LNetMEAttach(21, &any, 1, 0, LNET_UNLINK, LNET_INS_AFTER);
	assert_non_null(me);
	free(me);
	assert_null(LNetMEAttach(21, &exact, 1, 0, LNET_UNLINK, LNET_INS_AFTER));
	assert_int_equal(errno, EPERM);
}

static void
test_unique_portal_put(void **state)
{
	char src[4] = "uni";
	char dst[4];
	struct lnet_md md = ut_md(dst, sizeof(dst), 1, LNET_MD_OP_PUT);
	struct lnet_handle_md h;
	struct lnet_me *me;
	struct lnet_event ev;

	(void)state;
	me = LNetMEAttach(UT_PORTAL, &g_ut.self, 99, 0, LNET_UNLINK, LNET_INS_AFTER);
	assert_non_null(me);
	assert_int_equal(LNetMDAttach(me, &md, LNET_UNLINK, &h), 0);
	assert_int_equal(ut_put(ut_bind(src, sizeof(src), 1), LNET_NOACK_REQ, 99, 0), 0);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_PUT);
	assert_int_equal(ev.md_handle.cookie, h.cookie);
	assert_memory_equal(dst, "uni", 4);
}

static void
test_insert_before_after(void **state)
{
	char src[4] = "ord";
	char a[4];
	char b[4];
	char c[4];
	struct lnet_md ma = ut_md(a, sizeof(a), 1, LNET_MD_OP_PUT);
	struct lnet_md mb = ut_md(b, sizeof(b), 1, LNET_MD_OP_PUT);
	struct lnet_md mc = ut_md(c, sizeof(c), 1, LNET_MD_OP_PUT);
	struct lnet_handle_md ha;
	struct lnet_handle_md hb;
	struct lnet_handle_md hc;
	unsigned int i;
	uint64_t want[3];

	(void)state;
	ha = ut_attach(&ma, 3, 0, LNET_INS_AFTER, LNET_UNLINK);
	hb = ut_attach(&mb, 3, 0, LNET_INS_BEFORE, LNET_UNLINK);
	hc = ut_attach(&mc, 3, 0, LNET_INS_AFTER, LNET_UNLINK);
	want[0] = hb.cookie; /* head */
	want[1] = ha.cookie;
	want[2] = hc.cookie;
	for (i = 0; i < 3; i++) {
		struct lnet_event ev;

		assert_int_equal(ut_put(ut_bind(src, sizeof(src), 1), LNET_NOACK_REQ, 3, 0), 0);
		assert_int_equal(ut_event().type, LNET_EVENT_SEND);
		ev = ut_event();
		assert_int_equal(ev.type, LNET_EVENT_PUT);
		assert_int_equal(ev.md_handle.cookie, want[i]);
	}
}

static void
test_bad_arguments(void **state)
{
	struct lnet_processid any = { .pid = LNET_PID_ANY, .nid = LNET_ANY_NID };
	struct lnet_handle_md bogus = { .cookie = 0x1234500 };
	char buf[4];
	struct lnet_md md = ut_md(buf, sizeof(buf), 1, LNET_MD_OP_PUT);
	struct lnet_handle_md h;

	(void)state;
	errno = 0;
	assert_null(LNetMEAttach(LNET_MAX_PORTALS, &any, 0, 0, LNET_UNLINK, LNET_INS_AFTER));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(LNetMDBind(&md, LNET_UNLINK, &h), -EINVAL); /* OP_PUT on a bound MD */
	md.umd_options = 0;
	md.umd_threshold = -5;
	assert_int_equal(LNetMDBind(&md, LNET_UNLINK, &h), -EINVAL);
	md.umd_threshold = 1;
	md.umd_start = NULL;
	assert_int_equal(LNetMDBind(&md, LNET_UNLINK, &h), -EINVAL);
	assert_int_equal(ut_put(bogus, LNET_ACK_REQ, 0, 0), -ENOENT);
	assert_int_equal(ut_get(bogus, 0, 0), -ENOENT);
	assert_int_equal(LNetMDUnlink(bogus), -ENOENT);
	bogus.cookie = 0xff; /* CPT 255 does not exist */
	assert_int_equal(LNetMDUnlink(bogus), -ENOENT);
	assert_int_equal(LNetPut(NULL, bogus, LNET_ACK_REQ, NULL, 0, 0, 0, 0), -EINVAL);
	assert_int_equal(LNetSetLazyPortal(-1), -EINVAL);
	assert_int_equal(LNetClearLazyPortal(LNET_MAX_PORTALS), -EINVAL);
	assert_int_equal(LNetEQPoll(NULL, 1, 0, NULL, NULL), -EINVAL);
	assert_null(LNetEQAlloc(0));
	assert_int_equal(LNetEQFree(NULL), -EINVAL);
	assert_string_equal(lnet_event_kind_str(LNET_EVENT_REPLY), "REPLY");
}

static void
test_put_to_unknown_net_fails_send(void **state)
{
	char src[4] = "far";
	struct lnet_processid far = { .pid = LNET_PID_LUSTRE };
	struct lnet_event ev;

	(void)state;
	lnet_nid4_to_nid(LNET_MKNID(LNET_MKNET(LNET_LND_SOCK, 3), 0x0a000001), &far.nid);
	assert_int_equal(LNetPut(NULL, ut_bind(src, sizeof(src), 1), LNET_ACK_REQ, &far, UT_PORTAL,
				 0, 0, 0),
			 0);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, -EHOSTUNREACH);
	assert_int_equal(ev.unlinked, 1);
	assert_int_equal(ut_counters().local_no_route_count, 1);
}

/*
 * The loopback never puts its header through lnet_parse's checks (LNet
 * built it); its send refuses a payload above LNET_MTU instead, as a
 * receiver refuses one from a wire: the SEND fails, nothing is matched.
 */
static void
test_lo_put_above_mtu_fails_send(void **state)
{
	char *big = calloc(1, LNET_MTU + 1);
	char dst[8];
	struct lnet_md md = ut_md(dst, sizeof(dst), 1, LNET_MD_OP_PUT | LNET_MD_TRUNCATE);
	struct lnet_handle_md th;
	struct lnet_event ev;

	(void)state;
	assert_non_null(big);
	th = ut_attach(&md, 9, 0, LNET_INS_AFTER, LNET_UNLINK);
	assert_int_equal(ut_put(ut_bind(big, LNET_MTU + 1, 1), LNET_ACK_REQ, 9, 0), 0);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, -EPROTO);
	assert_int_equal(ev.unlinked, 1);
	ut_no_event();
	assert_int_equal(ut_counters().recv_count, 0);
	assert_int_equal(ut_counters().msgs_alloc, 0);
	/* At the limit it goes, truncated into the small MD. */
	assert_int_equal(ut_put(ut_bind(big, LNET_MTU, 1), LNET_NOACK_REQ, 9, 0), 0);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_PUT);
	assert_int_equal(ev.rlength, LNET_MTU);
	assert_int_equal(ev.mlength, sizeof(dst));
	assert_int_equal(LNetMDUnlink(th), -ENOENT);
	free(big);
}

static void
test_eq_overflow(void **state)
{
	struct lnet_eq *small = LNetEQAlloc(2);
	char buf[2][4];
	struct lnet_md md;
	struct lnet_handle_md h[4];
	struct lnet_event ev;
	int i;

	(void)state;
	assert_non_null(small);
	for (i = 0; i < 4; i++) {
		md = ut_md(buf[i % 2], 4, 1, 0);
		md.umd_eq_handle = small;
		assert_int_equal(LNetMDBind(&md, LNET_UNLINK, &h[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		assert_int_equal(LNetMDUnlink(h[i]), 0); /* UNLINK event each */
	}
	assert_int_equal(LNetEQPoll(&small, 1, 0, &ev, NULL), -EOVERFLOW);
	assert_int_equal(ev.type, LNET_EVENT_UNLINK);
	assert_int_equal(LNetEQPoll(&small, 1, 0, &ev, NULL), 1);
	assert_int_equal(LNetEQPoll(&small, 1, 0, &ev, NULL), 0);
	assert_int_equal(LNetEQFree(small), 0);
}

/*
 * Two CPTs: each posts into a ring of its own, of the queue's capacity
 * (no drop at twice it), and LNetEQPoll takes from them in turn.
 */
static void
test_two_cpts_eq_rings(void **state)
{
	struct lnet_eq *eq = LNetEQAlloc(2);
	char buf[4];
	struct lnet_md md;
	struct lnet_handle_md h[4];
	struct lnet_event ev;
	unsigned int per_cpt[2] = { 0, 0 };
	unsigned int last_cpt = 2;
	int i;

	(void)state;
	assert_non_null(eq);
	for (i = 0; i < 4; i++) {
		md = ut_md(buf, sizeof(buf), 1, 0);
		md.umd_eq_handle = eq;
		assert_int_equal(LNetMDBind(&md, LNET_UNLINK, &h[i]), 0);
		per_cpt[lnet_cookie_cpt(h[i].cookie)]++;
	}
	assert_int_equal(per_cpt[0], 2);
	assert_int_equal(per_cpt[1], 2);
	for (i = 0; i < 4; i++) {
		assert_int_equal(LNetMDUnlink(h[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		unsigned int cpt;

		assert_int_equal(LNetEQPoll(&eq, 1, 0, &ev, NULL), 1);
		assert_int_equal(ev.type, LNET_EVENT_UNLINK);
		cpt = lnet_cookie_cpt(ev.md_handle.cookie);
		assert_true(cpt != last_cpt); /* in turn: neither ring starves the other */
		last_cpt = cpt;
	}
	assert_int_equal(LNetEQPoll(&eq, 1, 0, &ev, NULL), 0);
	assert_int_equal(LNetEQFree(eq), 0);
}

/* Two CPTs: MDs bound round-robin, wildcard and unique portals. */
static void
test_two_cpts_put_get(void **state)
{
	char src[16] = "cross-cpt data";
	char dst[16];
	char sink[16];
	struct lnet_md md = ut_md(dst, sizeof(dst), LNET_MD_THRESH_INF,
				  LNET_MD_OP_PUT | LNET_MD_OP_GET | LNET_MD_MANAGE_REMOTE);
	struct lnet_handle_md th = ut_attach(&md, 42, 0, LNET_INS_LOCAL, LNET_UNLINK);
	unsigned int cpts_seen = 0;
	int i;

	(void)state;
	assert_int_equal(lnet_cookie_cpt(th.cookie), UT_PORTAL % 2);
	for (i = 0; i < 4; i++) {
		struct lnet_handle_md sh = ut_bind(src, sizeof(src), 2);

		cpts_seen |= 1U << lnet_cookie_cpt(sh.cookie);
		memset(dst, 0, sizeof(dst));
		assert_int_equal(ut_put(sh, LNET_ACK_REQ, 42, 0), 0);
		/* Events of different MDs come from different lcores: only the
		 * initiator's own order (SEND before ACK) is guaranteed. */
		ut_events_expect_put_ack(sh, th);
		assert_memory_equal(dst, src, sizeof(src));
	}
	assert_int_equal(cpts_seen, 3); /* both CPTs sent */
	memset(sink, 0, sizeof(sink));
	assert_int_equal(ut_get(ut_bind(sink, sizeof(sink), 2), 42, 0), 0);
	ut_events_expect_kinds((enum lnet_event_kind[]){ LNET_EVENT_SEND, LNET_EVENT_GET,
							 LNET_EVENT_REPLY },
			       3);
	assert_memory_equal(sink, src, sizeof(src));
	assert_int_equal(ut_counters().msgs_alloc, 0);
}

/* A wildcard ME on a non-home CPT is found after the home CPT is searched. */
static void
test_two_cpts_wildcard_search(void **state)
{
	struct lnet *ln = lnet_instance();
	char src[4] = "far";
	char dst[4];
	struct lnet_md umd = ut_md(dst, sizeof(dst), 1, LNET_MD_OP_PUT);
	struct lnet_processid any = { .pid = LNET_PID_ANY, .nid = LNET_ANY_NID };
	struct lnet_me *me = LNetMEAttach(UT_PORTAL, &any, 8, 0, LNET_UNLINK, LNET_INS_AFTER);
	struct lnet_handle_md h;
	struct lnet_event ev;

	(void)state;
	assert_non_null(me);
	me->cpt = (UT_PORTAL + 1) % 2; /* as LNET_INS_LOCAL from the other CPT's lcore */
	assert_int_equal(LNetMDAttach(me, &umd, LNET_UNLINK, &h), 0);
	assert_int_equal(lnet_cookie_cpt(h.cookie), (UT_PORTAL + 1) % 2);
	assert_int_equal(ut_put(ut_bind(src, sizeof(src), 1), LNET_NOACK_REQ, 8, 0), 0);
	ev = ut_event();
	if (ev.type == LNET_EVENT_SEND) {
		ev = ut_event();
	} else {
		assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	}
	assert_int_equal(ev.type, LNET_EVENT_PUT);
	assert_int_equal(ev.md_handle.cookie, h.cookie);
	assert_int_equal(ln->ncpts, 2);
}

/* The ping target answers a GET on portal 0 with this node's ping info. */
static void
test_ping_target(void **state)
{
	uint8_t sink[4096];
	struct lnet_md md = ut_md(sink, sizeof(sink), 2, LNET_MD_TRUNCATE);
	struct lnet_ping_decoded d;
	struct lnet_handle_md h;
	struct lnet_event ev;

	(void)state;
	assert_int_equal(LNetMDBind(&md, LNET_UNLINK, &h), 0);
	assert_int_equal(LNetGet(NULL, h, &g_ut.self, LNET_RESERVED_PORTAL,
				 LNET_PROTO_PING_MATCHBITS, 0, false),
			 0);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_REPLY);
	assert_int_equal(ev.mlength, 32); /* header + 0@lo */
	assert_int_equal(lnet_ping_info_decode(sink, ev.mlength, 16, &d, NULL, 0), 0);
	assert_int_equal(d.pid, LNET_PID_LUSTRE);
	assert_int_equal(d.seqno, 1);
	assert_int_equal(d.features, LNET_PING_FEAT_NI_STATUS | LNET_PING_FEAT_RTE_DISABLED |
					     LNET_PING_FEAT_MULTI_RAIL | LNET_PING_FEAT_DISCOVERY);
	assert_int_equal(d.nnis_total, 0);
	/* Pushes have an MD of their own (test_push.c): nothing on portal 0 waits. */
	assert_false(lnet_ptl_is_lazy(lnet_instance(), LNET_RESERVED_PORTAL));
}

struct handler_log {
	unsigned int calls;
	enum lnet_event_kind kinds[4];
	struct rt_lcore *lcores[4];
};

static struct handler_log g_hlog;

static void
record_event(struct lnet_event *ev)
{
	if (g_hlog.calls < 4) {
		g_hlog.kinds[g_hlog.calls] = ev->type;
		g_hlog.lcores[g_hlog.calls] = rt_lcore_self();
	}
	g_hlog.calls++;
}

/* The MD's handler runs on the data lcore that owns the MD, before the EQ sees the event. */
static void
test_handler_runs_on_owner_lcore(void **state)
{
	struct lnet *ln = lnet_instance();
	char src[8] = "handler";
	char dst[8];
	struct lnet_md tmd = ut_md(dst, sizeof(dst), 1, LNET_MD_OP_PUT);
	struct lnet_md smd = ut_md(src, sizeof(src), 2, 0);
	struct lnet_handle_md th;
	struct lnet_handle_md sh;
	unsigned int i;

	(void)state;
	memset(&g_hlog, 0, sizeof(g_hlog));
	tmd.umd_handler = record_event;
	tmd.umd_eq_handle = NULL;
	smd.umd_handler = record_event;
	th = ut_attach(&tmd, 5, 0, LNET_INS_AFTER, LNET_UNLINK);
	assert_int_equal(LNetMDBind(&smd, LNET_UNLINK, &sh), 0);
	assert_int_equal(ut_put(sh, LNET_ACK_REQ, 5, 0), 0);
	ut_events_expect_kinds((enum lnet_event_kind[]){ LNET_EVENT_SEND, LNET_EVENT_ACK }, 2);
	ut_no_event(); /* the target MD has no EQ */
	assert_int_equal(g_hlog.calls, 3);
	for (i = 0; i < 3; i++) {
		uint64_t cookie = g_hlog.kinds[i] == LNET_EVENT_PUT ? th.cookie : sh.cookie;

		assert_non_null(g_hlog.lcores[i]);
		assert_ptr_equal(g_hlog.lcores[i], ln->cpts[lnet_cookie_cpt(cookie)]->lcore);
	}
}

/* Inline mode honours LNetEQPoll's timeout in virtual time, and timers due within it fire. */
static void
test_eq_poll_timeout_spends_virtual_time(void **state)
{
	struct rt_runtime *rt = lnet_instance()->rt;
	struct lnet_event ev;
	uint64_t t0 = rt_now_us(rt);

	(void)state;
	assert_int_equal(LNetEQPoll(&g_ut.eq, 1, 300, &ev, NULL), 0);
	assert_int_equal(rt_now_us(rt) - t0, 300000);
	assert_int_equal(LNetEQPoll(&g_ut.eq, 1, 0, &ev, NULL), 0);
	assert_int_equal(rt_now_us(rt) - t0, 300000);
}

/*
 * With no options and no EAL, LNet runs on the real clock (polled on the
 * caller's thread): a 300 ms wait takes 300 ms, and the wrong combinations
 * fail loudly.
 */
static void
test_default_mode_is_the_real_clock(void **state)
{
	struct lnet_init_opts o = { .opts_size = sizeof(o) };
	struct lnet_eq *eq = LNetEQAlloc(4);
	struct lnet_event ev;
	struct timespec a, b;
	long ms;

	(void)state;
	assert_int_equal(lnet_init_opts_set(&o), 0);
	assert_int_equal(LNetNIInit(LNET_PID_LUSTRE), 0);
	assert_int_equal(lnet_instance()->mode, LNET_EXEC_POLLED);
	clock_gettime(CLOCK_MONOTONIC, &a);
	assert_int_equal(LNetEQPoll(&eq, 1, 300, &ev, NULL), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
	assert_true(ms >= 300);
	assert_int_equal(LNetNIFini(), 0);
	assert_int_equal(LNetEQFree(eq), 0);

	o.no_eal = true;
	o.mode = LNET_EXEC_THREADS;
	assert_int_equal(lnet_init_opts_set(&o), 0);
	assert_int_equal(LNetNIInit(LNET_PID_LUSTRE), -EINVAL);
	o.mode = LNET_EXEC_AUTO;
	o.eal_args = "-l 0,1";
	assert_int_equal(lnet_init_opts_set(&o), 0);
	assert_int_equal(LNetNIInit(LNET_PID_LUSTRE), -EINVAL);
	assert_null(lnet_instance());
	o = (struct lnet_init_opts){ .opts_size = sizeof(o) };
	assert_int_equal(lnet_init_opts_set(&o), 0);
}

#define OUTBOX_MSGS 5000U /* more than a data lcore's ring holds (4096) */

struct outbox_test {
	struct lnet_msg *msgs[OUTBOX_MSGS];
};

static int
outbox_alloc_on_cpt0(void *arg)
{
	struct outbox_test *t = arg;
	unsigned int i;

	for (i = 0; i < OUTBOX_MSGS; i++) {
		t->msgs[i] = lnet_msg_alloc(lnet_cpt_get(lnet_instance(), 0));
		assert_non_null(t->msgs[i]);
	}
	return 0;
}

/* On the management lcore: hand every message back to CPT 0 at once. */
static int
outbox_free_on_mgmt(void *arg)
{
	struct outbox_test *t = arg;
	unsigned int i;

	for (i = 0; i < OUTBOX_MSGS; i++) {
		lnet_msg_free(t->msgs[i]);
	}
	return 0;
}

/*
 * The management lcore hands more messages to a data lcore than its ring
 * holds (as net del finalizing a long queue does): the rest wait in its
 * outbox and all arrive; nothing aborts, nothing is lost.
 */
static void
test_mgmt_handoff_survives_a_full_ring(void **state)
{
	static struct outbox_test t;
	struct lnet *ln = lnet_instance();

	(void)state;
	assert_int_equal(lnet_call_on_cpt(ln, 0, outbox_alloc_on_cpt0, &t), 0);
	assert_int_equal(ut_counters().msgs_alloc, OUTBOX_MSGS);
	assert_int_equal(rt_lcore_call(rt_mgmt_lcore(ln->rt), outbox_free_on_mgmt, &t), 0);
	assert_true(rt_outbox_waiting(&ln->mgmt_outbox, 0)); /* the ring filled up */
	rt_runtime_poll_until_idle(ln->rt, UINT32_MAX);
	assert_false(rt_outbox_waiting(&ln->mgmt_outbox, 0));
	assert_int_equal(ut_counters().msgs_alloc, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_init_refcount_and_ids, ut_setup1, ut_teardown),
		cmocka_unit_test(test_default_mode_is_the_real_clock),
		cmocka_unit_test_setup_teardown(test_mgmt_handoff_survives_a_full_ring, ut_setup2,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_eq_poll_timeout_spends_virtual_time, ut_setup1,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_opts_rejected_while_up, ut_setup1,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_put_ack_events, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_put_noack, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_reused_messages_carry_nothing_over, ut_setup1,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_get_reply, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_get_with_remote_offset, ut_setup1,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_mismatch_dropped_and_counted, ut_setup1,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_ignore_bits, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_match_id_filters, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_unique_wildcard_conflict, ut_setup1,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_unique_portal_put, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_insert_before_after, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_bad_arguments, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_lo_put_above_mtu_fails_send, ut_setup1,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_put_to_unknown_net_fails_send, ut_setup1,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_eq_overflow, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_put_ack_events, ut_setup2, ut_teardown),
		cmocka_unit_test_setup_teardown(test_get_reply, ut_setup2, ut_teardown),
		cmocka_unit_test_setup_teardown(test_two_cpts_eq_rings, ut_setup2, ut_teardown),
		cmocka_unit_test_setup_teardown(test_two_cpts_put_get, ut_setup2, ut_teardown),
		cmocka_unit_test_setup_teardown(test_two_cpts_wildcard_search, ut_setup2,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_ping_target, ut_setup1, ut_teardown),
		cmocka_unit_test_setup_teardown(test_ping_target, ut_setup2, ut_teardown),
		cmocka_unit_test_setup_teardown(test_handler_runs_on_owner_lcore, ut_setup1,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_handler_runs_on_owner_lcore, ut_setup2,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_mismatch_dropped_and_counted, ut_setup2,
						ut_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
