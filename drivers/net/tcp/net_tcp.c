/* SPDX-License-Identifier: BSD-3-Clause */
/* TCP per data lcore over net_ip: see net_tcp.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <rte_common.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_random.h>
#include <rte_tcp.h>

#include "net_tcp.h"
#include "rt.h"
#include "rt_fsm.h"

RTE_LOG_REGISTER_SUFFIX(net_tcp_logtype, tcp, NOTICE);

#define TCP_STAT_ADD(s, field, n) __atomic_store_n(&(s)->field, (s)->field + (n), __ATOMIC_RELAXED)

#define TCP_BUCKETS 1024u  /* per lcore; a power of two */
#define TCP_RQ_SLOTS 1024u /* received mbufs queued per connection; a power of two */
#define TCP_HDR_LEN 20u
#define TCP_MAX_WSCALE 14
#define TCP_RTO_MAX_US (120ULL * 1000 * 1000)
#define TCP_INIT_CWND_SEGS 10u
#define TCP_OOW_ACK_GAP_US 500000u /* Linux's tcp_invalid_ratelimit: HZ/2 */
#define TCP_DUPACK_THRESH 3u       /* RFC 5681: the third duplicate ACK retransmits */

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

static const char *const tcp_state_names[TCPS_N] = {
	"closed",     "listen",     "syn-sent", "syn-received", "established", "fin-wait-1",
	"fin-wait-2", "close-wait", "closing",  "last-ack",     "time-wait",
};

static const char *const tcp_ev_names[TCPE_N] = {
	"connect", "rcv-syn",    "rcv-syn-ack", "rcv-ack-of-syn", "close",
	"rcv-fin", "ack-of-fin", "rst",         "timeout",        "abort",
};

#define X RT_FSM_NONE
#define C TCPS_CLOSED
/* clang-format off */
static const int8_t tcp_table[TCPS_N * TCPE_N] = {
/*               connect        rcv-syn         rcv-syn-ack       ack-of-syn        close            rcv-fin          ack-fin          rst timeout abort */
/* closed   */   TCPS_SYN_SENT, X,              X,                X,                X,               X,               X,               X,  X,      X,
/* listen   */   X,             TCPS_SYN_RCVD,  X,                X,                C,               X,               X,               C,  C,      C,
/* syn-sent */   X,             TCPS_SYN_RCVD,  TCPS_ESTABLISHED, X,                C,               X,               X,               C,  C,      C,
/* syn-rcvd */   X,             X,              X,                TCPS_ESTABLISHED, TCPS_FIN_WAIT_1, X,               X,               C,  C,      C,
/* estab    */   X,             X,              X,                X,                TCPS_FIN_WAIT_1, TCPS_CLOSE_WAIT, X,               C,  C,      C,
/* fin-w-1  */   X,             X,              X,                X,                X,               TCPS_CLOSING,    TCPS_FIN_WAIT_2, C,  C,      C,
/* fin-w-2  */   X,             X,              X,                X,                X,               TCPS_TIME_WAIT,  X,               C,  C,      C,
/* close-w  */   X,             X,              X,                X,                TCPS_LAST_ACK,   X,               X,               C,  C,      C,
/* closing  */   X,             X,              X,                X,                X,               X,               TCPS_TIME_WAIT,  C,  C,      C,
/* last-ack */   X,             X,              X,                X,                X,               X,               C,               C,  C,      C,
/* time-w   */   X,             X,              X,                X,                X,               X,               X,               X,  C,      C,
};
/* clang-format on */
#undef X
#undef C

static const struct rt_fsm tcp_fsm = {
	.name = "tcp",
	.nstates = TCPS_N,
	.nevents = TCPE_N,
	.table = tcp_table,
	.states = tcp_state_names,
	.events = tcp_ev_names,
};

/* ---- objects ---- */

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
	/* RFC 5681/6582 fast retransmit and NewReno recovery */
	uint32_t recover; /* snd_max when recovery (or the last RTO) began */
	uint16_t dupacks; /* duplicate ACKs in a row */
	bool in_recovery;
	uint8_t *sbuf;
	uint32_t sbuf_size, sbuf_head, sbuf_len;
	uint32_t sbuf_seq; /* sequence number of sbuf's first byte */
	/* receive side */
	uint32_t irs, rcv_nxt, rcv_adv, rcv_queued;
	struct rte_mbuf *rq[TCP_RQ_SLOTS];
	uint32_t rq_head, rq_n, rq_off; /* rq_off: bytes of rq[rq_head] consumed */
	struct tcp_ooo *ooo;
	uint16_t ooo_n;
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
	uint64_t retransmits;
	struct rt_timer timer; /* RTO while anything is unacknowledged; 2MSL in TIME_WAIT */
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

/* ---- helpers ---- */

static uint32_t
flow_hash(uint32_t a1, uint32_t a2, uint16_t p1, uint16_t p2)
{
	/* Symmetric: both directions of a flow hash alike, so the steering hook
	 * and the connection table agree whichever side is "local". */
	return rte_hash_crc_4byte(a1 ^ a2, rte_hash_crc_4byte((uint32_t)(p1 ^ p2), 0x6c6e6574));
}

static struct tcp_bucket *
bucket_of(struct tcp_lcore *lc, uint32_t laddr, uint32_t raddr, uint16_t lport, uint16_t rport)
{
	return &lc->buckets[flow_hash(laddr, raddr, lport, rport) & (TCP_BUCKETS - 1)];
}

static struct net_tcp_conn *
conn_lookup(struct tcp_lcore *lc, uint32_t laddr, uint32_t raddr, uint16_t lport, uint16_t rport)
{
	struct net_tcp_conn *c;

	LIST_FOREACH(c, bucket_of(lc, laddr, raddr, lport, rport), hnext) {
		if (c->lport == lport && c->rport == rport && c->raddr == raddr &&
		    c->laddr == laddr) {
			return c;
		}
	}
	return NULL;
}

static struct tcp_listener *
listener_lookup(struct tcp_lcore *lc, uint16_t port)
{
	struct tcp_listener *l;

	LIST_FOREACH(l, &lc->listeners, next) {
		if (l->port == port) {
			return l;
		}
	}
	return NULL;
}

static uint64_t
now_us(const struct net_tcp *t)
{
	return rt_now_us(t->rt);
}

/* Timestamp clock: milliseconds, as Linux's. */
static uint32_t
ts_now(const struct net_tcp *t)
{
	return (uint32_t)(now_us(t) / 1000);
}

/* RFC 6528: ISN = M + F(4-tuple, secretkey), M a 4-microsecond clock. */
static uint32_t
isn_for(const struct net_tcp *t, uint32_t laddr, uint32_t raddr, uint16_t lport, uint16_t rport)
{
	uint32_t words[3] = { laddr, raddr, (uint32_t)lport << 16 | rport };
	uint32_t f = rte_hash_crc(t->secret, sizeof(t->secret), 0);

	f = rte_hash_crc(words, sizeof(words), f);
	return f + (uint32_t)(now_us(t) / 4);
}

static void
conn_event(struct net_tcp_conn *c, enum net_tcp_event ev, uint64_t n)
{
	if (!c->released && c->cb != NULL) {
		c->cb(c->arg, c, ev, n);
	}
}

static uint32_t
rcv_wnd(const struct net_tcp_conn *c)
{
	uint32_t room = c->t->conf.rcv_buf - c->rcv_queued;

	return c->rq_n >= TCP_RQ_SLOTS ? 0 : room;
}

/* ---- output ---- */

/* The options of a SYN (or SYN-ACK), laid out as Linux does. */
static size_t
syn_opts(const struct net_tcp_conn *c, uint8_t *o, bool ws, bool sack, bool ts, uint16_t mss)
{
	size_t n = 0;

	o[n++] = OPT_MSS;
	o[n++] = 4;
	o[n++] = (uint8_t)(mss >> 8);
	o[n++] = (uint8_t)mss;
	if (sack && ts) {
		o[n++] = OPT_SACK_PERM;
		o[n++] = 2;
	} else if (sack) {
		o[n++] = OPT_NOP;
		o[n++] = OPT_NOP;
		o[n++] = OPT_SACK_PERM;
		o[n++] = 2;
	}
	if (ts) {
		uint32_t v = rte_cpu_to_be_32(ts_now(c->t)), e = rte_cpu_to_be_32(c->ts_recent);

		if (!sack) {
			o[n++] = OPT_NOP;
			o[n++] = OPT_NOP;
		}
		o[n++] = OPT_TS;
		o[n++] = 10;
		memcpy(&o[n], &v, 4);
		memcpy(&o[n + 4], &e, 4);
		n += 8;
	}
	if (ws) {
		o[n++] = OPT_NOP;
		o[n++] = OPT_WS;
		o[n++] = 3;
		o[n++] = (uint8_t)c->rcv_ws;
	}
	return n;
}

static size_t
data_opts(const struct net_tcp_conn *c, uint8_t *o)
{
	uint32_t v, e;

	if (!c->ts_ok) {
		return 0;
	}
	v = rte_cpu_to_be_32(ts_now(c->t));
	e = rte_cpu_to_be_32(c->ts_recent);
	o[0] = OPT_NOP;
	o[1] = OPT_NOP;
	o[2] = OPT_TS;
	o[3] = 10;
	memcpy(&o[4], &v, 4);
	memcpy(&o[8], &e, 4);
	return 12;
}

static void
fill_cksum(struct rte_tcp_hdr *th, size_t len, uint32_t src, uint32_t dst)
{
	struct rte_ipv4_hdr ph = {
		.version_ihl = RTE_IPV4_VHL_DEF,
		.total_length = rte_cpu_to_be_16((uint16_t)(sizeof(ph) + len)),
		.next_proto_id = IPPROTO_TCP,
		.src_addr = src,
		.dst_addr = dst,
	};

	th->cksum = 0;
	th->cksum = rte_ipv4_udptcp_cksum(&ph, th);
}

/* Copy @p len bytes of the send buffer from sequence @p seq into @p to. */
static void
sbuf_copy(const struct net_tcp_conn *c, uint32_t seq, uint8_t *to, uint32_t len)
{
	uint32_t at = (c->sbuf_head + (seq - c->sbuf_seq)) % c->sbuf_size;
	uint32_t first = RTE_MIN(len, c->sbuf_size - at);

	memcpy(to, c->sbuf + at, first);
	memcpy(to + first, c->sbuf, len - first);
}

static int
tcp_xmit_raw(struct net_tcp *t, unsigned int lcore, uint32_t laddr, uint32_t raddr, uint16_t lport,
	     uint16_t rport, uint32_t seq, uint32_t ack, uint8_t flags, uint16_t win,
	     const uint8_t *opts, size_t olen, const struct net_tcp_conn *c, uint32_t dlen)
{
	struct rte_mbuf *m = net_port_alloc(t->port);
	struct rte_tcp_hdr *th;
	size_t hlen = TCP_HDR_LEN + olen;

	th = m != NULL ? (struct rte_tcp_hdr *)rte_pktmbuf_append(m, (uint16_t)(hlen + dlen)) :
			 NULL;
	if (th == NULL) {
		rte_pktmbuf_free(m);
		TCP_STAT_ADD(&t->lc[lcore].stats, tx_fail, 1);
		return -ENOMEM;
	}
	th->src_port = rte_cpu_to_be_16(lport);
	th->dst_port = rte_cpu_to_be_16(rport);
	th->sent_seq = rte_cpu_to_be_32(seq);
	th->recv_ack = rte_cpu_to_be_32(ack);
	th->data_off = (uint8_t)((hlen / 4) << 4);
	th->tcp_flags = flags;
	th->rx_win = rte_cpu_to_be_16(win);
	th->tcp_urp = 0;
	if (olen > 0) {
		memcpy(th + 1, opts, olen);
	}
	if (dlen > 0) {
		sbuf_copy(c, seq, (uint8_t *)th + hlen, dlen);
	}
	fill_cksum(th, hlen + dlen, laddr, raddr);
	if (net_ip_output(t->ip, lcore, m, laddr, raddr, IPPROTO_TCP) != 0) {
		TCP_STAT_ADD(&t->lc[lcore].stats, tx_fail, 1);
		return -EHOSTUNREACH;
	}
	TCP_STAT_ADD(&t->lc[lcore].stats, tx, 1);
	return 0;
}

static uint16_t
win_field(struct net_tcp_conn *c, bool syn)
{
	uint32_t w = rcv_wnd(c);
	int8_t ws = syn || c->rcv_ws < 0 ? 0 : c->rcv_ws;

	w = RTE_MIN(w >> ws, 65535u);
	/* The right edge we advertised: data up to it is accepted. */
	if (SEQ_GT(c->rcv_nxt + (w << ws), c->rcv_adv)) {
		c->rcv_adv = c->rcv_nxt + (w << ws);
	}
	return (uint16_t)w;
}

static void
ack_dequeue(struct net_tcp_conn *c)
{
	if (c->ack_queued) {
		TAILQ_REMOVE(&c->t->lc[c->lcore].ackq, c, ack_next);
		c->ack_queued = false;
	}
}

/* Send one segment of the connection: data from the send buffer at @p seq. */
static int
conn_xmit(struct net_tcp_conn *c, uint32_t seq, uint32_t dlen, uint8_t flags)
{
	uint8_t opts[40];
	size_t olen;
	bool syn = (flags & RTE_TCP_SYN_FLAG) != 0;

	if (syn) {
		bool synack = (flags & RTE_TCP_ACK_FLAG) != 0;
		const struct net_tcp_conf *cf = &c->t->conf;
		uint16_t mss = (uint16_t)(net_port_info(c->t->port)->mtu - 40);

		olen = syn_opts(c, opts, synack ? c->rcv_ws >= 0 : !cf->no_wscale,
				synack ? c->sack_ok : !cf->no_sack,
				synack ? c->ts_ok : !cf->no_timestamps, mss);
	} else {
		olen = data_opts(c, opts);
	}
	if (flags & RTE_TCP_ACK_FLAG) {
		ack_dequeue(c);
	}
	return tcp_xmit_raw(c->t, c->lcore, c->laddr, c->raddr, c->lport, c->rport, seq,
			    (flags & RTE_TCP_ACK_FLAG) ? c->rcv_nxt : 0, flags, win_field(c, syn),
			    opts, olen, c, dlen);
}

static void
send_ack_now(struct net_tcp_conn *c)
{
	conn_xmit(c, c->snd_nxt, 0, RTE_TCP_ACK_FLAG);
}

/* Delay the ACK to the end of the lcore's poll, where one ACK covers all its segments. */
static void
send_ack_later(struct net_tcp_conn *c)
{
	if (!c->ack_queued) {
		TAILQ_INSERT_TAIL(&c->t->lc[c->lcore].ackq, c, ack_next);
		c->ack_queued = true;
	}
}

static void
rto_arm(struct net_tcp_conn *c)
{
	rt_timer_arm(&c->timer, c->rto_us);
}

static uint32_t
data_end(const struct net_tcp_conn *c)
{
	return c->sbuf_seq + c->sbuf_len;
}

/*
 * RFC 3042 limited transmit: the first two duplicate ACKs each let one new
 * segment out past cwnd (cwnd itself unchanged), so a small window still
 * makes the third duplicate ACK that starts fast retransmit.
 */
static uint32_t
limited_transmit(const struct net_tcp_conn *c)
{
	if (c->in_recovery || c->dupacks >= TCP_DUPACK_THRESH) {
		return 0;
	}
	return (uint32_t)c->dupacks * c->mss_snd;
}

/* Send what the send buffer holds and the windows allow, then the FIN. */
static void
tcp_output(struct net_tcp_conn *c)
{
	uint32_t end = data_end(c), wnd = RTE_MIN(c->snd_wnd, c->cwnd + limited_transmit(c));
	uint32_t limit = c->snd_una + wnd;

	if (c->state == TCPS_SYN_SENT || c->state == TCPS_SYN_RCVD || c->state == TCPS_CLOSED ||
	    c->state == TCPS_TIME_WAIT || c->state == TCPS_LISTEN) {
		return;
	}
	while (SEQ_LT(c->snd_nxt, end) && SEQ_LT(c->snd_nxt, limit)) {
		uint32_t len = RTE_MIN(end - c->snd_nxt, (uint32_t)c->mss_snd);
		uint8_t flags = RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG;
		bool fin;

		len = RTE_MIN(len, limit - c->snd_nxt);
		fin = c->fin_queued && c->snd_nxt + len == end;
		if (fin) {
			flags |= RTE_TCP_FIN_FLAG;
		}
		if (!c->rtt_timing && c->snd_nxt == c->snd_max) {
			/* Karn: time only a segment sent once. */
			c->rtt_timing = true;
			c->rtt_seq = c->snd_nxt;
			c->rtt_start_us = now_us(c->t);
		}
		if (conn_xmit(c, c->snd_nxt, len, flags) != 0) {
			break;
		}
		if (SEQ_LT(c->snd_nxt, c->snd_max)) {
			c->retransmits++;
			TCP_STAT_ADD(&c->t->lc[c->lcore].stats, retransmits, 1);
		}
		c->snd_nxt += len + (fin ? 1 : 0);
	}
	if (c->fin_queued && c->snd_nxt == end && end == c->sbuf_seq + c->sbuf_len) {
		/* All data sent (or none): the FIN alone. */
		if (conn_xmit(c, c->snd_nxt, 0, RTE_TCP_ACK_FLAG | RTE_TCP_FIN_FLAG) == 0) {
			c->snd_nxt++;
		}
	}
	if (SEQ_GT(c->snd_nxt, c->snd_max)) {
		c->snd_max = c->snd_nxt;
	}
	if (c->snd_una != c->snd_max && !rt_timer_pending(&c->timer)) {
		rto_arm(c);
	}
}

/* ---- the connection's life ---- */

static void conn_free(struct net_tcp_conn *c);

/* Free it once closed and released, and nothing up the stack still uses it. */
static void
conn_maybe_free(struct net_tcp_conn *c)
{
	if (c->released && c->state == TCPS_CLOSED && c->busy == 0) {
		conn_free(c);
	}
}

static void
set_state(struct net_tcp_conn *c, enum tcp_ev ev)
{
	char who[48];
	int next;

	snprintf(who, sizeof(who), "%u->%u", c->lport, c->rport);
	next = rt_fsm_step(&tcp_fsm, net_tcp_logtype, who, c->state, ev, c->counts);
	if (next == RT_FSM_NONE) {
		return;
	}
	c->state = (uint8_t)next;
}

/* The connection reached CLOSED: tell the user, free it once released. */
static void
conn_closed(struct net_tcp_conn *c, int err)
{
	struct tcp_lcore *lc = &c->t->lc[c->lcore];

	if (c->err == 0) {
		c->err = err;
	}
	rt_timer_cancel(&c->timer);
	rt_timer_cancel(&c->ka_timer);
	ack_dequeue(c);
	if (c->in_table) {
		LIST_REMOVE(c, hnext);
		c->in_table = false;
		lc->n_conns--;
	}
	if (c->listen_port != 0) {
		/* Never accepted: nobody holds it. */
		c->released = true;
	}
	conn_event(c, NET_TCP_EV_CLOSED, (uint64_t)c->err);
	conn_maybe_free(c);
}

static void
apply(struct net_tcp_conn *c, enum tcp_ev ev, int err)
{
	set_state(c, ev);
	if (c->state == TCPS_CLOSED) {
		conn_closed(c, err);
	} else if (c->state == TCPS_TIME_WAIT) {
		rt_timer_arm(&c->timer, c->t->conf.time_wait_us);
	}
}

static void
rq_free(struct net_tcp_conn *c)
{
	while (c->rq_n > 0) {
		rte_pktmbuf_free(c->rq[c->rq_head]);
		c->rq_head = (c->rq_head + 1) & (TCP_RQ_SLOTS - 1);
		c->rq_n--;
	}
	for (uint16_t i = 0; i < c->ooo_n; i++) {
		rte_pktmbuf_free(c->ooo[i].m);
	}
	c->ooo_n = 0;
}

static void
conn_free(struct net_tcp_conn *c)
{
	TCP_STAT_ADD(&c->t->lc[c->lcore].stats, closed, 1);
	LIST_REMOVE(c, all_next);
	rq_free(c);
	free(c->ooo);
	free(c->sbuf);
	free(c);
}

static void tcp_timer_fn(void *arg);
static void ka_timer_fn(void *arg);

static struct net_tcp_conn *
conn_new(struct net_tcp *t, unsigned int lcore, uint32_t laddr, uint32_t raddr, uint16_t lport,
	 uint16_t rport)
{
	struct net_tcp_conn *c = calloc(1, sizeof(*c));

	if (c == NULL) {
		return NULL;
	}
	c->sbuf = malloc(t->conf.snd_buf);
	c->ooo = calloc(t->conf.ooo_max, sizeof(*c->ooo));
	if (c->sbuf == NULL || c->ooo == NULL) {
		free(c->sbuf);
		free(c->ooo);
		free(c);
		return NULL;
	}
	c->t = t;
	c->lcore = lcore;
	c->laddr = laddr;
	c->raddr = raddr;
	c->lport = lport;
	c->rport = rport;
	c->sbuf_size = t->conf.snd_buf;
	c->rto_us = t->conf.rto_init_us;
	c->snd_ws = -1;
	c->rcv_ws = -1;
	c->iss = isn_for(t, laddr, raddr, lport, rport);
	c->snd_una = c->snd_nxt = c->snd_max = c->iss;
	c->sbuf_seq = c->iss + 1;
	c->ssthresh = UINT32_MAX;
	c->recover = c->iss;
	rt_timer_init(&c->timer, tcp_timer_fn, c);
	rt_timer_init(&c->ka_timer, ka_timer_fn, c);
	c->last_rx_us = now_us(t);
	LIST_INSERT_HEAD(bucket_of(&t->lc[lcore], laddr, raddr, lport, rport), c, hnext);
	LIST_INSERT_HEAD(&t->lc[lcore].all, c, all_next);
	c->in_table = true;
	t->lc[lcore].n_conns++;
	return c;
}

/* Our window shift: the smallest that lets the receive buffer show whole. */
static int8_t
our_wscale(const struct net_tcp *t)
{
	int8_t s = 0;

	while (s < TCP_MAX_WSCALE && (t->conf.rcv_buf >> s) > 65535) {
		s++;
	}
	return s;
}

/* What the handshake settled, from the peer's SYN options. */
static void
negotiate(struct net_tcp_conn *c, const struct net_tcp_opts *o)
{
	const struct net_tcp_conf *cf = &c->t->conf;
	uint16_t our_mss = (uint16_t)(net_port_info(c->t->port)->mtu - 40);

	c->mss_peer = o->mss != 0 ? o->mss : 536;
	if (o->wscale >= 0 && !cf->no_wscale) {
		c->snd_ws = RTE_MIN(o->wscale, TCP_MAX_WSCALE);
		c->rcv_ws = our_wscale(c->t);
	} else {
		c->snd_ws = -1;
		c->rcv_ws = -1;
	}
	c->sack_ok = o->sack_ok && !cf->no_sack;
	c->ts_ok = o->ts && !cf->no_timestamps;
	if (c->ts_ok) {
		c->ts_recent = o->tsval;
	}
	c->mss_snd = (uint16_t)(RTE_MIN(c->mss_peer, our_mss) - (c->ts_ok ? 12 : 0));
	c->cwnd = TCP_INIT_CWND_SEGS * c->mss_snd;
}

/* ---- RTO (RFC 6298) ---- */

static void
rtt_sample(struct net_tcp_conn *c, uint64_t r)
{
	if (c->srtt_us == 0) {
		c->srtt_us = r;
		c->rttvar_us = r / 2;
	} else {
		uint64_t d = c->srtt_us > r ? c->srtt_us - r : r - c->srtt_us;

		c->rttvar_us = (3 * c->rttvar_us + d) / 4;
		c->srtt_us = (7 * c->srtt_us + r) / 8;
	}
	c->rto_us = c->srtt_us + RTE_MAX(4 * c->rttvar_us, (uint64_t)1000);
	c->rto_us = RTE_MAX(c->rto_us, c->t->conf.rto_min_us);
	c->rto_us = RTE_MIN(c->rto_us, TCP_RTO_MAX_US);
}

static void
tcp_timer_expired(struct net_tcp_conn *c)
{
	struct net_tcp_stats *s = &c->t->lc[c->lcore].stats;
	bool syn = c->state == TCPS_SYN_SENT || c->state == TCPS_SYN_RCVD;
	uint8_t limit = syn ? c->t->conf.syn_retries : c->t->conf.retries;

	if (c->state == TCPS_TIME_WAIT) {
		apply(c, TCPE_TIMEOUT, 0);
		return;
	}
	if (c->snd_una == c->snd_max) {
		return;
	}
	TCP_STAT_ADD(s, rto, 1);
	if (c->nretx >= limit) {
		apply(c, TCPE_TIMEOUT, ETIMEDOUT);
		return;
	}
	c->nretx++;
	/* Backoff, and Karn: no sample from what is sent again. */
	c->rto_us = RTE_MIN(c->rto_us * 2, TCP_RTO_MAX_US);
	c->rtt_timing = false;
	if (syn) {
		uint8_t f = RTE_TCP_SYN_FLAG | (c->state == TCPS_SYN_RCVD ? RTE_TCP_ACK_FLAG : 0);

		conn_xmit(c, c->iss, 0, f);
		c->retransmits++;
		TCP_STAT_ADD(s, retransmits, 1);
		rto_arm(c);
		return;
	}
	/* RFC 5681: one segment, slow start from there; go back to snd_una. */
	c->ssthresh = RTE_MAX((c->snd_max - c->snd_una) / 2, 2u * c->mss_snd);
	c->cwnd = c->mss_snd;
	/* RFC 6582 4: duplicate ACKs of what is sent again start no fast retransmit. */
	c->recover = c->snd_max;
	c->in_recovery = false;
	c->dupacks = 0;
	c->snd_nxt = c->snd_una;
	rto_arm(c);
	tcp_output(c);
}

static void
tcp_timer_fn(void *arg)
{
	struct net_tcp_conn *c = arg;

	c->busy++;
	tcp_timer_expired(c);
	c->busy--;
	conn_maybe_free(c);
}

/*
 * Keepalive, as Linux's: after ka_idle_us without a segment from the peer,
 * an ACK at snd_una - 1 (old, so any peer answers it with an ACK); then one
 * every ka_intvl_us; ka_cnt unanswered and the connection ends ETIMEDOUT.
 * While data is unacknowledged the RTO watches the peer instead. The timer
 * is not re-armed per segment: it finds how long the peer has been quiet.
 */
static void
ka_expired(struct net_tcp_conn *c)
{
	uint64_t quiet = now_us(c->t) - c->last_rx_us;

	if (c->state == TCPS_CLOSED || c->state == TCPS_TIME_WAIT || c->ka_idle_us == 0) {
		return;
	}
	if (c->state == TCPS_SYN_SENT || c->state == TCPS_SYN_RCVD || c->snd_una != c->snd_max) {
		rt_timer_arm(&c->ka_timer, c->ka_idle_us);
		return;
	}
	if (c->ka_probes == 0 && quiet < c->ka_idle_us) {
		rt_timer_arm(&c->ka_timer, c->ka_idle_us - quiet);
		return;
	}
	if (c->ka_probes >= c->ka_cnt) {
		apply(c, TCPE_TIMEOUT, ETIMEDOUT);
		return;
	}
	conn_xmit(c, c->snd_una - 1, 0, RTE_TCP_ACK_FLAG);
	c->ka_probes++;
	TCP_STAT_ADD(&c->t->lc[c->lcore].stats, ka_probes, 1);
	rt_timer_arm(&c->ka_timer, c->ka_intvl_us);
}

static void
ka_timer_fn(void *arg)
{
	struct net_tcp_conn *c = arg;

	c->busy++;
	ka_expired(c);
	c->busy--;
	conn_maybe_free(c);
}

/* ---- input ---- */

bool
net_tcp_parse_opts(const uint8_t *p, size_t len, struct net_tcp_opts *o)
{
	size_t i = 0;

	memset(o, 0, sizeof(*o));
	o->wscale = -1;
	while (i < len) {
		uint8_t kind = p[i], olen;

		if (kind == OPT_EOL) {
			break;
		}
		if (kind == OPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= len) {
			return false;
		}
		olen = p[i + 1];
		if (olen < 2 || i + olen > len) {
			return false;
		}
		switch (kind) {
		case OPT_MSS:
			if (olen == 4) {
				o->mss = (uint16_t)(p[i + 2] << 8 | p[i + 3]);
			}
			break;
		case OPT_WS:
			if (olen == 3) {
				o->wscale = (int8_t)RTE_MIN(p[i + 2], TCP_MAX_WSCALE);
			}
			break;
		case OPT_SACK_PERM:
			o->sack_ok = olen == 2;
			break;
		case OPT_TS:
			if (olen == 10) {
				uint32_t v, e;

				memcpy(&v, &p[i + 2], 4);
				memcpy(&e, &p[i + 6], 4);
				o->ts = true;
				o->tsval = rte_be_to_cpu_32(v);
				o->tsecr = rte_be_to_cpu_32(e);
			}
			break;
		default:
			break;
		}
		i += olen;
	}
	return true;
}

/* The sum over the pseudo-header and the segment, its checksum field included, is all ones. */
static bool
cksum_ok(const struct rte_ipv4_hdr *ph, const struct rte_tcp_hdr *th)
{
	uint32_t len = rte_be_to_cpu_16(ph->total_length) - (uint32_t)sizeof(*ph);
	uint32_t sum = rte_ipv4_phdr_cksum(ph, 0);

	sum = __rte_raw_cksum(th, len, sum);
	return __rte_raw_cksum_reduce(sum) == 0xffff;
}

/* A segment as received. */
struct tcp_seg {
	uint32_t seq, ack;
	uint8_t flags;
	uint16_t win;
	uint32_t len; /* payload bytes */
	struct net_tcp_opts opts;
	struct rte_mbuf *m; /* data at the payload */
};

/* RFC 9293: the answer to a segment for nothing (or unacceptable in SYN-SENT). */
static void
send_rst_for(struct net_tcp *t, unsigned int lcore, const struct rte_ipv4_hdr *h, uint16_t lport,
	     uint16_t rport, const struct tcp_seg *s)
{
	uint32_t seq = 0, ack = 0;
	uint8_t flags = RTE_TCP_RST_FLAG;

	if (s->flags & RTE_TCP_RST_FLAG) {
		return;
	}
	if (s->flags & RTE_TCP_ACK_FLAG) {
		seq = s->ack;
	} else {
		ack = s->seq + s->len + ((s->flags & RTE_TCP_SYN_FLAG) ? 1 : 0) +
		      ((s->flags & RTE_TCP_FIN_FLAG) ? 1 : 0);
		flags |= RTE_TCP_ACK_FLAG;
	}
	if (tcp_xmit_raw(t, lcore, h->dst_addr, h->src_addr, lport, rport, seq, ack, flags, 0, NULL,
			 0, NULL, 0) == 0) {
		TCP_STAT_ADD(&t->lc[lcore].stats, rst_tx, 1);
	}
}

static void
challenge_ack(struct net_tcp_conn *c)
{
	TCP_STAT_ADD(&c->t->lc[c->lcore].stats, challenge_ack, 1);
	send_ack_now(c);
}

static void
listen_input(struct net_tcp *t, unsigned int lcore, struct tcp_listener *l,
	     const struct rte_ipv4_hdr *h, uint16_t lport, uint16_t rport, struct tcp_seg *s)
{
	struct net_tcp_conn *c;

	if (s->flags & RTE_TCP_RST_FLAG) {
		return;
	}
	if ((s->flags & RTE_TCP_ACK_FLAG) || !(s->flags & RTE_TCP_SYN_FLAG)) {
		send_rst_for(t, lcore, h, lport, rport, s);
		return;
	}
	c = conn_new(t, lcore, h->dst_addr, h->src_addr, lport, rport);
	if (c == NULL) {
		return; /* the peer's SYN retransmission tries again */
	}
	c->state = TCPS_LISTEN;
	c->listen_port = l->port;
	c->cb = l->cb;
	c->arg = l->arg;
	negotiate(c, &s->opts);
	c->irs = s->seq;
	c->rcv_nxt = s->seq + 1;
	c->rcv_adv = c->rcv_nxt;
	c->snd_wnd = s->win; /* a SYN's window is never scaled */
	set_state(c, TCPE_RCV_SYN);
	conn_xmit(c, c->iss, 0, RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG);
	c->snd_nxt = c->snd_max = c->iss + 1;
	rto_arm(c);
}

static void
established(struct net_tcp_conn *c)
{
	TCP_STAT_ADD(&c->t->lc[c->lcore].stats, opened, 1);
	c->nretx = 0;
	if (c->listen_port != 0) {
		c->listen_port = 0;
		conn_event(c, NET_TCP_EV_ACCEPT, 0);
	} else {
		conn_event(c, NET_TCP_EV_CONNECTED, 0);
	}
}

static void
syn_sent_input(struct net_tcp_conn *c, struct tcp_seg *s, const struct rte_ipv4_hdr *h)
{
	bool ack = (s->flags & RTE_TCP_ACK_FLAG) != 0;

	if (ack && s->ack != c->iss + 1) {
		send_rst_for(c->t, c->lcore, h, c->lport, c->rport, s);
		return;
	}
	if (s->flags & RTE_TCP_RST_FLAG) {
		if (ack) {
			TCP_STAT_ADD(&c->t->lc[c->lcore].stats, rst_rx, 1);
			apply(c, TCPE_RST, ECONNREFUSED);
		}
		return;
	}
	if (!(s->flags & RTE_TCP_SYN_FLAG)) {
		return;
	}
	negotiate(c, &s->opts);
	c->irs = s->seq;
	c->rcv_nxt = s->seq + 1;
	c->rcv_adv = c->rcv_nxt;
	if (!ack) {
		/* Simultaneous open: our SYN again, with the ACK. */
		c->snd_wnd = s->win;
		set_state(c, TCPE_RCV_SYN);
		conn_xmit(c, c->iss, 0, RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG);
		return;
	}
	c->snd_una = c->iss + 1;
	c->snd_wnd = s->win;
	c->snd_wl1 = s->seq;
	c->snd_wl2 = s->ack;
	if (c->nretx == 0) {
		rtt_sample(c, now_us(c->t) - c->rtt_start_us);
	}
	rt_timer_cancel(&c->timer);
	set_state(c, TCPE_RCV_SYNACK);
	send_ack_now(c);
	established(c);
	if (c->state == TCPS_ESTABLISHED) {
		tcp_output(c);
	}
}

/* RFC 9293 3.10.7.4 first check: does the segment overlap the receive window? */
static bool
seq_acceptable(const struct net_tcp_conn *c, const struct tcp_seg *s)
{
	uint32_t wnd = c->rcv_adv - c->rcv_nxt;
	uint32_t slen = s->len + ((s->flags & RTE_TCP_SYN_FLAG) ? 1 : 0) +
			((s->flags & RTE_TCP_FIN_FLAG) ? 1 : 0);

	if (slen == 0) {
		return wnd == 0 ? s->seq == c->rcv_nxt :
				  SEQ_GEQ(s->seq, c->rcv_nxt) && SEQ_LT(s->seq, c->rcv_nxt + wnd);
	}
	if (wnd == 0) {
		return false;
	}
	return (SEQ_GEQ(s->seq, c->rcv_nxt) && SEQ_LT(s->seq, c->rcv_nxt + wnd)) ||
	       (SEQ_GEQ(s->seq + slen - 1, c->rcv_nxt) &&
		SEQ_LT(s->seq + slen - 1, c->rcv_nxt + wnd));
}

static bool
fin_acked(const struct net_tcp_conn *c)
{
	return c->fin_queued && c->snd_una == data_end(c) + 1;
}

/* Send the first unacknowledged segment again (fast retransmit, a NewReno partial ACK). */
static void
retransmit_una(struct net_tcp_conn *c)
{
	uint32_t end = data_end(c), len = 0;
	uint8_t flags = RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG;

	if (SEQ_LT(c->snd_una, end)) {
		len = RTE_MIN(end - c->snd_una, (uint32_t)c->mss_snd);
	}
	if (c->fin_queued && c->snd_una + len == end && SEQ_GT(c->snd_max, end)) {
		flags |= RTE_TCP_FIN_FLAG; /* the FIN went with it, or alone after it */
	}
	/* Karn: what is sent again gives no RTT sample. */
	c->rtt_timing = false;
	if (conn_xmit(c, c->snd_una, len, flags) == 0) {
		c->retransmits++;
		TCP_STAT_ADD(&c->t->lc[c->lcore].stats, retransmits, 1);
	}
}

/*
 * RFC 5681 3.2 duplicate ACK: it acknowledges nothing new while data is
 * outstanding, carries no data, SYN or FIN, and leaves the window as it was.
 */
static bool
is_dupack(const struct net_tcp_conn *c, const struct tcp_seg *s)
{
	return s->ack == c->snd_una && c->snd_una != c->snd_max && s->len == 0 &&
	       !(s->flags & (RTE_TCP_SYN_FLAG | RTE_TCP_FIN_FLAG)) &&
	       ((uint32_t)s->win << (c->snd_ws > 0 ? c->snd_ws : 0)) == c->snd_wnd;
}

/* RFC 5681 3.2 / RFC 6582 3.2 steps 2-4, on a duplicate ACK. */
static void
dupack_input(struct net_tcp_conn *c, const struct tcp_seg *s)
{
	struct net_tcp_stats *st = &c->t->lc[c->lcore].stats;

	c->dupacks++;
	TCP_STAT_ADD(st, dupacks, 1);
	if (c->in_recovery) {
		c->cwnd += c->mss_snd; /* a segment left the network */
		return;
	}
	if (c->dupacks != TCP_DUPACK_THRESH || !SEQ_GT(s->ack, c->recover)) {
		return; /* limited transmit, if anything (tcp_output) */
	}
	c->ssthresh = RTE_MAX((c->snd_max - c->snd_una) / 2, 2u * c->mss_snd);
	c->recover = c->snd_max;
	c->in_recovery = true;
	TCP_STAT_ADD(st, fast_retransmits, 1);
	retransmit_una(c);
	c->cwnd = c->ssthresh + TCP_DUPACK_THRESH * c->mss_snd;
}

/*
 * RFC 6582 3.2 steps 5-6, on an ACK of new data during recovery: a full ACK
 * ends it; a partial one sends the next hole and deflates cwnd by what it
 * acknowledged (plus one segment back when that was a segment or more).
 */
static void
recovery_ack(struct net_tcp_conn *c, uint32_t acked)
{
	if (SEQ_GEQ(c->snd_una, c->recover)) {
		uint32_t flight = RTE_MAX(c->snd_max - c->snd_una, (uint32_t)c->mss_snd);

		c->in_recovery = false;
		c->cwnd = RTE_MIN(c->ssthresh, flight + c->mss_snd);
		return;
	}
	retransmit_una(c);
	c->cwnd = c->cwnd > acked ? c->cwnd - acked : 0;
	if (acked >= c->mss_snd) {
		c->cwnd += c->mss_snd;
	}
	c->cwnd = RTE_MAX(c->cwnd, (uint32_t)c->mss_snd);
}

/*
 * The ACK RFC 9293 asks for an unacceptable segment (out of the window, or
 * acknowledging what was never sent). Two ends whose sequence numbers
 * disagree (a spoofed or stale segment moved one of them) would otherwise
 * answer each other's such ACKs forever; as Linux, one a connection each
 * 500 ms for bare segments (segments with data are not part of such a loop).
 */
static void
send_oow_ack(struct net_tcp_conn *c, const struct tcp_seg *s)
{
	uint64_t now = now_us(c->t);

	if (s->len == 0 && !(s->flags & RTE_TCP_SYN_FLAG)) {
		if (now < c->oow_ack_next_us) {
			TCP_STAT_ADD(&c->t->lc[c->lcore].stats, oow_ack_limited, 1);
			return;
		}
		c->oow_ack_next_us = now + TCP_OOW_ACK_GAP_US;
	}
	send_ack_now(c);
}

/* The ACK field: RFC 9293 3.10.7.4 fifth check. @return false to drop the segment. */
static bool
ack_input(struct net_tcp_conn *c, const struct tcp_seg *s)
{
	uint32_t acked, data_acked;

	if (SEQ_GT(s->ack, c->snd_max)) {
		send_oow_ack(c, s);
		return false;
	}
	if (c->state == TCPS_SYN_RCVD) {
		if (SEQ_LEQ(s->ack, c->snd_una)) {
			return false;
		}
		c->snd_una = c->iss + 1;
		c->snd_wl1 = s->seq;
		c->snd_wl2 = s->ack;
		c->snd_wnd = (uint32_t)s->win << (c->snd_ws > 0 ? c->snd_ws : 0);
		rt_timer_cancel(&c->timer);
		set_state(c, TCPE_RCV_ACK_SYN);
		established(c);
	}
	if (SEQ_GT(s->ack, c->snd_una)) {
		acked = s->ack - c->snd_una;
		c->snd_una = s->ack;
		if (SEQ_LT(c->snd_nxt, c->snd_una)) {
			c->snd_nxt = c->snd_una;
		}
		/* Of what was acknowledged, the bytes of the send buffer (not SYN or FIN). */
		if (SEQ_GT(c->snd_una, data_end(c))) {
			data_acked = c->sbuf_len;
		} else {
			data_acked = SEQ_GT(c->snd_una, c->sbuf_seq) ? c->snd_una - c->sbuf_seq : 0;
		}
		c->sbuf_head = (c->sbuf_head + data_acked) % c->sbuf_size;
		c->sbuf_len -= data_acked;
		c->sbuf_seq += data_acked;
		if (c->rtt_timing && SEQ_GT(s->ack, c->rtt_seq)) {
			c->rtt_timing = false;
			rtt_sample(c, now_us(c->t) - c->rtt_start_us);
		}
		c->nretx = 0;
		c->dupacks = 0;
		/* RFC 5681 slow start and congestion avoidance; NewReno while recovering. */
		if (c->in_recovery) {
			recovery_ack(c, acked);
		} else if (c->cwnd < c->ssthresh) {
			c->cwnd += RTE_MIN(acked, (uint32_t)c->mss_snd);
		} else {
			c->cwnd += RTE_MAX(1u, (uint32_t)c->mss_snd * c->mss_snd / c->cwnd);
		}
		rt_timer_cancel(&c->timer);
		if (c->snd_una != c->snd_max) {
			rto_arm(c);
		}
		if (data_acked > 0) {
			conn_event(c, NET_TCP_EV_ACKED, data_acked);
		}
	} else if (is_dupack(c, s)) {
		dupack_input(c, s);
	}
	if (SEQ_LT(c->snd_wl1, s->seq) || (c->snd_wl1 == s->seq && SEQ_LEQ(c->snd_wl2, s->ack))) {
		c->snd_wnd = (uint32_t)s->win << (c->snd_ws > 0 ? c->snd_ws : 0);
		c->snd_wl1 = s->seq;
		c->snd_wl2 = s->ack;
	}
	if (fin_acked(c)) {
		switch (c->state) {
		case TCPS_FIN_WAIT_1:
		case TCPS_CLOSING:
		case TCPS_LAST_ACK:
			apply(c, TCPE_ACK_FIN, 0);
			return c->state != TCPS_CLOSED; /* freeing waits for busy */
		default:
			break;
		}
	}
	return true;
}

static void
rq_push(struct net_tcp_conn *c, struct rte_mbuf *m, uint32_t len)
{
	c->rq[(c->rq_head + c->rq_n) & (TCP_RQ_SLOTS - 1)] = m;
	c->rq_n++;
	c->rcv_queued += len;
	c->rcv_nxt += len;
}

/* Segments kept out of order that now follow rcv_nxt. @return whether a FIN came in order. */
static bool
ooo_drain(struct net_tcp_conn *c)
{
	bool fin = false;

	while (c->ooo_n > 0 && SEQ_LEQ(c->ooo[0].seq, c->rcv_nxt)) {
		struct tcp_ooo o = c->ooo[0];
		uint32_t skip = c->rcv_nxt - o.seq;

		memmove(&c->ooo[0], &c->ooo[1], (c->ooo_n - 1) * sizeof(o));
		c->ooo_n--;
		if (skip >= o.len) {
			rte_pktmbuf_free(o.m);
			fin = fin || (o.fin && skip == o.len);
			continue;
		}
		if (c->rq_n >= TCP_RQ_SLOTS) {
			rte_pktmbuf_free(o.m); /* the peer sends it again */
			break;
		}
		rte_pktmbuf_adj(o.m, (uint16_t)skip);
		rq_push(c, o.m, o.len - skip);
		if (o.fin) {
			fin = true;
			break;
		}
	}
	return fin;
}

/* Keep a segment past rcv_nxt, in sequence order; bounded. */
static void
ooo_insert(struct net_tcp_conn *c, struct rte_mbuf *m, uint32_t seq, uint32_t len, bool fin)
{
	struct net_tcp_stats *st = &c->t->lc[c->lcore].stats;
	uint16_t i = 0;

	while (i < c->ooo_n && SEQ_LT(c->ooo[i].seq, seq)) {
		i++;
	}
	if (c->ooo_n >= c->t->conf.ooo_max || (i < c->ooo_n && c->ooo[i].seq == seq)) {
		TCP_STAT_ADD(st, ooo_drop, 1);
		rte_pktmbuf_free(m);
		return;
	}
	memmove(&c->ooo[i + 1], &c->ooo[i], (c->ooo_n - i) * sizeof(c->ooo[0]));
	c->ooo[i] = (struct tcp_ooo){ .seq = seq, .len = len, .fin = fin, .m = m };
	c->ooo_n++;
	TCP_STAT_ADD(st, ooo, 1);
}

/* Payload and FIN (RFC 9293 3.10.7.4 seventh and eighth checks). Takes s->m. */
static void
data_input(struct net_tcp_conn *c, struct tcp_seg *s)
{
	bool fin = (s->flags & RTE_TCP_FIN_FLAG) != 0;
	bool can_rcv = c->state == TCPS_ESTABLISHED || c->state == TCPS_FIN_WAIT_1 ||
		       c->state == TCPS_FIN_WAIT_2;
	uint32_t seq = s->seq, len = s->len;
	bool readable = false;

	if (!can_rcv || (len == 0 && !fin)) {
		rte_pktmbuf_free(s->m);
		return;
	}
	/* Past the advertised right edge: cut (and the FIN with it). */
	if (SEQ_GT(seq + len, c->rcv_adv)) {
		uint32_t over = seq + len - c->rcv_adv;

		len = over >= len ? 0 : len - over;
		rte_pktmbuf_trim(s->m, (uint16_t)RTE_MIN(over, (uint32_t)s->len));
		fin = false;
	}
	if (len == 0 && !fin) {
		rte_pktmbuf_free(s->m);
		send_ack_now(c);
		return;
	}
	if (SEQ_GT(seq, c->rcv_nxt)) {
		ooo_insert(c, s->m, seq, len, fin);
		send_ack_now(c); /* a duplicate ACK tells the sender at once */
		return;
	}
	if (SEQ_LT(seq, c->rcv_nxt)) {
		uint32_t skip = c->rcv_nxt - seq;

		if (skip > len || (skip == len && !fin)) {
			rte_pktmbuf_free(s->m);
			send_ack_now(c);
			return;
		}
		rte_pktmbuf_adj(s->m, (uint16_t)skip);
		len -= skip;
	}
	if (len > 0 && c->rq_n < TCP_RQ_SLOTS) {
		rq_push(c, s->m, len);
		readable = true;
	} else {
		rte_pktmbuf_free(s->m);
		if (len > 0) {
			fin = false; /* not taken: neither is what follows */
		}
	}
	if (c->ooo_n > 0 && !fin) {
		uint32_t before = c->rcv_nxt;

		fin = ooo_drain(c);
		readable = readable || c->rcv_nxt != before;
	}
	if (fin) {
		c->rcv_nxt++;
		c->fin_rcvd = true;
		readable = true;
		send_ack_now(c);
		apply(c, TCPE_RCV_FIN, 0);
	} else {
		send_ack_later(c);
	}
	if (readable && c->state != TCPS_CLOSED) {
		conn_event(c, NET_TCP_EV_READABLE, c->rcv_queued);
	}
}

static void
conn_input_locked(struct net_tcp_conn *c, struct tcp_seg *s, const struct rte_ipv4_hdr *h)
{
	struct net_tcp_stats *st = &c->t->lc[c->lcore].stats;

	if (c->state == TCPS_SYN_SENT) {
		syn_sent_input(c, s, h);
		rte_pktmbuf_free(s->m);
		return;
	}
	if (c->ts_ok && s->opts.ts && SEQ_LEQ(s->seq, c->rcv_nxt)) {
		c->ts_recent = s->opts.tsval;
	}
	if (c->state == TCPS_TIME_WAIT) {
		/* A retransmitted FIN: ACK it again and restart 2MSL. */
		if ((s->flags & RTE_TCP_FIN_FLAG) && !(s->flags & RTE_TCP_RST_FLAG)) {
			send_ack_now(c);
			rt_timer_arm(&c->timer, c->t->conf.time_wait_us);
		}
		rte_pktmbuf_free(s->m);
		return;
	}
	if (!seq_acceptable(c, s)) {
		if (!(s->flags & RTE_TCP_RST_FLAG)) {
			send_oow_ack(c, s);
		}
		rte_pktmbuf_free(s->m);
		return;
	}
	if (s->flags & RTE_TCP_RST_FLAG) {
		rte_pktmbuf_free(s->m);
		if (s->seq != c->rcv_nxt) {
			challenge_ack(c); /* RFC 5961 3.2: in window, not exact */
			return;
		}
		TCP_STAT_ADD(st, rst_rx, 1);
		apply(c, TCPE_RST, c->state == TCPS_SYN_RCVD ? ECONNREFUSED : ECONNRESET);
		return;
	}
	if (s->flags & RTE_TCP_SYN_FLAG) {
		/* RFC 5961 4.2: a SYN in a synchronized state gets a challenge ACK. */
		rte_pktmbuf_free(s->m);
		challenge_ack(c);
		return;
	}
	if (!(s->flags & RTE_TCP_ACK_FLAG)) {
		rte_pktmbuf_free(s->m);
		return;
	}
	if (!ack_input(c, s)) {
		rte_pktmbuf_free(s->m);
		return;
	}
	data_input(c, s);
	if (c->state != TCPS_CLOSED && c->state != TCPS_TIME_WAIT) {
		tcp_output(c);
	}
}

static void
conn_input(struct net_tcp_conn *c, struct tcp_seg *s, const struct rte_ipv4_hdr *h)
{
	/* Any segment shows the peer alive (Linux counts every one too). */
	c->last_rx_us = now_us(c->t);
	c->ka_probes = 0;
	c->busy++;
	conn_input_locked(c, s, h);
	c->busy--;
	conn_maybe_free(c);
}

static bool
tcp_parse(struct rte_mbuf *m, const struct rte_ipv4_hdr *h, struct tcp_seg *s, uint16_t *sport,
	  uint16_t *dport)
{
	const struct rte_tcp_hdr *th = rte_pktmbuf_mtod(m, const struct rte_tcp_hdr *);
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint32_t hlen;

	if (rte_pktmbuf_data_len(m) < TCP_HDR_LEN || len != rte_pktmbuf_data_len(m)) {
		return false; /* one segment mbufs only in this slice */
	}
	hlen = (uint32_t)(th->data_off >> 4) * 4;
	if (hlen < TCP_HDR_LEN || hlen > len) {
		return false;
	}
	if ((m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) != RTE_MBUF_F_RX_L4_CKSUM_GOOD) {
		struct rte_ipv4_hdr ph = *h;

		ph.version_ihl = RTE_IPV4_VHL_DEF;
		ph.total_length = rte_cpu_to_be_16((uint16_t)(sizeof(ph) + len));
		if (!cksum_ok(&ph, th)) {
			return false;
		}
	}
	if (!net_tcp_parse_opts((const uint8_t *)(th + 1), hlen - TCP_HDR_LEN, &s->opts)) {
		return false;
	}
	*sport = rte_be_to_cpu_16(th->src_port);
	*dport = rte_be_to_cpu_16(th->dst_port);
	s->seq = rte_be_to_cpu_32(th->sent_seq);
	s->ack = rte_be_to_cpu_32(th->recv_ack);
	s->flags = th->tcp_flags;
	s->win = rte_be_to_cpu_16(th->rx_win);
	rte_pktmbuf_adj(m, (uint16_t)hlen);
	s->len = rte_pktmbuf_pkt_len(m);
	s->m = m;
	return true;
}

/* net_ip's protocol 6 input. */
static void
tcp_input(void *arg, struct net_ip *ip, unsigned int lcore, struct rte_mbuf *m,
	  const struct rte_ipv4_hdr *h)
{
	struct net_tcp *t = arg;
	struct tcp_lcore *lc = &t->lc[lcore];
	struct tcp_seg s;
	uint16_t sport, dport;
	struct net_tcp_conn *c;
	struct tcp_listener *l;

	RTE_SET_USED(ip);
	TCP_STAT_ADD(&lc->stats, rx, 1);
	if (!tcp_parse(m, h, &s, &sport, &dport)) {
		TCP_STAT_ADD(&lc->stats, rx_bad, 1);
		rte_pktmbuf_free(m);
		return;
	}
	c = conn_lookup(lc, h->dst_addr, h->src_addr, dport, sport);
	if (c != NULL) {
		conn_input(c, &s, h);
		return;
	}
	l = listener_lookup(lc, dport);
	if (l != NULL) {
		listen_input(t, lcore, l, h, dport, sport, &s);
	} else {
		TCP_STAT_ADD(&lc->stats, rx_no_conn, 1);
		send_rst_for(t, lcore, h, dport, sport, &s);
	}
	rte_pktmbuf_free(m);
}

/* net_ip's ICMP errors for protocol 6: fatal ones end a handshake (RFC 5461). */
static void
tcp_icmp_err(void *arg, struct net_ip *ip, unsigned int lcore, const struct net_icmp_err *e)
{
	struct net_tcp *t = arg;
	struct net_tcp_conn *c;
	uint16_t sport, dport;
	uint32_t seq;

	RTE_SET_USED(ip);
	if (e->l4_len < 8 || e->type != 3) {
		return;
	}
	sport = (uint16_t)(e->l4[0] << 8 | e->l4[1]);
	dport = (uint16_t)(e->l4[2] << 8 | e->l4[3]);
	memcpy(&seq, &e->l4[4], 4);
	seq = rte_be_to_cpu_32(seq);
	c = conn_lookup(&t->lc[lcore], e->src, e->dst, sport, dport);
	if (c == NULL || c->state != TCPS_SYN_SENT || seq != c->iss) {
		return;
	}
	c->busy++;
	apply(c, TCPE_RST, e->code == 3 ? ECONNREFUSED : EHOSTUNREACH);
	c->busy--;
	conn_maybe_free(c);
}

/* End of the lcore's poll: one ACK per connection for all the segments it took. */
static int
tcp_poll(void *arg)
{
	struct tcp_lcore *lc = arg;
	struct net_tcp_conn *c;
	int n = 0;

	while ((c = TAILQ_FIRST(&lc->ackq)) != NULL) {
		ack_dequeue(c);
		send_ack_now(c);
		n++;
	}
	return n > 0 ? RT_POLLER_BUSY : RT_POLLER_IDLE;
}

/* ---- the API ---- */

static unsigned int
tcp_flow_owner(void *arg, const struct net_port *port, const struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *h;
	const uint16_t *ports;

	RTE_SET_USED(arg);
	RTE_SET_USED(port);
	if (rte_pktmbuf_data_len(m) < m->l2_len + sizeof(*h) + 4) {
		return 0;
	}
	h = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, m->l2_len);
	if ((h->version_ihl >> 4) != 4 || h->next_proto_id != IPPROTO_TCP ||
	    rte_pktmbuf_data_len(m) < m->l2_len + rte_ipv4_hdr_len(h) + 4) {
		return 0;
	}
	ports = (const uint16_t *)((const uint8_t *)h + rte_ipv4_hdr_len(h));
	return flow_hash(h->src_addr, h->dst_addr, rte_be_to_cpu_16(ports[0]),
			 rte_be_to_cpu_16(ports[1]));
}

struct poller_req {
	struct net_tcp *t;
	unsigned int lcore;
};

static int
poller_add_on_lcore(void *arg)
{
	struct poller_req *r = arg;
	struct tcp_lcore *lc = &r->t->lc[r->lcore];

	lc->poller =
		rt_poller_register(rt_data_lcore(r->t->rt, r->lcore), tcp_poll, lc, 0, "net_tcp");
	return lc->poller != NULL ? 0 : -ENOMEM;
}

/* On the lcore: its timers are in that lcore's heap. */
static int
lcore_teardown(void *arg)
{
	struct poller_req *r = arg;
	struct tcp_lcore *lc = &r->t->lc[r->lcore];
	struct tcp_listener *l;
	struct net_tcp_conn *c;

	if (lc->poller != NULL) {
		rt_poller_unregister(&lc->poller);
	}
	/* Connections alive, and closed ones their user never released. */
	while ((c = LIST_FIRST(&lc->all)) != NULL) {
		if (c->in_table) {
			LIST_REMOVE(c, hnext);
		}
		rt_timer_cancel(&c->timer);
		rt_timer_cancel(&c->ka_timer);
		conn_free(c);
	}
	while ((l = LIST_FIRST(&lc->listeners)) != NULL) {
		LIST_REMOVE(l, next);
		free(l);
	}
	return 0;
}

static void
conf_defaults(struct net_tcp_conf *c)
{
	c->rcv_buf = c->rcv_buf != 0 ? c->rcv_buf : 256 * 1024;
	c->snd_buf = c->snd_buf != 0 ? c->snd_buf : 256 * 1024;
	c->time_wait_us = c->time_wait_us != 0 ? c->time_wait_us : 60ULL * 1000 * 1000;
	c->rto_min_us = c->rto_min_us != 0 ? c->rto_min_us : 200 * 1000;
	c->rto_init_us = c->rto_init_us != 0 ? c->rto_init_us : 1000 * 1000;
	c->syn_retries = c->syn_retries != 0 ? c->syn_retries : 6;
	c->retries = c->retries != 0 ? c->retries : 15;
	c->ooo_max = c->ooo_max != 0 ? c->ooo_max : 64;
}

int
net_tcp_create(struct net_neigh *nb, struct net_ip *ip, const struct net_tcp_conf *conf,
	       struct net_tcp **out)
{
	struct net_tcp *t;
	unsigned int i;
	int rc;

	if (nb == NULL || ip == NULL || conf == NULL || out == NULL ||
	    conf->conf_size != sizeof(*conf)) {
		return -EINVAL;
	}
	t = calloc(1, sizeof(*t));
	if (t == NULL) {
		return -ENOMEM;
	}
	t->conf = *conf;
	conf_defaults(&t->conf);
	t->nb = nb;
	t->ip = ip;
	t->port = net_neigh_port(nb);
	t->rt = net_port_runtime(t->port);
	t->n_lcores = rt_data_lcore_count(t->rt);
	for (i = 0; i < RTE_DIM(t->secret); i++) {
		t->secret[i] = (uint32_t)rte_rand();
	}
	t->lc = calloc(t->n_lcores, sizeof(*t->lc));
	if (t->lc == NULL) {
		free(t);
		return -ENOMEM;
	}
	for (i = 0; i < t->n_lcores; i++) {
		struct poller_req r = { t, i };

		TAILQ_INIT(&t->lc[i].ackq);
		rc = rt_lcore_call(rt_data_lcore(t->rt, i), poller_add_on_lcore, &r);
		if (rc != 0) {
			net_tcp_destroy(t);
			return rc;
		}
	}
	rc = net_ip_register(ip, IPPROTO_TCP, tcp_input, tcp_icmp_err, t);
	if (rc != 0) {
		net_tcp_destroy(t);
		return rc;
	}
	net_port_set_owner_fn(t->port, tcp_flow_owner, t);
	*out = t;
	return 0;
}

void
net_tcp_destroy(struct net_tcp *t)
{
	unsigned int i;

	if (t == NULL) {
		return;
	}
	for (i = 0; t->lc != NULL && i < t->n_lcores; i++) {
		struct poller_req r = { t, i };

		rt_lcore_call(rt_data_lcore(t->rt, i), lcore_teardown, &r);
	}
	free(t->lc);
	free(t);
}

int
net_tcp_listen(struct net_tcp *t, unsigned int lcore, uint16_t port, net_tcp_cb cb, void *arg)
{
	struct tcp_lcore *lc = &t->lc[lcore];
	struct tcp_listener *l;

	if (listener_lookup(lc, port) != NULL) {
		return -EADDRINUSE;
	}
	l = calloc(1, sizeof(*l));
	if (l == NULL) {
		return -ENOMEM;
	}
	l->port = port;
	l->cb = cb;
	l->arg = arg;
	LIST_INSERT_HEAD(&lc->listeners, l, next);
	return 0;
}

void
net_tcp_unlisten(struct net_tcp *t, unsigned int lcore, uint16_t port)
{
	struct tcp_listener *l = listener_lookup(&t->lc[lcore], port);

	if (l != NULL) {
		LIST_REMOVE(l, next);
		free(l);
	}
}

/* A source port whose flow the steering hook gives to @p lcore and that is free. */
static int
pick_sport(struct net_tcp *t, unsigned int lcore, uint32_t laddr, uint32_t raddr, uint16_t dport,
	   uint16_t lo, uint16_t hi)
{
	unsigned int n = net_port_info(t->port)->n_lcores;
	int p;

	for (p = hi; p >= lo && p > 0; p--) {
		if (n > 1 && flow_hash(raddr, laddr, dport, (uint16_t)p) % n != lcore) {
			continue;
		}
		if (conn_lookup(&t->lc[lcore], laddr, raddr, (uint16_t)p, dport) == NULL &&
		    listener_lookup(&t->lc[lcore], (uint16_t)p) == NULL) {
			return p;
		}
	}
	return -EADDRNOTAVAIL;
}

int
net_tcp_connect(struct net_tcp *t, unsigned int lcore, uint32_t dst, uint16_t dport,
		uint16_t sport_lo, uint16_t sport_hi, net_tcp_cb cb, void *arg,
		struct net_tcp_conn **out)
{
	struct net_tcp_conn *c;
	uint32_t laddr;
	bool onlink;
	int sport;

	if (!net_neigh_src_for(t->nb, dst, &laddr, &onlink)) {
		return -EHOSTUNREACH;
	}
	sport = pick_sport(t, lcore, laddr, dst, dport, sport_lo, sport_hi);
	if (sport < 0) {
		return sport;
	}
	c = conn_new(t, lcore, laddr, dst, (uint16_t)sport, dport);
	if (c == NULL) {
		return -ENOMEM;
	}
	c->cb = cb;
	c->arg = arg;
	c->rcv_ws = t->conf.no_wscale ? -1 : our_wscale(t);
	set_state(c, TCPE_CONNECT);
	c->rtt_start_us = now_us(t);
	conn_xmit(c, c->iss, 0, RTE_TCP_SYN_FLAG);
	c->snd_nxt = c->snd_max = c->iss + 1;
	rto_arm(c);
	*out = c;
	return 0;
}

void
net_tcp_set_cb(struct net_tcp_conn *c, net_tcp_cb cb, void *arg)
{
	c->cb = cb;
	c->arg = arg;
}

long
net_tcp_send(struct net_tcp_conn *c, const void *buf, size_t len)
{
	uint32_t room, n, at, first;

	if (c->err != 0) {
		return -c->err;
	}
	if (c->fin_queued) {
		return -EPIPE;
	}
	if (c->state != TCPS_ESTABLISHED && c->state != TCPS_CLOSE_WAIT) {
		return -ENOTCONN;
	}
	room = c->sbuf_size - c->sbuf_len;
	n = (uint32_t)RTE_MIN(len, (size_t)room);
	at = (c->sbuf_head + c->sbuf_len) % c->sbuf_size;
	first = RTE_MIN(n, c->sbuf_size - at);
	memcpy(c->sbuf + at, buf, first);
	memcpy(c->sbuf, (const uint8_t *)buf + first, n - first);
	c->sbuf_len += n;
	tcp_output(c);
	return n;
}

int
net_tcp_peek(struct net_tcp_conn *c, struct net_tcp_view *v)
{
	struct rte_mbuf *m;

	if (c->rq_n == 0) {
		if (c->err != 0) {
			return -c->err;
		}
		return c->fin_rcvd ? -ENODATA : 0;
	}
	m = c->rq[c->rq_head];
	v->data = rte_pktmbuf_mtod_offset(m, const uint8_t *, c->rq_off);
	v->len = rte_pktmbuf_data_len(m) - c->rq_off;
	return 1;
}

void
net_tcp_consume(struct net_tcp_conn *c, size_t n)
{
	uint32_t before = rcv_wnd(c);

	while (n > 0 && c->rq_n > 0) {
		struct rte_mbuf *m = c->rq[c->rq_head];
		size_t left = rte_pktmbuf_data_len(m) - c->rq_off;
		size_t take = RTE_MIN(n, left);

		c->rq_off += (uint32_t)take;
		c->rcv_queued -= (uint32_t)take;
		n -= take;
		if (take == left) {
			rte_pktmbuf_free(m);
			c->rq_head = (c->rq_head + 1) & (TCP_RQ_SLOTS - 1);
			c->rq_n--;
			c->rq_off = 0;
		}
	}
	/* A window that opens by a segment or more is told at once (RFC 9293 3.8.6.2.2). */
	if (c->state != TCPS_CLOSED && rcv_wnd(c) - before >= c->mss_snd &&
	    c->rcv_adv - c->rcv_nxt < c->t->conf.rcv_buf / 2) {
		send_ack_later(c);
	}
}

size_t
net_tcp_readable(const struct net_tcp_conn *c)
{
	return c->rcv_queued;
}

void
net_tcp_close(struct net_tcp_conn *c)
{
	c->released = true;
	switch (c->state) {
	case TCPS_CLOSED:
		conn_maybe_free(c);
		return;
	case TCPS_SYN_SENT:
	case TCPS_LISTEN:
		apply(c, TCPE_CLOSE, 0);
		return;
	case TCPS_SYN_RCVD:
	case TCPS_ESTABLISHED:
	case TCPS_CLOSE_WAIT:
		c->fin_queued = true;
		set_state(c, TCPE_CLOSE);
		tcp_output(c);
		return;
	default:
		return; /* closing already */
	}
}

void
net_tcp_abort(struct net_tcp_conn *c)
{
	c->released = true;
	if (c->state == TCPS_CLOSED) {
		conn_maybe_free(c);
		return;
	}
	if (c->state != TCPS_SYN_SENT && c->state != TCPS_LISTEN && c->state != TCPS_TIME_WAIT) {
		if (tcp_xmit_raw(c->t, c->lcore, c->laddr, c->raddr, c->lport, c->rport, c->snd_nxt,
				 0, RTE_TCP_RST_FLAG, 0, NULL, 0, NULL, 0) == 0) {
			TCP_STAT_ADD(&c->t->lc[c->lcore].stats, rst_tx, 1);
		}
	}
	apply(c, TCPE_ABORT, ECONNABORTED);
}

int
net_tcp_set_keepalive(struct net_tcp_conn *c, uint32_t idle_s, uint32_t intvl_s, uint32_t cnt)
{
	if (c->state == TCPS_CLOSED) {
		return -ENOTCONN;
	}
	if (idle_s == 0) {
		c->ka_idle_us = 0;
		rt_timer_cancel(&c->ka_timer);
		return 0;
	}
	if (intvl_s == 0 || cnt == 0) {
		return -EINVAL;
	}
	c->ka_idle_us = (uint64_t)idle_s * 1000000;
	c->ka_intvl_us = (uint64_t)intvl_s * 1000000;
	c->ka_cnt = cnt;
	c->ka_probes = 0;
	/* The expiry measures the quiet from last_rx_us, so arming from now is safe. */
	rt_timer_arm(&c->ka_timer, c->ka_idle_us);
	return 0;
}

void
net_tcp_get_info(const struct net_tcp_conn *c, struct net_tcp_info *out)
{
	memset(out, 0, sizeof(*out));
	out->laddr = c->laddr;
	out->raddr = c->raddr;
	out->lport = c->lport;
	out->rport = c->rport;
	out->mss = c->mss_peer;
	out->snd_wscale = c->snd_ws;
	out->rcv_wscale = c->rcv_ws;
	out->sack_ok = c->sack_ok;
	out->ts_ok = c->ts_ok;
	out->state = tcp_state_names[c->state];
	out->srtt_us = c->srtt_us;
	out->rto_us = c->rto_us;
	out->retransmits = c->retransmits;
	out->snd_nxt = c->snd_nxt;
	out->rcv_nxt = c->rcv_nxt;
}

const char *
net_tcp_state_name(const struct net_tcp_conn *c)
{
	return tcp_state_names[c->state];
}

void
net_tcp_lcore_stats(const struct net_tcp *t, unsigned int lcore, struct net_tcp_stats *out)
{
	*out = t->lc[lcore].stats;
}

void
net_tcp_stats(const struct net_tcp *t, struct net_tcp_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned int i = 0; i < t->n_lcores; i++) {
		const uint64_t *s = (const uint64_t *)&t->lc[i].stats;
		uint64_t *d = (uint64_t *)out;

		for (size_t k = 0; k < sizeof(*out) / sizeof(uint64_t); k++) {
			d[k] += __atomic_load_n(&s[k], __ATOMIC_RELAXED);
		}
	}
}

unsigned int
net_tcp_conn_count(const struct net_tcp *t, unsigned int lcore)
{
	return t->lc[lcore].n_conns;
}
