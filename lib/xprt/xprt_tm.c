/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transfer machines on the front: their state machine (one table), the
 * calls that ask the engine to start and stop them, and the delivery of
 * what the engine sends back: TM events, and buffer events, which take a
 * buffer off its queue unless more messages may still land in it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "xprt_internal.h"

#define U XPRT_TM_UNDEFINED
/*
 * The next state for (state, input); U: the input is refused in that state.
 * STOP from STARTING is allowed (a start the engine has not answered yet is
 * stopped after it); a failed TM only takes FINI.
 */
static const uint8_t xprt_tm_table[XPRT_TM_FAILED + 1][XPRT_TMI_NR] = {
	/*                       START                STARTED          STOP               STOPPED          FAIL             FINI */
	[XPRT_TM_UNDEFINED] = { U, U, U, U, U, U },
	[XPRT_TM_INITIALIZED] = { XPRT_TM_STARTING, U, U, U, U, XPRT_TM_UNDEFINED },
	[XPRT_TM_STARTING] = { U, XPRT_TM_STARTED, XPRT_TM_STOPPING, U, XPRT_TM_FAILED, U },
	[XPRT_TM_STARTED] = { U, U, XPRT_TM_STOPPING, U, XPRT_TM_FAILED, U },
	[XPRT_TM_STOPPING] = { U, XPRT_TM_STOPPING, U, XPRT_TM_STOPPED, XPRT_TM_FAILED, U },
	[XPRT_TM_STOPPED] = { U, U, U, U, U, XPRT_TM_UNDEFINED },
	[XPRT_TM_FAILED] = { U, U, U, U, U, XPRT_TM_UNDEFINED },
};
#undef U

enum xprt_tm_state
xprt_tm_fsm(enum xprt_tm_state from, enum xprt_tm_input input)
{
	if ((unsigned int)from > XPRT_TM_FAILED || (unsigned int)input >= XPRT_TMI_NR) {
		return XPRT_TM_UNDEFINED;
	}
	return (enum xprt_tm_state)xprt_tm_table[from][input];
}

/* Under tm->lock: move @p tm by @p input; false if the table refuses it there. */
static bool
xprt_tm_move_locked(struct xprt_tm *tm, enum xprt_tm_input input)
{
	enum xprt_tm_state next = xprt_tm_fsm(tm->state, input);

	/* FINI's target is UNDEFINED: tell it from a refusal by the state it leaves. */
	if (next == XPRT_TM_UNDEFINED &&
	    (input != XPRT_TMI_FINI ||
	     (tm->state != XPRT_TM_INITIALIZED && tm->state != XPRT_TM_STOPPED &&
	      tm->state != XPRT_TM_FAILED))) {
		return false;
	}
	tm->state = next;
	return true;
}

static bool
xprt_tm_move(struct xprt_tm *tm, enum xprt_tm_input input)
{
	bool ok;

	pthread_mutex_lock(&tm->lock);
	ok = xprt_tm_move_locked(tm, input);
	pthread_mutex_unlock(&tm->lock);
	return ok;
}

/*
 * Move @p tm by @p input and hand @p op to the engine in one step under the
 * TM's lock, so the engine sees operations in the order of the TM's states
 * (an add that saw STARTED reaches it before the stop that followed; see
 * xprt_op_submit_held for a full ring).
 */
static bool
xprt_tm_move_submit(struct xprt_tm *tm, enum xprt_tm_input input, const struct xprt_op *op)
{
	bool ok;

	pthread_mutex_lock(&tm->lock);
	ok = xprt_tm_move_locked(tm, input);
	if (ok) {
		xprt_op_submit_held(tm->dom, op, &tm->lock);
	}
	pthread_mutex_unlock(&tm->lock);
	return ok;
}

static int
xprt_tm_slot_take(struct xprt_dom *dom, struct xprt_tm *tm)
{
	uint32_t i;

	pthread_mutex_lock(&dom->lock);
	for (i = 0; i < dom->opts.max_tms; i++) {
		if (dom->tms[i].tm == NULL) {
			dom->tms[i].gen++;
			dom->tms[i].tm = tm;
			tm->handle = xprt_handle_make(i, dom->tms[i].gen);
			dom->ntms++;
			if (i + 1 > atomic_load(&dom->tms_hi)) {
				atomic_store(&dom->tms_hi, i + 1);
			}
			pthread_mutex_unlock(&dom->lock);
			return 0;
		}
	}
	pthread_mutex_unlock(&dom->lock);
	return -ENOSPC;
}

int
xprt_tm_init(struct xprt_dom *dom, const struct xprt_tm_cbs *cbs, void *ctx, struct xprt_tm **out)
{
	struct xprt_tm *tm;
	int rc;

	if (dom == NULL || cbs == NULL || cbs->event == NULL || out == NULL) {
		return -EINVAL;
	}
	tm = calloc(1, sizeof(*tm));
	if (tm == NULL) {
		return -ENOMEM;
	}
	tm->evr = xprt_ring_new("xprt_ev", sizeof(struct xprt_ev), dom->opts.ring_events);
	if (tm->evr == NULL) {
		free(tm);
		return -ENOMEM;
	}
	tm->dom = dom;
	tm->cbs = *cbs;
	tm->ctx = ctx;
	tm->ev_budget = dom->opts.ring_events - XPRT_TM_EV_RESERVE;
	tm->state = XPRT_TM_INITIALIZED;
	atomic_init(&tm->notify_fd, -1);
	atomic_init(&tm->deficit, 0);
	atomic_init(&tm->failed, 0);
	tm->colour = XPRT_ANY_COLOUR;
	pthread_mutex_init(&tm->lock, NULL);
	pthread_mutex_init(&tm->deliver_lock, NULL);
	pthread_mutex_init(&tm->provision_lock, NULL);
	rc = xprt_tm_slot_take(dom, tm);
	if (rc != 0) {
		free(tm->evr);
		free(tm);
		return rc;
	}
	*out = tm;
	return 0;
}

int
xprt_tm_sync_delivery(struct xprt_tm *tm)
{
	int rc = -EINVAL;

	pthread_mutex_lock(&tm->lock);
	if (tm->state == XPRT_TM_INITIALIZED) {
		tm->sync = true;
		rc = 0;
	}
	pthread_mutex_unlock(&tm->lock);
	return rc;
}

int
xprt_tm_start(struct xprt_tm *tm, const char *addr)
{
	struct xprt_op op = { .kind = XPRT_OP_TM_START };

	if (tm == NULL || xprt_addr_parse(addr, &op.addr) != 0) {
		return -EINVAL;
	}
	op.tm = tm->handle;
	return xprt_tm_move_submit(tm, XPRT_TMI_START, &op) ? 0 : -EINVAL;
}

int
xprt_tm_stop(struct xprt_tm *tm, bool abort)
{
	struct xprt_op op = { .kind = XPRT_OP_TM_STOP, .abort = abort };

	if (tm == NULL) {
		return -EINVAL;
	}
	op.tm = tm->handle;
	return xprt_tm_move_submit(tm, XPRT_TMI_STOP, &op) ? 0 : -EINVAL;
}

int
xprt_tm_fini(struct xprt_tm *tm)
{
	struct xprt_dom *dom;

	/* The engine's thread cannot wait for itself to stop looking at the TM. */
	if (tm == NULL || xprt_engine_self(tm->dom) || !xprt_tm_move(tm, XPRT_TMI_FINI)) {
		return -EBUSY;
	}
	dom = tm->dom;
	pthread_mutex_lock(&dom->lock);
	dom->tms[xprt_handle_slot(tm->handle)].tm = NULL;
	dom->ntms--;
	pthread_mutex_unlock(&dom->lock);
	xprt_engine_quiesce(dom);
	pthread_mutex_destroy(&tm->lock);
	pthread_mutex_destroy(&tm->deliver_lock);
	pthread_mutex_destroy(&tm->provision_lock);
	free(tm->evr);
	free(tm);
	return 0;
}

enum xprt_tm_state
xprt_tm_state_get(const struct xprt_tm *tm)
{
	struct xprt_tm *t = (struct xprt_tm *)(uintptr_t)tm; /* the lock is not the state */
	enum xprt_tm_state s;

	pthread_mutex_lock(&t->lock);
	s = t->state;
	pthread_mutex_unlock(&t->lock);
	return s;
}

int
xprt_tm_addr(const struct xprt_tm *tm, struct xprt_addr *out)
{
	struct xprt_tm *t = (struct xprt_tm *)(uintptr_t)tm;
	int rc = -EINVAL;

	pthread_mutex_lock(&t->lock);
	if (t->state == XPRT_TM_STARTED) {
		*out = t->addr;
		rc = 0;
	}
	pthread_mutex_unlock(&t->lock);
	return rc;
}

static void
xprt_qstats_add(struct xprt_qstats *sum, const struct xprt_qstats *q)
{
	sum->adds += q->adds;
	sum->dels += q->dels;
	sum->successes += q->successes;
	sum->failures += q->failures;
	sum->time_ns += q->time_ns;
	sum->bytes += q->bytes;
	sum->max_bytes = q->max_bytes > sum->max_bytes ? q->max_bytes : sum->max_bytes;
}

int
xprt_tm_stats(struct xprt_tm *tm, enum xprt_qtype q, struct xprt_qstats *out, bool reset)
{
	unsigned int i;

	if (tm == NULL || out == NULL || (unsigned int)q > XPRT_Q_NR) {
		return -EINVAL;
	}
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&tm->lock);
	for (i = 0; i < XPRT_Q_NR; i++) {
		if (q == XPRT_Q_NR || q == i) {
			xprt_qstats_add(out, &tm->stats[i]);
			if (reset) {
				memset(&tm->stats[i], 0, sizeof(tm->stats[i]));
			}
		}
	}
	pthread_mutex_unlock(&tm->lock);
	return 0;
}

/* Under tm->lock: count an event of @p buf; time in queue when it leaves. */
void
xprt_tm_stats_count(struct xprt_tm *tm, const struct xprt_buf *buf, const struct xprt_ev *ev,
		    uint64_t now)
{
	struct xprt_qstats *st = &tm->stats[buf->qtype];

	if (ev->status == 0) {
		st->successes++;
		st->bytes += ev->length;
		st->max_bytes = ev->length > st->max_bytes ? ev->length : st->max_bytes;
	} else {
		st->failures++;
	}
	if (ev->unlinked != 0 && now > buf->add_time_ns) {
		st->time_ns += now - buf->add_time_ns;
	}
}

/*
 * Under tm->lock: the flags and counts an event changes. A buffer's last
 * event takes it off its queue and gives back its event-ring slots; before
 * that it stays QUEUED, so it is neither re-added nor returned while LNet
 * may still write into it.
 */
static void
xprt_tm_buf_account(struct xprt_tm *tm, struct xprt_buf *buf, const struct xprt_ev *ev)
{
	/* Only a buffer's last event needs the time (its time in queue). */
	xprt_tm_stats_count(tm, buf, ev, ev->unlinked != 0 ? xprt_dom_now(tm->dom) : 0);
	if (buf->qtype == XPRT_Q_MSG_RECV && ev->status == 0) {
		buf->msgs_received++;
	}
	if (ev->unlinked == 0) {
		return;
	}
	buf->flags &=
		~(XPRT_BUF_QUEUED | XPRT_BUF_CANCELLED | XPRT_BUF_IN_USE | XPRT_BUF_TIMED_OUT);
	buf->deadline_ns = XPRT_NEVER;
	tm->queued[buf->qtype]--;
	tm->reserved -= buf->reserved;
	buf->reserved = 0;
}

static void
xprt_tm_deliver_buf(struct xprt_tm *tm, const struct xprt_ev *ev)
{
	struct xprt_buf_slot *s = xprt_dom_buf(tm->dom, ev->buf);
	struct xprt_buf_event be;
	struct xprt_buf *buf;

	if (s == NULL) {
		return; /* a buffer deregistered while queued is the application's bug */
	}
	buf = s->buf;
	pthread_mutex_lock(&tm->lock);
	/* Only an event of a buffer queued here: an engine's word is checked like a peer's. */
	if ((buf->flags & XPRT_BUF_QUEUED) == 0 || buf->tm != tm) {
		pthread_mutex_unlock(&tm->lock);
		return;
	}
	xprt_tm_buf_account(tm, buf, ev);
	pthread_mutex_unlock(&tm->lock);
	if (xprt_tm_pool_reclaim(tm, buf, ev)) {
		return;
	}
	if (ev->unlinked != 0 && buf->qtype == XPRT_Q_MSG_RECV) {
		xprt_tm_provision(tm); /* the queue refills before the application runs */
	}
	be = (struct xprt_buf_event){
		.buf = buf,
		.status = ev->status,
		.length = ev->length,
		.offset = ev->offset,
		.from = ev->addr,
	};
	buf->cbs->done[buf->qtype](&be);
}

static void
xprt_tm_deliver_tm(struct xprt_tm *tm, const struct xprt_ev *ev)
{
	struct xprt_tm_event te = {
		.type = (enum xprt_tm_event_type)ev->tm_event,
		.status = ev->status,
		.next_state = (enum xprt_tm_state)ev->state,
		.addr = ev->addr,
	};

	if (te.type == XPRT_TM_EV_STATE) {
		static const enum xprt_tm_input input[] = {
			[XPRT_TM_STARTED] = XPRT_TMI_STARTED,
			[XPRT_TM_STOPPED] = XPRT_TMI_STOPPED,
			[XPRT_TM_FAILED] = XPRT_TMI_FAIL,
		};

		if (te.next_state == XPRT_TM_STARTED) {
			pthread_mutex_lock(&tm->lock);
			tm->addr = ev->addr;
			pthread_mutex_unlock(&tm->lock);
		}
		(void)xprt_tm_move(tm, input[te.next_state]);
		if (te.next_state == XPRT_TM_STARTED) {
			xprt_tm_provision(tm);
		} else {
			atomic_store(&tm->deficit, 0);
		}
	}
	tm->cbs.event(tm, &te, tm->ctx);
}

/*
 * The engine failed @p tm and let go of it: every buffer still queued on it
 * comes off its queue without an event of its own (a pool's goes back to
 * the pool), then FAILED is delivered.
 */
static void
xprt_tm_report_failure(struct xprt_tm *tm, int status)
{
	struct xprt_tm_event te = {
		.type = XPRT_TM_EV_STATE,
		.status = status,
		.next_state = XPRT_TM_FAILED,
	};
	struct xprt_dom *dom = tm->dom;
	unsigned int i;

	pthread_mutex_lock(&dom->lock);
	for (i = 0; i < dom->opts.max_bufs; i++) {
		struct xprt_buf *buf = dom->bufs[i].buf;

		if (buf == NULL || buf->tm != tm || (buf->flags & XPRT_BUF_QUEUED) == 0) {
			continue;
		}
		pthread_mutex_lock(&tm->lock);
		buf->flags &= ~(XPRT_BUF_QUEUED | XPRT_BUF_CANCELLED | XPRT_BUF_IN_USE |
				XPRT_BUF_TIMED_OUT);
		buf->deadline_ns = XPRT_NEVER;
		tm->queued[buf->qtype]--;
		tm->reserved -= buf->reserved;
		buf->reserved = 0;
		pthread_mutex_unlock(&tm->lock);
		if (buf->pool != NULL && buf->pool == tm->pool) {
			(void)xprt_pool_put(buf->pool, buf, xprt_tm_colour_get(tm));
		}
	}
	pthread_mutex_unlock(&dom->lock);
	atomic_store(&tm->deficit, 0);
	(void)xprt_tm_move(tm, XPRT_TMI_FAIL);
	tm->cbs.event(tm, &te, tm->ctx);
}

/* Deliver up to @p max events of @p tm on this thread; the number delivered. */
int
xprt_tm_deliver(struct xprt_tm *tm, unsigned int max)
{
	struct xprt_ev ev;
	int n = 0;

	pthread_mutex_lock(&tm->deliver_lock);
	while ((unsigned int)n < max && rte_ring_mc_dequeue_elem(tm->evr, &ev, sizeof(ev)) == 0) {
		if (ev.kind == XPRT_EV_BUF) {
			xprt_tm_deliver_buf(tm, &ev);
		} else {
			xprt_tm_deliver_tm(tm, &ev);
		}
		n++;
	}
	/* After the events the engine wrote before it failed the TM. */
	if ((unsigned int)n < max && !tm->fail_reported && atomic_load(&tm->failed) != 0 &&
	    rte_ring_empty(tm->evr)) {
		tm->fail_reported = true;
		xprt_tm_report_failure(tm, atomic_load(&tm->failed));
		n++;
	}
	pthread_mutex_unlock(&tm->deliver_lock);
	return n;
}

bool
xprt_tm_events_pending(struct xprt_tm *tm)
{
	return tm != NULL &&
	       (!rte_ring_empty(tm->evr) || (atomic_load(&tm->failed) != 0 && !tm->fail_reported));
}

int
xprt_tm_deliver_all(struct xprt_tm *tm)
{
	if (tm == NULL || !tm->sync) {
		return -EINVAL;
	}
	return xprt_tm_deliver(tm, UINT32_MAX);
}

/* Write the armed wait object, once. */
void
xprt_tm_wake(struct xprt_tm *tm)
{
	static const uint64_t one = 1;
	int fd = atomic_exchange(&tm->notify_fd, -1);

	if (fd >= 0 && write(fd, &one, sizeof(one)) < 0) {
		(void)errno; /* saturated: it is readable anyway */
	}
}

int
xprt_tm_notify(struct xprt_tm *tm, int fd)
{
	if (tm == NULL || fd < 0) {
		return -EINVAL;
	}
	atomic_store(&tm->notify_fd, fd);
	/* An event that came before the arming would otherwise wake nobody. */
	if (xprt_tm_events_pending(tm)) {
		xprt_tm_wake(tm);
	}
	return 0;
}
