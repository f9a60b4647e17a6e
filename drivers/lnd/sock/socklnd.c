/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The socklnd over kernel TCP sockets: an acceptor on the NI's address,
 * connections through the handshake state machine, framing through
 * sock_rx/sock_tx, all polled with epoll by the data lcore that owns the NI.
 *
 * Connections come both ways: a peer's, accepted (passive handshake
 * bounded by accept_timeout), and ours: a message for a peer with no
 * connection up waits on the peer while CONTROL + BULK_IN + BULK_OUT are
 * opened (socklnd_peer.c: races, duplicates, incarnations, backoff). It
 * goes out on the first that carries it; if every attempt fails it fails
 * with why (-ECONNREFUSED, else -EHOSTUNREACH), and for the backoff that
 * follows new messages fail at once with -EHOSTUNREACH. Both kinds of
 * connection go through two explicit FSMs: the handshake (sock_conn.c)
 * and the connection's life (socklnd_conn_set_state()).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <linux/sockios.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_log.h>

#include "cfs.h"
#include "lnet_lnd.h"
#include "rt.h"
#include "sock_addr.h"
#include "sock_link.h"
#include "socklnd_internal.h"

#define SOCKLND_EPOLL_BATCH 32
/* Freed txs kept per NI for reuse: enough for a full window of every peer's credits. */
#define SOCKLND_TX_CACHE_MAX 1024U
#define SOCKLND_SWEEP_US 1000000ULL
/* Polls in a row that moved nothing between two looks at what the peers' TCP acknowledged. */
#define SOCKLND_REAP_IDLE_EVERY 8U

_Static_assert(SOCKLND_STATS_HS_STATES == SOCK_CONN_NSTATES, "hs_entered[] has a slot per state");
_Static_assert(SOCKLND_STATS_CONN_STATES == SOCKLND_CONN_NSTATES, "conn_entered[] has a slot per state");

/* ---- connections ---- */

#define NONE RT_FSM_NONE

/* Columns: connect, tcp_up, hs_done, close (see socklnd_internal.h). */
static const int8_t socklnd_conn_table[SOCKLND_CONN_NSTATES][SOCKLND_CONN_NEVENTS] = {
	[SOCKLND_CONN_NEW] = { SOCKLND_CONN_CONNECTING, SOCKLND_CONN_HANDSHAKE, NONE, SOCKLND_CONN_DEAD },
	[SOCKLND_CONN_CONNECTING] = { NONE, SOCKLND_CONN_HANDSHAKE, NONE, SOCKLND_CONN_DEAD },
	[SOCKLND_CONN_HANDSHAKE] = { NONE, NONE, SOCKLND_CONN_UP, SOCKLND_CONN_DEAD },
	[SOCKLND_CONN_UP] = { NONE, NONE, NONE, SOCKLND_CONN_DEAD },
	[SOCKLND_CONN_DEAD] = { NONE, NONE, NONE, NONE },
};

static const char *const socklnd_conn_states[SOCKLND_CONN_NSTATES] = {
	"new", "connecting", "handshake", "up", "dead",
};

static const char *const socklnd_conn_events[SOCKLND_CONN_NEVENTS] = {
	"connect", "tcp_up", "hs_done", "close",
};

const struct rt_fsm socklnd_conn_fsm = {
	.name = "socklnd: conn", .nstates = SOCKLND_CONN_NSTATES, .nevents = SOCKLND_CONN_NEVENTS,
	.table = &socklnd_conn_table[0][0], .states = socklnd_conn_states,
	.events = socklnd_conn_events,
};

/* The one place a connection's state changes: by the table, logged and counted. */
int
socklnd_conn_set_state(struct socklnd_conn *c, enum socklnd_conn_event ev)
{
	char who[32];
	int next;

	snprintf(who, sizeof(who), "%p fd %d", (void *)c, c->fd);
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
static void
socklnd_conn_flow(struct socklnd_conn *c)
{
	c->tap = (struct sock_tap){ socklnd_tap, c, &c->sni->cap };
	c->hs.tap = &c->tap;
	lnet_pcap_flow_init(c->sni->cap, &c->flow, c->fd, c->active, c->sni->cap != NULL);
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

/*
 * What a connection's error says of the path (the kernel's
 * ksocknal_txlist_done): silence is a network timeout, a peer that reset
 * or refused or could not be reached dropped it (another of its NIDs may
 * do), the NI going away aborted it (another NI may do); anything else is
 * an error no resend fixes.
 */
enum lnet_msg_hstatus
socklnd_hstatus(int status)
{
	switch (status) {
	case -ETIMEDOUT:
		return LNET_MSG_STATUS_NETWORK_TIMEOUT;
	case -ENETDOWN:
	case -EHOSTUNREACH:
	case -ENETUNREACH:
	case -ECONNREFUSED:
	case -ECONNRESET:
		return LNET_MSG_STATUS_REMOTE_DROPPED;
	case -ESHUTDOWN:
		return LNET_MSG_STATUS_LOCAL_ABORTED;
	default:
		return LNET_MSG_STATUS_LOCAL_ERROR;
	}
}

/* Complete a message the LND could not deliver: LNet may send it again elsewhere. */
void
socklnd_msg_fail(void *cookie, int status, enum lnet_msg_hstatus hs)
{
	if (cookie != NULL) {
		lnet_finalize_hstatus(cookie, status, hs);
	}
}

void
socklnd_conn_close(struct socklnd_conn *c, int status)
{
	socklnd_conn_close_hs(c, status, socklnd_hstatus(status));
}

/* ---- completion once the peer's TCP acknowledged a message ---- */

#define SOCKLND_ACK_TICK_US 50 /* an lcore that would sleep looks again this soon */

static void
socklnd_ackconns_unlink(struct socklnd_conn *c)
{
	if (c->on_ackconns) {
		c->on_ackconns = false;
		TAILQ_REMOVE(&c->sni->ackconns, c, alink);
	}
}

/* A message is written whole: it completes when the peer's TCP acknowledges its last byte. */
static void
socklnd_tx_written(struct socklnd_conn *c, struct sock_tx *tx)
{
	struct socklnd_ni *s = c->sni;

	c->wr_done += tx->sent;
	if (tx->cookie == NULL) {
		socklnd_tx_free(s, tx); /* a NOOP: nobody waits for it */
		return;
	}
	tx->end = c->wr_done;
	lnet_msg_on_wire(tx->cookie); /* its credits go back now, as ksocklnd's would */
	if (TAILQ_EMPTY(&c->ackq)) {
		c->ack_io_us = rt_now_us(s->rt);
	}
	TAILQ_INSERT_TAIL(&c->ackq, tx, link);
	if (!c->on_ackconns) {
		c->on_ackconns = true;
		TAILQ_INSERT_TAIL(&s->ackconns, c, alink);
	}
}

/*
 * Complete the messages the peer's TCP acknowledged: the bytes written
 * (whole messages, and the part of the one being written) less those the
 * socket still holds (SIOCOUTQ: not sent, or sent and not acknowledged).
 * @return how many completed.
 */
static unsigned int
socklnd_conn_reap(struct socklnd_conn *c)
{
	const struct sock_tx *head = TAILQ_FIRST(&c->txq);
	uint64_t written = c->wr_done + (head != NULL ? head->sent : 0);
	unsigned int n = 0;
	struct sock_tx *tx;
	int outq = 0;

	if (TAILQ_EMPTY(&c->ackq) || c->fd < 0) {
		return 0;
	}
	c->sni->stats.ack_checks++;
	if (ioctl(c->fd, SIOCOUTQ, &outq) != 0) {
		return 0; /* the socket's trouble shows on its next read or write */
	}
	while ((tx = TAILQ_FIRST(&c->ackq)) != NULL && tx->end <= written - (uint64_t)outq) {
		TAILQ_REMOVE(&c->ackq, tx, link);
		c->sni->stats.tx_msgs++;
		lnet_finalize(tx->cookie, 0);
		socklnd_tx_free(c->sni, tx);
		n++;
	}
	if (n > 0) {
		c->ack_io_us = rt_now_us(c->sni->rt);
	}
	if (TAILQ_EMPTY(&c->ackq)) {
		socklnd_ackconns_unlink(c);
	}
	return n;
}

/* The connection ends with messages the peer never acknowledged: LNet may send them elsewhere. */
static void
socklnd_ackq_fail(struct socklnd_conn *c, int status, enum lnet_msg_hstatus hs)
{
	struct sock_tx *tx;

	while ((tx = TAILQ_FIRST(&c->ackq)) != NULL) {
		TAILQ_REMOVE(&c->ackq, tx, link);
		c->sni->stats.unacked_failed++;
		socklnd_msg_fail(tx->cookie, status, hs);
		socklnd_tx_free(c->sni, tx);
	}
	socklnd_ackconns_unlink(c);
}

static unsigned int
socklnd_reap_all(struct socklnd_ni *s)
{
	struct socklnd_conn *c;
	struct socklnd_conn *next;
	unsigned int n = 0;

	for (c = TAILQ_FIRST(&s->ackconns); c != NULL; c = next) {
		next = TAILQ_NEXT(c, alink);
		n += socklnd_conn_reap(c);
	}
	return n;
}

/* A bare TCP ACK wakes nothing: while messages wait for one, a sleeping lcore looks every tick. */
static void
socklnd_ack_tick(void *arg)
{
	struct socklnd_ni *s = arg;

	socklnd_reap_all(s);
	if (!TAILQ_EMPTY(&s->ackconns)) {
		rt_timer_arm(&s->ack_timer, SOCKLND_ACK_TICK_US);
	}
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
		c->in_epoll = true; /* counted once; its fd goes below */
	}
	if (c->fd >= 0) {
		epoll_ctl(c->sni->epfd, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
		c->fd = -1; /* its number may serve a new connection at once */
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
		if (socklnd_peer_requeue(c, tx, status)) {
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
	socklnd_peer_conn_gone(c, was, status);
}

/*
 * The connection failed (the peer reset it, broke the protocol, went
 * silent): as ksocknal_close_conn_and_siblings, its peer's other
 * connections go with it, so the next message opens new ones instead of
 * going down another dead one.
 */
static void
socklnd_conn_fail(struct socklnd_conn *c, int status)
{
	if (c->state == SOCKLND_CONN_UP && c->peer != NULL) {
		socklnd_peer_close_siblings(c, status);
		return;
	}
	socklnd_conn_close(c, status);
}

/*
 * Free the closed connections LNet no longer holds. Every poll calls it: it
 * walks the list only after a close, and again while one closed connection
 * still waits for LNet (WAIT_SINK, until socklnd_recv() lets it go).
 */
static void
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

/*
 * Put @p c's fd in the NI's epoll set or take it out. Out only when the
 * runtime's caller polls (POLLED, SIM: nothing sleeps on the set) and the
 * connection is read directly on every poll: a socket in an epoll set makes
 * every segment that arrives run the epoll callback (a lock, the ready list)
 * in the sender's send path, which is the round trip's critical path.
 */
static inline void
socklnd_conn_epoll_set(struct socklnd_conn *c, bool in)
{
	struct epoll_event ev;

	if (c->in_epoll == in) {
		return; /* every poll asks this of each cold connection: mostly so already */
	}
	ev = (struct epoll_event){ .events = EPOLLIN | (c->want_out ? EPOLLOUT : 0), .data.ptr = c };
	if (epoll_ctl(c->sni->epfd, in ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, c->fd, in ? &ev : NULL) == 0) {
		c->in_epoll = in;
		c->sni->nout += in ? -1U : 1U;
	}
}

static void
socklnd_conn_want(struct socklnd_conn *c, bool out)
{
	struct epoll_event ev = { .events = EPOLLIN | (out ? EPOLLOUT : 0), .data.ptr = c };

	if (!c->in_epoll) {
		c->want_out = out;
		if (out) {
			socklnd_conn_epoll_set(c, true); /* epoll says when the socket drains */
		}
		return;
	}
	if (c->want_out != out) {
		c->want_out = out;
		epoll_ctl(c->sni->epfd, EPOLL_CTL_MOD, c->fd, &ev);
	}
}

/* Write queued messages, coalesced; the ones fully written complete. */
static int
socklnd_conn_flush(struct socklnd_conn *c)
{
	int rc = 1;

	while (rc == 1 && !TAILQ_EMPTY(&c->txq)) {
		unsigned int done;

		rc = sock_txq_send(&c->txq, c->fd, &c->tap, &done);
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
static __attribute__((noinline)) unsigned int
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

/* Each poll asks twice, and mostly nothing was queued: that answer costs no call. */
static inline unsigned int
socklnd_flush_queued(struct socklnd_ni *s)
{
	return TAILQ_EMPTY(&s->flushq) ? 0 : socklnd_flush_queued_all(s);
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

/* A tx from the NI's cache (sock_tx_prepare() sets every field it uses). */
struct sock_tx *
socklnd_tx_alloc(struct socklnd_ni *s)
{
	struct sock_tx *tx = s->tx_cache;

	if (tx == NULL) {
		return calloc(1, sizeof(*tx));
	}
	s->tx_cache = TAILQ_NEXT(tx, link);
	s->ntx_cache--;
	return tx;
}

void
socklnd_tx_free(struct socklnd_ni *s, struct sock_tx *tx)
{
	if (s->ntx_cache < SOCKLND_TX_CACHE_MAX) {
		TAILQ_NEXT(tx, link) = s->tx_cache; /* last in, first out: still in cache */
		s->tx_cache = tx;
		s->ntx_cache++;
		return;
	}
	free(tx);
}

void
socklnd_tx_cache_destroy(struct socklnd_ni *s)
{
	struct sock_tx *tx;

	while ((tx = s->tx_cache) != NULL) {
		s->tx_cache = TAILQ_NEXT(tx, link);
		free(tx);
	}
	s->ntx_cache = 0;
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

/* ---- the handshake ---- */

static bool
socklnd_nid_is_local(void *ctx, const struct lnet_nid *nid)
{
	struct socklnd_ni *s = ctx;

	return lnet_nid_same(nid, lnet_ni_nid(s->ni));
}

static bool
socklnd_conn_nid_is_local(void *ctx, const struct lnet_nid *nid)
{
	struct socklnd_conn *c = ctx;

	return socklnd_nid_is_local(c->sni, nid);
}

static int
socklnd_accept_hello(void *ctx, const struct ksock_hello *peer)
{
	return socklnd_peer_accept(ctx, peer);
}

static void
socklnd_conn_up(struct socklnd_conn *c)
{
	struct sock_rx_ops ops = { socklnd_on_noop, socklnd_on_lnet, socklnd_on_payload, c };

	socklnd_conn_set_state(c, SOCKLND_CONN_EV_HS_DONE);
	c->rx_io_us = c->tx_io_us = rt_now_us(c->sni->rt);
	c->type = c->hs.local.ctype;
	c->peer_nid = c->hs.peer.src_nid;
	sock_rx_init(&c->rx, c->hs.proto, c->hs.peer.swapped, &ops);
	c->rx.tap = &c->tap;
	c->sni->stats.conns_up++;
	c->sni->nup++;
	c->hot_until = c->sni->polls + SOCKLND_HOT_POLLS;
	socklnd_peer_conn_up(c);
}

/*
 * Every connection, as ksocklnd sets its sockets: no Nagle unless nagle=1,
 * TCP keepalive (30 s idle, 5 probes 5 s apart by default: a silent dead
 * peer is found; any of them 0 turns it off), the buffer sizes and the IP
 * TOS if set.
 */
static void
socklnd_sockopts(const struct socklnd_ni *s, int fd)
{
	const struct socklnd_opts *o = &s->opts;
	int one = 1;
	int keepalive = o->keepalive_idle > 0 && o->keepalive_intvl > 0 && o->keepalive_count > 0;

	if (o->nagle == 0) {
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &keepalive, sizeof(keepalive));
	if (keepalive) {
		setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &o->keepalive_idle, sizeof(int));
		setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &o->keepalive_intvl, sizeof(int));
		setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &o->keepalive_count, sizeof(int));
	}
	if (o->tx_buffer_size > 0) {
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &o->tx_buffer_size, sizeof(int));
	}
	if (o->rx_buffer_size > 0) {
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &o->rx_buffer_size, sizeof(int));
	}
	if (s->opts.tos >= 0 && sock_addr_family(lnet_ni_nid(s->ni)) == AF_INET6) {
		setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &s->opts.tos, sizeof(s->opts.tos));
	} else if (s->opts.tos >= 0) {
		setsockopt(fd, IPPROTO_IP, IP_TOS, &s->opts.tos, sizeof(s->opts.tos));
	}
}

/* Another NI of ours takes connections whose request names it (see socklnd_registry.c). */
static bool
socklnd_conn_hand_off_ok(void *ctx, const struct lnet_nid *nid)
{
	struct socklnd_conn *c = ctx;

	if (socklnd_registry_lcore(nid) == NULL) {
		return false;
	}
	c->handoff = *nid;
	return true;
}

static void socklnd_conn_event(struct socklnd_conn *c, uint32_t events);

/* A passive connection on @p fd, its first @p n bytes (a request another NI read) in @p pre. */
static void
socklnd_accept_fd(struct socklnd_ni *s, int fd, const uint8_t *pre, size_t n)
{
	struct socklnd_conn *c = calloc(1, sizeof(*c));
	struct ksock_hello local;
	struct sock_conn_policy pol = { socklnd_conn_nid_is_local, socklnd_accept_hello,
					socklnd_conn_hand_off_ok, NULL };
	struct epoll_event ev;

	if (c == NULL) {
		close(fd);
		return;
	}
	memset(&local, 0, sizeof(local));
	local.src_pid = LNET_PID_LUSTRE;
	local.src_incarnation = s->incarnation;
	c->sni = s;
	c->fd = fd;
	c->last_io_us = rt_now_us(s->rt);
	socklnd_conn_set_state(c, SOCKLND_CONN_EV_TCP_UP);
	TAILQ_INIT(&c->txq);
	TAILQ_INIT(&c->ackq);
	pol.ctx = c;
	sock_conn_init_passive(&c->hs, fd, &local, &pol, s->stats.hs_entered);
	if (n > 0) {
		sock_conn_prefill(&c->hs, pre, n);
	}
	socklnd_conn_flow(c);
	ev = (struct epoll_event){ .events = EPOLLIN, .data.ptr = c };
	epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev);
	c->in_epoll = true;
	TAILQ_INSERT_TAIL(&s->conns, c, link);
	if (n > 0) {
		socklnd_conn_event(c, EPOLLIN); /* the hello may be in already: no new event for it */
	}
}

static void
socklnd_accept(struct socklnd_ni *s)
{
	struct sock_addr sa = { .len = sizeof(sa.ss) };
	int fd = accept4(s->listen_fd, (struct sockaddr *)&sa.ss, &sa.len, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0) {
		return;
	}
	/* accept=secure: only privileged source ports (lnet-facts §4.1, trap 1). */
	if (s->opts.accept == SOCKLND_ACCEPT_NONE ||
	    (s->opts.accept == SOCKLND_ACCEPT_SECURE &&
	     sock_addr_port(&sa) > LNET_ACCEPTOR_MAX_RESERVED_PORT)) {
		s->stats.refused++;
		close(fd);
		return;
	}
	socklnd_sockopts(s, fd);
	s->stats.accepted++;
	socklnd_accept_fd(s, fd, NULL, 0);
}

/* A connection request for another NI of ours, on its way to that NI's lcore. */
struct socklnd_handoff {
	struct lnet_nid nid;
	int fd;
	size_t n;
	uint8_t bytes[160];
};

static void
socklnd_adopt(void *arg)
{
	struct socklnd_handoff *h = arg;
	struct socklnd_ni *s = socklnd_registry_here(&h->nid);

	if (s != NULL) {
		socklnd_accept_fd(s, h->fd, h->bytes, h->n);
	} else {
		close(h->fd); /* the NI went meanwhile: the peer connects again */
	}
	free(h);
}

static void
socklnd_conn_hand_off(struct socklnd_conn *c)
{
	struct rt_lcore *lc = socklnd_registry_lcore(&c->handoff);
	struct socklnd_handoff *h = malloc(sizeof(*h));

	epoll_ctl(c->sni->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	if (h == NULL || lc == NULL || c->hs.rxlen > sizeof(h->bytes)) {
		free(h);
		socklnd_conn_close(c, -EXDEV);
		return;
	}
	h->nid = c->handoff;
	h->fd = c->fd;
	h->n = c->hs.rxlen;
	memcpy(h->bytes, c->hs.rx, h->n);
	if (rt_lcore_send_msg(lc, socklnd_adopt, h) != 0) {
		free(h);
		socklnd_conn_close(c, -EXDEV);
		return;
	}
	c->sni->stats.handed_off++;
	c->fd = -1; /* it is the other NI's now */
	socklnd_conn_close(c, -EXDEV);
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
 * socklnd_conn_event() on a connection not UP (yet, or any more): the
 * connect's completion and the handshake, which may bring it UP.
 * @return false when this event has nothing more for it.
 */
static __attribute__((noinline)) bool
socklnd_conn_event_setup(struct socklnd_conn *c, uint32_t events)
{
	enum sock_conn_state hs_was = c->hs.state;
	int rc;

	if (c->state == SOCKLND_CONN_DEAD) {
		return false; /* closed earlier in this batch of events (a sibling's error) */
	}
	if (c->active) {
		c->last_io_us = rt_now_us(c->sni->rt); /* connecting or in the hello: its socket woke us */
	}
	if (c->state == SOCKLND_CONN_CONNECTING) {
		int err = 0;
		socklen_t len = sizeof(err);

		if ((events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) == 0) {
			return false;
		}
		getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err != 0) {
			c->sni->stats.connect_failures++;
			socklnd_conn_close(c, -err);
			return false;
		}
		socklnd_conn_set_state(c, SOCKLND_CONN_EV_TCP_UP);
		socklnd_conn_flow(c);
	}
	if (c->state == SOCKLND_CONN_HANDSHAKE) {
		rc = sock_conn_progress(&c->hs);
		if (!c->active && c->hs.state != hs_was) {
			c->last_io_us = rt_now_us(c->sni->rt); /* a handshake message is in (or out) */
		}
		if (rc == -EXDEV) {
			socklnd_conn_hand_off(c);
			return false;
		}
		if (rc < 0) {
			if (rc != -EALREADY) { /* a race or duplicate settled, not an error */
				c->sni->stats.handshake_failures++;
				lnet_ni_count_error(c->sni->ni);
			}
			socklnd_conn_close(c, rc);
			return false;
		}
		if (rc == 0) {
			socklnd_conn_want(c, sock_conn_wants_write(&c->hs));
			return false;
		}
		socklnd_conn_up(c);
	}
	return true;
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

	if (c->state != SOCKLND_CONN_UP && !socklnd_conn_event_setup(c, events)) {
		return;
	}
	if ((events & EPOLLOUT) != 0 || !TAILQ_EMPTY(&c->txq)) {
		if (socklnd_conn_flush(c) < 0) {
			return;
		}
	}
	if (c->state == SOCKLND_CONN_UP) {
		c->in_rx = true;
		rc = probed ? sock_rx_resume(&c->rx, c->fd) : sock_rx_poll(&c->rx, c->fd);
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

static void
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
static inline void
socklnd_conn_read(struct socklnd_conn *c)
{
	if (TAILQ_EMPTY(&c->txq) && sock_rx_between(&c->rx)) {
		if (sock_rx_probe(&c->rx, c->fd) != 0) {
			socklnd_conn_event_rx(c, EPOLLIN, true);
		}
		return;
	}
	socklnd_conn_event(c, EPOLLIN);
}

/*
 * sock_timeout: a connection still connecting or in its handshake, or one
 * with bytes owed in either direction (a queued tx, a message begun and
 * not finished), that has seen no progress for that long is closed; what
 * it held completes with -ETIMEDOUT. Idle connections stay (TCP keepalive
 * watches them). A message LNet holds (lazy portal, WAIT_SINK) counts as
 * begun, as ksocklnd's ksnc_rx_deadline does: else one message nobody
 * takes stalls the connection for good.
 */
static bool
socklnd_conn_rx_begun(const struct socklnd_conn *c)
{
	return c->rx.state == SOCK_RX_LNET_HDR || c->rx.state == SOCK_RX_WAIT_SINK ||
	       c->rx.state == SOCK_RX_PAYLOAD || (c->rx.state == SOCK_RX_KSOCK_HDR && c->rx.have > 0);
}

static bool
socklnd_conn_timed_out(const struct socklnd_conn *c, uint64_t now, uint64_t limit)
{
	switch (c->state) {
	case SOCKLND_CONN_UP:
		return (socklnd_conn_rx_begun(c) && now - c->rx_io_us > limit) ||
		       (!TAILQ_EMPTY(&c->txq) && now - c->tx_io_us > limit) ||
		       (!TAILQ_EMPTY(&c->ackq) && now - c->ack_io_us > limit);
	case SOCKLND_CONN_DEAD:
		return false;
	default:
		return now - c->last_io_us > limit;
	}
}

/*
 * The passive handshake: the kernel's acceptor gives each read of the
 * connection request and of the hello accept_timeout (5 s), whatever
 * sock_timeout is. Here each handshake message (request, hello, our hello
 * out) gets that long from the previous one: a client that connects and
 * stalls is dropped in seconds, not after sock_timeout.
 */
static bool
socklnd_accept_timed_out(const struct socklnd_conn *c, uint64_t now)
{
	return !c->active && c->state == SOCKLND_CONN_HANDSHAKE &&
	       now - c->last_io_us > SOCKLND_ACCEPT_TIMEOUT_US;
}

/*
 * How long a connection may owe bytes without progress: sock_timeout, or
 * LNet's lnd_timeout when that is smaller or sock_timeout is 0 (ksocklnd's
 * ksocknal_timeout() takes sock_timeout whenever it is set: a message held
 * by a path that drops silently then fails only after 50 s, past a
 * transaction_timeout of 30, too late to be resent; issue 31). Read at each
 * sweep: lnetctl set transaction_timeout or retry_count moves it at once.
 */
uint64_t
socklnd_timeout_us(const struct socklnd_ni *s)
{
	unsigned int lnd = lnet_ni_lnd_timeout(s->ni);
	unsigned int sock = (unsigned int)s->opts.timeout;

	return (uint64_t)(sock == 0 || lnd < sock ? lnd : sock) * 1000000ULL;
}

/*
 * An UP connection whose socket took nothing, or whose peer acknowledged
 * nothing, for SOCKLND_SLOW_US: counted and logged once per wait (its
 * start is the progress stamp the timeout reads), long before sock_timeout
 * would close it. Costs the message path nothing.
 */
static void
socklnd_conn_slow_check(struct socklnd_conn *c, uint64_t now)
{
	struct socklnd_ni *s = c->sni;
	char peer[LNET_NIDSTR_SIZE];
	int outq = 0;

	if (c->state != SOCKLND_CONN_UP) {
		return;
	}
	if (!TAILQ_EMPTY(&c->txq) && now - c->tx_io_us >= SOCKLND_SLOW_US &&
	    c->slow_tx_seen != c->tx_io_us) {
		c->slow_tx_seen = c->tx_io_us;
		s->stats.slow_writes++;
		SOCK_LOG(WARNING, "%s: connection to %s (type %d) took no bytes for %llu ms, %u messages queued",
			 libcfs_nidstr(lnet_ni_nid(s->ni)), libcfs_nidstr_r(&c->peer_nid, peer, sizeof(peer)),
			 c->type, (unsigned long long)((now - c->tx_io_us) / 1000), c->nqueued);
	}
	if (!TAILQ_EMPTY(&c->ackq) && now - c->ack_io_us >= SOCKLND_SLOW_US &&
	    c->slow_ack_seen != c->ack_io_us) {
		c->slow_ack_seen = c->ack_io_us;
		s->stats.slow_acks++;
		if (ioctl(c->fd, SIOCOUTQ, &outq) != 0) {
			outq = -1;
		}
		SOCK_LOG(WARNING, "%s: connection to %s (type %d): nothing acknowledged for %llu ms, %d bytes unacknowledged",
			 libcfs_nidstr(lnet_ni_nid(s->ni)), libcfs_nidstr_r(&c->peer_nid, peer, sizeof(peer)),
			 c->type, (unsigned long long)((now - c->ack_io_us) / 1000), outq);
	}
}

static void
socklnd_sweep(void *arg)
{
	struct socklnd_ni *s = arg;
	uint64_t now = rt_now_us(s->rt);
	uint64_t limit = socklnd_timeout_us(s);
	struct socklnd_conn *c;

	TAILQ_FOREACH(c, &s->conns, link) {
		if (socklnd_accept_timed_out(c, now)) {
			s->stats.handshake_timeouts++;
			lnet_ni_count_error(s->ni);
			socklnd_conn_close(c, -ETIMEDOUT);
		} else if (c->state != SOCKLND_CONN_HANDSHAKE || c->active) {
			if (socklnd_conn_timed_out(c, now, limit)) {
				s->stats.timeouts++;
				socklnd_conn_fail(c, -ETIMEDOUT);
			} else {
				socklnd_conn_slow_check(c, now);
			}
		}
	}
	socklnd_peer_tick(s, now);
	socklnd_link_reload_check(s);
	socklnd_conn_free_dead(s);
	rt_timer_arm(&s->sweep, SOCKLND_SWEEP_US);
}

/* Connections whose payload was staged before LNet chose where it goes. */
static unsigned int
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

/*
 * With a few connections, read (and flush) them directly: that saves the
 * epoll_wait that would say a socket is readable, a system call and the
 * kernel's epoll work per message (8 B one-way on loopback, polled: 9.4 ->
 * 8.3 us). epoll_wait still runs every SOCKLND_EPOLL_EVERY polls, for the
 * listener, connects and hang-ups; an NI with more connections, or one
 * in bulk, uses only it. A look that moves nothing is not progress
 * (socklnd_conn_progress), so sock_timeout still counts. When the caller
 * polls (POLLED, SIM), a connection read directly leaves the epoll set
 * (socklnd_conn_epoll_set) and comes back when it goes cold, wants
 * EPOLLOUT, or the NI stops reading directly.
 */
/*
 * Bulk in either direction: epoll says when a full socket buffer drains or
 * the next part of a large payload is in; a recv or sendmsg tried on every
 * poll instead takes smaller pieces and contends with the kernel's receive
 * path for the socket (1 MiB PUTs: -13% bandwidth).
 */
static bool
socklnd_any_wants_out(const struct socklnd_ni *s)
{
	const struct socklnd_conn *c;

	TAILQ_FOREACH(c, &s->conns, link) {
		if (c->want_out || sock_rx_in_bulk(&c->rx)) {
			return true;
		}
	}
	return false;
}

/* Connections taken out of the epoll set go back in (the NI now polls with epoll only). */
static void
socklnd_epoll_all(struct socklnd_ni *s)
{
	struct socklnd_conn *c;

	if (s->nout == 0) {
		return;
	}
	TAILQ_FOREACH(c, &s->conns, link) {
		if (!c->in_epoll) {
			socklnd_conn_epoll_set(c, true); /* ADD reports one already readable */
		}
	}
}

/* Read the hot connections directly; true if this poll must (also) run epoll_wait. */
static bool
socklnd_poll_direct(struct socklnd_ni *s, unsigned int *busy)
{
	uint64_t writes = s->stats.tx_writes;
	uint64_t reads = s->stats.rx_reads;
	bool caller_polls = s->caller_polls;
	struct socklnd_conn *c;
	bool any_cold = false;

	if (s->nup == 0 || s->nup > SOCKLND_DIRECT_MAX || socklnd_any_wants_out(s)) {
		s->poll_tick = 0;
		s->direct_streak = 0;
		socklnd_epoll_all(s);
		return true;
	}
	/*
	 * Out of the epoll set only after SOCKLND_EPOLL_EVERY direct polls in
	 * a row: 1 MiB PUTs go in and out of bulk once a message, and an
	 * epoll_ctl pair per message cost them ~6% of their bandwidth.
	 */
	if (s->direct_streak < SOCKLND_EPOLL_EVERY) {
		s->direct_streak++;
	}
	caller_polls = caller_polls && s->direct_streak >= SOCKLND_EPOLL_EVERY;
	TAILQ_FOREACH(c, &s->conns, link) {
		if (c->state != SOCKLND_CONN_UP) {
			continue;
		}
		if (c->hot_until > s->polls) {
			if (caller_polls && c->in_epoll && !c->want_out) {
				socklnd_conn_epoll_set(c, false);
			}
			socklnd_conn_read(c);
		} else {
			socklnd_conn_epoll_set(c, true);
			any_cold = true;
		}
	}
	s->any_cold = any_cold;
	*busy = (s->stats.tx_writes != writes) + (s->stats.rx_reads != reads);
	if (++s->poll_tick >= (any_cold ? SOCKLND_EPOLL_EVERY_COLD : SOCKLND_EPOLL_EVERY)) {
		s->poll_tick = 0;
		return true; /* the listener, connects, hang-ups, cold connections */
	}
	return false;
}

/* ---- the link under the NI ---- */

static int
socklnd_poll(void *arg)
{
	struct socklnd_ni *s = arg;
	struct epoll_event evs[SOCKLND_EPOLL_BATCH];
	unsigned int direct_busy = 0;
	unsigned int flushed;
	bool busy;
	int n = 0;
	int i;

	s->polls++;
	/*
	 * What LNet gave us since the last poll goes out first: a PUT the
	 * application just posted leaves before this poll's reads (an EAGAIN
	 * recv on an idle connection), not after. Whatever the reads queue is
	 * flushed below.
	 */
	flushed = socklnd_flush_queued(s);
	if (socklnd_poll_direct(s, &direct_busy)) {
		n = epoll_wait(s->epfd, evs, SOCKLND_EPOLL_BATCH, 0);
	}

	for (i = 0; i < n; i++) {
		if (evs[i].data.ptr == NULL) {
			socklnd_accept(s);
		} else if (evs[i].data.ptr == &s->link_fd) {
			socklnd_link_event(s);
		} else {
			socklnd_conn_event(evs[i].data.ptr, evs[i].events);
		}
	}
	flushed += socklnd_flush_queued(s) + socklnd_rx_staged(s);
	busy = n > 0 || flushed > 0 || direct_busy > 0;
	/*
	 * An SIOCOUTQ per connection with messages waiting. POLLED (no ack
	 * ticks): on a poll that moved something (the peer's answer often
	 * brings the ACK with it), else every SOCKLND_REAP_IDLE_EVERY idle
	 * polls: the spinning caller asked the kernel on every one of them,
	 * about ACKs that come once. THREADS and SIM look on every poll: an
	 * idle one may be the last before the lcore sleeps or time skips.
	 */
	if (s->ack_ticks || busy || ++s->reap_tick >= SOCKLND_REAP_IDLE_EVERY) {
		s->reap_tick = 0;
		busy = socklnd_reap_all(s) > 0 || busy;
	}
	if (s->ack_ticks && !TAILQ_EMPTY(&s->ackconns) && !rt_timer_pending(&s->ack_timer)) {
		rt_timer_arm(&s->ack_timer, SOCKLND_ACK_TICK_US);
	}
	socklnd_conn_free_dead(s);
	return busy ? RT_POLLER_BUSY : RT_POLLER_IDLE;
}

/* ---- LND ops ---- */

static int
socklnd_listen(struct socklnd_ni *s)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	struct sock_addr sa;
	int one = 1;
	int rc = sock_addr_of_nid(lnet_ni_nid(s->ni), s->opts.port, &sa);

	if (rc != 0) {
		return rc;
	}
	s->listen_fd = socket(sa.ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->listen_fd < 0 || s->epfd < 0) {
		return -errno;
	}
	setsockopt(s->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* Two NIs on one address (tcp and tcp1 on eth0) share addr:port, as one kernel acceptor. */
	setsockopt(s->listen_fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
	if (sa.ss.ss_family == AF_INET6) {
		setsockopt(s->listen_fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	}
	if (bind(s->listen_fd, (struct sockaddr *)&sa.ss, sa.len) != 0 ||
	    listen(s->listen_fd, 127) != 0 ||
	    epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->listen_fd, &ev) != 0) {
		return -errno;
	}
	return 0;
}

/* On the NI's data lcore: from now on it polls the sockets. */
static void
socklnd_start_polling(void *arg)
{
	struct socklnd_ni *s = arg;

	s->rt = rt_lcore_runtime(rt_lcore_self());
	/*
	 * POLLED: the caller runs every lcore's pollers round after round, and
	 * this poller (no period) in each: its own reap sees every ACK as soon
	 * as a tick would. THREADS sleeps, SIM skips idle time: they need it.
	 */
	s->ack_ticks = rt_runtime_mode(s->rt) != RT_MODE_POLLED;
	s->caller_polls = rt_runtime_caller_polls(s->rt);
	s->poller = rt_poller_register(rt_lcore_self(), socklnd_poll, s, 0, "socklnd");
	/* Idle, the lcore sleeps until a socket (or the listener) is ready. */
	if (s->poller != NULL && rt_poller_set_wait_fd(s->poller, s->epfd) != 0) {
		SOCK_LOG(WARNING, "%s: sockets polled without idle sleep",
			 libcfs_nidstr(lnet_ni_nid(s->ni)));
	}
	rt_timer_init(&s->sweep, socklnd_sweep, s);
	rt_timer_arm(&s->sweep, SOCKLND_SWEEP_US);
	rt_timer_init(&s->ack_timer, socklnd_ack_tick, s);
	if (!s->link_up) {
		lnet_ni_link_state(s->ni, false); /* configured on a link that is down */
	}
}

/* On the management lcore, as lnet_ni_add() runs: listen, then hand over to the NI's lcore. */
static int
socklnd_startup(struct lnet_ni *ni)
{
	struct socklnd_ni *s = calloc(1, sizeof(*s));
	struct timespec ts;
	int rc;

	if (s == NULL) {
		return -ENOMEM;
	}
	s->ni = ni;
	/* As ksocklnd sets up the net's tunables: no more credits per peer than in all (silently). */
	if (lnet_ni_peer_credits(ni) > lnet_ni_credits(ni)) {
		lnet_ni_set_peer_credits(ni, lnet_ni_credits(ni));
	}
	/* The module parameters, then the NI's lnd tunables (socklnd_params.c). */
	rc = socklnd_ni_opts(lnet_ni_lnd_tunables(ni), &s->opts, NULL, 0);
	if (rc != 0) {
		free(s);
		return rc;
	}
	s->listen_fd = -1;
	s->epfd = -1;
	s->link_fd = -1;
	TAILQ_INIT(&s->conns);
	TAILQ_INIT(&s->flushq);
	TAILQ_INIT(&s->rxq);
	TAILQ_INIT(&s->ackconns);
	s->tx_cache = NULL;
	TAILQ_INIT(&s->peers);
	/* One incarnation per NI lifetime (trap 8): wall-clock ns at start. */
	clock_gettime(CLOCK_REALTIME, &ts);
	s->incarnation = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	/* As ksocklnd: dev cpt is the CPT of the interface's device's NUMA node. */
	lnet_ni_set_dev_node(ni, cfs_if_numa_node(NULL, lnet_ni_ifname(ni)));
	rc = socklnd_listen(s);
	if (rc == 0) {
		socklnd_link_watch(s);
		rc = socklnd_registry_add(s, lnet_ni_lcore(ni));
		if (rc != 0) {
			close(s->listen_fd); /* no other lcore knows it yet */
			s->listen_fd = -1;
		}
	}
	if (rc == 0) {
		lnet_ni_set_lnd_data(ni, s);
		rc = rt_lcore_send_msg(lnet_ni_lcore(ni), socklnd_start_polling, s);
		if (rc != 0) {
			socklnd_registry_del(s);
		}
	}
	if (rc != 0) {
		if (s->listen_fd >= 0) {
			close(s->listen_fd);
		}
		if (s->epfd >= 0) {
			close(s->epfd);
		}
		socklnd_link_fini(s);
		lnet_ni_set_lnd_data(ni, NULL);
		free(s);
	}
	return rc;
}

/* On the NI's data lcore: close everything; what was held completes. */
static void
socklnd_shutdown(struct lnet_ni *ni)
{
	struct socklnd_ni *s = lnet_ni_lnd_data(ni);
	struct socklnd_conn *c;

	if (s == NULL) {
		return;
	}
	socklnd_registry_del(s); /* no connection is handed here any more */
	TAILQ_FOREACH(c, &s->conns, link) {
		socklnd_conn_close(c, -ESHUTDOWN);
	}
	while ((c = TAILQ_FIRST(&s->conns)) != NULL) {
		TAILQ_REMOVE(&s->conns, c, link);
		free(c);
	}
	socklnd_peers_destroy(s, -ESHUTDOWN);
	if (s->poller != NULL) {
		rt_poller_unregister(&s->poller);
	}
	if (rt_timer_pending(&s->sweep)) {
		rt_timer_cancel(&s->sweep);
	}
	if (rt_timer_pending(&s->ack_timer)) {
		rt_timer_cancel(&s->ack_timer);
	}
	close(s->listen_fd);
	close(s->epfd);
	socklnd_link_fini(s);
	socklnd_tx_cache_destroy(s);
	free(s);
	lnet_ni_set_lnd_data(ni, NULL);
}

/* A privileged source port when we may (peers in accept=secure demand it). */
static void
socklnd_bind_reserved(int fd, const struct lnet_nid *self)
{
	struct sock_addr sa;
	int port;

	if (sock_addr_of_nid(self, 0, &sa) != 0) {
		return;
	}
	for (port = LNET_ACCEPTOR_MAX_RESERVED_PORT; port >= LNET_ACCEPTOR_MIN_RESERVED_PORT;
	     port--) {
		sock_addr_set_port(&sa, (uint16_t)port);
		if (bind(fd, (struct sockaddr *)&sa.ss, sa.len) == 0) {
			return;
		}
		if (errno != EADDRINUSE && errno != EADDRNOTAVAIL) {
			break; /* not root: an ephemeral port it is */
		}
	}
	sock_addr_set_port(&sa, 0);
	bind(fd, (struct sockaddr *)&sa.ss, sa.len);
}

/* Open one typed connection to @p p (a NID of our NI's address family, on our net). */
int
socklnd_connect_one(struct socklnd_ni *s, struct socklnd_peer *p, int type)
{
	const struct lnet_nid *peer = &p->nid;
	struct ksock_hello local;
	struct socklnd_conn *c;
	struct epoll_event ev;
	struct sock_addr sa;
	int fd;

	if (sock_addr_of_nid(peer, s->opts.port, &sa) != 0) {
		return -EAFNOSUPPORT;
	}
	if (socklnd_peer_link_down(s, peer)) {
		return -ENETUNREACH; /* its SYN would wait for a link that is down */
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		return -ENOMEM;
	}
	fd = socket(sa.ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		free(c);
		return -errno;
	}
	socklnd_sockopts(s, fd);
	socklnd_bind_reserved(fd, lnet_ni_nid(s->ni));
	if (connect(fd, (struct sockaddr *)&sa.ss, sa.len) != 0 && errno != EINPROGRESS) {
		int err = -errno;

		close(fd);
		free(c);
		return err;
	}
	memset(&local, 0, sizeof(local));
	local.src_nid = *lnet_ni_nid(s->ni);
	local.src_pid = LNET_PID_LUSTRE;
	local.src_incarnation = s->incarnation;
	local.ctype = type;
	c->sni = s;
	c->fd = fd;
	c->last_io_us = rt_now_us(s->rt);
	c->active = true;
	c->peer_nid = *peer;
	c->peer = p;
	c->type = type;
	socklnd_conn_set_state(c, SOCKLND_CONN_EV_CONNECT);
	TAILQ_INIT(&c->txq);
	TAILQ_INIT(&c->ackq);
	/* IPv4 peers speak V3, IPv6 ones V4 (lnet-facts §4.2). */
	sock_conn_init_active(&c->hs, fd, sock_addr_proto(peer), peer, &local, s->stats.hs_entered);
	ev = (struct epoll_event){ .events = EPOLLIN | EPOLLOUT, .data.ptr = c };
	c->want_out = true;
	epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev);
	c->in_epoll = true;
	TAILQ_INSERT_TAIL(&s->conns, c, link);
	TAILQ_INSERT_TAIL(&p->conns, c, plink);
	s->stats.connects++;
	return 0;
}

/* Frame @p msg (V3 for IPv4 peers, V4 for IPv6) and hand it to its peer's connections. */
static int
socklnd_send(struct lnet_ni *ni, struct lnet_msg *msg)
{
	struct socklnd_ni *s = lnet_ni_lnd_data(ni);
	const struct lnet_hdr *h = lnet_msg_hdr(msg);
	const struct lnet_nid *to = lnet_msg_nexthop(msg); /* a gateway when routed */
	struct socklnd_peer *p = s->last_peer;
	const struct iovec *iov;
	struct sock_tx *tx;
	unsigned int niov;
	unsigned int off;
	unsigned int len;
	int rc;

	/* Mostly the peer the last message went to, its NID checked then. */
	if (p != NULL && (!p->send_ok || !lnet_nid_same(&p->nid, to))) {
		p = NULL;
	}
	/* An IPv4 NI reaches IPv4 peers, an IPv6 one IPv6 peers; both on its own net. */
	if (p == NULL && (sock_addr_family(to) != sock_addr_family(lnet_ni_nid(ni)) ||
			  lnet_nid_net(to) != lnet_nid_net(lnet_ni_nid(ni)))) {
		s->stats.no_conn++;
		return -EHOSTUNREACH;
	}
	lnet_msg_payload(msg, &niov, &iov, &off, &len);
	tx = socklnd_tx_alloc(s);
	if (tx == NULL) {
		return -ENOMEM;
	}
	if (sock_tx_prepare(tx, sock_addr_proto(to), NULL, h, iov, niov, off, len, msg) != 0) {
		socklnd_tx_free(s, tx);
		return -EINVAL;
	}
	rc = socklnd_peer_send(s, p, to, tx);
	if (rc != 0) {
		/*
		 * No way to the peer now (its connects failed, it backs off).
		 * ksocklnd says REMOTE_ERROR, which is never resent; a drop lets
		 * LNet try the peer's other NIDs, as a lost connection does.
		 */
		s->stats.no_conn++;
		socklnd_tx_free(s, tx);
		socklnd_msg_fail(msg, rc, LNET_MSG_STATUS_REMOTE_DROPPED);
	}
	return 0;
}

static int
socklnd_recv(struct lnet_ni *ni, void *private, struct lnet_msg *msg, unsigned int niov,
	     const struct iovec *iov, unsigned int offset, unsigned int mlen, unsigned int rlen)
{
	struct socklnd_conn *c = private;

	(void)ni;
	if (c->state == SOCKLND_CONN_DEAD) {
		sock_rx_abort(&c->rx, -ECONNRESET); /* nothing waits on it any more: free it */
		return -ECONNRESET;
	}
	/* The poll loop (now, or at the next readable event) reads the payload. */
	sock_rx_set_sink(&c->rx, msg != NULL ? iov : NULL, niov, offset, mlen, rlen, msg);
	if (!c->in_rx && !c->rx_pending && sock_rx_staged(&c->rx)) {
		/* Already here: no readable event will come for it. */
		c->rx_pending = true;
		TAILQ_INSERT_TAIL(&c->sni->rxq, c, rlink);
	}
	return 0;
}

/*
 * lnetctl capture, on the NI's lcore: from now on every connection's bytes
 * go to @p cap (NULL: stop). Connections already open are recorded from
 * their next message on; new ones from their SYN.
 */
static int
socklnd_capture(struct lnet_ni *ni, struct lnet_pcap *cap)
{
	struct socklnd_ni *s = lnet_ni_lnd_data(ni);
	struct socklnd_conn *c;

	if (s == NULL) {
		return -ENETDOWN;
	}
	TAILQ_FOREACH(c, &s->conns, link) {
		c->flow.synced = false;
	}
	s->cap = cap;
	return 0;
}

/* "lnd tunables" of net show -v, in the kernel's order. */
static unsigned int
socklnd_tunables(const struct lnet_ni *ni, struct lnet_ctl_lnd_tunable *out, unsigned int max)
{
	const struct socklnd_ni *s = lnet_ni_lnd_data(ni);
	const struct lnet_ctl_lnd_tunable all[] = {
		{ "conns_per_peer", s->opts.conns_per_peer },
		{ "timeout", s->opts.timeout },
		{ "tos", s->opts.tos },
	};
	unsigned int n = sizeof(all) / sizeof(all[0]) < max ? sizeof(all) / sizeof(all[0]) : max;

	memcpy(out, all, n * sizeof(all[0]));
	return n;
}

/* Counters for telemetry (/lnet/lnd_stats), on the NI's lcore. */
static unsigned int
socklnd_counters(const struct lnet_ni *ni, struct lnet_ctl_lnd_counter *out, unsigned int max)
{
	const struct socklnd_ni *s = lnet_ni_lnd_data(ni);
	const struct socklnd_stats *st = &s->stats;
	const struct lnet_ctl_lnd_counter all[] = {
		{ "accepted", st->accepted }, { "refused", st->refused },
		{ "connects", st->connects }, { "connect_failures", st->connect_failures },
		{ "conns_up", st->conns_up }, { "conns_closed", st->conns_closed },
		{ "handshake_failures", st->handshake_failures },
		{ "proto_errors", st->proto_errors }, { "timeouts", st->timeouts },
		{ "rx_msgs", st->rx_msgs }, { "rx_reads", st->rx_reads },
		{ "tx_msgs", st->tx_msgs }, { "tx_writes", st->tx_writes }, { "zc_acks", st->zc_acks },
		{ "no_conn", st->no_conn }, { "races_won", st->races_won },
		{ "duplicates", st->duplicates }, { "stale_conns", st->stale_conns }, { "keepalives", st->keepalives },
		{ "handed_off", st->handed_off }, { "handshake_timeouts", st->handshake_timeouts },
		{ "sibling_closes", st->sibling_closes }, { "tx_requeued", st->tx_requeued },
		{ "csum_checked", st->csum_checked }, { "csum_errors", st->csum_errors },
		{ "link_checks", st->link_checks }, { "link_changes", st->link_changes },
		{ "link_reloads", st->link_reloads },
		{ "ack_checks", st->ack_checks }, { "unacked_failed", st->unacked_failed },
		{ "link_closes", st->link_closes }, { "slow_conn_waits", st->slow_conn_waits },
		{ "slow_writes", st->slow_writes }, { "slow_acks", st->slow_acks },
	};
	unsigned int n = sizeof(all) / sizeof(all[0]) < max ? sizeof(all) / sizeof(all[0]) : max;

	memcpy(out, all, n * sizeof(all[0]));
	return n;
}

static const struct lnet_lnd_ops socklnd_ops = {
	.name = "tcp",
	.type = LNET_LND_SOCK,
	.caps = LNET_LND_CAP_HDR_CHECKED, /* lnet_hdr_decode_nid4/nid16 validate */
	.startup = socklnd_startup,
	.shutdown = socklnd_shutdown,
	.send = socklnd_send,
	.recv = socklnd_recv,
	.tunables = socklnd_tunables,
	.counters = socklnd_counters,
	.capture = socklnd_capture,
	.params_set = socklnd_params_set,
	.params_get = socklnd_params_get,
	.ni_check = socklnd_ni_check,
};

LNET_LND_REGISTER(socklnd_ops)

const struct lnet_lnd_ops *
socklnd_lnd_ops(void)
{
	return &socklnd_ops;
}

void
socklnd_stats_get(const struct lnet_ni *ni, struct socklnd_stats *out)
{
	const struct socklnd_ni *s = lnet_ni_lnd_data(ni);

	memset(out, 0, sizeof(*out));
	if (s != NULL) {
		*out = s->stats;
	}
}
