/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every field of every kind of event (SEND of a PUT and of a GET, PUT,
 * GET served, ACK, REPLY), each compared whole against what it must say.
 * The peer is a Multi-Rail peer whose messages come from a secondary NID,
 * so the initiator (its primary NID), the source and the sender (the NID
 * they came from) and the target (us) all differ, and lengths, offsets,
 * portals and match bits are chosen so that no field can stand in for
 * another. Events are written at completion from the message itself
 * (lnet_msg.c): this is what holds each kind to its fields.
 */
#include "lnet_ut.h"
#include "lnp_test_nid.h"

#define EV_ME 0x0a000001U      /* 10.0.0.1@tcp: our NI */
#define EV_PRIMARY 0x0a000014U /* 10.0.0.20@tcp: the peer's primary NID */
#define EV_RAIL 0x0a000009U    /* 10.0.0.9@tcp: the peer's NID its messages come from */

/* An LND whose sends complete at once, keeping the header of the last one. */
static struct lnet_hdr g_sent;
static unsigned int g_nsent;
static uint64_t g_last_sequence; /* events' sequence numbers only rise */

static int
ev_send(struct lnet_ni *ni, struct lnet_msg *msg)
{
	(void)ni;
	g_sent = *lnet_msg_hdr(msg);
	g_nsent++;
	lnet_finalize(msg, 0);
	return 0;
}

static const struct lnet_lnd_ops ev_ops = {
	.name = "evlnd",
	.type = 0xfd,
	.startup = ut_lnd_startup_nothing,
	.shutdown = ut_lnd_shutdown_nothing,
	.send = ev_send,
	.recv = ut_lnd_recv_arrived,
};

static int
add_ni_on_mgmt(void *arg)
{
	struct lnet_ni_tunables tun = { .peer_tx_credits = 8, .max_tx_credits = 16 };
	struct lnet_nid nid = lnp_tcp_nid(EV_ME);
	struct lnet_ni *ni;

	(void)arg;
	return lnet_ni_add(lnet_instance(), &nid, &ev_ops, &tun, NULL, 0, &ni);
}

static int
setup(void **state)
{
	struct lnet_nid prim = lnp_tcp_nid(EV_PRIMARY);
	struct lnet_nid rail = lnp_tcp_nid(EV_RAIL);
	char err[128];

	(void)state;
	g_nsent = 0;
	g_last_sequence = 0;
	ut_up(1);
	assert_int_equal(rt_lcore_call(rt_mgmt_lcore(lnet_instance()->rt), add_ni_on_mgmt, NULL),
			 0);
	ut_discovery(0);
	assert_int_equal(lnet_ctl_peer_add(&prim, &rail, 1, true, err, sizeof(err)), 0);
	return 0;
}

static struct lnet_ni *
our_ni(void)
{
	struct lnet_nid nid = lnp_tcp_nid(EV_ME);

	return lnet_ni_find_by_nid(lnet_instance(), &nid);
}

/* @p h arrives from the peer's rail, as a network LND hands it in. */
static void
arrive(struct lnet_hdr *h)
{
	struct lnet_nid rail = lnp_tcp_nid(EV_RAIL);

	h->src_nid = rail;
	h->dest_nid = lnp_tcp_nid(EV_ME);
	h->src_pid = LNET_PID_LUSTRE;
	h->dest_pid = LNET_PID_LUSTRE;
	assert_int_equal(ut_parse(our_ni(), h, &rail, NULL), 0);
	rt_runtime_poll_until_idle(lnet_instance()->rt, 100);
}

static struct lnet_processid
pid_at(uint32_t addr)
{
	struct lnet_processid id = { .nid = lnp_tcp_nid(addr), .pid = LNET_PID_LUSTRE };

	return id;
}

/* What every kind says of its MD, and that it succeeded. */
static struct lnet_event
want_of(enum lnet_event_kind type, struct lnet_handle_md h, void *start, unsigned int options)
{
	struct lnet_event w;

	memset(&w, 0, sizeof(w));
	w.type = type;
	w.md_handle = h;
	w.md_start = start;
	w.md_options = options;
	w.mhealth = LNET_MSG_STATUS_OK;
	return w;
}

/* Who, as a message from the peer names it: its primary NID, its rail, and us. */
static void
want_from_peer(struct lnet_event *w)
{
	w->target = pid_at(EV_ME);
	w->initiator = pid_at(EV_PRIMARY);
	w->source = pid_at(EV_RAIL);
	w->sender = lnp_tcp_nid(EV_RAIL);
}

/* Who, as a SEND of ours names it: us (the NI it went from), and where it went. */
static void
want_sent(struct lnet_event *w, uint32_t to)
{
	w->target = pid_at(to);
	w->initiator = pid_at(EV_ME);
	w->source = pid_at(EV_ME);
}

static void
assert_id_equal(const struct lnet_processid *want, const struct lnet_processid *got)
{
	assert_memory_equal(&want->nid, &got->nid, sizeof(want->nid));
	assert_int_equal(want->pid, got->pid);
}

/* The next event, every field of it (the sequence only rises). */
static void
expect_event(const struct lnet_event *w)
{
	struct lnet_event ev = ut_event();

	assert_int_equal(ev.type, w->type);
	assert_id_equal(&w->target, &ev.target);
	assert_id_equal(&w->initiator, &ev.initiator);
	assert_id_equal(&w->source, &ev.source);
	assert_memory_equal(&w->sender, &ev.sender, sizeof(w->sender));
	assert_int_equal(ev.pt_index, w->pt_index);
	assert_int_equal(ev.match_bits, w->match_bits);
	assert_int_equal(ev.rlength, w->rlength);
	assert_int_equal(ev.mlength, w->mlength);
	assert_int_equal(ev.md_handle.cookie, w->md_handle.cookie);
	assert_ptr_equal(ev.md_start, w->md_start);
	assert_ptr_equal(ev.md_user_ptr, w->md_user_ptr);
	assert_int_equal(ev.md_options, w->md_options);
	assert_int_equal(ev.hdr_data, w->hdr_data);
	assert_int_equal(ev.mhealth, w->mhealth);
	assert_int_equal(ev.status, w->status);
	assert_int_equal(ev.unlinked, w->unlinked);
	assert_int_equal(ev.offset, w->offset);
	assert_true(ev.sequence > g_last_sequence);
	g_last_sequence = ev.sequence;
}

/* A PUT from the peer, truncated into a managed MD at its offset, then ACKed. */
static void
test_put_received(void **state)
{
	char dst[12];
	unsigned int options = LNET_MD_OP_PUT | LNET_MD_MANAGE_REMOTE | LNET_MD_TRUNCATE;
	struct lnet_md md = ut_md(dst, sizeof(dst), LNET_MD_THRESH_INF, options);
	struct lnet_handle_md th = ut_attach(&md, 77, 0, LNET_INS_AFTER, LNET_UNLINK);
	struct lnet_event w = want_of(LNET_EVENT_PUT, th, dst, options);
	struct lnet_hdr h;

	(void)state;
	memset(&h, 0, sizeof(h));
	h.type = LNET_MSG_PUT;
	h.payload_length = 10;
	h.msg.put.ack_wmd.wh_interface_cookie = 0x1122334455667788ULL;
	h.msg.put.ack_wmd.wh_object_cookie = 0x99aabbccddeeff00ULL;
	h.msg.put.match_bits = 77;
	h.msg.put.ptl_index = UT_PORTAL;
	h.msg.put.offset = 4;
	h.msg.put.hdr_data = 0x5a5a;
	arrive(&h);

	want_from_peer(&w);
	w.pt_index = UT_PORTAL;
	w.match_bits = 77;
	w.rlength = 10;
	w.mlength = 8; /* 12 bytes from offset 4 */
	w.hdr_data = 0x5a5a;
	w.offset = 4;
	expect_event(&w);
	ut_no_event();
	assert_int_equal(g_sent.type, LNET_MSG_ACK); /* and its ACK went */
	assert_int_equal(g_sent.msg.ack.mlength, 8);
}

/* Our PUT to the peer's rail: its SEND, and the ACK the peer sends back. */
static void
test_put_sent_and_acked(void **state)
{
	char src[7] = "abcdef";
	struct lnet_handle_md sh = ut_bind(src, sizeof(src), 2);
	struct lnet_processid to = pid_at(EV_RAIL);
	struct lnet_event w = want_of(LNET_EVENT_SEND, sh, src, 0);
	struct lnet_hdr ack;

	(void)state;
	assert_int_equal(LNetPut(NULL, sh, LNET_ACK_REQ, &to, UT_PORTAL, 0x1234, 3, 0xabcdef), 0);
	rt_runtime_poll_until_idle(lnet_instance()->rt, 100);
	want_sent(&w, EV_RAIL);
	w.pt_index = UT_PORTAL;
	w.match_bits = 0x1234;
	w.rlength = sizeof(src);
	w.mlength = sizeof(src);
	w.hdr_data = 0xabcdef;
	w.offset = 3;
	expect_event(&w);
	assert_int_equal(g_sent.type, LNET_MSG_PUT);

	memset(&ack, 0, sizeof(ack));
	ack.type = LNET_MSG_ACK;
	ack.msg.ack.dst_wmd = g_sent.msg.put.ack_wmd;
	ack.msg.ack.match_bits = 0x1234;
	ack.msg.ack.mlength = 5; /* what the peer says it took */
	arrive(&ack);
	w = want_of(LNET_EVENT_ACK, sh, src, 0);
	want_from_peer(&w);
	w.match_bits = 0x1234;
	w.rlength = 5;
	w.mlength = 5;
	w.unlinked = 1; /* threshold 2: SEND and ACK */
	expect_event(&w);
	ut_no_event();
}

/* Our GET from the peer's rail: its SEND, and the REPLY that fills part of the sink. */
static void
test_get_sent_and_replied(void **state)
{
	char sink[16];
	struct lnet_handle_md gh = ut_bind(sink, sizeof(sink), 2);
	struct lnet_processid to = pid_at(EV_RAIL);
	struct lnet_event w = want_of(LNET_EVENT_SEND, gh, sink, 0);
	struct lnet_hdr reply;

	(void)state;
	assert_int_equal(LNetGet(NULL, gh, &to, UT_PORTAL, 0x77, 5, false), 0);
	rt_runtime_poll_until_idle(lnet_instance()->rt, 100);
	want_sent(&w, EV_RAIL);
	w.pt_index = UT_PORTAL;
	w.match_bits = 0x77;
	w.offset = 5; /* rlength and mlength: 0, a GET carries nothing */
	expect_event(&w);
	assert_int_equal(g_sent.type, LNET_MSG_GET);
	assert_int_equal(g_sent.msg.get.sink_length, sizeof(sink));

	memset(&reply, 0, sizeof(reply));
	reply.type = LNET_MSG_REPLY;
	reply.payload_length = 6;
	reply.msg.reply.dst_wmd = g_sent.msg.get.return_wmd;
	arrive(&reply);
	w = want_of(LNET_EVENT_REPLY, gh, sink, 0);
	want_from_peer(&w);
	w.rlength = 6;
	w.mlength = 6;
	w.unlinked = 1;
	expect_event(&w);
	ut_no_event();
}

/* A GET from the peer that an MD of ours serves: its event comes once the REPLY has gone. */
static void
test_get_served(void **state)
{
	char data[16] = "0123456789abcde";
	unsigned int options = LNET_MD_OP_GET | LNET_MD_MANAGE_REMOTE;
	struct lnet_md md = ut_md(data, sizeof(data), 1, options);
	struct lnet_handle_md th = ut_attach(&md, 0x99, 0, LNET_INS_AFTER, LNET_UNLINK);
	struct lnet_event w = want_of(LNET_EVENT_GET, th, data, options);
	struct lnet_hdr h;

	(void)state;
	memset(&h, 0, sizeof(h));
	h.type = LNET_MSG_GET;
	h.msg.get.return_wmd.wh_interface_cookie = 0x0102030405060708ULL;
	h.msg.get.return_wmd.wh_object_cookie = 0x1112131415161718ULL;
	h.msg.get.match_bits = 0x99;
	h.msg.get.ptl_index = UT_PORTAL;
	h.msg.get.src_offset = 2;
	h.msg.get.sink_length = 5;
	arrive(&h);

	assert_int_equal(g_sent.type, LNET_MSG_REPLY);
	assert_int_equal(g_sent.payload_length, 5);
	want_from_peer(&w);
	w.pt_index = UT_PORTAL;
	w.match_bits = 0x99;
	w.rlength = 5;
	w.mlength = 5;
	w.offset = 2;
	w.unlinked = 1; /* threshold 1, unlinked once its message is done */
	expect_event(&w);
	ut_no_event();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_put_received, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_put_sent_and_acked, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_get_sent_and_replied, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_get_served, setup, ut_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
