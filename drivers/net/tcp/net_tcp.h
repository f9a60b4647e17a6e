/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * TCP per data lcore over net_ip (IPv4): each data lcore has its own
 * connection table and listeners; a connection lives and is used on the
 * lcore that created it (active open) or that received its SYN (passive).
 * The RFC 9293 state machine is one rt_fsm table. Options MSS, window
 * scale, SACK-permitted and timestamps are negotiated as Linux does. RFC
 * 6298 retransmission timer with Karn's rule and backoff, one timer per
 * connection; fast retransmit with limited transmit (RFC 5681, 3042), then
 * SACK-based recovery (RFC 2018 blocks both ways, RFC 6675) when SACK was
 * negotiated, NewReno (RFC 6582) when not; keepalive per connection (a
 * second timer). ACKs are delayed to the end of the lcore's poll; no Nagle.
 * Out-of-order segments are kept (bounded) and reassembled. A zero window
 * from the peer is probed on the persist timer (RFC 9293 3.8.6.1); reading
 * that opens our window by a segment sends a window update. Congestion
 * control is NewReno or CUBIC (RFC 9438), per stack or per connection.
 * Counters per data lcore and per connection.
 *
 * Not in this slice: IPv6.
 *
 * All calls on a connection run on its lcore. Events arrive through the
 * connection's callback on that lcore.
 */
#ifndef NET_TCP_H
#define NET_TCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net_ip.h"

struct net_tcp;
struct net_tcp_conn;

/** Congestion controllers. */
enum net_tcp_cc {
	NET_TCP_CC_DEFAULT, /**< the stack's (net_tcp_conf::cc); for the stack, CUBIC as Linux */
	NET_TCP_CC_NEWRENO, /**< RFC 5681 */
	NET_TCP_CC_CUBIC,   /**< RFC 9438 */
};

struct net_tcp_conf {
	size_t conf_size;      /**< sizeof(struct net_tcp_conf) */
	uint32_t rcv_buf;      /**< receive window bytes; 0 = 256 KiB */
	uint32_t snd_buf;      /**< send buffer bytes; 0 = 256 KiB */
	uint64_t time_wait_us; /**< 2MSL; 0 = 60 s */
	uint64_t rto_min_us;   /**< 0 = 200 ms (Linux) */
	uint64_t rto_init_us;  /**< 0 = 1 s (RFC 6298) */
	uint8_t syn_retries;   /**< SYN retransmissions before ETIMEDOUT; 0 = 6 */
	uint8_t retries;       /**< data retransmissions before ETIMEDOUT; 0 = 15 */
	bool no_wscale;        /**< do not offer window scaling */
	bool no_sack;          /**< do not offer SACK-permitted */
	bool no_timestamps;    /**< do not offer timestamps */
	uint16_t ooo_max;      /**< out-of-order segments kept per connection; 0 = 64 */
	enum net_tcp_cc cc;    /**< congestion control of new connections; DEFAULT = CUBIC */
};

enum net_tcp_event {
	NET_TCP_EV_CONNECTED, /**< active open established */
	NET_TCP_EV_ACCEPT,    /**< (listener) a new established connection: see net_tcp_accepted */
	NET_TCP_EV_READABLE,  /**< in-order bytes (or the peer's FIN) to read */
	NET_TCP_EV_ACKED,     /**< snd_una moved: @p n bytes acknowledged, send room freed */
	NET_TCP_EV_CLOSED,    /**< the connection is over; @p n: 0 or a positive errno */
};

/**
 * A connection's (or listener's) event: on its lcore. For NET_TCP_EV_ACCEPT
 * @p c is the new connection (give it its callback with net_tcp_set_cb()).
 */
typedef void (*net_tcp_cb)(void *arg, struct net_tcp_conn *c, enum net_tcp_event ev, uint64_t n);

/** Counters of one data lcore. */
struct net_tcp_stats {
	uint64_t rx;               /**< segments received */
	uint64_t rx_bad;           /**< short, bad offset or bad checksum */
	uint64_t rx_no_conn;       /**< for no connection or listener (answered by RST) */
	uint64_t tx;               /**< segments sent */
	uint64_t tx_fail;          /**< not sent (no mbuf, no route) */
	uint64_t retransmits;      /**< segments sent again (after an RTO or by fast retransmit) */
	uint64_t fast_retransmits; /**< RFC 5681 fast retransmits (recoveries entered) */
	uint64_t dupacks;          /**< duplicate ACKs received */
	uint64_t rto;              /**< retransmission timeouts */
	uint64_t ooo;              /**< out-of-order segments kept */
	uint64_t ooo_drop;         /**< out-of-order segments dropped (queue full) */
	uint64_t rst_rx;           /**< resets accepted */
	uint64_t rst_tx;           /**< resets sent */
	uint64_t challenge_ack;    /**< RFC 5961 challenge ACKs sent */
	uint64_t ka_probes;        /**< keepalive probes sent */
	uint64_t
		oow_ack_limited; /**< ACKs to bare out-of-window segments not sent (500 ms limit) */
	uint64_t opened;         /**< connections established */
	uint64_t closed;         /**< connections freed */
	uint64_t win_probes;     /**< zero-window probes sent (RFC 9293 3.8.6.1) */
	uint64_t win_updates;    /**< ACKs sent because reading opened our window */
	uint64_t sack_blocks_tx; /**< SACK blocks sent (RFC 2018) */
	uint64_t sack_blocks_rx; /**< SACK blocks received and taken into the scoreboard */
	uint64_t
		sack_recoveries; /**< recoveries run on the scoreboard (RFC 6675), of fast_retransmits */
	uint64_t sack_rescues; /**< RFC 6675 rescue retransmissions */
};

/** Counters of one connection (the per-lcore ones of the same names count them too). */
struct net_tcp_conn_stats {
	uint64_t retransmits;      /**< segments sent again */
	uint64_t rto;              /**< retransmission timeouts */
	uint64_t fast_retransmits; /**< recoveries entered by duplicate ACKs */
	uint64_t dupacks;          /**< duplicate ACKs received */
	uint64_t sack_blocks_rx;   /**< SACK blocks received and taken */
	uint64_t sack_blocks_tx;   /**< SACK blocks sent */
	uint64_t ooo;              /**< out-of-order segments kept */
	uint64_t win_probes;       /**< zero-window probes sent */
	uint64_t rst_rx;           /**< resets accepted */
	uint64_t rst_tx;           /**< resets sent */
};

/** What the peer and we agreed at the handshake. */
struct net_tcp_info {
	uint32_t laddr, raddr; /**< network order */
	uint16_t lport, rport; /**< host order */
	uint16_t mss;          /**< the peer's MSS (what we send at most, options included) */
	int8_t snd_wscale;     /**< the peer's shift; -1 when not negotiated */
	int8_t rcv_wscale;     /**< ours; -1 when not negotiated */
	bool sack_ok, ts_ok;
	const char *state;
	uint64_t srtt_us, rto_us;
	uint64_t retransmits;
	uint32_t snd_nxt, rcv_nxt; /**< the next sequence numbers each way */
	const char *cc;            /**< the congestion controller ("cubic", "newreno") */
	uint32_t cwnd, ssthresh;   /**< bytes; ssthresh UINT32_MAX before the first loss */
};

/**
 * TCP over @p ip, on @p nb's port and addresses (registers protocol 6 and
 * its ICMP errors, and a poller per data lcore that sends the ACKs its
 * poll delayed). Call off the lcores, before the port starts.
 * @return 0, -EINVAL, -ENOMEM, -EEXIST
 */
int net_tcp_create(struct net_neigh *nb, struct net_ip *ip, const struct net_tcp_conf *conf,
		   struct net_tcp **out);

/** Free it after the port closed; connections left are freed. NULL is a no-op. */
void net_tcp_destroy(struct net_tcp *t);

/**
 * Listen on local TCP port @p port on data lcore @p lcore (the caller).
 * Connections whose SYN lands on this lcore are accepted here.
 * @return 0, -EADDRINUSE, -ENOMEM
 */
int net_tcp_listen(struct net_tcp *t, unsigned int lcore, uint16_t port, net_tcp_cb cb, void *arg);

/** Stop listening (established connections stay). */
void net_tcp_unlisten(struct net_tcp *t, unsigned int lcore, uint16_t port);

/**
 * Active open to @p dst:@p dport from a source port in [@p sport_lo,
 * @p sport_hi] (host order; searched from the top, as ksocklnd does from
 * 1023) that is free and whose flow the port steers to @p lcore, the
 * caller. NET_TCP_EV_CONNECTED or NET_TCP_EV_CLOSED follows.
 * @return 0, -EADDRNOTAVAIL (no port), -EHOSTUNREACH, -ENOMEM
 */
int net_tcp_connect(struct net_tcp *t, unsigned int lcore, uint32_t dst, uint16_t dport,
		    uint16_t sport_lo, uint16_t sport_hi, net_tcp_cb cb, void *arg,
		    struct net_tcp_conn **out);

/** Set the callback of a connection (an accepted one gets its listener's). */
void net_tcp_set_cb(struct net_tcp_conn *c, net_tcp_cb cb, void *arg);

/**
 * Queue up to @p len bytes of @p buf (copied) and send what the windows
 * allow. @return bytes taken (0: the send buffer is full), -ENOTCONN,
 * -EPIPE (closed for sending), or -ECONNRESET/-ETIMEDOUT after an error
 */
long net_tcp_send(struct net_tcp_conn *c, const void *buf, size_t len);

/** A view of received in-order bytes, inside an mbuf. */
struct net_tcp_view {
	const uint8_t *data;
	size_t len;
};

/**
 * The first run of received bytes, without consuming it.
 * @return 1 (view set), 0 (nothing now), -ENODATA (the peer closed and all
 * was read), or a negative errno after a reset or a timeout
 */
int net_tcp_peek(struct net_tcp_conn *c, struct net_tcp_view *v);

/** Consume @p n bytes (at most what is queued); the window opens. */
void net_tcp_consume(struct net_tcp_conn *c, size_t n);

/** Bytes queued for reading. */
size_t net_tcp_readable(const struct net_tcp_conn *c);

/**
 * Close for sending (FIN after queued bytes) and release the connection: it
 * is freed once the state machine reaches CLOSED; no event follows.
 */
void net_tcp_close(struct net_tcp_conn *c);

/** Reset the connection (RST) and release it; no event follows. */
void net_tcp_abort(struct net_tcp_conn *c);

/**
 * Keepalive, as SO_KEEPALIVE with TCP_KEEPIDLE/KEEPINTVL/KEEPCNT: after
 * @p idle_s seconds without a segment from the peer, a probe (an ACK at
 * snd_una - 1) every @p intvl_s seconds; @p cnt unanswered and the
 * connection closes with ETIMEDOUT. Any segment from the peer restarts the
 * idle time. No probes while data is unacknowledged (the RTO watches then).
 * @p idle_s 0 turns it off. ksocklnd sets 30/5/5.
 * @return 0, -EINVAL (intvl_s or cnt 0), -ENOTCONN (closed)
 */
int net_tcp_set_keepalive(struct net_tcp_conn *c, uint32_t idle_s, uint32_t intvl_s, uint32_t cnt);

/**
 * The congestion controller of @p c from now on (as TCP_CONGESTION);
 * NET_TCP_CC_DEFAULT: the stack's. Its state starts afresh; cwnd and
 * ssthresh stay. @return 0, -EINVAL
 */
int net_tcp_set_cc(struct net_tcp_conn *c, enum net_tcp_cc cc);

/** What was negotiated, and the state. */
void net_tcp_get_info(const struct net_tcp_conn *c, struct net_tcp_info *out);

/** Copy of @p c's counters (on its lcore; in the CLOSED event too). */
void net_tcp_get_stats(const struct net_tcp_conn *c, struct net_tcp_conn_stats *out);

/** The state's name ("established", ...). */
const char *net_tcp_state_name(const struct net_tcp_conn *c);

/** Copy of @p lcore's counters. */
void net_tcp_lcore_stats(const struct net_tcp *t, unsigned int lcore, struct net_tcp_stats *out);

/** The counters of every lcore added up. */
void net_tcp_stats(const struct net_tcp *t, struct net_tcp_stats *out);

/** Connections alive on @p lcore (all states but CLOSED, listeners apart). */
unsigned int net_tcp_conn_count(const struct net_tcp *t, unsigned int lcore);

/** Parsed TCP options (shared with the fuzzer). */
struct net_tcp_opts {
	uint16_t mss;  /**< 0: absent */
	int8_t wscale; /**< -1: absent */
	bool sack_ok;
	bool ts;
	uint32_t tsval, tsecr;
	uint8_t nsack; /**< SACK blocks (RFC 2018), at most 4 */
	struct {
		uint32_t start, end; /**< host order: [start, end) */
	} sack[4];
};

/** Parse the options of the @p len bytes at @p p. @return false if malformed */
bool net_tcp_parse_opts(const uint8_t *p, size_t len, struct net_tcp_opts *o);

#endif /* NET_TCP_H */
