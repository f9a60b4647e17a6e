/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Credits, queueing and the LND contract, with a "hold" LND that keeps
 * every message until the test completes it, and headers injected through
 * lnet_parse as a network LND would.
 */
#include <arpa/inet.h>

#include "lnet_ut.h"
#include "lnp_test_nid.h"

#define HOLD_MAX 16

struct hold_rx {
	struct lnet_msg *msg;
	const struct iovec *iov;
	unsigned int niov;
	unsigned int offset;
	unsigned int mlen;
	unsigned int rlen;
	bool called;
};

struct hold_lnd {
	struct lnet_msg *held[HOLD_MAX];
	unsigned int nheld;
	int send_rc;
	struct hold_rx rx;
	unsigned int recv_calls;
};

static struct hold_lnd g_hold;

static int
hold_startup(struct lnet_ni *ni)
{
	(void)ni;
	return 0;
}

/* As the contract asks: what the LND holds completes with -ESHUTDOWN. */
static void
hold_shutdown(struct lnet_ni *ni)
{
	(void)ni;
	while (g_hold.nheld > 0) {
		lnet_finalize(g_hold.held[--g_hold.nheld], -ESHUTDOWN);
	}
}

static int
hold_send(struct lnet_ni *ni, struct lnet_msg *msg)
{
	(void)ni;
	if (g_hold.send_rc != 0) {
		return g_hold.send_rc;
	}
	assert_true(g_hold.nheld < HOLD_MAX);
	g_hold.held[g_hold.nheld++] = msg;
	return 0;
}

static int
hold_recv(struct lnet_ni *ni, void *private, struct lnet_msg *msg, unsigned int niov,
	  const struct iovec *iov, unsigned int offset, unsigned int mlen, unsigned int rlen)
{
	(void)ni;
	(void)private;
	g_hold.recv_calls++;
	g_hold.rx = (struct hold_rx){ msg, iov, niov, offset, mlen, rlen, true };
	return 0;
}

static const struct lnet_lnd_ops hold_ops = {
	.name = "hold",
	.type = 0xfe,
	.startup = hold_startup,
	.shutdown = hold_shutdown,
	.send = hold_send,
	.recv = hold_recv,
};

static struct lnet_ni *g_ni;

static int
add_ni_on_mgmt(void *arg)
{
	struct lnet_ni_tunables tun = { .peer_tx_credits = 2, .max_tx_credits = 3 };
	struct lnet_nid nid = lnp_tcp_nid(0x0a000001);

	(void)arg;
	return lnet_ni_add(lnet_instance(), &nid, &hold_ops, &tun, NULL, 0, &g_ni);
}

static int
setup(void **state)
{
	(void)state;
	memset(&g_hold, 0, sizeof(g_hold));
	ut_up(1);
	assert_int_equal(rt_lcore_call(rt_mgmt_lcore(lnet_instance()->rt), add_ni_on_mgmt, NULL),
			 0);
	ut_discovery(0);
	return 0;
}

static int
complete_on_lcore(void *arg)
{
	lnet_finalize(arg, 0);
	return 0;
}

/* The LND completes held message @p i (as its tx-done path would). */
static void
hold_complete(unsigned int i)
{
	struct lnet_msg *msg = g_hold.held[i];

	memmove(&g_hold.held[i], &g_hold.held[i + 1], (g_hold.nheld - i - 1) * sizeof(msg));
	g_hold.nheld--;
	assert_int_equal(rt_lcore_call(rt_data_lcore(lnet_instance()->rt, 0), complete_on_lcore,
				       msg),
			 0);
}

static int
teardown(void **state)
{
	(void)state;
	while (g_hold.nheld > 0) {
		hold_complete(0);
	}
	ut_down();
	return 0;
}

static void
put_to(uint32_t addr, const char *data)
{
	struct lnet_processid peer = { .pid = LNET_PID_LUSTRE, .nid = lnp_tcp_nid(addr) };

	assert_int_equal(LNetPut(NULL, ut_bind((void *)data, (unsigned int)strlen(data) + 1, 1),
				 LNET_NOACK_REQ, &peer, UT_PORTAL, 0, 0, 0),
			 0);
	rt_runtime_poll_until_idle(lnet_instance()->rt, 100);
}

static struct lnet_peer_ni *
peer(uint32_t addr)
{
	struct lnet_nid nid = lnp_tcp_nid(addr);

	return lnet_peer_ni_find(lnet_instance()->cpts[0], &nid);
}

static void
test_peer_and_ni_credits_queue_fifo(void **state)
{
	struct lnet_event ev;

	(void)state;
	put_to(0x0a000002, "A1");
	put_to(0x0a000002, "A2");
	put_to(0x0a000002, "A3"); /* peer A out of credits: queued on the peer */
	assert_int_equal(g_hold.nheld, 2);
	assert_int_equal(peer(0x0a000002)->txcredits, -1);
	assert_int_equal(peer(0x0a000002)->txqnob, 3 * (3 + 72));
	put_to(0x0a000003, "B1");
	put_to(0x0a000003, "B2"); /* NI out of credits: queued on the NI */
	assert_int_equal(g_hold.nheld, 3);
	assert_int_equal(g_ni->tq.credits, -1);
	assert_int_equal(peer(0x0a000003)->txcredits, 0);
	ut_no_event();

	/* A1 done: its NI credit sends B2, its peer credit moves A3 to the NI queue. */
	hold_complete(0);
	assert_int_equal(g_hold.nheld, 3);
	assert_string_equal(g_hold.held[2]->md->start, "B2");
	assert_int_equal(g_ni->tq.credits, -1);
	assert_int_equal(g_ni->tq.mincredits, -1);
	assert_int_equal(peer(0x0a000002)->txcredits, 0);
	assert_int_equal(peer(0x0a000002)->mintxcredits, -1);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, 0);
	assert_string_equal(ev.md_start, "A1");

	hold_complete(0); /* A2: A3 gets the NI credit */
	assert_int_equal(g_hold.nheld, 3);
	assert_string_equal(g_hold.held[2]->md->start, "A3");
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	while (g_hold.nheld > 0) {
		hold_complete(0);
	}
	assert_int_equal(g_ni->tq.credits, 3);
	assert_int_equal(peer(0x0a000002)->txcredits, 2);
	assert_int_equal(peer(0x0a000003)->txcredits, 2);
	assert_int_equal(peer(0x0a000002)->txqnob, 0);
	assert_int_equal(ut_counters().send_count, 5);
	assert_int_equal(ut_counters().msgs_alloc, 0);
}

/* The peer lookups remember the last peer NI found: alternating and unknown NIDs still get their own. */
static void
test_peer_lookup_remembers_but_matches_whole_nid(void **state)
{
	struct lnet_nid nid_a = lnp_tcp_nid(0x0a000002);
	struct lnet_nid nid_b = lnp_tcp_nid(0x0a000003);
	struct lnet_nid nid_c = lnp_tcp_nid(0x0a000004);
	struct lnet_cpt *c = lnet_instance()->cpts[0];
	struct lnet_peer_ni *a;
	struct lnet_peer_ni *b;

	(void)state;
	put_to(0x0a000002, "A1");
	put_to(0x0a000003, "B1");
	a = peer(0x0a000002);
	b = peer(0x0a000003);
	assert_non_null(a);
	assert_non_null(b);
	assert_ptr_not_equal(a, b);
	assert_true(lnet_nid_same(&a->nid, &nid_a));
	assert_true(lnet_nid_same(&b->nid, &nid_b));
	assert_ptr_equal(peer(0x0a000002), a);
	assert_ptr_equal(peer(0x0a000002), a);
	assert_ptr_equal(peer(0x0a000003), b);
	assert_null(peer(0x0a000004)); /* right after a hit: no stale answer */
	assert_ptr_equal(lnet_peer_ni_find_or_create(c, &nid_a, NULL), a);
	assert_ptr_equal(lnet_peer_ni_find_or_create(c, &nid_b, NULL), b);
	assert_ptr_equal(lnet_peer_ni_find(c, &nid_a), a);
	assert_null(lnet_peer_ni_find(c, &nid_c));
	assert_ptr_equal(lnet_peer_ni_find_or_create(c, &nid_b, NULL), b);
	while (g_hold.nheld > 0) {
		hold_complete(0);
	}
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
}

static void
test_lnd_send_error_completes_with_status(void **state)
{
	struct lnet_event ev;

	(void)state;
	g_hold.send_rc = -EIO;
	put_to(0x0a000002, "E1");
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, -EIO);
	assert_int_equal(ev.unlinked, 1);
	assert_int_equal(g_ni->tq.credits, 3);
	assert_int_equal(peer(0x0a000002)->txcredits, 2);
	assert_int_equal(ut_counters().local_error_count, 1);
}

static int
inject(struct lnet_hdr *h)
{
	int rc;

	g_hold.rx.called = false;
	rc = ut_parse(g_ni, h, &h->src_nid, (void *)0x1);
	rt_runtime_poll_until_idle(lnet_instance()->rt, 100);
	return rc;
}

static struct lnet_hdr
remote_put(unsigned int len, uint64_t bits)
{
	struct lnet_hdr h;

	memset(&h, 0, sizeof(h));
	h.type = LNET_MSG_PUT;
	h.src_nid = lnp_tcp_nid(0x0a000009);
	h.dest_nid = lnp_tcp_nid(0x0a000001);
	h.src_pid = LNET_PID_LUSTRE;
	h.dest_pid = LNET_PID_LUSTRE;
	h.payload_length = len;
	h.msg.put.ack_wmd.wh_interface_cookie = 0x1122334455667788ULL;
	h.msg.put.ack_wmd.wh_object_cookie = 0x99aabbccddeeff00ULL;
	h.msg.put.match_bits = bits;
	h.msg.put.ptl_index = UT_PORTAL;
	h.msg.put.hdr_data = 0x5a5a;
	return h;
}

static void
test_remote_put_delivers_and_acks(void **state)
{
	char dst[16];
	struct lnet_md md = ut_md(dst, sizeof(dst), 1, LNET_MD_OP_PUT);
	struct lnet_hdr h = remote_put(10, 77);
	const struct lnet_hdr *ack;
	struct lnet_event ev;

	(void)state;
	ut_attach(&md, 77, 0, LNET_INS_AFTER, LNET_UNLINK);
	assert_int_equal(inject(&h), 0);
	assert_true(g_hold.rx.called);
	assert_non_null(g_hold.rx.msg);
	assert_int_equal(g_hold.rx.mlen, 10);
	assert_int_equal(g_hold.rx.rlen, 10);
	assert_ptr_equal(g_hold.rx.iov[0].iov_base, dst);
	ut_no_event(); /* nothing until the LND finalizes */
	assert_int_equal(rt_lcore_call(rt_data_lcore(lnet_instance()->rt, 0), complete_on_lcore,
				       g_hold.rx.msg),
			 0);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_PUT);
	assert_int_equal(ev.hdr_data, 0x5a5a);
	assert_int_equal(ev.initiator.pid, LNET_PID_LUSTRE);
	assert_true(lnet_nid_same(&ev.initiator.nid, &h.src_nid));
	assert_true(lnet_nid_same(&ev.sender, &h.src_nid));
	/* The ACK goes back to the source with its handle verbatim. */
	rt_runtime_poll_until_idle(lnet_instance()->rt, 100);
	assert_int_equal(g_hold.nheld, 1);
	ack = lnet_msg_hdr(g_hold.held[0]);
	assert_int_equal(ack->type, LNET_MSG_ACK);
	assert_true(lnet_nid_same(&ack->dest_nid, &h.src_nid));
	assert_true(lnet_nid_same(&ack->src_nid, &h.dest_nid));
	assert_int_equal(ack->msg.ack.dst_wmd.wh_interface_cookie, 0x1122334455667788ULL);
	assert_int_equal(ack->msg.ack.dst_wmd.wh_object_cookie, 0x99aabbccddeeff00ULL);
	assert_int_equal(ack->msg.ack.match_bits, 77);
	assert_int_equal(ack->msg.ack.mlength, 10);
	assert_int_equal(ack->payload_length, 0);
}

static void
test_parse_rejects_and_drops(void **state)
{
	struct lnet_hdr h = remote_put(4, 1);
	struct lnet_counters before = ut_counters();
	struct lnet_counters after;

	(void)state;
	/* Not for us, same net: the sender should have gone direct. */
	h.dest_nid = lnp_tcp_nid(0x0a000063);
	assert_int_equal(inject(&h), -EPROTO);
	/* Another net: routing is off, dropped quietly, payload discarded. */
	h.dest_nid = lnp_tcp_nid(0x0a000001);
	h.dest_nid.nid_num = htons(7);
	assert_int_equal(inject(&h), 0);
	assert_true(g_hold.rx.called);
	assert_null(g_hold.rx.msg);
	assert_int_equal(g_hold.rx.rlen, 4);
	/* Bad type. */
	h = remote_put(4, 1);
	h.type = 99;
	assert_int_equal(inject(&h), -EPROTO);
	/* Portal out of range: dropped. */
	h = remote_put(4, 1);
	h.msg.put.ptl_index = LNET_MAX_PORTALS;
	assert_int_equal(inject(&h), 0);
	assert_null(g_hold.rx.msg);
	/* ACK naming another instance's MD: dropped. */
	memset(&h.msg, 0, sizeof(h.msg));
	h.type = LNET_MSG_ACK;
	h.payload_length = 0;
	h.msg.ack.dst_wmd.wh_interface_cookie = 1;
	assert_int_equal(inject(&h), 0);
	assert_null(g_hold.rx.msg);
	after = ut_counters();
	assert_int_equal(after.errors - before.errors, 2);
	assert_int_equal(after.drop_count - before.drop_count, 3);
	assert_int_equal(after.msgs_alloc, 0);
	ut_no_event();
}

static unsigned int g_shutdown_events;
static unsigned int g_other_events;

static void
count_send(struct lnet_event *ev)
{
	if (ev->type == LNET_EVENT_SEND && ev->status == -ESHUTDOWN) {
		g_shutdown_events++;
	} else {
		g_other_events++;
	}
}

/* Five PUTs to one peer, with discovery on or off; then shutdown. */
static void
shutdown_with_puts(int discovery, unsigned int held_by_lnd)
{
	static char data[5][4] = { "S1", "S2", "S3", "S4", "S5" };
	struct lnet_processid peer = { .pid = LNET_PID_LUSTRE, .nid = lnp_tcp_nid(0x0a000002) };
	unsigned int i;

	memset(&g_hold, 0, sizeof(g_hold));
	g_shutdown_events = 0;
	g_other_events = 0;
	ut_up(1);
	assert_int_equal(rt_lcore_call(rt_mgmt_lcore(lnet_instance()->rt), add_ni_on_mgmt, NULL),
			 0);
	ut_discovery(discovery);
	for (i = 0; i < 5; i++) {
		struct lnet_md md = ut_md(data[i], 3, 1, 0);
		struct lnet_handle_md h;

		md.umd_handler = count_send;
		md.umd_eq_handle = NULL;
		assert_int_equal(LNetMDBind(&md, LNET_UNLINK, &h), 0);
		assert_int_equal(LNetPut(NULL, h, LNET_NOACK_REQ, &peer, UT_PORTAL, 0, 0, 0), 0);
	}
	rt_runtime_poll_until_idle(lnet_instance()->rt, 100);
	assert_int_equal(g_hold.nheld, held_by_lnd);
	assert_int_equal(g_shutdown_events, 0);
	assert_int_equal(LNetNIFini(), 0);
	assert_int_equal(g_shutdown_events, 5);
	assert_int_equal(g_other_events, 0);
	assert_int_equal(LNetEQFree(g_ut.eq), 0);
	g_ut.eq = NULL;
}

/* Shutdown with messages held by the LND and queued for credits: every one completes. */
static void
test_shutdown_completes_everything(void **state)
{
	(void)state;
	shutdown_with_puts(0, 2); /* 3 wait for peer credits */
}

/* Shutdown while the PUTs wait for the peer's discovery (its ping is with the LND). */
static void
test_shutdown_completes_held_by_discovery(void **state)
{
	(void)state;
	shutdown_with_puts(1, 1);
}

static unsigned int g_netdown_events;

static void
count_del(struct lnet_event *ev)
{
	if (ev->type == LNET_EVENT_SEND && ev->status == -ESHUTDOWN) {
		g_shutdown_events++;
	} else if (ev->type == LNET_EVENT_SEND && ev->status == -ENETDOWN) {
		g_netdown_events++;
	} else {
		g_other_events++;
	}
}

static void
put_counted(char *data, const struct lnet_processid *peer)
{
	struct lnet_md md = ut_md(data, 3, 1, 0);
	struct lnet_handle_md h;

	md.umd_handler = count_del;
	md.umd_eq_handle = NULL;
	assert_int_equal(LNetMDBind(&md, LNET_UNLINK, &h), 0);
	assert_int_equal(LNetPut(NULL, h, LNET_NOACK_REQ, peer, UT_PORTAL, 0, 0, 0), 0);
}

/*
 * net del with messages held by an LND that never completes them and
 * queued for peer credits: net del waits transaction_timeout for them (the
 * kernel waits for ever), then the held ones complete as the LND shuts
 * down, the queued ones with -ENETDOWN; the NI is gone and LNet keeps
 * running without it.
 */
static void
test_ni_del_completes_everything(void **state)
{
	static char data[6][4] = { "D1", "D2", "D3", "D4", "D5", "D6" };
	struct lnet_processid dst = { .pid = LNET_PID_LUSTRE, .nid = lnp_tcp_nid(0x0a000002) };
	struct lnet_nid nid = lnp_tcp_nid(0x0a000001);
	char err[128];
	uint64_t t0;
	unsigned int i;

	(void)state;
	assert_int_equal(lnet_ctl_global_set("transaction_timeout", 3, err, sizeof(err)), 0);
	g_shutdown_events = g_netdown_events = g_other_events = 0;
	for (i = 0; i < 5; i++) {
		put_counted(data[i], &dst);
	}
	rt_runtime_poll_until_idle(lnet_instance()->rt, 100);
	assert_int_equal(g_hold.nheld, 2); /* 3 wait for peer credits */
	assert_int_equal(lnet_ni_del(lnet_instance(), &lnet_instance()->loni->nid), -EPERM);
	t0 = rt_now_us(lnet_instance()->rt);
	assert_int_equal(lnet_ni_del(lnet_instance(), &nid), 0);
	assert_true(rt_now_us(lnet_instance()->rt) - t0 >= 3000000); /* it waited for them */
	rt_runtime_poll_until_idle(lnet_instance()->rt, 100);
	assert_int_equal(g_hold.nheld, 0);
	assert_int_equal(g_shutdown_events, 2);
	assert_int_equal(g_netdown_events, 3);
	assert_int_equal(g_other_events, 0);
	assert_null(lnet_ni_find_by_nid(lnet_instance(), &nid));
	assert_null(lnet_node(lnet_instance())->zombie_nis);
	assert_int_equal(lnet_ni_del(lnet_instance(), &nid), -ENOENT);
	assert_int_equal(peer(0x0a000002)->txcredits, 2); /* every credit came back */

	/* Without the NI there is no route: the next PUT fails, nothing leaks. */
	put_counted(data[5], &dst);
	rt_runtime_poll_until_idle(lnet_instance()->rt, 100);
	assert_int_equal(g_other_events, 1);
	assert_int_equal(ut_counters().msgs_alloc, 0);
	g_ni = NULL;
}

static struct rt_timer g_drainer;

/* The LND, a little later: it sends whatever it holds (and again, until none is left). */
static void
drainer_fire(void *arg)
{
	(void)arg;
	while (g_hold.nheld > 0) {
		lnet_finalize(g_hold.held[--g_hold.nheld], 0);
	}
	rt_timer_arm(&g_drainer, 100000);
}

static int
drainer_start(void *arg)
{
	(void)arg;
	rt_timer_init(&g_drainer, drainer_fire, NULL);
	rt_timer_arm(&g_drainer, 1000000);
	return 0;
}

static int
drainer_stop(void *arg)
{
	(void)arg;
	rt_timer_cancel(&g_drainer);
	return 0;
}

/*
 * As the kernel's net del: the NI is no longer picked, but its LND stays
 * up until the messages in flight on it are done (two held by the LND,
 * three queued for peer credits behind them); each completes, none fails.
 */
static void
test_ni_del_waits_for_messages_in_flight(void **state)
{
	static char data[5][4] = { "W1", "W2", "W3", "W4", "W5" };
	struct lnet_processid dst = { .pid = LNET_PID_LUSTRE, .nid = lnp_tcp_nid(0x0a000002) };
	struct lnet_nid nid = lnp_tcp_nid(0x0a000001);
	struct rt_lcore *lc = rt_data_lcore(lnet_instance()->rt, 0);
	unsigned int i;

	(void)state;
	g_shutdown_events = g_netdown_events = g_other_events = 0;
	for (i = 0; i < 5; i++) {
		put_counted(data[i], &dst);
	}
	rt_runtime_poll_until_idle(lnet_instance()->rt, 100);
	assert_int_equal(g_hold.nheld, 2);
	assert_int_equal(rt_lcore_call(lc, drainer_start, NULL), 0);
	assert_int_equal(lnet_ni_del(lnet_instance(), &nid), 0);
	assert_int_equal(rt_lcore_call(lc, drainer_stop, NULL), 0);
	rt_runtime_poll_until_idle(lnet_instance()->rt, 100);
	assert_int_equal(g_other_events, 5); /* SEND, status 0 */
	assert_int_equal(g_shutdown_events, 0);
	assert_int_equal(g_netdown_events, 0);
	assert_null(lnet_ni_find_by_nid(lnet_instance(), &nid));
	assert_int_equal(ut_counters().msgs_alloc, 0);
	g_ni = NULL;
}

/*
 * Response tracking: a PUT that wants an ACK, and a GET, whose answer never
 * comes are unlinked after transaction_timeout with an UNLINK event
 * (-ETIMEDOUT), and counted; a PUT without ACK is not tracked.
 */
static void
test_missing_ack_and_reply_time_out(void **state)
{
	static char put_buf[4] = "P1", get_buf[16], noack_buf[4] = "N1";
	struct lnet_processid dst = { .pid = LNET_PID_LUSTRE, .nid = lnp_tcp_nid(0x0a000002) };
	struct lnet_event ev;

	(void)state;
	assert_int_equal(LNetPut(NULL, ut_bind(put_buf, 3, 2), LNET_ACK_REQ, &dst, UT_PORTAL, 1, 0,
				 0),
			 0);
	assert_int_equal(LNetGet(NULL, ut_bind(get_buf, sizeof(get_buf), 2), &dst, UT_PORTAL, 2, 0,
				 false),
			 0);
	assert_int_equal(LNetPut(NULL, ut_bind(noack_buf, 3, 1), LNET_NOACK_REQ, &dst, UT_PORTAL, 3,
				 0, 0),
			 0);
	rt_runtime_poll_until_idle(lnet_instance()->rt, 100);
	while (g_hold.nheld > 0) {
		hold_complete(0); /* all three are on the wire */
	}
	for (int i = 0; i < 3; i++) {
		assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	}
	rt_sim_advance_us(lnet_instance()->rt, 149ULL * 1000000);
	rt_runtime_poll_until_idle(lnet_instance()->rt, 100);
	ut_no_event();
	rt_sim_advance_us(lnet_instance()->rt, 2ULL * 1000000);
	rt_runtime_poll_until_idle(lnet_instance()->rt, 100);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_UNLINK);
	assert_int_equal(ev.status, -ETIMEDOUT);
	assert_int_equal(ev.unlinked, 1);
	assert_ptr_equal(ev.md_start, put_buf);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_UNLINK);
	assert_ptr_equal(ev.md_start, get_buf);
	ut_no_event();
	assert_int_equal(ut_counters().response_timeout_count, 2);
}

/* Completes held message @p i with @p status, as a failed LND send does. */
static int
fail_on_lcore(void *arg)
{
	lnet_finalize(arg, -ECONNREFUSED);
	return 0;
}

/*
 * The lifetime rule (captures/kernel-vs-pmd/52-crash-repro.pcap: a ping's
 * queue was freed, then its response timer posted to it): a queue cannot be
 * freed while an MD can still post to it. A GET whose send failed keeps its
 * response timer, as the kernel's does (lnet_msg_detach_md detaches it only
 * from an unlinked MD), so the MD still gets its last event at the deadline.
 */
static void
test_failed_get_and_eq_lifetime(void **state)
{
	static char sink[16];
	struct lnet_processid dst = { .pid = LNET_PID_LUSTRE, .nid = lnp_tcp_nid(0x0a000002) };
	struct lnet_eq *eq = LNetEQAlloc(8);
	struct lnet_md md = ut_md(sink, sizeof(sink), 2, LNET_MD_TRUNCATE);
	struct lnet_handle_md h;
	struct lnet_event ev;
	struct lnet_msg *msg;

	(void)state;
	md.umd_eq_handle = eq;
	assert_int_equal(LNetMDBind(&md, LNET_UNLINK, &h), 0);
	assert_int_equal(LNetGet(NULL, h, &dst, UT_PORTAL, 5, 0, false), 0);
	rt_runtime_poll_until_idle(lnet_instance()->rt, 100);
	assert_int_equal(g_hold.nheld, 1);
	msg = g_hold.held[--g_hold.nheld];
	assert_int_equal(rt_lcore_call(rt_data_lcore(lnet_instance()->rt, 0), fail_on_lcore, msg),
			 0);
	assert_int_equal(LNetEQPoll(&eq, 1, 0, &ev, NULL), 1);
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, -ECONNREFUSED);
	assert_int_equal(ev.unlinked, 0); /* one operation left: the MD lives on */
	assert_int_equal(LNetEQFree(eq), -EBUSY);

	/* transaction_timeout passes: the timer ends the MD, into the queue that is still there */
	rt_sim_advance_us(lnet_instance()->rt, 151ULL * 1000000);
	rt_runtime_poll_until_idle(lnet_instance()->rt, 100);
	assert_int_equal(LNetEQPoll(&eq, 1, 0, &ev, NULL), 1);
	assert_int_equal(ev.type, LNET_EVENT_UNLINK);
	assert_int_equal(ev.status, -ETIMEDOUT);
	assert_int_equal(ev.unlinked, 1);
	assert_int_equal(ut_counters().response_timeout_count, 1);
	assert_int_equal(LNetMDUnlink(h), -ENOENT);
	assert_int_equal(LNetEQFree(eq), 0);
}

/* The MD goes before its response timer's deadline: the timer finds nothing to post to. */
static void
test_rsp_timer_after_md_unlinked(void **state)
{
	static char sink[16];
	struct lnet_processid dst = { .pid = LNET_PID_LUSTRE, .nid = lnp_tcp_nid(0x0a000002) };
	struct lnet_eq *eq = LNetEQAlloc(8);
	struct lnet_md md = ut_md(sink, sizeof(sink), 2, 0);
	struct lnet_handle_md h;
	struct lnet_event ev;

	(void)state;
	md.umd_eq_handle = eq;
	assert_int_equal(LNetMDBind(&md, LNET_UNLINK, &h), 0);
	assert_int_equal(LNetGet(NULL, h, &dst, UT_PORTAL, 6, 0, false), 0);
	rt_runtime_poll_until_idle(lnet_instance()->rt, 100);
	hold_complete(0);
	assert_int_equal(LNetEQPoll(&eq, 1, 0, &ev, NULL), 1);
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(LNetMDUnlink(h), 0);
	assert_int_equal(LNetEQPoll(&eq, 1, 0, &ev, NULL), 1);
	assert_int_equal(ev.unlinked, 1);
	assert_int_equal(LNetEQFree(eq), 0);
	rt_sim_advance_us(lnet_instance()->rt, 151ULL * 1000000);
	rt_runtime_poll_until_idle(lnet_instance()->rt, 100);
	assert_int_equal(ut_counters().response_timeout_count, 0);
	ut_no_event();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_peer_and_ni_credits_queue_fifo, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_peer_lookup_remembers_but_matches_whole_nid,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_lnd_send_error_completes_with_status, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_remote_put_delivers_and_acks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_rejects_and_drops, setup, teardown),
		cmocka_unit_test(test_shutdown_completes_everything),
		cmocka_unit_test(test_shutdown_completes_held_by_discovery),
		cmocka_unit_test_setup_teardown(test_ni_del_completes_everything, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ni_del_waits_for_messages_in_flight, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_missing_ack_and_reply_time_out, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_failed_get_and_eq_lifetime, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rsp_timer_after_md_unlinked, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
