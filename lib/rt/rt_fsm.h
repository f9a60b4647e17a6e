/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Explicit state machines: a transition table, names, and the one way a
 * state changes (rt_fsm_step): by the table, with a DEBUG line per change
 * and a count per state entered. Every FSM of the project (handshake,
 * connection, peer; discovery, health and routers to come) is one of these,
 * so they log, count and are tested alike.
 */
#ifndef RT_FSM_H
#define RT_FSM_H

#include <stdint.h>

#include "lnp_api.h"

LNP_BEGIN_DECLS

/** No transition: the event is refused in that state. */
#define RT_FSM_NONE (-1)

/** A state machine's description; constant, shared by all its instances. */
struct rt_fsm {
	const char *name; /**< for logs: "handshake", "conn", "peer" */
	unsigned int nstates;
	unsigned int nevents;
	const int8_t *table;       /**< [state * nevents + event]: next state or RT_FSM_NONE */
	const char *const *states; /**< nstates names */
	const char *const *events; /**< nevents names */
};

/** The state @p ev leads to from @p state, or RT_FSM_NONE (also when out of range). */
LNP_API int rt_fsm_next(const struct rt_fsm *f, unsigned int state, unsigned int ev);

/** Name of a state, "?" when out of range. */
LNP_API const char *rt_fsm_state_str(const struct rt_fsm *f, unsigned int state);

/** Name of an event, "?" when out of range. */
LNP_API const char *rt_fsm_event_str(const struct rt_fsm *f, unsigned int ev);

/**
 * Apply @p ev to an instance in @p state. A change is logged at DEBUG on
 * @p logtype as "<name> <who>: from -event-> to" and counted in
 * counts[to] (counts may be NULL); staying in the same state is neither; a
 * refusal is logged and changes nothing.
 * @return the new state (assign it), or RT_FSM_NONE when refused
 */
LNP_API int rt_fsm_step(const struct rt_fsm *f, int logtype, const char *who, unsigned int state,
			unsigned int ev, uint64_t *counts);

LNP_END_DECLS

#endif /* RT_FSM_H */
