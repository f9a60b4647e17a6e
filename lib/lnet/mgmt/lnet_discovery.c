/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Discovery wired to the node (seed 002; the machine is lnet_disc.c): on the
 * management lcore, each peer of the directory has its lnet_disc, whose
 * operations are done here:
 *   - ping and push go out from a data lcore (the peer's primary NID's
 *     shard), which binds an MD, sends, and hands the outcome back to the
 *     management lcore with the token the machine gave, so a late REPLY or
 *     ACK is told from the current one;
 *   - ping replies and pushes are checked and planned by lnet_peer_merge.c,
 *     and the plan applied to the directory, then published to the data
 *     lcores (lnet_peer_publish);
 *   - messages that wait for a peer's discovery come here from the data
 *     lcores (lnet_msg_to_mgmt), are held on the peer, and go back to the
 *     destination's shard when discovery lets them through.
 * A merge that empties a peer cannot end it while its own machine is
 * running: such peers are merged once the event that emptied them is over.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lnet_ctl.h"
#include "lnet_mgmt.h"
#include "lnet_peer_dir.h"
#include "lnet_route.h"

/* What a ping or push sent for a peer's discovery is; owned by its MD's handler. */
struct lnet_disc_io {
	LIST_ENTRY(lnet_disc_io) link; /* its CPT's, until its MD's last event */
	struct lnet *ln;
	struct lnet_nid nid; /* the peer's NID it went to */
	struct lnet_nid src; /* our NI it leaves from; any: selection's choice */
	uint32_t token;
	bool push;
	bool reported;
	struct lnet_handle_md mdh;
	size_t len;
	uint8_t buf[];
};

/* The outcome of one, on its way to the management lcore. */
struct lnet_disc_report {
	struct rt_hop hop;
	struct lnet *ln;
	struct lnet_nid nid;
	struct lnet_nid reply_on;   /* a ping reply's: our NI it came to */
	struct lnet_nid reply_from; /* and the peer's NID it came from */
	uint32_t token;
	bool push;
	bool incoming; /* a push the peer sent us (not our push's ACK) */
	int status;
	size_t mlength;
	size_t rlength;
	uint8_t data[];
};

uint64_t
lnet_disc_now(const struct lnet_peer_dir *d)
{
	return rt_now_us(d->ln->rt);
}

static struct lnet_peer *
lnet_disc_peer(struct lnet_disc *dd)
{
	return dd->peer;
}

/* ---- held messages ---------------------------------------------------- */

/* Back to the destination's shard, not to be held again. */
static void
lnet_disc_msg_release(struct lnet *ln, struct lnet_msg *msg)
{
	msg->disc_passed = true;
	lnet_msg_dispatch(ln, msg, lnet_cpt_of_peer(ln, &msg->target.nid), LNET_STEP_SEND_SELECT);
}

static void
lnet_disc_release_held(struct lnet_disc *dd)
{
	struct lnet_peer *p = lnet_disc_peer(dd);
	struct lnet_peer_dir *d = dd->node->arg;
	struct lnet_msg *msg;

	while ((msg = TAILQ_FIRST(&p->held)) != NULL) {
		TAILQ_REMOVE(&p->held, msg, link);
		lnet_disc_msg_release(d->ln, msg);
	}
}

static void
lnet_disc_fail_held(struct lnet_disc *dd, int error)
{
	struct lnet_peer *p = lnet_disc_peer(dd);
	struct lnet_msg *msg;

	if (p->rtr_refs > 0 && !p->dead) {
		lnet_route_gw_data(dd->node->arg, p,
				   NULL); /* a gateway not heard: its routes go down */
	}
	while ((msg = TAILQ_FIRST(&p->held)) != NULL) {
		TAILQ_REMOVE(&p->held, msg, link);
		lnet_finalize(msg, error);
	}
}

static void
lnet_disc_move_held(struct lnet_disc *from, struct lnet_disc *to)
{
	struct lnet_peer *a = lnet_disc_peer(from);
	struct lnet_peer *b = lnet_disc_peer(to);

	TAILQ_CONCAT(&b->held, &a->held, link);
}

/* ---- timers ------------------------------------------------------------ */

static void
lnet_disc_arm_timer(struct lnet_disc *dd, uint64_t deadline)
{
	struct lnet_peer *p = lnet_disc_peer(dd);
	uint64_t now = lnet_disc_now(dd->node->arg);

	rt_timer_arm(&p->disc_timer, deadline > now ? deadline - now : 0);
}

static void
lnet_disc_cancel_timer(struct lnet_disc *dd)
{
	rt_timer_cancel(&lnet_disc_peer(dd)->disc_timer);
}

static void
lnet_disc_timer_fired(void *arg)
{
	struct lnet_peer *p = arg;
	struct lnet_peer_dir *d = p->disc.node->arg;

	lnet_disc_timer(&p->disc, lnet_disc_now(d));
	lnet_discovery_settle(d, p);
}

/* ---- ping and push on a data lcore --------------------------------------- */

static void
lnet_disc_io_report(struct lnet_disc_io *io, const struct lnet_event *ev, int status,
		    size_t mlength, size_t rlength)
{
	size_t copy = status == 0 && !io->push ? mlength : 0;
	struct lnet_disc_report *r = calloc(1, sizeof(*r) + copy);

	io->reported = true;
	if (r == NULL) {
		return; /* the discovery's timer ends it */
	}
	r->ln = io->ln;
	r->nid = io->nid;
	r->token = io->token;
	r->push = io->push;
	r->status = status;
	r->mlength = mlength;
	r->rlength = rlength;
	if (ev != NULL && ev->type == LNET_EVENT_REPLY) {
		r->reply_on = ev->target.nid;
		r->reply_from = ev->source.nid;
	}
	memcpy(r->data, io->buf, copy);
	rt_hop_send(&r->hop, rt_mgmt_lcore(io->ln->rt), lnet_discovery_report_on_mgmt, r);
}

/* On the MD's CPT: SEND (a failure), then REPLY or ACK; the MD goes with its last event. */
static void
lnet_disc_io_handler(struct lnet_event *ev)
{
	struct lnet_disc_io *io = ev->md_user_ptr;

	if (!io->reported) {
		if (ev->status != 0) {
			lnet_disc_io_report(io, NULL, ev->status, 0, 0);
		} else if (ev->type == LNET_EVENT_REPLY || ev->type == LNET_EVENT_ACK) {
			lnet_disc_io_report(io, ev, 0, ev->mlength, ev->rlength);
		} else if (ev->type == LNET_EVENT_UNLINK) {
			lnet_disc_io_report(io, NULL, -ENOENT, 0, 0);
		}
	}
	if (ev->unlinked) {
		LIST_REMOVE(io, link);
		free(io);
	}
}

/* At shutdown, after the lcores stopped: the MDs went with their tables. */
void
lnet_discovery_cpt_fini(struct lnet_cpt *c)
{
	struct lnet_disc_io *io;

	while ((io = LIST_FIRST(&lnet_cpt_mgmt(c)->disc_ios)) != NULL) {
		LIST_REMOVE(io, link);
		free(io);
	}
}

static void
lnet_disc_io_start(void *arg)
{
	struct lnet_disc_io *io = arg;
	struct lnet_processid target = { .pid = LNET_PID_LUSTRE, .nid = io->nid };
	struct lnet_md md = {
		.umd_start = io->buf,
		.umd_length = (unsigned int)io->len,
		.umd_threshold = 2, /* SEND, then REPLY or ACK */
		.umd_options = io->push ? 0 : LNET_MD_TRUNCATE,
		.umd_user_ptr = io,
		.umd_handler = lnet_disc_io_handler,
	};
	int rc;

	LIST_INSERT_HEAD(&lnet_cpt_mgmt(lnet_cpt_self(io->ln))->disc_ios, io, link);
	rc = LNetMDBind(&md, LNET_UNLINK, &io->mdh);
	if (rc != 0) {
		LIST_REMOVE(io, link);
		lnet_disc_io_report(io, NULL, rc, 0, 0);
		free(io);
		return;
	}
	if (io->push) {
		rc = LNetPut(lnet_nid_is_any(&io->src) ? NULL : &io->src, io->mdh, LNET_ACK_REQ,
			     &target, LNET_RESERVED_PORTAL, LNET_PROTO_PING_MATCHBITS, 0, 0);
	} else {
		rc = LNetGet(NULL, io->mdh, &target, LNET_RESERVED_PORTAL,
			     LNET_PROTO_PING_MATCHBITS, 0, false);
	}
	if (rc != 0) {
		lnet_disc_io_report(io, NULL, rc, 0, 0);
		LNetMDUnlink(io->mdh); /* its UNLINK event frees io */
	}
}

/* The local NI a path leaves from is there but its link is down. */
static bool
lnet_disc_src_down(struct lnet *ln, const struct lnet_nid *src)
{
	const struct lnet_ni *ni = lnet_ni_find_by_nid(ln, src);

	return ni != NULL && __atomic_load_n(&ni->fatal, __ATOMIC_RELAXED);
}

static int
lnet_disc_io_send(struct lnet_peer_dir *d, struct lnet_peer *p, uint32_t token, bool push,
		  const void *data, size_t len)
{
	struct lnet_disc_io *io;

	if (p->nnis == 0) {
		return -ENOENT;
	}
	io = calloc(1, sizeof(*io) + len);
	if (io == NULL) {
		return -ENOMEM;
	}
	io->ln = d->ln;
	io->nid = p->nis[0];
	io->src = (struct lnet_nid)LNET_ANY_NID;
	if (push && p->disc_path && !lnet_disc_src_down(d->ln, &p->disc_src)) {
		/*
		 * Back by the last ping reply's path. If that NI was deleted
		 * since, the push fails here and the peer waits for its next
		 * event, as the kernel's does (s1_05: no push at net del). An
		 * NI whose link is down is passed over: its push (the news that
		 * it is down) goes by selection, over a rail that works.
		 */
		io->nid = p->disc_dst;
		io->src = p->disc_src;
	}
	if (push) {
		p->disc_path = false;
	}
	io->token = token;
	io->push = push;
	io->len = len;
	if (data != NULL) {
		memcpy(io->buf, data, len);
	}
	if (rt_lcore_send_msg(d->ln->cpts[lnet_cpt_of_peer(d->ln, &io->nid)]->lcore,
			      lnet_disc_io_start, io) != 0) {
		free(io);
		return -EAGAIN;
	}
	return 0;
}

static int
lnet_disc_send_ping(struct lnet_disc *dd, uint32_t token, uint32_t size)
{
	return lnet_disc_io_send(dd->node->arg, lnet_disc_peer(dd), token, false, NULL, size);
}

static int
lnet_disc_send_push(struct lnet_disc *dd, uint32_t token, uint32_t seqno)
{
	struct lnet_peer_dir *d = dd->node->arg;
	const struct lnet_ping_buf *pb = lnet_node(d->ln)->ping_buf;

	(void)seqno; /* the posted ping target is the one with this number */
	if (pb == NULL) {
		return -ENETDOWN;
	}
	return lnet_disc_io_send(d, lnet_disc_peer(dd), token, true, pb->data, pb->len);
}

/* ---- merging what the peer said ------------------------------------------- */

static bool
lnet_disc_lookup(void *arg, const struct lnet_nid *nid, struct lnet_merge_owner *out)
{
	struct lnet_peer *q = lnet_peer_find(arg, nid);

	if (q == NULL) {
		return false;
	}
	*out = (struct lnet_merge_owner){
		.peer = q->seq,
		.is_primary = lnet_nid_same(&q->nis[0], nid),
		.peer_configured = q->configured,
		.peer_lock_primary = q->locked,
		.peer_lock_ts = q->lock_ts,
		.peer_nnids = q->nnis,
	};
	return true;
}

/* @p gone lost its NIDs to @p survivor: merged once the running event is over. */
static void
lnet_disc_merge_later(struct lnet_peer_dir *d, struct lnet_peer *gone, struct lnet_peer *survivor)
{
	if (gone == survivor) {
		return;
	}
	if (gone->merge_into == 0) {
		d->merges_pending++;
	}
	gone->merge_into = survivor->seq;
}

/* Detach @p op's NID (or its whole peer) from peer `from`; its peer NI, if known. */
static struct lnet_peer_ni *
lnet_disc_take_from(struct lnet_peer_dir *d, struct lnet_peer *p, const struct lnet_merge_op *op,
		    bool whole_peer)
{
	struct lnet_peer *q = lnet_peer_by_seq(d, op->from);
	struct lnet_peer_ni *lpni;

	if (q == NULL || q == p) {
		return NULL;
	}
	lpni = lnet_peer_nid_lpni(q, &op->nid);
	if (whole_peer) {
		while (q->nnis > 0) {
			lnet_peer_nid_remove(d, q, &q->nis[q->nnis - 1]);
		}
	} else {
		lnet_peer_nid_remove(d, q, &op->nid);
	}
	if (q->nnis == 0) {
		lnet_disc_merge_later(d, q, p);
	} else {
		lnet_peer_publish(d, q);
	}
	return lpni;
}

/*
 * The status the peer's ping data gives one of its NIDs (the kernel's
 * handle_disc_lpni_health): a NID that turns DOWN counts as a remote
 * failure (its health drops, recovery takes it), so traffic leaves it
 * before a message has to fail there; one UP from the start is healthy.
 */
static void
lnet_disc_ni_status(struct lnet_peer_dir *d, struct lnet_peer *p, const struct lnet_nid *nid,
		    uint32_t status)
{
	struct lnet_peer_ni *lpni = NULL;
	unsigned int i;
	uint32_t was;

	for (i = 0; i < p->nnis && lpni == NULL; i++) {
		lpni = lnet_nid_same(&p->nis[i], nid) ? p->lpnis[i] : NULL;
	}
	if (lpni == NULL) {
		return; /* not known in its shard yet: nothing to judge */
	}
	was = lpni->health.ns_status;
	lpni->health.ns_status = status;
	if (was != status && status == LNET_NI_STATUS_DOWN) {
		lnet_health_remote_failure(d->ln, lpni);
	} else if (was == status && status == LNET_NI_STATUS_UP &&
		   __atomic_load_n(&lpni->health.last_alive, __ATOMIC_RELAXED) == 0) {
		lnet_health_lpni_set(d->ln, lpni, LNET_MAX_HEALTH_VALUE);
	}
}

static void
lnet_disc_apply_ops(struct lnet_peer_dir *d, struct lnet_peer *p, const struct lnet_merge_plan *pl)
{
	unsigned int i;

	for (i = 0; i < pl->nops; i++) {
		const struct lnet_merge_op *op = &pl->ops[i];
		struct lnet_peer_ni *lpni = NULL;

		switch (op->type) {
		case LNET_MERGE_OP_MOVE:
		case LNET_MERGE_OP_TAKE_PEER:
			lpni = lnet_disc_take_from(d, p, op, op->type == LNET_MERGE_OP_TAKE_PEER);
			/* then attach it here */
			__attribute__((fallthrough));
		case LNET_MERGE_OP_ADD:
			if (lnet_peer_find(d, &op->nid) == NULL) {
				lnet_peer_nid_add(d, p, &op->nid, lpni);
			}
			break;
		case LNET_MERGE_OP_REMOVE:
			lnet_peer_nid_remove(d, p, &op->nid);
			break;
		case LNET_MERGE_OP_UPDATE:
		case LNET_MERGE_OP_KEEP:
		case LNET_MERGE_OP_REFUSE:
			break;
		}
		if (op->type == LNET_MERGE_OP_UPDATE || op->type == LNET_MERGE_OP_ADD ||
		    op->type == LNET_MERGE_OP_MOVE || op->type == LNET_MERGE_OP_TAKE_PEER) {
			lnet_disc_ni_status(d, p, &op->nid, op->status);
		}
	}
}

static int lnet_disc_apply(struct lnet_peer_dir *d, struct lnet_peer *p,
			   const struct lnet_merge_proposal *prop, bool handed_off);

/* The data's primary is another peer's: that peer takes the data (and this one's NIDs). */
static int
lnet_disc_handoff(struct lnet_peer_dir *d, struct lnet_peer *p,
		  const struct lnet_merge_proposal *prop, lnet_merge_peer_id to)
{
	struct lnet_peer *h = lnet_peer_by_seq(d, to);
	int rc;

	if (h == NULL || h == p) {
		return -ENOENT;
	}
	h->mr = h->mr || p->mr;
	h->no_discovery = h->no_discovery && p->no_discovery;
	rc = lnet_disc_apply(d, h, prop, true);
	if (rc == 0 && p->nnis == 0) {
		lnet_disc_merge_later(d, p, h);
	}
	return rc;
}

static int
lnet_disc_apply(struct lnet_peer_dir *d, struct lnet_peer *p,
		const struct lnet_merge_proposal *prop, bool handed_off)
{
	struct lnet_merge_peer view = {
		.id = p->seq,
		.primary = p->nis[0],
		.want_primary = LNET_ANY_NID,
		.configured = p->configured,
		.lock_primary = p->locked,
		.lock_ts = p->lock_ts,
		.multi_rail = p->mr,
		.no_discovery = p->no_discovery,
		.local_discovery_off = !d->disc.enabled,
		.handed_off = handed_off,
		.nnids = p->nnis,
		.nids = p->nis,
	};
	struct lnet_merge_plan plan = { .cap = prop->nnids + p->nnis };
	int rc;

	plan.ops = calloc(plan.cap, sizeof(*plan.ops));
	if (plan.ops == NULL) {
		return -ENOMEM;
	}
	rc = lnet_merge_plan(prop, &view, lnet_disc_lookup, d, &plan, &d->merge);
	if (rc == 0 && plan.action == LNET_MERGE_HANDOFF) {
		rc = lnet_disc_handoff(d, p, prop, plan.handoff);
	} else if (rc == 0) {
		lnet_disc_apply_ops(d, p, &plan);
		if (plan.primary_changes) {
			lnet_peer_set_primary(p, &plan.primary);
		}
		p->locked = plan.lock_primary;
		p->lock_ts = plan.lock_ts;
		p->mr = p->mr || plan.multi_rail;
		p->bad_config = p->bad_config || plan.bad_config;
		lnet_peer_publish(d, p);
		lnet_peer_want_lpnis(d, p);
	}
	free(plan.ops);
	return rc;
}

/*
 * What the data says of the peer before its NIDs are merged, as the
 * kernel's reply and push handlers set it: NO_DISCOVERY from the DISCOVERY
 * feature; Multi-Rail when the data says so, unless configuration said not
 * (kept), or discovery is off here or there (set, never cleared).
 */
static void
lnet_disc_take_flags(struct lnet_peer_dir *d, struct lnet_peer *p,
		     const struct lnet_merge_proposal *prop)
{
	p->no_discovery = !prop->discovery;
	if (prop->multi_rail && !p->mr && !p->configured && d->disc.enabled && !p->no_discovery) {
		p->mr = true;
	}
}

static int
lnet_disc_merge_op(struct lnet_disc *dd, const struct lnet_disc_data *data)
{
	struct lnet_peer *p = lnet_disc_peer(dd);
	struct lnet_peer_dir *d = dd->node->arg;

	int rc;

	lnet_disc_take_flags(d, p, data->info);
	rc = lnet_disc_apply(d, p, data->info, false);
	if (rc == 0 && p->rtr_refs > 0) {
		lnet_route_gw_data(d, p, data->info); /* the kernel's router check reply */
	}
	return rc;
}

static const struct lnet_disc_ops lnet_discovery_ops = {
	.send_ping = lnet_disc_send_ping,
	.send_push = lnet_disc_send_push,
	.merge = lnet_disc_merge_op,
	.release_held = lnet_disc_release_held,
	.fail_held = lnet_disc_fail_held,
	.move_held = lnet_disc_move_held,
	.arm_timer = lnet_disc_arm_timer,
	.cancel_timer = lnet_disc_cancel_timer,
};

/* ---- the directory's side -------------------------------------------------- */

/* A ping or push not answered within transaction_timeout fails, as its MD would in the kernel. */
static uint64_t
lnet_discovery_timeout_us(const struct lnet *ln)
{
	uint64_t s = (uint64_t)__atomic_load_n(&ln->tunables.transaction_timeout, __ATOMIC_RELAXED);

	return (s != 0 ? s : 50) * LNP_US_PER_S;
}

/* A failed peer's back-off is counted in seconds of rt_now_us, up to max_recovery_ping_interval. */
static void
lnet_discovery_backoff_set(struct lnet_peer_dir *d)
{
	int max = __atomic_load_n(&d->ln->tunables.max_recovery_ping_interval, __ATOMIC_RELAXED);

	d->disc.backoff_unit = LNP_US_PER_S;
	d->disc.backoff_max = max > 0 ? max : 1;
}

void
lnet_discovery_tunables_changed(struct lnet *ln)
{
	if (lnet_node(ln)->peer_dir != NULL) {
		lnet_node(ln)->peer_dir->disc.timeout = lnet_discovery_timeout_us(ln);
		lnet_discovery_backoff_set(lnet_node(ln)->peer_dir);
	}
}

void
lnet_discovery_node_init(struct lnet_peer_dir *d)
{
	struct lnet *ln = d->ln;

	lnet_disc_node_init(&d->disc, &lnet_discovery_ops, d, lnet_discovery_timeout_us(ln));
	lnet_discovery_backoff_set(d);
	lnet_disc_node_enable(&d->disc, __atomic_load_n(&ln->tunables.discovery, __ATOMIC_RELAXED));
	lnet_disc_node_local_changed(&d->disc, lnet_node(ln)->ping_seqno);
}

void
lnet_discovery_peer_init(struct lnet_peer_dir *d, struct lnet_peer *p)
{
	lnet_disc_init(&d->disc, &p->disc, p);
	libcfs_nidstr_r(&p->nis[0], p->disc.name, sizeof(p->disc.name));
	rt_timer_init(&p->disc_timer, lnet_disc_timer_fired, p);
	if (!d->disc.enabled) {
		lnet_disc_enable(&p->disc, false, lnet_disc_now(d));
	}
}

void
lnet_discovery_peer_fini(struct lnet_peer_dir *d, struct lnet_peer *p, int error)
{
	(void)error; /* the machine fails held messages as the kernel does */
	lnet_disc_delete(&p->disc, lnet_disc_now(d));
	rt_timer_cancel(&p->disc_timer);
}

/* Peers a merge emptied: their held messages go to the survivor, then they go. */
static void
lnet_discovery_merge_pending(struct lnet_peer_dir *d, struct lnet_peer *p)
{
	struct lnet_peer *s = lnet_peer_by_seq(d, p->merge_into);

	p->merge_into = 0;
	if (s != NULL && s != p) {
		if (p->disc_path) {
			s->disc_path = true; /* the push that follows is the survivor's */
			s->disc_src = p->disc_src;
			s->disc_dst = p->disc_dst;
		}
		lnet_disc_merge(&p->disc, &s->disc, lnet_disc_now(d));
		lnet_discovery_settle(d, s);
	}
	lnet_peer_delete(d, p, -EHOSTUNREACH);
}

void
lnet_discovery_settle(struct lnet_peer_dir *d, struct lnet_peer *p)
{
	struct lnet_peer *q;
	struct lnet_peer *next;

	if (p != NULL && !p->dead && p->comp != NULL &&
	    p->comp->gated != !lnet_disc_uptodate(&p->disc)) {
		lnet_peer_publish(d, p);
	}
	for (q = TAILQ_FIRST(&d->peers); q != NULL && d->merges_pending > 0; q = next) {
		next = TAILQ_NEXT(q, link);
		if (q->merge_into != 0) {
			d->merges_pending--;
			lnet_discovery_merge_pending(d, q);
			next = TAILQ_FIRST(&d->peers);
		}
	}
}

/* The kernel's lp_state bits for @p p's discovery state. */
uint32_t
lnet_discovery_state_bits(const struct lnet_peer *p)
{
	uint32_t bits = (p->mr ? LNET_CTL_PEER_MULTI_RAIL : 0) |
			(p->no_discovery ? LNET_CTL_PEER_NO_DISCOVERY : 0) |
			(p->configured ? LNET_CTL_PEER_CONFIGURED : 0) |
			(p->locked ? LNET_CTL_PEER_LOCK_PRIMARY : 0);

	switch (p->disc.state) {
	case LNET_DISC_PING_SENT:
		return bits | LNET_CTL_PEER_DISCOVERING | LNET_CTL_PEER_PING_SENT;
	case LNET_DISC_WORK:
		return bits | LNET_CTL_PEER_DISCOVERING | LNET_CTL_PEER_DATA_PRESENT;
	case LNET_DISC_PUSH_SENT:
		return bits | LNET_CTL_PEER_DISCOVERING | LNET_CTL_PEER_PUSH_SENT;
	case LNET_DISC_DISCOVERED:
		return bits | LNET_CTL_PEER_DISCOVERED | LNET_CTL_PEER_NIDS_UPTODATE;
	case LNET_DISC_ERROR:
		return bits | LNET_CTL_PEER_PING_FAILED;
	default:
		return bits;
	}
}

/* ---- events that reach the management lcore ---------------------------------- */

/* A message whose destination's peer is not up to date (or not known yet). */
void
lnet_discovery_msg_on_mgmt(void *arg)
{
	struct lnet_msg *msg = arg;
	struct lnet *ln = msg->ln;
	struct lnet_peer_dir *d = lnet_peer_dir_get(ln);
	struct lnet_peer *p;
	int v;

	if (d != NULL) {
		lnet_peer_learn_lpni(d, &msg->target.nid, msg->dst_lpni);
	}
	p = d != NULL ? lnet_peer_find(d, &msg->target.nid) : NULL;
	if (p == NULL || d->stopping) {
		lnet_finalize(msg, p == NULL ? -ENOMEM : -ESHUTDOWN);
		return;
	}
	if (!lnet_msg_wants_discovery(msg)) {
		lnet_disc_msg_release(ln, msg);
		return;
	}
	v = lnet_disc_send(&p->disc, lnet_disc_now(d));
	if (v == LNET_DISC_PASS) {
		lnet_disc_msg_release(ln, msg);
	} else if (v == LNET_DISC_HOLD) {
		TAILQ_INSERT_TAIL(&p->held, msg, link);
	} else {
		lnet_finalize(msg, v);
	}
	lnet_discovery_settle(d, p);
}

/* Checked data of a ping reply or a push, as the machine takes it. */
static enum lnet_merge_rc
lnet_discovery_propose(struct lnet_peer_dir *d, const struct lnet_disc_report *r,
		       struct lnet_merge_proposal *prop, struct lnet_disc_data *data)
{
	struct lnet_merge_input in = {
		.kind = r->incoming ? LNET_MERGE_PUSH : LNET_MERGE_PING_REPLY,
		.buf = r->data,
		.mlength = r->mlength,
		.rlength = r->rlength,
	};
	enum lnet_merge_rc rc = lnet_merge_propose(&in, prop, &d->merge);

	*data = (struct lnet_disc_data){
		.seqno = prop->seqno,
		.nbytes = rc == LNET_MERGE_TRUNCATED ? (uint32_t)prop->need : (uint32_t)r->mlength,
		.multi_rail = prop->multi_rail,
		.discovery = prop->discovery,
		.info = prop,
	};
	return rc;
}

static void
lnet_discovery_reply(struct lnet_peer_dir *d, struct lnet_peer *p, struct lnet_disc_report *r,
		     struct lnet_merge_proposal *prop)
{
	struct lnet_disc_data data;
	enum lnet_merge_rc rc;
	uint64_t now = lnet_disc_now(d);

	if (r->status != 0) {
		lnet_disc_reply(&p->disc, r->token, r->status, NULL, now);
		return;
	}
	if (r->token == p->disc.ping_token) {
		p->disc_path = true;
		p->disc_src = r->reply_on;
		p->disc_dst = r->reply_from;
	}
	rc = lnet_discovery_propose(d, r, prop, &data);
	if (rc == LNET_MERGE_OK || rc == LNET_MERGE_TRUNCATED) {
		lnet_disc_reply(&p->disc, r->token, 0, &data, now);
	} else {
		LNET_LOG(INFO, "ping reply of %s refused: %s", p->disc.name,
			 lnet_merge_strerror(rc));
		lnet_disc_reply(&p->disc, r->token, -EPROTO, NULL, now);
	}
}

static void
lnet_discovery_push_in(struct lnet_peer_dir *d, struct lnet_peer *p, struct lnet_disc_report *r,
		       struct lnet_merge_proposal *prop)
{
	struct lnet_disc_data data;
	enum lnet_merge_rc rc = lnet_discovery_propose(d, r, prop, &data);

	if (rc != LNET_MERGE_OK) {
		LNET_LOG(INFO, "push from %s not used: %s", p->disc.name, lnet_merge_strerror(rc));
	}
	lnet_disc_push(&p->disc, rc == LNET_MERGE_OK ? &data : NULL, lnet_disc_now(d));
}

void
lnet_discovery_report_on_mgmt(void *arg)
{
	struct lnet_disc_report *r = arg;
	struct lnet_peer_dir *d = lnet_peer_dir_get(r->ln);
	struct lnet_merge_proposal prop = { .cap = LNET_INTERFACES_MAX_DEFAULT };
	/* A push may come before the peer NI its first message made is reported. */
	struct lnet_peer *p = d == NULL   ? NULL :
			      r->incoming ? lnet_peer_get(d, &r->nid) :
					    lnet_peer_find(d, &r->nid);

	prop.nids = calloc(prop.cap, sizeof(*prop.nids));
	if (p != NULL && prop.nids != NULL) {
		if (r->incoming) {
			lnet_discovery_push_in(d, p, r, &prop);
		} else if (r->push) {
			lnet_disc_ack(&p->disc, r->token, r->status, lnet_disc_now(d));
		} else {
			lnet_discovery_reply(d, p, r, &prop);
		}
		lnet_discovery_settle(d, p);
	}
	free(prop.nids);
	free(r);
}

/* On the push target's CPT: a push the peer @p src sent, whole, handed to mgmt. */
void
lnet_discovery_push_received(struct lnet *ln, const struct lnet_nid *src, const void *data,
			     size_t mlength, size_t rlength)
{
	struct lnet_disc_report *r = calloc(1, sizeof(*r) + mlength);

	if (r == NULL) {
		return; /* the peer's push goes unused, as a dropped one */
	}
	r->ln = ln;
	r->nid = *src;
	r->incoming = true;
	r->mlength = mlength;
	r->rlength = rlength;
	memcpy(r->data, data, mlength);
	rt_hop_send(&r->hop, rt_mgmt_lcore(ln->rt), lnet_discovery_report_on_mgmt, r);
}

/* ---- node-wide changes ----------------------------------------------------- */

/* Our ping target has a new sequence number (an NI came or went): push to MR peers. */
void
lnet_discovery_local_changed(struct lnet *ln)
{
	struct lnet_peer_dir *d = lnet_node(ln)->peer_dir;
	struct lnet_peer *p;
	struct lnet_peer *next;

	if (d == NULL || d->disc.local_seqno == lnet_node(ln)->ping_seqno) {
		return;
	}
	lnet_disc_node_local_changed(&d->disc, lnet_node(ln)->ping_seqno);
	for (p = TAILQ_FIRST(&d->peers); p != NULL; p = next) {
		next = TAILQ_NEXT(p, link);
		lnet_disc_local_changed(&p->disc, lnet_disc_now(d));
		lnet_discovery_settle(d, p);
	}
}

int
lnet_discovery_enable_on_mgmt(void *ln)
{
	lnet_discovery_set_enabled(ln, true);
	return 0;
}

/* `set discovery 0|1`, on the management lcore. */
void
lnet_discovery_set_enabled(struct lnet *ln, bool on)
{
	struct lnet_peer_dir *d = lnet_node(ln)->peer_dir;
	struct lnet_peer *p;
	struct lnet_peer *next;

	if (d == NULL) {
		return;
	}
	lnet_disc_node_enable(&d->disc, on);
	for (p = TAILQ_FIRST(&d->peers); p != NULL; p = next) {
		next = TAILQ_NEXT(p, link);
		lnet_disc_enable(&p->disc, on, lnet_disc_now(d));
		lnet_discovery_settle(d, p);
	}
}

/* LNetNIFini: held messages end with -ESHUTDOWN, timers stop, nothing more is held. */
static int
lnet_discovery_shutdown_on_mgmt(void *arg)
{
	struct lnet_peer_dir *d = lnet_node(arg)->peer_dir;
	struct lnet_peer *p;

	if (d == NULL) {
		return 0;
	}
	d->stopping = true;
	TAILQ_FOREACH(p, &d->peers, link) {
		rt_timer_cancel(&p->disc_timer);
		lnet_disc_fail_held(&p->disc, -ESHUTDOWN);
	}
	return 0;
}

void
lnet_discovery_shutdown(struct lnet *ln)
{
	rt_lcore_call(rt_mgmt_lcore(ln->rt), lnet_discovery_shutdown_on_mgmt, ln);
}
