/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Discovery wired to the node (lnet_discovery.c), in simulated mode with a
 * LND that records what LNet sends and lets the test answer as a kernel
 * peer K would (192.0.2.11, and 198.51.100.11 when Multi-Rail):
 *   - the first PUT to K waits for its discovery: our ping, K's REPLY, our
 *     push and its ACK, then the PUT; K is then Multi-Rail with both NIDs
 *     (peer state 273, as the kernel's) and PUTs alternate between them;
 *   - K down: the discovery's timer fails the held PUT, K's peer is in
 *     error; a PUT within the back-off fails at once, the next one after
 *     it pings again; a K that never answers costs 6 pings a minute;
 *   - K deleted in its back-off: nothing fires, a new peer pings at once;
 *   - K deleted while its ping is out: the held PUT fails at once, and the
 *     ping's timer and a late REPLY find nothing to act on;
 *   - K's push: ACKed, merged (both NIDs), pushed back;
 *   - LNetPeerDiscovered and LNetPrimaryNID follow K's discovery;
 *   - K met under both NIDs first: its two peers merge into one, held
 *     messages and all (seed 002's merge race);
 *   - the push after a ping reply goes back by the reply's path, the next
 *     one by selection (the kernel's lp_disc_src_nid/lp_disc_dst_nid);
 *   - an NI's link down and up: pushed to K with its status, avoided while down;
 *   - LNetAddPeer(K_A, K_B): both pinged, merged under the locked K_A.
 */
#include "lnet_ut.h"
#include "ut_klnd.h"
#include "lnp_test_nid.h"

#define K_ME 0xc0000215U /* 192.0.2.21: our NI */
#define K_A 0xc000020bU  /* 192.0.2.11: K's primary */
#define K_B 0xc633640bU  /* 198.51.100.11: K's second NID */

static void
settle(void)
{
	rt_runtime_poll_until_idle(lnet_instance()->rt, 1000);
}

static int
setup(void **state)
{
	struct lnet_ni_req req = {
		.add = true,
		.lnd = &k_ops,
		.tun = { .peer_tx_credits = 8, .max_tx_credits = 64 },
		.cpt = 0,
	};
	struct lnet_nid nid = lnp_tcp_nid(K_ME);
	char err[128];

	(void)state;
	memset(&g_k, 0, sizeof(g_k));
	ut_up(1);
	req.nid = &nid;
	assert_int_equal(lnet_ni_config(lnet_instance(), &req), 0);
	g_k.ni = lnet_ni_find_by_nid(lnet_instance(), &nid);
	assert_non_null(g_k.ni);
	assert_int_equal(lnet_ctl_global_set("transaction_timeout", 10, err, sizeof(err)), 0);
	return 0;
}

/* K's ping info: 0@lo with @p seqno, then its NIDs (one, or both when Multi-Rail). */
static size_t
k_info(uint8_t *buf, size_t room, uint32_t seqno, bool mr)
{
	struct lnet_ping_entry nis[2] = {
		{ .nid = lnp_tcp_nid(K_A), .status = LNET_NI_STATUS_UP },
		{ .nid = lnp_tcp_nid(K_B), .status = LNET_NI_STATUS_UP },
	};
	struct lnet_ping_src src = { .features = 0x1e,
				     .pid = LNET_PID_LUSTRE,
				     .seqno = seqno,
				     .nis = nis,
				     .nnis = mr ? 2 : 1 };
	size_t len = 0;

	assert_int_equal(lnet_ping_info_encode(&src, buf, room, &len), 0);
	return len;
}

/* K sends @p hdr (from @p from) with @p payload to our NI. */
static void
k_deliver(struct lnet_hdr *hdr, uint32_t from, const uint8_t *payload, unsigned int len)
{
	struct lnet_nid f = lnp_tcp_nid(from);

	hdr->src_nid = f;
	hdr->dest_nid = g_k.ni->nid;
	hdr->src_pid = LNET_PID_LUSTRE;
	hdr->dest_pid = LNET_PID_LUSTRE;
	hdr->payload_length = len;
	g_k.rx = payload;
	g_k.rx_len = len;
	assert_int_equal(ut_parse(g_k.ni, hdr, &f, NULL), 0);
	settle();
}

static const struct sent *
sent_at(unsigned int i)
{
	assert_true(i < g_k.nsent);
	return &g_k.sent[i % SENT_MAX];
}

static bool
is_ping_get(const struct sent *s)
{
	return s->hdr.type == LNET_MSG_GET && s->hdr.msg.get.ptl_index == LNET_RESERVED_PORTAL &&
	       s->hdr.msg.get.match_bits == LNET_PROTO_PING_MATCHBITS;
}

static bool
is_push(const struct sent *s)
{
	return s->hdr.type == LNET_MSG_PUT && s->hdr.msg.put.ptl_index == LNET_RESERVED_PORTAL &&
	       s->hdr.msg.put.match_bits == LNET_PROTO_PING_MATCHBITS;
}

/* K answers our ping @p get with its ping info. */
static void
k_reply(const struct sent *get, bool mr)
{
	static uint8_t info[256];
	struct lnet_hdr h = { .type = LNET_MSG_REPLY };
	size_t len = k_info(info, sizeof(info), 2, mr);

	h.msg.reply.dst_wmd = get->hdr.msg.get.return_wmd;
	k_deliver(&h, K_A, info, (unsigned int)len);
}

/* K ACKs our push @p put. */
static void
k_ack(const struct sent *put)
{
	struct lnet_hdr h = { .type = LNET_MSG_ACK };

	h.msg.ack.dst_wmd = put->hdr.msg.put.ack_wmd;
	h.msg.ack.match_bits = LNET_PROTO_PING_MATCHBITS;
	h.msg.ack.mlength = put->hdr.payload_length;
	k_deliver(&h, K_A, NULL, 0);
}

static void
put_to(uint32_t addr, const char *data)
{
	struct lnet_processid k = { .pid = LNET_PID_LUSTRE, .nid = lnp_tcp_nid(addr) };

	assert_int_equal(LNetPut(NULL, ut_bind((void *)data, (unsigned int)strlen(data) + 1, 1),
				 LNET_NOACK_REQ, &k, UT_PORTAL, 0, 0, 0),
			 0);
	settle();
}

static void
put_to_k(const char *data)
{
	put_to(K_A, data);
}

static struct lnet_ctl_peer
k_peer(void)
{
	struct lnet_ctl_peer p;
	struct lnet_nid nid = lnp_tcp_nid(K_A);
	uint64_t next;

	assert_int_equal(lnet_ctl_peer_list(0, &nid, &p, 1, &next), 1);
	return p;
}

/* The first PUT to K waits for K's discovery, then PUTs spread over K's NIDs. */
static void
test_first_put_discovers_mr_peer(void **state)
{
	struct lnet_ctl_peer p;
	unsigned int to_a = 0;
	unsigned int to_b = 0;
	unsigned int i;

	(void)state;
	put_to_k("first");
	assert_int_equal(g_k.nsent, 1); /* our ping, not the PUT */
	assert_true(is_ping_get(sent_at(0)));
	assert_int_equal(sent_at(0)->hdr.msg.get.sink_length, 272); /* the kernel's, s1_02 */
	ut_no_event();
	assert_int_equal(k_peer().state, LNET_CTL_PEER_DISCOVERING | LNET_CTL_PEER_PING_SENT);

	k_reply(sent_at(0), true);
	assert_int_equal(g_k.nsent, 2); /* our push: the PUT waits for its ACK */
	assert_true(is_push(sent_at(1)));
	k_ack(sent_at(1));
	assert_int_equal(g_k.nsent, 3);
	assert_int_equal(sent_at(2)->hdr.type, LNET_MSG_PUT);
	assert_int_equal(sent_at(2)->hdr.msg.put.ptl_index, UT_PORTAL);
	assert_memory_equal(sent_at(2)->payload, "first", 6);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);

	p = k_peer();
	assert_true(p.mr);
	assert_int_equal(p.nnis, 2);
	assert_int_equal(p.state, 273); /* MULTI_RAIL|DISCOVERED|NIDS_UPTODATE, the kernel's */

	for (i = 0; i < 8; i++) {
		const struct sent *s;

		put_to_k("more");
		s = sent_at(g_k.nsent - 1);
		assert_int_equal(s->hdr.type, LNET_MSG_PUT);
		to_a += lnet_nid_same(&s->hdr.dest_nid, &p.nis[0]);
		to_b += lnet_nid_same(&s->hdr.dest_nid, &p.nis[1]);
		assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	}
	assert_int_equal(g_k.nsent, 11); /* nothing else: discovered */
	assert_int_equal(to_a, 4);
	assert_int_equal(to_b, 4);
}

/* K never answers: the discovery's timer fails the held PUT; the next PUT pings again. */
static void
test_ping_timeout_fails_held_put(void **state)
{
	struct lnet_event ev;

	(void)state;
	put_to_k("lost");
	assert_int_equal(g_k.nsent, 1);
	rt_sim_advance_us(lnet_instance()->rt, 9ULL * 1000000);
	settle();
	ut_no_event();
	rt_sim_advance_us(lnet_instance()->rt, 2ULL * 1000000);
	settle();
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, -ETIMEDOUT);
	assert_true((k_peer().state & LNET_CTL_PEER_PING_FAILED) != 0);
	assert_int_equal(g_k.nsent, 1); /* the PUT never left */

	/* Within the first failure's back-off (1 s) a PUT fails at once, no ping. */
	put_to_k("too soon");
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, -ETIMEDOUT);
	assert_int_equal(g_k.nsent, 1);
	rt_sim_advance_us(lnet_instance()->rt, 1000000);
	put_to_k("again");
	assert_int_equal(g_k.nsent, 2);
	assert_true(is_ping_get(sent_at(1)));
}

/* Pings sent to K so far. */
static unsigned int
pings_sent(void)
{
	unsigned int n = 0;
	unsigned int i;

	for (i = 0; i < g_k.nsent; i++) {
		n += is_ping_get(sent_at(i));
	}
	return n;
}

/*
 * K never answers and a PUT goes to it every 100 ms for a minute, each
 * ping timing out after 3 s (transaction_timeout 3): the back-off after
 * the k-th failure in a row, 2^(k-1) s, leaves 6 pings in that minute
 * (at 0, 4, 9, 16, 27 and 46 s), not one every 3 s (20). Every PUT ends
 * with an error event but those held behind the last ping.
 */
static void
test_silent_peer_pings_bounded(void **state)
{
	char err[128];
	unsigned int puts = 0;
	unsigned int events = 0;
	unsigned int t;
	struct lnet_event ev;

	(void)state;
	assert_int_equal(lnet_ctl_global_set("transaction_timeout", 3, err, sizeof(err)), 0);
	for (t = 0; t < 600; t++) { /* 60 s in steps of 100 ms */
		put_to_k("anyone?");
		puts++;
		rt_sim_advance_us(lnet_instance()->rt, 100000);
		settle();
		while ((ev = ut_event()).type != 0) {
			assert_int_equal(ev.type, LNET_EVENT_SEND);
			assert_int_equal(ev.status, -ETIMEDOUT);
			events++;
		}
	}
	assert_int_equal(g_k.nsent, pings_sent()); /* no PUT ever left */
	assert_int_equal(pings_sent(), 6);
	assert_true((k_peer().state & LNET_CTL_PEER_PING_FAILED) != 0);
	assert_int_equal(events, puts); /* the last ping failed at 49 s: none is held */
}

/*
 * K deleted while its back-off runs: nothing of it is left to fire; a PUT
 * to K's NID after makes a new peer, pinged at once (no back-off inherited).
 */
static void
test_peer_deleted_during_backoff(void **state)
{
	struct lnet_nid k = lnp_tcp_nid(K_A);
	struct lnet_event ev;
	char err[128];

	(void)state;
	put_to_k("lost");
	rt_sim_advance_us(lnet_instance()->rt, 11ULL * 1000000); /* ping timed out */
	settle();
	assert_int_equal(ut_event().status, -ETIMEDOUT);
	put_to_k("in back-off"); /* fails at once */
	assert_int_equal(ut_event().status, -ETIMEDOUT);
	assert_int_equal(g_k.nsent, 1);
	assert_int_equal(lnet_ctl_peer_del(&k, NULL, 0, err, sizeof(err)), 0);
	settle();
	ut_no_event();
	rt_sim_advance_us(lnet_instance()->rt, 2ULL * 1000000); /* past the back-off */
	settle();
	ut_no_event();
	assert_int_equal(g_k.nsent, 1);
	put_to_k("new peer");
	assert_int_equal(g_k.nsent, 2);
	assert_true(is_ping_get(sent_at(1)));
	k_reply(sent_at(1), false);
	assert_true(is_push(sent_at(2)));
	k_ack(sent_at(2));
	assert_int_equal(sent_at(3)->hdr.type, LNET_MSG_PUT);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, 0);
}

/* K deleted while its ping is out: the PUT fails now; nothing fires later. */
static void
test_peer_deleted_during_ping(void **state)
{
	struct lnet_nid k = lnp_tcp_nid(K_A);
	struct lnet_event ev;
	char err[128];

	(void)state;
	put_to_k("doomed");
	assert_int_equal(g_k.nsent, 1);
	assert_int_equal(lnet_ctl_peer_del(&k, NULL, 0, err, sizeof(err)), 0);
	settle();
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, -EHOSTUNREACH);
	/* The ping's timer and its late REPLY come to a peer that is gone. */
	rt_sim_advance_us(lnet_instance()->rt, 20ULL * 1000000);
	settle();
	k_reply(sent_at(0), true);
	ut_no_event();
	assert_int_equal(g_k.nsent, 1);
}

/* K pushes its two NIDs: ACKed, merged, and pushed back as the kernel does (s1_02). */
static void
test_push_merged_and_pushed_back(void **state)
{
	static uint8_t info[256];
	struct lnet_hdr h = { .type = LNET_MSG_PUT };
	size_t len = k_info(info, sizeof(info), 3, true);
	struct lnet_ctl_peer p;

	(void)state;
	h.msg.put.ack_wmd.wh_interface_cookie = 0x1122334455667788ULL;
	h.msg.put.ack_wmd.wh_object_cookie = 0x15;
	h.msg.put.match_bits = LNET_PROTO_PING_MATCHBITS;
	h.msg.put.ptl_index = LNET_RESERVED_PORTAL;
	k_deliver(&h, K_A, info, (unsigned int)len);
	assert_int_equal(g_k.nsent, 2);
	assert_int_equal(sent_at(0)->hdr.type, LNET_MSG_ACK);
	assert_true(is_push(sent_at(1)));
	p = k_peer();
	assert_true(p.mr);
	assert_int_equal(p.nnis, 2);
	assert_int_equal(p.state & (LNET_CTL_PEER_DISCOVERING | LNET_CTL_PEER_PUSH_SENT),
			 LNET_CTL_PEER_DISCOVERING | LNET_CTL_PEER_PUSH_SENT);
	k_ack(sent_at(1));
	assert_int_equal(k_peer().state, 273);
}

/*
 * K met under both its NIDs before either was discovered: two peers, each
 * with a PUT held behind its ping. K_A's REPLY names both: K_B's peer is
 * taken into K_A's, its PUT moves there and leaves with K_A's after the
 * push is ACKed; K_B's ping, answered late, finds nothing to act on.
 */
static void
test_two_peers_merged(void **state)
{
	struct lnet_ctl_peer p;
	struct lnet_nid b = lnp_tcp_nid(K_B);
	struct lnet_ctl_peer pb;
	uint64_t next;
	unsigned int puts = 0;
	unsigned int i;

	(void)state;
	put_to(K_A, "to-a");
	put_to(K_B, "to-b");
	assert_int_equal(g_k.nsent, 2);
	assert_true(is_ping_get(sent_at(0)) && is_ping_get(sent_at(1)));
	assert_true(lnet_nid_same(&sent_at(1)->hdr.dest_nid, &b));
	k_reply(sent_at(0), true);
	assert_int_equal(g_k.nsent, 3); /* our push to K */
	assert_true(is_push(sent_at(2)));
	assert_int_equal(lnet_ctl_peer_list(0, &b, &pb, 1, &next), 1);
	assert_true(lnet_nid_same(&pb.nis[0], &k_peer().nis[0])); /* one peer now */
	k_ack(sent_at(2));
	for (i = 3; i < g_k.nsent; i++) {
		puts += sent_at(i)->hdr.type == LNET_MSG_PUT &&
			sent_at(i)->hdr.msg.put.ptl_index == UT_PORTAL;
	}
	assert_int_equal(puts, 2);
	assert_int_equal(g_k.nsent, 5);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	p = k_peer();
	assert_int_equal(p.nnis, 2);
	assert_int_equal(p.state, 273);
	k_reply(sent_at(1), true); /* the late REPLY of K_B's ping */
	assert_int_equal(g_k.nsent, 5);
	assert_int_equal(k_peer().state, 273);
	ut_no_event();
}

/* Our ping info's features as the push @p s carries them. */
static uint32_t
push_features(const struct sent *s)
{
	uint32_t f;

	assert_true(s->len >= 8);
	memcpy(&f, s->payload + 4, sizeof(f));
	return f;
}

/* Discovery turned off then on again (s2_02): the push says DISCOVERY (0x1e), not 0xe. */
static void
test_push_after_discovery_reenabled(void **state)
{
	(void)state;
	ut_discovery(0);
	ut_discovery(1);
	put_to_k("after");
	assert_true(is_ping_get(sent_at(0)));
	k_reply(sent_at(0), false);
	assert_true(is_push(sent_at(1)));
	assert_int_equal(push_features(sent_at(1)), 0x1e);
	k_ack(sent_at(1));
	assert_int_equal(sent_at(2)->hdr.type, LNET_MSG_PUT);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
}

/* Another local NI on the K LND: @p addr, @p cpt 0. */
static struct lnet_ni *
add_ni(uint32_t addr)
{
	struct lnet_nid nid = lnp_tcp_nid(addr);
	struct lnet_ni_req req = {
		.add = true,
		.lnd = &k_ops,
		.nid = &nid,
		.tun = { .peer_tx_credits = 8, .max_tx_credits = 64 },
		.cpt = 0,
	};

	assert_int_equal(lnet_ni_config(lnet_instance(), &req), 0);
	settle();
	return lnet_ni_find_by_nid(lnet_instance(), &nid);
}

/*
 * As the kernel's lp_disc_src_nid/lp_disc_dst_nid: the push that follows a
 * ping reply goes back by the reply's path (our NI it came to, K's NID it
 * came from), whatever the selection would choose; the next push, with no
 * ping before it, is the selection's again (s1_04: B's push after its net
 * add leaves from the NI of its last ping reply).
 */
static void
test_push_back_by_reply_path(void **state)
{
	static uint8_t info[256];
	struct lnet_hdr h = { .type = LNET_MSG_REPLY };
	struct lnet_ni *me2 = add_ni(0xc6336415U); /* 198.51.100.21 */
	struct lnet_ni *me3;
	struct lnet_nid from = lnp_tcp_nid(K_B);
	size_t len = k_info(info, sizeof(info), 2, true);
	const struct sent *push;

	(void)state;
	assert_non_null(me2);
	put_to_k("held");
	assert_true(is_ping_get(sent_at(0)));
	h.msg.reply.dst_wmd = sent_at(0)->hdr.msg.get.return_wmd;
	h.src_nid = from;
	h.dest_nid = g_k.ni->nid;
	h.src_pid = LNET_PID_LUSTRE;
	h.dest_pid = LNET_PID_LUSTRE;
	h.payload_length = (uint32_t)len;
	g_k.rx = info;
	g_k.rx_len = (unsigned int)len;
	assert_int_equal(ut_parse(g_k.ni, &h, &from, NULL), 0);
	settle();
	push = sent_at(1);
	assert_true(is_push(push));
	/* the selection would take me2, never used; the path says the NI the reply came to */
	assert_true(lnet_nid_same(&push->hdr.src_nid, &g_k.ni->nid));
	assert_true(lnet_nid_same(&push->hdr.dest_nid, &from));
	k_ack(push);
	assert_int_equal(sent_at(2)->hdr.type, LNET_MSG_PUT);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);

	me3 = add_ni(0xc6336416U); /* 198.51.100.22: our NI list changed, K gets a push */
	assert_non_null(me3);
	push = sent_at(3);
	assert_true(is_push(push));
	/* the selection's: the NI never used yet, as the kernel's round robin */
	assert_true(lnet_nid_same(&push->hdr.src_nid, &me3->nid));
}

/* The status our push @p s gives @p nid, and its seqno. */
static uint32_t
pushed_status(const struct sent *s, const struct lnet_nid *nid, uint32_t *seqno)
{
	struct lnet_ping_entry nis[8];
	struct lnet_ping_decoded d;
	unsigned int i;

	assert_int_equal(lnet_ping_info_decode(s->payload, s->len, 8, &d, nis, 8), 0);
	*seqno = d.seqno;
	for (i = 0; i < d.nnis_total && i < 8; i++) {
		if (lnet_nid_same(&nis[i].nid, nid)) {
			return nis[i].status;
		}
	}
	fail_msg("NID not in the push");
	return 0;
}

/* PUTs to K now: how many leave from @p ni. */
static unsigned int
puts_from(const struct lnet_ni *ni, unsigned int n)
{
	unsigned int from = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		put_to_k("rail");
		from += lnet_nid_same(&sent_at(g_k.nsent - 1)->hdr.src_nid, &ni->nid);
		assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	}
	return from;
}

/*
 * The LND says an NI's link went down (ksocklnd's netdev notifier): K, a
 * Multi-Rail peer, gets a push under a new seqno that gives the NI status
 * DOWN; PUTs avoid the NI while it is down; back up, another push says UP
 * and the NI takes its share again.
 */
static void
test_link_down_pushes_and_avoids_ni(void **state)
{
	struct lnet_ni *me2 = add_ni(0xc6336415U);
	unsigned int n;
	uint32_t seq_down;
	uint32_t seq_up;

	(void)state;
	put_to_k("first");
	k_reply(sent_at(0), true);
	k_ack(sent_at(1));
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	assert_int_equal(puts_from(me2, 8), 4); /* both rails */

	lnet_ni_link_state(me2, false);
	settle();
	n = g_k.nsent;
	assert_true(is_push(sent_at(n - 1)));
	assert_int_equal(pushed_status(sent_at(n - 1), &me2->nid, &seq_down), LNET_NI_STATUS_DOWN);
	k_ack(sent_at(n - 1));
	assert_int_equal(puts_from(me2, 8), 0);
	lnet_ni_link_state(me2, false); /* no change: nothing sent */
	settle();
	assert_int_equal(g_k.nsent, n + 8);

	lnet_ni_link_state(me2, true);
	settle();
	n = g_k.nsent;
	assert_true(is_push(sent_at(n - 1)));
	assert_int_equal(pushed_status(sent_at(n - 1), &me2->nid, &seq_up), LNET_NI_STATUS_UP);
	assert_int_equal(seq_up, seq_down + 1);
	k_ack(sent_at(n - 1));
	assert_int_equal(puts_from(me2, 8), 4);
}

/*
 * LNetAddPeer(K_A, K_B) with discovery on, as Lustre adds a server from
 * its configuration: both NIDs are pinged; K's replies name both, and the
 * two peers become one under K_A, the locked primary, Multi-Rail.
 */
static void
test_add_peer_discovers_and_merges(void **state)
{
	struct lnet_nid nids[2] = { lnp_tcp_nid(K_A), lnp_tcp_nid(K_B) };
	struct lnet_ctl_peer p;
	struct lnet_nid b = lnp_tcp_nid(K_B);
	unsigned int i;
	unsigned int n;

	(void)state;
	LNetAddPeer(nids, 2);
	settle();
	n = g_k.nsent;
	assert_int_equal(n, 2);
	for (i = 0; i < n; i++) {
		assert_true(is_ping_get(sent_at(i)));
		k_reply(sent_at(i), true);
	}
	for (i = n; i < g_k.nsent; i++) {
		if (is_push(sent_at(i))) {
			k_ack(sent_at(i));
		}
	}
	p = k_peer();
	assert_true(p.mr);
	assert_int_equal(p.nnis, 2);
	assert_true(lnet_nid_same(&p.nis[0], &nids[0]));
	assert_true((p.state & LNET_CTL_PEER_LOCK_PRIMARY) != 0);
	LNetPrimaryNID(&b);
	assert_true(lnet_nid_same(&b, &nids[0]));
}

/* The kernel's Multi-Rail API over discovery: LNetPeerDiscovered, LNetPrimaryNID. */
static void
test_api_follows_discovery(void **state)
{
	struct lnet_nid a = lnp_tcp_nid(K_A);
	struct lnet_nid b = lnp_tcp_nid(K_B);

	(void)state;
	assert_int_equal(LNetPeerDiscovered(&a), -EAGAIN); /* queued: our ping goes out */
	settle();
	assert_int_equal(g_k.nsent, 1);
	assert_true(is_ping_get(sent_at(0)));
	assert_int_equal(LNetPeerDiscovered(&a), -EALREADY);
	k_reply(sent_at(0), true);
	assert_int_equal(LNetPeerDiscovered(&a), -EALREADY); /* our push is out */
	k_ack(sent_at(1));
	assert_int_equal(LNetPeerDiscovered(&a), 1);
	assert_int_equal(LNetPeerDiscovered(&b), 1); /* the same peer */
	LNetPrimaryNID(&b); /* discovered: no traffic, the primary at once */
	assert_true(lnet_nid_same(&b, &a));
	assert_int_equal(g_k.nsent, 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_first_put_discovers_mr_peer, setup,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_ping_timeout_fails_held_put, setup,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_silent_peer_pings_bounded, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_peer_deleted_during_backoff, setup,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_peer_deleted_during_ping, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_push_merged_and_pushed_back, setup,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_api_follows_discovery, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_two_peers_merged, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_push_after_discovery_reenabled, setup,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_push_back_by_reply_path, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_link_down_pushes_and_avoids_ni, setup,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_add_peer_discovers_and_merges, setup,
						ut_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
