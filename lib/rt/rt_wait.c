/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Waits of threads that are not lcores (rt_wait.h): the one place that
 * tells the backends apart for them.
 */
#include <sched.h>
#include <stdint.h>
#include <unistd.h>

#include "rt_wait.h"

void
rt_wait_turn(struct rt_runtime *rt)
{
	if (rt_runtime_caller_polls(rt)) {
		rt_runtime_poll_until_idle(rt,
					   1); /* the lcores move only when this thread runs them */
	} else {
		sched_yield();
	}
}

void
rt_wait_for(struct rt_runtime *rt, bool (*cond)(void *arg), void *arg)
{
	while (!rt_wait_until(rt, cond, arg, UINT64_MAX)) {
		/* Only SIM gives up on "forever": what is left waits for the clock. */
		if (rt_runtime_mode(rt) == RT_MODE_SIM) {
			rt_sim_advance_us(rt, RT_WAIT_SIM_TICK_US);
		}
	}
}

bool
rt_wait_driving(struct rt_runtime *rt, bool (*cond)(void *arg), void *arg, uint64_t timeout_us)
{
	if (rt_runtime_mode(rt) == RT_MODE_SIM) {
		return rt_wait_until(rt, cond, arg,
				     timeout_us); /* it polls before it looks at time */
	}
	/* POLLED: rt_wait_until looks at the clock first; a timeout of 0 would run nothing. */
	rt_runtime_poll_until_idle(rt, 1);
	return timeout_us != 0 ? rt_wait_until(rt, cond, arg, timeout_us) : cond(arg);
}

void
rt_wait_send_msg(struct rt_lcore *dst, rt_msg_fn fn, void *ctx)
{
	while (rt_lcore_send_msg(dst, fn, ctx) != 0) {
		rt_wait_turn(rt_lcore_runtime(dst));
	}
}

void
rt_wait_pace(struct rt_runtime *rt, unsigned int us)
{
	if (!rt_runtime_caller_polls(rt)) {
		usleep(us);
	}
}

void
rt_wait_settle(struct rt_runtime *rt)
{
	if (rt_runtime_caller_polls(rt)) {
		rt_runtime_poll_until_idle(rt, UINT32_MAX);
	}
}
