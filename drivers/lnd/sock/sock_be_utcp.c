/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The userspace-TCP backend of the byte-stream transport (sock_stream.h):
 * an NI's connections are net_tcp connections on its data lcore, over a
 * DPDK port the daemon (or a test) opened and named (sock_utcp_port_add).
 *
 * net_tcp reports a connection's turns by callback, from inside its input
 * path; this backend only notes them, and the NI's poll asks for them
 * through wait(), as it asks epoll: the protocol code never runs inside
 * the TCP's input. Readability is level-triggered (bytes queued, or the
 * peer's FIN or an error not yet read), as epoll's is, so the framing may
 * stop reading (waiting for LNet) and be told again; writability is the
 * edge of a connect completing or of the peer acknowledging bytes.
 *
 * Receive copies once, from the received segments' views into the
 * caller's buffer (the staging buffer, or LNet's for bulk). Send copies
 * into the TCP's send buffer; a message completes when the peer's TCP has
 * acknowledged its last byte (unacked(): bytes taken less bytes acked).
 */
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "net_tcp.h"
#include "sock_log.h"
#include "sock_stream.h"

struct sock_utcp_conn;
TAILQ_HEAD(sock_utcp_list, sock_utcp_conn);

struct sock_xport_utcp {
	struct sock_xport base;
	struct net_tcp *tcp;
	unsigned int lcore; /* the NI's data lcore (index): every connection lives there */
	uint32_t laddr;     /* network order */
	uint16_t lport;     /* the acceptor's, host order; 0: not listening */
	bool listening;
	struct sock_utcp_list acceptq; /* accepted, not yet taken by accept() */
	struct sock_utcp_list watched; /* in the readiness set */
	struct sock_utcp_port *port;   /* the named port it runs on (its link); NULL none */
	void *link_ptr;                /* reported by wait() when the port's link changed */
	uint32_t link_seen;            /* the port's link_gen link_up() last read */
};

struct sock_utcp_conn {
	TAILQ_ENTRY(sock_utcp_conn) link; /* on acceptq, then on watched while watched */
	struct sock_xport_utcp *x;
	struct net_tcp_conn *tc;
	void *ptr;         /* reported with its readiness */
	uint32_t interest; /* EPOLLIN, EPOLLOUT */
	uint32_t out_edge; /* EPOLLOUT: connected, or bytes acknowledged, since last reported */
	bool on_acceptq;
	bool watched;
	bool rd_hint;   /* READABLE came: the FIN may be there even with no bytes queued */
	bool closed;    /* the TCP reached CLOSED */
	int err;        /* -errno it closed with; 0 */
	uint64_t taken; /* bytes sendv took */
	uint64_t acked; /* bytes the peer acknowledged */
};

static struct sock_xport_utcp *
sock_xu(struct sock_xport *x)
{
	return (struct sock_xport_utcp *)x;
}

/* ---- the ports the daemon named ---- */

#define SOCK_UTCP_PORTS 8

struct sock_utcp_port {
	char name[32];
	uint32_t addr; /* network order */
	struct net_tcp *tcp;
	/*
	 * Written by sock_utcp_port_link() (the management lcore), read by the
	 * NIs' lcores on every wait(): link_down, then link_gen bumped with
	 * release, so a reader that sees the new generation sees the new state.
	 */
	bool link_down;
	uint32_t link_gen;
};

static pthread_mutex_t sock_utcp_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sock_utcp_port sock_utcp_ports[SOCK_UTCP_PORTS];

int
sock_utcp_port_add(const char *name, uint32_t addr, struct net_tcp *tcp)
{
	int rc = -ENOSPC;

	if (name == NULL || tcp == NULL || strlen(name) >= sizeof(sock_utcp_ports[0].name)) {
		return -EINVAL;
	}
	pthread_mutex_lock(&sock_utcp_lock);
	for (unsigned int i = 0; i < SOCK_UTCP_PORTS; i++) {
		struct sock_utcp_port *p = &sock_utcp_ports[i];

		if (p->tcp != NULL && strcmp(p->name, name) == 0) {
			rc = -EEXIST;
			break;
		}
		if (p->tcp == NULL && rc == -ENOSPC) {
			rc = (int)i;
		}
	}
	if (rc >= 0) {
		struct sock_utcp_port *p = &sock_utcp_ports[rc];

		strcpy(p->name, name);
		p->addr = addr;
		p->tcp = tcp;
		rc = 0;
	}
	pthread_mutex_unlock(&sock_utcp_lock);
	return rc;
}

void
sock_utcp_port_del(const char *name)
{
	pthread_mutex_lock(&sock_utcp_lock);
	for (unsigned int i = 0; i < SOCK_UTCP_PORTS; i++) {
		if (sock_utcp_ports[i].tcp != NULL && strcmp(sock_utcp_ports[i].name, name) == 0) {
			memset(&sock_utcp_ports[i], 0, sizeof(sock_utcp_ports[i]));
		}
	}
	pthread_mutex_unlock(&sock_utcp_lock);
}

void
sock_utcp_port_link(const char *name, bool up)
{
	pthread_mutex_lock(&sock_utcp_lock);
	for (unsigned int i = 0; i < SOCK_UTCP_PORTS; i++) {
		struct sock_utcp_port *p = &sock_utcp_ports[i];

		if (p->tcp != NULL && strcmp(p->name, name) == 0) {
			__atomic_store_n(&p->link_down, !up, __ATOMIC_RELAXED);
			__atomic_fetch_add(&p->link_gen, 1, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&sock_utcp_lock);
}

/* The slot of the port whose TCP is @p tcp; NULL when it is not named (a test's bare stack). */
static struct sock_utcp_port *
sock_utcp_port_of_tcp(const struct net_tcp *tcp)
{
	struct sock_utcp_port *found = NULL;

	pthread_mutex_lock(&sock_utcp_lock);
	for (unsigned int i = 0; i < SOCK_UTCP_PORTS && found == NULL; i++) {
		if (sock_utcp_ports[i].tcp == tcp) {
			found = &sock_utcp_ports[i];
		}
	}
	pthread_mutex_unlock(&sock_utcp_lock);
	return found;
}

struct net_tcp *
sock_utcp_port_find(const char *name, uint32_t addr)
{
	struct net_tcp *tcp = NULL;

	pthread_mutex_lock(&sock_utcp_lock);
	for (unsigned int i = 0; i < SOCK_UTCP_PORTS && tcp == NULL; i++) {
		const struct sock_utcp_port *p = &sock_utcp_ports[i];

		if (p->tcp != NULL &&
		    (name != NULL ? strcmp(p->name, name) == 0 : p->addr == addr)) {
			tcp = p->tcp;
		}
	}
	pthread_mutex_unlock(&sock_utcp_lock);
	return tcp;
}

/* ---- a connection ---- */

static struct sock_utcp_conn *
sock_uc(const struct sock_stream *st)
{
	return st->h;
}

/* net_tcp's turns of one connection: noted for the next wait(). */
static void
sock_utcp_event(void *arg, struct net_tcp_conn *c, enum net_tcp_event ev, uint64_t n)
{
	struct sock_utcp_conn *uc = arg;

	(void)c;
	switch (ev) {
	case NET_TCP_EV_CONNECTED:
		uc->out_edge = EPOLLOUT;
		break;
	case NET_TCP_EV_READABLE:
		uc->rd_hint = true;
		break;
	case NET_TCP_EV_ACKED:
		uc->acked += n;
		uc->out_edge = EPOLLOUT;
		break;
	case NET_TCP_EV_CLOSED:
		uc->closed = true;
		uc->err = n != 0 ? -(int)n : -ECONNRESET;
		break;
	case NET_TCP_EV_ACCEPT:
		break; /* a listener's, not a connection's */
	}
}

static ssize_t
sock_utcp_recv(struct sock_stream *st, void *buf, size_t len)
{
	struct sock_utcp_conn *uc = sock_uc(st);
	size_t got = 0;

	while (got < len) {
		struct net_tcp_view v;
		int r = net_tcp_peek(uc->tc, &v);
		size_t n;

		if (r != 1) {
			if (got > 0) {
				break;
			}
			if (r == 0) {
				uc->rd_hint =
					false; /* all read: readable again on the next READABLE */
			}
			return r; /* 0 nothing now, -ENODATA the FIN, or the error */
		}
		n = v.len < len - got ? v.len : len - got;
		memcpy((uint8_t *)buf + got, v.data, n);
		net_tcp_consume(uc->tc, n);
		got += n;
	}
	return (ssize_t)got;
}

static ssize_t
sock_utcp_sendv(struct sock_stream *st, const struct iovec *iov, int iovcnt)
{
	struct sock_utcp_conn *uc = sock_uc(st);
	size_t took = 0;

	for (int i = 0; i < iovcnt; i++) {
		long r = net_tcp_send(uc->tc, iov[i].iov_base, iov[i].iov_len);

		if (r < 0) {
			if (took > 0) {
				break; /* the error shows on the next call */
			}
			return r;
		}
		took += (size_t)r;
		if ((size_t)r < iov[i].iov_len) {
			break; /* the send buffer is full */
		}
	}
	uc->taken += took;
	return (ssize_t)took;
}

static long
sock_utcp_unacked(struct sock_stream *st)
{
	const struct sock_utcp_conn *uc = sock_uc(st);

	return uc->acked >= uc->taken ? 0 : (long)(uc->taken - uc->acked);
}

static int
sock_utcp_error(struct sock_stream *st)
{
	const struct sock_utcp_conn *uc = sock_uc(st);

	return uc->closed ? uc->err : 0;
}

static void
sock_utcp_addr_set(struct sock_addr *a, uint32_t addr, uint16_t port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&a->ss;

	memset(a, 0, sizeof(*a));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = addr;
	sin->sin_port = htons(port);
	a->len = sizeof(*sin);
}

/* The TCB's addresses: what a capture frames this stream's bytes with, as a kernel socket's. */
static int
sock_utcp_addrs(struct sock_stream *st, struct sock_addr *local, struct sock_addr *remote)
{
	const struct sock_utcp_conn *uc = sock_uc(st);
	struct net_tcp_info info;

	if (uc->tc == NULL) {
		return -ENOTCONN;
	}
	net_tcp_get_info(uc->tc, &info);
	sock_utcp_addr_set(local, info.laddr, info.lport);
	sock_utcp_addr_set(remote, info.raddr, info.rport);
	return 0;
}

/* Keepalive as ksocklnd sets it; no Nagle to turn off; buffers are the stack's (net_tcp_conf). */
static void
sock_utcp_setopts(struct sock_stream *st, const struct sock_stream_opts *o)
{
	struct sock_utcp_conn *uc = sock_uc(st);

	if (o->keepalive_idle > 0 && o->keepalive_intvl > 0 && o->keepalive_count > 0) {
		net_tcp_set_keepalive(uc->tc, (uint32_t)o->keepalive_idle,
				      (uint32_t)o->keepalive_intvl, (uint32_t)o->keepalive_count);
	}
}

static void
sock_utcp_unwatch(struct sock_utcp_conn *uc)
{
	if (uc->watched) {
		uc->watched = false;
		TAILQ_REMOVE(&uc->x->watched, uc, link);
	}
}

static void
sock_utcp_conn_free(struct sock_utcp_conn *uc, bool abort)
{
	sock_utcp_unwatch(uc);
	if (uc->on_acceptq) {
		uc->on_acceptq = false;
		TAILQ_REMOVE(&uc->x->acceptq, uc, link);
	}
	/* Released: net_tcp frees it once CLOSED, and calls back no more. */
	if (abort) {
		net_tcp_abort(uc->tc);
	} else {
		net_tcp_close(uc->tc);
	}
	free(uc);
}

static void
sock_utcp_close(struct sock_stream *st)
{
	sock_utcp_conn_free(sock_uc(st), false);
	st->ops = NULL;
	st->h = NULL;
}

static const struct sock_stream_ops sock_stream_utcp_ops = {
	.exact_reads = true,
	.recv = sock_utcp_recv,
	.sendv = sock_utcp_sendv,
	.unacked = sock_utcp_unacked,
	.error = sock_utcp_error,
	.setopts = sock_utcp_setopts,
	.close = sock_utcp_close,
	.addrs = sock_utcp_addrs,
};

static struct sock_utcp_conn *
sock_utcp_conn_new(struct sock_xport_utcp *x)
{
	struct sock_utcp_conn *uc = calloc(1, sizeof(*uc));

	if (uc != NULL) {
		uc->x = x;
	}
	return uc;
}

static void
sock_utcp_stream_set(struct sock_stream *st, struct sock_utcp_conn *uc)
{
	*st = (struct sock_stream){
		.ops = &sock_stream_utcp_ops, .fd = -1, .h = uc, .xp = &uc->x->base
	};
}

/* ---- the NI's transport ---- */

/* The listener's turn: a connection established; it waits on acceptq for accept(). */
static void
sock_utcp_listen_event(void *arg, struct net_tcp_conn *c, enum net_tcp_event ev, uint64_t n)
{
	struct sock_xport_utcp *x = arg;
	struct sock_utcp_conn *uc;

	(void)n;
	if (ev != NET_TCP_EV_ACCEPT) {
		return;
	}
	uc = sock_utcp_conn_new(x);
	if (uc == NULL) {
		net_tcp_abort(c); /* no memory: the peer connects again */
		return;
	}
	uc->tc = c;
	uc->on_acceptq = true;
	net_tcp_set_cb(c, sock_utcp_event, uc);
	TAILQ_INSERT_TAIL(&x->acceptq, uc, link);
}

/* Off the lcore: only noted; the listener opens on the NI's lcore (start). */
static int
sock_xu_listen(struct sock_xport *x, const struct sock_addr *sa, int backlog)
{
	(void)backlog;
	if (sa->ss.ss_family != AF_INET) {
		return -EAFNOSUPPORT; /* the userspace TCP is IPv4 only */
	}
	sock_xu(x)->lport = sock_addr_port(sa);
	return 0;
}

static int
sock_xu_start(struct sock_xport *x)
{
	struct sock_xport_utcp *u = sock_xu(x);
	int rc;

	if (u->lport == 0) {
		return 0;
	}
	rc = net_tcp_listen(u->tcp, u->lcore, u->lport, sock_utcp_listen_event, u);
	u->listening = rc == 0;
	return rc;
}

static int
sock_xu_accept(struct sock_xport *x, struct sock_stream *st, struct sock_addr *peer)
{
	struct sock_xport_utcp *u = sock_xu(x);
	struct sock_utcp_conn *uc = TAILQ_FIRST(&u->acceptq);
	struct sockaddr_in *sin = (struct sockaddr_in *)&peer->ss;
	struct net_tcp_info info;

	if (uc == NULL) {
		return 0;
	}
	TAILQ_REMOVE(&u->acceptq, uc, link);
	uc->on_acceptq = false;
	net_tcp_get_info(uc->tc, &info);
	memset(peer, 0, sizeof(*peer));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = info.raddr;
	sin->sin_port = htons(info.rport);
	peer->len = sizeof(*sin);
	sock_utcp_stream_set(st, uc);
	return 1;
}

static int
sock_xu_connect(struct sock_xport *x, struct sock_stream *st, const struct sock_addr *self,
		uint16_t port_lo, uint16_t port_hi, const struct sock_addr *to,
		const struct sock_stream_opts *o)
{
	struct sock_xport_utcp *u = sock_xu(x);
	const struct sockaddr_in *dst = (const struct sockaddr_in *)&to->ss;
	struct sock_utcp_conn *uc;
	int rc;

	(void)self; /* the port's address */
	if (to->ss.ss_family != AF_INET) {
		return -EAFNOSUPPORT;
	}
	uc = sock_utcp_conn_new(u);
	if (uc == NULL) {
		return -ENOMEM;
	}
	/* No privileged port left (or none asked for): any the stack has, as the kernel's bind(0). */
	rc = net_tcp_connect(u->tcp, u->lcore, dst->sin_addr.s_addr, ntohs(dst->sin_port), port_lo,
			     port_hi, sock_utcp_event, uc, &uc->tc);
	if (rc == -EADDRNOTAVAIL && port_lo != 0) {
		rc = net_tcp_connect(u->tcp, u->lcore, dst->sin_addr.s_addr, ntohs(dst->sin_port),
				     1024, 65535, sock_utcp_event, uc, &uc->tc);
	}
	if (rc != 0) {
		free(uc);
		return rc;
	}
	sock_utcp_stream_set(st, uc);
	sock_utcp_setopts(st, o);
	return 0;
}

static int
sock_xu_watch(struct sock_xport *x, struct sock_stream *st, enum sock_watch_op op, uint32_t events,
	      void *ptr)
{
	struct sock_utcp_conn *uc = sock_uc(st);

	(void)x;
	if (op == SOCK_WATCH_DEL) {
		sock_utcp_unwatch(uc);
		return 0;
	}
	uc->interest = events;
	uc->ptr = ptr;
	if (!uc->watched) {
		uc->watched = true;
		TAILQ_INSERT_TAIL(&uc->x->watched, uc, link);
	}
	return 0;
}

/* What epoll would report for @p uc now (EPOLLOUT's edge consumed). */
static uint32_t
sock_utcp_ready(struct sock_utcp_conn *uc)
{
	uint32_t ev = 0;

	if ((uc->interest & EPOLLIN) != 0 &&
	    (uc->rd_hint || uc->closed || net_tcp_readable(uc->tc) > 0)) {
		ev |= EPOLLIN;
	}
	if ((uc->interest & EPOLLOUT) != 0 && uc->out_edge != 0) {
		ev |= EPOLLOUT;
		uc->out_edge = 0;
	}
	if (uc->closed) {
		ev |= EPOLLHUP | (uc->err != -ECONNRESET ? EPOLLERR : 0);
	}
	return ev;
}

static int
sock_xu_wait(struct sock_xport *x, struct epoll_event *evs, int max)
{
	struct sock_xport_utcp *u = sock_xu(x);
	struct sock_utcp_conn *uc;
	int n = 0;

	/* One relaxed load a wait: the port's link changed since link_up() read it. */
	if (u->link_ptr != NULL && n < max &&
	    __atomic_load_n(&u->port->link_gen, __ATOMIC_RELAXED) != u->link_seen) {
		evs[n++] = (struct epoll_event){ .events = EPOLLIN, .data.ptr = u->link_ptr };
	}
	if (!TAILQ_EMPTY(&u->acceptq) && n < max) {
		evs[n++] = (struct epoll_event){ .events = EPOLLIN, .data.ptr = NULL };
	}
	TAILQ_FOREACH(uc, &u->watched, link) {
		uint32_t ev;

		if (n == max) {
			break;
		}
		ev = sock_utcp_ready(uc);
		if (ev != 0) {
			evs[n++] = (struct epoll_event){ .events = ev, .data.ptr = uc->ptr };
		}
	}
	return n;
}

static void
sock_xu_watch_link(struct sock_xport *x, void *ptr)
{
	struct sock_xport_utcp *u = sock_xu(x);

	u->link_ptr = u->port != NULL ? ptr : NULL;
}

static bool
sock_xu_link_up(struct sock_xport *x)
{
	struct sock_xport_utcp *u = sock_xu(x);

	if (u->port == NULL) {
		return true; /* a stack nobody named: no link reported */
	}
	u->link_seen = __atomic_load_n(&u->port->link_gen, __ATOMIC_ACQUIRE);
	return !__atomic_load_n(&u->port->link_down, __ATOMIC_RELAXED);
}

/* The port's poller is what wakes the lcore: nothing to sleep on. */
static int
sock_xu_wait_fd(const struct sock_xport *x)
{
	(void)x;
	return -1;
}

/* On the NI's lcore (its shutdown), or off it when the start failed before listening. */
static void
sock_xu_fini(struct sock_xport *x)
{
	struct sock_xport_utcp *u = sock_xu(x);
	struct sock_utcp_conn *uc;

	if (u->listening) {
		net_tcp_unlisten(u->tcp, u->lcore, u->lport);
	}
	while ((uc = TAILQ_FIRST(&u->acceptq)) != NULL) {
		sock_utcp_conn_free(uc, true);
	}
	while ((uc = TAILQ_FIRST(&u->watched)) != NULL) {
		sock_utcp_unwatch(uc); /* their connections close their streams */
	}
	free(u);
}

static const struct sock_xport_ops sock_xport_utcp_ops = {
	.name = "eth",
	.listen = sock_xu_listen,
	.start = sock_xu_start,
	.accept = sock_xu_accept,
	.connect = sock_xu_connect,
	.watch = sock_xu_watch,
	.watch_fd = NULL,
	.watch_link = sock_xu_watch_link,
	.link_up = sock_xu_link_up,
	.wait = sock_xu_wait,
	.wait_fd = sock_xu_wait_fd,
	.fini = sock_xu_fini,
};

int
sock_xport_utcp_create(struct net_tcp *tcp, unsigned int lcore, uint32_t laddr,
		       struct sock_xport **out)
{
	struct sock_xport_utcp *u = calloc(1, sizeof(*u));

	if (u == NULL) {
		return -ENOMEM;
	}
	u->base.ops = &sock_xport_utcp_ops;
	u->base.sops = &sock_stream_utcp_ops;
	u->tcp = tcp;
	u->port = sock_utcp_port_of_tcp(tcp);
	u->lcore = lcore;
	u->laddr = laddr;
	TAILQ_INIT(&u->acceptq);
	TAILQ_INIT(&u->watched);
	*out = &u->base;
	return 0;
}
