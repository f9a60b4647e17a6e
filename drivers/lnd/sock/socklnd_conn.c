/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A socklnd connection's life (see socklnd_conn.h): its state machine,
 * closing and freeing it, its place in the NI's epoll set, queueing and
 * writing its messages, and reading it once UP. What a turn of it means to
 * the handshake and to its peer goes up through the NI's hooks
 * (socklnd_ni.h): this file includes neither.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "socklnd_ack.h"
#include "socklnd_conn.h"
#include "socklnd_tx.h"

_Static_assert(SOCKLND_STATS_HS_STATES == SOCK_CONN_NSTATES, "hs_entered[] has a slot per state");
_Static_assert(SOCKLND_STATS_CONN_STATES == SOCKLND_CONN_NSTATES,
	       "conn_entered[] has a slot per state");
#define NONE RT_FSM_NONE

/* Columns: connect, tcp_up, hs_done, close (see socklnd_ni.h). */
static const int8_t socklnd_conn_table[SOCKLND_CONN_NSTATES][SOCKLND_CONN_NEVENTS] = {
	[SOCKLND_CONN_NEW] = { SOCKLND_CONN_CONNECTING, SOCKLND_CONN_HANDSHAKE, NONE,
			       SOCKLND_CONN_DEAD },
	[SOCKLND_CONN_CONNECTING] = { NONE, SOCKLND_CONN_HANDSHAKE, NONE, SOCKLND_CONN_DEAD },
	[SOCKLND_CONN_HANDSHAKE] = { NONE, NONE, SOCKLND_CONN_UP, SOCKLND_CONN_DEAD },
	[SOCKLND_CONN_UP] = { NONE, NONE, NONE, SOCKLND_CONN_DEAD },
	[SOCKLND_CONN_DEAD] = { NONE, NONE, NONE, NONE },
};

static const char *const socklnd_conn_states[SOCKLND_CONN_NSTATES] = {
	"new", "connecting", "handshake", "up", "dead",
};

static const char *const socklnd_conn_events[SOCKLND_CONN_NEVENTS] = {
	"connect",
	"tcp_up",
	"hs_done",
	"close",
};

const struct rt_fsm socklnd_conn_fsm = {
	.name = "socklnd: conn",
	.nstates = SOCKLND_CONN_NSTATES,
	.nevents = SOCKLND_CONN_NEVENTS,
	.table = &socklnd_conn_table[0][0],
	.states = socklnd_conn_states,
	.events = socklnd_conn_events,
};

/* The one place a connection's state changes: by the table, logged and counted. */
int
socklnd_conn_set_state(struct socklnd_conn *c, enum socklnd_conn_event ev)
{
	char who[32];
	int next;

	snprintf(who, sizeof(who), "%p fd %d", (void *)c, c->st.fd);
	next = rt_fsm_step(&socklnd_conn_fsm, socklnd_logtype, who, c->state, ev,
			   c->sni->stats.conn_entered);
	if (next == RT_FSM_NONE) {
		return -EINVAL;
	}
	c->state = (enum socklnd_conn_state)next;
	c->sni->conn_gen++; /* what a peer's pick kept may be wrong now */
	return 0;
}

/* Every byte a connection moves, to the NI's capture when one runs. */
static void
socklnd_tap(void *ctx, bool out, bool boundary, const struct iovec *iov, int iovcnt, size_t n)
{
	struct socklnd_conn *c = ctx;

	if (c->sni->cap != NULL) {
		lnet_pcap_stream(c->sni->cap, &c->flow, out, boundary, iov, iovcnt, n);
	}
}

/* The TCP connection is there (accepted, or connect() completed). */
void
socklnd_conn_flow(struct socklnd_conn *c)
{
	struct sock_addr local, remote;

	c->tap = (struct sock_tap){ socklnd_tap, c, &c->sni->cap };
	c->hs.tap = &c->tap;
	/* Whatever the transport, the capture frames the stream with its addresses. */
	if (c->st.ops->addrs == NULL || c->st.ops->addrs(&c->st, &local, &remote) != 0) {
		memset(&c->flow, 0, sizeof(c->flow)); /* unknown: not recorded */
		return;
	}
	lnet_pcap_flow_init_addr(c->sni->cap, &c->flow, (const struct sockaddr *)&local.ss,
				 (const struct sockaddr *)&remote.ss, c->active,
				 c->sni->cap != NULL);
}

/* Can it carry LNet messages? BULK_IN (our view) carries only ZC-ACKs. */
bool
socklnd_conn_carries(const struct socklnd_conn *c)
{
	return c->state == SOCKLND_CONN_UP && c->type != SOCKLND_CONN_BULK_IN;
}

static void
socklnd_flush_unlink(struct socklnd_conn *c)
{
	if (c->flush_pending) {
		c->flush_pending = false;
		TAILQ_REMOVE(&c->sni->flushq, c, flink);
	}
}

static void
socklnd_rx_unlink(struct socklnd_conn *c)
{
	if (c->rx_pending) {
		c->rx_pending = false;
		TAILQ_REMOVE(&c->sni->rxq, c, rlink);
	}
}

void
socklnd_conn_close(struct socklnd_conn *c, int status)
{
	socklnd_conn_close_hs(c, status, socklnd_hstatus(status));
}

void
socklnd_conn_close_hs(struct socklnd_conn *c, int status, enum lnet_msg_hstatus hs)
{
	enum socklnd_conn_state was = c->state;
	struct sock_tx *tx;

	if (c->state == SOCKLND_CONN_DEAD) {
		return;
	}
	socklnd_conn_reap(c); /* what the peer has is done, whatever comes next */
	if (!c->in_epoll) {
		c->sni->nout--;
		c->in_epoll = true; /* counted once; its stream goes below */
	}
	if (sock_stream_open(&c->st)) {
		c->sni->xp->ops->watch(c->sni->xp, &c->st, SOCK_WATCH_DEL, 0, NULL);
		c->st.ops->close(
			&c->st); /* a kernel fd's number may serve a new connection at once */
	}
	socklnd_conn_set_state(c, SOCKLND_CONN_EV_CLOSE);
	c->sni->dead_pending = true;
	c->sni->nup -= was == SOCKLND_CONN_UP;
	socklnd_flush_unlink(c);
	socklnd_rx_unlink(c);
	lnet_pcap_fin(c->sni->cap, &c->flow);
	while ((tx = TAILQ_FIRST(&c->txq)) != NULL) {
		TAILQ_REMOVE(&c->txq, tx, link);
		c->nqueued--;
		if (c->sni->hooks->requeue(c, tx, status)) {
			continue;
		}
		socklnd_msg_fail(tx->cookie, status, hs);
		socklnd_tx_free(c->sni, tx);
	}
	socklnd_ackq_fail(c, status, hs);
	/* A message waiting for its payload ends with the connection: the peer's fault. */
	if (c->rx.state == SOCK_RX_PAYLOAD && c->rx.cookie != NULL) {
		socklnd_msg_fail(c->rx.cookie, status, LNET_MSG_STATUS_REMOTE_ERROR);
	}
	c->sni->stats.conns_closed++;
	c->sni->hooks->gone(c, was, status);
}

/*
 * The connection failed (the peer reset it, broke the protocol, went
 * silent): as ksocknal_close_conn_and_siblings, its peer's other
 * connections go with it, so the next message opens new ones instead of
 * going down another dead one.
 */
void
socklnd_conn_fail(struct socklnd_conn *c, int status)
{
	if (c->state == SOCKLND_CONN_UP && c->peer != NULL) {
		c->sni->hooks->close_siblings(c, status);
		return;
	}
	socklnd_conn_close(c, status);
}

/*
 * Free the closed connections LNet no longer holds. Every poll calls it: it
 * walks the list only after a close, and again while one closed connection
 * still waits for LNet (WAIT_SINK, until socklnd_recv() lets it go).
 */
void
socklnd_conn_free_dead(struct socklnd_ni *s)
{
	struct socklnd_conn *c;
	struct socklnd_conn *next;
	bool held = false;

	if (!s->dead_pending) {
		return;
	}
	for (c = TAILQ_FIRST(&s->conns); c != NULL; c = next) {
		next = TAILQ_NEXT(c, link);
		if (c->state != SOCKLND_CONN_DEAD) {
			continue;
		}
		if (c->rx.state == SOCK_RX_WAIT_SINK) {
			held = true;
			continue;
		}
		TAILQ_REMOVE(&s->conns, c, link);
		if (c->peer != NULL) {
			TAILQ_REMOVE(&c->peer->conns, c, plink);
		}
		free(c);
	}
	s->dead_pending = held;
}

void
socklnd_conn_want(struct socklnd_conn *c, bool out)
{
	if (!c->in_epoll) {
		c->want_out = out;
		if (out) {
			socklnd_conn_epoll_set(c, true); /* epoll says when the socket drains */
		}
		return;
	}
	if (c->want_out != out) {
		c->want_out = out;
		c->sni->xp->ops->watch(c->sni->xp, &c->st, SOCK_WATCH_MOD,
				       EPOLLIN | (out ? EPOLLOUT : 0), c);
	}
}

/* Write queued messages, coalesced; the ones fully written complete. */
static int
socklnd_conn_flush(struct socklnd_conn *c)
{
	int rc = 1;

	while (rc == 1 && !TAILQ_EMPTY(&c->txq)) {
		unsigned int done;

		rc = sock_txq_send_stream(&c->txq, &c->st, &c->tap, &done);
		if (rc < 0) {
			socklnd_conn_fail(c, rc);
			return rc;
		}
		c->sni->stats.tx_writes++;
		while (done-- > 0) {
			struct sock_tx *tx = TAILQ_FIRST(&c->txq);

			TAILQ_REMOVE(&c->txq, tx, link);
			c->nqueued--;
			socklnd_tx_written(c, tx);
		}
	}
	socklnd_conn_want(c, rc == 0);
	return rc;
}

/*
 * Queue a message. It is written at the end of this poll, with whatever
 * else this lcore queued on the connection meanwhile: one writev for many.
 */
void
socklnd_conn_queue(struct socklnd_conn *c, struct sock_tx *tx)
{
	/* ksocklnd checksums only on V2 connections (V3 peers rely on TCP's). */
	if (c->sni->opts.enable_csum && c->hs.proto->version == KSOCK_PROTO_V2 && tx->sent == 0) {
		sock_tx_checksum(tx);
	}
	if (TAILQ_EMPTY(&c->txq)) {
		c->tx_io_us = rt_now_us(c->sni->rt); /* the first queued starts the send clock */
	}
	TAILQ_INSERT_TAIL(&c->txq, tx, link);
	c->nqueued++;
	if (!c->flush_pending && !c->want_out) {
		c->flush_pending = true;
		TAILQ_INSERT_TAIL(&c->sni->flushq, c, flink);
	}
}

/* The connections given messages since the last poll. @return how many. */
__attribute__((noinline)) unsigned int
socklnd_flush_queued_all(struct socklnd_ni *s)
{
	struct socklnd_conn *c;
	unsigned int n = 0;

	while ((c = TAILQ_FIRST(&s->flushq)) != NULL) {
		socklnd_flush_unlink(c);
		if (c->state == SOCKLND_CONN_UP) {
			socklnd_conn_flush(c);
		}
		n++;
	}
	return n;
}

/* ---- receive side: sock_rx callbacks ---- */

static void
socklnd_on_noop(void *ctx, const struct ksock_msg *km)
{
	struct socklnd_conn *c = ctx;
	struct ksock_zcack ack;

	ksock_zcack_parse(km, &ack);
	if (ack.kind != KSOCK_ZCACK_NONE && ack.kind != KSOCK_ZCACK_KEEPALIVE) {
		/* We never ask for zero-copy ACKs: a cookie we did not send. */
		c->sni->stats.proto_errors++;
		lnet_ni_count_error(c->sni->ni);
		socklnd_conn_close(c, -EPROTO);
	}
}
/* Queue a NOOP {cookie0, cookie1}: a ZC-ACK, or a keepalive ({0, 1}). */
int
socklnd_conn_noop(struct socklnd_conn *c, uint64_t cookie0, uint64_t cookie1)
{
	struct ksock_msg noop = { KSOCK_MSG_NOOP, 0, { cookie0, cookie1 } };
	struct sock_tx *tx = socklnd_tx_alloc(c->sni);

	if (tx == NULL) {
		return -ENOMEM;
	}
	if (sock_tx_prepare(tx, c->hs.proto, &noop, NULL, NULL, 0, 0, 0, NULL) != 0) {
		socklnd_tx_free(c->sni, tx);
		return -ENOMEM;
	}
	socklnd_conn_queue(c, tx);
	return 0;
}

/* The peer asked for a zero-copy ACK: answer with a NOOP carrying the cookie. */
static void
socklnd_zcack(struct socklnd_conn *c, uint64_t cookie)
{
	if (socklnd_conn_noop(c, 0, cookie) != 0) {
		socklnd_conn_close(c, -ENOMEM);
		return;
	}
	c->sni->stats.zc_acks++;
}

static int
socklnd_on_lnet(void *ctx, const struct ksock_msg *km, const struct lnet_hdr *hdr)
{
	struct socklnd_conn *c = ctx;
	int rc;

	if (km->zc_cookies[0] != 0) {
		socklnd_zcack(c, km->zc_cookies[0]);
	}
	c->sni->stats.rx_msgs++;
	rc = lnet_parse(c->sni->ni, hdr, &c->peer_nid, c);
	if (rc != 0) {
		c->sni->stats.proto_errors++;
	}
	return rc;
}

static void
socklnd_on_payload(void *ctx, void *cookie, int status)
{
	(void)ctx;
	if (cookie != NULL) {
		lnet_finalize(cookie, status);
	}
}

/* The handshake is done: receive framing starts, its messages going to LNet. */
void
socklnd_conn_rx_start(struct socklnd_conn *c)
{
	struct sock_rx_ops ops = { socklnd_on_noop, socklnd_on_lnet, socklnd_on_payload, c };

	sock_rx_init(&c->rx, c->hs.proto, c->hs.peer.swapped, &ops);
	c->rx.tap = &c->tap;
	c->rx.exact = c->st.ops->exact_reads; /* the userspace TCP: one copy, from its segments */
}

/*
 * Bytes moved on an UP connection: sock_timeout counts from now in that
 * direction only (ksocklnd's ksnc_rx_deadline and ksnc_tx_deadline: our
 * keepalives going out do not excuse a message stuck coming in), and what
 * came in says the peer is alive. Being polled is not progress: a direct
 * read that finds nothing (socklnd_poll_direct) leaves both alone.
 */
static void
socklnd_conn_progress(struct socklnd_conn *c, bool received, bool sent)
{
	c->last_io_us = rt_now_us(c->sni->rt);
	if (sent) {
		c->tx_io_us = c->last_io_us;
	}
	if (received) {
		c->rx_io_us = c->last_io_us;
		if (c->peer != NULL) {
			c->peer->last_alive_us = c->last_io_us;
		}
	}
}

/*
 * What a connection's readiness (@p events) calls for: the connect and the
 * handshake, writing its queue, reading. @p probed: sock_rx_probe() found
 * bytes just now, the read goes on from there (socklnd_conn_read()).
 */
static inline void
socklnd_conn_event_rx(struct socklnd_conn *c, uint32_t events, bool probed)
{
	uint64_t writes = c->sni->stats.tx_writes;
	int rc;

	if (c->state != SOCKLND_CONN_UP && !c->sni->hooks->handshake(c, events)) {
		return;
	}
	if ((events & EPOLLOUT) != 0 || !TAILQ_EMPTY(&c->txq)) {
		if (socklnd_conn_flush(c) < 0) {
			return;
		}
	}
	if (c->state == SOCKLND_CONN_UP) {
		c->in_rx = true;
		rc = probed ? sock_rx_resume_stream(&c->rx, &c->st) :
			      sock_rx_poll_stream(&c->rx, &c->st);
		c->in_rx = false;
		if (rc > 0 || c->sni->stats.tx_writes != writes) {
			socklnd_conn_progress(c, rc > 0, c->sni->stats.tx_writes != writes);
		}
		if (rc > 0) {
			c->hot_until = c->sni->polls + SOCKLND_HOT_POLLS;
		}
		if ((c->rx.csum_checked | c->rx.recvs) != 0) { /* an empty recv leaves them 0 */
			c->sni->stats.csum_checked += c->rx.csum_checked;
			c->sni->stats.rx_reads += c->rx.recvs;
			c->rx.csum_checked = 0;
			c->rx.recvs = 0;
		}
		if (rc < 0) {
			if (rc == -EPROTO || rc == -EBADMSG) {
				c->sni->stats.proto_errors += rc == -EPROTO;
				c->sni->stats.csum_errors += rc == -EBADMSG;
				lnet_ni_count_error(c->sni->ni);
			}
			socklnd_conn_fail(c, rc);
			return;
		}
		/* Replies (ACK, ZC-ACK) may have been queued while receiving. */
		if (!TAILQ_EMPTY(&c->txq)) {
			socklnd_conn_flush(c);
		}
	}
}

void
socklnd_conn_event(struct socklnd_conn *c, uint32_t events)
{
	socklnd_conn_event_rx(c, events, false);
}

/*
 * socklnd_conn_event(c, EPOLLIN) for an UP connection read directly, most
 * polls finding its socket empty: with nothing to write and nothing staged,
 * the recv comes first, and an empty socket ends it there (all the event
 * would have done: no bytes moved, nothing counted, nothing to flush).
 */
void
socklnd_conn_read(struct socklnd_conn *c)
{
	if (TAILQ_EMPTY(&c->txq) && sock_rx_between(&c->rx)) {
		if (sock_rx_probe_stream(&c->rx, &c->st) != 0) {
			socklnd_conn_event_rx(c, EPOLLIN, true);
		}
		return;
	}
	socklnd_conn_event(c, EPOLLIN);
}

/* Connections whose payload was staged before LNet chose where it goes. */
unsigned int
socklnd_rx_staged(struct socklnd_ni *s)
{
	struct socklnd_conn *c;
	unsigned int n = 0;

	while ((c = TAILQ_FIRST(&s->rxq)) != NULL) {
		socklnd_rx_unlink(c);
		socklnd_conn_event(c, EPOLLIN);
		n++;
	}
	return n;
}
