/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ring hops (issue 32): how many times one message changes lcores on this
 * node, counted by the lcores themselves (lnet_hop_count) and summed by
 * lnet_ctl_hops_get. Simulated runtime, 2 CPTs: tcp (10.0.0.1) on CPT 0,
 * tcp1 (10.1.0.1) on CPT 1, over an LND that completes each send at once
 * and lets the test answer as the peer would. The MDs sit on CPT 1, the
 * other CPT from tcp's, so a message whose steps do not follow its NI
 * shows it. Each case warms the peer NI up first (a first message to a
 * NID goes by the management lcore), then prints the crossings of each
 * kind of message and asserts them. At main bfd1d90 (peer NIs sharded
 * by NID hash) they were: initiator PUT 2 + ACK 4, GET 2 + REPLY 4; target
 * PUT 3 + ACK 3, GET 2 + REPLY 4; a forwarded PUT 6. With peer NIs in the
 * shard of their net's NI (lnet_cpt_of_peer) and an ACK consumed on its
 * NI's lcore they are as asserted:
 *   - the initiator of a PUT+ACK, of a GET+REPLY and of a routed PUT;
 *   - the target of a PUT+ACK and of a GET+REPLY;
 *   - a router forwarding a PUT from tcp to tcp1.
 * A received message for an MD on another lcore leaves its NI's lcore
 * once, for the MD's (matching or the MD lookup): the LND consumes a
 * message without payload before it goes, and lends a payload
 * (recv_take), which is copied into the MD there. At 514820c, without the
 * lending, the target's PUT and the initiator's REPLY took 3: to the MD's
 * lcore, back to the NI's for the LND's recv, to the MD's for the event;
 * the target's GET 2. An LND that cannot lend still takes those 3.
 */
#include <stdio.h>

#include "lnet_ut.h"
#include "lnet_route.h"

struct h_sent {
	struct lnet_hdr hdr;
	struct lnet_nid hop;
};

static struct {
	struct h_sent sent[16];
	unsigned int nsent;
	struct lnet_ni *tcp;
	struct lnet_ni *tcp1;
	const uint8_t *rx; /* the payload the next receive delivers (NULL: none) */
	unsigned int rx_len;
	bool refuse_lend;   /* recv_take says it cannot */
	unsigned int lent;  /* payloads lent and not given back */
	unsigned int lends; /* payloads lent in all */
	struct h_lent {
		struct lnet_rx_payload p;
		struct iovec iov;
		uint8_t bytes[256];
	} lend_buf;
} g_h;

static int
h_startup(struct lnet_ni *ni)
{
	(void)ni;
	return 0;
}

static void
h_shutdown(struct lnet_ni *ni)
{
	(void)ni;
}

static int
h_send(struct lnet_ni *ni, struct lnet_msg *msg)
{
	struct h_sent *s = &g_h.sent[g_h.nsent++ % 16];

	(void)ni;
	s->hdr = *lnet_msg_hdr(msg);
	s->hop = *lnet_msg_nexthop(msg);
	lnet_finalize(msg, 0);
	return 0;
}

/* The payload arrives at once: g_h.rx's bytes (a gateway's ping data), else nothing copied. */
static int
h_recv(struct lnet_ni *ni, void *private, struct lnet_msg *msg, unsigned int niov,
       const struct iovec *iov, unsigned int offset, unsigned int mlen, unsigned int rlen)
{
	struct iovec src = { (void *)g_h.rx, g_h.rx_len };

	if (msg != NULL && g_h.rx != NULL && mlen != 0) {
		lnet_iov_copy(iov, niov, offset, &src, 1, 0, mlen);
	}
	return ut_lnd_recv_arrived(ni, private, msg, niov, iov, offset, mlen, rlen);
}

static void
h_release(struct lnet_rx_payload *p)
{
	assert_ptr_equal(p, &g_h.lend_buf.p);
	assert_int_equal(g_h.lent, 1);
	g_h.lent--;
	memset(g_h.lend_buf.bytes, 0xee, sizeof(g_h.lend_buf.bytes)); /* a reuse shows */
}

/* Lends g_h.rx's bytes (as an LND with the payload in its buffer): one at a time. */
static int
h_recv_take(struct lnet_ni *ni, void *private, unsigned int rlen, struct lnet_rx_payload **out)
{
	struct h_lent *b = &g_h.lend_buf;

	(void)ni;
	(void)private;
	if (g_h.refuse_lend || g_h.lent != 0 || rlen > sizeof(b->bytes)) {
		return -ENOBUFS;
	}
	memset(b->bytes, 0, sizeof(b->bytes));
	if (g_h.rx != NULL) {
		memcpy(b->bytes, g_h.rx, rlen < g_h.rx_len ? rlen : g_h.rx_len);
	}
	b->iov = (struct iovec){ b->bytes, rlen };
	b->p = (struct lnet_rx_payload){ .iov = &b->iov, .niov = 1, .release = h_release };
	g_h.lent++;
	g_h.lends++;
	*out = &b->p;
	return 0;
}

static const struct lnet_lnd_ops h_ops = {
	.name = "hpeer",
	.type = 0xfb,
	.startup = h_startup,
	.shutdown = h_shutdown,
	.send = h_send,
	.recv = h_recv,
	.recv_take = h_recv_take,
};

#define TCP LNET_MKNET(LNET_LND_SOCK, 0)
#define TCP1 LNET_MKNET(LNET_LND_SOCK, 1)
#define ME_A 0x0a000001U /* 10.0.0.1@tcp: ours, CPT 0 */
#define ME_B 0x0a010001U /* 10.1.0.1@tcp1: ours, CPT 1 */
#define PA 0x0a000007U   /* 10.0.0.7@tcp: a peer */
#define PB 0x0a010008U   /* 10.1.0.8@tcp1: a peer on the other net */
#define H_PORTAL 11      /* wildcard: matched on CPT 11 % 2 = 1 */

static void
settle(void)
{
	rt_runtime_poll_until_idle(lnet_instance()->rt, 200);
}

static struct lnet_ni *
ni_add(struct lnet_nid nid, unsigned int cpt)
{
	struct lnet_ni_req req = {
		.add = true,
		.lnd = &h_ops,
		.nid = &nid,
		.cpt = cpt,
		.tun = { .peer_tx_credits = 8, .max_tx_credits = 64 },
	};

	assert_int_equal(lnet_ni_config(lnet_instance(), &req), 0);
	return lnet_ni_find_by_nid(lnet_instance(), &nid);
}

static int
setup(void **state)
{
	char err[128];

	(void)state;
	memset(&g_h, 0, sizeof(g_h));
	ut_up(2);
	g_h.tcp = ni_add(ut_nid4(TCP, ME_A), 0);
	g_h.tcp1 = ni_add(ut_nid4(TCP1, ME_B), 1);
	assert_non_null(g_h.tcp);
	assert_non_null(g_h.tcp1);
	assert_int_equal(g_h.tcp->cpt, 0);
	assert_int_equal(g_h.tcp1->cpt, 1);
	ut_discovery(0);
	assert_int_equal(lnet_ctl_param_set("alive_router_check_interval", 0, err, sizeof(err)), 0);
	return 0;
}

/* Every hop so far, of every kind. */
static uint64_t
hops_total(void)
{
	struct lnet_ctl_hops h;

	assert_int_equal(lnet_ctl_hops_get(&h), 0);
	return h.put + h.get + h.ack + h.reply + h.forward;
}

/*
 * One PUT to PA (no ACK): the first message to a NID makes its peer NI
 * (through the management lcore); the cases count a known peer's.
 */
static void
warm_up(void)
{
	static char buf[8];
	struct lnet_md md = ut_md(buf, sizeof(buf), 1, 0);
	struct lnet_processid pa = { .pid = LNET_PID_LUSTRE, .nid = ut_nid4(TCP, PA) };
	struct lnet_handle_md h;

	assert_int_equal(LNetMDBind(&md, LNET_UNLINK, &h), 0);
	assert_int_equal(LNetPut(NULL, h, LNET_NOACK_REQ, &pa, UT_PORTAL, 1, 0, 0), 0);
	settle();
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	(void)ut_hops_since();
}

/* @p h arrives on tcp from PA. */
static void
deliver(struct lnet_hdr *h, unsigned int len)
{
	struct lnet_nid pa = ut_nid4(TCP, PA);

	h->payload_length = len;
	assert_int_equal(ut_parse(g_h.tcp, h, &pa, NULL), 0);
	settle();
}

static const struct h_sent *
last_sent(void)
{
	assert_true(g_h.nsent > 0);
	return &g_h.sent[(g_h.nsent - 1) % 16];
}

static void
report(const char *what, const struct lnet_ctl_hops *h)
{
	printf("hops: %-24s put %llu get %llu ack %llu reply %llu forward %llu (unlent %llu)\n",
	       what, (unsigned long long)h->put, (unsigned long long)h->get,
	       (unsigned long long)h->ack, (unsigned long long)h->reply,
	       (unsigned long long)h->forward, (unsigned long long)h->rx_unlent);
	fflush(stdout);
}

/* The hops of each kind a case made are @p want's (put, get, ack, reply, forward). */
static void
expect_hops(const char *what, struct lnet_ctl_hops want)
{
	struct lnet_ctl_hops got = ut_hops_since();

	report(what, &got);
	assert_int_equal(got.put, want.put);
	assert_int_equal(got.get, want.get);
	assert_int_equal(got.ack, want.ack);
	assert_int_equal(got.reply, want.reply);
	assert_int_equal(got.forward, want.forward);
	assert_int_equal(got.rx_unlent, want.rx_unlent);
}

/* Initiator: PUT to PA from an MD on CPT 1, then PA's ACK: SEND and ACK events. */
static void
test_initiator_put_ack(void **state)
{
	static char buf[32] = "put";
	struct lnet_processid pa = { .pid = LNET_PID_LUSTRE, .nid = ut_nid4(TCP, PA) };
	struct lnet_handle_md h = ut_bind_on(1, buf, sizeof(buf), 2);
	struct lnet_hdr ack = { .type = LNET_MSG_ACK,
				.src_nid = pa.nid,
				.dest_nid = g_h.tcp->nid,
				.src_pid = LNET_PID_LUSTRE,
				.dest_pid = LNET_PID_LUSTRE };

	(void)state;
	warm_up();
	assert_int_equal(LNetPut(NULL, h, LNET_ACK_REQ, &pa, UT_PORTAL, 1, 0, 0), 0);
	settle();
	assert_int_equal(last_sent()->hdr.type, LNET_MSG_PUT);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	ack.msg.ack.dst_wmd = last_sent()->hdr.msg.put.ack_wmd;
	ack.msg.ack.mlength = sizeof(buf);
	deliver(&ack, 0);
	assert_int_equal(ut_event().type, LNET_EVENT_ACK);
	/*
	 * PUT: to tcp's lcore, back for its SEND event; ACK: the LND done with
	 * it on tcp's lcore, to the MD's for the event, freed there (pools).
	 */
	expect_hops("initiator PUT+ACK", (struct lnet_ctl_hops){ .put = 2, .ack = 1 });

	/* The same ACK again: its MD is gone (2 events), so it is dropped, counted, and freed. */
	deliver(&ack, 0);
	ut_no_event();
	assert_int_equal(ut_counters().drop_count, 1);
	assert_int_equal(ut_counters().msgs_alloc, 0);
}

/*
 * Initiator: GET from PA into an MD on CPT 1, then PA's REPLY (its 8 bytes
 * lent by the LND unless @p lend is false): SEND and REPLY events, the
 * bytes in the MD, the lent buffer given back once.
 */
static void
initiator_get_reply(bool lend)
{
	static char buf[32];
	static const uint8_t data[8] = "reply-8";
	struct lnet_processid pa = { .pid = LNET_PID_LUSTRE, .nid = ut_nid4(TCP, PA) };
	struct lnet_handle_md h = ut_bind_on(1, buf, sizeof(buf), 2);
	struct lnet_hdr reply = { .type = LNET_MSG_REPLY,
				  .src_nid = pa.nid,
				  .dest_nid = g_h.tcp->nid,
				  .src_pid = LNET_PID_LUSTRE,
				  .dest_pid = LNET_PID_LUSTRE };
	struct lnet_event ev;

	warm_up();
	memset(buf, 0, sizeof(buf));
	assert_int_equal(LNetGet(NULL, h, &pa, UT_PORTAL, 1, 0, false), 0);
	settle();
	assert_int_equal(last_sent()->hdr.type, LNET_MSG_GET);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	reply.msg.reply.dst_wmd = last_sent()->hdr.msg.get.return_wmd;
	g_h.refuse_lend = !lend;
	g_h.rx = data;
	g_h.rx_len = sizeof(data);
	deliver(&reply, sizeof(data));
	g_h.rx = NULL;
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_REPLY);
	assert_int_equal(ev.status, 0);
	assert_int_equal(ev.mlength, sizeof(data));
	assert_memory_equal(buf, data, sizeof(data));
	assert_int_equal(g_h.lent, 0);
	assert_int_equal(g_h.lends, lend ? 1 : 0);
}

static void
test_initiator_get_reply(void **state)
{
	(void)state;
	initiator_get_reply(true);
	/* REPLY: to the MD's lcore with its payload lent, copied in there, its event there */
	expect_hops("initiator GET+REPLY", (struct lnet_ctl_hops){ .get = 2, .reply = 1 });
}

/* As above, the LND unable to lend: back to the NI's lcore for its recv, again to the MD's. */
static void
test_initiator_get_reply_unlent(void **state)
{
	(void)state;
	initiator_get_reply(false);
	expect_hops("initiator GET+REPLY unlent",
		    (struct lnet_ctl_hops){ .get = 2, .reply = 3, .rx_unlent = 1 });
}

/* A wildcard MD on H_PORTAL (matched on CPT 1) taking PUTs and GETs: its buffer. */
static char *
attach_target(void)
{
	static char buf[64];
	struct lnet_md md =
		ut_md(buf, sizeof(buf), LNET_MD_THRESH_INF, LNET_MD_OP_PUT | LNET_MD_OP_GET);
	struct lnet_processid any = { .pid = LNET_PID_ANY, .nid = LNET_ANY_NID };
	struct lnet_handle_md h;
	struct lnet_me *me = LNetMEAttach(H_PORTAL, &any, 0, ~0ULL, LNET_RETAIN, LNET_INS_AFTER);

	assert_non_null(me);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(LNetMDAttach(me, &md, LNET_RETAIN, &h), 0);
	assert_int_equal(lnet_cookie_cpt(h.cookie), 1);
	return buf;
}

/*
 * Target: a PUT of 16 bytes from PA to @p portal asking for an ACK; with
 * @p matched, a wildcard MD there takes it: the PUT event, the bytes in
 * the MD, the ACK sent. The LND lends the payload unless @p lend is false.
 */
static void
target_put(unsigned int portal, bool matched, bool lend)
{
	static const uint8_t data[16] = "sixteen bytes!!";
	struct lnet_hdr put = { .type = LNET_MSG_PUT,
				.src_nid = ut_nid4(TCP, PA),
				.dest_nid = ut_nid4(TCP, ME_A),
				.src_pid = LNET_PID_LUSTRE,
				.dest_pid = LNET_PID_LUSTRE };
	char *buf = NULL;
	struct lnet_event ev;

	warm_up();
	if (matched) {
		buf = attach_target();
	}
	put.msg.put.ptl_index = portal;
	put.msg.put.ack_wmd.wh_interface_cookie = 7;
	put.msg.put.ack_wmd.wh_object_cookie = 9;
	g_h.refuse_lend = !lend;
	g_h.rx = data;
	g_h.rx_len = sizeof(data);
	deliver(&put, sizeof(data));
	g_h.rx = NULL;
	assert_int_equal(g_h.lent, 0);
	assert_int_equal(g_h.lends, lend ? 1 : 0);
	if (!matched) {
		ut_no_event();
		assert_int_equal(ut_counters().drop_count, 1);
		assert_int_equal(ut_counters().msgs_alloc, 0);
		return;
	}
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_PUT);
	assert_int_equal(ev.mlength, sizeof(data));
	assert_memory_equal(buf, data, sizeof(data));
	assert_int_equal(last_sent()->hdr.type, LNET_MSG_ACK);
}

static void
test_target_put_ack(void **state)
{
	(void)state;
	target_put(H_PORTAL, true, true);
	/* PUT: its payload lent, matched, copied in and its event on CPT 1; ACK: sent from CPT 1 */
	expect_hops("target PUT+ACK", (struct lnet_ctl_hops){ .put = 1, .ack = 1 });
}

/* As above, the LND unable to lend: matched on CPT 1, its recv on tcp's, its event on CPT 1. */
static void
test_target_put_ack_unlent(void **state)
{
	(void)state;
	target_put(H_PORTAL, true, false);
	expect_hops("target PUT+ACK unlent",
		    (struct lnet_ctl_hops){ .put = 3, .ack = 1, .rx_unlent = 1 });
}

/* A lent payload whose PUT matches nothing is dropped where it fails to match, and given back. */
static void
test_target_put_unmatched_lent(void **state)
{
	(void)state;
	target_put(H_PORTAL + 2, false, true); /* another wildcard portal of CPT 1, no ME */
}

/* Target: a GET from PA: the REPLY sent, the GET event. */
static void
test_target_get_reply(void **state)
{
	struct lnet_hdr get = { .type = LNET_MSG_GET,
				.src_nid = ut_nid4(TCP, PA),
				.dest_nid = ut_nid4(TCP, ME_A),
				.src_pid = LNET_PID_LUSTRE,
				.dest_pid = LNET_PID_LUSTRE };

	(void)state;
	warm_up();
	attach_target();
	get.msg.get.ptl_index = H_PORTAL;
	get.msg.get.sink_length = 16;
	get.msg.get.return_wmd.wh_interface_cookie = 7;
	get.msg.get.return_wmd.wh_object_cookie = 9;
	deliver(&get, 0);
	assert_int_equal(ut_event().type, LNET_EVENT_GET);
	assert_int_equal(last_sent()->hdr.type, LNET_MSG_REPLY);
	/*
	 * GET: consumed on tcp's lcore, matched on CPT 1; its REPLY starts
	 * there: to tcp's for selection, credits and the LND, back for its
	 * event. At 514820c: GET 2 (matched, back for its recv), REPLY 1.
	 */
	expect_hops("target GET+REPLY", (struct lnet_ctl_hops){ .get = 1, .reply = 2 });
}

/* Router: a PUT from PA@tcp (CPT 0) for PB@tcp1 (CPT 1), forwarded unchanged. */
static void
test_router_forward_put(void **state)
{
	struct lnet_nid pb = ut_nid4(TCP1, PB);
	struct lnet_hdr put = { .type = LNET_MSG_PUT,
				.src_nid = ut_nid4(TCP, PA),
				.dest_nid = pb,
				.src_pid = LNET_PID_LUSTRE,
				.dest_pid = LNET_PID_LUSTRE };
	char err[128];

	(void)state;
	warm_up();
	assert_int_equal(lnet_ctl_param_set("router_ping_timeout", 0, err, sizeof(err)), 0);
	assert_int_equal(lnet_ctl_routing_set(true, err, sizeof(err)), 0);
	settle();
	put.msg.put.ptl_index = 33;
	(void)ut_hops_since();
	deliver(&put, 100);
	assert_true(lnet_nid_same(&last_sent()->hop, &pb));
	assert_true(lnet_nid_same(&last_sent()->hdr.dest_nid, &pb));
	ut_no_event();
	/* In on tcp's lcore, out on tcp1's (selection, credits, the LND), its buffer back on tcp's */
	expect_hops("router forwarded PUT", (struct lnet_ctl_hops){ .forward = 2 });
}

#define TCP5 LNET_MKNET(LNET_LND_SOCK, 5)
#define G1 0x0a000009U  /* 10.0.0.9@tcp: a gateway to tcp5 */
#define FAR 0x0a050002U /* 10.5.0.2@tcp5: behind G1 */

/* PUT (no ACK) to FAR through G1 from an MD on CPT 1. */
static void
put_far(struct lnet_handle_md h)
{
	struct lnet_processid far = { .pid = LNET_PID_LUSTRE, .nid = ut_nid4(TCP5, FAR) };
	struct lnet_nid g1 = ut_nid4(TCP, G1);

	assert_int_equal(LNetPut(NULL, h, LNET_NOACK_REQ, &far, UT_PORTAL, 1, 0, 0), 0);
	settle();
	assert_int_equal(last_sent()->hdr.type, LNET_MSG_PUT);
	assert_true(lnet_nid_same(&last_sent()->hop, &g1));
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
}

/* G1 answers our ping @p get (the router check a new route starts with): its NIs up, routing. */
static void
g1_reply(const struct h_sent *get)
{
	struct lnet_ping_entry nis[2] = {
		{ .nid = ut_nid4(TCP, G1), .status = LNET_NI_STATUS_UP },
		{ .nid = ut_nid4(TCP5, G1), .status = LNET_NI_STATUS_UP },
	};
	struct lnet_ping_src src = { .features = 0x1e & ~LNET_PING_FEAT_RTE_DISABLED,
				     .pid = LNET_PID_LUSTRE,
				     .seqno = 3,
				     .nis = nis,
				     .nnis = 2 };
	struct lnet_hdr h = { .type = LNET_MSG_REPLY,
			      .src_nid = ut_nid4(TCP, G1),
			      .dest_nid = ut_nid4(TCP, ME_A),
			      .src_pid = LNET_PID_LUSTRE,
			      .dest_pid = LNET_PID_LUSTRE };
	static uint8_t info[256];
	struct lnet_nid g1 = ut_nid4(TCP, G1);
	size_t len = 0;

	assert_int_equal(get->hdr.type, LNET_MSG_GET);
	assert_int_equal(get->hdr.msg.get.ptl_index, LNET_RESERVED_PORTAL);
	assert_int_equal(lnet_ping_info_encode(&src, info, sizeof(info), &len), 0);
	h.msg.reply.dst_wmd = get->hdr.msg.get.return_wmd;
	h.payload_length = (unsigned int)len;
	g_h.rx = info;
	g_h.rx_len = (unsigned int)len;
	assert_int_equal(ut_parse(g_h.tcp, &h, &g1, NULL), 0);
	settle();
	g_h.rx = NULL;
}

/* Initiator: a PUT to FAR on tcp5, routed through G1 on tcp (CPT 0), its MD on CPT 1. */
static void
test_initiator_routed_put(void **state)
{
	static char buf[32] = "routed";
	struct lnet_nid g1 = ut_nid4(TCP, G1);
	struct lnet_nid far;
	const struct lnet_route_table *t;
	static uint8_t snap[sizeof(struct lnet_route_table) + 4 * sizeof(struct lnet_route_view)];
	char err[128];

	(void)state;
	assert_int_equal(lnet_ctl_route_add(TCP5, &g1, LNET_CTL_UNDEFINED_HOPS, 0, 0, err,
					    sizeof(err)),
			 0);
	settle();
	g1_reply(last_sent());
	put_far(ut_bind_on(1, buf, sizeof(buf), 1)); /* FAR's and G1's peer NIs made */
	t = lnet_route_table_get(lnet_instance());
	assert_non_null(t);
	assert_true(t->nroutes <= 4);
	memcpy(snap, t, sizeof(*t) + t->nroutes * sizeof(t->routes[0]));
	(void)ut_hops_since();
	put_far(ut_bind_on(1, buf, sizeof(buf), 1));
	/* The published route snapshot is read, never written (its round robin is the lcore's). */
	assert_ptr_equal(lnet_route_table_get(lnet_instance()), t);
	assert_memory_equal(snap, t, sizeof(*t) + t->nroutes * sizeof(t->routes[0]));
	/*
	 * Selection runs in FAR's shard (no NI on tcp5: by NID hash, CPT 1,
	 * the MD's), then to G1's (tcp's) for credits and the LND, back for
	 * the SEND event. With more CPTs, a FAR hashed to neither the MD's
	 * nor tcp's costs one more.
	 */
	far = ut_nid4(TCP5, FAR);
	assert_int_equal(lnet_nid_cpt_hash(&far, 2), 1);
	expect_hops("initiator routed PUT", (struct lnet_ctl_hops){ .put = 2 });
}

/* stats reset zeroes the hop counts of every lcore. */
static void
test_reset_zeroes_hops(void **state)
{
	static char buf[32] = "put";
	struct lnet_processid pa = { .pid = LNET_PID_LUSTRE, .nid = ut_nid4(TCP, PA) };
	struct lnet_handle_md h = ut_bind_on(1, buf, sizeof(buf), 1);

	(void)state;
	assert_int_equal(LNetPut(NULL, h, LNET_NOACK_REQ, &pa, UT_PORTAL, 1, 0, 0), 0);
	settle();
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	assert_true(hops_total() > 0);
	assert_int_equal(lnet_counters_reset(), 0);
	assert_int_equal(hops_total(), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_initiator_put_ack, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_initiator_get_reply, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_initiator_get_reply_unlent, setup,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_target_put_ack, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_target_put_ack_unlent, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_target_put_unmatched_lent, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_target_get_reply, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_router_forward_put, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_initiator_routed_put, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_reset_zeroes_hops, setup, ut_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
