/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The test node's framework: one session, its batches and tests, and the
 * answers to framework requests in the order and with the statuses of
 * 2.17's framework.c (selftest-facts §3). Reply fields the kernel leaves
 * as a reused buffer had them are zero here.
 */
#include <stdlib.h>
#include <string.h>

#include "sft_fw.h"

#define SFT_MS_PER_S 1000u /* lnp_api.h's LNP_MS_PER_S: this lib includes nothing of the tree's */

static const struct sft_sid sft_no_sid = {
	.nid = SFT_SID_NID_NONE,
	.stamp = SFT_SID_STAMP_NONE,
};

/* The sid replies carry: the session's, or "no session". */
static struct sft_sid
sft_fw_sid(const struct sft_fw_session *sn)
{
	return sn != NULL ? sn->sid : sft_no_sid;
}

/* Is @p sid the current session's? */
static bool
sft_fw_is_current(const struct sft_fw *fw, const struct sft_sid *sid)
{
	return fw->session != NULL && sft_sid_equal(sid, &fw->session->sid);
}

/* A 32-byte name cut to 31 characters and terminated, as strscpy does. */
static void
sft_name_copy(char dst[SFT_NAME_SIZE], const char src[SFT_NAME_SIZE])
{
	size_t n = strnlen(src, SFT_NAME_SIZE - 1);

	memset(dst, 0, SFT_NAME_SIZE);
	memcpy(dst, src, n);
}

/* ---- batches and tests -------------------------------------------------- */

static void
sft_fw_test_free(struct sft_fw *fw, struct sft_fw_test *t)
{
	if (fw->ops.test_gone != NULL) {
		fw->ops.test_gone(fw->ops.ctx, t);
	}
	free(t->dests);
	free(t);
}

static void
sft_fw_batch_free(struct sft_fw *fw, struct sft_fw_batch *b)
{
	uint32_t i;

	for (i = 0; i < b->ntests; i++) {
		sft_fw_test_free(fw, b->tests[i]);
	}
	free(b->tests);
	free(b);
}

static struct sft_fw_batch *
sft_fw_batch_find(const struct sft_fw_session *sn, uint64_t bid)
{
	struct sft_fw_batch *b;

	for (b = sn->batches; b != NULL; b = b->next) {
		if (b->bid == bid) {
			return b;
		}
	}
	return NULL;
}

/* The batch of @p bid, made (last in the session's list) on first use. */
static struct sft_fw_batch *
sft_fw_batch_get(struct sft_fw_session *sn, uint64_t bid)
{
	struct sft_fw_batch *b = sft_fw_batch_find(sn, bid);
	struct sft_fw_batch **tail;

	if (b != NULL) {
		return b;
	}
	b = calloc(1, sizeof(*b));
	if (b == NULL) {
		return NULL;
	}
	b->bid = bid;
	b->session = sn;
	for (tail = &sn->batches; *tail != NULL; tail = &(*tail)->next) {
	}
	*tail = b;
	return b;
}

/* Room in @p b for one more test. */
static int
sft_fw_batch_reserve(struct sft_fw_batch *b)
{
	if (b->ntests == b->cap) {
		uint32_t cap = b->cap == 0 ? 4 : b->cap * 2;
		struct sft_fw_test **tests = realloc(b->tests, cap * sizeof(*tests));

		if (tests == NULL) {
			return -1;
		}
		b->tests = tests;
		b->cap = cap;
	}
	return 0;
}

/* The kernel's sfw_run_batch: every client test starts all its units. */
static void
sft_fw_batch_run(struct sft_fw *fw, struct sft_fw_batch *b)
{
	uint32_t i;

	if (b->nactive != 0) {
		return; /* already running: not an error */
	}
	for (i = 0; i < b->ntests; i++) {
		struct sft_fw_test *t = b->tests[i];

		if (!t->is_client) {
			continue;
		}
		b->nactive++;
		t->nactive = t->ndest * t->concur;
		if (fw->ops.test_start != NULL) {
			fw->ops.test_start(fw->ops.ctx, t);
		}
	}
}

/* The kernel's sfw_stop_batch: running client tests stop; @p force aborts their RPCs. */
static void
sft_fw_batch_stop(struct sft_fw *fw, struct sft_fw_batch *b, bool force)
{
	uint32_t i;

	if (b->nactive == 0) {
		return;
	}
	for (i = 0; i < b->ntests; i++) {
		struct sft_fw_test *t = b->tests[i];

		if (!t->is_client || t->nactive == 0 || t->stopping) {
			continue;
		}
		t->stopping = true;
		if (force && fw->ops.test_abort != NULL) {
			fw->ops.test_abort(fw->ops.ctx, t);
		}
	}
}

/* The kernel's sfw_query_batch: -EINVAL, -ENOENT, or 0 with @p active set. */
static int
sft_fw_batch_query(const struct sft_fw_batch *b, uint32_t testidx, uint32_t *active)
{
	if ((int32_t)testidx < 0) {
		return -SFT_STATUS_EINVAL; /* the kernel reads it as an int */
	}
	if (testidx == 0) {
		*active = b->nactive;
		return 0;
	}
	if (testidx > b->ntests) {
		return -SFT_STATUS_ENOENT;
	}
	*active = b->tests[testidx - 1]->nactive;
	return 0;
}

/* ---- the session ------------------------------------------------------------ */

static bool
sft_fw_session_active(const struct sft_fw_session *sn)
{
	const struct sft_fw_batch *b;

	for (b = sn->batches; b != NULL; b = b->next) {
		if (b->nactive != 0) {
			return true;
		}
	}
	return false;
}

static void
sft_fw_session_free(struct sft_fw *fw, struct sft_fw_session *sn)
{
	while (sn->batches != NULL) {
		struct sft_fw_batch *b = sn->batches;

		sn->batches = b->next;
		sft_fw_batch_free(fw, b);
	}
	free(sn);
}

/* A zombie whose tests all stopped goes. */
static void
sft_fw_zombie_destroy(struct sft_fw *fw, struct sft_fw_session *sn)
{
	struct sft_fw_session **p;

	for (p = &fw->zombies; *p != NULL; p = &(*p)->next) {
		if (*p == sn) {
			*p = sn->next;
			break;
		}
	}
	fw->nzombies--;
	sft_fw_session_free(fw, sn);
}

/*
 * The kernel's sfw_deactivate_session: the session is no longer the
 * node's; it stays a zombie while tests of it run (they are stopped, by
 * force), and goes at once if none do.
 */
static void
sft_fw_deactivate(struct sft_fw *fw)
{
	struct sft_fw_session *sn = fw->session;
	struct sft_fw_batch *b;
	bool running = false;

	if (sn == NULL) {
		return;
	}
	fw->session = NULL;
	fw->deadline_ms = 0;
	sn->next = fw->zombies;
	fw->zombies = sn;
	fw->nzombies++;
	for (b = sn->batches; b != NULL; b = b->next) {
		if (b->nactive != 0) {
			running = true;
			sft_fw_batch_stop(fw, b, true);
		}
	}
	if (!running) {
		sft_fw_zombie_destroy(fw, sn);
	}
}

static struct sft_fw_session *
sft_fw_session_new(const struct sft_fw *fw, const struct sft_msg *req, uint64_t now_ms)
{
	struct sft_fw_session *sn = calloc(1, sizeof(*sn));

	if (sn == NULL) {
		return NULL;
	}
	sn->sid = req->body.mksn_reqst.sid;
	sft_name_copy(sn->name, req->body.mksn_reqst.name);
	sn->features = req->ses_feats;
	sn->timeout_s = fw->session_timeout_s;
	sn->refcount = 1;
	sn->started_ms = now_ms;
	return sn;
}

/* ---- the framework services --------------------------------------------- */

/* The kernel's sfw_make_session. */
static enum sft_fw_action
sft_fw_make_session(struct sft_fw *fw, const struct sft_msg *req, uint64_t now_ms,
		    struct sft_mksn_reply *rep)
{
	const struct sft_mksn_reqst *r = &req->body.mksn_reqst;
	struct sft_fw_session *sn = fw->session;

	rep->sid = sft_fw_sid(sn);
	if (r->sid.nid == SFT_SID_NID_NONE) {
		rep->status = SFT_STATUS_EINVAL;
		return SFT_FW_REPLY;
	}
	if (sn != NULL) {
		rep->timeout = sn->timeout_s;
		if (sft_sid_equal(&r->sid, &sn->sid)) {
			sn->refcount++;
			return SFT_FW_REPLY;
		}
		if (r->force == 0) {
			rep->status = SFT_STATUS_EBUSY;
			sft_name_copy(rep->name, sn->name);
			return SFT_FW_REPLY;
		}
	}
	sn = sft_fw_session_new(fw, req, now_ms);
	if (sn == NULL) {
		return SFT_FW_DROP; /* as the kernel under memory pressure */
	}
	sft_fw_deactivate(fw);
	fw->session = sn;
	rep->sid = sn->sid;
	rep->timeout = sn->timeout_s;
	return SFT_FW_REPLY;
}

/* The kernel's sfw_remove_session. */
static enum sft_fw_action
sft_fw_remove_session(struct sft_fw *fw, const struct sft_rmsn_reqst *r,
		      struct sft_generic_reply *rep)
{
	rep->sid = sft_fw_sid(fw->session);
	if (r->sid.nid == SFT_SID_NID_NONE) {
		rep->status = SFT_STATUS_EINVAL;
		return SFT_FW_REPLY;
	}
	if (!sft_fw_is_current(fw, &r->sid)) {
		rep->status = fw->session == NULL ? SFT_STATUS_ESRCH : SFT_STATUS_EBUSY;
		return SFT_FW_REPLY;
	}
	if (--fw->session->refcount != 0) {
		return SFT_FW_REPLY;
	}
	sft_fw_deactivate(fw);
	rep->sid = sft_no_sid;
	return SFT_FW_REPLY;
}

/* The kernel's sfw_debug_session. */
static enum sft_fw_action
sft_fw_debug_session(const struct sft_fw *fw, struct sft_debug_reply *rep)
{
	const struct sft_fw_session *sn = fw->session;

	rep->sid = sft_fw_sid(sn);
	if (sn == NULL) {
		rep->status = SFT_STATUS_ESRCH;
		return SFT_FW_REPLY;
	}
	rep->timeout = sn->timeout_s;
	sft_name_copy(rep->name, sn->name);
	return SFT_FW_REPLY;
}

/* The kernel's sfw_get_stats. */
static enum sft_fw_action
sft_fw_get_stats(const struct sft_fw *fw, const struct sft_stat_reqst *r, uint64_t now_ms,
		 struct sft_stat_reply *rep)
{
	const struct sft_fw_session *sn = fw->session;
	const struct sft_fw_batch *b;

	rep->sid = sft_fw_sid(sn);
	if (r->sid.nid == SFT_SID_NID_NONE) {
		rep->status = SFT_STATUS_EINVAL;
		return SFT_FW_REPLY;
	}
	if (!sft_fw_is_current(fw, &r->sid)) {
		rep->status = SFT_STATUS_ESRCH;
		return SFT_FW_REPLY;
	}
	if (fw->ops.stat.lnet_counters != NULL) {
		fw->ops.stat.lnet_counters(fw->ops.ctx, &rep->lnet);
	}
	if (fw->ops.stat.rpc_counters != NULL) {
		fw->ops.stat.rpc_counters(fw->ops.ctx, &rep->rpc);
	}
	/* 32 bits of milliseconds: about 49 days, then it wraps, as the kernel's. */
	rep->fw.running_ms = (uint32_t)(now_ms - sn->started_ms);
	rep->fw.brw_errors = sn->brw_errors;
	rep->fw.ping_errors = sn->ping_errors;
	rep->fw.zombie_sessions = fw->nzombies;
	for (b = sn->batches; b != NULL; b = b->next) {
		rep->fw.active_batches += b->nactive != 0;
	}
	return SFT_FW_REPLY;
}

/* A test instance from TEST request @p req (destinations added by the caller). */
static struct sft_fw_test *
sft_fw_test_new(const struct sft_msg *req, uint32_t feats)
{
	const struct sft_test_reqst *r = &req->body.test_reqst;
	struct sft_fw_test *t = calloc(1, sizeof(*t));

	if (t == NULL) {
		return NULL;
	}
	t->service = r->service;
	t->is_client = r->is_client != 0;
	t->stop_onerr = r->stop_onerr != 0;
	t->loop = r->loop;
	t->concur = r->concur;
	t->feats = feats;
	if (t->is_client) {
		t->params = r->params;
		t->ndest = r->ndest;
	}
	return t;
}

/*
 * A client test's destinations and parameters (the kernel's
 * sfw_add_test_instance and tso_init): 0 or a negative status.
 */
static int
sft_fw_test_client_setup(struct sft_fw_test *t, const struct sft_msg *req, const void *buf,
			 uint32_t len)
{
	t->dests = calloc(t->ndest, sizeof(*t->dests));
	if (t->dests == NULL) {
		return -SFT_STATUS_ENOMEM;
	}
	if (sft_dests_decode(buf, len, req->swabbed, t->dests, t->ndest) != 0) {
		return -SFT_STATUS_EINVAL;
	}
	if (t->service == SFT_SVC_BRW && sft_check_test_bulk_params(&t->params, t->feats) != 0) {
		return -SFT_STATUS_EINVAL;
	}
	return 0;
}

/* The kernel's sfw_add_test_instance: 0 or a negative status. */
static int
sft_fw_add_test_instance(struct sft_fw *fw, struct sft_fw_batch *b, const struct sft_msg *req,
			 const void *buf, uint32_t len)
{
	struct sft_fw_test *t = sft_fw_test_new(req, b->session->features);
	int rc = 0;

	if (t == NULL) {
		return -SFT_STATUS_ENOMEM;
	}
	/* Room first: once loaded, a test leaves through sft_fw_test_free() only. */
	if (sft_fw_batch_reserve(b) != 0) {
		rc = -SFT_STATUS_ENOMEM;
	} else if (t->is_client) {
		rc = sft_fw_test_client_setup(t, req, buf, len);
	} else if (fw->ops.test_load != NULL) {
		rc = fw->ops.test_load(fw->ops.ctx, t);
	}
	if (rc != 0) {
		free(t->dests);
		free(t);
		return rc;
	}
	t->batch = b;
	b->tests[b->ntests++] = t;
	return 0;
}

/*
 * The kernel's sfw_add_test: @p have_bulk says whether a client's
 * destination list is here (@p buf, @p len).
 */
static enum sft_fw_action
sft_fw_add_test(struct sft_fw *fw, const struct sft_msg *req, bool have_bulk, const void *buf,
		uint32_t len, struct sft_generic_reply *rep, uint32_t *bulk_len)
{
	const struct sft_test_reqst *r = &req->body.test_reqst;
	struct sft_fw_batch *b;
	int rc;

	rep->sid = sft_fw_sid(fw->session);
	if (sft_check_test_counts(r) != 0) {
		rep->status = SFT_STATUS_EINVAL;
		return SFT_FW_REPLY;
	}
	if (!sft_fw_is_current(fw, &r->sid)) {
		rep->status = SFT_STATUS_ENOENT;
		return SFT_FW_REPLY;
	}
	b = sft_fw_batch_get(fw->session, r->bid);
	if (b == NULL) {
		return SFT_FW_DROP;
	}
	if (b->nactive != 0) {
		rep->status = SFT_STATUS_EBUSY;
		return SFT_FW_REPLY;
	}
	if (r->is_client != 0 && !have_bulk) {
		*bulk_len = r->ndest * SFT_DEST_SIZE;
		return SFT_FW_BULK;
	}
	rc = sft_fw_add_test_instance(fw, b, req, buf, len);
	rep->status = (uint32_t)-rc;
	return SFT_FW_REPLY;
}

/* The kernel's sfw_control_batch. */
static enum sft_fw_action
sft_fw_control_batch(struct sft_fw *fw, const struct sft_batch_reqst *r,
		     struct sft_batch_reply *rep)
{
	struct sft_fw_batch *b;
	int rc = 0;

	rep->sid = sft_fw_sid(fw->session);
	if (!sft_fw_is_current(fw, &r->sid)) {
		rep->status = SFT_STATUS_ESRCH;
		return SFT_FW_REPLY;
	}
	b = sft_fw_batch_find(fw->session, r->bid);
	if (b == NULL) {
		rep->status = SFT_STATUS_ENOENT;
		return SFT_FW_REPLY;
	}
	switch (r->opc) {
	case SFT_BATCH_RUN:
		sft_fw_batch_run(fw, b);
		break;
	case SFT_BATCH_STOP:
		sft_fw_batch_stop(fw, b, r->arg != 0);
		break;
	case SFT_BATCH_QUERY:
		rc = sft_fw_batch_query(b, r->testidx, &rep->active);
		break;
	default:
		return SFT_FW_DROP; /* after the session and batch lookups, as the kernel's */
	}
	rep->status = (uint32_t)-rc;
	return SFT_FW_REPLY;
}

/* ---- the entry points ------------------------------------------------------ */

void
sft_fw_init(struct sft_fw *fw, const struct sft_fw_ops *ops, uint32_t session_timeout_s)
{
	memset(fw, 0, sizeof(*fw));
	if (ops != NULL) {
		fw->ops = *ops;
	}
	fw->session_timeout_s = session_timeout_s;
}

void
sft_fw_fini(struct sft_fw *fw)
{
	if (fw->session != NULL) {
		sft_fw_session_free(fw, fw->session);
		fw->session = NULL;
	}
	while (fw->zombies != NULL) {
		struct sft_fw_session *sn = fw->zombies;

		fw->zombies = sn->next;
		sft_fw_session_free(fw, sn);
	}
	fw->nzombies = 0;
	fw->deadline_ms = 0;
}

/* After every framework RPC the session's timer starts again (sfw_add_session_timer). */
static void
sft_fw_arm(struct sft_fw *fw, uint64_t now_ms)
{
	const struct sft_fw_session *sn = fw->session;

	fw->deadline_ms = sn != NULL && sn->timeout_s != 0 ?
				  now_ms + (uint64_t)sn->timeout_s * SFT_MS_PER_S :
				  0;
}

/*
 * The feature rule of sfw_handle_server_rpc: MKSN and DEBUG may not ask
 * for unknown features; the others must carry the session's. True when
 * @p reply was answered EPROTO.
 */
static bool
sft_fw_feats_refused(const struct sft_fw *fw, uint32_t svc, const struct sft_msg *req,
		     struct sft_msg *reply)
{
	struct sft_generic_reply *rep = &reply->body.rmsn_reply; /* every reply starts so */

	if (svc != SFT_SVC_MAKE_SESSION && svc != SFT_SVC_DEBUG) {
		if (fw->session == NULL || fw->session->features == req->ses_feats) {
			return false;
		}
		rep->sid = fw->session->sid;
	} else if ((req->ses_feats & ~SFT_FEATS_MASK) == 0) {
		return false;
	}
	rep->status = SFT_STATUS_EPROTO;
	return true;
}

static enum sft_fw_action
sft_fw_dispatch(struct sft_fw *fw, uint32_t svc, const struct sft_msg *req, uint64_t now_ms,
		struct sft_msg *reply, uint32_t *bulk_len)
{
	switch (svc) {
	case SFT_SVC_MAKE_SESSION:
		return sft_fw_make_session(fw, req, now_ms, &reply->body.mksn_reply);
	case SFT_SVC_REMOVE_SESSION:
		return sft_fw_remove_session(fw, &req->body.rmsn_reqst, &reply->body.rmsn_reply);
	case SFT_SVC_DEBUG:
		return sft_fw_debug_session(fw, &reply->body.debug_reply);
	case SFT_SVC_QUERY_STAT:
		return sft_fw_get_stats(fw, &req->body.stat_reqst, now_ms, &reply->body.stat_reply);
	case SFT_SVC_TEST:
		return sft_fw_add_test(fw, req, false, NULL, 0, &reply->body.test_reply, bulk_len);
	case SFT_SVC_BATCH:
		return sft_fw_control_batch(fw, &req->body.batch_reqst, &reply->body.batch_reply);
	default:
		return SFT_FW_DROP; /* JOIN: a test node has no such service */
	}
}

enum sft_fw_action
sft_fw_handle(struct sft_fw *fw, const struct sft_msg *req, uint64_t now_ms, struct sft_msg *reply,
	      uint32_t *bulk_len)
{
	int svc = sft_request_type_service(req->type);
	enum sft_fw_action act = SFT_FW_REPLY;

	sft_reply_init(req, reply);
	if (svc < 0 || (uint32_t)svc >= SFT_SVC_FRAMEWORK_MAX) {
		return SFT_FW_DROP;
	}
	if (req->version != SFT_MSG_VERSION) {
		/* The RPC layer's answer: no framework, no timer. */
		reply->body.rmsn_reply.status = SFT_STATUS_EPROTO;
		return SFT_FW_REPLY;
	}
	fw->deadline_ms = 0;
	reply->ses_feats = SFT_FEATS_MASK;
	if (!sft_fw_feats_refused(fw, (uint32_t)svc, req, reply)) {
		act = sft_fw_dispatch(fw, (uint32_t)svc, req, now_ms, reply, bulk_len);
		if (fw->session != NULL) {
			reply->ses_feats = fw->session->features;
		}
	}
	sft_fw_arm(fw, now_ms);
	return act;
}

enum sft_fw_action
sft_fw_test_bulk_ready(struct sft_fw *fw, const struct sft_msg *req, int status, const void *buf,
		       uint32_t len, uint64_t now_ms, struct sft_msg *reply)
{
	enum sft_fw_action act;
	uint32_t unused;

	sft_reply_init(req, reply);
	if (status != 0) {
		return SFT_FW_DROP; /* the kernel ends the RPC with EIO and no reply */
	}
	fw->deadline_ms = 0;
	act = sft_fw_add_test(fw, req, true, buf, len, &reply->body.test_reply, &unused);
	reply->ses_feats = fw->session != NULL ? fw->session->features : SFT_FEATS_MASK;
	sft_fw_arm(fw, now_ms);
	return act;
}

bool
sft_fw_expire(struct sft_fw *fw, uint64_t now_ms)
{
	if (fw->deadline_ms == 0 || now_ms < fw->deadline_ms) {
		return false;
	}
	fw->expired++;
	sft_fw_deactivate(fw);
	return true;
}

void
sft_fw_unit_done(struct sft_fw *fw, struct sft_fw_test *t)
{
	struct sft_fw_batch *b = t->batch;
	struct sft_fw_session *sn = b->session;

	if (t->nactive == 0 || --t->nactive != 0) {
		return;
	}
	t->stopping = false;
	if (--b->nactive != 0 || sn == fw->session) {
		return;
	}
	if (!sft_fw_session_active(sn)) {
		sft_fw_zombie_destroy(fw, sn); /* the zombie's last test stopped */
	}
}

void
sft_fw_count_error(struct sft_fw_test *t)
{
	struct sft_fw_session *sn = t->batch->session;

	if (t->service == SFT_SVC_BRW) {
		sn->brw_errors++;
	} else {
		sn->ping_errors++;
	}
}
