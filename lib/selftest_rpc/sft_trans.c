/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Console transactions (sft_trans.h): lstcon_rpc_trans_postwait,
 * lstcon_rpc_trans_abort and lstcon_rpc_get_reply's rules on the engine's
 * client RPCs. A transaction ends when its last RPC does, whether it came
 * back or its abort (at the timeout) ended it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sft_srv_internal.h"
#include "sft_trans.h"

struct sft_trans {
	TAILQ_ENTRY(sft_trans) link; /* the engine's transactions */
	struct sft_sid sid;
	uint64_t deadline_ms;
	bool aborted;
	uint32_t n;
	uint32_t remaining;
	sft_trans_done_fn done;
	void *arg;
	struct sft_trans_stat stat;
	struct sft_trans_ent ents[];
};

/* lstcon_rpc_get_reply: a reply tells whose the node is now. */
static void
sft_trans_node_learn(const struct sft_trans *t, struct sft_trans_ent *e, uint64_t now_ms)
{
	const struct sft_sid *sid = &e->reply.body.rmsn_reply.sid; /* every framework reply's */

	e->node->stamp_ms = now_ms;
	if (e->status == -ETIMEDOUT) {
		e->node->state = SFT_NODE_DOWN;
	} else if (e->status != 0) {
		return; /* another failure says nothing of the node */
	} else if (sid->nid == SFT_SID_NID_NONE) {
		e->node->state = SFT_NODE_UNKNOWN;
	} else if (sft_sid_equal(sid, &t->sid)) {
		e->node->state = SFT_NODE_ACTIVE;
	} else {
		e->node->state = SFT_NODE_BUSY;
	}
}

/* lstcon_rpc_trans_stat's RPC counts. */
static void
sft_trans_count(struct sft_trans *t)
{
	uint32_t i;

	for (i = 0; i < t->n; i++) {
		t->stat.total++;
		if (t->ents[i].status == 0) {
			t->stat.success++;
			continue;
		}
		t->stat.failure++;
		if (t->stat.rpc_errno == 0) {
			t->stat.rpc_errno = -t->ents[i].status;
		}
	}
}

static void
sft_trans_finish(struct sft_srv *s, struct sft_trans *t)
{
	sft_trans_count(t);
	TAILQ_REMOVE(&s->transs, t, link);
	t->done(s, t, t->arg);
	free(t);
}

static void
sft_trans_rpc_done(struct sft_srv *s, struct sft_crpc *rpc)
{
	const struct sft_crpc_result *r = sft_crpc_result(rpc);
	struct sft_trans_ent *e = r->arg;
	struct sft_trans *t = e->trans;

	e->rpc = NULL;
	/* An RPC the transaction's timeout aborted timed out, whatever LNet said of it. */
	e->status = t->aborted && r->status != 0 ? -ETIMEDOUT : r->status;
	if (e->status == 0) {
		e->reply = r->reply;
	}
	sft_trans_node_learn(t, e, sft_srv_now(s));
	if (--t->remaining == 0) {
		sft_trans_finish(s, t);
	}
}

/* Post the RPC of entry @p e; a refused one ends at once with its error. */
static void
sft_trans_post(struct sft_srv *s, const struct sft_trans_args *a, struct sft_trans_ent *e)
{
	struct sft_crpc_args ca = {
		.svc = a->svc,
		.dest = e->node->id,
		.done = sft_trans_rpc_done,
		.arg = e,
	};
	struct sft_msg req;
	int rc;

	memset(&req, 0, sizeof(req));
	a->build(a->arg, e->node, &req, &ca.bulk, &ca.bulk_len, &ca.bulk_sink);
	ca.req = &req;
	rc = sft_crpc_start(s, &ca, &e->rpc);
	if (rc != 0) {
		e->rpc = NULL;
		e->status = rc;
		e->trans->remaining--;
	}
}

int
sft_trans_start(struct sft_srv *s, const struct sft_trans_args *a)
{
	uint32_t timeout_s = a->timeout_s != 0 ? a->timeout_s : SFT_TRANS_TIMEOUT_S;
	struct sft_trans *t;
	uint32_t i;

	if (s->stopping) {
		return -ESHUTDOWN;
	}
	t = calloc(1, sizeof(*t) + a->nnodes * sizeof(t->ents[0]));
	if (t == NULL) {
		return -ENOMEM;
	}
	if (timeout_s < SFT_TRANS_MIN_TIMEOUT_S) {
		timeout_s = SFT_TRANS_MIN_TIMEOUT_S;
	}
	t->sid = a->sid;
	t->deadline_ms = sft_srv_now(s) + (uint64_t)timeout_s * LNP_MS_PER_S;
	t->n = a->nnodes;
	t->remaining = a->nnodes + 1; /* one for the posting, dropped below */
	t->done = a->done;
	t->arg = a->arg;
	TAILQ_INSERT_TAIL(&s->transs, t, link);
	for (i = 0; i < a->nnodes; i++) {
		t->ents[i].trans = t;
		t->ents[i].node = a->nodes[i];
		sft_trans_post(s, a, &t->ents[i]);
	}
	/* Every RPC may have ended already (refused); the posting's share goes last. */
	if (--t->remaining == 0) {
		sft_trans_finish(s, t);
	}
	return 0;
}

/* lstcon_rpc_trans_abort at the timeout: what is still out is aborted. */
static void
sft_trans_abort(struct sft_srv *s, struct sft_trans *t)
{
	uint32_t i;

	t->aborted = true;
	for (i = 0; i < t->n; i++) {
		if (t->ents[i].rpc != NULL) {
			sft_crpc_abort(s, t->ents[i].rpc, -ETIMEDOUT);
		}
	}
}

void
sft_trans_expire(struct sft_srv *s, uint64_t now_ms)
{
	struct sft_trans *t;

	/* Few, each with its own timeout: all are looked at. */
	TAILQ_FOREACH(t, &s->transs, link) {
		if (t->deadline_ms <= now_ms && !t->aborted) {
			sft_trans_abort(s, t);
		}
	}
}

uint64_t
sft_trans_next_deadline(const struct sft_srv *s)
{
	const struct sft_trans *t;
	uint64_t due = 0;

	TAILQ_FOREACH(t, &s->transs, link) {
		if (!t->aborted && (due == 0 || t->deadline_ms < due)) {
			due = t->deadline_ms;
		}
	}
	return due;
}

const struct sft_trans_ent *
sft_trans_ents(const struct sft_trans *t, uint32_t *n)
{
	*n = t->n;
	return t->ents;
}

const struct sft_trans_stat *
sft_trans_stat(const struct sft_trans *t)
{
	return &t->stat;
}
