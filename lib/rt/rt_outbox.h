/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The ordered outbox: hand-offs from one lcore to others that no full ring
 * loses and that arrive in the order they were sent. Each destination is a
 * lcore and the handler its items run with there. An item the ring refuses
 * waits in the destination's queue, and so does every later item for that
 * destination, until a poller on the outbox's lcore gets them into the
 * ring, oldest first.
 *
 * Items are intrusive: the caller's object embeds a struct rt_outbox_item
 * (it may share the memory of a link the object uses only while it is in
 * no outbox), and the handler gets the object's own pointer, given at
 * queueing. lib/rt knows nothing else of it.
 *
 * Not installed: the runtime's own facilities and LNet use it.
 */
#ifndef RT_OUTBOX_H
#define RT_OUTBOX_H

#include <stdbool.h>
#include <sys/queue.h>

#include "rt.h"

LNP_BEGIN_DECLS

/** The link an object carries while it waits in an outbox (two pointers). */
struct rt_outbox_item {
	STAILQ_ENTRY(rt_outbox_item) next;
	void *ctx; /**< what the destination's handler gets */
};
STAILQ_HEAD(rt_outbox_items, rt_outbox_item);

/** One destination of an outbox. Private to lib/rt. */
struct rt_outbox_dst {
	struct rt_outbox_items waiting; /**< refused, or behind one that was */
	struct rt_lcore *lc;
	rt_msg_fn fn;
};

/** An outbox, owned and polled by one lcore. Fields are private to lib/rt. */
struct rt_outbox {
	struct rt_outbox_dst *dst; /**< [destination] */
	unsigned int n;            /**< destinations; 0 before rt_outbox_init() */
	unsigned int queued;       /**< items waiting for any of them: the poller's idle test */
	struct rt_poller *poller;
};

/**
 * An outbox of @p n destinations polled by @p lc, each to be named with
 * rt_outbox_set_dst() before its first item. Call on @p lc or before the
 * runtime starts. @return 0, -EINVAL (n is 0), -ENOMEM
 */
int rt_outbox_init(struct rt_outbox *o, struct rt_lcore *lc, unsigned int n, const char *name);

/** Destination @p i: fn(ctx) runs on @p lc for each item sent there. */
void rt_outbox_set_dst(struct rt_outbox *o, unsigned int i, struct rt_lcore *lc, rt_msg_fn fn);

/** True between rt_outbox_init() and rt_outbox_fini(). */
bool rt_outbox_ready(const struct rt_outbox *o);

/**
 * On the outbox's lcore: @p it (with @p ctx) waits behind what waits for
 * destination @p i already. rt_outbox_send()'s slow path.
 */
void rt_outbox_hold(struct rt_outbox *o, unsigned int i, struct rt_outbox_item *it, void *ctx);

/**
 * On the outbox's lcore: fn(@p ctx) on destination @p i's lcore, in order
 * behind every item sent there before. @p it is the object's link; it must
 * stay valid, and on no queue that shares its memory, until the handler
 * runs. Inline: on the message path, nothing waits and the ring has room.
 */
static inline void
rt_outbox_send(struct rt_outbox *o, unsigned int i, struct rt_outbox_item *it, void *ctx)
{
	const struct rt_outbox_dst *d = &o->dst[i];

	if (__builtin_expect(STAILQ_EMPTY(&d->waiting), 1) &&
	    __builtin_expect(rt_lcore_send_msg(d->lc, d->fn, ctx) == 0, 1)) {
		return;
	}
	rt_outbox_hold(o, i, it, ctx);
}

/** Items waiting for destination @p i. */
bool rt_outbox_waiting(const struct rt_outbox *o, unsigned int i);

/**
 * Unregister the poller and free the queues. Items still waiting are
 * dropped (their memory is the caller's). On its lcore, or after the
 * runtime stopped; safe on an outbox never initialised (zeroed).
 */
void rt_outbox_fini(struct rt_outbox *o);

LNP_END_DECLS

#endif /* RT_OUTBOX_H */
