/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The send path: choose the local NI, take the peer NI's tx credit on the
 * peer shard's lcore, the NI's tx credit on the NI's lcore, and hand the
 * message to the LND. Also the ACK and REPLY a target sends back.
 *
 * Messages to a local NID (0@lo or one of our NIs) go through the loopback
 * NI with no credit accounting, as in kernel LNet.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lnet_internal.h"
#include "lnet_route_table.h"

static bool
lnet_dest_is_local(struct lnet *ln, const struct lnet_nid *nid)
{
	return lnet_nid_is_lo0(nid) || lnet_ni_lookup(lnet_ni_table_get(ln), nid) != NULL;
}

static void
lnet_send_fail(struct lnet_cpt *c, struct lnet_msg *msg, int rc, const char *why)
{
	char dst[LNET_NIDSTR_SIZE];

	LNET_LOG(DEBUG, "cannot send %s to %s: %s", lnet_msg_type_str(msg->hdr.type),
		 libcfs_nidstr_r(&msg->target.nid, dst, sizeof(dst)), why);
	if (rc == -EHOSTUNREACH) {
		c->counters.local_no_route_count++;
	}
	lnet_finalize(msg, rc);
}

static void lnet_send_addressed(struct lnet_cpt *c, struct lnet_msg *msg);

/* A message to one of our own NIDs (or 0@lo): through the loopback NI. */
static void
lnet_send_loopback(struct lnet_cpt *c, struct lnet_msg *msg)
{
	lnet_msg_set_txni(c, msg, c->ln->loni);
	msg->hdr.src_nid = msg->target.nid;
	msg->hdr.dest_nid = msg->target.nid;
	msg->nexthop = msg->target.nid;
	lnet_send_addressed(c, msg);
}

/* NI and destination NID are chosen: on to the peer NI's shard (or the LND for lo). */
static void
lnet_send_addressed(struct lnet_cpt *c, struct lnet_msg *msg)
{
	msg->hdr.dest_pid = msg->target.pid;
	if (!msg->routing) {
		msg->hdr.src_pid = c->ln->pid;
		lnet_health_stamp_deadline(c, msg); /* routers apply no deadline */
	}
	if (!msg->txni->credits_enabled) {
		lnet_ni_send(c, msg);
		return;
	}
	msg->peer_cpt = (uint16_t)lnet_cpt_of_peer(c->ln, &msg->nexthop);
	lnet_msg_dispatch_c(c, msg, msg->peer_cpt, LNET_STEP_SEND_PEER);
}

/*
 * Start sending a prepared PUT or GET from the lcore it is on: loopback,
 * or on to the destination NID's shard, where discovery and selection run.
 */
static void
lnet_send_route(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_ni *self = msg->recovery ? lnet_ni_find_by_nid(c->ln, &msg->target.nid) : NULL;

	if (self != NULL && self != c->ln->loni) {
		/* A local NI's recovery ping tests the NI itself: out through its LND, as the kernel's. */
		lnet_msg_set_txni(c, msg, self);
		msg->hdr.src_nid = self->nid;
		msg->hdr.dest_nid = self->nid;
		msg->nexthop = self->nid;
		lnet_send_addressed(c, msg);
		return;
	}
	if (lnet_dest_is_local(c->ln, &msg->target.nid)) {
		lnet_send_loopback(c, msg);
		return;
	}
	lnet_msg_dispatch_c(c, msg, lnet_cpt_of_peer(c->ln, &msg->target.nid),
			    LNET_STEP_SEND_SELECT);
}

/* Runs on the MD's CPT for LNetPut/LNetGet: the source NID was recorded. */
void
lnet_send_md_step(struct lnet_cpt *c, struct lnet_msg *msg)
{
	msg->src_param = msg->hdr.src_nid;
	lnet_send_route(c, msg);
}

/*
 * In the destination NID's shard: a message to a peer discovery has not
 * brought up to date goes to the management lcore, which holds it or lets
 * it through; otherwise the path is chosen here (lnet_send_mr.c).
 */
void
lnet_send_select_step(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_peer_ni *lpni = lnet_peer_ni_find(c, &msg->target.nid);
	const struct lnet_peer_comp *comp =
		lpni != NULL ? rt_rcu_read((void *const *)&lpni->comp) : NULL;
	struct lnet_peer_ni *nexthop_lpni;
	struct lnet_nid nexthop;
	struct lnet_nid dst;
	struct lnet_ni *ni;
	int rc;

	if (unlikely(comp == NULL)) {
		/* A NID not known yet, or its peer not published: reachable at all? (Else selection says.) */
		struct lnet_ni *net_ni = lnet_ni_find_by_net(c->ln, lnet_nid_net(&msg->target.nid));

		if (net_ni == NULL && lnet_route_table_get(c->ln) == NULL) {
			lnet_send_fail(c, msg, -EHOSTUNREACH,
				       "no local NI on the destination's net");
			return;
		}
		lpni = lpni != NULL ? lpni :
				      lnet_peer_ni_find_or_create(c, &msg->target.nid, net_ni);
		if (lpni == NULL) {
			lnet_send_fail(c, msg, -ENOMEM, "no memory for the peer");
			return;
		}
	}
	if (!msg->disc_passed && (comp == NULL || (comp->gated && lnet_msg_wants_discovery(msg)))) {
		msg->dst_lpni = lpni;
		lnet_msg_to_mgmt(c->ln, msg);
		return;
	}
	rc = lnet_send_mr_select(c, msg, lpni, comp, &ni, &dst, &nexthop, &nexthop_lpni);
	if (rc != 0) {
		lnet_send_fail(c, msg, rc, "no path to the peer");
		return;
	}
	if (msg->routing && lnet_nid_same(&nexthop, &msg->from)) {
		/* Routes that point back at each other: it would go round for ever. */
		lnet_send_fail(c, msg, -EHOSTUNREACH, "routing loop: the next hop is the last one");
		return;
	}
	lnet_msg_set_txni(c, msg, ni);
	if (!msg->routing) {
		msg->hdr.src_nid = ni->nid; /* a forwarded message keeps its originator's */
	}
	msg->hdr.dest_nid = dst;
	msg->nexthop = nexthop;
	msg->sel_lpni = nexthop_lpni;
	lnet_send_addressed(c, msg);
}

/*
 * ACK or REPLY: from the NI the request arrived on (@p src) to the exact
 * NID it came from, as the kernel sends responses.
 */
static void
lnet_send_response(struct lnet_cpt *c, struct lnet_msg *msg, const struct lnet_nid *src)
{
	struct lnet_ni *ni;

	if (lnet_dest_is_local(c->ln, &msg->target.nid)) {
		lnet_send_loopback(c, msg);
		return;
	}
	ni = lnet_ni_lookup(lnet_ni_table_get(c->ln), src);
	if (ni == NULL) {
		lnet_send_fail(c, msg, -EHOSTUNREACH, "the NI the request came on is gone");
		return;
	}
	lnet_msg_set_txni(c, msg, ni);
	msg->hdr.src_nid = ni->nid;
	msg->hdr.dest_nid = msg->target.nid;
	msg->nexthop = msg->target.nid;
	if (ni->net_id != lnet_nid_net(&msg->target.nid)) {
		/*
		 * A request that came through a router: back by the gateway it
		 * came from (the kernel's rtr_nid), the header to the originator.
		 */
		msg->nexthop = msg->from;
	}
	lnet_send_addressed(c, msg);
}

void
lnet_send_peer_step(struct lnet_cpt *c, struct lnet_msg *msg)
{
	/*
	 * Peer NIs live until shutdown: the one selection saw is still this
	 * NID's, and ours unless net add/del moved its net to another CPT
	 * since it was made (then this shard's own).
	 */
	struct lnet_peer_ni *lpni =
		msg->sel_lpni != NULL && msg->sel_lpni->cpt == c->cpt ?
			msg->sel_lpni :
			lnet_peer_ni_find_or_create(c, &msg->nexthop, msg->txni);

	msg->sel_lpni = NULL;
	if (lpni == NULL) {
		lnet_send_fail(c, msg, -ENOMEM, "no memory for the peer");
		return;
	}
	LNET_OWNER_ASSERT(c->ln, lpni->cpt);
	msg->txpeer = lpni;
	if (msg->hdr.type == LNET_MSG_ACK || msg->hdr.type == LNET_MSG_REPLY) {
		lnet_sel_stamp_response(c, msg->txni, lpni);
	}
	if (!lnet_credits_take_peer(lpni, msg)) {
		return; /* queued: sent when a credit comes back */
	}
	lnet_msg_dispatch_c(c, msg, msg->txni->cpt, LNET_STEP_SEND_NI);
}

void
lnet_send_ni_step(struct lnet_cpt *c, struct lnet_msg *msg)
{
	if (!msg->txni->started) {
		/* Another NI may take it: a local failure that health resends. */
		lnet_finalize_hstatus(msg, -ENETDOWN, LNET_MSG_STATUS_LOCAL_ABORTED);
		return;
	}
	if (!lnet_credits_take_ni(msg->txni, msg)) {
		return; /* queued on the NI */
	}
	lnet_ni_send(c, msg);
}

/* Hand @p msg to its NI's LND (unless a fault rule takes it); the LND finalizes it. */
void
lnet_ni_send(struct lnet_cpt *c, struct lnet_msg *msg)
{
	if (!lnet_fault_tx(c, msg)) {
		lnet_ni_send_now(c, msg);
	}
}

void
lnet_ni_send_now(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_ni *ni = msg->txni;
	int rc;

	/* A message queued for a credit may outlive its NI (net del). */
	if (!ni->started) {
		lnet_finalize_hstatus(msg, -ENETDOWN, LNET_MSG_STATUS_LOCAL_ABORTED);
		return;
	}
	if (msg->routing) {
		msg->fwd_us[3] = rt_lcore_now_us(c->lcore); /* its tx credits taken */
	}
	rc = ni->lnd->send(ni, msg);
	if (rc != 0) {
		c->counters.local_error_count++;
		lnet_finalize(msg, rc);
	}
}

/*
 * The wire took @p msg: its peer credit goes back now when its peer NI is
 * this lcore's (the NI's CPT, lnet_cpt_of_peer: the common case). A peer NI
 * on another CPT (a net whose NIs span CPTs) gets it back when the message
 * completes (FIN_PEER), which crosses there anyway: no note of its own.
 */
static void
lnet_msg_on_wire_peer(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_msg *next;

	if (msg->peer_cpt != c->cpt) {
		return;
	}
	next = lnet_credits_return_peer(msg->txpeer, msg);
	if (next != NULL) {
		lnet_msg_dispatch(c->ln, next, next->txni->cpt, LNET_STEP_SEND_NI);
	}
}

void
lnet_msg_on_wire(struct lnet_msg *msg)
{
	struct lnet_cpt *c = lnet_cpt_self(msg->ln);
	struct lnet_msg *next = lnet_credits_return_ni(msg->txni, msg);

	if (next != NULL) {
		lnet_ni_send(c, next);
	}
	if (msg->peertxcredit) {
		lnet_msg_on_wire_peer(c, msg);
	}
}

void
lnet_fin_ni_step(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_msg *next = lnet_credits_return_ni(msg->txni, msg);

	if (next != NULL) {
		lnet_ni_send(c, next);
	}
	lnet_finalize(msg, msg->status);
}

void
lnet_fin_peer_step(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_msg *next = lnet_credits_return_peer(msg->txpeer, msg);

	if (next != NULL) {
		lnet_msg_dispatch(c->ln, next, next->txni->cpt, LNET_STEP_SEND_NI);
	}
	lnet_finalize(msg, msg->status);
}

/* Turn a received message into an outgoing one back to its source. */
static void
lnet_msg_turn_around(struct lnet_cpt *c, struct lnet_msg *msg)
{
	msg->tx = true;
	msg->ack_pending = false;
	msg->status = 0;
	lnet_msg_set_txni(c, msg, NULL);
	msg->txpeer = NULL;
	msg->target.nid = msg->hdr.src_nid;
	msg->target.pid = msg->hdr.src_pid;
}

/* After the PUT event: ACK the PUT with the bytes actually delivered. */
void
lnet_send_ack(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_hdr *h = &msg->hdr;
	struct lnet_handle_wire wmd = h->msg.put.ack_wmd;
	uint64_t match_bits = h->msg.put.match_bits;
	struct lnet_nid src = msg->rxni->nid;

	lnet_msg_turn_around(c, msg);
	h->type = LNET_MSG_ACK;
	h->payload_length = 0;
	memset(&h->msg, 0, sizeof(h->msg));
	h->msg.ack.dst_wmd = wmd;
	h->msg.ack.match_bits = match_bits;
	h->msg.ack.mlength = msg->wanted;
	msg->wanted = 0;
	lnet_send_response(c, msg, &src);
}

/* A matched GET becomes its REPLY, in place: the MD's region back to the GET's source. */
void
lnet_reply_of_get(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_hdr *h = &msg->hdr;
	struct lnet_handle_wire wmd = h->msg.get.return_wmd;

	/* The GET counts as received once its REPLY is sent (lnet_msg_count). */
	msg->get_req.target.nid = h->dest_nid;
	msg->get_req.target.pid = h->dest_pid;
	msg->get_req.match_bits = h->msg.get.match_bits;
	msg->get_req.portal = h->msg.get.ptl_index;
	msg->get_req.rlength = h->msg.get.sink_length;
	lnet_msg_turn_around(c, msg);
	msg->is_reply_to_get = true;
	h->type = LNET_MSG_REPLY;
	h->payload_length = msg->wanted;
	memset(&h->msg, 0, sizeof(h->msg));
	h->msg.reply.dst_wmd = wmd;
}

/* A matched GET: send the MD's region back; the GET event follows its completion. */
void
lnet_send_reply(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_nid src = msg->rxni->nid;

	lnet_reply_of_get(c, msg);
	lnet_send_response(c, msg, &src);
}

/* A REPLY made by lnet_reply_by_lnd that its LND left to LNet after all: sent as any REPLY. */
void
lnet_send_reply_made(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_nid src = msg->rxni->nid;

	lnet_msg_set_txni(c, msg, NULL);
	lnet_send_response(c, msg, &src);
}

/*
 * The REPLY an LND with LNET_LND_CAP_RDMA_GET sends itself, from its NI
 * (lnet_rx_get_rdma): addressed as lnet_send_response would, no credits.
 */
void
lnet_reply_by_lnd(struct lnet_cpt *c, struct lnet_msg *msg)
{
	lnet_reply_of_get(c, msg);
	lnet_msg_set_txni(c, msg, msg->rxni);
	msg->hdr.src_nid = msg->rxni->nid;
	msg->hdr.dest_nid = msg->target.nid;
	msg->nexthop = msg->from;
}
