/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The reliable hop: a message from one lcore to another that a full ring
 * cannot lose. rt_lcore_send_msg() fails when the destination's ring is
 * full; a hop then retries from a timer on the sending lcore until the
 * ring takes it. The caller embeds the struct rt_hop in the object the
 * message carries, so no allocation is needed and none can fail.
 *
 * Not installed: the runtime's own facilities and LNet use it.
 */
#ifndef RT_HOP_H
#define RT_HOP_H

#include "rt.h"

LNP_BEGIN_DECLS

/** How long a hop waits before it offers a refused message to the ring again. */
#define RT_HOP_RETRY_US 100U

/**
 * One hop in flight. Fields are private to lib/rt; the struct is free
 * again once fn has started on the destination (one hop at a time).
 */
struct rt_hop {
	struct rt_timer retry;
	struct rt_lcore *dst;
	rt_msg_fn fn;
	void *ctx;
};

/**
 * Run fn(ctx) on @p dst, retrying every RT_HOP_RETRY_US while its ring is
 * full. Call on a logical lcore (the retry timer is armed on it). Messages
 * a ring refused may run after later ones that it took: hops do not keep
 * order (struct rt_outbox does).
 */
void rt_hop_send(struct rt_hop *hop, struct rt_lcore *dst, rt_msg_fn fn, void *ctx);

LNP_END_DECLS

#endif /* RT_HOP_H */
