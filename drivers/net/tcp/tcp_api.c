/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stream API of net_tcp.h: creating the stack (its pollers and steering
 * hook), listening, connecting, sending, reading, closing, and counters.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_random.h>

#include "tcp_internal.h"

/* End of the lcore's poll: one ACK per connection for all the segments it took. */
static int
tcp_poll(void *arg)
{
	struct tcp_lcore *lc = arg;
	struct net_tcp_conn *c;
	int n = 0;

	while ((c = TAILQ_FIRST(&lc->ackq)) != NULL) {
		tcp_ack_dequeue(c);
		tcp_send_ack_now(c);
		n++;
	}
	return n > 0 ? RT_POLLER_BUSY : RT_POLLER_IDLE;
}

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
	return tcp_flow_hash(h->src_addr, h->dst_addr, rte_be_to_cpu_16(ports[0]),
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
		tcp_conn_free(c);
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
	c->cc = c->cc != NET_TCP_CC_DEFAULT ? c->cc : NET_TCP_CC_CUBIC;
}

int
net_tcp_create(struct net_neigh *nb, struct net_ip *ip, const struct net_tcp_conf *conf,
	       struct net_tcp **out)
{
	struct net_tcp *t;
	unsigned int i;
	int rc;

	if (nb == NULL || ip == NULL || conf == NULL || out == NULL ||
	    conf->conf_size != sizeof(*conf) ||
	    (conf->cc != NET_TCP_CC_DEFAULT && tcp_cc_ops_of(conf->cc) == NULL)) {
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

	if (tcp_listener_lookup(lc, port) != NULL) {
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
	struct tcp_listener *l = tcp_listener_lookup(&t->lc[lcore], port);

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
		if (n > 1 && tcp_flow_hash(raddr, laddr, dport, (uint16_t)p) % n != lcore) {
			continue;
		}
		if (tcp_conn_lookup(&t->lc[lcore], laddr, raddr, (uint16_t)p, dport) == NULL &&
		    tcp_listener_lookup(&t->lc[lcore], (uint16_t)p) == NULL) {
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
	c = tcp_conn_new(t, lcore, laddr, dst, (uint16_t)sport, dport);
	if (c == NULL) {
		return -ENOMEM;
	}
	c->cb = cb;
	c->arg = arg;
	c->rcv_ws = t->conf.no_wscale ? -1 : tcp_our_wscale(t);
	tcp_set_state(c, TCPE_CONNECT);
	c->rtt_start_us = tcp_now_us(t);
	tcp_conn_xmit(c, c->iss, 0, RTE_TCP_SYN_FLAG);
	c->snd_nxt = c->snd_max = c->iss + 1;
	tcp_rto_arm(c);
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

/*
 * Reading opened the window: tell the peer at once when what it may send
 * grew by a segment (or half the buffer, if smaller: RFC 9293 3.8.6.2.2's
 * receiver SWS avoidance) and what it last heard is below half the buffer
 * (Linux's __tcp_cleanup_rbuf). Measured against what was advertised, not
 * per call, so a reader taking a few bytes at a time opens it too.
 */
static void
window_update(struct net_tcp_conn *c)
{
	uint32_t advertised = c->rcv_adv - c->rcv_nxt, now = tcp_rcv_wnd(c);
	uint32_t half = c->t->conf.rcv_buf / 2;

	if (c->state == TCPS_CLOSED || now <= advertised || advertised >= half ||
	    now - advertised < RTE_MIN((uint32_t)c->mss_snd, half)) {
		return;
	}
	if (!c->ack_queued) {
		TCP_STAT_ADD(&c->t->lc[c->lcore].stats, win_updates, 1);
		tcp_send_ack_later(c);
	}
}

void
net_tcp_consume(struct net_tcp_conn *c, size_t n)
{
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
	window_update(c);
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
		tcp_conn_maybe_free(c);
		return;
	case TCPS_SYN_SENT:
	case TCPS_LISTEN:
		tcp_apply(c, TCPE_CLOSE, 0);
		return;
	case TCPS_SYN_RCVD:
	case TCPS_ESTABLISHED:
	case TCPS_CLOSE_WAIT:
		c->fin_queued = true;
		tcp_set_state(c, TCPE_CLOSE);
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
		tcp_conn_maybe_free(c);
		return;
	}
	if (c->state != TCPS_SYN_SENT && c->state != TCPS_LISTEN && c->state != TCPS_TIME_WAIT) {
		if (tcp_xmit_raw(c->t, c->lcore, c->laddr, c->raddr, c->lport, c->rport, c->snd_nxt,
				 0, RTE_TCP_RST_FLAG, 0, NULL, 0, NULL, 0) == 0) {
			TCP_CONN_STAT_ADD(c, rst_tx, 1);
		}
	}
	tcp_apply(c, TCPE_ABORT, ECONNABORTED);
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
	out->state = tcp_state_str(c->state);
	out->srtt_us = c->srtt_us;
	out->rto_us = c->rto_us;
	out->retransmits = c->stats.retransmits;
	out->snd_nxt = c->snd_nxt;
	out->rcv_nxt = c->rcv_nxt;
	out->cc = c->cc->name;
	out->cwnd = c->cwnd;
	out->ssthresh = c->ssthresh;
}

int
net_tcp_set_cc(struct net_tcp_conn *c, enum net_tcp_cc cc)
{
	const struct tcp_cc_ops *ops = tcp_cc_ops_of(cc == NET_TCP_CC_DEFAULT ? c->t->conf.cc : cc);

	if (ops == NULL) {
		return -EINVAL;
	}
	c->cc = ops;
	c->cc->init(c);
	return 0;
}

void
net_tcp_get_stats(const struct net_tcp_conn *c, struct net_tcp_conn_stats *out)
{
	*out = c->stats;
}

const char *
net_tcp_state_name(const struct net_tcp_conn *c)
{
	return tcp_state_str(c->state);
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
