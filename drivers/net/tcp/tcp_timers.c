/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Timers: the RFC 6298 retransmission timer (and 2MSL on the same timer), and
 * keepalive on its own.
 */
#include <errno.h>

#include "tcp_internal.h"

void
tcp_rto_arm(struct net_tcp_conn *c)
{
	rt_timer_arm(&c->timer, c->rto_us);
}

void
tcp_rtt_sample(struct net_tcp_conn *c, uint64_t r)
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

/* The persist interval: the RTO doubled per probe, at most TCP_RTO_MAX_US (Linux's probe0). */
static uint64_t
persist_interval(const struct net_tcp_conn *c)
{
	return RTE_MIN(c->rto_us << c->persist_backoff, TCP_RTO_MAX_US);
}

static bool
data_held_by_zero_window(const struct net_tcp_conn *c)
{
	return c->snd_wnd == 0 && c->snd_una == c->snd_max && SEQ_LT(c->snd_nxt, tcp_data_end(c));
}

/*
 * RFC 9293 3.8.6.1: with nothing in flight the RTO is not armed, so a lost
 * window update would stall both ends for good; while the peer's window
 * is zero and data waits, the persist timer probes it instead. The RTO
 * takes the timer back as soon as something is in flight.
 */
void
tcp_persist_update(struct net_tcp_conn *c)
{
	if (data_held_by_zero_window(c)) {
		if (!c->persist) {
			c->persist = true;
			c->persist_backoff = 0;
			c->zwp_unanswered = 0;
			rt_timer_arm(&c->timer, persist_interval(c));
		}
	} else if (c->persist) {
		c->persist = false;
		rt_timer_cancel(&c->timer);
	}
}

/*
 * A zero-window probe, as Linux's: an ACK at snd_una - 1, which the peer
 * finds old and answers with an ACK carrying its window (sending a byte
 * past a zero window, as RFC 9293 allows, would need that byte kept
 * apart). Answered probes keep the connection (the peer is there, only
 * slow to read); retries unanswered in a row end it ETIMEDOUT.
 */
static void
persist_expired(struct net_tcp_conn *c)
{
	if (!data_held_by_zero_window(c)) {
		c->persist = false;
		tcp_output(c);
		return;
	}
	if (c->zwp_unanswered >= c->t->conf.retries) {
		tcp_apply(c, TCPE_TIMEOUT, ETIMEDOUT);
		return;
	}
	tcp_conn_xmit(c, c->snd_una - 1, 0, RTE_TCP_ACK_FLAG);
	c->zwp_unanswered++;
	TCP_CONN_STAT_ADD(c, win_probes, 1);
	if (c->persist_backoff < TCP_PERSIST_BACKOFF_MAX) {
		c->persist_backoff++;
	}
	rt_timer_arm(&c->timer, persist_interval(c));
}

static void
tcp_timer_expired(struct net_tcp_conn *c)
{
	bool syn = c->state == TCPS_SYN_SENT || c->state == TCPS_SYN_RCVD;
	uint8_t limit = syn ? c->t->conf.syn_retries : c->t->conf.retries;

	if (c->state == TCPS_TIME_WAIT) {
		tcp_apply(c, TCPE_TIMEOUT, 0);
		return;
	}
	if (c->persist) {
		persist_expired(c);
		return;
	}
	if (c->snd_una == c->snd_max) {
		return;
	}
	TCP_CONN_STAT_ADD(c, rto, 1);
	if (c->nretx >= limit) {
		tcp_apply(c, TCPE_TIMEOUT, ETIMEDOUT);
		return;
	}
	c->nretx++;
	/* Backoff, and Karn: no sample from what is sent again. */
	c->rto_us = RTE_MIN(c->rto_us * 2, TCP_RTO_MAX_US);
	c->rtt_timing = false;
	if (syn) {
		uint8_t f = RTE_TCP_SYN_FLAG | (c->state == TCPS_SYN_RCVD ? RTE_TCP_ACK_FLAG : 0);

		tcp_conn_xmit(c, c->iss, 0, f);
		TCP_CONN_STAT_ADD(c, retransmits, 1);
		tcp_rto_arm(c);
		return;
	}
	/* RFC 5681: one segment, slow start from there; go back to snd_una. */
	c->ssthresh = c->cc->ssthresh(c);
	c->cwnd = c->mss_snd;
	/* RFC 6582 4: duplicate ACKs of what is sent again start no fast retransmit. */
	c->recover = c->snd_max;
	c->in_recovery = false;
	/* RFC 2018 8 / RFC 6675 5.1: the receiver may have dropped what it SACKed. */
	c->sack_recovery = false;
	tcp_sb_clear(&c->sb);
	c->dupacks = 0;
	c->snd_nxt = c->snd_una;
	tcp_rto_arm(c);
	tcp_output(c);
}

void
tcp_timer_fn(void *arg)
{
	struct net_tcp_conn *c = arg;

	c->busy++;
	tcp_timer_expired(c);
	c->busy--;
	tcp_conn_maybe_free(c);
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
	uint64_t quiet = tcp_now_us(c->t) - c->last_rx_us;

	if (c->state == TCPS_CLOSED || c->state == TCPS_TIME_WAIT || c->ka_idle_us == 0) {
		return;
	}
	if (c->state == TCPS_SYN_SENT || c->state == TCPS_SYN_RCVD || c->snd_una != c->snd_max ||
	    c->persist) {
		rt_timer_arm(&c->ka_timer, c->ka_idle_us);
		return;
	}
	if (c->ka_probes == 0 && quiet < c->ka_idle_us) {
		rt_timer_arm(&c->ka_timer, c->ka_idle_us - quiet);
		return;
	}
	if (c->ka_probes >= c->ka_cnt) {
		tcp_apply(c, TCPE_TIMEOUT, ETIMEDOUT);
		return;
	}
	tcp_conn_xmit(c, c->snd_una - 1, 0, RTE_TCP_ACK_FLAG);
	c->ka_probes++;
	TCP_STAT_ADD(&c->t->lc[c->lcore].stats, ka_probes, 1);
	rt_timer_arm(&c->ka_timer, c->ka_intvl_us);
}

void
tcp_ka_timer_fn(void *arg)
{
	struct net_tcp_conn *c = arg;

	c->busy++;
	ka_expired(c);
	c->busy--;
	tcp_conn_maybe_free(c);
}
