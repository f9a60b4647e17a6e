/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a socklnd NI is made of: its connections (socklnd_conn.c, their
 * handshake socklnd_hs.c), its peers (socklnd_peer.c) and the NI itself
 * (socklnd.c), with the hooks through which a connection tells the layers
 * above it of its turns. Every file of the NI includes this; it includes
 * none of them. All of it is owned by the NI's data lcore.
 */
#ifndef SOCKLND_NI_H
#define SOCKLND_NI_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include "lnet_lnd.h"
#include "lnet_pcap.h"
#include "rt.h"
#include "rt_pool.h"
#include "sock_conn.h"
#include "sock_link.h"
#include "sock_log.h"
#include "sock_rx.h"
#include "sock_stream.h"
#include "sock_tx.h"
#include "socklnd_params.h"
#include "socklnd_stats.h"

/*
 * A connection's life (socklnd_conn_set_state() in socklnd_conn.c is the
 * only writer):
 *
 *   NEW -connect-> CONNECTING -tcp_up-> HANDSHAKE -hs_done-> UP
 *   NEW -tcp_up-> HANDSHAKE (accepted)
 *   any but DEAD -close-> DEAD;  every other pair is refused
 */
enum socklnd_conn_state {
	SOCKLND_CONN_NEW = 0,    /* allocated, no socket state yet */
	SOCKLND_CONN_CONNECTING, /* active: TCP connect in progress */
	SOCKLND_CONN_HANDSHAKE,
	SOCKLND_CONN_UP,
	SOCKLND_CONN_DEAD, /* closed; freed once LNet lets go of it */
	SOCKLND_CONN_NSTATES,
};

enum socklnd_conn_event {
	SOCKLND_CONN_EV_CONNECT = 0, /* active: connect() started */
	SOCKLND_CONN_EV_TCP_UP,      /* accepted, or connect() completed */
	SOCKLND_CONN_EV_HS_DONE,     /* the handshake established it */
	SOCKLND_CONN_EV_CLOSE,
	SOCKLND_CONN_NEVENTS,
};

/* Time on an NI's lcore is in microseconds (rt_now_us); its options give ms and s. */
#define SOCKLND_US_PER_MS 1000ULL
#define SOCKLND_US_PER_S 1000000ULL

struct socklnd_conn_hooks;
struct socklnd_ni;
struct socklnd_peer;

struct socklnd_conn {
	TAILQ_ENTRY(socklnd_conn) link;  /* the NI's connections */
	TAILQ_ENTRY(socklnd_conn) plink; /* its peer's, from the moment the peer is known */
	struct socklnd_ni *sni;
	struct socklnd_peer *peer; /* passive: NULL until the hello names it */
	struct sock_stream st;     /* its TCP connection, on the NI's transport */
	enum socklnd_conn_state state;
	int type; /* our view: SOCKLND_CONN_* */
	struct lnet_nid peer_nid;
	struct sock_conn hs;
	struct sock_rx rx;
	struct sock_tx_list txq;
	unsigned int nqueued; /* messages in txq */
	/*
	 * Messages written whole, completed once the peer's TCP acknowledged
	 * their last byte (SIOCOUTQ): until then the link going down fails
	 * them, for LNet to send again elsewhere, instead of losing them in a
	 * socket buffer that never drains.
	 */
	struct sock_tx_list ackq;
	uint64_t wr_done;                /* bytes of the messages written whole, since it opened */
	TAILQ_ENTRY(socklnd_conn) alink; /* on the NI's ackconns */
	bool on_ackconns;
	uint64_t ack_io_us; /* ackq's last progress (a message joined it empty, or left it) */
	TAILQ_ENTRY(socklnd_conn) flink; /* on the NI's to-flush list */
	bool flush_pending;
	bool in_rx;                      /* inside sock_rx_poll(): LNet's answer is read at once */
	bool rx_pending;                 /* on the NI's rxq */
	TAILQ_ENTRY(socklnd_conn) rlink; /* on the NI's rxq */
	bool want_out;
	bool active;
	uint64_t hot_until;         /* read directly until the NI's polls reach this */
	bool in_epoll;              /* its stream is in the NI's readiness set */
	uint64_t last_io_us;        /* opened, or last readiness on the socket */
	uint64_t rx_io_us;          /* UP: last bytes in */
	uint64_t tx_io_us;          /* UP: last bytes out, or the first tx queued on an empty txq */
	uint64_t slow_tx_seen;      /* the tx_io_us and ack_io_us of the last slow wait reported: */
	uint64_t slow_ack_seen;     /* each wait is counted once */
	struct sock_tap tap;        /* its bytes, to the NI's capture */
	struct lnet_nid handoff;    /* the other NI its connection request named */
	struct lnet_pcap_flow flow; /* how the capture frames them */
};

TAILQ_HEAD(socklnd_conn_list, socklnd_conn);

/*
 * A peer's connection state (ksocklnd's peer_ni and routes); written only by
 * socklnd_peer_set_state(), by the table in socklnd_peer.c:
 *
 *   IDLE --send--> CONNECTING --a connection that carries messages is up--> UP
 *   CONNECTING --every attempt failed, none to retry--> BACKOFF (its messages fail)
 *   BACKOFF --send after retry_at--> CONNECTING;  before: -EHOSTUNREACH at once
 *   UP --its last such connection closes--> IDLE (or CONNECTING with messages waiting)
 *   any --the peer connects to us--> UP;  UP --a missing type is retried--> UP
 */
enum socklnd_peer_state {
	SOCKLND_PEER_IDLE = 0,
	SOCKLND_PEER_CONNECTING,
	SOCKLND_PEER_UP,
	SOCKLND_PEER_BACKOFF,
	SOCKLND_PEER_NSTATES,
};

enum socklnd_peer_event {
	SOCKLND_PEER_EV_LAUNCH = 0,    /* connection attempts started */
	SOCKLND_PEER_EV_CARRIER_UP,    /* a connection that carries messages is up */
	SOCKLND_PEER_EV_GIVE_UP,       /* no attempt left, nothing to carry messages */
	SOCKLND_PEER_EV_CARRIERS_GONE, /* its last carrying connection closed */
	SOCKLND_PEER_NEVENTS,
};

struct socklnd_peer {
	TAILQ_ENTRY(socklnd_peer) link;
	struct lnet_nid nid;
	enum socklnd_peer_state state;
	struct socklnd_conn_list conns; /* every state, until freed */
	struct sock_tx_list txq;        /* waiting for a connection */
	bool have_incarnation;
	uint64_t incarnation;        /* the peer's NI lifetime, from its hellos */
	unsigned int refused_rounds; /* connects answered CONN_NONE without a conn to use */
	uint8_t retry_types;         /* bit per type to connect again at retry_at_us */
	uint64_t retry_at_us;
	unsigned int backoff_ms;  /* min_reconnectms doubling to max_reconnectms */
	uint64_t last_alive_us;   /* last bytes from it */
	uint64_t keepalive_at_us; /* no keepalive NOOP before this */
	int error;                /* why the last attempt to connect failed: 0, -errno */
	bool closing;             /* closing a set of its connections (socklnd_peer_close_set) */
	bool send_ok;             /* socklnd_send() found its NID one this NI reaches */
	uint64_t slow_wait_seen;  /* queued_us of the last message reported waiting long */
	/* The only carrying connection of a type, [0] CONTROL [1] BULK_OUT, while the NI's conn_gen is pick_gen. */
	struct socklnd_conn *pick[2];
	uint64_t pick_gen[2];
};

TAILQ_HEAD(socklnd_peer_list, socklnd_peer);

struct socklnd_ni {
	struct lnet_ni *ni;
	const struct socklnd_conn_hooks
		*hooks; /* the layers above its connections (socklnd.c sets it) */
	struct socklnd_opts opts;
	struct sock_xport *xp; /* its transport: listener, connects, readiness (sock_stream.h) */
	int link_fd; /* rtnetlink: link and address changes (sock_link.h); -1 none. Its address
		      * is the readiness event of link changes, the host's or the port's */
	struct sock_link_table *links; /* the host's interfaces and addresses, kept by link_fd */
	/*
	 * A reload after lost notifications runs in a thread of its own
	 * (socklnd_link.c): it writes link_fresh, then link_reload_done
	 * (release); the lcore owns the rest and joins it.
	 */
	pthread_t link_reloader;
	bool link_reloading;                /* the lcore's: a reloader runs, to be joined */
	bool link_changed_meanwhile;        /* the lcore's: a notification came while it ran */
	bool link_reload_done;              /* the reloader's, atomic: link_fresh is set */
	struct sock_link_table *link_fresh; /* the reloader's result; NULL: it failed */
	bool link_up;                       /* as last reported to LNet */
	int link_ifindex;                   /* the interface holding the NI's address; 0 none */
	uint64_t incarnation;
	struct socklnd_conn_list conns;
	struct socklnd_conn_list flushq; /* connections given messages since the last poll */
	struct socklnd_conn_list rxq;    /* sink set later, payload already staged: read it */
	struct socklnd_conn_list
		ackconns;          /* connections with messages waiting for the peer's TCP ACK */
	struct rt_timer ack_timer; /* looks at them while the lcore would otherwise sleep */
	bool ack_ticks;            /* the lcore may sleep (or skip time): ack_timer is armed */
	bool caller_polls;         /* rt_runtime_caller_polls() of its runtime */
	struct rt_pool *tx_pool;   /* its transmits, made at startup: no malloc per message */
	struct rt_pool_cache *tx_cache; /* the NI lcore's cache of them */
	struct socklnd_lend_pool *lend; /* payloads lent to LNet; NULL with one data lcore */
	unsigned int nup;               /* connections UP */
	uint64_t conn_gen;              /* connection state changes: a peer's kept pick is as old */
	unsigned int poll_tick;         /* polls since the last epoll_wait */
	unsigned int reap_tick;         /* idle polls since the last socklnd_reap_all() */
	uint64_t polls;                 /* socklnd_poll calls */
	bool any_cold;                  /* an UP connection the last direct poll left to epoll */
	bool dead_pending;              /* a connection closed and may not be freed yet */
	unsigned int nout;              /* connections out of the readiness set (read directly) */
	unsigned int direct_streak;     /* polls in a row that read directly (capped) */
	struct socklnd_peer_list peers;
	struct socklnd_peer *last_peer; /* the one socklnd_peer_get() found last: asked first */
	struct rt_poller *poller;
	struct rt_runtime *rt;
	struct rt_timer sweep; /* timeouts and retries: once a second */
	struct lnet_pcap *cap; /* lnetctl capture: NULL when off */
	struct socklnd_stats stats;
};

/* Up to this many connections an NI reads them directly, with epoll_wait every SOCKLND_EPOLL_EVERY polls. */
#define SOCKLND_DIRECT_MAX 4U
#define SOCKLND_EPOLL_EVERY 64U
/*
 * Of an NI's connections read directly (socklnd_poll_direct), only those
 * that received in their last SOCKLND_HOT_POLLS polls (or came up then) are
 * read; the others wait for epoll_wait, every SOCKLND_EPOLL_EVERY_COLD
 * polls while there are any. ksocklnd's typed
 * connections (control, bulk in, bulk out) carry small messages on one: a
 * recv of each on every poll was three system calls where one finds data.
 */
#define SOCKLND_HOT_POLLS 4096U
#define SOCKLND_EPOLL_EVERY_COLD 16U

/*
 * A wait inside the LND this long (for a connection, for the socket to take
 * bytes, for the peer's TCP to acknowledge them) is counted and logged by
 * the sweep: far above a healthy path's, far below sock_timeout.
 */
#define SOCKLND_SLOW_US SOCKLND_US_PER_S
/*
 * What a connection's turns mean to the layers above it, which the
 * connection layer cannot include: the handshake glue (socklnd_hs.c) and
 * the peers (socklnd_peer.c). socklnd.c, on top, fills the table. None of
 * them is on the path of an UP connection's messages.
 */
struct socklnd_conn_hooks {
	/* Readiness of a connection not UP: its connect and handshake (socklnd_hs_event). */
	bool (*handshake)(struct socklnd_conn *c, uint32_t events);
	/* The peer's hello on a passive connection: the type to answer, or CONN_NONE (socklnd_peer_accept). */
	int (*hello)(struct socklnd_conn *c, const struct ksock_hello *hello);
	/* The handshake brought it UP (socklnd_peer_conn_up). */
	void (*up)(struct socklnd_conn *c);
	/* It closed, from state @p was (socklnd_peer_conn_gone). */
	void (*gone)(struct socklnd_conn *c, enum socklnd_conn_state was, int status);
	/* An unsent message of the closing connection: true if another one took it (socklnd_peer_requeue). */
	bool (*requeue)(struct socklnd_conn *c, struct sock_tx *tx, int status);
	/* It failed UP: close its peer's other connections with it (socklnd_peer_close_siblings). */
	void (*close_siblings)(struct socklnd_conn *c, int status);
};

/* The link to @p peer is down, as the NI's link table says (nothing known: not down, try). */
static inline bool
socklnd_peer_link_down(const struct socklnd_ni *s, const struct lnet_nid *peer)
{
	return s->links != NULL && sock_link_peer_down(s->links, peer);
}

#endif /* SOCKLND_NI_H */
