/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Message counts as the kernel keeps them (lib-msg.c lnet_msg_decommit_tx/
 * rx): per NI and per peer NI, by wire type, a sent ACK under put and a sent
 * REPLY under get, the NI's recv_count equal to the node's for the same
 * traffic; lo's counts summed over the CPTs that drive it. Two CPTs, so
 * messages complete on a CPT other than the NI's or the peer shard's.
 *
 * The "echo" LND plays the remote peer 10.0.0.2@tcp: it ACKs our PUTs and
 * answers our GETs at once, through lnet_parse, as a network LND would.
 */
#include "lnet_ut.h"
#include "lnp_test_nid.h"

#define ECHO_SELF 0x0a000001
#define ECHO_PEER 0x0a000002

static struct lnet_ni *g_ni;
static unsigned int g_rx_cookie;

static int
echo_startup(struct lnet_ni *ni)
{
	(void)ni;
	return 0;
}

static void
echo_shutdown(struct lnet_ni *ni)
{
	(void)ni;
}

/* The peer's answer to what we sent, if it needs one. */
static bool
echo_answer(const struct lnet_hdr *tx, struct lnet_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->src_nid = tx->dest_nid;
	h->dest_nid = tx->src_nid;
	h->src_pid = tx->dest_pid;
	h->dest_pid = tx->src_pid;
	if (tx->type == LNET_MSG_PUT &&
	    tx->msg.put.ack_wmd.wh_object_cookie != LNET_WIRE_HANDLE_COOKIE_NONE) {
		h->type = LNET_MSG_ACK;
		h->msg.ack.dst_wmd = tx->msg.put.ack_wmd;
		h->msg.ack.match_bits = tx->msg.put.match_bits;
		h->msg.ack.mlength = tx->payload_length;
		return true;
	}
	if (tx->type == LNET_MSG_GET) {
		h->type = LNET_MSG_REPLY;
		h->msg.reply.dst_wmd = tx->msg.get.return_wmd;
		h->payload_length = tx->msg.get.sink_length;
		return true;
	}
	return false;
}

static int
echo_send(struct lnet_ni *ni, struct lnet_msg *msg)
{
	struct lnet_hdr answer;
	bool answers = echo_answer(lnet_msg_hdr(msg), &answer);
	struct lnet_nid from = answer.src_nid;

	lnet_finalize(msg, 0);
	if (answers) {
		assert_int_equal(lnet_parse(ni, &answer, &from, &g_rx_cookie), 0);
	}
	return 0;
}

static const struct lnet_lnd_ops echo_ops = {
	.name = "echo",
	.type = 0xfd,
	.startup = echo_startup,
	.shutdown = echo_shutdown,
	.send = echo_send,
	.recv = ut_lnd_recv_arrived,
};

static int
add_ni_on_mgmt(void *arg)
{
	struct lnet_ni_tunables tun = { .peer_tx_credits = 8, .max_tx_credits = 16 };
	struct lnet_nid nid = lnp_tcp_nid(ECHO_SELF);

	(void)arg;
	return lnet_ni_add(lnet_instance(), &nid, &echo_ops, &tun, NULL, 0, &g_ni);
}

static int
setup(void **state)
{
	(void)state;
	ut_up(2);
	assert_int_equal(rt_lcore_call(rt_mgmt_lcore(lnet_instance()->rt), add_ni_on_mgmt, NULL),
			 0);
	ut_discovery(0);
	return 0;
}

static void
settle(void)
{
	rt_runtime_poll_until_idle(lnet_instance()->rt, 1000);
}

/* Events of the traffic, all successful. */
static void
drain_events(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct lnet_event ev = ut_event();

		assert_int_not_equal(ev.type, 0);
		assert_int_equal(ev.status, 0);
	}
	ut_no_event();
}

static struct lnet_ctl_ni
ni_counts(const struct lnet_nid *nid)
{
	struct lnet_ctl_ni nis[4];
	int n = lnet_ctl_ni_list(nis, 4);
	int i;

	for (i = 0; i < n; i++) {
		if (lnet_nid_same(&nis[i].nid, nid)) {
			return nis[i];
		}
	}
	fail_msg("no such NI");
	return nis[0];
}

static struct lnet_ctl_peer_ni
peer_counts(uint32_t addr)
{
	struct lnet_nid nid = lnp_tcp_nid(addr);
	struct lnet_ctl_peer_ni st;

	assert_int_equal(lnet_ctl_peer_ni_state(&nid, &st), 0);
	return st;
}

/* sent/received/dropped arrays are in lnetctl's order: put, get, reply, ack, hello. */
enum { T_PUT = 0, T_GET, T_REPLY, T_ACK, T_HELLO };

static void
send_puts_gets(const struct lnet_processid *peer, unsigned int nput, unsigned int nget)
{
	static char buf[8][32];
	unsigned int i;

	for (i = 0; i < nput + nget; i++) {
		struct lnet_handle_md h = ut_bind(buf[i], sizeof(buf[i]), 2);

		if (i < nput) {
			assert_int_equal(LNetPut(NULL, h, LNET_ACK_REQ, peer, UT_PORTAL, 1, 0, 0),
					 0);
		} else {
			assert_int_equal(LNetGet(NULL, h, peer, UT_PORTAL, 1, 0, false), 0);
		}
		settle();
	}
}

/* The peer sends us @p type (PUT asking for an ACK, or GET) on UT_PORTAL. */
static void
inject(uint32_t type, uint64_t md_cookie)
{
	struct ut_parse a;

	memset(&a, 0, sizeof(a));
	a.hdr.type = type;
	a.hdr.src_nid = lnp_tcp_nid(ECHO_PEER);
	a.hdr.dest_nid = lnp_tcp_nid(ECHO_SELF);
	a.hdr.src_pid = LNET_PID_LUSTRE;
	a.hdr.dest_pid = LNET_PID_LUSTRE;
	a.from = a.hdr.src_nid;
	if (type == LNET_MSG_PUT) {
		a.hdr.payload_length = 8;
		a.hdr.msg.put.ack_wmd.wh_interface_cookie = 0x1122334455667788ULL;
		a.hdr.msg.put.ack_wmd.wh_object_cookie = 0x99aabbccddeeff00ULL;
		a.hdr.msg.put.match_bits = 7;
		a.hdr.msg.put.ptl_index = UT_PORTAL;
	} else if (type == LNET_MSG_GET) {
		a.hdr.msg.get.return_wmd.wh_interface_cookie = 0x1122334455667788ULL;
		a.hdr.msg.get.return_wmd.wh_object_cookie = 0x99aabbccddeeff01ULL;
		a.hdr.msg.get.match_bits = 7;
		a.hdr.msg.get.ptl_index = UT_PORTAL;
		a.hdr.msg.get.sink_length = 8;
	} else {
		/* An ACK for an MD of ours that does not exist. */
		a.hdr.msg.ack.dst_wmd.wh_interface_cookie = lnet_instance()->interface_cookie;
		a.hdr.msg.ack.dst_wmd.wh_object_cookie = md_cookie;
	}
	assert_int_equal(ut_parse(g_ni, &a.hdr, &a.from, &g_rx_cookie), 0);
	settle();
}

/*
 * 3 PUTs (ACKed) and 2 GETs from us, 2 PUTs (ACKed by us) and 1 GET from
 * the peer: the kernel counts, on the NI and on the peer NI alike, sent put
 * 3 + 2 ACKs, get 2 + 1 REPLY; received put 2, get 1, ack 3, reply 2.
 */
static void
test_ni_and_peer_ni_counts_as_the_kernel(void **state)
{
	struct lnet_processid peer = { .pid = LNET_PID_LUSTRE, .nid = lnp_tcp_nid(ECHO_PEER) };
	static char sink[16];
	struct lnet_md md = ut_md(sink, sizeof(sink), LNET_MD_THRESH_INF,
				  LNET_MD_OP_PUT | LNET_MD_OP_GET | LNET_MD_MANAGE_REMOTE);
	struct lnet_counters before = ut_counters();
	struct lnet_counters after;
	struct lnet_ctl_peer_ni p;
	struct lnet_ctl_ni ni;

	(void)state;
	ut_attach(&md, 7, 0, LNET_INS_AFTER, LNET_RETAIN);
	send_puts_gets(&peer, 3, 2);
	inject(LNET_MSG_PUT, 0);
	inject(LNET_MSG_PUT, 0);
	inject(LNET_MSG_GET, 0);
	/* SEND+ACK x3, SEND+REPLY x2, PUT x2, GET x1 */
	drain_events(3 * 2 + 2 * 2 + 2 + 1);
	after = ut_counters();

	ni = ni_counts(&g_ni->nid);
	assert_int_equal(ni.sent[T_PUT], 5);
	assert_int_equal(ni.sent[T_GET], 3);
	assert_int_equal(ni.sent[T_REPLY], 0);
	assert_int_equal(ni.sent[T_ACK], 0);
	assert_int_equal(ni.received[T_PUT], 2);
	assert_int_equal(ni.received[T_GET], 1);
	assert_int_equal(ni.received[T_REPLY], 2);
	assert_int_equal(ni.received[T_ACK], 3);
	assert_int_equal(ni.send_count, 8);
	assert_int_equal(ni.recv_count, 8);
	assert_int_equal(ni.drop_count, 0);
	/* The node's counts agree with the NI's for the same traffic. */
	assert_int_equal(after.send_count - before.send_count, ni.send_count);
	assert_int_equal(after.recv_count - before.recv_count, ni.recv_count);
	assert_int_equal(after.drop_count - before.drop_count, 0);

	p = peer_counts(ECHO_PEER);
	assert_int_equal(p.send_count, 8);
	assert_int_equal(p.recv_count, 8);
	assert_int_equal(p.drop_count, 0);
	/* The peer NI's by type, as `peer show -v 2` prints them: the same rules as the NI's. */
	assert_int_equal(p.sent[T_PUT], 5); /* 3 PUTs and the 2 ACKs we sent */
	assert_int_equal(p.sent[T_GET], 3); /* 2 GETs and the REPLY we sent */
	assert_int_equal(p.sent[T_REPLY], 0);
	assert_int_equal(p.sent[T_ACK], 0);
	assert_int_equal(p.received[T_PUT], 2);
	assert_int_equal(p.received[T_GET], 1);
	assert_int_equal(p.received[T_REPLY], 2);
	assert_int_equal(p.received[T_ACK], 3);
	assert_int_equal(p.dropped[T_PUT] + p.dropped[T_GET] + p.dropped[T_ACK], 0);
	assert_int_equal(p.health_value, 1000);
	assert_int_equal(after.msgs_alloc, 0);
}

/* A received message the node drops counts on the NI (by type) and the node, not the peer NI. */
static void
test_rx_drop_counts_on_the_ni(void **state)
{
	struct lnet_counters before = ut_counters();
	struct lnet_counters after;
	struct lnet_ctl_peer_ni p;
	struct lnet_ctl_ni ni;

	(void)state;
	inject(LNET_MSG_ACK, 0x12345678ULL << 8); /* CPT 0's table, no such MD */
	after = ut_counters();
	ni = ni_counts(&g_ni->nid);
	assert_int_equal(ni.drop_count, 1);
	assert_int_equal(ni.dropped[T_ACK], 1);
	assert_int_equal(ni.recv_count, 0);
	assert_int_equal(after.drop_count - before.drop_count, 1);
	assert_int_equal(after.recv_count - before.recv_count, 0);
	p = peer_counts(ECHO_PEER);
	assert_int_equal(p.recv_count, 0);
	assert_int_equal(p.drop_count, 0);
	ut_no_event();
}

/* A peer that only sends to us has a peer NI with the counts (kernel: created on receive). */
static void
test_receive_only_peer_is_counted(void **state)
{
	static char sink[16];
	struct lnet_md md = ut_md(sink, sizeof(sink), LNET_MD_THRESH_INF,
				  LNET_MD_OP_PUT | LNET_MD_MANAGE_REMOTE);
	struct lnet_nid nid = lnp_tcp_nid(ECHO_PEER);
	struct lnet_ctl_peer_ni p;
	struct ut_parse a;

	(void)state;
	ut_attach(&md, 7, 0, LNET_INS_AFTER, LNET_RETAIN);
	memset(&a, 0, sizeof(a));
	a.hdr.type = LNET_MSG_PUT;
	a.hdr.src_nid = nid;
	a.hdr.dest_nid = g_ni->nid;
	a.hdr.src_pid = LNET_PID_LUSTRE;
	a.hdr.dest_pid = LNET_PID_LUSTRE;
	a.hdr.msg.put.ptl_index = UT_PORTAL;
	a.hdr.msg.put.match_bits = 7;
	memset(&a.hdr.msg.put.ack_wmd, 0xff, sizeof(a.hdr.msg.put.ack_wmd)); /* no ACK */
	a.from = nid;
	assert_int_equal(ut_parse(g_ni, &a.hdr, &a.from, &g_rx_cookie), 0);
	settle();
	drain_events(1);
	p = peer_counts(ECHO_PEER);
	assert_int_equal(p.recv_count, 1);
	assert_int_equal(p.send_count, 0);
	assert_int_equal(ni_counts(&g_ni->nid).received[T_PUT], 1);
}

/*
 * 0@lo, driven from both CPTs (MDs on each): a PUT with its ACK and a GET
 * with its REPLY, twice. lo's counts are kept per CPT (both slots written)
 * and `net show` gives one 0@lo with their sum, as the kernel counts them.
 */
static void
test_lo_counts_summed_over_cpts(void **state)
{
	static char src[4][8];
	static char sink[16];
	struct lnet_md md = ut_md(sink, sizeof(sink), LNET_MD_THRESH_INF,
				  LNET_MD_OP_PUT | LNET_MD_OP_GET | LNET_MD_MANAGE_REMOTE);
	struct lnet_nid lo;
	struct lnet_counters before = ut_counters();
	struct lnet_counters after;
	struct lnet_ctl_ni nis[4];
#ifdef LNET_STATS_NTYPES
	const struct lnet_msg_stats *slots = lnet_instance()->loni->stats;
	unsigned int used = 0;
#endif
	unsigned int i;
	int n;

	(void)state;
	lnet_nid_set_lo0(&lo);
	ut_attach(&md, 1, 0, LNET_INS_AFTER, LNET_RETAIN);
	for (i = 0; i < 4; i++) {
		struct lnet_handle_md h = ut_bind(src[i], sizeof(src[i]), 2);

		if (i % 2 == 0) {
			assert_int_equal(ut_put(h, LNET_ACK_REQ, 1, 0), 0);
		} else {
			assert_int_equal(ut_get(h, 1, 0), 0);
		}
		settle();
	}
	drain_events(4 * 3);
	after = ut_counters();
	n = lnet_ctl_ni_list(nis, 4);
	assert_true(n >= 1);
	assert_true(lnet_nid_same(&nis[0].nid, &lo));
	for (i = 1; i < (unsigned int)n; i++) {
		assert_false(lnet_nid_same(&nis[i].nid, &lo)); /* one 0@lo */
	}
	assert_int_equal(nis[0].sent[T_PUT], 4); /* 2 PUTs, 2 ACKs */
	assert_int_equal(nis[0].sent[T_GET], 4); /* 2 GETs, 2 REPLYs */
	assert_int_equal(nis[0].sent[T_ACK], 0);
	assert_int_equal(nis[0].sent[T_REPLY], 0);
	assert_int_equal(nis[0].received[T_PUT], 2);
	assert_int_equal(nis[0].received[T_ACK], 2);
	assert_int_equal(nis[0].received[T_GET], 2);
	assert_int_equal(nis[0].received[T_REPLY], 2);
	assert_int_equal(nis[0].send_count, 8);
	assert_int_equal(nis[0].recv_count, 8);
	assert_int_equal(after.send_count - before.send_count, 8);
	assert_int_equal(after.recv_count - before.recv_count, 8);
#ifdef LNET_STATS_NTYPES
	/* Both CPTs drove lo, each in its own slot. */
	for (i = 0; i < lnet_instance()->ncpts; i++) {
		used += slots[i].n[LNET_STATS_SEND][LNET_MSG_PUT] +
				slots[i].n[LNET_STATS_SEND][LNET_MSG_GET] !=
			0;
	}
	assert_int_equal(used, 2);
#endif
}

struct msg_hand {
	struct lnet_msg *msgs[4];
	unsigned int n;
};

static int
msgs_alloc_here(void *arg)
{
	struct msg_hand *h = arg;
	struct lnet *ln = lnet_instance();
	unsigned int i;

	for (i = 0; i < h->n; i++) {
		h->msgs[i] = lnet_msg_alloc(lnet_cpt_self(ln));
		assert_non_null(h->msgs[i]);
	}
	return 0;
}

static int
msgs_free_here(void *arg)
{
	struct msg_hand *h = arg;
	unsigned int i;

	for (i = 0; i < h->n; i++) {
		lnet_msg_free(h->msgs[i]);
	}
	return 0;
}

static uint64_t
lcore_msgs_run(unsigned int cpt)
{
	struct rt_lcore_stats s;

	rt_lcore_stats_get(lnet_instance()->cpts[cpt]->lcore, &s);
	return s.msgs;
}

/*
 * A message allocated on CPT 0 and freed on CPT 1 goes into CPT 1's cache
 * of the message pool there and then: no hop back to CPT 0 (its lcore runs
 * nothing). msgs_alloc still sums to the messages alive, and msgs_max
 * stays the most CPT 0 had alive at once, however many went away.
 */
static void
test_msg_freed_on_another_cpt(void **state)
{
	struct lnet *ln = lnet_instance();
	struct rt_lcore *lc1 = ln->cpts[1]->lcore;
	struct msg_hand two = { .n = 2 };
	struct msg_hand one = { .n = 1 };
	unsigned int cached;
	uint64_t ran0;
	unsigned int i;

	(void)state;
	settle();
	assert_int_equal(lnet_counters_reset(), 0);
	for (i = 0; i < 10; i++) {
		assert_int_equal(lnet_call_on_cpt(ln, 0, msgs_alloc_here, &one), 0);
		cached = rt_pool_cache_count(ln->msg_pool, lc1);
		ran0 = lcore_msgs_run(0);
		assert_int_equal(lnet_call_on_cpt(ln, 1, msgs_free_here, &one), 0);
		rt_runtime_poll_until_idle(ln->rt, UINT32_MAX);
		assert_int_equal(lcore_msgs_run(0), ran0);
		assert_int_equal(rt_pool_cache_count(ln->msg_pool, lc1), cached + 1);
		assert_int_equal(ut_counters().msgs_alloc, 0);
	}
	assert_int_equal(ut_counters().msgs_max, 1);
	/* Two alive on CPT 0, one freed on CPT 1, one more on CPT 0: two alive at most. */
	assert_int_equal(lnet_call_on_cpt(ln, 0, msgs_alloc_here, &two), 0);
	one.msgs[0] = two.msgs[0];
	assert_int_equal(lnet_call_on_cpt(ln, 1, msgs_free_here, &one), 0);
	assert_int_equal(lnet_call_on_cpt(ln, 0, msgs_alloc_here, &one), 0);
	assert_int_equal(ut_counters().msgs_alloc, 2);
	assert_int_equal(ut_counters().msgs_max, 2);
	two.msgs[0] = one.msgs[0];
	assert_int_equal(lnet_call_on_cpt(ln, 1, msgs_free_here, &two), 0);
	assert_int_equal(ut_counters().msgs_alloc, 0);
	/* A reset starts the high-water mark from what is alive: nothing. */
	assert_int_equal(lnet_counters_reset(), 0);
	assert_int_equal(ut_counters().msgs_max, 0);
}

/* Every message the pool has, taken from the lcore this runs on (its cache, then the pool). */
struct pool_hand {
	void **objs;
	unsigned int n;
	unsigned int cap;
};

static int
pool_take_all_here(void *arg)
{
	struct pool_hand *h = arg;
	void *obj;

	while ((obj = rt_pool_get(lnet_instance()->msg_pool)) != NULL) {
		assert_true(h->n < h->cap);
		h->objs[h->n++] = obj;
	}
	return 0;
}

static uint64_t
pool_msg_empty(void)
{
	struct lnet_ctl_pools p;

	assert_int_equal(lnet_ctl_pools_get(&p), 0);
	return p.msg_empty;
}

/*
 * pool_msg_empty: with every message taken, a send is refused and a
 * receive dropped, each counted once; a reset starts the count afresh.
 */
static void
test_pool_empty_counted(void **state)
{
	struct lnet *ln = lnet_instance();
	struct lnet_processid peer = { .pid = LNET_PID_LUSTRE, .nid = lnp_tcp_nid(ECHO_PEER) };
	static char buf[32];
	struct rt_pool_stats st;
	struct pool_hand h = { 0 };
	struct lnet_handle_md md;
	uint64_t before;
	unsigned int cpt;
	unsigned int i;

	(void)state;
	settle();
	assert_int_equal(lnet_counters_reset(), 0);
	assert_int_equal(pool_msg_empty(), 0);
	rt_pool_stats_get(ln->msg_pool, &st);
	h.cap = st.n;
	h.objs = calloc(h.cap, sizeof(h.objs[0]));
	assert_non_null(h.objs);
	for (cpt = 0; cpt < ln->ncpts; cpt++) {
		assert_int_equal(lnet_call_on_cpt(ln, cpt, pool_take_all_here, &h), 0);
	}
	before = pool_msg_empty();
	assert_int_equal(before, ln->ncpts); /* each lcore's last take found it empty */

	md = ut_bind(buf, sizeof(buf), 1);
	assert_int_equal(LNetPut(NULL, md, LNET_NOACK_REQ, &peer, UT_PORTAL, 1, 0, 0), -ENOMEM);
	assert_int_equal(pool_msg_empty(), before + 1);
	inject(LNET_MSG_GET, 0); /* no message to receive it in: dropped */
	assert_int_equal(pool_msg_empty(), before + 2);
	assert_int_equal(ut_counters().drop_count, 1);

	for (i = 0; i < h.n; i++) {
		rt_pool_put(ln->msg_pool, h.objs[i]);
	}
	free(h.objs);
	assert_int_equal(lnet_counters_reset(), 0);
	assert_int_equal(pool_msg_empty(), 0);
	assert_int_equal(LNetPut(NULL, md, LNET_NOACK_REQ, &peer, UT_PORTAL, 1, 0, 0), 0);
	settle();
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	assert_int_equal(pool_msg_empty(), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ni_and_peer_ni_counts_as_the_kernel, setup,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_rx_drop_counts_on_the_ni, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_receive_only_peer_is_counted, setup,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_lo_counts_summed_over_cpts, setup,
						ut_teardown),
		cmocka_unit_test_setup_teardown(test_msg_freed_on_another_cpt, setup, ut_teardown),
		cmocka_unit_test_setup_teardown(test_pool_empty_counted, setup, ut_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
