/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GETs an LND does by RDMA (LNET_LND_CAP_RDMA_GET, o2iblnd's GET_REQ and
 * GET_DONE), over an LND that plays both the NIC and the peer: its
 * "remote memory" is a buffer of the test. The target's side: a matched
 * GET's REPLY is the LND's to write into the requester's sink (or, for a
 * GET that came plainly, LNet's to send); the initiator's: a GET sent with
 * its sink advertised completes with lnet_get_rdma_done() once the peer
 * wrote the REPLY's bytes there. Simulated runtime; with 2 CPTs the MD is
 * on the other CPT from the NI, so the REPLY's hops show.
 */
#include <stdio.h>

#include "lnet_ut.h"

#define TCP LNET_MKNET(LNET_LND_SOCK, 0)
#define ME_A 0x0a000001U /* 10.0.0.1@tcp: ours, CPT 0 */
#define PA 0x0a000007U   /* 10.0.0.7@tcp: the peer */
#define R_PORTAL 13      /* wildcard: matched on CPT 13 % ncpts */

/* What the LND's recv() was handed for a GET: an RDMA request, or a plain GET. */
static char g_rdma_req;
static char g_plain_get;

static struct {
	struct lnet_ni *ni;
	uint8_t remote_sink[256]; /* the requester's memory the target's LND writes by RDMA */
	unsigned int remote_len;
	unsigned int replies_by_lnd;
	const uint8_t *remote_data; /* what the initiator's peer "writes" into a GET's sink */
	unsigned int remote_data_len;
	unsigned int gets_by_rdma;
	struct lnet_hdr sent[8];
	uint8_t sent_payload[8][64];
	unsigned int nsent;
} g_r;

static int
r_startup(struct lnet_ni *ni)
{
	(void)ni;
	return 0;
}

static void
r_shutdown(struct lnet_ni *ni)
{
	(void)ni;
}

/* The initiator's side: a GET goes by RDMA (its sink advertised); anything else as on a wire. */
static int
r_send(struct lnet_ni *ni, struct lnet_msg *msg)
{
	const struct lnet_hdr *h = lnet_msg_hdr(msg);
	unsigned int niov, off, len, slot = g_r.nsent++ % 8;
	const struct iovec *iov;

	g_r.sent[slot] = *h;
	if (h->type == LNET_MSG_GET && g_r.remote_data != NULL) {
		struct iovec src = { (void *)g_r.remote_data, g_r.remote_data_len };

		lnet_msg_get_sink(msg, &niov, &iov, &len);
		assert_int_equal(len, h->msg.get.sink_length);
		assert_true(g_r.remote_data_len <= len);
		lnet_iov_copy(iov, niov, 0, &src, 1, 0, g_r.remote_data_len); /* the peer's RDMA WRITE */
		g_r.gets_by_rdma++;
		assert_int_equal(lnet_get_rdma_done(ni, msg, g_r.remote_data_len), 0); /* GET_DONE */
		lnet_finalize(msg, 0);
		return 0;
	}
	lnet_msg_payload(msg, &niov, &iov, &off, &len);
	if (len != 0) {
		struct iovec dst = { g_r.sent_payload[slot], sizeof(g_r.sent_payload[slot]) };

		assert_true(len <= sizeof(g_r.sent_payload[slot]));
		lnet_iov_copy(&dst, 1, 0, iov, niov, off, len);
	}
	lnet_finalize(msg, 0);
	return 0;
}

/* The target's side: a GET that came as an RDMA request is answered by writing the requester's sink. */
static int
r_recv(struct lnet_ni *ni, void *private, struct lnet_msg *msg, unsigned int niov,
       const struct iovec *iov, unsigned int offset, unsigned int mlen, unsigned int rlen)
{
	struct iovec sink = { g_r.remote_sink, sizeof(g_r.remote_sink) };

	(void)ni;
	if (msg == NULL || lnet_msg_hdr(msg)->type != LNET_MSG_REPLY) {
		if (msg != NULL) {
			lnet_finalize(msg, 0);
		}
		return 0;
	}
	assert_int_equal(mlen, rlen);
	if (private == &g_plain_get) {
		return LNET_LND_RECV_SEND_REPLY;
	}
	assert_ptr_equal(private, &g_rdma_req);
	assert_true(mlen <= sizeof(g_r.remote_sink));
	lnet_iov_copy(&sink, 1, 0, iov, niov, offset, mlen); /* RDMA WRITE, then GET_DONE */
	g_r.remote_len = mlen;
	g_r.replies_by_lnd++;
	lnet_finalize(msg, 0);
	return 0;
}

static const struct lnet_lnd_ops r_ops = {
	.name = "rdma",
	.type = 0xfa,
	.caps = LNET_LND_CAP_RDMA_GET,
	.startup = r_startup,
	.shutdown = r_shutdown,
	.send = r_send,
	.recv = r_recv,
};

static struct lnet_nid
nid_on(uint32_t net, uint32_t addr)
{
	struct lnet_nid n;

	lnet_nid4_to_nid(LNET_MKNID(net, addr), &n);
	return n;
}

static void
settle(void)
{
	rt_runtime_poll_until_idle(lnet_instance()->rt, 200);
}

static void
up(unsigned int ncpts)
{
	struct lnet_nid nid = nid_on(TCP, ME_A);
	struct lnet_ni_req req = {
		.add = true,
		.lnd = &r_ops,
		.nid = &nid,
		.cpt = 0,
		.tun = { .peer_tx_credits = 8, .max_tx_credits = 64 },
	};

	memset(&g_r, 0, sizeof(g_r));
	ut_up(ncpts);
	assert_int_equal(lnet_ni_config(lnet_instance(), &req), 0);
	g_r.ni = lnet_ni_find_by_nid(lnet_instance(), &nid);
	assert_non_null(g_r.ni);
	ut_discovery(0);
}

static int
setup_one(void **state)
{
	(void)state;
	up(1);
	return 0;
}

static int
setup_two(void **state)
{
	(void)state;
	up(2);
	return 0;
}

struct r_bind {
	struct lnet_md md;
	struct lnet_handle_md h;
	int rc;
};

static int
r_bind_on_lcore(void *arg)
{
	struct r_bind *b = arg;

	b->rc = LNetMDBind(&b->md, LNET_UNLINK, &b->h);
	return 0;
}

/* An MD bound on CPT @p cpt (LNetMDBind on a data lcore binds on its CPT). */
static struct lnet_handle_md
bind_on(unsigned int cpt, void *buf, unsigned int len, int threshold)
{
	struct r_bind b = { .md = ut_md(buf, len, threshold, 0) };

	assert_int_equal(rt_lcore_call(rt_data_lcore(lnet_instance()->rt, cpt), r_bind_on_lcore,
				       &b),
			 0);
	assert_int_equal(b.rc, 0);
	assert_int_equal(lnet_cookie_cpt(b.h.cookie), cpt);
	return b.h;
}

/* A GET from PA for 16 bytes at R_PORTAL, handed over with @p private. */
static void
get_arrives(void *private)
{
	struct lnet_hdr get = { .type = LNET_MSG_GET,
				.src_nid = nid_on(TCP, PA),
				.dest_nid = nid_on(TCP, ME_A),
				.src_pid = LNET_PID_LUSTRE,
				.dest_pid = LNET_PID_LUSTRE };
	struct lnet_nid pa = nid_on(TCP, PA);

	get.msg.get.ptl_index = R_PORTAL;
	get.msg.get.sink_length = 16;
	get.msg.get.return_wmd.wh_interface_cookie = 7;
	get.msg.get.return_wmd.wh_object_cookie = 9;
	assert_int_equal(ut_parse(g_r.ni, &get, &pa, private), 0);
	settle();
}

/* An MD on R_PORTAL serving GETs from @p data. */
static void
attach_source(const char *data, unsigned int len)
{
	struct lnet_md md = ut_md((void *)data, len, LNET_MD_THRESH_INF, LNET_MD_OP_GET);
	struct lnet_processid any = { .pid = LNET_PID_ANY, .nid = LNET_ANY_NID };
	struct lnet_handle_md h;
	struct lnet_me *me = LNetMEAttach(R_PORTAL, &any, 0, ~0ULL, LNET_RETAIN, LNET_INS_AFTER);

	assert_non_null(me);
	assert_int_equal(LNetMDAttach(me, &md, LNET_RETAIN, &h), 0);
}

/* Target: the LND writes the REPLY into the requester's sink; LNet sends nothing; the GET event. */
static void
test_target_reply_by_rdma(void **state)
{
	static const char data[16] = "served by RDMA!";
	struct lnet_event ev;

	(void)state;
	attach_source(data, sizeof(data));
	get_arrives(&g_rdma_req);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_GET);
	assert_int_equal(ev.status, 0);
	assert_int_equal(ev.mlength, 16);
	assert_int_equal(g_r.replies_by_lnd, 1);
	assert_int_equal(g_r.remote_len, 16);
	assert_memory_equal(g_r.remote_sink, data, 16);
	assert_int_equal(g_r.nsent, 0); /* no REPLY by LNet */
	assert_int_equal(ut_counters().send_count, 1); /* the REPLY counts as sent, as the kernel's */
	assert_int_equal(ut_counters().msgs_alloc, 0);
	ut_no_event();
}

/* Target: a GET that came plainly on the same LND: LNet sends the REPLY with the bytes. */
static void
test_target_plain_get_on_rdma_lnd(void **state)
{
	static const char data[16] = "plainly sent...";

	(void)state;
	attach_source(data, sizeof(data));
	get_arrives(&g_plain_get);
	assert_int_equal(ut_event().type, LNET_EVENT_GET);
	assert_int_equal(g_r.replies_by_lnd, 0);
	assert_int_equal(g_r.nsent, 1);
	assert_int_equal(g_r.sent[0].type, LNET_MSG_REPLY);
	assert_int_equal(g_r.sent[0].payload_length, 16);
	assert_int_equal(g_r.sent[0].msg.reply.dst_wmd.wh_object_cookie, 9);
	assert_memory_equal(g_r.sent_payload[0], data, 16);
	ut_no_event();
}

/*
 * Initiator: a GET sent by RDMA; the peer writes 12 bytes into its sink and
 * says so: the SEND and REPLY events, the bytes in the MD. With
 * @p two_cpts, the MD is on CPT 1 and the NI on CPT 0.
 */
static void
initiator_get_by_rdma(bool two_cpts)
{
	static char buf[64];
	static const uint8_t peer_bytes[12] = "peer's data";
	struct lnet_processid pa = { .pid = LNET_PID_LUSTRE, .nid = nid_on(TCP, PA) };
	struct lnet_handle_md h;
	struct lnet_event ev[2];
	bool saw_send = false, saw_reply = false;

	memset(buf, 0, sizeof(buf));
	g_r.remote_data = peer_bytes;
	g_r.remote_data_len = sizeof(peer_bytes);
	h = two_cpts ? bind_on(1, buf, sizeof(buf), 2) : ut_bind(buf, sizeof(buf), 2);
	(void)ut_hops_since();
	assert_int_equal(LNetGet(NULL, h, &pa, R_PORTAL, 5, 0, false), 0);
	settle();
	assert_int_equal(g_r.gets_by_rdma, 1);
	ev[0] = ut_event();
	ev[1] = ut_event();
	for (unsigned int i = 0; i < 2; i++) {
		assert_int_equal(ev[i].status, 0);
		if (ev[i].type == LNET_EVENT_SEND) {
			saw_send = true;
		} else {
			assert_int_equal(ev[i].type, LNET_EVENT_REPLY);
			assert_int_equal(ev[i].mlength, sizeof(peer_bytes));
			assert_int_equal(ev[i].rlength, sizeof(peer_bytes));
			saw_reply = true;
		}
	}
	assert_true(saw_send && saw_reply);
	assert_memory_equal(buf, peer_bytes, sizeof(peer_bytes));
	assert_int_equal(ut_counters().recv_count, 1); /* the REPLY, as received */
	assert_int_equal(ut_counters().msgs_alloc, 0);
	ut_no_event();
}

static void
test_initiator_get_by_rdma(void **state)
{
	(void)state;
	initiator_get_by_rdma(false);
}

/* Initiator, 2 CPTs, the MD on CPT 1: the REPLY made on the NI's lcore hops to the MD's once. */
static void
test_initiator_get_by_rdma_md_elsewhere(void **state)
{
	struct lnet_ctl_hops hops;

	(void)state;
	initiator_get_by_rdma(true);
	hops = ut_hops_since();
	printf("hops: GET %llu REPLY %llu\n", (unsigned long long)hops.get,
	       (unsigned long long)hops.reply);
	assert_int_equal(hops.reply, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_target_reply_by_rdma, setup_one, ut_teardown),
		cmocka_unit_test_setup_teardown(test_target_plain_get_on_rdma_lnd, setup_one,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_initiator_get_by_rdma, setup_one, ut_teardown),
		cmocka_unit_test_setup_teardown(test_initiator_get_by_rdma_md_elsewhere, setup_two,
						ut_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
