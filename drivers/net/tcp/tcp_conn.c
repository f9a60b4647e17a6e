/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connections: the per-lcore tables, ISNs (RFC 6528), creating and freeing.
 */
#include <stdlib.h>

#include <rte_hash_crc.h>
#include <rte_mbuf.h>

#include "tcp_internal.h"

uint32_t
tcp_flow_hash(uint32_t a1, uint32_t a2, uint16_t p1, uint16_t p2)
{
	/* Symmetric: both directions of a flow hash alike, so the steering hook
	 * and the connection table agree whichever side is "local". */
	return rte_hash_crc_4byte(a1 ^ a2, rte_hash_crc_4byte((uint32_t)(p1 ^ p2), 0x6c6e6574));
}

static struct tcp_bucket *
tcp_bucket_of(struct tcp_lcore *lc, uint32_t laddr, uint32_t raddr, uint16_t lport, uint16_t rport)
{
	return &lc->buckets[tcp_flow_hash(laddr, raddr, lport, rport) & (TCP_BUCKETS - 1)];
}

struct net_tcp_conn *
tcp_conn_lookup(struct tcp_lcore *lc, uint32_t laddr, uint32_t raddr, uint16_t lport,
		uint16_t rport)
{
	struct net_tcp_conn *c;

	LIST_FOREACH(c, tcp_bucket_of(lc, laddr, raddr, lport, rport), hnext) {
		if (c->lport == lport && c->rport == rport && c->raddr == raddr &&
		    c->laddr == laddr) {
			return c;
		}
	}
	return NULL;
}

struct tcp_listener *
tcp_listener_lookup(struct tcp_lcore *lc, uint16_t port)
{
	struct tcp_listener *l;

	LIST_FOREACH(l, &lc->listeners, next) {
		if (l->port == port) {
			return l;
		}
	}
	return NULL;
}

/* RFC 6528: ISN = M + F(4-tuple, secretkey), M a 4-microsecond clock. */
static uint32_t
tcp_isn(const struct net_tcp *t, uint32_t laddr, uint32_t raddr, uint16_t lport, uint16_t rport)
{
	uint32_t words[3] = { laddr, raddr, (uint32_t)lport << 16 | rport };
	uint32_t f = rte_hash_crc(t->secret, sizeof(t->secret), 0);

	f = rte_hash_crc(words, sizeof(words), f);
	return f + (uint32_t)(tcp_now_us(t) / 4);
}

/* Free it once closed and released, and nothing up the stack still uses it. */
void
tcp_conn_maybe_free(struct net_tcp_conn *c)
{
	if (c->released && c->state == TCPS_CLOSED && c->busy == 0) {
		tcp_conn_free(c);
	}
}

static void
tcp_rq_free(struct net_tcp_conn *c)
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

void
tcp_conn_free(struct net_tcp_conn *c)
{
	TCP_STAT_ADD(&c->t->lc[c->lcore].stats, closed, 1);
	LIST_REMOVE(c, all_next);
	tcp_rq_free(c);
	free(c->ooo);
	free(c->sbuf);
	free(c);
}

struct net_tcp_conn *
tcp_conn_new(struct net_tcp *t, unsigned int lcore, uint32_t laddr, uint32_t raddr, uint16_t lport,
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
	c->iss = tcp_isn(t, laddr, raddr, lport, rport);
	c->snd_una = c->snd_nxt = c->snd_max = c->iss;
	c->sbuf_seq = c->iss + 1;
	c->ssthresh = UINT32_MAX;
	c->cc = tcp_cc_ops_of(t->conf.cc);
	c->cc->init(c);
	c->recover = c->iss;
	rt_timer_init(&c->timer, tcp_timer_fn, c);
	rt_timer_init(&c->ka_timer, tcp_ka_timer_fn, c);
	c->last_rx_us = tcp_now_us(t);
	LIST_INSERT_HEAD(tcp_bucket_of(&t->lc[lcore], laddr, raddr, lport, rport), c, hnext);
	LIST_INSERT_HEAD(&t->lc[lcore].all, c, all_next);
	c->in_table = true;
	t->lc[lcore].n_conns++;
	return c;
}
