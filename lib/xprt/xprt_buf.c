/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Adding buffers to queues and deleting them, on the front: each queue's
 * preconditions, the event-ring slots an add reserves (so the engine never
 * finds a TM's ring full), a passive buffer's descriptor, an active one's
 * check, and the operation handed to the engine.
 */
#include <errno.h>
#include <string.h>

#include "xprt_internal.h"

/* Events an add may cause: one per message into a receive buffer, else one. */
static uint32_t
xprt_buf_events(const struct xprt_buf *buf)
{
	return buf->qtype == XPRT_Q_MSG_RECV ? buf->max_recv_msgs : 1;
}

static bool
xprt_buf_sends(enum xprt_qtype q)
{
	return q == XPRT_Q_MSG_SEND || q == XPRT_Q_PASSIVE_SEND || q == XPRT_Q_ACTIVE_SEND;
}

/* The fields each queue needs, as the seed's buffer_add checks them. */
static int
xprt_buf_fields(const struct xprt_buf *buf)
{
	if ((unsigned int)buf->qtype >= XPRT_Q_NR || buf->cbs == NULL ||
	    buf->cbs->done[buf->qtype] == NULL) {
		return -EINVAL;
	}
	if (xprt_buf_sends(buf->qtype) && (buf->length == 0 || buf->length > buf->size)) {
		return -EINVAL;
	}
	switch (buf->qtype) {
	case XPRT_Q_MSG_RECV:
		/* LNet refuses an MD whose per-message size exceeds it. */
		if (buf->min_recv_size == 0 || buf->max_recv_msgs == 0 ||
		    buf->min_recv_size > buf->size || buf->max_recv_msgs > INT32_MAX) {
			return -EINVAL;
		}
		return 0;
	case XPRT_Q_MSG_SEND:
		return buf->dest.tmid == 0 || buf->dest.tmid > XPRT_TMID_MAX ? -EINVAL : 0;
	case XPRT_Q_ACTIVE_RECV:
	case XPRT_Q_ACTIVE_SEND:
		return buf->desc.len == 0 ? -EINVAL : 0;
	default:
		return 0;
	}
}

/* A passive buffer: the next id of the TM, and the descriptor naming it. */
static int
xprt_buf_passive(struct xprt_tm *tm, struct xprt_buf *buf, struct xprt_op *op)
{
	struct xprt_desc_info info = {
		.addr = tm->addr,
		.qtype = buf->qtype,
		.size = buf->qtype == XPRT_Q_PASSIVE_RECV ? buf->size : buf->length,
	};

	tm->next_id = xprt_mb_id_next(tm->next_id);
	info.match_bits = xprt_mb_make(tm->addr.tmid, tm->next_id);
	op->match_bits = info.match_bits;
	op->length = info.size;
	return xprt_desc_encode(&info, &buf->desc);
}

/* An active buffer: the peer's descriptor checked against it; where and how much. */
static int
xprt_buf_active(struct xprt_buf *buf, struct xprt_op *op)
{
	struct xprt_desc_info info;
	uint64_t xfer = 0;
	int rc = xprt_desc_decode(&buf->desc, buf->qtype, buf->size, buf->length, &info, &xfer);

	if (rc != 0) {
		return rc;
	}
	op->match_bits = info.match_bits;
	op->addr = info.addr;
	op->length = xfer;
	return 0;
}

/* Under tm->lock: the operation for @p buf, per its queue. */
static int
xprt_buf_op(struct xprt_tm *tm, struct xprt_buf *buf, struct xprt_op *op)
{
	*op = (struct xprt_op){
		.kind = XPRT_OP_BUF_ADD,
		.qtype = buf->qtype,
		.tm = tm->handle,
		.buf = buf->handle,
		.length = buf->qtype == XPRT_Q_MSG_RECV ? buf->size : buf->length,
		.deadline_ns = buf->deadline_ns,
	};
	switch (buf->qtype) {
	case XPRT_Q_MSG_RECV:
		op->min_recv = buf->min_recv_size;
		op->max_msgs = buf->max_recv_msgs;
		return 0;
	case XPRT_Q_MSG_SEND:
		op->addr = buf->dest;
		return 0;
	case XPRT_Q_PASSIVE_RECV:
	case XPRT_Q_PASSIVE_SEND:
		return xprt_buf_passive(tm, buf, op);
	default:
		return xprt_buf_active(buf, op);
	}
}

/* Under tm->lock: reserve the event slots of @p buf, or -ENOBUFS. */
static int
xprt_buf_reserve(struct xprt_tm *tm, struct xprt_buf *buf)
{
	uint32_t n = xprt_buf_events(buf);

	if (n > tm->ev_budget - tm->reserved) {
		return -ENOBUFS;
	}
	tm->reserved += n;
	buf->reserved = n;
	return 0;
}

static int
xprt_buf_queue_locked(struct xprt_tm *tm, struct xprt_buf *buf, struct xprt_op *op)
{
	uint64_t now = xprt_dom_now(tm->dom);
	int rc;

	if (tm->state != XPRT_TM_STARTED) {
		return -EINVAL;
	}
	if (buf->deadline_ns != XPRT_NEVER && buf->deadline_ns <= now) {
		return -ETIME;
	}
	rc = xprt_buf_op(tm, buf, op);
	if (rc == 0) {
		rc = xprt_buf_reserve(tm, buf);
	}
	if (rc != 0) {
		return rc;
	}
	buf->flags |= XPRT_BUF_QUEUED;
	buf->tm = tm;
	buf->add_time_ns = now;
	tm->queued[buf->qtype]++;
	tm->stats[buf->qtype].adds++;
	return 0;
}

int
xprt_buf_add(struct xprt_tm *tm, struct xprt_buf *buf)
{
	struct xprt_op op;
	int rc;

	if (tm == NULL || buf == NULL || buf->flags != XPRT_BUF_REGISTERED || buf->dom != tm->dom) {
		return -EINVAL;
	}
	rc = xprt_buf_fields(buf);
	if (rc != 0) {
		return rc;
	}
	/*
	 * Submitted under the lock: a stop after this add reaches the engine
	 * after it (unless the op ring was full: then an add a stop overtook
	 * while it waited ends -ESHUTDOWN, an event like any other).
	 */
	pthread_mutex_lock(&tm->lock);
	rc = xprt_buf_queue_locked(tm, buf, &op);
	if (rc == 0) {
		xprt_op_submit_held(tm->dom, &op, &tm->lock);
	}
	pthread_mutex_unlock(&tm->lock);
	return rc;
}

bool
xprt_buf_del(struct xprt_tm *tm, struct xprt_buf *buf)
{
	struct xprt_op op = { .kind = XPRT_OP_BUF_DEL };
	bool queued;

	if (tm == NULL || buf == NULL) {
		return false;
	}
	pthread_mutex_lock(&tm->lock);
	queued = (buf->flags & XPRT_BUF_QUEUED) != 0 && buf->tm == tm;
	if (queued && (buf->flags & XPRT_BUF_CANCELLED) == 0) {
		buf->flags |= XPRT_BUF_CANCELLED;
		tm->stats[buf->qtype].dels++;
		op.tm = tm->handle;
		op.buf = buf->handle;
		xprt_op_submit_held(tm->dom, &op, &tm->lock);
	}
	pthread_mutex_unlock(&tm->lock);
	return queued;
}
