/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of drivers/net/tcp share: the connection and per-lcore
 * objects, the state machine's states and events, and the functions one
 * file calls in another. Not installed; net_tcp.h is the API.
 */
#ifndef TCP_INTERNAL_H
#define TCP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <rte_common.h>
#include <rte_ip.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "net_tcp.h"
#include "rt.h"
#include "rt_fsm.h"

extern int net_tcp_logtype;

#define TCP_STAT_ADD(s, field, n) __atomic_store_n(&(s)->field, (s)->field + (n), __ATOMIC_RELAXED)
/* Count on the connection (read on its lcore) and on its lcore. */
#define TCP_CONN_STAT_ADD(c, field, n)                                 \
	do {                                                           \
		TCP_STAT_ADD(&(c)->t->lc[(c)->lcore].stats, field, n); \
		(c)->stats.field += (n);                               \
	} while (0)

#define TCP_BUCKETS 1024u  /* per lcore; a power of two */
#define TCP_RQ_SLOTS 1024u /* received mbufs queued per connection; a power of two */
#define TCP_HDR_LEN 20u
#define TCP_MAX_WSCALE 14
#define TCP_RTO_MAX_US (120ULL * 1000 * 1000)
#define TCP_INIT_CWND_SEGS 10u
#define TCP_OOW_ACK_GAP_US 500000u /* Linux's tcp_invalid_ratelimit: HZ/2 */
#define TCP_DUPACK_THRESH 3u       /* RFC 5681: the third duplicate ACK retransmits */
#define TCP_PERSIST_BACKOFF_MAX 15 /* past it the interval is TCP_RTO_MAX_US anyway */
#define TCP_SACK_BLOCKS_MAX 4      /* in one option: 4 without timestamps, 3 beside them */
#define TCP_SB_MAX 32              /* SACKed ranges the sender's scoreboard keeps */
#define TCP_CUBIC_C 0.4            /* RFC 9438 4.2, segments per second cubed */
#define TCP_CUBIC_BETA 0.7         /* RFC 9438 4.6 */

#define OPT_EOL 0
#define OPT_NOP 1
#define OPT_MSS 2
#define OPT_WS 3
#define OPT_SACK_PERM 4
#define OPT_SACK 5
#define OPT_TS 8

/* Sequence comparisons modulo 2^32. */
#define SEQ_LT(a, b) ((int32_t)((a) - (b)) < 0)
#define SEQ_LEQ(a, b) ((int32_t)((a) - (b)) <= 0)
#define SEQ_GT(a, b) ((int32_t)((a) - (b)) > 0)
#define SEQ_GEQ(a, b) ((int32_t)((a) - (b)) >= 0)

/* ---- the state machine (RFC 9293 section 3.3.2) ---- */

enum tcp_state {
	TCPS_CLOSED,
	TCPS_LISTEN, /* a connection made from a listener, before its SYN is taken */
	TCPS_SYN_SENT,
	TCPS_SYN_RCVD,
	TCPS_ESTABLISHED,
	TCPS_FIN_WAIT_1,
	TCPS_FIN_WAIT_2,
	TCPS_CLOSE_WAIT,
	TCPS_CLOSING,
	TCPS_LAST_ACK,
	TCPS_TIME_WAIT,
	TCPS_N,
};

enum tcp_ev {
	TCPE_CONNECT,     /* active open: SYN sent */
	TCPE_RCV_SYN,     /* a SYN without ACK (passive open, or simultaneous open) */
	TCPE_RCV_SYNACK,  /* a SYN-ACK acknowledging our SYN */
	TCPE_RCV_ACK_SYN, /* an ACK of our SYN (SYN-ACK) */
	TCPE_CLOSE,       /* the user closes: FIN queued */
	TCPE_RCV_FIN,     /* the peer's FIN, in order */
	TCPE_ACK_FIN,     /* our FIN acknowledged */
	TCPE_RST,         /* an acceptable reset */
	TCPE_TIMEOUT,     /* retransmissions exhausted, or 2MSL over */
	TCPE_ABORT,       /* the user aborts, or the stack is destroyed */
	TCPE_N,
};

/* Sequence space [start, end). */
struct tcp_sack_range {
	uint32_t start, end;
};

/* The sender's SACK scoreboard above snd_una: ranges ascending, apart. */
struct tcp_sack_sb {
	uint8_t n;
	struct tcp_sack_range r[TCP_SB_MAX];
};

/* An unSACKed run of the scoreboard, as RFC 6675's routines see it. */
struct tcp_sb_hole {
	uint32_t start, end;
	bool lost;       /* IsLost: enough SACKed above it */
	bool below_sack; /* some SACKed range is above it (not the tail) */
};

struct net_tcp_conn;

/* A congestion controller (tcp_cc.c). */
struct tcp_cc_ops {
	const char *name;
	void (*init)(struct net_tcp_conn *c);
	/* An ACK of @p acked new bytes, outside recovery, cwnd at or past ssthresh. */
	void (*cong_avoid)(struct net_tcp_conn *c, uint32_t acked);
	/* A loss (fast retransmit or RTO): the new ssthresh. */
	uint32_t (*ssthresh)(struct net_tcp_conn *c);
};

/* CUBIC's state, in segments and seconds (RFC 9438 4.1). */
struct tcp_cubic {
	bool epoch;        /* a congestion-avoidance epoch runs (t_epoch, k valid) */
	double w_max;      /* the window where the last loss came */
	double w_est;      /* the Reno-friendly estimate */
	double k;          /* when W_cubic reaches w_max, from t_epoch */
	double t_epoch;    /* when the epoch began */
	double cwnd_bytes; /* cwnd with the fraction of a byte growth left */
};

struct tcp_ooo {
	uint32_t seq;
	uint32_t len;
	bool fin;
	struct rte_mbuf *m; /* data at the payload; NULL for a bare FIN */
};

struct net_tcp_conn {
	LIST_ENTRY(net_tcp_conn) hnext;
	LIST_ENTRY(net_tcp_conn) all_next; /* every connection not yet freed, closed ones too */
	TAILQ_ENTRY(net_tcp_conn) ack_next;
	struct net_tcp *t;
	unsigned int lcore;
	uint32_t laddr, raddr; /* network order */
	uint16_t lport, rport; /* host order */
	uint8_t state;
	bool released;   /* the user closed or aborted: free at CLOSED */
	bool ack_queued; /* on the lcore's end-of-poll ACK list */
	bool in_table;
	bool fin_queued; /* the user closed: a FIN follows the send buffer */
	bool fin_rcvd;
	uint8_t busy;         /* input, a timer or an abort runs on it: freeing waits */
	int err;              /* positive errno once a reset or a timeout ended it */
	uint16_t listen_port; /* an accepted connection's listener, until established */
	net_tcp_cb cb;
	void *arg;
	/* send side */
	uint32_t iss, snd_una, snd_nxt, snd_max, snd_wnd, snd_wl1, snd_wl2;
	uint32_t cwnd, ssthresh;
	const struct tcp_cc_ops *cc;
	struct tcp_cubic cubic;
	/* RFC 5681/6582 fast retransmit and NewReno recovery */
	uint32_t recover; /* snd_max when recovery (or the last RTO) began */
	uint16_t dupacks; /* duplicate ACKs in a row */
	bool in_recovery;
	/* RFC 6675 SACK-based recovery (in_recovery on the scoreboard, else NewReno) */
	bool sack_recovery;
	bool rescue_done;  /* the one rescue retransmission of this recovery went */
	uint32_t high_rxt; /* one past the highest octet sent again in this recovery */
	struct tcp_sack_sb sb;
	uint8_t *sbuf;
	uint32_t sbuf_size, sbuf_head, sbuf_len;
	uint32_t sbuf_seq; /* sequence number of sbuf's first byte */
	/* receive side */
	uint32_t irs, rcv_nxt, rcv_adv, rcv_queued;
	struct rte_mbuf *rq[TCP_RQ_SLOTS];
	uint32_t rq_head, rq_n, rq_off; /* rq_off: bytes of rq[rq_head] consumed */
	struct tcp_ooo *ooo;
	uint16_t ooo_n;
	/* RFC 2018: blocks of what ooo holds, the latest first */
	struct tcp_sack_range rcv_sack[TCP_SACK_BLOCKS_MAX];
	uint8_t rcv_sack_n;
	/* options */
	uint16_t mss_snd; /* payload per segment, options of data segments excluded */
	uint16_t mss_peer;
	int8_t snd_ws, rcv_ws;
	bool sack_ok, ts_ok;
	uint32_t ts_recent;
	/* RFC 6298 */
	uint64_t srtt_us, rttvar_us, rto_us;
	bool rtt_timing;
	uint32_t rtt_seq;
	uint64_t rtt_start_us;
	uint8_t nretx;
	struct net_tcp_conn_stats stats;
	/*
	 * RTO while anything is unacknowledged; the persist timer while nothing
	 * is and the peer's zero window holds data back; 2MSL in TIME_WAIT.
	 */
	struct rt_timer timer;
	/* RFC 9293 3.8.6.1 zero-window probing (the persist timer) */
	bool persist;
	uint8_t persist_backoff; /* doublings of the probe interval */
	uint32_t zwp_unanswered; /* probes sent since the peer last ACKed */
	/* Keepalive (ka_idle_us 0: off): its own timer, so the RTO never waits on it. */
	uint64_t ka_idle_us, ka_intvl_us;
	uint32_t ka_cnt, ka_probes; /* ka_probes: sent since the peer was last heard */
	uint64_t last_rx_us;        /* when the last segment of this connection arrived */
	uint64_t oow_ack_next_us;   /* no ACK to a bare out-of-window segment before this */
	struct rt_timer ka_timer;
	uint64_t counts[TCPS_N];
};

LIST_HEAD(tcp_bucket, net_tcp_conn);
TAILQ_HEAD(tcp_ackq, net_tcp_conn);

struct tcp_listener {
	LIST_ENTRY(tcp_listener) next;
	uint16_t port;
	net_tcp_cb cb;
	void *arg;
};

struct tcp_lcore {
	struct tcp_bucket buckets[TCP_BUCKETS];
	struct tcp_bucket all; /* what destroy frees */
	LIST_HEAD(, tcp_listener) listeners;
	struct tcp_ackq ackq;
	struct rt_poller *poller;
	struct net_tcp_stats stats;
	unsigned int n_conns;
};

struct net_tcp {
	struct net_tcp_conf conf;
	struct net_ip *ip;
	struct net_neigh *nb;
	struct net_port *port;
	struct rt_runtime *rt;
	uint32_t secret[4]; /* RFC 6528's secret key */
	unsigned int n_lcores;
	struct tcp_lcore *lc;
};

/* A segment as received. */
struct tcp_seg {
	uint32_t seq, ack;
	uint8_t flags;
	uint16_t win;
	uint32_t len; /* payload bytes */
	struct net_tcp_opts opts;
	struct rte_mbuf *m; /* data at the payload */
};

/* ---- small helpers ---- */

static inline uint64_t
tcp_now_us(const struct net_tcp *t)
{
	return rt_now_us(t->rt);
}

/* Timestamp clock: milliseconds, as Linux's. */
static inline uint32_t
tcp_ts_now(const struct net_tcp *t)
{
	return (uint32_t)(tcp_now_us(t) / 1000);
}

static inline void
tcp_conn_event(struct net_tcp_conn *c, enum net_tcp_event ev, uint64_t n)
{
	if (!c->released && c->cb != NULL) {
		c->cb(c->arg, c, ev, n);
	}
}

static inline uint32_t
tcp_rcv_wnd(const struct net_tcp_conn *c)
{
	uint32_t room = c->t->conf.rcv_buf - c->rcv_queued;

	return c->rq_n >= TCP_RQ_SLOTS ? 0 : room;
}

static inline uint32_t
tcp_data_end(const struct net_tcp_conn *c)
{
	return c->sbuf_seq + c->sbuf_len;
}

/* ---- tcp_fsm.c ---- */

/* Step the state machine on @p ev (no side effects but the state and its counters). */
void tcp_set_state(struct net_tcp_conn *c, enum tcp_ev ev);
/* Step on @p ev, then: CLOSED tells the user (@p err) and frees; TIME_WAIT arms 2MSL. */
void tcp_apply(struct net_tcp_conn *c, enum tcp_ev ev, int err);
/* The name of @p state ("established", ...). */
const char *tcp_state_str(uint8_t state);

/* ---- tcp_conn.c ---- */

uint32_t tcp_flow_hash(uint32_t a1, uint32_t a2, uint16_t p1, uint16_t p2);
struct net_tcp_conn *tcp_conn_lookup(struct tcp_lcore *lc, uint32_t laddr, uint32_t raddr,
				     uint16_t lport, uint16_t rport);
struct tcp_listener *tcp_listener_lookup(struct tcp_lcore *lc, uint16_t port);
struct net_tcp_conn *tcp_conn_new(struct net_tcp *t, unsigned int lcore, uint32_t laddr,
				  uint32_t raddr, uint16_t lport, uint16_t rport);
void tcp_conn_free(struct net_tcp_conn *c);
void tcp_conn_maybe_free(struct net_tcp_conn *c);

/* ---- tcp_options.c ---- */

size_t tcp_syn_opts(const struct net_tcp_conn *c, uint8_t *o, bool ws, bool sack, bool ts,
		    uint16_t mss);
size_t tcp_data_opts(struct net_tcp_conn *c, uint8_t *o, bool sack);
int8_t tcp_our_wscale(const struct net_tcp *t);
void tcp_negotiate(struct net_tcp_conn *c, const struct net_tcp_opts *o);

/* ---- tcp_output.c ---- */

int tcp_xmit_raw(struct net_tcp *t, unsigned int lcore, uint32_t laddr, uint32_t raddr,
		 uint16_t lport, uint16_t rport, uint32_t seq, uint32_t ack, uint8_t flags,
		 uint16_t win, const uint8_t *opts, size_t olen, const struct net_tcp_conn *c,
		 uint32_t dlen);
int tcp_conn_xmit(struct net_tcp_conn *c, uint32_t seq, uint32_t dlen, uint8_t flags);
void tcp_ack_dequeue(struct net_tcp_conn *c);
void tcp_send_ack_now(struct net_tcp_conn *c);
void tcp_send_ack_later(struct net_tcp_conn *c);
void tcp_output(struct net_tcp_conn *c);
void tcp_retransmit_una(struct net_tcp_conn *c);
/* Send [seq, seq + len) again (the FIN too if it ends there). @return sequence space sent, or 0 */
uint32_t tcp_retransmit(struct net_tcp_conn *c, uint32_t seq, uint32_t len);
/* One new segment from snd_nxt, short of @p limit. @return whether one went */
bool tcp_send_new(struct net_tcp_conn *c, uint32_t limit);
void tcp_send_rst_for(struct net_tcp *t, unsigned int lcore, const struct rte_ipv4_hdr *h,
		      uint16_t lport, uint16_t rport, const struct tcp_seg *s);
void tcp_challenge_ack(struct net_tcp_conn *c);
void tcp_send_oow_ack(struct net_tcp_conn *c, const struct tcp_seg *s);

/* ---- tcp_timers.c ---- */

void tcp_rto_arm(struct net_tcp_conn *c);
void tcp_rtt_sample(struct net_tcp_conn *c, uint64_t r);
void tcp_timer_fn(void *arg);
/* After the send loop: start, keep or stop the persist timer. */
void tcp_persist_update(struct net_tcp_conn *c);
void tcp_ka_timer_fn(void *arg);

/* ---- tcp_recovery.c ---- */

bool tcp_is_dupack(const struct net_tcp_conn *c, const struct tcp_seg *s);
void tcp_dupack_input(struct net_tcp_conn *c, const struct tcp_seg *s);
void tcp_recovery_ack(struct net_tcp_conn *c, uint32_t acked);

/* ---- tcp_sack.c ---- */

void tcp_sack_rcv_note(struct net_tcp_conn *c, uint32_t start, uint32_t end);
void tcp_sack_rcv_trim(struct net_tcp_conn *c);
size_t tcp_sack_opts(struct net_tcp_conn *c, uint8_t *o);
void tcp_sb_clear(struct tcp_sack_sb *sb);
uint32_t tcp_sb_bytes(const struct tcp_sack_sb *sb);
uint32_t tcp_sb_add(struct tcp_sack_sb *sb, uint32_t start, uint32_t end);
void tcp_sb_ack(struct tcp_sack_sb *sb, uint32_t una);
unsigned int tcp_sb_holes(const struct tcp_sack_sb *sb, uint32_t una, uint32_t high, uint32_t mss,
			  struct tcp_sb_hole *h);
bool tcp_sb_is_lost(const struct tcp_sack_sb *sb, uint32_t seq, uint32_t mss);
uint32_t tcp_sb_pipe(const struct tcp_sack_sb *sb, uint32_t una, uint32_t high, uint32_t high_rxt,
		     uint32_t mss);
bool tcp_sb_next_seg(const struct tcp_sack_sb *sb, uint32_t una, uint32_t high, uint32_t high_rxt,
		     uint32_t mss, bool lost_only, uint32_t *seq, uint32_t *len);
void tcp_sack_input(struct net_tcp_conn *c, const struct tcp_seg *s);
bool tcp_sack_una_lost(const struct net_tcp_conn *c);
void tcp_sack_recovery_start(struct net_tcp_conn *c);
void tcp_sack_output(struct net_tcp_conn *c, uint32_t wnd_limit);

/* ---- tcp_cc.c ---- */

const struct tcp_cc_ops *tcp_cc_ops_of(enum net_tcp_cc cc);
void tcp_cc_ack(struct net_tcp_conn *c, uint32_t acked);
double tcp_cubic_k(double w_max, double cwnd_epoch);
double tcp_cubic_w(const struct tcp_cubic *cb, double t);
void tcp_cubic_loss(struct tcp_cubic *cb, double cwnd);
void tcp_cubic_epoch(struct tcp_cubic *cb, double cwnd, double now_s);
double tcp_cubic_update(struct tcp_cubic *cb, double cwnd, double acked, double now_s,
			double rtt_s);

/* ---- tcp_recv.c ---- */

void tcp_data_input(struct net_tcp_conn *c, struct tcp_seg *s);

/* ---- tcp_input.c ---- */

void tcp_input(void *arg, struct net_ip *ip, unsigned int lcore, struct rte_mbuf *m,
	       const struct rte_ipv4_hdr *h);
void tcp_icmp_err(void *arg, struct net_ip *ip, unsigned int lcore, const struct net_icmp_err *e);

#endif /* TCP_INTERNAL_H */
