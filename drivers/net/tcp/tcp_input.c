/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Input: a segment parsed and checked, then taken by its connection (RFC 9293
 * 3.10.7) or a listener, or answered by a reset; ICMP errors.
 */
#include <errno.h>

#include <rte_ip.h>
#include <rte_mbuf.h>

#include "tcp_internal.h"

/* The sum over the pseudo-header and the segment, its checksum field included, is all ones. */
static bool
cksum_ok(const struct rte_ipv4_hdr *ph, const struct rte_tcp_hdr *th)
{
	uint32_t len = rte_be_to_cpu_16(ph->total_length) - (uint32_t)sizeof(*ph);
	uint32_t sum = rte_ipv4_phdr_cksum(ph, 0);

	sum = __rte_raw_cksum(th, len, sum);
	return __rte_raw_cksum_reduce(sum) == 0xffff;
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

static void
listen_input(struct net_tcp *t, unsigned int lcore, struct tcp_listener *l,
	     const struct rte_ipv4_hdr *h, uint16_t lport, uint16_t rport, struct tcp_seg *s)
{
	struct net_tcp_conn *c;

	if (s->flags & RTE_TCP_RST_FLAG) {
		return;
	}
	if ((s->flags & RTE_TCP_ACK_FLAG) || !(s->flags & RTE_TCP_SYN_FLAG)) {
		tcp_send_rst_for(t, lcore, h, lport, rport, s);
		return;
	}
	c = tcp_conn_new(t, lcore, h->dst_addr, h->src_addr, lport, rport);
	if (c == NULL) {
		return; /* the peer's SYN retransmission tries again */
	}
	c->state = TCPS_LISTEN;
	c->listen_port = l->port;
	c->cb = l->cb;
	c->arg = l->arg;
	tcp_negotiate(c, &s->opts);
	c->irs = s->seq;
	c->rcv_nxt = s->seq + 1;
	c->rcv_adv = c->rcv_nxt;
	c->snd_wnd = s->win; /* a SYN's window is never scaled */
	tcp_set_state(c, TCPE_RCV_SYN);
	tcp_conn_xmit(c, c->iss, 0, RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG);
	c->snd_nxt = c->snd_max = c->iss + 1;
	tcp_rto_arm(c);
}

static void
established(struct net_tcp_conn *c)
{
	TCP_STAT_ADD(&c->t->lc[c->lcore].stats, opened, 1);
	c->nretx = 0;
	if (c->listen_port != 0) {
		c->listen_port = 0;
		tcp_conn_event(c, NET_TCP_EV_ACCEPT, 0);
	} else {
		tcp_conn_event(c, NET_TCP_EV_CONNECTED, 0);
	}
}

static void
syn_sent_input(struct net_tcp_conn *c, struct tcp_seg *s, const struct rte_ipv4_hdr *h)
{
	bool ack = (s->flags & RTE_TCP_ACK_FLAG) != 0;

	if (ack && s->ack != c->iss + 1) {
		tcp_send_rst_for(c->t, c->lcore, h, c->lport, c->rport, s);
		return;
	}
	if (s->flags & RTE_TCP_RST_FLAG) {
		if (ack) {
			TCP_CONN_STAT_ADD(c, rst_rx, 1);
			tcp_apply(c, TCPE_RST, ECONNREFUSED);
		}
		return;
	}
	if (!(s->flags & RTE_TCP_SYN_FLAG)) {
		return;
	}
	tcp_negotiate(c, &s->opts);
	c->irs = s->seq;
	c->rcv_nxt = s->seq + 1;
	c->rcv_adv = c->rcv_nxt;
	if (!ack) {
		/* Simultaneous open: our SYN again, with the ACK. */
		c->snd_wnd = s->win;
		tcp_set_state(c, TCPE_RCV_SYN);
		tcp_conn_xmit(c, c->iss, 0, RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG);
		return;
	}
	c->snd_una = c->iss + 1;
	c->snd_wnd = s->win;
	c->snd_wl1 = s->seq;
	c->snd_wl2 = s->ack;
	if (c->nretx == 0) {
		tcp_rtt_sample(c, tcp_now_us(c->t) - c->rtt_start_us);
	}
	rt_timer_cancel(&c->timer);
	tcp_set_state(c, TCPE_RCV_SYNACK);
	tcp_send_ack_now(c);
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
	return c->fin_queued && c->snd_una == tcp_data_end(c) + 1;
}

/* The ACK field: RFC 9293 3.10.7.4 fifth check. @return false to drop the segment. */
static bool
ack_input(struct net_tcp_conn *c, const struct tcp_seg *s)
{
	uint32_t acked, data_acked;

	if (SEQ_GT(s->ack, c->snd_max)) {
		tcp_send_oow_ack(c, s);
		return false;
	}
	c->zwp_unanswered = 0; /* the peer is there (a probe's answer, or anything) */
	if (c->sack_ok && s->opts.nsack > 0) {
		tcp_sack_input(c, s);
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
		tcp_set_state(c, TCPE_RCV_ACK_SYN);
		established(c);
	}
	if (SEQ_GT(s->ack, c->snd_una)) {
		acked = s->ack - c->snd_una;
		c->snd_una = s->ack;
		tcp_sb_ack(&c->sb, c->snd_una);
		if (SEQ_LT(c->snd_nxt, c->snd_una)) {
			c->snd_nxt = c->snd_una;
		}
		/* Of what was acknowledged, the bytes of the send buffer (not SYN or FIN). */
		if (SEQ_GT(c->snd_una, tcp_data_end(c))) {
			data_acked = c->sbuf_len;
		} else {
			data_acked = SEQ_GT(c->snd_una, c->sbuf_seq) ? c->snd_una - c->sbuf_seq : 0;
		}
		c->sbuf_head = (c->sbuf_head + data_acked) % c->sbuf_size;
		c->sbuf_len -= data_acked;
		c->sbuf_seq += data_acked;
		if (c->rtt_timing && SEQ_GT(s->ack, c->rtt_seq)) {
			c->rtt_timing = false;
			tcp_rtt_sample(c, tcp_now_us(c->t) - c->rtt_start_us);
		}
		c->nretx = 0;
		c->dupacks = 0;
		/* RFC 5681 slow start and congestion avoidance; NewReno while recovering. */
		if (c->in_recovery) {
			tcp_recovery_ack(c, acked);
		} else {
			tcp_cc_ack(c, acked);
		}
		rt_timer_cancel(&c->timer);
		if (c->snd_una != c->snd_max) {
			tcp_rto_arm(c);
		}
		if (data_acked > 0) {
			tcp_conn_event(c, NET_TCP_EV_ACKED, data_acked);
		}
	} else if (tcp_is_dupack(c, s)) {
		tcp_dupack_input(c, s);
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
			tcp_apply(c, TCPE_ACK_FIN, 0);
			return c->state != TCPS_CLOSED; /* freeing waits for busy */
		default:
			break;
		}
	}
	return true;
}

static void
conn_input_locked(struct net_tcp_conn *c, struct tcp_seg *s, const struct rte_ipv4_hdr *h)
{
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
			tcp_send_ack_now(c);
			rt_timer_arm(&c->timer, c->t->conf.time_wait_us);
		}
		rte_pktmbuf_free(s->m);
		return;
	}
	if (!seq_acceptable(c, s)) {
		if (!(s->flags & RTE_TCP_RST_FLAG)) {
			tcp_send_oow_ack(c, s);
		}
		rte_pktmbuf_free(s->m);
		return;
	}
	if (s->flags & RTE_TCP_RST_FLAG) {
		rte_pktmbuf_free(s->m);
		if (s->seq != c->rcv_nxt) {
			tcp_challenge_ack(c); /* RFC 5961 3.2: in window, not exact */
			return;
		}
		TCP_CONN_STAT_ADD(c, rst_rx, 1);
		tcp_apply(c, TCPE_RST, c->state == TCPS_SYN_RCVD ? ECONNREFUSED : ECONNRESET);
		return;
	}
	if (s->flags & RTE_TCP_SYN_FLAG) {
		/* RFC 5961 4.2: a SYN in a synchronized state gets a challenge ACK. */
		rte_pktmbuf_free(s->m);
		tcp_challenge_ack(c);
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
	tcp_data_input(c, s);
	if (c->state != TCPS_CLOSED && c->state != TCPS_TIME_WAIT) {
		tcp_output(c);
	}
}

static void
conn_input(struct net_tcp_conn *c, struct tcp_seg *s, const struct rte_ipv4_hdr *h)
{
	/* Any segment shows the peer alive (Linux counts every one too). */
	c->last_rx_us = tcp_now_us(c->t);
	c->ka_probes = 0;
	c->busy++;
	conn_input_locked(c, s, h);
	c->busy--;
	tcp_conn_maybe_free(c);
}

/* net_ip's protocol 6 input. */
void
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
	c = tcp_conn_lookup(lc, h->dst_addr, h->src_addr, dport, sport);
	if (c != NULL) {
		conn_input(c, &s, h);
		return;
	}
	l = tcp_listener_lookup(lc, dport);
	if (l != NULL) {
		listen_input(t, lcore, l, h, dport, sport, &s);
	} else {
		TCP_STAT_ADD(&lc->stats, rx_no_conn, 1);
		tcp_send_rst_for(t, lcore, h, dport, sport, &s);
	}
	rte_pktmbuf_free(m);
}

/* net_ip's ICMP errors for protocol 6: fatal ones end a handshake (RFC 5461). */
void
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
	c = tcp_conn_lookup(&t->lc[lcore], e->src, e->dst, sport, dport);
	if (c == NULL || c->state != TCPS_SYN_SENT || seq != c->iss) {
		return;
	}
	c->busy++;
	tcp_apply(c, TCPE_RST, e->code == 3 ? ECONNREFUSED : EHOSTUNREACH);
	c->busy--;
	tcp_conn_maybe_free(c);
}
