/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The handshake glue (see socklnd_hs.h): a socklnd NI's side of the
 * handshake state machine (sock_conn.c). Sockets set as ksocklnd sets
 * them; the acceptor's policy; our connects from a privileged port; the
 * hand-off of a connection request naming another NI of ours to that NI's
 * lcore; and driving a connection's connect and hello until it is UP.
 * Whether the peer may have the connection, and what its being UP means,
 * is the peers' (socklnd_peer.c), asked through the NI's hooks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "sock_addr.h"
#include "socklnd_conn.h"
#include "socklnd_hs.h"
#include "socklnd_registry.h"

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
	struct socklnd_conn *c = ctx;

	return c->sni->hooks->hello(c, peer);
}

static void
socklnd_conn_up(struct socklnd_conn *c)
{
	socklnd_conn_set_state(c, SOCKLND_CONN_EV_HS_DONE);
	c->rx_io_us = c->tx_io_us = rt_now_us(c->sni->rt);
	c->type = c->hs.local.ctype;
	c->peer_nid = c->hs.peer.src_nid;
	socklnd_conn_rx_start(c);
	c->sni->stats.conns_up++;
	c->sni->nup++;
	c->hot_until = c->sni->polls + SOCKLND_HOT_POLLS;
	c->sni->hooks->up(c);
}

/*
 * Every connection, as ksocklnd sets its sockets: no Nagle unless nagle=1,
 * TCP keepalive (30 s idle, 5 probes 5 s apart by default: a silent dead
 * peer is found; any of them 0 turns it off), the buffer sizes and the IP
 * TOS if set. The transport's backend applies them (sock_stream.h).
 */
static struct sock_stream_opts
socklnd_stream_opts(const struct socklnd_ni *s)
{
	const struct socklnd_opts *o = &s->opts;

	return (struct sock_stream_opts){
		.nodelay = o->nagle == 0,
		.keepalive_idle = o->keepalive_idle,
		.keepalive_intvl = o->keepalive_intvl,
		.keepalive_count = o->keepalive_count,
		.tx_buffer_size = o->tx_buffer_size,
		.rx_buffer_size = o->rx_buffer_size,
		.tos = o->tos,
		.v6 = sock_addr_family(lnet_ni_nid(s->ni)) == AF_INET6,
	};
}

/* Another NI of ours takes connections whose request names it (see socklnd_registry.c). */
static bool
socklnd_conn_hand_off_ok(void *ctx, const struct lnet_nid *nid)
{
	struct socklnd_conn *c = ctx;

	/* A userspace stream lives on its lcore (sock_xport_ops.watch_fd NULL): never handed on. */
	if (c->sni->xp->ops->watch_fd == NULL || socklnd_registry_lcore(nid) == NULL) {
		return false;
	}
	c->handoff = *nid;
	return true;
}

/* A passive connection on @p st, its first @p n bytes (a request another NI read) in @p pre. */
static void
socklnd_accept_stream(struct socklnd_ni *s, struct sock_stream *st, const uint8_t *pre, size_t n)
{
	struct socklnd_conn *c = calloc(1, sizeof(*c));
	struct ksock_hello local;
	struct sock_conn_policy pol = { socklnd_conn_nid_is_local, socklnd_accept_hello,
					socklnd_conn_hand_off_ok, NULL };

	if (c == NULL) {
		st->ops->close(st);
		return;
	}
	memset(&local, 0, sizeof(local));
	local.src_pid = LNET_PID_LUSTRE;
	local.src_incarnation = s->incarnation;
	c->sni = s;
	c->st = *st;
	c->last_io_us = rt_now_us(s->rt);
	socklnd_conn_set_state(c, SOCKLND_CONN_EV_TCP_UP);
	TAILQ_INIT(&c->txq);
	TAILQ_INIT(&c->ackq);
	pol.ctx = c;
	sock_conn_init_passive(&c->hs, c->st.fd, &local, &pol, s->stats.hs_entered);
	sock_conn_set_stream(&c->hs, &c->st);
	if (n > 0) {
		sock_conn_prefill(&c->hs, pre, n);
	}
	socklnd_conn_flow(c);
	s->xp->ops->watch(s->xp, &c->st, SOCK_WATCH_ADD, EPOLLIN, c);
	c->in_epoll = true;
	TAILQ_INSERT_TAIL(&s->conns, c, link);
	if (n > 0) {
		socklnd_conn_event(c,
				   EPOLLIN); /* the hello may be in already: no new event for it */
	}
}

void
socklnd_accept(struct socklnd_ni *s)
{
	struct sock_addr sa = { .len = sizeof(sa.ss) };
	struct sock_stream st;
	struct sock_stream_opts o;

	if (s->xp->ops->accept(s->xp, &st, &sa) <= 0) {
		return;
	}
	/* accept=secure: only privileged source ports (lnet-facts §4.1, trap 1). */
	if (s->opts.accept == SOCKLND_ACCEPT_NONE ||
	    (s->opts.accept == SOCKLND_ACCEPT_SECURE &&
	     sock_addr_port(&sa) > LNET_ACCEPTOR_MAX_RESERVED_PORT)) {
		s->stats.refused++;
		st.ops->close(&st);
		return;
	}
	o = socklnd_stream_opts(s);
	st.ops->setopts(&st, &o);
	s->stats.accepted++;
	socklnd_accept_stream(s, &st, NULL, 0);
}

/* A connection request for another NI of ours, on its way to that NI's lcore. */
struct socklnd_handoff {
	struct lnet_nid nid;
	struct sock_stream st;
	size_t n;
	uint8_t bytes[160];
};

static void
socklnd_adopt(void *arg)
{
	struct socklnd_handoff *h = arg;
	struct socklnd_ni *s = socklnd_registry_here(&h->nid);

	/* Only an NI on the same transport can take the stream (a kernel socket, a userspace TCB). */
	if (s != NULL && s->xp->sops == h->st.ops) {
		socklnd_accept_stream(s, &h->st, h->bytes, h->n);
	} else {
		h->st.ops->close(&h->st); /* the NI went meanwhile: the peer connects again */
	}
	free(h);
}

static void
socklnd_conn_hand_off(struct socklnd_conn *c)
{
	struct rt_lcore *lc = socklnd_registry_lcore(&c->handoff);
	struct socklnd_handoff *h = malloc(sizeof(*h));

	c->sni->xp->ops->watch(c->sni->xp, &c->st, SOCK_WATCH_DEL, 0, NULL);
	if (h == NULL || lc == NULL || c->hs.rxlen > sizeof(h->bytes)) {
		free(h);
		socklnd_conn_close(c, -EXDEV);
		return;
	}
	h->nid = c->handoff;
	h->st = c->st;
	h->n = c->hs.rxlen;
	memcpy(h->bytes, c->hs.rx, h->n);
	if (rt_lcore_send_msg(lc, socklnd_adopt, h) != 0) {
		free(h);
		socklnd_conn_close(c, -EXDEV);
		return;
	}
	c->sni->stats.handed_off++;
	c->st = (struct sock_stream){ .fd = -1 }; /* it is the other NI's now */
	socklnd_conn_close(c, -EXDEV);
}

/*
 * socklnd_conn_event() on a connection not UP (yet, or any more), through
 * the NI's handshake hook: the connect's completion and the handshake,
 * which may bring it UP. @return false when this event has nothing more
 * for it.
 */
bool
socklnd_hs_event(struct socklnd_conn *c, uint32_t events)
{
	enum sock_conn_state hs_was = c->hs.state;
	int rc;

	if (c->state == SOCKLND_CONN_DEAD) {
		return false; /* closed earlier in this batch of events (a sibling's error) */
	}
	if (c->active) {
		c->last_io_us =
			rt_now_us(c->sni->rt); /* connecting or in the hello: its socket woke us */
	}
	if (c->state == SOCKLND_CONN_CONNECTING) {
		int err;

		if ((events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) == 0) {
			return false;
		}
		err = c->st.ops->error(&c->st);
		if (err != 0) {
			c->sni->stats.connect_failures++;
			socklnd_conn_close(c, err);
			return false;
		}
		socklnd_conn_set_state(c, SOCKLND_CONN_EV_TCP_UP);
		socklnd_conn_flow(c);
	}
	if (c->state == SOCKLND_CONN_HANDSHAKE) {
		rc = sock_conn_progress(&c->hs);
		if (!c->active && c->hs.state != hs_was) {
			c->last_io_us =
				rt_now_us(c->sni->rt); /* a handshake message is in (or out) */
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

/* Open one typed connection to @p p (a NID of our NI's address family, on our net). */
int
socklnd_connect_one(struct socklnd_ni *s, struct socklnd_peer *p, int type)
{
	const struct lnet_nid *peer = &p->nid;
	struct sock_stream_opts o = socklnd_stream_opts(s);
	struct ksock_hello local;
	struct socklnd_conn *c;
	struct sock_addr self;
	struct sock_addr sa;
	int rc;

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
	/* From a privileged source port when we may (peers in accept=secure demand it). */
	rc = s->xp->ops->connect(s->xp, &c->st,
				 sock_addr_of_nid(lnet_ni_nid(s->ni), 0, &self) == 0 ? &self : NULL,
				 LNET_ACCEPTOR_MIN_RESERVED_PORT, LNET_ACCEPTOR_MAX_RESERVED_PORT,
				 &sa, &o);
	if (rc != 0) {
		free(c);
		return rc;
	}
	memset(&local, 0, sizeof(local));
	local.src_nid = *lnet_ni_nid(s->ni);
	local.src_pid = LNET_PID_LUSTRE;
	local.src_incarnation = s->incarnation;
	local.ctype = type;
	c->sni = s;
	c->last_io_us = rt_now_us(s->rt);
	c->active = true;
	c->peer_nid = *peer;
	c->peer = p;
	c->type = type;
	socklnd_conn_set_state(c, SOCKLND_CONN_EV_CONNECT);
	TAILQ_INIT(&c->txq);
	TAILQ_INIT(&c->ackq);
	/* IPv4 peers speak V3, IPv6 ones V4 (lnet-facts §4.2). */
	sock_conn_init_active(&c->hs, c->st.fd, sock_addr_proto(peer), peer, &local,
			      s->stats.hs_entered);
	sock_conn_set_stream(&c->hs, &c->st);
	c->want_out = true;
	s->xp->ops->watch(s->xp, &c->st, SOCK_WATCH_ADD, EPOLLIN | EPOLLOUT, c);
	c->in_epoll = true;
	TAILQ_INSERT_TAIL(&s->conns, c, link);
	TAILQ_INSERT_TAIL(&p->conns, c, plink);
	s->stats.connects++;
	return 0;
}
