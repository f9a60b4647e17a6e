/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test clients: when a batch runs, each client test of it runs concur
 * units per destination (2.17's sfw_test_unit), each doing its RPCs one
 * after another, loop times (a loop above INT32_MAX, lst's -1, until the
 * batch stops), as sfw_run_test and sfw_test_rpc_done do. brw units move
 * their bulk with the check pattern (brw_client_prep_rpc, done_rpc), ping
 * units count a per-node sequence (ping_client_prep_rpc, done_rpc); failed
 * RPCs count as the session's brw_errors or ping_errors unless the test
 * was stopping.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cfs_nid.h"
#include "sft_srv_internal.h"

struct sft_unit {
	struct sft_fw_test *t;
	struct lnet_processid dest;
	int32_t loop;         /* left; negative: until stopped */
	struct sft_crpc *rpc; /* in flight, or NULL */
	uint8_t *bulk;        /* brw: whole pages holding [off, off + len) */
};

/* What the engine keeps for a client test from its start to its end. */
struct sft_cli_test {
	uint32_t nunits;
	uint32_t rw;    /* brw: enum sft_brw_rw */
	uint32_t flags; /* brw: enum sft_brw_check */
	uint32_t len;
	uint32_t off; /* brw: the bulk's offset in its first page */
	struct sft_unit units[];
};

/* The brw parameters of @p t as its session's features read them (brw_client_prep_rpc). */
static void
sft_cli_brw_params(const struct sft_fw_test *t, struct sft_cli_test *ct)
{
	if (sft_test_params_view(SFT_SVC_BRW, t->feats) == SFT_TPARAMS_BULK_V0) {
		ct->rw = t->params.bulk_v0.opc;
		ct->flags = t->params.bulk_v0.flags;
		ct->len = t->params.bulk_v0.npg * SFT_BRW_PAGE_SIZE;
		ct->off = 0;
	} else {
		ct->rw = t->params.bulk_v1.opc;
		ct->flags = t->params.bulk_v1.flags;
		ct->len = t->params.bulk_v1.len;
		ct->off = t->params.bulk_v1.offset % SFT_BRW_PAGE_SIZE;
	}
}

static void
sft_cli_wall_clock(const struct sft_srv *s, uint64_t *sec, uint64_t *nsec)
{
	struct timespec ts;

	if (s->opts.wall_clock != NULL) {
		s->opts.wall_clock(s->opts.clock_ctx, sec, nsec);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	*sec = (uint64_t)ts.tv_sec;
	*nsec = (uint64_t)ts.tv_nsec;
}

static void sft_cli_unit_run(struct sft_srv *s, struct sft_unit *u);

/* brw_client_done_rpc / ping_client_done_rpc: 0, or the RPC's error. */
static int
sft_cli_rpc_status(const struct sft_cli_test *ct, const struct sft_unit *u,
		   const struct sft_crpc_result *r)
{
	size_t bad;

	if (r->status != 0) {
		return r->status;
	}
	if (u->t->service == SFT_SVC_PING) {
		/* The ping client reads no status: magic and sequence only. */
		return r->reply.body.ping_reply.magic == SFT_PING_MAGIC &&
				       r->reply.body.ping_reply.seq == r->req.body.ping_reqst.seq ?
			       0 :
			       -EBADMSG;
	}
	if (r->reply.body.brw_reply.status != 0) {
		return -(int)r->reply.body.brw_reply.status;
	}
	if (ct->rw == SFT_BRW_READ &&
	    sft_brw_check(u->bulk, sft_brw_npages(ct->off, ct->len) * SFT_BRW_PAGE_SIZE, ct->off,
			  ct->len, ct->flags, SFT_BRW_MAGIC, r->reply.swabbed, &bad) != 0) {
		return -EBADMSG;
	}
	return 0;
}

/* sfw_test_rpc_done: count, then the unit's next RPC or its end. */
static void
sft_cli_rpc_done(struct sft_srv *s, struct sft_crpc *rpc)
{
	const struct sft_crpc_result *r = sft_crpc_result(rpc);
	struct sft_unit *u = r->arg;
	struct sft_fw_test *t = u->t;
	int status = sft_cli_rpc_status(t->priv, u, r);

	u->rpc = NULL;
	if (status != 0 && !t->stopping) {
		sft_fw_count_error(t);
	}
	if (t->stopping || u->loop == 0 || (status != 0 && t->stop_onerr)) {
		sft_fw_unit_done(&s->fw, t); /* t may be gone now */
		return;
	}
	sft_cli_unit_run(s, u);
}

/* The unit's next request (brw_client_prep_rpc, ping_client_prep_rpc). */
static void
sft_cli_unit_request(struct sft_srv *s, struct sft_unit *u, struct sft_crpc_args *a,
		     struct sft_msg *req)
{
	const struct sft_cli_test *ct = u->t->priv;

	memset(req, 0, sizeof(*req));
	req->ses_feats = u->t->feats;
	a->svc = u->t->service;
	a->dest = u->dest;
	a->req = req;
	a->done = sft_cli_rpc_done;
	a->arg = u;
	if (u->t->service == SFT_SVC_PING) {
		req->body.ping_reqst.magic = SFT_PING_MAGIC;
		req->body.ping_reqst.seq = s->ping_seq++;
		sft_cli_wall_clock(s, &req->body.ping_reqst.time_sec,
				   &req->body.ping_reqst.time_nsec);
		return;
	}
	req->body.brw_reqst.rw = ct->rw;
	req->body.brw_reqst.len = ct->len;
	req->body.brw_reqst.flags = ct->flags;
	/* WRITE: the data for the server to GET; READ: poison it PUTs over. */
	sft_brw_fill(u->bulk, sft_brw_npages(ct->off, ct->len) * SFT_BRW_PAGE_SIZE, ct->off,
		     ct->len, ct->flags, ct->rw == SFT_BRW_WRITE ? SFT_BRW_MAGIC : SFT_BRW_POISON);
	a->bulk = u->bulk + ct->off;
	a->bulk_len = ct->len;
	a->bulk_sink = ct->rw == SFT_BRW_READ;
}

/* sfw_run_test: one RPC of the unit, or its end when stopping or it cannot start. */
static void
sft_cli_unit_run(struct sft_srv *s, struct sft_unit *u)
{
	struct sft_crpc_args a = { 0 };
	struct sft_msg req;

	if (u->t->stopping) {
		sft_fw_unit_done(&s->fw, u->t);
		return;
	}
	sft_cli_unit_request(s, u, &a, &req);
	if (u->loop > 0) {
		u->loop--;
	}
	if (sft_crpc_start(s, &a, &u->rpc) != 0) {
		s->stats.nomem++;
		sft_fw_unit_done(&s->fw, u->t);
	}
}

/* The units of @p t, each with its destination (concur per destination) and bulk. */
static struct sft_cli_test *
sft_cli_test_new(struct sft_fw_test *t)
{
	uint32_t n = t->ndest * t->concur;
	struct sft_cli_test *ct = calloc(1, sizeof(*ct) + n * sizeof(ct->units[0]));
	uint32_t i;

	if (ct == NULL) {
		return NULL;
	}
	ct->nunits = n;
	if (t->service == SFT_SVC_BRW) {
		sft_cli_brw_params(t, ct);
	}
	for (i = 0; i < n; i++) {
		struct sft_unit *u = &ct->units[i];

		u->t = t;
		u->dest.pid = t->dests[i / t->concur].pid;
		lnet_nid4_to_nid(t->dests[i / t->concur].nid, &u->dest.nid);
		u->loop = (int32_t)t->loop;
		if (t->service == SFT_SVC_BRW) {
			u->bulk =
				aligned_alloc(SFT_BRW_PAGE_SIZE,
					      sft_brw_npages(ct->off, ct->len) * SFT_BRW_PAGE_SIZE);
			if (u->bulk == NULL) {
				t->priv = ct;
				sft_cli_test_gone(NULL, t);
				return NULL;
			}
		}
	}
	return ct;
}

void
sft_cli_test_start(void *ctx, struct sft_fw_test *t)
{
	struct sft_srv *s = ctx;
	struct sft_cli_test *ct = t->priv;
	uint32_t i;

	if (ct == NULL) {
		ct = sft_cli_test_new(t);
		t->priv = ct;
	}
	if (ct == NULL) {
		/* No memory for its units: each ends at once, as a unit that cannot prepare. */
		s->stats.nomem++;
		for (i = t->nactive; i > 0; i--) {
			sft_fw_unit_done(&s->fw, t);
		}
		return;
	}
	for (i = 0; i < ct->nunits; i++) {
		ct->units[i].loop = (int32_t)t->loop;
		sft_cli_unit_run(s, &ct->units[i]);
	}
}

void
sft_cli_test_abort(void *ctx, struct sft_fw_test *t)
{
	struct sft_srv *s = ctx;
	struct sft_cli_test *ct = t->priv;
	uint32_t i;

	for (i = 0; ct != NULL && i < ct->nunits; i++) {
		if (ct->units[i].rpc != NULL) {
			sft_crpc_abort(s, ct->units[i].rpc, -EINTR);
		}
	}
}

void
sft_cli_test_gone(struct sft_srv *s, struct sft_fw_test *t)
{
	struct sft_cli_test *ct = t->priv;
	uint32_t i;

	(void)s;
	if (ct == NULL) {
		return;
	}
	for (i = 0; i < ct->nunits; i++) {
		free(ct->units[i].bulk);
	}
	free(ct);
	t->priv = NULL;
}
