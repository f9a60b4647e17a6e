/* SPDX-License-Identifier: BSD-3-Clause */
/* Table-driven state machines (rt_fsm.h). */
#include <rte_log.h>

#include "rt_fsm.h"

int
rt_fsm_next(const struct rt_fsm *f, unsigned int state, unsigned int ev)
{
	if (state >= f->nstates || ev >= f->nevents) {
		return RT_FSM_NONE;
	}
	return f->table[state * f->nevents + ev];
}

const char *
rt_fsm_state_str(const struct rt_fsm *f, unsigned int state)
{
	return state < f->nstates ? f->states[state] : "?";
}

const char *
rt_fsm_event_str(const struct rt_fsm *f, unsigned int ev)
{
	return ev < f->nevents ? f->events[ev] : "?";
}

int
rt_fsm_step(const struct rt_fsm *f, int logtype, const char *who, unsigned int state,
	    unsigned int ev, uint64_t *counts)
{
	int next = rt_fsm_next(f, state, ev);

	if (next == RT_FSM_NONE) {
		rte_log(RTE_LOG_DEBUG, (uint32_t)logtype, "%s %s: %s refused in %s\n", f->name, who,
			rt_fsm_event_str(f, ev), rt_fsm_state_str(f, state));
		return RT_FSM_NONE;
	}
	if ((unsigned int)next != state) {
		rte_log(RTE_LOG_DEBUG, (uint32_t)logtype, "%s %s: %s -%s-> %s\n", f->name, who,
			rt_fsm_state_str(f, state), rt_fsm_event_str(f, ev),
			rt_fsm_state_str(f, (unsigned int)next));
		if (counts != NULL) {
			counts[next]++;
		}
	}
	return next;
}
