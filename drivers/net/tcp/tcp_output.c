/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Output: segments built into mbufs from the send buffer, the send loop, ACKs
 * now or at the end of the poll, resets.
 */
#include <errno.h>
#include <string.h>

#include <rte_ip.h>
#include <rte_mbuf.h>

#include "tcp_internal.h"

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

int
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
	uint32_t w = tcp_rcv_wnd(c);
	int8_t ws = syn || c->rcv_ws < 0 ? 0 : c->rcv_ws;

	w = RTE_MIN(w >> ws, 65535u);
	/* The right edge we advertised: data up to it is accepted. */
	if (SEQ_GT(c->rcv_nxt + (w << ws), c->rcv_adv)) {
		c->rcv_adv = c->rcv_nxt + (w << ws);
	}
	return (uint16_t)w;
}

void
tcp_ack_dequeue(struct net_tcp_conn *c)
{
	if (c->ack_queued) {
		TAILQ_REMOVE(&c->t->lc[c->lcore].ackq, c, ack_next);
		c->ack_queued = false;
	}
}

/* Send one segment of the connection: data from the send buffer at @p seq. */
int
tcp_conn_xmit(struct net_tcp_conn *c, uint32_t seq, uint32_t dlen, uint8_t flags)
{
	uint8_t opts[40];
	size_t olen;
	bool syn = (flags & RTE_TCP_SYN_FLAG) != 0;

	if (syn) {
		bool synack = (flags & RTE_TCP_ACK_FLAG) != 0;
		const struct net_tcp_conf *cf = &c->t->conf;
		uint16_t mss = (uint16_t)(net_port_info(c->t->port)->mtu - 40);

		olen = tcp_syn_opts(c, opts, synack ? c->rcv_ws >= 0 : !cf->no_wscale,
				    synack ? c->sack_ok : !cf->no_sack,
				    synack ? c->ts_ok : !cf->no_timestamps, mss);
	} else {
		olen = tcp_data_opts(c, opts, dlen == 0);
	}
	if (flags & RTE_TCP_ACK_FLAG) {
		tcp_ack_dequeue(c);
	}
	return tcp_xmit_raw(c->t, c->lcore, c->laddr, c->raddr, c->lport, c->rport, seq,
			    (flags & RTE_TCP_ACK_FLAG) ? c->rcv_nxt : 0, flags, win_field(c, syn),
			    opts, olen, c, dlen);
}

/*
 * A bare ACK carries snd_max, as Linux's does (its snd_nxt never goes
 * back): after an RTO snd_nxt is back at snd_una, below what the peer has
 * received, and the peer would drop an ACK at that sequence as old without
 * reading its acknowledgement; two ends both retransmitting then never see
 * each other's ACKs.
 */
void
tcp_send_ack_now(struct net_tcp_conn *c)
{
	tcp_conn_xmit(c, c->snd_max, 0, RTE_TCP_ACK_FLAG);
}

/* Delay the ACK to the end of the lcore's poll, where one ACK covers all its segments. */
void
tcp_send_ack_later(struct net_tcp_conn *c)
{
	if (!c->ack_queued) {
		TAILQ_INSERT_TAIL(&c->t->lc[c->lcore].ackq, c, ack_next);
		c->ack_queued = true;
	}
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

/*
 * One segment from snd_nxt (new data, or after an RTO data sent before),
 * short of @p limit; the FIN with it when it ends the data.
 */
bool
tcp_send_new(struct net_tcp_conn *c, uint32_t limit)
{
	uint32_t end = tcp_data_end(c), len = RTE_MIN(end - c->snd_nxt, (uint32_t)c->mss_snd);
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
		c->rtt_start_us = tcp_now_us(c->t);
	}
	if (tcp_conn_xmit(c, c->snd_nxt, len, flags) != 0) {
		return false;
	}
	if (SEQ_LT(c->snd_nxt, c->snd_max)) {
		TCP_CONN_STAT_ADD(c, retransmits, 1);
	}
	c->snd_nxt += len + (fin ? 1 : 0);
	if (SEQ_GT(c->snd_nxt, c->snd_max)) {
		c->snd_max = c->snd_nxt;
	}
	return true;
}

/*
 * Send what the send buffer holds and the windows allow, then the FIN. In
 * SACK recovery the scoreboard decides what goes (tcp_sack_output).
 */
void
tcp_output(struct net_tcp_conn *c)
{
	uint32_t end = tcp_data_end(c), wnd = RTE_MIN(c->snd_wnd, c->cwnd + limited_transmit(c));
	uint32_t limit = c->snd_una + wnd;

	if (c->state == TCPS_SYN_SENT || c->state == TCPS_SYN_RCVD || c->state == TCPS_CLOSED ||
	    c->state == TCPS_TIME_WAIT || c->state == TCPS_LISTEN) {
		return;
	}
	if (c->in_recovery && c->sack_recovery) {
		tcp_sack_output(c, c->snd_una + c->snd_wnd);
	} else {
		while (SEQ_LT(c->snd_nxt, end) && SEQ_LT(c->snd_nxt, limit) &&
		       tcp_send_new(c, limit)) {
		}
	}
	if (c->fin_queued && c->snd_nxt == end && end == c->sbuf_seq + c->sbuf_len) {
		/* All data sent (or none): the FIN alone. */
		if (tcp_conn_xmit(c, c->snd_nxt, 0, RTE_TCP_ACK_FLAG | RTE_TCP_FIN_FLAG) == 0) {
			c->snd_nxt++;
		}
	}
	if (SEQ_GT(c->snd_nxt, c->snd_max)) {
		c->snd_max = c->snd_nxt;
	}
	tcp_persist_update(c);
	if (c->snd_una != c->snd_max && !rt_timer_pending(&c->timer)) {
		tcp_rto_arm(c);
	}
}

/*
 * Send [seq, seq + len) again, cut at the data's end, with the FIN when the
 * run reaches it and the FIN was sent (a run of the FIN alone too): fast
 * retransmit, NewReno's partial ACKs, RFC 6675's NextSeg.
 */
uint32_t
tcp_retransmit(struct net_tcp_conn *c, uint32_t seq, uint32_t len)
{
	uint32_t end = tcp_data_end(c), dlen = SEQ_LT(seq, end) ? RTE_MIN(len, end - seq) : 0;
	uint8_t flags = RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG;
	bool fin = c->fin_queued && seq + dlen == end && SEQ_GT(c->snd_max, end);

	if (fin) {
		flags |= RTE_TCP_FIN_FLAG; /* the FIN went with it, or alone after it */
	}
	if (dlen == 0 && !fin) {
		return 0;
	}
	/* Karn: what is sent again gives no RTT sample. */
	c->rtt_timing = false;
	if (tcp_conn_xmit(c, seq, dlen, flags) != 0) {
		return 0;
	}
	TCP_CONN_STAT_ADD(c, retransmits, 1);
	return dlen + (fin ? 1 : 0);
}

/* Send the first unacknowledged segment again (fast retransmit, a NewReno partial ACK). */
void
tcp_retransmit_una(struct net_tcp_conn *c)
{
	tcp_retransmit(c, c->snd_una, c->mss_snd);
}

/* RFC 9293: the answer to a segment for nothing (or unacceptable in SYN-SENT). */
void
tcp_send_rst_for(struct net_tcp *t, unsigned int lcore, const struct rte_ipv4_hdr *h,
		 uint16_t lport, uint16_t rport, const struct tcp_seg *s)
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

void
tcp_challenge_ack(struct net_tcp_conn *c)
{
	TCP_STAT_ADD(&c->t->lc[c->lcore].stats, challenge_ack, 1);
	tcp_send_ack_now(c);
}

/*
 * The ACK RFC 9293 asks for an unacceptable segment (out of the window, or
 * acknowledging what was never sent). Two ends whose sequence numbers
 * disagree (a spoofed or stale segment moved one of them) would otherwise
 * answer each other's such ACKs forever; as Linux, one a connection each
 * 500 ms for bare segments (segments with data are not part of such a loop).
 */
void
tcp_send_oow_ack(struct net_tcp_conn *c, const struct tcp_seg *s)
{
	uint64_t now = tcp_now_us(c->t);

	if (s->len == 0 && !(s->flags & RTE_TCP_SYN_FLAG)) {
		if (now < c->oow_ack_next_us) {
			TCP_STAT_ADD(&c->t->lc[c->lcore].stats, oow_ack_limited, 1);
			return;
		}
		c->oow_ack_next_us = now + TCP_OOW_ACK_GAP_US;
	}
	tcp_send_ack_now(c);
}
