/* SPDX-License-Identifier: BSD-3-Clause */
/* The reliable hop (rt_hop.h): a refused message retried from a timer. */
#include "rt_hop.h"

static void
rt_hop_retry(void *arg)
{
	struct rt_hop *hop = arg;

	if (rt_lcore_send_msg(hop->dst, hop->fn, hop->ctx) != 0) {
		rt_timer_arm(&hop->retry, RT_HOP_RETRY_US);
	}
}

void
rt_hop_send(struct rt_hop *hop, struct rt_lcore *dst, rt_msg_fn fn, void *ctx)
{
	hop->dst = dst;
	hop->fn = fn;
	hop->ctx = ctx;
	if (rt_lcore_send_msg(dst, fn, ctx) != 0) {
		rt_timer_init(&hop->retry, rt_hop_retry, hop);
		rt_timer_arm(&hop->retry, RT_HOP_RETRY_US);
	}
}
