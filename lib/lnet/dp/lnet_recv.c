/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive path (lnet_parse): validate the header, check it is for us,
 * and send it to the lcore that can match it (PUT/GET: the portal's match
 * table; ACK/REPLY: the MD named by the wire handle).
 */
#include <errno.h>
#include <string.h>

#include "lnet_tunables.h"
#include "lnet_internal.h"
#include "lnet_route_table.h"

/*
 * A matched GET on an LND that may answer it by RDMA: recv() gets the
 * REPLY and sends it itself, or says the GET came plainly and LNet sends
 * the REPLY. Out of line: no other LND comes here.
 */
static __attribute__((noinline)) void
lnet_rx_get_rdma(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_ni *ni = msg->rxni;
	struct lnet_libmd *md = msg->md;
	int rc;

	lnet_reply_by_lnd(c, msg);
	rc = ni->lnd->recv(ni, msg->lnd_private, msg, md->niov, md->iov, msg->offset, msg->wanted,
			   msg->wanted);
	if (rc == LNET_LND_RECV_SEND_REPLY) {
		lnet_send_reply_made(c, msg);
	} else if (rc != 0) {
		lnet_finalize(msg, rc);
	}
}

/* The LND's recv of @p msg, on its NI's lcore; inlined into lnet_ni_recv, the common caller. */
static inline __attribute__((always_inline)) void
lnet_rx_recv_run(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_ni *ni = msg->rxni;
	void *private = msg->lnd_private;
	int rc;

	if (!ni->started) {
		/* net del closed the connection this message came on. */
		if (msg->rx_action == LNET_RX_DROP) {
			lnet_msg_free(msg);
		} else {
			lnet_finalize(msg, -ENETDOWN);
		}
		return;
	}
	switch (msg->rx_action) {
	case LNET_RX_DELIVER:
		if (msg->routing) {
			rc = ni->lnd->recv(ni, private, msg, msg->len != 0 ? 1 : 0, &msg->rtr_iov,
					   0, msg->len, msg->len);
		} else if (msg->md != NULL) {
			rc = ni->lnd->recv(ni, private, msg, msg->md->niov, msg->md->iov,
					   msg->offset, msg->wanted, msg->len);
		} else {
			rc = ni->lnd->recv(ni, private, msg, 0, NULL, 0, 0, msg->len);
		}
		if (rc != 0) {
			lnet_finalize(msg, rc);
		}
		break;
	case LNET_RX_DROP:
		ni->lnd->recv(ni, private, NULL, 0, NULL, 0, 0, msg->len);
		lnet_msg_free(msg);
		break;
	case LNET_RX_GET:
		if (unlikely((ni->lnd->caps & LNET_LND_CAP_RDMA_GET) != 0)) {
			lnet_rx_get_rdma(c, msg);
			break;
		}
		ni->lnd->recv(ni, private, NULL, 0, NULL, 0, 0, 0);
		lnet_send_reply(c, msg);
		break;
	}
}

void
lnet_rx_recv_step(struct lnet_cpt *c, struct lnet_msg *msg)
{
	lnet_rx_recv_run(c, msg);
}

/*
 * The LND was done with @p msg before it left its NI's lcore
 * (lnet_rx_take): what it lent, if anything, is copied into the MD here,
 * on the MD's lcore, and given back. Out of line: with the MD on its NI's
 * lcore, the common case, no message takes this way.
 */
static __attribute__((noinline)) void
lnet_rx_taken_run(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_rx_payload *lent = msg->lnd_private;

	msg->lnd_private = NULL;
	switch (msg->rx_action) {
	case LNET_RX_DELIVER:
		if (lent != NULL && msg->md != NULL && msg->wanted != 0) {
			lnet_iov_copy_lent(msg->md->iov, msg->md->niov, msg->offset, lent->iov,
					   lent->niov, msg->wanted);
		}
		if (lent != NULL) {
			lent->release(lent);
		}
		lnet_finalize(msg, 0); /* as the LND's recv would once the bytes are in */
		break;
	case LNET_RX_DROP:
		if (lent != NULL) {
			lent->release(lent);
		}
		lnet_msg_free(msg);
		break;
	case LNET_RX_GET:
		lnet_send_reply(c, msg); /* a GET has no payload: the LND's part is done */
		break;
	}
}

/* Payload handling by the LND runs on the NI's lcore (any lcore for lo), unless the LND is done. */
void
lnet_ni_recv(struct lnet_cpt *c, struct lnet_msg *msg, enum lnet_rx_action action)
{
	struct lnet_ni *ni = msg->rxni;

	msg->rx_action = action;
	/* lo's messages are never taken (lnet_rx_take): they pay no test for it. */
	if (ni->any_cpt || (ni->cpt == c->cpt && !msg->rx_consumed)) {
		lnet_rx_recv_run(c, msg);
		return;
	}
	if (unlikely(msg->rx_consumed)) {
		lnet_rx_taken_run(c, msg);
		return;
	}
	lnet_msg_dispatch_c(c, msg, ni->cpt, LNET_STEP_RX_RECV);
}

/*
 * On its NI's lcore, @p msg is about to leave for the lcore of its MD (or
 * match table): have the LND finish with it here, so it need not come
 * back for recv() and go out again for its event (3 hops: 1). A message
 * without payload is consumed now, as a GET's is before its REPLY; one
 * with a payload needs the LND to lend the bytes (recv_take). When it
 * cannot, recv() runs here later, as before.
 */
static void
lnet_rx_take(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_ni *ni = msg->rxni;
	struct lnet_rx_payload *lent;

	if (ni->any_cpt || ni->cpt != c->cpt || !ni->started) {
		return; /* lo, or a peer NI on another CPT of a net spanning several */
	}
	if (msg->hdr.type == LNET_MSG_GET && (ni->lnd->caps & LNET_LND_CAP_RDMA_GET) != 0) {
		return; /* its recv() may answer it by RDMA: it needs the GET there */
	}
	if (msg->len == 0) {
		ni->lnd->recv(ni, msg->lnd_private, NULL, 0, NULL, 0, 0, 0);
		lent = NULL;
	} else if (ni->lnd->recv_take == NULL ||
		   ni->lnd->recv_take(ni, msg->lnd_private, msg->len, &lent) != 0) {
		__atomic_store_n(&c->hops.n[LNET_HOP_RX_UNLENT], c->hops.n[LNET_HOP_RX_UNLENT] + 1,
				 __ATOMIC_RELAXED);
		return;
	}
	msg->lnd_private = lent;
	msg->rx_consumed = true;
}

/* ACK or REPLY: find our MD from the handle we sent out. */
void
lnet_rx_md_step(struct lnet_cpt *c, struct lnet_msg *msg)
{
	const struct lnet_hdr *h = &msg->hdr;
	bool is_ack = h->type == LNET_MSG_ACK;
	const struct lnet_handle_wire *wmd = is_ack ? &h->msg.ack.dst_wmd : &h->msg.reply.dst_wmd;
	struct lnet_libmd *md = lnet_md_lookup(c, wmd->wh_object_cookie);
	unsigned int mlength = 0;

	if (md == NULL || md->threshold == 0 || md->me != NULL ||
	    (md->flags & LNET_MD_FLAG_ZOMBIE) != 0) {
		lnet_drop_rx(c, msg,
			     is_ack ? "ACK for an MD that is gone" :
				      "REPLY for an MD that is gone");
		return;
	}
	if (!is_ack) {
		mlength = msg->len <= md->length ? msg->len : md->length;
		if (mlength < msg->len && (md->options & LNET_MD_TRUNCATE) == 0) {
			lnet_drop_rx(c, msg, "REPLY larger than the MD");
			return;
		}
	}
	lnet_rsp_untrack(c, md);
	md->answers++; /* its request got there (lnet_health_fin) */
	lnet_md_attach_msg(md, msg, 0, mlength);
	lnet_ni_recv(c, msg, LNET_RX_DELIVER);
}

static bool
lnet_hdr_for_me(struct lnet *ln, struct lnet_ni *ni, const struct lnet_hdr *h)
{
	if (lnet_nid_same(&h->dest_nid, &ni->nid)) {
		return true;
	}
	if (ni == ln->loni) {
		return lnet_nid_is_lo0(&h->dest_nid) ||
		       lnet_ni_find_by_nid(ln, &h->dest_nid) != NULL;
	}
	return false;
}

/* An ACK or REPLY for an MD on another lcore. Out of line: the MD is on this lcore in the common case. */
static __attribute__((noinline)) void
lnet_rx_md_away(struct lnet_cpt *c, struct lnet_msg *msg)
{
	lnet_rx_take(c, msg);
	lnet_msg_dispatch_away(c->ln, msg, msg->md_cpt);
}

/* A PUT or GET whose match table is on another lcore. Out of line, as lnet_rx_md_away. */
static __attribute__((noinline)) void
lnet_rx_match_away(struct lnet_cpt *c, struct lnet_msg *msg, unsigned int match_cpt)
{
	lnet_rx_take(c, msg);
	lnet_msg_dispatch_c(c, msg, match_cpt, LNET_STEP_RX_MATCH);
}

static inline __attribute__((always_inline)) void
lnet_rx_dispatch(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet *ln = c->ln;
	const struct lnet_hdr *h = &msg->hdr;
	const struct lnet_handle_wire *wmd;
	unsigned int portal;
	unsigned int match_cpt;

	if (h->type == LNET_MSG_PUT || h->type == LNET_MSG_GET) {
		portal = h->type == LNET_MSG_PUT ? h->msg.put.ptl_index : h->msg.get.ptl_index;
		if (portal >= LNET_MAX_PORTALS) {
			lnet_drop_rx(c, msg, "portal index out of range");
			return;
		}
		match_cpt = lnet_ptl_match_cpt_first(ln, msg);
		if (unlikely(match_cpt != c->cpt)) {
			lnet_rx_match_away(c, msg, match_cpt);
			return;
		}
		LNET_OWNER_ASSERT(ln, c->cpt);
		msg->step = LNET_STEP_RX_MATCH;
		lnet_msg_step_run(c, msg,
				  LNET_STEP_RX_MATCH); /* one compare of the CPTs, not two */
		return;
	}
	wmd = h->type == LNET_MSG_ACK ? &h->msg.ack.dst_wmd : &h->msg.reply.dst_wmd;
	if (wmd->wh_interface_cookie != ln->interface_cookie ||
	    lnet_cookie_cpt(wmd->wh_object_cookie) >= ln->ncpts) {
		lnet_drop_rx(c, msg, "stale MD handle (another LNet instance?)");
		return;
	}
	msg->md_cpt = (uint16_t)lnet_cookie_cpt(wmd->wh_object_cookie);
	LNET_OWNER_ASSERT(ln, c->cpt);
	msg->step = LNET_STEP_RX_MD;
	if (likely(msg->md_cpt == c->cpt)) {
		lnet_rx_md_step(c, msg);
		return;
	}
	lnet_rx_md_away(c, msg);
}

/*
 * drop_asym_route: a message that came through a gateway we would not use
 * to send back to its source's net (the kernel's asymmetrical route).
 */
static bool
lnet_rx_asym_route(struct lnet_cpt *c, const struct lnet_msg *msg)
{
	uint32_t src_net = lnet_nid_net(&msg->hdr.src_nid);

	if (src_net == lnet_nid_net(&msg->from) || msg->rxni->any_cpt ||
	    __atomic_load_n(&c->ln->tunables.drop_asym_route, __ATOMIC_RELAXED) == 0) {
		return false;
	}
	return !lnet_route_via(lnet_route_table_get(c->ln), src_net, &msg->from);
}

/*
 * On the CPT owning the sender's peer NI (the last hop's): find or create
 * it, as the kernel does for every message it receives, so the message's
 * counts land on it; then on to matching.
 */
void
lnet_rx_peer_step(struct lnet_cpt *c, struct lnet_msg *msg)
{
	const struct lnet_peer_comp *comp;

	msg->rxpeer = lnet_peer_ni_find_or_create(c, &msg->from, msg->rxni);
	if (msg->rxpeer == NULL) {
		lnet_drop_rx(c, msg, "no memory for the sender's peer NI");
		return;
	}
	LNET_OWNER_ASSERT(c->ln,
			  msg->rxpeer->cpt); /* its counts, health, router credits are ours */
	lnet_health_rx_alive(c, msg->rxpeer);
	if (lnet_nid_net(&msg->hdr.src_nid) != lnet_nid_net(&msg->from)) {
		/* through a gateway: one we hold dead is alive again (the kernel's lnet_parse) */
		lnet_route_gw_traffic(c, msg->rxpeer, &msg->from, lnet_nid_net(&msg->hdr.src_nid));
	}
	/* Multi-Rail: the initiator is the sender's peer, named by its primary NID. */
	if (msg->routing) {
		lnet_fwd_rx_step(c, msg); /* for another node: router credits, a buffer */
		return;
	}
	if (lnet_rx_asym_route(c, msg)) {
		lnet_drop_rx(c, msg, "asymmetrical route"); /* counted as a drop, as the kernel's */
		return;
	}
	comp = rt_rcu_read((void *const *)&msg->rxpeer->comp);
	if (comp != NULL && lnet_nid_same(&msg->from, &msg->hdr.src_nid)) {
		msg->initiator_nid = comp->primary;
	}
	lnet_rx_dispatch(c, msg);
}

/* A message dropped before it has a struct lnet_msg: counted on the node and the NI. */
static void
lnet_parse_drop(struct lnet_cpt *c, struct lnet_ni *ni, const struct lnet_hdr *hdr)
{
	c->counters.drop_count++;
	c->counters.drop_length += hdr->payload_length;
	lnet_stats_incr(ni->stats, c->cpt, LNET_STATS_DROP, hdr->type);
}

/*
 * On a router, a ping from another node says the net it came on is alive
 * (the kernel's net_last_alive, at most once a second): its NI is UP again
 * if the router had marked it DOWN for the silence (lnet_router_ctl.c).
 */
static void
lnet_rx_router_ping(struct lnet_cpt *c, struct lnet_ni *ni, const struct lnet_hdr *hdr)
{
	uint64_t now;

	if (hdr->type != LNET_MSG_GET || hdr->msg.get.ptl_index != LNET_RESERVED_PORTAL ||
	    ni->any_cpt || lnet_routing_state(c->ln) == LNET_CTL_ROUTING_DISABLED) {
		return;
	}
	now = rt_lcore_now_us(c->lcore);
	if (now - __atomic_load_n(&ni->last_ping_us, __ATOMIC_RELAXED) < LNP_US_PER_S ||
	    lnet_ni_find_by_nid(c->ln, &hdr->src_nid) != NULL) {
		return;
	}
	__atomic_store_n(&ni->last_ping_us, now, __ATOMIC_RELAXED);
	if (__atomic_load_n(&ni->status, __ATOMIC_RELAXED) != LNET_NI_STATUS_UP) {
		lnet_ni_health_status(ni, true);
	}
}

int
lnet_parse(struct lnet_ni *ni, const struct lnet_hdr *hdr, const struct lnet_nid *from,
	   void *private)
{
	struct lnet *ln = ni->ln;
	struct lnet_cpt *c = lnet_cpt_self(ln);
	struct lnet_msg *msg;
	bool for_me;
	int rc;

	rc = (ni->lnd->caps & LNET_LND_CAP_HDR_CHECKED) != 0 ? 0 : lnet_hdr_validate(hdr);
	if (rc != 0) {
		c->counters.errors++;
		LNET_LOG(DEBUG, "bad header: %s", lnet_wire_strerror(rc));
		return -EPROTO;
	}
	lnet_rx_router_ping(c, ni, hdr);
	for_me = lnet_hdr_for_me(ln, ni, hdr);
	if (!for_me) {
		/* Same net, or another NI of ours: it should have come straight there. */
		if (lnet_nid_net(&hdr->dest_nid) == ni->net_id ||
		    lnet_ni_lookup(lnet_ni_table_get(ln), &hdr->dest_nid) != NULL || ni->any_cpt) {
			c->counters.errors++;
			return -EPROTO;
		}
		if (lnet_routing_state(ln) == LNET_CTL_ROUTING_DISABLED) {
			lnet_parse_drop(c, ni, hdr);
			ni->lnd->recv(ni, private, NULL, 0, NULL, 0, 0, hdr->payload_length);
			return 0; /* not a router: dropped and counted */
		}
	}
	if (lnet_fault_rx_drop(c, ni, hdr)) {
		lnet_parse_drop(c, ni, hdr); /* a drop rule: lost as on the wire */
		ni->lnd->recv(ni, private, NULL, 0, NULL, 0, 0, hdr->payload_length);
		return 0;
	}
	msg = lnet_msg_alloc(c);
	if (msg == NULL) {
		lnet_parse_drop(c, ni, hdr);
		ni->lnd->recv(ni, private, NULL, 0, NULL, 0, 0, hdr->payload_length);
		return 0;
	}
	msg->hdr = *hdr;
	lnet_msg_set_rxni(c, msg, ni);
	msg->from = *from;
	msg->lnd_private = private;
	msg->len = hdr->payload_length;
	if (!for_me) {
		msg->routing = true; /* the kernel's msg_routing: on to its destination */
		/* Not zeroed by lnet_msg_alloc(): the later stamps are 0 until taken. */
		msg->fwd_us[0] = rt_lcore_now_us(c->lcore);
		msg->fwd_us[1] = 0;
		msg->fwd_us[2] = 0;
		msg->fwd_us[3] = 0;
		msg->target.nid = hdr->dest_nid;
		msg->target.pid = hdr->dest_pid;
	} else {
		msg->initiator_nid = hdr->src_nid; /* a forwarded message has no event */
	}
	if (ni->any_cpt) {
		lnet_rx_dispatch(c, msg); /* lo: no peer NI, as the kernel's lo sends have none */
		return 0;
	}
	if (lnet_fault_rx_delay(c, msg)) {
		return 0; /* a delay rule holds it */
	}
	lnet_msg_dispatch_c(c, msg, lnet_cpt_of_peer(ln, from), LNET_STEP_RX_PEER);
	return 0;
}
