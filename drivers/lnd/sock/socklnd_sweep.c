/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A socklnd NI's sweep (see socklnd_sweep.h), once a second on its lcore:
 * connections that made no progress for sock_timeout, or stalled in the
 * passive handshake for accept_timeout, close; slow waits are counted and
 * logged; then the peers' retries and keepalives, the link table's
 * reload, and freeing what closed.
 */
#include <errno.h>

#include "cfs.h"
#include "socklnd_conn.h"
#include "socklnd_link.h"
#include "socklnd_peer.h"
#include "socklnd_sweep.h"

#define SOCKLND_ACCEPT_TIMEOUT_US (5 * SOCKLND_US_PER_S) /* the kernel acceptor's accept_timeout */

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
	       c->rx.state == SOCK_RX_PAYLOAD ||
	       (c->rx.state == SOCK_RX_KSOCK_HDR && c->rx.have > 0);
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

	return (uint64_t)(sock == 0 || lnd < sock ? lnd : sock) * SOCKLND_US_PER_S;
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
	long outq;

	if (c->state != SOCKLND_CONN_UP) {
		return;
	}
	if (!TAILQ_EMPTY(&c->txq) && now - c->tx_io_us >= SOCKLND_SLOW_US &&
	    c->slow_tx_seen != c->tx_io_us) {
		c->slow_tx_seen = c->tx_io_us;
		s->stats.slow_writes++;
		SOCK_LOG(WARNING,
			 "%s: connection to %s (type %d) took no bytes for %llu ms, %u messages "
			 "queued",
			 libcfs_nidstr(lnet_ni_nid(s->ni)),
			 libcfs_nidstr_r(&c->peer_nid, peer, sizeof(peer)), c->type,
			 (unsigned long long)((now - c->tx_io_us) / SOCKLND_US_PER_MS), c->nqueued);
	}
	if (!TAILQ_EMPTY(&c->ackq) && now - c->ack_io_us >= SOCKLND_SLOW_US &&
	    c->slow_ack_seen != c->ack_io_us) {
		c->slow_ack_seen = c->ack_io_us;
		s->stats.slow_acks++;
		outq = sock_stream_open(&c->st) ? c->st.ops->unacked(&c->st) : -1;
		SOCK_LOG(WARNING,
			 "%s: connection to %s (type %d): nothing acknowledged for %llu ms, %ld "
			 "bytes unacknowledged",
			 libcfs_nidstr(lnet_ni_nid(s->ni)),
			 libcfs_nidstr_r(&c->peer_nid, peer, sizeof(peer)), c->type,
			 (unsigned long long)((now - c->ack_io_us) / SOCKLND_US_PER_MS), outq);
	}
}

void
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
