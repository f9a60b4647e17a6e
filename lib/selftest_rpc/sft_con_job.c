/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The console's commands that send RPCs (2.17's lstcon_rpc_trans_ndlist
 * and its callers in console.c), and its pinger (lstcon_rpc_pinger). A job
 * picks its nodes by the kernel's condition for the operation (skipping
 * some; a node not ACTIVE where the operation needs it refuses the whole
 * command with -ENETDOWN before any RPC), runs one transaction over them
 * (two for add_test: the servers, then the clients), counts the replies
 * as lstcon_rpc_stat_reply does, applies what the command changes in the
 * console, and hands the result to the requester.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cfs_nid.h"
#include "sft_con_internal.h"

/* The kernel's transaction operations (LST_TRANS_*). */
enum sft_con_transop {
	TOP_NONE,
	TOP_SESNEW,
	TOP_SESEND,
	TOP_SESQRY,
	TOP_TSBSRVADD,
	TOP_TSBCLIADD,
	TOP_TSBRUN,
	TOP_TSBSTOP,
	TOP_TSBQRY,
	TOP_STATQRY,
};

struct sft_con_job {
	struct sft_con *con;
	struct sft_con_req rq;
	struct lnet_processid *ids; /* rq.ids, copied */
	sft_con_done_fn done;
	void *arg;
	enum sft_con_transop top;
	struct sft_con_node **targets; /* each referenced by the job */
	uint32_t ntargets;
	uint32_t cap;
	uint32_t built; /* requests built so far: the next target's place */
	uint8_t *dests; /* TSBCLIADD: each client's destination list */
	uint32_t dests_len;
	uint32_t feats; /* the transaction's features (tas_features) */
	bool feats_updated;
	struct sft_con_group *grp;
	struct sft_con_batch *bat;
	struct sft_con_test *test;
	struct sft_con_ent *ents;
	struct sft_con_result res;
};

static uint32_t
sft_con_top_svc(enum sft_con_transop top)
{
	switch (top) {
	case TOP_SESNEW:
		return SFT_SVC_MAKE_SESSION;
	case TOP_SESEND:
		return SFT_SVC_REMOVE_SESSION;
	case TOP_SESQRY:
		return SFT_SVC_DEBUG;
	case TOP_TSBSRVADD:
	case TOP_TSBCLIADD:
		return SFT_SVC_TEST;
	case TOP_STATQRY:
		return SFT_SVC_QUERY_STAT;
	default:
		return SFT_SVC_BATCH;
	}
}

/* lstcon_rpc_get_reply: whose session a reply says the node is in. */
static void
sft_con_learn(const struct sft_con *c, struct sft_con_node *nd, const struct sft_sid *sid,
	      uint64_t now_ms)
{
	nd->n.stamp_ms = now_ms;
	if (sid->nid == SFT_SID_NID_NONE) {
		nd->n.state = SFT_NODE_UNKNOWN;
	} else if (c != NULL && sft_sid_equal(sid, &c->sid)) {
		nd->n.state = SFT_NODE_ACTIVE;
	} else {
		nd->n.state = SFT_NODE_BUSY;
	}
}

/* ---- the job's nodes ---- */

static int
sft_con_job_target(struct sft_con_job *j, struct sft_con_node *nd)
{
	struct sft_con_node **v;

	if (j->ntargets == j->cap) {
		v = realloc(j->targets, (j->cap * 2 + 4) * sizeof(*v));
		if (v == NULL) {
			return -ENOMEM;
		}
		j->targets = v;
		j->cap = j->cap * 2 + 4;
	}
	nd->ref++;
	j->targets[j->ntargets++] = nd;
	return 0;
}

/* The same id given twice is asked once. */
static bool
sft_con_job_has(const struct sft_con_job *j, const struct sft_con_node *nd)
{
	uint32_t i;

	for (i = 0; i < j->ntargets; i++) {
		if (j->targets[i] == nd) {
			return true;
		}
	}
	return false;
}

/*
 * lstcon_*rpc_condition: 1 to send to @p nd, 0 to skip it, -ENETDOWN when
 * the operation needs every node ACTIVE. @p grp_op: the session ops of a
 * group (del, remove), which spare a node another list still holds.
 */
static int
sft_con_condition(struct sft_con_job *j, const struct sft_con_node *nd, bool grp_op)
{
	bool active = nd->n.state == SFT_NODE_ACTIVE;

	switch (j->top) {
	case TOP_SESNEW:
		return active ? 0 : 1;
	case TOP_SESEND:
		return active && !(grp_op && nd->ref > 1) ? 1 : 0;
	case TOP_TSBSRVADD:
	case TOP_TSBCLIADD:
	case TOP_TSBRUN:
		return active ? 1 : -ENETDOWN;
	case TOP_TSBSTOP:
		return active ? 1 : 0;
	default:
		return 1;
	}
}

/* Add the nodes of @p l that the condition wants; 0 or its -errno. */
static int
sft_con_job_targets(struct sft_con_job *j, const struct sft_con_list *l, bool grp_op)
{
	uint32_t i;
	int rc;

	for (i = 0; i < l->n; i++) {
		rc = sft_con_condition(j, l->v[i], grp_op);
		if (rc < 0) {
			return rc;
		}
		if (rc == 0) {
			continue;
		}
		rc = sft_con_job_target(j, l->v[i]);
		if (rc != 0) {
			return rc;
		}
	}
	return 0;
}

static void
sft_con_job_release_targets(struct sft_con_job *j)
{
	uint32_t i;

	for (i = 0; i < j->ntargets; i++) {
		sft_con_node_put(j->targets[i]);
	}
	j->ntargets = 0;
	j->built = 0;
	free(j->dests);
	j->dests = NULL;
	free(j->ents);
	j->ents = NULL;
}

/* ---- the requests ---- */

static void
sft_con_test_params(const struct sft_con_job *j, bool client, struct sft_test_reqst *trq)
{
	const struct sft_con_test_args *a = &j->test->args;

	if (a->type == SFT_CON_TEST_PING) {
		trq->service = SFT_SVC_PING; /* lst gives no ping parameters: size and flags 0 */
		return;
	}
	trq->service = SFT_SVC_BRW;
	if ((j->feats & SFT_FEAT_BULK_LEN) == 0) {
		trq->params.bulk_v0.opc = a->brw_opc;
		trq->params.bulk_v0.npg = (a->brw_size + 4095u) / 4096u;
		trq->params.bulk_v0.flags = a->brw_check;
		return;
	}
	trq->params.bulk_v1.opc = (uint16_t)a->brw_opc;
	trq->params.bulk_v1.flags = (uint16_t)a->brw_check;
	trq->params.bulk_v1.len = a->brw_size;
	trq->params.bulk_v1.offset = client ? a->brw_cli_off : a->brw_srv_off;
}

/* lstcon_dstnodes_prep: client @p idx gets span destinations of the --to group, from its share on. */
static void
sft_con_dests(const struct sft_con_test *t, uint32_t idx, uint8_t *buf, uint32_t len)
{
	const struct sft_con_list *dst = &t->dst->nodes;
	uint32_t span = t->args.span;
	uint32_t start = ((idx / t->args.dist) * span) % dst->n;
	struct sft_dest d;
	uint32_t k;

	memset(buf, 0, len);
	for (k = 0; k < span; k++) {
		const struct sft_con_node *nd = dst->v[(start + k) % dst->n];

		d.nid = lnet_nid_to_nid4(&nd->n.id.nid);
		d.pid = nd->n.id.pid;
		sft_dests_encode(&d, 1, buf + k * SFT_DEST_SIZE, SFT_DEST_SIZE);
	}
}

/* lstcon_testrpc_prep's request fields. */
static void
sft_con_build_test(struct sft_con_job *j, uint32_t place, struct sft_msg *req, void **bulk,
		   uint32_t *bulk_len, bool *bulk_sink)
{
	struct sft_test_reqst *trq = &req->body.test_reqst;
	const struct sft_con_test *t = j->test;
	uint32_t nsrc = t->src->nodes.n, ndst = t->dst->nodes.n;
	bool client = j->top == TOP_TSBCLIADD;

	trq->sid = j->con->sid;
	trq->bid = j->bat->id;
	trq->concur = t->args.concur;
	trq->is_client = client;
	trq->stop_onerr = 1; /* the kernel's console always asks it */
	sft_con_test_params(j, client, trq);
	if (!client) {
		uint32_t ndist = (nsrc + t->args.dist - 1) / t->args.dist;
		uint32_t nspan = (ndst + t->args.span - 1) / t->args.span;
		uint32_t nmax = (ndist + nspan - 1) / nspan;

		trq->ndest = 0;
		trq->loop = nmax * t->args.dist * t->args.concur; /* the buffers the server needs */
		return;
	}
	trq->ndest = t->args.span;
	trq->loop = (uint32_t)t->args.loop;
	*bulk = j->dests + (size_t)place * j->dests_len;
	*bulk_len = j->dests_len;
	*bulk_sink = false;
}

static void
sft_con_build(void *arg, const struct sft_node *node, struct sft_msg *req, void **bulk,
	      uint32_t *bulk_len, bool *bulk_sink)
{
	struct sft_con_job *j = arg;
	struct sft_con *c = j->con;
	uint32_t place = j->built++;

	(void)node;
	req->ses_feats = j->feats;
	switch (j->top) {
	case TOP_SESNEW:
		req->body.mksn_reqst.sid = c->sid;
		req->body.mksn_reqst.force = c->force;
		memcpy(req->body.mksn_reqst.name, c->name, SFT_NAME_SIZE);
		break;
	case TOP_SESEND:
		req->body.rmsn_reqst.sid = c->sid;
		break;
	case TOP_SESQRY:
		req->body.debug_reqst.sid = c->sid;
		break;
	case TOP_TSBSRVADD:
	case TOP_TSBCLIADD:
		sft_con_build_test(j, place, req, bulk, bulk_len, bulk_sink);
		break;
	case TOP_STATQRY:
		req->body.stat_reqst.sid = c->sid;
		break;
	default:
		req->body.batch_reqst.sid = c->sid;
		req->body.batch_reqst.bid = j->bat->id;
		req->body.batch_reqst.testidx = j->top == TOP_TSBQRY ? j->rq.arg : 0;
		req->body.batch_reqst.opc = j->top == TOP_TSBRUN  ? SFT_BATCH_RUN :
					    j->top == TOP_TSBSTOP ? SFT_BATCH_STOP :
								    SFT_BATCH_QUERY;
		if (j->top != TOP_TSBQRY) {
			req->body.batch_reqst.arg = j->bat->arg;
		}
		break;
	}
}

/* ---- the replies ---- */

/* lstcon_sesnew_stat_reply: the node's features must be the transaction's. */
static uint32_t
sft_con_sesnew_status(struct sft_con_job *j, struct sft_con_node *nd, const struct sft_msg *rep)
{
	uint32_t status = rep->body.mksn_reply.status;

	if (status == 0 && (rep->ses_feats & ~SFT_FEATS_MASK) != 0) {
		status = SFT_STATUS_EPROTO;
	}
	if (status != 0) {
		return status;
	}
	if (!j->feats_updated) {
		j->feats_updated = true;
		j->feats = rep->ses_feats;
	}
	if (rep->ses_feats != j->feats) {
		return SFT_STATUS_EPROTO;
	}
	nd->timeout_s = rep->body.mksn_reply.timeout;
	return 0;
}

/* lstcon_rpc_stat_reply: what one reply counts for, by operation; its error or 0. */
static uint32_t
sft_con_stat_reply(struct sft_con_job *j, struct sft_con_node *nd, const struct sft_msg *rep,
		   struct sft_con_tstat *st)
{
	uint32_t status = rep->body.rmsn_reply.status; /* where every framework reply has it */

	switch (j->top) {
	case TOP_SESNEW:
		status = sft_con_sesnew_status(j, nd, rep);
		st->fwk[status == 0 ? 0 : 1]++;
		return status;
	case TOP_SESEND:
		/* ESRCH is not an error for end session */
		if (status == 0 || status == SFT_STATUS_ESRCH) {
			st->fwk[0]++;
			return 0;
		}
		st->fwk[1]++;
		return status;
	case TOP_SESQRY:
		if (status == SFT_STATUS_ESRCH) {
			st->fwk[2]++;
		} else {
			st->fwk[sft_sid_equal(&rep->body.debug_reply.sid, &j->con->sid) ? 0 : 1]++;
		}
		return 0;
	case TOP_TSBQRY:
		st->fwk[rep->body.batch_reply.active != 0 ? 0 : 1]++;
		if (status != 0) {
			st->fwk[2]++;
		}
		return status;
	case TOP_TSBSTOP:
		if (status == 1 /* EPERM: nothing to stop */) {
			status = 0;
		}
		/* fallthrough */
	default: /* run, test add, stat: [0] success, [1] failure */
		st->fwk[status == 0 ? 0 : 1]++;
		return status;
	}
}

/* lstcon_rpc_trans_stat and lstcon_rpc_trans_interpreter: the counts and an entry per RPC. */
static int
sft_con_job_read(struct sft_con_job *j, const struct sft_trans *t)
{
	const struct sft_trans_ent *te;
	struct sft_con_tstat *st = &j->res.stat;
	uint32_t i, n, status;

	te = sft_trans_ents(t, &n);
	j->ents = calloc(n + 1, sizeof(*j->ents));
	if (j->ents == NULL) {
		return -ENOMEM;
	}
	memset(st, 0, sizeof(*st));
	st->rpc = *sft_trans_stat(t);
	for (i = 0; i < n; i++) {
		struct sft_con_node *nd = (struct sft_con_node *)te[i].node;
		struct sft_con_ent *e = &j->ents[i];

		e->id = nd->n.id;
		e->rpc_errno = te[i].status;
		if (te[i].status == 0) {
			e->reply = te[i].reply;
			status = sft_con_stat_reply(j, nd, &te[i].reply, st);
			e->fwk_errno =
				j->top == TOP_SESNEW ? status : te[i].reply.body.rmsn_reply.status;
			if (st->fwk_errno == 0 && status != 0) {
				st->fwk_errno = status;
			}
		}
		e->state = nd->n.state;
	}
	j->res.ents = j->ents;
	j->res.nents = n;
	return 0;
}

/* ---- running a job ---- */

static void sft_con_job_trans_done(struct sft_srv *s, struct sft_trans *t, void *arg);

/* Start the transaction of the job's targets; its end goes on in sft_con_job_trans_done. */
static int
sft_con_job_post(struct sft_con_job *j, uint32_t timeout_s)
{
	struct sft_node **nodes = calloc(j->ntargets + 1, sizeof(*nodes));
	struct sft_trans_args a = {
		.svc = sft_con_top_svc(j->top),
		.sid = j->con->sid,
		.nodes = nodes,
		.nnodes = j->ntargets,
		.timeout_s = timeout_s,
		.build = sft_con_build,
		.done = sft_con_job_trans_done,
		.arg = j,
	};
	uint32_t i;
	int rc;

	if (nodes == NULL) {
		return -ENOMEM;
	}
	for (i = 0; i < j->ntargets; i++) {
		nodes[i] = &j->targets[i]->n;
	}
	j->feats = j->con->feats;
	j->feats_updated = false;
	rc = sft_trans_start(j->con->srv, &a);
	free(nodes);
	return rc;
}

/* A timeout the user gave (query, stat, ping): below the floor is the floor (sft_trans). */
static uint32_t
sft_con_user_timeout(int32_t timeout_s)
{
	return timeout_s <= 0 ? 1u : (uint32_t)timeout_s;
}

static void
sft_con_job_end(struct sft_con_job *j, int rc)
{
	struct sft_con *c = j->con;

	j->res.rc = rc;
	c->job = NULL;
	j->done(j->arg, &j->res);
	sft_con_job_release_targets(j);
	free(j->targets);
	free(j->ids);
	free(j);
	if (c->destroyed) {
		free(c);
	}
}

static int sft_con_job_begin(struct sft_con_job *j);

/* The ends of the commands, once their transaction ended: what they change in the console. */

static void
sft_con_nodes_added(struct sft_con_job *j)
{
	uint32_t i;

	j->res.feats = j->feats;
	/* lstcon_session_feats_check */
	if (j->res.stat.fwk_errno == 0) {
		if (!j->con->feats_updated) {
			j->con->feats_updated = true;
			j->con->feats = j->feats;
		} else if (j->con->feats != j->feats) {
			j->res.stat.fwk_errno = SFT_STATUS_EPROTO;
		}
	}
	if (j->rq.op != SFT_CON_NODES_ADD) {
		return;
	}
	/* Every node asked joins the group, whatever its answer (lstcon_group_move). */
	for (i = 0; i < j->rq.nids; i++) {
		struct sft_con_node *nd = sft_con_node_find(j->con, &j->ids[i], false);

		if (nd != NULL) {
			sft_con_list_add(&j->grp->nodes, nd);
			sft_con_node_put(nd);
		}
	}
}

static int
sft_con_test_added(struct sft_con_job *j)
{
	const struct sft_con_tstat *st = &j->res.stat;

	if (j->top == TOP_TSBSRVADD && st->rpc.rpc_errno == 0 && st->fwk_errno == 0) {
		/* The servers are ready: now the clients. */
		sft_con_job_release_targets(j);
		j->top = TOP_TSBCLIADD;
		j->test->cliidx = 0;
		return sft_con_job_begin(j);
	}
	/* Added even when some node refused, so the user can see what went on. */
	TAILQ_INSERT_TAIL(&j->bat->tests, j->test, link);
	j->test->idx = ++j->bat->ntest;
	j->test = NULL;
	return 0;
}

/* Returns 1 when the job goes on with another transaction. */
static int
sft_con_job_apply(struct sft_con_job *j)
{
	struct sft_con *c = j->con;
	const struct sft_con_tstat *st = &j->res.stat;
	int rc;

	switch (j->rq.op) {
	case SFT_CON_SESSION_NEW:
		sft_con_session_clear(c);
		return sft_con_session_make(c, &j->rq);
	case SFT_CON_SESSION_END:
		sft_con_session_clear(c);
		return 0;
	case SFT_CON_NODES_ADD:
	case SFT_CON_GROUP_REFRESH:
		sft_con_nodes_added(j);
		return 0;
	case SFT_CON_NODES_REMOVE:
		if (j->grp->nodes.n == 0) {
			sft_con_group_free(c, j->grp);
		}
		return 0;
	case SFT_CON_GROUP_DEL:
		sft_con_group_free(c, j->grp);
		return 0;
	case SFT_CON_TEST_ADD:
		rc = sft_con_test_added(j);
		return rc == 0 && j->test != NULL ? 1 : rc;
	case SFT_CON_BATCH_RUN:
		if (st->fwk[0] != 0) { /* it started on some node */
			j->bat->state = SFT_CON_BATCH_RUNNING;
		}
		return 0;
	case SFT_CON_BATCH_STOP:
		if (st->fwk[1] == 0) {
			j->bat->state = SFT_CON_BATCH_IDLE;
		}
		return 0;
	case SFT_CON_BATCH_QUERY:
		if (j->rq.arg == 0 && st->rpc.failure == 0 && st->fwk[0] == 0) {
			j->bat->state = SFT_CON_BATCH_IDLE;
		}
		return 0;
	default:
		return 0;
	}
}

static void
sft_con_job_trans_done(struct sft_srv *s, struct sft_trans *t, void *arg)
{
	struct sft_con_job *j = arg;
	int rc;

	(void)s;
	rc = sft_con_job_read(j, t);
	if (rc == 0 && !j->con->destroyed) {
		rc = sft_con_job_apply(j);
	}
	if (rc == 1) {
		return; /* the next transaction is out */
	}
	if (j->test != NULL && (rc != 0 || j->rq.op != SFT_CON_TEST_ADD)) {
		j->test->src->ref--;
		j->test->dst->ref--;
		free(j->test);
		j->test = NULL;
	}
	sft_con_job_end(j, rc);
}

/* ---- choosing the nodes of each command ---- */

static int
sft_con_job_ids(struct sft_con_job *j, bool create)
{
	uint32_t i;

	for (i = 0; i < j->rq.nids; i++) {
		struct sft_con_node *nd = sft_con_node_find(j->con, &j->ids[i], create);
		int rc;

		if (nd == NULL) {
			if (create) {
				return -ENOMEM;
			}
			continue;
		}
		rc = sft_con_condition(j, nd, false) > 0 ? sft_con_job_target(j, nd) : 0;
		sft_con_node_put(nd);
		if (rc != 0) {
			return rc;
		}
	}
	return 0;
}

/* A group a command changes: it must exist and no test may name it. */
static int
sft_con_job_group(struct sft_con_job *j)
{
	j->grp = sft_con_group_find(j->con, j->rq.name);
	if (j->grp == NULL) {
		return -ENOENT;
	}
	return j->grp->ref > 0 ? -EBUSY : 0;
}

static int
sft_con_nodes_add_targets(struct sft_con_job *j)
{
	uint32_t i;
	int rc;

	rc = sft_con_job_group(j);
	for (i = 0; rc == 0 && i < j->rq.nids; i++) {
		struct sft_con_node *nd = sft_con_node_find(j->con, &j->ids[i], true);

		if (nd == NULL) {
			return -ENOMEM;
		}
		/* One already in the group is skipped, and an ACTIVE one needs no MKSN. */
		if (!sft_con_list_has(&j->grp->nodes, nd) && sft_con_condition(j, nd, false) > 0) {
			rc = sft_con_job_has(j, nd) ? 0 : sft_con_job_target(j, nd);
		}
		sft_con_node_put(nd);
	}
	return rc;
}

/* lstcon_group_nodes_remove: out of the group first, then RMSN to those no one else holds. */
static int
sft_con_nodes_remove_targets(struct sft_con_job *j)
{
	uint32_t i, k;
	int rc = sft_con_job_group(j);

	for (i = 0; rc == 0 && i < j->rq.nids; i++) {
		for (k = 0; k < j->grp->nodes.n; k++) {
			struct sft_con_node *nd = j->grp->nodes.v[k];

			if (!lnet_nid_same(&nd->n.id.nid, &j->ids[i].nid) ||
			    nd->n.id.pid != j->ids[i].pid) {
				continue;
			}
			nd->ref++; /* held across its removal */
			sft_con_list_del(&j->grp->nodes, k);
			if (sft_con_condition(j, nd, true) > 0) {
				rc = sft_con_job_target(j, nd);
			}
			sft_con_node_put(nd);
			break;
		}
	}
	return rc;
}

static int
sft_con_test_add_check(struct sft_con_job *j)
{
	const struct sft_con_test_args *a = &j->rq.test;
	struct sft_con_group *g[2];
	uint32_t i, k;

	if (a->loop == 0 || a->concur == 0 || a->dist == 0 || a->span == 0) {
		return -EINVAL;
	}
	j->bat = sft_con_batch_find(j->con, a->batch);
	if (j->bat == NULL) {
		return -ENOENT;
	}
	if (j->bat->state != SFT_CON_BATCH_IDLE) {
		return -EINVAL;
	}
	g[0] = sft_con_group_find(j->con, a->src);
	g[1] = sft_con_group_find(j->con, a->dst);
	/* lstcon_verify_group: each exists and has an ACTIVE node */
	for (k = 0; k < 2; k++) {
		bool active = false;

		if (g[k] == NULL) {
			return -ENOENT;
		}
		for (i = 0; i < g[k]->nodes.n; i++) {
			active |= g[k]->nodes.v[i]->n.state == SFT_NODE_ACTIVE;
		}
		if (!active) {
			return -EINVAL;
		}
	}
	if (a->span > g[1]->nodes.n) {
		return -EINVAL; /* lstcon_dstnodes_prep */
	}
	j->test = calloc(1, sizeof(*j->test));
	if (j->test == NULL) {
		return -ENOMEM;
	}
	j->test->args = *a;
	j->test->src = g[0];
	j->test->dst = g[1];
	g[0]->ref++;
	g[1]->ref++;
	return 0;
}

/* The test's nodes of this phase, each also listed in its batch's servers or clients. */
static int
sft_con_test_targets(struct sft_con_job *j)
{
	bool client = j->top == TOP_TSBCLIADD;
	const struct sft_con_list *l = client ? &j->test->src->nodes : &j->test->dst->nodes;
	int rc = sft_con_job_targets(j, l, false);
	uint32_t i;

	for (i = 0; rc == 0 && i < j->ntargets; i++) {
		rc = sft_con_list_add(client ? &j->bat->cli : &j->bat->srv, j->targets[i]);
	}
	if (rc != 0 || !client) {
		return rc;
	}
	j->dests_len = (j->con->feats & SFT_FEAT_BULK_LEN) != 0 ?
			       j->test->args.span * SFT_DEST_SIZE :
			       ((j->test->args.span * SFT_DEST_SIZE + 4095u) / 4096u) * 4096u;
	j->dests = calloc(j->ntargets + 1, j->dests_len);
	if (j->dests == NULL) {
		return -ENOMEM;
	}
	for (i = 0; i < j->ntargets; i++) {
		sft_con_dests(j->test, j->test->cliidx++, j->dests + (size_t)i * j->dests_len,
			      j->dests_len);
	}
	return 0;
}

static int
sft_con_batch_targets(struct sft_con_job *j)
{
	struct sft_con_test *t;

	j->bat = sft_con_batch_find(j->con, j->rq.name);
	if (j->bat == NULL) {
		return -ENOENT;
	}
	if (j->top == TOP_TSBRUN || j->top == TOP_TSBSTOP) {
		j->bat->arg = j->rq.arg;
	}
	if (j->top != TOP_TSBQRY || j->rq.arg == 0) {
		return sft_con_job_targets(j, &j->bat->cli, false);
	}
	t = sft_con_test_find(j->bat, j->rq.arg);
	return t == NULL ? -ENOENT : sft_con_job_targets(j, &t->src->nodes, false);
}

static int
sft_con_session_targets(struct sft_con_job *j)
{
	struct sft_con_node *nd;
	int rc;

	TAILQ_FOREACH(nd, &j->con->nodes, link) {
		rc = sft_con_condition(j, nd, false);
		if (rc > 0 && (rc = sft_con_job_target(j, nd)) != 0) {
			return rc;
		}
	}
	return 0;
}

/* Pick the nodes of the job's current operation, and post. */
static int
sft_con_job_begin(struct sft_con_job *j)
{
	uint32_t timeout_s = SFT_TRANS_TIMEOUT_S;
	struct sft_con_batch *b;
	int rc = 0;

	switch (j->rq.op) {
	case SFT_CON_SESSION_NEW:
	case SFT_CON_SESSION_END:
	case SFT_CON_DEBUG_SESSION:
		rc = sft_con_session_targets(j);
		break;
	case SFT_CON_NODES_ADD:
		rc = sft_con_nodes_add_targets(j);
		break;
	case SFT_CON_NODES_REMOVE:
		rc = sft_con_nodes_remove_targets(j);
		break;
	case SFT_CON_GROUP_DEL:
	case SFT_CON_GROUP_REFRESH:
		rc = sft_con_job_group(j);
		if (rc == 0) {
			rc = sft_con_job_targets(j, &j->grp->nodes, j->rq.op == SFT_CON_GROUP_DEL);
		}
		break;
	case SFT_CON_TEST_ADD:
		rc = sft_con_test_targets(j);
		break;
	case SFT_CON_BATCH_RUN:
	case SFT_CON_BATCH_STOP:
	case SFT_CON_BATCH_QUERY:
		rc = sft_con_batch_targets(j);
		break;
	case SFT_CON_STAT_GROUP:
	case SFT_CON_DEBUG_GROUP:
		j->grp = sft_con_group_find(j->con, j->rq.name);
		rc = j->grp == NULL ? -ENOENT : sft_con_job_targets(j, &j->grp->nodes, false);
		break;
	case SFT_CON_DEBUG_BATCH:
		b = sft_con_batch_find(j->con, j->rq.name);
		rc = b == NULL ? -ENOENT :
				 sft_con_job_targets(j, j->rq.client ? &b->cli : &b->srv, false);
		break;
	case SFT_CON_STAT_NODES:
	case SFT_CON_DEBUG_NODES:
		rc = sft_con_job_ids(j, true);
		break;
	default:
		rc = -EINVAL;
		break;
	}
	if (rc != 0) {
		return rc;
	}
	switch (j->top) {
	case TOP_TSBQRY:
	case TOP_STATQRY:
	case TOP_SESQRY:
		timeout_s = sft_con_user_timeout(j->rq.timeout_s);
		break;
	default:
		break;
	}
	rc = sft_con_job_post(j, timeout_s);
	return rc == 0 ? 1 : rc;
}

static enum sft_con_transop
sft_con_op_top(enum sft_con_op op)
{
	switch (op) {
	case SFT_CON_SESSION_END:
	case SFT_CON_SESSION_NEW:
	case SFT_CON_NODES_REMOVE:
	case SFT_CON_GROUP_DEL:
		return TOP_SESEND;
	case SFT_CON_NODES_ADD:
	case SFT_CON_GROUP_REFRESH:
		return TOP_SESNEW;
	case SFT_CON_TEST_ADD:
		return TOP_TSBSRVADD;
	case SFT_CON_BATCH_RUN:
		return TOP_TSBRUN;
	case SFT_CON_BATCH_STOP:
		return TOP_TSBSTOP;
	case SFT_CON_BATCH_QUERY:
		return TOP_TSBQRY;
	case SFT_CON_STAT_GROUP:
	case SFT_CON_STAT_NODES:
		return TOP_STATQRY;
	default:
		return TOP_SESQRY;
	}
}

int
sft_con_job_start(struct sft_con *c, const struct sft_con_req *rq, sft_con_done_fn done, void *arg)
{
	struct sft_con_job *j;
	int rc;

	/* A new session over none needs no RPC (lstcon_session_new). */
	if (rq->op == SFT_CON_SESSION_NEW && (!c->active || !rq->force)) {
		struct sft_con_result r = { .rc = c->active ? -EEXIST :
							      sft_con_session_make(c, rq) };

		r.feats = c->feats;
		done(arg, &r);
		return 0;
	}
	j = calloc(1, sizeof(*j));
	if (j == NULL) {
		return -ENOMEM;
	}
	j->con = c;
	j->rq = *rq;
	j->done = done;
	j->arg = arg;
	j->top = sft_con_op_top(rq->op);
	if (rq->nids > 0) {
		j->ids = calloc(rq->nids, sizeof(*j->ids));
		if (j->ids == NULL) {
			free(j);
			return -ENOMEM;
		}
		memcpy(j->ids, rq->ids, rq->nids * sizeof(*j->ids));
	}
	j->rq.ids = j->ids;
	c->job = j;
	if (rq->op == SFT_CON_TEST_ADD) {
		rc = sft_con_test_add_check(j);
		if (rc != 0) {
			sft_con_job_end(j, rc);
			return 0;
		}
	}
	rc = sft_con_job_begin(j);
	if (rc != 1) {
		/* Refused before any RPC: nothing changed but the job's own. */
		if (j->test != NULL) {
			j->test->src->ref--;
			j->test->dst->ref--;
			free(j->test);
			j->test = NULL;
		}
		sft_con_job_end(j, rc);
	}
	return 0;
}

/* ---- the pinger ---- */

static void
sft_con_ping_done(struct sft_srv *s, struct sft_crpc *rpc)
{
	const struct sft_crpc_result *r = sft_crpc_result(rpc);
	struct sft_con_node *nd = r->arg;

	nd->ping = NULL;
	/* A failed ping says nothing of the node: only a reply does (lstcon_rpc_get_reply). */
	if (r->status == 0) {
		sft_con_learn(nd->con, nd, &r->reply.body.debug_reply.sid, sft_srv_now(s));
	}
	sft_con_node_put(nd);
}

/* One DEBUG (ping) or, for an idle console, RMSN to @p nd, not waited for. */
static void
sft_con_ping_send(struct sft_con *c, struct sft_con_node *nd, uint32_t svc)
{
	struct sft_msg req;
	struct sft_crpc_args a = {
		.svc = svc,
		.dest = nd->n.id,
		.req = &req,
		.done = sft_con_ping_done,
		.arg = nd,
	};

	memset(&req, 0, sizeof(req));
	req.ses_feats = c->feats;
	req.body.debug_reqst.sid = c->sid; /* where RMSN has its sid too */
	nd->ref++;
	if (sft_crpc_start(c->srv, &a, &nd->ping) != 0) {
		nd->ping = NULL;
		sft_con_node_put(nd);
	}
}

void
sft_con_tick(struct sft_con *c)
{
	uint64_t now = sft_srv_now(c->srv);
	struct sft_con_node *nd;

	if (!c->active || c->expired || now < c->next_ping_ms) {
		return;
	}
	c->next_ping_ms = now + SFT_CON_PING_INTERVAL_S * LNP_MS_PER_S;
	if (c->job == NULL && now - c->laststamp_ms > (uint64_t)c->timeout_s * LNP_MS_PER_S) {
		c->expired = true; /* idle console: end the session on every node */
	}
	TAILQ_FOREACH(nd, &c->nodes, link) {
		if (nd->ping != NULL || nd->n.state != SFT_NODE_ACTIVE) {
			continue;
		}
		if (c->expired) {
			sft_con_ping_send(c, nd, SFT_SVC_REMOVE_SESSION);
		} else if ((now - nd->n.stamp_ms) / LNP_MS_PER_S >= nd->timeout_s / 2) {
			sft_con_ping_send(c, nd, SFT_SVC_DEBUG);
		}
	}
}

const char *
sft_con_op_name(enum sft_con_op op)
{
	static const char *const names[SFT_CON_OP_MAX] = {
		[SFT_CON_SESSION_NEW] = "new session",
		[SFT_CON_SESSION_END] = "end session",
		[SFT_CON_SESSION_INFO] = "session info",
		[SFT_CON_GROUP_ADD] = "add group",
		[SFT_CON_NODES_ADD] = "create session",
		[SFT_CON_NODES_REMOVE] = "end session",
		[SFT_CON_GROUP_DEL] = "end session",
		[SFT_CON_GROUP_CLEAN] = "clean group",
		[SFT_CON_GROUP_REFRESH] = "create session",
		[SFT_CON_GROUP_LIST] = "list group",
		[SFT_CON_GROUP_INFO] = "group info",
		[SFT_CON_BATCH_ADD] = "add batch",
		[SFT_CON_BATCH_LIST] = "list batch",
		[SFT_CON_BATCH_INFO] = "batch info",
		[SFT_CON_TEST_ADD] = "add test",
		[SFT_CON_BATCH_RUN] = "run batch",
		[SFT_CON_BATCH_STOP] = "stop batch",
		[SFT_CON_BATCH_QUERY] = "query batch",
		[SFT_CON_STAT_GROUP] = "stat",
		[SFT_CON_STAT_NODES] = "stat",
		[SFT_CON_DEBUG_SESSION] = "session ping",
		[SFT_CON_DEBUG_GROUP] = "session ping",
		[SFT_CON_DEBUG_BATCH] = "session ping",
		[SFT_CON_DEBUG_NODES] = "session ping",
	};

	return (uint32_t)op < SFT_CON_OP_MAX && names[op] != NULL ? names[op] : "?";
}
