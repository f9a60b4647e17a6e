/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Serialised operations: long operations (several hops between lcores,
 * timers) that run on one lcore one at a time, in the order they were
 * submitted, as SPDK's RPCs run on their reactor. An operation starts when
 * the one before it is done; a thread that is not a lcore may submit one
 * and wait until it is over (rt_op_run()), or a lcore may queue one that
 * nobody waits for (rt_op_submit()).
 *
 * Not installed: the runtime's own facilities and LNet use it.
 */
#ifndef RT_OP_H
#define RT_OP_H

#include <sys/queue.h>

#include "rt.h"

LNP_BEGIN_DECLS

struct rt_op;

/** The operations of one lcore: the head one runs. Owned by that lcore. */
struct rt_op_queue {
	TAILQ_HEAD(, rt_op) ops;
	struct rt_lcore *lc;
};

/**
 * One operation, embedded in the caller's (its start function finds its
 * own with container_of or a first-member cast). Fields but start are
 * private to lib/rt.
 */
struct rt_op {
	TAILQ_ENTRY(rt_op) link;
	struct rt_op_queue *q;
	void (*start)(struct rt_op *op); /**< on the queue's lcore, when its turn comes */
	int rc;
	int done; /* atomic, set last: the submitter owns op again */
};

/** An empty queue whose operations run on @p lc. */
void rt_op_queue_init(struct rt_op_queue *q, struct rt_lcore *lc);

/**
 * On the queue's lcore: @p op (its start set) runs when the ones before it
 * are done; at once when there are none.
 */
void rt_op_submit(struct rt_op_queue *q, struct rt_op *op);

/** On the queue's lcore: @p op is over with @p rc; the next one starts. */
void rt_op_done(struct rt_op *op, int rc);

/**
 * From a thread that is not a lcore: submit @p op (its start set) and wait
 * until it is done (rt_wait_for()).
 * @return the rc given to rt_op_done(), or -EDEADLK when called on a lcore
 *         (it would wait on itself, or stall its loop)
 */
int rt_op_run(struct rt_op_queue *q, struct rt_op *op);

LNP_END_DECLS

#endif /* RT_OP_H */
