/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SACK. As a receiver (RFC 2018): the blocks of what waits out of order,
 * the one holding the latest segment first, then the ones reported before
 * it. As a sender (RFC 6675): a scoreboard of what the peer SACKed above
 * snd_una, and loss recovery driven by it (pipe, NextSeg, the rescue
 * retransmission) when SACK-permitted was negotiated.
 *
 * The scoreboard is in sequence ranges, not segments: the send buffer keeps
 * bytes, and a segment sent again may be cut elsewhere than the first time.
 * The octets of a hole (an unSACKed run between SACKed ranges) all have the
 * same SACKed octets above them, so RFC 6675's IsLost is decided per hole.
 */
#include <string.h>

#include "tcp_internal.h"

/* ---- the receiver's blocks (RFC 2018 section 4) ---- */

static bool
ranges_touch(const struct tcp_sack_range *a, const struct tcp_sack_range *b)
{
	return SEQ_LEQ(a->start, b->end) && SEQ_LEQ(b->start, a->end);
}

/*
 * Bytes [start, end) were kept out of order: their block (grown by the
 * blocks it now touches) goes first, the others follow in the order they
 * had; the oldest falls off past TCP_SACK_BLOCKS_MAX.
 */
void
tcp_sack_rcv_note(struct net_tcp_conn *c, uint32_t start, uint32_t end)
{
	struct tcp_sack_range cur = { start, end }, keep[TCP_SACK_BLOCKS_MAX];
	uint8_t nkeep = 0;
	bool merged = true;
	bool used[TCP_SACK_BLOCKS_MAX] = { false };

	/* Merging can make cur touch a block passed over before: again until none merges. */
	while (merged) {
		merged = false;
		for (uint8_t i = 0; i < c->rcv_sack_n; i++) {
			if (!used[i] && ranges_touch(&cur, &c->rcv_sack[i])) {
				cur.start = SEQ_LT(c->rcv_sack[i].start, cur.start) ?
						    c->rcv_sack[i].start :
						    cur.start;
				cur.end = SEQ_GT(c->rcv_sack[i].end, cur.end) ? c->rcv_sack[i].end :
										cur.end;
				used[i] = true;
				merged = true;
			}
		}
	}
	for (uint8_t i = 0; i < c->rcv_sack_n && nkeep < TCP_SACK_BLOCKS_MAX - 1; i++) {
		if (!used[i]) {
			keep[nkeep++] = c->rcv_sack[i];
		}
	}
	c->rcv_sack[0] = cur;
	memcpy(&c->rcv_sack[1], keep, nkeep * sizeof(keep[0]));
	c->rcv_sack_n = (uint8_t)(nkeep + 1);
}

/* rcv_nxt moved: blocks it passed go, a block it entered is cut. */
void
tcp_sack_rcv_trim(struct net_tcp_conn *c)
{
	uint8_t n = 0;

	for (uint8_t i = 0; i < c->rcv_sack_n; i++) {
		struct tcp_sack_range b = c->rcv_sack[i];

		if (SEQ_LEQ(b.end, c->rcv_nxt)) {
			continue;
		}
		if (SEQ_LT(b.start, c->rcv_nxt)) {
			b.start = c->rcv_nxt;
		}
		c->rcv_sack[n++] = b;
	}
	c->rcv_sack_n = n;
}

/*
 * The SACK option after the timestamps, laid out as Linux's: NOP, NOP,
 * kind 5, length, then the blocks; 3 fit beside timestamps, 4 without.
 * @return its bytes (0 without blocks)
 */
size_t
tcp_sack_opts(struct net_tcp_conn *c, uint8_t *o)
{
	uint8_t n = RTE_MIN(c->rcv_sack_n, (uint8_t)(c->ts_ok ? 3 : 4));
	size_t len = 4;

	if (n == 0) {
		return 0;
	}
	o[0] = OPT_NOP;
	o[1] = OPT_NOP;
	o[2] = OPT_SACK;
	o[3] = (uint8_t)(2 + 8 * n);
	for (uint8_t i = 0; i < n; i++) {
		uint32_t edges[2] = { rte_cpu_to_be_32(c->rcv_sack[i].start),
				      rte_cpu_to_be_32(c->rcv_sack[i].end) };

		memcpy(&o[len], edges, sizeof(edges));
		len += sizeof(edges);
	}
	TCP_CONN_STAT_ADD(c, sack_blocks_tx, n);
	return len;
}

/* ---- the sender's scoreboard ---- */

void
tcp_sb_clear(struct tcp_sack_sb *sb)
{
	sb->n = 0;
}

uint32_t
tcp_sb_bytes(const struct tcp_sack_sb *sb)
{
	uint32_t b = 0;

	for (uint8_t i = 0; i < sb->n; i++) {
		b += sb->r[i].end - sb->r[i].start;
	}
	return b;
}

/*
 * SACKed [start, end): merged with the ranges it overlaps or touches. A
 * block that would need a range past TCP_SB_MAX is forgotten (SACK only
 * advises: the RTO still recovers what it names).
 * @return the bytes newly SACKed
 */
uint32_t
tcp_sb_add(struct tcp_sack_sb *sb, uint32_t start, uint32_t end)
{
	uint32_t before = tcp_sb_bytes(sb);
	uint8_t i = 0, j;

	if (!SEQ_LT(start, end)) {
		return 0;
	}
	while (i < sb->n && SEQ_LT(sb->r[i].end, start)) {
		i++;
	}
	for (j = i; j < sb->n && SEQ_LEQ(sb->r[j].start, end); j++) {
		start = SEQ_LT(sb->r[j].start, start) ? sb->r[j].start : start;
		end = SEQ_GT(sb->r[j].end, end) ? sb->r[j].end : end;
	}
	if (i == j) {
		if (sb->n == TCP_SB_MAX) {
			return 0;
		}
		memmove(&sb->r[i + 1], &sb->r[i], (sb->n - i) * sizeof(sb->r[0]));
		sb->n++;
	} else {
		memmove(&sb->r[i + 1], &sb->r[j], (sb->n - j) * sizeof(sb->r[0]));
		sb->n = (uint8_t)(sb->n - (j - i - 1));
	}
	sb->r[i] = (struct tcp_sack_range){ start, end };
	return tcp_sb_bytes(sb) - before;
}

/* The cumulative ACK reached @p una: what is under it leaves the scoreboard. */
void
tcp_sb_ack(struct tcp_sack_sb *sb, uint32_t una)
{
	uint8_t k = 0;

	while (k < sb->n && SEQ_LEQ(sb->r[k].end, una)) {
		k++;
	}
	memmove(&sb->r[0], &sb->r[k], (sb->n - k) * sizeof(sb->r[0]));
	sb->n = (uint8_t)(sb->n - k);
	if (sb->n > 0 && SEQ_LT(sb->r[0].start, una)) {
		sb->r[0].start = una;
	}
}

/*
 * RFC 6675 IsLost for octets with @p ranges SACKed ranges of @p bytes above
 * them: DupThresh discontiguous ranges, or more than (DupThresh - 1) * SMSS.
 */
static bool
lost_with_above(unsigned int ranges, uint32_t bytes, uint32_t mss)
{
	return ranges >= TCP_DUPACK_THRESH || bytes > (TCP_DUPACK_THRESH - 1) * mss;
}

static bool
lost_under(const struct tcp_sack_sb *sb, uint8_t i, uint32_t mss)
{
	uint32_t above = 0;

	for (uint8_t k = i; k < sb->n; k++) {
		above += sb->r[k].end - sb->r[k].start;
	}
	return lost_with_above((unsigned int)(sb->n - i), above, mss);
}

/*
 * The holes of [una, high): unSACKed runs, each lost or not, lowest first
 * (what is SACKed above each, summed once from the top). @return how many
 */
unsigned int
tcp_sb_holes(const struct tcp_sack_sb *sb, uint32_t una, uint32_t high, uint32_t mss,
	     struct tcp_sb_hole *h)
{
	uint32_t above[TCP_SB_MAX + 1], pos = una;
	unsigned int n = 0;

	above[sb->n] = 0;
	for (int k = sb->n - 1; k >= 0; k--) {
		above[k] = above[k + 1] + (sb->r[k].end - sb->r[k].start);
	}
	for (uint8_t i = 0; i < sb->n && SEQ_LT(sb->r[i].start, high); i++) {
		if (SEQ_LT(pos, sb->r[i].start)) {
			h[n++] = (struct tcp_sb_hole){
				pos, sb->r[i].start,
				lost_with_above((unsigned int)(sb->n - i), above[i], mss), true
			};
		}
		if (SEQ_GT(sb->r[i].end, pos)) {
			pos = sb->r[i].end;
		}
	}
	if (SEQ_LT(pos, high)) {
		h[n++] = (struct tcp_sb_hole){ pos, high, false, false };
	}
	return n;
}

/* RFC 6675 IsLost(@p seq), @p seq not SACKed. */
bool
tcp_sb_is_lost(const struct tcp_sack_sb *sb, uint32_t seq, uint32_t mss)
{
	uint8_t i = 0;

	while (i < sb->n && SEQ_LEQ(sb->r[i].start, seq)) {
		i++;
	}
	return i < sb->n && lost_under(sb, i, mss);
}

/*
 * RFC 6675 SetPipe: the octets thought in the network, from snd_una to
 * @p high (HighData): those not SACKed and not lost, and, again, those
 * retransmitted in this recovery (below @p high_rxt, one past HighRxt).
 */
uint32_t
tcp_sb_pipe(const struct tcp_sack_sb *sb, uint32_t una, uint32_t high, uint32_t high_rxt,
	    uint32_t mss)
{
	struct tcp_sb_hole h[TCP_SB_MAX + 1];
	unsigned int n = tcp_sb_holes(sb, una, high, mss, h);
	uint32_t pipe = 0;

	for (unsigned int i = 0; i < n; i++) {
		if (!h[i].lost) {
			pipe += h[i].end - h[i].start;
		}
		if (SEQ_GT(high_rxt, h[i].start)) {
			pipe += (SEQ_LT(high_rxt, h[i].end) ? high_rxt : h[i].end) - h[i].start;
		}
	}
	return pipe;
}

/*
 * RFC 6675 NextSeg rule 1 (@p lost_only) or rule 3: the first unSACKed
 * octets at or past @p high_rxt, below the highest SACKed octet, and lost
 * for rule 1. @return false if none; else the run to send, at most @p mss
 */
bool
tcp_sb_next_seg(const struct tcp_sack_sb *sb, uint32_t una, uint32_t high, uint32_t high_rxt,
		uint32_t mss, bool lost_only, uint32_t *seq, uint32_t *len)
{
	struct tcp_sb_hole h[TCP_SB_MAX + 1];
	unsigned int n = tcp_sb_holes(sb, una, high, mss, h);

	for (unsigned int i = 0; i < n; i++) {
		uint32_t s = SEQ_GT(high_rxt, h[i].start) ? high_rxt : h[i].start;

		if (!h[i].below_sack || (lost_only && !h[i].lost) || !SEQ_LT(s, h[i].end)) {
			continue;
		}
		*seq = s;
		*len = RTE_MIN(h[i].end - s, mss);
		return true;
	}
	return false;
}

/* ---- the sender: SACK blocks in, recovery out ---- */

/* The peer's SACK blocks into the scoreboard: only ones between snd_una and snd_max. */
void
tcp_sack_input(struct net_tcp_conn *c, const struct tcp_seg *s)
{
	uint8_t taken = 0;

	for (uint8_t i = 0; i < s->opts.nsack; i++) {
		uint32_t start = s->opts.sack[i].start, end = s->opts.sack[i].end;

		if (!SEQ_LT(start, end) || SEQ_LEQ(end, c->snd_una) || SEQ_GT(end, c->snd_max)) {
			continue; /* a D-SACK, stale, or naming what was never sent */
		}
		if (SEQ_LT(start, c->snd_una)) {
			start = c->snd_una;
		}
		tcp_sb_add(&c->sb, start, end);
		taken++;
	}
	TCP_CONN_STAT_ADD(c, sack_blocks_rx, taken);
}

/* RFC 6675 section 5 (4)(b): the first unacknowledged octet is lost already. */
bool
tcp_sack_una_lost(const struct net_tcp_conn *c)
{
	return c->sack_ok && tcp_sb_is_lost(&c->sb, c->snd_una, c->mss_snd);
}

/* Send [seq, seq + len) again (the FIN with it when it ends there); HighRxt moves past it. */
static bool
sack_retransmit(struct net_tcp_conn *c, uint32_t seq, uint32_t len, bool rescue)
{
	uint32_t sent = tcp_retransmit(c, seq, len);

	if (sent == 0) {
		return false;
	}
	if (!rescue && SEQ_GT(seq + sent, c->high_rxt)) {
		c->high_rxt = seq + sent;
	}
	return true;
}

/*
 * RFC 6675 section 5 (4), on entering: cwnd = ssthresh (the caller set it),
 * and the segment at snd_una goes again whatever IsLost says of it.
 */
void
tcp_sack_recovery_start(struct net_tcp_conn *c)
{
	uint32_t len = c->mss_snd;
	struct tcp_sb_hole h[TCP_SB_MAX + 1];

	if (tcp_sb_holes(&c->sb, c->snd_una, c->snd_max, c->mss_snd, h) > 0) {
		len = RTE_MIN(len, h[0].end - h[0].start);
	}
	c->sack_recovery = true;
	c->cwnd = c->ssthresh;
	c->high_rxt = c->snd_una;
	c->rescue_done = false;
	TCP_STAT_ADD(&c->t->lc[c->lcore].stats, sack_recoveries, 1);
	sack_retransmit(c, c->snd_una, len, false);
}

/* NextSeg rule 4, the rescue: once a recovery, the highest unSACKed octets. */
static bool
sack_rescue(struct net_tcp_conn *c)
{
	struct tcp_sb_hole h[TCP_SB_MAX + 1];
	unsigned int n;
	uint32_t seq;

	if (c->rescue_done) {
		return false;
	}
	n = tcp_sb_holes(&c->sb, c->snd_una, c->snd_max, c->mss_snd, h);
	if (n == 0) {
		return false;
	}
	seq = h[n - 1].end - h[n - 1].start > c->mss_snd ? h[n - 1].end - c->mss_snd :
							   h[n - 1].start;
	c->rescue_done = true;
	TCP_STAT_ADD(&c->t->lc[c->lcore].stats, sack_rescues, 1);
	return sack_retransmit(c, seq, h[n - 1].end - seq, true);
}

/*
 * RFC 6675 section 5 (C): while cwnd - pipe is a segment or more, what
 * NextSeg names: a lost hole, new data, another hole, the rescue.
 */
void
tcp_sack_output(struct net_tcp_conn *c, uint32_t wnd_limit)
{
	uint32_t mss = c->mss_snd;

	for (;;) {
		uint32_t pipe = tcp_sb_pipe(&c->sb, c->snd_una, c->snd_max, c->high_rxt, mss);
		uint32_t seq, len;
		bool sent;

		if (pipe + mss > c->cwnd) {
			break;
		}
		if (tcp_sb_next_seg(&c->sb, c->snd_una, c->snd_max, c->high_rxt, mss, true, &seq,
				    &len)) {
			sent = sack_retransmit(c, seq, len, false);
		} else if (SEQ_LT(c->snd_nxt, tcp_data_end(c)) && SEQ_LT(c->snd_nxt, wnd_limit)) {
			sent = tcp_send_new(c, wnd_limit);
		} else if (tcp_sb_next_seg(&c->sb, c->snd_una, c->snd_max, c->high_rxt, mss, false,
					   &seq, &len)) {
			sent = sack_retransmit(c, seq, len, false);
		} else {
			sent = sack_rescue(c);
		}
		if (!sent) {
			break;
		}
	}
}
