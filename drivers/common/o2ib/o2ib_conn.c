/* SPDX-License-Identifier: BSD-3-Clause */
/* o2iblnd connection establishment without verbs (o2ib_conn.h). */
#include <errno.h>
#include <string.h>

#include <rte_log.h>

#include "o2ib_conn.h"

RTE_LOG_REGISTER_DEFAULT(o2ib_logtype, NOTICE);

#define NO RT_FSM_NONE
#define IN O2IB_CONN_INIT
#define RS O2IB_CONN_RESOLVING
#define AC O2IB_CONN_ACTIVE_CONNECT
#define PW O2IB_CONN_PASSIVE_WAIT
#define ES O2IB_CONN_ESTABLISHED
#define CL O2IB_CONN_CLOSING
#define DC O2IB_CONN_DISCONNECTED

/*
 * Rows are states, columns the events in enum o2ib_conn_event's order.
 * Before a QP is connected a failure or a close ends the attempt at once;
 * after, closing needs rdma_disconnect and its DISCONNECTED event. A bad
 * CONNACK arrives with the QP connected, so the active side closes.
 */
static const int8_t o2ib_conn_table[O2IB_CONN_NSTATES][O2IB_CONN_NEVENTS] = {
	/*      con res acc est rej fai clo dis */
	[IN] = { RS, NO, PW, NO, NO, DC, DC, NO }, [RS] = { NO, AC, NO, NO, NO, DC, DC, NO },
	[AC] = { NO, NO, NO, ES, DC, DC, CL, DC }, [PW] = { NO, NO, NO, ES, NO, DC, CL, DC },
	[ES] = { NO, NO, NO, NO, NO, CL, CL, CL }, [CL] = { NO, NO, NO, NO, NO, CL, CL, DC },
	[DC] = { NO, NO, NO, NO, NO, DC, DC, DC },
};

static const char *const o2ib_conn_states[O2IB_CONN_NSTATES] = {
	"init",        "resolving", "active_connect", "passive_wait",
	"established", "closing",   "disconnected",
};

static const char *const o2ib_conn_events[O2IB_CONN_NEVENTS] = {
	"connect", "resolved", "accept", "established", "rejected", "fail", "close", "disconnected",
};

const struct rt_fsm o2ib_conn_fsm = {
	.name = "o2iblnd: conn",
	.nstates = O2IB_CONN_NSTATES,
	.nevents = O2IB_CONN_NEVENTS,
	.table = &o2ib_conn_table[0][0],
	.states = o2ib_conn_states,
	.events = o2ib_conn_events,
};

int
o2ib_conn_step(struct o2ib_conn *c, enum o2ib_conn_event ev)
{
	int next = rt_fsm_step(&o2ib_conn_fsm, o2ib_logtype, c->who, c->state, ev, c->counts);

	if (next == RT_FSM_NONE) {
		return -EINVAL;
	}
	c->state = (enum o2ib_conn_state)next;
	return 0;
}

void
o2ib_conn_settle(struct o2ib_conn *c, uint16_t version, uint16_t queue_depth, uint16_t max_frags,
		 uint64_t peer_incarnation, const struct o2ib_credit_tunables *t)
{
	c->version = version;
	c->queue_depth = queue_depth;
	c->max_frags = max_frags;
	c->peer_incarnation = peer_incarnation;
	o2ib_credits_init(&c->cr, version, queue_depth, t);
}

void
o2ib_peer_cm_init(struct o2ib_peer_cm *p, uint16_t peer_credits)
{
	memset(p, 0, sizeof(*p));
	p->queue_depth = peer_credits;
	p->max_frags = O2IB_MAX_RDMA_FRAGS;
}

void
o2ib_connreq_args(const struct o2ib_peer_cm *p, struct o2ib_connreq_args *a)
{
	a->version = p->version != 0 ? p->version : O2IB_MSG_VERSION;
	a->cp.queue_depth = p->queue_depth;
	a->cp.max_frags = p->max_frags;
	a->cp.max_msg_size = O2IB_MSG_SIZE;
	a->dststamp = p->incarnation;
}

/* ---- passive side ---- */

static uint16_t
queue_size_of(const struct o2ib_local *me, uint16_t version)
{
	return version == O2IB_MSG_VERSION_1 ? O2IB_MSG_QUEUE_SIZE_V1 : me->peer_credits;
}

/* Fill the reject as the kernel's failure path does, and say no. */
static void
reject(struct o2ib_passive *out, const struct o2ib_local *me, bool ni_found, uint16_t version,
       uint8_t why)
{
	out->accept = false;
	out->rej = (struct o2ib_rej){ .magic = O2IB_MSG_MAGIC, .version = version, .why = why };
	out->rej.cp.max_msg_size = O2IB_MSG_SIZE;
	if (ni_found) { /* my limits, for the requester to retry within */
		out->rej.incarnation = me->incarnation;
		out->rej.cp.queue_depth = queue_size_of(me, version);
		out->rej.cp.max_frags = O2IB_MAX_RDMA_FRAGS;
	}
}

/* Checks 5-7: the requested limits against mine. */
static bool
limits_ok(const struct o2ib_local *me, struct o2ib_passive *out)
{
	const struct o2ib_connparams *cp = &out->req.u.cp;
	uint16_t v = out->version;
	bool v2 = v == O2IB_MSG_VERSION_2;

	if (cp->queue_depth > queue_size_of(me, v)) {
		reject(out, me, true, v, v2 ? O2IB_REJECT_MSG_QUEUE_SIZE : O2IB_REJECT_FATAL);
		return false;
	}
	if (cp->max_frags > O2IB_MAX_RDMA_FRAGS ||
	    (cp->max_frags < O2IB_MAX_RDMA_FRAGS && !me->have_fastreg)) {
		reject(out, me, true, v, v2 ? O2IB_REJECT_RDMA_FRAGS : O2IB_REJECT_FATAL);
		return false;
	}
	if (cp->max_msg_size > O2IB_MSG_SIZE) {
		reject(out, me, true, v, O2IB_REJECT_FATAL);
		return false;
	}
	return true;
}

/* Checks 8-9 against a peer I already know; true to go on and accept. */
static bool
known_peer_ok(const struct o2ib_local *me, struct o2ib_peer_cm *peer, struct o2ib_passive *out)
{
	const struct o2ib_msg *req = &out->req;

	if (peer->version == 0) {
		peer->version = out->version;
		peer->incarnation = req->srcstamp;
	}
	if (peer->incarnation != req->srcstamp || peer->version != out->version) {
		/*
		 * a rebooted or downgraded peer: what I had with it is stale. The
		 * record takes the new identity, so its retry is accepted.
		 */
		out->close_stale = true;
		peer->incarnation = req->srcstamp;
		peer->version = out->version;
		reject(out, me, true, out->version, O2IB_REJECT_CONN_STALE);
		return false;
	}
	if (peer->connecting != 0 &&
	    o2ib_nid_race_hash(req->srcnid) < o2ib_nid_race_hash(me->nid) &&
	    peer->races < O2IB_MAX_CONN_RACES) {
		peer->races++; /* mine goes on; it will retry and find mine established */
		reject(out, me, true, out->version, O2IB_REJECT_CONN_RACE);
		return false;
	}
	/* after 20 races the lower NID wins: the higher one's attempt seems stuck */
	peer->reconnecting = 0;
	peer->races = 0;
	return true;
}

void
o2ib_passive_check(const struct o2ib_local *me, enum o2ib_dst_match dst, const void *priv,
		   size_t len, struct o2ib_peer_cm *peer, bool known, struct o2ib_passive *out)
{
	memset(out, 0, sizeof(*out));
	out->rc = o2ib_msg_unpack(priv, len, &out->req);
	if (out->rc != 0) {
		reject(out, me, false, O2IB_MSG_VERSION, O2IB_REJECT_FATAL);
		return;
	}
	if (dst != O2IB_DST_OK || out->req.dstnid != me->nid) {
		reject(out, me, false, O2IB_MSG_VERSION,
		       dst == O2IB_DST_EARLY ? O2IB_REJECT_EARLY : O2IB_REJECT_FATAL);
		return;
	}
	if (out->req.dststamp != 0 && out->req.dststamp != me->incarnation) {
		reject(out, me, true, O2IB_MSG_VERSION, O2IB_REJECT_CONN_STALE);
		return;
	}
	out->version = out->req.version; /* from here on I answer in the requester's version */
	if (out->req.type != O2IB_MSG_CONNREQ) {
		reject(out, me, true, out->version, O2IB_REJECT_FATAL);
		return;
	}
	if (!limits_ok(me, out)) {
		return;
	}
	if (!known) {
		o2ib_peer_cm_init(peer, me->peer_credits);
		peer->version = out->version;
		peer->incarnation = out->req.srcstamp;
	} else if (!known_peer_ok(me, peer, out)) {
		return;
	}
	peer->accepting++;
	peer->queue_depth = out->req.u.cp.queue_depth;
	peer->max_frags = out->req.u.cp.max_frags;
	out->accept = true;
	out->cp = (struct o2ib_connparams){ peer->queue_depth, peer->max_frags, O2IB_MSG_SIZE };
}

/* ---- active side ---- */

/* kiblnd_check_reconnect: true when the peer record now asks for another attempt. */
static bool
check_reconnect(const struct o2ib_conn *conn, struct o2ib_peer_cm *peer, uint16_t version,
		uint64_t incarnation, int why, const struct o2ib_connparams *cp)
{
	if (!(peer->tx_queued || peer->version != version) || peer->connecting == 0 ||
	    peer->accepting != 0) {
		return false; /* no need, or another attempt is under way */
	}
	if (why == O2IB_REJECT_RDMA_FRAGS) {
		if (cp == NULL || conn->max_frags <= cp->max_frags) {
			return false; /* nothing smaller to offer */
		}
		peer->max_frags = cp->max_frags;
	} else if (why == O2IB_REJECT_MSG_QUEUE_SIZE) {
		if (cp == NULL || conn->queue_depth <= cp->queue_depth) {
			return false;
		}
		peer->queue_depth = cp->queue_depth;
	}
	peer->reconnecting++;
	peer->version = version;
	if (incarnation != 0) {
		peer->incarnation = incarnation;
	}
	return true;
}

static void
consumer_rejected(const struct o2ib_conn *conn, const struct o2ib_rej *rej,
		  struct o2ib_peer_cm *peer, struct o2ib_rejected *out)
{
	int why = rej->why;

	/* a v1 peer says FATAL to a version it does not speak */
	if (why == O2IB_REJECT_FATAL && rej->version == O2IB_MSG_VERSION_1 &&
	    conn->version != O2IB_MSG_VERSION_1) {
		why = O2IB_REJECT_CONN_UNCOMPAT;
	}
	out->why = why;
	switch (why) {
	case O2IB_REJECT_CONN_RACE:
	case O2IB_REJECT_CONN_STALE:
	case O2IB_REJECT_CONN_UNCOMPAT:
	case O2IB_REJECT_MSG_QUEUE_SIZE:
	case O2IB_REJECT_RDMA_FRAGS:
		out->reconnect = check_reconnect(conn, peer, rej->version, rej->incarnation, why,
						 rej->has_cp ? &rej->cp : NULL);
		break;
	default: /* NO_RESOURCES, FATAL, EARLY, unknown: this attempt failed */
		break;
	}
}

void
o2ib_active_rejected(const struct o2ib_conn *conn, int cm_reason, const void *priv, size_t len,
		     struct o2ib_peer_cm *peer, struct o2ib_rejected *out)
{
	struct o2ib_rej rej;
	int rc;

	*out = (struct o2ib_rejected){ .status = -ECONNREFUSED, .why = -1 };
	switch (cm_reason) {
	case O2IB_CM_REJ_STALE_CONN:
		out->why = O2IB_REJECT_CONN_STALE;
		out->reconnect = check_reconnect(conn, peer, O2IB_MSG_VERSION, 0,
						 O2IB_REJECT_CONN_STALE, NULL);
		break;
	case O2IB_CM_REJ_INVALID_SERVICE_ID:
		out->status = -EHOSTUNREACH; /* nobody listens on the service port */
		break;
	case O2IB_CM_REJ_CONSUMER_DEFINED:
		rc = o2ib_rej_unpack(priv, len, &rej);
		if (rc == 0) {
			consumer_rejected(conn, &rej, peer, out);
		}
		break;
	default:
		break;
	}
}

int
o2ib_check_connack(struct o2ib_conn *conn, const struct o2ib_local *me, const void *priv,
		   size_t len, const struct o2ib_credit_tunables *t)
{
	struct o2ib_msg m;

	if (o2ib_msg_unpack(priv, len, &m) != 0 || m.type != O2IB_MSG_CONNACK ||
	    m.version != conn->version || m.u.cp.queue_depth > conn->queue_depth ||
	    m.u.cp.max_frags > conn->max_frags || m.u.cp.max_msg_size > O2IB_MSG_SIZE) {
		return -EPROTO;
	}
	if (m.dstnid != me->nid || m.dststamp != me->incarnation) {
		return -ESTALE;
	}
	o2ib_conn_settle(conn, conn->version, m.u.cp.queue_depth, m.u.cp.max_frags, m.srcstamp, t);
	return 0;
}

void
o2ib_qp_size(unsigned int version, unsigned int queue_depth, unsigned int max_frags, bool fastreg,
	     uint32_t max_qp_wr, struct o2ib_qp_sizes *out)
{
	uint32_t per_transfer = 1U + max_frags + (fastreg ? 2U : 0U);
	uint32_t send = per_transfer * queue_depth;

	if (send > max_qp_wr) {
		queue_depth = max_qp_wr / per_transfer;
		if (queue_depth == 0) {
			queue_depth = 1;
		}
		send = max_qp_wr;
	}
	out->queue_depth = (uint16_t)queue_depth;
	out->send_wr = send;
	out->recv_wr = 2U * queue_depth + (version == O2IB_MSG_VERSION_1 ? 0U : O2IB_OOB_MSGS_V2);
	out->cqe = out->recv_wr + out->send_wr;
}
