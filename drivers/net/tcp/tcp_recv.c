/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive side: payload and FIN in order, reassembly of what came out of
 * order (bounded), the receive queue the stream API reads.
 */
#include <string.h>

#include <rte_mbuf.h>

#include "tcp_internal.h"

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
	TCP_CONN_STAT_ADD(c, ooo, 1);
	if (c->sack_ok && len > 0) {
		tcp_sack_rcv_note(c, seq, seq + len);
	}
}

/* Payload and FIN (RFC 9293 3.10.7.4 seventh and eighth checks). Takes s->m. */
void
tcp_data_input(struct net_tcp_conn *c, struct tcp_seg *s)
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
		tcp_send_ack_now(c);
		return;
	}
	if (SEQ_GT(seq, c->rcv_nxt)) {
		ooo_insert(c, s->m, seq, len, fin);
		tcp_send_ack_now(c); /* a duplicate ACK tells the sender at once */
		return;
	}
	if (SEQ_LT(seq, c->rcv_nxt)) {
		uint32_t skip = c->rcv_nxt - seq;

		if (skip > len || (skip == len && !fin)) {
			rte_pktmbuf_free(s->m);
			tcp_send_ack_now(c);
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
	if (c->rcv_sack_n > 0) {
		tcp_sack_rcv_trim(c);
	}
	if (fin) {
		c->rcv_nxt++;
		c->fin_rcvd = true;
		readable = true;
		tcp_send_ack_now(c);
		tcp_apply(c, TCPE_RCV_FIN, 0);
	} else {
		tcp_send_ack_later(c);
	}
	if (readable && c->state != TCPS_CLOSED) {
		tcp_conn_event(c, NET_TCP_EV_READABLE, c->rcv_queued);
	}
}
