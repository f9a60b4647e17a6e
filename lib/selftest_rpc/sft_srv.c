/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The selftest RPC server for the framework services. Every MD the server
 * makes carries a struct sft_obj first in its user pointer, so an event
 * finds its object and kind; an object is freed on its MD's last event
 * (unlinked), never before, so LNet never writes into freed memory.
 *
 * Counting follows 2.17's rpc.c: every request event is rpcs_rcvd; a
 * request not answered is rpcs_dropped; an LNet event with an error status
 * (but a cancellation) is an error; bytes of completed bulk GETs are
 * bulk_get.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "api.h"
#include "cfs_nid.h"
#include "sft_srv.h"

enum sft_obj_kind {
	SFT_OBJ_REQBUF,  /* a posted request buffer */
	SFT_OBJ_REPLY,   /* a reply being sent */
	SFT_OBJ_BULK,    /* a TEST client's destination list being fetched */
};

struct sft_obj {
	enum sft_obj_kind kind;
	LIST_ENTRY(sft_obj) link;   /* the server's live objects */
	struct lnet_handle_md mdh;
	bool md_live;               /* its MD has not had its last event */
};
LIST_HEAD(sft_obj_list, sft_obj);

struct sft_reqbuf {
	struct sft_obj obj;
	uint32_t svc;
	uint8_t msg[SFT_MSG_SIZE];
};

struct sft_reply {
	struct sft_obj obj;
	uint8_t msg[SFT_MSG_SIZE];
};

struct sft_bulk {
	struct sft_obj obj;
	struct sft_msg req;          /* the TEST request it belongs to */
	struct lnet_processid peer;  /* who asked */
	struct lnet_nid self;        /* the NID it came to */
	int status;                  /* the GET's: 0 once the REPLY came whole */
	bool answered;
	uint32_t len;
	uint8_t buf[];
};

struct sft_srv {
	struct sft_srv_opts opts;
	struct sft_fw fw;
	struct lnet_eq *eq;
	struct sft_obj_list objs;
	unsigned int nreqbufs;       /* request buffers made */
	bool stopping;
	struct sft_rpc_counters rpc;
	struct sft_srv_stats stats;
};

/* The framework services a test node answers, each on portal 51 under its id. */
static const uint32_t sft_srv_services[] = {
	SFT_SVC_DEBUG, SFT_SVC_MAKE_SESSION, SFT_SVC_REMOVE_SESSION,
	SFT_SVC_BATCH, SFT_SVC_TEST, SFT_SVC_QUERY_STAT,
};

static uint64_t
sft_srv_now(const struct sft_srv *s)
{
	return s->opts.now_ms(s->opts.clock_ctx);
}

static void
sft_srv_obj_live(struct sft_srv *s, struct sft_obj *o, enum sft_obj_kind kind)
{
	o->kind = kind;
	o->md_live = true;
	LIST_INSERT_HEAD(&s->objs, o, link);
}

static void
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
	struct lnet_me *me = LNetMEAttach(sft_service_portal(b->svc), &any,
					  sft_request_match_bits(b->svc), 0, LNET_UNLINK, LNET_INS_AFTER);
	int rc;

	if (me == NULL) {
		return -errno;
	}
	rc = LNetMDAttach(me, &md, LNET_UNLINK, &b->obj.mdh);
	if (rc == 0) {
		b->obj.md_live = true;
	}
	return rc;
}

static int
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
		return rc;
	}
	s->nreqbufs++;
	return 0;
}

/* ---- replies and bulk --------------------------------------------------------- */

/* The rpyid every request body starts with. */
static uint64_t
sft_req_rpyid(const struct sft_msg *req)
{
	return req->body.rmsn_reqst.rpyid;
}

/*
 * LNetPut @p reply to @p peer's portal 52 under @p rpyid, from @p self, with
 * no ACK (srpc_send_reply). The reply's memory lives until its SEND event.
 */
static void
sft_srv_send_reply(struct sft_srv *s, const struct sft_msg *reply, const struct lnet_processid *peer,
		   const struct lnet_nid *self, uint64_t rpyid)
{
	struct sft_reply *r = calloc(1, sizeof(*r));
	struct lnet_md md = {
		.umd_length = SFT_MSG_SIZE,
		.umd_threshold = 1,
		.umd_eq_handle = s->eq,
	};

	if (r == NULL || sft_msg_encode(reply, r->msg, sizeof(r->msg)) != 0) {
		free(r);
		s->stats.nomem++;
		s->rpc.rpcs_dropped++;
		return;
	}
	md.umd_start = r->msg;
	md.umd_user_ptr = &r->obj;
	if (LNetMDBind(&md, LNET_UNLINK, &r->obj.mdh) != 0) {
		free(r);
		s->stats.send_failed++;
		return;
	}
	sft_srv_obj_live(s, &r->obj, SFT_OBJ_REPLY);
	if (LNetPut(self, r->obj.mdh, LNET_NOACK_REQ, peer, SFT_PORTAL_RDMA, rpyid, 0, 0) != 0) {
		s->stats.send_failed++;
		LNetMDUnlink(r->obj.mdh); /* its UNLINK event frees it */
	}
}

/*
 * LNetGet the TEST client's destination list (@p len bytes) from the
 * console's bulkid on portal 52 (srpc_do_bulk, the server being the sink).
 */
static void
sft_srv_fetch_dests(struct sft_srv *s, const struct sft_msg *req, const struct lnet_processid *peer,
		    const struct lnet_nid *self, uint32_t len)
{
	struct sft_bulk *b = calloc(1, sizeof(*b) + len);
	struct lnet_md md = {
		.umd_length = len,
		.umd_threshold = 2, /* SEND, then REPLY */
		.umd_eq_handle = s->eq,
	};

	if (b == NULL) {
		s->stats.nomem++;
		s->rpc.rpcs_dropped++;
		return;
	}
	b->req = *req;
	b->peer = *peer;
	b->self = *self;
	b->len = len;
	b->status = -EIO; /* until the REPLY brings it whole */
	md.umd_start = b->buf;
	md.umd_user_ptr = &b->obj;
	if (LNetMDBind(&md, LNET_UNLINK, &b->obj.mdh) != 0) {
		free(b);
		s->stats.send_failed++;
		s->rpc.rpcs_dropped++;
		return;
	}
	sft_srv_obj_live(s, &b->obj, SFT_OBJ_BULK);
	if (LNetGet(self, b->obj.mdh, peer, SFT_PORTAL_RDMA, req->body.test_reqst.bulkid, 0, false) != 0) {
		s->stats.send_failed++;
		LNetMDUnlink(b->obj.mdh);
	}
}

/* The destination list came (or failed): the TEST request goes on (sfw_bulk_ready). */
static void
sft_srv_bulk_done(struct sft_srv *s, struct sft_bulk *b)
{
	struct sft_msg reply;
	enum sft_fw_action act;

	b->answered = true;
	if (s->stopping) {
		return;
	}
	act = sft_fw_test_bulk_ready(&s->fw, &b->req, b->status, b->buf, b->len, sft_srv_now(s), &reply);
	if (act == SFT_FW_REPLY) {
		sft_srv_send_reply(s, &reply, &b->peer, &b->self, sft_req_rpyid(&b->req));
	} else {
		s->rpc.rpcs_dropped++;
	}
}

/* ---- events -------------------------------------------------------------------- */

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
	struct sft_msg reply;
	uint32_t bulk_len = 0;

	s->rpc.rpcs_rcvd++;
	if (!sft_srv_request_ok(b, ev, &req)) {
		s->stats.bad_requests++;
		s->rpc.rpcs_dropped++;
		return;
	}
	/* Replies go to the NID the request came from, from the NID it came to. */
	switch (sft_fw_handle(&s->fw, &req, sft_srv_now(s), &reply, &bulk_len)) {
	case SFT_FW_REPLY:
		sft_srv_send_reply(s, &reply, &ev->source, &ev->target.nid, sft_req_rpyid(&req));
		break;
	case SFT_FW_BULK:
		sft_srv_fetch_dests(s, &req, &ev->source, &ev->target.nid, bulk_len);
		break;
	case SFT_FW_DROP:
		s->rpc.rpcs_dropped++;
		break;
	}
}

static void
sft_srv_reqbuf_event(struct sft_srv *s, struct sft_reqbuf *b, const struct lnet_event *ev)
{
	if (!ev->unlinked) {
		return;
	}
	b->obj.md_live = false;
	if (s->stopping) {
		return;
	}
	if (ev->type == LNET_EVENT_PUT) {
		sft_srv_request(s, b, ev);
	}
	/* Back on the portal for the next request (srpc_service_recycle_buffer). */
	if (sft_srv_post(s, b) != 0) {
		s->stats.nomem++;
	}
}

static void
sft_srv_bulk_event(struct sft_srv *s, struct sft_bulk *b, const struct lnet_event *ev)
{
	if (ev->type == LNET_EVENT_REPLY && ev->status == 0 && ev->mlength == b->len) {
		b->status = 0;
		s->rpc.bulk_get += ev->mlength;
	} else if (ev->type == LNET_EVENT_SEND && ev->status != 0 && !ev->unlinked) {
		LNetMDUnlink(b->obj.mdh); /* no REPLY will come: end it now */
	}
	if (!ev->unlinked) {
		return;
	}
	b->obj.md_live = false;
	if (!b->answered) {
		sft_srv_bulk_done(s, b);
	}
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
		sft_srv_reqbuf_event(s, (struct sft_reqbuf *)o, ev);
		break;
	case SFT_OBJ_BULK:
		sft_srv_bulk_event(s, (struct sft_bulk *)o, ev);
		break;
	case SFT_OBJ_REPLY:
		if (ev->unlinked) {
			o->md_live = false;
		}
		break;
	}
	/* Request buffers are kept for reposting until stop; the others go with their MD. */
	if (!o->md_live && (o->kind != SFT_OBJ_REQBUF || s->stopping)) {
		sft_srv_obj_free(o);
	}
}

/* ---- entry points ------------------------------------------------------------------ */

static void
sft_srv_fw_init(struct sft_srv *s)
{
	const struct sft_fw_ops ops = {
		.stat = { .rpc_counters = sft_srv_stat_rpc, .lnet_counters = sft_srv_stat_lnet },
		.ctx = s,
	};

	sft_fw_init(&s->fw, &ops, s->opts.session_timeout_s != 0 ? s->opts.session_timeout_s
								  : SFT_FW_SESSION_TIMEOUT_S);
}

static int
sft_srv_post_all(struct sft_srv *s)
{
	unsigned int nbufs = s->opts.framework_bufs != 0 ? s->opts.framework_bufs : SFT_SRV_FRAMEWORK_BUFS;
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

/* How long a poll may wait: the caller's bound, cut at the session's deadline. */
static int
sft_srv_wait_ms(const struct sft_srv *s, int timeout_ms)
{
	uint64_t now, left;

	if (s->fw.deadline_ms == 0) {
		return timeout_ms;
	}
	now = sft_srv_now(s);
	left = s->fw.deadline_ms > now ? s->fw.deadline_ms - now : 0;
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

	if (rc == -EOVERFLOW) {
		s->stats.eq_overflows++;
		rc = 1; /* the event returned is good */
	}
	if (rc == 1) {
		sft_srv_event(s, &ev);
	}
	sft_fw_expire(&s->fw, sft_srv_now(s));
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
		sft_srv_obj_free(LIST_FIRST(&s->objs));
	}
	LNetClearLazyPortal(SFT_PORTAL_FRAMEWORK);
	LNetClearLazyPortal(SFT_PORTAL_REQUEST);
	sft_fw_fini(&s->fw);
	LNetEQFree(s->eq);
	free(s);
	return 0;
}
