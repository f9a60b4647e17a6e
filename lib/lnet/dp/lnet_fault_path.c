/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fault rules (lnet_fault.c) on the data path, where the kernel applies
 * them: a drop rule without a health error drops a received message
 * silently (lnet_parse); one with a health error fails a message about to
 * go to its LND with that status, which health then handles as if the LND
 * had reported it (lnet_send_error_simulation); a delay rule holds a
 * received message before it is matched, and a message to send before its
 * LND gets it, for the rule's latency.
 *
 * Held messages wait on their CPT's list in release order, with one timer.
 * Each lcore draws its rules' random numbers from its CPT's own state.
 */
#include <errno.h>

#include "lnet_fault.h"
#include "lnet_internal.h"

/* What a held message does when its time comes. */
enum lnet_fault_resume {
	LNET_FAULT_RESUME_TX = 0, /* on to its LND */
	LNET_FAULT_RESUME_RX,     /* on to its sender's peer NI shard */
};

static void lnet_fault_release(void *arg);

void
lnet_fault_cpt_init(struct lnet_cpt *c)
{
	TAILQ_INIT(&c->fault_held);
	c->fault_rand = 0x9e3779b9U ^ c->cpt;
	rt_timer_init(&c->fault_timer, lnet_fault_release, c);
}

static void
lnet_fault_hold(struct lnet_cpt *c, struct lnet_msg *msg, uint64_t delay_us,
		enum lnet_fault_resume how)
{
	uint64_t now = rt_lcore_now_us(c->lcore);
	struct lnet_msg *m;

	msg->fault_release_us = now + delay_us;
	msg->fault_rx = how == LNET_FAULT_RESUME_RX;
	TAILQ_FOREACH_REVERSE(m, &c->fault_held, lnet_msg_list, link) {
		if (m->fault_release_us <= msg->fault_release_us) {
			break;
		}
	}
	if (m == NULL) {
		TAILQ_INSERT_HEAD(&c->fault_held, msg, link);
	} else {
		TAILQ_INSERT_AFTER(&c->fault_held, m, msg, link);
	}
	if (TAILQ_FIRST(&c->fault_held) == msg) {
		if (rt_timer_pending(&c->fault_timer)) {
			rt_timer_cancel(&c->fault_timer);
		}
		rt_timer_arm(&c->fault_timer, delay_us);
	}
}

static void
lnet_fault_resume(struct lnet_cpt *c, struct lnet_msg *msg)
{
	if (msg->fault_rx) {
		lnet_msg_dispatch(c->ln, msg, lnet_cpt_of_peer(c->ln, &msg->from),
				  LNET_STEP_RX_PEER);
	} else {
		lnet_ni_send_now(c, msg);
	}
}

static void
lnet_fault_release(void *arg)
{
	struct lnet_cpt *c = arg;
	uint64_t now = rt_now_us(c->ln->rt);
	struct lnet_msg *msg;

	while ((msg = TAILQ_FIRST(&c->fault_held)) != NULL && msg->fault_release_us <= now) {
		TAILQ_REMOVE(&c->fault_held, msg, link);
		lnet_fault_resume(c, msg);
	}
	if (msg != NULL) {
		rt_timer_arm(&c->fault_timer, msg->fault_release_us - now);
	}
}

bool
lnet_fault_rx_drop(struct lnet_cpt *c, struct lnet_ni *ni, const struct lnet_hdr *hdr)
{
	struct lnet_fault *f = c->ln->fault;

	return lnet_fault_any(f, LNET_FAULT_DROP) &&
	       lnet_fault_drop_match(f, hdr, &ni->nid, rt_lcore_now_us(c->lcore), &c->fault_rand,
				     NULL);
}

bool
lnet_fault_rx_delay(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_fault *f = c->ln->fault;
	uint64_t delay;

	if (!lnet_fault_any(f, LNET_FAULT_DELAY)) {
		return false;
	}
	delay = lnet_fault_delay_match(f, &msg->hdr, NULL, rt_lcore_now_us(c->lcore));
	if (delay == 0) {
		return false;
	}
	lnet_fault_hold(c, msg, delay, LNET_FAULT_RESUME_RX);
	return true;
}

bool
lnet_fault_tx(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet_fault *f = c->ln->fault;
	enum lnet_msg_hstatus hs = LNET_MSG_STATUS_OK;
	uint64_t delay;

	if (lnet_fault_any(f, LNET_FAULT_DROP) &&
	    lnet_fault_drop_match(f, &msg->hdr, NULL, rt_lcore_now_us(c->lcore), &c->fault_rand,
				  &hs)) {
		/* As if the LND had failed it: health decides what comes next. */
		lnet_finalize_hstatus(msg, -EIO,
				      hs != LNET_MSG_STATUS_OK ? hs : LNET_MSG_STATUS_LOCAL_ERROR);
		return true;
	}
	if (!lnet_fault_any(f, LNET_FAULT_DELAY)) {
		return false;
	}
	delay = lnet_fault_delay_match(f, &msg->hdr, NULL, rt_lcore_now_us(c->lcore));
	if (delay == 0) {
		return false;
	}
	lnet_fault_hold(c, msg, delay, LNET_FAULT_RESUME_TX);
	return true;
}

/* On a CPT's lcore: what it holds goes on now. */
static void
lnet_fault_release_all(void *arg)
{
	struct lnet_cpt *c = arg;
	struct lnet_msg *msg;

	while ((msg = TAILQ_FIRST(&c->fault_held)) != NULL) {
		TAILQ_REMOVE(&c->fault_held, msg, link);
		lnet_fault_resume(c, msg);
	}
	if (rt_timer_pending(&c->fault_timer)) {
		rt_timer_cancel(&c->fault_timer);
	}
}

void
lnet_fault_release_held(struct lnet *ln)
{
	for (unsigned int cpt = 0; cpt < ln->ncpts; cpt++) {
		if (rt_lcore_send_msg(ln->cpts[cpt]->lcore, lnet_fault_release_all,
				      ln->cpts[cpt]) != 0) {
			LNET_LOG(WARNING, "CPT %u: delayed messages keep their latency: ring full",
				 cpt);
		}
	}
}

/* A held message whose NI goes (net del), or every one (@p ni NULL: shutdown), ends now. */
void
lnet_fault_drop_held(struct lnet_cpt *c, const struct lnet_ni *ni, int status)
{
	struct lnet_msg *msg;
	struct lnet_msg *next;

	for (msg = TAILQ_FIRST(&c->fault_held); msg != NULL; msg = next) {
		next = TAILQ_NEXT(msg, link);
		if (ni != NULL && (msg->fault_rx ? msg->rxni : msg->txni) != ni) {
			continue;
		}
		TAILQ_REMOVE(&c->fault_held, msg, link);
		if (msg->fault_rx) {
			lnet_drop_rx(c, msg, "its NI went while a delay rule held it");
		} else {
			lnet_finalize_hstatus(msg, status, LNET_MSG_STATUS_LOCAL_ABORTED);
		}
	}
	if (TAILQ_EMPTY(&c->fault_held) && rt_timer_pending(&c->fault_timer)) {
		rt_timer_cancel(&c->fault_timer);
	}
}
