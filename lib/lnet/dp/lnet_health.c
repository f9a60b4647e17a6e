/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Health (lnet-facts §8, seed 004): what a message's completion status
 * does to the health of the local NI and the peer NI it went over, and
 * whether it goes again over another path instead of completing.
 *
 * Health values are atomics that any lcore lowers on a failure and raises
 * on a success: failures are rare and health is read by selection on
 * every lcore, so one shared int beats a message to an owner. Joining a
 * recovery queue is a hop to the management lcore (lnet_recovery.c), once
 * per stay there (the queued flag).
 *
 * A resend returns to selection in the destination's shard with the path
 * that failed marked, inside the message's deadline (transaction_timeout
 * from its first send) and at most retry_count times; the MD stays
 * attached, so the user sees one completion, the last try's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lnet_tunables.h"
#include "lnet_internal.h"
#include "lnet_route_table.h"

void
lnet_health_init(struct lnet_health *h, int value)
{
	memset(h, 0, sizeof(*h));
	h->value = value;
}

static int
lnet_health_sensitivity(const struct lnet *ln)
{
	return __atomic_load_n(&ln->tunables.health_sensitivity, __ATOMIC_RELAXED);
}

/* Apply @p f to the value atomically; true when it changed. */
static bool
lnet_health_update(struct lnet_health *h, int (*f)(int, int), int sensitivity)
{
	int old = __atomic_load_n(&h->value, __ATOMIC_RELAXED);
	int new;

	do {
		new = f(old, sensitivity);
		if (new == old) {
			return false;
		}
	} while (!__atomic_compare_exchange_n(&h->value, &old, new, false, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return true;
}

void
lnet_health_raise(struct lnet *ln, struct lnet_health *h)
{
	if (lnet_health_value(h) < LNET_MAX_HEALTH_VALUE) {
		lnet_health_update(h, lnet_health_raised, lnet_health_sensitivity(ln));
	}
}

void
lnet_health_ni_raise(struct lnet *ln, struct lnet_ni *ni)
{
	if (lnet_health_value(&ni->health) < LNET_MAX_HEALTH_VALUE &&
	    lnet_health_update(&ni->health, lnet_health_raised, lnet_health_sensitivity(ln)) &&
	    lnet_health_value(&ni->health) == LNET_MAX_HEALTH_VALUE) {
		lnet_ni_health_status(ni, true); /* the kernel's lnet_inc_ni_healthv */
	}
}

void
lnet_health_local_failure(struct lnet *ln, struct lnet_ni *ni)
{
	if ((ni->lnd->caps & LNET_LND_CAP_NO_HEALTH) != 0) {
		return;
	}
	if (lnet_health_update(&ni->health, lnet_health_lowered, lnet_health_sensitivity(ln)) &&
	    lnet_health_value(&ni->health) == 0) {
		lnet_ni_health_status(ni, false); /* the kernel's lnet_dec_ni_healthv_locked */
	}
	ln->mgmt->recovery_ni(ln, ni);
}

void
lnet_health_remote_failure(struct lnet *ln, struct lnet_peer_ni *lpni)
{
	lnet_health_update(&lpni->health, lnet_health_lowered, lnet_health_sensitivity(ln));
	ln->mgmt->recovery_lpni(ln, lpni);
}

void
lnet_health_rx_alive(struct lnet_cpt *c, struct lnet_peer_ni *lpni)
{
	int64_t now = (int64_t)(rt_lcore_now_us(c->lcore) / LNP_US_PER_S);

	/* Written only when the second changes: the line stays clean between. */
	if (__atomic_load_n(&lpni->health.last_alive, __ATOMIC_RELAXED) != now) {
		__atomic_store_n(&lpni->health.last_alive, now, __ATOMIC_RELAXED);
	}
}

void
lnet_health_stamp_deadline(struct lnet_cpt *c, struct lnet_msg *msg)
{
	int tt = __atomic_load_n(&c->ln->tunables.transaction_timeout, __ATOMIC_RELAXED);

	if (msg->deadline_us == 0) {
		msg->deadline_us = rt_lcore_now_us(c->lcore) + (uint64_t)tt * LNP_US_PER_S;
	}
}

/*
 * Nodes with one real interface resend nothing after a local failure (the
 * kernel's pi_nnis check): counted in the posted ping target, which still
 * lists an NI being deleted, whose messages are the ones to move.
 */
static bool
lnet_health_local_resend_allowed(struct lnet *ln)
{
	return __atomic_load_n(&ln->ping_nnis, __ATOMIC_RELAXED) >= 2;
}

/* How many NIDs the peer of @p lpni has, as selection sees it. */
static unsigned int
lnet_health_peer_nnis(const struct lnet_peer_ni *lpni)
{
	const struct lnet_peer_comp *comp = rt_rcu_read((void *const *)&lpni->comp);

	return comp != NULL ? comp->nnis : 1;
}

static void
lnet_health_count(struct lnet_cpt *c, struct lnet_ni *ni, struct lnet_peer_ni *lpni,
		  enum lnet_msg_hstatus hs)
{
	struct lnet_counters *ctr = &c->counters;
	uint32_t *const global[LNET_MSG_STATUS_END] = {
		[LNET_MSG_STATUS_LOCAL_INTERRUPT] = &ctr->local_interrupt_count,
		[LNET_MSG_STATUS_LOCAL_DROPPED] = &ctr->local_dropped_count,
		[LNET_MSG_STATUS_LOCAL_ABORTED] = &ctr->local_aborted_count,
		[LNET_MSG_STATUS_LOCAL_NO_ROUTE] = &ctr->local_no_route_count,
		[LNET_MSG_STATUS_LOCAL_ERROR] = &ctr->local_error_count,
		[LNET_MSG_STATUS_LOCAL_TIMEOUT] = &ctr->local_timeout_count,
		[LNET_MSG_STATUS_REMOTE_ERROR] = &ctr->remote_error_count,
		[LNET_MSG_STATUS_REMOTE_DROPPED] = &ctr->remote_dropped_count,
		[LNET_MSG_STATUS_REMOTE_TIMEOUT] = &ctr->remote_timeout_count,
		[LNET_MSG_STATUS_NETWORK_TIMEOUT] = &ctr->network_timeout_count,
	};
	/* The NI counts the local statuses, the peer NI the others (the kernel's lnet_incr_hstats). */
	struct lnet_health *h =
		lnet_hs_reaction(hs)->local && hs != LNET_MSG_STATUS_NETWORK_TIMEOUT ?
			&ni->health :
			(lpni != NULL ? &lpni->health : NULL);

	(*global[hs])++;
	if (h != NULL) {
		__atomic_fetch_add(&h->hs[hs], 1, __ATOMIC_RELAXED);
	}
}

/* Remember the path @p msg just failed on; the oldest goes when they are too many. */
static void
lnet_msg_path_failed(struct lnet_msg *msg)
{
	unsigned int n = msg->nfailed_paths;

	if (n == LNET_MSG_FAILED_PATHS) {
		memmove(&msg->failed_paths[0], &msg->failed_paths[1],
			(LNET_MSG_FAILED_PATHS - 1) * sizeof(msg->failed_paths[0]));
		n--;
	}
	msg->failed_paths[n] = (struct lnet_msg_path){ msg->txni, msg->txpeer };
	msg->nfailed_paths = (uint8_t)(n + 1);
}

/*
 * Send @p msg again: its credits are back, its NIs released; selection
 * runs anew in the destination's shard, the failed path marked.
 */
static bool
lnet_health_resend(struct lnet_cpt *c, struct lnet_msg *msg, enum lnet_hs_resend kind)
{
	struct lnet *ln = c->ln;
	int retries = __atomic_load_n(&ln->tunables.retry_count, __ATOMIC_RELAXED);

	if (msg->recovery || msg->no_resend ||
	    (msg->md != NULL && (msg->md->flags & LNET_MD_FLAG_ZOMBIE) != 0)) {
		return false;
	}
	if (msg->retry_count >= retries) {
		c->counters.failed_resends += retries != 0;
		return false;
	}
	msg->retry_count++;
	/*
	 * A path (after a network timeout): the next try leaves from another
	 * local NI and avoids, from each, the peer NIs it failed on from there.
	 * The peer NI alone is not avoided: from the other local NI it may be
	 * the only way left (a 2x2 whose one good path crosses).
	 */
	if (kind == LNET_HS_RESEND_PATH) {
		lnet_msg_path_failed(msg);
	}
	if (kind != LNET_HS_RESEND_REMOTE) {
		msg->avoid_ni = msg->txni;
	}
	if (kind == LNET_HS_RESEND_REMOTE) {
		msg->avoid_lpni = msg->txpeer;
	}
	if (msg->hdr.type == LNET_MSG_ACK || msg->hdr.type == LNET_MSG_REPLY) {
		/* Not by the NI the request came on, which failed: by selection, as any send. */
		msg->src_param = (struct lnet_nid)LNET_ANY_NID;
		msg->disc_passed = true;
	}
	lnet_msg_set_txni(c, msg, NULL);
	msg->txpeer = NULL;
	msg->status = 0;
	msg->hstatus = LNET_MSG_STATUS_OK;
	c->counters.resend_count++;
	lnet_msg_dispatch(ln, msg, lnet_cpt_of_peer(ln, &msg->target.nid), LNET_STEP_SEND_SELECT);
	return true;
}

static void
lnet_health_log(const struct lnet_msg *msg, const char *what)
{
	char dst[LNET_NIDSTR_SIZE];

	LNET_LOG(DEBUG, "%s to %s, %s, try %u: %s", lnet_msg_type_str(msg->hdr.type),
		 libcfs_nidstr_r(&msg->hdr.dest_nid, dst, sizeof(dst)), lnet_hs_str(msg->hstatus),
		 msg->retry_count, what);
}

/*
 * A failure reported by the LND: health, counts, and a resend if the table
 * allows one. Out of line and cold: inlined, it made lnet_health_fin too big
 * to be inlined itself, and every message's completion paid its frame.
 */
static __attribute__((noinline, cold)) bool
lnet_health_failed(struct lnet_cpt *c, struct lnet_msg *msg)
{
	const struct lnet_hs_reaction *r = lnet_hs_reaction(msg->hstatus);
	struct lnet *ln = c->ln;
	struct lnet_ni *ni = msg->tx ? msg->txni : msg->rxni;
	struct lnet_peer_ni *lpni = msg->tx ? msg->txpeer : msg->rxpeer;
	bool multi_rail_peer = lpni != NULL && lnet_health_peer_nnis(lpni) > 1;
	bool remote_health = multi_rail_peer && lnet_ni_find_by_nid(ln, &lpni->nid) == NULL;

	if (r == NULL || ni == NULL || lnet_stopping()) {
		return false;
	}
	if (msg->tx && msg->deadline_us != 0 && rt_lcore_now_us(c->lcore) > msg->deadline_us) {
		lnet_health_log(msg, "past its deadline, completes");
		return false; /* too late for anything but completing it */
	}
	lnet_health_count(c, ni, lpni, msg->hstatus);
	if (r->local) {
		lnet_health_local_failure(ln, ni);
	}
	if (r->remote && remote_health) {
		lnet_health_remote_failure(ln, lpni);
	}
	if (!msg->tx ||
	    (r->resend == LNET_HS_RESEND_LOCAL && !lnet_health_local_resend_allowed(ln)) ||
	    (r->resend >= LNET_HS_RESEND_REMOTE && !multi_rail_peer) ||
	    r->resend == LNET_HS_RESEND_NONE) {
		lnet_health_log(msg, "not resent (status, or no other path)");
		return false;
	}
	lnet_health_log(msg, "resending");
	if (!lnet_health_resend(c, msg, r->resend)) {
		lnet_health_log(msg, "not resent (recovery, unlinked, or retries spent)");
		return false;
	}
	return true;
}

/* Heard from: the next recovery ping, if any, goes soon. Stored only when it changes. */
static void
lnet_health_ping_reset(struct lnet_health *h)
{
	if (__atomic_load_n(&h->ping_count, __ATOMIC_RELAXED) != 0) {
		__atomic_store_n(&h->ping_count, 0, __ATOMIC_RELAXED);
	}
}

/* Success: the NI it went over is healthier; a peer NI only when we heard from it. */
static void
lnet_health_ok(struct lnet_cpt *c, struct lnet_msg *msg)
{
	struct lnet *ln = c->ln;

	if (msg->tx) {
		if (msg->txpeer != NULL) {
			lnet_health_ni_raise(ln, msg->txni);
		}
		c->counters.successful_resends += msg->retry_count != 0;
		return;
	}
	if (msg->rxpeer != NULL && msg->rxni != NULL) {
		lnet_health_ni_raise(ln, msg->rxni);
		lnet_health_ping_reset(&msg->rxni->health);
		lnet_health_ping_reset(&msg->rxpeer->health);
		if (lnet_health_value(&msg->rxpeer->health) < LNET_MAX_HEALTH_VALUE) {
			lnet_health_heard(ln, msg->rxpeer);
			ln->mgmt->recovery_lpni(ln, msg->rxpeer); /* it may have aged out */
		}
	}
}

/*
 * A peer NI we received from is healthier; the kernel's lnet_health_check
 * takes a gateway's, or any peer NI's on a router, straight to full health
 * (routes wait for full health under router_sensitivity 100).
 */
void
lnet_health_heard(struct lnet *ln, struct lnet_peer_ni *lpni)
{
	if (lnet_routing_state(ln) != LNET_CTL_ROUTING_DISABLED ||
	    lnet_route_is_gateway_nid(lnet_route_table_get(ln), &lpni->nid)) {
		__atomic_store_n(&lpni->health.value, LNET_MAX_HEALTH_VALUE, __ATOMIC_RELAXED);
		return;
	}
	lnet_health_raise(ln, &lpni->health);
}

/*
 * A request the LND failed while its answer already came: the peer had it
 * (the LND completes a message once the peer's TCP acknowledged it, and
 * the answer can overtake that). It succeeded; sending it again would
 * deliver it twice.
 */
static bool
lnet_health_answered(const struct lnet_msg *msg)
{
	return msg->tx && msg->md_ask != 0 && msg->md != NULL && msg->md->answers >= msg->md_ask;
}

bool
lnet_health_fin(struct lnet_cpt *c, struct lnet_msg *msg)
{
	if (msg->status != 0 && lnet_health_answered(msg)) {
		msg->status = 0;
		msg->hstatus = LNET_MSG_STATUS_OK;
	}
	if (msg->status == 0) {
		lnet_health_ok(c, msg);
		return false;
	}
	/* A failure the LND gave no health status (or before any LND): just completes. */
	if (msg->hstatus == LNET_MSG_STATUS_OK || (msg->tx ? msg->txpeer : msg->rxpeer) == NULL) {
		return false;
	}
	return lnet_health_failed(c, msg);
}

/* ---- lnetctl peer set --health ------------------------------------------- */
