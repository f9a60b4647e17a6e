/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/selftest_rpc's console (sft_con.h) on a real LNet (inline runtime,
 * 0@lo): the node is its own console and its own test node, as node A of
 * the kernel's s4_01 capture, and a pid nobody serves (999) is a node
 * that never answers. Asserted: the RPCs each command sends (the node's
 * RPC counters and its framework's session, batches and tests), the node
 * states replies and timeouts give, the counts of each transaction, a brw
 * batch run to its end with its STAT numbers, the pinger's DEBUG RPCs and
 * what they learn, the idle console ending the session, and the key,
 * name and busy-group refusals.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "api.h"
#include "cfs_nid.h"
#include "lnet_sim.h"
#include "sft_con.h"
#include "sft_srv.h"

#define POLL_ROUNDS 100000 /* polls of an idle inline node: far more than any exchange takes */
#define KEY 4242

static uint64_t clock_ms = 1000000;

static uint64_t
fake_now(void *ctx)
{
	(void)ctx;
	return clock_ms;
}

static struct sft_srv *srv;
static struct sft_con *con;
static struct lnet_processid self;  /* 12345-0@lo: the node */
static struct lnet_processid ghost; /* 999-0@lo: nobody answers */

static int
setup(void **state)
{
	struct lnet_init_opts o = {
		.opts_size = sizeof(o),
		.mode = LNET_EXEC_INLINE,
		.ncpts = 1,
		.no_eal = true,
	};
	struct sft_srv_opts so = { .now_ms = fake_now };

	(void)state;
	assert_int_equal(lnet_init_opts_set(&o), 0);
	assert_int_equal(LNetNIInit(SFT_PID), 0);
	assert_int_equal(sft_srv_start(&so, &srv), 0);
	assert_int_equal(sft_con_create(srv, &con), 0);
	self.pid = SFT_PID;
	lnet_nid_set_lo0(&self.nid);
	ghost = self;
	ghost.pid = 999;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	if (con != NULL) {
		sft_con_destroy(con);
	}
	if (srv != NULL) {
		assert_int_equal(sft_srv_stop(srv, 1000), 0);
	}
	assert_int_equal(LNetNIFini(), 0);
	return 0;
}

/* What a command gave, copied out of its done call. */
struct seen {
	bool done;
	int rc;
	struct sft_con_tstat stat;
	uint32_t nents;
	struct sft_con_ent ents[4];
	struct sft_con_session_info session;
	struct sft_con_counts counts;
	struct sft_con_batch_info batch;
	uint32_t nnames;
	char names[4][SFT_NAME_SIZE];
	uint32_t nnodes;
	struct sft_con_node_ent nodes[4];
};

static void
seen_cb(void *arg, const struct sft_con_result *r)
{
	struct seen *s = arg;
	uint32_t i;

	s->done = true;
	s->rc = r->rc;
	s->stat = r->stat;
	s->nents = r->nents;
	for (i = 0; i < r->nents && i < 4; i++) {
		s->ents[i] = r->ents[i];
	}
	s->session = r->session;
	s->counts = r->counts;
	s->batch = r->batch;
	s->nnames = r->nnames;
	for (i = 0; i < r->nnames && i < 4; i++) {
		memcpy(s->names[i], r->names[i], SFT_NAME_SIZE);
	}
	s->nnodes = r->nnodes;
	for (i = 0; i < r->nnodes && i < 4; i++) {
		s->nodes[i] = r->nodes[i];
	}
}

static void
serve(unsigned int rounds)
{
	unsigned int i;

	for (i = 0; i < rounds; i++) {
		sft_srv_poll(srv, 0);
		sft_con_tick(con);
	}
}

/* Serve until @p s is done, moving the clock past the transaction timeout if it must. */
static void
wait_done(struct seen *s)
{
	unsigned int i;

	for (i = 0; i < POLL_ROUNDS && !s->done; i++) {
		sft_srv_poll(srv, 0);
	}
	if (!s->done) {
		clock_ms += SFT_TRANS_TIMEOUT_S * 1000ull;
		for (i = 0; i < POLL_ROUNDS && !s->done; i++) {
			sft_srv_poll(srv, 0);
		}
	}
	assert_true(s->done);
}

static struct seen
run(struct sft_con_req rq)
{
	struct seen s;

	memset(&s, 0, sizeof(s));
	if (rq.key == 0) {
		rq.key = KEY;
	}
	assert_int_equal(sft_con_submit(con, &rq, seen_cb, &s), 0);
	wait_done(&s);
	return s;
}

static struct sft_con_req
req(enum sft_con_op op, const char *name)
{
	struct sft_con_req rq = { .op = op, .key = KEY };

	if (name != NULL) {
		strcpy(rq.name, name);
	}
	return rq;
}

static void
new_session(const char *name)
{
	struct sft_con_req rq = req(SFT_CON_SESSION_NEW, name);

	rq.feats = SFT_FEAT_BULK_LEN;
	assert_int_equal(run(rq).rc, 0);
}

static struct seen
add_nodes(const char *group, const struct lnet_processid *ids, uint32_t n)
{
	struct sft_con_req rq = req(SFT_CON_NODES_ADD, group);

	rq.ids = ids;
	rq.nids = n;
	return run(rq);
}

static uint32_t
rpcs_sent(void)
{
	struct sft_rpc_counters c;

	sft_srv_rpc_counters(srv, &c);
	return c.rpcs_sent;
}

static struct sft_fw_session *
node_session(void)
{
	return sft_srv_fw(srv)->session;
}

static void
test_session(void **state)
{
	struct sft_con_req rq;
	struct seen s;

	(void)state;
	/* No session yet: every command but new_session is ESRCH. */
	assert_int_equal(run(req(SFT_CON_SESSION_INFO, NULL)).rc, -ESRCH);
	new_session("s1");
	s = run(req(SFT_CON_SESSION_INFO, NULL));
	assert_int_equal(s.rc, 0);
	assert_string_equal(s.session.name, "s1");
	assert_int_equal(s.session.key, KEY);
	assert_int_equal(s.session.feats, SFT_FEAT_BULK_LEN);
	assert_int_equal(s.session.timeout_s, SFT_CON_TIMEOUT_S);
	assert_int_equal(s.session.sid.nid, LNET_NID_LO_0); /* no NI but 0@lo */
	assert_int_equal(s.session.sid.stamp, (int64_t)clock_ms);
	assert_int_equal(s.session.nodes.total, 0);
	/* new_session made the default batch */
	s = run(req(SFT_CON_BATCH_LIST, NULL));
	assert_int_equal(s.nnames, 1);
	assert_string_equal(s.names[0], SFT_CON_DEFAULT_BATCH);

	/* Another key: EACCES; another session without --force: EEXIST; a long name: E2BIG. */
	rq = req(SFT_CON_SESSION_INFO, NULL);
	rq.key = KEY + 1;
	assert_int_equal(run(rq).rc, -EACCES);
	assert_int_equal(run(req(SFT_CON_SESSION_NEW, "s2")).rc, -EEXIST);
	assert_int_equal(run(req(SFT_CON_GROUP_ADD, "g")).rc, 0);
	assert_int_equal(run(req(SFT_CON_GROUP_ADD, "g")).rc, -EEXIST);
	rq = req(SFT_CON_BATCH_ADD, NULL);
	memset(rq.name, 'x', SFT_NAME_SIZE);
	assert_int_equal(run(rq).rc, -E2BIG);
	rq = req(SFT_CON_SESSION_NEW, "s2");
	rq.feats = 0x2;
	rq.force = true;
	assert_int_equal(run(rq).rc, -EINVAL); /* unknown feature bits */

	/* --force ends the old one (no node: no RPC) and makes the new one. */
	rq = req(SFT_CON_SESSION_NEW, "s2");
	rq.force = true;
	rq.timeout_s = 100;
	assert_int_equal(run(rq).rc, 0);
	s = run(req(SFT_CON_SESSION_INFO, NULL));
	assert_string_equal(s.session.name, "s2");
	assert_int_equal(s.session.timeout_s, 100);
	assert_int_equal(run(req(SFT_CON_GROUP_LIST, NULL)).nnames, 0);
}

static void
test_groups(void **state)
{
	struct lnet_processid both[2] = { self, ghost };
	struct sft_con_req rq;
	struct seen s;
	uint32_t sent;

	(void)state;
	new_session("s1");
	assert_int_equal(add_nodes("g1", &self, 1).rc, -ENOENT); /* no such group */
	assert_int_equal(run(req(SFT_CON_GROUP_ADD, "g1")).rc, 0);

	/* MKSN to both: the node joins the session, the ghost is DOWN at the timeout. */
	sent = rpcs_sent();
	s = add_nodes("g1", both, 2);
	assert_int_equal(s.rc, 0);
	assert_int_equal(rpcs_sent() - sent, 2);
	assert_int_equal(s.stat.rpc.total, 2);
	assert_int_equal(s.stat.rpc.success, 1);
	assert_int_equal(s.stat.rpc.failure, 1);
	assert_int_equal(s.stat.rpc.rpc_errno, ETIMEDOUT);
	assert_int_equal(s.stat.fwk[0], 1); /* sessions made */
	assert_int_equal(s.ents[0].state, SFT_NODE_ACTIVE);
	assert_int_equal(s.ents[1].state, SFT_NODE_DOWN);
	assert_int_equal(s.ents[1].rpc_errno, -ETIMEDOUT);
	assert_non_null(node_session());
	assert_string_equal(node_session()->name, "s1");

	s = run(req(SFT_CON_GROUP_INFO, "g1"));
	assert_int_equal(s.counts.total, 2);
	assert_int_equal(s.counts.active, 1);
	assert_int_equal(s.counts.down, 1);
	assert_int_equal(s.nnodes, 2);
	assert_int_equal(s.nodes[0].state, SFT_NODE_ACTIVE);

	/* An ACTIVE node joins another group with no MKSN; the ghost is asked again. */
	assert_int_equal(run(req(SFT_CON_GROUP_ADD, "g2")).rc, 0);
	sent = rpcs_sent();
	s = add_nodes("g2", both, 2);
	assert_int_equal(rpcs_sent() - sent, 1);
	assert_int_equal(s.nents, 1);
	assert_int_equal(run(req(SFT_CON_GROUP_INFO, "g2")).counts.total, 2);
	s = run(req(SFT_CON_SESSION_INFO, NULL));
	assert_int_equal(s.session.nodes.total, 2); /* each node once */

	/* --clean down: the ghost leaves g2. */
	rq = req(SFT_CON_GROUP_CLEAN, "g2");
	rq.arg = SFT_NODE_DOWN;
	assert_int_equal(run(rq).rc, 0);
	s = run(req(SFT_CON_GROUP_INFO, "g2"));
	assert_int_equal(s.counts.total, 1);
	assert_int_equal(s.counts.active, 1);

	/* del g1: the node is still in g2, so no RMSN (and the ghost is not ACTIVE). */
	sent = rpcs_sent();
	assert_int_equal(run(req(SFT_CON_GROUP_DEL, "g1")).rc, 0);
	assert_int_equal(rpcs_sent(), sent);
	assert_non_null(node_session());
	s = run(req(SFT_CON_GROUP_LIST, NULL));
	assert_int_equal(s.nnames, 1);
	assert_string_equal(s.names[0], "g2");
	/*
	 * The ghost's MKSNs reached the node too (0@lo delivers whatever the
	 * pid; only the reply, from 12345, matched nothing): three MKSNs of
	 * the same session, a refcount of three.
	 */
	assert_int_equal(node_session()->refcount, 3);
	/* remove the node from g2: RMSN (one reference less), the empty group goes. */
	rq = req(SFT_CON_NODES_REMOVE, "g2");
	rq.ids = &self;
	rq.nids = 1;
	s = run(rq);
	assert_int_equal(s.rc, 0);
	assert_int_equal(rpcs_sent() - sent, 1);
	assert_int_equal(s.stat.fwk[0], 1);
	assert_int_equal(node_session()->refcount, 2);
	assert_int_equal(run(req(SFT_CON_GROUP_LIST, NULL)).nnames, 0);
	assert_int_equal(run(req(SFT_CON_SESSION_INFO, NULL)).session.nodes.total, 0);
}

static struct sft_con_req
brw_test(const char *batch, const char *from, const char *to, uint32_t rw, int32_t loop)
{
	struct sft_con_req rq = req(SFT_CON_TEST_ADD, NULL);

	strcpy(rq.test.batch, batch);
	strcpy(rq.test.src, from);
	strcpy(rq.test.dst, to);
	rq.test.type = SFT_CON_TEST_BULK;
	rq.test.loop = loop;
	rq.test.concur = 2;
	rq.test.dist = 1;
	rq.test.span = 1;
	rq.test.brw_opc = rw;
	rq.test.brw_check = SFT_BRW_CHECK_FULL;
	rq.test.brw_size = 8192;
	return rq;
}

static void
test_batch(void **state)
{
	const struct sft_fw_batch *fb;
	struct sft_con_req rq;
	struct sft_msg *rep;
	struct seen s;
	unsigned int i;

	(void)state;
	new_session("s1");
	assert_int_equal(run(req(SFT_CON_GROUP_ADD, "g")).rc, 0);
	assert_int_equal(add_nodes("g", &self, 1).rc, 0);
	assert_int_equal(run(req(SFT_CON_BATCH_ADD, "b")).rc, 0);
	assert_int_equal(run(req(SFT_CON_BATCH_ADD, "b")).rc, -EEXIST);

	/* Refusals before any RPC: no batch, no group, loop 0. */
	rq = brw_test("nob", "g", "g", SFT_BRW_WRITE, 5);
	assert_int_equal(run(rq).rc, -ENOENT);
	rq = brw_test("b", "g", "nog", SFT_BRW_WRITE, 5);
	assert_int_equal(run(rq).rc, -ENOENT);
	rq = brw_test("b", "g", "g", SFT_BRW_WRITE, 0);
	assert_int_equal(run(rq).rc, -EINVAL);

	/* TEST to the server side, then the client side with its destination list. */
	s = run(brw_test("b", "g", "g", SFT_BRW_WRITE, 5));
	assert_int_equal(s.rc, 0);
	assert_int_equal(s.stat.fwk_errno, 0);
	assert_int_equal(s.stat.rpc.success, 1); /* the client phase's */
	s = run(brw_test("b", "g", "g", SFT_BRW_READ, 3));
	assert_int_equal(s.rc, 0);
	fb = node_session()->batches;
	assert_non_null(fb);
	assert_int_equal(fb->bid, 2); /* "batch" was 1 */
	/*
	 * What the TEST requests said: per test the server side (its buffers:
	 * ceil(ceil(1/1)/ceil(1/1)) x dist 1 x concur 2), then the client side
	 * (the user's loop, its concurrency, one destination: the node).
	 */
	assert_int_equal(fb->ntests, 4);
	assert_false(fb->tests[0]->is_client);
	assert_int_equal(fb->tests[0]->loop, 2);
	assert_int_equal(fb->tests[0]->ndest, 0);
	assert_true(fb->tests[0]->stop_onerr);
	assert_true(fb->tests[1]->is_client);
	assert_int_equal(fb->tests[1]->loop, 5);
	assert_int_equal(fb->tests[1]->concur, 2);
	assert_int_equal(fb->tests[1]->ndest, 1);
	assert_int_equal(fb->tests[1]->dests[0].nid, LNET_NID_LO_0);
	assert_int_equal(fb->tests[1]->dests[0].pid, SFT_PID);
	assert_int_equal(fb->tests[1]->params.bulk_v1.opc, SFT_BRW_WRITE);
	assert_int_equal(fb->tests[1]->params.bulk_v1.flags, SFT_BRW_CHECK_FULL);
	assert_int_equal(fb->tests[1]->params.bulk_v1.len, 8192);
	assert_int_equal(fb->tests[3]->params.bulk_v1.opc, SFT_BRW_READ);
	/* A group a test names cannot change. */
	assert_int_equal(run(req(SFT_CON_GROUP_DEL, "g")).rc, -EBUSY);

	s = run((struct sft_con_req){
		.op = SFT_CON_BATCH_INFO, .key = KEY, .name = "b", .client = true });
	assert_int_equal(s.rc, 0);
	assert_int_equal(s.batch.ntest, 2);
	assert_int_equal(s.batch.state, SFT_CON_BATCH_IDLE);
	assert_int_equal(s.batch.cli.total, 1);
	assert_int_equal(s.batch.srv.total, 1);
	s = run((struct sft_con_req){
		.op = SFT_CON_BATCH_INFO, .key = KEY, .name = "b", .arg = 2 });
	assert_int_equal(s.batch.type, SFT_CON_TEST_BULK);
	assert_int_equal(s.batch.loop, 3);
	assert_int_equal(s.batch.concur, 2);

	/* Run: BATCH RUN to the client; the batch is RUNNING until a query finds it idle. */
	s = run(req(SFT_CON_BATCH_RUN, "b"));
	assert_int_equal(s.rc, 0);
	assert_int_equal(s.stat.fwk[0], 1);
	s = run((struct sft_con_req){ .op = SFT_CON_BATCH_INFO, .key = KEY, .name = "b" });
	assert_int_equal(s.batch.state, SFT_CON_BATCH_RUNNING);
	for (i = 0; i < POLL_ROUNDS && fb->nactive != 0; i++) {
		sft_srv_poll(srv, 0);
	}
	assert_int_equal(fb->nactive, 0);
	rq = req(SFT_CON_BATCH_QUERY, "b");
	rq.timeout_s = 5;
	s = run(rq);
	assert_int_equal(s.stat.fwk[1], 1); /* idle */
	assert_int_equal(s.ents[0].reply.body.batch_reply.active, 0);
	s = run((struct sft_con_req){ .op = SFT_CON_BATCH_INFO, .key = KEY, .name = "b" });
	assert_int_equal(s.batch.state, SFT_CON_BATCH_IDLE);

	/* STAT: 2 units x 5 WRITEs of 8 KiB fetched, 2 x 3 READs sent; no errors. */
	rq = req(SFT_CON_STAT_GROUP, "g");
	rq.timeout_s = 5;
	s = run(rq);
	assert_int_equal(s.nents, 1);
	assert_int_equal(s.stat.fwk[0], 1);
	rep = &s.ents[0].reply;
	assert_int_equal(rep->body.stat_reply.fw.brw_errors, 0);
	/* (and the two 12-byte destination lists of the TEST clients) */
	assert_true(rep->body.stat_reply.rpc.bulk_get == 10 * 8192 + 2 * SFT_DEST_SIZE);
	assert_true(rep->body.stat_reply.rpc.bulk_put == 6 * 8192);
	assert_int_equal(rep->body.stat_reply.rpc.rpcs_expired, 0);

	/* Run with a client not ACTIVE: refused whole, no RPC (lstcon_batrpc_condition). */
	node_session()->sid.stamp++; /* the node now says it has another session */
	s = run(req(SFT_CON_DEBUG_SESSION, NULL));
	assert_int_equal(s.stat.fwk[1], 1); /* busy */
	assert_int_equal(s.ents[0].state, SFT_NODE_BUSY);
	assert_int_equal(run(req(SFT_CON_BATCH_RUN, "b")).rc, -ENETDOWN);
	node_session()->sid.stamp--;
	s = run(req(SFT_CON_DEBUG_GROUP, "g"));
	assert_int_equal(s.stat.fwk[0], 1); /* active again */

	/* end_session: RMSN; the node has no session, nor the console. */
	s = run(req(SFT_CON_SESSION_END, NULL));
	assert_int_equal(s.rc, 0);
	assert_int_equal(s.stat.fwk[0], 1);
	assert_null(node_session());
	assert_int_equal(run(req(SFT_CON_SESSION_INFO, NULL)).rc, -ESRCH);
}

static void
test_pinger(void **state)
{
	uint32_t sent;
	struct seen s;

	(void)state;
	new_session("s1");
	assert_int_equal(run(req(SFT_CON_GROUP_ADD, "g")).rc, 0);
	assert_int_equal(add_nodes("g", &self, 1).rc, 0);

	/* Heard of within half its session timeout (100 s): no ping. */
	sent = rpcs_sent();
	clock_ms += SFT_CON_PING_INTERVAL_S * 1000ull;
	serve(1000);
	assert_int_equal(rpcs_sent(), sent);
	/* Past half of it: a DEBUG, which keeps the node ACTIVE. */
	clock_ms += 50 * 1000ull;
	serve(1000);
	assert_int_equal(rpcs_sent() - sent, 1);
	s = run(req(SFT_CON_GROUP_INFO, "g"));
	assert_int_equal(s.counts.active, 1);

	/* The node loses its session (its timer): the next ping finds it UNKNOWN. */
	clock_ms += 100 * 1000ull;
	serve(10);
	assert_null(node_session());
	clock_ms += SFT_CON_PING_INTERVAL_S * 1000ull;
	serve(1000);
	s = run(req(SFT_CON_GROUP_INFO, "g"));
	assert_int_equal(s.counts.unknown, 1);

	/* --refresh invites it again. */
	s = run(req(SFT_CON_GROUP_REFRESH, "g"));
	assert_int_equal(s.nents, 1);
	assert_int_equal(s.ents[0].state, SFT_NODE_ACTIVE);
	assert_non_null(node_session());
}

static void
test_idle_console(void **state)
{
	struct sft_con_req rq = req(SFT_CON_SESSION_NEW, "s1");
	uint32_t sent;

	(void)state;
	rq.timeout_s = 20;
	assert_int_equal(run(rq).rc, 0);
	assert_int_equal(run(req(SFT_CON_GROUP_ADD, "g")).rc, 0);
	assert_int_equal(add_nodes("g", &self, 1).rc, 0);
	/* No command for longer than --timeout: RMSN to every ACTIVE node. */
	sent = rpcs_sent();
	clock_ms += 24 * 1000ull;
	serve(1000);
	assert_int_equal(rpcs_sent() - sent, 1);
	assert_null(node_session());
	/* The next command finds the session ended. */
	assert_int_equal(run(req(SFT_CON_SESSION_INFO, NULL)).rc, -ESRCH);
}

/* The console destroyed with a command in flight: the engine's stop ends it, its done is called. */
static void
test_destroy_in_flight(void **state)
{
	struct sft_con_req rq = req(SFT_CON_NODES_ADD, "g");
	struct seen s;

	(void)state;
	new_session("s1");
	assert_int_equal(run(req(SFT_CON_GROUP_ADD, "g")).rc, 0);
	rq.ids = &ghost;
	rq.nids = 1;
	memset(&s, 0, sizeof(s));
	assert_int_equal(sft_con_submit(con, &rq, seen_cb, &s), 0);
	serve(100);
	assert_false(s.done);
	/* Another command meanwhile: the console runs one at a time. */
	assert_int_equal(sft_con_submit(con, &rq, seen_cb, &s), -EBUSY);
	sft_con_destroy(con);
	con = NULL;
	assert_int_equal(sft_srv_stop(srv, 1000), 0);
	srv = NULL;
	assert_true(s.done);
	assert_int_equal(s.ents[0].rpc_errno, -ESHUTDOWN);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_session, setup, teardown),
		cmocka_unit_test_setup_teardown(test_groups, setup, teardown),
		cmocka_unit_test_setup_teardown(test_batch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pinger, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_console, setup, teardown),
		cmocka_unit_test_setup_teardown(test_destroy_in_flight, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
