/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/selftest/sft_fw.c, the test node's framework: the kernel's captured
 * requests (MKSN, TEST, STAT, RMSN) get the kernel's captured replies byte
 * for byte; the session rules (refcount, EBUSY with the owner's name,
 * force, features, EINVAL/ESRCH/EBUSY of RMSN, DEBUG, STAT), TEST's checks
 * and its client bulk, BATCH run/stop/query against a fake engine, the
 * session timer (re-armed by every framework RPC, firing with a batch
 * running leaves a zombie until the engine reports its units done).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "captured_msgs.h"
#include "sft_fw.h"

#define T0_MS 5000000u /* any start: times are the caller's */

static const struct sft_sid sid_s1 = { 0x00020000c000020bull, 0x71c5 };
static const struct sft_sid sid_other = { 0x00020000c000020cull, 77 };

/* The fake engine: what the framework asked of it. */
struct fake_engine {
	unsigned int started;
	unsigned int aborted;
	unsigned int gone;
	struct sft_fw_test *last;
	struct sft_rpc_counters rpc;
	struct sft_lnet_counters lnet;
};

static void
fake_start(void *ctx, struct sft_fw_test *t)
{
	struct fake_engine *e = ctx;

	e->started++;
	e->last = t;
}

static void
fake_abort(void *ctx, struct sft_fw_test *t)
{
	struct fake_engine *e = ctx;

	e->aborted++;
	e->last = t;
}

static void
fake_gone(void *ctx, struct sft_fw_test *t)
{
	struct fake_engine *e = ctx;

	(void)t;
	e->gone++;
}

static void
fake_rpc_counters(void *ctx, struct sft_rpc_counters *out)
{
	*out = ((struct fake_engine *)ctx)->rpc;
}

static void
fake_lnet_counters(void *ctx, struct sft_lnet_counters *out)
{
	*out = ((struct fake_engine *)ctx)->lnet;
}

struct fixture {
	struct fake_engine eng;
	struct sft_fw fw;
};

static int
setup(void **state)
{
	static struct fixture f;
	const struct sft_fw_ops ops = {
		.stat = { .rpc_counters = fake_rpc_counters, .lnet_counters = fake_lnet_counters },
		.test_start = fake_start,
		.test_abort = fake_abort,
		.test_gone = fake_gone,
		.ctx = &f.eng,
	};

	memset(&f, 0, sizeof(f));
	sft_fw_init(&f.fw, &ops, SFT_FW_SESSION_TIMEOUT_S);
	*state = &f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	sft_fw_fini(&f->fw);
	return 0;
}

static void
decode(const uint8_t *bytes, struct sft_msg *m)
{
	assert_int_equal(sft_msg_decode(bytes, SFT_MSG_SIZE, m), 0);
}

/* Handle @p req at @p now; the action and, for a reply, its bytes. */
static enum sft_fw_action
handle(struct fixture *f, const struct sft_msg *req, uint64_t now, uint8_t out[SFT_MSG_SIZE],
       struct sft_msg *reply)
{
	uint32_t bulk_len = 0;
	enum sft_fw_action act = sft_fw_handle(&f->fw, req, now, reply, &bulk_len);

	if (act == SFT_FW_REPLY) {
		assert_int_equal(sft_msg_encode(reply, out, SFT_MSG_SIZE), 0);
	}
	return act;
}

static void
make_session(struct fixture *f, const struct sft_sid *sid, uint32_t force, const char *name,
	     uint64_t now, struct sft_msg *reply)
{
	struct sft_msg req;
	uint8_t out[SFT_MSG_SIZE];

	decode(s4_mksn_reqst, &req);
	req.body.mksn_reqst.sid = *sid;
	req.body.mksn_reqst.force = force;
	memset(req.body.mksn_reqst.name, 0, SFT_NAME_SIZE);
	strcpy(req.body.mksn_reqst.name, name);
	assert_int_equal(handle(f, &req, now, out, reply), SFT_FW_REPLY);
}

static void
test_captured_session_round(void **state)
{
	struct fixture *f = *state;
	struct sft_msg req, reply;
	uint8_t out[SFT_MSG_SIZE];

	decode(s4_mksn_reqst, &req);
	assert_int_equal(handle(f, &req, T0_MS, out, &reply), SFT_FW_REPLY);
	assert_memory_equal(out, s4_mksn_reply, SFT_MSG_SIZE);

	decode(s4_test_reqst_brw_server, &req);
	assert_int_equal(handle(f, &req, T0_MS + 10, out, &reply), SFT_FW_REPLY);
	assert_memory_equal(out, s4_test_reply, SFT_MSG_SIZE);
	assert_non_null(f->fw.session->batches);
	assert_int_equal(f->fw.session->batches->ntests, 1);
	assert_false(f->fw.session->batches->tests[0]->is_client);

	decode(s4_rmsn_reqst, &req);
	assert_int_equal(handle(f, &req, T0_MS + 20, out, &reply), SFT_FW_REPLY);
	assert_memory_equal(out, s4_rmsn_reply, SFT_MSG_SIZE);
	assert_null(f->fw.session);
	assert_int_equal(f->fw.nzombies, 0);
	assert_int_equal(f->eng.gone, 1);
	assert_true(f->fw.deadline_ms == 0); /* no session, no timer */
}

static void
test_captured_stat(void **state)
{
	struct fixture *f = *state;
	struct sft_msg req, reply, captured;
	uint8_t out[SFT_MSG_SIZE];

	/* The engine's and LNet's counters are the capture's; the framework's own must follow. */
	decode(s1_stat_reply, &captured);
	f->eng.rpc = captured.body.stat_reply.rpc;
	f->eng.lnet = captured.body.stat_reply.lnet;
	assert_int_equal(captured.body.stat_reply.fw.running_ms, 1037);

	make_session(f, &sid_s1, 0, "s1", T0_MS, &reply);
	decode(s1_stat_reqst, &req);
	assert_int_equal(handle(f, &req, T0_MS + 1037, out, &reply), SFT_FW_REPLY);
	assert_memory_equal(out, s1_stat_reply, SFT_MSG_SIZE);

	/* Another session's STAT: ESRCH with our sid; the "no session" nid: EINVAL. */
	req.body.stat_reqst.sid = sid_other;
	handle(f, &req, T0_MS + 1040, out, &reply);
	assert_int_equal(reply.body.stat_reply.status, SFT_STATUS_ESRCH);
	assert_true(reply.body.stat_reply.sid.stamp == sid_s1.stamp);
	assert_int_equal(reply.body.stat_reply.fw.running_ms, 0);
	req.body.stat_reqst.sid.nid = SFT_SID_NID_NONE;
	handle(f, &req, T0_MS + 1040, out, &reply);
	assert_int_equal(reply.body.stat_reply.status, SFT_STATUS_EINVAL);
}

static void
test_session_rules(void **state)
{
	struct fixture *f = *state;
	struct sft_msg req, reply;
	uint8_t out[SFT_MSG_SIZE];

	make_session(f, &sid_s1, 0, "first", T0_MS, &reply);
	assert_int_equal(reply.body.mksn_reply.status, 0);
	assert_int_equal(reply.body.mksn_reply.timeout, SFT_FW_SESSION_TIMEOUT_S);
	assert_int_equal(reply.ses_feats, SFT_FEAT_BULK_LEN);

	/* The same sid again: one more reference. */
	make_session(f, &sid_s1, 0, "first", T0_MS, &reply);
	assert_int_equal(reply.body.mksn_reply.status, 0);
	assert_int_equal(f->fw.session->refcount, 2);

	/* Another console without force: EBUSY, with the owner's sid and name. */
	make_session(f, &sid_other, 0, "second", T0_MS, &reply);
	assert_int_equal(reply.body.mksn_reply.status, SFT_STATUS_EBUSY);
	assert_true(reply.body.mksn_reply.sid.stamp == sid_s1.stamp);
	assert_string_equal(reply.body.mksn_reply.name, "first");
	assert_int_equal(reply.body.mksn_reply.timeout, SFT_FW_SESSION_TIMEOUT_S);

	/* RMSN of another sid: EBUSY; the first reference of ours: 0, the session stays. */
	decode(s4_rmsn_reqst, &req);
	req.body.rmsn_reqst.sid = sid_other;
	handle(f, &req, T0_MS, out, &reply);
	assert_int_equal(reply.body.rmsn_reply.status, SFT_STATUS_EBUSY);
	req.body.rmsn_reqst.sid = sid_s1;
	handle(f, &req, T0_MS, out, &reply);
	assert_int_equal(reply.body.rmsn_reply.status, 0);
	assert_true(reply.body.rmsn_reply.sid.stamp == sid_s1.stamp);
	assert_non_null(f->fw.session);

	/* With force the other console takes the node. */
	make_session(f, &sid_other, 1, "a-name-longer-than-thirty-one-characters", T0_MS, &reply);
	assert_int_equal(reply.body.mksn_reply.status, 0);
	assert_true(reply.body.mksn_reply.sid.nid == sid_other.nid);
	assert_int_equal(strlen(f->fw.session->name), SFT_NAME_SIZE - 1);

	/* DEBUG shows it; RMSN with no session left: ESRCH. */
	decode(s4_rmsn_reqst, &req);
	req.type = SFT_MSG_DEBUG_REQST;
	handle(f, &req, T0_MS, out, &reply);
	assert_int_equal(reply.type, SFT_MSG_DEBUG_REPLY);
	assert_int_equal(reply.body.debug_reply.status, 0);
	assert_int_equal(reply.body.debug_reply.timeout, SFT_FW_SESSION_TIMEOUT_S);
	assert_string_equal(reply.body.debug_reply.name, "a-name-longer-than-thirty-one-c");
	sft_fw_fini(&f->fw);
	req.type = SFT_MSG_RMSN_REQST;
	req.body.rmsn_reqst.sid = sid_s1;
	handle(f, &req, T0_MS, out, &reply);
	assert_int_equal(reply.body.rmsn_reply.status, SFT_STATUS_ESRCH);
	assert_true(reply.body.rmsn_reply.sid.nid == SFT_SID_NID_NONE);
	req.type = SFT_MSG_DEBUG_REQST;
	handle(f, &req, T0_MS, out, &reply);
	assert_int_equal(reply.body.debug_reply.status, SFT_STATUS_ESRCH);
	/* The "no session" nid in MKSN: EINVAL. */
	make_session(f, &(struct sft_sid){ SFT_SID_NID_NONE, 1 }, 0, "x", T0_MS, &reply);
	assert_int_equal(reply.body.mksn_reply.status, SFT_STATUS_EINVAL);
	assert_null(f->fw.session);
}

static void
test_features_and_version(void **state)
{
	struct fixture *f = *state;
	struct sft_msg req, reply;
	uint8_t out[SFT_MSG_SIZE];

	/* MKSN asking for an unknown feature: EPROTO, no session. */
	decode(s4_mksn_reqst, &req);
	req.ses_feats = 0x2;
	handle(f, &req, T0_MS, out, &reply);
	assert_int_equal(reply.body.mksn_reply.status, SFT_STATUS_EPROTO);
	assert_int_equal(reply.ses_feats, SFT_FEATS_MASK);
	assert_null(f->fw.session);

	/* A session with no features; a STAT carrying BULK_LEN: EPROTO with its sid. */
	req.ses_feats = 0;
	handle(f, &req, T0_MS, out, &reply);
	assert_int_equal(reply.body.mksn_reply.status, 0);
	assert_int_equal(reply.ses_feats, 0);
	decode(s1_stat_reqst, &req);
	req.body.stat_reqst.sid = f->fw.session->sid;
	handle(f, &req, T0_MS, out, &reply);
	assert_int_equal(reply.body.stat_reply.status, SFT_STATUS_EPROTO);
	assert_true(reply.body.stat_reply.sid.nid == f->fw.session->sid.nid);
	assert_int_equal(reply.ses_feats, SFT_FEATS_MASK);

	/* Version 2: EPROTO from the RPC layer; the session's timer is not touched. */
	f->fw.deadline_ms = 123;
	req.version = 2;
	handle(f, &req, T0_MS, out, &reply);
	assert_int_equal(reply.body.stat_reply.status, SFT_STATUS_EPROTO);
	assert_true(f->fw.deadline_ms == 123);
}

static void
add_test(struct fixture *f, bool client, uint32_t service, uint64_t bid, struct sft_msg *reply)
{
	struct sft_msg req;
	uint8_t out[SFT_MSG_SIZE];
	uint32_t bulk_len = 0;
	struct sft_dest dests[2] = { { 0x00020000c000020dull, 12345 },
				     { 0x00020000c000020eull, 12345 } };
	uint8_t bulk[2 * SFT_DEST_SIZE];

	decode(s4_test_reqst_brw_server, &req);
	req.body.test_reqst.sid = f->fw.session->sid;
	req.body.test_reqst.bid = bid;
	req.body.test_reqst.service = service;
	if (!client) {
		assert_int_equal(handle(f, &req, T0_MS, out, reply), SFT_FW_REPLY);
		return;
	}
	req.body.test_reqst.is_client = 1;
	req.body.test_reqst.ndest = 2;
	req.body.test_reqst.concur = 3;
	req.body.test_reqst.loop = 10;
	if (service == SFT_SVC_PING) {
		memset(&req.body.test_reqst.params, 0, sizeof(req.body.test_reqst.params));
	}
	assert_int_equal(sft_fw_handle(&f->fw, &req, T0_MS, reply, &bulk_len), SFT_FW_BULK);
	assert_int_equal(bulk_len, 2 * SFT_DEST_SIZE);
	/* The bulk failed: dropped, nothing added. */
	assert_int_equal(sft_fw_test_bulk_ready(&f->fw, &req, -5, NULL, 0, T0_MS, reply),
			 SFT_FW_DROP);
	assert_int_equal(sft_dests_encode(dests, 2, bulk, sizeof(bulk)), 0);
	assert_int_equal(sft_fw_test_bulk_ready(&f->fw, &req, 0, bulk, sizeof(bulk), T0_MS, reply),
			 SFT_FW_REPLY);
}

static void
batch(struct fixture *f, uint64_t bid, uint32_t opc, uint32_t testidx, uint32_t arg,
      struct sft_msg *reply)
{
	struct sft_msg req;
	uint8_t out[SFT_MSG_SIZE];

	decode(s4_rmsn_reqst, &req);
	req.type = SFT_MSG_BATCH_REQST;
	memset(&req.body, 0, sizeof(req.body));
	req.body.batch_reqst.sid = f->fw.session != NULL ? f->fw.session->sid : sid_other;
	req.body.batch_reqst.bid = bid;
	req.body.batch_reqst.opc = opc;
	req.body.batch_reqst.testidx = testidx;
	req.body.batch_reqst.arg = arg;
	assert_int_equal(handle(f, &req, T0_MS, out, reply), SFT_FW_REPLY);
}

static void
test_batches(void **state)
{
	struct fixture *f = *state;
	struct sft_msg reply;
	struct sft_fw_test *t;
	unsigned int i;

	make_session(f, &sid_s1, 0, "b", T0_MS, &reply);
	add_test(f, false, SFT_SVC_BRW, 7, &reply);
	assert_int_equal(reply.body.test_reply.status, 0);
	add_test(f, true, SFT_SVC_BRW, 7, &reply);
	assert_int_equal(reply.body.test_reply.status, 0);
	t = f->fw.session->batches->tests[1];
	assert_true(t->is_client);
	assert_int_equal(t->ndest, 2);
	assert_true(t->dests[1].nid == 0x00020000c000020eull);
	assert_int_equal(t->params.bulk_v1.len, 4096);

	/* Unknown batch: ENOENT; an unknown opc: dropped. */
	batch(f, 8, SFT_BATCH_RUN, 0, 0, &reply);
	assert_int_equal(reply.body.batch_reply.status, SFT_STATUS_ENOENT);
	{
		struct sft_msg req;
		uint32_t len = 0;

		decode(s4_rmsn_reqst, &req);
		req.type = SFT_MSG_BATCH_REQST;
		req.body.batch_reqst.sid = sid_s1;
		req.body.batch_reqst.bid = 7;
		req.body.batch_reqst.opc = 9;
		assert_int_equal(sft_fw_handle(&f->fw, &req, T0_MS, &reply, &len), SFT_FW_DROP);
	}

	/* Run: the client test's 2 x 3 units start; the server instance is not run. */
	batch(f, 7, SFT_BATCH_RUN, 0, 0, &reply);
	assert_int_equal(reply.body.batch_reply.status, 0);
	assert_int_equal(f->eng.started, 1);
	assert_ptr_equal(f->eng.last, t);
	assert_int_equal(t->nactive, 6);
	batch(f, 7, SFT_BATCH_QUERY, 0, 0, &reply);
	assert_int_equal(reply.body.batch_reply.active, 1);
	batch(f, 7, SFT_BATCH_QUERY, 2, 0, &reply);
	assert_int_equal(reply.body.batch_reply.active, 6);
	batch(f, 7, SFT_BATCH_QUERY, 3, 0, &reply);
	assert_int_equal(reply.body.batch_reply.status, SFT_STATUS_ENOENT);
	batch(f, 7, SFT_BATCH_QUERY, 0x80000000u, 0, &reply);
	assert_int_equal(reply.body.batch_reply.status, SFT_STATUS_EINVAL);
	/* A running batch takes no test. */
	add_test(f, false, SFT_SVC_PING, 7, &reply);
	assert_int_equal(reply.body.test_reply.status, SFT_STATUS_EBUSY);

	/* Stop without force: stopping, no abort; the units end one by one. */
	batch(f, 7, SFT_BATCH_STOP, 0, 0, &reply);
	assert_true(t->stopping);
	assert_int_equal(f->eng.aborted, 0);
	for (i = 0; i < 6; i++) {
		sft_fw_unit_done(&f->fw, t);
	}
	assert_false(t->stopping);
	batch(f, 7, SFT_BATCH_QUERY, 0, 0, &reply);
	assert_int_equal(reply.body.batch_reply.active, 0);

	/* Errors count against the session. */
	sft_fw_count_error(t);
	assert_int_equal(f->fw.session->brw_errors, 1);
}

static void
test_test_checks(void **state)
{
	struct fixture *f = *state;
	struct sft_msg req, reply;
	uint8_t out[SFT_MSG_SIZE];
	uint8_t bulk[SFT_DEST_SIZE] = { 0 };

	decode(s4_test_reqst_brw_server, &req);
	/* No session: ENOENT (the kernel's answer for a wrong sid). */
	handle(f, &req, T0_MS, out, &reply);
	assert_int_equal(reply.body.test_reply.status, SFT_STATUS_ENOENT);
	make_session(f,
		     &(struct sft_sid){ req.body.test_reqst.sid.nid,
					req.body.test_reqst.sid.stamp },
		     0, "c", T0_MS, &reply);
	req.body.test_reqst.concur = SFT_MAX_CONCUR + 1;
	handle(f, &req, T0_MS, out, &reply);
	assert_int_equal(reply.body.test_reply.status, SFT_STATUS_EINVAL);
	req.body.test_reqst.concur = 1;
	req.body.test_reqst.service = SFT_SVC_BATCH;
	handle(f, &req, T0_MS, out, &reply);
	assert_int_equal(reply.body.test_reply.status, SFT_STATUS_EINVAL);
	/* A brw client with an offset not on 8 bytes: EINVAL once its destinations came. */
	req.body.test_reqst.service = SFT_SVC_BRW;
	req.body.test_reqst.is_client = 1;
	req.body.test_reqst.ndest = 1;
	req.body.test_reqst.params.bulk_v1.offset = 4;
	{
		uint32_t len = 0;

		assert_int_equal(sft_fw_handle(&f->fw, &req, T0_MS, &reply, &len), SFT_FW_BULK);
	}
	assert_int_equal(sft_fw_test_bulk_ready(&f->fw, &req, 0, bulk, sizeof(bulk), T0_MS, &reply),
			 SFT_FW_REPLY);
	assert_int_equal(reply.body.test_reply.status, SFT_STATUS_EINVAL);
	assert_int_equal(f->fw.session->batches->ntests, 0);
	/* A destination list shorter than ndest says: EINVAL, nothing read past it. */
	req.body.test_reqst.params.bulk_v1.offset = 0;
	req.body.test_reqst.ndest = 2;
	assert_int_equal(sft_fw_test_bulk_ready(&f->fw, &req, 0, bulk, sizeof(bulk), T0_MS, &reply),
			 SFT_FW_REPLY);
	assert_int_equal(reply.body.test_reply.status, SFT_STATUS_EINVAL);
}

static void
test_session_timer(void **state)
{
	struct fixture *f = *state;
	struct sft_msg reply;
	struct sft_fw_test *t;
	uint64_t due;
	unsigned int i;

	make_session(f, &sid_s1, 0, "t", T0_MS, &reply);
	due = T0_MS + SFT_FW_SESSION_TIMEOUT_S * 1000ull;
	assert_true(f->fw.deadline_ms == due);
	assert_false(sft_fw_expire(&f->fw, due - 1));

	/* A framework RPC later moves the deadline. */
	add_test(f, true, SFT_SVC_PING, 1, &reply);
	batch(f, 1, SFT_BATCH_RUN, 0, 0, &reply);
	assert_true(f->fw.deadline_ms == due); /* handled at T0_MS too */
	t = f->fw.session->batches->tests[0];

	/* It fires with the batch running: forced stop, a zombie until its units end. */
	assert_true(sft_fw_expire(&f->fw, due));
	assert_null(f->fw.session);
	assert_true(f->fw.expired == 1);
	assert_int_equal(f->fw.nzombies, 1);
	assert_int_equal(f->eng.aborted, 1);
	assert_true(t->stopping);
	assert_false(sft_fw_expire(&f->fw, due + 1)); /* fires once */
	for (i = 0; i < 5; i++) {
		sft_fw_unit_done(&f->fw, t);
	}
	assert_int_equal(f->fw.nzombies, 1);
	assert_int_equal(f->eng.gone, 0);
	sft_fw_unit_done(&f->fw, t);
	assert_int_equal(f->fw.nzombies, 0);
	assert_int_equal(f->eng.gone, 1);
	assert_null(f->fw.zombies);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_captured_session_round, setup, teardown),
		cmocka_unit_test_setup_teardown(test_captured_stat, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_features_and_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_batches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_test_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_timer, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
