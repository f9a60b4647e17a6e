/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-CPT state and the hand-off of messages between the lcores that own
 * them. A message moves by value of its pointer: the sender stops touching
 * it once it is dispatched.
 */
#include <errno.h>
#include <stdlib.h>

#include "lnet_internal.h"
#include "rt_wait.h"

/*
 * An outbox polled by @p lc: destinations 0..ncpts-1 are the CPTs (the
 * message's next step), ncpts the management lcore (discovery). Call on
 * @p lc or before the runtime starts.
 */
static int
lnet_msg_outbox_init(struct rt_outbox *o, struct lnet *ln, struct rt_lcore *lc)
{
	unsigned int i;
	int rc = rt_outbox_init(o, lc, ln->ncpts + 1, "lnet-outbox");

	if (rc != 0) {
		return rc;
	}
	for (i = 0; i < ln->ncpts; i++) {
		rt_outbox_set_dst(o, i, rt_data_lcore(ln->rt, i), lnet_msg_run_step);
	}
	rt_outbox_set_dst(o, ln->ncpts, rt_mgmt_lcore(ln->rt), ln->mgmt->msg_on_mgmt);
	return 0;
}

static void
lnet_cpt_free(struct lnet_cpt *c)
{
	unsigned int i;

	if (c == NULL) {
		return;
	}
	rt_outbox_fini(&c->outbox);
	for (i = 0; i < LNET_MAX_PORTALS; i++) {
		lnet_mt_fini(c, &c->mt[i]);
	}
	lnet_peer_table_fini(&c->peers);
	lnet_sel_cache_free(c->sel);
	lnet_md_table_fini(&c->mds);
	c->ln->mgmt->cpt_fini(c);
	free(c->msg_frees_of);
	free(c);
}

static int
lnet_cpt_create(struct lnet *ln, unsigned int cpt, struct lnet_cpt **out)
{
	struct lnet_cpt *c = calloc(1, sizeof(*c));
	unsigned int i;
	int rc;

	if (c == NULL) {
		return -ENOMEM;
	}
	c->ln = ln;
	c->cpt = cpt;
	c->lcore = rt_data_lcore(ln->rt, cpt);
	c->msg_cache = rt_pool_lcore_cache(ln->msg_pool, c->lcore);
	c->msg_frees_of = calloc(ln->ncpts, sizeof(c->msg_frees_of[0]));
	if (c->msg_frees_of == NULL) {
		free(c);
		return -ENOMEM;
	}
	lnet_rsp_init(c);
	lnet_fault_cpt_init(c);
	for (i = 0; i < sizeof(c->rtr) / sizeof(c->rtr[0]); i++) {
		lnet_rtr_pool_init(&c->rtr[i], i, rt_mgmt_lcore(ln->rt));
	}
	rc = lnet_md_table_init(&c->mds);
	if (rc == 0) {
		rc = lnet_peer_table_init(&c->peers);
	}
	for (i = 0; rc == 0 && i < LNET_MAX_PORTALS; i++) {
		rc = lnet_mt_init(&c->mt[i]);
	}
	if (rc != 0) {
		lnet_cpt_free(c);
		return rc;
	}
	rt_lcore_set_ctx(c->lcore, c);
	rc = lnet_msg_outbox_init(&c->outbox, ln, c->lcore);
	if (rc != 0) {
		lnet_cpt_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

int
lnet_cpts_create(struct lnet *ln)
{
	unsigned int i;
	int rc;

	ln->cpts = calloc(ln->ncpts, sizeof(*ln->cpts));
	if (ln->cpts == NULL) {
		return -ENOMEM;
	}
	for (i = 0; i < ln->ncpts; i++) {
		rc = lnet_cpt_create(ln, i, &ln->cpts[i]);
		if (rc != 0) {
			lnet_cpts_destroy(ln);
			return rc;
		}
	}
	rc = lnet_msg_outbox_init(&ln->mgmt_outbox, ln, rt_mgmt_lcore(ln->rt));
	if (rc != 0) {
		lnet_cpts_destroy(ln);
	}
	return rc;
}

void
lnet_cpts_destroy(struct lnet *ln)
{
	unsigned int i;

	if (ln->cpts == NULL) {
		return;
	}
	rt_outbox_fini(&ln->mgmt_outbox);
	for (i = 0; i < ln->ncpts; i++) {
		lnet_cpt_free(ln->cpts[i]);
	}
	free(ln->cpts);
	ln->cpts = NULL;
}

struct lnet_cpt *
lnet_cpt_get(struct lnet *ln, unsigned int cpt)
{
	return ln->cpts[cpt];
}

/* The management lcore's outbox when called on it, else NULL. */
static struct rt_outbox *
lnet_mgmt_outbox(struct lnet *ln)
{
	struct rt_lcore *lc = rt_lcore_self();

	if (lc == NULL || rt_lcore_runtime(lc) != ln->rt || lc != rt_mgmt_lcore(ln->rt) ||
	    !rt_outbox_ready(&ln->mgmt_outbox)) {
		return NULL;
	}
	return &ln->mgmt_outbox;
}

/* The CPT of the calling data lcore, or NULL on any other thread. */
struct lnet_cpt *
lnet_cpt_self(struct lnet *ln)
{
	struct rt_lcore *lc = rt_lcore_self();

	if (lc == NULL || rt_lcore_runtime(lc) != ln->rt || rt_lcore_role(lc) != RT_ROLE_DATA) {
		return NULL;
	}
	return rt_lcore_ctx(lc);
}

void
lnet_msg_step_on(struct lnet_cpt *c, struct lnet_msg *msg)
{
	lnet_msg_step_run(c, msg, msg->step);
}

/* rt message handler: runs the message's next step on this lcore. */
void
lnet_msg_run_step(void *arg)
{
	struct lnet_msg *msg = arg;
	struct lnet_cpt *c = rt_lcore_ctx(rt_lcore_self());

	lnet_msg_step_on(c, msg);
}

static enum lnet_hop_kind
lnet_hop_kind_of(const struct lnet_msg *msg)
{
	if (msg->routing) {
		return LNET_HOP_FWD;
	}
	switch (msg->hdr.type) {
	case LNET_MSG_GET:
		return LNET_HOP_GET;
	case LNET_MSG_ACK:
		return LNET_HOP_ACK;
	case LNET_MSG_REPLY:
		return LNET_HOP_REPLY;
	default:
		return LNET_HOP_PUT;
	}
}

/* The hop counts the calling lcore owns, or NULL on a thread that is no lcore of @p ln. */
static struct lnet_hop_counts *
lnet_hop_counts_self(struct lnet *ln)
{
	struct lnet_cpt *self = lnet_cpt_self(ln);

	if (self != NULL) {
		return &self->hops;
	}
	return lnet_mgmt_outbox(ln) != NULL ? &ln->mgmt_hops : NULL;
}

void
lnet_hop_count(struct lnet *ln, const struct lnet_msg *msg)
{
	struct lnet_hop_counts *h = lnet_hop_counts_self(ln);
	uint64_t *p;

	if (h == NULL) {
		return;
	}
	p = &h->n[lnet_hop_kind_of(msg)];
	/* Single writer: a plain add, atomic only so readers may sum. */
	__atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

void
lnet_hop_counts_reset_self(struct lnet *ln)
{
	struct lnet_hop_counts *h = lnet_hop_counts_self(ln);
	unsigned int k;

	for (k = 0; h != NULL && k < LNET_HOP_KINDS; k++) {
		__atomic_store_n(&h->n[k], 0, __ATOMIC_RELAXED);
	}
}

void
lnet_owner_violation(unsigned int cpt, const char *fn)
{
	LNET_LOG(ERR, "%s: state of CPT %u written from another lcore", fn, cpt);
	abort();
}

/* lnet_msg_dispatch() to a CPT that is not the caller's: its ring, else the outbox. */
void
lnet_msg_dispatch_away(struct lnet *ln, struct lnet_msg *msg, unsigned int dst_cpt)
{
	struct lnet_cpt *self = lnet_cpt_self(ln);
	struct lnet_cpt *dst = ln->cpts[dst_cpt];
	struct rt_outbox *o = self != NULL ? &self->outbox : lnet_mgmt_outbox(ln);

	lnet_hop_count(ln, msg);
	if (o != NULL) {
		rt_outbox_send(o, dst_cpt, &msg->out, msg);
		return;
	}
	if (rt_lcore_send_msg(dst->lcore, lnet_msg_run_step, msg) == 0) {
		return;
	}
	/* A thread that is no lcore: API entry points run on lcores through
	 * lnet_call_on_cpt(), so a full ring here is a bug. */
	LNET_LOG(ERR, "message lost: ring of CPT %u full from a foreign thread", dst_cpt);
	abort();
}

void
lnet_msg_to_mgmt(struct lnet *ln, struct lnet_msg *msg)
{
	struct lnet_cpt *self = lnet_cpt_self(ln);

	lnet_hop_count(ln, msg);
	rt_outbox_send(&self->outbox, ln->ncpts, &msg->out, msg);
}

/*
 * Run fn(ctx) on @p cpt's lcore and return its result. From a foreign
 * thread this waits; from the owning lcore it runs inline.
 */
static __attribute__((noinline, cold)) int
lnet_call_on_cpt_retry(struct lnet *ln, unsigned int cpt, rt_call_fn fn, void *ctx)
{
	int rc = -ENOBUFS;

	while (rc == -ENOBUFS && lnet_cpt_self(ln) == NULL) {
		rt_wait_turn(ln->rt); /* the ring drains as its lcore runs */
		rc = rt_lcore_call(ln->cpts[cpt]->lcore, fn, ctx);
	}
	return rc;
}

int
lnet_call_on_cpt(struct lnet *ln, unsigned int cpt, rt_call_fn fn, void *ctx)
{
	int rc = rt_lcore_call(ln->cpts[cpt]->lcore, fn, ctx);

	if (likely(rc != -ENOBUFS)) {
		return rc;
	}
	return lnet_call_on_cpt_retry(ln, cpt, fn, ctx);
}
