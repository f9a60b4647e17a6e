/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An o2ib NI's RDMA CM side (o2iblnd_cm.h). A connection record lives
 * from the CM id's creation (active: resolve_addr; passive: the connect
 * request) to its end; while it is an attempt it counts in its peer's
 * connecting or accepting, which the race and retry rules read.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "o2iblnd_cm.h"

#define CM_MAX_PEERS 64
#define CM_MAX_CONNS 128
#define CM_RESOLVE_TIMEOUT_MS 5000 /* RDMA_RESOLVE_TIMEOUT */
#define NS_PER_S 1000000000ULL

struct cm_peer {
	bool used;
	lnet_nid_t nid;
	struct o2ib_peer_cm pc;
};

struct cm_conn {
	bool used;
	bool active;
	bool up;         /* established and handed to the owner */
	bool attempting; /* counted in the peer's connecting or accepting */
	void *id;
	struct cm_peer *peer;
	struct o2ib_hw_cq *cq;
	struct o2ib_hw_qp *qp;
	struct o2iblnd_conn *c;
	struct o2ib_connreq_args args; /* active: what the CONNREQ asks */
	uint64_t peer_incarnation;     /* passive: the requester's */
};

struct o2iblnd_cm {
	struct o2iblnd_cm_cfg cfg;
	struct cm_peer peers[CM_MAX_PEERS];
	struct cm_conn conns[CM_MAX_CONNS];
};

/* ---- records ---- */

static struct cm_peer *
peer_find(struct o2iblnd_cm *cm, lnet_nid_t nid, bool create)
{
	struct cm_peer *free_slot = NULL;

	for (int i = 0; i < CM_MAX_PEERS; i++) {
		if (cm->peers[i].used && cm->peers[i].nid == nid) {
			return &cm->peers[i];
		}
		if (!cm->peers[i].used && free_slot == NULL) {
			free_slot = &cm->peers[i];
		}
	}
	if (!create || free_slot == NULL) {
		return NULL;
	}
	free_slot->used = true;
	free_slot->nid = nid;
	o2ib_peer_cm_init(&free_slot->pc, (uint16_t)cm->cfg.tun.peer_credits);
	return free_slot;
}

static struct cm_conn *
conn_alloc(struct o2iblnd_cm *cm)
{
	for (int i = 0; i < CM_MAX_CONNS; i++) {
		if (!cm->conns[i].used) {
			memset(&cm->conns[i], 0, sizeof(cm->conns[i]));
			cm->conns[i].used = true;
			return &cm->conns[i];
		}
	}
	return NULL;
}

static struct cm_conn *
conn_by_id(struct o2iblnd_cm *cm, void *id)
{
	for (int i = 0; i < CM_MAX_CONNS; i++) {
		if (cm->conns[i].used && cm->conns[i].id == id) {
			return &cm->conns[i];
		}
	}
	return NULL;
}

/* The attempt is over: the peer no longer counts it. */
static void
attempt_done(struct cm_conn *k)
{
	if (!k->attempting) {
		return;
	}
	k->attempting = false;
	if (k->active) {
		k->peer->pc.connecting--;
	} else {
		k->peer->pc.accepting--;
	}
}

/* Free @p k and its id; tell the owner with @p status unless it was never its business. */
static void
conn_free(struct o2iblnd_cm *cm, struct cm_conn *k, int status, bool tell)
{
	attempt_done(k);
	if (tell) {
		cm->cfg.conn_down(cm->cfg.arg, k->peer->nid, k->up ? k->c : NULL, status);
	}
	o2iblnd_conn_destroy(k->c);
	if (k->qp != NULL) {
		cm->cfg.hw->qp_destroy(k->qp);
	}
	if (k->cq != NULL) {
		cm->cfg.hw->cq_destroy(k->cq);
	}
	if (k->id != NULL) {
		cm->cfg.ops->destroy(k->id);
	}
	k->used = false;
}

/*
 * CQ, QP (sized by o2ib_qp_size; one less deep on ENOMEM, to 1) and
 * engine for @p k. Returns the depth the QP holds, or -errno.
 */
static int
conn_build(struct o2iblnd_cm *cm, struct cm_conn *k, uint16_t version, uint16_t depth,
	   uint16_t frags)
{
	const struct o2iblnd_opts *o = &cm->cfg.opts;
	struct o2ib_qp_sizes sz;
	struct o2iblnd_conn_cfg ec;
	int rc;

	o2ib_qp_size(version, depth, frags, true, cm->cfg.max_qp_wr, &sz);
	rc = cm->cfg.hw->cq_create(cm->cfg.dev, sz.cqe, &k->cq);
	while (rc == 0) {
		const struct o2ib_hw_qp_caps caps = { sz.send_wr, sz.recv_wr,
						      (uint32_t)o->wrq_sge };

		rc = cm->cfg.hw->qp_create(cm->cfg.dev, k->id, k->cq, &caps, &k->qp);
		if (rc != -ENOMEM || sz.queue_depth < 2) {
			break;
		}
		o2ib_qp_size(version, sz.queue_depth - 1U, frags, true, cm->cfg.max_qp_wr, &sz);
		rc = 0;
	}
	if (rc != 0) {
		return rc;
	}
	ec = (struct o2iblnd_conn_cfg){
		.hw = cm->cfg.hw,
		.dev = cm->cfg.dev,
		.qp = k->qp,
		.cq = k->cq,
		.me = &cm->cfg.me,
		.peer_nid = k->peer->nid,
		.version = version,
		.queue_depth = sz.queue_depth,
		.ntx = 2U * sz.queue_depth + 8U,
		.wrq_sge = (uint32_t)o->wrq_sge,
		.tun = cm->cfg.tun,
		.timeout_ns = (uint64_t)o->timeout * NS_PER_S,
		.keepalive_ns = (uint64_t)o->keepalive * NS_PER_S,
		.cksum = o->cksum != 0,
		.ops = cm->cfg.conn_ops,
		.arg = cm->cfg.conn_arg,
	};
	rc = o2iblnd_conn_create(&ec, &k->c);
	return rc != 0 ? rc : sz.queue_depth;
}

/* A CONNREQ or CONNACK (@p type) into @p buf; its nob. */
static int
conn_msg(struct o2iblnd_cm *cm, uint8_t *buf, unsigned int type, uint16_t version,
	 const struct o2ib_connparams *cp, lnet_nid_t dst, uint64_t dststamp)
{
	const struct o2ib_stamp st = {
		version, 0,       cm->cfg.opts.cksum != 0, cm->cfg.me.nid, cm->cfg.me.incarnation,
		dst,     dststamp
	};
	int nob = o2ib_msg_connparams(buf, O2IB_MSG_SIZE, type, cp);

	o2ib_msg_stamp(buf, &st);
	return nob;
}

/* ---- active side ---- */

static int
start_connect(struct o2iblnd_cm *cm, struct cm_peer *p)
{
	struct cm_conn *k = conn_alloc(cm);
	uint32_t dst = htonl((uint32_t)p->nid); /* an o2ib nid4's address is its IPv4 */
	int rc;

	if (k == NULL) {
		return -ENOMEM;
	}
	k->active = true;
	k->peer = p;
	o2ib_connreq_args(&p->pc, &k->args);
	rc = cm->cfg.ops->resolve_addr(cm->cfg.ctx, cm->cfg.ipv4, dst,
				       (uint16_t)cm->cfg.opts.service,
				       cm->cfg.opts.use_privileged_port != 0, CM_RESOLVE_TIMEOUT_MS,
				       &k->id);
	if (rc != 0) {
		k->id = NULL;
		conn_free(cm, k, rc, false);
		return rc;
	}
	k->attempting = true;
	p->pc.connecting++;
	return 0;
}

/* Route resolved: QP, engine, CONNREQ. */
static int
route_resolved(struct o2iblnd_cm *cm, struct cm_conn *k)
{
	uint8_t req[O2IB_MSG_SIZE];
	struct o2ib_conn *pc;
	int depth =
		conn_build(cm, k, k->args.version, k->args.cp.queue_depth, k->args.cp.max_frags);
	int nob;

	if (depth < 0) {
		return depth;
	}
	k->args.cp.queue_depth = (uint16_t)depth; /* the device may hold less than asked */
	pc = o2iblnd_conn_proto(k->c);
	pc->max_frags = k->args.cp.max_frags;
	pc->queue_depth = k->args.cp.queue_depth;
	o2ib_conn_step(pc, O2IB_CONN_EV_CONNECT);
	o2ib_conn_step(pc, O2IB_CONN_EV_RESOLVED);
	nob = conn_msg(cm, req, O2IB_MSG_CONNREQ, k->args.version, &k->args.cp, k->peer->nid,
		       k->args.dststamp);
	return cm->cfg.ops->connect(k->id, req, (uint8_t)nob, (uint8_t)cm->cfg.opts.retry_count,
				    (uint8_t)cm->cfg.opts.rnr_retry_count);
}

static void
active_established(struct o2iblnd_cm *cm, struct cm_conn *k, const struct o2iblnd_cm_event *ev)
{
	struct o2ib_conn *pc = o2iblnd_conn_proto(k->c);
	int rc = o2ib_check_connack(pc, &cm->cfg.me, ev->priv, ev->priv_len, &cm->cfg.tun);

	if (rc != 0) {
		/* the QP is connected: disconnect, as the kernel's comms error does */
		cm->cfg.ops->disconnect(k->id);
		conn_free(cm, k, rc, true);
		return;
	}
	o2iblnd_conn_established(k->c, pc->queue_depth, pc->max_frags, pc->peer_incarnation);
	k->peer->pc.version = pc->version;
	k->peer->pc.incarnation = pc->peer_incarnation;
	k->peer->pc.tx_queued = false; /* what waited goes on this connection */
	attempt_done(k);
	k->up = true;
	cm->cfg.conn_up(cm->cfg.arg, k->peer->nid, k->c);
}

static void
rejected(struct o2iblnd_cm *cm, struct cm_conn *k, const struct o2iblnd_cm_event *ev)
{
	struct cm_peer *p = k->peer;
	struct o2ib_conn proto = *o2iblnd_conn_proto(k->c);
	struct o2ib_rejected r;

	proto.version = k->args.version;
	proto.queue_depth = k->args.cp.queue_depth;
	proto.max_frags = k->args.cp.max_frags;
	/* a retry counts in reconnecting; reconnect_due starts it after this batch of events */
	o2ib_active_rejected(&proto, ev->status, ev->priv, ev->priv_len, &p->pc, &r);
	conn_free(cm, k, r.status, !r.reconnect);
}

/*
 * The kernel's kiblnd_reconnect_peer, run after the events at hand as its
 * connd runs after the CM callback: a retry goes ahead unless accepting the
 * peer's own request meanwhile cancelled it (o2ib_passive_check clears
 * reconnecting).
 */
static void
reconnect_due(struct o2iblnd_cm *cm)
{
	for (int i = 0; i < CM_MAX_PEERS; i++) {
		struct cm_peer *p = &cm->peers[i];

		while (p->used && p->pc.reconnecting > 0) {
			p->pc.reconnecting--;
			if (start_connect(cm, p) != 0) {
				cm->cfg.conn_down(cm->cfg.arg, p->nid, NULL, -ENOMEM);
			}
		}
	}
}

/* ---- passive side ---- */

static void
close_peer_conns(struct o2iblnd_cm *cm, struct cm_peer *p, int error)
{
	for (int i = 0; i < CM_MAX_CONNS; i++) {
		struct cm_conn *k = &cm->conns[i];

		if (k->used && k->peer == p && k->up) {
			o2iblnd_cm_close(cm, k->c, error);
		}
	}
}

static void
connect_request(struct o2iblnd_cm *cm, const struct o2iblnd_cm_event *ev)
{
	struct o2ib_passive out;
	struct o2ib_peer_cm fresh;
	struct o2ib_msg m;
	struct cm_peer *p = NULL;
	struct cm_conn *k;
	uint8_t buf[O2IB_MSG_SIZE];
	int depth;
	int nob;

	if (o2ib_msg_unpack(ev->priv, ev->priv_len, &m) == 0) {
		p = peer_find(cm, m.srcnid, false);
	}
	o2ib_passive_check(&cm->cfg.me, O2IB_DST_OK, ev->priv, ev->priv_len, p ? &p->pc : &fresh,
			   p != NULL, &out);
	if (out.close_stale) {
		close_peer_conns(cm, p, -ESTALE);
	}
	k = out.accept ? conn_alloc(cm) : NULL;
	if (out.accept && p == NULL) {
		p = peer_find(cm, out.req.srcnid, true);
		if (p != NULL) {
			p->pc = fresh;
		}
	}
	if (!out.accept || k == NULL || p == NULL) {
		if (out.accept) { /* no room: the kernel's NO_RESOURCES */
			out.rej = (struct o2ib_rej){ .magic = O2IB_MSG_MAGIC,
						     .version = out.version,
						     .why = O2IB_REJECT_NO_RESOURCES };
			if (k != NULL) {
				k->used = false;
			}
			if (p != NULL) {
				p->pc.accepting--;
			}
		}
		nob = o2ib_rej_pack(buf, sizeof(buf), &out.rej);
		cm->cfg.ops->reject(ev->id, buf, (uint8_t)nob);
		cm->cfg.ops->destroy(ev->id);
		return;
	}
	k->id = ev->id;
	k->peer = p;
	k->attempting = true; /* o2ib_passive_check counted it in accepting */
	k->peer_incarnation = out.req.srcstamp;
	depth = conn_build(cm, k, out.version, out.cp.queue_depth, out.cp.max_frags);
	if (depth < 0) {
		out.rej = (struct o2ib_rej){ .magic = O2IB_MSG_MAGIC,
					     .version = out.version,
					     .why = O2IB_REJECT_NO_RESOURCES };
		nob = o2ib_rej_pack(buf, sizeof(buf), &out.rej);
		cm->cfg.ops->reject(k->id, buf, (uint8_t)nob);
		conn_free(cm, k, depth, false);
		return;
	}
	out.cp.queue_depth = (uint16_t)depth;
	o2iblnd_conn_proto(k->c)->max_frags = out.cp.max_frags;
	o2ib_conn_step(o2iblnd_conn_proto(k->c), O2IB_CONN_EV_ACCEPT);
	nob = conn_msg(cm, buf, O2IB_MSG_CONNACK, out.version, &out.cp, out.req.srcnid,
		       out.req.srcstamp);
	if (cm->cfg.ops->accept(k->id, buf, (uint8_t)nob, (uint8_t)cm->cfg.opts.retry_count,
				(uint8_t)cm->cfg.opts.rnr_retry_count) != 0) {
		conn_free(cm, k, -ECONNABORTED, false);
	}
}

static void
passive_established(struct o2iblnd_cm *cm, struct cm_conn *k)
{
	struct o2ib_conn *pc = o2iblnd_conn_proto(k->c);

	o2iblnd_conn_established(k->c, pc->queue_depth, pc->max_frags, k->peer_incarnation);
	k->peer->pc.tx_queued = false; /* what waited goes on this connection */
	attempt_done(k);
	k->up = true;
	cm->cfg.conn_up(cm->cfg.arg, k->peer->nid, k->c);
}

/* ---- events ---- */

static int
fail_status(enum o2iblnd_cm_ev_type t)
{
	return t == O2IBLND_CM_CONNECT_ERROR ? -ECONNABORTED : -EHOSTUNREACH;
}

static void
handle_event(struct o2iblnd_cm *cm, const struct o2iblnd_cm_event *ev)
{
	struct cm_conn *k;
	int rc;

	if (ev->type == O2IBLND_CM_CONNECT_REQUEST) {
		connect_request(cm, ev);
		return;
	}
	k = conn_by_id(cm, ev->id);
	if (k == NULL) {
		return; /* an id we already let go of */
	}
	switch (ev->type) {
	case O2IBLND_CM_ADDR_RESOLVED:
		rc = cm->cfg.ops->resolve_route(k->id, CM_RESOLVE_TIMEOUT_MS);
		if (rc != 0) {
			conn_free(cm, k, rc, true);
		}
		break;
	case O2IBLND_CM_ROUTE_RESOLVED:
		rc = route_resolved(cm, k);
		if (rc != 0) {
			conn_free(cm, k, rc, true);
		}
		break;
	case O2IBLND_CM_ESTABLISHED:
		if (k->active) {
			active_established(cm, k, ev);
		} else {
			passive_established(cm, k);
		}
		break;
	case O2IBLND_CM_REJECTED:
		if (k->active) {
			rejected(cm, k, ev);
		} else {
			conn_free(cm, k, -ECONNREFUSED, false);
		}
		break;
	case O2IBLND_CM_DISCONNECTED:
		conn_free(cm, k,
			  k->c != NULL && o2iblnd_conn_proto(k->c)->error != 0 ?
				  o2iblnd_conn_proto(k->c)->error :
				  -ECONNRESET,
			  k->up || k->active);
		break;
	case O2IBLND_CM_ADDR_ERROR:
	case O2IBLND_CM_ROUTE_ERROR:
	case O2IBLND_CM_UNREACHABLE:
	case O2IBLND_CM_CONNECT_ERROR:
		conn_free(cm, k, fail_status(ev->type), k->up || k->active);
		break;
	default:
		break;
	}
}

int
o2iblnd_cm_poll(struct o2iblnd_cm *cm)
{
	struct o2iblnd_cm_event ev;
	int n = 0;

	while (cm->cfg.ops->get_event(cm->cfg.ctx, &ev) == 0) {
		handle_event(cm, &ev);
		n++;
	}
	reconnect_due(cm);
	for (int i = 0; i < CM_MAX_CONNS; i++) {
		if (cm->conns[i].used && cm->conns[i].c != NULL) {
			o2iblnd_conn_poll(cm->conns[i].c, 64);
		}
	}
	return n;
}

/* ---- the NI's calls ---- */

int
o2iblnd_cm_create(const struct o2iblnd_cm_cfg *cfg, struct o2iblnd_cm **out)
{
	struct o2iblnd_cm *cm = calloc(1, sizeof(*cm));

	if (cm == NULL) {
		return -ENOMEM;
	}
	cm->cfg = *cfg;
	*out = cm;
	return 0;
}

void
o2iblnd_cm_destroy(struct o2iblnd_cm *cm)
{
	if (cm == NULL) {
		return;
	}
	for (int i = 0; i < CM_MAX_CONNS; i++) {
		if (cm->conns[i].used) {
			conn_free(cm, &cm->conns[i], -ESHUTDOWN, cm->conns[i].up);
		}
	}
	free(cm);
}

int
o2iblnd_cm_listen(struct o2iblnd_cm *cm)
{
	return cm->cfg.ops->listen(cm->cfg.ctx, cm->cfg.ipv4, (uint16_t)cm->cfg.opts.service);
}

int
o2iblnd_cm_connect(struct o2iblnd_cm *cm, lnet_nid_t peer, bool tx_queued)
{
	struct cm_peer *p = peer_find(cm, peer, true);

	if (p == NULL) {
		return -ENOMEM;
	}
	p->pc.tx_queued = tx_queued;
	return start_connect(cm, p);
}

void
o2iblnd_cm_close(struct o2iblnd_cm *cm, struct o2iblnd_conn *c, int error)
{
	for (int i = 0; i < CM_MAX_CONNS; i++) {
		if (cm->conns[i].used && cm->conns[i].c == c) {
			o2iblnd_conn_close(c, error);
			cm->cfg.ops->disconnect(cm->conns[i].id);
			return;
		}
	}
}

const struct o2ib_peer_cm *
o2iblnd_cm_peer(struct o2iblnd_cm *cm, lnet_nid_t peer)
{
	struct cm_peer *p = peer_find(cm, peer, false);

	return p != NULL ? &p->pc : NULL;
}
