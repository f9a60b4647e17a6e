/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine: one thread per domain that makes every LNet call of the
 * domain. It takes operations from the domain's ring, turns them into MEs,
 * MDs, PUTs and GETs (the seed's mapping, doc/xprt.md), turns LNet's events
 * back into buffer and TM events in each TM's ring, cancels buffers whose
 * deadline passed, and delivers the events of TMs in asynchronous mode.
 * It reads the front only through handles checked against the tables'
 * generations: a later slice runs this part in lnetd-pmd, behind the same
 * rings in shared memory.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "xprt_internal.h"

RTE_LOG_REGISTER_DEFAULT(xprt_logtype, NOTICE);

/* Operations and LNet events the engine takes in one go before it looks at the rest. */
#define XPRT_ENGINE_BURST 64u
/* How long an idle engine sleeps before it looks at LNet's events again. */
#define XPRT_ENGINE_NAP_MS 1

/* ---- TMIDs: one table for the process, as the kernel's list was for the node ---- */

struct xprt_tmid_entry {
	struct xprt_addr addr;
};

static pthread_mutex_t g_tmid_lock = PTHREAD_MUTEX_INITIALIZER;
static struct xprt_tmid_entry *g_tmids;
static unsigned int g_ntmids;
static unsigned int g_tmids_cap;

static bool
xprt_tmid_same_endpoint(const struct xprt_addr *a, const struct xprt_addr *b)
{
	return lnet_nid_same(&a->nid, &b->nid) && a->pid == b->pid && a->portal == b->portal;
}

static bool
xprt_tmid_taken(const struct xprt_addr *a, uint32_t tmid)
{
	unsigned int i;

	for (i = 0; i < g_ntmids; i++) {
		if (g_tmids[i].addr.tmid == tmid && xprt_tmid_same_endpoint(&g_tmids[i].addr, a)) {
			return true;
		}
	}
	return false;
}

/* The TMID @p a names, or the highest free one for `*`: -EADDRINUSE, -EADDRNOTAVAIL. */
static int
xprt_tmid_pick(struct xprt_addr *a)
{
	uint32_t t;

	if (a->tmid != XPRT_TMID_DYNAMIC) {
		return xprt_tmid_taken(a, a->tmid) ? -EADDRINUSE : 0;
	}
	for (t = XPRT_TMID_MAX; t >= 1; t--) {
		if (!xprt_tmid_taken(a, t)) {
			a->tmid = t;
			return 0;
		}
	}
	return -EADDRNOTAVAIL;
}

static int
xprt_tmid_claim(struct xprt_addr *a)
{
	int rc;

	pthread_mutex_lock(&g_tmid_lock);
	rc = xprt_tmid_pick(a);
	if (rc == 0 && g_ntmids == g_tmids_cap) {
		unsigned int cap = g_tmids_cap != 0 ? g_tmids_cap * 2 : 16;
		struct xprt_tmid_entry *n = realloc(g_tmids, cap * sizeof(*n));

		if (n == NULL) {
			rc = -ENOMEM;
		} else {
			g_tmids = n;
			g_tmids_cap = cap;
		}
	}
	if (rc == 0) {
		g_tmids[g_ntmids++].addr = *a;
	}
	pthread_mutex_unlock(&g_tmid_lock);
	return rc;
}

static void
xprt_tmid_release(const struct xprt_addr *a)
{
	unsigned int i;

	pthread_mutex_lock(&g_tmid_lock);
	for (i = 0; i < g_ntmids; i++) {
		if (g_tmids[i].addr.tmid == a->tmid &&
		    xprt_tmid_same_endpoint(&g_tmids[i].addr, a)) {
			g_tmids[i] = g_tmids[--g_ntmids];
			break;
		}
	}
	pthread_mutex_unlock(&g_tmid_lock);
}

/* ---- events to the front ---- */

static void xprt_eng_tm_fail(struct xprt_tm *tm, int status);

/*
 * Put @p ev in @p tm's ring. The adds reserved room for every event they
 * can cause, so a full ring means the front broke its word: the TM fails
 * (the engine never waits for a front), and a failed TM's events are dropped.
 */
static void
xprt_eng_emit(struct xprt_tm *tm, struct xprt_ev *ev)
{
	if (tm->eng.failed != 0) {
		return;
	}
	/* The engine is the ring's one producer. */
	if (rte_ring_sp_enqueue_elem(tm->evr, ev, sizeof(*ev)) != 0) {
		XPRT_LOG(ERR,
			 "a TM's event ring is full: its events were over-committed; TM failed");
		xprt_eng_tm_fail(tm, -EOVERFLOW);
		return;
	}
	xprt_tm_wake(tm);
}

static void
xprt_eng_tm_event(struct xprt_tm *tm, enum xprt_tm_state state, int status)
{
	struct xprt_ev ev = {
		.kind = XPRT_EV_TM,
		.status = status,
		.tm_event = XPRT_TM_EV_STATE,
		.state = state,
		.addr = tm->eng.addr,
	};

	xprt_eng_emit(tm, &ev);
}

static void
xprt_eng_tm_stopped(struct xprt_tm *tm)
{
	xprt_tmid_release(&tm->eng.addr);
	tm->eng.started = false;
	tm->eng.stopping = false;
	xprt_eng_tm_event(tm, XPRT_TM_STOPPED, 0);
}

/*
 * Once nothing of @p tm is active: a failed TM lets go of its TMID and the
 * front is told; a stopping one is STOPPED.
 */
static void
xprt_eng_tm_settle(struct xprt_tm *tm)
{
	if (tm->eng.active != 0) {
		return;
	}
	if (tm->eng.failed != 0) {
		if (!tm->eng.failure_told) {
			tm->eng.failure_told = true;
			if (tm->eng.started) {
				xprt_tmid_release(&tm->eng.addr);
			}
			tm->eng.started = false;
			atomic_store(&tm->failed, tm->eng.failed);
			xprt_tm_wake(tm);
		}
		return;
	}
	if (tm->eng.stopping) {
		xprt_eng_tm_stopped(tm);
	}
}

/* The status of a buffer whose MD went away before its operation completed. */
static int
xprt_eng_cancel_status(const struct xprt_eng_buf *e)
{
	if (e->refused != 0) {
		return e->refused;
	}
	return e->timed_out ? -ETIMEDOUT : -ECANCELED;
}

/*
 * An event of buffer @p s; with @p last, its operation is over: the buffer
 * is the front's again, and a stopping TM may now be stopped.
 */
static void
xprt_eng_buf_event(struct xprt_dom *dom, struct xprt_buf_slot *s, struct xprt_ev *ev, bool last)
{
	struct xprt_tm *tm = dom->tms[s->eng.tm_slot].tm;

	ev->kind = XPRT_EV_BUF;
	ev->buf = xprt_handle_make((uint32_t)(s - dom->bufs), s->gen);
	ev->unlinked = last;
	if (last) {
		s->eng.active = false;
		tm->eng.active--;
	}
	xprt_eng_emit(tm, ev);
	if (last) {
		xprt_eng_tm_settle(tm);
	}
}

static void
xprt_eng_buf_done(struct xprt_dom *dom, struct xprt_buf_slot *s, int status, uint64_t len,
		  uint64_t off)
{
	struct xprt_ev ev = { .status = status, .length = len, .offset = off };

	xprt_eng_buf_event(dom, s, &ev, true);
}

/* Ask LNet to drop the MD of @p s; its last event completes the buffer. */
static void
xprt_eng_cancel(struct xprt_buf_slot *s)
{
	/* -ENOENT: it is already gone; its last event is on its way. */
	(void)LNetMDUnlink(s->eng.mdh);
}

/* Fail @p tm: cancel everything it has in LNet; settle once the last is back. */
static void
xprt_eng_tm_fail(struct xprt_tm *tm, int status)
{
	struct xprt_dom *dom = tm->dom;
	uint32_t slot = xprt_handle_slot(tm->handle);
	unsigned int i;

	if (tm->eng.failed != 0) {
		return;
	}
	tm->eng.failed = status;
	for (i = 0; i < dom->opts.max_bufs; i++) {
		struct xprt_buf_slot *s = &dom->bufs[i];

		if (s->eng.active && s->eng.tm_slot == slot) {
			xprt_eng_cancel(s);
		}
	}
	xprt_eng_tm_settle(tm);
}

/* ---- TM operations ---- */

/* This node's id @p a names (its NID and PID): 0 or -ENOENT. */
static int
xprt_eng_local(const struct xprt_addr *a)
{
	struct lnet_processid id;
	unsigned int i;

	for (i = 0; LNetGetId(i, &id, true) == 0; i++) {
		if (lnet_nid_same(&id.nid, &a->nid) && id.pid == a->pid) {
			return 0;
		}
	}
	return -ENOENT;
}

static void
xprt_eng_tm_start(struct xprt_tm *tm, const struct xprt_op *op)
{
	struct xprt_addr a = op->addr;
	int rc = 0;

	if (tm->eng.started || tm->eng.failed != 0) {
		return; /* the front starts a TM once; a failed TM is only finalised */
	}
	if (a.portal == 0 || a.portal >= XPRT_PORTAL_MAX) {
		rc = -EINVAL;
	} else if (a.pid != XPRT_PID) {
		rc = -ENOENT;
	} else {
		rc = xprt_eng_local(&a);
	}
	if (rc == 0) {
		rc = xprt_tmid_claim(&a);
	}
	tm->eng.addr = a;
	tm->eng.handle = op->tm;
	if (rc != 0) {
		xprt_eng_tm_event(tm, XPRT_TM_FAILED, rc);
		return;
	}
	tm->eng.started = true;
	xprt_eng_tm_event(tm, XPRT_TM_STARTED, 0);
}

/* Receive buffers are cancelled on stop; with abort, everything queued. */
static void
xprt_eng_tm_stop(struct xprt_dom *dom, struct xprt_tm *tm, const struct xprt_op *op)
{
	uint32_t slot = xprt_handle_slot(tm->handle);
	unsigned int i;

	if (!tm->eng.started) {
		return; /* its start failed: FAILED was said already */
	}
	tm->eng.stopping = true;
	for (i = 0; i < dom->opts.max_bufs; i++) {
		struct xprt_buf_slot *s = &dom->bufs[i];

		if (s->eng.active && s->eng.tm_slot == slot &&
		    (op->abort != 0 || s->eng.qtype == XPRT_Q_MSG_RECV)) {
			xprt_eng_cancel(s);
		}
	}
	xprt_eng_tm_settle(tm);
}

/* ---- buffer operations ---- */

/* The slot's iov: the buffer's segments cut at @p len bytes; the entries used. */
static unsigned int
xprt_eng_iov(struct xprt_buf_slot *s, uint64_t len)
{
	unsigned int n = 0;

	while (len > 0 && n < s->nsegs) {
		s->iov[n] = s->segs[n];
		if (s->iov[n].iov_len > len) {
			s->iov[n].iov_len = len;
		}
		len -= s->iov[n].iov_len;
		n++;
	}
	return n;
}

static struct lnet_md
xprt_eng_md(struct xprt_dom *dom, struct xprt_buf_slot *s, uint64_t handle, int threshold,
	    unsigned int options)
{
	struct lnet_md md = {
		.umd_start = s->iov,
		.umd_length = s->eng.niov,
		.umd_threshold = threshold,
		.umd_options = LNET_MD_KIOV | options,
		.umd_user_ptr = (void *)(uintptr_t)handle,
		.umd_eq_handle = dom->eq,
	};

	return md;
}

/* An ME on the TM's portal for exactly @p mb from anyone, after the others, and its MD. */
static int
xprt_eng_attach(struct xprt_tm *tm, struct xprt_buf_slot *s, uint64_t mb, const struct lnet_md *md)
{
	static const struct lnet_processid anyone = { .pid = LNET_PID_ANY, .nid = LNET_ANY_NID };
	struct lnet_me *me =
		LNetMEAttach(tm->eng.addr.portal, &anyone, mb, 0, LNET_UNLINK, LNET_INS_AFTER);

	if (me == NULL) {
		return -errno;
	}
	return LNetMDAttach(me, md, LNET_UNLINK, &s->eng.mdh);
}

static int
xprt_eng_post_recv(struct xprt_dom *dom, struct xprt_tm *tm, struct xprt_buf_slot *s,
		   const struct xprt_op *op)
{
	struct lnet_md md;

	if (op->qtype == XPRT_Q_MSG_RECV) {
		/* Several messages, each at most min_recv bytes, at the MD's moving offset. */
		md = xprt_eng_md(dom, s, op->buf, (int)op->max_msgs,
				 LNET_MD_OP_PUT | LNET_MD_MAX_SIZE | LNET_MD_ACK_DISABLE);
		md.umd_max_size = (int)op->min_recv;
		return xprt_eng_attach(tm, s, xprt_mb_make(tm->eng.addr.tmid, 0), &md);
	}
	md = xprt_eng_md(dom, s, op->buf, 1,
			 op->qtype == XPRT_Q_PASSIVE_RECV ? LNET_MD_OP_PUT | LNET_MD_ACK_DISABLE :
							    LNET_MD_OP_GET);
	return xprt_eng_attach(tm, s, op->match_bits, &md);
}

/* MSG_SEND, ACTIVE_SEND (PUT, no ACK, our TMID and portal in the header data), ACTIVE_RECV (GET). */
static int
xprt_eng_post_active(struct xprt_dom *dom, struct xprt_tm *tm, struct xprt_buf_slot *s,
		     const struct xprt_op *op)
{
	bool get = op->qtype == XPRT_Q_ACTIVE_RECV;
	struct lnet_processid target = { .pid = op->addr.pid, .nid = op->addr.nid };
	/* A GET's MD takes its SEND and its REPLY. */
	struct lnet_md md = xprt_eng_md(dom, s, op->buf, get ? 2 : 1, 0);
	uint64_t mb =
		op->qtype == XPRT_Q_MSG_SEND ? xprt_mb_make(op->addr.tmid, 0) : op->match_bits;
	int rc = LNetMDBind(&md, LNET_UNLINK, &s->eng.mdh);

	if (rc != 0) {
		return rc;
	}
	if (get) {
		rc = LNetGet(NULL, s->eng.mdh, &target, op->addr.portal, mb, 0, false);
	} else {
		rc = LNetPut(NULL, s->eng.mdh, LNET_NOACK_REQ, &target, op->addr.portal, mb, 0,
			     xprt_hdr_data_make(tm->eng.addr.tmid, tm->eng.addr.portal));
	}
	if (rc != 0 && LNetMDUnlink(s->eng.mdh) == 0) {
		s->eng.refused = rc; /* its UNLINK event says so */
		return 0;
	}
	return rc;
}

static bool
xprt_eng_peer_ok(const struct xprt_addr *a)
{
	return a->tmid >= 1 && a->tmid <= XPRT_TMID_MAX && a->portal < XPRT_PORTAL_MAX;
}

/*
 * An add as the front would have made it: what the engine must not trust
 * once the rings are shared with another process. A bad one completes its
 * buffer with -EINVAL and touches nothing else.
 */
static int
xprt_eng_add_check(const struct xprt_tm *tm, const struct xprt_buf_slot *s,
		   const struct xprt_op *op)
{
	if (op->qtype >= XPRT_Q_NR || op->length > s->size) {
		return -EINVAL;
	}
	switch (op->qtype) {
	case XPRT_Q_MSG_RECV:
		return op->min_recv == 0 || op->min_recv > op->length || op->max_msgs == 0 ||
				       op->max_msgs > INT32_MAX ?
			       -EINVAL :
			       0;
	case XPRT_Q_PASSIVE_RECV:
	case XPRT_Q_PASSIVE_SEND:
		/* Only under its own TMID, and never at the receive queue's id. */
		return op->length == 0 || xprt_mb_tmid(op->match_bits) != tm->eng.addr.tmid ||
				       xprt_mb_id(op->match_bits) == 0 ?
			       -EINVAL :
			       0;
	default:
		return op->length == 0 || !xprt_eng_peer_ok(&op->addr) ? -EINVAL : 0;
	}
}

static void
xprt_eng_buf_add(struct xprt_dom *dom, struct xprt_tm *tm, struct xprt_buf_slot *s,
		 const struct xprt_op *op)
{
	struct xprt_eng_buf *e = &s->eng;
	int rc;

	memset(e, 0, sizeof(*e));
	e->active = true;
	e->tm_slot = xprt_handle_slot(op->tm);
	e->qtype = op->qtype;
	e->deadline_ns = op->deadline_ns;
	e->niov = xprt_eng_iov(s, op->qtype == XPRT_Q_MSG_RECV ? s->size : op->length);
	tm->eng.active++;
	if (e->deadline_ns < dom->next_deadline_ns) {
		dom->next_deadline_ns = e->deadline_ns;
	}
	if (!tm->eng.started || tm->eng.stopping || tm->eng.failed != 0) {
		rc = -ESHUTDOWN; /* the front adds only to a started TM */
	} else if ((rc = xprt_eng_add_check(tm, s, op)) != 0) {
		/* rc says why */
	} else if (op->qtype <= XPRT_Q_PASSIVE_SEND && op->qtype != XPRT_Q_MSG_SEND) {
		rc = xprt_eng_post_recv(dom, tm, s, op);
	} else {
		rc = xprt_eng_post_active(dom, tm, s, op);
	}
	if (rc != 0) {
		xprt_eng_buf_done(dom, s, rc, 0, 0);
	}
}

static void
xprt_eng_buf_del(struct xprt_buf_slot *s, const struct xprt_op *op)
{
	if (s->eng.active && s->eng.tm_slot == xprt_handle_slot(op->tm)) {
		xprt_eng_cancel(s);
	}
}

static void
xprt_eng_op(struct xprt_dom *dom, const struct xprt_op *op)
{
	struct xprt_tm *tm = xprt_dom_tm(dom, op->tm);
	struct xprt_buf_slot *s = NULL;

	if (tm == NULL) {
		return; /* a handle that names no TM: dropped (a later slice fails the client) */
	}
	if (op->kind == XPRT_OP_BUF_ADD || op->kind == XPRT_OP_BUF_DEL) {
		s = xprt_dom_buf(dom, op->buf);
		if (s == NULL || (op->kind == XPRT_OP_BUF_ADD && s->eng.active)) {
			return;
		}
	}
	switch (op->kind) {
	case XPRT_OP_TM_START:
		xprt_eng_tm_start(tm, op);
		break;
	case XPRT_OP_TM_STOP:
		xprt_eng_tm_stop(dom, tm, op);
		break;
	case XPRT_OP_BUF_ADD:
		xprt_eng_buf_add(dom, tm, s, op);
		break;
	case XPRT_OP_BUF_DEL:
		xprt_eng_buf_del(s, op);
		break;
	default:
		break;
	}
}

unsigned int
xprt_engine_take_ops(struct xprt_dom *dom)
{
	struct xprt_op ops[XPRT_ENGINE_BURST];
	unsigned int n = rte_ring_sc_dequeue_burst_elem(dom->ops, ops, sizeof(ops[0]),
							XPRT_ENGINE_BURST, NULL);
	unsigned int i;

	for (i = 0; i < n; i++) {
		xprt_eng_op(dom, &ops[i]);
	}
	return n;
}

/* ---- LNet events ---- */

/*
 * A GET's SEND and REPLY may come in either order; whichever is last
 * (unlinked) completes the buffer, with the REPLY's length and status. A
 * last SEND with no REPLY is a GET cancelled before its answer.
 */
static void
xprt_eng_get_event(struct xprt_dom *dom, struct xprt_buf_slot *s, const struct lnet_event *lev)
{
	struct xprt_eng_buf *e = &s->eng;

	if (lev->type == LNET_EVENT_REPLY) {
		e->reply_seen = true;
		e->reply_status = lev->status;
		e->reply_len = lev->mlength;
		e->reply_off = lev->offset;
	} else if (lev->status != 0 && !lev->unlinked && e->refused == 0) {
		e->refused = lev->status; /* the GET never left: no REPLY will come */
		xprt_eng_cancel(s);
	}
	if (!lev->unlinked) {
		return;
	}
	if (e->reply_seen) {
		xprt_eng_buf_done(dom, s, e->reply_status, e->reply_len, e->reply_off);
	} else {
		xprt_eng_buf_done(dom, s,
				  lev->status != 0 ? lev->status : xprt_eng_cancel_status(e), 0, 0);
	}
}

/* A PUT into a receive or passive buffer, a GET from a passive one. */
static void
xprt_eng_target_event(struct xprt_dom *dom, struct xprt_buf_slot *s, const struct lnet_event *lev)
{
	struct xprt_ev ev = {
		.status = lev->status,
		.length = lev->mlength,
		.offset = lev->offset,
	};

	if (s->eng.qtype == XPRT_Q_MSG_RECV && lev->status == 0) {
		xprt_hdr_data_sender(lev->hdr_data, &lev->initiator.nid, lev->initiator.pid,
				     &ev.addr);
	}
	xprt_eng_buf_event(dom, s, &ev, lev->unlinked != 0);
}

static void
xprt_eng_lnet_event(struct xprt_dom *dom, const struct lnet_event *lev)
{
	struct xprt_buf_slot *s = xprt_dom_buf(dom, (uint64_t)(uintptr_t)lev->md_user_ptr);

	if (s == NULL || !s->eng.active || lev->type == LNET_EVENT_ACK) {
		return;
	}
	if (s->eng.qtype == XPRT_Q_ACTIVE_RECV &&
	    (lev->type == LNET_EVENT_SEND || lev->type == LNET_EVENT_REPLY)) {
		xprt_eng_get_event(dom, s, lev);
		return;
	}
	switch (lev->type) {
	case LNET_EVENT_UNLINK:
		xprt_eng_buf_done(dom, s, xprt_eng_cancel_status(&s->eng), 0, 0);
		break;
	case LNET_EVENT_SEND:
		if (lev->unlinked) {
			xprt_eng_buf_done(dom, s,
					  s->eng.refused != 0 ? s->eng.refused : lev->status,
					  lev->mlength, 0);
		}
		break;
	default:
		xprt_eng_target_event(dom, s, lev);
		break;
	}
}

static unsigned int
xprt_eng_lnet(struct xprt_dom *dom)
{
	struct lnet_event lev;
	unsigned int n;

	for (n = 0; n < XPRT_ENGINE_BURST; n++) {
		int rc = LNetEQPoll(&dom->eq, 1, 0, &lev, NULL);

		if (rc == -EOVERFLOW) {
			XPRT_LOG(ERR, "LNet events were lost on the domain's queue");
		} else if (rc != 1) {
			break;
		}
		xprt_eng_lnet_event(dom, &lev);
	}
	return n;
}

/* ---- deadlines ---- */

/* Cancel every buffer whose deadline passed; its -ECANCELED becomes -ETIMEDOUT. */
static void
xprt_eng_timeouts(struct xprt_dom *dom)
{
	uint64_t next = XPRT_NEVER;
	uint64_t now;
	unsigned int i;

	if (dom->next_deadline_ns == XPRT_NEVER) {
		return; /* no clock read on a pass with nothing to time */
	}
	now = xprt_dom_now(dom);
	if (now < dom->next_deadline_ns) {
		return;
	}
	for (i = 0; i < dom->opts.max_bufs; i++) {
		struct xprt_buf_slot *s = &dom->bufs[i];

		if (!s->eng.active || s->eng.timed_out || s->eng.deadline_ns == XPRT_NEVER) {
			continue;
		}
		if (s->eng.deadline_ns <= now) {
			s->eng.timed_out = true;
			xprt_eng_cancel(s);
		} else if (s->eng.deadline_ns < next) {
			next = s->eng.deadline_ns;
		}
	}
	dom->next_deadline_ns = next;
}

/* ---- the thread ---- */

/* Deliver the events of TMs in asynchronous mode. */
static unsigned int
xprt_eng_deliver(struct xprt_dom *dom)
{
	unsigned int hi = atomic_load(&dom->tms_hi);
	unsigned int n = 0;
	unsigned int i;

	for (i = 0; i < hi; i++) {
		struct xprt_tm *tm = dom->tms[i].tm;

		if (tm != NULL && !tm->sync) {
			n += (unsigned int)xprt_tm_deliver(tm, XPRT_ENGINE_BURST);
		}
	}
	return n;
}

/* TMs a pool left short, after the pool was signalled (it has buffers again). */
static void
xprt_eng_refill(struct xprt_dom *dom)
{
	unsigned int hi = atomic_load(&dom->tms_hi);
	unsigned int i;

	for (i = 0; i < hi; i++) {
		struct xprt_tm *tm = dom->tms[i].tm;
		uint64_t signals;

		if (tm == NULL || tm->pool == NULL) {
			continue;
		}
		signals = atomic_load(&tm->pool->signals);
		if (signals != tm->pool_signals_seen) {
			tm->pool_signals_seen = signals;
			if (atomic_load(&tm->deficit) > 0) {
				xprt_tm_provision(tm);
			}
		}
	}
}

/* Nothing to do: sleep until an operation comes, or a while (LNet's events are polled). */
static void
xprt_eng_nap(struct xprt_dom *dom)
{
	struct pollfd p = { .fd = dom->kick_fd, .events = POLLIN };
	uint64_t drained;

	atomic_store(&dom->engine_naps, 1);
	if (rte_ring_empty(dom->ops) && !atomic_load(&dom->stopping)) {
		(void)poll(&p, 1, XPRT_ENGINE_NAP_MS);
	}
	atomic_store(&dom->engine_naps, 0);
	if (read(dom->kick_fd, &drained, sizeof(drained)) < 0) {
		(void)errno; /* EAGAIN: nobody kicked */
	}
}

static void *
xprt_engine_main(void *arg)
{
	struct xprt_dom *dom = arg;

	while (!atomic_load(&dom->stopping)) {
		unsigned int work = xprt_engine_take_ops(dom);

		work += xprt_eng_lnet(dom);
		xprt_eng_timeouts(dom);
		xprt_eng_refill(dom);
		work += xprt_eng_deliver(dom);
		atomic_fetch_add(&dom->passes, 1);
		if (work == 0) {
			xprt_eng_nap(dom);
		}
	}
	return NULL;
}

/* The CPUs of @p mask as a set for pthread attributes; false if it names none. */
static bool
xprt_engine_cpuset(uint64_t mask, cpu_set_t *set)
{
	unsigned int cpu;

	CPU_ZERO(set);
	for (cpu = 0; cpu < 64; cpu++) {
		if ((mask & (UINT64_C(1) << cpu)) != 0) {
			CPU_SET(cpu, set);
		}
	}
	return CPU_COUNT(set) != 0;
}

int
xprt_engine_start(struct xprt_dom *dom)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int rc = pthread_attr_init(&attr);

	if (rc != 0) {
		return -rc;
	}
	/* Pinned from its first instruction, not moved after it started. */
	if (dom->opts.engine_cpus != 0 &&
	    (!xprt_engine_cpuset(dom->opts.engine_cpus, &set) ||
	     pthread_attr_setaffinity_np(&attr, sizeof(set), &set) != 0)) {
		pthread_attr_destroy(&attr);
		return -EINVAL;
	}
	rc = pthread_create(&dom->engine, &attr, xprt_engine_main, dom);
	pthread_attr_destroy(&attr);
	/* A set of CPUs none of which we may run on fails here. */
	return rc == 0 ? 0 : (rc == EINVAL ? -EINVAL : -rc);
}

void
xprt_engine_stop(struct xprt_dom *dom)
{
	static const uint64_t one = 1;

	atomic_store(&dom->stopping, true);
	if (write(dom->kick_fd, &one, sizeof(one)) < 0) {
		(void)errno;
	}
	pthread_join(dom->engine, NULL);
}

bool
xprt_engine_self(const struct xprt_dom *dom)
{
	return pthread_equal(pthread_self(), dom->engine) != 0;
}

/* Wait until the engine has begun and ended a pass since now: what was unpublished is unseen. */
void
xprt_engine_quiesce(struct xprt_dom *dom)
{
	static const uint64_t one = 1;
	uint64_t start = atomic_load(&dom->passes);

	if (write(dom->kick_fd, &one, sizeof(one)) < 0) {
		(void)errno;
	}
	while (atomic_load(&dom->passes) < start + 2) {
		sched_yield();
	}
}
