/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lst console (sft_con.h): its objects (nodes, groups, batches, tests)
 * and the local commands on them. The commands that send RPCs run as jobs
 * (sft_con_job.c); the pinger is there too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cfs_nid.h"
#include "sft_con_internal.h"

/* ---- nodes ---- */

struct sft_con_node *
sft_con_node_find(struct sft_con *c, const struct lnet_processid *id, bool create)
{
	struct sft_con_node *nd;

	TAILQ_FOREACH(nd, &c->nodes, link) {
		if (lnet_nid_same(&nd->n.id.nid, &id->nid) && nd->n.id.pid == id->pid) {
			nd->ref++;
			return nd;
		}
	}
	if (!create) {
		return NULL;
	}
	nd = calloc(1, sizeof(*nd));
	if (nd == NULL) {
		return NULL;
	}
	nd->n.id = *id;
	nd->n.state = SFT_NODE_UNKNOWN;
	nd->n.stamp_ms = sft_srv_now(c->srv);
	nd->con = c;
	nd->ref = 1;
	TAILQ_INSERT_TAIL(&c->nodes, nd, link);
	c->nnodes++;
	return nd;
}

void
sft_con_node_put(struct sft_con_node *nd)
{
	if (--nd->ref > 0) {
		return;
	}
	if (nd->con != NULL) {
		TAILQ_REMOVE(&nd->con->nodes, nd, link);
		nd->con->nnodes--;
	}
	free(nd);
}

/* ---- node lists (a group's, a batch's clients and servers) ---- */

bool
sft_con_list_has(const struct sft_con_list *l, const struct sft_con_node *nd)
{
	uint32_t i;

	for (i = 0; i < l->n; i++) {
		if (l->v[i] == nd) {
			return true;
		}
	}
	return false;
}

/* Append @p nd (taking a reference) unless it is listed. */
int
sft_con_list_add(struct sft_con_list *l, struct sft_con_node *nd)
{
	struct sft_con_node **v;

	if (sft_con_list_has(l, nd)) {
		return 0;
	}
	if (l->n == l->cap) {
		v = realloc(l->v, (l->cap * 2 + 4) * sizeof(*v));
		if (v == NULL) {
			return -ENOMEM;
		}
		l->v = v;
		l->cap = l->cap * 2 + 4;
	}
	nd->ref++;
	l->v[l->n++] = nd;
	return 0;
}

/* Drop the @p i-th node, keeping the others' order (destinations depend on it). */
void
sft_con_list_del(struct sft_con_list *l, uint32_t i)
{
	struct sft_con_node *nd = l->v[i];

	memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof(l->v[0]));
	l->n--;
	sft_con_node_put(nd);
}

void
sft_con_list_clear(struct sft_con_list *l)
{
	while (l->n > 0) {
		sft_con_list_del(l, l->n - 1);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static void
sft_con_list_count(const struct sft_con_list *l, struct sft_con_counts *cnt)
{
	uint32_t i;

	memset(cnt, 0, sizeof(*cnt));
	for (i = 0; i < l->n; i++) {
		cnt->total++;
		switch (l->v[i]->n.state) {
		case SFT_NODE_ACTIVE:
			cnt->active++;
			break;
		case SFT_NODE_BUSY:
			cnt->busy++;
			break;
		case SFT_NODE_DOWN:
			cnt->down++;
			break;
		default:
			cnt->unknown++;
			break;
		}
	}
}

/* ---- groups and batches ---- */

struct sft_con_group *
sft_con_group_find(struct sft_con *c, const char *name)
{
	struct sft_con_group *g;

	TAILQ_FOREACH(g, &c->groups, link) {
		if (strncmp(g->name, name, SFT_NAME_SIZE) == 0) {
			return g;
		}
	}
	return NULL;
}

void
sft_con_group_free(struct sft_con *c, struct sft_con_group *g)
{
	TAILQ_REMOVE(&c->groups, g, link);
	sft_con_list_clear(&g->nodes);
	free(g);
}

struct sft_con_batch *
sft_con_batch_find(struct sft_con *c, const char *name)
{
	struct sft_con_batch *b;

	TAILQ_FOREACH(b, &c->batches, link) {
		if (strncmp(b->name, name, SFT_NAME_SIZE) == 0) {
			return b;
		}
	}
	return NULL;
}

struct sft_con_test *
sft_con_test_find(struct sft_con_batch *b, uint32_t idx)
{
	struct sft_con_test *t;

	TAILQ_FOREACH(t, &b->tests, link) {
		if (t->idx == idx) {
			return t;
		}
	}
	return NULL;
}

static void
sft_con_batch_free(struct sft_con *c, struct sft_con_batch *b)
{
	struct sft_con_test *t;

	while ((t = TAILQ_FIRST(&b->tests)) != NULL) {
		TAILQ_REMOVE(&b->tests, t, link);
		t->src->ref--;
		t->dst->ref--;
		free(t);
	}
	sft_con_list_clear(&b->cli);
	sft_con_list_clear(&b->srv);
	TAILQ_REMOVE(&c->batches, b, link);
	free(b);
}

static int
sft_con_name_copy(char *dst, const char *src)
{
	size_t len = strnlen(src, SFT_NAME_SIZE);

	if (len == 0) {
		return -EINVAL;
	}
	if (len >= SFT_NAME_SIZE) {
		return -E2BIG;
	}
	memcpy(dst, src, len + 1);
	return 0;
}

int
sft_con_batch_add(struct sft_con *c, const char *name)
{
	struct sft_con_batch *b;
	int rc;

	if (sft_con_batch_find(c, name) != NULL) {
		return -EEXIST;
	}
	b = calloc(1, sizeof(*b));
	if (b == NULL) {
		return -ENOMEM;
	}
	rc = sft_con_name_copy(b->name, name);
	if (rc != 0) {
		free(b);
		return rc;
	}
	TAILQ_INIT(&b->tests);
	b->id = ++c->id_cookie; /* ses_id_cookie: the console's, not reset by a new session */
	b->state = SFT_CON_BATCH_IDLE;
	TAILQ_INSERT_TAIL(&c->batches, b, link);
	return 0;
}

static int
sft_con_group_add(struct sft_con *c, const char *name)
{
	struct sft_con_group *g;
	int rc;

	if (sft_con_group_find(c, name) != NULL) {
		return -EEXIST;
	}
	g = calloc(1, sizeof(*g));
	if (g == NULL) {
		return -ENOMEM;
	}
	rc = sft_con_name_copy(g->name, name);
	if (rc != 0) {
		free(g);
		return rc;
	}
	TAILQ_INSERT_TAIL(&c->groups, g, link);
	return 0;
}

/* ---- the session ---- */

/* lstcon_new_session_id: the first NID past 0@lo, and the monotonic clock in ms. */
static void
sft_con_new_sid(struct sft_con *c)
{
	struct lnet_processid id;

	if (LNetGetId(1, &id, true) != 0 && LNetGetId(0, &id, true) != 0) {
		lnet_nid_set_lo0(&id.nid);
	}
	c->sid.nid = lnet_nid_to_nid4(&id.nid);
	c->sid.stamp = (int64_t)sft_srv_now(c->srv);
}

/* The session's state once every node is told it ended (or was not reached). */
void
sft_con_session_clear(struct sft_con *c)
{
	struct sft_con_batch *b;
	struct sft_con_group *g;

	while ((b = TAILQ_FIRST(&c->batches)) != NULL) {
		sft_con_batch_free(c, b);
	}
	while ((g = TAILQ_FIRST(&c->groups)) != NULL) {
		sft_con_group_free(c, g);
	}
	c->active = false;
	c->expired = false;
	c->sid.nid = SFT_SID_NID_NONE;
	c->sid.stamp = SFT_SID_STAMP_NONE;
	c->key = 0;
	c->force = false;
	c->feats_updated = false;
}

int
sft_con_session_make(struct sft_con *c, const struct sft_con_req *rq)
{
	int rc;

	if ((rq->feats & ~SFT_FEATS_MASK) != 0) {
		return -EINVAL;
	}
	if (strnlen(rq->name, SFT_NAME_SIZE) >= SFT_NAME_SIZE) {
		return -E2BIG;
	}
	sft_con_new_sid(c);
	c->key = rq->key;
	c->force = rq->force;
	c->feats = rq->feats;
	c->feats_updated = false;
	c->timeout_s = rq->timeout_s <= 0 ? SFT_CON_TIMEOUT_S : (uint32_t)rq->timeout_s;
	memcpy(c->name, rq->name, SFT_NAME_SIZE);
	c->name[SFT_NAME_SIZE - 1] = '\0';
	rc = sft_con_batch_add(c, SFT_CON_DEFAULT_BATCH);
	if (rc != 0) {
		return rc;
	}
	c->active = true;
	c->laststamp_ms = sft_srv_now(c->srv);
	c->next_ping_ms = c->laststamp_ms + SFT_CON_PING_INTERVAL_S * LNP_MS_PER_S;
	return 0;
}

static void
sft_con_session_info(struct sft_con *c, struct sft_con_result *r)
{
	struct sft_con_session_info *si = &r->session;
	struct sft_con_node *nd;

	memcpy(si->name, c->name, SFT_NAME_SIZE);
	si->sid = c->sid;
	si->key = c->key;
	si->feats = c->feats;
	si->timeout_s = c->timeout_s;
	si->force = c->force;
	TAILQ_FOREACH(nd, &c->nodes, link) {
		si->nodes.total++;
		si->nodes.active += nd->n.state == SFT_NODE_ACTIVE;
		si->nodes.busy += nd->n.state == SFT_NODE_BUSY;
		si->nodes.down += nd->n.state == SFT_NODE_DOWN;
		si->nodes.unknown += nd->n.state == SFT_NODE_UNKNOWN;
	}
}

/* ---- local commands: lists and infos ---- */

static int
sft_con_names_of_groups(struct sft_con *c, struct sft_con_result *r, char (**out)[SFT_NAME_SIZE])
{
	struct sft_con_group *g;
	uint32_t n = 0;

	TAILQ_FOREACH(g, &c->groups, link) {
		n++;
	}
	*out = calloc(n + 1, SFT_NAME_SIZE);
	if (*out == NULL) {
		return -ENOMEM;
	}
	n = 0;
	TAILQ_FOREACH(g, &c->groups, link) {
		memcpy((*out)[n++], g->name, SFT_NAME_SIZE);
	}
	r->names = (const char(*)[SFT_NAME_SIZE]) * out;
	r->nnames = n;
	return 0;
}

static int
sft_con_names_of_batches(struct sft_con *c, struct sft_con_result *r, char (**out)[SFT_NAME_SIZE])
{
	struct sft_con_batch *b;
	uint32_t n = 0;

	TAILQ_FOREACH(b, &c->batches, link) {
		n++;
	}
	*out = calloc(n + 1, SFT_NAME_SIZE);
	if (*out == NULL) {
		return -ENOMEM;
	}
	n = 0;
	TAILQ_FOREACH(b, &c->batches, link) {
		memcpy((*out)[n++], b->name, SFT_NAME_SIZE);
	}
	r->names = (const char(*)[SFT_NAME_SIZE]) * out;
	r->nnames = n;
	return 0;
}

static int
sft_con_nodes_of(const struct sft_con_list *l, struct sft_con_result *r,
		 struct sft_con_node_ent **out)
{
	uint32_t i;

	*out = calloc(l->n + 1, sizeof(**out));
	if (*out == NULL) {
		return -ENOMEM;
	}
	for (i = 0; i < l->n; i++) {
		(*out)[i].id = l->v[i]->n.id;
		(*out)[i].state = l->v[i]->n.state;
	}
	r->nodes = *out;
	r->nnodes = l->n;
	return 0;
}

/* lstcon_batch_info: a batch (index 0) or one of its tests, and the nodes of one side. */
static int
sft_con_batch_info(struct sft_con *c, const struct sft_con_req *rq, struct sft_con_result *r,
		   struct sft_con_node_ent **nodes)
{
	struct sft_con_batch *b = sft_con_batch_find(c, rq->name);
	const struct sft_con_list *cli, *srv;
	struct sft_con_test *t;

	if (b == NULL) {
		return -ENOENT;
	}
	if (rq->arg == 0) {
		cli = &b->cli;
		srv = &b->srv;
		r->batch.ntest = b->ntest;
		r->batch.state = b->state;
	} else {
		t = sft_con_test_find(b, rq->arg);
		if (t == NULL) {
			return -ENOENT;
		}
		cli = &t->src->nodes;
		srv = &t->dst->nodes;
		r->batch.type = t->args.type;
		r->batch.loop = t->args.loop;
		r->batch.concur = t->args.concur;
		r->batch.test = t->args;
	}
	sft_con_list_count(cli, &r->batch.cli);
	sft_con_list_count(srv, &r->batch.srv);
	return sft_con_nodes_of(rq->client ? cli : srv, r, nodes);
}

/* lstcon_group_clean: the nodes in the states asked leave; an empty group goes. */
static int
sft_con_group_clean(struct sft_con *c, const struct sft_con_req *rq)
{
	struct sft_con_group *g = sft_con_group_find(c, rq->name);
	uint32_t i;

	if (g == NULL) {
		return -ENOENT;
	}
	if (g->ref > 0) {
		return -EBUSY;
	}
	for (i = g->nodes.n; i-- > 0;) {
		if ((g->nodes.v[i]->n.state & rq->arg) != 0) {
			sft_con_list_del(&g->nodes, i);
		}
	}
	if (g->nodes.n == 0) {
		sft_con_group_free(c, g);
	}
	return 0;
}

/* The commands that need no RPC: done at once. */
static int
sft_con_local(struct sft_con *c, const struct sft_con_req *rq, sft_con_done_fn done, void *arg)
{
	struct sft_con_result r = { 0 };
	struct sft_con_node_ent *nodes = NULL;
	char(*names)[SFT_NAME_SIZE] = NULL;
	struct sft_con_group *g;

	switch (rq->op) {
	case SFT_CON_SESSION_INFO:
		sft_con_session_info(c, &r);
		break;
	case SFT_CON_GROUP_ADD:
		r.rc = sft_con_group_add(c, rq->name);
		break;
	case SFT_CON_GROUP_CLEAN:
		r.rc = sft_con_group_clean(c, rq);
		break;
	case SFT_CON_GROUP_LIST:
		r.rc = sft_con_names_of_groups(c, &r, &names);
		break;
	case SFT_CON_GROUP_INFO:
		g = sft_con_group_find(c, rq->name);
		if (g == NULL) {
			r.rc = -ENOENT;
			break;
		}
		sft_con_list_count(&g->nodes, &r.counts);
		r.rc = sft_con_nodes_of(&g->nodes, &r, &nodes);
		break;
	case SFT_CON_BATCH_ADD:
		r.rc = sft_con_batch_add(c, rq->name);
		break;
	case SFT_CON_BATCH_LIST:
		r.rc = sft_con_names_of_batches(c, &r, &names);
		break;
	case SFT_CON_BATCH_INFO:
		r.rc = sft_con_batch_info(c, rq, &r, &nodes);
		break;
	default:
		return -EINVAL;
	}
	done(arg, &r);
	free(nodes);
	free(names);
	return 0;
}

static bool
sft_con_op_is_local(enum sft_con_op op)
{
	switch (op) {
	case SFT_CON_SESSION_INFO:
	case SFT_CON_GROUP_ADD:
	case SFT_CON_GROUP_CLEAN:
	case SFT_CON_GROUP_LIST:
	case SFT_CON_GROUP_INFO:
	case SFT_CON_BATCH_ADD:
	case SFT_CON_BATCH_LIST:
	case SFT_CON_BATCH_INFO:
		return true;
	default:
		return false;
	}
}

static void
sft_con_fail(sft_con_done_fn done, void *arg, int rc)
{
	struct sft_con_result r = { .rc = rc };

	done(arg, &r);
}

int
sft_con_submit(struct sft_con *c, const struct sft_con_req *rq, sft_con_done_fn done, void *arg)
{
	if (c->job != NULL) {
		return -EBUSY;
	}
	if ((uint32_t)rq->op >= SFT_CON_OP_MAX) {
		sft_con_fail(done, arg, -EINVAL);
		return 0;
	}
	c->laststamp_ms = sft_srv_now(c->srv);
	/* An idle console's nodes were told the session ended: it ends here (lstcon_ioctl_entry). */
	if (c->active && c->expired) {
		sft_con_session_clear(c);
	}
	if (rq->op == SFT_CON_SESSION_NEW) {
		return sft_con_job_start(c, rq, done, arg);
	}
	if (!c->active) {
		sft_con_fail(done, arg, -ESRCH);
		return 0;
	}
	if (rq->key != c->key) {
		sft_con_fail(done, arg, -EACCES);
		return 0;
	}
	if (sft_con_op_is_local(rq->op)) {
		return sft_con_local(c, rq, done, arg);
	}
	return sft_con_job_start(c, rq, done, arg);
}

/* ---- the console ---- */

int
sft_con_create(struct sft_srv *s, struct sft_con **out)
{
	struct sft_con *c = calloc(1, sizeof(*c));

	if (c == NULL) {
		return -ENOMEM;
	}
	c->srv = s;
	TAILQ_INIT(&c->nodes);
	TAILQ_INIT(&c->groups);
	TAILQ_INIT(&c->batches);
	c->sid.nid = SFT_SID_NID_NONE;
	c->sid.stamp = SFT_SID_STAMP_NONE;
	*out = c;
	return 0;
}

void
sft_con_destroy(struct sft_con *c)
{
	struct sft_con_node *nd;

	sft_con_session_clear(c);
	/* Nodes left are held by pings or a job in flight: theirs to free. */
	while ((nd = TAILQ_FIRST(&c->nodes)) != NULL) {
		TAILQ_REMOVE(&c->nodes, nd, link);
		nd->con = NULL;
		if (nd->ping != NULL) {
			sft_crpc_abort(c->srv, nd->ping, -EINTR);
		}
	}
	if (c->job != NULL) {
		c->destroyed = true; /* the job frees the console when it ends */
		return;
	}
	free(c);
}

bool
sft_con_has_session(const struct sft_con *c)
{
	return c->active;
}
