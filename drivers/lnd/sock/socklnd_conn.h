/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A socklnd connection's life (socklnd_conn.c): the state machine of
 * socklnd_ni.h, close and free, the epoll set, its transmit queue, its
 * reads. The layers above it (handshake, peers, the NI's poll) use this;
 * it reaches them only through the NI's hooks.
 */
#ifndef SOCKLND_CONN_H
#define SOCKLND_CONN_H

#include <sys/epoll.h>

#include "socklnd_ni.h"

extern const struct rt_fsm socklnd_conn_fsm;
int socklnd_conn_set_state(struct socklnd_conn *c, enum socklnd_conn_event ev);
/* The TCP connection is there: its bytes go to the NI's capture from now on. */
void socklnd_conn_flow(struct socklnd_conn *c);
bool socklnd_conn_carries(const struct socklnd_conn *c);
void socklnd_conn_close(struct socklnd_conn *c, int status);
/* Close with @p hs as the health status of the messages it fails. */
void socklnd_conn_close_hs(struct socklnd_conn *c, int status, enum lnet_msg_hstatus hs);
void socklnd_conn_fail(struct socklnd_conn *c, int status);
void socklnd_conn_free_dead(struct socklnd_ni *s);
/* Writable readiness wanted (@p out) or not: the epoll set's events for it. */
void socklnd_conn_want(struct socklnd_conn *c, bool out);
void socklnd_conn_queue(struct socklnd_conn *c, struct sock_tx *tx);
int socklnd_conn_noop(struct socklnd_conn *c, uint64_t cookie0, uint64_t cookie1);
void socklnd_conn_rx_start(struct socklnd_conn *c);
void socklnd_conn_event(struct socklnd_conn *c, uint32_t events);
void socklnd_conn_read(struct socklnd_conn *c);
/* Connections whose payload was staged before LNet chose where it goes. @return how many. */
unsigned int socklnd_rx_staged(struct socklnd_ni *s);
unsigned int socklnd_flush_queued_all(struct socklnd_ni *s);

/* Each poll asks twice, and mostly nothing was queued: that answer costs no call. */
static inline unsigned int
socklnd_flush_queued(struct socklnd_ni *s)
{
	return TAILQ_EMPTY(&s->flushq) ? 0 : socklnd_flush_queued_all(s);
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
	uint32_t events;

	if (c->in_epoll == in) {
		return; /* every poll asks this of each cold connection: mostly so already */
	}
	events = EPOLLIN | (c->want_out ? EPOLLOUT : 0);
	if (c->sni->xp->ops->watch(c->sni->xp, &c->st, in ? SOCK_WATCH_ADD : SOCK_WATCH_DEL, events,
				   c) == 0) {
		c->in_epoll = in;
		c->sni->nout += in ? -1U : 1U;
	}
}

#endif /* SOCKLND_CONN_H */
