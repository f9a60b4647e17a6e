/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Health (lnet-facts §8, seed 004): what a message's completion status
 * does to the health of the local NI and the peer NI it went over, and
 * whether it goes again over another path instead of completing.
 *
 * A health value (and its failure counts) is written by its owner alone
 * (issue 32): a local NI's by the lcore of its CPT, a peer NI's by its
 * shard's (lpni->cpt). Any lcore reads it, relaxed, as a hint for
 * selection. A failure, or a success while a value is below the maximum,
 * seen on another lcore (a message completes on its MD's, recovery runs on
 * the management lcore) goes to the owner as a note over a hop, and the
 * owner does the kernel's arithmetic (lnet_health_lowered/raised) on the
 * value it alone writes: each change applies whole, as under the
 * kernel's net lock. At full health nothing is sent, so the good path
 * costs a relaxed load. Joining a recovery queue is a hop from the owner
 * to the management lcore (lnet_recovery.c), once per stay there (the
 * owner's rec_asked against the management lcore's rec_taken), after the
 * owner lowered the value. Heard from while below full health, the owner
 * marks the recovery pings seen so far (pings_heard), so the count starts
 * again and the next ping goes soon.
 *
 * A resend returns to selection in the destination's shard with the path
 * that failed marked, inside the message's deadline (transaction_timeout
 * from its first send) and at most retry_count times; the MD stays
 * attached, so the user sees one completion, the last try's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lnet_tunables.h"
#include "lnet_internal.h"
#include "lnet_route_table.h"
#include "rt_hop.h"

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

/* ---- writes, by the owner alone ------------------------------------------ */

/* What happens to one health value; carried to its owner when seen elsewhere. */
enum lnet_health_op {
	LNET_HEALTH_FAIL,  /* count hs (unless OK); lower the value when lower */
	LNET_HEALTH_RAISE, /* a success over it (heard: a message received on the NI) */
	LNET_HEALTH_HEARD, /* peer NI: a message from it */
	LNET_HEALTH_SET,   /* to value (lnetctl, discovery) */
};

struct lnet_health_change {
	enum lnet_health_op op;
	enum lnet_msg_hstatus hs;
	bool lower;
	bool heard; /* RAISE: a message came in over it (HEARD always is) */
	int value;
};

/*
 * A change on its way to the owner. A local NI is named by NID and checked
 * on arrival against its pointer (it may be deleted meanwhile, and its
 * memory with it); a peer NI lives until shutdown.
 */
struct lnet_health_note {
	struct rt_hop hop;
	struct lnet *ln;
	struct lnet_ni *ni; /* compared, not followed, until found by nid */
	struct lnet_nid nid;
	struct lnet_peer_ni *lpni;
	struct lnet_health_change ch;
};

static bool
lnet_health_on_cpt(const struct lnet *ln, unsigned int cpt)
{
	return rt_lcore_self() == ln->cpts[cpt]->lcore;
}

/* The owner is the only writer: a relaxed store, for readers on other lcores. */
static void
lnet_health_store(struct lnet_health *h, int value)
{
	__atomic_store_n(&h->value, value, __ATOMIC_RELAXED);
}

/* Heard from: the recovery pings so far no longer count (lnet_health_ping_count). */
static void
lnet_health_mark_heard(struct lnet_health *h)
{
	uint32_t pings = __atomic_load_n(&h->pings, __ATOMIC_RELAXED);

	if (h->pings_heard != pings) {
		__atomic_store_n(&h->pings_heard, pings, __ATOMIC_RELAXED);
	}
}

static void
lnet_health_count_hs(struct lnet_health *h, enum lnet_msg_hstatus hs)
{
	if (hs != LNET_MSG_STATUS_OK) {
		__atomic_store_n(&h->hs[hs], h->hs[hs] + 1, __ATOMIC_RELAXED);
	}
}

/* The new value @p ch gives @p h (a peer NI's HEARD is decided by its caller). */
static int
lnet_health_changed(const struct lnet *ln, const struct lnet_health *h,
		    const struct lnet_health_change *ch)
{
	int value = lnet_health_value(h);

	switch (ch->op) {
	case LNET_HEALTH_FAIL:
		return ch->lower ? lnet_health_lowered(value, lnet_health_sensitivity(ln)) : value;
	case LNET_HEALTH_RAISE:
	case LNET_HEALTH_HEARD:
		return lnet_health_raised(value, lnet_health_sensitivity(ln));
	case LNET_HEALTH_SET:
		break;
	}
	return ch->value;
}

/* On @p ni's lcore: the change, its ping status (the kernel's lnet_{dec,inc}_healthv), recovery. */
static void
lnet_health_ni_apply(struct lnet *ln, struct lnet_ni *ni, const struct lnet_health_change *ch)
{
	int old = lnet_health_value(&ni->health);
	int new = lnet_health_changed(ln, &ni->health, ch);

	LNET_OWNER_ASSERT(ln, ni->cpt);
	if (ch->heard) {
		lnet_health_mark_heard(&ni->health);
	}
	if (ch->op == LNET_HEALTH_FAIL) {
		lnet_health_count_hs(&ni->health, ch->hs);
	}
	if (new == old) {
		if (ch->op == LNET_HEALTH_FAIL && ch->lower) {
			ln->mgmt->recovery_ni(ln, ni); /* at 0 already: still recovering */
		}
		return;
	}
	lnet_health_store(&ni->health, new);
	if (ch->op != LNET_HEALTH_SET && (new == 0 || new == LNET_MAX_HEALTH_VALUE)) {
		lnet_ni_health_status(ni, new != 0);
	}
	if (ch->op != LNET_HEALTH_RAISE) {
		ln->mgmt->recovery_ni(ln, ni); /* below the maximum: recovery brings it back */
	}
}

/*
 * On @p lpni's shard: the change, then recovery. Heard from, a gateway's,
 * or any peer NI's on a router, goes straight to full health as the
 * kernel's lnet_health_check does (routes wait for full health under
 * router_sensitivity 100).
 */
static void
lnet_health_lpni_apply(struct lnet *ln, struct lnet_peer_ni *lpni,
		       const struct lnet_health_change *ch)
{
	int new = lnet_health_changed(ln, &lpni->health, ch);

	LNET_OWNER_ASSERT(ln, lpni->cpt);
	if (ch->op == LNET_HEALTH_FAIL) {
		lnet_health_count_hs(&lpni->health, ch->hs);
		if (!ch->lower) {
			return;
		}
	}
	if (ch->op == LNET_HEALTH_HEARD) {
		lnet_health_mark_heard(&lpni->health);
	}
	if (ch->op == LNET_HEALTH_HEARD &&
	    (lnet_routing_state(ln) != LNET_CTL_ROUTING_DISABLED ||
	     lnet_route_is_gateway_nid(lnet_route_table_get(ln), &lpni->nid))) {
		new = LNET_MAX_HEALTH_VALUE;
	}
	if (new != lnet_health_value(&lpni->health)) {
		lnet_health_store(&lpni->health, new);
	}
	ln->mgmt->recovery_lpni(ln, lpni); /* below the maximum (or aged out): recovery takes it */
}

static void
lnet_health_ni_note_run(void *arg)
{
	struct lnet_health_note *n = arg;

	if (!lnet_stopping() && lnet_ni_find_by_nid(n->ln, &n->nid) == n->ni) {
		lnet_health_ni_apply(n->ln, n->ni, &n->ch);
	}
	free(n);
}

static void
lnet_health_lpni_note_run(void *arg)
{
	struct lnet_health_note *n = arg;

	if (!lnet_stopping()) {
		lnet_health_lpni_apply(n->ln, n->lpni, &n->ch);
	}
	free(n);
}

/*
 * From a lcore that does not own the value. Notes arrive in the order they
 * were sent unless a ring was full (rt_hop retries); changes to one value
 * from several lcores come in no set order in the kernel either (whoever
 * takes the lock first).
 */
static __attribute__((cold)) void
lnet_health_note_send(struct lnet *ln, struct lnet_ni *ni, struct lnet_peer_ni *lpni,
		      const struct lnet_health_change *ch)
{
	struct lnet_health_note *n = calloc(1, sizeof(*n));
	unsigned int cpt = ni != NULL ? ni->cpt : lpni->cpt;

	if (n == NULL) {
		LNET_LOG(ERR, "out of memory: a health change for CPT %u is lost", cpt);
		return;
	}
	n->ln = ln;
	n->ni = ni;
	n->lpni = lpni;
	n->ch = *ch;
	if (ni != NULL) {
		n->nid = ni->nid;
	}
	rt_hop_send(&n->hop, ln->cpts[cpt]->lcore,
		    ni != NULL ? lnet_health_ni_note_run : lnet_health_lpni_note_run, n);
}

static void
lnet_health_ni_change(struct lnet *ln, struct lnet_ni *ni, const struct lnet_health_change *ch)
{
	if (lnet_health_on_cpt(ln, ni->cpt)) {
		lnet_health_ni_apply(ln, ni, ch);
		return;
	}
	lnet_health_note_send(ln, ni, NULL, ch);
}

static void
lnet_health_lpni_change(struct lnet *ln, struct lnet_peer_ni *lpni,
			const struct lnet_health_change *ch)
{
	if (lnet_health_on_cpt(ln, lpni->cpt)) {
		lnet_health_lpni_apply(ln, lpni, ch);
		return;
	}
	lnet_health_note_send(ln, NULL, lpni, ch);
}

void
lnet_health_ni_raise(struct lnet *ln, struct lnet_ni *ni)
{
	const struct lnet_health_change ch = { .op = LNET_HEALTH_RAISE };

	if (lnet_health_value(&ni->health) < LNET_MAX_HEALTH_VALUE) {
		lnet_health_ni_change(ln, ni, &ch);
	}
}

/* A message came in over @p ni: raised, and its recovery pings start counting again. */
static void
lnet_health_ni_heard(struct lnet *ln, struct lnet_ni *ni)
{
	const struct lnet_health_change ch = { .op = LNET_HEALTH_RAISE, .heard = true };

	if (lnet_health_value(&ni->health) < LNET_MAX_HEALTH_VALUE) {
		lnet_health_ni_change(ln, ni, &ch);
	}
}

void
lnet_health_local_failure(struct lnet *ln, struct lnet_ni *ni)
{
	const struct lnet_health_change ch = { .op = LNET_HEALTH_FAIL, .lower = true };

	if ((ni->lnd->caps & LNET_LND_CAP_NO_HEALTH) == 0) {
		lnet_health_ni_change(ln, ni, &ch);
	}
}

void
lnet_health_remote_failure(struct lnet *ln, struct lnet_peer_ni *lpni)
{
	const struct lnet_health_change ch = { .op = LNET_HEALTH_FAIL, .lower = true };

	lnet_health_lpni_change(ln, lpni, &ch);
}

void
lnet_health_ni_set(struct lnet *ln, struct lnet_ni *ni, int value)
{
	const struct lnet_health_change ch = { .op = LNET_HEALTH_SET, .value = value };

	lnet_health_ni_change(ln, ni, &ch);
}

void
lnet_health_lpni_set(struct lnet *ln, struct lnet_peer_ni *lpni, int value)
{
	const struct lnet_health_change ch = { .op = LNET_HEALTH_SET, .value = value };

	lnet_health_lpni_change(ln, lpni, &ch);
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
lnet_health_count(struct lnet_cpt *c, enum lnet_msg_hstatus hs)
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

	(*global[hs])++;
}

/*
 * A failure's changes to the NI and the peer NI it went over, each by its
 * owner: the NI counts the local statuses, the peer NI the others (the
 * kernel's lnet_incr_hstats); a value drops as the status table says.
 */
static void
lnet_health_failure(struct lnet *ln, struct lnet_ni *ni, struct lnet_peer_ni *lpni,
		    enum lnet_msg_hstatus hs, bool remote_health)
{
	const struct lnet_hs_reaction *r = lnet_hs_reaction(hs);
	bool ni_counts = r->local && hs != LNET_MSG_STATUS_NETWORK_TIMEOUT;
	struct lnet_health_change ni_ch = {
		.op = LNET_HEALTH_FAIL,
		.hs = ni_counts ? hs : LNET_MSG_STATUS_OK,
		.lower = r->local && (ni->lnd->caps & LNET_LND_CAP_NO_HEALTH) == 0,
	};
	struct lnet_health_change lpni_ch = {
		.op = LNET_HEALTH_FAIL,
		.hs = ni_counts ? LNET_MSG_STATUS_OK : hs,
		.lower = r->remote && remote_health,
	};

	if (ni_ch.hs != LNET_MSG_STATUS_OK || ni_ch.lower) {
		lnet_health_ni_change(ln, ni, &ni_ch);
	}
	if (lpni != NULL && (lpni_ch.hs != LNET_MSG_STATUS_OK || lpni_ch.lower)) {
		lnet_health_lpni_change(ln, lpni, &lpni_ch);
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
	lnet_health_count(c, msg->hstatus);
	lnet_health_failure(ln, ni, lpni, msg->hstatus, remote_health);
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
	/*
	 * Heard from: at full health nothing (recovery restarts a record's
	 * ping count when it finds it there); below it, the owners raise the
	 * values and restart the counts, as the kernel resets them here.
	 */
	if (msg->rxpeer != NULL && msg->rxni != NULL) {
		lnet_health_ni_heard(ln, msg->rxni);
		if (lnet_health_value(&msg->rxpeer->health) < LNET_MAX_HEALTH_VALUE) {
			lnet_health_heard(ln, msg->rxpeer); /* and recovery: it may have aged out */
		}
	}
}

void
lnet_health_heard(struct lnet *ln, struct lnet_peer_ni *lpni)
{
	const struct lnet_health_change ch = { .op = LNET_HEALTH_HEARD };

	lnet_health_lpni_change(ln, lpni, &ch);
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
