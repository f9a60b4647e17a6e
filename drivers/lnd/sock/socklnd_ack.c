/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion once the peer's TCP acknowledged a message (see
 * socklnd_ack.h): the poll and the ack tick reap what the peer has, a
 * closing connection fails what it never got, for LNet to send elsewhere.
 */

#include "socklnd_ack.h"
#include "socklnd_tx.h"

static void
socklnd_ackconns_unlink(struct socklnd_conn *c)
{
	if (c->on_ackconns) {
		c->on_ackconns = false;
		TAILQ_REMOVE(&c->sni->ackconns, c, alink);
	}
}

/* A message is written whole: it completes when the peer's TCP acknowledges its last byte. */
void
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
unsigned int
socklnd_conn_reap(struct socklnd_conn *c)
{
	const struct sock_tx *head = TAILQ_FIRST(&c->txq);
	uint64_t written = c->wr_done + (head != NULL ? head->sent : 0);
	unsigned int n = 0;
	struct sock_tx *tx;
	long outq;

	if (TAILQ_EMPTY(&c->ackq) || !sock_stream_open(&c->st)) {
		return 0;
	}
	c->sni->stats.ack_checks++;
	outq = c->st.ops->unacked(&c->st);
	if (outq < 0) {
		return 0; /* the stream's trouble shows on its next read or write */
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
void
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

unsigned int
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
void
socklnd_ack_tick(void *arg)
{
	struct socklnd_ni *s = arg;

	socklnd_reap_all(s);
	if (!TAILQ_EMPTY(&s->ackconns)) {
		rt_timer_arm(&s->ack_timer, SOCKLND_ACK_TICK_US);
	}
}
