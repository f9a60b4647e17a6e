/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The o2ib LND's ops: an NI on the RDMA device behind --if, its peers and
 * their connections, and LNet messages onto the engines. A message whose
 * payload fits one 4 KiB message goes IMMEDIATE, a larger one (a PUT or a
 * REPLY) PUT_REQ -> PUT_ACK -> RDMA WRITE -> PUT_DONE, as kiblnd_send
 * chooses. A GET always goes IMMEDIATE: the REPLY comes back as its own
 * message (a GET_REQ needs the REPLY's buffer before LNet has made it).
 *
 * This slice moves payloads through bounce buffers registered per message
 * (one key per sink, as the kernel's fast registration gives); the
 * zero-copy path with registered pools is still to come.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "o2iblnd.h"
#include "o2iblnd_params.h"
#include "rt.h"

#define O2IBLND_MAX_PEERS 64
#define O2IBLND_MAX_CPP 4 /* connections per peer kept (conns_per_peer is at most 127) */

struct o2iblnd_pend {
	struct o2iblnd_pend *next;
	struct lnet_msg *msg;
};

struct o2iblnd_peer {
	bool used;
	lnet_nid_t nid;
	bool connecting;
	unsigned int nconns;
	unsigned int next; /* round robin over conns */
	struct o2iblnd_conn *conns[O2IBLND_MAX_CPP];
	struct o2iblnd_pend *head; /* messages waiting for a connection, in order */
	struct o2iblnd_pend **tail;
};

/* A message being sent: its bounce buffer when it goes by RDMA. */
struct o2iblnd_tx {
	struct lnet_msg *msg;
	void *buf;
	struct o2ib_hw_mr *mr;
};

/* What lnet_parse() hands back to recv(): the engine's receive. */
struct o2iblnd_rxctx {
	struct o2iblnd_rx *rx;
	uint8_t type;
	const uint8_t *payload; /* IMMEDIATE */
	uint32_t nob;
};

/* An incoming PUT_REQ accepted: the peer writes into buf, copied out at PUT_DONE. */
struct o2iblnd_sink {
	struct lnet_msg *msg;
	void *buf;
	struct o2ib_hw_mr *mr;
	unsigned int niov;
	const struct iovec *iov;
	unsigned int offset;
	unsigned int mlen;
};

struct o2iblnd_ni {
	struct lnet_ni *ni;
	struct o2iblnd_backend be;
	struct o2ib_hw_dev *dev;
	struct o2ib_hw_info info;
	void *cm_ctx;
	struct o2iblnd_cm *cm;
	struct o2iblnd_opts opts;
	struct rt_poller *poller;
	struct o2iblnd_stats stats;
	struct o2iblnd_peer peers[O2IBLND_MAX_PEERS];
};

static struct o2iblnd_backend o2iblnd_be = {
	&o2ib_hw_verbs,
	&o2iblnd_cm_rdmacm,
	o2iblnd_cm_rdmacm_open,
	o2iblnd_cm_rdmacm_close,
};

void
o2iblnd_backend_set(const struct o2iblnd_backend *be)
{
	o2iblnd_be = *be;
}

static struct o2iblnd_peer *
peer_find(struct o2iblnd_ni *o, lnet_nid_t nid, bool create)
{
	struct o2iblnd_peer *free_slot = NULL;

	for (int i = 0; i < O2IBLND_MAX_PEERS; i++) {
		struct o2iblnd_peer *p = &o->peers[i];

		if (p->used && p->nid == nid) {
			return p;
		}
		if (!p->used && free_slot == NULL) {
			free_slot = p;
		}
	}
	if (!create || free_slot == NULL) {
		return NULL;
	}
	*free_slot = (struct o2iblnd_peer){ .used = true, .nid = nid };
	free_slot->tail = &free_slot->head;
	return free_slot;
}

/* The kernel's health status of messages failed because a connection could not be made (kiblnd_peer_connect_failed). */
static enum lnet_msg_hstatus
connect_hstatus(int error)
{
	switch (error) {
	case -EHOSTUNREACH:
	case -ETIMEDOUT:
		return LNET_MSG_STATUS_NETWORK_TIMEOUT;
	case -ECONNREFUSED:
		return LNET_MSG_STATUS_REMOTE_DROPPED;
	default:
		return LNET_MSG_STATUS_LOCAL_DROPPED;
	}
}

static void
tx_free(struct o2iblnd_ni *o, struct o2iblnd_tx *tx)
{
	if (tx->mr != NULL) {
		o->be.hw->dereg_mem(tx->mr);
	}
	free(tx->buf);
	free(tx);
}

/* @p msg onto @p c: IMMEDIATE when its payload fits one message, else by RDMA WRITE. */
static int
send_on(struct o2iblnd_ni *o, struct o2iblnd_conn *c, struct lnet_msg *msg)
{
	const struct lnet_hdr *h = lnet_msg_hdr(msg);
	struct o2iblnd_tx *tx = calloc(1, sizeof(*tx));
	const struct iovec *iov;
	struct o2ib_hw_sge sge;
	unsigned int niov;
	unsigned int off;
	unsigned int len;
	uint32_t rkey;
	int rc;

	if (tx == NULL) {
		return -ENOMEM;
	}
	tx->msg = msg;
	lnet_msg_payload(msg, &niov, &iov, &off, &len);
	if (len <= O2IB_IMMEDIATE_MAX) {
		rc = o2iblnd_send_immediate(c, h, iov, niov, off, len, tx);
		o->stats.tx_immediate += rc == 0;
	} else {
		tx->buf = malloc(len);
		rc = tx->buf == NULL ?
			     -ENOMEM :
			     o->be.hw->reg_mem(o->dev, tx->buf, len, &tx->mr, &sge.lkey, &rkey);
		if (rc == 0) {
			lnet_iov_copy(&(struct iovec){ tx->buf, len }, 1, 0, iov, niov, off, len);
			sge.addr = (uintptr_t)tx->buf;
			sge.len = len;
			rc = o2iblnd_send_put(c, h, &sge, 1, tx);
			o->stats.tx_rdma += rc == 0;
		}
	}
	if (rc != 0) {
		tx_free(o, tx);
	}
	return rc;
}

static int
o2iblnd_send(struct lnet_ni *ni, struct lnet_msg *msg)
{
	struct o2iblnd_ni *o = lnet_ni_lnd_data(ni);
	lnet_nid_t to = lnet_nid_to_nid4(lnet_msg_nexthop(msg));
	struct o2iblnd_peer *p = peer_find(o, to, true);
	struct o2iblnd_pend *w;
	int rc;

	if (p == NULL) {
		return -ENOMEM;
	}
	if (p->nconns > 0) {
		struct o2iblnd_conn *c = p->conns[p->next++ % p->nconns];

		return send_on(o, c, msg);
	}
	w = malloc(sizeof(*w));
	if (w == NULL) {
		return -ENOMEM;
	}
	*w = (struct o2iblnd_pend){ NULL, msg };
	*p->tail = w;
	p->tail = &w->next;
	if (!p->connecting) {
		rc = o2iblnd_cm_connect(o->cm, to, true);
		if (rc != 0) {
			p->tail = &p->head; /* the only one waiting: the core fails it */
			p->head = NULL;
			free(w);
			return rc;
		}
		p->connecting = true;
	}
	return 0;
}

/* Messages waiting for @p p's first connection: onto @p c, or failed with @p error. */
static void
peer_flush(struct o2iblnd_ni *o, struct o2iblnd_peer *p, struct o2iblnd_conn *c, int error)
{
	struct o2iblnd_pend *w;

	while ((w = p->head) != NULL) {
		int rc = c != NULL ? send_on(o, c, w->msg) : error;

		p->head = w->next;
		if (rc != 0) {
			lnet_finalize_hstatus(w->msg, rc,
					      c != NULL ? LNET_MSG_STATUS_LOCAL_ERROR :
							  connect_hstatus(rc));
		}
		free(w);
	}
	p->tail = &p->head;
}

static void
on_conn_up(void *arg, lnet_nid_t peer, struct o2iblnd_conn *c)
{
	struct o2iblnd_ni *o = arg;
	struct o2iblnd_peer *p = peer_find(o, peer, true);

	o->stats.conns_up++;
	if (p == NULL || p->nconns == O2IBLND_MAX_CPP) {
		o2iblnd_cm_close(o->cm, c, -ENOMEM);
		return;
	}
	p->connecting = false;
	p->conns[p->nconns++] = c;
	peer_flush(o, p, c, 0);
}

static void
on_conn_down(void *arg, lnet_nid_t peer, struct o2iblnd_conn *c, int status)
{
	struct o2iblnd_ni *o = arg;
	struct o2iblnd_peer *p = peer_find(o, peer, false);

	if (c == NULL) {
		o->stats.connect_failures++;
	} else {
		o->stats.conns_down++;
	}
	if (p == NULL) {
		return;
	}
	for (unsigned int i = 0; c != NULL && i < p->nconns; i++) {
		if (p->conns[i] == c) {
			p->conns[i] = p->conns[--p->nconns];
			break;
		}
	}
	if (c == NULL) {
		p->connecting = false;
		if (p->nconns == 0) {
			peer_flush(o, p, NULL, status != 0 ? status : -EHOSTUNREACH);
		}
	}
}

/* A message I sent is done; a connection's failure is the kernel's "connection aborted". */
static void
on_tx_done(void *arg, void *user, int status)
{
	struct o2iblnd_ni *o = arg;
	struct o2iblnd_tx *tx = user;

	if (status >= 0) {
		lnet_finalize(tx->msg, 0);
	} else if (status == -ETIMEDOUT) {
		lnet_finalize_hstatus(tx->msg, status, LNET_MSG_STATUS_NETWORK_TIMEOUT);
	} else if (status == -ENODATA || status == -EPROTO) {
		lnet_finalize_hstatus(tx->msg, status, LNET_MSG_STATUS_REMOTE_ERROR);
	} else {
		lnet_finalize_hstatus(tx->msg, status, LNET_MSG_STATUS_LOCAL_ERROR);
	}
	tx_free(o, tx);
}

static void
sink_free(struct o2iblnd_ni *o, struct o2iblnd_sink *s)
{
	if (s->mr != NULL) {
		o->be.hw->dereg_mem(s->mr);
	}
	free(s->buf);
	free(s);
}

/* An incoming PUT landed (PUT_DONE): its bytes into the MD. */
static void
on_sink_done(void *arg, void *user, int status)
{
	struct o2iblnd_ni *o = arg;
	struct o2iblnd_sink *s = user;

	if (status == 0) {
		lnet_iov_copy(s->iov, s->niov, s->offset, &(struct iovec){ s->buf, s->mlen }, 1, 0,
			      s->mlen);
		o->stats.rx_rdma++;
	}
	lnet_finalize(s->msg, status);
	sink_free(o, s);
}

/* An IMMEDIATE, PUT_REQ or GET_REQ arrived: its LNet header to lnet_parse(). */
static void
on_rx(void *arg, struct o2iblnd_rx *rx, const struct o2ib_msg *m)
{
	struct o2iblnd_ni *o = arg;
	struct o2iblnd_conn *c = o2iblnd_rx_conn(rx);
	const uint8_t *raw = m->type == O2IB_MSG_IMMEDIATE ? m->u.imm.lnet_hdr :
			     m->type == O2IB_MSG_PUT_REQ   ? m->u.put_req.lnet_hdr :
							     NULL;
	struct o2iblnd_rxctx *x;
	struct lnet_nid from;
	struct lnet_hdr h;

	if (raw == NULL) { /* GET_REQ: its REPLY cannot be written by RDMA yet */
		o->stats.rx_refused++;
		o2iblnd_get_nak(c, rx, -EPROTO);
		return;
	}
	x = malloc(sizeof(*x));
	if (x == NULL || lnet_hdr_decode_nid4(raw, O2IB_LNET_HDR_SIZE, &h) != 0) {
		free(x);
		lnet_ni_count_error(o->ni);
		o2iblnd_cm_close(o->cm, c, -EPROTO);
		return;
	}
	*x = (struct o2iblnd_rxctx){ rx, m->type, NULL, 0 };
	if (m->type == O2IB_MSG_IMMEDIATE) {
		x->payload = m->u.imm.payload;
		x->nob = m->u.imm.payload_nob;
		o->stats.rx_immediate++;
	}
	lnet_nid4_to_nid(m->srcnid, &from);
	if (lnet_parse(o->ni, &h, &from, x) != 0) {
		free(x);
		o2iblnd_cm_close(o->cm, c, -EPROTO); /* as kiblnd_handle_rx on a bad header */
	}
}

/* A PUT_REQ's sink: a registered buffer the peer writes @p mlen bytes into. */
static int
sink_accept(struct o2iblnd_ni *o, struct o2iblnd_rxctx *x, struct lnet_msg *msg, unsigned int niov,
	    const struct iovec *iov, unsigned int offset, unsigned int mlen)
{
	struct o2iblnd_sink *s = calloc(1, sizeof(*s));
	struct o2ib_frag frag;
	uint32_t lkey;
	uint32_t rkey;
	int rc = s == NULL ? -ENOMEM : 0;

	if (rc == 0) {
		*s = (struct o2iblnd_sink){ msg, malloc(mlen), NULL, niov, iov, offset, mlen };
		rc = s->buf == NULL ? -ENOMEM :
				      o->be.hw->reg_mem(o->dev, s->buf, mlen, &s->mr, &lkey, &rkey);
	}
	if (rc == 0) {
		frag = (struct o2ib_frag){ mlen, (uintptr_t)s->buf };
		rc = o2iblnd_put_ack(o2iblnd_rx_conn(x->rx), x->rx, rkey, &frag, 1, s);
	}
	if (rc != 0 && s != NULL) {
		sink_free(o, s);
	}
	return rc;
}

static int
o2iblnd_recv(struct lnet_ni *ni, void *private, struct lnet_msg *msg, unsigned int niov,
	     const struct iovec *iov, unsigned int offset, unsigned int mlen, unsigned int rlen)
{
	struct o2iblnd_ni *o = lnet_ni_lnd_data(ni);
	struct o2iblnd_rxctx *x = private;
	struct o2iblnd_conn *c = o2iblnd_rx_conn(x->rx);
	int rc = 0;

	(void)rlen;
	if (x->type == O2IB_MSG_IMMEDIATE) {
		if (msg != NULL && mlen > 0) {
			lnet_iov_copy(iov, niov, offset,
				      &(struct iovec){ (void *)x->payload, x->nob }, 1, 0, mlen);
		}
		o2iblnd_rx_done(c, x->rx);
		if (msg != NULL) {
			lnet_finalize(msg, 0);
		}
	} else if (msg == NULL) { /* a PUT nobody takes: the kernel NAKs it */
		o2iblnd_put_nak(c, x->rx, -ENODATA);
	} else if (mlen == 0) {
		o2iblnd_put_nak(c, x->rx, 0);
		lnet_finalize(msg, 0);
	} else {
		rc = sink_accept(o, x, msg, niov, iov, offset, mlen);
		if (rc != 0) {
			o2iblnd_put_nak(c, x->rx, rc);
			lnet_finalize(msg, rc);
			rc = 0;
		}
	}
	free(x);
	return rc;
}

static int
o2iblnd_poll(void *arg)
{
	struct o2iblnd_ni *o = arg;

	return o2iblnd_cm_poll(o->cm);
}

/* On the NI's data lcore: from now on it polls the CM and the CQs. */
static void
o2iblnd_start_polling(void *arg)
{
	struct o2iblnd_ni *o = arg;

	o->poller = rt_poller_register(rt_lcore_self(), o2iblnd_poll, o, 0, "o2iblnd");
	if (!o->info.port_active) {
		lnet_ni_link_state(o->ni, false);
	}
}

static const struct o2iblnd_conn_ops o2iblnd_engine_ops = { on_rx, on_tx_done, on_sink_done };

static void
ni_free(struct o2iblnd_ni *o)
{
	if (o->cm != NULL) {
		o2iblnd_cm_destroy(o->cm);
	}
	for (int i = 0; i < O2IBLND_MAX_PEERS; i++) {
		if (o->peers[i].used) {
			peer_flush(o, &o->peers[i], NULL, -ESHUTDOWN);
		}
	}
	if (o->cm_ctx != NULL) {
		o->be.cm_close(o->cm_ctx);
	}
	if (o->dev != NULL) {
		o->be.hw->close(o->dev);
	}
	free(o);
}

static int
cm_start(struct o2iblnd_ni *o)
{
	struct o2iblnd_cm_cfg cfg = {
		.ops = o->be.cm,
		.ctx = o->cm_ctx,
		.hw = o->be.hw,
		.dev = o->dev,
		.max_qp_wr = o->info.max_qp_wr,
		.ipv4 = o->info.ipv4,
		.opts = o->opts,
		.conn_ops = &o2iblnd_engine_ops,
		.conn_arg = o,
		.conn_up = on_conn_up,
		.conn_down = on_conn_down,
		.arg = o,
	};
	struct timespec ts;
	int rc;

	clock_gettime(CLOCK_REALTIME, &ts);
	/* One incarnation per NI lifetime: µs of wall-clock time, as the kernel stamps it. */
	cfg.me = (struct o2ib_local){ lnet_nid_to_nid4(lnet_ni_nid(o->ni)),
				      (uint64_t)ts.tv_sec * 1000000ULL +
					      (uint64_t)ts.tv_nsec / 1000ULL,
				      (uint16_t)lnet_ni_peer_credits(o->ni), true };
	o2iblnd_credit_tunables(&o->opts, lnet_ni_credits(o->ni), lnet_ni_peer_credits(o->ni),
				&cfg.tun);
	rc = o2iblnd_cm_create(&cfg, &o->cm);
	return rc != 0 ? rc : o2iblnd_cm_listen(o->cm);
}

/*
 * The device behind the NI's interface, the CM listening on it. Whatever
 * fails (no RDMA device, no address, no CM), the kernel's kiblnd_startup
 * answers -ENETDOWN: lnetctl shows its error block as for ksocklnd.
 */
static int
ni_bring_up(struct o2iblnd_ni *o)
{
	int rc = o->be.hw->open(lnet_ni_ifname(o->ni), &o->dev, &o->info);

	if (rc == 0) {
		lnet_ni_set_dev_node(o->ni, o->info.numa_node);
		rc = o->be.cm_open(&o->cm_ctx);
	}
	if (rc == 0) {
		rc = cm_start(o);
	}
	return rc != 0 ? -ENETDOWN : 0;
}

/* On the management lcore: the device behind --if, the CM listening, then polling on the NI's lcore. */
static int
o2iblnd_startup(struct lnet_ni *ni)
{
	struct o2iblnd_ni *o = calloc(1, sizeof(*o));
	int rc;

	if (o == NULL) {
		return -ENOMEM;
	}
	o->ni = ni;
	o->be = o2iblnd_be;
	rc = o2iblnd_ni_opts(lnet_ni_lnd_tunables(ni), &o->opts, NULL, 0);
	if (rc == 0) {
		rc = ni_bring_up(o);
	}
	if (rc == 0) {
		lnet_ni_set_lnd_data(ni, o);
		rc = rt_lcore_send_msg(lnet_ni_lcore(ni), o2iblnd_start_polling, o);
	}
	if (rc != 0) {
		lnet_ni_set_lnd_data(ni, NULL);
		ni_free(o);
	}
	return rc;
}

/* On the NI's data lcore: every connection closes, what was held completes. */
static void
o2iblnd_shutdown(struct lnet_ni *ni)
{
	struct o2iblnd_ni *o = lnet_ni_lnd_data(ni);

	if (o == NULL) {
		return;
	}
	if (o->poller != NULL) {
		rt_poller_unregister(&o->poller);
	}
	ni_free(o);
	lnet_ni_set_lnd_data(ni, NULL);
}

static unsigned int
o2iblnd_tunables(const struct lnet_ni *ni, struct lnet_ctl_lnd_tunable *out, unsigned int max)
{
	const struct o2iblnd_ni *o = lnet_ni_lnd_data(ni);

	/* timeout 0 follows LNet's lnd_timeout, shown as its value (as the kernel's) */
	int timeout = o->opts.timeout != 0 ? o->opts.timeout : (int)lnet_ni_lnd_timeout(ni);

	return o2iblnd_ni_tunables(&o->opts, timeout, out, max);
}

static unsigned int
o2iblnd_counters(const struct lnet_ni *ni, struct lnet_ctl_lnd_counter *out, unsigned int max)
{
	const struct o2iblnd_ni *o = lnet_ni_lnd_data(ni);
	const struct o2iblnd_stats *st = &o->stats;
	const struct lnet_ctl_lnd_counter all[] = {
		{ "conns_up", st->conns_up },
		{ "conns_down", st->conns_down },
		{ "connect_failures", st->connect_failures },
		{ "tx_immediate", st->tx_immediate },
		{ "tx_rdma", st->tx_rdma },
		{ "rx_immediate", st->rx_immediate },
		{ "rx_rdma", st->rx_rdma },
		{ "rx_refused", st->rx_refused },
	};
	unsigned int n = sizeof(all) / sizeof(all[0]) < max ? sizeof(all) / sizeof(all[0]) : max;

	memcpy(out, all, n * sizeof(all[0]));
	return n;
}

static const struct lnet_lnd_ops o2iblnd_ops = {
	.name = "o2ib",
	.type = LNET_LND_O2IB,
	.caps = LNET_LND_CAP_HDR_CHECKED, /* lnet_hdr_decode_nid4 validates */
	.startup = o2iblnd_startup,
	.shutdown = o2iblnd_shutdown,
	.send = o2iblnd_send,
	.recv = o2iblnd_recv,
	.tunables = o2iblnd_tunables,
	.counters = o2iblnd_counters,
	.params_set = o2iblnd_params_set,
	.params_get = o2iblnd_params_get,
	.ni_check = o2iblnd_ni_check,
};

LNET_LND_REGISTER(o2iblnd_ops)

const struct lnet_lnd_ops *
o2iblnd_lnd_ops(void)
{
	return &o2iblnd_ops;
}

void
o2iblnd_stats_get(const struct lnet_ni *ni, struct o2iblnd_stats *out)
{
	const struct o2iblnd_ni *o = lnet_ni_lnd_data(ni);

	memset(out, 0, sizeof(*out));
	if (o != NULL) {
		*out = o->stats;
	}
}
