/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The test services a server test of a session makes ready: ping and brw
 * on portal 50, as 2.17's ping_test.c and brw_test.c answer them. They look
 * at no session (a test client of any console is served), only at their
 * own request. Their request buffers come with the server tests loaded
 * (up to sfw_load_test's count, as requests come) and go when those tests
 * go.
 */
#include <errno.h>
#include <stdlib.h>

#include "sft_srv_internal.h"

/* sfw_test_buffers' figures: at least 256 buffers, 64 more than the loops asked, at most 2048 loops. */
#define SFT_TEST_BUFS_MIN 256u
#define SFT_TEST_BUFS_EXTRA 64u
#define SFT_TEST_LOOPS_MAX 2048u
/* Buffers posted when a server test is loaded; the rest come as requests do. */
#define SFT_TEST_BUFS_BURST 16u

struct sft_tsvc *
sft_srv_tsvc(struct sft_srv *s, uint32_t svc)
{
	switch (svc) {
	case SFT_SVC_BRW:
		return &s->tsvc[0];
	case SFT_SVC_PING:
		return &s->tsvc[1];
	default:
		return NULL;
	}
}

static uint32_t
sft_test_buffers(const struct sft_fw_test *t)
{
	uint32_t loops = t->loop < SFT_TEST_LOOPS_MAX ? t->loop : SFT_TEST_LOOPS_MAX;
	uint32_t n = loops + SFT_TEST_BUFS_EXTRA;

	return n > SFT_TEST_BUFS_MIN ? n : SFT_TEST_BUFS_MIN;
}

/* Unlink idle buffers of @p svc beyond what is wanted; their UNLINK events free them. */
static void
sft_srv_tsvc_trim(struct sft_srv *s, uint32_t svc)
{
	struct sft_tsvc *ts = sft_srv_tsvc(s, svc);
	uint32_t extra = ts->posted > ts->wanted ? ts->posted - ts->wanted : 0;
	struct sft_obj *o;

	LIST_FOREACH(o, &s->objs, link) {
		if (extra == 0) {
			break;
		}
		if (o->kind == SFT_OBJ_REQBUF && o->md_live &&
		    ((struct sft_reqbuf *)o)->svc == svc && LNetMDUnlink(o->mdh) == 0) {
			extra--;
		}
	}
}

/*
 * Make a buffer of @p svc if fewer are posted than wanted: true if one was
 * made. Buffers come a burst at a time and then one more with each request
 * served, so a TEST is answered at once and a busy service still reaches
 * what its tests asked for (the lazy portal holds requests meanwhile).
 */
static bool
sft_srv_tsvc_grow(struct sft_srv *s, uint32_t svc)
{
	struct sft_tsvc *ts = sft_srv_tsvc(s, svc);

	if (ts == NULL || ts->posted >= ts->wanted || sft_srv_add_buffer(s, svc) != 0) {
		return false;
	}
	ts->posted++;
	return true;
}

int
sft_srv_test_load(void *ctx, struct sft_fw_test *t)
{
	struct sft_srv *s = ctx;
	struct sft_tsvc *ts = sft_srv_tsvc(s, t->service);
	uint32_t n = sft_test_buffers(t);
	uint32_t i;

	ts->wanted += n;
	for (i = 0; i < SFT_TEST_BUFS_BURST; i++) {
		if (!sft_srv_tsvc_grow(s, t->service) && ts->posted < ts->wanted) {
			ts->wanted -= n;
			sft_srv_tsvc_trim(s, t->service);
			return -SFT_STATUS_ENOMEM;
		}
	}
	return 0;
}

void
sft_srv_test_gone(void *ctx, struct sft_fw_test *t)
{
	struct sft_srv *s = ctx;
	struct sft_tsvc *ts;

	if (t->is_client) {
		sft_cli_test_gone(s, t);
		return;
	}
	ts = sft_srv_tsvc(s, t->service);
	ts->wanted -= sft_test_buffers(t);
	sft_srv_tsvc_trim(s, t->service);
}

bool
sft_srv_tsvc_keep(struct sft_srv *s, uint32_t svc)
{
	struct sft_tsvc *ts = sft_srv_tsvc(s, svc);

	if (ts == NULL) {
		return true;
	}
	if (ts->posted <= ts->wanted) {
		sft_srv_tsvc_grow(s, svc); /* busy: one more, up to what is wanted */
		return true;
	}
	ts->posted--;
	return false;
}

/* ---- ping ---------------------------------------------------------------- */

/* ping_server_handle: a wrong magic is dropped; unknown features answered EPROTO. */
static void
sft_srv_ping(struct sft_srv *s, const struct sft_msg *req, const struct lnet_event *ev)
{
	const struct sft_ping_reqst *r = &req->body.ping_reqst;
	struct sft_msg reply;

	if (r->magic != SFT_PING_MAGIC) {
		s->stats.bad_requests++;
		s->rpc.rpcs_dropped++;
		return;
	}
	sft_reply_init(req, &reply);
	reply.body.ping_reply.seq = r->seq;
	reply.body.ping_reply.magic = SFT_PING_MAGIC;
	if ((req->ses_feats & ~SFT_FEATS_MASK) != 0) {
		reply.ses_feats = SFT_FEATS_MASK;
		reply.body.ping_reply.status = SFT_STATUS_EPROTO;
	} else {
		reply.ses_feats = req->ses_feats;
	}
	sft_srv_send_reply(s, &reply, &ev->source, &ev->target.nid, r->rpyid);
}

/* ---- brw ----------------------------------------------------------------- */

/* brw_server_handle's checks in its order: 0, or the status to answer with (@p reply's features set). */
static uint32_t
sft_brw_refusal(const struct sft_msg *req, struct sft_msg *reply)
{
	const struct sft_brw_reqst *r = &req->body.brw_reqst;

	if ((r->rw != SFT_BRW_READ && r->rw != SFT_BRW_WRITE) ||
	    (r->flags != SFT_BRW_CHECK_NONE && r->flags != SFT_BRW_CHECK_SIMPLE &&
	     r->flags != SFT_BRW_CHECK_FULL)) {
		return SFT_STATUS_EINVAL;
	}
	if ((req->ses_feats & ~SFT_FEATS_MASK) != 0) {
		reply->ses_feats = SFT_FEATS_MASK;
		return SFT_STATUS_EPROTO;
	}
	if ((req->ses_feats & SFT_FEAT_BULK_LEN) == 0 && r->len % SFT_BRW_PAGE_SIZE != 0) {
		return SFT_STATUS_EINVAL;
	}
	reply->ses_feats = req->ses_feats;
	/* 2.17 asserts on a length that is not whole words; refused here. */
	if (r->len == 0 || r->len > SFT_BRW_MAX_LEN || r->len % SFT_BRW_WORD != 0) {
		return SFT_STATUS_EINVAL;
	}
	return SFT_STATUS_OK;
}

/* brw_bulk_ready: the reply once the data moved; a corrupt WRITE is EBADMSG. */
static void
sft_srv_brw_done(struct sft_srv *s, struct sft_bulk *b)
{
	const struct sft_brw_reqst *r = &b->req.body.brw_reqst;
	struct sft_msg reply;
	size_t bad;

	if (b->status != 0) {
		s->rpc.rpcs_dropped++; /* the kernel ends the RPC with EIO, no reply */
		return;
	}
	sft_reply_init(&b->req, &reply);
	reply.ses_feats = b->req.ses_feats;
	if (b->sink && sft_brw_check(b->buf, SFT_BRW_MAX_LEN, 0, r->len, r->flags, SFT_BRW_MAGIC,
				     b->req.swabbed, &bad) != 0) {
		reply.body.brw_reply.status = SFT_STATUS_EBADMSG;
		s->stats.brw_corrupt++;
	}
	sft_srv_send_reply(s, &reply, &b->peer, &b->self, r->rpyid);
}

static void
sft_srv_brw(struct sft_srv *s, const struct sft_msg *req, const struct lnet_event *ev)
{
	const struct sft_brw_reqst *r = &req->body.brw_reqst;
	struct sft_msg reply;
	struct sft_bulk *b;
	uint32_t status;

	sft_reply_init(req, &reply);
	status = sft_brw_refusal(req, &reply);
	if (status != SFT_STATUS_OK) {
		reply.body.brw_reply.status = status;
		sft_srv_send_reply(s, &reply, &ev->source, &ev->target.nid, r->rpyid);
		return;
	}
	b = calloc(1, sizeof(*b));
	if (b != NULL) {
		b->buf = sft_bufpool_get(&s->pool);
	}
	if (b == NULL || b->buf == NULL) {
		free(b);
		s->stats.nomem++;
		s->rpc.rpcs_dropped++;
		return;
	}
	b->pooled = true;
	b->req = *req;
	b->peer = ev->source;
	b->self = ev->target.nid;
	b->bulkid = r->bulkid;
	b->len = r->len;
	b->done = sft_srv_brw_done;
	/* The client READs: the server is the source, filled with data; WRITE: the sink, poisoned. */
	b->sink = r->rw == SFT_BRW_WRITE;
	sft_brw_fill(b->buf, SFT_BRW_MAX_LEN, 0, r->len, r->flags,
		     b->sink ? SFT_BRW_POISON : SFT_BRW_MAGIC);
	sft_srv_bulk_start(s, b);
}

void
sft_srv_test_request(struct sft_srv *s, uint32_t svc, const struct sft_msg *req,
		     const struct lnet_event *ev)
{
	struct sft_msg reply;

	if (req->version != SFT_MSG_VERSION) {
		/* The RPC layer's answer before any service looks (srpc_handle_rpc). */
		sft_reply_init(req, &reply);
		reply.body.brw_reply.status = SFT_STATUS_EPROTO;
		sft_srv_send_reply(s, &reply, &ev->source, &ev->target.nid, sft_req_rpyid(req));
		return;
	}
	if (svc == SFT_SVC_PING) {
		sft_srv_ping(s, req, ev);
	} else {
		sft_srv_brw(s, req, ev);
	}
}
