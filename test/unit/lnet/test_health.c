/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Health (lnet_health.c, lnet_recovery.c, lnet-facts §8) on a node in
 * simulated mode with the virtual clock: two local NIs on one net and a
 * Multi-Rail peer with two NIDs, over an LND that holds every message until
 * the test says how it ended. Each completion status's reaction, resends
 * avoiding the failed path, retries running out, the transaction deadline,
 * response timeouts, recovery pings and their back-off, health coming back,
 * and recovery's timer firing after its NI is gone.
 */
#include "lnet_fault.h"
#include "lnet_fault_ctl.h"
#include "lnet_ut.h"

#define HL_TYPE 0xfa
#define HL_MAX 64

struct hl_sent {
	struct lnet_msg *msg;
	struct lnet_nid src; /* the NI it left on */
	struct lnet_nid dst; /* the NID it went to */
	uint32_t type;
	uint32_t portal;
	struct lnet_hdr hdr;
};

static struct {
	struct hl_sent sent[HL_MAX];
	unsigned int nsent; /* all ever sent */
	unsigned int next;  /* the first not completed yet */
	bool auto_ok;       /* complete each send at once, successfully */
} g_hl;

static int
hl_startup(struct lnet_ni *ni)
{
	(void)ni;
	return 0;
}

static void
hl_shutdown(struct lnet_ni *ni)
{
	unsigned int i;

	for (i = g_hl.next; i < g_hl.nsent; i++) {
		struct hl_sent *s = &g_hl.sent[i % HL_MAX];

		if (s->msg != NULL && lnet_nid_same(&s->src, lnet_ni_nid(ni))) {
			lnet_finalize(s->msg, -ESHUTDOWN);
			s->msg = NULL;
		}
	}
}

static int
hl_send(struct lnet_ni *ni, struct lnet_msg *msg)
{
	const struct lnet_hdr *h = lnet_msg_hdr(msg);
	struct hl_sent *s = &g_hl.sent[g_hl.nsent++ % HL_MAX];

	*s = (struct hl_sent){ msg,
			       *lnet_ni_nid(ni),
			       h->dest_nid,
			       h->type,
			       h->type == LNET_MSG_GET ? h->msg.get.ptl_index :
							 h->msg.put.ptl_index,
			       *h };
	if (g_hl.auto_ok) {
		s->msg = NULL;
		g_hl.next = g_hl.nsent;
		lnet_finalize(msg, 0);
	}
	return 0;
}

static const struct lnet_lnd_ops hl_ops = {
	.name = "hl",
	.type = HL_TYPE,
	.startup = hl_startup,
	.shutdown = hl_shutdown,
	.send = hl_send,
	.recv = ut_lnd_recv_arrived,
};
LNET_LND_REGISTER(hl_ops)

static struct lnet_nid
hl_nid(uint32_t addr)
{
	struct lnet_nid nid;

	lnet_nid4_to_nid(LNET_MKNID(LNET_MKNET(HL_TYPE, 0), addr), &nid);
	return nid;
}

#define NI1 hl_nid(0x0a000001)
#define NI2 hl_nid(0x0a000002)
#define PA hl_nid(0x0a000101) /* the peer's primary */
#define PB hl_nid(0x0a000102)

static struct lnet *
ln(void)
{
	return lnet_instance();
}

static void
poll_idle(void)
{
	rt_runtime_poll_until_idle(ln()->rt, 1000);
}

static void
advance_s(unsigned int s)
{
	rt_sim_advance_us(ln()->rt, (uint64_t)s * 1000000);
	poll_idle();
}

static void
ni_add(struct lnet_nid nid)
{
	struct lnet_ni_tunables tun = { .peer_tx_credits = 8, .max_tx_credits = 64 };
	struct lnet_ni_req req = { .add = true, .nid = &nid, .lnd = &hl_ops, .tun = tun };

	assert_int_equal(lnet_ni_config(ln(), &req), 0);
}

static struct lnet_ni *
ni_of(struct lnet_nid nid)
{
	struct lnet_ni *ni = lnet_ni_find_by_nid(ln(), &nid);

	assert_non_null(ni);
	return ni;
}

static void
peer_add_mr(void)
{
	struct lnet_nid prim = PA, other = PB;
	char err[128];

	assert_int_equal(lnet_ctl_peer_add(&prim, &other, 1, true, err, sizeof(err)), 0);
}

/* Where the peer's PUTs land (no events): a message from it completes, as traffic does. */
static void
sink_post(void)
{
	static char sink[64];
	struct lnet_md md = { .umd_start = sink,
			      .umd_length = sizeof(sink),
			      .umd_threshold = LNET_MD_THRESH_INF,
			      .umd_options =
				      LNET_MD_OP_PUT | LNET_MD_ACK_DISABLE | LNET_MD_TRUNCATE };
	struct lnet_processid any = { .pid = LNET_PID_ANY, .nid = LNET_ANY_NID };
	struct lnet_handle_md h;
	struct lnet_me *me =
		LNetMEAttach(UT_PORTAL + 1, &any, 0, ~0ULL, LNET_RETAIN, LNET_INS_AFTER);

	assert_non_null(me);
	assert_int_equal(LNetMDAttach(me, &md, LNET_RETAIN, &h), 0);
}

static void
set_global(const char *key, int v)
{
	char err[128];

	assert_int_equal(lnet_ctl_global_set(key, v, err, sizeof(err)), 0);
}

/* Two NIs, a Multi-Rail peer with two NIDs, discovery off (the peer is configured). */
static int
setup_two_rails(void **state)
{
	(void)state;
	memset(&g_hl, 0, sizeof(g_hl));
	ut_up(1);
	ut_discovery(0);
	ni_add(NI1);
	ni_add(NI2);
	peer_add_mr();
	sink_post();
	poll_idle();
	return 0;
}

static int
setup_one_ni(void **state)
{
	(void)state;
	memset(&g_hl, 0, sizeof(g_hl));
	ut_up(1);
	ut_discovery(0);
	ni_add(NI1);
	peer_add_mr();
	sink_post();
	poll_idle();
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	g_hl.auto_ok = true;
	ut_down();
	return 0;
}

/* The oldest message the LND still holds. */
static struct hl_sent *
held(void)
{
	poll_idle();
	assert_true(g_hl.next < g_hl.nsent);
	return &g_hl.sent[g_hl.next % HL_MAX];
}

struct hl_finish {
	struct lnet_msg *msg;
	int status;
	enum lnet_msg_hstatus hs;
};

static int
hl_finish_on_lcore(void *arg)
{
	struct hl_finish *f = arg;

	lnet_finalize_hstatus(f->msg, f->status, f->hs);
	return 0;
}

/* The LND ends the oldest held message: 0, or an error and what it says of the path. */
static struct hl_sent
complete(int status, enum lnet_msg_hstatus hs)
{
	struct hl_sent *s = held();
	struct hl_sent copy = *s;
	struct hl_finish f = { s->msg, status, hs };

	s->msg = NULL;
	g_hl.next++;
	assert_int_equal(rt_lcore_call(lnet_ni_lcore(ni_of(copy.src)), hl_finish_on_lcore, &f), 0);
	poll_idle();
	return copy;
}

static bool
nid_eq(struct lnet_nid a, struct lnet_nid b)
{
	return lnet_nid_same(&a, &b);
}

static int
health_of_ni(struct lnet_nid nid)
{
	return lnet_health_value(&ni_of(nid)->health);
}

static struct lnet_ctl_peer_ni
peer_ni(struct lnet_nid nid)
{
	struct lnet_ctl_peer_ni st;

	assert_int_equal(lnet_ctl_peer_ni_state(&nid, &st), 0);
	return st;
}

static unsigned int
recovery_list(bool local, struct lnet_nid *out, unsigned int max)
{
	unsigned int total = 0;

	assert_int_equal(lnet_ctl_recovery_list(local, out, max, &total), 0);
	return total;
}

static char g_buf[64];

/* A PUT to the peer's primary, no ACK wanted: one message, one SEND event. */
static struct lnet_handle_md
put_to_peer(void)
{
	struct lnet_processid dst = { .pid = LNET_PID_LUSTRE, .nid = PA };
	struct lnet_handle_md h = ut_bind(g_buf, sizeof(g_buf), 1);

	assert_int_equal(LNetPut(NULL, h, LNET_NOACK_REQ, &dst, UT_PORTAL, 7, 0, 0), 0);
	return h;
}

/* A message from @p from arrives on @p on: the peer NI is alive and heard from. */
static void
rx_from(struct lnet_nid from, struct lnet_nid on)
{
	struct lnet_hdr h = { 0 };

	h.type = LNET_MSG_PUT;
	h.src_nid = from;
	h.dest_nid = on;
	h.src_pid = LNET_PID_LUSTRE;
	h.dest_pid = LNET_PID_LUSTRE;
	h.msg.put.ptl_index = UT_PORTAL + 1; /* the sink */
	assert_int_equal(ut_parse(ni_of(on), &h, &from, NULL), 0);
	poll_idle();
}

/* Force health values, as a test's starting point. */
static void
health_reset(void)
{
	struct lnet_nid pa = PA, pb = PB;
	struct lnet_cpt *c = ln()->cpts[0];

	__atomic_store_n(&ni_of(NI1)->health.value, LNET_MAX_HEALTH_VALUE, __ATOMIC_RELAXED);
	__atomic_store_n(&ni_of(NI2)->health.value, LNET_MAX_HEALTH_VALUE, __ATOMIC_RELAXED);
	__atomic_store_n(&lnet_peer_ni_find(c, &pa)->health.value, LNET_MAX_HEALTH_VALUE,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&lnet_peer_ni_find(c, &pb)->health.value, LNET_MAX_HEALTH_VALUE,
			 __ATOMIC_RELAXED);
}

/* ---- the pure parts ------------------------------------------------------ */

/* lnet-facts §8.3, row by row. */
static void
test_status_table(void **state)
{
	static const struct {
		enum lnet_msg_hstatus hs;
		bool local, remote;
		enum lnet_hs_resend resend;
	} rows[] = {
		{ LNET_MSG_STATUS_OK, false, false, LNET_HS_RESEND_NONE },
		{ LNET_MSG_STATUS_LOCAL_INTERRUPT, true, false, LNET_HS_RESEND_LOCAL },
		{ LNET_MSG_STATUS_LOCAL_DROPPED, true, false, LNET_HS_RESEND_LOCAL },
		{ LNET_MSG_STATUS_LOCAL_ABORTED, true, false, LNET_HS_RESEND_LOCAL },
		{ LNET_MSG_STATUS_LOCAL_NO_ROUTE, true, false, LNET_HS_RESEND_LOCAL },
		{ LNET_MSG_STATUS_LOCAL_ERROR, true, false, LNET_HS_RESEND_NONE },
		{ LNET_MSG_STATUS_LOCAL_TIMEOUT, true, false, LNET_HS_RESEND_LOCAL },
		{ LNET_MSG_STATUS_REMOTE_ERROR, false, true, LNET_HS_RESEND_NONE },
		{ LNET_MSG_STATUS_REMOTE_DROPPED, false, true, LNET_HS_RESEND_REMOTE },
		{ LNET_MSG_STATUS_REMOTE_TIMEOUT, false, true, LNET_HS_RESEND_NONE },
		{ LNET_MSG_STATUS_NETWORK_TIMEOUT, true, true, LNET_HS_RESEND_PATH },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct lnet_hs_reaction *r = lnet_hs_reaction(rows[i].hs);

		assert_non_null(r);
		assert_int_equal(r->local, rows[i].local);
		assert_int_equal(r->remote, rows[i].remote);
		assert_int_equal(r->resend, rows[i].resend);
	}
	assert_null(lnet_hs_reaction(LNET_MSG_STATUS_END));
	assert_string_equal(lnet_hs_str(LNET_MSG_STATUS_REMOTE_DROPPED), "REMOTE_DROPPED");
}

static void
test_values_and_backoff(void **state)
{
	(void)state;
	assert_int_equal(lnet_health_lowered(1000, 100), 900);
	assert_int_equal(lnet_health_lowered(50, 100), 0);
	assert_int_equal(lnet_health_lowered(1000, 0), 1000);
	assert_int_equal(lnet_health_raised(950, 100), 1000);
	assert_int_equal(lnet_health_raised(500, 100), 600);
	/* 2^count seconds, the maximum once count passes 9 */
	assert_int_equal(lnet_recovery_next_ping(0, 100, 900), 101);
	assert_int_equal(lnet_recovery_next_ping(3, 100, 900), 108);
	assert_int_equal(lnet_recovery_next_ping(9, 100, 900), 100 + 512);
	assert_int_equal(lnet_recovery_next_ping(10, 100, 900), 1000);
	assert_int_equal(lnet_recovery_next_ping(10, 100, 60), 160);
}

/* ---- resends ------------------------------------------------------------- */

/* A local drop: the NI loses health, joins local recovery, and the PUT goes over the other NI. */
static void
test_local_dropped_resent_over_other_ni(void **state)
{
	struct lnet_handle_md h;
	struct lnet_counters c0 = ut_counters(), c1;
	struct lnet_event ev;
	struct hl_sent first;
	struct hl_sent second;
	struct lnet_nid q[4];

	(void)state;
	h = put_to_peer();
	first = complete(-ENETDOWN, LNET_MSG_STATUS_LOCAL_DROPPED);
	ut_no_event(); /* resent, not completed */
	second = complete(0, LNET_MSG_STATUS_OK);
	assert_false(nid_eq(first.src, second.src));
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, 0);
	assert_int_equal(ev.md_handle.cookie, h.cookie);
	ut_no_event();
	assert_int_equal(health_of_ni(first.src), 900);
	assert_int_equal(health_of_ni(second.src), 1000);
	c1 = ut_counters();
	assert_int_equal(c1.resend_count - c0.resend_count, 1);
	assert_int_equal(c1.successful_resends - c0.successful_resends, 1);
	assert_int_equal(c1.local_dropped_count - c0.local_dropped_count, 1);
	assert_int_equal(recovery_list(true, q, 4), 1);
	assert_true(nid_eq(q[0], first.src));
}

/* Every local status that is resent: the NI loses health, the next try takes the other NI. */
static void
test_local_statuses_resent(void **state)
{
	static const enum lnet_msg_hstatus rows[] = {
		LNET_MSG_STATUS_LOCAL_INTERRUPT, LNET_MSG_STATUS_LOCAL_DROPPED,
		LNET_MSG_STATUS_LOCAL_ABORTED,   LNET_MSG_STATUS_LOCAL_NO_ROUTE,
		LNET_MSG_STATUS_LOCAL_TIMEOUT,
	};
	size_t i;

	(void)state;
	rx_from(PA, NI1);
	rx_from(PB, NI1);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct lnet_counters c0 = ut_counters();
		struct hl_sent first;
		struct hl_sent second;
		struct lnet_event ev;

		health_reset();
		put_to_peer();
		first = complete(-EIO, rows[i]);
		second = complete(0, LNET_MSG_STATUS_OK);
		ev = ut_event();
		assert_int_equal(ev.type, LNET_EVENT_SEND);
		assert_int_equal(ev.status, 0);
		assert_false(nid_eq(first.src, second.src));
		assert_int_equal(health_of_ni(first.src), 900);
		assert_int_equal(peer_ni(first.dst).health_value, 1000); /* not the peer's fault */
		assert_int_equal(ut_counters().resend_count - c0.resend_count, 1);
	}
	assert_int_equal(ut_counters().local_interrupt_count, 1);
	assert_int_equal(ut_counters().local_aborted_count, 1);
	assert_int_equal(ut_counters().local_no_route_count, 1);
	assert_int_equal(ut_counters().local_timeout_count, 1);
}

/* A remote drop: the peer NI loses health and the PUT goes to the peer's other NID. */
static void
test_remote_dropped_resent_to_other_peer_ni(void **state)
{
	struct hl_sent first;
	struct hl_sent second;
	struct lnet_ctl_peer_ni st;
	struct lnet_event ev;
	struct lnet_nid q[4];

	(void)state;
	rx_from(PA, NI1); /* heard from: eligible for recovery */
	rx_from(PB, NI1);
	put_to_peer();
	first = complete(-ECONNRESET, LNET_MSG_STATUS_REMOTE_DROPPED);
	second = complete(0, LNET_MSG_STATUS_OK);
	assert_false(nid_eq(first.dst, second.dst));
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, 0);
	st = peer_ni(first.dst);
	assert_int_equal(st.health_value, 900);
	assert_int_equal(st.hs_dropped, 1);
	assert_int_equal(peer_ni(second.dst).health_value, 1000);
	assert_int_equal(health_of_ni(first.src), 1000); /* a remote failure leaves the NI alone */
	assert_int_equal(recovery_list(false, q, 4), 1);
	assert_true(nid_eq(q[0], first.dst));
	assert_int_equal(recovery_list(true, q, 4), 0);
}

/*
 * A network timeout (the LND's: the peer's transport never acknowledged the
 * bytes within lnd_timeout): both ends of the path lose health and the PUT
 * goes to the peer's other NID, where the kernel would fail it (issue 31).
 */
static void
test_network_timeout_resent_to_other_peer_ni(void **state)
{
	struct hl_sent first;
	struct hl_sent second;
	struct lnet_ctl_peer_ni st;
	struct lnet_event ev;
	struct lnet_counters c0;

	(void)state;
	rx_from(PA, NI1);
	rx_from(PB, NI1);
	c0 = ut_counters();
	put_to_peer();
	first = complete(-ETIMEDOUT, LNET_MSG_STATUS_NETWORK_TIMEOUT);
	second = complete(0, LNET_MSG_STATUS_OK);
	assert_false(nid_eq(first.dst, second.dst));
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, 0);
	st = peer_ni(first.dst);
	assert_int_equal(st.health_value, 900);
	assert_int_equal(st.hs_network_timeout, 1);
	assert_int_equal(health_of_ni(first.src),
			 900); /* the path's local end too, as the kernel's */
	assert_int_equal(ut_counters().network_timeout_count, c0.network_timeout_count + 1);
	assert_int_equal(ut_counters().resend_count, c0.resend_count + 1);
	assert_int_equal(ut_counters().successful_resends, c0.successful_resends + 1);
}

/*
 * Two rails and no source routing, the far port of one down: of the four
 * paths only NI1 to PA is left (the cross ones go out, or come back, by the
 * dead rail). Each network timeout fails its path and the next try avoids
 * every path that failed the message, whatever order selection tries them
 * in: never a path twice, and the good one by the fourth try (retry_count 3).
 */
static void
test_network_timeouts_avoid_failed_paths(void **state)
{
	struct hl_sent tried[4];
	struct lnet_event ev;
	unsigned int n = 0;

	struct lnet_nid pa = PA;

	(void)state;
	set_global("retry_count", 3);
	rx_from(PA, NI1);
	rx_from(PB, NI2);
	/*
	 * The good path looks worst, so every other goes first; by health
	 * alone the third try would take NI2 to PB again (PB 800 > PA 700).
	 */
	__atomic_store_n(&ni_of(NI1)->health.value, 800, __ATOMIC_RELAXED);
	__atomic_store_n(&lnet_peer_ni_find(ln()->cpts[0], &pa)->health.value, 700,
			 __ATOMIC_RELAXED);
	put_to_peer();
	for (;;) {
		struct hl_sent s = *held();

		for (unsigned int k = 0; k < n; k++) {
			assert_false(nid_eq(s.src, tried[k].src) && nid_eq(s.dst, tried[k].dst));
		}
		assert_true(n < 4);
		tried[n++] = s;
		if (nid_eq(s.src, NI1) && nid_eq(s.dst, PA)) {
			complete(0, LNET_MSG_STATUS_OK);
			break;
		}
		complete(-ETIMEDOUT, LNET_MSG_STATUS_NETWORK_TIMEOUT);
	}
	assert_int_equal(n, 4); /* every path tried once, the good one last */
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, 0);
	ut_no_event();
}

/* Statuses never resent: the message completes with its error, health moves as the table says. */
static void
test_statuses_not_resent(void **state)
{
	static const enum lnet_msg_hstatus rows[] = {
		LNET_MSG_STATUS_LOCAL_ERROR,
		LNET_MSG_STATUS_REMOTE_ERROR,
		LNET_MSG_STATUS_REMOTE_TIMEOUT,
	};
	size_t i;

	(void)state;
	rx_from(PA, NI1);
	rx_from(PB, NI1);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct lnet_hs_reaction *r = lnet_hs_reaction(rows[i]);
		unsigned int sent = g_hl.nsent;
		struct lnet_counters c0 = ut_counters();
		struct hl_sent s;
		struct lnet_event ev;

		health_reset();
		put_to_peer();
		s = complete(-EIO, rows[i]);
		ev = ut_event();
		assert_int_equal(ev.type, LNET_EVENT_SEND);
		assert_int_equal(ev.status, -EIO);
		assert_int_equal(ev.mhealth, rows[i]);
		ut_no_event();
		assert_int_equal(g_hl.nsent, sent + 1); /* no second try */
		assert_int_equal(health_of_ni(s.src), r->local ? 900 : 1000);
		assert_int_equal(peer_ni(s.dst).health_value, r->remote ? 900 : 1000);
		assert_int_equal(ut_counters().resend_count, c0.resend_count);
	}
	assert_int_equal(ut_counters().local_error_count, 1);
	assert_int_equal(ut_counters().remote_error_count, 1);
	assert_int_equal(ut_counters().remote_timeout_count, 1);
	assert_int_equal(ut_counters().network_timeout_count, 0);
}

/* Every try fails: 1 + retry_count sends, each on a path not just failed, then the error. */
static void
test_retries_exhausted(void **state)
{
	struct lnet_counters c0 = ut_counters();
	struct hl_sent prev;
	struct lnet_event ev;
	unsigned int i;

	(void)state;
	put_to_peer();
	prev = complete(-ENETDOWN, LNET_MSG_STATUS_LOCAL_DROPPED);
	for (i = 0; i < 2; i++) { /* retry_count 2 */
		struct hl_sent s = complete(-ENETDOWN, LNET_MSG_STATUS_LOCAL_DROPPED);

		assert_false(nid_eq(s.src, prev.src)); /* never the NI that just failed */
		prev = s;
	}
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, -ENETDOWN);
	assert_int_equal(ev.mhealth, LNET_MSG_STATUS_LOCAL_DROPPED);
	ut_no_event();
	assert_int_equal(g_hl.next, g_hl.nsent); /* nothing more went */
	assert_int_equal(ut_counters().resend_count - c0.resend_count, 2);
	assert_int_equal(ut_counters().failed_resends - c0.failed_resends, 1);
	assert_int_equal(ut_counters().successful_resends, c0.successful_resends);
}

/* retry_count 0: no resend at all. */
static void
test_retry_count_zero(void **state)
{
	struct lnet_event ev;

	(void)state;
	set_global("retry_count", 0);
	put_to_peer();
	complete(-ENETDOWN, LNET_MSG_STATUS_LOCAL_DROPPED);
	ev = ut_event();
	assert_int_equal(ev.status, -ENETDOWN);
	assert_int_equal(g_hl.next, g_hl.nsent);
	assert_int_equal(ut_counters().failed_resends, 0);
}

/* A failure reported after the message's deadline completes it: no resend, no health change. */
static void
test_transaction_deadline(void **state)
{
	struct lnet_event ev;
	struct hl_sent s;

	(void)state;
	set_global("transaction_timeout", 10);
	put_to_peer();
	held();
	advance_s(11);
	s = complete(-ENETDOWN, LNET_MSG_STATUS_LOCAL_DROPPED);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, -ENETDOWN);
	assert_int_equal(g_hl.next, g_hl.nsent);
	assert_int_equal(health_of_ni(s.src), 1000);
	assert_int_equal(ut_counters().local_dropped_count, 0);
}

/* One NI only: a local failure lowers its health but is not resent (the kernel's pi_nnis rule). */
static void
test_one_ni_no_local_resend(void **state)
{
	struct lnet_event ev;

	(void)state;
	put_to_peer();
	complete(-ENETDOWN, LNET_MSG_STATUS_LOCAL_DROPPED);
	ev = ut_event();
	assert_int_equal(ev.status, -ENETDOWN);
	assert_int_equal(g_hl.next, g_hl.nsent);
	assert_int_equal(health_of_ni(NI1), 900);
}

/* A non-Multi-Rail peer with one NID: a remote drop is neither resent nor held against it. */
static void
test_single_nid_peer_no_remote_resend(void **state)
{
	struct lnet_processid dst = { .pid = LNET_PID_LUSTRE, .nid = hl_nid(0x0a000201) };
	struct lnet_event ev;

	(void)state;
	assert_int_equal(LNetPut(NULL, ut_bind(g_buf, 8, 1), LNET_NOACK_REQ, &dst, UT_PORTAL, 1, 0,
				 0),
			 0);
	complete(-ECONNREFUSED, LNET_MSG_STATUS_REMOTE_DROPPED);
	ev = ut_event();
	assert_int_equal(ev.status, -ECONNREFUSED);
	assert_int_equal(g_hl.next, g_hl.nsent);
	assert_int_equal(peer_ni(dst.nid).health_value, 1000);
}

/* An ACK the peer never sends: the MD ends with -ETIMEDOUT and the peer NI it went to is blamed. */
static void
test_response_timeout_blames_next_hop(void **state)
{
	struct lnet_processid dst = { .pid = LNET_PID_LUSTRE, .nid = PA };
	struct lnet_event ev;
	struct hl_sent s;

	(void)state;
	rx_from(PA, NI1);
	rx_from(PB, NI1);
	set_global("transaction_timeout", 20);
	assert_int_equal(LNetPut(NULL, ut_bind(g_buf, 8, 2), LNET_ACK_REQ, &dst, UT_PORTAL, 1, 0,
				 0),
			 0);
	s = complete(0, LNET_MSG_STATUS_OK);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	advance_s(22);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_UNLINK);
	assert_int_equal(ev.status, -ETIMEDOUT);
	assert_int_equal(ut_counters().response_timeout_count, 1);
	assert_int_equal(peer_ni(s.dst).health_value, 900);
}

/* The MD's options decide before response_tracking: TRACK_RESPONSE forces it, NO_TRACK_RESPONSE stops it. */
static void
test_md_options_decide_tracking(void **state)
{
	struct lnet_processid dst = { .pid = LNET_PID_LUSTRE, .nid = PA };
	struct lnet_md forced = ut_md(g_buf, 8, 2, LNET_MD_TRACK_RESPONSE);
	struct lnet_md stopped = ut_md(g_buf + 8, 8, 2, LNET_MD_NO_TRACK_RESPONSE);
	struct lnet_handle_md hf;
	struct lnet_handle_md hs;
	struct lnet_event ev;

	(void)state;
	g_hl.auto_ok = true;
	set_global("transaction_timeout", 10);
	set_global("response_tracking", 0);
	assert_int_equal(LNetMDBind(&forced, LNET_UNLINK, &hf), 0);
	assert_int_equal(LNetPut(NULL, hf, LNET_ACK_REQ, &dst, UT_PORTAL, 1, 0, 0), 0);
	set_global("response_tracking", 3);
	assert_int_equal(LNetMDBind(&stopped, LNET_UNLINK, &hs), 0);
	assert_int_equal(LNetGet(NULL, hs, &dst, UT_PORTAL, 2, 0, false), 0);
	poll_idle();
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	advance_s(12);
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_UNLINK); /* the forced one timed out */
	assert_int_equal(ev.md_handle.cookie, hf.cookie);
	ut_no_event(); /* the other waits for ever, as asked */
	assert_int_equal(ut_counters().response_timeout_count, 1);
	assert_int_equal(LNetMDUnlink(hs), 0);
}

/* ---- recovery ------------------------------------------------------------ */

static struct hl_sent
expect_ping(struct lnet_nid dst)
{
	struct hl_sent *s = held();

	assert_int_equal(s->type, LNET_MSG_GET);
	assert_int_equal(s->portal, LNET_RESERVED_PORTAL);
	assert_true(nid_eq(s->dst, dst));
	return *s;
}

/* Nothing held: everything sent was completed (by the test, or by the LND's shutdown). */
static void
no_more_sent(void)
{
	poll_idle();
	while (g_hl.next < g_hl.nsent && g_hl.sent[g_hl.next % HL_MAX].msg == NULL) {
		g_hl.next++;
	}
	assert_int_equal(g_hl.next, g_hl.nsent);
}

/* A peer NI in recovery is pinged after 1 s, then 2, 4...; failed pings are not resent. */
static void
test_peer_recovery_backoff_and_return(void **state)
{
	struct lnet_nid q[4];
	unsigned int gap;

	(void)state;
	rx_from(PA, NI1);
	rx_from(PB, NI1);
	put_to_peer();
	if (!nid_eq(held()->dst, PA)) {
		complete(0, LNET_MSG_STATUS_OK); /* round robin: the next one goes to PA */
		put_to_peer();
	}
	complete(-ECONNRESET, LNET_MSG_STATUS_REMOTE_DROPPED);
	complete(0, LNET_MSG_STATUS_OK); /* the resend, to PB */
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	while (ut_event().type != 0) {
	}
	assert_int_equal(recovery_list(false, q, 4), 1);
	assert_true(nid_eq(q[0], PA));
	for (gap = 1; gap <= 8; gap *= 2) {
		unsigned int waited;

		for (waited = 1; waited < gap; waited++) {
			advance_s(1);
			no_more_sent();
		}
		advance_s(1);
		expect_ping(PA);
		complete(-ECONNRESET, LNET_MSG_STATUS_REMOTE_DROPPED);
		no_more_sent(); /* a recovery ping is never resent */
		assert_int_equal(peer_ni(PA).ping_count, gap == 1 ? 1 :
							 gap == 2 ? 2 :
							 gap == 4 ? 3 :
								    4);
	}
	/* PA talks again: its health climbs back with each message, and recovery lets it go */
	while (peer_ni(PA).health_value < LNET_MAX_HEALTH_VALUE) {
		rx_from(PA, NI1);
	}
	assert_int_equal(peer_ni(PA).ping_count, 0);
	advance_s(1);
	assert_int_equal(recovery_list(false, q, 4), 0);
	advance_s(30);
	no_more_sent();
}

struct fail_args {
	struct lnet_nid nid;
	bool local;
};

static int
fail_on_lcore(void *arg)
{
	struct fail_args *a = arg;

	if (a->local) {
		lnet_health_local_failure(ln(), ni_of(a->nid));
	} else {
		lnet_health_remote_failure(ln(), lnet_peer_ni_find(ln()->cpts[0], &a->nid));
	}
	return 0;
}

/* As a failure would: @p nid (a peer NI, or a local NI) loses health and goes to recovery. */
static void
fail_nid(struct lnet_nid nid, bool local)
{
	struct fail_args a = { nid, local };

	assert_int_equal(rt_lcore_call(rt_data_lcore(ln()->rt, 0), fail_on_lcore, &a), 0);
	poll_idle();
}

static int
raise_on_lcore(void *arg)
{
	lnet_health_ni_raise(ln(), arg);
	return 0;
}

/* NI1's status in our own ping target (what a push tells peers). */
static uint32_t
ping_status_of_ni1(void)
{
	struct lnet_ping_entry nis[8];
	struct lnet_ping_decoded d;
	unsigned int n = ut_ping_self(nis, 8, &d);

	for (unsigned int i = 0; i < n && i < 8; i++) {
		if (nid_eq(nis[i].nid, NI1)) {
			return nis[i].status;
		}
	}
	fail_msg("NI1 not in the ping target");
	return 0;
}

/* Health at 0 makes an NI DOWN in the ping target (pushed to peers); back at 1000, UP. */
static void
test_ni_status_follows_health(void **state)
{
	uint32_t seqno = lnet_node(ln())->ping_seqno;
	unsigned int i;

	(void)state;
	g_hl.auto_ok = true;
	for (i = 0; i < 9; i++) {
		fail_nid(NI1, true);
	}
	assert_int_equal(health_of_ni(NI1), 100);
	assert_int_equal(ping_status_of_ni1(), LNET_NI_STATUS_UP);
	fail_nid(NI1, true);
	assert_int_equal(health_of_ni(NI1), 0);
	poll_idle();
	assert_int_equal(ping_status_of_ni1(), LNET_NI_STATUS_DOWN);
	assert_true(lnet_node(ln())->ping_seqno > seqno);
	for (i = 0; i < 9; i++) {
		assert_int_equal(rt_lcore_call(rt_data_lcore(ln()->rt, 0), raise_on_lcore,
					       ni_of(NI1)),
				 0);
	}
	poll_idle();
	assert_int_equal(ping_status_of_ni1(), LNET_NI_STATUS_DOWN); /* not there yet */
	assert_int_equal(rt_lcore_call(rt_data_lcore(ln()->rt, 0), raise_on_lcore, ni_of(NI1)), 0);
	poll_idle();
	assert_int_equal(health_of_ni(NI1), 1000);
	assert_int_equal(ping_status_of_ni1(), LNET_NI_STATUS_UP);
}

/* recovery_limit: a peer NI not heard from for that long leaves recovery. */
static void
test_peer_recovery_limit(void **state)
{
	struct lnet_nid q[4];

	(void)state;
	set_global("recovery_limit", 5);
	rx_from(PA, NI1);
	fail_nid(PA, false);
	assert_int_equal(recovery_list(false, q, 4), 1);
	advance_s(1);
	expect_ping(PA);
	complete(-ECONNRESET, LNET_MSG_STATUS_REMOTE_DROPPED);
	advance_s(6);
	assert_int_equal(recovery_list(false, q, 4), 0);
	assert_int_equal(peer_ni(PA).ping_count, 0);
	assert_true(peer_ni(PA).health_value < LNET_MAX_HEALTH_VALUE);
	advance_s(20);
	no_more_sent();
	/* never heard from at all: not even queued */
	fail_nid(PB, false);
	assert_int_equal(recovery_list(false, q, 4), 0);
}

/* A local NI's recovery ping goes out through that NI to its own NID; the REPLY restores it. */
static void
test_local_recovery_ping_over_the_ni(void **state)
{
	struct lnet_nid q[4];
	struct hl_sent ping;
	struct lnet_hdr reply = { 0 };
	struct lnet_nid ni1 = NI1;

	(void)state;
	fail_nid(NI1, true);
	assert_int_equal(health_of_ni(NI1), 900);
	assert_int_equal(recovery_list(true, q, 4), 1);
	advance_s(1);
	ping = expect_ping(NI1);
	assert_true(nid_eq(ping.src, NI1));
	assert_true(nid_eq(ping.hdr.src_nid, NI1));
	complete(0, LNET_MSG_STATUS_OK);
	/* the NI answers itself */
	reply.type = LNET_MSG_REPLY;
	reply.src_nid = ni1;
	reply.dest_nid = ni1;
	reply.src_pid = LNET_PID_LUSTRE;
	reply.dest_pid = LNET_PID_LUSTRE;
	reply.msg.reply.dst_wmd = ping.hdr.msg.get.return_wmd;
	assert_int_equal(ut_parse(ni_of(NI1), &reply, &ni1, NULL), 0);
	poll_idle();
	assert_int_equal(health_of_ni(NI1), 1000);
	advance_s(1);
	assert_int_equal(recovery_list(true, q, 4), 0);
	advance_s(10);
	no_more_sent();
}

/* The recovery timer fires after the NI it was for is deleted: nothing is pinged, nothing breaks. */
static void
test_recovery_after_ni_deleted(void **state)
{
	struct lnet_nid q[4];
	struct lnet_nid ni2 = NI2;
	char err[128];

	(void)state;
	fail_nid(NI2, true);
	assert_int_equal(recovery_list(true, q, 4), 1);
	assert_int_equal(lnet_ctl_ni_del(&ni2, err, sizeof(err)), 0);
	assert_int_equal(recovery_list(true, q, 4), 0);
	advance_s(5);
	no_more_sent();
}

/* ... and after its ping was sent and the NI went: the answer finds nothing, nothing breaks. */
static void
test_recovery_ping_outlives_ni(void **state)
{
	struct lnet_nid q[4];
	struct lnet_nid ni2 = NI2;
	char err[128];

	(void)state;
	fail_nid(NI2, true);
	advance_s(1);
	expect_ping(NI2);
	assert_int_equal(lnet_ctl_ni_del(&ni2, err, sizeof(err)),
			 0); /* the LND fails what it holds */
	advance_s(200);      /* past the ping's response deadline */
	assert_int_equal(recovery_list(true, q, 4), 0);
	no_more_sent();
}

/* The peer is deleted while one of its NIs is in recovery: it leaves recovery, no ping goes. */
static void
test_recovery_after_peer_deleted(void **state)
{
	struct lnet_nid q[4];
	struct lnet_nid prim = PA;
	char err[128];

	(void)state;
	rx_from(PA, NI1);
	fail_nid(PA, false);
	assert_int_equal(recovery_list(false, q, 4), 1);
	assert_int_equal(lnet_ctl_peer_del(&prim, NULL, 0, err, sizeof(err)), 0);
	poll_idle();
	advance_s(5);
	assert_int_equal(recovery_list(false, q, 4), 0);
	no_more_sent();
}

/* ---- fault rules on the data path ------------------------------------------ */

static void
fault_add(enum lnet_fault_kind kind, struct lnet_fault_attr a)
{
	char err[160] = "";

	if (lnet_fault_ctl_add(kind, &a, err, sizeof(err)) != 0) {
		fail_msg("fault add: %s", err);
	}
	assert_true(lnet_fault_any(ln()->fault, kind));
}

/* A drop rule with a health error on NI1's traffic: each such send fails locally and goes over NI2. */
static void
test_fault_health_error_resent(void **state)
{
	struct lnet_fault_attr a = { .src = NI1,
				     .dst = LNET_ANY_NID,
				     .local_nid = LNET_ANY_NID,
				     .rate = 1,
				     .health_mask = 1U << LNET_MSG_STATUS_LOCAL_DROPPED };
	struct lnet_fault_info info;
	unsigned int total = 0;
	unsigned int i;

	(void)state;
	g_hl.auto_ok = true;
	fault_add(LNET_FAULT_DROP, a);
	for (i = 0; i < 8; i++) {
		struct lnet_event ev;

		put_to_peer();
		poll_idle();
		ev = ut_event();
		assert_int_equal(ev.type, LNET_EVENT_SEND);
		assert_int_equal(ev.status, 0);
	}
	for (i = 0; i < g_hl.nsent; i++) {
		assert_true(nid_eq(g_hl.sent[i].src, NI2)); /* the LND never saw NI1's */
	}
	assert_true(health_of_ni(NI1) < 1000);
	assert_true(ut_counters().resend_count >= 1);
	assert_true(ut_counters().local_dropped_count >= 1);
	assert_int_equal(lnet_fault_ctl_list(LNET_FAULT_DROP, 0, &info, 1, &total), 1);
	assert_true(info.stat.fired >= 1);
	assert_int_equal(info.stat.fired, ut_counters().local_dropped_count);
}

/* A drop rule without a health error drops what arrives, silently: nothing is delivered. */
static void
test_fault_rx_drop(void **state)
{
	struct lnet_fault_attr a = {
		.src = PA, .dst = LNET_ANY_NID, .local_nid = LNET_ANY_NID, .rate = 1
	};
	struct lnet_counters c0 = ut_counters();

	(void)state;
	fault_add(LNET_FAULT_DROP, a);
	rx_from(PA, NI1);
	rx_from(PB, NI1);
	assert_int_equal(ut_counters().drop_count - c0.drop_count, 1);
	assert_int_equal(ut_counters().recv_count - c0.recv_count, 1); /* PB's arrived */
	assert_int_equal(lnet_fault_ctl_del(LNET_FAULT_DROP, NULL, NULL), 1);
	rx_from(PA, NI1);
	assert_int_equal(ut_counters().drop_count - c0.drop_count, 1);
}

/* A delay rule holds a send for its latency on the virtual clock, then lets it go. */
static void
test_fault_delay_tx(void **state)
{
	struct lnet_fault_attr a = { .src = LNET_ANY_NID,
				     .dst = LNET_ANY_NID,
				     .local_nid = LNET_ANY_NID,
				     .rate = 1,
				     .latency = 3 };

	(void)state;
	g_hl.auto_ok = true;
	fault_add(LNET_FAULT_DELAY, a);
	put_to_peer();
	poll_idle();
	assert_int_equal(g_hl.nsent, 0);
	ut_no_event();
	advance_s(2);
	assert_int_equal(g_hl.nsent, 0);
	advance_s(2);
	assert_int_equal(g_hl.nsent, 1);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
}

/* Deleting the delay rule lets what it holds go at once, as the kernel's. */
static void
test_fault_delay_released_by_del(void **state)
{
	struct lnet_fault_attr a = { .src = LNET_ANY_NID,
				     .dst = LNET_ANY_NID,
				     .local_nid = LNET_ANY_NID,
				     .rate = 1,
				     .latency = 30 };

	(void)state;
	g_hl.auto_ok = true;
	fault_add(LNET_FAULT_DELAY, a);
	put_to_peer();
	poll_idle();
	assert_int_equal(g_hl.nsent, 0);
	assert_int_equal(lnet_fault_ctl_del(LNET_FAULT_DELAY, NULL, NULL), 1);
	poll_idle();
	assert_int_equal(g_hl.nsent, 1);
	assert_int_equal(ut_event().type, LNET_EVENT_SEND);
	advance_s(40); /* its timer, cancelled, does nothing */
	ut_no_event();
	assert_int_equal(g_hl.nsent, 1);
}

/* The NI goes while a delay rule holds its message: it fails over to the other NI, nothing leaks. */
static void
test_fault_delay_outlives_ni(void **state)
{
	struct lnet_fault_attr a = {
		.src = NI2, .dst = LNET_ANY_NID, .local_nid = LNET_ANY_NID, .rate = 1, .latency = 30
	};
	struct lnet_nid ni2 = NI2;
	struct lnet_ni *n1 = ni_of(NI1);
	struct lnet_event ev;
	char err[128];

	(void)state;
	g_hl.auto_ok = true;
	fault_add(LNET_FAULT_DELAY, a);
	__atomic_store_n(&n1->fatal, true, __ATOMIC_RELAXED); /* the first try takes NI2 */
	put_to_peer();
	poll_idle();
	assert_int_equal(g_hl.nsent, 0);
	__atomic_store_n(&n1->fatal, false, __ATOMIC_RELAXED);
	assert_int_equal(lnet_ctl_ni_del(&ni2, err, sizeof(err)), 0);
	poll_idle();
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, 0);
	assert_int_equal(g_hl.nsent, 1);
	assert_true(nid_eq(g_hl.sent[0].src, NI1));
	advance_s(40); /* the rule's timer fires with nothing held */
	ut_no_event();
}

/* ---- owners: health written only by its owner's lcore (issue 32) ---------- */

struct hl_bind {
	struct lnet_md md;
	struct lnet_handle_md h;
	int rc;
};

static int
hl_bind_on_lcore(void *arg)
{
	struct hl_bind *b = arg;

	b->rc = LNetMDBind(&b->md, LNET_UNLINK, &b->h);
	return 0;
}

/*
 * Two CPTs: NI1 on CPT 0 (and the peer NIs of its net in CPT 0's shard),
 * the MDs on CPT 1. A message's completion, and so its health verdict,
 * runs on the MD's lcore, which owns neither value.
 */
static int
setup_two_cpts(void **state)
{
	struct lnet_nid nid = NI1, pa = PA;
	struct lnet_ni_req req = { .add = true,
				   .nid = &nid,
				   .lnd = &hl_ops,
				   .cpt = 0,
				   .tun = { .peer_tx_credits = 8, .max_tx_credits = 64 } };

	(void)state;
	memset(&g_hl, 0, sizeof(g_hl));
	ut_up(2);
	ut_discovery(0);
	assert_int_equal(lnet_ni_config(ln(), &req), 0);
	assert_int_equal(ni_of(NI1)->cpt, 0);
	peer_add_mr();
	poll_idle();
	assert_int_equal(lnet_cpt_of_peer(ln(), &pa), 0);
	return 0;
}

/* A PUT to the peer's primary from an MD on CPT 1. */
static void
put_from_cpt1(void)
{
	struct hl_bind b = { .md = ut_md(g_buf, sizeof(g_buf), 1, 0) };
	struct lnet_processid dst = { .pid = LNET_PID_LUSTRE, .nid = PA };

	assert_int_equal(rt_lcore_call(rt_data_lcore(ln()->rt, 1), hl_bind_on_lcore, &b), 0);
	assert_int_equal(b.rc, 0);
	assert_int_equal(lnet_cookie_cpt(b.h.cookie), 1);
	assert_int_equal(LNetPut(NULL, b.h, LNET_NOACK_REQ, &dst, UT_PORTAL, 7, 0, 0), 0);
}

/*
 * Failures and a success seen on CPT 1 change the values CPT 0 owns by the
 * kernel's amounts (health_sensitivity 100), and count on them. The test
 * build's owner assertion aborts if CPT 1 wrote them itself.
 */
static void
test_failure_seen_off_owner(void **state)
{
	struct lnet_peer_ni *lpni;
	struct lnet_event ev;
	struct hl_sent sent;

	(void)state;
	put_from_cpt1();
	complete(-EIO, LNET_MSG_STATUS_LOCAL_ERROR); /* not resent: completes */
	ev = ut_event();
	assert_int_equal(ev.type, LNET_EVENT_SEND);
	assert_int_equal(ev.status, -EIO);
	assert_int_equal(health_of_ni(NI1), 900);
	assert_int_equal(ni_of(NI1)->health.hs[LNET_MSG_STATUS_LOCAL_ERROR], 1);

	put_from_cpt1();
	sent = complete(-EIO, LNET_MSG_STATUS_REMOTE_ERROR); /* to PA or PB: round robin */
	assert_int_equal(ut_event().status, -EIO);
	lpni = lnet_peer_ni_find(ln()->cpts[0], &sent.dst);
	assert_non_null(lpni);
	assert_int_equal(lpni->cpt, 0);
	assert_int_equal(peer_ni(sent.dst).health_value, 900);
	assert_int_equal(lpni->health.hs[LNET_MSG_STATUS_REMOTE_ERROR], 1);
	assert_int_equal(health_of_ni(NI1), 900); /* a remote failure leaves the NI alone */

	put_from_cpt1();
	complete(0, LNET_MSG_STATUS_OK);
	assert_int_equal(ut_event().status, 0);
	assert_int_equal(health_of_ni(NI1), 1000); /* a success raises it back */
	ut_no_event();
}

/*
 * Recovery's bookkeeping with the owner (CPT 0) apart from where messages
 * complete (CPT 1): a peer NI failed there joins recovery once, its pings
 * count, and a message from it completing on CPT 1 (its MD's) restarts
 * the count through the owner. Each side writes its own counters only:
 * the owner assertions abort if CPT 1 wrote the record.
 */
static void
test_recovery_heard_off_owner(void **state)
{
	struct lnet_nid q[4];
	struct hl_sent sent;

	(void)state;
	sink_post(); /* on UT_PORTAL + 1, matched on CPT 1 */
	rx_from(PA, NI1);
	rx_from(PB, NI1);
	put_from_cpt1();
	sent = complete(-EIO, LNET_MSG_STATUS_REMOTE_ERROR);
	assert_int_equal(ut_event().status, -EIO);
	assert_int_equal(recovery_list(false, q, 4), 1);
	assert_true(nid_eq(q[0], sent.dst));
	assert_int_equal(peer_ni(sent.dst).ping_count, 0);
	advance_s(1);
	expect_ping(sent.dst);
	complete(-ECONNRESET, LNET_MSG_STATUS_REMOTE_DROPPED);
	advance_s(2);
	expect_ping(sent.dst);
	complete(-ECONNRESET, LNET_MSG_STATUS_REMOTE_DROPPED);
	assert_int_equal(peer_ni(sent.dst).ping_count, 2);
	assert_true(peer_ni(sent.dst).health_value < LNET_MAX_HEALTH_VALUE);

	rx_from(sent.dst, NI1); /* completes on CPT 1: heard, through CPT 0 */
	assert_int_equal(peer_ni(sent.dst).ping_count, 0);
	assert_true(peer_ni(sent.dst).health_value < LNET_MAX_HEALTH_VALUE);
	advance_s(4); /* the ping already due (2^2 s after the last) */
	expect_ping(sent.dst);
	complete(-ECONNRESET, LNET_MSG_STATUS_REMOTE_DROPPED);
	assert_int_equal(peer_ni(sent.dst).ping_count, 1); /* counted afresh: 1, not 3 */
	advance_s(1);
	no_more_sent();
	advance_s(1); /* so the next is 2^1 s later, not 2^3 */
	expect_ping(sent.dst);
	complete(-ECONNRESET, LNET_MSG_STATUS_REMOTE_DROPPED);
	assert_int_equal(recovery_list(false, q, 4), 1); /* asked once, queued once */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_table),
		cmocka_unit_test(test_values_and_backoff),
		cmocka_unit_test_setup_teardown(test_local_dropped_resent_over_other_ni,
						setup_two_rails, teardown),
		cmocka_unit_test_setup_teardown(test_local_statuses_resent, setup_two_rails,
						teardown),
		cmocka_unit_test_setup_teardown(test_remote_dropped_resent_to_other_peer_ni,
						setup_two_rails, teardown),
		cmocka_unit_test_setup_teardown(test_network_timeout_resent_to_other_peer_ni,
						setup_two_rails, teardown),
		cmocka_unit_test_setup_teardown(test_network_timeouts_avoid_failed_paths,
						setup_two_rails, teardown),
		cmocka_unit_test_setup_teardown(test_statuses_not_resent, setup_two_rails,
						teardown),
		cmocka_unit_test_setup_teardown(test_retries_exhausted, setup_two_rails, teardown),
		cmocka_unit_test_setup_teardown(test_retry_count_zero, setup_two_rails, teardown),
		cmocka_unit_test_setup_teardown(test_transaction_deadline, setup_two_rails,
						teardown),
		cmocka_unit_test_setup_teardown(test_one_ni_no_local_resend, setup_one_ni,
						teardown),
		cmocka_unit_test_setup_teardown(test_single_nid_peer_no_remote_resend,
						setup_two_rails, teardown),
		cmocka_unit_test_setup_teardown(test_md_options_decide_tracking, setup_two_rails,
						teardown),
		cmocka_unit_test_setup_teardown(test_response_timeout_blames_next_hop,
						setup_two_rails, teardown),
		cmocka_unit_test_setup_teardown(test_peer_recovery_backoff_and_return,
						setup_two_rails, teardown),
		cmocka_unit_test_setup_teardown(test_peer_recovery_limit, setup_two_rails,
						teardown),
		cmocka_unit_test_setup_teardown(test_ni_status_follows_health, setup_two_rails,
						teardown),
		cmocka_unit_test_setup_teardown(test_local_recovery_ping_over_the_ni,
						setup_two_rails, teardown),
		cmocka_unit_test_setup_teardown(test_recovery_after_ni_deleted, setup_two_rails,
						teardown),
		cmocka_unit_test_setup_teardown(test_recovery_ping_outlives_ni, setup_two_rails,
						teardown),
		cmocka_unit_test_setup_teardown(test_recovery_after_peer_deleted, setup_two_rails,
						teardown),
		cmocka_unit_test_setup_teardown(test_fault_health_error_resent, setup_two_rails,
						teardown),
		cmocka_unit_test_setup_teardown(test_fault_rx_drop, setup_two_rails, teardown),
		cmocka_unit_test_setup_teardown(test_fault_delay_tx, setup_two_rails, teardown),
		cmocka_unit_test_setup_teardown(test_fault_delay_released_by_del, setup_two_rails,
						teardown),
		cmocka_unit_test_setup_teardown(test_fault_delay_outlives_ni, setup_two_rails,
						teardown),
		cmocka_unit_test_setup_teardown(test_recovery_heard_off_owner, setup_two_cpts,
						teardown),
		cmocka_unit_test_setup_teardown(test_failure_seen_off_owner, setup_two_cpts,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
