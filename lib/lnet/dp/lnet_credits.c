/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transmit credits (lnet-facts §6): a message takes one credit of its peer
 * NI, then one of its NI's tx queue. A counter may go negative; then it
 * counts the messages queued in FIFO order, and a returned credit sends the
 * head of the queue. Each pool is touched only by the lcore that owns it.
 */
#include "lnet_internal.h"

/* Bytes a queued message accounts for, as tx_q_num_of_buf shows them. */
uint64_t
lnet_credits_msg_bytes(const struct lnet_msg *msg)
{
	return (uint64_t)msg->hdr.payload_length + sizeof(struct lnet_hdr_nid4);
}

bool
lnet_credits_take_peer(struct lnet_peer_ni *lpni, struct lnet_msg *msg)
{
	LNET_OWNER_ASSERT(msg->ln, lpni->cpt);
	msg->peertxcredit = true;
	lpni->txqnob += lnet_credits_msg_bytes(msg);
	lpni->txcredits--;
	if (lpni->txcredits < lpni->mintxcredits) {
		lpni->mintxcredits = lpni->txcredits;
	}
	if (lpni->txcredits < 0) {
		TAILQ_INSERT_TAIL(&lpni->txq, msg, link);
		return false;
	}
	return true;
}

/* Returns the queued message that now holds the credit, if any. */
struct lnet_msg *
lnet_credits_return_peer(struct lnet_peer_ni *lpni, struct lnet_msg *msg)
{
	struct lnet_msg *next;

	if (!msg->peertxcredit) {
		return NULL;
	}
	LNET_OWNER_ASSERT(msg->ln, lpni->cpt);
	msg->peertxcredit = false;
	lpni->txqnob -= lnet_credits_msg_bytes(msg);
	lpni->txcredits++;
	if (lpni->txcredits > 0) {
		return NULL;
	}
	next = TAILQ_FIRST(&lpni->txq);
	TAILQ_REMOVE(&lpni->txq, next, link);
	return next;
}

bool
lnet_credits_take_ni(struct lnet_ni *ni, struct lnet_msg *msg)
{
	struct lnet_tx_queue *tq = &ni->tq;

	LNET_OWNER_ASSERT(ni->ln, ni->cpt);
	msg->txcredit = true;
	tq->credits--;
	if (tq->credits < tq->mincredits) {
		tq->mincredits = tq->credits;
	}
	if (tq->credits < 0) {
		TAILQ_INSERT_TAIL(&tq->queue, msg, link);
		return false;
	}
	return true;
}

struct lnet_msg *
lnet_credits_return_ni(struct lnet_ni *ni, struct lnet_msg *msg)
{
	struct lnet_tx_queue *tq = &ni->tq;
	struct lnet_msg *next;

	if (!msg->txcredit) {
		return NULL;
	}
	LNET_OWNER_ASSERT(ni->ln, ni->cpt);
	msg->txcredit = false;
	tq->credits++;
	if (tq->credits > 0) {
		return NULL;
	}
	next = TAILQ_FIRST(&tq->queue);
	TAILQ_REMOVE(&tq->queue, next, link);
	return next;
}

/*
 * Complete with @p status the messages queued for a credit of @p lpni that
 * go out through @p only (NULL: all). A queued message holds no credit of
 * the queue it waits on, so only the counter moves back.
 */
static void
lnet_credits_abort_peer_queue(struct lnet_peer_ni *lpni, const struct lnet_ni *only, int status)
{
	struct lnet_msg *msg;
	struct lnet_msg *next;

	for (msg = TAILQ_FIRST(&lpni->txq); msg != NULL; msg = next) {
		next = TAILQ_NEXT(msg, link);
		if (only != NULL && msg->txni != only) {
			continue;
		}
		TAILQ_REMOVE(&lpni->txq, msg, link);
		lpni->txcredits++;
		lpni->txqnob -= lnet_credits_msg_bytes(msg);
		msg->peertxcredit = false;
		lnet_finalize_hstatus(msg, status, LNET_MSG_STATUS_LOCAL_ABORTED);
	}
}

static void
lnet_credits_abort_peer_queues(struct lnet_cpt *c, const struct lnet_ni *only, int status)
{
	struct lnet_peer_ni *lpni;
	unsigned int i;

	for (i = 0; i < LNET_PEER_HASH_SIZE; i++) {
		TAILQ_FOREACH(lpni, &c->peers.hash[i], link) {
			lnet_credits_abort_peer_queue(lpni, only, status);
		}
	}
}

/* On the NI's lcore: complete the messages waiting for one of its credits. */
static void
lnet_credits_abort_ni_queue(struct lnet_ni *ni, int status)
{
	struct lnet_msg *msg;

	while ((msg = TAILQ_FIRST(&ni->tq.queue)) != NULL) {
		TAILQ_REMOVE(&ni->tq.queue, msg, link);
		ni->tq.credits++;
		msg->txcredit = false;
		lnet_finalize_hstatus(msg, status, LNET_MSG_STATUS_LOCAL_ABORTED);
	}
}

/* Shutdown: every message queued for a credit on this CPT completes with @p status. */
void
lnet_credits_abort_queued(struct lnet_cpt *c, int status)
{
	const struct lnet_ni_table *t = lnet_ni_table_get(c->ln);
	unsigned int i;

	lnet_credits_abort_peer_queues(c, NULL, status);
	for (i = 0; t != NULL && i < t->nnis; i++) {
		if (t->nis[i]->credits_enabled && t->nis[i]->cpt == c->cpt) {
			lnet_credits_abort_ni_queue(t->nis[i], status);
		}
	}
}

/* net del, on each data lcore: the messages queued to go out through @p ni. */
void
lnet_credits_abort_ni(struct lnet_cpt *c, struct lnet_ni *ni, int status)
{
	lnet_credits_abort_peer_queues(c, ni, status);
	if (ni->credits_enabled && ni->cpt == c->cpt) {
		lnet_credits_abort_ni_queue(ni, status);
	}
}
