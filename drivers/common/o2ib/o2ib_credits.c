/* SPDX-License-Identifier: BSD-3-Clause */
/* o2iblnd flow control on one connection (o2ib_credits.h). */
#include "o2ib_credits.h"

#define O2IB_CREDITS_DEFAULT 8 /* the least peer_credits */
#define O2IB_CREDITS_MAX 255   /* ibm_credits is a u8 */

static int
clamp_int(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

void
o2ib_tunables_fix(struct o2ib_credit_tunables *t)
{
	int pc = clamp_int(t->peer_credits, O2IB_CREDITS_DEFAULT, O2IB_CREDITS_MAX);

	t->peer_credits = pc > t->credits ? t->credits : pc;
	pc = t->peer_credits;
	if (t->peer_credits_hiw == 0) {
		t->peer_credits_hiw = pc / 2;
	}
	t->peer_credits_hiw = clamp_int(t->peer_credits_hiw, pc / 2, pc - 1);
	if (t->concurrent_sends == 0) {
		t->concurrent_sends = pc;
	}
	t->concurrent_sends = clamp_int(t->concurrent_sends, pc / 2, pc * 2);
}

static bool
oob_capable(unsigned int version)
{
	return version != O2IB_MSG_VERSION_1;
}

int
o2ib_txq_of(unsigned int type, unsigned int version)
{
	switch (type) {
	case O2IB_MSG_PUT_REQ:
	case O2IB_MSG_GET_REQ:
		return O2IB_TXQ_RSRVD;
	case O2IB_MSG_PUT_NAK:
	case O2IB_MSG_PUT_ACK:
	case O2IB_MSG_PUT_DONE:
	case O2IB_MSG_GET_DONE:
		return O2IB_TXQ_NOCRED;
	case O2IB_MSG_NOOP:
		return oob_capable(version) ? O2IB_TXQ_NOCRED : O2IB_TXQ_NOOPS;
	case O2IB_MSG_IMMEDIATE:
		return O2IB_TXQ_CRED;
	default:
		return -1; /* CONNREQ/CONNACK travel as CM private data */
	}
}

enum o2ib_rx_credit
o2ib_rx_credit_of(unsigned int type, unsigned int version, uint8_t credits_in_msg, bool put_acked)
{
	switch (type) {
	case O2IB_MSG_NOOP:
		/* v1: a NOOP that returned credits was counted when it arrived */
		if (oob_capable(version) || credits_in_msg != 0) {
			return O2IB_RX_NO_CREDIT;
		}
		return O2IB_RX_PEER_CREDIT;
	case O2IB_MSG_PUT_REQ:
		return put_acked ? O2IB_RX_NO_CREDIT : O2IB_RX_PEER_CREDIT;
	case O2IB_MSG_PUT_NAK:
	case O2IB_MSG_PUT_ACK:
	case O2IB_MSG_GET_DONE:
		return O2IB_RX_RSRVD_CREDIT;
	case O2IB_MSG_IMMEDIATE:
	case O2IB_MSG_PUT_DONE:
	case O2IB_MSG_GET_REQ:
		return O2IB_RX_PEER_CREDIT;
	default:
		return O2IB_RX_NO_CREDIT; /* a protocol error closes the connection */
	}
}

void
o2ib_credits_init(struct o2ib_credits *c, unsigned int version, unsigned int queue_depth,
		  const struct o2ib_credit_tunables *t)
{
	int cs = t->concurrent_sends;

	c->version = (uint16_t)version;
	c->queue_depth = (uint16_t)queue_depth;
	if (oob_capable(version)) {
		/* a negotiated-down queue keeps the same proportion */
		c->hiw = (uint16_t)((int)queue_depth * t->peer_credits_hiw / t->peer_credits);
	} else {
		c->hiw = O2IB_CREDIT_HIGHWATER_V1;
		cs = clamp_int(cs, O2IB_MSG_QUEUE_SIZE_V1 / 2, O2IB_MSG_QUEUE_SIZE_V1 * 2);
	}
	c->concurrent_sends = (uint16_t)cs;
	c->credits = (int)queue_depth;
	c->reserved = (int)queue_depth;
	c->outstanding = 0;
	c->nsends_posted = 0;
	c->noops_posted = 0;
}

static bool
needs_credit(enum o2ib_txq q)
{
	return q == O2IB_TXQ_NOOPS || q == O2IB_TXQ_CRED;
}

enum o2ib_post_block
o2ib_credits_can_post(const struct o2ib_credits *c, enum o2ib_txq q, unsigned int type)
{
	if (c->nsends_posted >= c->concurrent_sends) {
		return O2IB_POST_CONCURRENT;
	}
	if (!needs_credit(q)) {
		return O2IB_POST_OK;
	}
	if (c->credits == 0) {
		return O2IB_POST_NO_CREDIT;
	}
	if (!oob_capable(c->version) && c->credits == 1 && type != O2IB_MSG_NOOP) {
		return O2IB_POST_LAST_CREDIT;
	}
	return O2IB_POST_OK;
}

bool
o2ib_credits_take_reserved(struct o2ib_credits *c)
{
	if (c->reserved <= 0) {
		return false;
	}
	c->reserved--;
	return true;
}

uint8_t
o2ib_credits_posted(struct o2ib_credits *c, enum o2ib_txq q, unsigned int type)
{
	uint8_t owed = (uint8_t)c->outstanding;

	if (needs_credit(q)) {
		c->credits--;
	}
	c->outstanding = 0;
	c->nsends_posted++;
	if (type == O2IB_MSG_NOOP) {
		c->noops_posted++;
	}
	return owed;
}

void
o2ib_credits_post_failed(struct o2ib_credits *c, enum o2ib_txq q, unsigned int type,
			 uint8_t hdr_credits)
{
	if (needs_credit(q)) {
		c->credits++;
	}
	c->outstanding += hdr_credits;
	c->nsends_posted--;
	if (type == O2IB_MSG_NOOP) {
		c->noops_posted--;
	}
}

void
o2ib_credits_send_done(struct o2ib_credits *c, unsigned int type)
{
	c->nsends_posted--;
	if (type == O2IB_MSG_NOOP) {
		c->noops_posted--;
	}
}

int
o2ib_credits_received(struct o2ib_credits *c, unsigned int type, uint8_t credits)
{
	if (credits == 0) {
		return 0;
	}
	if (c->credits + credits > c->queue_depth) {
		return -1;
	}
	c->credits += credits;
	if (type == O2IB_MSG_NOOP && !oob_capable(c->version)) {
		c->outstanding++; /* so the credit the NOOP used goes back */
	}
	return 0;
}

void
o2ib_credits_rx_reposted(struct o2ib_credits *c, enum o2ib_rx_credit credit)
{
	if (credit == O2IB_RX_PEER_CREDIT) {
		c->outstanding++;
	} else if (credit == O2IB_RX_RSRVD_CREDIT) {
		c->reserved++;
	}
}

bool
o2ib_credits_need_noop(const struct o2ib_credits *c, const struct o2ib_txq_view *q)
{
	if (c->outstanding < c->hiw && !q->keepalive_due) {
		return false;
	}
	if (oob_capable(c->version)) {
		if (!q->nocred_empty) {
			return false; /* the credits ride on a NOCRED message */
		}
		return q->cred_empty || c->credits == 0;
	}
	if (!q->noops_empty || !q->nocred_empty || c->credits == 0) {
		return false;
	}
	if (c->credits == 1 && c->outstanding == 0) {
		return false; /* the last credit is kept for returning credits */
	}
	return q->cred_empty || c->credits == 1;
}

bool
o2ib_credits_noop_redundant(const struct o2ib_credits *c, const struct o2ib_txq_view *q)
{
	return !o2ib_credits_need_noop(c, q) ||
	       (oob_capable(c->version) && c->noops_posted == (int)O2IB_OOB_MSGS_V2);
}
