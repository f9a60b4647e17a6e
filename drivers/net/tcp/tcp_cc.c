/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Congestion control as an ops table, one per connection: NewReno (RFC
 * 5681) and CUBIC (RFC 9438). Slow start, the recovery mechanics (NewReno's
 * inflation, RFC 6675's pipe) and the RTO's one-segment window are the
 * stack's; a controller decides how cwnd grows in congestion avoidance and
 * where ssthresh goes on a loss.
 *
 * CUBIC's window function is in segments and seconds, in doubles: this runs
 * in user space, and cbrt() keeps K exact where Linux needs a fixed-point
 * cube root.
 */
#include <math.h>
#include <string.h>

#include "tcp_internal.h"

/* ---- NewReno ---- */

static void
newreno_init(struct net_tcp_conn *c)
{
	RTE_SET_USED(c);
}

/* RFC 5681 3.1: about one segment per round trip. */
static void
newreno_cong_avoid(struct net_tcp_conn *c, uint32_t acked)
{
	RTE_SET_USED(acked);
	c->cwnd += RTE_MAX(1u, (uint32_t)c->mss_snd * c->mss_snd / c->cwnd);
}

/* RFC 5681 (4): half the flight, two segments at least. */
static uint32_t
newreno_ssthresh(struct net_tcp_conn *c)
{
	return RTE_MAX((c->snd_max - c->snd_una) / 2, 2u * c->mss_snd);
}

static const struct tcp_cc_ops newreno_ops = {
	.name = "newreno",
	.init = newreno_init,
	.cong_avoid = newreno_cong_avoid,
	.ssthresh = newreno_ssthresh,
};

/* ---- CUBIC (RFC 9438) ---- */

double
tcp_cubic_k(double w_max, double cwnd_epoch)
{
	return w_max > cwnd_epoch ? cbrt((w_max - cwnd_epoch) / TCP_CUBIC_C) : 0.0;
}

double
tcp_cubic_w(const struct tcp_cubic *cb, double t)
{
	double d = t - cb->k;

	return TCP_CUBIC_C * d * d * d + cb->w_max;
}

/* RFC 9438 4.6: a congestion event. Fast convergence (4.7) gives way to newer flows. */
void
tcp_cubic_loss(struct tcp_cubic *cb, double cwnd)
{
	cb->w_max = cwnd < cb->w_max ? cwnd * (1.0 + TCP_CUBIC_BETA) / 2.0 : cwnd;
	cb->epoch = false;
}

/* RFC 9438 4.2: the first ACK of congestion avoidance starts an epoch at @p cwnd. */
void
tcp_cubic_epoch(struct tcp_cubic *cb, double cwnd, double now_s)
{
	cb->epoch = true;
	cb->t_epoch = now_s;
	cb->w_est = cwnd;
	if (cb->w_max < cwnd) {
		cb->w_max = cwnd;
	}
	cb->k = tcp_cubic_k(cb->w_max, cwnd);
}

/*
 * RFC 9438 4.2-4.5 for an ACK of @p acked segments at @p now_s, with a
 * smoothed RTT of @p rtt_s: the window (segments) congestion avoidance
 * gives, from @p cwnd. The Reno-friendly estimate W_est grows by alpha per
 * window acknowledged (alpha 1 once past W_max, 4.3); where the cubic is
 * below it, cwnd follows W_est; else cwnd moves toward W_cubic(t + RTT),
 * that target kept within [cwnd, 1.5 cwnd] (4.4, 4.5).
 */
double
tcp_cubic_update(struct tcp_cubic *cb, double cwnd, double acked, double now_s, double rtt_s)
{
	const double alpha = 3.0 * (1.0 - TCP_CUBIC_BETA) / (1.0 + TCP_CUBIC_BETA);
	double t, target;

	if (!cb->epoch) {
		tcp_cubic_epoch(cb, cwnd, now_s);
	}
	t = now_s - cb->t_epoch;
	cb->w_est += (cb->w_est >= cb->w_max ? 1.0 : alpha) * acked / cwnd;
	if (tcp_cubic_w(cb, t) < cb->w_est) {
		return cb->w_est > cwnd ? cb->w_est : cwnd;
	}
	target = tcp_cubic_w(cb, t + rtt_s);
	target = RTE_MAX(target, cwnd);
	target = RTE_MIN(target, 1.5 * cwnd);
	return cwnd + (target - cwnd) / cwnd * acked;
}

static void
cubic_init(struct net_tcp_conn *c)
{
	memset(&c->cubic, 0, sizeof(c->cubic));
}

static double
now_s(const struct net_tcp_conn *c)
{
	return (double)tcp_now_us(c->t) / 1e6;
}

static void
cubic_cong_avoid(struct net_tcp_conn *c, uint32_t acked)
{
	double mss = c->mss_snd, cwnd = c->cwnd / mss;

	/* Keep the fraction of a byte a segment's growth leaves, unless cwnd moved elsewhere. */
	if (!c->cubic.epoch || (uint32_t)c->cubic.cwnd_bytes != c->cwnd) {
		c->cubic.cwnd_bytes = c->cwnd;
	} else {
		cwnd = c->cubic.cwnd_bytes / mss;
	}
	cwnd = tcp_cubic_update(&c->cubic, cwnd, acked / mss, now_s(c),
				(double)RTE_MAX(c->srtt_us, (uint64_t)1) / 1e6);
	c->cubic.cwnd_bytes = RTE_MIN(cwnd * mss, (double)UINT32_MAX);
	c->cwnd = RTE_MAX((uint32_t)c->cubic.cwnd_bytes, c->cwnd);
}

/* RFC 9438 4.6: W_max is where the loss came; ssthresh the flight times beta_cubic. */
static uint32_t
cubic_ssthresh(struct net_tcp_conn *c)
{
	uint32_t flight = c->snd_max - c->snd_una;

	tcp_cubic_loss(&c->cubic, (double)c->cwnd / c->mss_snd);
	return RTE_MAX((uint32_t)(flight * TCP_CUBIC_BETA), 2u * c->mss_snd);
}

static const struct tcp_cc_ops cubic_ops = {
	.name = "cubic",
	.init = cubic_init,
	.cong_avoid = cubic_cong_avoid,
	.ssthresh = cubic_ssthresh,
};

const struct tcp_cc_ops *
tcp_cc_ops_of(enum net_tcp_cc cc)
{
	switch (cc) {
	case NET_TCP_CC_NEWRENO:
		return &newreno_ops;
	case NET_TCP_CC_CUBIC:
		return &cubic_ops;
	default:
		return NULL;
	}
}

/* RFC 5681: slow start below ssthresh (a segment per segment acknowledged), else the controller. */
void
tcp_cc_ack(struct net_tcp_conn *c, uint32_t acked)
{
	if (c->cwnd < c->ssthresh) {
		c->cwnd += RTE_MIN(acked, (uint32_t)c->mss_snd);
	} else {
		c->cc->cong_avoid(c, acked);
	}
}
