/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Response tracking (kernel LNet's response trackers): a PUT that asked
 * for an ACK, or a GET, leaves its MD waiting for the answer. If none
 * comes within transaction_timeout (a peer that died, a lost message), the
 * MD is unlinked and its owner told: an UNLINK event with -ETIMEDOUT, or,
 * if its own send is still in flight, that event carries "unlinked".
 * Everything here runs on the MD's CPT; the list is in deadline order
 * because every MD gets the same timeout.
 */
#include <errno.h>
#include <string.h>

#include "lnet_internal.h"

#define LNET_RSP_CHECK_US LNP_US_PER_S /* deadlines are checked once a second */

static void lnet_rsp_expire(void *arg);

/* On the CPT's lcore: the deadline check runs while anything waits. */
static void
lnet_rsp_arm(void *arg)
{
	struct lnet_cpt *c = arg;

	if (!rt_timer_pending(&c->rsp_timer) && !TAILQ_EMPTY(&c->rsp_list)) {
		rt_timer_arm(&c->rsp_timer, LNET_RSP_CHECK_US);
	}
}

void
lnet_rsp_init(struct lnet_cpt *c)
{
	TAILQ_INIT(&c->rsp_list);
	rt_timer_init(&c->rsp_timer, lnet_rsp_expire, c);
}

/* The MD's options decide first (the kernel's lnet_response_tracking_enabled), then the setting. */
static bool
lnet_rsp_wanted(const struct lnet *ln, const struct lnet_libmd *md, uint32_t type)
{
	int bits = __atomic_load_n(&ln->tunables.response_tracking, __ATOMIC_RELAXED);

	if ((md->options & LNET_MD_NO_TRACK_RESPONSE) != 0) {
		return false;
	}
	if ((md->options & LNET_MD_TRACK_RESPONSE) != 0) {
		return true;
	}
	return (type == LNET_MSG_GET && (bits & 1) != 0) ||
	       (type == LNET_MSG_PUT && (bits & 2) != 0);
}

/* A PUT with ACK_REQ or a GET just left @p md: its answer is due by now + transaction_timeout. */
void
lnet_rsp_track(struct lnet_cpt *c, struct lnet_libmd *md, uint32_t type)
{
	struct rt_runtime *rt = c->ln->rt;
	int timeout = __atomic_load_n(&c->ln->tunables.transaction_timeout, __ATOMIC_RELAXED);

	if (!lnet_rsp_wanted(c->ln, md, type)) {
		return;
	}
	if (md->rsp_tracked) {
		TAILQ_REMOVE(&c->rsp_list, md, rsp_link); /* the latest operation's deadline */
	}
	md->rsp_tracked = true;
	md->rsp_deadline_us = rt_now_us(rt) + (uint64_t)timeout * LNP_US_PER_S;
	TAILQ_INSERT_TAIL(&c->rsp_list, md, rsp_link);
	if (rt_lcore_self() == c->lcore) {
		lnet_rsp_arm(c);
	} else if (rt_lcore_send_msg(c->lcore, lnet_rsp_arm, c) != 0) {
		LNET_LOG(WARNING, "response timer not armed: CPT %u ring full", c->cpt);
	}
}

/* The answer came, or the MD goes. */
void
lnet_rsp_untrack(struct lnet_cpt *c, struct lnet_libmd *md)
{
	if (md->rsp_tracked) {
		TAILQ_REMOVE(&c->rsp_list, md, rsp_link);
		md->rsp_tracked = false;
	}
}

static void
lnet_rsp_timed_out(struct lnet_cpt *c, struct lnet_libmd *md)
{
	struct lnet_event ev;

	lnet_rsp_untrack(c, md);
	c->counters.response_timeout_count++;
	if (md->rsp_next_hop != NULL) {
		/* The peer NI that never answered is not used while others are healthier. */
		lnet_health_remote_failure(c->ln, md->rsp_next_hop);
	}
	lnet_md_unlink(c, md);
	if (md->refcount == 0) {
		memset(&ev, 0, sizeof(ev));
		ev.type = LNET_EVENT_UNLINK;
		ev.status = -ETIMEDOUT;
		ev.unlinked = 1;
		lnet_md_deliver_event(c, md, &ev);
		lnet_md_release(c, md);
	}
}

static void
lnet_rsp_expire(void *arg)
{
	struct lnet_cpt *c = arg;
	uint64_t now = rt_now_us(c->ln->rt);
	struct lnet_libmd *md;

	while ((md = TAILQ_FIRST(&c->rsp_list)) != NULL && md->rsp_deadline_us <= now) {
		lnet_rsp_timed_out(c, md);
	}
	if (!TAILQ_EMPTY(&c->rsp_list)) {
		rt_timer_arm(&c->rsp_timer, LNET_RSP_CHECK_US);
	}
}

/* Shutdown, on the CPT's lcore: nothing waits any more. */
void
lnet_rsp_fini(struct lnet_cpt *c)
{
	struct lnet_libmd *md;

	while ((md = TAILQ_FIRST(&c->rsp_list)) != NULL) {
		lnet_rsp_untrack(c, md);
	}
	if (rt_timer_pending(&c->rsp_timer)) {
		rt_timer_cancel(&c->rsp_timer);
	}
}
