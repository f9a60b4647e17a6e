/* SPDX-License-Identifier: BSD-3-Clause */
/* Serialised operations (rt_op.h). */
#include <errno.h>
#include <stdbool.h>

#include "rt_op.h"
#include "rt_wait.h"

void
rt_op_queue_init(struct rt_op_queue *q, struct rt_lcore *lc)
{
	TAILQ_INIT(&q->ops);
	q->lc = lc;
}

void
rt_op_submit(struct rt_op_queue *q, struct rt_op *op)
{
	bool idle = TAILQ_EMPTY(&q->ops);

	op->q = q;
	TAILQ_INSERT_TAIL(&q->ops, op, link);
	if (idle) {
		op->start(op);
	}
}

void
rt_op_done(struct rt_op *op, int rc)
{
	struct rt_op_queue *q = op->q;
	struct rt_op *next;

	TAILQ_REMOVE(&q->ops, op, link);
	op->rc = rc;
	__atomic_store_n(&op->done, 1, __ATOMIC_RELEASE); /* op is the submitter's from here */
	next = TAILQ_FIRST(&q->ops);
	if (next != NULL) {
		next->start(next);
	}
}

/* On the queue's lcore: the operation rt_op_run() sent. */
static void
rt_op_submit_msg(void *arg)
{
	struct rt_op *op = arg;

	rt_op_submit(op->q, op);
}

static bool
rt_op_is_done(void *arg)
{
	const struct rt_op *op = arg;

	return __atomic_load_n(&op->done, __ATOMIC_ACQUIRE) != 0;
}

int
rt_op_run(struct rt_op_queue *q, struct rt_op *op)
{
	struct rt_runtime *rt = rt_lcore_runtime(q->lc);

	if (rt_lcore_self() != NULL) {
		return -EDEADLK;
	}
	op->q = q;
	op->rc = 0;
	op->done = 0;
	rt_wait_send_msg(q->lc, rt_op_submit_msg, op);
	rt_wait_for(rt, rt_op_is_done, op);
	return op->rc;
}
