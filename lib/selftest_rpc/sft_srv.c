/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The selftest server's core: its objects, request buffers, replies, the
 * dispatch of LNet events, start, poll and stop.
 *
 * Counting follows 2.17's rpc.c: every request event is rpcs_rcvd; a
 * request not answered is rpcs_dropped; an LNet event with an error status
 * (but a cancellation) is an error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cfs_nid.h"
#include "sft_srv_internal.h"

/* The framework services a test node answers, each on portal 51 under its id. */
static const uint32_t sft_srv_services[] = {
	SFT_SVC_DEBUG, SFT_SVC_MAKE_SESSION, SFT_SVC_REMOVE_SESSION,
	SFT_SVC_BATCH, SFT_SVC_TEST,         SFT_SVC_QUERY_STAT,
};

void
sft_srv_obj_live(struct sft_srv *s, struct sft_obj *o, enum sft_obj_kind kind)
{
	o->kind = kind;
	o->md_live = true;
	LIST_INSERT_HEAD(&s->objs, o, link);
}

void
sft_srv_obj_free(struct sft_obj *o)
{
	LIST_REMOVE(o, link);
	free(o);
}

/* ---- the STAT reply's counters -------------------------------------------- */

static void
sft_srv_stat_rpc(void *ctx, struct sft_rpc_counters *out)
{
	*out = ((struct sft_srv *)ctx)->rpc;
}

/* LNet's lnet_counters_common, which is what the kernel's STAT reply carries. */
static void
sft_srv_stat_lnet(void *ctx, struct sft_lnet_counters *out)
{
	struct lnet_counters c;

	(void)ctx;
	memset(out, 0, sizeof(*out));
	if (lnet_counters_get(&c) != 0) {
		return;
	}
	out->msgs_alloc = c.msgs_alloc;
	out->msgs_max = c.msgs_max;
	out->errors = c.errors;
	out->send_count = c.send_count;
	out->recv_count = c.recv_count;
	out->route_count = c.route_count;
	out->drop_count = c.drop_count;
	out->send_length = c.send_length;
	out->recv_length = c.recv_length;
	out->route_length = c.route_length;
	out->drop_length = c.drop_length;
}

/* ---- request buffers -------------------------------------------------------- */

/* Post @p b on its service's portal, matching any peer (srpc_post_passive_rqtbuf). */
static int
sft_srv_post(struct sft_srv *s, struct sft_reqbuf *b)
{
	const struct lnet_processid any = { .pid = LNET_PID_ANY, .nid = LNET_ANY_NID };
	struct lnet_md md = {
		.umd_start = b->msg,
		.umd_length = sizeof(b->msg),
		.umd_threshold = 1,
		.umd_options = LNET_MD_OP_PUT,
		.umd_user_ptr = &b->obj,
		.umd_eq_handle = s->eq,
	};
	struct lnet_me *me =
		LNetMEAttach(sft_service_portal(b->svc), &any, sft_request_match_bits(b->svc), 0,
			     LNET_UNLINK, LNET_INS_AFTER);
	int rc;

	if (me == NULL) {
		return -errno;
	}
	rc = LNetMDAttach(me, &md, LNET_UNLINK, &b->obj.mdh);
	b->obj.md_live = rc == 0;
	return rc;
}

int
sft_srv_add_buffer(struct sft_srv *s, uint32_t svc)
{
	struct sft_reqbuf *b = calloc(1, sizeof(*b));
	int rc;

	if (b == NULL) {
		return -ENOMEM;
	}
	b->svc = svc;
	sft_srv_obj_live(s, &b->obj, SFT_OBJ_REQBUF);
	rc = sft_srv_post(s, b);
	if (rc != 0) {
		sft_srv_obj_free(&b->obj);
	}
	return rc;
}

/* ---- replies -------------------------------------------------------------------- */

/*
 * LNetPut @p reply to @p peer's portal 52 under @p rpyid, from @p self, with
 * no ACK (srpc_send_reply). The reply's memory lives until its SEND event.
 */
void
sft_srv_send_reply(struct sft_srv *s, const struct sft_msg *reply,
		   const struct lnet_processid *peer, const struct lnet_nid *self, uint64_t rpyid)
{
	struct sft_obj *o = calloc(1, sizeof(*o) + SFT_MSG_SIZE);
	uint8_t *msg = (uint8_t *)(o + 1);
	struct lnet_md md = {
		.umd_length = SFT_MSG_SIZE,
		.umd_threshold = 1,
		.umd_eq_handle = s->eq,
	};

	if (o == NULL || sft_msg_encode(reply, msg, SFT_MSG_SIZE) != 0) {
		free(o);
		s->stats.nomem++;
		s->rpc.rpcs_dropped++;
		return;
	}
	md.umd_start = msg;
	md.umd_user_ptr = o;
	if (LNetMDBind(&md, LNET_UNLINK, &o->mdh) != 0) {
		free(o);
		s->stats.send_failed++;
		return;
	}
	sft_srv_obj_live(s, o, SFT_OBJ_REPLY);
	if (LNetPut(self, o->mdh, LNET_NOACK_REQ, peer, SFT_PORTAL_RDMA, rpyid, 0, 0) != 0) {
		s->stats.send_failed++;
		LNetMDUnlink(o->mdh); /* its UNLINK event frees it */
	}
}

/* ---- framework requests ------------------------------------------------------------- */

/* The TEST client's destination list came (or failed): the request goes on (sfw_bulk_ready). */
static void
sft_srv_dests_done(struct sft_srv *s, struct sft_bulk *b)
{
	struct sft_msg reply;
	enum sft_fw_action act;

	act = sft_fw_test_bulk_ready(&s->fw, &b->req, b->status, b->buf, b->len, sft_srv_now(s),
				     &reply);
	if (act == SFT_FW_REPLY) {
		sft_srv_send_reply(s, &reply, &b->peer, &b->self, sft_req_rpyid(&b->req));
	} else {
		s->rpc.rpcs_dropped++;
	}
}

/* GET a TEST client's destination list (@p len bytes) from the console's bulkid. */
static void
sft_srv_fetch_dests(struct sft_srv *s, const struct sft_msg *req, const struct lnet_event *ev,
		    uint32_t len)
{
	struct sft_bulk *b = calloc(1, sizeof(*b) + len);

	if (b == NULL) {
		s->stats.nomem++;
		s->rpc.rpcs_dropped++;
		return;
	}
	b->req = *req;
	b->peer = ev->source;
	b->self = ev->target.nid;
	b->bulkid = req->body.test_reqst.bulkid;
	b->sink = true;
	b->len = len;
	b->buf = (uint8_t *)(b + 1);
	b->done = sft_srv_dests_done;
	sft_srv_bulk_start(s, b);
}

/* Replies go to the NID the request came from, from the NID it came to. */
static void
sft_srv_framework_request(struct sft_srv *s, const struct sft_msg *req, const struct lnet_event *ev)
{
	struct sft_msg reply;
	uint32_t bulk_len = 0;

	switch (sft_fw_handle(&s->fw, req, sft_srv_now(s), &reply, &bulk_len)) {
	case SFT_FW_REPLY:
		sft_srv_send_reply(s, &reply, &ev->source, &ev->target.nid, sft_req_rpyid(req));
		break;
	case SFT_FW_BULK:
		sft_srv_fetch_dests(s, req, ev, bulk_len);
		break;
	case SFT_FW_DROP:
		s->rpc.rpcs_dropped++;
		break;
	}
}

/* ---- events ---------------------------------------------------------------------------- */

/* A request is acceptable: 160 bytes, a magic, the service's request type (srpc_lnet_ev_handler). */
static bool
sft_srv_request_ok(const struct sft_reqbuf *b, const struct lnet_event *ev, struct sft_msg *req)
{
	return ev->status == 0 && ev->mlength == SFT_MSG_SIZE &&
	       sft_msg_decode(b->msg, SFT_MSG_SIZE, req) == 0 &&
	       req->type == (uint32_t)sft_service_request_type(b->svc);
}

static void
sft_srv_request(struct sft_srv *s, struct sft_reqbuf *b, const struct lnet_event *ev)
{
	struct sft_msg req;

	s->rpc.rpcs_rcvd++;
	if (!sft_srv_request_ok(b, ev, &req)) {
		s->stats.bad_requests++;
		s->rpc.rpcs_dropped++;
		return;
	}
	if (b->svc < SFT_SVC_FRAMEWORK_MAX) {
		sft_srv_framework_request(s, &req, ev);
	} else {
		sft_srv_test_request(s, b->svc, &req, ev);
	}
}

/* A request buffer's event: true when the buffer is done with (to be freed). */
static bool
sft_srv_reqbuf_event(struct sft_srv *s, struct sft_reqbuf *b, const struct lnet_event *ev)
{
	if (!ev->unlinked) {
		return false;
	}
	b->obj.md_live = false;
	if (s->stopping) {
		return true;
	}
	if (ev->type == LNET_EVENT_PUT) {
		sft_srv_request(s, b, ev);
	}
	/* Back on the portal for the next request (srpc_service_recycle_buffer), unless surplus. */
	if (!sft_srv_tsvc_keep(s, b->svc)) {
		return true;
	}
	if (sft_srv_post(s, b) != 0) {
		s->stats.nomem++; /* kept, unposted, until stop */
	}
	return false;
}

static void
sft_srv_event(struct sft_srv *s, const struct lnet_event *ev)
{
	struct sft_obj *o = ev->md_user_ptr;

	if (ev->status != 0 && ev->status != -ECANCELED) {
		s->rpc.errors++;
	}
	switch (o->kind) {
	case SFT_OBJ_REQBUF:
		if (sft_srv_reqbuf_event(s, (struct sft_reqbuf *)o, ev)) {
			sft_srv_obj_free(o);
		}
		break;
	case SFT_OBJ_BULK:
		sft_srv_bulk_event(s, (struct sft_bulk *)o, ev);
		if (!o->md_live) {
			sft_srv_bulk_free(s, (struct sft_bulk *)o);
		}
		break;
	case SFT_OBJ_REPLY:
		if (ev->unlinked) {
			sft_srv_obj_free(o);
		}
		break;
	case SFT_OBJ_CRPC:
		sft_crpc_event(s, (struct sft_crpc_md *)o, ev);
		break;
	}
}

/* ---- entry points ------------------------------------------------------------------ */

static void
sft_srv_fw_init(struct sft_srv *s)
{
	const struct sft_fw_ops ops = {
		.stat = { .rpc_counters = sft_srv_stat_rpc, .lnet_counters = sft_srv_stat_lnet },
		.test_start = sft_cli_test_start,
		.test_abort = sft_cli_test_abort,
		.test_load = sft_srv_test_load,
		.test_gone = sft_srv_test_gone,
		.ctx = s,
	};

	sft_fw_init(&s->fw, &ops,
		    s->opts.session_timeout_s != 0 ? s->opts.session_timeout_s :
						     SFT_FW_SESSION_TIMEOUT_S);
}

static int
sft_srv_post_all(struct sft_srv *s)
{
	unsigned int nbufs =
		s->opts.framework_bufs != 0 ? s->opts.framework_bufs : SFT_SRV_FRAMEWORK_BUFS;
	size_t i;
	unsigned int n;
	int rc;

	rc = LNetSetLazyPortal(SFT_PORTAL_FRAMEWORK);
	if (rc == 0) {
		rc = LNetSetLazyPortal(SFT_PORTAL_REQUEST);
	}
	for (i = 0; rc == 0 && i < sizeof(sft_srv_services) / sizeof(sft_srv_services[0]); i++) {
		for (n = 0; rc == 0 && n < nbufs; n++) {
			rc = sft_srv_add_buffer(s, sft_srv_services[i]);
		}
	}
	return rc;
}

int
sft_srv_start(const struct sft_srv_opts *opts, struct sft_srv **out)
{
	struct sft_srv *s;
	int rc;

	if (opts == NULL || opts->now_ms == NULL || out == NULL) {
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		return -ENOMEM;
	}
	s->opts = *opts;
	LIST_INIT(&s->objs);
	TAILQ_INIT(&s->crpcs);
	TAILQ_INIT(&s->transs);
	sft_ids_init(&s->ids, opts->id_seed != 0 ? opts->id_seed : (uint64_t)time(NULL));
	sft_srv_fw_init(s);
	s->eq = LNetEQAlloc(opts->eq_size != 0 ? opts->eq_size : SFT_SRV_EQ_SIZE);
	if (s->eq == NULL) {
		free(s);
		return -errno;
	}
	rc = sft_srv_post_all(s);
	if (rc != 0) {
		sft_srv_stop(s, 0);
		return rc;
	}
	*out = s;
	return 0;
}

/* The earlier of two deadlines (0: none). */
static uint64_t
sft_srv_earlier(uint64_t a, uint64_t b)
{
	return a == 0 ? b : b == 0 || a < b ? a : b;
}

/* How long a poll may wait: the caller's bound, cut at the next deadline (session, RPC, transaction). */
static int
sft_srv_wait_ms(const struct sft_srv *s, int timeout_ms)
{
	uint64_t due =
		sft_srv_earlier(sft_srv_earlier(s->fw.deadline_ms, sft_crpc_next_deadline(s)),
				sft_trans_next_deadline(s));
	uint64_t now, left;

	if (due == 0) {
		return timeout_ms;
	}
	now = sft_srv_now(s);
	left = due > now ? due - now : 0;
	if (timeout_ms >= 0 && (uint64_t)timeout_ms < left) {
		return timeout_ms;
	}
	return left > INT32_MAX ? INT32_MAX : (int)left;
}

int
sft_srv_poll(struct sft_srv *s, int timeout_ms)
{
	struct lnet_event ev;
	int rc = LNetEQPoll(&s->eq, 1, sft_srv_wait_ms(s, timeout_ms), &ev, NULL);
	uint64_t now;

	if (rc == -EOVERFLOW) {
		s->stats.eq_overflows++;
		rc = 1; /* the event returned is good */
	}
	if (rc == 1) {
		sft_srv_event(s, &ev);
	}
	now = sft_srv_now(s);
	sft_trans_expire(s, now);
	sft_crpc_expire(s, now);
	sft_fw_expire(&s->fw, now);
	return rc;
}

void
sft_srv_rpc_counters(const struct sft_srv *s, struct sft_rpc_counters *out)
{
	*out = s->rpc;
}

void
sft_srv_stats(const struct sft_srv *s, struct sft_srv_stats *out)
{
	*out = s->stats;
}

struct sft_fw *
sft_srv_fw(struct sft_srv *s)
{
	return &s->fw;
}

static bool
sft_srv_mds_live(const struct sft_srv *s)
{
	const struct sft_obj *o;

	if (!TAILQ_EMPTY(&s->crpcs) || !TAILQ_EMPTY(&s->transs)) {
		return true; /* a client RPC ends with its MDs' last events, a transaction with its RPCs */
	}
	LIST_FOREACH(o, &s->objs, link) {
		if (o->md_live) {
			return true;
		}
	}
	return false;
}

int
sft_srv_stop(struct sft_srv *s, int timeout_ms)
{
	struct sft_obj *o;
	uint64_t deadline = sft_srv_now(s) + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);

	s->stopping = true;
	sft_crpc_abort_all(s, -ESHUTDOWN);
	LIST_FOREACH(o, &s->objs, link) {
		if (o->md_live) {
			LNetMDUnlink(o->mdh);
		}
	}
	/*
	 * Their last events: each object goes with its own (sft_srv_event). A
	 * poll that waited out the time left and found nothing ends the wait.
	 */
	while (sft_srv_mds_live(s)) {
		uint64_t now = sft_srv_now(s);

		if (sft_srv_poll(s, now < deadline ? (int)(deadline - now) : 0) <= 0) {
			break;
		}
	}
	if (sft_srv_mds_live(s)) {
		return -ETIMEDOUT;
	}
	while (!LIST_EMPTY(&s->objs)) {
		o = LIST_FIRST(&s->objs);
		if (o->kind == SFT_OBJ_BULK) {
			sft_srv_bulk_free(s, (struct sft_bulk *)o);
		} else {
			sft_srv_obj_free(o);
		}
	}
	LNetClearLazyPortal(SFT_PORTAL_FRAMEWORK);
	LNetClearLazyPortal(SFT_PORTAL_REQUEST);
	sft_fw_fini(&s->fw);
	sft_bufpool_fini(&s->pool);
	LNetEQFree(s->eq);
	free(s);
	return 0;
}
