/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One o2ib connection's message engine (o2iblnd_conn.h). A tx is one
 * message slot; it is "done" when no SEND of it awaits its completion and
 * it waits for nothing from the peer (the kernel's tx_sending and
 * tx_waiting). A PUT's tx carries PUT_REQ, then, rewritten, PUT_DONE.
 * Cookies are the tx index and a generation, so a late or forged one
 * finds nothing (the kernel closes the connection with -EPROTO then).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lnet_lnd.h"
#include "o2iblnd_conn.h"

#define WR_RX (1ULL << 63)    /* a receive: the low bits are the rx index */
#define WR_WRITE (1ULL << 62) /* an RDMA WRITE of a tx (unsignalled unless it fails) */

struct o2iblnd_rx {
	uint8_t *buf;
	uint32_t idx;
	bool held; /* handed up, not answered yet */
};

struct o2iblnd_tx {
	struct o2iblnd_tx *next;
	uint8_t *buf;
	uint32_t idx;
	uint32_t gen;
	uint64_t cookie;
	uint8_t type;
	bool in_use;
	bool queued;
	bool waiting;  /* for PUT_ACK, PUT_DONE or GET_DONE */
	bool sink;     /* a PUT_ACK: completes through sink_done */
	bool internal; /* a NOOP or a NAK: nobody to tell */
	unsigned int sending;
	int status;
	uint64_t deadline_ns;
	void *user;
	unsigned int nsrc; /* RDMA source: a PUT's payload or a GET's reply */
	struct o2ib_hw_sge src[O2IB_MAX_RDMA_FRAGS];
	unsigned int ndst; /* RDMA destination: the peer's descriptor */
	uint32_t dst_key;
	struct o2ib_frag dst[O2IB_MAX_RDMA_FRAGS];
};

struct txq {
	struct o2iblnd_tx *head;
	struct o2iblnd_tx *tail;
};

struct o2iblnd_conn {
	struct o2iblnd_conn_cfg cfg;
	struct o2ib_conn proto;
	uint8_t *slab;
	struct o2ib_hw_mr *mr;
	uint32_t lkey;
	uint32_t nrx;
	struct o2iblnd_rx *rx;
	uint32_t ntx;
	struct o2iblnd_tx *tx;
	struct o2iblnd_tx *free_tx;
	struct txq q[O2IB_TXQ_RSRVD + 1]; /* by enum o2ib_txq */
	uint64_t now_ns;                  /* the last tick */
	uint64_t last_send_ns;            /* when a message was last posted */
	bool keepalive_due;
	uint32_t nearly; /* receives completed before ESTABLISHED, handled then */
	uint32_t *early_idx;
	uint32_t *early_nob;
};

/* ---- queues ---- */

static void
txq_push(struct txq *q, struct o2iblnd_tx *tx)
{
	tx->next = NULL;
	if (q->tail != NULL) {
		q->tail->next = tx;
	} else {
		q->head = tx;
	}
	q->tail = tx;
}

static struct o2iblnd_tx *
txq_pop(struct txq *q)
{
	struct o2iblnd_tx *tx = q->head;

	if (tx != NULL) {
		q->head = tx->next;
		if (q->head == NULL) {
			q->tail = NULL;
		}
		tx->next = NULL;
	}
	return tx;
}

static struct o2ib_txq_view
conn_view(const struct o2iblnd_conn *c)
{
	return (struct o2ib_txq_view){
		.nocred_empty = c->q[O2IB_TXQ_NOCRED].head == NULL,
		.cred_empty = c->q[O2IB_TXQ_CRED].head == NULL,
		.noops_empty = c->q[O2IB_TXQ_NOOPS].head == NULL,
		.keepalive_due = c->keepalive_due,
	};
}

/* ---- tx slots ---- */

static struct o2iblnd_tx *
tx_get(struct o2iblnd_conn *c, void *user)
{
	struct o2iblnd_tx *tx = c->free_tx;

	if (tx == NULL) {
		return NULL;
	}
	c->free_tx = tx->next;
	tx->next = NULL;
	tx->gen++;
	tx->cookie = ((uint64_t)tx->gen << 32) | tx->idx;
	tx->in_use = true;
	tx->queued = tx->waiting = tx->sink = false;
	tx->internal = user == NULL;
	tx->sending = 0;
	tx->status = 0;
	tx->user = user;
	tx->nsrc = tx->ndst = 0;
	return tx;
}

static void
tx_put(struct o2iblnd_conn *c, struct o2iblnd_tx *tx)
{
	tx->in_use = false;
	tx->next = c->free_tx;
	c->free_tx = tx;
}

/* The tx is idle: tell the owner and free the slot. */
static void
tx_finish(struct o2iblnd_conn *c, struct o2iblnd_tx *tx)
{
	void *user = tx->user;
	bool sink = tx->sink;
	bool internal = tx->internal;
	int status = tx->status;

	tx_put(c, tx);
	if (internal) {
		return;
	}
	if (sink) {
		c->cfg.ops->sink_done(c->cfg.arg, user, status);
	} else {
		c->cfg.ops->tx_done(c->cfg.arg, user, status);
	}
}

static bool
tx_idle(const struct o2iblnd_tx *tx)
{
	return !tx->queued && tx->sending == 0 && !tx->waiting;
}

static void
tx_queue(struct o2iblnd_conn *c, struct o2iblnd_tx *tx)
{
	tx->type = tx->buf[O2IB_OFF_TYPE];
	tx->queued = true;
	tx->deadline_ns = c->now_ns + c->cfg.timeout_ns;
	txq_push(&c->q[o2ib_txq_of(tx->type, c->proto.version)], tx);
}

/* ---- posting ---- */

static int
post_recv(struct o2iblnd_conn *c, struct o2iblnd_rx *rx)
{
	const struct o2ib_hw_sge sge = { (uintptr_t)rx->buf, O2IB_MSG_SIZE, c->lkey };

	rx->held = false;
	return c->cfg.hw->post_recv(c->cfg.qp, WR_RX | rx->idx, &sge);
}

#define O2IBLND_WRQ_SGE_MAX 16

/* Bytes a tx's RDMA source holds. */
static uint64_t
src_nob(const struct o2iblnd_tx *tx)
{
	uint64_t nob = 0;

	for (unsigned int i = 0; i < tx->nsrc; i++) {
		nob += tx->src[i].len;
	}
	return nob;
}

/*
 * The RDMA WRITEs of tx->src into tx->dst grouped as the kernel's
 * kiblnd_init_rdma groups them: up to wrq_sge source pieces per WRITE, a
 * new WRITE where a destination fragment ends, at most max_frags WRITEs.
 * Posted when @p post; otherwise only checked. The bytes moved, -EPROTO
 * when the destination is shorter than the source, -EMSGSIZE when it
 * needs too many WRITEs (nothing is written then, as the kernel).
 */
static int
rdma_writes(struct o2iblnd_conn *c, struct o2iblnd_tx *tx, bool post)
{
	struct o2ib_hw_sge sg[O2IBLND_WRQ_SGE_MAX];
	uint32_t wrq_sge = c->cfg.wrq_sge;
	uint64_t resid = src_nob(tx);
	uint64_t raddr = 0;
	unsigned int nsg = 0;
	unsigned int nwr = 0;
	unsigned int s = 0;
	unsigned int d = 0;
	uint32_t soff = 0;
	uint32_t doff = 0;
	int total = (int)resid;

	wrq_sge = wrq_sge == 0 ? 1 : wrq_sge > O2IBLND_WRQ_SGE_MAX ? O2IBLND_WRQ_SGE_MAX : wrq_sge;
	while (resid > 0) {
		uint32_t n;
		bool dst_ends;

		if (s >= tx->nsrc || d >= tx->ndst) {
			return -EPROTO;
		}
		if (nwr >= c->proto.max_frags) {
			return -EMSGSIZE;
		}
		n = tx->src[s].len - soff;
		n = n < tx->dst[d].nob - doff ? n : tx->dst[d].nob - doff;
		n = n < resid ? n : (uint32_t)resid;
		if (nsg == 0) {
			raddr = tx->dst[d].addr + doff;
		}
		sg[nsg++] = (struct o2ib_hw_sge){ tx->src[s].addr + soff, n, tx->src[s].lkey };
		soff += n;
		doff += n;
		resid -= n;
		if (soff == tx->src[s].len) {
			s++;
			soff = 0;
		}
		dst_ends = doff == tx->dst[d].nob;
		if (dst_ends) {
			d++;
			doff = 0;
		}
		if (nsg == wrq_sge || dst_ends || resid == 0) {
			int rc = post ? c->cfg.hw->post_write(c->cfg.qp, WR_WRITE | tx->idx, sg,
							      nsg, raddr, tx->dst_key, true) :
					0;

			if (rc != 0) {
				return rc;
			}
			nwr++;
			nsg = 0;
		}
	}
	return total;
}

/*
 * Set @p tx up as the DONE (@p type) of an RDMA transfer into the peer's
 * descriptor it holds: its status is what rdma_writes says; on failure
 * nothing will be written and the tx fails with it.
 */
static void
rdma_done(struct o2iblnd_conn *c, struct o2iblnd_tx *tx, uint8_t type, uint64_t dst_cookie)
{
	int status = rdma_writes(c, tx, false);

	if (status < 0) {
		tx->nsrc = 0;
		tx->status = status;
	}
	o2ib_msg_completion(tx->buf, O2IB_MSG_SIZE, type, dst_cookie, status);
}

static void
conn_fail_queue(struct o2iblnd_conn *c, struct txq *q, int error)
{
	struct o2iblnd_tx *tx;

	while ((tx = txq_pop(q)) != NULL) {
		tx->queued = false;
		tx->waiting = false;
		if (tx->status == 0) {
			tx->status = error;
		}
		if (tx_idle(tx)) {
			tx_finish(c, tx);
		}
	}
}

/* Post @p tx from queue @p q: 0 posted or dropped, -EAGAIN blocked, other -errno failed. */
static int
post_tx(struct o2iblnd_conn *c, struct o2iblnd_tx *tx, enum o2ib_txq q)
{
	struct o2ib_credits *cr = &c->proto.cr;
	struct o2ib_txq_view view;
	struct o2ib_stamp st;
	struct o2ib_hw_sge sge;
	uint8_t credits;
	int rc;

	if (o2ib_credits_can_post(cr, q, tx->type) != O2IB_POST_OK) {
		return -EAGAIN;
	}
	txq_pop(&c->q[q]);
	tx->queued = false;
	view = conn_view(c);
	if (tx->type == O2IB_MSG_NOOP && o2ib_credits_noop_redundant(cr, &view)) {
		tx_finish(c, tx);
		return 0;
	}
	credits = o2ib_credits_posted(cr, q, tx->type);
	st = (struct o2ib_stamp){ c->proto.version,
				  credits,
				  c->cfg.cksum,
				  c->cfg.me->nid,
				  c->cfg.me->incarnation,
				  c->cfg.peer_nid,
				  c->proto.peer_incarnation };
	o2ib_msg_stamp(tx->buf, &st);
	rc = 0;
	if (tx->nsrc != 0 && tx->ndst != 0) {
		rc = rdma_writes(c, tx,
				 true); /* ahead of the DONE on the same QP: they land first */
		rc = rc < 0 ? rc : 0;
	}
	sge = (struct o2ib_hw_sge){ (uintptr_t)tx->buf, 0, c->lkey };
	memcpy(&sge.len, tx->buf + O2IB_OFF_NOB, sizeof(sge.len)); /* written in our order */
	if (rc == 0) {
		rc = c->cfg.hw->post_send(c->cfg.qp, tx->idx, &sge);
	}
	if (rc != 0) {
		o2ib_credits_post_failed(cr, q, tx->type, credits);
		tx->status = tx->status != 0 ? tx->status : rc;
		tx->waiting = false;
		o2iblnd_conn_close(c, rc);
		if (tx_idle(tx)) {
			tx_finish(c, tx);
		}
		return rc;
	}
	tx->sending++;
	c->last_send_ns = c->now_ns;
	c->keepalive_due = false;
	return 0;
}

static void
queue_noop_if_needed(struct o2iblnd_conn *c)
{
	struct o2ib_txq_view view = conn_view(c);
	struct o2iblnd_tx *tx;

	if (!o2ib_credits_need_noop(&c->proto.cr, &view)) {
		return;
	}
	tx = tx_get(c, NULL);
	if (tx != NULL) {
		o2ib_msg_noop(tx->buf, O2IB_MSG_SIZE);
		tx_queue(c, tx);
	}
}

/* kiblnd_check_sends_locked: reserved slots, a NOOP if due, then post in queue order. */
static void
check_sends(struct o2iblnd_conn *c)
{
	struct o2iblnd_tx *tx;

	if (c->proto.state != O2IB_CONN_ESTABLISHED) {
		return;
	}
	while (c->q[O2IB_TXQ_RSRVD].head != NULL && o2ib_credits_take_reserved(&c->proto.cr)) {
		tx = txq_pop(&c->q[O2IB_TXQ_RSRVD]);
		txq_push(&c->q[O2IB_TXQ_CRED], tx);
	}
	queue_noop_if_needed(c);
	for (;;) {
		enum o2ib_txq q;

		if (c->q[O2IB_TXQ_NOCRED].head != NULL) {
			q = O2IB_TXQ_NOCRED;
		} else if (c->q[O2IB_TXQ_NOOPS].head != NULL) {
			q = O2IB_TXQ_NOOPS;
		} else if (c->q[O2IB_TXQ_CRED].head != NULL) {
			q = O2IB_TXQ_CRED;
		} else {
			break;
		}
		if (post_tx(c, c->q[q].head, q) != 0 || c->proto.state != O2IB_CONN_ESTABLISHED) {
			break;
		}
	}
}

/* ---- receiving ---- */

static void
rx_repost(struct o2iblnd_conn *c, struct o2iblnd_rx *rx, enum o2ib_rx_credit credit)
{
	if (c->proto.state > O2IB_CONN_ESTABLISHED) {
		return; /* closing: the buffer is not posted again */
	}
	if (post_recv(c, rx) != 0) {
		o2iblnd_conn_close(c, -EIO);
		return;
	}
	o2ib_credits_rx_reposted(&c->proto.cr, credit);
	check_sends(c);
}

/* The tx a completion or PUT_ACK names, waiting with @p type; NULL if none. */
static struct o2iblnd_tx *
find_waiting(struct o2iblnd_conn *c, uint8_t type, uint64_t cookie)
{
	uint32_t idx = (uint32_t)cookie;
	struct o2iblnd_tx *tx;

	if (idx >= c->ntx) {
		return NULL;
	}
	tx = &c->tx[idx];
	if (!tx->in_use || !tx->waiting || tx->cookie != cookie || tx->type != type) {
		return NULL;
	}
	return tx;
}

/* kiblnd_handle_completion: a PUT_NAK, PUT_DONE or GET_DONE for a waiting tx. */
static int
handle_completion(struct o2iblnd_conn *c, uint8_t txtype, const struct o2ib_msg *m)
{
	struct o2iblnd_tx *tx = find_waiting(c, txtype, m->u.completion.cookie);

	if (tx == NULL) {
		return -EPROTO;
	}
	if (tx->status == 0) {
		/* a GET's tx reports the bytes; the others only a failure */
		tx->status = txtype == O2IB_MSG_GET_REQ || m->u.completion.status < 0 ?
				     m->u.completion.status :
				     0;
	}
	tx->waiting = false;
	if (tx_idle(tx)) {
		tx_finish(c, tx);
	}
	return 0;
}

/* A PUT_ACK: write the payload into the peer's descriptor, then PUT_DONE. */
static int
handle_put_ack(struct o2iblnd_conn *c, const struct o2ib_msg *m)
{
	struct o2iblnd_tx *tx = find_waiting(c, O2IB_MSG_PUT_REQ, m->u.put_ack.src_cookie);

	if (tx == NULL) {
		return -EPROTO;
	}
	tx->waiting = false;
	tx->dst_key = m->u.put_ack.rd.key;
	tx->ndst = m->u.put_ack.rd.nfrags;
	for (unsigned int i = 0; i < tx->ndst; i++) {
		o2ib_rd_frag(&m->u.put_ack.rd, i, &tx->dst[i]);
	}
	rdma_done(c, tx, O2IB_MSG_PUT_DONE, m->u.put_ack.dst_cookie);
	tx_queue(c, tx);
	return 0;
}

/* kiblnd_handle_rx: credits first, then by type; 0 or -EPROTO. */
static int
handle_rx(struct o2iblnd_conn *c, struct o2iblnd_rx *rx, const struct o2ib_msg *m)
{
	int rc = 0;

	if (o2ib_credits_received(&c->proto.cr, m->type, m->credits) != 0) {
		return -EPROTO;
	}
	check_sends(c);
	switch (m->type) {
	case O2IB_MSG_NOOP:
		rx_repost(c, rx, o2ib_rx_credit_of(m->type, c->proto.version, m->credits, false));
		return 0;
	case O2IB_MSG_IMMEDIATE:
	case O2IB_MSG_PUT_REQ:
	case O2IB_MSG_GET_REQ:
		rx->held = true;
		c->cfg.ops->rx(c->cfg.arg, rx, m);
		return 0;
	case O2IB_MSG_PUT_NAK:
		rc = handle_completion(c, O2IB_MSG_PUT_REQ, m);
		break;
	case O2IB_MSG_PUT_ACK:
		rc = handle_put_ack(c, m);
		break;
	case O2IB_MSG_PUT_DONE:
		rc = handle_completion(c, O2IB_MSG_PUT_ACK, m);
		break;
	case O2IB_MSG_GET_DONE:
		rc = handle_completion(c, O2IB_MSG_GET_REQ, m);
		break;
	default:
		rc = -EPROTO;
		break;
	}
	rx_repost(c, rx, o2ib_rx_credit_of(m->type, c->proto.version, m->credits, false));
	return rc;
}

/* kiblnd_rx_complete's checks: it unpacks, and comes from this peer to this NI, this incarnation. */
static void
rx_complete(struct o2iblnd_conn *c, struct o2iblnd_rx *rx, int status, uint32_t nob)
{
	struct o2ib_msg m;
	int rc;

	if (c->proto.state > O2IB_CONN_ESTABLISHED) {
		return;
	}
	if (status != 0) {
		o2iblnd_conn_close(c, -EIO);
		return;
	}
	if (c->proto.state < O2IB_CONN_ESTABLISHED) {
		/* the peer is established first and may send at once: keep it for then */
		c->early_idx[c->nearly] = rx->idx;
		c->early_nob[c->nearly++] = nob;
		return;
	}
	if (o2ib_msg_unpack(rx->buf, nob, &m) != 0) {
		o2iblnd_conn_close(c, -EPROTO);
		return;
	}
	if (m.srcnid != c->cfg.peer_nid || m.dstnid != c->cfg.me->nid ||
	    m.srcstamp != c->proto.peer_incarnation || m.dststamp != c->cfg.me->incarnation) {
		o2iblnd_conn_close(c, -ESTALE);
		return;
	}
	rc = handle_rx(c, rx, &m);
	if (rc != 0) {
		o2iblnd_conn_close(c, rc);
	}
}

static void
send_complete(struct o2iblnd_conn *c, struct o2iblnd_tx *tx, int status)
{
	o2ib_credits_send_done(&c->proto.cr, tx->type);
	tx->sending--;
	if (status != 0) {
		tx->status = tx->status != 0 ? tx->status : -EIO;
		tx->waiting = false;
		o2iblnd_conn_close(c, -EIO);
	}
	if (tx_idle(tx)) {
		tx_finish(c, tx);
	}
	check_sends(c);
}

int
o2iblnd_conn_poll(struct o2iblnd_conn *c, int budget)
{
	struct o2ib_hw_wc wc[16];
	int done = 0;

	while (done < budget) {
		int n = c->cfg.hw->cq_poll(c->cfg.cq, wc, budget - done < 16 ? budget - done : 16);

		if (n <= 0) {
			return n < 0 ? n : done;
		}
		for (int i = 0; i < n; i++) {
			uint64_t id = wc[i].wr_id;

			if ((id & WR_RX) != 0) {
				rx_complete(c, &c->rx[(uint32_t)id], wc[i].status, wc[i].byte_len);
			} else if ((id & WR_WRITE) != 0) {
				if (wc[i].status !=
				    0) { /* an unsignalled write reports only failure */
					o2iblnd_conn_close(c, -EIO);
				}
			} else {
				send_complete(c, &c->tx[(uint32_t)id], wc[i].status);
			}
		}
		done += n;
	}
	return done;
}

/* ---- set-up ---- */

int
o2iblnd_conn_create(const struct o2iblnd_conn_cfg *cfg, struct o2iblnd_conn **out)
{
	struct o2iblnd_conn *c = calloc(1, sizeof(*c));
	uint32_t nrx =
		2U * cfg->queue_depth + (cfg->version == O2IB_MSG_VERSION_1 ? 0 : O2IB_OOB_MSGS_V2);
	uint32_t rkey;
	int rc;

	if (c == NULL) {
		return -ENOMEM;
	}
	c->cfg = *cfg;
	c->proto.version = cfg->version;
	c->proto.queue_depth = cfg->queue_depth;
	c->nrx = nrx;
	c->ntx = cfg->ntx;
	c->rx = calloc(nrx, sizeof(*c->rx));
	c->early_idx = calloc(nrx, sizeof(*c->early_idx));
	c->early_nob = calloc(nrx, sizeof(*c->early_nob));
	c->tx = calloc(cfg->ntx, sizeof(*c->tx));
	c->slab = aligned_alloc(4096, (size_t)(nrx + cfg->ntx) * O2IB_MSG_SIZE);
	if (c->rx == NULL || c->tx == NULL || c->slab == NULL || c->early_idx == NULL ||
	    c->early_nob == NULL) {
		o2iblnd_conn_destroy(c);
		return -ENOMEM;
	}
	rc = cfg->hw->reg_mem(cfg->dev, c->slab, (size_t)(nrx + cfg->ntx) * O2IB_MSG_SIZE, &c->mr,
			      &c->lkey, &rkey);
	for (uint32_t i = 0; i < cfg->ntx && rc == 0; i++) {
		c->tx[i].idx = i;
		c->tx[i].buf = c->slab + (size_t)(nrx + i) * O2IB_MSG_SIZE;
		tx_put(c, &c->tx[cfg->ntx - 1 - i]); /* the free list hands out index 0 first */
	}
	for (uint32_t i = 0; i < nrx && rc == 0; i++) {
		c->rx[i] = (struct o2iblnd_rx){ c->slab + (size_t)i * O2IB_MSG_SIZE, i, false };
		rc = post_recv(c, &c->rx[i]);
	}
	if (rc != 0) {
		o2iblnd_conn_destroy(c);
		return rc;
	}
	*out = c;
	return 0;
}

static void
fail_waiting(struct o2iblnd_conn *c, int error)
{
	for (uint32_t i = 0; i < c->ntx; i++) {
		struct o2iblnd_tx *tx = &c->tx[i];

		if (tx->in_use && tx->waiting && !tx->queued) {
			tx->waiting = false;
			tx->status = tx->status != 0 ? tx->status : error;
			if (tx_idle(tx)) {
				tx_finish(c, tx);
			}
		}
	}
}

void
o2iblnd_conn_close(struct o2iblnd_conn *c, int error)
{
	if (c->proto.state >= O2IB_CONN_CLOSING) {
		return;
	}
	c->proto.error = error;
	o2ib_conn_step(&c->proto, O2IB_CONN_EV_CLOSE);
	for (int q = 0; q <= O2IB_TXQ_RSRVD; q++) {
		conn_fail_queue(c, &c->q[q], error);
	}
	fail_waiting(c, error);
}

void
o2iblnd_conn_destroy(struct o2iblnd_conn *c)
{
	if (c == NULL) {
		return;
	}
	if (c->tx != NULL && c->rx != NULL && c->slab != NULL) {
		o2iblnd_conn_close(c, c->proto.error != 0 ? c->proto.error : -ECONNABORTED);
		/* sends never completed: the QP is gone with the connection */
		for (uint32_t i = 0; i < c->ntx; i++) {
			if (c->tx[i].in_use && c->tx[i].sending != 0) {
				c->tx[i].sending = 0;
				tx_finish(c, &c->tx[i]);
			}
		}
	}
	if (c->mr != NULL) {
		c->cfg.hw->dereg_mem(c->mr);
	}
	free(c->slab);
	free(c->tx);
	free(c->rx);
	free(c->early_idx);
	free(c->early_nob);
	free(c);
}

struct o2ib_conn *
o2iblnd_conn_proto(struct o2iblnd_conn *c)
{
	return &c->proto;
}

int
o2iblnd_conn_established(struct o2iblnd_conn *c, uint16_t queue_depth, uint16_t max_frags,
			 uint64_t peer_incarnation)
{
	if (o2ib_conn_step(&c->proto, O2IB_CONN_EV_ESTABLISHED) != 0) {
		return -EINVAL;
	}
	o2ib_conn_settle(&c->proto, c->proto.version, queue_depth, max_frags, peer_incarnation,
			 &c->cfg.tun);
	c->last_send_ns = c->now_ns;
	for (uint32_t i = 0; i < c->nearly; i++) {
		rx_complete(c, &c->rx[c->early_idx[i]], 0, c->early_nob[i]);
	}
	c->nearly = 0;
	check_sends(c);
	return 0;
}

/* ---- what the owner sends and answers ---- */

static int
send_queued(struct o2iblnd_conn *c, struct o2iblnd_tx *tx, int nob)
{
	if (nob < 0) {
		tx_put(c, tx);
		return -EINVAL;
	}
	if (c->proto.state > O2IB_CONN_ESTABLISHED) {
		tx_put(c, tx);
		return -ECONNABORTED;
	}
	tx_queue(c, tx);
	check_sends(c);
	return 0;
}

int
o2iblnd_send_immediate(struct o2iblnd_conn *c, const struct lnet_hdr *hdr, const struct iovec *iov,
		       unsigned int niov, unsigned int off, unsigned int len, void *user)
{
	struct o2iblnd_tx *tx;
	int nob;

	if (len > O2IB_IMMEDIATE_MAX) {
		return -EMSGSIZE;
	}
	tx = tx_get(c, user);
	if (tx == NULL) {
		return -ENOMEM;
	}
	nob = o2ib_msg_immediate(tx->buf, O2IB_MSG_SIZE, hdr, NULL, len);
	if (nob > 0 && len > 0) {
		const struct iovec flat = { tx->buf + O2IB_OFF_IMM_PAYLOAD, len };

		lnet_iov_copy(&flat, 1, 0, iov, niov, off, len);
	}
	return send_queued(c, tx, nob);
}

static bool
sges_fit(unsigned int n)
{
	return n >= 1 && n <= O2IB_MAX_RDMA_FRAGS;
}

int
o2iblnd_send_put(struct o2iblnd_conn *c, const struct lnet_hdr *hdr, const struct o2ib_hw_sge *src,
		 unsigned int nsrc, void *user)
{
	struct o2iblnd_tx *tx;
	int nob;

	if (!sges_fit(nsrc)) {
		return -EINVAL;
	}
	tx = tx_get(c, user);
	if (tx == NULL) {
		return -ENOMEM;
	}
	nob = o2ib_msg_put_req(tx->buf, O2IB_MSG_SIZE, hdr, tx->cookie);
	memcpy(tx->src, src, nsrc * sizeof(*src));
	tx->nsrc = nsrc;
	tx->waiting = nob > 0; /* for PUT_ACK or PUT_NAK */
	return send_queued(c, tx, nob);
}

int
o2iblnd_send_get(struct o2iblnd_conn *c, const struct lnet_hdr *hdr, uint32_t key,
		 const struct o2ib_frag *sink, unsigned int nfrags, void *user)
{
	struct o2iblnd_tx *tx = tx_get(c, user);
	int nob;

	if (tx == NULL) {
		return -ENOMEM;
	}
	nob = o2ib_msg_get_req(tx->buf, O2IB_MSG_SIZE, hdr, tx->cookie, key, sink, nfrags);
	tx->waiting = nob > 0; /* for GET_DONE */
	return send_queued(c, tx, nob);
}

void
o2iblnd_rx_done(struct o2iblnd_conn *c, struct o2iblnd_rx *rx)
{
	if (rx->held) { /* once: a second answer would post the buffer twice */
		rx_repost(c, rx, O2IB_RX_PEER_CREDIT);
	}
}

/* The cookie a received PUT_REQ or GET_REQ carries. */
static uint64_t
rx_cookie(const struct o2iblnd_rx *rx)
{
	uint64_t cookie;

	memcpy(&cookie, rx->buf + O2IB_HDR_SIZE + O2IB_LNET_HDR_SIZE, sizeof(cookie));
	return cookie;
}

int
o2iblnd_put_ack(struct o2iblnd_conn *c, struct o2iblnd_rx *rx, uint32_t key,
		const struct o2ib_frag *sink, unsigned int nfrags, void *user)
{
	struct o2iblnd_tx *tx;
	int nob;

	if (!rx->held) {
		return -EINVAL;
	}
	tx = tx_get(c, user);
	if (tx == NULL) {
		return -ENOMEM;
	}
	nob = o2ib_msg_put_ack(tx->buf, O2IB_MSG_SIZE, rx_cookie(rx), tx->cookie, key, sink,
			       nfrags);
	tx->sink = true;
	tx->waiting = nob > 0; /* for PUT_DONE */
	if (nob > 0) {
		rx_repost(c, rx, O2IB_RX_NO_CREDIT); /* PUT_DONE returns this credit */
	}
	return send_queued(c, tx, nob);
}

static int
send_completion(struct o2iblnd_conn *c, uint8_t type, uint64_t cookie, int status)
{
	struct o2iblnd_tx *tx = tx_get(c, NULL);

	if (tx == NULL) {
		return -ENOMEM;
	}
	return send_queued(c, tx,
			   o2ib_msg_completion(tx->buf, O2IB_MSG_SIZE, type, cookie, status));
}

int
o2iblnd_put_nak(struct o2iblnd_conn *c, struct o2iblnd_rx *rx, int status)
{
	int rc;

	if (!rx->held) {
		return -EINVAL;
	}
	rc = send_completion(c, O2IB_MSG_PUT_NAK, rx_cookie(rx), status);

	rx_repost(c, rx, O2IB_RX_PEER_CREDIT);
	return rc;
}

int
o2iblnd_get_nak(struct o2iblnd_conn *c, struct o2iblnd_rx *rx, int status)
{
	int rc;

	if (!rx->held) {
		return -EINVAL;
	}
	rc = send_completion(c, O2IB_MSG_GET_DONE, rx_cookie(rx), status);

	rx_repost(c, rx, O2IB_RX_PEER_CREDIT);
	return rc;
}

int
o2iblnd_get_reply(struct o2iblnd_conn *c, struct o2iblnd_rx *rx, const struct o2ib_hw_sge *src,
		  unsigned int nsrc, void *user)
{
	struct o2ib_msg m;
	struct o2iblnd_tx *tx;

	if (!rx->held || !sges_fit(nsrc) || o2ib_msg_unpack(rx->buf, O2IB_MSG_SIZE, &m) != 0 ||
	    m.type != O2IB_MSG_GET_REQ) {
		return -EINVAL;
	}
	tx = tx_get(c, user);
	if (tx == NULL) {
		return -ENOMEM;
	}
	memcpy(tx->src, src, nsrc * sizeof(*src));
	tx->nsrc = nsrc;
	tx->dst_key = m.u.get_req.rd.key;
	tx->ndst = m.u.get_req.rd.nfrags;
	for (unsigned int i = 0; i < tx->ndst; i++) {
		o2ib_rd_frag(&m.u.get_req.rd, i, &tx->dst[i]);
	}
	rdma_done(c, tx, O2IB_MSG_GET_DONE, m.u.get_req.cookie);
	rx_repost(c, rx, O2IB_RX_PEER_CREDIT);
	return send_queued(c, tx, 0);
}

/* A tx whose deadline passed, queued or waiting for the peer (kiblnd_check_txs_locked). */
static bool
any_tx_late(const struct o2iblnd_conn *c)
{
	for (uint32_t i = 0; i < c->ntx; i++) {
		const struct o2iblnd_tx *tx = &c->tx[i];

		if (tx->in_use && !tx_idle(tx) && c->now_ns >= tx->deadline_ns) {
			return true;
		}
	}
	return false;
}

void
o2iblnd_conn_tick(struct o2iblnd_conn *c, uint64_t now_ns)
{
	c->now_ns = now_ns;
	if (c->proto.state != O2IB_CONN_ESTABLISHED) {
		return;
	}
	if (c->cfg.timeout_ns != 0 && any_tx_late(c)) {
		o2iblnd_conn_close(c, -ETIMEDOUT);
		return;
	}
	if (c->cfg.keepalive_ns != 0 && now_ns - c->last_send_ns > c->cfg.keepalive_ns) {
		c->keepalive_due = true;
		check_sends(c);
	}
}
