/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * How a thread that is not a logical lcore (the application's, a control
 * thread's) waits for the lcores, in every backend alike. Where no thread
 * runs the lcores (RT_MODE_SIM, RT_MODE_POLLED) the waiting thread runs
 * them; in RT_MODE_THREADS it leaves its CPU to them. The callers need not
 * know which backend runs.
 *
 * Not installed: the runtime's own facilities and LNet use it.
 */
#ifndef RT_WAIT_H
#define RT_WAIT_H

#include <stdbool.h>
#include <stdint.h>

#include "rt.h"

LNP_BEGIN_DECLS

/**
 * In SIM, once the lcores stand still and the wait is not over, the
 * virtual clock moves on by this much: a timer waits for it, and only the
 * waiting thread moves the clock.
 */
#define RT_WAIT_SIM_TICK_US 1000U

/**
 * One turn of a waiting thread: where it runs the lcores (SIM, POLLED), one
 * round of every lcore's loop; in THREADS, sched_yield() (a lcore it waits
 * for may share its CPU). For a wait that only the lcores' work ends, such
 * as a full ring draining: the virtual clock does not move.
 */
void rt_wait_turn(struct rt_runtime *rt);

/**
 * Wait until cond(arg) holds, from a thread that is not a lcore, for as
 * long as it takes. SIM and POLLED run the lcores meanwhile (SIM moving
 * the virtual clock by RT_WAIT_SIM_TICK_US whenever a rt_wait_until() of
 * them ends without cond); THREADS spins briefly, then sleeps with
 * back-off (rt_wait_until()).
 */
void rt_wait_for(struct rt_runtime *rt, bool (*cond)(void *arg), void *arg);

/**
 * For a thread that runs the lcores (rt_runtime_caller_polls()): run them
 * until cond(arg) holds or @p timeout_us passes (UINT64_MAX: forever), at
 * least one round even for a timeout of 0, so that a caller that only
 * looks still lets the lcores move. SIM spends the timeout in virtual time
 * (rt_wait_until()); POLLED on the real clock.
 * @return true if cond holds
 */
bool rt_wait_driving(struct rt_runtime *rt, bool (*cond)(void *arg), void *arg,
		     uint64_t timeout_us);

/**
 * Queue fn(ctx) on @p dst from a thread that is not a lcore, taking turns
 * (rt_wait_turn()) while its ring is full: nothing is lost.
 */
void rt_wait_send_msg(struct rt_lcore *dst, rt_msg_fn fn, void *ctx);

/**
 * A pause of @p us between two looks at something a lcore answers (a look
 * that costs the lcore a call): in THREADS the lcores move meanwhile, so
 * the thread sleeps; where this thread runs them (SIM, POLLED) nothing
 * moves while it sleeps, so it does not.
 */
void rt_wait_pace(struct rt_runtime *rt, unsigned int us);

/**
 * Before the lcores are torn down: where this thread runs them (SIM,
 * POLLED), run them until a round does no work; in THREADS their own
 * threads run them, and this returns at once.
 */
void rt_wait_settle(struct rt_runtime *rt);

LNP_END_DECLS

#endif /* RT_WAIT_H */
