/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ping target (lnet-facts §3.1): a GET-only, TRUNCATE, MANAGE_REMOTE
 * MD of infinite threshold on the reserved portal 0 with the ping match
 * bits, over a buffer holding this node's ping info: 0@lo first with the
 * sequence number, then every other NI, the primary first.
 *
 * The management lcore builds the buffer from the published NI table; the
 * MD is posted on portal 0's home CPT, the new one before the old one is
 * unlinked, so a ping always finds one. A buffer is retired (RCU) once its
 * MD is unlinked and no REPLY reads it any more: the MD's handler sees the
 * last event and tells the management lcore.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lnet_ctl.h"
#include "lnet_mgmt.h"

/* Features a kernel node advertises with routing off and discovery on. */
#define LNET_PING_FEATURES                                                                    \
	(LNET_PING_FEAT_NI_STATUS | LNET_PING_FEAT_RTE_DISABLED | LNET_PING_FEAT_MULTI_RAIL | \
	 LNET_PING_FEAT_DISCOVERY)

/* One rebuild: mgmt -> portal 0's home CPT -> mgmt. */
struct lnet_ping_post {
	struct lnet *ln;
	struct lnet_ping_buf *pbuf;
	struct lnet_me *me;
	struct lnet_handle_md old;
	struct lnet_handle_md mdh;
	int rc;
	struct rt_hop hop;
	void (*cb)(void *arg, int rc);
	void *arg;
};

/* Mgmt: no MD reads @p pbuf any more; free it after a grace period. */
static void
lnet_ping_buf_retire(void *arg)
{
	struct lnet_ping_buf *pbuf = arg;

	LIST_REMOVE(pbuf, link);
	if (rt_rcu_retire(pbuf->ln->rt, pbuf, free) != 0) {
		free(pbuf); /* unreferenced already; the grace period is extra care */
	}
}

/* On the MD's lcore: every GET, and the MD's last event once unlinked. */
static void
lnet_ping_md_handler(struct lnet_event *ev)
{
	struct lnet_ping_buf *pbuf = ev->md_user_ptr;

	if (ev->unlinked) {
		rt_hop_send(&pbuf->hop, rt_mgmt_lcore(pbuf->ln->rt), lnet_ping_buf_retire, pbuf);
	}
}

/* The features advertised now: the kernel clears DISCOVERY while discovery is off (s2_01). */
static uint32_t
lnet_ping_features(const struct lnet *ln)
{
	uint32_t f = ln->tunables.discovery != 0 ? LNET_PING_FEATURES :
						   LNET_PING_FEATURES & ~LNET_PING_FEAT_DISCOVERY;

	/* A router says it routes only once forwarding is on (not while starting). */
	return lnet_routing_state(ln) == LNET_CTL_ROUTING_ENABLED ?
		       f & ~LNET_PING_FEAT_RTE_DISABLED :
		       f;
}

/*
 * Mgmt: encode the ping info of the published NI table into a new buffer,
 * with the next sequence number, or the same one when only the features
 * change (the kernel flips the bit in place, without a new number).
 */
static int
lnet_ping_buf_build(struct lnet *ln, bool next_seqno, struct lnet_ping_buf **out)
{
	const struct lnet_ni_table *t = lnet_ni_table_get(ln);
	struct lnet_ping_entry *nis = calloc(t->nnis, sizeof(*nis));
	struct lnet_ping_src src = {
		.features = lnet_ping_features(ln),
		.pid = ln->pid,
		.seqno = lnet_node(ln)->ping_seqno + (next_seqno ? 1 : 0),
		.nis = nis,
	};
	struct lnet_ping_buf *pbuf = NULL;
	size_t len = 0;
	unsigned int i;
	int rc;

	if (nis == NULL) {
		return -ENOMEM;
	}
	for (i = 0; i < t->nnis; i++) {
		if (t->nis[i] != ln->loni) {
			nis[src.nnis].nid = t->nis[i]->nid;
			nis[src.nnis++].status = lnet_ni_wire_status(t->nis[i]);
		}
	}
	rc = lnet_ping_info_size(&src, &len) == 0 ? 0 : -EINVAL;
	if (rc == 0) {
		pbuf = calloc(1, sizeof(*pbuf) + len);
		rc = pbuf == NULL ? -ENOMEM : 0;
	}
	if (rc == 0 && lnet_ping_info_encode(&src, pbuf->data, len, &pbuf->len) != 0) {
		rc = -EINVAL;
	}
	free(nis);
	if (rc != 0) {
		free(pbuf);
		return rc;
	}
	lnet_node(ln)->ping_seqno = src.seqno;
	pbuf->nnis = src.nnis;
	pbuf->ln = ln;
	*out = pbuf;
	return 0;
}

static void
lnet_ping_post_done(void *arg)
{
	struct lnet_ping_post *p = arg;
	struct lnet *ln = p->ln;

	if (p->rc == 0) {
		lnet_node(ln)->ping_mdh = p->mdh;
		lnet_node(ln)->ping_buf = p->pbuf;
		__atomic_store_n(&ln->ping_nnis, p->pbuf->nnis, __ATOMIC_RELAXED);
		if (!lnet_node(ln)->ping_quiet) {
			lnet_discovery_local_changed(
				ln); /* a new sequence number: push to MR peers */
		}
	} else {
		LIST_REMOVE(p->pbuf, link);
		free(p->pbuf);
		LNET_LOG(ERR, "ping target not updated: %s", strerror(-p->rc));
	}
	p->cb(p->arg, p->rc);
	free(p);
}

/* On portal 0's home CPT: post the new MD, then unlink the old one. */
static void
lnet_ping_post_on_cpt(void *arg)
{
	struct lnet_ping_post *p = arg;
	struct lnet_md md;

	memset(&md, 0, sizeof(md));
	md.umd_start = p->pbuf->data;
	md.umd_length = (unsigned int)p->pbuf->len;
	md.umd_threshold = LNET_MD_THRESH_INF;
	md.umd_options = LNET_MD_OP_GET | LNET_MD_TRUNCATE | LNET_MD_MANAGE_REMOTE;
	md.umd_user_ptr = p->pbuf;
	md.umd_handler = lnet_ping_md_handler;
	p->rc = LNetMDAttach(p->me, &md, LNET_RETAIN, &p->mdh);
	if (p->rc == 0 && p->old.cookie != LNET_WIRE_HANDLE_COOKIE_NONE) {
		LNetMDUnlink(p->old);
	}
	rt_hop_send(&p->hop, rt_mgmt_lcore(p->ln->rt), lnet_ping_post_done, p);
}

/*
 * Mgmt: post a ping target for the NIs published now, with the next
 * sequence number (lnet-facts §3.2), and unlink the previous one; then
 * cb(arg, rc) on the management lcore.
 */
static void
lnet_ping_target_post(struct lnet *ln, bool next_seqno, void (*cb)(void *arg, int rc), void *arg)
{
	struct lnet_processid any = { .pid = LNET_PID_ANY, .nid = LNET_ANY_NID };
	struct lnet_ping_post *p = calloc(1, sizeof(*p));
	int rc = p == NULL ? -ENOMEM : lnet_ping_buf_build(ln, next_seqno, &p->pbuf);

	if (rc == 0) {
		p->me = LNetMEAttach(LNET_RESERVED_PORTAL, &any, LNET_PROTO_PING_MATCHBITS, 0,
				     LNET_UNLINK, LNET_INS_AFTER);
		rc = p->me == NULL ? -errno : 0;
		if (rc != 0) {
			free(p->pbuf);
		}
	}
	if (rc != 0) {
		free(p);
		LNET_LOG(ERR, "ping target not updated: %s", strerror(-rc));
		cb(arg, rc);
		return;
	}
	LIST_INSERT_HEAD(&lnet_node(ln)->ping_bufs, p->pbuf, link);
	p->ln = ln;
	p->old = lnet_node(ln)->ping_buf != NULL ?
			 lnet_node(ln)->ping_mdh :
			 (struct lnet_handle_md){ LNET_WIRE_HANDLE_COOKIE_NONE };
	p->cb = cb;
	p->arg = arg;
	rt_hop_send(&p->hop, ln->cpts[p->me->cpt]->lcore, lnet_ping_post_on_cpt, p);
}

void
lnet_ping_target_rebuild(struct lnet *ln, void (*cb)(void *arg, int rc), void *arg)
{
	lnet_ping_target_post(ln, true, cb, arg);
}

struct lnet_ping_init_op {
	struct lnet_mgmt_op op;
};

static void
lnet_ping_init_done(void *arg, int rc)
{
	lnet_mgmt_op_done(arg, rc);
}

static void
lnet_ping_init_start(struct lnet_mgmt_op *op)
{
	lnet_ping_target_rebuild(op->ln, lnet_ping_init_done, op);
}

static void
lnet_ping_features_start(struct lnet_mgmt_op *op)
{
	lnet_ping_target_post(op->ln, false, lnet_ping_init_done, op);
}

/*
 * From a thread that is not a logical lcore, after `set discovery`: the
 * same NIs and sequence number, the features of the new setting. No push
 * yet: pushing to Multi-Rail peers comes with discovery (issue 13).
 */
int
lnet_ping_target_features_update(struct lnet *ln)
{
	struct lnet_ping_init_op o = { .op.start = lnet_ping_features_start };

	return lnet_mgmt_op_run(ln, &o.op);
}

/*
 * At start-up, from a thread that is not a logical lcore: the ping target
 * and the push target. Portal 0 is not lazy (the kernel's is, see
 * lnet_push.c): both MDs are always posted, so nothing sent there waits.
 */
int
lnet_ping_target_init(struct lnet *ln)
{
	struct lnet_ping_init_op o = { .op.start = lnet_ping_init_start };
	int rc = lnet_mgmt_op_run(ln, &o.op);

	return rc != 0 ? rc : lnet_push_target_init(ln);
}

/* At shutdown, after the lcores stopped: the MDs went with their tables. */
void
lnet_ping_target_fini(struct lnet *ln)
{
	struct lnet_ping_buf *pbuf;

	lnet_push_target_fini(ln);
	while ((pbuf = LIST_FIRST(&lnet_node(ln)->ping_bufs)) != NULL) {
		LIST_REMOVE(pbuf, link);
		free(pbuf);
	}
	lnet_node(ln)->ping_buf = NULL;
}
