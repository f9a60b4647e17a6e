/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Loss recovery: RFC 5681 fast retransmit, then RFC 6675 on the SACK
 * scoreboard (tcp_sack.c) when SACK was negotiated, else RFC 6582 NewReno.
 */
#include "tcp_internal.h"

/*
 * RFC 5681 3.2 duplicate ACK: it acknowledges nothing new while data is
 * outstanding, carries no data, SYN or FIN, and leaves the window as it was.
 */
bool
tcp_is_dupack(const struct net_tcp_conn *c, const struct tcp_seg *s)
{
	return s->ack == c->snd_una && c->snd_una != c->snd_max && s->len == 0 &&
	       !(s->flags & (RTE_TCP_SYN_FLAG | RTE_TCP_FIN_FLAG)) &&
	       ((uint32_t)s->win << (c->snd_ws > 0 ? c->snd_ws : 0)) == c->snd_wnd;
}

/* RFC 5681 3.2 / RFC 6582 3.2 steps 2-4, on a duplicate ACK. */
void
tcp_dupack_input(struct net_tcp_conn *c, const struct tcp_seg *s)
{
	c->dupacks++;
	TCP_CONN_STAT_ADD(c, dupacks, 1);
	if (c->in_recovery) {
		if (!c->sack_recovery) {
			c->cwnd += c->mss_snd; /* a segment left the network */
		}
		return;
	}
	/* RFC 6675 5 (4): DupThresh duplicate ACKs, or the scoreboard finds snd_una lost. */
	if ((c->dupacks != TCP_DUPACK_THRESH && !tcp_sack_una_lost(c)) ||
	    !SEQ_GT(s->ack, c->recover)) {
		return; /* limited transmit, if anything (tcp_output) */
	}
	c->ssthresh = c->cc->ssthresh(c);
	c->recover = c->snd_max;
	c->in_recovery = true;
	TCP_CONN_STAT_ADD(c, fast_retransmits, 1);
	if (c->sack_ok) {
		tcp_sack_recovery_start(c);
		return;
	}
	tcp_retransmit_una(c);
	c->cwnd = c->ssthresh + TCP_DUPACK_THRESH * c->mss_snd;
}

/*
 * RFC 6582 3.2 steps 5-6, on an ACK of new data during recovery: a full ACK
 * ends it (SACK recovery too); a partial one (NewReno) sends the next hole
 * and deflates cwnd by what it acknowledged (plus one segment back when that
 * was a segment or more).
 */
void
tcp_recovery_ack(struct net_tcp_conn *c, uint32_t acked)
{
	if (SEQ_GEQ(c->snd_una, c->recover)) {
		uint32_t flight = RTE_MAX(c->snd_max - c->snd_una, (uint32_t)c->mss_snd);

		c->in_recovery = false;
		c->sack_recovery = false;
		c->cwnd = RTE_MIN(c->ssthresh, flight + c->mss_snd);
		return;
	}
	if (c->sack_recovery) {
		return; /* the scoreboard says what goes next (tcp_sack_output) */
	}
	tcp_retransmit_una(c);
	c->cwnd = c->cwnd > acked ? c->cwnd - acked : 0;
	if (acked >= c->mss_snd) {
		c->cwnd += c->mss_snd;
	}
	c->cwnd = RTE_MAX(c->cwnd, (uint32_t)c->mss_snd);
}
