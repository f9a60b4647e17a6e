/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Client RPCs (sft_cli.h). Each RPC owns three MDs (request, reply, bulk),
 * each with a struct sft_obj of kind SFT_OBJ_CRPC in its user pointer; the
 * RPC is complete when every MD it made has had its last event, whatever
 * order LNet gives them in, and its status is then read in the kernel's
 * strict order: request, reply, bulk.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cfs_nid.h"
#include "sft_srv_internal.h"

static struct sft_crpc *
sft_crpc_of(struct sft_crpc_md *md)
{
	return md->rpc;
}

static bool
sft_crpc_live(const struct sft_crpc *rpc)
{
	unsigned int i;

	for (i = 0; i < SFT_CRPC_NMD; i++) {
		if (rpc->md[i].obj.md_live) {
			return true;
		}
	}
	return false;
}

void
sft_crpc_abort(struct sft_srv *s, struct sft_crpc *rpc, int status)
{
	unsigned int i;

	(void)s;
	if (rpc->aborted) {
		return;
	}
	rpc->aborted = true;
	rpc->res.status = status;
	for (i = 0; i < SFT_CRPC_NMD; i++) {
		if (rpc->md[i].obj.md_live) {
			LNetMDUnlink(rpc->md[i].obj.mdh);
		}
	}
}

/* The status in srpc_send_rpc's order: an abort's, the request's, the reply's, the bulk's. */
static int
sft_crpc_status(const struct sft_crpc *rpc)
{
	const struct sft_crpc_md *bulk = &rpc->md[SFT_CRPC_BULK];

	if (rpc->aborted) {
		return rpc->res.status;
	}
	if (rpc->md[SFT_CRPC_REQ].status != 0) {
		return rpc->md[SFT_CRPC_REQ].status;
	}
	if (rpc->md[SFT_CRPC_REPLY].status != 0) {
		return rpc->md[SFT_CRPC_REPLY].status;
	}
	/* A bulk we unlinked because the server answered an error: the reply stands. */
	if (rpc->has_bulk && !rpc->remote_error) {
		return bulk->status;
	}
	return 0;
}

static void
sft_crpc_complete(struct sft_srv *s, struct sft_crpc *rpc)
{
	rpc->res.status = sft_crpc_status(rpc);
	TAILQ_REMOVE(&s->crpcs, rpc, link);
	rpc->done(s, rpc);
	free(rpc);
}

/* The reply came: its type and magic (decode) as srpc_send_rpc checks them. */
static void
sft_crpc_reply(struct sft_srv *s, struct sft_crpc *rpc, const struct lnet_event *ev)
{
	struct sft_crpc_md *md = &rpc->md[SFT_CRPC_REPLY];

	if (ev->mlength != SFT_MSG_SIZE ||
	    sft_msg_decode(rpc->reply_buf, SFT_MSG_SIZE, &rpc->res.reply) != 0 ||
	    rpc->res.reply.type != rpc->res.req.type + 1) {
		md->status = -EBADMSG;
		sft_crpc_abort(s, rpc, -EBADMSG);
		return;
	}
	if (rpc->has_bulk && rpc->res.reply.body.rmsn_reply.status != 0 &&
	    rpc->md[SFT_CRPC_BULK].obj.md_live) {
		/* The server will not move the bulk after an error (srpc_send_rpc). */
		rpc->remote_error = true;
		LNetMDUnlink(rpc->md[SFT_CRPC_BULK].obj.mdh);
	}
}

void
sft_crpc_event(struct sft_srv *s, struct sft_crpc_md *md, const struct lnet_event *ev)
{
	struct sft_crpc *rpc = sft_crpc_of(md);

	if (!ev->unlinked) {
		return;
	}
	md->obj.md_live = false;
	md->status = ev->type == LNET_EVENT_UNLINK ? -EINTR : ev->status;
	switch (md->role) {
	case SFT_CRPC_REQ:
		if (md->status == 0) {
			s->rpc.rpcs_sent++;
		} else {
			sft_crpc_abort(s, rpc, md->status);
		}
		break;
	case SFT_CRPC_REPLY:
		if (md->status == 0) {
			sft_crpc_reply(s, rpc, ev);
		} else {
			sft_crpc_abort(s, rpc, md->status);
		}
		break;
	default:
		break;
	}
	if (!sft_crpc_live(rpc)) {
		sft_crpc_complete(s, rpc);
	}
}

/* A passive MD on portal 52 under @p bits, from @p rpc's server only (srpc_post_passive_rdma). */
static int
sft_crpc_post(struct sft_srv *s, struct sft_crpc *rpc, enum sft_crpc_role role, void *buf,
	      uint32_t len, unsigned int op, uint64_t bits)
{
	struct sft_crpc_md *md = &rpc->md[role];
	struct lnet_md umd = {
		.umd_start = buf,
		.umd_length = len,
		.umd_threshold = 1,
		.umd_options = op,
		.umd_user_ptr = &md->obj,
		.umd_eq_handle = s->eq,
	};
	struct lnet_me *me =
		LNetMEAttach(SFT_PORTAL_RDMA, &rpc->dest, bits, 0, LNET_UNLINK, LNET_INS_AFTER);
	int rc;

	if (me == NULL) {
		return -errno;
	}
	rc = LNetMDAttach(me, &umd, LNET_UNLINK, &md->obj.mdh);
	md->obj.md_live = rc == 0;
	return rc;
}

/* The request, with no ACK, from whichever NID LNet picks (srpc_send_request). */
static int
sft_crpc_send(struct sft_srv *s, struct sft_crpc *rpc)
{
	struct sft_crpc_md *md = &rpc->md[SFT_CRPC_REQ];
	struct lnet_md umd = {
		.umd_start = rpc->req_buf,
		.umd_length = SFT_MSG_SIZE,
		.umd_threshold = 1,
		.umd_user_ptr = &md->obj,
		.umd_eq_handle = s->eq,
	};
	int rc = LNetMDBind(&umd, LNET_UNLINK, &md->obj.mdh);

	if (rc != 0) {
		return rc;
	}
	md->obj.md_live = true;
	rc = LNetPut(NULL, md->obj.mdh, LNET_NOACK_REQ, &rpc->dest, sft_service_portal(rpc->svc),
		     sft_request_match_bits(rpc->svc), 0, 0);
	if (rc != 0) {
		LNetMDUnlink(md->obj.mdh); /* its UNLINK event comes */
	}
	return rc;
}

/* The request with fresh ids (srpc_prepare_reply, srpc_prepare_bulk), encoded. */
static int
sft_crpc_build(struct sft_srv *s, struct sft_crpc *rpc, const struct sft_crpc_args *a)
{
	struct sft_msg *req = &rpc->res.req;
	int type = sft_service_request_type(a->svc);

	if (type < 0) {
		return -EINVAL;
	}
	*req = *a->req;
	req->version = SFT_MSG_VERSION;
	req->type = (uint32_t)type;
	req->body.rmsn_reqst.rpyid = sft_ids_next(&s->ids);
	rpc->rpyid = req->body.rmsn_reqst.rpyid;
	if (a->bulk != NULL) {
		rpc->bulkid = sft_ids_next(&s->ids);
		if (req->type == SFT_MSG_TEST_REQST) {
			req->body.test_reqst.bulkid = rpc->bulkid;
		} else if (req->type == SFT_MSG_BRW_REQST) {
			req->body.brw_reqst.bulkid = rpc->bulkid;
		} else {
			return -EINVAL; /* no other request carries a bulk */
		}
	}
	return sft_msg_encode(req, rpc->req_buf, sizeof(rpc->req_buf)) == 0 ? 0 : -EINVAL;
}

static uint64_t
sft_crpc_deadline(const struct sft_srv *s)
{
	uint32_t t = s->opts.rpc_timeout_s != 0 ? s->opts.rpc_timeout_s : SFT_RPC_TIMEOUT_S;

	return t == SFT_RPC_TIMEOUT_NEVER ? 0 : sft_srv_now(s) + (uint64_t)t * LNP_MS_PER_S;
}

int
sft_crpc_start(struct sft_srv *s, const struct sft_crpc_args *a, struct sft_crpc **out)
{
	struct sft_crpc *rpc;
	unsigned int i;
	int rc;

	if (s->stopping) {
		return -ESHUTDOWN;
	}
	rpc = calloc(1, sizeof(*rpc));
	if (rpc == NULL) {
		return -ENOMEM;
	}
	for (i = 0; i < SFT_CRPC_NMD; i++) {
		rpc->md[i].obj.kind = SFT_OBJ_CRPC;
		rpc->md[i].rpc = rpc;
		rpc->md[i].role = (enum sft_crpc_role)i;
	}
	rpc->svc = a->svc;
	rpc->dest = a->dest;
	rpc->has_bulk = a->bulk != NULL;
	rpc->done = a->done;
	rpc->res.arg = a->arg;
	rc = sft_crpc_build(s, rpc, a);
	if (rc == 0) {
		rc = sft_crpc_post(s, rpc, SFT_CRPC_REPLY, rpc->reply_buf, SFT_MSG_SIZE,
				   LNET_MD_OP_PUT, rpc->rpyid);
	}
	if (rc != 0) {
		free(rpc);
		return rc;
	}
	/* From here the RPC ends through its events, and done is called. */
	rpc->deadline_ms = sft_crpc_deadline(s);
	TAILQ_INSERT_TAIL(&s->crpcs, rpc, link);
	if (rpc->has_bulk) {
		rc = sft_crpc_post(s, rpc, SFT_CRPC_BULK, a->bulk, a->bulk_len,
				   a->bulk_sink ? LNET_MD_OP_PUT : LNET_MD_OP_GET, rpc->bulkid);
	}
	if (rc == 0) {
		rc = sft_crpc_send(s, rpc);
	}
	if (rc != 0) {
		sft_crpc_abort(s, rpc, rc);
	}
	if (out != NULL) {
		*out = rpc;
	}
	return 0;
}

const struct sft_crpc_result *
sft_crpc_result(const struct sft_crpc *rpc)
{
	return &rpc->res;
}

void
sft_crpc_expire(struct sft_srv *s, uint64_t now_ms)
{
	struct sft_crpc *rpc;

	/* One timeout for all: the list is in deadline order. */
	TAILQ_FOREACH(rpc, &s->crpcs, link) {
		if (rpc->deadline_ms == 0 || rpc->deadline_ms > now_ms) {
			break;
		}
		if (!rpc->aborted) {
			s->rpc.rpcs_expired++;
			sft_crpc_abort(s, rpc, -ETIMEDOUT);
		}
	}
}

uint64_t
sft_crpc_next_deadline(const struct sft_srv *s)
{
	const struct sft_crpc *rpc;

	TAILQ_FOREACH(rpc, &s->crpcs, link) {
		if (!rpc->aborted) {
			return rpc->deadline_ms;
		}
	}
	return 0;
}

void
sft_crpc_abort_all(struct sft_srv *s, int status)
{
	struct sft_crpc *rpc;

	TAILQ_FOREACH(rpc, &s->crpcs, link) {
		sft_crpc_abort(s, rpc, status);
	}
}
