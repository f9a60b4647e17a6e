/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The socklnd: the LND's ops, an NI's start-up and shutdown, and its poll.
 * Its connections are byte streams of the NI's transport (sock_stream.h:
 * the kernel's sockets). An acceptor listens on the NI's address; the
 * data lcore that owns the NI polls the listener and the connections
 * through the transport's readiness set (epoll), or reads a few hot ones
 * directly.
 *
 * Connections come both ways: a peer's, accepted (passive handshake
 * bounded by accept_timeout), and ours: a message for a peer with no
 * connection up waits on the peer while CONTROL + BULK_IN + BULK_OUT are
 * opened (socklnd_peer.c: races, duplicates, incarnations, backoff). It
 * goes out on the first that carries it; if every attempt fails it fails
 * with why (-ECONNREFUSED, else -EHOSTUNREACH), and for the backoff that
 * follows new messages fail at once with -EHOSTUNREACH. Both kinds of
 * connection go through two explicit FSMs: the handshake (sock_conn.c,
 * driven by socklnd_hs.c) and the connection's life (socklnd_conn.c).
 *
 * The NI's files, each including only those below it:
 *   socklnd.c        ops, start-up, poll; fills the connection hooks
 *   socklnd_sweep.c  timeouts and slow waits, once a second
 *   socklnd_link.c   the host's links under the NI
 *   socklnd_peer.c   peers: which connections, races, retries
 *   socklnd_lend.c   payloads lent to LNet for MDs on other lcores
 *   socklnd_hs.c     handshake glue: accept, connect, hand-off, up
 *   socklnd_conn.c   a connection's life: FSM, close, queue, flush, read
 *   socklnd_ack.c    completion once the peer's TCP acknowledged
 *   socklnd_tx.c     transmit descriptors; failing a message
 *   socklnd_registry.c, socklnd_params.c, sock_*.c: below all of them
 *   sock_stream.h    the transport's ops; sock_be_kernel.c its kernel backend
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cfs.h"
#include "lnet_lnd.h"
#include "rt.h"
#include "sock_addr.h"
#include "socklnd.h"
#include "socklnd_ack.h"
#include "socklnd_conn.h"
#include "socklnd_hs.h"
#include "socklnd_lend.h"
#include "socklnd_link.h"
#include "socklnd_peer.h"
#include "socklnd_registry.h"
#include "socklnd_sweep.h"
#include "socklnd_tx.h"

#define SOCKLND_EPOLL_BATCH 32
/* Polls in a row that moved nothing between two looks at what the peers' TCP acknowledged. */
#define SOCKLND_REAP_IDLE_EVERY 8U
#define SOCKLND_NS_PER_S 1000000000ULL

/* What a connection's turns mean above it (socklnd_ni.h): the handshake's and the peers'. */
static const struct socklnd_conn_hooks socklnd_conn_hooks = {
	.handshake = socklnd_hs_event,
	.hello = socklnd_peer_accept,
	.up = socklnd_peer_conn_up,
	.gone = socklnd_peer_conn_gone,
	.requeue = socklnd_peer_requeue,
	.close_siblings = socklnd_peer_close_siblings,
};

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
		n = s->xp->ops->wait(s->xp, evs, SOCKLND_EPOLL_BATCH);
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

/*
 * The NI's transport: the userspace TCP of the port its interface names (or,
 * no interface given, of the port holding its address: sock_utcp_port_add),
 * else the kernel's sockets.
 */
static int
socklnd_transport(struct socklnd_ni *s, const struct sock_addr *sa)
{
	const char *ifname = lnet_ni_ifname(s->ni);
	struct net_tcp *tcp = NULL;
	uint32_t addr;

	if (sa->ss.ss_family == AF_INET) {
		addr = ((const struct sockaddr_in *)&sa->ss)->sin_addr.s_addr;
		tcp = sock_utcp_port_find(ifname != NULL && ifname[0] != '\0' ? ifname : NULL,
					  addr);
	}
	if (tcp != NULL) {
		return sock_xport_utcp_create(tcp, (unsigned int)rt_lcore_cpt(lnet_ni_lcore(s->ni)),
					      addr, &s->xp);
	}
	return sock_xport_kernel_create(&s->xp);
}

/* The NI's transport, listening on its address. */
static int
socklnd_listen(struct socklnd_ni *s)
{
	struct sock_addr sa;
	int rc = sock_addr_of_nid(lnet_ni_nid(s->ni), s->opts.port, &sa);

	if (rc != 0) {
		return rc;
	}
	rc = socklnd_transport(s, &sa);
	if (rc != 0) {
		return rc;
	}
	return s->xp->ops->listen(s->xp, &sa, 127);
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
	if (s->xp->ops->start != NULL && s->xp->ops->start(s->xp) != 0) {
		SOCK_LOG(ERR, "%s: %s transport: no acceptor", libcfs_nidstr(lnet_ni_nid(s->ni)),
			 s->xp->ops->name);
	}
	s->poller = rt_poller_register(rt_lcore_self(), socklnd_poll, s, 0, "socklnd");
	/* Idle, the lcore sleeps until a socket (or the listener) is ready. */
	if (s->poller != NULL && s->xp->ops->wait_fd(s->xp) >= 0 &&
	    rt_poller_set_wait_fd(s->poller, s->xp->ops->wait_fd(s->xp)) != 0) {
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
	s->hooks = &socklnd_conn_hooks;
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
	s->link_fd = -1;
	TAILQ_INIT(&s->conns);
	TAILQ_INIT(&s->flushq);
	TAILQ_INIT(&s->rxq);
	TAILQ_INIT(&s->ackconns);
	TAILQ_INIT(&s->peers);
	/* One incarnation per NI lifetime (trap 8): wall-clock ns at start. */
	clock_gettime(CLOCK_REALTIME, &ts);
	s->incarnation = (uint64_t)ts.tv_sec * SOCKLND_NS_PER_S + (uint64_t)ts.tv_nsec;
	/* As ksocklnd: dev cpt is the CPT of the interface's device's NUMA node. */
	lnet_ni_set_dev_node(ni, cfs_if_numa_node(NULL, lnet_ni_ifname(ni)));
	rc = socklnd_tx_pool_create(s);
	if (rc == 0) {
		rc = socklnd_lend_init(s);
	}
	if (rc == 0) {
		rc = socklnd_listen(s);
	}
	if (rc == 0 && s->xp->ops->watch_fd != NULL) {
		socklnd_link_watch(s); /* the host's interfaces: the kernel's sockets go by them */
	} else if (rc == 0) {
		socklnd_port_link_watch(s); /* the port's link */
	}
	if (rc == 0) {
		rc = socklnd_registry_add(s, lnet_ni_lcore(ni));
		/* On failure no other lcore knows it yet: it closes below. */
	}
	if (rc == 0) {
		lnet_ni_set_lnd_data(ni, s);
		rc = rt_lcore_send_msg(lnet_ni_lcore(ni), socklnd_start_polling, s);
		if (rc != 0) {
			socklnd_registry_del(s);
		}
	}
	if (rc != 0) {
		socklnd_link_fini(s);
		socklnd_lend_fini(s);
		if (s->xp != NULL) {
			s->xp->ops->fini(s->xp);
		}
		socklnd_tx_pool_destroy(s);
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
	socklnd_link_fini(s);
	socklnd_lend_fini(s);
	s->xp->ops->fini(s->xp);
	socklnd_tx_pool_destroy(s);
	free(s);
	lnet_ni_set_lnd_data(ni, NULL);
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

/* net show -v's "transport": the backend the NI's connections run on. */
static const char *
socklnd_transport_name(const struct lnet_ni *ni)
{
	const struct socklnd_ni *s = lnet_ni_lnd_data(ni);

	return s->xp != NULL ? s->xp->ops->name : NULL;
}

/* Counters for telemetry (/lnet/lnd_stats), on the NI's lcore. */
static unsigned int
socklnd_counters(const struct lnet_ni *ni, struct lnet_ctl_lnd_counter *out, unsigned int max)
{
	const struct socklnd_ni *s = lnet_ni_lnd_data(ni);
	const struct socklnd_stats *st = &s->stats;
	const struct lnet_ctl_lnd_counter all[] = {
		{ "accepted", st->accepted },
		{ "refused", st->refused },
		{ "connects", st->connects },
		{ "connect_failures", st->connect_failures },
		{ "conns_up", st->conns_up },
		{ "conns_closed", st->conns_closed },
		{ "handshake_failures", st->handshake_failures },
		{ "proto_errors", st->proto_errors },
		{ "timeouts", st->timeouts },
		{ "rx_msgs", st->rx_msgs },
		{ "rx_reads", st->rx_reads },
		{ "tx_msgs", st->tx_msgs },
		{ "tx_writes", st->tx_writes },
		{ "zc_acks", st->zc_acks },
		{ "no_conn", st->no_conn },
		{ "races_won", st->races_won },
		{ "duplicates", st->duplicates },
		{ "stale_conns", st->stale_conns },
		{ "keepalives", st->keepalives },
		{ "handed_off", st->handed_off },
		{ "handshake_timeouts", st->handshake_timeouts },
		{ "sibling_closes", st->sibling_closes },
		{ "tx_requeued", st->tx_requeued },
		{ "csum_checked", st->csum_checked },
		{ "csum_errors", st->csum_errors },
		{ "link_checks", st->link_checks },
		{ "link_changes", st->link_changes },
		{ "link_reloads", st->link_reloads },
		{ "ack_checks", st->ack_checks },
		{ "unacked_failed", st->unacked_failed },
		{ "link_closes", st->link_closes },
		{ "slow_conn_waits", st->slow_conn_waits },
		{ "slow_writes", st->slow_writes },
		{ "slow_acks", st->slow_acks },
		{ "rx_lent", st->lent },
		{ "rx_lend_empty", st->lend_empty },
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
	.recv_take = socklnd_recv_take,
	.tunables = socklnd_tunables,
	.transport = socklnd_transport_name,
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
