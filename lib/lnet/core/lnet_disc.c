/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Discovery of one peer (seed 002, lnet-facts §9): the (state x event)
 * table, the one place the state changes, the actions of each cell and the
 * decision the kernel's discovery loop takes after each step. The table and
 * how the wiring uses it are described in lnet_disc.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lnet_disc.h"
#include "lnet_health_rules.h"
#include "lnet_log.h"

#define NONE RT_FSM_NONE
#define NO RT_FSM_NONE /* in the table, to keep its columns aligned */
#define U LNET_DISC_UNDISCOVERED
#define PG LNET_DISC_PING_SENT
#define W LNET_DISC_WORK
#define PS LNET_DISC_PUSH_SENT
#define D LNET_DISC_DISCOVERED
#define N LNET_DISC_NO_DISCOVERY
#define E LNET_DISC_ERROR
#define X LNET_DISC_DELETED
#define M LNET_DISC_MERGED

/*
 * Rows are states, columns the events in enum lnet_disc_event's order: send,
 * discover, force, reply, reply_trunc, push, push_bad, ack, fail, timeout,
 * local_ni, disc_off, disc_on, needs_push, uptodate, adopt, delete, merged.
 */
static const int8_t lnet_disc_table[LNET_DISC_NSTATES][LNET_DISC_NEVENTS] = {
	/*       snd dsc frc rpl trn psh pbd ack fai tmo lni off on  npu upt adp del mrg */
	[U] = { PG, PG, PG, NO, NO, W, PG, NO, NO, NO, U, N, NO, NO, NO, PG, X, M },
	[PG] = { PG, PG, NO, W, PG, PG, PG, NO, E, E, PG, N, NO, NO, NO, PG, X, M },
	[W] = { NO, NO, PG, NO, NO, NO, NO, NO, E, NO, NO, N, NO, PS, D, NO, NO, NO },
	[PS] = { PS, PS, NO, NO, NO, PS, PS, W, E, E, PS, N, NO, NO, NO, PS, X, M },
	[D] = { D, D, PG, NO, NO, W, PG, NO, NO, NO, W, N, NO, NO, NO, D, X, M },
	[N] = { N, PG, PG, NO, NO, N, NO, NO, NO, NO, N, N, U, NO, NO, N, X, M },
	[E] = { PG, PG, PG, NO, NO, W, PG, NO, NO, NO, E, N, NO, NO, NO, PG, X, M },
	[X] = { NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO },
	[M] = { NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO },
};

static const char *const lnet_disc_states[LNET_DISC_NSTATES] = {
	"undiscovered", "ping_sent", "work",    "push_sent", "discovered",
	"no_discovery", "error",     "deleted", "merged",
};

static const char *const lnet_disc_events[LNET_DISC_NEVENTS] = {
	"send",     "discover",   "force",    "reply",   "reply_trunc", "push",
	"push_bad", "ack",        "fail",     "timeout", "local_ni",    "disc_off",
	"disc_on",  "needs_push", "uptodate", "adopt",   "delete",      "merged",
};

const struct rt_fsm lnet_disc_fsm = {
	.name = "lnet: discovery",
	.nstates = LNET_DISC_NSTATES,
	.nevents = LNET_DISC_NEVENTS,
	.table = &lnet_disc_table[0][0],
	.states = lnet_disc_states,
	.events = lnet_disc_events,
};

void
lnet_disc_node_init(struct lnet_disc_node *n, const struct lnet_disc_ops *ops, void *arg,
		    uint64_t timeout)
{
	memset(n, 0, sizeof(*n));
	n->ops = ops;
	n->arg = arg;
	n->timeout = timeout;
	n->enabled = true;
	n->local_seqno = 1;
	n->ping_max = LNET_DISC_PING_MAX_SIZE;
	n->backoff_max = 900; /* the kernel's lnet_max_recovery_ping_interval */
}

void
lnet_disc_init(struct lnet_disc_node *n, struct lnet_disc *d, void *peer)
{
	memset(d, 0, sizeof(*d));
	d->node = n;
	d->peer = peer;
	d->ping_size = LNET_DISC_PING_MIN_SIZE;
	d->state = n->enabled ? LNET_DISC_UNDISCOVERED : LNET_DISC_NO_DISCOVERY;
	snprintf(d->name, sizeof(d->name), "%p", peer);
}

const char *
lnet_disc_state_str(enum lnet_disc_state s)
{
	return rt_fsm_state_str(&lnet_disc_fsm, s);
}

bool
lnet_disc_uptodate(const struct lnet_disc *d)
{
	return d->state == LNET_DISC_DISCOVERED || d->state == LNET_DISC_NO_DISCOVERY;
}

int
lnet_disc_set_state(struct lnet_disc *d, enum lnet_disc_event ev)
{
	int next =
		rt_fsm_step(&lnet_disc_fsm, lnet_logtype, d->name, d->state, ev, d->node->entered);

	if (next == RT_FSM_NONE) {
		d->node->stats.refused++;
		return -EINVAL;
	}
	d->state = (enum lnet_disc_state)next;
	return 0;
}

/* ---- actions: each does one thing through the caller's ops ---- */

static uint32_t
disc_token(struct lnet_disc_node *n)
{
	if (++n->next_token == 0) {
		n->next_token = 1;
	}
	return n->next_token;
}

static void
disc_arm(struct lnet_disc *d, uint64_t now)
{
	d->deadline = now + d->node->timeout;
	d->timer_armed = true;
	d->node->ops->arm_timer(d, d->deadline);
}

static void
disc_cancel(struct lnet_disc *d)
{
	if (d->timer_armed) {
		d->timer_armed = false;
		d->node->ops->cancel_timer(d);
	}
}

/* Send a ping with a fresh token; a failure to send is the step's failure. */
static int
disc_ping(struct lnet_disc *d, uint64_t now, struct lnet_disc_arg *follow)
{
	int rc;

	d->ping_token = disc_token(d->node);
	d->reping = false;
	d->push_during_ping = false;
	rc = d->node->ops->send_ping(d, d->ping_token, d->ping_size);
	if (rc < 0) {
		d->ping_token = 0;
		follow->error = rc;
		return LNET_DISC_EV_FAIL;
	}
	disc_arm(d, now);
	return NONE;
}

static int
disc_push(struct lnet_disc *d, uint64_t now, struct lnet_disc_arg *follow)
{
	int rc;

	d->push_token = disc_token(d->node);
	d->pushed_seqno = d->node->local_seqno;
	rc = d->node->ops->send_push(d, d->push_token, d->pushed_seqno);
	if (rc < 0) {
		d->push_token = 0;
		follow->error = rc;
		return LNET_DISC_EV_FAIL;
	}
	disc_arm(d, now);
	return NONE;
}

static void
disc_release(struct lnet_disc *d)
{
	d->error = 0;
	d->fails = 0;
	d->retry_at = 0;
	d->held = 0;
	d->node->ops->release_held(d);
}

/*
 * The k-th failure in a row: no re-ping for a message before 2^(k-1) s,
 * the kernel's lnet_get_next_recovery_ping (capped at backoff_max).
 */
static void
disc_fail(struct lnet_disc *d, int error, uint64_t now)
{
	const struct lnet_disc_node *n = d->node;

	d->error = error;
	if (d->fails < UINT32_MAX) {
		d->fails++;
	}
	d->retry_at = now + n->backoff_unit * (uint64_t)lnet_recovery_next_ping(d->fails - 1, 0,
										n->backoff_max);
	d->held = 0;
	d->node->ops->fail_held(d, error);
}

/*
 * Which data is newer: a push is always taken as new (a peer that rebooted
 * starts its seqno again, as the kernel assumes); a ping's reply loses only
 * to a push merged while that ping was out with a seqno at least as high --
 * the reply was built before the push.
 */
static bool
disc_data_is_new(const struct lnet_disc *d, const struct lnet_disc_data *data, bool push)
{
	if (push || !d->push_during_ping) {
		return true;
	}
	return data->seqno > d->peer_seqno;
}

/*
 * Merge newer data into the peer table; the caller's merge may refuse it
 * (NIDs of another peer...), which fails the step.
 */
static int
disc_merge(struct lnet_disc *d, const struct lnet_disc_data *data, bool push,
	   struct lnet_disc_arg *follow)
{
	int rc;

	if (!disc_data_is_new(d, data, push)) {
		d->node->stats.old_data++;
		return NONE;
	}
	/* lnet-facts §9.3: Multi-Rail only when both ends run discovery */
	d->multi_rail = data->multi_rail && data->discovery && d->node->enabled;
	d->peer_discovery = data->discovery;
	rc = d->node->ops->merge(d, data);
	if (rc < 0) {
		follow->error = rc;
		return LNET_DISC_EV_FAIL;
	}
	if (d->have_peer_seqno && data->seqno < d->peer_seqno) {
		LNET_LOG(DEBUG, "discovery %s: seqno %u after %u, peer restarted?", d->name,
			 data->seqno, d->peer_seqno);
	}
	d->peer_seqno = data->seqno;
	d->have_peer_seqno = true;
	d->push_during_ping = push; /* sending a ping clears it */
	return NONE;
}

/* lnet-facts §9.2: a Multi-Rail peer running discovery that has not ACKed our current seqno. */
static bool
disc_needs_push(const struct lnet_disc *d)
{
	return d->multi_rail && d->node->enabled && d->node_seqno < d->node->local_seqno;
}

/* The discovery loop's choice after a step, in the kernel's order. */
static int
disc_decide(const struct lnet_disc *d)
{
	if (d->reping && d->node->enabled) {
		return LNET_DISC_EV_FORCE;
	}
	if (!d->node->enabled) {
		return LNET_DISC_EV_DISC_OFF;
	}
	if (disc_needs_push(d)) {
		return LNET_DISC_EV_NEEDS_PUSH;
	}
	return LNET_DISC_EV_UPTODATE;
}

static int
disc_on_reply(struct lnet_disc *d, const struct lnet_disc_arg *a, struct lnet_disc_arg *follow)
{
	int next;

	disc_cancel(d);
	d->ping_token = 0;
	next = disc_merge(d, a->data, false, follow);
	return next != NONE ? next : disc_decide(d);
}

static int
disc_on_truncated(struct lnet_disc *d, const struct lnet_disc_arg *a, uint64_t now,
		  struct lnet_disc_arg *follow)
{
	disc_cancel(d);
	d->ping_size = (a->data->nbytes + 3u) & ~3u;
	return disc_ping(d, now, follow);
}

static int
disc_on_push(struct lnet_disc *d, enum lnet_disc_state from, const struct lnet_disc_arg *a,
	     struct lnet_disc_arg *follow)
{
	int next = disc_merge(d, a->data, true, follow);

	if (from == LNET_DISC_PING_SENT || from == LNET_DISC_PUSH_SENT ||
	    from == LNET_DISC_NO_DISCOVERY) {
		/* the step in flight goes on; a refused push means a re-ping after it */
		if (next != NONE) {
			d->reping = from != LNET_DISC_NO_DISCOVERY;
		}
		return NONE;
	}
	return next != NONE ? next : disc_decide(d);
}

static int
disc_on_push_bad(struct lnet_disc *d, enum lnet_disc_state from, uint64_t now,
		 struct lnet_disc_arg *follow)
{
	if (from == LNET_DISC_PING_SENT || from == LNET_DISC_PUSH_SENT) {
		d->reping = true;
		return NONE;
	}
	return disc_ping(d, now, follow);
}

static int
disc_on_ack(struct lnet_disc *d)
{
	disc_cancel(d);
	d->push_token = 0;
	d->node_seqno = d->pushed_seqno;
	return disc_decide(d);
}

static void
disc_end_step(struct lnet_disc *d)
{
	disc_cancel(d);
	d->ping_token = 0;
	d->push_token = 0;
}

static int
disc_on_adopt(struct lnet_disc *d, enum lnet_disc_state from, uint64_t now,
	      struct lnet_disc_arg *follow)
{
	switch (from) {
	case LNET_DISC_UNDISCOVERED:
	case LNET_DISC_ERROR:
		return disc_ping(d, now, follow);
	case LNET_DISC_DISCOVERED:
	case LNET_DISC_NO_DISCOVERY:
		disc_release(d);
		return NONE;
	default: /* PG, PS: released when the step ends */
		return NONE;
	}
}

static void
disc_on_merged(struct lnet_disc *d, struct lnet_disc *survivor, uint64_t now)
{
	disc_end_step(d);
	if (survivor == NULL) { /* no one to take the messages */
		disc_fail(d, -EHOSTUNREACH, now);
		return;
	}
	survivor->held += d->held;
	d->held = 0;
	d->node->ops->move_held(d, survivor);
}

/*
 * The actions of cell (@p from, @p ev), the state already changed. Returns
 * the event they lead to (a decision or a failure), or NONE.
 */
static int
disc_act(struct lnet_disc *d, enum lnet_disc_state from, enum lnet_disc_event ev,
	 const struct lnet_disc_arg *a, uint64_t now, struct lnet_disc_arg *follow)
{
	switch (ev) {
	case LNET_DISC_EV_SEND:
	case LNET_DISC_EV_DISCOVER:
	case LNET_DISC_EV_FORCE:
		/* into PG from elsewhere: a new ping; PG to PG: the one out goes on */
		return d->state == PG && from != PG ? disc_ping(d, now, follow) : NONE;
	case LNET_DISC_EV_REPLY:
		return disc_on_reply(d, a, follow);
	case LNET_DISC_EV_REPLY_TRUNC:
		return disc_on_truncated(d, a, now, follow);
	case LNET_DISC_EV_PUSH:
		return disc_on_push(d, from, a, follow);
	case LNET_DISC_EV_PUSH_BAD:
		return disc_on_push_bad(d, from, now, follow);
	case LNET_DISC_EV_ACK:
		return disc_on_ack(d);
	case LNET_DISC_EV_FAIL:
		disc_end_step(d);
		disc_fail(d, a->error, now);
		return NONE;
	case LNET_DISC_EV_TIMEOUT:
		d->timer_armed = false; /* it fired */
		disc_end_step(d);
		disc_fail(d, -ETIMEDOUT, now);
		return NONE;
	case LNET_DISC_EV_LOCAL_NI:
		return from == D ? disc_decide(d) : NONE;
	case LNET_DISC_EV_DISC_OFF:
		if (from == PG || from == PS || from == W) {
			disc_end_step(d);
			disc_release(d);
		}
		return NONE;
	case LNET_DISC_EV_NEEDS_PUSH:
		return disc_push(d, now, follow);
	case LNET_DISC_EV_UPTODATE:
		disc_release(d);
		return NONE;
	case LNET_DISC_EV_ADOPT:
		return disc_on_adopt(d, from, now, follow);
	case LNET_DISC_EV_DELETE:
		disc_end_step(d);
		disc_fail(d, -EHOSTUNREACH, now);
		return NONE;
	case LNET_DISC_EV_MERGED:
		disc_on_merged(d, a->survivor, now);
		return NONE;
	case LNET_DISC_EV_DISC_ON:
	default:
		return NONE;
	}
}

int
lnet_disc_fire(struct lnet_disc *d, enum lnet_disc_event ev, const struct lnet_disc_arg *a,
	       uint64_t now)
{
	struct lnet_disc_arg cur = a != NULL ? *a : (struct lnet_disc_arg){ 0 };
	int next = ev;

	do {
		enum lnet_disc_state from = d->state;
		struct lnet_disc_arg follow = { 0 };

		if (lnet_disc_set_state(d, (enum lnet_disc_event)next) != 0) {
			/* a decision the table refuses would be a bug in disc_decide */
			return next == (int)ev ? -EINVAL : -EPROTO;
		}
		next = disc_act(d, from, (enum lnet_disc_event)next, &cur, now, &follow);
		cur = follow; /* a follow-up event carries only what its action set */
	} while (next != NONE);
	return 0;
}

/* ---- entry points: classify what happened into an event ---- */

static int
disc_gone(const struct lnet_disc *d)
{
	return d->state == LNET_DISC_DELETED || d->state == LNET_DISC_MERGED ? -ENOENT : 0;
}

/* In E and the back-off of the last failure not over: a message does not ping. */
static bool
disc_backing_off(const struct lnet_disc *d, uint64_t now)
{
	return d->state == LNET_DISC_ERROR && d->node->backoff_unit != 0 && now < d->retry_at;
}

int
lnet_disc_send(struct lnet_disc *d, uint64_t now)
{
	if (disc_backing_off(d, now)) {
		d->node->stats.backoff++;
		return d->error < 0 ? d->error : -EHOSTUNREACH;
	}
	if (disc_gone(d) != 0 || lnet_disc_fire(d, LNET_DISC_EV_SEND, NULL, now) != 0) {
		return -ENOENT;
	}
	switch (d->state) {
	case LNET_DISC_DISCOVERED:
	case LNET_DISC_NO_DISCOVERY:
		return LNET_DISC_PASS;
	case LNET_DISC_PING_SENT:
	case LNET_DISC_PUSH_SENT:
		d->held++;
		return LNET_DISC_HOLD;
	default: /* ERROR: the ping could not even be sent */
		return d->error < 0 ? d->error : -EHOSTUNREACH;
	}
}

int
lnet_disc_discover(struct lnet_disc *d, bool force, uint64_t now)
{
	int rc = disc_gone(d);

	if (rc != 0) {
		return rc;
	}
	rc = lnet_disc_fire(d, force ? LNET_DISC_EV_FORCE : LNET_DISC_EV_DISCOVER, NULL, now);
	if (rc != 0) {
		return -EBUSY;
	}
	return d->state == LNET_DISC_ERROR ? d->error : 0;
}

int
lnet_disc_reply(struct lnet_disc *d, uint32_t token, int status, const struct lnet_disc_data *data,
		uint64_t now)
{
	struct lnet_disc_arg a = { .data = data, .error = status };

	if (d->state != LNET_DISC_PING_SENT || token == 0 || token != d->ping_token) {
		d->node->stats.stale_reply++;
		return -ESTALE;
	}
	if (status < 0 || data == NULL) {
		a.error = status < 0 ? status : -EPROTO;
		return lnet_disc_fire(d, LNET_DISC_EV_FAIL, &a, now);
	}
	if (data->nbytes > d->node->ping_max) {
		d->node->stats.too_big++;
		a.error = -E2BIG;
		return lnet_disc_fire(d, LNET_DISC_EV_FAIL, &a, now);
	}
	if (data->nbytes > d->ping_size) {
		return lnet_disc_fire(d, LNET_DISC_EV_REPLY_TRUNC, &a, now);
	}
	return lnet_disc_fire(d, LNET_DISC_EV_REPLY, &a, now);
}

int
lnet_disc_push(struct lnet_disc *d, const struct lnet_disc_data *data, uint64_t now)
{
	struct lnet_disc_arg a = { .data = data };

	return lnet_disc_fire(d, data != NULL ? LNET_DISC_EV_PUSH : LNET_DISC_EV_PUSH_BAD, &a, now);
}

int
lnet_disc_ack(struct lnet_disc *d, uint32_t token, int status, uint64_t now)
{
	struct lnet_disc_arg a = { .error = status };

	if (d->state != LNET_DISC_PUSH_SENT || token == 0 || token != d->push_token) {
		d->node->stats.stale_ack++;
		return -ESTALE;
	}
	return lnet_disc_fire(d, status < 0 ? LNET_DISC_EV_FAIL : LNET_DISC_EV_ACK, &a, now);
}

int
lnet_disc_timer(struct lnet_disc *d, uint64_t now)
{
	if (!d->timer_armed || now < d->deadline) {
		d->node->stats.stale_timer++;
		return -ESTALE;
	}
	return lnet_disc_fire(d, LNET_DISC_EV_TIMEOUT, NULL, now);
}

int
lnet_disc_local_changed(struct lnet_disc *d, uint64_t now)
{
	return lnet_disc_fire(d, LNET_DISC_EV_LOCAL_NI, NULL, now);
}

int
lnet_disc_enable(struct lnet_disc *d, bool on, uint64_t now)
{
	return lnet_disc_fire(d, on ? LNET_DISC_EV_DISC_ON : LNET_DISC_EV_DISC_OFF, NULL, now);
}

int
lnet_disc_delete(struct lnet_disc *d, uint64_t now)
{
	return lnet_disc_fire(d, LNET_DISC_EV_DELETE, NULL, now);
}

int
lnet_disc_merge(struct lnet_disc *gone, struct lnet_disc *survivor, uint64_t now)
{
	struct lnet_disc_arg a = { .survivor = survivor };
	int rc;

	if (gone == survivor || disc_gone(survivor) != 0 || disc_gone(gone) != 0) {
		return -EINVAL;
	}
	rc = lnet_disc_fire(gone, LNET_DISC_EV_MERGED, &a, now);
	if (rc != 0) {
		return rc;
	}
	return lnet_disc_fire(survivor, LNET_DISC_EV_ADOPT, NULL, now);
}

void
lnet_disc_node_local_changed(struct lnet_disc_node *n, uint32_t seqno)
{
	n->local_seqno = seqno;
}

void
lnet_disc_node_enable(struct lnet_disc_node *n, bool on)
{
	n->enabled = on;
}
